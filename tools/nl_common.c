// SPDX-License-Identifier: GPL-2.0
/*
 * nl_common: the shared part of neuron-ls and neuron-monitor (nl_common.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "nl_common.h"

/* A dump the kernel interrupted (NLM_F_DUMP_INTR) is tried this often. */
#define NT_DUMP_TRIES		5

static struct nla_policy nt_policy[NEURON_A_MAX + 1] = {
	[NEURON_A_DEV_INDEX] = { .type = NLA_U32 },
	[NEURON_A_DEV_ARCH] = { .type = NLA_U32 },
	[NEURON_A_DEV_ARCH_NAME] = { .type = NLA_STRING },
	[NEURON_A_DEV_PRODUCT] = { .type = NLA_STRING },
	[NEURON_A_DEV_PCI_ADDR] = { .type = NLA_STRING },
	[NEURON_A_DEV_SIM_ID] = { .type = NLA_U32 },
	[NEURON_A_DEV_NC_COUNT] = { .type = NLA_U32 },
	[NEURON_A_DEV_MEM_TOTAL] = { .type = NLA_U64 },
	[NEURON_A_DEV_MEM_USED_DEVICE] = { .type = NLA_U64 },
	[NEURON_A_DEV_MEM_USED_HOST] = { .type = NLA_U64 },
	[NEURON_A_DEV_CHANNEL] = { .type = NLA_NESTED },
	[NEURON_A_DEV_STATE] = { .type = NLA_U32 },
	[NEURON_A_NC_INDEX] = { .type = NLA_U32 },
	[NEURON_A_NC_STATE] = { .type = NLA_U32 },
	[NEURON_A_NC_OWNER_PID] = { .type = NLA_U32 },
	[NEURON_A_NC_MODELS] = { .type = NLA_U32 },
	[NEURON_A_NC_EXECUTIONS] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_ERRORS] = { .type = NLA_U64 },
	[NEURON_A_NC_BUSY_NS] = { .type = NLA_U64 },
	[NEURON_A_NC_DMA_JOBS] = { .type = NLA_U64 },
	[NEURON_A_NC_DMA_ERRORS] = { .type = NLA_U64 },
	[NEURON_A_NC_RESETS] = { .type = NLA_U64 },
	[NEURON_A_NC_MEM_DEVICE] = { .type = NLA_U64 },
	[NEURON_A_NC_MEM_HOST] = { .type = NLA_U64 },
	[NEURON_A_EVENT_TYPE] = { .type = NLA_U32 },
	[NEURON_A_EVENT_CODE] = { .type = NLA_U32 },
	[NEURON_A_CHANNEL_INDEX] = { .type = NLA_U32 },
	[NEURON_A_CHANNEL_TOTAL] = { .type = NLA_U64 },
	[NEURON_A_CHANNEL_USED] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_OK] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_BAD_INPUT] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_DEVICE_ERROR] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_TIMEOUT] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_CANCELLED] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_LATENCY] = { .type = NLA_NESTED },
	[NEURON_A_NC_MEM_DEVICE_BY_USAGE] = { .type = NLA_NESTED },
	[NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE] = { .type = NLA_NESTED },
	[NEURON_A_NC_MEM_HOST_BY_USAGE] = { .type = NLA_NESTED },
	[NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE] = { .type = NLA_NESTED },
	[NEURON_A_NC_MEM_DEVICE_PEAK] = { .type = NLA_U64 },
	[NEURON_A_NC_MEM_HOST_PEAK] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_TOTAL_LATENCY] = { .type = NLA_NESTED },
	[NEURON_A_DEV_SERIAL] = { .type = NLA_U64 },
	[NEURON_A_DEV_ECC] = { .type = NLA_NESTED },
	[NEURON_A_ECC_INDEX] = { .type = NLA_U32 },
	[NEURON_A_ECC_CORRECTED] = { .type = NLA_U32 },
	[NEURON_A_ECC_UNCORRECTED] = { .type = NLA_U32 },
};

struct nla_policy *nt_neuron_policy(void)
{
	return nt_policy;
}

void nt_report(const char *prog, const char *what, int err)
{
	int e = err < 0 ? -err : err;

	if (e == NLE_PERM)
		fprintf(stderr, "%s: %s: permission denied (%s)\n", prog, what,
			nl_geterror(e));
	else
		fprintf(stderr, "%s: %s: %s\n", prog, what, nl_geterror(e));
}

int nt_ctx_open(struct nt_ctx *c, const char *prog)
{
	int err;

	c->prog = prog;
	c->family = -1;
	c->sk = nl_socket_alloc();
	if (!c->sk) {
		fprintf(stderr, "%s: cannot allocate a netlink socket\n", prog);
		return NT_EXIT_NETLINK;
	}
	err = genl_connect(c->sk);
	if (err < 0) {
		nt_report(prog, "connecting to generic netlink", err);
		goto fail;
	}
	c->family = genl_ctrl_resolve(c->sk, NEURON_GENL_NAME);
	if (c->family == -NLE_OBJ_NOTFOUND) {
		fprintf(stderr,
			"%s: the neuron driver is not loaded (no generic netlink family '%s')\n",
			prog, NEURON_GENL_NAME);
		nt_ctx_close(c);
		return NT_EXIT_NO_MODULE;
	}
	if (c->family < 0) {
		nt_report(prog, "resolving the generic netlink family 'neuron'", c->family);
		goto fail;
	}
	return NT_EXIT_OK;
fail:
	nt_ctx_close(c);
	return NT_EXIT_NETLINK;
}

void nt_ctx_close(struct nt_ctx *c)
{
	if (c->sk)
		nl_socket_free(c->sk);
	c->sk = NULL;
}

/* ---- dumps ---- */

struct nt_dump_state {
	struct nt_snapshot *s;
	struct nt_nc *ncs;	/* the NC_GET dump, not yet sorted */
	unsigned int n_ncs, cap_ncs;
	unsigned int cap_devs;
	int err;		/* -NLE_NOMEM from a callback */
};

static void nt_strcpy(char *dst, struct nlattr *a)
{
	if (a)
		nla_strlcpy(dst, a, NT_STR_LEN);
	else
		dst[0] = '\0';
}

static void nt_parse_channel(struct nt_dev *d, struct nlattr *nest)
{
	struct nlattr *tb[NEURON_A_MAX + 1], *pos;
	struct nt_channel *ch;
	int rem;

	if (nla_parse_nested(tb, NEURON_A_MAX, nest, nt_policy) < 0)
		return;
	if (!tb[NEURON_A_CHANNEL_INDEX]) {
		/* One nest holding one nest per channel: accepted too. */
		nla_for_each_nested(pos, nest, rem)
			if (nla_type(pos) == NEURON_A_DEV_CHANNEL ||
			    nla_is_nested(pos))
				nt_parse_channel(d, pos);
		return;
	}
	if (d->n_channels >= NT_MAX_CHANNELS)
		return;
	ch = &d->channels[d->n_channels++];
	ch->index = nla_get_u32(tb[NEURON_A_CHANNEL_INDEX]);
	ch->total = tb[NEURON_A_CHANNEL_TOTAL] ? nla_get_u64(tb[NEURON_A_CHANNEL_TOTAL]) : 0;
	ch->used = tb[NEURON_A_CHANNEL_USED] ? nla_get_u64(tb[NEURON_A_CHANNEL_USED]) : 0;
}

static int nt_dev_cb(struct nl_msg *msg, void *arg)
{
	struct nt_dump_state *st = arg;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct nlattr *tb[NEURON_A_MAX + 1], *pos;
	struct nt_snapshot *s = st->s;
	struct nt_dev *d;
	int rem;

	if (genlmsg_parse(nlh, 0, tb, NEURON_A_MAX, nt_policy) < 0 ||
	    !tb[NEURON_A_DEV_INDEX])
		return NL_SKIP;
	if (s->n_devs == st->cap_devs) {
		unsigned int cap = st->cap_devs ? 2 * st->cap_devs : 16;
		struct nt_dev *n = realloc(s->devs, cap * sizeof(*n));

		if (!n) {
			st->err = -NLE_NOMEM;
			return NL_STOP;
		}
		s->devs = n;
		st->cap_devs = cap;
	}
	d = &s->devs[s->n_devs++];
	memset(d, 0, sizeof(*d));
	d->index = nla_get_u32(tb[NEURON_A_DEV_INDEX]);
	if (tb[NEURON_A_DEV_ARCH]) {
		d->arch = nla_get_u32(tb[NEURON_A_DEV_ARCH]);
		d->have |= NT_DEV_ARCH;
	}
	nt_strcpy(d->arch_name, tb[NEURON_A_DEV_ARCH_NAME]);
	nt_strcpy(d->product, tb[NEURON_A_DEV_PRODUCT]);
	nt_strcpy(d->pci_addr, tb[NEURON_A_DEV_PCI_ADDR]);
	if (tb[NEURON_A_DEV_PCI_ADDR])
		d->have |= NT_DEV_PCI;
	if (tb[NEURON_A_DEV_SIM_ID]) {
		d->sim_id = nla_get_u32(tb[NEURON_A_DEV_SIM_ID]);
		d->have |= NT_DEV_SIM_ID;
	}
	if (tb[NEURON_A_DEV_NC_COUNT]) {
		d->nc_count = nla_get_u32(tb[NEURON_A_DEV_NC_COUNT]);
		d->have |= NT_DEV_NC_COUNT;
	}
	if (tb[NEURON_A_DEV_STATE]) {
		d->state = nla_get_u32(tb[NEURON_A_DEV_STATE]);
		d->have |= NT_DEV_STATE;
	}
	if (tb[NEURON_A_DEV_MEM_TOTAL]) {
		d->mem_total = nla_get_u64(tb[NEURON_A_DEV_MEM_TOTAL]);
		d->have |= NT_DEV_MEM_TOTAL;
	}
	if (tb[NEURON_A_DEV_MEM_USED_DEVICE]) {
		d->mem_used_device = nla_get_u64(tb[NEURON_A_DEV_MEM_USED_DEVICE]);
		d->have |= NT_DEV_MEM_USED_DEVICE;
	}
	if (tb[NEURON_A_DEV_MEM_USED_HOST]) {
		d->mem_used_host = nla_get_u64(tb[NEURON_A_DEV_MEM_USED_HOST]);
		d->have |= NT_DEV_MEM_USED_HOST;
	}
	/* Several NEURON_A_DEV_CHANNEL: nla_parse() kept the last one only. */
	nla_for_each_attr(pos, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem)
		if (nla_type(pos) == NEURON_A_DEV_CHANNEL)
			nt_parse_channel(d, pos);
	return NL_OK;
}

/* @*field from the u32 attribute @attr and @bit in @*have, if it was sent. */
static void nt_get_u32(struct nlattr **tb, int attr, uint32_t *field,
		       uint32_t *have, uint32_t bit)
{
	if (tb[attr]) {
		*field = nla_get_u32(tb[attr]);
		*have |= bit;
	}
}

/* @*field from the u64 attribute @attr and @bit in @*have, if it was sent. */
static void nt_get_u64(struct nlattr **tb, int attr, uint64_t *field,
		       uint32_t *have, uint32_t bit)
{
	if (tb[attr]) {
		*field = nla_get_u64(tb[attr]);
		*have |= bit;
	}
}

/*
 * A nest of u64 where type i + 1 is @v[i], @n of them (type 0, padding,
 * and types beyond skipped): true if @a is there.
 */
static bool nt_get_table(const struct nlattr *a, uint64_t *v, int n)
{
	struct nlattr *e;
	int rem;

	if (!a)
		return false;
	nla_for_each_nested(e, a, rem)
		if (nla_type(e) >= 1 && nla_type(e) <= n && nla_len(e) == sizeof(uint64_t))
			v[nla_type(e) - 1] = nla_get_u64(e);
	return true;
}

/* Fill @nc from the attributes of an NC_GET answer: 0, or -1 if not one. */
int nt_parse_nc(struct nlattr **tb, struct nt_nc *nc)
{
	memset(nc, 0, sizeof(*nc));
	if (!tb[NEURON_A_DEV_INDEX] || !tb[NEURON_A_NC_INDEX])
		return -1;
	nc->dev = nla_get_u32(tb[NEURON_A_DEV_INDEX]);
	nc->index = nla_get_u32(tb[NEURON_A_NC_INDEX]);
	nt_get_u32(tb, NEURON_A_NC_STATE, &nc->state, &nc->have, NT_NC_STATE);
	nt_get_u32(tb, NEURON_A_NC_OWNER_PID, &nc->owner_pid, &nc->have, NT_NC_OWNER_PID);
	nt_get_u32(tb, NEURON_A_NC_MODELS, &nc->models, &nc->have, NT_NC_MODELS);
	nt_get_u64(tb, NEURON_A_NC_EXECUTIONS, &nc->executions, &nc->have, NT_NC_EXECUTIONS);
	nt_get_u64(tb, NEURON_A_NC_EXEC_ERRORS, &nc->exec_errors, &nc->have, NT_NC_EXEC_ERRORS);
	nt_get_u64(tb, NEURON_A_NC_BUSY_NS, &nc->busy_ns, &nc->have, NT_NC_BUSY_NS);
	nt_get_u64(tb, NEURON_A_NC_DMA_JOBS, &nc->dma_jobs, &nc->have, NT_NC_DMA_JOBS);
	nt_get_u64(tb, NEURON_A_NC_DMA_ERRORS, &nc->dma_errors, &nc->have, NT_NC_DMA_ERRORS);
	nt_get_u64(tb, NEURON_A_NC_RESETS, &nc->resets, &nc->have, NT_NC_RESETS);
	nt_get_u64(tb, NEURON_A_NC_MEM_DEVICE, &nc->mem_device, &nc->have, NT_NC_MEM_DEVICE);
	nt_get_u64(tb, NEURON_A_NC_MEM_HOST, &nc->mem_host, &nc->have, NT_NC_MEM_HOST);
	if (tb[NEURON_A_NC_EXEC_OK] && tb[NEURON_A_NC_EXEC_BAD_INPUT] &&
	    tb[NEURON_A_NC_EXEC_DEVICE_ERROR] && tb[NEURON_A_NC_EXEC_TIMEOUT] &&
	    tb[NEURON_A_NC_EXEC_CANCELLED]) {
		nc->exec_status[NT_EXEC_OK] = nla_get_u64(tb[NEURON_A_NC_EXEC_OK]);
		nc->exec_status[NT_EXEC_BAD_INPUT] = nla_get_u64(tb[NEURON_A_NC_EXEC_BAD_INPUT]);
		nc->exec_status[NT_EXEC_DEVICE_ERROR] =
			nla_get_u64(tb[NEURON_A_NC_EXEC_DEVICE_ERROR]);
		nc->exec_status[NT_EXEC_TIMEOUT] = nla_get_u64(tb[NEURON_A_NC_EXEC_TIMEOUT]);
		nc->exec_status[NT_EXEC_CANCELLED] = nla_get_u64(tb[NEURON_A_NC_EXEC_CANCELLED]);
		nc->have |= NT_NC_EXEC_STATUS;
	}
	/* Type i + 1: bucket i (usage i); type 0 (padding) and unknown ones skipped. */
	if (nt_get_table(tb[NEURON_A_NC_EXEC_LATENCY], nc->exec_latency, NT_LATENCY_BUCKETS))
		nc->have |= NT_NC_EXEC_LATENCY;
	if (nt_get_table(tb[NEURON_A_NC_EXEC_TOTAL_LATENCY], nc->exec_total_latency,
			 NT_LATENCY_BUCKETS))
		nc->have |= NT_NC_EXEC_TOTAL_LATENCY;
	if (nt_get_table(tb[NEURON_A_NC_MEM_DEVICE_BY_USAGE], nc->mem_dev_usage,
			 NT_MEM_USAGES) &
	    nt_get_table(tb[NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE], nc->mem_dev_usage_peak,
			 NT_MEM_USAGES) &
	    nt_get_table(tb[NEURON_A_NC_MEM_HOST_BY_USAGE], nc->mem_host_usage,
			 NT_MEM_USAGES) &
	    nt_get_table(tb[NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE], nc->mem_host_usage_peak,
			 NT_MEM_USAGES) &
	    !!tb[NEURON_A_NC_MEM_DEVICE_PEAK] & !!tb[NEURON_A_NC_MEM_HOST_PEAK]) {
		nc->mem_dev_peak = nla_get_u64(tb[NEURON_A_NC_MEM_DEVICE_PEAK]);
		nc->mem_host_peak = nla_get_u64(tb[NEURON_A_NC_MEM_HOST_PEAK]);
		nc->have |= NT_NC_MEM_USAGE;
	}
	return 0;
}

static int nt_nc_cb(struct nl_msg *msg, void *arg)
{
	struct nt_dump_state *st = arg;
	struct nlattr *tb[NEURON_A_MAX + 1];
	struct nt_nc nc;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NEURON_A_MAX, nt_policy) < 0 ||
	    nt_parse_nc(tb, &nc))
		return NL_SKIP;
	if (st->n_ncs == st->cap_ncs) {
		unsigned int cap = st->cap_ncs ? 2 * st->cap_ncs : 64;
		struct nt_nc *n = realloc(st->ncs, cap * sizeof(*n));

		if (!n) {
			st->err = -NLE_NOMEM;
			return NL_STOP;
		}
		st->ncs = n;
		st->cap_ncs = cap;
	}
	st->ncs[st->n_ncs++] = nc;
	return NL_OK;
}

/* A request of @cmd with @flags, or NULL (no memory). */
static struct nl_msg *nt_msg(struct nt_ctx *c, uint8_t cmd, int flags)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, c->family, 0, flags, cmd,
				NEURON_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* One dump of @cmd through @cb: 0 or a negative NLE_* code. */
int nt_dump(struct nt_ctx *c, uint8_t cmd, int (*cb)(struct nl_msg *, void *),
	    void *arg)
{
	struct nl_msg *msg;
	struct nl_cb *nlcb;
	int err;

	msg = nt_msg(c, cmd, NLM_F_DUMP);
	if (!msg)
		return -NLE_NOMEM;
	nlcb = nl_cb_clone(nl_socket_get_cb(c->sk));
	if (!nlcb) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, cb, arg);
	err = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs(c->sk, nlcb);
	nl_cb_put(nlcb);
	return err < 0 ? err : 0;
}

/* ---- DEV_FW_GET ---- */

struct nt_fw_state {
	struct nt_fw *fw;
	int kerr;		/* the kernel's errno, positive */
};

static int nt_fw_cb(struct nl_msg *msg, void *arg)
{
	struct nt_fw_state *st = arg;
	struct nlattr *tb[NEURON_A_MAX + 1], *e[NEURON_A_MAX + 1], *a;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int rem;
	uint32_t i;

	if (genlmsg_parse(nlh, 0, tb, NEURON_A_MAX, nt_policy) < 0)
		return NL_SKIP;
	if (tb[NEURON_A_DEV_SERIAL]) {
		st->fw->serial = nla_get_u64(tb[NEURON_A_DEV_SERIAL]);
		st->fw->have_serial = true;
	}
	nla_for_each_attr(a, genlmsg_attrdata(nlmsg_data(nlh), 0),
			  genlmsg_attrlen(nlmsg_data(nlh), 0), rem) {
		if (nla_type(a) != NEURON_A_DEV_ECC ||
		    nla_parse_nested(e, NEURON_A_MAX, a, nt_policy) < 0 ||
		    !e[NEURON_A_ECC_INDEX] || !e[NEURON_A_ECC_CORRECTED] ||
		    !e[NEURON_A_ECC_UNCORRECTED])
			continue;
		i = nla_get_u32(e[NEURON_A_ECC_INDEX]);
		if (i >= NT_ECC_COUNTERS)
			continue;
		st->fw->ecc_corrected[i] = nla_get_u32(e[NEURON_A_ECC_CORRECTED]);
		st->fw->ecc_uncorrected[i] = nla_get_u32(e[NEURON_A_ECC_UNCORRECTED]);
		st->fw->have_ecc |= 1u << i;
	}
	return NL_OK;
}

static int nt_fw_err(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct nt_fw_state *st = arg;

	(void)who;
	st->kerr = -e->error;
	return NL_STOP;
}

int nt_fw_get(struct nt_ctx *c, uint32_t dev, struct nt_fw *fw, int *kerr)
{
	struct nt_fw_state st = { .fw = fw };
	struct nl_msg *msg;
	struct nl_cb *nlcb;
	int err;

	memset(fw, 0, sizeof(*fw));
	*kerr = 0;
	msg = nt_msg(c, NEURON_CMD_DEV_FW_GET, 0);
	if (!msg)
		return -NLE_NOMEM;
	if (nla_put_u32(msg, NEURON_A_DEV_INDEX, dev) < 0) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nlcb = nl_cb_clone(nl_socket_get_cb(c->sk));
	if (!nlcb) {
		nlmsg_free(msg);
		return -NLE_NOMEM;
	}
	nl_cb_set(nlcb, NL_CB_VALID, NL_CB_CUSTOM, nt_fw_cb, &st);
	nl_cb_err(nlcb, NL_CB_CUSTOM, nt_fw_err, &st);
	err = nl_send_auto(c->sk, msg);
	nlmsg_free(msg);
	if (err >= 0)
		err = nl_recvmsgs(c->sk, nlcb);
	/* The answer, then the ack that nl_send_auto() asked for. */
	if (err >= 0 && !st.kerr)
		err = nl_wait_for_ack(c->sk);
	nl_cb_put(nlcb);
	*kerr = st.kerr;
	return err < 0 ? err : 0;
}

static int nt_cmp_dev(const void *a, const void *b)
{
	const struct nt_dev *x = a, *y = b;

	return x->index < y->index ? -1 : x->index > y->index;
}

static int nt_cmp_nc(const void *a, const void *b)
{
	const struct nt_nc *x = a, *y = b;

	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

void nt_snapshot_free(struct nt_snapshot *s)
{
	unsigned int i;

	for (i = 0; i < s->n_devs; i++)
		free(s->devs[i].ncs);
	free(s->devs);
	s->devs = NULL;
	s->n_devs = 0;
}

static int nt_snapshot_try(struct nt_ctx *c, struct nt_snapshot *s, int *err)
{
	struct nt_dump_state st = { .s = s };
	unsigned int i, j, k;

	memset(s, 0, sizeof(*s));
	*err = nt_dump(c, NEURON_CMD_DEV_GET, nt_dev_cb, &st);
	if (!*err && st.err)
		*err = st.err;
	if (*err)
		return -1;
	*err = nt_dump(c, NEURON_CMD_NC_GET, nt_nc_cb, &st);
	if (!*err && st.err)
		*err = st.err;
	if (*err) {
		free(st.ncs);
		return -2;
	}
	qsort(s->devs, s->n_devs, sizeof(*s->devs), nt_cmp_dev);
	if (st.n_ncs)
		qsort(st.ncs, st.n_ncs, sizeof(*st.ncs), nt_cmp_nc);
	/* Join: NCs of a device gone between the two dumps are dropped. */
	for (i = 0, j = 0; i < s->n_devs; i++) {
		struct nt_dev *d = &s->devs[i];

		while (j < st.n_ncs && st.ncs[j].dev < d->index)
			j++;
		for (k = j; k < st.n_ncs && st.ncs[k].dev == d->index; k++)
			;
		if (k > j) {
			d->ncs = malloc((k - j) * sizeof(*d->ncs));
			if (!d->ncs) {
				free(st.ncs);
				*err = -NLE_NOMEM;
				return -2;
			}
			memcpy(d->ncs, &st.ncs[j], (k - j) * sizeof(*d->ncs));
			d->n_ncs = k - j;
		}
		j = k;
	}
	free(st.ncs);
	return 0;
}

int nt_snapshot_get(struct nt_ctx *c, struct nt_snapshot *s)
{
	int tries, ret = 0, err = 0;

	for (tries = 0; tries < NT_DUMP_TRIES; tries++) {
		ret = nt_snapshot_try(c, s, &err);
		if (!ret)
			return NT_EXIT_OK;
		nt_snapshot_free(s);
		if (err != -NLE_DUMP_INTR)
			break;
	}
	nt_report(c->prog, ret == -1 ? "dump of the devices (DEV_GET)" :
		  "dump of the NeuronCores (NC_GET)", err);
	return NT_EXIT_NETLINK;
}

/* ---- names ---- */

const char *nt_nc_state_name(uint32_t state)
{
	switch (state) {
	case NEURON_NC_FREE:		return "free";
	case NEURON_NC_RESERVED:	return "reserved";
	case NEURON_NC_RUNNING:		return "running";
	case NEURON_NC_RESETTING:	return "resetting";
	case NEURON_NC_FAILED:		return "failed";
	}
	return "unknown";
}

const char *nt_event_name(uint32_t type)
{
	switch (type) {
	case NEURON_EVENT_DEV_ADDED:		return "device_added";
	case NEURON_EVENT_DEV_REMOVED:		return "device_removed";
	case NEURON_EVENT_NC_RESERVED:		return "nc_reserved";
	case NEURON_EVENT_NC_RELEASED:		return "nc_released";
	case NEURON_EVENT_NC_RESET:		return "nc_reset";
	case NEURON_EVENT_DMA_FAULT:		return "dma_fault";
	case NEURON_EVENT_EXEC_TIMEOUT:		return "exec_timeout";
	case NEURON_EVENT_NOTIFY_OVERFLOW:	return "notify_overflow";
	case NEURON_EVENT_DEV_LOST:		return "device_lost";
	}
	return "unknown";
}

const char *nt_event_code_name(uint32_t type, uint32_t code)
{
	if (type == NEURON_EVENT_NC_RESET) {
		switch (code) {
		case NEURON_RESET_DMA_ERROR:	return "dma_error";
		case NEURON_RESET_DMA_HANG:	return "dma_hang";
		case NEURON_RESET_EXEC_TIMEOUT:	return "exec_timeout";
		}
	} else if (type == NEURON_EVENT_NOTIFY_OVERFLOW) {
		switch (code) {
		case NEURON_NOTIFY_COMPLETION:	return "completion";
		case NEURON_NOTIFY_EVENT:	return "event";
		case NEURON_NOTIFY_ERROR:	return "error";
		case NEURON_NOTIFY_TRACE:	return "trace";
		}
	}
	return NULL;
}

/* ---- output ---- */

void nt_json_string(FILE *f, const char *s)
{
	const unsigned char *p;

	putc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", f);
			break;
		case '\\':
			fputs("\\\\", f);
			break;
		case '\n':
			fputs("\\n", f);
			break;
		case '\r':
			fputs("\\r", f);
			break;
		case '\t':
			fputs("\\t", f);
			break;
		case '\b':
			fputs("\\b", f);
			break;
		case '\f':
			fputs("\\f", f);
			break;
		default:
			/* Control and non-ASCII bytes: always valid JSON. */
			if (*p < 0x20 || *p >= 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				putc(*p, f);
		}
	}
	putc('"', f);
}

void nt_time_now(char *buf, size_t size)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	snprintf(buf, size, "%lld.%03ld", (long long)ts.tv_sec,
		 ts.tv_nsec / 1000000);
}

bool nt_read_line(const char *path, char *buf, size_t size)
{
	FILE *f = fopen(path, "re");
	bool ok;

	buf[0] = '\0';
	if (!f)
		return false;
	ok = fgets(buf, size, f);
	fclose(f);
	if (!ok) {
		buf[0] = '\0';
		return false;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return true;
}

/*
 * On EC2 the system vendor is "Amazon EC2", the product name the instance
 * type and the board asset tag the instance id ("i-...").
 */
void nt_instance_read(char *type, size_t type_size, char *id, size_t id_size)
{
	char vendor[128];

	type[0] = '\0';
	id[0] = '\0';
	if (!nt_read_line("/sys/devices/virtual/dmi/id/sys_vendor", vendor, sizeof(vendor)) ||
	    strcmp(vendor, "Amazon EC2"))
		return;
	nt_read_line("/sys/devices/virtual/dmi/id/product_name", type, type_size);
	nt_read_line("/sys/devices/virtual/dmi/id/board_asset_tag", id, id_size);
	if (strncmp(id, "i-", 2))
		id[0] = '\0';
}
