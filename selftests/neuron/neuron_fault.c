// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: allocation failures in the driver's operations.
 *
 * For N = 1, 2, ... the N-th allocation of one operation is made to fail
 * through /proc/thread-self/fail-nth (Documentation/fault-injection/), until
 * the operation runs through without an injected failure. Operations:
 * creating a simulated device (a write to new_device), opening a device, a
 * QUERY, and the data path: MEM_ALLOC of device and host memory, COPY from
 * user memory (synchronous, and asynchronous with WAIT), COPY between
 * objects, MEMSET, NOTIFY_SETUP; MODEL_LOAD and EXECUTE (a matmul
 * model, submit-and-wait). After each attempt the operation must have
 * either succeeded or failed with ENOMEM; a failed creation must leave no
 * device behind (no sysfs entry, no class device, no minor taken), a failed
 * data-path call must leave the file's memory usage, its handles and the
 * process's pinned pages (VmPin) as they were; the devices must still work
 * at the end.
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

/*
 * Create sim device @id without fault injection, check it, return its
 * minor. The device stays if @keep (the caller deletes it), else it is
 * deleted again.
 */
static unsigned int create_and_check(struct __test_metadata *_metadata,
				     unsigned int id, bool keep)
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
	if (!keep)
		EXPECT_EQ(0, neuron_sim_remove(&n));
	return minor;
}

/*
 * Whether minor @minor is free: minors are the lowest free ones, so a new
 * device gets @minor unless a lower one is free. A lower one can become
 * free at any time (a device of an earlier test is released when its last
 * reference goes, which may be after its process exited), so the devices
 * that get lower minors are kept until one gets @minor or a higher one.
 * Uses the IDs from @id on.
 */
static bool minor_is_free(struct __test_metadata *_metadata,
			  unsigned int minor, unsigned int id)
{
	unsigned int got = 0, i, n;

	for (n = 0; n < 16; n++) {
		got = create_and_check(_metadata, id + n, true);
		if (got >= minor)
			break;
		TH_LOG("minor %u freed by an earlier device meanwhile", got);
	}
	for (i = 0; i <= n && i < 16; i++)
		EXPECT_EQ(0, neuron_sim_del(id + i));
	if (got != minor)
		TH_LOG("a new device got minor %u, not %u", got, minor);
	return got == minor;
}

FIXTURE(fault) {
	int nth_fd;
	struct neuron_node node;
	__u32 dev, host;		/* objects of DATA bytes (data path) */
	unsigned char *a, *b;		/* user buffers of DATA + 64 bytes */
};

#define DATA	(3U << 20)	/* more than one window of pinned pages */

FIXTURE_SETUP(fault)
{
	self->nth_fd = -1;
	self->a = NULL;
	self->b = NULL;
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
	free(self->a);
	free(self->b);
	neuron_node_release(&self->node);
}

/*
 * Creating a simulated device: a write of "ID v2" to new_device. Some
 * hundreds of allocations (the device, its cores' sysfs and debugfs
 * entries), each failed in turn: on the debug kernel under emulation each
 * attempt takes about 0.1 s, so the harness's default 30 s is not enough,
 * and with the debug tier's two boots sharing the host's two cores 300 s
 * were not either (the 32-bit run).
 */
TEST_F_TIMEOUT(fault, sim_create, 900)
{
	int devices, classes, fd, err = 0;
	unsigned int nth, id, minor, injected = 0, created = 0;
	char text[32];
	bool fired;
	__s64 t0;

	neuron_require_sim(_metadata);
	t0 = neuron_now_ns();
	id = neuron_sim_next_id();
	minor = create_and_check(_metadata, id, false);
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
	TH_LOG("%u injected failures, %u of them absorbed, in %lld ms", injected, created,
	       (long long)((neuron_now_ns() - t0) / 1000000));
	/* Creation allocates memory: zero injections means no fault injection. */
	ASSERT_LT(0U, injected);
	/* Nothing leaked a minor: the first device's is free again. */
	EXPECT_TRUE(minor_is_free(_metadata, minor, id));
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

/* ---- the data path ---- */

/*
 * A v2 device with memory, two objects and two user buffers of patterns;
 * false if the test is skipped.
 */
static bool data_setup(struct __test_metadata *_metadata,
		       struct _test_data_fault *self)
{
	struct neuron_device_info info;
	struct neuron_mem_alloc m;
	unsigned int i;

	neuron_setup_node(_metadata, &self->node, "v2", 256);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
	if (!(info.caps & NEURON_CAP_COPY))
		SKIP(return false, "%s has no NEURON_CAP_COPY", self->node.path);
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, DATA, 0, &m));
	self->dev = m.handle;
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_HOST, DATA, 0, &m));
	self->host = m.handle;
	self->a = malloc(DATA + 64);
	self->b = calloc(1, DATA + 64);
	ASSERT_NE(NULL, self->a);
	ASSERT_NE(NULL, self->b);
	for (i = 0; i < DATA + 64; i++)
		self->a[i] = i * 7 + i / 4093;
	return true;
}

/* COPY, then WAIT for it if @flags asks for an asynchronous one. */
static int copy_wait(struct _test_data_fault *self, __u32 src, __u32 dst,
		     const void *sptr, void *dptr, __u64 size, __u32 flags)
{
	struct neuron_copy c = {
		.src_handle = src, .dst_handle = dst,
		.src_ptr = (uintptr_t)sptr, .dst_ptr = (uintptr_t)dptr,
		.size = size, .flags = flags,
	};
	struct neuron_wait w = { .timeout_ns = ~0ULL >> 1 };
	int err = neuron_ioctl(self->node.fd, NEURON_IOCTL_COPY, &c);

	if (err || !(flags & NEURON_COPY_ASYNC))
		return err;
	w.seqno = c.seqno;
	return neuron_ioctl(self->node.fd, NEURON_IOCTL_WAIT, &w);
}

/*
 * After an injected failure the device still works: an asynchronous copy
 * on the same NeuronCore completes, within a deadline (a queue left half
 * started once made every later copy on its NC wait forever).
 */
static int next_copy_completes(struct _test_data_fault *self)
{
	struct neuron_copy c = {
		.src_handle = self->dev, .dst_handle = self->host,
		.size = 4096, .flags = NEURON_COPY_ASYNC,
	};
	struct timespec ts;
	struct neuron_wait w;
	int err = neuron_ioctl(self->node.fd, NEURON_IOCTL_COPY, &c);

	if (err)
		return err;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	w = (struct neuron_wait){ .seqno = c.seqno,
		.timeout_ns = (ts.tv_sec + 20) * 1000000000LL + ts.tv_nsec };
	return neuron_ioctl(self->node.fd, NEURON_IOCTL_WAIT, &w);
}

/*
 * Run @op with its N-th allocation failing, N = 1, 2, ..., until it runs
 * through with no failure injected. A failure must be an injected one and
 * -ENOMEM, and leave the file's usage, its handles and VmPin as they were;
 * after each injected failure the next copy on the NC must complete.
 * Returns the number of injected failures.
 */
static unsigned int data_loop(struct __test_metadata *_metadata,
			      struct _test_data_fault *self,
			      int (*op)(struct _test_data_fault *self))
{
	struct neuron_mem_usage_buf before, after;
	long pinned = neuron_vm_pinned_kb();
	unsigned int nth, injected = 0;
	bool fired;
	int err;

	ASSERT_LE(0, pinned);
	ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &before, NULL));
	for (nth = 1; nth <= MAX_NTH; nth++) {
		arm(_metadata, self->nth_fd, nth);
		err = op(self);
		fired = disarm(_metadata, self->nth_fd);
		injected += fired;
		if (fired)
			ASSERT_EQ(0, next_copy_completes(self))
				TH_LOG("nth %u: the next copy did not complete", nth);
		if (!err && !fired)
			break;
		if (!err)
			continue;
		ASSERT_TRUE(fired) TH_LOG("nth %u: %s without an injected failure",
					  nth, strerror(-err));
		ASSERT_EQ(-ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(-err));
		ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &after, NULL));
		ASSERT_EQ(before.u.file_device_bytes, after.u.file_device_bytes)
			TH_LOG("nth %u", nth);
		ASSERT_EQ(before.u.file_host_bytes, after.u.file_host_bytes)
			TH_LOG("nth %u", nth);
		ASSERT_EQ(before.u.file_handles, after.u.file_handles) TH_LOG("nth %u", nth);
		ASSERT_EQ(pinned, neuron_vm_pinned_kb()) TH_LOG("nth %u", nth);
	}
	ASSERT_GE(MAX_NTH, nth);
	/* Each operation frees what it made: nothing stays charged. */
	EXPECT_EQ(pinned, neuron_vm_pinned_wait(pinned));
	TH_LOG("%u injected failures", injected);
	return injected;
}

static int op_alloc_device(struct _test_data_fault *self)
{
	struct neuron_mem_alloc m;
	int err = neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 1 << 20, 0, &m);

	return err ? err : neuron_mem_free(self->node.fd, m.handle);
}

static int op_alloc_host(struct _test_data_fault *self)
{
	struct neuron_mem_alloc m;
	int err = neuron_mem_alloc(self->node.fd, NEURON_MEM_HOST, 1 << 20, 0, &m);

	return err ? err : neuron_mem_free(self->node.fd, m.handle);
}

static int op_copy_in(struct _test_data_fault *self)
{
	return copy_wait(self, 0, self->dev, self->a + 5, NULL, DATA - 5, 0);
}

static int op_copy_out_async(struct _test_data_fault *self)
{
	return copy_wait(self, self->dev, 0, NULL, self->b + 3, DATA - 5,
			 NEURON_COPY_ASYNC);
}

static int op_copy_objects_async(struct _test_data_fault *self)
{
	return copy_wait(self, self->dev, self->host, NULL, NULL, DATA,
			 NEURON_COPY_ASYNC);
}

static int op_memset(struct _test_data_fault *self)
{
	struct neuron_memset m = { .handle = self->host, .value = 0x5c, .size = 4096 };

	return neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &m);
}

static int op_notify(struct _test_data_fault *self)
{
	struct neuron_notify_setup ns = { .type = NEURON_NOTIFY_COMPLETION,
					  .entries = 64, .eventfd = -1 };
	struct neuron_notify_teardown nt = { .type = NEURON_NOTIFY_COMPLETION };
	int err = neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_SETUP, &ns);

	return err ? err : neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_TEARDOWN, &nt);
}

TEST_F(fault, mem_alloc)
{
	if (!data_setup(_metadata, self))
		return;
	ASSERT_LT(0U, data_loop(_metadata, self, op_alloc_device));
	ASSERT_LT(0U, data_loop(_metadata, self, op_alloc_host));
}

/*
 * User memory in and out, the way out asynchronously (all pinned at once,
 * charged to VmPin), then between objects: the bytes still arrive.
 */
TEST_F(fault, copy)
{
	if (!data_setup(_metadata, self))
		return;
	ASSERT_LT(0U, data_loop(_metadata, self, op_copy_in));
	ASSERT_LT(0U, data_loop(_metadata, self, op_copy_out_async));
	ASSERT_EQ(0, memcmp(self->a + 5, self->b + 3, DATA - 5));
	ASSERT_LT(0U, data_loop(_metadata, self, op_copy_objects_async));
	/* The host object now holds what the device object held. */
	memset(self->b, 0, DATA);
	ASSERT_EQ(0, copy_wait(self, self->host, 0, NULL, self->b, DATA, 0));
	EXPECT_EQ(0, memcmp(self->a + 5, self->b, DATA - 5));
}

/*
 * The first COPY of a device creates its NC's DMA queue: fail each of its
 * allocations in turn, on a fresh device each time. A failure is a clean
 * -ENOMEM, and the next copy on that NC then completes (a queue whose
 * start failed was once kept, and nothing on its NC ever completed).
 */
TEST_F_TIMEOUT(fault, first_copy, 300)
{
	struct neuron_mem_alloc m;
	unsigned int nth, injected = 0;
	bool fired;
	int err;

	for (nth = 1; nth <= MAX_NTH; nth++) {
		neuron_setup_node(_metadata, &self->node, "v2", 16);
		ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE,
					      65536, 0, &m));
		self->dev = m.handle;
		ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_HOST,
					      65536, 0, &m));
		self->host = m.handle;
		arm(_metadata, self->nth_fd, nth);
		err = neuron_copy_op(self->node.fd, self->dev, 0, self->host, 0,
				     NULL, NULL, 65536, 0, NULL);
		fired = disarm(_metadata, self->nth_fd);
		injected += fired;
		if (err) {
			ASSERT_TRUE(fired) TH_LOG("nth %u: %s", nth, strerror(-err));
			ASSERT_EQ(-ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(-err));
		}
		if (fired)
			ASSERT_EQ(0, next_copy_completes(self))
				TH_LOG("nth %u: the next copy did not complete", nth);
		neuron_node_release(&self->node);
		if (!err && !fired)
			break;
	}
	ASSERT_GE(MAX_NTH, nth);
	TH_LOG("%u injected failures", injected);
	ASSERT_LT(0U, injected);
}

TEST_F(fault, memset_and_notify)
{
	if (!data_setup(_metadata, self))
		return;
	ASSERT_LT(0U, data_loop(_metadata, self, op_memset));
	ASSERT_EQ(0, copy_wait(self, self->host, 0, NULL, self->b, 4096, 0));
	EXPECT_EQ(0x5c, self->b[0]);
	EXPECT_EQ(0x5c, self->b[4095]);
	ASSERT_LT(0U, data_loop(_metadata, self, op_notify));
}

/* ---- models and execution ---- */

#define MM	NEURON_TEST_MM	/* the model of neuron_mm_model_load() */

/*
 * A v2 device, NC 0 reserved, with the matmul model's input and output
 * objects and the input filled with 1..64; false if the test is skipped.
 */
static bool exec_setup(struct __test_metadata *_metadata,
		       struct _test_data_fault *self)
{
	struct neuron_nc_reserve r = { .nc_mask = 1 };
	struct neuron_device_info info;
	struct neuron_mem_alloc m;
	float in[MM * MM];
	unsigned int i;

	neuron_setup_node(_metadata, &self->node, "v2", 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
	if (!(info.caps & NEURON_CAP_EXEC))
		SKIP(return false, "%s has no NEURON_CAP_EXEC", self->node.path);
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_NC_RESERVE, &r));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 0, &m));
	self->dev = m.handle;
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 0, &m));
	self->host = m.handle;	/* here: the output */
	for (i = 0; i < MM * MM; i++)
		in[i] = i + 1;
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->dev, 0, in, NULL,
				    sizeof(in), 0, NULL));
	return true;
}

/* MODEL_LOAD of the matmul model on NC 0; 0 or -errno. */
static int model_load(struct _test_data_fault *self, __u32 *handle)
{
	return neuron_mm_model_load(self->node.fd, 0, handle);
}

static int model_unload(struct _test_data_fault *self, __u32 handle)
{
	struct neuron_model_unload u = { .handle = handle };

	return neuron_ioctl(self->node.fd, NEURON_IOCTL_MODEL_UNLOAD, &u);
}

static int op_model_load(struct _test_data_fault *self)
{
	__u32 handle;
	int err = model_load(self, &handle);

	return err ? err : model_unload(self, handle);
}

/* Submit-and-wait of @model; 0 (and *@status) or -errno. */
static int execute(struct _test_data_fault *self, __u32 model, __u32 *status)
{
	__u32 bind[2] = { self->dev, self->host };
	struct neuron_execute x = { .model = model, .flags = NEURON_EXEC_WAIT,
				    .bindings = (uintptr_t)bind, .nbindings = 2 };
	int err = neuron_ioctl(self->node.fd, NEURON_IOCTL_EXECUTE, &x);

	*status = x.status;
	return err;
}

/* The output holds 2 * the input. */
static bool result_ok(struct _test_data_fault *self)
{
	float out[MM * MM];
	unsigned int i;

	memset(out, 0, sizeof(out));
	if (neuron_copy_op(self->node.fd, self->host, 0, 0, 0, NULL, out,
			   sizeof(out), 0, NULL))
		return false;
	for (i = 0; i < MM * MM; i++)
		if (out[i] != 2.0f * (i + 1))
			return false;
	return true;
}

TEST_F(fault, model_load)
{
	__u32 model, status;

	if (!exec_setup(_metadata, self))
		return;
	ASSERT_LT(0U, data_loop(_metadata, self, op_model_load));
	/* The device still loads and runs a model. */
	ASSERT_EQ(0, model_load(self, &model));
	ASSERT_EQ(0, execute(self, model, &status));
	ASSERT_EQ((__u32)NEURON_EXEC_OK, status);
	ASSERT_TRUE(result_ok(self));
}

/*
 * EXECUTE with its N-th allocation failing (the first execution on the NC
 * makes its queue): a clean -ENOMEM, or a device error reported as the
 * execution's status (an allocation the simulated core makes while it
 * runs); either way nothing stays charged and the next execution gives
 * the right result.
 */
TEST_F(fault, execute)
{
	struct neuron_mem_usage_buf before, after;
	unsigned int nth, injected = 0;
	__u32 model, status;
	bool fired;
	int err;

	if (!exec_setup(_metadata, self))
		return;
	ASSERT_EQ(0, model_load(self, &model));
	ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &before, NULL));
	for (nth = 1; nth <= MAX_NTH; nth++) {
		arm(_metadata, self->nth_fd, nth);
		status = ~0U;
		err = execute(self, model, &status);
		fired = disarm(_metadata, self->nth_fd);
		injected += fired;
		if (!err && status == NEURON_EXEC_OK && !fired)
			break;
		if (err) {
			ASSERT_TRUE(fired) TH_LOG("nth %u: %s", nth, strerror(-err));
			ASSERT_EQ(-ENOMEM, err) TH_LOG("nth %u: %s", nth, strerror(-err));
		} else if (status != NEURON_EXEC_OK) {
			ASSERT_TRUE(fired) TH_LOG("nth %u: status %u", nth, status);
			ASSERT_EQ((__u32)NEURON_EXEC_DEVICE_ERROR, status) TH_LOG("nth %u", nth);
		}
		ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &after, NULL));
		ASSERT_EQ(before.u.file_device_bytes, after.u.file_device_bytes)
			TH_LOG("nth %u", nth);
		ASSERT_EQ(before.u.file_handles, after.u.file_handles) TH_LOG("nth %u", nth);
		if (fired) {
			ASSERT_EQ(0, execute(self, model, &status)) TH_LOG("nth %u", nth);
			ASSERT_EQ((__u32)NEURON_EXEC_OK, status) TH_LOG("nth %u", nth);
			ASSERT_TRUE(result_ok(self)) TH_LOG("nth %u", nth);
		}
	}
	ASSERT_GE(MAX_NTH, nth);
	TH_LOG("%u injected failures", injected);
	ASSERT_LT(0U, injected);
	ASSERT_TRUE(result_ok(self));
}

TEST_HARNESS_MAIN
