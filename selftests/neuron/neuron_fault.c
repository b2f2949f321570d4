// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: allocation failures in the driver's operations.
 *
 * For N = 1, 2, ... the N-th allocation of one operation is made to fail
 * through /proc/thread-self/fail-nth (Documentation/fault-injection/), until
 * the operation runs through without an injected failure. Operations:
 * creating a simulated device (a write to new_device), opening a device and
 * a QUERY. After each attempt the operation must have either succeeded or
 * failed with ENOMEM, a failed creation must leave no device behind (no
 * sysfs entry, no class device, no minor taken), and the devices must still
 * work at the end.
 *
 * Needs a kernel with CONFIG_FAULT_INJECTION, FAILSLAB and FAIL_PAGE_ALLOC,
 * debugfs mounted, and failslab/ignore-gfp-wait set to N (otherwise the
 * GFP_KERNEL allocations of the driver are never failed); skips otherwise.
 * The kernel may print "FAULT_INJECTION: forcing a failure" for each
 * injected failure (the "verbose" knob of failslab/fail_page_alloc).
 */
#include <dirent.h>

#include "neuron_test.h"

#define FAIL_NTH	"/proc/thread-self/fail-nth"
#define FAILSLAB_WAIT	"/sys/kernel/debug/failslab/ignore-gfp-wait"
/* More allocations than any one operation makes. */
#define MAX_NTH		2000U

/* Skip unless fail-nth can fail the allocations of the driver. */
static void require_fault_injection(struct __test_metadata *_metadata)
{
	char text[8] = "";

	if (access(FAIL_NTH, W_OK))
		NEURON_SKIP_SETUP("no %s: kernel without CONFIG_FAULT_INJECTION", FAIL_NTH);
	if (neuron_read_text(FAILSLAB_WAIT, text, sizeof(text)) || text[0] != 'N')
		NEURON_SKIP_SETUP("%s is not N: sleeping allocations never fail",
				  FAILSLAB_WAIT);
}

/* Arm fail-nth: the @nth allocation from now on, in this thread, fails. */
static void arm(struct __test_metadata *_metadata, int fd, unsigned int nth)
{
	char text[16];
	int len = snprintf(text, sizeof(text), "%u", nth);

	ASSERT_EQ(len, pwrite(fd, text, len, 0));
}

/* Disarm fail-nth; true if the armed failure was injected. */
static bool disarm(struct __test_metadata *_metadata, int fd)
{
	char text[16] = "";

	ASSERT_LT(0, pread(fd, text, sizeof(text) - 1, 0));
	ASSERT_EQ(1, pwrite(fd, "0", 1, 0));
	return atoi(text) == 0;
}

/* Number of entries in the folder @path, "." and ".." left out. */
static int count_entries(const char *path)
{
	struct dirent *de;
	int n = 0;
	DIR *d = opendir(path);

	if (!d)
		return -1;
	while ((de = readdir(d)))
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Create sim device @id without fault injection, check it, return its minor. */
static unsigned int create_and_check(struct __test_metadata *_metadata,
				     unsigned int id)
{
	struct neuron_device_info info;
	struct neuron_node n;
	unsigned int minor;

	ASSERT_EQ(0, neuron_sim_create_id(&n, id, "v2", 0));
	ASSERT_EQ(0, neuron_node_open(&n)) TH_LOG("open %s", n.path);
	EXPECT_EQ(0, neuron_query_info(n.fd, &info, NULL));
	EXPECT_EQ(id, info.sim_id);
	minor = n.minor;
	close(n.fd);
	n.fd = -1;
	EXPECT_EQ(0, neuron_sim_remove(&n));
	return minor;
}

FIXTURE(fault) {
	int nth_fd;
	struct neuron_node node;
};

FIXTURE_SETUP(fault)
{
	self->nth_fd = -1;
	neuron_node_init(&self->node);
	require_fault_injection(_metadata);
	self->nth_fd = open(FAIL_NTH, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->nth_fd);
}

FIXTURE_TEARDOWN(fault)
{
	/* A failed assertion may have left fail-nth armed. */
	if (self->nth_fd >= 0) {
		if (pwrite(self->nth_fd, "0", 1, 0) != 1)
			TH_LOG("cannot disarm %s", FAIL_NTH);
		close(self->nth_fd);
	}
	neuron_node_release(&self->node);
}

/* Creating a simulated device: a write of "ID v2" to new_device. */
TEST_F(fault, sim_create)
{
	int devices, classes, fd, err = 0;
	unsigned int nth, id, minor, injected = 0, created = 0;
	char text[32];
	bool fired;

	neuron_require_sim(_metadata);
	id = neuron_sim_next_id();
	minor = create_and_check(_metadata, id);
	devices = count_entries(NEURON_SIM_BUS "/devices");
	classes = count_entries("/sys/class/neuron");
	snprintf(text, sizeof(text), "%u v2\n", id);

	for (nth = 1; nth <= MAX_NTH; nth++) {
		fd = open(NEURON_SIM_BUS "/new_device", O_WRONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		arm(_metadata, self->nth_fd, nth);
		err = write(fd, text, strlen(text)) < 0 ? errno : 0;
		fired = disarm(_metadata, self->nth_fd);
		close(fd);
		injected += fired;
		if (!err && !fired)
			break;
		if (err) {
			/* A failure must come from the injection, cleanly. */
			ASSERT_TRUE(fired) TH_LOG("nth %u: %s without an injected failure",
						  nth, strerror(err));
			ASSERT_EQ(ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(err));
			ASSERT_FALSE(neuron_sim_exists(id))
				TH_LOG("nth %u: half-created device", nth);
			ASSERT_EQ(devices, count_entries(NEURON_SIM_BUS "/devices"));
			ASSERT_EQ(classes, count_entries("/sys/class/neuron"))
				TH_LOG("nth %u: a class device was left behind", nth);
		} else {
			/* Created although an allocation failed: it must be whole. */
			created++;
			ASSERT_TRUE(neuron_sim_exists(id));
			ASSERT_EQ(0, neuron_sim_del(id)) TH_LOG("nth %u", nth);
		}
	}
	ASSERT_GE(MAX_NTH, nth) TH_LOG("still failing after %u injected failures", MAX_NTH);
	ASSERT_EQ(0, neuron_sim_del(id));
	TH_LOG("%u injected failures, %u of them absorbed", injected, created);
	/* Creation allocates memory: zero injections means no fault injection. */
	ASSERT_LT(0U, injected);
	/* Nothing leaked a minor: a new device gets the same one again. */
	EXPECT_EQ(minor, create_and_check(_metadata, id));
}

/* Opening /dev/neuronN. */
TEST_F(fault, open)
{
	struct neuron_device_info info;
	unsigned int nth, injected = 0;
	bool fired;
	int fd, err;

	neuron_setup_node(_metadata, &self->node, "v2", 0);
	for (nth = 1; nth <= MAX_NTH; nth++) {
		arm(_metadata, self->nth_fd, nth);
		fd = open(self->node.path, O_RDWR | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		fired = disarm(_metadata, self->nth_fd);
		injected += fired;
		if (fd >= 0) {
			EXPECT_EQ(0, neuron_query_info(fd, &info, NULL)) TH_LOG("nth %u", nth);
			close(fd);
			if (!fired)
				break;
			continue;
		}
		ASSERT_TRUE(fired) TH_LOG("nth %u: %s without an injected failure",
					  nth, strerror(err));
		ASSERT_EQ(ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(err));
	}
	ASSERT_GE(MAX_NTH, nth);
	TH_LOG("%u injected failures", injected);
	ASSERT_LT(0U, injected);
	EXPECT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
}

/* NEURON_IOCTL_QUERY on an open device (it may allocate nothing at all). */
TEST_F(fault, query)
{
	struct neuron_device_info info;
	unsigned int nth, injected = 0;
	bool fired;
	int err;

	neuron_setup_node(_metadata, &self->node, "v2", 0);
	for (nth = 1; nth <= MAX_NTH; nth++) {
		arm(_metadata, self->nth_fd, nth);
		err = neuron_query_info(self->node.fd, &info, NULL);
		fired = disarm(_metadata, self->nth_fd);
		injected += fired;
		if (!err && !fired)
			break;
		if (err) {
			ASSERT_TRUE(fired) TH_LOG("nth %u: %s without an injected failure",
						  nth, strerror(-err));
			ASSERT_EQ(-ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(-err));
		}
	}
	ASSERT_GE(MAX_NTH, nth);
	TH_LOG("%u injected failures", injected);
	EXPECT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
	EXPECT_STREQ("v2", info.arch_name);
}

TEST_HARNESS_MAIN
