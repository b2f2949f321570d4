// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: NeuronCore reservation (NEURON_CAP_RESERVE):
 * NC_RESERVE / NC_RELEASE and NEURON_QUERY_NC_STATE; all or none; the
 * reservation enforced on the calls of other files (memory, copies,
 * notification queues); released at close and at once when its owner is
 * killed; the owner's pid shown only to the same uid or CAP_SYS_ADMIN; one
 * test per rejected field. Semaphores and events of an NC
 * (NEURON_CAP_SEM): every operation, the reservation they need, waits
 * woken by a change and by removal. Runs on a v2 and a v3 device.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "neuron_test.h"

FIXTURE(res) {
	struct neuron_node node;
	struct neuron_device_info info;
	int fd2;			/* a second file of the device */
};

FIXTURE_VARIANT(res) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(res, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(res, v3) NEURON_ARCH_V3_VARIANT;

FIXTURE_SETUP(res)
{
	self->fd2 = -1;
	neuron_setup_node(_metadata, &self->node, variant->name, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	if (!(self->info.caps & NEURON_CAP_RESERVE))
		NEURON_SKIP_SETUP("%s has no NEURON_CAP_RESERVE", self->node.path);
	self->fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd2);
}

FIXTURE_TEARDOWN(res)
{
	if (self->fd2 >= 0)
		close(self->fd2);
	neuron_node_release(&self->node);
}

/* The state of NC @nc as @fd sees it. */
static struct neuron_nc_state nc_state(struct __test_metadata *_metadata,
				       int fd, __u32 nc)
{
	struct neuron_nc_states_buf s;
	__u32 size = 0;

	EXPECT_EQ(0, neuron_query_into(fd, NEURON_QUERY_NC_STATE, &s, sizeof(s),
				       &size));
	EXPECT_GT(s.h.nc_count, nc);
	EXPECT_EQ(sizeof(s.h) + s.h.nc_count * sizeof(s.nc[0]), size);
	return s.nc[nc];
}

TEST_F(res, query_all_free)
{
	struct neuron_nc_states_buf s;
	__u32 i, size = 0;

	ASSERT_EQ(0, neuron_query_into(self->node.fd, NEURON_QUERY_NC_STATE, &s,
				       sizeof(s), &size));
	EXPECT_EQ(self->info.nc_count, s.h.nc_count);
	EXPECT_EQ(0U, s.h.pad);
	for (i = 0; i < s.h.nc_count; i++) {
		EXPECT_EQ((__u32)NEURON_NC_FREE, s.nc[i].state);
		EXPECT_EQ(0U, s.nc[i].flags);
		EXPECT_EQ(0, s.nc[i].owner_pid);
	}
}

TEST_F(res, reserve_release)
{
	__u32 last = self->info.nc_count - 1;
	struct neuron_nc_state st;

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1ULL << last));
	st = nc_state(_metadata, self->node.fd, last);
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, st.state);
	EXPECT_EQ(NEURON_NC_STATE_MINE | NEURON_NC_STATE_OWNER, st.flags);
	EXPECT_EQ(getpid(), st.owner_pid);
	EXPECT_EQ(getuid(), st.owner_uid);
	/* Another file sees it held, not its own. */
	st = nc_state(_metadata, self->fd2, last);
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, st.state);
	EXPECT_EQ(NEURON_NC_STATE_OWNER, st.flags);
	/* Reserving again what the file holds is fine. */
	EXPECT_EQ(0, neuron_reserve(self->node.fd, 1ULL << last));
	EXPECT_EQ(0, neuron_release(self->node.fd, 1ULL << last));
	st = nc_state(_metadata, self->node.fd, last);
	EXPECT_EQ((__u32)NEURON_NC_FREE, st.state);
	EXPECT_EQ(0U, st.flags);
	EXPECT_EQ(-ENOENT, neuron_release(self->node.fd, 1ULL << last));
}

/* All or none: one NC held elsewhere fails the whole mask. */
TEST_F(res, conflict_all_or_none)
{
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	EXPECT_EQ(-EBUSY, neuron_reserve(self->fd2, 1));
	EXPECT_EQ(-EBUSY, neuron_reserve(self->fd2, 3));
	EXPECT_EQ((__u32)NEURON_NC_FREE, nc_state(_metadata, self->fd2, 1).state);
	EXPECT_EQ(0, neuron_reserve(self->fd2, 2));
	/* Release is all or none too: NC 0 is not fd2's. */
	EXPECT_EQ(-ENOENT, neuron_release(self->fd2, 3));
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, nc_state(_metadata, self->fd2, 1).state);
	EXPECT_EQ(-ENOENT, neuron_release(self->node.fd, 2));
}

TEST_F(res, bad_fields)
{
	struct neuron_nc_reserve r = { .nc_mask = 1 };
	__u32 n = self->info.nc_count;

	EXPECT_EQ(-EINVAL, neuron_reserve(self->node.fd, 0));
	EXPECT_EQ(-EINVAL, neuron_reserve(self->node.fd, 1ULL << n));
	EXPECT_EQ(-EINVAL, neuron_reserve(self->node.fd, ~0ULL));
	EXPECT_EQ(-EINVAL, neuron_release(self->node.fd, 1ULL << n));
	r.flags = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NC_RESERVE, &r));
	r.flags = 0;
	r.pad = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NC_RESERVE, &r));
	EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, NEURON_IOCTL_NC_RELEASE, &r));
	/* Nothing was reserved by the refused calls. */
	EXPECT_EQ((__u32)NEURON_NC_FREE, nc_state(_metadata, self->node.fd, 0).state);
}

TEST_F(res, read_only_file)
{
	int ro = open(self->node.path, O_RDONLY | O_CLOEXEC);

	ASSERT_LE(0, ro);
	EXPECT_EQ(-EBADF, neuron_reserve(ro, 1));
	EXPECT_EQ(-EBADF, neuron_release(ro, 1));
	/* Monitoring: a read-only file may look. */
	EXPECT_EQ((__u32)NEURON_NC_FREE, nc_state(_metadata, ro, 0).state);
	close(ro);
}

/* Every call of another file that touches a reserved NC is refused. */
TEST_F(res, enforced_on_other_files)
{
	struct neuron_notify_setup ns = {
		.nc = 0, .type = NEURON_NOTIFY_COMPLETION, .entries = 16,
		.eventfd = -1,
	};
	bool notify = self->info.caps & NEURON_CAP_NOTIFY;
	struct neuron_mem_alloc a0, a0b, a1, m;
	struct neuron_memset ms = { .size = 4096 };

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_MEM | NEURON_CAP_COPY, "memory and copies"))
		return;
	/* fd2's objects on NC 0 and 1, made before the reservation. */
	ASSERT_EQ(0, neuron_mem_alloc(self->fd2, NEURON_MEM_DEVICE, 8192, 0, &a0));
	ASSERT_EQ(0, neuron_mem_alloc(self->fd2, NEURON_MEM_DEVICE, 8192, 0, &a0b));
	ASSERT_EQ(0, neuron_mem_alloc(self->fd2, NEURON_MEM_DEVICE, 8192, 1, &a1));

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	EXPECT_EQ(-EBUSY, neuron_mem_alloc(self->fd2, NEURON_MEM_DEVICE, 4096, 0, &m));
	EXPECT_EQ(-EBUSY, neuron_mem_alloc(self->fd2, NEURON_MEM_HOST, 4096, 0, &m));
	EXPECT_EQ(-EBUSY, neuron_copy_op(self->fd2, a0.handle, 0, a0b.handle, 0,
					 NULL, NULL, 4096, 0, NULL));
	/* Either side on the reserved NC is enough. */
	EXPECT_EQ(-EBUSY, neuron_copy_op(self->fd2, a0.handle, 0, a1.handle, 0,
					 NULL, NULL, 4096, 0, NULL));
	EXPECT_EQ(-EBUSY, neuron_copy_op(self->fd2, a1.handle, 0, a0.handle, 0,
					 NULL, NULL, 4096, 0, NULL));
	ms.handle = a0.handle;
	EXPECT_EQ(-EBUSY, neuron_ioctl(self->fd2, NEURON_IOCTL_MEMSET, &ms));
	/* A device without notification queues says so first. */
	EXPECT_EQ(notify ? -EBUSY : -EOPNOTSUPP,
		  neuron_ioctl(self->fd2, NEURON_IOCTL_NOTIFY_SETUP, &ns));
	/* Its other NC still works for it, and the owner does everything. */
	EXPECT_EQ(0, neuron_copy_op(self->fd2, a1.handle, 0, a1.handle, 4096,
				    NULL, NULL, 4096, 0, NULL));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 8192, 0, &m));
	EXPECT_EQ(0, neuron_copy_op(self->node.fd, m.handle, 0, m.handle, 4096,
				    NULL, NULL, 4096, 0, NULL));
	EXPECT_EQ(notify ? 0 : -EOPNOTSUPP,
		  neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_SETUP, &ns));
	/* Released: open to fd2 again (its queue is now taken: -EBUSY there). */
	ASSERT_EQ(0, neuron_release(self->node.fd, 1));
	EXPECT_EQ(0, neuron_copy_op(self->fd2, a0.handle, 0, a0b.handle, 0,
				    NULL, NULL, 4096, 0, NULL));
}

TEST_F(res, close_releases)
{
	int fd3 = open(self->node.path, O_RDWR | O_CLOEXEC);

	ASSERT_LE(0, fd3);
	ASSERT_EQ(0, neuron_reserve(fd3, 3));
	EXPECT_EQ(-EBUSY, neuron_reserve(self->fd2, 1));
	close(fd3);
	EXPECT_EQ(0, neuron_reserve(self->fd2, 3));
}

/* A SIGKILLed owner's NCs are free for the next process at once. */
TEST_F(res, sigkill_releases_at_once)
{
	int go[2], status;
	pid_t child;
	char c;

	ASSERT_EQ(0, pipe(go));
	child = neuron_fork(_metadata);
	if (!child) {
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC);

		close(self->fd2);
		close(self->node.fd);
		if (fd < 0 || neuron_reserve(fd, 1))
			_exit(2);
		if (write(go[1], "r", 1) != 1)
			_exit(3);
		for (;;)
			pause();
	}
	close(go[1]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	close(go[0]);
	EXPECT_EQ(-EBUSY, neuron_reserve(self->fd2, 1));
	EXPECT_EQ(child, nc_state(_metadata, self->fd2, 0).owner_pid);
	ASSERT_EQ(0, kill(child, SIGKILL));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFSIGNALED(status));
	/* Reaped: its file is gone, and so is the reservation. */
	EXPECT_EQ(0, neuron_reserve(self->fd2, 1));
	EXPECT_EQ(getpid(), nc_state(_metadata, self->fd2, 0).owner_pid);
}

/*
 * The owner's pid and uid are shown to the same uid and to CAP_SYS_ADMIN
 * only: another uid sees that the NC is held, not by whom.
 */
TEST_F(res, owner_shown_to_same_uid_or_admin)
{
	int go[2], done[2], status;
	struct neuron_nc_state st;
	pid_t child;
	char c;

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	child = neuron_fork_pipes(_metadata, go, done);
	if (!child) {
		struct neuron_nc_state s0, s1;
		int fd = self->fd2;

		if (neuron_drop_privileges(0, 0))
			_exit(2);
		s0 = nc_state(_metadata, fd, 0);
		if (s0.state != (__u32)NEURON_NC_RESERVED || s0.flags || s0.owner_pid ||
		    s0.owner_uid)
			_exit(3);
		if (neuron_reserve(fd, 2))
			_exit(4);
		s1 = nc_state(_metadata, fd, 1);
		if (s1.flags != (NEURON_NC_STATE_MINE | NEURON_NC_STATE_OWNER) ||
		    s1.owner_pid != getpid() || s1.owner_uid != NEURON_TEST_NOBODY)
			_exit(5);
		if (write(go[1], "r", 1) != 1)
			_exit(6);
		if (read(done[0], &c, 1) != 1)
			_exit(7);
		_exit(0);
	}
	close(go[1]);
	close(done[0]);
	ASSERT_EQ(1, read(go[0], &c, 1));
	/* Root (CAP_SYS_ADMIN) sees the other uid's reservation. */
	st = nc_state(_metadata, self->node.fd, 1);
	EXPECT_EQ(NEURON_NC_STATE_OWNER, st.flags);
	EXPECT_EQ(child, st.owner_pid);
	EXPECT_EQ((__u32)NEURON_TEST_NOBODY, st.owner_uid);
	ASSERT_EQ(1, write(done[1], "d", 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(go[0]);
	close(done[1]);
}

/*
 * Fork a process that, as nobody, reserves the NCs of @mask through @fd,
 * says so on @ready and holds them until a byte comes on @done (exit
 * status 0; 2: the reservation failed; 3: the pipes). Its pid, once it
 * holds them.
 */
static pid_t fork_holder(struct __test_metadata *_metadata, int fd, __u64 mask,
			 int ready[2], int done[2])
{
	pid_t a;
	char c;

	a = neuron_fork_pipes(_metadata, ready, done);
	if (!a) {
		close(ready[0]);
		close(done[1]);
		if (neuron_drop_privileges(0, 0) || neuron_reserve(fd, mask))
			_exit(2);
		if (write(ready[1], "r", 1) != 1 || read(done[0], &c, 1) != 1)
			_exit(3);
		_exit(0);
	}
	close(ready[1]);
	ASSERT_EQ(1, read(ready[0], &c, 1));
	return a;
}

/*
 * The same uid through another file, in another process: it sees the
 * owner (it is not its own reservation, so the rule is the uid's, not the
 * file's). The owner's process waits meanwhile.
 */
TEST_F(res, owner_shown_to_same_uid_other_file)
{
	int ready[2], done[2], status, st_a, st_b;
	pid_t a, b;

	a = fork_holder(_metadata, self->fd2, 1, ready, done);
	b = neuron_fork(_metadata);
	if (!b) {
		struct neuron_nc_state s;

		if (neuron_drop_privileges(0, 0))
			_exit(2);
		s = nc_state(_metadata, self->node.fd, 0);
		if (s.state != (__u32)NEURON_NC_RESERVED)
			_exit(3);
		if (s.flags != NEURON_NC_STATE_OWNER)
			_exit(4);	/* not MINE: another file */
		if (s.owner_pid != a || s.owner_uid != NEURON_TEST_NOBODY)
			_exit(5);
		_exit(0);
	}
	ASSERT_EQ(b, waitpid(b, &st_b, 0));
	ASSERT_EQ(1, write(done[1], "d", 1));
	ASSERT_EQ(a, waitpid(a, &st_a, 0));
	status = st_b;
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the second process's step %d",
						 WEXITSTATUS(status));
	ASSERT_TRUE(WIFEXITED(st_a));
	EXPECT_EQ(0, WEXITSTATUS(st_a));
	close(ready[0]);
	close(done[0]);
	close(done[1]);
}

/*
 * A reader in a new user namespace (root's uid unmapped there, full
 * capabilities in it, none in the initial one): root's reservation is its
 * own uid's, shown with the uid it has there (the overflow uid); another
 * uid's stays hidden, since CAP_SYS_ADMIN of a user namespace is not the
 * host's.
 */
TEST_F(res, owner_in_user_namespace)
{
	int ready[2], done[2], st_a, st_b;
	pid_t a, b, me = getpid();

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	a = fork_holder(_metadata, self->fd2, 2, ready, done);
	b = neuron_fork(_metadata);
	if (!b) {
		int fd = open(self->node.path, O_RDWR | O_CLOEXEC);
		struct neuron_nc_state s0, s1;
		char text[16];
		uid_t overflow;
		int bad;

		if (fd < 0 || neuron_read_text("/proc/sys/kernel/overflowuid", text,
					       sizeof(text)))
			_exit(10);
		overflow = atoi(text);
		if (unshare(CLONE_NEWUSER))
			_exit(errno == EINVAL || errno == EPERM ? 77 : 11);
		if (neuron_nc_state(fd, 0, &s0) || neuron_nc_state(fd, 1, &s1))
			_exit(12);
		/* 21: root's own uid not shown; 22: not as the overflow uid (0 is
		 * not mapped here); 24: another uid's shown; or their sum.
		 */
		bad = (s0.flags != NEURON_NC_STATE_OWNER || s0.owner_pid != me) |
		      (s0.owner_uid != overflow) << 1 |
		      (s1.state != (__u32)NEURON_NC_RESERVED || s1.flags || s1.owner_pid ||
		       s1.owner_uid) << 2;
		_exit(bad ? 20 + bad : 0);
	}
	ASSERT_EQ(b, waitpid(b, &st_b, 0));
	ASSERT_EQ(1, write(done[1], "d", 1));
	ASSERT_EQ(a, waitpid(a, &st_a, 0));
	ASSERT_TRUE(WIFEXITED(st_a));
	EXPECT_EQ(0, WEXITSTATUS(st_a));
	ASSERT_TRUE(WIFEXITED(st_b));
	if (WEXITSTATUS(st_b) == 77)
		SKIP(return, "no user namespaces here");
	EXPECT_EQ(0, WEXITSTATUS(st_b)) TH_LOG("the reader's step %d", WEXITSTATUS(st_b));
	close(ready[0]);
	close(done[0]);
	close(done[1]);
}

/* Send descriptor @fd over the socket @sock: 0, or -1. */
static int send_fd(int sock, int fd)
{
	char cbuf[CMSG_SPACE(sizeof(int))] = { 0 }, byte = 'f';
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(sock, &msg, 0) == 1 ? 0 : -1;
}

/* Receive a descriptor from the socket @sock: it, or -1. */
static int recv_fd(int sock)
{
	char cbuf[CMSG_SPACE(sizeof(int))], byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = cbuf, .msg_controllen = sizeof(cbuf),
	};
	struct cmsghdr *c;
	int fd;

	if (recvmsg(sock, &msg, 0) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&msg);
	if (!c || c->cmsg_type != SCM_RIGHTS || c->cmsg_len != CMSG_LEN(sizeof(int)))
		return -1;
	memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

/*
 * The file is the principal, not the process or its uid: a file passed
 * with SCM_RIGHTS to a process of another uid brings its NC and its
 * handles along (the receiver holds the NC and frees the sender's
 * handle), and keeps them after the sender closed its descriptor and
 * exited; the sender's other file gets nothing of it. They end with the
 * receiver's last close.
 */
TEST_F(res, scm_rights_moves_the_file)
{
	bool mem = self->info.caps & NEURON_CAP_MEM;
	struct neuron_mem_alloc a;
	struct neuron_nc_state st;
	int sv[2], go[2], status;
	pid_t child;
	char c;

	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv)) {
		if (errno == EAFNOSUPPORT)
			SKIP(return, "no AF_UNIX in this kernel");
		ASSERT_EQ(0, -errno);
	}
	ASSERT_EQ(0, neuron_reserve(self->fd2, 1));
	if (mem)
		ASSERT_EQ(0, neuron_mem_alloc(self->fd2, NEURON_MEM_DEVICE, 4096, 0, &a));
	ASSERT_EQ(0, pipe(go));
	child = neuron_fork(_metadata);
	if (!child) {
		struct neuron_nc_state s;
		int fd;

		close(sv[0]);
		close(go[0]);
		close(self->fd2);
		close(self->node.fd);
		if (neuron_drop_privileges(0, 0))
			_exit(2);
		fd = recv_fd(sv[1]);
		if (fd < 0)
			_exit(3);
		/* The NC came with the file: this process holds it. */
		if (neuron_nc_state(fd, 0, &s) || !(s.flags & NEURON_NC_STATE_MINE))
			_exit(4);
		if (neuron_reserve(fd, 1))
			_exit(5);		/* already the file's: kept */
		/* So does the sender's handle. */
		if (mem && neuron_mem_free(fd, a.handle))
			_exit(6);
		if (write(go[1], "r", 1) != 1 || read(sv[1], &c, 1) != 1)
			_exit(7);
		/* The sender has closed its descriptor: still the file's. */
		if (neuron_nc_state(fd, 0, &s) || !(s.flags & NEURON_NC_STATE_MINE))
			_exit(8);
		if (neuron_release(fd, 1) || neuron_reserve(fd, 1))
			_exit(9);
		_exit(0);		/* the last close: NC 0 free */
	}
	close(sv[1]);
	close(go[1]);
	ASSERT_EQ(0, send_fd(sv[0], self->fd2));
	close(self->fd2);
	self->fd2 = -1;
	if (read(go[0], &c, 1) != 1) {
		ASSERT_EQ(child, waitpid(child, &status, 0));
		ASSERT_TRUE(WIFEXITED(status));
		ASSERT_EQ(0, WEXITSTATUS(status)) TH_LOG("the receiver failed at step %d",
							 WEXITSTATUS(status));
		ASSERT_TRUE(0) TH_LOG("the receiver left without a word");
	}
	/* The sender's other file is another file: NC 0 is not its. */
	ASSERT_EQ(0, neuron_nc_state(self->node.fd, 0, &st));
	EXPECT_EQ(0U, st.flags & NEURON_NC_STATE_MINE);
	EXPECT_EQ(-EBUSY, neuron_reserve(self->node.fd, 1));
	ASSERT_EQ(1, write(sv[0], "c", 1));
	ASSERT_EQ(child, waitpid(child, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("receiver's step %d", WEXITSTATUS(status));
	EXPECT_EQ(0, neuron_reserve(self->node.fd, 1));
	close(sv[0]);
	close(go[0]);
}

/* ---- semaphores and events ---- */

#define SEMA	NEURON_SEM_KIND_SEMAPHORE
#define EVT	NEURON_SEM_KIND_EVENT

TEST_F(res, sem_ops)
{
	__u32 last = self->info.semaphores_per_nc - 1, v = 99;
	int fd = self->node.fd;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_SEM, "NEURON_CAP_SEM"))
		return;

	ASSERT_EQ(0, neuron_reserve(fd, 3));
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_SET, 5, 0, &v));
	EXPECT_EQ(5U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_INC, 3, 0, &v));
	EXPECT_EQ(8U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_DEC, 8, 0, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(-EAGAIN, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_DEC, 1, 0, NULL));
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_SET, 0xffffffffU, 0, &v));
	EXPECT_EQ(-EOVERFLOW, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_INC, 1, 0, NULL));
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, last, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0xffffffffU, v);
	/* Each NC, each index, each kind is its own. */
	EXPECT_EQ(0, neuron_sem(fd, 1, SEMA, last, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, 0, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, EVT, last, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
	/* Events are 0 or 1. */
	EXPECT_EQ(0, neuron_sem(fd, 0, EVT, 7, NEURON_SEM_SET, 1, 0, &v));
	EXPECT_EQ(1U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, EVT, 7, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(1U, v);
	EXPECT_EQ(0, neuron_sem(fd, 0, EVT, 7, NEURON_SEM_SET, 0, 0, &v));
	EXPECT_EQ(0U, v);
}

TEST_F(res, sem_needs_the_reservation)
{
	__u32 v;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_SEM, "NEURON_CAP_SEM"))
		return;

	EXPECT_EQ(-EACCES, neuron_sem(self->node.fd, 0, SEMA, 0, NEURON_SEM_READ, 0, 0, &v));
	ASSERT_EQ(0, neuron_reserve(self->fd2, 1));
	EXPECT_EQ(-EACCES, neuron_sem(self->node.fd, 0, SEMA, 0, NEURON_SEM_SET, 1, 0, &v));
	EXPECT_EQ(0, neuron_sem(self->fd2, 0, SEMA, 0, NEURON_SEM_SET, 1, 0, &v));
	ASSERT_EQ(0, neuron_release(self->fd2, 1));
	EXPECT_EQ(-EACCES, neuron_sem(self->fd2, 0, SEMA, 0, NEURON_SEM_READ, 0, 0, &v));
}

TEST_F(res, sem_bad_fields)
{
	struct neuron_nc_sem s = { .kind = SEMA, .op = NEURON_SEM_READ };
	int fd = self->node.fd;
	__u32 v;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_SEM, "NEURON_CAP_SEM"))
		return;

	ASSERT_EQ(0, neuron_reserve(fd, 1));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, SEMA, self->info.semaphores_per_nc,
				      NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, EVT, self->info.events_per_nc,
				      NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, self->info.nc_count, SEMA, 0, NEURON_SEM_READ,
				      0, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, 2, 0, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, SEMA, 0, NEURON_SEM_WAIT + 1, 0, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, EVT, 0, NEURON_SEM_INC, 1, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, EVT, 0, NEURON_SEM_DEC, 1, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, EVT, 0, NEURON_SEM_SET, 2, 0, &v));
	EXPECT_EQ(-EINVAL, neuron_sem(fd, 0, SEMA, 0, NEURON_SEM_SET, 1, 1, &v));
	s.flags = 1;
	EXPECT_EQ(-EINVAL, neuron_ioctl(fd, NEURON_IOCTL_NC_SEM, &s));
	/* Nothing changed. */
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, 0, NEURON_SEM_READ, 0, 0, &v));
	EXPECT_EQ(0U, v);
}

struct sem_waiter {
	int fd;
	__u32 kind, value;
	__s64 deadline;
	int ret;
	__u32 seen;
};

static void *sem_wait_fn(void *arg)
{
	struct sem_waiter *w = arg;

	w->ret = neuron_sem(w->fd, 0, w->kind, 3, NEURON_SEM_WAIT, w->value,
			    w->deadline, &w->seen);
	return NULL;
}

TEST_F(res, sem_wait)
{
	struct sem_waiter w = { .fd = self->node.fd, .kind = SEMA, .value = 3 };
	int fd = self->node.fd;
	pthread_t t;
	__u32 v;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_SEM, "NEURON_CAP_SEM"))
		return;

	ASSERT_EQ(0, neuron_reserve(fd, 1));
	/* Not there yet, deadline passed: ETIME at once. */
	EXPECT_EQ(-ETIME, neuron_sem(fd, 0, SEMA, 3, NEURON_SEM_WAIT, 3, 0, &v));
	w.deadline = neuron_now_ns() + 10000000000LL;
	ASSERT_EQ(0, pthread_create(&t, NULL, sem_wait_fn, &w));
	neuron_sleep_ms(100);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, 3, NEURON_SEM_INC, 2, 0, &v));
	neuron_sleep_ms(100);
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, 3, NEURON_SEM_INC, 2, 0, &v));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(4U, w.seen);
	/* Reached already: at once. */
	EXPECT_EQ(0, neuron_sem(fd, 0, SEMA, 3, NEURON_SEM_WAIT, 4, 0, &v));
	/* An event, waited for to be set. */
	w.kind = EVT;
	w.value = 1;
	ASSERT_EQ(0, pthread_create(&t, NULL, sem_wait_fn, &w));
	neuron_sleep_ms(100);
	EXPECT_EQ(0, neuron_sem(fd, 0, EVT, 3, NEURON_SEM_SET, 1, 0, &v));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(0, w.ret);
	EXPECT_EQ(1U, w.seen);
	/* A deadline that passes. */
	w.kind = SEMA;
	w.value = 100;
	w.deadline = neuron_now_ns() + 200000000LL;
	ASSERT_EQ(0, pthread_create(&t, NULL, sem_wait_fn, &w));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(-ETIME, w.ret);
}

/*
 * A wait with no deadline on a semaphore of NC 0 (reserved) ends at once
 * when NC_RELEASE takes the NC from the file (-EACCES) or, with @remove,
 * when the device is removed (-ENODEV). @self: the fixture data (what
 * FIXTURE_DATA(res) stands for, spelled out so that checkpatch sees a type).
 */
static void sem_wait_ended(struct __test_metadata *_metadata,
			   struct _test_data_res *self, bool remove)
{
	struct sem_waiter w = {
		.fd = self->node.fd, .kind = SEMA, .value = 1,
		.deadline = INT64_MAX,
	};
	pthread_t t;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_SEM, "NEURON_CAP_SEM"))
		return;
	if (remove && !self->node.created)
		SKIP(return, "needs a simulated device to remove");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ASSERT_EQ(0, pthread_create(&t, NULL, sem_wait_fn, &w));
	neuron_sleep_ms(200);
	ASSERT_EQ(0, remove ? neuron_sim_remove(&self->node) :
			      neuron_release(self->node.fd, 1));
	ASSERT_EQ(0, pthread_join(t, NULL));
	EXPECT_EQ(remove ? -ENODEV : -EACCES, w.ret);
}

/* NC_RELEASE ends the file's waits on that NC at once: -EACCES. */
TEST_F_TIMEOUT(res, sem_wait_release, 30)
{
	sem_wait_ended(_metadata, self, false);
}

/* Removal wakes a waiter with no deadline at once. */
TEST_F_TIMEOUT(res, sem_wait_removal, 30)
{
	sem_wait_ended(_metadata, self, true);
}

TEST_HARNESS_MAIN
