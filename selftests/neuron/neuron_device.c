// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the device node and what QUERY says about the device,
 * once per arch (v2, v3), plus the file operations the node does not have.
 */
#include <sys/wait.h>

#include "neuron_test.h"

/* ---- per arch ---- */

FIXTURE(arch) {
	struct neuron_node node;
	struct neuron_node extra;	/* a second device some tests create */
};

FIXTURE_VARIANT(arch) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(arch, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(arch, v3) NEURON_ARCH_V3_VARIANT;

FIXTURE_SETUP(arch)
{
	neuron_node_init(&self->extra);
	neuron_setup_node(_metadata, &self->node, variant->name, 0);
}

FIXTURE_TEARDOWN(arch)
{
	neuron_node_release(&self->extra);
	neuron_node_release(&self->node);
}

/* The node is our char device; more opens and closes work. */
TEST_F(arch, open_close)
{
	struct neuron_device_info info;
	struct stat st;
	int fd, fd2;

	fd = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("open %s: %s", self->node.path, strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(self->node.devt, st.st_rdev);
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	EXPECT_EQ(0, close(fd));
	EXPECT_EQ(0, neuron_query_info(fd2, &info, NULL));
	EXPECT_EQ(0, close(fd2));
	/* The fixture's own file is still fine. */
	EXPECT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
}

/* Geometry fields match the public facts of the arch. */
TEST_F(arch, geometry)
{
	const struct neuron_geometry *g = neuron_geometry_of(variant->arch);
	struct neuron_device_info info;
	__u32 size = 0;

	ASSERT_NE(NULL, g);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &info, &size));
	EXPECT_EQ(sizeof(info), size);
	EXPECT_EQ(variant->arch, info.arch);
	EXPECT_STREQ(variant->name, info.arch_name);
	EXPECT_EQ(g->nc_count, info.nc_count);
	EXPECT_EQ(g->dma_engines, info.dma_engines);
	EXPECT_EQ(g->dma_queues_per_engine, info.dma_queues_per_engine);
	EXPECT_EQ(g->dram_channels, info.dram_channels);
	EXPECT_EQ(g->semaphores_per_nc, info.semaphores_per_nc);
	EXPECT_EQ(g->events_per_nc, info.events_per_nc);
	EXPECT_NE(0ULL, info.dram_size);
	if (info.dram_channels)
		EXPECT_EQ(info.dram_size / info.dram_channels,
			  info.dram_channel_size);
}

/* Versions, capabilities, minor and the strings of the answer. */
TEST_F(arch, versions)
{
	struct neuron_device_info info;

	ASSERT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
	EXPECT_EQ((__u32)NEURON_UAPI_VERSION, info.uapi_version);
	EXPECT_EQ((__u32)NEURON_UAPI_VERSION_MAJOR, info.uapi_version >> 16);
	EXPECT_TRUE(!!(info.caps & NEURON_CAP_QUERY));
	EXPECT_EQ(self->node.minor, info.minor);
	EXPECT_EQ(0U, info.pad);
	ASSERT_TRUE(neuron_str_ok(info.driver_version, sizeof(info.driver_version)));
	ASSERT_TRUE(neuron_str_ok(info.arch_name, sizeof(info.arch_name)));
	ASSERT_TRUE(neuron_str_ok(info.product, sizeof(info.product)));
	EXPECT_NE(0U, strlen(info.driver_version));
	EXPECT_NE(0U, strlen(info.product));
}

/* A simulated device says so, with its ID and no PCI identity; silicon has its PCI ids. */
TEST_F(arch, identity)
{
	struct neuron_device_info info;
	unsigned int sim_id;

	ASSERT_EQ(0, neuron_query_info(self->node.fd, &info, NULL));
	/* A device of the simulator must say so. */
	if (self->node.created || neuron_sim_id_of_minor(info.minor, &sim_id) == 0)
		EXPECT_TRUE(!!(info.flags & NEURON_DEV_SIMULATED));
	if (info.flags & NEURON_DEV_SIMULATED) {
		if (self->node.created)
			sim_id = self->node.sim_id;
		else
			ASSERT_EQ(0, neuron_sim_id_of_minor(info.minor, &sim_id));
		EXPECT_EQ(sim_id, info.sim_id);
		EXPECT_EQ(0, info.pci_vendor);
		EXPECT_EQ(0, info.pci_device);
		EXPECT_EQ(0, info.pci_subsystem_vendor);
		EXPECT_EQ(0, info.pci_subsystem_device);
		EXPECT_EQ(0U, info.pci_domain);
		EXPECT_EQ(0, info.pci_bus);
		EXPECT_EQ(0, info.pci_devfn);
		EXPECT_STREQ("sim", info.product);
		if (self->node.created)
			EXPECT_EQ((__u64)NEURON_SIM_MEM_DEFAULT << 20, info.dram_size);
	} else {
		/* Silicon: Amazon's PCI vendor id, a known product. */
		EXPECT_EQ(0U, info.sim_id);
		EXPECT_EQ(0x1d0f, info.pci_vendor);
		EXPECT_TRUE(!strcmp(info.product, "inf1") ||
			    !strcmp(info.product, "trn1") ||
			    !strcmp(info.product, "inf2") ||
			    !strcmp(info.product, "trn2"))
			TH_LOG("product \"%s\"", info.product);
	}
}

/* MEM_MB given at creation sets dram_size and the size of each channel. */
TEST_F(arch, dram_custom)
{
	/* Odd sizes; at most the RAM (new_device refuses more). */
	const unsigned int sizes_mb[] = { 1, neuron_sim_mem_fit(768) * 3 / 4,
					  neuron_sim_mem_fit(1000) };
	struct neuron_device_info info;
	unsigned int i;
	int fd;

	if (!self->node.created)
		SKIP(return, "%s", neuron_mode_skip_reason());
	for (i = 0; i < ARRAY_SIZE(sizes_mb); i++) {
		__u64 bytes = (__u64)sizes_mb[i] << 20;

		ASSERT_EQ(0, neuron_sim_create(&self->extra, variant->name,
					       sizes_mb[i]));
		fd = open(self->extra.path, O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd);
		EXPECT_EQ(0, neuron_query_info(fd, &info, NULL));
		close(fd);
		EXPECT_EQ(bytes, info.dram_size) TH_LOG("MEM_MB %u", sizes_mb[i]);
		EXPECT_EQ(bytes / neuron_geometry_of(variant->arch)->dram_channels,
			  info.dram_channel_size) TH_LOG("MEM_MB %u", sizes_mb[i]);
		ASSERT_EQ(0, neuron_sim_remove(&self->extra));
	}
}

/* Two files of one device get the same answer; the answer is stable. */
TEST_F(arch, same_answer)
{
	struct neuron_device_info a, b, c;
	int fd;

	fd = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &a, NULL));
	ASSERT_EQ(0, neuron_query_info(fd, &b, NULL));
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &c, NULL));
	close(fd);
	EXPECT_EQ(0, memcmp(&a, &b, sizeof(a)));
	EXPECT_EQ(0, memcmp(&a, &c, sizeof(a)));
}

/* ---- the node's file operations ---- */

FIXTURE(node) {
	struct neuron_node node;
};

FIXTURE_SETUP(node)
{
	neuron_setup_node(_metadata, &self->node, NULL, 0);
}

FIXTURE_TEARDOWN(node)
{
	neuron_node_release(&self->node);
}

TEST_F(node, read_fails)
{
	char buf[16];

	errno = 0;
	EXPECT_EQ(-1, read(self->node.fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

TEST_F(node, write_fails)
{
	char buf[16] = { 0 };

	errno = 0;
	EXPECT_EQ(-1, write(self->node.fd, buf, sizeof(buf)));
	EXPECT_EQ(EINVAL, errno);
}

/* Each of the @n ioctl numbers @nrs, with a QUERY argument: -ENOTTY. */
static void expect_enotty(struct __test_metadata *_metadata, int fd,
			  const unsigned long *nrs, unsigned int n)
{
	struct neuron_query q;
	unsigned int i;

	for (i = 0; i < n; i++) {
		neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, 0);
		EXPECT_EQ(-ENOTTY, neuron_ioctl(fd, nrs[i], &q))
			TH_LOG("ioctl 0x%lx", nrs[i]);
	}
}

/* Other ioctl numbers under 'N' are not ours (yet): -ENOTTY. */
TEST_F(node, unknown_ioctl_nr)
{
	static const unsigned long nrs[] = {
		_IOWR(NEURON_IOCTL_MAGIC, 0x3f, struct neuron_query),
		_IOWR(NEURON_IOCTL_MAGIC, 0xff, struct neuron_query),
		_IOR(NEURON_IOCTL_MAGIC, 0x7f, __u64),
		_IO(NEURON_IOCTL_MAGIC, 0x01),
	};

	expect_enotty(_metadata, self->node.fd, nrs, ARRAY_SIZE(nrs));
}

/* The QUERY layout under another magic is not ours: -ENOTTY. */
TEST_F(node, foreign_magic)
{
	static const unsigned long nrs[] = {
		_IOWR('M', 0x00, struct neuron_query),
		_IOWR('n', 0x00, struct neuron_query),
		_IOWR(0xff, 0x00, struct neuron_query),
		_IO('T', 0x01),		/* TCGETS-like */
	};

	expect_enotty(_metadata, self->node.fd, nrs, ARRAY_SIZE(nrs));
}

/*
 * The node is not world-accessible (docs/privilege-model.md): the driver
 * asks devtmpfs for no mode (root 0600), the packaged udev rule makes it
 * root:neuron 0660; the vendor's rule (0666) fails here. A uid outside
 * the owner and the group cannot open it, not even read-only.
 */
TEST_F(node, not_world_accessible)
{
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, stat(self->node.path, &st));
	EXPECT_TRUE(S_ISCHR(st.st_mode));
	EXPECT_EQ(0U, st.st_mode & 0007)
		TH_LOG("%s is mode %o", self->node.path, st.st_mode & 07777);
	EXPECT_EQ(0U, st.st_mode & 07000);
	if (geteuid())
		SKIP(return, "the outsider's open needs root to become it");
	pid = neuron_fork(_metadata);
	if (!pid) {
		int fd;

		if (st.st_uid == NEURON_TEST_NOBODY || st.st_gid == NEURON_TEST_NOBODY)
			_exit(3);
		if (neuron_drop_privileges(0, 0))
			_exit(4);
		fd = open(self->node.path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 || errno != EACCES)
			_exit(5);
		fd = open(self->node.path, O_RDWR | O_CLOEXEC);
		_exit(fd >= 0 || errno != EACCES ? 6 : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("uid %d opened %s (step %d)",
						 NEURON_TEST_NOBODY, self->node.path,
						 WEXITSTATUS(status));
}

/* A forked child shares the open file and may query through it. */
TEST_F(node, fork_child_query)
{
	struct neuron_device_info parent, child;
	int status, pipefd[2];
	pid_t pid;

	ASSERT_EQ(0, neuron_query_info(self->node.fd, &parent, NULL));
	ASSERT_EQ(0, pipe(pipefd));
	pid = neuron_fork(_metadata);
	if (pid == 0) {
		int err = neuron_query_info(self->node.fd, &child, NULL);

		close(pipefd[0]);
		if (!err && write(pipefd[1], &child, sizeof(child)) != sizeof(child))
			err = -EIO;
		close(self->node.fd);
		_exit(err ? 10 + (-err & 0x7f) : 0);
	}
	close(pipefd[1]);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status))
		TH_LOG("child query: %s", WEXITSTATUS(status) >= 10 ?
		       strerror(WEXITSTATUS(status) - 10) : "?");
	EXPECT_EQ((ssize_t)sizeof(child), read(pipefd[0], &child, sizeof(child)));
	close(pipefd[0]);
	EXPECT_EQ(0, memcmp(&parent, &child, sizeof(parent)));
	/* The child's close did not close the parent's file. */
	EXPECT_EQ(0, neuron_query_info(self->node.fd, &child, NULL));
}

TEST_HARNESS_MAIN
