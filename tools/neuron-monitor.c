// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-monitor: follow the "events" multicast group of the generic
 * netlink family "neuron" (uapi/neuron_netlink.h) and print one JSON line
 * per event; with --interval, also a JSON line of statistics per device
 * every N seconds; with --prometheus, one report of the vendor's stream
 * in the metric names of the vendor's Prometheus exporter; with
 * --prometheus-native, our statistics once in the Prometheus text
 * exposition format (for node_exporter's textfile collector).
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
#include <regex.h>
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
static int monitor_verbose;	/* --verbose N: 0 to 4, messages on stderr */

struct monitor {
	unsigned long count;	/* 0: no limit */
	unsigned long seen;
	bool verbose;
	int err;		/* an exit code set by a callback */
};

static double mono_now(void);

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-c|--config-file FILE] [--verbose N]\n"
		"       %s --events [--count N] [--interval SECONDS] [--verbose N]\n"
		"       %s --prometheus [-c FILE]\n"
		"       %s --prometheus-native\n"
		"Report on the neuron devices and the processes using them (generic\n"
		"netlink family 'neuron').\n"
		"\n"
		"By default: the vendor's report stream, one JSON document per line, every\n"
		"5 s or as the config file says (docs/compat.md).\n"
		"  -c, --config-file FILE  the vendor's config file (period, neuron_runtimes,\n"
		"                          system_metrics)\n"
		"      --verbose N         messages on stderr, 0 (none) to 4\n"
		"Our event stream:\n"
		"  -e, --events            print the events of the driver as JSON lines\n"
		"  -n, --count N           exit after N events (implies --events)\n"
		"  -i, --interval SECS     also print a statistics line per device every SECS\n"
		"                          (implies --events)\n"
		"  -f, --follow            the same as --events\n"
		"  -p, --prometheus        print one report (a period after the start) as the\n"
		"                          vendor's Prometheus exporter names it, and exit\n"
		"Ours:\n"
		"      --prometheus-native print our statistics of every device and NeuronCore\n"
		"                          once in the Prometheus text format and exit\n"
		"  -h, --help              print this help and exit\n"
		"\n"
		"Exit status: 0 ok, 1 the neuron driver is not loaded, 2 netlink error\n"
		"(permission denied included), 64 bad usage or a bad config file.\n",
		prog, prog, prog, prog);
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

/* ---- the vendor's report stream (docs/compat.md) ---- */

/* The metric groups of the vendor's config file and report. */
enum group {
	G_NC_COUNTERS, G_MEMORY_USED, G_RT_VCPU, G_EXEC_STATS,	/* per application */
	G_VCPU, G_MEMORY_INFO, G_HW_COUNTERS,			/* system */
	N_GROUPS,
};

static const char *const group_names[N_GROUPS] = {
	[G_NC_COUNTERS] = "neuroncore_counters", [G_MEMORY_USED] = "memory_used",
	[G_RT_VCPU] = "neuron_runtime_vcpu_usage", [G_EXEC_STATS] = "execution_stats",
	[G_VCPU] = "vcpu_usage", [G_MEMORY_INFO] = "memory_info",
	[G_HW_COUNTERS] = "neuron_hw_counters",
};

#define MAX_RUNTIMES	16

struct rt_conf {
	bool has_filter;
	regex_t filter;
	double period[N_GROUPS];	/* 0: not collected */
};

struct vconf {
	unsigned int n_rt;
	struct rt_conf rt[MAX_RUNTIMES];
	double sys_period[N_GROUPS];	/* system groups; 0: not collected */
};

/* A small JSON reader for the config file. */
enum cj_type { CJ_NULL, CJ_BOOL, CJ_NUM, CJ_STR, CJ_ARR, CJ_OBJ };

struct cj {
	enum cj_type type;
	double num;
	char *str, *key;
	struct cj *child, *next;
};

static void cj_free(struct cj *v)
{
	while (v) {
		struct cj *n = v->next;

		cj_free(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = n;
	}
}

static void cj_ws(const char **p)
{
	while (**p == ' ' || **p == '\t' || **p == '\n' || **p == '\r')
		(*p)++;
}

static char *cj_string(const char **p)
{
	const char *q = *p + 1;
	unsigned int u;
	size_t len = 0;
	char *s;

	if (**p != '"')
		return NULL;
	/* Room for the string as written: its value is not longer. */
	while (*q && *q != '"')
		q += *q == '\\' && q[1] ? 2 : 1;
	s = malloc(q - *p);
	if (!s)
		return NULL;
	for ((*p)++; **p && **p != '"'; (*p)++) {
		char c = **p;

		if ((unsigned char)c < 0x20)
			goto bad;
		if (c == '\\') {
			(*p)++;
			switch (**p) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case '"':
			case '\\':
			case '/':
				c = **p;
				break;
			case 'u':
				/* Ours escape single bytes only (nt_json_string()). */
				if (sscanf(*p + 1, "%4x", &u) != 1 || u < 1 || u > 0xff)
					goto bad;
				c = (char)u;
				*p += 4;
				break;
			default:
				goto bad;
			}
		}
		s[len++] = c;
	}
	if (**p != '"')
		goto bad;
	(*p)++;
	s[len] = '\0';
	return s;
bad:
	free(s);
	return NULL;
}

static struct cj *cj_value(const char **p, int depth)
{
	struct cj *v = calloc(1, sizeof(*v)), **tail;
	char *end;

	if (!v || depth > 32)
		goto bad;
	cj_ws(p);
	if (**p == '{' || **p == '[') {
		char close = **p == '{' ? '}' : ']';

		v->type = **p == '{' ? CJ_OBJ : CJ_ARR;
		(*p)++;
		cj_ws(p);
		tail = &v->child;
		if (**p == close) {
			(*p)++;
			return v;
		}
		for (;;) {
			char *key = NULL;
			struct cj *e;

			if (v->type == CJ_OBJ) {
				cj_ws(p);
				key = cj_string(p);
				cj_ws(p);
				if (!key || **p != ':') {
					free(key);
					goto bad;
				}
				(*p)++;
			}
			e = cj_value(p, depth + 1);
			if (!e) {
				free(key);
				goto bad;
			}
			e->key = key;
			*tail = e;
			tail = &e->next;
			cj_ws(p);
			if (**p == ',') {
				(*p)++;
				continue;
			}
			if (**p != close)
				goto bad;
			(*p)++;
			return v;
		}
	}
	if (**p == '"') {
		v->type = CJ_STR;
		v->str = cj_string(p);
		if (!v->str)
			goto bad;
		return v;
	}
	if (!strncmp(*p, "true", 4) || !strncmp(*p, "null", 4)) {
		v->type = **p == 't' ? CJ_BOOL : CJ_NULL;
		*p += 4;
		return v;
	}
	if (!strncmp(*p, "false", 5)) {
		v->type = CJ_BOOL;
		*p += 5;
		return v;
	}
	v->type = CJ_NUM;
	v->num = strtod(*p, &end);
	if (end == *p)
		goto bad;
	*p = end;
	return v;
bad:
	cj_free(v);
	return NULL;
}

static const struct cj *cj_get(const struct cj *o, const char *key)
{
	const struct cj *e;

	for (e = o && o->type == CJ_OBJ ? o->child : NULL; e; e = e->next)
		if (!strcmp(e->key, key))
			return e;
	return NULL;
}

/* A duration as Go writes it ("5s", "1.5s", "500ms", "1m"): seconds or -1. */
static double parse_duration(const char *s)
{
	static const struct { const char *unit; double secs; } units[] = {
		{ "ns", 0.000000001 }, { "us", 0.000001 }, { "ms", 0.001 }, { "s", 1 },
		{ "m", 60 }, { "h", 3600 },
	};
	double total = 0;
	char *end;

	if (!*s)
		return -1;
	while (*s) {
		double v;
		unsigned int k;

		errno = 0;
		v = strtod(s, &end);
		if (errno || end == s || v < 0 || *s == '-' || *s == '+')
			return -1;
		s = end;
		for (k = 0; k < ARRAY_SIZE(units); k++) {
			size_t n = strlen(units[k].unit);

			if (!strncmp(s, units[k].unit, n) &&
			    !(n == 1 && s[0] == 'm' && s[1] == 's')) {
				total += v * units[k].secs;
				s += n;
				break;
			}
		}
		if (k == ARRAY_SIZE(units))
			return -1;
	}
	return total;
}

/* The "period" of @o, else @dflt; -1 and a message when malformed. */
static double conf_period(const struct cj *o, double dflt, const char *file)
{
	const struct cj *p = cj_get(o, "period");
	double v;

	if (!p)
		return dflt;
	v = p->type == CJ_STR ? parse_duration(p->str) : -1;
	if (v < 0.001 || v > 86400) {
		fprintf(stderr, "%s: %s: bad period (a duration such as \"5s\", 1ms to 24h)\n",
			prog, file);
		return -1;
	}
	return v;
}

static int group_index(const char *name, int first, int last)
{
	int g;

	for (g = first; g <= last; g++)
		if (!strcmp(name, group_names[g]))
			return g;
	return -1;
}

/* The groups of @arr ([{"type": ..., "period"?}]) into @period: 0 or -1. */
static int conf_metrics(const struct cj *arr, double dflt, int first, int last,
			double *period, const char *file)
{
	const struct cj *m;

	if (!arr)
		return 0;
	if (arr->type != CJ_ARR)
		goto bad;
	for (m = arr->child; m; m = m->next) {
		const struct cj *t = cj_get(m, "type");
		double p;
		int g;

		if (!t || t->type != CJ_STR)
			goto bad;
		g = group_index(t->str, first, last);
		if (g < 0) {
			/* Groups of other versions of the format: not collected. */
			if (monitor_verbose >= 1)
				fprintf(stderr, "%s: %s: metric type '%s' not supported, ignored\n",
					prog, file, t->str);
			continue;
		}
		p = conf_period(m, dflt, file);
		if (p < 0)
			return -1;
		period[g] = p;
	}
	return 0;
bad:
	fprintf(stderr, "%s: %s: a metrics array is a list of {\"type\": NAME}\n", prog, file);
	return -1;
}

static void conf_default(struct vconf *c)
{
	int g;

	memset(c, 0, sizeof(*c));
	c->n_rt = 1;
	for (g = G_NC_COUNTERS; g <= G_EXEC_STATS; g++)
		c->rt[0].period[g] = 5;
	for (g = G_VCPU; g <= G_HW_COUNTERS; g++)
		c->sys_period[g] = 5;
}

/* Read the vendor's config file @file into @c: 0, or an exit code. */
static int conf_load(struct vconf *c, const char *file)
{
	const struct cj *rts, *r;
	struct cj *root = NULL;
	const char *p;
	double dflt;
	char *text;
	long size;
	FILE *f;

	memset(c, 0, sizeof(*c));
	f = fopen(file, "re");
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, file, strerror(errno));
		return NT_EXIT_USAGE;
	}
	text = NULL;
	size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (size >= 0 && size < (1 << 20) && fseek(f, 0, SEEK_SET) == 0) {
		text = calloc(1, size + 1);
		if (text && fread(text, 1, size, f) != (size_t)size) {
			free(text);
			text = NULL;
		}
	}
	fclose(f);
	if (!text) {
		fprintf(stderr, "%s: %s: cannot read it (at most 1 MiB)\n", prog, file);
		return NT_EXIT_USAGE;
	}
	p = text;
	root = cj_value(&p, 0);
	if (root)
		cj_ws(&p);
	if (!root || *p || root->type != CJ_OBJ) {
		fprintf(stderr, "%s: %s: not a JSON object\n", prog, file);
		goto bad;
	}
	dflt = conf_period(root, 5, file);
	if (dflt < 0)
		goto bad;
	rts = cj_get(root, "neuron_runtimes");
	if (rts && rts->type != CJ_ARR) {
		fprintf(stderr, "%s: %s: neuron_runtimes is an array\n", prog, file);
		goto bad;
	}
	for (r = rts ? rts->child : NULL; r; r = r->next) {
		const struct cj *tf = cj_get(r, "tag_filter");
		struct rt_conf *rc;
		double rp;

		if (c->n_rt == MAX_RUNTIMES) {
			fprintf(stderr, "%s: %s: more than %d neuron_runtimes\n", prog, file,
				MAX_RUNTIMES);
			goto bad;
		}
		rc = &c->rt[c->n_rt++];
		if (tf && tf->type == CJ_STR && tf->str[0]) {
			if (regcomp(&rc->filter, tf->str, REG_EXTENDED | REG_NOSUB)) {
				fprintf(stderr, "%s: %s: bad tag_filter '%s'\n", prog, file,
					tf->str);
				c->n_rt--;
				goto bad;
			}
			rc->has_filter = true;
		}
		rp = conf_period(r, dflt, file);
		if (rp < 0 || conf_metrics(cj_get(r, "metrics"), rp, G_NC_COUNTERS,
					   G_EXEC_STATS, rc->period, file))
			goto bad;
	}
	if (conf_metrics(cj_get(root, "system_metrics"), dflt, G_VCPU, G_HW_COUNTERS,
			 c->sys_period, file))
		goto bad;
	cj_free(root);
	free(text);
	return 0;
bad:
	cj_free(root);
	free(text);
	return NT_EXIT_USAGE;
}

static void conf_free(struct vconf *c)
{
	unsigned int i;

	for (i = 0; i < c->n_rt; i++)
		if (c->rt[i].has_filter)
			regfree(&c->rt[i].filter);
}

/* ---- what the report is made of ---- */

#define MAX_PROCS	256
#define MAX_NCS		1024
#define TAG_LEN		256

struct nc_prev {
	bool valid;
	uint64_t busy_ns, executions, exec_errors;
};

/* An NC's executions by status and latency histogram at a baseline. */
struct exec_prev {
	bool valid, total_valid;
	uint64_t status[NT_EXEC_STATUSES];
	uint64_t latency[NT_LATENCY_BUCKETS];
	uint64_t total_latency[NT_LATENCY_BUCKETS];
};

struct proc_prev {
	uint32_t pid;
	bool seen;			/* in this report */
	double last[N_GROUPS];		/* monotonic time of its last group report */
	uint64_t cpu_ticks[2];		/* utime, stime at the last vcpu report */
	struct nc_prev nc[MAX_NCS];	/* at its last report of a group */
	struct nc_prev exec_nc[MAX_NCS];
	struct exec_prev exec_detail[MAX_NCS];
};

struct vstate {
	struct vconf conf;
	double sys_last[N_GROUPS];
	/* /proc/stat at the last vcpu_usage report: cpu lines */
	unsigned int n_cpu;
	uint64_t (*cpu_prev)[8];	/* [0]: "cpu" (all), then cpu0.. */
	bool cpu_valid;
	uint64_t ctxt_prev;
	unsigned int n_procs;
	struct proc_prev *procs[MAX_PROCS];
	char instance_type[128], instance_id[128];
	long ticks;			/* sysconf(_SC_CLK_TCK) */
	double tick;			/* the wake-up period: the smallest one */
};

/* NEURON_PROCESS_TAG of @pid (if we may read its environment), else its pid. */
static void proc_tag(uint32_t pid, char *tag, size_t size)
{
	static const char key[] = "NEURON_PROCESS_TAG=";
	char path[64], *buf, *p;
	size_t n;
	FILE *f;

	snprintf(tag, size, "%u", pid);
	snprintf(path, sizeof(path), "/proc/%u/environ", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	buf = malloc(1 << 17);
	if (!buf) {
		fclose(f);
		return;
	}
	n = fread(buf, 1, (1 << 17) - 1, f);
	fclose(f);
	buf[n] = '\0';
	for (p = buf; p < buf + n; p += strlen(p) + 1)
		if (!strncmp(p, key, sizeof(key) - 1)) {
			snprintf(tag, size, "%.255s", p + sizeof(key) - 1);
			break;
		}
	free(buf);
}

/* utime and stime of @pid (ticks), and its start (ticks after boot). */
static bool proc_cpu(uint32_t pid, uint64_t *utime, uint64_t *stime, uint64_t *start)
{
	char path[64], buf[1024], *p;
	unsigned long long u, s, st;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	f = fopen(path, "re");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* after the command, which may hold anything */
	if (!p || sscanf(p + 1,
			 " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d %*d %*d %llu",
			 &u, &s, &st) != 3)
		return false;
	*utime = u;
	*stime = s;
	*start = st;
	return true;
}

static double uptime_secs(void)
{
	char buf[64];

	return nt_read_line("/proc/uptime", buf, sizeof(buf)) ? strtod(buf, NULL) : 0;
}

static struct proc_prev *proc_find(struct vstate *v, uint32_t pid, bool add)
{
	unsigned int i;

	for (i = 0; i < v->n_procs; i++)
		if (v->procs[i]->pid == pid)
			return v->procs[i];
	if (!add || v->n_procs == MAX_PROCS)
		return NULL;
	v->procs[v->n_procs] = calloc(1, sizeof(struct proc_prev));
	if (!v->procs[v->n_procs])
		return NULL;
	v->procs[v->n_procs]->pid = pid;
	return v->procs[v->n_procs++];
}

/* Forget the processes not in the last report (their pid may come back). */
static void procs_prune(struct vstate *v)
{
	unsigned int i, k = 0;

	for (i = 0; i < v->n_procs; i++) {
		if (v->procs[i]->seen) {
			v->procs[i]->seen = false;
			v->procs[k++] = v->procs[i];
		} else {
			free(v->procs[i]);
		}
	}
	v->n_procs = k;
}

/*
 * Is a group of @period, last reported at @last, due at @now? A report
 * late by up to half a wake-up period still counts as on time, so that a
 * late wake-up does not push every later report of the group one period
 * away (a slow machine would skip the group in every other report).
 */
static bool due(const struct vstate *v, double last, double period, double now)
{
	return period > 0 && (last == 0 || now - last >= period - v->tick / 2);
}

/* ,"KEY":@value for each of @keys; without the first comma if @first. */
static void json_keys(const char *const *keys, unsigned int n, const char *value, bool first)
{
	unsigned int k;

	for (k = 0; k < n; k++)
		printf("%s\"%s\":%s", first && !k ? "" : ",", keys[k], value);
}

/* A group object's header: { "period": SECS, "error": "" ... */
static void group_open(const char *name, double period, bool *first)
{
	printf("%s\"%s\":{\"period\":%.6f,\"error\":\"\"", *first ? "" : ",", name, period);
	*first = false;
}

/* The global NeuronCore index of NC @j of device @i (as neuron-ls numbers them). */
static unsigned int global_nc(const struct nt_snapshot *s, unsigned int i, unsigned int j)
{
	unsigned int k, base = 0;

	for (k = 0; k < i; k++)
		base += s->devs[k].nc_count;
	return base + s->devs[i].ncs[j].index;
}

static bool owns(const struct nt_nc *nc, uint32_t pid)
{
	return (nc->have & NT_NC_OWNER_PID) && nc->owner_pid == pid;
}

static void report_nc_counters(const struct nt_snapshot *s, struct proc_prev *pp,
			       double period)
{
	unsigned int i, j, n = 0;

	printf(",\"neuroncores_in_use\":{");
	for (i = 0; i < s->n_devs; i++)
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];
			unsigned int g = global_nc(s, i, j);
			double util = 0;

			if (!owns(nc, pp->pid) || g >= MAX_NCS)
				continue;
			if (pp->nc[g].valid && period > 0 && nc->busy_ns >= pp->nc[g].busy_ns)
				util = (nc->busy_ns - pp->nc[g].busy_ns) / (period * 1e7);
			if (util > 100)
				util = 100;
			pp->nc[g] = (struct nc_prev){ true, nc->busy_ns, nc->executions,
						      nc->exec_errors };
			/* flops: the device counts none; the format wants a number. */
			printf("%s\"%u\":{\"neuroncore_utilization\":%.4f,\"flops\":0}",
			       n++ ? "," : "", g, util);
		}
	printf("}");
}

/*
 * The vendor's breakdown keys and the NEURON_MEM_USAGE_* each reports
 * (docs/compat.md): host memory of the process, device memory per NC.
 */
static const struct mem_key {
	const char *key;
	unsigned int usage;
} host_keys[] = {
	{ "application_memory", NEURON_MEM_USAGE_APPLICATION },
	{ "constants", NEURON_MEM_USAGE_CONSTANTS },
	{ "dma_buffers", NEURON_MEM_USAGE_DMA_BUFFERS },
	{ "tensors", NEURON_MEM_USAGE_TENSORS },
}, nc_keys[] = {
	{ "constants", NEURON_MEM_USAGE_CONSTANTS },
	{ "model_code", NEURON_MEM_USAGE_MODEL_CODE },
	{ "model_shared_scratchpad", NEURON_MEM_USAGE_SCRATCHPAD },
	{ "runtime_memory", NEURON_MEM_USAGE_RUNTIME },
	{ "tensors", NEURON_MEM_USAGE_TENSORS },
};

/* "key":bytes for each of @keys from @by (NULL: 0, the driver did not say). */
static void json_mem_keys(const struct mem_key *keys, unsigned int n, const uint64_t *by)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		printf("%s\"%s\":%llu", i ? "," : "", keys[i].key,
		       by ? (unsigned long long)by[keys[i].usage] : 0ULL);
}

static void report_memory_used(const struct nt_snapshot *s, uint32_t pid)
{
	uint64_t host = 0, device = 0, host_by[NT_MEM_USAGES] = { 0 };
	unsigned int i, j, k, n = 0;

	for (i = 0; i < s->n_devs; i++)
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];

			if (!owns(nc, pid))
				continue;
			host += nc->mem_host;
			device += nc->mem_device;
			if (nc->have & NT_NC_MEM_USAGE)
				for (k = 0; k < NT_MEM_USAGES; k++)
					host_by[k] += nc->mem_host_usage[k];
		}
	printf(",\"neuron_runtime_used_bytes\":{\"host\":%llu,\"neuron_device\":%llu",
	       (unsigned long long)host, (unsigned long long)device);
	/*
	 * By what MEM_ALLOC said the memory is for (NEURON_A_NC_MEM_*_BY_USAGE):
	 * the host's summed over the process's NCs, the device's per NC; 0
	 * from a kernel that does not tell.
	 */
	printf(",\"usage_breakdown\":{\"host\":{");
	json_mem_keys(host_keys, ARRAY_SIZE(host_keys), host_by);
	printf("},\"neuroncore_memory_usage\":{");
	for (i = 0; i < s->n_devs; i++)
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];

			if (!owns(nc, pid))
				continue;
			printf("%s\"%u\":{", n++ ? "," : "", global_nc(s, i, j));
			json_mem_keys(nc_keys, ARRAY_SIZE(nc_keys),
				      nc->have & NT_NC_MEM_USAGE ? nc->mem_dev_usage : NULL);
			printf("}");
		}
	printf("}}},\"loaded_models\":[]");
}

static void report_rt_vcpu(struct vstate *v, struct proc_prev *pp, double period)
{
	uint64_t ut = 0, st = 0, start = 0, du, ds;
	double secs = period, user = 0, sys = 0;

	if (proc_cpu(pp->pid, &ut, &st, &start)) {
		if (pp->last[G_RT_VCPU] == 0) {
			/* First sight: the average since the process started. */
			secs = uptime_secs() - (double)start / v->ticks;
			pp->cpu_ticks[0] = 0;
			pp->cpu_ticks[1] = 0;
		}
		du = ut >= pp->cpu_ticks[0] ? ut - pp->cpu_ticks[0] : 0;
		ds = st >= pp->cpu_ticks[1] ? st - pp->cpu_ticks[1] : 0;
		if (secs > 0) {
			user = 100.0 * du / v->ticks / secs;
			sys = 100.0 * ds / v->ticks / secs;
		}
		pp->cpu_ticks[0] = ut;
		pp->cpu_ticks[1] = st;
	}
	printf(",\"vcpu_usage\":{\"user\":%.2f,\"system\":%.2f}", user, sys);
}

/* The baseline of @nc's executions by status and latencies, if it has them. */
static void exec_detail_set(struct exec_prev *e, const struct nt_nc *nc)
{
	e->valid = (nc->have & NT_NC_EXEC_STATUS) && (nc->have & NT_NC_EXEC_LATENCY);
	e->total_valid = nc->have & NT_NC_EXEC_TOTAL_LATENCY;
	memcpy(e->status, nc->exec_status, sizeof(e->status));
	memcpy(e->latency, nc->exec_latency, sizeof(e->latency));
	memcpy(e->total_latency, nc->exec_total_latency, sizeof(e->total_latency));
}

/*
 * The percentile @q (0 to 1) of the latencies counted in @h (bucket i:
 * 2^i to 2^(i+1) - 1 ns), @n of them, in seconds: the rank's place in its
 * bucket, as if the bucket's latencies were evenly spread (an estimate
 * within a factor of 2).
 */
static double hist_percentile(const uint64_t *h, uint64_t n, double q)
{
	double rank = q * (n - 1), lo = 0, hi = 1;
	uint64_t cum = 0;
	unsigned int i;

	for (i = 0; i < NT_LATENCY_BUCKETS; i++) {
		if (!h[i])
			continue;
		lo = i ? ldexp(1, i) : 0;
		hi = ldexp(1, i + 1);
		if (rank < cum + h[i])
			return (lo + (hi - lo) * (rank - cum + 0.5) / h[i]) / 1e9;
		cum += h[i];
	}
	return hi / 1e9;
}

/* The latency object of the vendor's format from histogram @h, or null. */
static void print_latency(const uint64_t *h)
{
	static const struct { const char *key; double q; } pct[] = {
		{ "p0", 0 }, { "p1", 0.01 }, { "p25", 0.25 }, { "p50", 0.5 },
		{ "p75", 0.75 }, { "p99", 0.99 }, { "p100", 1 },
	};
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < NT_LATENCY_BUCKETS; i++)
		n += h[i];
	if (!n) {
		printf("null");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(pct); i++)
		printf("%s\"%s\":%.9g", i ? "," : "{", pct[i].key, hist_percentile(h, n, pct[i].q));
	printf("}");
}

static void report_exec_stats(const struct nt_snapshot *s, struct proc_prev *pp)
{
	static const char *const zero_kinds[] = { "numerical", "model", "runtime" };
	uint64_t execs = 0, errs = 0, st[NT_EXEC_STATUSES] = { 0 }, lat[NT_LATENCY_BUCKETS] = { 0 };
	uint64_t tot[NT_LATENCY_BUCKETS] = { 0 };
	bool detail = true, total = true;
	unsigned int i, j, k;

	for (i = 0; i < s->n_devs; i++)
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];
			unsigned int g = global_nc(s, i, j);
			struct exec_prev *e = &pp->exec_detail[g];

			if (!owns(nc, pp->pid) || g >= MAX_NCS)
				continue;
			/* Counted from the first sight of the NC in the process's hands. */
			if (pp->exec_nc[g].valid) {
				execs += nc->executions - pp->exec_nc[g].executions;
				errs += nc->exec_errors - pp->exec_nc[g].exec_errors;
			}
			if (e->valid && (nc->have & NT_NC_EXEC_STATUS) &&
			    (nc->have & NT_NC_EXEC_LATENCY)) {
				for (k = 0; k < NT_EXEC_STATUSES; k++)
					st[k] += nc->exec_status[k] - e->status[k];
				for (k = 0; k < NT_LATENCY_BUCKETS; k++)
					lat[k] += nc->exec_latency[k] - e->latency[k];
			} else if (pp->exec_nc[g].valid) {
				detail = false;
			}
			if (e->total_valid && (nc->have & NT_NC_EXEC_TOTAL_LATENCY)) {
				for (k = 0; k < NT_LATENCY_BUCKETS; k++)
					tot[k] += nc->exec_total_latency[k] - e->total_latency[k];
			} else if (pp->exec_nc[g].valid) {
				total = false;
			}
			pp->exec_nc[g] = (struct nc_prev){ true, nc->busy_ns, nc->executions,
							   nc->exec_errors };
			exec_detail_set(e, nc);
		}
	if (errs > execs)
		errs = execs;
	if (!detail) {
		/*
		 * A kernel without the counts by status: an execution ended
		 * well or not, all errors are "generic"; no latency.
		 */
		memset(st, 0, sizeof(st));
		memset(lat, 0, sizeof(lat));
		st[NT_EXEC_OK] = execs - errs;
		st[NT_EXEC_DEVICE_ERROR] = errs;
	}
	/* A kernel without the submission-to-end histogram: no total latency. */
	if (!total)
		memset(tot, 0, sizeof(tot));
	/*
	 * The kinds (docs/compat.md): a bad input is generic, a cancelled
	 * execution transient (it runs when submitted again), a device error
	 * or a timeout (the NC was reset) hardware.
	 */
	printf(",\"error_summary\":{\"generic\":%llu",
	       (unsigned long long)(detail ? st[NT_EXEC_BAD_INPUT] : errs));
	json_keys(zero_kinds, ARRAY_SIZE(zero_kinds), "0", false);
	printf(",\"transient\":%llu,\"hardware\":%llu}",
	       (unsigned long long)st[NT_EXEC_CANCELLED],
	       (unsigned long long)(detail ? st[NT_EXEC_DEVICE_ERROR] + st[NT_EXEC_TIMEOUT] : 0));
	printf(",\"execution_summary\":{\"completed\":%llu", (unsigned long long)st[NT_EXEC_OK]);
	printf(",\"completed_with_err\":%llu",
	       (unsigned long long)(st[NT_EXEC_DEVICE_ERROR] + st[NT_EXEC_CANCELLED]));
	printf(",\"completed_with_num_err\":0,\"timed_out\":%llu",
	       (unsigned long long)st[NT_EXEC_TIMEOUT]);
	printf(",\"incorrect_input\":%llu,\"failed_to_queue\":0}",
	       (unsigned long long)st[NT_EXEC_BAD_INPUT]);
	/* From submission to end, and the time on the core. */
	printf(",\"latency_stats\":{\"total_latency\":");
	print_latency(tot);
	printf(",\"device_latency\":");
	print_latency(lat);
	printf("}");
}

static const struct rt_conf *rt_match(const struct vconf *c, const char *tag)
{
	unsigned int i;

	for (i = 0; i < c->n_rt; i++)
		if (!c->rt[i].has_filter || !regexec(&c->rt[i].filter, tag, 0, NULL, 0))
			return &c->rt[i];
	return NULL;
}

static void report_runtimes(struct vstate *v, const struct nt_snapshot *s, double now)
{
	uint32_t pids[MAX_PROCS];
	unsigned int i, j, k, n = 0, out = 0;

	for (i = 0; i < s->n_devs; i++)
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];

			if (!(nc->have & NT_NC_OWNER_PID) || !nc->owner_pid)
				continue;
			for (k = 0; k < n && pids[k] != nc->owner_pid; k++)
				;
			if (k == n && n < MAX_PROCS)
				pids[n++] = nc->owner_pid;
		}
	printf("\"neuron_runtime_data\":[");
	for (k = 0; k < n; k++) {
		const struct rt_conf *rc;
		struct proc_prev *pp;
		char tag[TAG_LEN + 1];
		bool first = true;
		int g;

		proc_tag(pids[k], tag, sizeof(tag));
		rc = rt_match(&v->conf, tag);
		pp = proc_find(v, pids[k], true);
		if (!rc || !pp)
			continue;
		pp->seen = true;
		printf("%s{\"pid\":%u,\"address\":\"\",\"neuron_runtime_tag\":", out++ ? "," : "",
		       pids[k]);
		nt_json_string(stdout, tag);
		printf(",\"error\":\"\",\"report\":{");
		for (g = G_NC_COUNTERS; g <= G_EXEC_STATS; g++) {
			double period;

			if (!due(v, pp->last[g], rc->period[g], now))
				continue;
			period = pp->last[g] ? now - pp->last[g] : rc->period[g];
			group_open(group_names[g], period, &first);
			switch (g) {
			case G_NC_COUNTERS:
				report_nc_counters(s, pp, pp->last[g] ? period : 0);
				break;
			case G_MEMORY_USED:
				report_memory_used(s, pp->pid);
				break;
			case G_RT_VCPU:
				report_rt_vcpu(v, pp, period);
				break;
			case G_EXEC_STATS:
				report_exec_stats(s, pp);
				break;
			}
			printf("}");
			pp->last[g] = now;
		}
		printf("}}");
	}
	printf("]");
	procs_prune(v);
}

/* /proc/stat: the cpu lines (user nice system idle iowait irq softirq steal). */
static unsigned int read_cpu_stat(uint64_t (*cpu)[8], unsigned int max, uint64_t *ctxt)
{
	char line[512];
	unsigned int n = 0;
	FILE *f = fopen("/proc/stat", "re");

	*ctxt = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long a[8] = { 0 };

		if (!strncmp(line, "cpu", 3) && n < max) {
			char *p = line + 3;

			while (*p && *p != ' ')
				p++;
			if (sscanf(p, "%llu %llu %llu %llu %llu %llu %llu %llu", &a[0], &a[1],
				   &a[2], &a[3], &a[4], &a[5], &a[6], &a[7]) >= 4) {
				unsigned int k;

				for (k = 0; k < 8; k++)
					cpu[n][k] = a[k];
				n++;
			}
		} else if (!strncmp(line, "ctxt ", 5)) {
			*ctxt = strtoull(line + 5, NULL, 10);
		}
	}
	fclose(f);
	return n;
}

static void print_cpu_usage(const uint64_t *now, const uint64_t *prev)
{
	static const char *const keys[] = {
		"user", "nice", "system", "idle", "io_wait", "irq", "soft_irq",
	};
	uint64_t d[8], total = 0;
	unsigned int k;

	for (k = 0; k < 8; k++) {
		d[k] = now[k] >= prev[k] ? now[k] - prev[k] : 0;
		total += d[k];
	}
	printf("{");
	for (k = 0; k < ARRAY_SIZE(keys); k++)
		printf("%s\"%s\":%.2f", k ? "," : "", keys[k], total ? 100.0 * d[k] / total : 0);
	printf("}");
}

static void report_vcpu(struct vstate *v)
{
	uint64_t (*cpu)[8] = calloc(v->n_cpu, sizeof(*cpu)), ctxt;
	static const uint64_t zero[8];
	unsigned int n, k;

	if (!cpu) {
		printf(",\"average_usage\":{},\"usage_data\":{},\"context_switch_count\":0");
		return;
	}
	n = read_cpu_stat(cpu, v->n_cpu, &ctxt);
	printf(",\"average_usage\":");
	print_cpu_usage(n ? cpu[0] : zero, v->cpu_valid ? v->cpu_prev[0] : zero);
	printf(",\"usage_data\":{");
	for (k = 1; k < n; k++) {
		printf("%s\"%u\":", k > 1 ? "," : "", k - 1);
		print_cpu_usage(cpu[k], v->cpu_valid ? v->cpu_prev[k] : zero);
	}
	printf("},\"context_switch_count\":%llu",
	       (unsigned long long)(v->cpu_valid && ctxt >= v->ctxt_prev ?
				    ctxt - v->ctxt_prev : ctxt));
	memcpy(v->cpu_prev, cpu, n * sizeof(*cpu));
	v->ctxt_prev = ctxt;
	v->cpu_valid = true;
	free(cpu);
}

static void report_memory_info(void)
{
	unsigned long long total = 0, avail = 0, swap_total = 0, swap_free = 0, v;
	char line[256], key[64];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%63[^:]: %llu", key, &v) != 2)
			continue;
		if (!strcmp(key, "MemTotal"))
			total = v * 1024;
		else if (!strcmp(key, "MemAvailable"))
			avail = v * 1024;
		else if (!strcmp(key, "SwapTotal"))
			swap_total = v * 1024;
		else if (!strcmp(key, "SwapFree"))
			swap_free = v * 1024;
	}
	if (f)
		fclose(f);
	printf(",\"memory_total_bytes\":%llu", total);
	printf(",\"memory_used_bytes\":%llu", total - (avail < total ? avail : total));
	printf(",\"swap_total_bytes\":%llu", swap_total);
	printf(",\"swap_used_bytes\":%llu",
	       swap_total - (swap_free < swap_total ? swap_free : swap_total));
}

static void report_hw_counters(const struct nt_snapshot *s)
{
	static const char *const ecc[] = {
		"mem_ecc_corrected", "mem_ecc_uncorrected", "sram_ecc_uncorrected",
		"sram_ecc_corrected",
	};
	unsigned int i;

	/* The devices count no ECC events: zero, as the format wants numbers. */
	printf(",\"neuron_devices\":[");
	for (i = 0; i < s->n_devs; i++) {
		printf("%s{\"neuron_device_index\":%u", i ? "," : "", s->devs[i].index);
		json_keys(ecc, ARRAY_SIZE(ecc), "0", false);
		printf("}");
	}
	printf("]");
}

/* The vendor's device type name of a product, "" when it has none. */
static const char *device_type(const struct nt_dev *d)
{
	static const struct { const char *product, *type; } names[] = {
		{ "inf1", "inferentia" }, { "inf2", "inferentia2" },
		{ "trn1", "trainium" }, { "trn2", "trainium2" },
	};
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(names); k++)
		if (!strcmp(d->product, names[k].product))
			return names[k].type;
	return "";
}

static void report_hardware_info(const struct nt_snapshot *s)
{
	const struct nt_dev *d = s->n_devs ? &s->devs[0] : NULL;

	printf(",\"neuron_hardware_info\":{\"neuron_device_type\":");
	nt_json_string(stdout, d ? device_type(d) : "");
	printf(",\"neuron_device_version\":");
	nt_json_string(stdout, d ? d->arch_name : "");
	printf(",\"neuroncore_version\":");
	nt_json_string(stdout, d ? d->arch_name : "");
	printf(",\"neuron_device_count\":%u", s->n_devs);
	printf(",\"neuron_device_memory_size\":%llu", d ? (unsigned long long)d->mem_total : 0ULL);
	printf(",\"neuroncore_per_device_count\":%u", d ? d->nc_count : 0);
	printf(",\"logical_neuroncore_config\":1,\"error\":\"\"}");
}

static void report_instance_info(const struct vstate *v)
{
	static const char *const metadata[] = {
		"instance_availability_zone", "instance_availability_zone_id",
		"instance_region", "ami_id", "subnet_id", "error",
	};

	printf(",\"instance_info\":{\"instance_name\":\"\",\"instance_id\":");
	nt_json_string(stdout, v->instance_id);
	printf(",\"instance_type\":");
	nt_json_string(stdout, v->instance_type);
	/* What only the EC2 metadata service tells: not asked, empty. */
	json_keys(metadata, ARRAY_SIZE(metadata), "\"\"", false);
	printf("}");
}

/* One report: one JSON document on one line. 0 or an exit code. */
static int vendor_report(struct nt_ctx *c, struct vstate *v, double now)
{
	struct nt_snapshot s;
	bool first = true;
	int g, ret;

	ret = nt_snapshot_get(c, &s);
	if (ret)
		return ret;
	printf("{");
	report_runtimes(v, &s, now);
	printf(",\"system_data\":{");
	for (g = G_VCPU; g <= G_HW_COUNTERS; g++) {
		if (!due(v, v->sys_last[g], v->conf.sys_period[g], now))
			continue;
		group_open(group_names[g],
			   v->sys_last[g] ? now - v->sys_last[g] : v->conf.sys_period[g], &first);
		if (g == G_VCPU)
			report_vcpu(v);
		else if (g == G_MEMORY_INFO)
			report_memory_info();
		else
			report_hw_counters(&s);
		printf("}");
		v->sys_last[g] = now;
	}
	printf("}");
	report_instance_info(v);
	report_hardware_info(&s);
	printf("}\n");
	nt_snapshot_free(&s);
	if (fflush(stdout) || ferror(stdout))
		return NT_EXIT_NETLINK;
	return 0;
}

/* ---- the vendor exporter's Prometheus names (docs/compat.md) ---- */

/*
 * --prometheus turns one report of the stream into the metric families of
 * the vendor's companion exporter (neuron-monitor-prometheus.py): the same
 * names, types and labels, read from the report as that exporter reads it.
 */

/* One metric family: its header goes before its first sample only. */
struct prom_fam {
	const char *name, *type, *help;
	bool typed;
};

#define PROM_FAM(n, t, h)	{ .name = (n), .type = (t), .help = (h) }

static void prom_value(double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		printf(" %.0f\n", v);
	else
		printf(" %.9g\n", v);
}

/*
 * Start a sample of @f: name{instance labels[,runtime_tag]; the caller
 * adds its own labels, then prom_end().
 */
static void prom_start(struct prom_fam *f, const struct cj *inst, const char *tag)
{
	/* The exporter's instance labels and the report keys they come from. */
	static const char *const labels[][2] = {
		{ "instance_name", "instance_name" }, { "instance_id", "instance_id" },
		{ "instance_type", "instance_type" },
		{ "availability_zone", "instance_availability_zone" },
		{ "region", "instance_region" }, { "subnet_id", "subnet_id" },
	};
	unsigned int k;

	if (!f->typed)
		prom_head(f->name, f->type, f->help);
	f->typed = true;
	printf("%s{", f->name);
	for (k = 0; k < ARRAY_SIZE(labels); k++) {
		const struct cj *v = cj_get(inst, labels[k][1]);

		printf("%s%s=\"", k ? "," : "", labels[k][0]);
		prom_label(v && v->type == CJ_STR ? v->str : "");
		printf("\"");
	}
	if (tag) {
		printf(",runtime_tag=\"");
		prom_label(tag);
		printf("\"");
	}
}

/* ,@key="@val"} VALUE */
static void prom_end(const char *key, const char *val, double v)
{
	if (key) {
		printf(",%s=\"", key);
		prom_label(val);
		printf("\"");
	}
	printf("}");
	prom_value(v);
}

static double cj_num(const struct cj *o, const char *key)
{
	const struct cj *v = cj_get(o, key);

	return v && v->type == CJ_NUM ? v->num : 0;
}

/* A group of a report, NULL when absent or in error (the exporter skips it). */
static const struct cj *prom_group(const struct cj *report, const char *name)
{
	const struct cj *g = cj_get(report, name), *err = cj_get(g, "error");

	if (!g || (err && (err->type != CJ_STR || err->str[0])))
		return NULL;
	return g;
}

enum prom_rt_fam {
	P_UTIL, P_RT_VCPU, P_RT_MEM, P_NC_MEM, P_EXEC_ERR = P_NC_MEM + ARRAY_SIZE(nc_keys),
	P_EXEC_STATUS, P_LATENCY, N_PROM_RT,
};

/* The families of the runtimes' groups: each over every runtime in turn. */
static void prom_runtimes(const struct cj *doc, const struct cj *inst)
{
	static struct prom_fam fams[N_PROM_RT] = {
		[P_UTIL] = PROM_FAM("neuroncore_utilization_ratio", "gauge",
			     "NeuronCore utilization ratio"),
		[P_RT_VCPU] = PROM_FAM("neuron_runtime_vcpu_usage_ratio", "gauge",
				"Runtime vCPU utilization ratio"),
		[P_RT_MEM] = PROM_FAM("neuron_runtime_memory_used_bytes", "gauge",
			       "Runtime memory used bytes"),
		/* One per key of neuroncore_memory_usage, in nc_keys' order. */
		[P_NC_MEM] = PROM_FAM("neuroncore_memory_usage_constants", "gauge",
			       "NeuronCore memory used for constants, bytes"),
		[P_NC_MEM + 1] = PROM_FAM("neuroncore_memory_usage_model_code", "gauge",
				   "NeuronCore memory used for model code, bytes"),
		[P_NC_MEM + 2] = PROM_FAM("neuroncore_memory_usage_model_shared_scratchpad",
				   "gauge", "NeuronCore memory used for shared scratchpad, bytes"),
		[P_NC_MEM + 3] = PROM_FAM("neuroncore_memory_usage_runtime_memory", "gauge",
				   "NeuronCore memory used by the runtime, bytes"),
		[P_NC_MEM + 4] = PROM_FAM("neuroncore_memory_usage_tensors", "gauge",
				   "NeuronCore memory used for tensors, bytes"),
		[P_EXEC_ERR] = PROM_FAM("execution_errors_total", "counter",
					"Execution errors total"),
		[P_EXEC_STATUS] = PROM_FAM("execution_status_total", "counter",
				    "Execution status total"),
		[P_LATENCY] = PROM_FAM("execution_latency_seconds", "gauge",
				"Execution latency in seconds"),
	};
	static const char *const usage[] = { "user", "system" };
	static const char *const mem[] = { "host", "neuron_device" };
	const struct cj *rts = cj_get(doc, "neuron_runtime_data"), *rt, *g, *e;
	unsigned int f, k;

	for (f = 0; f < N_PROM_RT; f++) {
		for (rt = rts ? rts->child : NULL; rt; rt = rt->next) {
			const struct cj *tag = cj_get(rt, "neuron_runtime_tag");
			const struct cj *rep = cj_get(rt, "report");
			const char *t = tag && tag->type == CJ_STR ? tag->str : "";

			switch (f) {
			case P_UTIL:
				g = cj_get(prom_group(rep, "neuroncore_counters"),
					   "neuroncores_in_use");
				for (e = g ? g->child : NULL; e; e = e->next) {
					prom_start(&fams[f], inst, t);
					prom_end("neuroncore", e->key,
						 cj_num(e, "neuroncore_utilization") / 100);
				}
				break;
			case P_RT_VCPU:
				g = cj_get(prom_group(rep, "neuron_runtime_vcpu_usage"),
					   "vcpu_usage");
				for (k = 0; g && k < ARRAY_SIZE(usage); k++) {
					prom_start(&fams[f], inst, t);
					prom_end("usage_type", usage[k], cj_num(g, usage[k]) / 100);
				}
				break;
			case P_RT_MEM:
				g = cj_get(prom_group(rep, "memory_used"),
					   "neuron_runtime_used_bytes");
				for (k = 0; g && k < ARRAY_SIZE(mem); k++) {
					prom_start(&fams[f], inst, t);
					prom_end("memory_location", mem[k], cj_num(g, mem[k]));
				}
				break;
			case P_NC_MEM ... P_NC_MEM + ARRAY_SIZE(nc_keys) - 1:
				g = cj_get(cj_get(cj_get(prom_group(rep, "memory_used"),
							 "neuron_runtime_used_bytes"),
						  "usage_breakdown"), "neuroncore_memory_usage");
				for (e = g ? g->child : NULL; e; e = e->next) {
					prom_start(&fams[f], inst, t);
					prom_end("neuroncore", e->key,
						 cj_num(e, nc_keys[f - P_NC_MEM].key));
				}
				break;
			case P_EXEC_ERR:
			case P_EXEC_STATUS:
			case P_LATENCY:
				g = prom_group(rep, "execution_stats");
				g = f == P_EXEC_ERR ? cj_get(g, "error_summary") :
				    f == P_EXEC_STATUS ? cj_get(g, "execution_summary") :
				    cj_get(cj_get(g, "latency_stats"), "total_latency");
				/* A latency only when something ran (else null). */
				for (e = g && g->type == CJ_OBJ ? g->child : NULL; e; e = e->next) {
					prom_start(&fams[f], inst, t);
					prom_end(f == P_EXEC_ERR ? "error_type" :
						 f == P_EXEC_STATUS ? "status_type" : "percentile",
						 e->key, e->type == CJ_NUM ? e->num : 0);
				}
				break;
			}
		}
	}
	for (f = 0; f < N_PROM_RT; f++)
		fams[f].typed = false;
}

/* The families of the system groups and the two info metrics. */
static void prom_system(const struct cj *doc, const struct cj *inst)
{
	static const char *const ecc[] = {
		"mem_ecc_corrected", "mem_ecc_uncorrected", "sram_ecc_corrected",
		"sram_ecc_uncorrected",
	};
	static const char *const meminfo[][2] = {
		{ "system_memory_total_bytes", "memory_total_bytes" },
		{ "system_memory_used_bytes", "memory_used_bytes" },
		{ "system_swap_total_bytes", "swap_total_bytes" },
		{ "system_swap_used_bytes", "swap_used_bytes" },
	};
	const struct cj *sd = cj_get(doc, "system_data"), *g, *e, *hw;
	struct prom_fam fam = PROM_FAM("hardware_ecc_events_total", "counter",
				"Hardware ecc events total");
	char help[64], idx[16];
	unsigned int k, n;

	g = cj_get(prom_group(sd, "neuron_hw_counters"), "neuron_devices");
	for (e = g ? g->child : NULL; e; e = e->next)
		for (k = 0; k < ARRAY_SIZE(ecc); k++) {
			snprintf(idx, sizeof(idx), "%.0f", cj_num(e, "neuron_device_index"));
			prom_start(&fam, inst, NULL);
			printf(",event_type=\"%s\"", ecc[k]);
			prom_end("neuron_device_index", idx, cj_num(e, ecc[k]));
		}
	g = prom_group(sd, "vcpu_usage");
	if (g) {
		const struct cj *avg = cj_get(g, "average_usage");
		double user, sys;

		e = cj_get(g, "usage_data");
		for (n = 0, e = e ? e->child : NULL; e; e = e->next)
			n++;
		fam = (struct prom_fam)PROM_FAM("system_vcpu_count", "gauge", "System vCPU count");
		prom_start(&fam, inst, NULL);
		prom_end(NULL, NULL, n);
		/* The exporter's sums: user+nice, system+io_wait+irq+soft_irq. */
		user = cj_num(avg, "user") + cj_num(avg, "nice");
		sys = cj_num(avg, "system") + cj_num(avg, "io_wait") + cj_num(avg, "irq") +
		      cj_num(avg, "soft_irq");
		fam = (struct prom_fam)PROM_FAM("system_vcpu_usage_ratio", "gauge",
					 "System CPU utilization ratio");
		prom_start(&fam, inst, NULL);
		prom_end("usage_type", "user", (user < 100 ? user : 100) / 100);
		prom_start(&fam, inst, NULL);
		prom_end("usage_type", "system", (sys < 100 ? sys : 100) / 100);
	}
	g = prom_group(sd, "memory_info");
	for (k = 0; g && k < ARRAY_SIZE(meminfo); k++) {
		snprintf(help, sizeof(help), "System %s bytes", meminfo[k][1]);
		fam = (struct prom_fam)PROM_FAM(meminfo[k][0], "gauge", help);
		prom_start(&fam, inst, NULL);
		prom_end(NULL, NULL, cj_num(g, meminfo[k][1]));
	}
	fam = (struct prom_fam)PROM_FAM("instance_info", "gauge", "EC2 instance information");
	prom_start(&fam, inst, NULL);
	prom_end(NULL, NULL, 1);
	hw = cj_get(doc, "neuron_hardware_info");
	if (hw) {
		fam = (struct prom_fam)PROM_FAM("neuron_hardware_info", "gauge",
					 "Neuron Hardware Information");
		prom_start(&fam, inst, NULL);
		printf(",neuron_device_count=\"%.0f\"", cj_num(hw, "neuron_device_count"));
		snprintf(idx, sizeof(idx), "%.0f", cj_num(hw, "neuroncore_per_device_count"));
		prom_end("neuroncore_per_device_count", idx, 1);
	}
}

/*
 * One report in the exporter's Prometheus text: the report is printed
 * into memory (glibc's stdout is a variable), read back and converted.
 */
static int prom_report(struct nt_ctx *c, struct vstate *v, double now)
{
	FILE *out = stdout, *mem;
	struct cj *doc = NULL;
	char *buf = NULL;
	size_t len = 0;
	const char *p;
	int ret;

	mem = open_memstream(&buf, &len);
	if (!mem)
		return NT_EXIT_NETLINK;
	stdout = mem;
	ret = vendor_report(c, v, now);
	stdout = out;
	if (fclose(mem) && !ret)
		ret = NT_EXIT_NETLINK;
	p = buf;
	if (!ret) {
		doc = cj_value(&p, 0);
		if (!doc) {
			fprintf(stderr, "%s: cannot read back the report\n", prog);
			ret = NT_EXIT_NETLINK;
		}
	}
	if (doc) {
		prom_runtimes(doc, cj_get(doc, "instance_info"));
		prom_system(doc, cj_get(doc, "instance_info"));
	}
	cj_free(doc);
	free(buf);
	if (!ret && (fflush(stdout) || ferror(stdout))) {
		perror(prog);
		ret = NT_EXIT_NETLINK;
	}
	return ret;
}

/*
 * Baselines of the processes holding NCs at start: their counters count
 * from now, their groups are due a period from now.
 */
static int seed_procs(struct nt_ctx *c, struct vstate *v, double now)
{
	struct nt_snapshot s;
	unsigned int i, j;
	int ret, g;

	ret = nt_snapshot_get(c, &s);
	if (ret)
		return ret;
	for (i = 0; i < s.n_devs; i++)
		for (j = 0; j < s.devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s.devs[i].ncs[j];
			unsigned int gi = global_nc(&s, i, j);
			uint64_t ut, st, start;
			const struct rt_conf *rc;
			struct proc_prev *pp;
			char tag[TAG_LEN + 1];

			if (!(nc->have & NT_NC_OWNER_PID) || !nc->owner_pid || gi >= MAX_NCS)
				continue;
			proc_tag(nc->owner_pid, tag, sizeof(tag));
			rc = rt_match(&v->conf, tag);
			pp = proc_find(v, nc->owner_pid, true);
			if (!rc || !pp)
				continue;
			pp->seen = true;
			pp->nc[gi] = (struct nc_prev){ true, nc->busy_ns, nc->executions,
						       nc->exec_errors };
			pp->exec_nc[gi] = pp->nc[gi];
			exec_detail_set(&pp->exec_detail[gi], nc);
			if (proc_cpu(nc->owner_pid, &ut, &st, &start)) {
				pp->cpu_ticks[0] = ut;
				pp->cpu_ticks[1] = st;
			}
			for (g = G_NC_COUNTERS; g <= G_EXEC_STATS; g++)
				if (rc->period[g] > 0)
					pp->last[g] = now;
		}
	nt_snapshot_free(&s);
	return 0;
}

/* The smallest period of the config: how often to wake. */
static double conf_tick(const struct vconf *c)
{
	double t = 0;
	unsigned int i;
	int g;

	for (g = 0; g < N_GROUPS; g++) {
		if (c->sys_period[g] > 0 && (!t || c->sys_period[g] < t))
			t = c->sys_period[g];
		for (i = 0; i < c->n_rt; i++)
			if (c->rt[i].period[g] > 0 && (!t || c->rt[i].period[g] < t))
				t = c->rt[i].period[g];
	}
	return t ? t : 5;
}

/*
 * The vendor's stream: a first sample now (baselines of the counters),
 * then a report whenever a group is due, until a signal. With @prom, the
 * first report only, in the exporter's Prometheus text.
 */
static int vendor_run(const char *config, bool prom)
{
	struct vstate *v = calloc(1, sizeof(*v));
	struct nt_ctx c = { 0 };
	double start, tick, next;
	uint64_t ctxt;
	int ret;

	if (!v)
		return NT_EXIT_NETLINK;
	if (config)
		ret = conf_load(&v->conf, config);
	else
		conf_default(&v->conf), ret = 0;
	if (ret)
		goto out;
	v->ticks = sysconf(_SC_CLK_TCK);
	if (v->ticks <= 0)
		v->ticks = 100;
	v->n_cpu = sysconf(_SC_NPROCESSORS_CONF) + 1;
	v->cpu_prev = calloc(v->n_cpu, sizeof(*v->cpu_prev));
	if (!v->cpu_prev) {
		ret = NT_EXIT_NETLINK;
		goto out;
	}
	read_cpu_stat(v->cpu_prev, v->n_cpu, &ctxt);
	v->ctxt_prev = ctxt;
	v->cpu_valid = true;
	nt_instance_read(v->instance_type, sizeof(v->instance_type), v->instance_id,
			 sizeof(v->instance_id));
	ret = nt_ctx_open(&c, prog);
	if (ret)
		goto out;
	tick = conf_tick(&v->conf);
	v->tick = tick;
	start = mono_now();
	{
		/* Baselines: what is due at start, sampled without a report. */
		int g;

		for (g = 0; g < N_GROUPS; g++)
			v->sys_last[g] = v->conf.sys_period[g] > 0 ? start : 0;
	}
	ret = seed_procs(&c, v, start);
	if (ret)
		goto out;
	if (monitor_verbose >= 1)
		fprintf(stderr, "%s: reporting every %.3f s\n", prog, tick);
	next = start + tick;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		double left = next - mono_now();

		if (left > 0) {
			struct timespec ts = { (time_t)left, (long)((left - (time_t)left) * 1e9) };

			nanosleep(&ts, NULL);	/* EINTR on a signal: stop is checked */
			continue;
		}
		if (prom) {
			ret = prom_report(&c, v, mono_now());
			goto out;
		}
		ret = vendor_report(&c, v, mono_now());
		if (ret)
			goto out;
		next += tick;
		if (next < mono_now())
			next = mono_now() + tick;
	}
	ret = NT_EXIT_OK;
out:
	nt_ctx_close(&c);
	conf_free(&v->conf);
	while (v->n_procs)
		free(v->procs[--v->n_procs]);
	free(v->cpu_prev);
	free(v);
	return ret;
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
		{ "config-file", required_argument, NULL, 'c' },
		{ "events", no_argument, NULL, 'e' },
		{ "count", required_argument, NULL, 'n' },
		{ "interval", required_argument, NULL, 'i' },
		{ "follow", no_argument, NULL, 'f' },
		{ "prometheus", no_argument, NULL, 'p' },
		{ "prometheus-native", no_argument, NULL, 'P' },
		{ "verbose", required_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct monitor m = { 0 };
	bool prometheus = false, native = false, follow = false;
	const char *config = NULL;
	struct nt_ctx ev = { 0 }, st = { 0 };
	double interval = 0, next = 0;
	struct sigaction sa;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":c:en:i:fph", opts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config = optarg;
			break;
		case 'e':
			follow = true;
			break;
		case 'n':
			if (!parse_ulong(optarg, &m.count))
				return bad_usage("bad --count '%s': a positive integer", optarg);
			follow = true;
			break;
		case 'i':
			if (!parse_interval(optarg, &interval))
				return bad_usage("bad --interval '%s': seconds, 0.001 to 86400",
						 optarg);
			follow = true;
			break;
		case 'f':
			follow = true;
			break;
		case 'p':
			prometheus = true;
			break;
		case 'P':
			native = true;
			break;
		case 'v':
			if (optarg[0] < '0' || optarg[0] > '4' || optarg[1])
				return bad_usage("bad --verbose '%s': 0 to 4", optarg);
			monitor_verbose = optarg[0] - '0';
			m.verbose = monitor_verbose > 0;
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
	if (prometheus && (m.count || interval > 0 || follow || native))
		return bad_usage("%s--prometheus prints a report: no --events, --count, --interval",
				 "");
	if (native && (m.count || interval > 0 || follow || config))
		return bad_usage("%s--prometheus-native prints once: no other option", "");
	if (config && follow)
		return bad_usage("%s--config-file is for the vendor's report stream, not --events",
				 "");

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (native) {
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
	if (!follow)
		return vendor_run(config, prometheus);

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
