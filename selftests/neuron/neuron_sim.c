// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: lifecycle of simulated devices (/sys/bus/neuron_sim):
 * new_device/del_device errors, coexisting archs, add/remove cycles, removal
 * while files are open, the minor of a removed device, running out of minors,
 * device memory larger than the RAM, unbind and bind through the driver's
 * sysfs files with files open, mappings live and a copy in flight.
 * Every test needs the simulator and skips without it.
 */
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>

#include "neuron_test.h"

/* Room for one device more than the driver takes. */
#define MAX_NODES	(NEURON_MAX_DEVICES + 1)

FIXTURE(sim) {
	struct neuron_node nodes[MAX_NODES];
	char tmpdir[64];
};

FIXTURE_SETUP(sim)
{
	unsigned int i;

	for (i = 0; i < MAX_NODES; i++)
		neuron_node_init(&self->nodes[i]);
	neuron_require_sim(_metadata);
}

FIXTURE_TEARDOWN(sim)
{
	unsigned int i;

	for (i = 0; i < MAX_NODES; i++)
		neuron_node_release(&self->nodes[i]);
	if (self->tmpdir[0]) {
		char path[128];

		snprintf(path, sizeof(path), "%s/node", self->tmpdir);
		unlink(path);
		rmdir(self->tmpdir);
	}
}

/*
 * Write each of @fmts (printf formats that may use a fresh ID once, as %u or %x)
 * to new_device; each must fail with -@err and leave no device behind.
 */
static void expect_new_fails(struct __test_metadata *_metadata,
			     const char *const *fmts, unsigned int count,
			     int err)
{
	unsigned int i, id;
	char text[64];

	for (i = 0; i < count; i++) {
		id = neuron_sim_next_id();
		snprintf(text, sizeof(text), fmts[i], id);
		EXPECT_EQ(-err, neuron_sim_new_text(text))
			TH_LOG("new_device \"%s\"", text);
		if (neuron_sim_exists(id))
			EXPECT_EQ(0, neuron_sim_del(id)) TH_LOG("\"%s\"", text);
	}
}

/* Open @n and expect QUERY to say it is sim device @id of @arch. */
static void expect_sim_device(struct __test_metadata *_metadata,
			      struct neuron_node *n, __u32 arch)
{
	const struct neuron_geometry *g = neuron_geometry_of(arch);
	struct neuron_device_info info;

	ASSERT_EQ(0, neuron_node_open(n)) TH_LOG("open %s", n->path);
	ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ(arch, info.arch);
	EXPECT_STREQ(g->name, info.arch_name);
	EXPECT_EQ(n->sim_id, info.sim_id);
	EXPECT_EQ(n->minor, info.minor);
	EXPECT_TRUE(!!(info.flags & NEURON_DEV_SIMULATED));
	EXPECT_EQ(g->nc_count, info.nc_count);
	EXPECT_EQ(g->dma_engines, info.dma_engines);
	EXPECT_EQ(g->dram_channels, info.dram_channels);
	EXPECT_EQ(g->semaphores_per_nc, info.semaphores_per_nc);
}

/* ---- who may turn the knobs ---- */

/*
 * The simulator's knobs (new_device, del_device, the fault and latency
 * knobs, inject_notify) are root's: a uid without capabilities can write
 * none of them, so no user can add a device, fail another user's DMA,
 * hang an NC or forge a notification.
 */
TEST_F(sim, knobs_root_only)
{
	struct neuron_node *n = &self->nodes[0];
	char dev[128];
	int status, bus, knobs;
	pid_t pid;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	snprintf(dev, sizeof(dev), NEURON_SIM_BUS "/devices/neuron_sim%u", n->sim_id);
	bus = neuron_files_closed(NEURON_SIM_BUS, false);
	knobs = neuron_files_closed(dev, false);
	EXPECT_LE(2, bus);	/* new_device, del_device, drivers_* */
	EXPECT_LE(10, knobs);	/* dma_*, tpb_*, inject_notify* */
	pid = neuron_fork(_metadata);
	if (!pid) {
		if (neuron_drop_privileges(0, 0))
			_exit(2);
		if (neuron_files_closed(NEURON_SIM_BUS, true) != bus)
			_exit(3);
		_exit(neuron_files_closed(dev, true) == knobs ? 0 : 4);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* ---- new_device / del_device errors ---- */

TEST_F(sim, new_bad_arch)
{
	static const char *const fmts[] = {
		"%u v1\n", "%u v4\n", "%u V2\n", "%u x\n", "%u v2x\n",
		"%u v3 v3\n",
	};

	expect_new_fails(_metadata, fmts, ARRAY_SIZE(fmts), EINVAL);
}

TEST_F(sim, new_bad_format)
{
	static const char *const fmts[] = {
		"\n", " ", "v2\n", "abc v2\n", "%ux v2\n", "-%u v2\n",
		"%u\n", "%u v2 abc\n", "%u v2 12abc\n", "%u v2 16 16\n",
		"0x%x v2\n",
	};

	expect_new_fails(_metadata, fmts, ARRAY_SIZE(fmts), EINVAL);
}

TEST_F(sim, new_bad_id)
{
	static const char *const fmts[] = {
		"65536 v2\n", "70000 v3\n", "4294967296 v2\n",
		"99999999999999999999 v2\n",
	};
	/* 70000 truncated to 16 bits */
	bool had_4464 = neuron_sim_exists(4464);

	expect_new_fails(_metadata, fmts, ARRAY_SIZE(fmts), EINVAL);
	if (!had_4464 && neuron_sim_exists(4464)) {
		neuron_sim_del(4464);
		EXPECT_TRUE(0) TH_LOG("\"70000\" created device 4464");
	}
}

TEST_F(sim, new_duplicate_id)
{
	struct neuron_node *n = &self->nodes[0];

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	EXPECT_EQ(-EEXIST, neuron_sim_new(n->sim_id, "v2", 0));
	EXPECT_EQ(-EEXIST, neuron_sim_new(n->sim_id, "v3", 64));
	/* The first device is unharmed. */
	expect_sim_device(_metadata, n, NEURON_ARCH_V2);
}

TEST_F(sim, new_mem_zero)
{
	static const char *const fmts[] = { "%u v2 0\n", "%u v3 00\n" };

	expect_new_fails(_metadata, fmts, ARRAY_SIZE(fmts), EINVAL);
}

TEST_F(sim, new_mem_too_big)
{
	static const char *const fmts[] = {
		"%u v3 65537\n", "%u v2 1000000\n", "%u v3 4294967297\n",
		"%u v2 -1\n",
	};

	expect_new_fails(_metadata, fmts, ARRAY_SIZE(fmts), EINVAL);
}

/*
 * The bounds 1 and 65536 MiB are accepted (memory is not allocated up
 * front), the upper one on a machine with that much RAM, else the RAM.
 */
TEST_F(sim, new_mem_bounds)
{
	const unsigned int mems[] = { 1, neuron_sim_mem_fit(65536) };
	struct neuron_device_info info;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(mems); i++) {
		struct neuron_node *n = &self->nodes[i];

		ASSERT_EQ(0, neuron_sim_create(n, "v3", mems[i])) TH_LOG("MEM_MB %u", mems[i]);
		ASSERT_EQ(0, neuron_node_open(n));
		ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
		EXPECT_EQ((__u64)mems[i] << 20, info.dram_size);
		EXPECT_EQ(((__u64)mems[i] << 20) / 4, info.dram_channel_size);
	}
}

/*
 * More device memory than the machine has RAM is refused with ENOMEM and
 * leaves nothing behind; the RAM size itself (rounded down to MiB) is fine.
 */
TEST_F(sim, new_mem_larger_than_ram)
{
	unsigned long long ram = neuron_ram_bytes();
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;
	unsigned int id, ram_mb;

	ASSERT_LT(0ULL, ram);
	ram_mb = ram >> 20;
	if (ram_mb >= 65536)
		SKIP(return, "64 GiB of RAM or more: the 65536 MiB limit (EINVAL) comes first");
	id = neuron_sim_next_id();
	EXPECT_EQ(-ENOMEM, neuron_sim_new(id, "v2", ram_mb + 1)) TH_LOG("%u MiB", ram_mb + 1);
	EXPECT_FALSE(neuron_sim_exists(id));
	EXPECT_EQ(-ENOMEM, neuron_sim_new(id, "v3", 65536));
	EXPECT_FALSE(neuron_sim_exists(id));
	/* A bad size is still EINVAL, a known ID still EEXIST: checked first. */
	EXPECT_EQ(-EINVAL, neuron_sim_new(id, "v3", 65537));
	EXPECT_FALSE(neuron_sim_exists(id));

	ASSERT_EQ(0, neuron_sim_create(n, "v2", ram_mb)) TH_LOG("%u MiB", ram_mb);
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
	/* In MiB and 32-bit values: a 64-bit one trips -Wclobbered under -m32. */
	EXPECT_EQ(ram_mb, (unsigned int)(info.dram_size >> 20));
	EXPECT_EQ(0U, (unsigned int)(info.dram_size & 0xfffff));
	EXPECT_EQ(-EEXIST, neuron_sim_new(n->sim_id, "v2", ram_mb + 1));
}

/* Without the trailing newline of echo, and with the default memory. */
TEST_F(sim, new_without_newline)
{
	struct neuron_node *n = &self->nodes[0];
	unsigned int id = neuron_sim_next_id();
	struct neuron_device_info info;
	char text[32];

	snprintf(text, sizeof(text), "%u v3", id);
	ASSERT_EQ(0, neuron_sim_new_text(text));
	ASSERT_EQ(0, neuron_sim_attach(n, id));
	expect_sim_device(_metadata, n, NEURON_ARCH_V3);
	ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ((__u64)NEURON_SIM_MEM_DEFAULT << 20, info.dram_size);
	/* del_device without a newline too. */
	close(n->fd);
	n->fd = -1;
	snprintf(text, sizeof(text), "%u", id);
	EXPECT_EQ(0, neuron_sysfs_write(NEURON_SIM_BUS "/del_device", text));
	n->created = false;
	EXPECT_FALSE(neuron_sim_exists(id));
}

TEST_F(sim, del_absent)
{
	struct neuron_node *n = &self->nodes[0];
	unsigned int id = neuron_sim_next_id();

	EXPECT_EQ(-ENOENT, neuron_sim_del(id));
	/* An ID that was deleted already. */
	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	ASSERT_EQ(0, neuron_sim_remove(n));
	EXPECT_EQ(-ENOENT, neuron_sim_del(n->sim_id));
}

/* ---- devices side by side ---- */

/* A v2 and a v3 device at once, each with its own geometry and minor. */
TEST_F(sim, two_archs)
{
	struct neuron_node *a = &self->nodes[0], *b = &self->nodes[1];

	ASSERT_EQ(0, neuron_sim_create(a, "v2", 0));
	ASSERT_EQ(0, neuron_sim_create(b, "v3", 0));
	EXPECT_NE(a->minor, b->minor);
	EXPECT_NE(a->sim_id, b->sim_id);
	expect_sim_device(_metadata, a, NEURON_ARCH_V2);
	expect_sim_device(_metadata, b, NEURON_ARCH_V3);
	/* Interleaved again, after both exist. */
	expect_sim_device(_metadata, a, NEURON_ARCH_V2);
}

/* Create and delete 20 times: the node comes and goes each time. */
TEST_F_TIMEOUT(sim, add_remove_cycles, 120)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;
	unsigned int i;

	for (i = 0; i < 20; i++) {
		const char *arch = i % 2 ? "v3" : "v2";

		ASSERT_EQ(0, neuron_sim_create(n, arch, 16 + i)) TH_LOG("cycle %u", i);
		ASSERT_TRUE(neuron_sim_exists(n->sim_id));
		ASSERT_EQ(0, neuron_node_open(n));
		ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
		EXPECT_EQ(n->sim_id, info.sim_id);
		EXPECT_EQ((__u64)(16 + i) << 20, info.dram_size);
		EXPECT_EQ((__u32)(i % 2 ? NEURON_ARCH_V3 : NEURON_ARCH_V2), info.arch);
		close(n->fd);
		n->fd = -1;
		ASSERT_EQ(0, neuron_sim_remove(n)) TH_LOG("cycle %u", i);
		ASSERT_FALSE(neuron_sim_exists(n->sim_id));
		ASSERT_NE(0, access(n->path, F_OK)) TH_LOG("%s still there", n->path);
	}
}

/* ---- removal with open files ---- */

/* QUERY on a file of a removed device: -ENODEV; close works. */
TEST_F(sim, remove_while_open)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;

	ASSERT_EQ(0, neuron_sim_create(n, "v3", 0));
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
	ASSERT_EQ(0, neuron_sim_remove(n)) TH_LOG("delete with a file open");
	EXPECT_FALSE(neuron_sim_exists(n->sim_id));
	EXPECT_NE(0, access(n->path, F_OK));
	EXPECT_EQ(-ENODEV, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ(-ENODEV, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ(0, close(n->fd));
	n->fd = -1;
}

/* Several files open at removal: each gets -ENODEV and closes cleanly. */
TEST_F(sim, remove_with_many_files)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;
	int fds[8];
	unsigned int i;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	for (i = 0; i < ARRAY_SIZE(fds); i++) {
		fds[i] = open(n->path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fds[i]);
	}
	ASSERT_EQ(0, neuron_sim_remove(n));
	for (i = 0; i < ARRAY_SIZE(fds); i++)
		EXPECT_EQ(-ENODEV, neuron_query_info(fds[i], &info, NULL)) TH_LOG("fd %u", i);
	/* Close in an order other than the open order. */
	for (i = 0; i < ARRAY_SIZE(fds); i += 2)
		EXPECT_EQ(0, close(fds[i]));
	for (i = 1; i < ARRAY_SIZE(fds); i += 2) {
		EXPECT_EQ(-ENODEV, neuron_query_info(fds[i], &info, NULL));
		EXPECT_EQ(0, close(fds[i]));
	}
}

/* Removal while a child queries in a loop: only success, then -ENODEV. */
TEST_F(sim, remove_during_queries)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;
	int status, ready[2];
	pid_t pid;
	char c;

	ASSERT_EQ(0, neuron_sim_create(n, "v3", 0));
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, pipe(ready));
	pid = neuron_fork(_metadata);
	if (pid == 0) {
		unsigned long ok = 0;
		int err;

		close(ready[0]);
		for (;;) {
			err = neuron_query_info(n->fd, &info, NULL);
			if (err)
				break;
			if (info.sim_id != n->sim_id)
				_exit(2);
			if (++ok == 100 && write(ready[1], "r", 1) != 1)
				_exit(3);
		}
		_exit(err == -ENODEV && ok >= 100 ? 0 : 1);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1)) TH_LOG("child did not start querying");
	close(ready[0]);
	EXPECT_EQ(0, neuron_sim_remove(n));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child: 1 = ended with an error other than ENODEV, 2 = wrong answer");
}

/* Make a temp dir for our own device nodes under @root: true on success. */
static bool make_tmpdir_in(const char *root, char *dir, size_t size)
{
	if (!root || !*root)
		return false;
	snprintf(dir, size, "%s/neuron-XXXXXX", root);
	return !!mkdtemp(dir);
}

/* ...under $TMPDIR, else the first writable of a few usual places. */
static int make_tmpdir(char *dir, size_t size)
{
	static const char *const roots[] = { "/tmp", "/dev/shm", "/run", "/dev" };
	unsigned int i;

	if (make_tmpdir_in(getenv("TMPDIR"), dir, size))
		return 0;
	for (i = 0; i < ARRAY_SIZE(roots); i++)
		if (make_tmpdir_in(roots[i], dir, size))
			return 0;
	dir[0] = '\0';
	return -errno;
}

/* Opening the minor of a removed device through our own node: -ENXIO. */
TEST_F(sim, open_removed_minor)
{
	struct neuron_node *n = &self->nodes[0];
	char node[128];
	int fd;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	ASSERT_EQ(0, make_tmpdir(self->tmpdir, sizeof(self->tmpdir)));
	snprintf(node, sizeof(node), "%s/node", self->tmpdir);
	ASSERT_EQ(0, mknod(node, S_IFCHR | 0600, n->devt));
	/* Our node reaches the live device... */
	fd = open(node, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", node, strerror(errno));
	close(fd);
	ASSERT_EQ(0, neuron_sim_remove(n));
	/* ...and nothing once it is gone. */
	errno = 0;
	fd = open(node, O_RDWR | O_CLOEXEC);
	EXPECT_EQ(-1, fd);
	if (fd >= 0)
		close(fd);
	EXPECT_TRUE(errno == ENXIO || errno == ENODEV) TH_LOG("errno %d", errno);
	TH_LOG("open of the removed minor %u:%u: %s", major(n->devt),
	       minor(n->devt), strerror(errno));
}

/* The ID of a removed device can be used again, with another arch. */
TEST_F(sim, recreate_same_id)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;
	unsigned int id;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 0));
	expect_sim_device(_metadata, n, NEURON_ARCH_V2);
	/* Deleted while its file is still open. */
	id = n->sim_id;
	ASSERT_EQ(0, neuron_sim_remove(n));
	ASSERT_EQ(0, neuron_sim_create_id(&self->nodes[1], id, "v3", 0));
	expect_sim_device(_metadata, &self->nodes[1], NEURON_ARCH_V3);
	/* The old file still belongs to the old device. */
	EXPECT_EQ(-ENODEV, neuron_query_info(n->fd, &info, NULL));
}

/* At most 64 devices: creating more fails with -ENOSPC; minors are reused. */
TEST_F_TIMEOUT(sim, out_of_minors, 120)
{
	unsigned int count = 0, i, existing = 0, freed_minor;
	struct dirent *de;
	int err = 0;
	DIR *d;

	d = opendir("/sys/class/neuron");
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)))
		if (!strncmp(de->d_name, "neuron", 6))
			existing++;
	closedir(d);
	ASSERT_GE((unsigned int)NEURON_MAX_DEVICES, existing);

	/* One more than the free minors: the last one must fail. */
	while (count <= NEURON_MAX_DEVICES - existing) {
		err = neuron_sim_create(&self->nodes[count], "v2", 1);
		if (err)
			break;
		count++;
	}
	EXPECT_EQ(-ENOSPC, err) TH_LOG("after %u new devices: %s", count, strerror(-err));
	EXPECT_EQ(NEURON_MAX_DEVICES - existing, count);
	ASSERT_LT(0U, count);
	/* Free one minor: the next device takes it. */
	freed_minor = self->nodes[count / 2].minor;
	ASSERT_EQ(0, neuron_sim_remove(&self->nodes[count / 2]));
	ASSERT_EQ(0, neuron_sim_create(&self->nodes[count / 2], "v3", 1));
	EXPECT_EQ(freed_minor, self->nodes[count / 2].minor);
	for (i = 0; i < count; i++)
		EXPECT_EQ(0, neuron_sim_remove(&self->nodes[i])) TH_LOG("device %u", i);
}

/* ---- unbind and bind (the driver's sysfs files) ---- */

static int sim_knob(unsigned int id, const char *knob, const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/%s", id, knob);
	return neuron_sysfs_write(path, val);
}

/* COPY between handles (0: the user buffer @ptr): 0 or -errno. */
static int sim_copy(int fd, __u32 src, __u32 dst, void *ptr, __u64 size,
		    __u32 flags, __u64 *seqno)
{
	struct neuron_copy c = {
		.src_handle = src, .dst_handle = dst,
		.src_ptr = src ? 0 : (uintptr_t)ptr,
		.dst_ptr = dst ? 0 : (uintptr_t)ptr,
		.size = size, .flags = flags,
	};
	int ret = neuron_ioctl(fd, NEURON_IOCTL_COPY, &c);

	if (seqno)
		*seqno = c.seqno;
	return ret;
}

/* WAIT for @seqno, at most @timeout_ms: 0 or -errno. */
static int sim_wait(int fd, __u64 seqno, unsigned int timeout_ms)
{
	struct neuron_wait w = { .seqno = seqno };
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	w.timeout_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec +
		       timeout_ms * 1000000LL;
	return neuron_ioctl(fd, NEURON_IOCTL_WAIT, &w);
}

#define OBJ	(64 * 1024)

/*
 * A bound device works: device memory written through a mapping, copied to
 * host memory and back to the user, and a copy from the user read back
 * through the mapping.
 */
static void expect_device_works(struct __test_metadata *_metadata,
				struct neuron_node *n)
{
	struct neuron_mem_alloc dev, host;
	unsigned char *map, buf[4096];
	unsigned int i;

	ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_DEVICE, OBJ, 0, &dev));
	ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_HOST, OBJ, 0, &host));
	map = mmap(NULL, OBJ, PROT_READ | PROT_WRITE, MAP_SHARED, n->fd,
		   (off_t)dev.mmap_offset);
	ASSERT_NE(MAP_FAILED, map);
	for (i = 0; i < OBJ; i++)
		map[i] = (unsigned char)(i * 7 + 1);
	ASSERT_EQ(0, sim_copy(n->fd, dev.handle, host.handle, NULL, OBJ, 0, NULL));
	ASSERT_EQ(0, sim_copy(n->fd, host.handle, 0, buf, sizeof(buf), 0, NULL));
	for (i = 0; i < sizeof(buf); i++)
		ASSERT_EQ((unsigned char)(i * 7 + 1), buf[i]) TH_LOG("byte %u", i);
	memset(buf, 0xc3, sizeof(buf));
	ASSERT_EQ(0, sim_copy(n->fd, 0, dev.handle, buf, sizeof(buf), 0, NULL));
	EXPECT_EQ(0xc3, map[0]);
	EXPECT_EQ(0xc3, map[sizeof(buf) - 1]);
	EXPECT_EQ((unsigned char)(sizeof(buf) * 7 + 1), map[sizeof(buf)]);
	EXPECT_EQ(0, munmap(map, OBJ));
	EXPECT_EQ(0, neuron_mem_free(n->fd, dev.handle));
	EXPECT_EQ(0, neuron_mem_free(n->fd, host.handle));
}

/*
 * Unbind with a file open, a live mapping of device memory, a copy in
 * flight and another process blocked in WAIT on it: /dev/neuronN goes, the
 * device stays on the bus unbound, the waiter wakes with ENODEV, every
 * ioctl gets ENODEV, the mapping SIGBUS, close works. Bind brings a new
 * node that works, from an empty device.
 */
TEST_F_TIMEOUT(sim, unbind_bind_with_users, 60)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_mem_alloc dev, host, a;
	struct neuron_device_info info;
	struct neuron_mem_usage_buf u;
	unsigned char *map, val = 1;
	int status, ret;
	__u64 seq;
	pid_t pid;

	ASSERT_EQ(0, neuron_sim_create(n, "v3", 64));
	ASSERT_TRUE(neuron_sim_bound(n->sim_id));
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_DEVICE, OBJ, 0, &dev));
	ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_HOST, OBJ, 0, &host));
	map = mmap(NULL, OBJ, PROT_READ | PROT_WRITE, MAP_SHARED, n->fd,
		   (off_t)dev.mmap_offset);
	ASSERT_NE(MAP_FAILED, map);
	memset(map, 0x5a, OBJ);

	/*
	 * A copy that takes a second (the knob's most): in flight at the
	 * unbind, but for a host so loaded that the fork and the unbind take
	 * longer (once, with two debug VMs and a build on the host's two cores).
	 */
	ASSERT_EQ(0, sim_knob(n->sim_id, "dma_latency_us", "1000000"));
	ASSERT_EQ(0, sim_copy(n->fd, host.handle, dev.handle, NULL, OBJ,
			      NEURON_COPY_ASYNC, &seq));
	pid = neuron_fork(_metadata);
	if (pid == 0)
		_exit(-sim_wait(n->fd, seq, 30000));
	neuron_sleep_ms(200);

	ASSERT_EQ(0, neuron_sim_bind(n->sim_id, false));
	EXPECT_TRUE(neuron_wait_node(n->path, n->devt, false));
	EXPECT_TRUE(neuron_sim_exists(n->sim_id));
	EXPECT_FALSE(neuron_sim_bound(n->sim_id));
	/* Unbinding an unbound device: the driver core says ENODEV. */
	EXPECT_EQ(-ENODEV, neuron_sim_bind(n->sim_id, false));

	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(ENODEV, WEXITSTATUS(status)) TH_LOG("the blocked WAIT");
	EXPECT_EQ(-ENODEV, sim_wait(n->fd, seq, 1000));
	EXPECT_EQ(-ENODEV, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ(-ENODEV, neuron_query_mem_usage(n->fd, &u, NULL));
	EXPECT_EQ(-ENODEV, neuron_mem_alloc(n->fd, NEURON_MEM_DEVICE, OBJ, 0, &a));
	EXPECT_EQ(-ENODEV, sim_copy(n->fd, dev.handle, host.handle, NULL, OBJ, 0, NULL));
	EXPECT_EQ(-ENODEV, neuron_mem_free(n->fd, dev.handle));
	EXPECT_EQ(SIGBUS, neuron_probe(map, &val, false));
	EXPECT_EQ(SIGBUS, neuron_probe(map + OBJ - 1, &val, true));
	/* No new mapping through the old file either. */
	EXPECT_EQ(MAP_FAILED, mmap(NULL, OBJ, PROT_READ, MAP_SHARED, n->fd,
				   (off_t)host.mmap_offset));
	EXPECT_EQ(0, munmap(map, OBJ));
	EXPECT_EQ(0, close(n->fd));
	n->fd = -1;
	/* The knobs belong to the simulated device: still there. */
	EXPECT_EQ(0, sim_knob(n->sim_id, "dma_latency_us", "0"));

	ASSERT_EQ(0, neuron_sim_bind(n->sim_id, true));
	ASSERT_TRUE(neuron_sim_bound(n->sim_id));
	ASSERT_EQ(0, neuron_sim_attach(n, n->sim_id)) TH_LOG("no node after bind");
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
	EXPECT_EQ(n->sim_id, info.sim_id);
	EXPECT_EQ(n->minor, info.minor);
	EXPECT_EQ((__u32)NEURON_ARCH_V3, info.arch);
	EXPECT_EQ(64ULL << 20, info.dram_size);
	/* Nothing of the old binding is charged to the new one. */
	ASSERT_EQ(0, neuron_query_mem_usage(n->fd, &u, NULL));
	EXPECT_EQ(0ULL, u.u.device_bytes);
	EXPECT_EQ(0ULL, u.u.host_bytes);
	/* Binding a bound device is refused by the driver core. */
	ret = neuron_sim_bind(n->sim_id, true);
	EXPECT_TRUE(ret == -EBUSY || ret == -ENODEV) TH_LOG("bind again: %d", ret);
	expect_device_works(_metadata, n);
}

/*
 * Unbind and bind cycles while memory objects of old bindings live on
 * (their files open): the new binding puts its device memory at the same
 * addresses, and the old objects' release must not take it away.
 */
TEST_F_TIMEOUT(sim, rebind_while_old_objects_live, 60)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_mem_alloc a, b;
	int old[3], i;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 16));
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, neuron_node_open(n));
		ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_DEVICE, OBJ, 0, &a));
		old[i] = n->fd;
		n->fd = -1;
		ASSERT_EQ(0, neuron_sim_bind(n->sim_id, false)) TH_LOG("cycle %d", i);
		EXPECT_TRUE(neuron_wait_node(n->path, n->devt, false));
		ASSERT_EQ(0, neuron_sim_bind(n->sim_id, true)) TH_LOG("cycle %d", i);
		ASSERT_EQ(0, neuron_sim_attach(n, n->sim_id));
	}
	ASSERT_EQ(0, neuron_node_open(n));
	/* The first object of the new binding sits where the old ones sat. */
	ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_DEVICE, OBJ, 0, &b));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(0, close(old[i]));
	/* The old objects are gone: that memory of the new device still works. */
	{
		unsigned char *map, buf[256];
		unsigned int j;

		map = mmap(NULL, OBJ, PROT_READ | PROT_WRITE, MAP_SHARED, n->fd,
			   (off_t)b.mmap_offset);
		ASSERT_NE(MAP_FAILED, map);
		memset(map, 0x3c, OBJ);
		ASSERT_EQ(0, neuron_mem_alloc(n->fd, NEURON_MEM_HOST, OBJ, 0, &a));
		ASSERT_EQ(0, sim_copy(n->fd, b.handle, a.handle, NULL, OBJ, 0, NULL));
		ASSERT_EQ(0, sim_copy(n->fd, a.handle, 0, buf, sizeof(buf), 0, NULL));
		for (j = 0; j < sizeof(buf); j++)
			ASSERT_EQ(0x3c, buf[j]) TH_LOG("byte %u", j);
		EXPECT_EQ(0, munmap(map, OBJ));
	}
	expect_device_works(_metadata, n);
}

/* del_device of an unbound device, with a file of its old binding open. */
TEST_F(sim, del_unbound)
{
	struct neuron_node *n = &self->nodes[0];
	struct neuron_device_info info;

	ASSERT_EQ(0, neuron_sim_create(n, "v2", 16));
	ASSERT_EQ(0, neuron_node_open(n));
	ASSERT_EQ(0, neuron_sim_bind(n->sim_id, false));
	ASSERT_EQ(0, neuron_sim_del(n->sim_id));
	n->created = false;
	EXPECT_FALSE(neuron_sim_exists(n->sim_id));
	EXPECT_EQ(-ENODEV, neuron_query_info(n->fd, &info, NULL));
	/* The ID is free again. */
	ASSERT_EQ(0, neuron_sim_create_id(&self->nodes[1], n->sim_id, "v3", 16));
	EXPECT_EQ(0, close(n->fd));
	n->fd = -1;
	expect_sim_device(_metadata, &self->nodes[1], NEURON_ARCH_V3);
}

TEST_HARNESS_MAIN
