// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the unprivileged suite (docs/privilege-model.md).
 *
 * Each test tries one rule of the privilege model from the wrong side, as
 * an ordinary user of the device: a uid in the node's group, without any
 * capability. The test process (root) sets the node up as the packaged
 * udev rule leaves it (root, the group "neuron" of /etc/group or, in a VM
 * without one, the group NEURON_UNPRIV_GID; mode 0660), makes what the
 * rule protects as root (memory, a model, a queue, a reservation) in its
 * own file, then forks a child that drops every privilege itself
 * (bounding and ambient sets emptied, setgroups() to the node's group
 * only, setresgid()/setresuid() to an unused uid, capset() empty, checked
 * with capget()), closes root's file and opens its own, and asserts the
 * errno the document gives. A fresh child per test: nothing carries over.
 *
 * The tests need root to set up and to drop privileges (else they skip);
 * in NEURON_DEVICE mode (a PCI device) the rules that need a capability
 * the device lacks (NEURON_CAP_*), or the simulator's knobs, skip with
 * the reason.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "neuron_test.h"
#include "neuron_netlink.h"

/* An unused uid, a member of the node's group, and one outside it. */
#define NEURON_UNPRIV_UID	64990
#define NEURON_OUTSIDER_UID	64991
/* The node's group when /etc/group has no "neuron" line (the test VM). */
#define NEURON_UNPRIV_GID	64990
/* RLIMIT_MEMLOCK of the child: 64 KiB, Debian's default of old. */
#define UNPRIV_MEMLOCK		(64 << 10)

FIXTURE(unpriv) {
	struct neuron_node node;
	struct neuron_device_info info;
	gid_t gid;
	struct stat orig;	/* the node's owner and mode before the test */
};

/* The gid of "neuron" in /etc/group, else NEURON_UNPRIV_GID. */
static gid_t neuron_group(void)
{
	char line[256];
	gid_t gid = NEURON_UNPRIV_GID;
	unsigned int g;
	FILE *f = fopen("/etc/group", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "neuron:%*[^:]:%u:", &g) == 1) {
			gid = g;
			break;
		}
	if (f)
		fclose(f);
	return gid;
}

FIXTURE_SETUP(unpriv)
{
	if (geteuid())
		NEURON_SKIP_SETUP("needs root: to give the node its group and drop privileges");
	neuron_setup_node(_metadata, &self->node, NULL, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	ASSERT_EQ(0, stat(self->node.path, &self->orig));
	self->gid = neuron_group();
	/* What udev/60-neuron.rules makes of the node. */
	ASSERT_EQ(0, chown(self->node.path, 0, self->gid));
	ASSERT_EQ(0, chmod(self->node.path, 0660));
}

FIXTURE_TEARDOWN(unpriv)
{
	/* NEURON_DEVICE's node outlives the test: give it back its mode. */
	if (!self->node.created && self->orig.st_mode) {
		if (chown(self->node.path, self->orig.st_uid, self->orig.st_gid) ||
		    chmod(self->node.path, self->orig.st_mode & 07777))
			TH_LOG("%s: could not restore owner and mode", self->node.path);
	}
	neuron_node_release(&self->node);
}

/*
 * Become @uid with the one supplementary group @group (none when @group
 * is (gid_t)-1) and no capability in any set: 0, or the step that failed.
 */
static int unpriv_drop(uid_t uid, gid_t group)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	int cap;

	for (cap = 0; prctl(PR_CAPBSET_READ, cap) >= 0; cap++)
		if (prctl(PR_CAPBSET_DROP, cap))
			return 1;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (group == (gid_t)-1 ? setgroups(0, NULL) : setgroups(1, &group))
		return 2;
	if (setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return 3;
	memset(d, 0, sizeof(d));
	if (syscall(SYS_capset, &h, d))
		return 4;
	if (syscall(SYS_capget, &h, d) || d[0].permitted || d[0].effective ||
	    d[0].inheritable || d[1].permitted || d[1].effective || d[1].inheritable)
		return 5;
	if (getuid() != uid || geteuid() != uid || getegid() != uid)
		return 6;
	return 0;
}

/*
 * Run @fn in a child that closed root's file and became @uid in @group
 * (see unpriv_drop()). The child's EXPECT_*() print their line and fail
 * it; the test fails with it. Its ASSERT_*() may not be used (they would
 * tear the fixture down in the child).
 */
static void run_as(struct __test_metadata *_metadata, struct _test_data_unpriv *self, uid_t uid,
		   gid_t group, rlim_t memlock,
		   void (*fn)(struct __test_metadata *_metadata, struct _test_data_unpriv *self))
{
	struct rlimit lim = { .rlim_cur = memlock, .rlim_max = memlock };
	int status, err;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		close(self->node.fd);
		self->node.fd = -1;
		if (memlock && setrlimit(RLIMIT_MEMLOCK, &lim))
			_exit(90);
		err = unpriv_drop(uid, group);
		if (err)
			_exit(90 + err);
		fn(_metadata, self);
		fflush(NULL);
		_exit(_metadata->passed ? 0 : 1);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status)) TH_LOG("the child ended by signal %d", WTERMSIG(status));
	ASSERT_GT(90, WEXITSTATUS(status))
		TH_LOG("the child could not drop its privileges (step %d)",
		       WEXITSTATUS(status) - 90);
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/* The usual case: the unused uid of the node's group, no capability. */
static void as_member(struct __test_metadata *_metadata, struct _test_data_unpriv *self,
		      void (*fn)(struct __test_metadata *_metadata, struct _test_data_unpriv *self))
{
	run_as(_metadata, self, NEURON_UNPRIV_UID, self->gid, 0, fn);
}

/* In the child: its own file of the node, @flags; -1 (and a failure) if not. */
static int own_file(struct __test_metadata *_metadata, struct _test_data_unpriv *self, int flags)
{
	int fd = open(self->node.path, flags | O_CLOEXEC);

	EXPECT_LE(0, fd) TH_LOG("open %s as uid %u: %s", self->node.path, getuid(),
				strerror(errno));
	return fd;
}

/* Skip (true) unless the device has every capability of @want (@name). */
static bool lacks(struct __test_metadata *_metadata, struct _test_data_unpriv *self,
		  __u64 want, const char *name)
{
	return neuron_skip_no_cap(_metadata, &self->node, self->info.caps, want, name);
}

/* mmap() of @len bytes at @off of @fd: the errno, 0 if it mapped. */
static int map_errno(int fd, int prot, __u64 off, size_t len)
{
	void *p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)off);

	if (p != MAP_FAILED) {
		munmap(p, len);
		return 0;
	}
	return errno;
}

/* ---- who may open the node ---- */

static void child_opens(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	struct neuron_device_info info;
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(0, neuron_query_info(fd, &info, NULL));
	EXPECT_EQ(self->info.minor, info.minor);
	close(fd);
}

static void child_outsider(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	EXPECT_EQ(-1, open(self->node.path, O_RDONLY | O_CLOEXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, open(self->node.path, O_RDWR | O_CLOEXEC));
	EXPECT_EQ(EACCES, errno);
}

/*
 * root:neuron 0660: a member of the group opens the node read-write and
 * queries it; a uid outside the group cannot open it, even read-only.
 */
TEST_F(unpriv, node_group_only)
{
	as_member(_metadata, self, child_opens);
	run_as(_metadata, self, NEURON_OUTSIDER_UID, (gid_t)-1, 0, child_outsider);
}

/* ---- a read-only file ---- */

static void child_readonly(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	struct neuron_nc_reserve r = { .nc_mask = 1 };
	struct neuron_mem_alloc a;
	struct neuron_device_info info;
	struct neuron_notify_setup s = { .type = NEURON_NOTIFY_EVENT, .entries = 16,
					 .eventfd = -1 };
	int fd = own_file(_metadata, self, O_RDONLY);

	if (fd < 0)
		return;
	EXPECT_EQ(0, neuron_query_info(fd, &info, NULL));
	neuron_mem_alloc_prep(&a, NEURON_MEM_HOST, 4096, 0);
	EXPECT_EQ(-EBADF, neuron_ioctl(fd, NEURON_IOCTL_MEM_ALLOC, &a));
	EXPECT_EQ(-EBADF, neuron_ioctl(fd, NEURON_IOCTL_NC_RESERVE, &r));
	EXPECT_EQ(-EBADF, neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_SETUP, &s));
	/* A writable shared mapping of a read-only file: the kernel's EACCES. */
	EXPECT_EQ(EACCES, map_errno(fd, PROT_READ | PROT_WRITE, 128ULL << 20, 4096));
	/* A read-only one: the file owns nothing to map. */
	EXPECT_EQ(EINVAL, map_errno(fd, PROT_READ, 128ULL << 20, 4096));
	close(fd);
}

/* O_RDONLY may only QUERY: EBADF for the rest, nothing to map. */
TEST_F(unpriv, readonly_file_only_queries)
{
	as_member(_metadata, self, child_readonly);
}

/* ---- R1: handles belong to the file ---- */

/* What root's file made, which the child tries to use through its own. */
static __u32 root_handle, root_model, root_nc;
static __u64 root_offset, root_seqno;

static void child_handles(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	char buf[64] = { 0 };
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(-ENOENT, neuron_mem_free(fd, root_handle));
	EXPECT_EQ(-ENOENT, neuron_copy_op(fd, root_handle, 0, 0, 0, NULL, buf,
					  sizeof(buf), 0, NULL));
	EXPECT_EQ(-ENOENT, neuron_copy_op(fd, 0, 0, root_handle, 0, buf, NULL,
					  sizeof(buf), 0, NULL));
	{
		struct neuron_memset m = { .handle = root_handle, .size = 64 };

		EXPECT_EQ(-ENOENT, neuron_ioctl(fd, NEURON_IOCTL_MEMSET, &m));
	}
	/* root's pending sequence number is not this file's. */
	EXPECT_EQ(-ENOENT, neuron_wait_seq(fd, root_seqno, 0));
	/* root's object's offset maps nothing in this file. */
	EXPECT_EQ(EINVAL, map_errno(fd, PROT_READ, root_offset, 4096));
	close(fd);
}

/*
 * Another uid's memory handle, sequence number and mmap offset mean
 * nothing in the child's file (ENOENT, EINVAL); root's stay intact.
 */
TEST_F(unpriv, other_files_handles)
{
	struct neuron_memset m = { .value = 0x5a, .size = 4096,
				   .flags = NEURON_COPY_ASYNC };

	if (lacks(_metadata, self, NEURON_CAP_MEM | NEURON_CAP_COPY, "NEURON_CAP_MEM and _COPY"))
		return;
	ASSERT_EQ(0, neuron_alloc(self->node.fd, NEURON_MEM_HOST, 4096, 0, &root_handle,
				  &root_offset));
	m.handle = root_handle;
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_MEMSET, &m));
	root_seqno = m.seqno;
	as_member(_metadata, self, child_handles);
	/* Still root's: the number pending, the handle alive. */
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, root_seqno, neuron_now_ns() + 5000000000LL));
	EXPECT_EQ(0, neuron_mem_free(self->node.fd, root_handle));
}

static void child_model(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(-ENOENT, neuron_execute(fd, root_model, NEURON_EXEC_WAIT, 0, NULL, 0,
					  NULL, NULL));
	EXPECT_EQ(-ENOENT, neuron_model_unload(fd, root_model));
	close(fd);
}

/* Another uid's model: EXECUTE and MODEL_UNLOAD ENOENT; root's stays. */
TEST_F(unpriv, other_files_model)
{
	if (lacks(_metadata, self, NEURON_CAP_RESERVE | NEURON_CAP_EXEC,
		  "NEURON_CAP_RESERVE and _EXEC"))
		return;
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ASSERT_EQ(0, neuron_mm_model_load(self->node.fd, 0, &root_model));
	ASSERT_EQ(0, neuron_release(self->node.fd, 1));
	as_member(_metadata, self, child_model);
	EXPECT_EQ(0, neuron_model_unload(self->node.fd, root_model));
}

static void child_queue(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	struct neuron_notify_wait w = { .nc = root_nc, .type = NEURON_NOTIFY_EVENT };
	__u64 size, off;
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(-ENOENT, neuron_ioctl(fd, NEURON_IOCTL_NOTIFY_WAIT, &w));
	EXPECT_EQ(-ENOENT, neuron_notify_teardown(fd, root_nc, NEURON_NOTIFY_EVENT));
	EXPECT_EQ(-EBUSY, neuron_notify_setup(fd, root_nc, NEURON_NOTIFY_EVENT, 16,
					      &size, &off));
	EXPECT_EQ(EINVAL, map_errno(fd, PROT_READ, root_offset, 4096));
	close(fd);
}

/*
 * Another uid's notification queue: NOTIFY_WAIT and NOTIFY_TEARDOWN
 * ENOENT, NOTIFY_SETUP of it EBUSY, its ring's offset EINVAL.
 */
TEST_F(unpriv, other_files_queue)
{
	struct neuron_notify_wait w = { .type = NEURON_NOTIFY_EVENT };
	__u64 size;

	if (lacks(_metadata, self, NEURON_CAP_NOTIFY, "NEURON_CAP_NOTIFY"))
		return;
	root_nc = 0;
	ASSERT_EQ(0, neuron_notify_setup(self->node.fd, root_nc, NEURON_NOTIFY_EVENT, 16,
					 &size, &root_offset));
	as_member(_metadata, self, child_queue);
	EXPECT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_WAIT, &w));
	EXPECT_EQ(0, neuron_notify_teardown(self->node.fd, root_nc, NEURON_NOTIFY_EVENT));
}

/* ---- R3: a reserved NC is its file's alone ---- */

/* Root's file reserves NC 0: true, or false when the test skipped or failed. */
static bool root_holds_nc0(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	if (lacks(_metadata, self, NEURON_CAP_RESERVE, "NEURON_CAP_RESERVE"))
		return false;
	EXPECT_EQ(0, neuron_reserve(self->node.fd, 1));
	return _metadata->passed;
}

static void child_reserved_nc(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	__u64 caps = self->info.caps, size, off;
	__u32 handle, value = 0;
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(-EBUSY, neuron_reserve(fd, 1));
	EXPECT_EQ(-ENOENT, neuron_release(fd, 1));
	if (caps & NEURON_CAP_MEM)
		EXPECT_EQ(-EBUSY, neuron_alloc(fd, NEURON_MEM_HOST, 4096, 0, &handle, NULL));
	if (caps & NEURON_CAP_NOTIFY)
		EXPECT_EQ(-EBUSY, neuron_notify_setup(fd, 0, NEURON_NOTIFY_COMPLETION, 16,
						      &size, &off));
	if (caps & NEURON_CAP_SEM)
		EXPECT_EQ(-EACCES, neuron_sem(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 0,
					      NEURON_SEM_READ, 0, 0, &value));
	if (caps & NEURON_CAP_EXEC)
		EXPECT_EQ(-EACCES, neuron_mm_model_load(fd, 0, &handle));
	close(fd);
}

/*
 * An NC root's file reserved: the child's NC_RESERVE EBUSY, NC_RELEASE
 * ENOENT, MEM_ALLOC and NOTIFY_SETUP on it EBUSY, NC_SEM and MODEL_LOAD
 * EACCES (each where the device has the capability); root still holds it.
 */
TEST_F(unpriv, nc_of_another_uid)
{
	struct neuron_nc_state st;

	if (!root_holds_nc0(_metadata, self))
		return;
	as_member(_metadata, self, child_reserved_nc);
	ASSERT_EQ(0, neuron_nc_state(self->node.fd, 0, &st));
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, st.state);
	EXPECT_TRUE(!!(st.flags & NEURON_NC_STATE_MINE));
}

/* ---- R5: who holds an NC ---- */

static void child_nc_state(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	struct neuron_nc_state st;
	int fd = own_file(_metadata, self, O_RDONLY);

	if (fd < 0)
		return;
	EXPECT_EQ(0, neuron_nc_state(fd, 0, &st));
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, st.state);
	EXPECT_EQ(0U, st.flags);
	EXPECT_EQ(0, st.owner_pid);
	EXPECT_EQ(0U, st.owner_uid);
	close(fd);
}

/*
 * QUERY NC_STATE of root's reservation: the child sees RESERVED, no
 * flags, pid and uid 0.
 */
TEST_F(unpriv, owner_hidden_from_other_uid)
{
	struct neuron_nc_state st;

	if (!root_holds_nc0(_metadata, self))
		return;
	/* Root itself sees the owner: the test can tell the difference. */
	ASSERT_EQ(0, neuron_nc_state(self->node.fd, 0, &st));
	EXPECT_EQ((__u32)(NEURON_NC_STATE_MINE | NEURON_NC_STATE_OWNER), st.flags);
	EXPECT_EQ(getpid(), st.owner_pid);
	as_member(_metadata, self, child_nc_state);
}

/* ---- the netlink family, as nobody special ---- */

struct unpriv_nl {
	int fd;
	__u16 family;
	char buf[8192];
};

/* Send one request @cmd with a u32 attribute per @attrs pair (type, value). */
static int nl_send(struct unpriv_nl *nl, __u16 type, __u8 cmd, const __u32 *attrs,
		   int nattrs)
{
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		char a[256];
	} req;
	char *p = req.a;
	int i;

	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = type;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.n.nlmsg_seq = 1;
	req.g.cmd = cmd;
	req.g.version = 1;
	for (i = 0; i < nattrs; i++, p += NLA_HDRLEN + 4) {
		struct nlattr a = { .nla_len = NLA_HDRLEN + 4, .nla_type = attrs[2 * i] };

		memcpy(p, &a, sizeof(a));
		memcpy(p + NLA_HDRLEN, &attrs[2 * i + 1], 4);
	}
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + (p - req.a);
	return send(nl->fd, &req, req.n.nlmsg_len, 0) == (ssize_t)req.n.nlmsg_len ? 0 : -errno;
}

/*
 * Receive the answer to one request: the first message's attributes into
 * @tb (when not NULL), its error (0 after the ACK), or -errno.
 */
static int nl_answer(struct unpriv_nl *nl, const struct nlattr **tb, int max)
{
	int len, got = 0;

	for (;;) {
		struct nlmsghdr *n = (struct nlmsghdr *)nl->buf;

		len = recv(nl->fd, nl->buf, sizeof(nl->buf), 0);
		if (len < 0)
			return -errno;
		for (; NLMSG_OK(n, (unsigned int)len); n = NLMSG_NEXT(n, len)) {
			if (n->nlmsg_type == NLMSG_ERROR)
				return ((struct nlmsgerr *)NLMSG_DATA(n))->error;
			if (n->nlmsg_type == NLMSG_DONE)
				return 0;
			if (tb && !got++) {
				struct nlattr *a = (struct nlattr *)((char *)NLMSG_DATA(n) +
								     GENL_HDRLEN);
				int alen = n->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);

				memset(tb, 0, sizeof(*tb) * (max + 1));
				while (alen >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN &&
				       a->nla_len <= alen) {
					if ((a->nla_type & NLA_TYPE_MASK) <= max)
						tb[a->nla_type & NLA_TYPE_MASK] = a;
					alen -= NLA_ALIGN(a->nla_len);
					a = (struct nlattr *)((char *)a + NLA_ALIGN(a->nla_len));
				}
			}
		}
	}
}

/* Open a generic netlink socket and resolve the family: 0 or -errno. */
static int nl_open_family(struct unpriv_nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];
	struct {
		struct nlmsghdr n;
		struct genlmsghdr g;
		struct nlattr a;
		char name[16];
	} req;
	int err;

	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0 || bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	memset(&req, 0, sizeof(req));
	req.n.nlmsg_type = GENL_ID_CTRL;
	req.n.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	req.g.cmd = CTRL_CMD_GETFAMILY;
	req.g.version = 1;
	req.a.nla_type = CTRL_ATTR_FAMILY_NAME;
	req.a.nla_len = NLA_HDRLEN + sizeof(NEURON_GENL_NAME);
	memcpy(req.name, NEURON_GENL_NAME, sizeof(NEURON_GENL_NAME));
	req.n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN) + NLA_ALIGN(req.a.nla_len);
	if (send(nl->fd, &req, req.n.nlmsg_len, 0) != (ssize_t)req.n.nlmsg_len)
		return -errno;
	err = nl_answer(nl, tb, CTRL_ATTR_MAX);
	if (err)
		return err;
	if (!tb[CTRL_ATTR_FAMILY_ID])
		return -ENOENT;
	memcpy(&nl->family, (char *)tb[CTRL_ATTR_FAMILY_ID] + NLA_HDRLEN, 2);
	return 0;
}

static void child_netlink(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	const struct nlattr *tb[NEURON_A_MAX + 1];
	const __u32 nc0[] = { NEURON_A_DEV_INDEX, self->info.minor, NEURON_A_NC_INDEX, 0 };
	struct unpriv_nl *nl = malloc(sizeof(*nl));
	__u32 state = ~0U;

	if (!nl)
		return;
	EXPECT_EQ(0, nl_open_family(nl));
	EXPECT_EQ(0, nl_send(nl, nl->family, NEURON_CMD_NC_GET, nc0, 2));
	memset(tb, 0, sizeof(tb));
	EXPECT_EQ(0, nl_answer(nl, tb, NEURON_A_MAX));
	if (tb[NEURON_A_NC_STATE])
		memcpy(&state, (const char *)tb[NEURON_A_NC_STATE] + NLA_HDRLEN, 4);
	EXPECT_EQ((__u32)NEURON_NC_RESERVED, state);
	EXPECT_TRUE(!tb[NEURON_A_NC_OWNER_PID]) TH_LOG("another uid's pid crossed");
	/* The family has two requests; the rest is no command at all. */
	EXPECT_EQ(0, nl_send(nl, nl->family, NEURON_CMD_EVENT, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, nl_answer(nl, NULL, 0));
	EXPECT_EQ(0, nl_send(nl, nl->family, NEURON_CMD_UNSPEC, NULL, 0));
	EXPECT_EQ(-EOPNOTSUPP, nl_answer(nl, NULL, 0));
	close(nl->fd);
	free(nl);
}

/*
 * Netlink NC_GET of root's reservation as the child: state RESERVED,
 * no NEURON_A_NC_OWNER_PID; no request but DEV_GET, NC_GET and DEV_FW_GET
 * exists (EVENT and UNSPEC: EOPNOTSUPP), so none needs a capability.
 */
TEST_F(unpriv, netlink_owner_hidden)
{
	if (!root_holds_nc0(_metadata, self))
		return;
	as_member(_metadata, self, child_netlink);
}

/* ---- R8: pinned memory within RLIMIT_MEMLOCK without CAP_IPC_LOCK ---- */

static void child_memlock(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	__u32 h;
	int fd = own_file(_metadata, self, O_RDWR);

	if (fd < 0)
		return;
	EXPECT_EQ(-ENOMEM, neuron_alloc(fd, NEURON_MEM_HOST, 2 * UNPRIV_MEMLOCK, 0, &h, NULL));
	close(fd);
}

/* Host memory past RLIMIT_MEMLOCK (64 KiB) without CAP_IPC_LOCK: ENOMEM. */
TEST_F(unpriv, memlock_without_cap_ipc_lock)
{
	if (lacks(_metadata, self, NEURON_CAP_MEM, "NEURON_CAP_MEM"))
		return;
	run_as(_metadata, self, NEURON_UNPRIV_UID, self->gid, UNPRIV_MEMLOCK, child_memlock);
}

/* ---- R11: root-only knobs, read-only sysfs, root's debugfs ---- */

/*
 * Every regular file of @dir (and, with @sub, of its subfolders whose
 * name starts with @sub): opening it for writing fails with EACCES; with
 * @readable, opening it for reading works. The files tried, or -1.
 */
static int try_files(struct __test_metadata *_metadata, const char *dir, const char *sub,
		     bool readable)
{
	struct dirent *e;
	char path[512];
	struct stat st;
	int n = 0, fd;
	DIR *d = opendir(dir);

	EXPECT_TRUE(!!d) TH_LOG("%s: %s", dir, strerror(errno));
	if (!d)
		return -1;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st))
			continue;
		if (S_ISDIR(st.st_mode) && sub && !strncmp(e->d_name, sub, strlen(sub))) {
			n += try_files(_metadata, path, NULL, readable);
			continue;
		}
		if (!S_ISREG(st.st_mode))
			continue;
		n++;
		fd = open(path, O_WRONLY | O_CLOEXEC);
		EXPECT_EQ(-1, fd) TH_LOG("%s opened for writing by uid %u", path, getuid());
		EXPECT_EQ(EACCES, errno) TH_LOG("%s", path);
		if (fd >= 0)
			close(fd);
		if (!readable || !(st.st_mode & 0004))
			continue;
		fd = open(path, O_RDONLY | O_CLOEXEC);
		EXPECT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	closedir(d);
	return n;
}

static void child_params(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	(void)self;
	EXPECT_LE(9, try_files(_metadata, NEURON_PARAM_DIR, NULL, true));
	if (!access("/sys/module/neuron_sim/parameters", F_OK))
		EXPECT_LE(1, try_files(_metadata, "/sys/module/neuron_sim/parameters",
				       NULL, true));
}

/* Every module parameter: readable, not writable (EACCES). */
TEST_F(unpriv, module_params_root_only)
{
	as_member(_metadata, self, child_params);
}

static void child_knobs(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	char dev[128];

	snprintf(dev, sizeof(dev), NEURON_SIM_BUS "/devices/neuron_sim%u", self->node.sim_id);
	EXPECT_LE(2, try_files(_metadata, NEURON_SIM_BUS, NULL, false));
	EXPECT_LE(10, try_files(_metadata, dev, NULL, false));
}

/*
 * The simulator's bus (new_device, del_device) and the knobs of a device
 * (DMA and TPB faults, injected notifications): EACCES for writing.
 */
TEST_F(unpriv, sim_knobs_root_only)
{
	if (!self->node.created)
		SKIP(return, "needs a simulated device of our own (NEURON_DEVICE is set)");
	as_member(_metadata, self, child_knobs);
}

static void child_sysfs(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	char dir[128];

	snprintf(dir, sizeof(dir), "/sys/class/neuron/neuron%u/", self->info.minor);
	EXPECT_LE(4, try_files(_metadata, dir, "nc", true));
}

/*
 * /sys/class/neuron/neuronN and its ncM folders: every file readable,
 * none writable (EACCES).
 */
TEST_F(unpriv, sysfs_read_only)
{
	as_member(_metadata, self, child_sysfs);
}

static char debugfs_file[128];

static void child_debugfs(struct __test_metadata *_metadata, struct _test_data_unpriv *self)
{
	struct stat st;

	(void)self;
	EXPECT_EQ(-1, open(debugfs_file, O_RDONLY | O_CLOEXEC));
	EXPECT_EQ(EACCES, errno);
	EXPECT_EQ(-1, stat(debugfs_file, &st));
	EXPECT_EQ(EACCES, errno);
}

/* debugfs's neuron/neuronN/nc0/{dma,exec}: the child cannot read them. */
TEST_F(unpriv, debugfs_root_only)
{
	int fd;

	snprintf(debugfs_file, sizeof(debugfs_file),
		 "/sys/kernel/debug/neuron/neuron%u/nc0/dma", self->info.minor);
	if (access("/sys/kernel/debug/neuron", F_OK))
		SKIP(return, "no debugfs at /sys/kernel/debug, or no neuron folder in it");
	/* Root reads it: the child's EACCES is the rule, not a missing file. */
	fd = open(debugfs_file, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", debugfs_file, strerror(errno));
	close(fd);
	as_member(_metadata, self, child_debugfs);
}

TEST_HARNESS_MAIN
