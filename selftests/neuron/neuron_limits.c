// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: what a caller may do and hold (docs/uapi.md, "Ioctls"
 * and "Limits and accounting").
 *
 *  - Host memory objects and notification rings are charged to the
 *    caller's pinned memory (VmPin), within RLIMIT_MEMLOCK unless it has
 *    CAP_IPC_LOCK, and uncharged when the memory is really freed: at
 *    MEM_FREE or TEARDOWN, at close, or with the last mapping.
 *  - A file opened read-only may only QUERY: every other ioctl is -EBADF.
 *  - Per-file limits (module parameters, root only): handles, bytes of
 *    memory objects, notification queues; -ENOSPC past them, another file
 *    of the device unaffected, a new value effective at once.
 *
 * The test process stays root (it creates the simulated devices); each
 * unprivileged case runs in a forked child that opens its own file, then
 * becomes uid 65534 with RLIMIT_MEMLOCK 64 KiB and no capability (or only
 * CAP_IPC_LOCK). The child exits with 0, or with the number of the first
 * check that failed (printed as a "#" line).
 */
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define KIB		1024
/* RLIMIT_MEMLOCK of the unprivileged children. */
#define MEMLOCK		(64 * KIB)

static const char *const params[] = {
	"max_handles", "max_mem_bytes", "max_notify_queues", "max_async",
};

FIXTURE(limits) {
	struct neuron_node node;
	struct neuron_device_info info;
	size_t page;
	bool saved;
	unsigned long long param[ARRAY_SIZE(params)];
};

FIXTURE_SETUP(limits)
{
	unsigned int i;

	self->page = sysconf(_SC_PAGESIZE);
	neuron_setup_node(_metadata, &self->node, "v2", 0);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	if (!(self->info.caps & NEURON_CAP_MEM) || !(self->info.caps & NEURON_CAP_NOTIFY)) {
		neuron_node_release(&self->node);
		NEURON_SKIP_SETUP("needs NEURON_CAP_MEM and NEURON_CAP_NOTIFY");
	}
	for (i = 0; i < ARRAY_SIZE(params); i++)
		ASSERT_EQ(0, neuron_param_get(params[i], &self->param[i]))
			TH_LOG("module parameter %u (" NEURON_PARAM_DIR ")", i);
	self->saved = true;
}

/* Put back every parameter a test changed. */
FIXTURE_TEARDOWN(limits)
{
	unsigned int i;

	neuron_node_release(&self->node);
	for (i = 0; self->saved && i < ARRAY_SIZE(params); i++)
		EXPECT_EQ(0, neuron_param_set(params[i], self->param[i]));
}

/* ---- helpers ---- */

/*
 * In a child: OK(cond) is cond, and logs it when false (with errno and
 * VmPin) so that the child's non-zero exit status has an explanation.
 */
#define OK(cond)	ok_or_log(!!(cond), #cond, __LINE__)

static bool ok_or_log(bool ok, const char *what, int line)
{
	int err = errno;

	if (!ok) {
		printf("# line %d: failed: %s (errno %d, VmPin %ld kB)\n", line, what,
		       err, neuron_vm_pinned_kb());
		fflush(stdout);
	}
	return ok;
}

typedef int (*child_fn)(struct _test_data_limits *self, int fd);

/* NEURON_PARAM_DIR, opened by run_child() before privileges are dropped. */
static int params_dir = -1;

/*
 * Run @fn in a child that opens a file of the device (as root), then drops
 * privileges (keeping @keep, RLIMIT_MEMLOCK @memlock) and calls @fn with
 * the file. Return: the child's exit status, or -1.
 */
static int run_child(struct _test_data_limits *self, __u32 keep, rlim_t memlock,
		     child_fn fn)
{
	int status;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC);

		params_dir = open(NEURON_PARAM_DIR, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0 || params_dir < 0 || neuron_drop_privileges(keep, memlock)) {
			printf("# open or dropping privileges failed: %s\n", strerror(errno));
			fflush(stdout);
			_exit(200);
		}
		_exit(fn(self, fd));
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

static int alloc(int fd, __u32 kind, __u64 size, __u32 *handle)
{
	return neuron_alloc(fd, kind, size, 0, handle, NULL);
}

/* Bytes of the ring of @entries (docs/uapi.md): header page + entries. */
static long ring_kb(__u32 entries)
{
	return (4096 + 16L * entries + 4095) / 4096 * 4;
}

/* ---- host memory objects and RLIMIT_MEMLOCK ---- */

static int child_host_memlock(struct _test_data_limits *self, int fd)
{
	long page_kb = self->page / KIB;
	__u32 a, b, d;

	if (!OK(neuron_vm_pinned_kb() == 0))
		return 1;
	/* Past the limit: refused before anything is allocated. */
	if (!OK(alloc(fd, NEURON_MEM_HOST, MEMLOCK + self->page, NULL) == -ENOMEM))
		return 2;
	if (!OK(alloc(fd, NEURON_MEM_HOST, 1 << 30, NULL) == -ENOMEM))
		return 3;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 4;
	/* Up to it: charged by whole pages. */
	if (!OK(alloc(fd, NEURON_MEM_HOST, MEMLOCK - self->page - 100, &a) == 0))
		return 5;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB - page_kb))
		return 6;
	if (!OK(alloc(fd, NEURON_MEM_HOST, 2 * self->page, NULL) == -ENOMEM))
		return 7;
	if (!OK(alloc(fd, NEURON_MEM_HOST, self->page, &b) == 0))
		return 8;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 9;
	if (!OK(alloc(fd, NEURON_MEM_HOST, 1, NULL) == -ENOMEM))
		return 10;
	/* Device memory is not host memory: not charged. */
	if (!OK(alloc(fd, NEURON_MEM_DEVICE, 1 << 20, &d) == 0))
		return 11;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 12;
	if (!OK(neuron_mem_free(fd, d) == 0))
		return 13;
	/* Freeing returns the charge, and the room. */
	if (!OK(neuron_mem_free(fd, a) == 0))
		return 14;
	if (!OK(neuron_vm_pinned_kb() == page_kb))
		return 15;
	if (!OK(neuron_mem_free(fd, b) == 0))
		return 16;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 17;
	if (!OK(alloc(fd, NEURON_MEM_HOST, MEMLOCK, &a) == 0))
		return 18;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 19;
	if (!OK(neuron_mem_free(fd, a) == 0))
		return 20;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 21;
	return 0;
}

/*
 * Unprivileged, RLIMIT_MEMLOCK 64 KiB: host memory is charged to VmPin and
 * refused (-ENOMEM) past the limit; MEM_FREE returns the charge.
 */
TEST_F(limits, host_memory_within_memlock)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_host_memlock));
}

static int child_host_close(struct _test_data_limits *self, int fd)
{
	(void)self;
	if (!OK(alloc(fd, NEURON_MEM_HOST, MEMLOCK / 2, NULL) == 0))
		return 1;
	if (!OK(alloc(fd, NEURON_MEM_HOST, MEMLOCK / 2, NULL) == 0))
		return 2;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 3;
	if (!OK(close(fd) == 0))
		return 4;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 5;
	return 0;
}

/* Handles still held at close are uncharged with the file. */
TEST_F(limits, host_memory_uncharged_at_close)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_host_close));
}

static int child_host_mapped(struct _test_data_limits *self, int fd)
{
	struct neuron_mem_alloc a;
	unsigned char *p;

	if (!OK(neuron_mem_alloc(fd, NEURON_MEM_HOST, MEMLOCK, 0, &a) == 0))
		return 1;
	p = mmap(NULL, MEMLOCK, PROT_READ | PROT_WRITE, MAP_SHARED, fd, a.mmap_offset);
	if (!OK(p != MAP_FAILED))
		return 2;
	p[MEMLOCK - 1] = 0x5a;
	/* The mapping keeps the memory, and its charge. */
	if (!OK(neuron_mem_free(fd, a.handle) == 0))
		return 3;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 4;
	if (!OK(alloc(fd, NEURON_MEM_HOST, self->page, NULL) == -ENOMEM))
		return 5;
	if (!OK(close(fd) == 0))
		return 6;
	if (!OK(neuron_vm_pinned_kb() == MEMLOCK / KIB))
		return 7;
	if (!OK(p[MEMLOCK - 1] == 0x5a))
		return 8;
	/* Gone with the last mapping. */
	if (!OK(munmap(p, MEMLOCK) == 0))
		return 9;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 10;
	return 0;
}

/* A mapping outlives the handle and the file: uncharged only at munmap. */
TEST_F(limits, host_memory_mapped_after_free)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_host_mapped));
}

static int child_host_ipc_lock(struct _test_data_limits *self, int fd)
{
	__u32 a;

	(void)self;
	if (!OK(alloc(fd, NEURON_MEM_HOST, 4 << 20, &a) == 0))
		return 1;
	if (!OK(neuron_vm_pinned_kb() == 4096))
		return 2;
	if (!OK(neuron_mem_free(fd, a) == 0))
		return 3;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 4;
	return 0;
}

/* With CAP_IPC_LOCK the limit does not apply; the memory is still counted. */
TEST_F(limits, host_memory_cap_ipc_lock)
{
	EXPECT_EQ(0, run_child(self, 1U << CAP_IPC_LOCK, MEMLOCK, child_host_ipc_lock));
}

/* The charge follows the process that allocated, even after it exited. */
TEST_F(limits, host_memory_charge_outlives_process)
{
	struct neuron_mem_usage_buf u;
	int status;
	pid_t pid;

	pid = neuron_fork(_metadata);
	if (!pid) {
		if (neuron_drop_privileges(0, MEMLOCK) ||
		    alloc(self->node.fd, NEURON_MEM_HOST, MEMLOCK, NULL))
			_exit(1);
		_exit(neuron_vm_pinned_kb() == MEMLOCK / KIB ? 0 : 2);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
	/* The handle is the shared file's: root frees it, the dead mm is uncharged. */
	ASSERT_EQ(0, neuron_query_mem_usage(self->node.fd, &u, NULL));
	EXPECT_EQ((__u64)MEMLOCK, u.u.file_host_bytes);
	EXPECT_EQ(1ULL, u.u.file_handles);
	close(self->node.fd);
	self->node.fd = -1;
	EXPECT_EQ(0, neuron_vm_pinned_kb());
}

/* ---- the memory cgroup ---- */

/*
 * What memory.current may move by without the driver: kernel objects, and
 * the memcg's per-CPU charge batches (64 pages, 256 KiB, per CPU: the VM
 * has 2). Still well below the 1 MiB ring and the 16 MiB object checked.
 */
#define CG_SLACK	(512 << 10)

/* memory.current of the cgroup folder @cg, in bytes; -1 if unknown. */
static long long cg_current(const char *cg)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), "%s/memory.current", cg);
	if (neuron_read_text(path, text, sizeof(text)))
		return -1;
	return strtoll(text, NULL, 10);
}

/*
 * Host memory objects and rings are charged to the caller's memory cgroup
 * (memory.current), and uncharged when freed. The test mounts its own view
 * of cgroup v2, moves itself into a new cgroup and back.
 */
/* 16 MiB zeroed and 1024 opens: minutes under KASAN on a loaded host. */
TEST_F_TIMEOUT(limits, host_memory_charged_to_memcg, 300)
{
	char root[] = "/tmp/neuron-cg-XXXXXX", cg[64], path[128], text[256];
	long long before, during, after;
	__u32 h;

	ASSERT_NE(NULL, mkdtemp(root));
	if (mount("none", root, "cgroup2", 0, NULL)) {
		rmdir(root);
		SKIP(return, "no cgroup v2: %s", strerror(errno));
	}
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	if (neuron_read_text(path, text, sizeof(text)) || !strstr(text, "memory")) {
		umount(root);
		rmdir(root);
		SKIP(return, "no memory controller (CONFIG_MEMCG)");
	}
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
	EXPECT_EQ(0, neuron_sysfs_write(path, "+memory"));
	snprintf(cg, sizeof(cg), "%s/neuron-test", root);
	EXPECT_EQ(0, mkdir(cg, 0755));
	snprintf(path, sizeof(path), "%s/cgroup.procs", cg);
	snprintf(text, sizeof(text), "%d\n", getpid());
	EXPECT_EQ(0, neuron_sysfs_write(path, text));

	/* 16 MiB of host memory: at least that much more in the cgroup. */
	before = cg_current(cg);
	EXPECT_LE(0, before);
	EXPECT_EQ(0, alloc(self->node.fd, NEURON_MEM_HOST, 16 << 20, &h));
	during = cg_current(cg);
	EXPECT_LE(before + (16 << 20), during) TH_LOG("before %lld, during %lld", before, during);
	EXPECT_EQ(0, neuron_mem_free(self->node.fd, h));
	after = cg_current(cg);
	/* Back where it was, but for the cgroup's own bookkeeping (slack). */
	EXPECT_GE(before + CG_SLACK, after) TH_LOG("before %lld, after %lld", before, after);
	/* A ring of 65536 entries: 1 MiB and a page. */
	before = cg_current(cg);
	EXPECT_EQ(0, neuron_notify_setup(self->node.fd, 0, 0, NEURON_NOTIFY_MAX_ENTRIES,
					 NULL, NULL));
	during = cg_current(cg);
	EXPECT_LE(before + (1 << 20), during) TH_LOG("before %lld, during %lld", before, during);
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, 0, 0));
	after = cg_current(cg);
	EXPECT_GE(before + CG_SLACK, after) TH_LOG("before %lld, after %lld", before, after);
	/*
	 * 1024 more opens of the node: the driver's state of each (about
	 * 4 KiB, with its memory by usage per NC) is charged too, so at least
	 * 2 MiB more; the VFS's own objects of a file are far less.
	 */
	{
		struct rlimit nofile = { 2048, 2048 };
		int fds[1024], i, n = 0;

		ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &nofile));
		before = cg_current(cg);
		for (i = 0; i < 1024; i++) {
			fds[i] = open(self->node.path, O_RDWR | O_CLOEXEC);
			n += fds[i] >= 0;
		}
		during = cg_current(cg);
		EXPECT_EQ(1024, n);
		EXPECT_LE(before + (2 << 20), during)
			TH_LOG("1024 opens: before %lld, during %lld", before, during);
		for (i = 0; i < 1024; i++)
			if (fds[i] >= 0)
				close(fds[i]);
	}

	/* Back to the root cgroup, which holds no limit. */
	snprintf(path, sizeof(path), "%s/cgroup.procs", root);
	EXPECT_EQ(0, neuron_sysfs_write(path, text));
	EXPECT_EQ(0, rmdir(cg));
	EXPECT_EQ(0, umount(root));
	EXPECT_EQ(0, rmdir(root));
}

/* ---- notification rings and RLIMIT_MEMLOCK ---- */

static int child_ring_memlock(struct _test_data_limits *self, int fd)
{
	__u64 size, off;
	void *p;
	int i;

	(void)self;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 1;
	/* 4 KiB + 1 MiB: past the limit. */
	if (!OK(neuron_notify_setup(fd, 0, NEURON_NOTIFY_EVENT, NEURON_NOTIFY_MAX_ENTRIES,
				    NULL, NULL) == -ENOMEM))
		return 2;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 3;
	/* 36 KiB, and then 36 KiB more would pass it. */
	if (!OK(neuron_notify_setup(fd, 0, NEURON_NOTIFY_EVENT, 2048, &size, NULL) == 0))
		return 4;
	if (!OK(neuron_vm_pinned_kb() == ring_kb(2048) && size == 36 * KIB))
		return 5;
	if (!OK(neuron_notify_setup(fd, 0, NEURON_NOTIFY_ERROR, 2048, NULL, NULL) == -ENOMEM))
		return 6;
	if (!OK(neuron_notify_setup(fd, 0, NEURON_NOTIFY_ERROR, 16, NULL, NULL) == 0))
		return 7;
	if (!OK(neuron_vm_pinned_kb() == ring_kb(2048) + ring_kb(16)))
		return 8;
	if (!OK(neuron_notify_teardown(fd, 0, NEURON_NOTIFY_EVENT) == 0))
		return 9;
	if (!OK(neuron_notify_teardown(fd, 0, NEURON_NOTIFY_ERROR) == 0))
		return 10;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 11;
	/* Setup, map, unmap, teardown, many times: nothing accumulates. */
	for (i = 0; i < 300; i++) {
		if (!OK(neuron_notify_setup(fd, 1, NEURON_NOTIFY_TRACE, 2048, &size, &off) == 0))
			return 12;
		p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, off);
		if (!OK(p != MAP_FAILED))
			return 13;
		if (!OK(munmap(p, size) == 0))
			return 14;
		if (!OK(neuron_notify_teardown(fd, 1, NEURON_NOTIFY_TRACE) == 0))
			return 15;
		if (!OK(neuron_vm_pinned_kb() == 0))
			return 16;
	}
	/* A mapping keeps the ring, and its charge, after teardown. */
	if (!OK(neuron_notify_setup(fd, 1, NEURON_NOTIFY_TRACE, 2048, &size, &off) == 0))
		return 17;
	p = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, off);
	if (!OK(p != MAP_FAILED))
		return 18;
	if (!OK(neuron_notify_teardown(fd, 1, NEURON_NOTIFY_TRACE) == 0))
		return 19;
	if (!OK(neuron_vm_pinned_kb() == ring_kb(2048)))
		return 20;
	if (!OK(neuron_notify_setup(fd, 1, NEURON_NOTIFY_TRACE, 2048, NULL, NULL) == -ENOMEM))
		return 21;
	if (!OK(munmap(p, size) == 0))
		return 22;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 23;
	/* Queues still set up at close are uncharged with the file. */
	if (!OK(neuron_notify_setup(fd, 1, NEURON_NOTIFY_TRACE, 2048, NULL, NULL) == 0))
		return 24;
	if (!OK(close(fd) == 0))
		return 25;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 26;
	return 0;
}

/*
 * Unprivileged, RLIMIT_MEMLOCK 64 KiB: rings are charged to VmPin while
 * their pages live; setup/mmap/teardown loops leave VmPin at 0.
 */
TEST_F(limits, notify_rings_within_memlock)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_ring_memlock));
}

static int child_ring_ipc_lock(struct _test_data_limits *self, int fd)
{
	(void)self;
	if (!OK(neuron_notify_setup(fd, 0, NEURON_NOTIFY_EVENT, NEURON_NOTIFY_MAX_ENTRIES,
				    NULL, NULL) == 0))
		return 1;
	if (!OK(neuron_vm_pinned_kb() == ring_kb(NEURON_NOTIFY_MAX_ENTRIES)))
		return 2;
	if (!OK(neuron_notify_teardown(fd, 0, NEURON_NOTIFY_EVENT) == 0))
		return 3;
	if (!OK(neuron_vm_pinned_kb() == 0))
		return 4;
	return 0;
}

TEST_F(limits, notify_rings_cap_ipc_lock)
{
	EXPECT_EQ(0, run_child(self, 1U << CAP_IPC_LOCK, MEMLOCK, child_ring_ipc_lock));
}

/* ---- read-only files ---- */

/*
 * Every ioctl but QUERY needs a file opened for writing: -EBADF on a
 * read-only file, whatever the argument, and nothing is taken.
 */
TEST_F(limits, readonly_file_may_only_query)
{
	static const struct {
		unsigned long cmd;
		const char *name;
	} cmds[] = {
		{ NEURON_IOCTL_MEM_ALLOC, "MEM_ALLOC" },
		{ NEURON_IOCTL_MEM_FREE, "MEM_FREE" },
		{ NEURON_IOCTL_COPY, "COPY" },
		{ NEURON_IOCTL_MEMSET, "MEMSET" },
		{ NEURON_IOCTL_WAIT, "WAIT" },
		{ NEURON_IOCTL_NOTIFY_SETUP, "NOTIFY_SETUP" },
		{ NEURON_IOCTL_NOTIFY_WAIT, "NOTIFY_WAIT" },
		{ NEURON_IOCTL_NOTIFY_TEARDOWN, "NOTIFY_TEARDOWN" },
		{ NEURON_IOCTL_NC_RESERVE, "NC_RESERVE" },
		{ NEURON_IOCTL_NC_RELEASE, "NC_RELEASE" },
		{ NEURON_IOCTL_NC_SEM, "NC_SEM" },
		{ NEURON_IOCTL_MODEL_LOAD, "MODEL_LOAD" },
		{ NEURON_IOCTL_MODEL_UNLOAD, "MODEL_UNLOAD" },
		{ NEURON_IOCTL_EXECUTE, "EXECUTE" },
	};
	struct neuron_notify_setup s = { .entries = 16, .eventfd = -1 };
	struct neuron_mem_alloc a;
	struct neuron_mem_usage_buf u;
	struct neuron_device_info info;
	struct neuron_mem_free f = { 0 };
	unsigned char arg[256];
	__u64 size, off;
	unsigned int i;
	int ro;

	ro = open(self->node.path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, ro);
	EXPECT_EQ(0, neuron_query_info(ro, &info, NULL));
	EXPECT_EQ(self->info.minor, info.minor);
	EXPECT_EQ(0, neuron_query_mem_usage(ro, &u, NULL));
	for (i = 0; i < ARRAY_SIZE(cmds); i++) {
		memset(arg, 0, sizeof(arg));
		EXPECT_EQ(-EBADF, neuron_ioctl(ro, cmds[i].cmd, arg)) TH_LOG("%s", cmds[i].name);
		memset(arg, 0xff, sizeof(arg));
		EXPECT_EQ(-EBADF, neuron_ioctl(ro, cmds[i].cmd, arg)) TH_LOG("%s", cmds[i].name);
	}
	/* Valid requests too. */
	EXPECT_EQ(-EBADF, neuron_mem_alloc(ro, NEURON_MEM_HOST, self->page, 0, &a));
	EXPECT_EQ(-EBADF, neuron_mem_alloc(ro, NEURON_MEM_DEVICE, self->page, 0, &a));
	EXPECT_EQ(-EBADF, neuron_ioctl(ro, NEURON_IOCTL_NOTIFY_SETUP, &s));
	/* Another file's handle: still the mode, not "not yours". */
	ASSERT_EQ(0, alloc(self->node.fd, NEURON_MEM_HOST, self->page, &f.handle));
	EXPECT_EQ(-EBADF, neuron_ioctl(ro, NEURON_IOCTL_MEM_FREE, &f));
	EXPECT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEM_FREE, &f));
	/* Nothing was taken: the queue is free for a read-write file. */
	ASSERT_EQ(0, neuron_query_mem_usage(ro, &u, NULL));
	EXPECT_EQ(0ULL, u.u.file_handles);
	EXPECT_EQ(0ULL, u.u.host_bytes);
	EXPECT_EQ(0ULL, u.u.device_bytes);
	ASSERT_EQ(0, neuron_notify_setup(self->node.fd, 0, 0, 16, &size, &off));
	/* Nor can it map what another file owns. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, size, PROT_READ, MAP_SHARED, ro, off));
	EXPECT_EQ(EINVAL, errno);
	/* A command too short or unknown is judged before the mode. */
	EXPECT_EQ(-ENOTTY, neuron_ioctl(ro, _IOWR('N', 0x7f, struct neuron_query), arg));
	close(ro);
}

/* A file opened write-only may do everything (the mode check is for writing). */
TEST_F(limits, writeonly_file_may_allocate)
{
	struct neuron_device_info info;
	__u32 h;
	int wo;

	wo = open(self->node.path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, wo);
	EXPECT_EQ(0, neuron_query_info(wo, &info, NULL));
	EXPECT_EQ(0, alloc(wo, NEURON_MEM_DEVICE, self->page, &h));
	EXPECT_EQ(0, neuron_mem_free(wo, h));
	EXPECT_EQ(0, neuron_notify_setup(wo, 0, 0, 16, NULL, NULL));
	EXPECT_EQ(0, neuron_notify_teardown(wo, 0, 0));
	close(wo);
}

/* ---- per-file limits ---- */

/* The documented defaults (docs/uapi.md), 0644, readable by anyone. */
TEST_F(limits, params_defaults_and_modes)
{
	static const unsigned long long defaults[] = { 65536, 0, 4, 4096 };
	char path[128];
	struct stat st;
	unsigned int i;

	if (!self->node.created)
		SKIP(return, "the module may have been loaded with other values");
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		EXPECT_EQ(defaults[i], self->param[i]) TH_LOG("%s", params[i]);
		snprintf(path, sizeof(path), NEURON_PARAM_DIR "%s", params[i]);
		ASSERT_EQ(0, stat(path, &st));
		EXPECT_EQ(0644U, st.st_mode & 07777) TH_LOG("%s", params[i]);
	}
}

static int child_params(struct _test_data_limits *self, int fd)
{
	char text[32];
	unsigned int i;
	int pfd;

	(void)self;
	(void)fd;
	for (i = 0; i < ARRAY_SIZE(params); i++) {
		pfd = openat(params_dir, params[i], O_RDONLY | O_CLOEXEC);
		if (!OK(pfd >= 0 && read(pfd, text, sizeof(text)) > 0))
			return 1;
		close(pfd);
		if (!OK(openat(params_dir, params[i], O_WRONLY) == -1 && errno == EACCES))
			return 2;
	}
	return 0;
}

/* Only root changes the limits; anyone reads them. */
TEST_F(limits, params_root_only)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_params));
}

/*
 * Every parameter of both modules, not only the limits: no group or other
 * write bit, and a uid without capabilities can open none for writing
 * (the timeouts, queue depths and spin times are the machine's, not a
 * user's). -1 (logged) or the number of files checked.
 */
static int check_param_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st) && errno == ENOENT)
		return 0;	/* neuron_sim.ko not loaded (silicon) */
	return neuron_files_closed(dir, true);
}

static int child_all_params(struct _test_data_limits *self, int fd)
{
	int a, b;

	(void)self;
	(void)fd;
	a = check_param_dir("/sys/module/neuron/parameters");
	b = check_param_dir("/sys/module/neuron_sim/parameters");
	if (a < 0 || b < 0)
		return 1;
	/* The four limits, the timeouts, the queue depth at least. */
	return OK(a >= 8) ? 0 : 2;
}

/* Every parameter of neuron.ko and neuron_sim.ko: root changes it, nobody else. */
TEST_F(limits, params_all_root_only)
{
	EXPECT_EQ(0, run_child(self, 0, MEMLOCK, child_all_params));
}

TEST_F(limits, max_handles)
{
	struct neuron_mem_usage_buf u;
	int fd = self->node.fd, fd2;
	__u32 h[5];
	int i;

	ASSERT_EQ(0, neuron_param_set("max_handles", 3));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, alloc(fd, i % 2 ? NEURON_MEM_HOST : NEURON_MEM_DEVICE,
				   self->page, &h[i]));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, self->page, NULL));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_HOST, self->page, NULL));
	ASSERT_EQ(0, neuron_query_mem_usage(fd, &u, NULL));
	EXPECT_EQ(3ULL, u.u.file_handles);
	EXPECT_EQ(2 * self->page, u.u.file_device_bytes);
	EXPECT_EQ(self->page, u.u.file_host_bytes);
	/* Another file of the device counts its own. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, alloc(fd2, NEURON_MEM_DEVICE, self->page, NULL));
	EXPECT_EQ(-ENOSPC, alloc(fd2, NEURON_MEM_DEVICE, self->page, NULL));
	close(fd2);
	/* Freeing one makes room for one. */
	ASSERT_EQ(0, neuron_mem_free(fd, h[0]));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, self->page, &h[0]));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, self->page, NULL));
	/* A new value applies at once. */
	ASSERT_EQ(0, neuron_param_set("max_handles", 5));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, self->page, &h[3]));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, self->page, &h[4]));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, self->page, NULL));
	/* Lowered below what the file holds: it keeps them, takes no more. */
	ASSERT_EQ(0, neuron_param_set("max_handles", 2));
	ASSERT_EQ(0, neuron_mem_free(fd, h[4]));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, self->page, NULL));
	ASSERT_EQ(0, neuron_query_mem_usage(fd, &u, NULL));
	EXPECT_EQ(4ULL, u.u.file_handles);
	/* 0: no limit. */
	ASSERT_EQ(0, neuron_param_set("max_handles", 0));
	for (i = 0; i < 8; i++)
		EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, self->page, NULL));
}

TEST_F(limits, max_mem_bytes)
{
	struct neuron_mem_usage_buf u;
	int fd = self->node.fd, fd2;
	__u64 page = self->page;
	__u32 h, h2;

	ASSERT_EQ(0, neuron_param_set("max_mem_bytes", 16 * page));
	/* Host and device memory count together, by whole pages. */
	ASSERT_EQ(0, alloc(fd, NEURON_MEM_HOST, 8 * page, &h));
	ASSERT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, 7 * page + 1, &h2));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, 1, NULL));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_HOST, 1, NULL));
	ASSERT_EQ(0, neuron_query_mem_usage(fd, &u, NULL));
	EXPECT_EQ(8 * page, u.u.file_host_bytes);
	EXPECT_EQ(8 * page, u.u.file_device_bytes);
	EXPECT_EQ(2ULL, u.u.file_handles);
	/* One request larger than the limit, on a file with nothing. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(-ENOSPC, alloc(fd2, NEURON_MEM_DEVICE, 16 * page + 1, NULL));
	/* Another file has its own budget. */
	EXPECT_EQ(0, alloc(fd2, NEURON_MEM_DEVICE, 16 * page, NULL));
	EXPECT_EQ(-ENOSPC, alloc(fd2, NEURON_MEM_HOST, page, NULL));
	close(fd2);
	/* Freeing makes room. */
	ASSERT_EQ(0, neuron_mem_free(fd, h));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, 8 * page, &h));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_DEVICE, page, NULL));
	/* A new value applies at once; 0 is no limit. */
	ASSERT_EQ(0, neuron_param_set("max_mem_bytes", 17 * page));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_HOST, page, NULL));
	EXPECT_EQ(-ENOSPC, alloc(fd, NEURON_MEM_HOST, page, NULL));
	ASSERT_EQ(0, neuron_param_set("max_mem_bytes", 0));
	EXPECT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, 1 << 20, NULL));
}

/*
 * max_async: a file may have that many asynchronous calls not yet
 * collected by WAIT, then -EAGAIN; another file counts its own; WAIT
 * makes room.
 */
TEST_F(limits, max_async)
{
	int fd = self->node.fd, fd2;
	__u64 seq[3], seq2;
	__u32 h, h2;

	ASSERT_EQ(0, alloc(fd, NEURON_MEM_DEVICE, 2 * self->page, &h));
	ASSERT_EQ(0, neuron_param_set("max_async", 2));
	ASSERT_EQ(0, neuron_copy_op(fd, h, 0, h, self->page, NULL, NULL, 64,
				    NEURON_COPY_ASYNC, &seq[0]));
	ASSERT_EQ(0, neuron_copy_op(fd, h, 0, h, self->page, NULL, NULL, 64,
				    NEURON_COPY_ASYNC, &seq[1]));
	EXPECT_EQ(-EAGAIN, neuron_copy_op(fd, h, 0, h, self->page, NULL, NULL, 64,
					  NEURON_COPY_ASYNC, &seq[2]));
	/* Completed is not collected: still -EAGAIN after the device is done. */
	neuron_sleep_ms(50);
	EXPECT_EQ(-EAGAIN, neuron_copy_op(fd, h, 0, h, self->page, NULL, NULL, 64,
					  NEURON_COPY_ASYNC, &seq[2]));
	/* Another file has its own count. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, alloc(fd2, NEURON_MEM_DEVICE, 2 * self->page, &h2));
	EXPECT_EQ(0, neuron_copy_op(fd2, h2, 0, h2, self->page, NULL, NULL, 64,
				    NEURON_COPY_ASYNC, &seq2));
	EXPECT_EQ(0, neuron_wait_seq(fd2, seq2, neuron_now_ns() + 10000000000LL));
	close(fd2);
	/* A WAIT makes room for one. */
	ASSERT_EQ(0, neuron_wait_seq(fd, seq[0], neuron_now_ns() + 10000000000LL));
	EXPECT_EQ(0, neuron_copy_op(fd, h, 0, h, self->page, NULL, NULL, 64,
				    NEURON_COPY_ASYNC, &seq[2]));
	EXPECT_EQ(0, neuron_wait_seq(fd, seq[1], neuron_now_ns() + 10000000000LL));
	EXPECT_EQ(0, neuron_wait_seq(fd, seq[2], neuron_now_ns() + 10000000000LL));
}

TEST_F(limits, max_notify_queues)
{
	int fd = self->node.fd, fd2;

	ASSERT_EQ(0, neuron_param_set("max_notify_queues", 2));
	ASSERT_EQ(0, neuron_notify_setup(fd, 0, 0, 16, NULL, NULL));
	ASSERT_EQ(0, neuron_notify_setup(fd, 0, 1, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd, 0, 2, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd, 1, 0, 16, NULL, NULL));
	/* A queue with an owner is -EBUSY first, as documented. */
	EXPECT_EQ(-EBUSY, neuron_notify_setup(fd, 0, 0, 16, NULL, NULL));
	/* The other queues stay free for another file, which counts its own. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, neuron_notify_setup(fd2, 0, 2, 16, NULL, NULL));
	EXPECT_EQ(0, neuron_notify_setup(fd2, 0, 3, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd2, 1, 0, 16, NULL, NULL));
	/* A teardown makes room. */
	ASSERT_EQ(0, neuron_notify_teardown(fd, 0, 1));
	EXPECT_EQ(0, neuron_notify_setup(fd, 1, 0, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd, 1, 1, 16, NULL, NULL));
	/* A new value applies at once. */
	ASSERT_EQ(0, neuron_param_set("max_notify_queues", 3));
	EXPECT_EQ(0, neuron_notify_setup(fd, 1, 1, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd, 1, 2, 16, NULL, NULL));
	/* Closing a file frees its queues (and its count). */
	close(fd2);
	ASSERT_EQ(0, neuron_param_set("max_notify_queues", 0));
	EXPECT_EQ(0, neuron_notify_setup(fd, 0, 2, 16, NULL, NULL));
	EXPECT_EQ(0, neuron_notify_setup(fd, 0, 3, 16, NULL, NULL));
	EXPECT_EQ(0, neuron_notify_setup(fd, 1, 2, 16, NULL, NULL));
	EXPECT_EQ(0, neuron_notify_setup(fd, 1, 3, 16, NULL, NULL));
}

/* The default lets a file take one NeuronCore's queues, not a device's. */
TEST_F(limits, default_queue_limit_leaves_queues_to_others)
{
	int fd = self->node.fd, fd2;
	__u32 t;

	ASSERT_EQ(0, neuron_param_set("max_notify_queues", 4));
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
		ASSERT_EQ(0, neuron_notify_setup(fd, 0, t, 16, NULL, NULL));
	EXPECT_EQ(-ENOSPC, neuron_notify_setup(fd, 1, 0, 16, NULL, NULL));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	for (t = 0; t < NEURON_NOTIFY_TYPES; t++)
		EXPECT_EQ(0, neuron_notify_setup(fd2, 1, t, 16, NULL, NULL));
	close(fd2);
}

TEST_HARNESS_MAIN
