/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared helpers of the neuron selftests: which device to test, simulated
 * device creation and removal through /sys/bus/neuron_sim, QUERY wrappers
 * and the per-arch geometry the answers are checked against.
 *
 * Device selection (docs/architecture.md, "Selftests"):
 *  - NEURON_DEVICE=/dev/neuronN: tests run on that device, tests that need
 *    the simulator skip;
 *  - else, with /sys/bus/neuron_sim present, each test creates its own
 *    simulated devices (IDs derived from its pid) and deletes them;
 *  - else every test skips and the program exits 4 (KSFT_SKIP).
 */
#ifndef NEURON_TEST_H
#define NEURON_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/* The 6.1 harness has a handler with an unused parameter (-Wextra). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "neuron.h"

#define NEURON_SIM_BUS		"/sys/bus/neuron_sim"
/* The driver of neuron_sim.ko on its bus: bind and unbind files. */
#define NEURON_SIM_DRIVER	NEURON_SIM_BUS "/drivers/neuron_sim"
#define NEURON_MAX_DEVICES	64
/* Size of the first version of struct neuron_query. */
#define NEURON_QUERY_SIZE_VER0	40
/* Default device memory of a simulated device, in MiB. */
#define NEURON_SIM_MEM_DEFAULT	256
/* How long a device node may take to appear or go (devtmpfs), in ms. */
#define NEURON_NODE_TIMEOUT_MS	5000

/* Geometry of each arch, from the public facts (docs/). */
struct neuron_geometry {
	__u32 arch;
	const char *name;
	__u32 nc_count;
	__u32 dma_engines;
	__u32 dma_queues_per_engine;
	__u32 dram_channels;
	__u32 semaphores_per_nc;
	__u32 events_per_nc;
};

static const struct neuron_geometry neuron_geometries[] = {
	{ NEURON_ARCH_V1, "v1", 4, 12, 16, 2, 32, 256 },
	{ NEURON_ARCH_V2, "v2", 2, 34, 16, 2, 256, 256 },
	{ NEURON_ARCH_V3, "v3", 8, 132, 16, 4, 256, 256 },
};

/*
 * The per-arch variants of a fixture F, one per arch with memory:
 *	FIXTURE_VARIANT(F) NEURON_ARCH_VARIANT;
 *	FIXTURE_VARIANT_ADD(F, v2) NEURON_ARCH_V2_VARIANT;
 *	FIXTURE_VARIANT_ADD(F, v3) NEURON_ARCH_V3_VARIANT;
 * give variant->arch (NEURON_ARCH_V2, _V3) and variant->name ("v2", "v3").
 */
#define NEURON_ARCH_VARIANT	{ __u32 arch; const char *name; }
#define NEURON_ARCH_V2_VARIANT	{ .arch = NEURON_ARCH_V2, .name = "v2" }
#define NEURON_ARCH_V3_VARIANT	{ .arch = NEURON_ARCH_V3, .name = "v3" }

static inline const struct neuron_geometry *neuron_geometry_of(__u32 arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(neuron_geometries); i++)
		if (neuron_geometries[i].arch == arch)
			return &neuron_geometries[i];
	return NULL;
}

enum neuron_mode {
	NEURON_MODE_NONE,	/* nothing to test: every test skips */
	NEURON_MODE_DEVICE,	/* NEURON_DEVICE names the device */
	NEURON_MODE_SIM,	/* simulated devices through /sys/bus/neuron_sim */
};

static inline const char *neuron_env_device(void)
{
	const char *dev = getenv("NEURON_DEVICE");

	return dev && *dev ? dev : NULL;
}

static inline enum neuron_mode neuron_mode(void)
{
	if (neuron_env_device())
		return NEURON_MODE_DEVICE;
	if (access(NEURON_SIM_BUS, F_OK) == 0)
		return NEURON_MODE_SIM;
	return NEURON_MODE_NONE;
}

static inline const char *neuron_mode_skip_reason(void)
{
	if (neuron_mode() == NEURON_MODE_DEVICE)
		return "NEURON_DEVICE is set: this test needs simulated devices";
	return "no neuron device: set NEURON_DEVICE or load neuron_sim.ko (" NEURON_SIM_BUS ")";
}

/*
 * The 6.1 harness exits 0 when every test skipped; kselftest runners expect
 * 4 then.  Its last step is exit(), so an atexit() handler of the main
 * process turns "all skipped" into KSFT_SKIP.  Test children end with
 * _exit() and never run it.
 */
static pid_t neuron_main_pid;

static inline void neuron_exit_status(void)
{
	if (getpid() != neuron_main_pid || !ksft_plan)
		return;
	if (ksft_get_xskip_cnt() == (int)ksft_plan) {
		fflush(stdout);
		fflush(stderr);
		_exit(KSFT_SKIP);
	}
}

static void __attribute__((constructor)) neuron_test_init(void)
{
	neuron_main_pid = getpid();
	atexit(neuron_exit_status);
}

/*
 * Skip from a FIXTURE_SETUP.  The 6.1 harness would still run the test body
 * after a SKIP in the setup, so the test child ends here with the harness's
 * "skipped" status (255); the reason is already in the shared results.
 */
#define NEURON_SKIP_SETUP(fmt, ...) \
	SKIP({ fflush(NULL); _exit(255); }, fmt, ##__VA_ARGS__)

/* ---- sysfs ---- */

/* Write @text to the sysfs file @path in one write(): 0 or -errno. */
static inline int neuron_sysfs_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, text, len);
	if (ret < 0)
		err = -errno;
	else if ((size_t)ret != len)
		err = -EIO;
	close(fd);
	return err;
}

/* Read a small text file into @buf (NUL-terminated): 0 or -errno. */
static inline int neuron_read_text(const char *path, char *buf, size_t size)
{
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read(fd, buf, size - 1);
	if (ret < 0)
		err = -errno;
	else
		buf[ret] = '\0';
	close(fd);
	return err;
}

static inline void neuron_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* ---- simulated devices ---- */

/* Raw write to new_device: 0 or -errno. */
static inline int neuron_sim_new_text(const char *text)
{
	return neuron_sysfs_write(NEURON_SIM_BUS "/new_device", text);
}

/* Create sim device @id of @arch, @mem_mb 0 meaning the default. */
static inline int neuron_sim_new(unsigned int id, const char *arch,
				 unsigned int mem_mb)
{
	char text[64];

	if (mem_mb)
		snprintf(text, sizeof(text), "%u %s %u\n", id, arch, mem_mb);
	else
		snprintf(text, sizeof(text), "%u %s\n", id, arch);
	return neuron_sim_new_text(text);
}

static inline int neuron_sim_del(unsigned int id)
{
	char text[16];

	snprintf(text, sizeof(text), "%u\n", id);
	return neuron_sysfs_write(NEURON_SIM_BUS "/del_device", text);
}

static inline bool neuron_sim_exists(unsigned int id)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u", id);
	return access(path, F_OK) == 0;
}

/* Bind (@bind) or unbind sim device @id to/from the driver: 0 or -errno. */
static inline int neuron_sim_bind(unsigned int id, bool bind)
{
	char text[32];

	snprintf(text, sizeof(text), "neuron_sim%u", id);
	return neuron_sysfs_write(bind ? NEURON_SIM_DRIVER "/bind" :
				  NEURON_SIM_DRIVER "/unbind", text);
}

/* Whether sim device @id is bound to the driver (has a neuron device). */
static inline bool neuron_sim_bound(unsigned int id)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/driver", id);
	return access(path, F_OK) == 0;
}

/* The machine's RAM in bytes (sysinfo), 0 if unknown. */
static inline unsigned long long neuron_ram_bytes(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return (unsigned long long)si.totalram * si.mem_unit;
}

/*
 * @mem_mb, or less on a machine with less RAM: a simulated device may not
 * have more memory than the machine (new_device refuses it with ENOMEM).
 */
static inline unsigned int neuron_sim_mem_fit(unsigned int mem_mb)
{
	unsigned long long ram_mb = neuron_ram_bytes() >> 20;

	return ram_mb && ram_mb < mem_mb ? (unsigned int)ram_mb : mem_mb;
}

/*
 * Find the char device of sim device @id: the minor N of its neuronN class
 * device and its dev_t.  0, or -errno (-ENOENT while it is not there).
 */
static inline int neuron_sim_lookup(unsigned int id, unsigned int *minor_nr,
				    dev_t *devt)
{
	char dir[128], path[128 + sizeof(((struct dirent *)0)->d_name) + 8];
	char text[32];
	unsigned int maj, min, n;
	struct dirent *de;
	int err = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), NEURON_SIM_BUS "/devices/neuron_sim%u/neuron", id);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char extra;

		if (sscanf(de->d_name, "neuron%u%c", &n, &extra) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		err = neuron_read_text(path, text, sizeof(text));
		if (err)
			break;
		if (sscanf(text, "%u:%u", &maj, &min) != 2) {
			err = -EPROTO;
			break;
		}
		*minor_nr = n;
		*devt = makedev(maj, min);
		err = 0;
		break;
	}
	closedir(d);
	return err;
}

/*
 * The sim ID of the device with minor @minor, from its sysfs parent
 * (.../neuron_simID): 0, or -errno (-ENOENT for a device that is not
 * simulated).
 */
static inline int neuron_sim_id_of_minor(unsigned int minor, unsigned int *id)
{
	char path[64], target[256];
	const char *base;
	ssize_t len;
	char extra;

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/device", minor);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return -errno;
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (sscanf(base, "neuron_sim%u%c", id, &extra) != 1)
		return -ENOENT;
	return 0;
}

/* Wait until @path is the char device @devt (@present) or is gone. */
static inline bool neuron_wait_node(const char *path, dev_t devt, bool present)
{
	unsigned int waited;
	struct stat st;

	for (waited = 0; waited <= NEURON_NODE_TIMEOUT_MS; waited += 10) {
		bool there = stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
			     st.st_rdev == devt;

		if (there == present)
			return true;
		neuron_sleep_ms(10);
	}
	return false;
}

/* One device under test: a simulated device we created, or NEURON_DEVICE. */
struct neuron_node {
	int fd;			/* open file, -1 when closed */
	bool created;		/* simulated device created by this test */
	unsigned int sim_id;
	unsigned int minor;	/* N of /dev/neuronN */
	dev_t devt;
	char path[64];		/* /dev/neuronN */
};

static inline void neuron_node_init(struct neuron_node *n)
{
	memset(n, 0, sizeof(*n));
	n->fd = -1;
}

/*
 * Sim IDs of this process: 32 per pid (mod 2000), above 1000, so that the
 * devices of the module parameter (0, 1, ...) and of other tests differ.
 */
static inline unsigned int neuron_sim_next_id(void)
{
	static unsigned int counter;

	return 1000 + ((getpid() % 2000) * 32 + counter++) % 64000;
}

/*
 * Fill @n for the just created sim device @id and wait for its node: 0, or
 * -ETIMEDOUT when its class device or node does not show up.  @n is marked
 * created in any case, so that teardown deletes the device.
 */
static inline int neuron_sim_attach(struct neuron_node *n, unsigned int id)
{
	unsigned int waited;
	int err;

	neuron_node_init(n);
	n->created = true;
	n->sim_id = id;
	for (waited = 0; ; waited += 10) {
		err = neuron_sim_lookup(id, &n->minor, &n->devt);
		if (!err)
			break;
		if (waited >= NEURON_NODE_TIMEOUT_MS)
			return -ETIMEDOUT;
		neuron_sleep_ms(10);
	}
	snprintf(n->path, sizeof(n->path), "/dev/neuron%u", n->minor);
	return neuron_wait_node(n->path, n->devt, true) ? 0 : -ETIMEDOUT;
}

/*
 * Create sim device @id and wait for its node: 0, or -errno of the write,
 * or -ETIMEDOUT.  On failure nothing is left behind.
 */
static inline int neuron_sim_create_id(struct neuron_node *n, unsigned int id,
				       const char *arch, unsigned int mem_mb)
{
	int err;

	neuron_node_init(n);
	err = neuron_sim_new(id, arch, mem_mb);
	if (err)
		return err;
	err = neuron_sim_attach(n, id);
	if (err) {
		neuron_sim_del(id);
		n->created = false;
	}
	return err;
}

/* Create a sim device with a fresh ID (skipping IDs already taken). */
static inline int neuron_sim_create(struct neuron_node *n, const char *arch,
				    unsigned int mem_mb)
{
	int tries, err = -EEXIST;

	for (tries = 0; tries < 32 && err == -EEXIST; tries++)
		err = neuron_sim_create_id(n, neuron_sim_next_id(), arch, mem_mb);
	return err;
}

/* Delete a sim device we created and wait for its node to go: 0/-errno. */
static inline int neuron_sim_remove(struct neuron_node *n)
{
	int err = neuron_sim_del(n->sim_id);

	if (err)
		return err;
	n->created = false;
	return neuron_wait_node(n->path, n->devt, false) ? 0 : -ETIMEDOUT;
}

static inline int neuron_node_open(struct neuron_node *n)
{
	n->fd = open(n->path, O_RDWR | O_CLOEXEC);
	return n->fd < 0 ? -errno : 0;
}

/* Teardown: close, and delete the sim device if this test created it. */
static inline void neuron_node_release(struct neuron_node *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	if (n->created)
		neuron_sim_del(n->sim_id);
	n->created = false;
}

/* ---- QUERY ---- */

/* ioctl() returning 0 or -errno. */
static inline int neuron_ioctl(int fd, unsigned long nr, void *arg)
{
	return ioctl(fd, nr, arg) ? -errno : 0;
}

static inline void neuron_query_prep(struct neuron_query *q, __u32 op,
				     void *data, __u32 size)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->data = (__u64)(uintptr_t)data;
	q->size = size;
}

/*
 * QUERY @op into @buf of @len bytes (zeroed first): 0 or -errno; @size
 * (unless NULL) gets the size of the answer.
 */
static inline int neuron_query_into(int fd, __u32 op, void *buf, __u32 len,
				    __u32 *size)
{
	struct neuron_query q;
	int err;

	memset(buf, 0, len);
	neuron_query_prep(&q, op, buf, len);
	err = neuron_ioctl(fd, NEURON_IOCTL_QUERY, &q);
	if (!err && size)
		*size = q.size;
	return err;
}

/* NEURON_QUERY_DEVICE into @info: 0 or -errno; @size gets the answer size. */
static inline int neuron_query_info(int fd, struct neuron_device_info *info,
				    __u32 *size)
{
	return neuron_query_into(fd, NEURON_QUERY_DEVICE, info, sizeof(*info), size);
}

/* True if the string field @s of @len bytes is NUL-terminated. */
static inline bool neuron_str_ok(const char *s, size_t len)
{
	return !!memchr(s, '\0', len);
}

/* ---- fixture setup ---- */

/*
 * Get the device of a test: in NEURON_DEVICE mode open it (skip if @arch is
 * set and the device is another arch), in sim mode create one of @arch
 * ("v2" when NULL) with @mem_mb (0: default) and open it; otherwise skip.
 * For FIXTURE_SETUP only (a skip ends the test child).
 */
static inline void neuron_setup_node(struct __test_metadata *_metadata,
				     struct neuron_node *n, const char *arch,
				     unsigned int mem_mb)
{
	struct neuron_device_info info;
	struct stat st;
	int err;

	neuron_node_init(n);
	switch (neuron_mode()) {
	case NEURON_MODE_NONE:
		NEURON_SKIP_SETUP("%s", neuron_mode_skip_reason());
		break;
	case NEURON_MODE_DEVICE:
		snprintf(n->path, sizeof(n->path), "%s", neuron_env_device());
		ASSERT_EQ(0, neuron_node_open(n))
			TH_LOG("open %s: %s", n->path, strerror(errno));
		ASSERT_EQ(0, fstat(n->fd, &st));
		ASSERT_TRUE(S_ISCHR(st.st_mode));
		n->devt = st.st_rdev;
		n->minor = minor(st.st_rdev);
		if (arch) {
			ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
			if (strncmp(info.arch_name, arch, sizeof(info.arch_name)))
				NEURON_SKIP_SETUP("%s is %.16s, this variant is %s",
						  n->path, info.arch_name, arch);
		}
		break;
	case NEURON_MODE_SIM:
		err = neuron_sim_create(n, arch ? arch : "v2", mem_mb);
		if (err == -EACCES || err == -EPERM)
			NEURON_SKIP_SETUP("creating a simulated device needs root");
		ASSERT_EQ(0, err)
			TH_LOG("creating a simulated %s device: %s",
			       arch ? arch : "v2", strerror(-err));
		err = neuron_node_open(n);
		if (err)
			neuron_node_release(n);
		ASSERT_EQ(0, err) TH_LOG("open %s: %s", n->path, strerror(-err));
		break;
	}
}

/* For FIXTURE_SETUP of tests that create their own simulated devices. */
static inline void neuron_require_sim(struct __test_metadata *_metadata)
{
	if (neuron_mode() != NEURON_MODE_SIM)
		NEURON_SKIP_SETUP("%s", neuron_mode_skip_reason());
	if (access(NEURON_SIM_BUS "/new_device", W_OK))
		NEURON_SKIP_SETUP("%s/new_device is not writable: needs root",
				  NEURON_SIM_BUS);
}

/* ---- probing mapped memory ---- */

static sigjmp_buf neuron_probe_env;

static inline void neuron_probe_handler(int sig)
{
	siglongjmp(neuron_probe_env, sig);
}

/*
 * Read the byte at @p into *@val (or, with @store, write *@val to it): 0, or
 * the signal the access raised (SIGBUS, SIGSEGV).
 */
static inline int neuron_probe(unsigned char *p, unsigned char *val, bool store)
{
	struct sigaction sa, old_bus, old_segv;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = neuron_probe_handler;
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(neuron_probe_env, 1);
	if (!sig) {
		/* Atomic accesses: the compiler may not drop or merge them. */
		if (store)
			__atomic_store_n(p, *val, __ATOMIC_RELAXED);
		else
			*val = __atomic_load_n(p, __ATOMIC_RELAXED);
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

/*
 * Pages of this process charged to pinned_vm (VmPin in /proc/self/status),
 * in KiB; -1 if unknown.
 */
/* A child's /proc/self/status kept by neuron_drop_privileges(), else -1. */
static int neuron_status_fd = -1;

static inline long neuron_vm_pinned_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	/* Opened before privileges were dropped: read it again from the start. */
	if (neuron_status_fd >= 0) {
		int fd = dup(neuron_status_fd);

		f = fd < 0 ? NULL : fdopen(fd, "r");
		if (!f && fd >= 0)
			close(fd);
		if (f)
			rewind(f);
	} else {
		f = fopen("/proc/self/status", "r");
	}
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* ---- privileges ---- */

/* The unprivileged user and group the tests become. */
#define NEURON_TEST_NOBODY	65534

/*
 * For a forked child (the harness's test process must stay root): set
 * RLIMIT_MEMLOCK to @memlock bytes and become uid/gid NEURON_TEST_NOBODY
 * with no supplementary groups, keeping only the capabilities of @keep (a
 * mask of bits 0..31, e.g. 1U << CAP_IPC_LOCK) in the permitted and
 * effective sets; every other capability also leaves the bounding set.
 * Files opened before stay usable (the device node is root's), and so does
 * neuron_vm_pinned_kb(): /proc/self/status is opened first, since paths
 * may not be reachable any more (the test VM's root folder is 0700).
 * 0, or -1.
 */
static inline int neuron_drop_privileges_to(uid_t uid, __u32 keep, rlim_t memlock);

static inline int neuron_drop_privileges(__u32 keep, rlim_t memlock)
{
	return neuron_drop_privileges_to(NEURON_TEST_NOBODY, keep, memlock);
}

/* The same for user and group @uid. */
static inline int neuron_drop_privileges_to(uid_t uid, __u32 keep, rlim_t memlock)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct rlimit lim = { .rlim_cur = memlock, .rlim_max = memlock };
	int cap;

	if (setrlimit(RLIMIT_MEMLOCK, &lim))
		return -1;
	neuron_status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (neuron_status_fd < 0)
		return -1;
	for (cap = 0; prctl(PR_CAPBSET_READ, cap) >= 0; cap++)
		if ((cap >= 32 || !(keep & (1U << cap))) &&
		    prctl(PR_CAPBSET_DROP, cap))
			return -1;
	/*
	 * Keep the permitted set across setresuid(), then trim it (raw
	 * system calls: the child is single-threaded, and no _GNU_SOURCE).
	 */
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    syscall(SYS_setresgid, uid, uid, uid) ||
	    syscall(SYS_setresuid, uid, uid, uid) ||
	    prctl(PR_SET_KEEPCAPS, 0))
		return -1;
	memset(d, 0, sizeof(d));
	d[0].permitted = keep;
	d[0].effective = keep;
	if (syscall(SYS_capset, &h, d))
		return -1;
	/* Check what the kernel says. */
	if (syscall(SYS_capget, &h, d) || d[0].effective != keep || d[1].effective ||
	    d[0].permitted != keep || d[1].permitted || !geteuid() || !getuid())
		return -1;
	/* The uid change made the process non-dumpable: /proc/self is root's. */
	return prctl(PR_SET_DUMPABLE, 1) ? -1 : 0;
}

/* ---- module parameters ---- */

#define NEURON_PARAM_DIR	"/sys/module/neuron/parameters/"

/* Read the module parameter @name: 0, or -errno. */
static inline int neuron_param_get(const char *name, unsigned long long *val)
{
	char path[128], text[32], *end;
	int err;

	snprintf(path, sizeof(path), NEURON_PARAM_DIR "%s", name);
	err = neuron_read_text(path, text, sizeof(text));
	if (err)
		return err;
	errno = 0;
	*val = strtoull(text, &end, 10);
	return errno || end == text || (*end && *end != '\n') ? -EPROTO : 0;
}

/* Set the module parameter @name (root): 0, or -errno. */
static inline int neuron_param_set(const char *name, unsigned long long val)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), NEURON_PARAM_DIR "%s", name);
	snprintf(text, sizeof(text), "%llu\n", val);
	return neuron_sysfs_write(path, text);
}

/*
 * Wait up to 2 s for VmPin to come back to @kb (asynchronous work may
 * still hold pages for a moment); returns the last value read.
 */
static inline long neuron_vm_pinned_wait(long kb)
{
	long now = neuron_vm_pinned_kb();
	int i;

	for (i = 0; i < 200 && now != kb; i++) {
		neuron_sleep_ms(10);
		now = neuron_vm_pinned_kb();
	}
	return now;
}

/* ---- memory (NEURON_CAP_MEM) ---- */

/* More per-NC entries than any arch has (NEURON_QUERY_MEM_USAGE). */
#define NEURON_TEST_MAX_NC	16

/* Room for a whole NEURON_QUERY_MEM_USAGE answer. */
struct neuron_mem_usage_buf {
	struct neuron_mem_usage u;
	struct neuron_mem_usage_nc nc[NEURON_TEST_MAX_NC];
};

/* NEURON_QUERY_MEM_USAGE into @b: 0 or -errno; @size gets the answer size. */
static inline int neuron_query_mem_usage(int fd, struct neuron_mem_usage_buf *b,
					 __u32 *size)
{
	return neuron_query_into(fd, NEURON_QUERY_MEM_USAGE, b, sizeof(*b), size);
}

/*
 * A valid MEM_ALLOC request: @kind memory of @size bytes charged to
 * NeuronCore @nc; device memory in any channel, no alignment.
 */
static inline void neuron_mem_alloc_prep(struct neuron_mem_alloc *a, __u32 kind,
					 __u64 size, __u32 nc)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->size = size;
	a->nc = nc;
	a->channel = kind == NEURON_MEM_DEVICE ? NEURON_MEM_CHANNEL_ANY : 0;
}

/* MEM_ALLOC of a prepared request: 0 or -errno. */
static inline int neuron_mem_alloc_req(int fd, struct neuron_mem_alloc *a)
{
	return neuron_ioctl(fd, NEURON_IOCTL_MEM_ALLOC, a);
}

/* Allocate @kind memory of @size bytes on NC @nc; @a gets the answer. */
static inline int neuron_mem_alloc(int fd, __u32 kind, __u64 size, __u32 nc,
				   struct neuron_mem_alloc *a)
{
	neuron_mem_alloc_prep(a, kind, size, nc);
	return neuron_mem_alloc_req(fd, a);
}

/* MEM_FREE of @handle: 0 or -errno. */
static inline int neuron_mem_free(int fd, __u32 handle)
{
	struct neuron_mem_free f = { .handle = handle };

	return neuron_ioctl(fd, NEURON_IOCTL_MEM_FREE, &f);
}

/* ---- COPY, WAIT ---- */

/* COPY: 0 or -errno. */
static inline int neuron_copy_op(int fd, __u32 src, __u64 soff, __u32 dst,
				 __u64 doff, const void *sptr, void *dptr,
				 __u64 size, __u32 flags, __u64 *seqno)
{
	struct neuron_copy c = {
		.src_handle = src, .dst_handle = dst,
		.src_offset = soff, .dst_offset = doff,
		.src_ptr = (uintptr_t)sptr, .dst_ptr = (uintptr_t)dptr,
		.size = size, .flags = flags,
	};
	int ret = neuron_ioctl(fd, NEURON_IOCTL_COPY, &c);

	if (seqno)
		*seqno = c.seqno;
	return ret;
}

static inline __s64 neuron_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static inline int neuron_wait_seq(int fd, __u64 seqno, __s64 deadline)
{
	struct neuron_wait w = { .seqno = seqno, .timeout_ns = deadline };

	return neuron_ioctl(fd, NEURON_IOCTL_WAIT, &w);
}

/* Write a knob of the simulated device behind @n. */
static inline int neuron_sim_knob(struct neuron_node *n, const char *knob,
				  const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/%s",
		 n->sim_id, knob);
	return neuron_sysfs_write(path, val);
}

/*
 * The small model several tests run: out[MM x MM] = in[MM x MM] *
 * data[MM x MM], one MATMUL on PE, data 2 * identity (so out = 2 * in).
 */
#define NEURON_TEST_MM	8

/* MODEL_LOAD of that model on @nc (reserved by @fd): 0 or -errno. */
static inline int neuron_mm_model_load(int fd, __u32 nc, __u32 *handle)
{
	enum { MM = NEURON_TEST_MM };
	static const struct neuron_model_slot slots[2] = {
		{ .size = MM * MM * 4, .kind = NEURON_SLOT_INPUT, .ndim = 2,
		  .shape = { MM, MM } },
		{ .size = MM * MM * 4, .kind = NEURON_SLOT_OUTPUT, .ndim = 2,
		  .shape = { MM, MM } },
	};
	struct neuron_tpb_insn pe[2] = {
		{ .opcode = NEURON_TPB_MATMUL, .m = MM, .k = MM, .n = MM,
		  .dst = { NEURON_REGION_SLOT(1), 0 },
		  .a = { NEURON_REGION_SLOT(0), 0 }, .b = { NEURON_REGION_DATA, 0 } },
		{ .opcode = NEURON_TPB_END },
	};
	struct neuron_model_block block = { .insns = (uintptr_t)pe, .count = 2,
					    .engine = NEURON_ENGINE_PE };
	struct neuron_model_load l = {
		.nc = nc,
		.blocks = (uintptr_t)&block, .nblocks = 1,
		.slots = (uintptr_t)slots, .nslots = 2,
		.data_size = MM * MM * 4, .scratch_size = 4096,
	};
	float data[MM * MM] = { 0 };
	unsigned int i;
	int err;

	for (i = 0; i < MM; i++)
		data[i * MM + i] = 2;
	l.data = (uintptr_t)data;
	err = neuron_ioctl(fd, NEURON_IOCTL_MODEL_LOAD, &l);
	*handle = l.handle;
	return err;
}

#endif /* NEURON_TEST_H */
