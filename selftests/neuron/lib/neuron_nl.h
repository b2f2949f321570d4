/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Raw generic netlink for the neuron selftests (no libnl): the family
 * "neuron" (docs/netlink.md) resolved through nlctrl, requests and their
 * acks with extack, and the "events" group. Used by neuron_netlink (the
 * family's own tests) and neuron_pci_fault (the events of engine faults).
 */
#ifndef NEURON_NL_H
#define NEURON_NL_H

#include <stdbool.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/types.h>

#include "neuron_netlink.h"

/* Receive buffer of a socket. */
#define NL_BUF		65536
/* How long event_wait() waits for an event, in ms. */
#define EVENT_MS	5000

#ifndef SOL_NETLINK
#define SOL_NETLINK	270
#endif

struct nl_req {
	struct nlmsghdr n;
	struct genlmsghdr g;
	char buf[1024];
};

struct nl {
	int fd;
	__u32 seq;
	__u16 family;
	__u32 events;		/* the "events" group id */
	__u32 maxattr;
	__u32 version;
	char err_msg[256];	/* NLMSGERR_ATTR_MSG of the last error */
	bool err_miss;		/* NLMSGERR_ATTR_MISS_TYPE present */
	char *rx;
};

typedef void (*nl_cb)(const struct nlmsghdr *h, void *arg);

/* An event of the "events" group (NEURON_CMD_EVENT). */
struct nl_event {
	__u32 type, dev, code;
	int nc;			/* -1: none */
	bool has_code;
	int others;		/* attributes besides type, device, NC, code */
};

void req_init(struct nl_req *r, __u16 type, __u8 cmd, __u16 flags);
void req_put(struct nl_req *r, __u16 type, const void *data, __u16 len);
void req_put_u32(struct nl_req *r, __u16 type, __u32 v);
void attrs_parse(const void *data, int len, const struct nlattr **tb, int max);
const void *nla_payload(const struct nlattr *a);
int nla_plen(const struct nlattr *a);
__u32 get_u32(const struct nlattr *a);
__u64 get_u64(const struct nlattr *a);
int nl_open(struct nl *nl);
void nl_close(struct nl *nl);
int nl_recv(struct nl *nl, int ms);
void nl_extack(struct nl *nl, const struct nlmsghdr *h);
int nl_xact(struct nl *nl, struct nl_req *r, nl_cb cb, void *arg);
int nl_resolve(struct nl *nl);
int nl_setup(struct nl *nl, bool events);
void msg_attrs(const struct nlmsghdr *h, const struct nlattr **tb);
int event_wait_ms(struct nl *nl, int ms, __u32 type, __u32 dev, int nc, struct nl_event *ev);
int event_wait(struct nl *nl, __u32 type, __u32 dev, int nc, struct nl_event *ev);

#endif /* NEURON_NL_H */
