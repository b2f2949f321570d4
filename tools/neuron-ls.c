// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-ls: list the neuron devices through the generic netlink family
 * "neuron" (uapi/neuron_netlink.h), without opening any device node.
 *
 * By default it speaks the vendor's formats (docs/compat.md): the table
 * with its instance-type/instance-id lines, -w, -a, -t, and -j
 * (--json-output), an array of device objects with the vendor's keys.
 * Our own views stay under --details (a table per device and NC) and
 * --details-json (one JSON object, "version": 1).
 *
 * Exit status: 0 ok, 1 the neuron driver is not loaded or no device, 2 a
 * netlink error, 64 bad usage (docs/man/neuron-ls.1).
 *
 * Build: make -f tools/Makefile.nl O=dir
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
		"Usage: %s [-w|--wide] [-a|--show-all-procs] [-t|--topology] [-j|--json-output]\n"
		"       %s --details | --details-json | --firmware\n"
		"List the neuron devices (generic netlink family 'neuron').\n"
		"\n"
		"  -w, --wide             add PID, COMMAND and RUNTIME VERSION columns\n"
		"  -a, --show-all-procs   show every process holding a NeuronCore, with\n"
		"                         the runtime or not (NA)\n"
		"  -t, --topology         add the topology of the devices under the table\n"
		"  -j, --json-output      print a JSON array of device objects\n"
		"      --details          our table: every device and NeuronCore\n"
		"      --details-json     our JSON document (\"version\": 1)\n"
		"      --firmware         each device's serial number and ECC counters,\n"
		"                         asked of its firmware (PCI, engines driven)\n"
		"  -h, --help             print this help and exit\n"
		"\n"
		"Exit status: 0 ok, 1 the neuron driver is not loaded or no device,\n"
		"2 netlink error, 64 bad usage.\n", prog, prog);
}

/*
 * --firmware: one DEV_FW_GET per device. A device whose firmware cannot
 * be asked (no firmware: EOPNOTSUPP; no answer: ETIMEDOUT) gets a line on
 * stderr with the kernel's errno and makes the exit status 2.
 */
static int print_firmware(struct nt_ctx *c, const struct nt_snapshot *s)
{
	static const char *const names[NT_ECC_COUNTERS] = {
		"sram", "hbm0", "hbm1", "hbm2", "hbm3",
	};
	int ret = NT_EXIT_OK, err, kerr;
	struct nt_fw fw;
	unsigned int i, k;

	for (i = 0; i < s->n_devs; i++) {
		err = nt_fw_get(c, s->devs[i].index, &fw, &kerr);
		if (kerr) {
			fprintf(stderr, "%s: neuron%u: firmware: %s\n", prog,
				s->devs[i].index, strerror(kerr));
			ret = NT_EXIT_NETLINK;
			continue;
		}
		if (err) {
			nt_report(prog, "DEV_FW_GET", err);
			ret = NT_EXIT_NETLINK;
			continue;
		}
		if (fw.have_serial)
			printf("neuron%u serial %016llx\n", s->devs[i].index,
			       (unsigned long long)fw.serial);
		for (k = 0; k < NT_ECC_COUNTERS; k++)
			if (fw.have_ecc & (1u << k))
				printf("neuron%u ecc %s corrected %u uncorrected %u\n",
				       s->devs[i].index, names[k], fw.ecc_corrected[k],
				       fw.ecc_uncorrected[k]);
	}
	return ret;
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

static void print_details(const struct nt_snapshot *s)
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

static void print_details_json(const struct nt_snapshot *s)
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

/* ---- the vendor's formats (docs/compat.md) ---- */

#define PROC_CMD_LEN	4096
#define VER_LEN		32

struct ls_proc {
	uint32_t pid;
	char command[PROC_CMD_LEN];
	char version[VER_LEN];	/* "" when not using libnrt */
};

struct ls_dev {
	const struct nt_dev *d;
	char bdf[NT_STR_LEN];
	char cpu_affinity[256];
	char numa_node[16];
	uint32_t first_nc;		/* neuroncore_ids start here */
	unsigned int n_procs;
	struct ls_proc *procs;
};

struct ls_view {
	char instance_type[128];
	char instance_id[128];
	unsigned int n;
	struct ls_dev *devs;
};

/* The command line of @pid, arguments joined by spaces ("" if hidden). */
static void proc_command(uint32_t pid, char *buf, size_t size)
{
	char path[64];
	size_t n, i;
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/cmdline", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	while (n && buf[n - 1] == '\0')
		n--;
	for (i = 0; i < n; i++)
		if (buf[i] == '\0' || buf[i] == '\n')
			buf[i] = ' ';
	buf[n] = '\0';
}

/*
 * The version of the libnrt a process has mapped, from its file name
 * (libnrt.so.X.Y.Z) in /proc/PID/maps: "" when it has none or when the
 * reader may not see its maps.
 */
static void proc_runtime_version(uint32_t pid, char *buf, size_t size)
{
	char path[64], line[4096];
	FILE *f;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *p = strstr(line, "/libnrt.so.");
		size_t n;

		if (!p)
			continue;
		p += strlen("/libnrt.so.");
		n = strspn(p, "0123456789.");
		if (n && n < size) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			break;
		}
	}
	fclose(f);
}

static int view_build(const struct nt_snapshot *s, struct ls_view *v)
{
	uint32_t next_nc = 0;
	unsigned int i, j, k;

	memset(v, 0, sizeof(*v));
	nt_instance_read(v->instance_type, sizeof(v->instance_type), v->instance_id,
			 sizeof(v->instance_id));
	v->n = s->n_devs;
	v->devs = calloc(s->n_devs ? s->n_devs : 1, sizeof(*v->devs));
	if (!v->devs)
		return -1;
	for (i = 0; i < s->n_devs; i++) {
		const struct nt_dev *d = &s->devs[i];
		struct ls_dev *l = &v->devs[i];
		char path[NT_STR_LEN + 64];

		l->d = d;
		l->first_nc = next_nc;
		next_nc += d->nc_count;
		snprintf(l->numa_node, sizeof(l->numa_node), "-1");
		if (d->have & NT_DEV_PCI) {
			snprintf(l->bdf, sizeof(l->bdf), "%s", d->pci_addr);
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/local_cpulist",
				 d->pci_addr);
			nt_read_line(path, l->cpu_affinity, sizeof(l->cpu_affinity));
			snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/numa_node",
				 d->pci_addr);
			if (!nt_read_line(path, l->numa_node, sizeof(l->numa_node)) ||
			    !l->numa_node[0])
				snprintf(l->numa_node, sizeof(l->numa_node), "-1");
		} else {
			/* A simulated device is as near to any CPU as to another. */
			nt_read_line("/sys/devices/system/cpu/online", l->cpu_affinity,
				     sizeof(l->cpu_affinity));
		}
		l->procs = calloc(d->n_ncs ? d->n_ncs : 1, sizeof(*l->procs));
		if (!l->procs)
			return -1;
		/* The owners the kernel shows us, each once, in NC order. */
		for (j = 0; j < d->n_ncs; j++) {
			const struct nt_nc *nc = &d->ncs[j];
			struct ls_proc *p;

			if (!(nc->have & NT_NC_OWNER_PID) || !nc->owner_pid)
				continue;
			for (k = 0; k < l->n_procs && l->procs[k].pid != nc->owner_pid; k++)
				;
			if (k < l->n_procs)
				continue;
			p = &l->procs[l->n_procs++];
			p->pid = nc->owner_pid;
			proc_command(p->pid, p->command, sizeof(p->command));
			proc_runtime_version(p->pid, p->version, sizeof(p->version));
		}
	}
	return 0;
}

static void view_free(struct ls_view *v)
{
	unsigned int i;

	for (i = 0; v->devs && i < v->n; i++)
		free(v->devs[i].procs);
	free(v->devs);
}

/* "96 GB" as the vendor prints it; below a GiB, "64 MB". */
static void mem_cell(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1ULL << 30))
		snprintf(buf, size, "%llu GB", (unsigned long long)((bytes + (1ULL << 29)) >> 30));
	else
		snprintf(buf, size, "%llu MB", (unsigned long long)((bytes + (1ULL << 19)) >> 20));
}

/* ---- a bordered table: two header lines, cells left-aligned ---- */

#define MAX_COLS	12
#define CELL_LEN	256

struct table {
	unsigned int ncols, nrows;
	const char *head[MAX_COLS][2];
	size_t width[MAX_COLS];
	char (*cells)[MAX_COLS][CELL_LEN];
	bool *rule_before;	/* a separator line before the row */
};

static int table_init(struct table *t, unsigned int max_rows)
{
	memset(t, 0, sizeof(*t));
	t->cells = calloc(max_rows ? max_rows : 1, sizeof(*t->cells));
	t->rule_before = calloc(max_rows ? max_rows : 1, sizeof(*t->rule_before));
	return t->cells && t->rule_before ? 0 : -1;
}

static void table_free(struct table *t)
{
	free(t->cells);
	free(t->rule_before);
}

static unsigned int table_col(struct table *t, const char *h1, const char *h2)
{
	t->head[t->ncols][0] = h1;
	t->head[t->ncols][1] = h2;
	return t->ncols++;
}

static void table_rule(const struct table *t)
{
	unsigned int c;
	size_t k;

	for (c = 0; c < t->ncols; c++) {
		putchar('+');
		for (k = 0; k < t->width[c] + 2; k++)
			putchar('-');
	}
	printf("+\n");
}

static void table_print(struct table *t)
{
	unsigned int c, r, h;

	for (c = 0; c < t->ncols; c++) {
		t->width[c] = strlen(t->head[c][0]);
		if (strlen(t->head[c][1]) > t->width[c])
			t->width[c] = strlen(t->head[c][1]);
		for (r = 0; r < t->nrows; r++)
			if (strlen(t->cells[r][c]) > t->width[c])
				t->width[c] = strlen(t->cells[r][c]);
	}
	table_rule(t);
	for (h = 0; h < 2; h++) {
		for (c = 0; c < t->ncols; c++) {
			size_t pad = t->width[c] + 2 - strlen(t->head[c][h]);
			size_t left = pad / 2 + (pad & (t->width[c] + 2) & 1);

			printf("|%*s%s%*s", (int)left, "", t->head[c][h], (int)(pad - left), "");
		}
		printf("|\n");
	}
	table_rule(t);
	for (r = 0; r < t->nrows; r++) {
		if (t->rule_before[r])
			table_rule(t);
		for (c = 0; c < t->ncols; c++)
			printf("| %-*s ", (int)t->width[c], t->cells[r][c]);
		printf("|\n");
	}
	table_rule(t);
}

/* @s cut to @max characters, "..." at the end of a cut one. */
static void cut(char *dst, size_t size, const char *s, size_t max)
{
	if (max >= size)
		max = size - 1;
	if (strlen(s) <= max)
		snprintf(dst, size, "%s", s);
	else
		snprintf(dst, size, "%.*s...", (int)(max - 3), s);
}

enum { SHOW_WIDE = 1, SHOW_ALL = 2, SHOW_TOPOLOGY = 4 };

static bool proc_shown(const struct ls_proc *p, int show)
{
	return (show & SHOW_ALL) || p->version[0];
}

static void print_vendor_table(const struct ls_view *v, int show)
{
	unsigned int i, k, rows = 0, c_dev, c_cores, c_ids, c_mem, c_conn, c_bdf;
	unsigned int c_pid = 0, c_cmd = 0, c_cpu, c_numa, c_ver = 0;
	bool procs = false, cmd = show & (SHOW_WIDE | SHOW_ALL);
	struct table t;

	for (i = 0; i < v->n; i++) {
		rows += v->devs[i].n_procs + 1;
		for (k = 0; k < v->devs[i].n_procs; k++)
			procs |= proc_shown(&v->devs[i].procs[k], show);
	}
	procs |= cmd;
	if (table_init(&t, rows)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return;
	}
	printf("instance-type: %s\ninstance-id: %s\n", v->instance_type, v->instance_id);
	c_dev = table_col(&t, "NEURON", "DEVICE");
	c_cores = table_col(&t, "NEURON", "CORES");
	c_ids = table_col(&t, "NEURON", "CORE IDS");
	c_mem = table_col(&t, "NEURON", "MEMORY");
	c_conn = table_col(&t, "CONNECTED", "DEVICES");
	c_bdf = table_col(&t, "PCI", "BDF");
	if (procs)
		c_pid = table_col(&t, "PID", "");
	if (cmd)
		c_cmd = table_col(&t, "COMMAND", "");
	c_cpu = table_col(&t, "CPU", "AFFINITY");
	c_numa = table_col(&t, "NUMA", "NODE");
	if (procs)
		c_ver = table_col(&t, "RUNTIME", "VERSION");
	for (i = 0; i < v->n; i++) {
		const struct ls_dev *l = &v->devs[i];
		unsigned int shown = 0;
		char (*row)[CELL_LEN] = t.cells[t.nrows++];

		snprintf(row[c_dev], CELL_LEN, "%u", l->d->index);
		snprintf(row[c_cores], CELL_LEN, "%u", l->d->nc_count);
		if (l->d->nc_count > 1)
			snprintf(row[c_ids], CELL_LEN, "%u-%u", l->first_nc,
				 l->first_nc + l->d->nc_count - 1);
		else if (l->d->nc_count)
			snprintf(row[c_ids], CELL_LEN, "%u", l->first_nc);
		mem_cell(l->d->mem_total, row[c_mem], CELL_LEN);
		row[c_conn][0] = '\0';	/* no device reports a link */
		snprintf(row[c_bdf], CELL_LEN, "%s", l->bdf[0] ? l->bdf : "NA");
		snprintf(row[c_cpu], CELL_LEN, "%s", l->cpu_affinity);
		snprintf(row[c_numa], CELL_LEN, "%s", l->numa_node);
		for (k = 0; k < l->n_procs; k++) {
			const struct ls_proc *p = &l->procs[k];

			if (!proc_shown(p, show))
				continue;
			if (shown++)
				row = t.cells[t.nrows++];
			snprintf(row[c_pid], CELL_LEN, "%u", p->pid);
			if (cmd)
				cut(row[c_cmd], CELL_LEN, p->command,
				    show & SHOW_WIDE ? 80 : 40);
			snprintf(row[c_ver], CELL_LEN, "%s", p->version[0] ? p->version : "NA");
		}
	}
	/* Rules between the devices once one of them takes several rows. */
	for (i = 0, k = 0; i < t.nrows; i++)
		if (!t.cells[i][c_dev][0])
			k = 1;
	if (show & SHOW_ALL || k)
		for (i = 1; i < t.nrows; i++)
			t.rule_before[i] = t.cells[i][c_dev][0] != '\0';
	table_print(&t);
	table_free(&t);
	if (show & SHOW_TOPOLOGY) {
		/* No device reports a link to another (docs/compat.md). */
		printf("\n\nNeuron Device Topology\n");
		for (i = 0; i < v->n; i++)
			printf("%s[%2u ]", i ? "    " : "  ", v->devs[i].d->index);
		printf("\n\nLegend:\n\n        no links between the devices\n");
	}
}

static void json_ind(int n)
{
	printf("%*s", n * 4, "");
}

/* One device object per line group, as the vendor indents it (4 spaces). */
static void print_vendor_json(const struct ls_view *v)
{
	unsigned int i, k;

	printf("[");
	for (i = 0; i < v->n; i++) {
		const struct ls_dev *l = &v->devs[i];

		printf("%s\n", i ? "," : "");
		json_ind(1);
		printf("{\n");
		json_ind(2);
		printf("\"instance_type\": ");
		nt_json_string(stdout, v->instance_type);
		printf(",\n");
		json_ind(2);
		printf("\"instance_id\": ");
		nt_json_string(stdout, v->instance_id);
		printf(",\n");
		json_ind(2);
		printf("\"neuron_device\": %u,\n", l->d->index);
		json_ind(2);
		printf("\"bdf\": ");
		nt_json_string(stdout, l->bdf);
		printf(",\n");
		json_ind(2);
		printf("\"cpu_affinity\": ");
		nt_json_string(stdout, l->cpu_affinity);
		printf(",\n");
		json_ind(2);
		printf("\"numa_node\": ");
		nt_json_string(stdout, l->numa_node);
		printf(",\n");
		json_ind(2);
		printf("\"connected_to\": null,\n");
		json_ind(2);
		printf("\"nc_count\": %u,\n", l->d->nc_count);
		json_ind(2);
		printf("\"memory_size\": %llu,\n", (unsigned long long)l->d->mem_total);
		json_ind(2);
		printf("\"neuroncore_ids\": [");
		for (k = 0; k < l->d->nc_count; k++) {
			printf("%s\n", k ? "," : "");
			json_ind(3);
			printf("%u", l->first_nc + k);
		}
		if (l->d->nc_count) {
			printf("\n");
			json_ind(2);
		}
		printf("],\n");
		json_ind(2);
		printf("\"neuron_processes\": [");
		for (k = 0; k < l->n_procs; k++) {
			const struct ls_proc *p = &l->procs[k];

			printf("%s\n", k ? "," : "");
			json_ind(3);
			printf("{\n");
			json_ind(4);
			printf("\"pid\": %u,\n", p->pid);
			json_ind(4);
			printf("\"command\": ");
			nt_json_string(stdout, p->command);
			printf(",\n");
			json_ind(4);
			printf("\"neuron_runtime_version\": ");
			nt_json_string(stdout, p->version[0] ? p->version : "NA");
			printf("\n");
			json_ind(3);
			printf("}");
		}
		if (l->n_procs) {
			printf("\n");
			json_ind(2);
		}
		printf("]\n");
		json_ind(1);
		printf("}");
	}
	printf("%s]\n", v->n ? "\n" : "");
}

int main(int argc, char **argv)
{
	enum { OPT_DETAILS = 256, OPT_DETAILS_JSON, OPT_FIRMWARE };
	static const struct option opts[] = {
		{ "wide", no_argument, NULL, 'w' },
		{ "show-all-procs", no_argument, NULL, 'a' },
		{ "topology", no_argument, NULL, 't' },
		{ "json-output", no_argument, NULL, 'j' },
		{ "details", no_argument, NULL, OPT_DETAILS },
		{ "details-json", no_argument, NULL, OPT_DETAILS_JSON },
		{ "firmware", no_argument, NULL, OPT_FIRMWARE },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt, ret, show = 0, details = 0;
	struct nt_snapshot snap;
	struct ls_view view;
	struct nt_ctx ctx;
	bool json = false;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "watjh", opts, NULL)) != -1) {
		switch (opt) {
		case 'w':
			show |= SHOW_WIDE;
			break;
		case 'a':
			show |= SHOW_ALL;
			break;
		case 't':
			show |= SHOW_TOPOLOGY;
			break;
		case 'j':
			json = true;
			break;
		case OPT_DETAILS:
		case OPT_DETAILS_JSON:
		case OPT_FIRMWARE:
			details = opt;
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
	if (details && (json || show)) {
		fprintf(stderr, "%s: --details, --details-json and --firmware go alone\n",
			prog);
		print_usage(stderr);
		return NT_EXIT_USAGE;
	}
	ret = nt_ctx_open(&ctx, prog);
	if (ret)
		return ret;
	ret = nt_snapshot_get(&ctx, &snap);
	if (!ret && details == OPT_FIRMWARE) {
		ret = snap.n_devs ? print_firmware(&ctx, &snap) : NT_EXIT_NO_MODULE;
		if (!snap.n_devs)
			fprintf(stderr, "%s: No neuron devices found\n", prog);
		nt_ctx_close(&ctx);
		nt_snapshot_free(&snap);
		if (fflush(stdout) || ferror(stdout)) {
			perror(prog);
			return NT_EXIT_NETLINK;
		}
		return ret;
	}
	nt_ctx_close(&ctx);
	if (ret)
		return ret;
	if (!details && !snap.n_devs) {
		/* As the vendor's tool: nothing on stdout, exit 1. */
		fprintf(stderr, "%s: No neuron devices found\n", prog);
		nt_snapshot_free(&snap);
		return NT_EXIT_NO_MODULE;
	}
	if (!details && view_build(&snap, &view)) {
		fprintf(stderr, "%s: out of memory\n", prog);
		view_free(&view);
		nt_snapshot_free(&snap);
		return NT_EXIT_NETLINK;
	}
	if (details == OPT_DETAILS)
		print_details(&snap);
	else if (details == OPT_DETAILS_JSON)
		print_details_json(&snap);
	else if (json)
		print_vendor_json(&view);
	else
		print_vendor_table(&view, show);
	if (!details)
		view_free(&view);
	nt_snapshot_free(&snap);
	if (fflush(stdout) || ferror(stdout)) {
		perror(prog);
		return NT_EXIT_NETLINK;
	}
	return NT_EXIT_OK;
}
