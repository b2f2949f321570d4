// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the generic netlink family "neuron" (docs/netlink.md),
 * through raw NETLINK_GENERIC sockets (no libnl):
 *  - the family and its "events" group resolve through nlctrl;
 *  - DEV_GET and NC_GET dumps agree with NEURON_IOCTL_QUERY of every
 *    /dev/neuronN; a do of one device and one NC;
 *  - events: a simulated device added and removed, an NC reserved and
 *    released (by NC_RELEASE and by close), an injected DMA fault
 *    (DMA_FAULT and NC_RESET), an execution timeout (EXEC_TIMEOUT and
 *    NC_RESET);
 *  - malformed requests get their error and an extack message;
 *  - an unprivileged reader does not see the pid of root's reservation;
 *    a reader in a pid namespace sees pids of its namespace only; the
 *    family is not in another network namespace;
 *  - the per-NC counters move with executions.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>

#include "neuron_test.h"
#include "neuron_nl.h"

/* Driver-side DMA error codes (driver/dma/neuron_dma.h, docs/netlink.md). */
#define DMA_ERR_INJECTED	3

#define NL_MAX_DEV	NEURON_MAX_DEVICES
#define NL_MAX_NC	(NEURON_MAX_DEVICES * 8)
#define NL_MAX_CH	8
/* Buckets of NEURON_A_NC_EXEC_LATENCY read (the driver sends 40). */
#define NL_LAT_BUCKETS	48
/* Usages of the NEURON_A_NC_MEM_*_BY_USAGE tables read (the driver sends 8). */
#define NL_USAGES	16

/* ---- DEV_GET and NC_GET ---- */

struct nl_dev {
	__u32 index, arch, sim_id, nc_count, state;
	bool has_sim, has_pci;
	__u64 mem_total, used_device, used_host;
	char arch_name[32], product[32];
	int nch;
	__u32 ch_index[NL_MAX_CH];
	__u64 ch_total[NL_MAX_CH], ch_used[NL_MAX_CH];
};

struct nl_nc {
	__u32 dev, index, state, models, pid;
	bool has_pid;
	__u64 executions, exec_errors, busy_ns, dma_jobs, dma_errors, resets;
	__u64 mem_device, mem_host;
	/* Sent only to the reserver's uid or CAP_SYS_ADMIN. */
	bool has_exec_stats, has_latency;
	__u64 exec_status[5];		/* by NEURON_EXEC_* */
	__u64 latency[NL_LAT_BUCKETS];	/* bucket i: 2^i to 2^(i+1) - 1 ns */
	bool has_total_latency;
	__u64 total_latency[NL_LAT_BUCKETS];
	/* The reserver's memory on the NC by NEURON_MEM_USAGE_*: same rule. */
	bool has_mem_usage;
	__u64 dev_usage[NL_USAGES], dev_usage_peak[NL_USAGES];
	__u64 host_usage[NL_USAGES], host_usage_peak[NL_USAGES];
	__u64 dev_peak, host_peak;
};

struct nl_devs {
	int n;
	struct nl_dev d[NL_MAX_DEV];
};

struct nl_ncs {
	int n;
	struct nl_nc c[NL_MAX_NC];
};

static void str_attr(char *dst, size_t size, const struct nlattr *a)
{
	dst[0] = '\0';
	if (a)
		snprintf(dst, size, "%.*s", nla_plen(a), (const char *)nla_payload(a));
}

static void dev_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[NEURON_A_MAX + 1], *c[NEURON_A_MAX + 1];
	struct nl_devs *ds = arg;
	struct nl_dev *d;
	const struct nlattr *a;
	int len;

	if (ds->n >= NL_MAX_DEV)
		return;
	d = &ds->d[ds->n++];
	memset(d, 0, sizeof(*d));
	msg_attrs(h, tb);
	d->index = get_u32(tb[NEURON_A_DEV_INDEX]);
	d->arch = get_u32(tb[NEURON_A_DEV_ARCH]);
	d->has_sim = !!tb[NEURON_A_DEV_SIM_ID];
	d->has_pci = !!tb[NEURON_A_DEV_PCI_ADDR];
	d->sim_id = get_u32(tb[NEURON_A_DEV_SIM_ID]);
	d->nc_count = get_u32(tb[NEURON_A_DEV_NC_COUNT]);
	d->state = get_u32(tb[NEURON_A_DEV_STATE]);
	d->mem_total = get_u64(tb[NEURON_A_DEV_MEM_TOTAL]);
	d->used_device = get_u64(tb[NEURON_A_DEV_MEM_USED_DEVICE]);
	d->used_host = get_u64(tb[NEURON_A_DEV_MEM_USED_HOST]);
	str_attr(d->arch_name, sizeof(d->arch_name), tb[NEURON_A_DEV_ARCH_NAME]);
	str_attr(d->product, sizeof(d->product), tb[NEURON_A_DEV_PRODUCT]);
	/* The channels: every NEURON_A_DEV_CHANNEL, in order. */
	{
		const struct genlmsghdr *gh = NLMSG_DATA(h);

		a = (const struct nlattr *)((const char *)gh + GENL_HDRLEN);
		len = h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	}
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		if ((a->nla_type & NLA_TYPE_MASK) == NEURON_A_DEV_CHANNEL && d->nch < NL_MAX_CH) {
			attrs_parse(nla_payload(a), nla_plen(a), c, NEURON_A_MAX);
			d->ch_index[d->nch] = get_u32(c[NEURON_A_CHANNEL_INDEX]);
			d->ch_total[d->nch] = get_u64(c[NEURON_A_CHANNEL_TOTAL]);
			d->ch_used[d->nch] = get_u64(c[NEURON_A_CHANNEL_USED]);
			d->nch++;
		}
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* A nest of u64 where type i + 1 is @v[i] (type 0: padding); false if absent. */
static bool u64_table(const struct nlattr *nest, __u64 *v, int n)
{
	const struct nlattr *t[NL_LAT_BUCKETS + 1];
	int i;

	if (!nest)
		return false;
	attrs_parse(nla_payload(nest), nla_plen(nest), t, n);
	for (i = 1; i <= n; i++)
		v[i - 1] = get_u64(t[i]);
	return true;
}

static void nc_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[NEURON_A_MAX + 1];
	struct nl_ncs *cs = arg;
	struct nl_nc *c;

	if (cs->n >= NL_MAX_NC)
		return;
	c = &cs->c[cs->n++];
	memset(c, 0, sizeof(*c));
	msg_attrs(h, tb);
	c->dev = get_u32(tb[NEURON_A_DEV_INDEX]);
	c->index = get_u32(tb[NEURON_A_NC_INDEX]);
	c->state = get_u32(tb[NEURON_A_NC_STATE]);
	c->has_pid = !!tb[NEURON_A_NC_OWNER_PID];
	c->pid = get_u32(tb[NEURON_A_NC_OWNER_PID]);
	c->models = get_u32(tb[NEURON_A_NC_MODELS]);
	c->executions = get_u64(tb[NEURON_A_NC_EXECUTIONS]);
	c->exec_errors = get_u64(tb[NEURON_A_NC_EXEC_ERRORS]);
	c->busy_ns = get_u64(tb[NEURON_A_NC_BUSY_NS]);
	c->dma_jobs = get_u64(tb[NEURON_A_NC_DMA_JOBS]);
	c->dma_errors = get_u64(tb[NEURON_A_NC_DMA_ERRORS]);
	c->resets = get_u64(tb[NEURON_A_NC_RESETS]);
	c->mem_device = get_u64(tb[NEURON_A_NC_MEM_DEVICE]);
	c->mem_host = get_u64(tb[NEURON_A_NC_MEM_HOST]);
	c->has_exec_stats = tb[NEURON_A_NC_EXEC_OK] && tb[NEURON_A_NC_EXEC_BAD_INPUT] &&
			    tb[NEURON_A_NC_EXEC_DEVICE_ERROR] && tb[NEURON_A_NC_EXEC_TIMEOUT] &&
			    tb[NEURON_A_NC_EXEC_CANCELLED];
	c->exec_status[NEURON_EXEC_OK] = get_u64(tb[NEURON_A_NC_EXEC_OK]);
	c->exec_status[NEURON_EXEC_BAD_INPUT] = get_u64(tb[NEURON_A_NC_EXEC_BAD_INPUT]);
	c->exec_status[NEURON_EXEC_DEVICE_ERROR] = get_u64(tb[NEURON_A_NC_EXEC_DEVICE_ERROR]);
	c->exec_status[NEURON_EXEC_TIMEOUT] = get_u64(tb[NEURON_A_NC_EXEC_TIMEOUT]);
	c->exec_status[NEURON_EXEC_CANCELLED] = get_u64(tb[NEURON_A_NC_EXEC_CANCELLED]);
	c->has_latency = u64_table(tb[NEURON_A_NC_EXEC_LATENCY], c->latency,
				   NL_LAT_BUCKETS);
	c->has_total_latency = u64_table(tb[NEURON_A_NC_EXEC_TOTAL_LATENCY],
					 c->total_latency, NL_LAT_BUCKETS);
	c->has_mem_usage =
		u64_table(tb[NEURON_A_NC_MEM_DEVICE_BY_USAGE], c->dev_usage, NL_USAGES) &
		u64_table(tb[NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE], c->dev_usage_peak,
			  NL_USAGES) &
		u64_table(tb[NEURON_A_NC_MEM_HOST_BY_USAGE], c->host_usage, NL_USAGES) &
		u64_table(tb[NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE], c->host_usage_peak,
			  NL_USAGES) &
		!!tb[NEURON_A_NC_MEM_DEVICE_PEAK] & !!tb[NEURON_A_NC_MEM_HOST_PEAK];
	c->dev_peak = get_u64(tb[NEURON_A_NC_MEM_DEVICE_PEAK]);
	c->host_peak = get_u64(tb[NEURON_A_NC_MEM_HOST_PEAK]);
}

static int dev_dump(struct nl *nl, struct nl_devs *ds)
{
	struct nl_req r;

	ds->n = 0;
	req_init(&r, nl->family, NEURON_CMD_DEV_GET, NLM_F_DUMP);
	return nl_xact(nl, &r, dev_cb, ds);
}

static int dev_get(struct nl *nl, __u32 minor, struct nl_dev *d)
{
	struct nl_devs *ds = calloc(1, sizeof(*ds));
	struct nl_req r;
	int ret;

	if (!ds)
		return -ENOMEM;
	req_init(&r, nl->family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, minor);
	ret = nl_xact(nl, &r, dev_cb, ds);
	if (!ret && ds->n != 1)
		ret = -EPROTO;
	if (!ret)
		*d = ds->d[0];
	free(ds);
	return ret;
}

static int nc_dump(struct nl *nl, int minor, struct nl_ncs *cs)
{
	struct nl_req r;

	cs->n = 0;
	req_init(&r, nl->family, NEURON_CMD_NC_GET, NLM_F_DUMP);
	if (minor >= 0)
		req_put_u32(&r, NEURON_A_DEV_INDEX, minor);
	return nl_xact(nl, &r, nc_cb, cs);
}

static int nc_get(struct nl *nl, __u32 minor, __u32 nc, struct nl_nc *c)
{
	struct nl_ncs *cs = calloc(1, sizeof(*cs));
	struct nl_req r;
	int ret;

	if (!cs)
		return -ENOMEM;
	req_init(&r, nl->family, NEURON_CMD_NC_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, minor);
	req_put_u32(&r, NEURON_A_NC_INDEX, nc);
	ret = nl_xact(nl, &r, nc_cb, cs);
	if (!ret && cs->n != 1)
		ret = -EPROTO;
	if (!ret)
		*c = cs->c[0];
	free(cs);
	return ret;
}

/* ---- device helpers ---- */

/* A model of no slots: SP waits for semaphore @sem (unless @wait false). */
static int load_sp(int fd, __u32 nc, bool wait, __u32 *handle)
{
	struct neuron_tpb_insn insn[2];
	__u32 n = 0;

	memset(insn, 0, sizeof(insn));
	if (wait) {
		insn[n].opcode = NEURON_TPB_SEM_WAIT;
		insn[n].index = 20;
		insn[n].imm = 1;
		n++;
	}
	insn[n++].opcode = NEURON_TPB_END;
	return neuron_model_load_block(fd, nc, NEURON_ENGINE_SP, insn, n, NULL, 0, 0, handle);
}

/* EXECUTE with NEURON_EXEC_WAIT: the status (>= 0), or -errno. */
static int exec_sync(int fd, __u32 model, __u32 timeout_ms)
{
	__u32 status;
	int ret = nio_execute_wait(fd, model, NULL, 0, timeout_ms, &status);

	return ret ? ret : (int)status;
}

/* ---- the family ---- */

/* Has the kernel networking (the debug test kernel has none)? */
static bool netlink_there(void)
{
	return access("/proc/net/netlink", F_OK) == 0;
}

/* The 6.1 harness's TEST() has an unused parameter (-Wextra). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
TEST(family_resolves)
{
	struct nl nl;
	int ret;

	if (access("/sys/module/neuron", F_OK))
		SKIP(return, "neuron.ko is not loaded");
	if (!netlink_there())
		SKIP(return, "no netlink: a kernel without CONFIG_NET");
	ret = nl_open(&nl);
	ASSERT_EQ(0, ret);
	ret = nl_resolve(&nl);
	ASSERT_EQ(0, ret) TH_LOG("CTRL_CMD_GETFAMILY neuron: %s", strerror(-ret));
	EXPECT_NE(0, nl.family);
	EXPECT_NE(0U, nl.events) TH_LOG("no \"events\" multicast group");
	EXPECT_EQ((__u32)NEURON_GENL_VERSION, nl.version);
	EXPECT_EQ((__u32)NEURON_A_MAX, nl.maxattr);
	nl_close(&nl);
}

#pragma GCC diagnostic pop

/* ---- the fixture: a v2 device, a netlink socket and an events socket ---- */

/*
 * NLMSGERR_ATTR_MISS_TYPE, the missing attribute named in the ack, comes
 * from the netlink core (6.0 on: NL_SET_ERR_ATTR_MISS, which the driver's
 * GENL_REQ_ATTR_CHECK() uses). An older core, such as 5.10's, cannot send
 * it whatever the driver does (driver/neuron_compat.h), so only the error
 * and its message are required there.
 */
static bool netlink_core_reports_missing(void)
{
	unsigned int major, minor;
	struct utsname u;

	if (uname(&u) || sscanf(u.release, "%u.%u", &major, &minor) != 2)
		return true;
	return major >= 6;
}

FIXTURE(genl) {
	struct neuron_node node;
	struct neuron_device_info info;
	struct nl nl;		/* requests */
	struct nl ev;		/* the events group */
};

FIXTURE_SETUP(genl)
{
	int ret;

	if (!netlink_there())
		NEURON_SKIP_SETUP("no netlink: a kernel without CONFIG_NET");
	neuron_setup_node(_metadata, &self->node, "v2", 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	ret = nl_setup(&self->nl, false);
	ASSERT_EQ(0, ret) TH_LOG("netlink: %s", strerror(-ret));
	ret = nl_setup(&self->ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));
}

FIXTURE_TEARDOWN(genl)
{
	nl_close(&self->nl);
	nl_close(&self->ev);
	neuron_node_release(&self->node);
}

static void check_dev(struct __test_metadata *_metadata, const struct nl_dev *d,
		      int fd)
{
	struct neuron_device_info info;
	struct neuron_mem_usage_buf mu;
	int i;

	ASSERT_EQ(0, neuron_query_info(fd, &info, NULL));
	EXPECT_EQ(info.minor, d->index);
	EXPECT_EQ(info.arch, d->arch);
	EXPECT_EQ(info.nc_count, d->nc_count);
	EXPECT_EQ(info.dram_size, d->mem_total);
	EXPECT_STREQ(info.arch_name, d->arch_name);
	EXPECT_STREQ(info.product, d->product);
	EXPECT_EQ(0U, d->state);
	if (info.pci_vendor) {
		EXPECT_TRUE(d->has_pci);
	} else {
		EXPECT_TRUE(d->has_sim);
		EXPECT_EQ(info.sim_id, d->sim_id);
	}
	EXPECT_EQ((int)info.dram_channels, d->nch);
	for (i = 0; i < d->nch; i++) {
		EXPECT_EQ((__u32)i, d->ch_index[i]);
		EXPECT_EQ(info.dram_channel_size, d->ch_total[i]);
		EXPECT_GE(d->ch_total[i], d->ch_used[i]);
	}
	ASSERT_EQ(0, neuron_query_mem_usage(fd, &mu, NULL));
	EXPECT_EQ(mu.u.device_bytes, d->used_device);
	EXPECT_EQ(mu.u.host_bytes, d->used_host);
}

static void check_nc(struct __test_metadata *_metadata, const struct nl_nc *c,
		     const struct neuron_nc_states_buf *s)
{
	const struct neuron_nc_state *q;

	ASSERT_GT(s->h.nc_count, c->index);
	q = &s->nc[c->index];
	EXPECT_EQ(q->state, c->state);
	EXPECT_EQ(!!(q->flags & NEURON_NC_STATE_OWNER), c->has_pid);
	if (c->has_pid)
		EXPECT_EQ((__u32)q->owner_pid, c->pid);
}

/* Every /dev/neuronN agrees with the DEV_GET and NC_GET dumps. */
TEST_F(genl, dumps_match_query)
{
	struct nl_devs *ds = calloc(1, sizeof(*ds));
	struct nl_ncs *cs = calloc(1, sizeof(*cs));
	int i, j, seen = 0, ret;

	ASSERT_NE(NULL, ds);
	ASSERT_NE(NULL, cs);
	/* Root holds NC 0 of the fixture's device: a pid to compare. */
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ret = dev_dump(&self->nl, ds);
	ASSERT_EQ(0, ret) TH_LOG("DEV_GET dump: %s", strerror(-ret));
	ret = nc_dump(&self->nl, -1, cs);
	ASSERT_EQ(0, ret) TH_LOG("NC_GET dump: %s", strerror(-ret));
	for (i = 0; i < ds->n; i++) {
		struct neuron_nc_states_buf s;
		char path[32];
		int fd, ncs = 0;

		snprintf(path, sizeof(path), "/dev/neuron%u", ds->d[i].index);
		fd = open(path, O_RDWR | O_CLOEXEC);
		if (fd < 0)
			continue;	/* going away, or no node */
		seen++;
		check_dev(_metadata, &ds->d[i], fd);
		ASSERT_EQ(0, neuron_query_into(fd, NEURON_QUERY_NC_STATE, &s, sizeof(s), NULL));
		for (j = 0; j < cs->n; j++) {
			if (cs->c[j].dev != ds->d[i].index)
				continue;
			check_nc(_metadata, &cs->c[j], &s);
			ncs++;
		}
		EXPECT_EQ((int)ds->d[i].nc_count, ncs);
		close(fd);
	}
	EXPECT_LE(1, seen);
	/* The fixture's device is there, NC 0 reserved by this process. */
	for (j = 0; j < cs->n; j++)
		if (cs->c[j].dev == self->node.minor && cs->c[j].index == 0) {
			EXPECT_EQ((__u32)NEURON_NC_RESERVED, cs->c[j].state);
			EXPECT_TRUE(cs->c[j].has_pid);
			EXPECT_EQ((__u32)getpid(), cs->c[j].pid);
		}
	/* A dump of one device: its NCs only. */
	ASSERT_EQ(0, nc_dump(&self->nl, self->node.minor, cs));
	EXPECT_EQ((int)self->info.nc_count, cs->n);
	for (j = 0; j < cs->n; j++) {
		EXPECT_EQ(self->node.minor, cs->c[j].dev);
		EXPECT_EQ((__u32)j, cs->c[j].index);
	}
	free(ds);
	free(cs);
}

/* A do of the fixture's device and of its NC 1. */
TEST_F(genl, do_one)
{
	struct neuron_nc_states_buf s;
	struct nl_dev d;
	struct nl_nc c;

	ASSERT_EQ(0, dev_get(&self->nl, self->node.minor, &d));
	check_dev(_metadata, &d, self->node.fd);
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 1, &c));
	EXPECT_EQ(self->node.minor, c.dev);
	EXPECT_EQ(1U, c.index);
	ASSERT_EQ(0, neuron_query_into(self->node.fd, NEURON_QUERY_NC_STATE, &s,
				       sizeof(s), NULL));
	check_nc(_metadata, &c, &s);
}

/* ---- malformed requests ---- */

/* @r must fail with @err and an extack message. */
static void expect_err(struct __test_metadata *_metadata, struct nl *nl,
		       struct nl_req *r, int err, const char *what)
{
	int ret = nl_xact(nl, r, NULL, NULL);

	EXPECT_EQ(err, ret) TH_LOG("%s: %s", what, strerror(-ret));
	EXPECT_NE('\0', nl->err_msg[0]) TH_LOG("%s: no extack message", what);
	if (nl->err_msg[0])
		TH_LOG("%s: %d \"%s\"", what, ret, nl->err_msg);
}

TEST_F(genl, malformed)
{
	struct nl_devs *ds = calloc(1, sizeof(*ds));
	char big[64];
	__u8 one = 0;
	__u32 unused;
	struct nl_req r;
	int i, ret;

	ASSERT_NE(NULL, ds);
	/* A minor no device has. */
	ASSERT_EQ(0, dev_dump(&self->nl, ds));
	for (unused = NEURON_MAX_DEVICES - 1; unused > 0; unused--) {
		for (i = 0; i < ds->n && ds->d[i].index != unused; i++)
			;
		if (i == ds->n)
			break;
	}
	free(ds);

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put(&r, NEURON_A_DEV_INDEX, &one, 1);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "DEV_INDEX of 1 byte");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, unused);
	expect_err(_metadata, &self->nl, &r, -ENODEV, "unknown device");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, 1000);
	expect_err(_metadata, &self->nl, &r, -ERANGE, "DEV_INDEX 1000");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "DEV_GET do without DEV_INDEX");
	EXPECT_TRUE(self->nl.err_miss || !netlink_core_reports_missing());
	if (!netlink_core_reports_missing())
		TH_LOG("this kernel's netlink core cannot name a missing attribute");

	/*
	 * DEV_FW_GET: a device to name; one with no firmware to ask (the
	 * simulator, a PCI device with its engines off) says so; the device
	 * model answers (scripts/tests/neuron_pci_mbox checks the values).
	 */
	req_init(&r, self->nl.family, NEURON_CMD_DEV_FW_GET, 0);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "DEV_FW_GET without DEV_INDEX");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_FW_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, unused);
	expect_err(_metadata, &self->nl, &r, -ENODEV, "DEV_FW_GET of an unknown device");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_FW_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	if (!self->info.pci_vendor || (self->info.flags & NEURON_DEV_ENGINES_OFF))
		expect_err(_metadata, &self->nl, &r, -EOPNOTSUPP, "DEV_FW_GET, no firmware");
	else
		EXPECT_EQ(0, nl_xact(&self->nl, &r, NULL, NULL));

	req_init(&r, self->nl.family, NEURON_CMD_NC_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	req_put_u32(&r, NEURON_A_NC_INDEX, self->info.nc_count);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "NC beyond the device's");

	req_init(&r, self->nl.family, NEURON_CMD_NC_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	req_put_u32(&r, NEURON_A_NC_INDEX, 8);
	expect_err(_metadata, &self->nl, &r, -ERANGE, "NC 8");

	req_init(&r, self->nl.family, NEURON_CMD_NC_GET, NLM_F_DUMP);
	req_put_u32(&r, NEURON_A_DEV_INDEX, unused);
	expect_err(_metadata, &self->nl, &r, -ENODEV, "NC dump of an unknown device");

	memset(big, 'x', sizeof(big));
	big[sizeof(big) - 1] = '\0';
	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	req_put(&r, NEURON_A_DEV_PRODUCT, big, sizeof(big));
	expect_err(_metadata, &self->nl, &r, -ERANGE, "oversized DEV_PRODUCT");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	req_put_u32(&r, 200, 0);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "unknown attribute");

	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	req_put_u32(&r, NEURON_A_PAD, 0);
	expect_err(_metadata, &self->nl, &r, -EINVAL, "NEURON_A_PAD in a request");

	/*
	 * Shorter than the generic netlink header: the core refuses it
	 * before the family sees it, with no extack message.
	 */
	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	r.n.nlmsg_len = NLMSG_LENGTH(2);
	ret = nl_xact(&self->nl, &r, NULL, NULL);
	EXPECT_EQ(-EINVAL, ret);

	/* Still answering. */
	req_init(&r, self->nl.family, NEURON_CMD_DEV_GET, 0);
	req_put_u32(&r, NEURON_A_DEV_INDEX, self->node.minor);
	EXPECT_EQ(0, nl_xact(&self->nl, &r, NULL, NULL));
}

/* ---- events ---- */

TEST_F(genl, event_dev_added_removed)
{
	struct neuron_node n;
	struct nl_event e;
	int ret;

	if (neuron_mode() != NEURON_MODE_SIM)
		SKIP(return, "%s", neuron_mode_skip_reason());
	ret = neuron_sim_create(&n, "v2", 16);
	ASSERT_EQ(0, ret) TH_LOG("new sim device: %s", strerror(-ret));
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_DEV_ADDED, n.minor, -1, &e));
	EXPECT_EQ(-1, e.nc);
	EXPECT_FALSE(e.has_code);
	ASSERT_EQ(0, neuron_sim_remove(&n));
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_DEV_REMOVED, n.minor, -1, &e));
	neuron_node_release(&n);
}

TEST_F(genl, event_nc_reserved_released)
{
	struct nl_event e;
	int fd2;

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RESERVED, self->node.minor, 0, &e));
	/* Anyone may listen: the event says which NC, never who (no pid). */
	EXPECT_EQ(0, e.others);
	ASSERT_EQ(0, neuron_release(self->node.fd, 1));
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RELEASED, self->node.minor, 0, &e));
	EXPECT_EQ(0, e.others);
	/* Released by the file's close. */
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	ASSERT_EQ(0, neuron_reserve(fd2, 2));
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RESERVED, self->node.minor, 1, &e));
	close(fd2);
	EXPECT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RELEASED, self->node.minor, 1, &e));
}

TEST_F(genl, event_dma_fault)
{
	struct neuron_mem_alloc a;
	struct nl_nc before, after;
	struct nl_event e;
	char *buf;
	__u64 seq;

	if (!self->node.created)
		SKIP(return, "needs the simulator's dma_fail_next");
	buf = calloc(1, 65536);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 65536, 0, &a));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &before));
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "dma_fail_next", "1"));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, a.handle, 0, buf, NULL, 65536,
				    NEURON_COPY_ASYNC, &seq));
	EXPECT_EQ(-EIO, neuron_wait_seq(self->node.fd, seq, neuron_now_ns() + 5000000000LL));
	ASSERT_EQ(0, event_wait(&self->ev, NEURON_EVENT_DMA_FAULT, self->node.minor, -1, &e));
	EXPECT_TRUE(e.has_code);
	EXPECT_EQ((__u32)DMA_ERR_INJECTED, e.code);
	ASSERT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RESET, self->node.minor, e.nc, &e));
	EXPECT_EQ((__u32)NEURON_RESET_DMA_ERROR, e.code);
	if (e.nc == 0) {
		ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &after));
		EXPECT_LT(before.dma_errors, after.dma_errors);
		EXPECT_LT(before.resets, after.resets);
		EXPECT_LT(before.dma_jobs, after.dma_jobs);
	}
	neuron_mem_free(self->node.fd, a.handle);
	free(buf);
}

/* 40 entries into a notification ring of 16 that nobody reads. */
TEST_F(genl, event_notify_overflow)
{
	struct neuron_notify_setup s = {
		.nc = 0, .type = NEURON_NOTIFY_TRACE, .entries = 16, .eventfd = -1,
	};
	struct nl_event e;
	char text[96];

	if (!self->node.created)
		SKIP(return, "needs the simulator's inject_notify");
	if (!(self->info.caps & NEURON_CAP_NOTIFY))
		SKIP(return, "needs NEURON_CAP_NOTIFY");
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_NOTIFY_SETUP, &s));
	/* "NC TYPE CODE DATA COUNT": 24 of them overflow. */
	snprintf(text, sizeof(text), "0 %u 1 0 40\n", (unsigned int)NEURON_NOTIFY_TRACE);
	ASSERT_EQ(0, neuron_sim_knob(&self->node, "inject_notify", text));
	ASSERT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NOTIFY_OVERFLOW, self->node.minor, 0,
				&e));
	EXPECT_TRUE(e.has_code);
	EXPECT_EQ((__u32)NEURON_NOTIFY_TRACE, e.code);
}

static bool has_exec(const struct neuron_device_info *info)
{
	return (info->caps & NEURON_CAP_EXEC) && (info->caps & NEURON_CAP_RESERVE);
}

TEST_F(genl, event_exec_timeout)
{
	struct nl_event e;
	__u32 model;
	int ret;

	if (!has_exec(&self->info))
		SKIP(return, "needs NEURON_CAP_EXEC");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ret = load_sp(self->node.fd, 0, true, &model);
	ASSERT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s", strerror(-ret));
	EXPECT_EQ(NEURON_EXEC_TIMEOUT, exec_sync(self->node.fd, model, 200));
	ASSERT_EQ(0, event_wait(&self->ev, NEURON_EVENT_EXEC_TIMEOUT, self->node.minor, 0, &e));
	ASSERT_EQ(0, event_wait(&self->ev, NEURON_EVENT_NC_RESET, self->node.minor, 0, &e));
	EXPECT_TRUE(e.has_code);
	EXPECT_EQ((__u32)NEURON_RESET_EXEC_TIMEOUT, e.code);
}

/* ---- permissions, counters ---- */

/* nobody sees that root holds NC 0, not by which pid. */
TEST_F(genl, unprivileged_no_pid)
{
	struct nl_nc c;
	pid_t pid;
	int status;

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &c));
	EXPECT_TRUE(c.has_pid);
	EXPECT_EQ((__u32)getpid(), c.pid);
	pid = neuron_fork(_metadata);
	if (!pid) {
		struct nl nl;

		if (neuron_drop_privileges(0, 0))
			_exit(10);
		if (nl_setup(&nl, false))
			_exit(11);
		if (nc_get(&nl, self->node.minor, 0, &c))
			_exit(12);
		if (c.state != NEURON_NC_RESERVED)
			_exit(13);
		if (c.has_pid)
			_exit(14);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

/*
 * NC_GET from a second pid namespace (a container): root's reservation of
 * the host shows no pid, the namespace's own reservation its pid there (1).
 */
TEST_F(genl, owner_pid_in_pid_namespace)
{
	int status, fd2;
	pid_t c;

	if (geteuid())
		SKIP(return, "needs root");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	fd2 = open(self->node.path, O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	c = neuron_fork(_metadata);
	if (!c) {
		pid_t inner;

		if (unshare(CLONE_NEWPID))
			_exit(errno == EINVAL ? 77 : 10);
		inner = fork();
		if (inner < 0)
			_exit(11);
		if (!inner) {
			struct nl_nc n0, n1;
			struct nl nl;

			if (nl_setup(&nl, false) || nc_get(&nl, self->node.minor, 0, &n0))
				_exit(12);
			if (n0.state != NEURON_NC_RESERVED || n0.has_pid)
				_exit(13);	/* a host pid shown in the namespace */
			if (neuron_reserve(fd2, 2) || nc_get(&nl, self->node.minor, 1, &n1))
				_exit(14);
			_exit(n1.has_pid && n1.pid == 1 ? 0 : 15);
		}
		if (waitpid(inner, &status, 0) != inner || !WIFEXITED(status))
			_exit(16);
		_exit(WEXITSTATUS(status));
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		SKIP(return, "no pid namespaces in this kernel");
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d", WEXITSTATUS(status));
	close(fd2);
}

/* The family lives in the initial network namespace only (netnsok false). */
TEST_F(genl, not_in_other_netns)
{
	int status;
	pid_t c;

	if (geteuid())
		SKIP(return, "needs root");
	c = neuron_fork(_metadata);
	if (!c) {
		struct nl nl;
		int ret;

		if (unshare(CLONE_NEWNET))
			_exit(errno == EINVAL ? 77 : 10);
		ret = nl_setup(&nl, false);
		_exit(ret == -ENOENT ? 0 : 11);
	}
	ASSERT_EQ(c, waitpid(c, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	if (WEXITSTATUS(status) == 77)
		SKIP(return, "no network namespaces in this kernel");
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("the family resolved in a new netns");
}

TEST_F(genl, counters_move)
{
	struct nl_nc before, after;
	__u32 model;
	int i, ret;

	if (!has_exec(&self->info))
		SKIP(return, "needs NEURON_CAP_EXEC");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));
	ret = load_sp(self->node.fd, 1, false, &model);
	ASSERT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s", strerror(-ret));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 1, &before));
	EXPECT_LE(1U, before.models);
	for (i = 0; i < 5; i++)
		ASSERT_EQ(NEURON_EXEC_OK, exec_sync(self->node.fd, model, 0));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 1, &after));
	EXPECT_EQ(before.executions + 5, after.executions);
	EXPECT_EQ(before.exec_errors, after.exec_errors);
	EXPECT_LT(before.busy_ns, after.busy_ns);
	EXPECT_EQ(before.models, after.models);
}

/*
 * In a child: become nobody and NC_GET NC @nc of device @minor into @c:
 * 0, or the exit status that tells which step failed (10, 11).
 */
static int nc_get_as_nobody(struct nl *nl, __u32 minor, __u32 nc, struct nl_nc *c)
{
	if (neuron_drop_privileges(0, 0))
		return 10;
	if (nl_setup(nl, false) || nc_get(nl, minor, nc, c))
		return 11;
	return 0;
}

static __u64 hist_sum(const __u64 *h, int from)
{
	__u64 n = 0;
	int i;

	for (i = from; i < NL_LAT_BUCKETS; i++)
		n += h[i];
	return n;
}

static __u64 lat_sum(const struct nl_nc *c, int from)
{
	return hist_sum(c->latency, from);
}

/*
 * Executions by status and the latency histogram: 3 that end well and
 * one that overruns its 200 ms timeout count as such, all four in the
 * histogram, the slow one at 2^27 ns (134 ms) or more; nobody sees neither
 * of root's NC nor of a free one, root sees a free NC's.
 */
TEST_F(genl, exec_status_and_latency)
{
	struct nl_nc before, after;
	__u32 ok, slow;
	int i, ret, status;
	pid_t pid;

	if (!has_exec(&self->info))
		SKIP(return, "needs NEURON_CAP_EXEC");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ret = load_sp(self->node.fd, 0, false, &ok);
	ASSERT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s", strerror(-ret));
	ret = load_sp(self->node.fd, 0, true, &slow);
	ASSERT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s", strerror(-ret));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &before));
	ASSERT_TRUE(before.has_exec_stats);
	ASSERT_TRUE(before.has_latency);
	for (i = 0; i < 3; i++)
		ASSERT_EQ(NEURON_EXEC_OK, exec_sync(self->node.fd, ok, 0));
	EXPECT_EQ(NEURON_EXEC_TIMEOUT, exec_sync(self->node.fd, slow, 200));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &after));
	EXPECT_EQ(before.executions + 4, after.executions);
	EXPECT_EQ(before.exec_status[NEURON_EXEC_OK] + 3, after.exec_status[NEURON_EXEC_OK]);
	EXPECT_EQ(before.exec_status[NEURON_EXEC_TIMEOUT] + 1,
		  after.exec_status[NEURON_EXEC_TIMEOUT]);
	for (i = NEURON_EXEC_BAD_INPUT; i <= NEURON_EXEC_CANCELLED; i++)
		if (i != NEURON_EXEC_TIMEOUT)
			EXPECT_EQ(before.exec_status[i], after.exec_status[i])
				TH_LOG("status %d", i);
	EXPECT_EQ(lat_sum(&before, 0) + 4, lat_sum(&after, 0));
	EXPECT_EQ(lat_sum(&before, 27) + 1, lat_sum(&after, 27));
	/* The driver's 40 buckets: nothing beyond. */
	EXPECT_EQ(0ULL, lat_sum(&after, 40));
	/* Submission to end: the four too, the slow one at 134 ms or more. */
	ASSERT_TRUE(after.has_total_latency);
	EXPECT_EQ(hist_sum(before.total_latency, 0) + 4, hist_sum(after.total_latency, 0));
	EXPECT_EQ(hist_sum(before.total_latency, 27) + 1, hist_sum(after.total_latency, 27));
	EXPECT_EQ(0ULL, hist_sum(after.total_latency, 40));
	/* Root (CAP_SYS_ADMIN) reads a free NC's too. */
	if (self->info.nc_count > 1 && !geteuid()) {
		ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 1, &after));
		EXPECT_EQ(NEURON_NC_FREE, (int)after.state);
		EXPECT_TRUE(after.has_exec_stats);
	}
	if (geteuid())
		return;
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nl nl;
		struct nl_nc c;
		int err = nc_get_as_nobody(&nl, self->node.minor, 0, &c);

		if (err)
			_exit(err);
		if (c.has_exec_stats || c.has_latency || c.has_total_latency)
			_exit(12);	/* root's timing shown to nobody */
		if (self->info.nc_count > 1 && nc_get(&nl, self->node.minor, 1, &c))
			_exit(13);
		if (c.has_exec_stats || c.has_latency || c.has_total_latency)
			_exit(14);	/* a free NC's history shown to nobody */
		_exit(c.executions == after.executions || self->info.nc_count == 1 ? 0 : 15);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d", WEXITSTATUS(status));
}

/* MEM_ALLOC of @size bytes of @kind and @usage on NC @nc: the handle. */
static int alloc_usage(int fd, __u32 kind, __u32 usage, __u64 size, __u32 nc,
		       __u32 *handle)
{
	struct neuron_mem_alloc a;
	int ret;

	neuron_mem_alloc_prep(&a, kind, size, nc);
	a.usage = usage;
	ret = neuron_mem_alloc_req(fd, &a);
	*handle = a.handle;
	return ret;
}

/*
 * The reserver's memory on its NC by usage: what MEM_ALLOC said each
 * object is for, per file and NC, the peak staying when memory goes; a
 * loaded model is model code; nobody sees none of it, of root's NC, and
 * nobody has it of a free NC (no reserver).
 */
TEST_F(genl, mem_by_usage)
{
	struct nl_nc before, after, freed;
	__u32 t, k, h, model;
	int i, ret, status;
	pid_t pid;

	if (!(self->info.caps & NEURON_CAP_MEM))
		SKIP(return, "needs NEURON_CAP_MEM");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &before));
	ASSERT_TRUE(before.has_mem_usage);
	ASSERT_EQ(0, alloc_usage(self->node.fd, NEURON_MEM_DEVICE, NEURON_MEM_USAGE_TENSORS,
				 1 << 20, 0, &t));
	ASSERT_EQ(0, alloc_usage(self->node.fd, NEURON_MEM_DEVICE, NEURON_MEM_USAGE_CONSTANTS,
				 3 << 20, 0, &k));
	ASSERT_EQ(0, alloc_usage(self->node.fd, NEURON_MEM_HOST, NEURON_MEM_USAGE_DMA_BUFFERS,
				 2 << 20, 0, &h));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &after));
	ASSERT_TRUE(after.has_mem_usage);
	EXPECT_EQ(before.dev_usage[NEURON_MEM_USAGE_TENSORS] + (1 << 20),
		  after.dev_usage[NEURON_MEM_USAGE_TENSORS]);
	EXPECT_EQ(before.dev_usage[NEURON_MEM_USAGE_CONSTANTS] + (3 << 20),
		  after.dev_usage[NEURON_MEM_USAGE_CONSTANTS]);
	EXPECT_EQ(before.host_usage[NEURON_MEM_USAGE_DMA_BUFFERS] + (2 << 20),
		  after.host_usage[NEURON_MEM_USAGE_DMA_BUFFERS]);
	for (i = 0; i < NEURON_MEM_USAGE_COUNT; i++) {
		EXPECT_LE(after.dev_usage[i], after.dev_usage_peak[i]) TH_LOG("usage %d", i);
		EXPECT_LE(after.host_usage[i], after.host_usage_peak[i]) TH_LOG("usage %d", i);
	}
	/* The driver's 8 usages: nothing beyond. */
	for (i = NEURON_MEM_USAGE_COUNT; i < NL_USAGES; i++)
		EXPECT_EQ(0ULL, after.dev_usage[i] + after.host_usage[i]);
	EXPECT_LE(before.dev_peak + (4 << 20), after.dev_peak);
	EXPECT_LE(before.host_peak + (2 << 20), after.host_peak);
	/* Freed: the figure drops, the peak stays. */
	ASSERT_EQ(0, neuron_mem_free(self->node.fd, k));
	ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &freed));
	EXPECT_EQ(before.dev_usage[NEURON_MEM_USAGE_CONSTANTS],
		  freed.dev_usage[NEURON_MEM_USAGE_CONSTANTS]);
	EXPECT_EQ(after.dev_usage_peak[NEURON_MEM_USAGE_CONSTANTS],
		  freed.dev_usage_peak[NEURON_MEM_USAGE_CONSTANTS]);
	EXPECT_EQ(after.dev_peak, freed.dev_peak);
	if (has_exec(&self->info)) {
		ret = load_sp(self->node.fd, 0, false, &model);
		ASSERT_EQ(0, ret) TH_LOG("MODEL_LOAD: %s", strerror(-ret));
		ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 0, &after));
		EXPECT_LT(freed.dev_usage[NEURON_MEM_USAGE_MODEL_CODE],
			  after.dev_usage[NEURON_MEM_USAGE_MODEL_CODE]);
	}
	/* A free NC has no reserver: no figures, also for root. */
	if (self->info.nc_count > 1) {
		ASSERT_EQ(0, nc_get(&self->nl, self->node.minor, 1, &freed));
		EXPECT_FALSE(freed.has_mem_usage);
	}
	if (geteuid())
		return;
	pid = neuron_fork(_metadata);
	if (!pid) {
		struct nl nl;
		struct nl_nc c;
		int err = nc_get_as_nobody(&nl, self->node.minor, 0, &c);

		_exit(err ?: c.has_mem_usage ? 12 : 0);	/* root's memory shown to nobody */
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("step %d", WEXITSTATUS(status));
	(void)t;
	(void)h;
}

TEST_HARNESS_MAIN
