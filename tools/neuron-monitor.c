// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-monitor: follow the "events" multicast group of the generic
 * netlink family "neuron" (uapi/neuron_netlink.h) and print one JSON line
 * per event; with --interval, also a JSON line of statistics per device
 * every N seconds; with --prometheus, print the statistics once in the
 * Prometheus text exposition format (for node_exporter's textfile
 * collector) and exit.
 *
 * Exit status: 0 ok, 1 the neuron module is not loaded, 2 a netlink error
 * (permission denied included), 64 bad usage (docs/man/neuron-monitor.1).
 *
 * Build: make -f tools/Makefile.nl O=dir
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "nl_common.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

/* Prometheus samples too long for one line of code. */
#define FMT_DEV_MEM_USED_DEVICE \
	"neuron_device_memory_used_bytes{device=\"%u\",kind=\"device\"} %llu\n"
#define FMT_DEV_MEM_USED_HOST \
	"neuron_device_memory_used_bytes{device=\"%u\",kind=\"host\"} %llu\n"
#define FMT_CHAN_MEM_TOTAL \
	"neuron_channel_memory_total_bytes{device=\"%u\",channel=\"%u\"} %llu\n"
#define FMT_CHAN_MEM_USED \
	"neuron_channel_memory_used_bytes{device=\"%u\",channel=\"%u\"} %llu\n"

static const char *prog = "neuron-monitor";
static sig_atomic_t stop;	/* set by a signal handler: __atomic accesses */

struct monitor {
	unsigned long count;	/* 0: no limit */
	unsigned long seen;
	bool verbose;
	int err;		/* an exit code set by a callback */
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [--count N] [--interval SECONDS] [--follow] [--verbose]\n"
		"       %s --prometheus\n"
		"Print the events of the neuron driver as JSON lines (generic netlink\n"
		"family 'neuron', multicast group 'events').\n"
		"\n"
		"  -c, --count N          exit after N events\n"
		"  -i, --interval SECS    also print a statistics line per device every SECS\n"
		"  -f, --follow           follow the events even without a terminal\n"
		"  -p, --prometheus       print the statistics once in the Prometheus text\n"
		"                         format and exit\n"
		"  -v, --verbose          say on stderr once subscribed\n"
		"  -h, --help             print this help and exit\n"
		"\n"
		"Without any option, when stdin or stdout is not a terminal, this help is\n"
		"printed and the program exits 0 (use --follow to follow the events then).\n"
		"Exit status: 0 ok, 1 the neuron module is not loaded, 2 netlink error\n"
		"(permission denied included), 64 bad usage.\n", prog, prog);
}

static void on_signal(int sig)
{
	(void)sig;
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
}

/* ---- events ---- */

static int event_cb(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[NEURON_A_MAX + 1];
	struct monitor *m = arg;
	const char *code_name;
	uint32_t type, code;
	char now[32];

	if (gnlh->cmd != NEURON_CMD_EVENT ||
	    genlmsg_parse(nlh, 0, tb, NEURON_A_MAX, nt_neuron_policy()) < 0 ||
	    !tb[NEURON_A_EVENT_TYPE])
		return NL_SKIP;
	if (m->count && m->seen >= m->count)
		return NL_SKIP;
	type = nla_get_u32(tb[NEURON_A_EVENT_TYPE]);
	nt_time_now(now, sizeof(now));
	printf("{\"time\": %s, \"event\": \"%s\", \"type\": %u", now,
	       nt_event_name(type), type);
	if (tb[NEURON_A_DEV_INDEX])
		printf(", \"device\": %u", nla_get_u32(tb[NEURON_A_DEV_INDEX]));
	if (tb[NEURON_A_NC_INDEX])
		printf(", \"nc\": %u", nla_get_u32(tb[NEURON_A_NC_INDEX]));
	if (tb[NEURON_A_EVENT_CODE]) {
		code = nla_get_u32(tb[NEURON_A_EVENT_CODE]);
		printf(", \"code\": %u", code);
		code_name = nt_event_code_name(type, code);
		if (code_name)
			printf(", \"%s\": \"%s\"",
			       type == NEURON_EVENT_NC_RESET ? "reason" : "queue",
			       code_name);
	}
	printf("}\n");
	fflush(stdout);
	m->seen++;
	if (m->count && m->seen >= m->count)
		__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	return NL_OK;
}

/* The event socket, subscribed to the "events" group: 0 or an exit code. */
static int events_open(struct nt_ctx *ev, struct monitor *m)
{
	int ret, grp, err;

	ret = nt_ctx_open(ev, prog);
	if (ret)
		return ret;
	nl_socket_disable_seq_check(ev->sk);
	/* Room for bursts (a reset of every NC of a device). */
	nl_socket_set_buffer_size(ev->sk, 1 << 20, 0);
	grp = genl_ctrl_resolve_grp(ev->sk, NEURON_GENL_NAME, NEURON_GENL_MCGRP_EVENTS);
	if (grp < 0) {
		nt_report(prog, "resolving the multicast group 'events' of 'neuron'", grp);
		return NT_EXIT_NETLINK;
	}
	err = nl_socket_add_membership(ev->sk, grp);
	if (err < 0) {
		if (err == -NLE_PERM)
			fprintf(stderr,
				"%s: permission denied: joining the multicast group 'events' of 'neuron' needs more privileges (run as root or with CAP_NET_ADMIN)\n",
				prog);
		else
			nt_report(prog, "joining the multicast group 'events'", err);
		return NT_EXIT_NETLINK;
	}
	nl_socket_modify_cb(ev->sk, NL_CB_VALID, NL_CB_CUSTOM, event_cb, m);
	if (m->verbose)
		fprintf(stderr, "%s: subscribed to %s/%s\n", prog, NEURON_GENL_NAME,
			NEURON_GENL_MCGRP_EVENTS);
	return 0;
}

/* ---- statistics ---- */

static void json_opt(const char *key, bool have, uint64_t v)
{
	if (have)
		printf(", \"%s\": %llu", key, (unsigned long long)v);
	else
		printf(", \"%s\": null", key);
}

static int print_stats(struct nt_ctx *c)
{
	struct nt_snapshot s;
	unsigned int i, j;
	char now[32];
	int ret;

	ret = nt_snapshot_get(c, &s);
	if (ret)
		return ret;
	nt_time_now(now, sizeof(now));
	for (i = 0; i < s.n_devs; i++) {
		const struct nt_dev *d = &s.devs[i];

		printf("{\"time\": %s, \"event\": \"stats\", \"device\": %u", now, d->index);
		json_opt("memory_total", d->have & NT_DEV_MEM_TOTAL, d->mem_total);
		json_opt("memory_used_device", d->have & NT_DEV_MEM_USED_DEVICE,
			 d->mem_used_device);
		json_opt("memory_used_host", d->have & NT_DEV_MEM_USED_HOST,
			 d->mem_used_host);
		printf(", \"cores\": [");
		for (j = 0; j < d->n_ncs; j++) {
			const struct nt_nc *nc = &d->ncs[j];

			printf("%s{\"nc\": %u, \"state\": \"%s\"", j ? ", " : "", nc->index,
			       nc->have & NT_NC_STATE ? nt_nc_state_name(nc->state) : "unknown");
			json_opt("models", nc->have & NT_NC_MODELS, nc->models);
			json_opt("executions", nc->have & NT_NC_EXECUTIONS, nc->executions);
			json_opt("exec_errors", nc->have & NT_NC_EXEC_ERRORS, nc->exec_errors);
			json_opt("busy_ns", nc->have & NT_NC_BUSY_NS, nc->busy_ns);
			json_opt("dma_jobs", nc->have & NT_NC_DMA_JOBS, nc->dma_jobs);
			json_opt("dma_errors", nc->have & NT_NC_DMA_ERRORS, nc->dma_errors);
			json_opt("resets", nc->have & NT_NC_RESETS, nc->resets);
			json_opt("memory_device", nc->have & NT_NC_MEM_DEVICE, nc->mem_device);
			json_opt("memory_host", nc->have & NT_NC_MEM_HOST, nc->mem_host);
			printf("}");
		}
		printf("]}\n");
	}
	fflush(stdout);
	nt_snapshot_free(&s);
	return 0;
}

/* ---- Prometheus text format ---- */

/* A label value: backslash, double quote and newline escaped. */
static void prom_label(const char *s)
{
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			printf("\\%c", *s);
		else if (*s == '\n')
			printf("\\n");
		else
			putchar(*s);
	}
}

static void prom_head(const char *name, const char *type, const char *help)
{
	printf("# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

enum nc_metric {
	M_STATE, M_MODELS, M_EXECS, M_ERRS, M_BUSY, M_DMA_JOBS, M_DMA_ERRS,
	M_RESETS, M_MEM_DEVICE, M_MEM_HOST,
};

static const struct {
	const char *name, *type, *help;
	uint32_t bit;
	const char *kind;	/* label kind="..." of the memory metrics */
} nc_metrics[] = {
	[M_STATE] = { "neuron_nc_state", "gauge",
		"State of the NeuronCore: 0 free, 1 reserved, 2 running, 3 resetting, 4 failed.",
		NT_NC_STATE, NULL },
	[M_MODELS] = { "neuron_nc_models", "gauge", "Models loaded on the NeuronCore.",
		NT_NC_MODELS, NULL },
	[M_EXECS] = { "neuron_nc_executions_total", "counter",
		"Executions ended on the NeuronCore.", NT_NC_EXECUTIONS, NULL },
	[M_ERRS] = { "neuron_nc_execution_errors_total", "counter",
		"Executions that did not end OK.", NT_NC_EXEC_ERRORS, NULL },
	[M_BUSY] = { "neuron_nc_busy_seconds_total", "counter",
		"Time the NeuronCore spent executing, in seconds.", NT_NC_BUSY_NS, NULL },
	[M_DMA_JOBS] = { "neuron_nc_dma_jobs_total", "counter",
		"DMA jobs submitted through the NeuronCore.", NT_NC_DMA_JOBS, NULL },
	[M_DMA_ERRS] = { "neuron_nc_dma_errors_total", "counter",
		"DMA jobs that failed.", NT_NC_DMA_ERRORS, NULL },
	[M_RESETS] = { "neuron_nc_resets_total", "counter",
		"Resets of the NeuronCore.", NT_NC_RESETS, NULL },
	[M_MEM_DEVICE] = { "neuron_nc_memory_used_bytes", "gauge",
		"Memory charged to the NeuronCore, in bytes.", NT_NC_MEM_DEVICE, "device" },
	[M_MEM_HOST] = { "neuron_nc_memory_used_bytes", "gauge",
		"Memory charged to the NeuronCore, in bytes.", NT_NC_MEM_HOST, "host" },
};

static void prom_nc_value(const struct nt_nc *nc, enum nc_metric m)
{
	switch (m) {
	case M_STATE:
		printf("%u", nc->state);
		break;
	case M_MODELS:
		printf("%u", nc->models);
		break;
	case M_EXECS:
		printf("%llu", (unsigned long long)nc->executions);
		break;
	case M_ERRS:
		printf("%llu", (unsigned long long)nc->exec_errors);
		break;
	case M_BUSY:
		printf("%.9f", nc->busy_ns / 1e9);
		break;
	case M_DMA_JOBS:
		printf("%llu", (unsigned long long)nc->dma_jobs);
		break;
	case M_DMA_ERRS:
		printf("%llu", (unsigned long long)nc->dma_errors);
		break;
	case M_RESETS:
		printf("%llu", (unsigned long long)nc->resets);
		break;
	case M_MEM_DEVICE:
		printf("%llu", (unsigned long long)nc->mem_device);
		break;
	case M_MEM_HOST:
		printf("%llu", (unsigned long long)nc->mem_host);
		break;
	}
}

static int print_prometheus(struct nt_ctx *c)
{
	struct nt_snapshot s;
	unsigned int i, j, m;
	int ret;

	ret = nt_snapshot_get(c, &s);
	if (ret)
		return ret;

	prom_head("neuron_device_info", "gauge",
		  "Neuron device, always 1; its arch, product and location as labels.");
	for (i = 0; i < s.n_devs; i++) {
		const struct nt_dev *d = &s.devs[i];

		printf("neuron_device_info{device=\"%u\",arch=\"", d->index);
		prom_label(d->arch_name);
		printf("\",product=\"");
		prom_label(d->product);
		printf("\",location=\"");
		if (d->have & NT_DEV_PCI)
			prom_label(d->pci_addr);
		else if (d->have & NT_DEV_SIM_ID)
			printf("sim %u", d->sim_id);
		printf("\"} 1\n");
	}
	prom_head("neuron_device_nc_count", "gauge", "NeuronCores of the device.");
	for (i = 0; i < s.n_devs; i++)
		printf("neuron_device_nc_count{device=\"%u\"} %u\n", s.devs[i].index,
		       s.devs[i].nc_count);
	prom_head("neuron_device_memory_total_bytes", "gauge",
		  "Device memory of the device, in bytes.");
	for (i = 0; i < s.n_devs; i++)
		printf("neuron_device_memory_total_bytes{device=\"%u\"} %llu\n",
		       s.devs[i].index, (unsigned long long)s.devs[i].mem_total);
	prom_head("neuron_device_memory_used_bytes", "gauge",
		  "Memory in use for the device, in bytes: device DRAM or host memory.");
	for (i = 0; i < s.n_devs; i++) {
		const struct nt_dev *d = &s.devs[i];

		if (d->have & NT_DEV_MEM_USED_DEVICE)
			printf(FMT_DEV_MEM_USED_DEVICE,
			       d->index, (unsigned long long)d->mem_used_device);
		if (d->have & NT_DEV_MEM_USED_HOST)
			printf(FMT_DEV_MEM_USED_HOST,
			       d->index, (unsigned long long)d->mem_used_host);
	}
	prom_head("neuron_channel_memory_total_bytes", "gauge",
		  "Device memory of one DRAM channel, in bytes.");
	for (i = 0; i < s.n_devs; i++)
		for (j = 0; j < s.devs[i].n_channels; j++)
			printf(FMT_CHAN_MEM_TOTAL,
			       s.devs[i].index, s.devs[i].channels[j].index,
			       (unsigned long long)s.devs[i].channels[j].total);
	prom_head("neuron_channel_memory_used_bytes", "gauge",
		  "Device memory in use in one DRAM channel, in bytes.");
	for (i = 0; i < s.n_devs; i++)
		for (j = 0; j < s.devs[i].n_channels; j++)
			printf(FMT_CHAN_MEM_USED,
			       s.devs[i].index, s.devs[i].channels[j].index,
			       (unsigned long long)s.devs[i].channels[j].used);

	for (m = 0; m < ARRAY_SIZE(nc_metrics); m++) {
		/* One HELP/TYPE per family: the host kind follows the device kind. */
		if (m != M_MEM_HOST)
			prom_head(nc_metrics[m].name, nc_metrics[m].type, nc_metrics[m].help);
		for (i = 0; i < s.n_devs; i++) {
			for (j = 0; j < s.devs[i].n_ncs; j++) {
				const struct nt_nc *nc = &s.devs[i].ncs[j];

				if (!(nc->have & nc_metrics[m].bit))
					continue;
				printf("%s{device=\"%u\",nc=\"%u\"", nc_metrics[m].name,
				       nc->dev, nc->index);
				if (nc_metrics[m].kind)
					printf(",kind=\"%s\"", nc_metrics[m].kind);
				printf("} ");
				prom_nc_value(nc, m);
				printf("\n");
			}
		}
	}
	nt_snapshot_free(&s);
	if (fflush(stdout) || ferror(stdout)) {
		perror(prog);
		return NT_EXIT_NETLINK;
	}
	return 0;
}

/* ---- main ---- */

static bool parse_ulong(const char *s, unsigned long *v)
{
	char *end;

	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	*v = strtoul(s, &end, 10);
	return !errno && !*end && *v > 0;
}

static bool parse_interval(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return !errno && end != s && !*end && isfinite(*v) && *v >= 0.001 && *v <= 86400;
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "%s: ", prog);
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n");
	print_usage(stderr);
	return NT_EXIT_USAGE;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "count", required_argument, NULL, 'c' },
		{ "interval", required_argument, NULL, 'i' },
		{ "follow", no_argument, NULL, 'f' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct monitor m = { 0 };
	bool prometheus = false, follow = false, any = false;
	struct nt_ctx ev = { 0 }, st = { 0 };
	double interval = 0, next = 0;
	struct sigaction sa;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:i:fpvh", opts, NULL)) != -1) {
		any = true;
		switch (opt) {
		case 'c':
			if (!parse_ulong(optarg, &m.count))
				return bad_usage("bad --count '%s': a positive integer", optarg);
			break;
		case 'i':
			if (!parse_interval(optarg, &interval))
				return bad_usage("bad --interval '%s': seconds, 0.001 to 86400",
						 optarg);
			break;
		case 'f':
			follow = true;
			break;
		case 'p':
			prometheus = true;
			break;
		case 'v':
			m.verbose = true;
			break;
		case 'h':
			print_usage(stdout);
			return NT_EXIT_OK;
		case ':':
			return bad_usage("option '%s' needs a value", argv[optind - 1]);
		default:
			return bad_usage("bad option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_usage("unexpected argument '%s'", argv[optind]);
	if (prometheus && (m.count || interval > 0 || follow))
		return bad_usage("%s--prometheus prints once: no --count, --interval or --follow",
				 "");
	if (!any && (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))) {
		/* Run by a script or an init without options: do not block. */
		print_usage(stdout);
		return NT_EXIT_OK;
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (prometheus) {
		ret = nt_ctx_open(&st, prog);
		if (!ret)
			ret = print_prometheus(&st);
		nt_ctx_close(&st);
		return ret;
	}

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: poll() returns EINTR */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	ret = events_open(&ev, &m);
	if (ret)
		goto out;
	if (interval > 0) {
		ret = nt_ctx_open(&st, prog);
		if (ret)
			goto out;
		ret = print_stats(&st);
		if (ret)
			goto out;
		next = mono_now() + interval;
	}
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(ev.sk), .events = POLLIN };
		int timeout = -1, n;

		if (interval > 0) {
			double left = next - mono_now();

			if (left <= 0) {
				ret = print_stats(&st);
				if (ret)
					goto out;
				next += interval;
				if (next < mono_now())
					next = mono_now() + interval;
				continue;
			}
			timeout = (int)ceil(left * 1000);
		}
		n = poll(&pfd, 1, timeout);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			perror(prog);
			ret = NT_EXIT_NETLINK;
			goto out;
		}
		if (n == 0)
			continue;
		n = nl_recvmsgs_default(ev.sk);
		if (n == -NLE_NOMEM) {
			/* ENOBUFS: the socket overflowed, events were lost. */
			char now[32];

			nt_time_now(now, sizeof(now));
			printf("{\"time\": %s, \"event\": \"overrun\"}\n", now);
			continue;
		}
		if (n < 0 && n != -NLE_AGAIN && n != -NLE_INTR) {
			nt_report(prog, "receiving events", n);
			ret = NT_EXIT_NETLINK;
			goto out;
		}
	}
	ret = NT_EXIT_OK;
out:
	nt_ctx_close(&ev);
	nt_ctx_close(&st);
	return ret;
}
