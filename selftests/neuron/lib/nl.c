// SPDX-License-Identifier: GPL-2.0
/* Raw generic netlink for the neuron selftests: see neuron_nl.h. */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include "neuron_lib.h"
#include "neuron_nl.h"

void req_init(struct nl_req *r, __u16 type, __u8 cmd, __u16 flags)
{
	memset(r, 0, sizeof(*r));
	r->n.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->n.nlmsg_type = type;
	r->n.nlmsg_flags = NLM_F_REQUEST | flags;
	r->g.cmd = cmd;
	r->g.version = 1;
}

void req_put(struct nl_req *r, __u16 type, const void *data, __u16 len)
{
	struct nlattr *a = (struct nlattr *)((char *)r + NLMSG_ALIGN(r->n.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	r->n.nlmsg_len = NLMSG_ALIGN(r->n.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

void req_put_u32(struct nl_req *r, __u16 type, __u32 v)
{
	req_put(r, type, &v, sizeof(v));
}

/* Split the attributes of @data into @tb (0..@max). */
void attrs_parse(const void *data, int len, const struct nlattr **tb, int max)
{
	const struct nlattr *a = data;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

const void *nla_payload(const struct nlattr *a)
{
	return (const char *)a + NLA_HDRLEN;
}

int nla_plen(const struct nlattr *a)
{
	return a->nla_len - NLA_HDRLEN;
}

__u32 get_u32(const struct nlattr *a)
{
	__u32 v = 0;

	if (a && nla_plen(a) == 4)
		memcpy(&v, nla_payload(a), 4);
	return v;
}

__u64 get_u64(const struct nlattr *a)
{
	__u64 v = 0;

	if (a && nla_plen(a) == 8)
		memcpy(&v, nla_payload(a), 8);
	return v;
}

int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->rx = malloc(NL_BUF);
	if (!nl->rx)
		return -ENOMEM;
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0 || bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one)) ||
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one)))
		return -errno;
	return 0;
}

void nl_close(struct nl *nl)
{
	if (nl->fd > 0)
		close(nl->fd);
	nl->fd = -1;
	free(nl->rx);
	nl->rx = NULL;
}

/* Read one datagram into nl->rx within @ms: its length, or -errno. */
int nl_recv(struct nl *nl, int ms)
{
	struct pollfd p = { .fd = nl->fd, .events = POLLIN };
	ssize_t n;

	if (poll(&p, 1, ms) != 1)
		return -ETIMEDOUT;
	n = recv(nl->fd, nl->rx, NL_BUF, 0);
	return n < 0 ? -errno : (int)n;
}

/*
 * Keep the extack of an error message (NLMSG_ERROR), or of the end of a
 * dump (NLMSG_DONE: an int, then the TLVs).
 */
void nl_extack(struct nl *nl, const struct nlmsghdr *h)
{
	const struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = NLMSG_HDRLEN + sizeof(struct nlmsgerr);
	const struct nlmsgerr *e = NLMSG_DATA(h);

	nl->err_msg[0] = '\0';
	nl->err_miss = false;
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (h->nlmsg_type == NLMSG_DONE)
		off = NLMSG_HDRLEN + sizeof(int);
	else if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if ((int)h->nlmsg_len <= off)
		return;
	attrs_parse((const char *)h + off, h->nlmsg_len - off, tb, NLMSGERR_ATTR_MAX);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->err_msg, sizeof(nl->err_msg), "%.*s",
			 nla_plen(tb[NLMSGERR_ATTR_MSG]),
			 (const char *)nla_payload(tb[NLMSGERR_ATTR_MSG]));
	nl->err_miss = !!tb[NLMSGERR_ATTR_MISS_TYPE];
}

/*
 * Send @r (NLM_F_ACK added) and read the answers up to the ack or the end
 * of the dump, @cb for each message of the family: 0 or the -errno of the
 * error message (its extack kept in @nl).
 */
int nl_xact(struct nl *nl, struct nl_req *r, nl_cb cb, void *arg)
{
	int len, ret;

	r->n.nlmsg_flags |= NLM_F_ACK;
	r->n.nlmsg_seq = ++nl->seq;
	nl->err_msg[0] = '\0';
	nl->err_miss = false;
	if (send(nl->fd, r, r->n.nlmsg_len, 0) < 0)
		return -errno;
	for (;;) {
		struct nlmsghdr *h;

		len = nl_recv(nl, 5000);
		if (len < 0)
			return len;
		for (h = (struct nlmsghdr *)nl->rx; NLMSG_OK(h, (unsigned int)len);
		     h = NLMSG_NEXT(h, len)) {
			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_type == NLMSG_DONE) {
				/* A dump's error is in its NLMSG_DONE. */
				ret = 0;
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)))
					memcpy(&ret, NLMSG_DATA(h), sizeof(int));
				nl_extack(nl, h);
				return ret;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				nl_extack(nl, h);
				/* The ack of a dump comes after NLMSG_DONE. */
				return ret;
			}
			if (cb)
				cb(h, arg);
		}
	}
}

struct family_info {
	__u16 id;
	__u32 events;
	__u32 version;
	__u32 maxattr;
};

static void family_cb(const struct nlmsghdr *h, void *arg)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1], *g[CTRL_ATTR_MCAST_GRP_MAX + 1];
	const struct genlmsghdr *gh = NLMSG_DATA(h);
	struct family_info *fi = arg;
	const struct nlattr *a;
	int len;

	attrs_parse((const char *)gh + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
		    tb, CTRL_ATTR_MAX);
	if (tb[CTRL_ATTR_FAMILY_ID] && nla_plen(tb[CTRL_ATTR_FAMILY_ID]) == 2)
		memcpy(&fi->id, nla_payload(tb[CTRL_ATTR_FAMILY_ID]), 2);
	fi->version = get_u32(tb[CTRL_ATTR_VERSION]);
	fi->maxattr = get_u32(tb[CTRL_ATTR_MAXATTR]);
	if (!tb[CTRL_ATTR_MCAST_GROUPS])
		return;
	a = nla_payload(tb[CTRL_ATTR_MCAST_GROUPS]);
	len = nla_plen(tb[CTRL_ATTR_MCAST_GROUPS]);
	while (len >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= len) {
		attrs_parse(nla_payload(a), nla_plen(a), g, CTRL_ATTR_MCAST_GRP_MAX);
		if (g[CTRL_ATTR_MCAST_GRP_NAME] &&
		    !strcmp(nla_payload(g[CTRL_ATTR_MCAST_GRP_NAME]), NEURON_GENL_MCGRP_EVENTS))
			fi->events = get_u32(g[CTRL_ATTR_MCAST_GRP_ID]);
		len -= NLA_ALIGN(a->nla_len);
		a = (const struct nlattr *)((const char *)a + NLA_ALIGN(a->nla_len));
	}
}

/* Resolve "neuron" through nlctrl: 0 or -errno (-ENOENT: no family). */
int nl_resolve(struct nl *nl)
{
	struct family_info fi = { 0 };
	struct nl_req r;
	int ret;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	req_put(&r, CTRL_ATTR_FAMILY_NAME, NEURON_GENL_NAME, sizeof(NEURON_GENL_NAME));
	ret = nl_xact(nl, &r, family_cb, &fi);
	if (ret)
		return ret;
	if (!fi.id)
		return -ENOENT;
	nl->family = fi.id;
	nl->events = fi.events;
	nl->version = fi.version;
	nl->maxattr = fi.maxattr;
	return 0;
}

/* Open and resolve; with @events, also join the events group. */
int nl_setup(struct nl *nl, bool events)
{
	int ret = nl_open(nl);

	if (!ret)
		ret = nl_resolve(nl);
	if (!ret && events &&
	    setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &nl->events,
		       sizeof(nl->events)))
		ret = -errno;
	return ret;
}

void msg_attrs(const struct nlmsghdr *h, const struct nlattr **tb)
{
	const struct genlmsghdr *gh = NLMSG_DATA(h);

	attrs_parse((const char *)gh + GENL_HDRLEN, h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN),
		    tb, NEURON_A_MAX);
}

/*
 * Wait up to @ms for an event of @type (0: any) about device @dev (and NC
 * @nc unless -1); others are skipped. 0 and *@ev, or -ETIMEDOUT.
 */
int event_wait_ms(struct nl *nl, int ms, __u32 type, __u32 dev, int nc, struct nl_event *ev)
{
	__s64 end = neuron_now_ns() + ms * 1000000LL;
	int i;

	while (neuron_now_ns() < end) {
		int len = nl_recv(nl, (int)((end - neuron_now_ns()) / 1000000) + 1);
		struct nlmsghdr *h;

		if (len < 0)
			return len;
		for (h = (struct nlmsghdr *)nl->rx; NLMSG_OK(h, (unsigned int)len);
		     h = NLMSG_NEXT(h, len)) {
			const struct nlattr *tb[NEURON_A_MAX + 1];
			const struct genlmsghdr *gh = NLMSG_DATA(h);

			if (h->nlmsg_type != nl->family || gh->cmd != NEURON_CMD_EVENT)
				continue;
			msg_attrs(h, tb);
			ev->type = get_u32(tb[NEURON_A_EVENT_TYPE]);
			ev->dev = get_u32(tb[NEURON_A_DEV_INDEX]);
			ev->nc = tb[NEURON_A_NC_INDEX] ? (int)get_u32(tb[NEURON_A_NC_INDEX]) : -1;
			ev->has_code = !!tb[NEURON_A_EVENT_CODE];
			ev->code = get_u32(tb[NEURON_A_EVENT_CODE]);
			ev->others = 0;
			for (i = 1; i <= NEURON_A_MAX; i++)
				ev->others += tb[i] && i != NEURON_A_EVENT_TYPE &&
					      i != NEURON_A_DEV_INDEX && i != NEURON_A_NC_INDEX &&
					      i != NEURON_A_EVENT_CODE;
			if ((!type || ev->type == type) && ev->dev == dev &&
			    (nc < 0 || ev->nc == nc))
				return 0;
		}
	}
	return -ETIMEDOUT;
}

/* event_wait_ms() for EVENT_MS. */
int event_wait(struct nl *nl, __u32 type, __u32 dev, int nc, struct nl_event *ev)
{
	return event_wait_ms(nl, EVENT_MS, type, dev, nc, ev);
}
