// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the generic netlink family "neuron" (uapi/neuron_netlink.h,
 * docs/netlink.md). DEV_GET and NC_GET read devices and NeuronCores without
 * opening a device; DEV_FW_GET asks a device's firmware for its serial
 * number and ECC counters; the "events" multicast group tells of devices
 * added and removed, reservations, resets and faults.
 *
 * Nothing here changes state: no operation needs a privilege, and none has
 * GENL_ADMIN_PERM. What could tell one user about another (the pid of a
 * reservation, its executions by status and their latencies) follows the
 * rule of NEURON_QUERY_NC_STATE: only to the same effective uid or to
 * CAP_SYS_ADMIN. No kernel address is ever sent.
 *
 * The family lives in the initial network namespace only (netnsok false):
 * the devices are not per namespace.
 *
 * Locking: the family runs its operations in parallel (parallel_ops), with
 * no lock of its own. A device is found by its minor with a reference taken
 * under the lock of the device table (neuron_device_get_next()), and read
 * while that reference is held: a removed device stays readable until its
 * last reference goes. Per-NC state is read under nc->lock; the counters
 * are atomics read without a lock; the DRAM channels' usage is summed
 * under the device's dram_lock. Events are built and sent in process
 * context, with no spinlock held (GFP_KERNEL).
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pci.h>
#include <linux/pid.h>
#include <net/genetlink.h>
#include <net/netlink.h>

#include <neuron_netlink.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_hw.h"
#include "ndhal/ndhal.h"

/* The longest string attributes, without their NUL. */
#define NEURON_NL_NAME_MAX	(NEURON_NAME_LEN / 2 - 1)
#define NEURON_NL_PCI_ADDR_MAX	31
/* More DRAM channels than any arch has (v3: 4). */
#define NEURON_NL_MAX_CHANNELS	8

/* The one multicast group, index 0 of neuron_nl_mcgrps. */
enum neuron_nl_mcgrp {
	NEURON_NL_MCGRP_EVENTS,
};

static const struct nla_policy neuron_nl_channel_policy[NEURON_A_CHANNEL_USED + 1] = {
	[NEURON_A_CHANNEL_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_NL_MAX_CHANNELS - 1),
	[NEURON_A_CHANNEL_TOTAL] = { .type = NLA_U64 },
	[NEURON_A_CHANNEL_USED] = { .type = NLA_U64 },
};

static const struct nla_policy neuron_nl_ecc_policy[NEURON_A_ECC_UNCORRECTED + 1] = {
	[NEURON_A_ECC_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_ECC_COUNTERS - 1),
	[NEURON_A_ECC_CORRECTED] = NLA_POLICY_MAX(NLA_U32, U16_MAX),
	[NEURON_A_ECC_UNCORRECTED] = NLA_POLICY_MAX(NLA_U32, U16_MAX),
};

/*
 * Every attribute has its type; requests use NEURON_A_DEV_INDEX and
 * NEURON_A_NC_INDEX only, the others are what answers and events carry.
 * Validation is strict (no GENL_DONT_VALIDATE_* flag): an unknown
 * attribute, a wrong length or a value out of range is refused.
 */
static const struct nla_policy neuron_nl_policy[NEURON_A_MAX + 1] = {
	[NEURON_A_DEV_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_MAX_DEVICES - 1),
	[NEURON_A_DEV_ARCH] = NLA_POLICY_RANGE(NLA_U32, NEURON_ARCH_V1, NEURON_ARCH_V3),
	[NEURON_A_DEV_ARCH_NAME] = { .type = NLA_STRING, .len = NEURON_NL_NAME_MAX },
	[NEURON_A_DEV_PRODUCT] = { .type = NLA_STRING, .len = NEURON_NL_NAME_MAX },
	[NEURON_A_DEV_PCI_ADDR] = { .type = NLA_STRING, .len = NEURON_NL_PCI_ADDR_MAX },
	[NEURON_A_DEV_SIM_ID] = { .type = NLA_U32 },
	[NEURON_A_DEV_NC_COUNT] = NLA_POLICY_RANGE(NLA_U32, 1, NEURON_MAX_NC),
	[NEURON_A_DEV_MEM_TOTAL] = { .type = NLA_U64 },
	[NEURON_A_DEV_MEM_USED_DEVICE] = { .type = NLA_U64 },
	[NEURON_A_DEV_MEM_USED_HOST] = { .type = NLA_U64 },
	[NEURON_A_DEV_CHANNEL] = NLA_POLICY_NESTED(neuron_nl_channel_policy),
	[NEURON_A_DEV_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[NEURON_A_NC_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_MAX_NC - 1),
	[NEURON_A_NC_STATE] = NLA_POLICY_MAX(NLA_U32, NEURON_NC_FAILED),
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
	[NEURON_A_EVENT_TYPE] = NLA_POLICY_RANGE(NLA_U32, NEURON_EVENT_DEV_ADDED,
						 NEURON_EVENT_DEV_LOST),
	[NEURON_A_EVENT_CODE] = { .type = NLA_U32 },
	[NEURON_A_CHANNEL_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_NL_MAX_CHANNELS - 1),
	[NEURON_A_CHANNEL_TOTAL] = { .type = NLA_U64 },
	[NEURON_A_CHANNEL_USED] = { .type = NLA_U64 },
	/* Padding of the u64 attributes: never in a request. */
	[NEURON_A_PAD] = { .type = NLA_REJECT },
	[NEURON_A_NC_EXEC_OK] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_BAD_INPUT] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_DEVICE_ERROR] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_TIMEOUT] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_CANCELLED] = { .type = NLA_U64 },
	/* An answer's histograms and tables by usage: never in a request. */
	[NEURON_A_NC_EXEC_LATENCY] = { .type = NLA_REJECT },
	[NEURON_A_NC_MEM_DEVICE_BY_USAGE] = { .type = NLA_REJECT },
	[NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE] = { .type = NLA_REJECT },
	[NEURON_A_NC_MEM_HOST_BY_USAGE] = { .type = NLA_REJECT },
	[NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE] = { .type = NLA_REJECT },
	[NEURON_A_NC_MEM_DEVICE_PEAK] = { .type = NLA_U64 },
	[NEURON_A_NC_MEM_HOST_PEAK] = { .type = NLA_U64 },
	[NEURON_A_NC_EXEC_TOTAL_LATENCY] = { .type = NLA_REJECT },
	[NEURON_A_DEV_SERIAL] = { .type = NLA_U64 },
	[NEURON_A_DEV_ECC] = NLA_POLICY_NESTED(neuron_nl_ecc_policy),
	[NEURON_A_ECC_INDEX] = NLA_POLICY_MAX(NLA_U32, NEURON_ECC_COUNTERS - 1),
	[NEURON_A_ECC_CORRECTED] = NLA_POLICY_MAX(NLA_U32, U16_MAX),
	[NEURON_A_ECC_UNCORRECTED] = NLA_POLICY_MAX(NLA_U32, U16_MAX),
};

/*
 * A snapshot of the reserver's memory on one NC by usage (struct
 * neuron_mem_by_usage), [0] host and [1] device as there.
 */
struct neuron_nl_mem_usage {
	u64 now[2][NEURON_MEM_USAGE_COUNT];
	u64 peak[2][NEURON_MEM_USAGE_COUNT];
	u64 total_peak[2];
};

/* NEURON_A_NC_EXEC_OK.. in the order of the NEURON_EXEC_* statuses. */
static const u16 neuron_nl_exec_status_attr[NEURON_NC_EXEC_STATUSES] = {
	[NEURON_EXEC_OK] = NEURON_A_NC_EXEC_OK,
	[NEURON_EXEC_BAD_INPUT] = NEURON_A_NC_EXEC_BAD_INPUT,
	[NEURON_EXEC_DEVICE_ERROR] = NEURON_A_NC_EXEC_DEVICE_ERROR,
	[NEURON_EXEC_TIMEOUT] = NEURON_A_NC_EXEC_TIMEOUT,
	[NEURON_EXEC_CANCELLED] = NEURON_A_NC_EXEC_CANCELLED,
};

static const struct genl_multicast_group neuron_nl_mcgrps[] = {
	[NEURON_NL_MCGRP_EVENTS] = { .name = NEURON_GENL_MCGRP_EVENTS },
};

static struct genl_family neuron_nl_family;

/* ---- DEV_GET ---- */

static int neuron_nl_put_channels(struct sk_buff *skb, struct neuron_device *nd)
{
	u32 i, channels = min_t(u32, nd->hal->arch->dram_channels,
				NEURON_NL_MAX_CHANNELS);
	u64 used[NEURON_NL_MAX_CHANNELS];
	u64 total = div_u64(nd->dram_size, nd->hal->arch->dram_channels);
	struct nlattr *ch;

	neuron_dram_channel_usage(nd, used, channels);
	for (i = 0; i < channels; i++) {
		ch = nla_nest_start(skb, NEURON_A_DEV_CHANNEL);
		if (!ch)
			return -EMSGSIZE;
		if (nla_put_u32(skb, NEURON_A_CHANNEL_INDEX, i) ||
		    nla_put_u64_64bit(skb, NEURON_A_CHANNEL_TOTAL, total, NEURON_A_PAD) ||
		    nla_put_u64_64bit(skb, NEURON_A_CHANNEL_USED, used[i], NEURON_A_PAD)) {
			nla_nest_cancel(skb, ch);
			return -EMSGSIZE;
		}
		nla_nest_end(skb, ch);
	}
	return 0;
}

/* One DEV_GET answer for @nd (a reference held by the caller). */
static int neuron_nl_fill_dev(struct sk_buff *skb, struct neuron_device *nd,
			      u32 portid, u32 seq, int flags)
{
	const struct ndhal_arch *arch = nd->hal->arch;
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &neuron_nl_family, flags,
			  NEURON_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NEURON_A_DEV_INDEX, nd->minor) ||
	    nla_put_u32(skb, NEURON_A_DEV_ARCH, arch->arch) ||
	    nla_put_string(skb, NEURON_A_DEV_ARCH_NAME, arch->name) ||
	    nla_put_string(skb, NEURON_A_DEV_PRODUCT, nd->product))
		goto cancel;
	if (nd->pdev) {
		if (nla_put_string(skb, NEURON_A_DEV_PCI_ADDR, pci_name(nd->pdev)))
			goto cancel;
	} else if (nla_put_u32(skb, NEURON_A_DEV_SIM_ID, nd->sim_id)) {
		goto cancel;
	}
	if (nla_put_u32(skb, NEURON_A_DEV_NC_COUNT, arch->nc_count) ||
	    nla_put_u64_64bit(skb, NEURON_A_DEV_MEM_TOTAL, nd->dram_size, NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_DEV_MEM_USED_DEVICE,
			      atomic64_read(&nd->usage.device), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_DEV_MEM_USED_HOST,
			      atomic64_read(&nd->usage.host), NEURON_A_PAD) ||
	    neuron_nl_put_channels(skb, nd) ||
	    nla_put_u32(skb, NEURON_A_DEV_STATE, neuron_dev_unplugged(nd) ? 1 : 0))
		goto cancel;
	genlmsg_end(skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * The device a request names, with a reference; NULL and an extack
 * message when there is none.
 */
static struct neuron_device *neuron_nl_dev_of(struct nlattr **attrs,
					      struct netlink_ext_ack *extack)
{
	struct nlattr *a = attrs[NEURON_A_DEV_INDEX];
	unsigned long minor = nla_get_u32(a);
	struct neuron_device *nd = neuron_device_get_next(&minor);

	if (nd && nd->minor == nla_get_u32(a))
		return nd;
	if (nd)
		put_device(&nd->dev);
	NL_SET_ERR_MSG_ATTR(extack, a, "no such neuron device");
	return NULL;
}

/*
 * The device a do names (NEURON_A_DEV_INDEX required), with a reference,
 * or an ERR_PTR and an extack message.
 */
static struct neuron_device *neuron_nl_req_dev(struct genl_info *info)
{
	struct neuron_device *nd;

	if (GENL_REQ_ATTR_CHECK(info, NEURON_A_DEV_INDEX)) {
		GENL_SET_ERR_MSG(info, "NEURON_A_DEV_INDEX is required");
		return ERR_PTR(-EINVAL);
	}
	nd = neuron_nl_dev_of(info->attrs, info->extack);
	return nd ?: ERR_PTR(-ENODEV);
}

static int neuron_nl_dev_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct neuron_device *nd;
	struct sk_buff *msg;
	int ret;

	nd = neuron_nl_req_dev(info);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		put_device(&nd->dev);
		return -ENOMEM;
	}
	ret = neuron_nl_fill_dev(msg, nd, info->snd_portid, info->snd_seq, 0);
	put_device(&nd->dev);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return genlmsg_reply(msg, info);
}

/* cb->args[0]: the minor to go on from. */
static int neuron_nl_dev_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	unsigned long minor = cb->args[0];
	struct neuron_device *nd;
	int ret = 0;

	while ((nd = neuron_device_get_next(&minor))) {
		ret = neuron_nl_fill_dev(skb, nd, NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI);
		put_device(&nd->dev);
		if (ret)
			break;
		minor++;
	}
	cb->args[0] = minor;
	/* Not even one answer fits: an error, else go on in the next skb. */
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/* ---- NC_GET ---- */

/*
 * A nest @type of @n u64: type i + 1 is @v[i] (or @a[i] when @v is NULL);
 * the padding inside is type 0.
 */
static int neuron_nl_put_u64_table(struct sk_buff *skb, int type,
				   const u64 *v, const atomic64_t *a, u32 n)
{
	struct nlattr *nest = nla_nest_start(skb, type);
	u32 i;

	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++)
		if (nla_put_u64_64bit(skb, i + 1, v ? v[i] : atomic64_read(&a[i]), 0)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	nla_nest_end(skb, nest);
	return 0;
}

/* The executions of @nc by status and its latency histograms. */
static int neuron_nl_put_exec_stats(struct sk_buff *skb, struct neuron_nc *nc)
{
	u32 i;

	for (i = 0; i < NEURON_NC_EXEC_STATUSES; i++)
		if (nla_put_u64_64bit(skb, neuron_nl_exec_status_attr[i],
				      atomic64_read(&nc->exec_status[i]), NEURON_A_PAD))
			return -EMSGSIZE;
	if (neuron_nl_put_u64_table(skb, NEURON_A_NC_EXEC_LATENCY, NULL,
				    nc->exec_latency, NEURON_NC_LATENCY_BUCKETS) ||
	    neuron_nl_put_u64_table(skb, NEURON_A_NC_EXEC_TOTAL_LATENCY, NULL,
				    nc->exec_total_latency, NEURON_NC_LATENCY_BUCKETS))
		return -EMSGSIZE;
	return 0;
}

/* Snapshot @nf's memory on NC @nci by usage into @m. */
static void neuron_nl_mem_usage_read(struct neuron_nl_mem_usage *m,
				     struct neuron_file *nf, u32 nci)
{
	const struct neuron_mem_by_usage *u = &nf->by_usage[nci];
	u32 k, i;

	for (k = 0; k < 2; k++) {
		for (i = 0; i < NEURON_MEM_USAGE_COUNT; i++) {
			m->now[k][i] = atomic64_read(&u->now[k][i]);
			m->peak[k][i] = atomic64_read(&u->peak[k][i]);
		}
		m->total_peak[k] = atomic64_read(&u->total_peak[k]);
	}
}

/* The reserver's memory on the NC by usage (a snapshot). */
static int neuron_nl_put_mem_usage(struct sk_buff *skb,
				   const struct neuron_nl_mem_usage *m)
{
	if (neuron_nl_put_u64_table(skb, NEURON_A_NC_MEM_DEVICE_BY_USAGE,
				    m->now[1], NULL, NEURON_MEM_USAGE_COUNT) ||
	    neuron_nl_put_u64_table(skb, NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE,
				    m->peak[1], NULL, NEURON_MEM_USAGE_COUNT) ||
	    neuron_nl_put_u64_table(skb, NEURON_A_NC_MEM_HOST_BY_USAGE,
				    m->now[0], NULL, NEURON_MEM_USAGE_COUNT) ||
	    neuron_nl_put_u64_table(skb, NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE,
				    m->peak[0], NULL, NEURON_MEM_USAGE_COUNT) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_MEM_DEVICE_PEAK, m->total_peak[1],
			      NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_MEM_HOST_PEAK, m->total_peak[0],
			      NEURON_A_PAD))
		return -EMSGSIZE;
	return 0;
}

/* One NC_GET answer for NC @nc of @nd (a reference held by the caller). */
static int neuron_nl_fill_nc(struct sk_buff *skb, struct neuron_device *nd,
			     struct neuron_nc *nc, u32 portid, u32 seq, int flags)
{
	struct neuron_nl_mem_usage mem;
	bool visible, mine = false;
	pid_t pid = 0;
	void *hdr;
	u32 state;

	mutex_lock(&nc->lock);
	state = neuron_nc_state_locked(nc);
	/* The reserver's, or CAP_SYS_ADMIN (of a free NC: only that). */
	visible = nc->owner ? neuron_nc_owner_visible_locked(nc) : capable(CAP_SYS_ADMIN);
	if (nc->owner && visible) {
		pid = neuron_nc_owner_pid_locked(nc);
		/* The owner's structure lives while it is the owner. */
		neuron_nl_mem_usage_read(&mem, nc->owner, nc->index);
		mine = true;
	}
	mutex_unlock(&nc->lock);

	hdr = genlmsg_put(skb, portid, seq, &neuron_nl_family, flags,
			  NEURON_CMD_NC_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NEURON_A_DEV_INDEX, nd->minor) ||
	    nla_put_u32(skb, NEURON_A_NC_INDEX, nc->index) ||
	    nla_put_u32(skb, NEURON_A_NC_STATE, state) ||
	    (pid > 0 && nla_put_u32(skb, NEURON_A_NC_OWNER_PID, pid)) ||
	    nla_put_u32(skb, NEURON_A_NC_MODELS, atomic_read(&nc->models)) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_EXECUTIONS,
			      atomic64_read(&nc->executions), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_EXEC_ERRORS,
			      atomic64_read(&nc->exec_errors), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_BUSY_NS,
			      atomic64_read(&nc->busy_ns), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_DMA_JOBS,
			      atomic64_read(&nc->jobs), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_DMA_ERRORS,
			      atomic64_read(&nc->jobs_failed), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_RESETS,
			      atomic64_read(&nc->resets), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_MEM_DEVICE,
			      atomic64_read(&nc->usage.device), NEURON_A_PAD) ||
	    nla_put_u64_64bit(skb, NEURON_A_NC_MEM_HOST,
			      atomic64_read(&nc->usage.host), NEURON_A_PAD) ||
	    (visible && neuron_nl_put_exec_stats(skb, nc)) ||
	    (mine && neuron_nl_put_mem_usage(skb, &mem))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

static int neuron_nl_nc_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct neuron_device *nd;
	struct sk_buff *msg;
	u32 index;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, NEURON_A_DEV_INDEX) ||
	    GENL_REQ_ATTR_CHECK(info, NEURON_A_NC_INDEX)) {
		GENL_SET_ERR_MSG(info, "NEURON_A_DEV_INDEX and NEURON_A_NC_INDEX are required");
		return -EINVAL;
	}
	nd = neuron_nl_dev_of(info->attrs, info->extack);
	if (!nd)
		return -ENODEV;
	index = nla_get_u32(info->attrs[NEURON_A_NC_INDEX]);
	if (index >= nd->hal->arch->nc_count) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[NEURON_A_NC_INDEX],
				    "NeuronCore index out of range for this device");
		ret = -EINVAL;
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = neuron_nl_fill_nc(msg, nd, neuron_nc_get(nd, index),
				info->snd_portid, info->snd_seq, 0);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	put_device(&nd->dev);
	return genlmsg_reply(msg, info);

out:
	put_device(&nd->dev);
	return ret;
}

/*
 * cb->args[0]: the minor to go on from; cb->args[1]: the NC of that
 * device to go on from; cb->args[2]: set once the device that
 * NEURON_A_DEV_INDEX names was checked. With NEURON_A_DEV_INDEX, that
 * device only.
 */
static int neuron_nl_nc_dumpit(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct nlattr **attrs = neuron_genl_dump_attrs(cb);
	unsigned long minor = cb->args[0];
	u32 nci = cb->args[1];
	struct neuron_device *nd;
	bool one = false;
	int ret = 0;

	if (attrs[NEURON_A_DEV_INDEX]) {
		one = true;
		/* The first call: the device must be there. */
		if (!cb->args[2]) {
			nd = neuron_nl_dev_of(attrs, cb->extack);
			if (!nd)
				return -ENODEV;
			put_device(&nd->dev);
			cb->args[2] = 1;
			minor = nla_get_u32(attrs[NEURON_A_DEV_INDEX]);
		}
	}
	while ((nd = neuron_device_get_next(&minor))) {
		if (one && minor != nla_get_u32(attrs[NEURON_A_DEV_INDEX])) {
			put_device(&nd->dev);
			break;
		}
		for (; nci < nd->hal->arch->nc_count; nci++) {
			ret = neuron_nl_fill_nc(skb, nd, neuron_nc_get(nd, nci),
						NETLINK_CB(cb->skb).portid,
						cb->nlh->nlmsg_seq, NLM_F_MULTI);
			if (ret)
				break;
		}
		put_device(&nd->dev);
		if (ret)
			break;
		nci = 0;
		minor++;
	}
	cb->args[0] = minor;
	cb->args[1] = nci;
	if (ret && !skb->len)
		return ret;
	return skb->len;
}

/*
 * ---- DEV_FW_GET: what the firmware reports ----
 *
 * The firmware is asked first (neuron_hw_fw_info(), which may take
 * pci_mbox_tries seconds when it does not answer), then the answer built:
 * its errno is the request's, with an extack message.
 */

static int neuron_nl_fill_fw(struct sk_buff *skb, struct neuron_device *nd,
			     const struct ndhal_fw_info *fw, u32 portid, u32 seq)
{
	struct nlattr *nest;
	void *hdr;
	u32 i;

	BUILD_BUG_ON(NDHAL_FW_ECC_COUNTERS != NEURON_ECC_COUNTERS);
	hdr = genlmsg_put(skb, portid, seq, &neuron_nl_family, 0, NEURON_CMD_DEV_FW_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, NEURON_A_DEV_INDEX, nd->minor) ||
	    nla_put_u64_64bit(skb, NEURON_A_DEV_SERIAL, fw->serial, NEURON_A_PAD))
		goto cancel;
	for (i = 0; i < NEURON_ECC_COUNTERS; i++) {
		nest = nla_nest_start(skb, NEURON_A_DEV_ECC);
		if (!nest ||
		    nla_put_u32(skb, NEURON_A_ECC_INDEX, i) ||
		    nla_put_u32(skb, NEURON_A_ECC_CORRECTED, fw->ecc[i] >> 16) ||
		    nla_put_u32(skb, NEURON_A_ECC_UNCORRECTED, fw->ecc[i] & 0xffff))
			goto cancel;
		nla_nest_end(skb, nest);
	}
	genlmsg_end(skb, hdr);
	return 0;
cancel:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int neuron_nl_fw_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct ndhal_fw_info fw;
	struct neuron_device *nd;
	struct sk_buff *msg;
	int ret;

	nd = neuron_nl_req_dev(info);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	ret = neuron_hw_fw_info(nd, &fw);
	if (ret) {
		if (ret == -EOPNOTSUPP)
			GENL_SET_ERR_MSG(info, "the device has no firmware to ask");
		else
			GENL_SET_ERR_MSG(info, "the device's firmware did not answer the request");
		goto out;
	}
	msg = genlmsg_new(NLMSG_DEFAULT_SIZE, GFP_KERNEL);
	if (!msg) {
		ret = -ENOMEM;
		goto out;
	}
	ret = neuron_nl_fill_fw(msg, nd, &fw, info->snd_portid, info->snd_seq);
	if (ret) {
		nlmsg_free(msg);
		goto out;
	}
	put_device(&nd->dev);
	return genlmsg_reply(msg, info);
out:
	put_device(&nd->dev);
	return ret;
}

/* ---- the family ---- */

static const struct genl_small_ops neuron_nl_ops[] = {
	{
		.cmd = NEURON_CMD_DEV_GET,
		.doit = neuron_nl_dev_doit,
		.dumpit = neuron_nl_dev_dumpit,
	},
	{
		.cmd = NEURON_CMD_NC_GET,
		.doit = neuron_nl_nc_doit,
		.dumpit = neuron_nl_nc_dumpit,
	},
	{
		.cmd = NEURON_CMD_DEV_FW_GET,
		.doit = neuron_nl_fw_doit,
	},
};

static struct genl_family neuron_nl_family __ro_after_init = {
	.name = NEURON_GENL_NAME,
	.version = NEURON_GENL_VERSION,
	.maxattr = NEURON_A_MAX,
	.policy = neuron_nl_policy,
	.netnsok = false,
	.parallel_ops = true,
	.module = THIS_MODULE,
	.small_ops = neuron_nl_ops,
	.n_small_ops = ARRAY_SIZE(neuron_nl_ops),
	.mcgrps = neuron_nl_mcgrps,
	.n_mcgrps = ARRAY_SIZE(neuron_nl_mcgrps),
};

/* Does the event of @type carry NEURON_A_EVENT_CODE? */
static bool neuron_nl_event_has_code(u32 type)
{
	return type == NEURON_EVENT_NC_RESET || type == NEURON_EVENT_DMA_FAULT ||
	       type == NEURON_EVENT_NOTIFY_OVERFLOW;
}

/**
 * neuron_nl_event() - tell the "events" group of something that happened
 * @nd: the device (a reference held by the caller, or its creator or
 *	remover).
 * @type: NEURON_EVENT_*.
 * @nc: the NeuronCore it is about, or -1 for the device.
 * @code: NEURON_A_EVENT_CODE, for the types that have one.
 *
 * Process context: it may sleep (GFP_KERNEL); never call it under a
 * spinlock or from an interrupt handler. Does nothing when nobody listens.
 * An event that cannot be built or sent is lost (events are a hint; the
 * state is always there to read with DEV_GET and NC_GET).
 */
void neuron_nl_event(struct neuron_device *nd, u32 type, int nc, u32 code)
{
	struct sk_buff *skb;
	void *hdr;

	might_sleep();
	if (!genl_has_listeners(&neuron_nl_family, &init_net, NEURON_NL_MCGRP_EVENTS))
		return;
	skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!skb)
		return;
	hdr = genlmsg_put(skb, 0, 0, &neuron_nl_family, 0, NEURON_CMD_EVENT);
	if (!hdr)
		goto err;
	if (nla_put_u32(skb, NEURON_A_EVENT_TYPE, type) ||
	    nla_put_u32(skb, NEURON_A_DEV_INDEX, nd->minor) ||
	    (nc >= 0 && nla_put_u32(skb, NEURON_A_NC_INDEX, nc)) ||
	    (neuron_nl_event_has_code(type) &&
	     nla_put_u32(skb, NEURON_A_EVENT_CODE, code)))
		goto err;
	genlmsg_end(skb, hdr);
	/* -ESRCH: the last listener just left. */
	genlmsg_multicast(&neuron_nl_family, skb, 0, NEURON_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
	return;

err:
	nlmsg_free(skb);
}

int __init neuron_netlink_init(void)
{
	return genl_register_family(&neuron_nl_family);
}

void neuron_netlink_exit(void)
{
	genl_unregister_family(&neuron_nl_family);
}
