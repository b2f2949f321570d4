// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-ls: list the neuron devices and their NeuronCores through the
 * generic netlink family "neuron" (uapi/neuron_netlink.h), without opening
 * any device node: a table, or one JSON document with --json.
 *
 * Exit status: 0 ok, 1 the neuron module is not loaded, 2 a netlink error,
 * 64 bad usage (docs/man/neuron-ls.1).
 *
 * Build: make -f tools/Makefile.nl O=dir
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "nl_common.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#endif

static const char *prog = "neuron-ls";

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [--json] [--help]\n"
		"List the neuron devices and their NeuronCores (generic netlink family 'neuron').\n"
		"\n"
		"  -j, --json   print one JSON document instead of the table\n"
		"  -h, --help   print this help and exit\n"
		"\n"
		"Exit status: 0 ok, 1 the neuron module is not loaded, 2 netlink error,\n"
		"64 bad usage.\n", prog);
}

/* @v bytes as "123.4 MiB" into @buf. */
static const char *human(uint64_t v, char *buf, size_t size)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	double d = (double)v;
	unsigned int u = 0;

	while (d >= 1024 && u + 1 < ARRAY_SIZE(units)) {
		d /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, size, "%llu B", (unsigned long long)v);
	else
		snprintf(buf, size, "%.1f %s", d, units[u]);
	return buf;
}

static void location(const struct nt_dev *d, char *buf, size_t size)
{
	if (d->have & NT_DEV_PCI)
		snprintf(buf, size, "%s", d->pci_addr);
	else if (d->have & NT_DEV_SIM_ID)
		snprintf(buf, size, "sim %u", d->sim_id);
	else
		snprintf(buf, size, "-");
}

static void num_or_dash(char *buf, size_t size, bool have, uint64_t v)
{
	if (have)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "-");
}

static void print_table(const struct nt_snapshot *s)
{
	char loc[NT_STR_LEN + 8], used[32], total[32], host[32];
	unsigned int i, j;

	if (!s->n_devs) {
		printf("no neuron device\n");
		return;
	}
	for (i = 0; i < s->n_devs; i++) {
		const struct nt_dev *d = &s->devs[i];

		location(d, loc, sizeof(loc));
		snprintf(used, sizeof(used), "%s / ",
			 human(d->mem_used_device, host, sizeof(host)));
		strncat(used, human(d->mem_total, total, sizeof(total)),
			sizeof(used) - strlen(used) - 1);
		human(d->mem_used_host, host, sizeof(host));
		if (i)
			printf("\n");
		printf("%-4s %-5s %-8s %-14s %4s  %-25s %s\n", "DEV", "ARCH",
		       "PRODUCT", "LOCATION", "NCS", "DEVICE MEM USED/TOTAL",
		       "HOST MEM");
		printf("%-4u %-5s %-8s %-14s %4u  %-25s %s%s\n", d->index,
		       d->arch_name[0] ? d->arch_name : "-",
		       d->product[0] ? d->product : "-", loc, d->nc_count,
		       used, host,
		       (d->have & NT_DEV_STATE) && d->state ? "  (being removed)" : "");
		if (!d->n_ncs)
			continue;
		printf("  %-3s %-10s %7s %6s %12s %8s %12s %6s\n", "NC", "STATE",
		       "PID", "MODELS", "EXECUTIONS", "ERRORS", "BUSY(s)", "RESETS");
		for (j = 0; j < d->n_ncs; j++) {
			const struct nt_nc *nc = &d->ncs[j];
			char pid[16], models[16], execs[24], errs[24], busy[32], resets[24];

			num_or_dash(pid, sizeof(pid), nc->have & NT_NC_OWNER_PID && nc->owner_pid,
				    nc->owner_pid);
			num_or_dash(models, sizeof(models), nc->have & NT_NC_MODELS, nc->models);
			num_or_dash(execs, sizeof(execs), nc->have & NT_NC_EXECUTIONS,
				    nc->executions);
			num_or_dash(errs, sizeof(errs), nc->have & NT_NC_EXEC_ERRORS,
				    nc->exec_errors);
			num_or_dash(resets, sizeof(resets), nc->have & NT_NC_RESETS, nc->resets);
			if (nc->have & NT_NC_BUSY_NS)
				snprintf(busy, sizeof(busy), "%.3f", nc->busy_ns / 1e9);
			else
				snprintf(busy, sizeof(busy), "-");
			printf("  %-3u %-10s %7s %6s %12s %8s %12s %6s\n", nc->index,
			       nc->have & NT_NC_STATE ? nt_nc_state_name(nc->state) : "-",
			       pid, models, execs, errs, busy, resets);
		}
	}
}

/* "key": value, or "key": null when the kernel did not send it. */
static void json_u64(const char *key, bool have, uint64_t v, bool *first)
{
	printf("%s\"%s\": ", *first ? "" : ", ", key);
	*first = false;
	if (have)
		printf("%llu", (unsigned long long)v);
	else
		printf("null");
}

static void json_str(const char *key, const char *v, bool *first)
{
	printf("%s\"%s\": ", *first ? "" : ", ", key);
	*first = false;
	if (v)
		nt_json_string(stdout, v);
	else
		printf("null");
}

static void print_json(const struct nt_snapshot *s)
{
	unsigned int i, j;

	printf("{\"version\": 1, \"devices\": [");
	for (i = 0; i < s->n_devs; i++) {
		const struct nt_dev *d = &s->devs[i];
		bool first = true;

		printf("%s\n  {", i ? "," : "");
		json_u64("index", true, d->index, &first);
		json_u64("arch", d->have & NT_DEV_ARCH, d->arch, &first);
		json_str("arch_name", d->arch_name, &first);
		json_str("product", d->product, &first);
		json_str("pci_address", d->have & NT_DEV_PCI ? d->pci_addr : NULL, &first);
		json_u64("sim_id", d->have & NT_DEV_SIM_ID, d->sim_id, &first);
		json_u64("nc_count", d->have & NT_DEV_NC_COUNT, d->nc_count, &first);
		json_str("state", !(d->have & NT_DEV_STATE) ? NULL :
			 d->state ? "removing" : "present", &first);
		json_u64("memory_total", d->have & NT_DEV_MEM_TOTAL, d->mem_total, &first);
		json_u64("memory_used_device", d->have & NT_DEV_MEM_USED_DEVICE,
			 d->mem_used_device, &first);
		json_u64("memory_used_host", d->have & NT_DEV_MEM_USED_HOST,
			 d->mem_used_host, &first);
		printf(", \"channels\": [");
		for (j = 0; j < d->n_channels; j++)
			printf("%s{\"index\": %u, \"total\": %llu, \"used\": %llu}",
			       j ? ", " : "", d->channels[j].index,
			       (unsigned long long)d->channels[j].total,
			       (unsigned long long)d->channels[j].used);
		printf("], \"cores\": [");
		for (j = 0; j < d->n_ncs; j++) {
			const struct nt_nc *nc = &d->ncs[j];
			bool f = true;

			printf("%s\n    {", j ? "," : "");
			json_u64("index", true, nc->index, &f);
			json_str("state", nc->have & NT_NC_STATE ?
				 nt_nc_state_name(nc->state) : NULL, &f);
			json_u64("state_code", nc->have & NT_NC_STATE, nc->state, &f);
			json_u64("owner_pid", nc->have & NT_NC_OWNER_PID && nc->owner_pid,
				 nc->owner_pid, &f);
			json_u64("models", nc->have & NT_NC_MODELS, nc->models, &f);
			json_u64("executions", nc->have & NT_NC_EXECUTIONS, nc->executions, &f);
			json_u64("exec_errors", nc->have & NT_NC_EXEC_ERRORS, nc->exec_errors, &f);
			json_u64("busy_ns", nc->have & NT_NC_BUSY_NS, nc->busy_ns, &f);
			json_u64("dma_jobs", nc->have & NT_NC_DMA_JOBS, nc->dma_jobs, &f);
			json_u64("dma_errors", nc->have & NT_NC_DMA_ERRORS, nc->dma_errors, &f);
			json_u64("resets", nc->have & NT_NC_RESETS, nc->resets, &f);
			json_u64("memory_device", nc->have & NT_NC_MEM_DEVICE, nc->mem_device, &f);
			json_u64("memory_host", nc->have & NT_NC_MEM_HOST, nc->mem_host, &f);
			printf("}");
		}
		printf("%s]}", d->n_ncs ? "\n  " : "");
	}
	printf("%s]}\n", s->n_devs ? "\n" : "");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct nt_snapshot snap;
	struct nt_ctx ctx;
	bool json = false;
	int opt, ret;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "jh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'h':
			print_usage(stdout);
			return NT_EXIT_OK;
		default:
			if (optopt)
				fprintf(stderr, "%s: bad option '-%c'\n", prog, optopt);
			else
				fprintf(stderr, "%s: bad option '%s'\n", prog, argv[optind - 1]);
			print_usage(stderr);
			return NT_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", prog, argv[optind]);
		print_usage(stderr);
		return NT_EXIT_USAGE;
	}
	ret = nt_ctx_open(&ctx, prog);
	if (ret)
		return ret;
	ret = nt_snapshot_get(&ctx, &snap);
	nt_ctx_close(&ctx);
	if (ret)
		return ret;
	if (json)
		print_json(&snap);
	else
		print_table(&snap);
	nt_snapshot_free(&snap);
	if (fflush(stdout) || ferror(stdout)) {
		perror(prog);
		return NT_EXIT_NETLINK;
	}
	return NT_EXIT_OK;
}
