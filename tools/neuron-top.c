// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-top: a terminal view of the neuron devices, refreshed every
 * second: each device (memory used and total), each process holding a
 * NeuronCore (its NCs, the memory charged to them) and each NC (state,
 * owner, utilization over the last interval, executions, memory).  All of
 * it comes from the generic netlink family "neuron" (uapi/neuron_netlink.h)
 * and /proc; a figure the driver does not report is shown as "-".
 *
 * Keys: q quits, the arrows and Page Up/Down scroll.  Made for 80x24 (over
 * ssh too): lines are cut at the terminal's width.
 *
 * Exit status: 0 ok, 1 the neuron driver is not loaded or no device, 2 a
 * netlink error, 3 no usable terminal, 64 bad usage (docs/man/neuron-top.1).
 *
 * Build: make -f tools/Makefile.nl O=dir (links ncurses)
 */
#define _GNU_SOURCE
#include <curses.h>
#include <term.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "nl_common.h"

#define TOP_EXIT_NO_TTY	3
#define LINE_LEN	256
#define REFRESH_MS	1000
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static const char *prog = "neuron-top";

/* The busy time of one NC at the previous sample. */
struct top_prev {
	uint32_t dev;
	uint32_t nc;
	uint64_t busy_ns;
};

/* A process holding NCs, from the NC owners. */
struct top_proc {
	uint32_t pid;
	char comm[32];
	char ncs[LINE_LEN];
	unsigned int n_ncs;
	uint64_t mem_device;
	uint64_t mem_host;
	bool have_mem_device;
	bool have_mem_host;
	double util;
	unsigned int n_util;
};

struct top {
	struct nt_ctx ctx;
	struct nt_snapshot snap;
	bool have_snap;
	double t_prev, t_now;	/* CLOCK_MONOTONIC of the samples, s */
	struct top_prev *prev;
	unsigned int n_prev;
	/* per NC of snap, in its order: utilization in percent, or -1 */
	double *util;
	struct top_proc *procs;
	unsigned int n_procs;
	char instance[LINE_LEN];
	unsigned int scroll;
	/* the lines below the fixed header, rebuilt at each sample */
	char (*txt)[LINE_LEN];
	unsigned char *attrs;	/* 1: a section's title (reverse) */
	unsigned int n_lines, cap_lines;
};

static void print_usage(FILE *f)
{
	fprintf(f,
		"Usage: %s [-h|--help]\n"
		"Show the neuron devices, the processes holding their NeuronCores and\n"
		"each NeuronCore, refreshed every second, in the terminal.\n"
		"\n"
		"Keys: q quit; Up, Down, Page Up, Page Down, Home scroll.\n"
		"A figure that the driver does not report is shown as '-'.\n"
		"\n"
		"Exit status: 0 ok, 1 the neuron driver is not loaded or no device,\n"
		"2 netlink error, 3 no usable terminal, 64 bad usage.\n", prog);
}

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* @v bytes in at most 7 characters ("1023.9M"), or "-" if absent. */
static const char *size_str(bool have, uint64_t v, char *buf, size_t size)
{
	static const char units[] = "BKMGTPE";
	double d = (double)v;
	unsigned int u = 0;

	if (!have) {
		snprintf(buf, size, "-");
		return buf;
	}
	if (v < 1024) {
		snprintf(buf, size, "%lluB", (unsigned long long)v);
		return buf;
	}
	while (d >= 1024 && u < sizeof(units) - 2) {
		d /= 1024;
		u++;
	}
	snprintf(buf, size, "%.1f%c", d, units[u]);
	return buf;
}

static const char *pct_str(double pct, char *buf, size_t size)
{
	if (pct < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.0f%%", pct);
	return buf;
}

static const char *u64_str(bool have, uint64_t v, char *buf, size_t size)
{
	if (have)
		snprintf(buf, size, "%llu", (unsigned long long)v);
	else
		snprintf(buf, size, "-");
	return buf;
}

/* The command name of @pid (/proc/PID/comm), "-" when it cannot be read. */
static void proc_comm(uint32_t pid, char *buf, size_t size)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%u/comm", pid);
	if (!nt_read_line(path, buf, size) || !buf[0])
		snprintf(buf, size, "-");
}

static void line_add(struct top *t, unsigned char attr, const char *fmt, ...)
{
	va_list ap;

	if (t->n_lines == t->cap_lines) {
		unsigned int cap = t->cap_lines ? 2 * t->cap_lines : 64;
		char (*txt)[LINE_LEN] = realloc(t->txt, cap * sizeof(*txt));
		unsigned char *attrs;

		if (!txt)
			return;
		t->txt = txt;
		attrs = realloc(t->attrs, cap);
		if (!attrs)
			return;
		t->attrs = attrs;
		t->cap_lines = cap;
	}
	va_start(ap, fmt);
	vsnprintf(t->txt[t->n_lines], LINE_LEN, fmt, ap);
	va_end(ap);
	t->attrs[t->n_lines++] = attr;
}

/* The busy time of NC @nc of device @dev at the previous sample. */
static bool prev_busy(const struct top *t, uint32_t dev, uint32_t nc, uint64_t *busy)
{
	unsigned int i;

	for (i = 0; i < t->n_prev; i++) {
		if (t->prev[i].dev == dev && t->prev[i].nc == nc) {
			*busy = t->prev[i].busy_ns;
			return true;
		}
	}
	return false;
}

/* Utilization of each NC since the previous sample, then remember this one. */
static void compute_util(struct top *t)
{
	const struct nt_snapshot *s = &t->snap;
	unsigned int i, j, k = 0, n = 0;
	double dt = t->t_now - t->t_prev;
	struct top_prev *prev;

	for (i = 0; i < s->n_devs; i++)
		n += s->devs[i].n_ncs;
	free(t->util);
	t->util = calloc(n ? n : 1, sizeof(*t->util));
	prev = calloc(n ? n : 1, sizeof(*prev));
	if (!t->util || !prev) {
		free(prev);
		return;
	}
	for (i = 0; i < s->n_devs; i++) {
		for (j = 0; j < s->devs[i].n_ncs; j++, k++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];
			uint64_t before;

			t->util[k] = -1;
			prev[k].dev = nc->dev;
			prev[k].nc = nc->index;
			prev[k].busy_ns = nc->busy_ns;
			/* A device removed and made again counts from 0. */
			if (!(nc->have & NT_NC_BUSY_NS) || dt <= 0 ||
			    !prev_busy(t, nc->dev, nc->index, &before) ||
			    nc->busy_ns < before)
				continue;
			t->util[k] = (double)(nc->busy_ns - before) / (dt * 1e9) * 100;
			if (t->util[k] > 100)
				t->util[k] = 100;
		}
	}
	free(t->prev);
	t->prev = prev;
	t->n_prev = n;
}

/* The processes from the NC owners, in order of first appearance. */
static void collect_procs(struct top *t)
{
	const struct nt_snapshot *s = &t->snap;
	unsigned int i, j, k = 0, n = 0, p;

	for (i = 0; i < s->n_devs; i++)
		n += s->devs[i].n_ncs;
	free(t->procs);
	t->n_procs = 0;
	t->procs = calloc(n ? n : 1, sizeof(*t->procs));
	if (!t->procs)
		return;
	for (i = 0; i < s->n_devs; i++) {
		for (j = 0; j < s->devs[i].n_ncs; j++, k++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];
			struct top_proc *pr;
			size_t len;

			if (!(nc->have & NT_NC_OWNER_PID) || !nc->owner_pid)
				continue;
			for (p = 0; p < t->n_procs && t->procs[p].pid != nc->owner_pid; p++)
				;
			pr = &t->procs[p];
			if (p == t->n_procs) {
				t->n_procs++;
				pr->pid = nc->owner_pid;
				proc_comm(pr->pid, pr->comm, sizeof(pr->comm));
			}
			len = strlen(pr->ncs);
			snprintf(pr->ncs + len, sizeof(pr->ncs) - len, "%s%u:%u",
				 pr->n_ncs ? "," : "", nc->dev, nc->index);
			pr->n_ncs++;
			if (nc->have & NT_NC_MEM_DEVICE) {
				pr->mem_device += nc->mem_device;
				pr->have_mem_device = true;
			}
			if (nc->have & NT_NC_MEM_HOST) {
				pr->mem_host += nc->mem_host;
				pr->have_mem_host = true;
			}
			if (t->util && t->util[k] >= 0) {
				pr->util += t->util[k];
				pr->n_util++;
			}
		}
	}
}

#define DEV_FMT		"%-4s %-4s %-8s %-13s %3s %5s %8s %8s %8s"
#define PROC_FMT	"%-7s %-15s %-24s %5s %8s %8s"
#define NC_FMT		"%-7s %-9s %-7s %5s %9s %6s %6s %8s %8s"
#define USAGE_FMT	"%-7s %-7s %8s %8s %8s %8s %8s %8s %8s"

static void build_device_lines(struct top *t)
{
	const struct nt_snapshot *s = &t->snap;
	unsigned int i, j, k = 0;

	line_add(t, 1, DEV_FMT, "DEV", "ARCH", "PRODUCT", "BUS", "NCS", "UTIL",
		 "DEV USED", "DEV TOTAL", "HOST");
	if (!s->n_devs)
		line_add(t, 0, "no neuron device");
	for (i = 0; i < s->n_devs; i++) {
		const struct nt_dev *d = &s->devs[i];
		char idx[16], bus[NT_STR_LEN], ncs[16], util[16], used[16], total[16], host[16];
		double sum = 0;
		unsigned int n = 0;

		for (j = 0; j < d->n_ncs; j++, k++) {
			if (t->util && t->util[k] >= 0) {
				sum += t->util[k];
				n++;
			}
		}
		if (d->have & NT_DEV_PCI)
			snprintf(bus, sizeof(bus), "%s", d->pci_addr);
		else if (d->have & NT_DEV_SIM_ID)
			snprintf(bus, sizeof(bus), "sim %u", d->sim_id);
		else
			snprintf(bus, sizeof(bus), "-");
		line_add(t, 0, DEV_FMT, u64_str(true, d->index, idx, sizeof(idx)),
			 d->have & NT_DEV_ARCH ? d->arch_name : "-",
			 d->product[0] ? d->product : "-", bus,
			 u64_str(d->have & NT_DEV_NC_COUNT, d->nc_count, ncs, sizeof(ncs)),
			 pct_str(n ? sum / n : -1, util, sizeof(util)),
			 size_str(d->have & NT_DEV_MEM_USED_DEVICE, d->mem_used_device,
				  used, sizeof(used)),
			 size_str(d->have & NT_DEV_MEM_TOTAL, d->mem_total, total, sizeof(total)),
			 size_str(d->have & NT_DEV_MEM_USED_HOST, d->mem_used_host,
				  host, sizeof(host)));
	}
}

static void build_proc_lines(struct top *t)
{
	unsigned int i;

	line_add(t, 1, PROC_FMT, "PID", "COMMAND", "NCS (DEV:NC)", "UTIL", "DEV MEM",
		 "HOST MEM");
	if (!t->n_procs)
		line_add(t, 0, "no process holds a NeuronCore");
	for (i = 0; i < t->n_procs; i++) {
		const struct top_proc *p = &t->procs[i];
		char pid[16], util[16], dev[16], host[16];

		snprintf(pid, sizeof(pid), "%u", p->pid);
		line_add(t, 0, PROC_FMT, pid, p->comm, p->ncs,
			 pct_str(p->n_util ? p->util / p->n_util : -1, util, sizeof(util)),
			 size_str(p->have_mem_device, p->mem_device, dev, sizeof(dev)),
			 size_str(p->have_mem_host, p->mem_host, host, sizeof(host)));
	}
}

static void nc_line(struct top *t, const struct nt_nc *nc, double util)
{
	char name[16], pid[16], u[16], ex[24], er[16], mo[16], dev[16], host[16];

	snprintf(name, sizeof(name), "%u:%u", nc->dev, nc->index);
	u64_str(nc->have & NT_NC_OWNER_PID && nc->owner_pid, nc->owner_pid, pid, sizeof(pid));
	line_add(t, 0, NC_FMT, name,
		 nc->have & NT_NC_STATE ? nt_nc_state_name(nc->state) : "-", pid,
		 pct_str(util, u, sizeof(u)),
		 u64_str(nc->have & NT_NC_EXECUTIONS, nc->executions, ex, sizeof(ex)),
		 u64_str(nc->have & NT_NC_EXEC_ERRORS, nc->exec_errors, er, sizeof(er)),
		 u64_str(nc->have & NT_NC_MODELS, nc->models, mo, sizeof(mo)),
		 size_str(nc->have & NT_NC_MEM_DEVICE, nc->mem_device, dev, sizeof(dev)),
		 size_str(nc->have & NT_NC_MEM_HOST, nc->mem_host, host, sizeof(host)));
}

/*
 * The memory of the reserved NCs the caller may see, by what the
 * reserver said it is for (NEURON_A_NC_MEM_*_BY_USAGE): device memory of
 * each usage of neuron-monitor's breakdown, the rest of it (OTHER), and
 * the host memory.
 */
static void build_usage_lines(struct top *t)
{
	static const unsigned int cols[] = {
		NEURON_MEM_USAGE_TENSORS, NEURON_MEM_USAGE_CONSTANTS,
		NEURON_MEM_USAGE_MODEL_CODE, NEURON_MEM_USAGE_SCRATCHPAD,
		NEURON_MEM_USAGE_RUNTIME,
	};
	const struct nt_snapshot *s = &t->snap;
	unsigned int i, j, k, n = 0;

	line_add(t, 1, USAGE_FMT, "DEV:NC", "PID", "TENSORS", "CONSTS", "CODE", "SCRATCH",
		 "RUNTIME", "OTHER", "HOST");
	for (i = 0; i < s->n_devs; i++) {
		for (j = 0; j < s->devs[i].n_ncs; j++) {
			const struct nt_nc *nc = &s->devs[i].ncs[j];
			char name[16], pid[16], v[ARRAY_SIZE(cols) + 2][16];
			uint64_t other = 0, host = 0;

			if (!(nc->have & NT_NC_MEM_USAGE))
				continue;
			for (k = 0; k < NT_MEM_USAGES; k++) {
				other += nc->mem_dev_usage[k];
				host += nc->mem_host_usage[k];
			}
			for (k = 0; k < ARRAY_SIZE(cols); k++) {
				other -= nc->mem_dev_usage[cols[k]];
				size_str(true, nc->mem_dev_usage[cols[k]], v[k], sizeof(v[k]));
			}
			size_str(true, other, v[k], sizeof(v[k]));
			size_str(true, host, v[k + 1], sizeof(v[k + 1]));
			snprintf(name, sizeof(name), "%u:%u", nc->dev, nc->index);
			u64_str(nc->have & NT_NC_OWNER_PID && nc->owner_pid, nc->owner_pid, pid,
				sizeof(pid));
			line_add(t, 0, USAGE_FMT, name, pid, v[0], v[1], v[2], v[3], v[4], v[5],
				 v[6]);
			n++;
		}
	}
	if (!n)
		line_add(t, 0, "no NeuronCore reserved that you may see");
}

/* Whether @nc is held: an owner shown, or a state other than free. */
static bool nc_held(const struct nt_nc *nc)
{
	return (nc->have & NT_NC_OWNER_PID && nc->owner_pid) ||
	       (nc->have & NT_NC_STATE && nc->state != NEURON_NC_FREE);
}

/* The NCs, those held first, then the free ones, each by DEV:NC. */
static void build_nc_lines(struct top *t)
{
	const struct nt_snapshot *s = &t->snap;
	unsigned int pass, i, j, k;

	line_add(t, 1, NC_FMT, "DEV:NC", "STATE", "PID", "UTIL", "EXECS", "ERRS",
		 "MODELS", "DEV MEM", "HOST MEM");
	for (pass = 0; pass < 2; pass++) {
		k = 0;
		for (i = 0; i < s->n_devs; i++) {
			for (j = 0; j < s->devs[i].n_ncs; j++, k++) {
				const struct nt_nc *nc = &s->devs[i].ncs[j];

				if (nc_held(nc) == !pass)
					nc_line(t, nc, t->util ? t->util[k] : -1);
			}
		}
	}
}

/* Take a sample: 0, or an exit code after a message (not drawn yet). */
static int sample(struct top *t)
{
	struct nt_snapshot s;
	int ret;

	ret = nt_snapshot_get(&t->ctx, &s);
	if (ret)
		return ret;
	if (t->have_snap)
		nt_snapshot_free(&t->snap);
	t->snap = s;
	t->have_snap = true;
	t->t_prev = t->t_now;
	t->t_now = mono_now();
	compute_util(t);
	collect_procs(t);
	t->n_lines = 0;
	build_device_lines(t);
	line_add(t, 0, " ");
	build_proc_lines(t);
	line_add(t, 0, " ");
	build_usage_lines(t);
	line_add(t, 0, " ");
	build_nc_lines(t);
	return 0;
}

/* Lines of the screen above the scrolled part. */
#define HEAD_LINES	2

static void draw(struct top *t)
{
	const struct nt_snapshot *s = &t->snap;
	unsigned int i, ncs = 0, held = 0, body, row;
	uint64_t used = 0, total = 0;
	char now[16], u[16], tot[16];
	struct tm tm;
	time_t sec;
	int rows = LINES, cols = COLS;

	for (i = 0; i < s->n_devs; i++) {
		unsigned int j;

		ncs += s->devs[i].n_ncs;
		used += s->devs[i].mem_used_device;
		total += s->devs[i].mem_total;
		for (j = 0; j < s->devs[i].n_ncs; j++)
			held += nc_held(&s->devs[i].ncs[j]);
	}
	sec = time(NULL);
	localtime_r(&sec, &tm);
	strftime(now, sizeof(now), "%H:%M:%S", &tm);
	erase();
	attron(A_REVERSE);
	mvhline(0, 0, ' ', cols);
	mvaddnstr(0, 0, "neuron-top", cols);
	if (cols > 12)
		mvaddnstr(0, 12, t->instance, cols - 12);
	if (cols > 60)
		mvaddnstr(0, cols - 31, "q quit, arrows scroll", 21);
	if (cols > 8)
		mvaddnstr(0, cols - 8, now, 8);
	attroff(A_REVERSE);
	mvprintw(1, 0, "%.*s", cols, "");
	{
		char line[LINE_LEN];

		snprintf(line, sizeof(line),
			 "devices %u, NCs %u (%u held), processes %u, device memory %s of %s",
			 s->n_devs, ncs, held, t->n_procs,
			 size_str(true, used, u, sizeof(u)),
			 size_str(true, total, tot, sizeof(tot)));
		mvaddnstr(1, 0, line, cols);
	}
	body = rows > HEAD_LINES ? (unsigned int)rows - HEAD_LINES : 0;
	if (t->n_lines <= body)
		t->scroll = 0;
	else if (t->scroll > t->n_lines - body)
		t->scroll = t->n_lines - body;
	for (row = 0; row < body && t->scroll + row < t->n_lines; row++) {
		unsigned int l = t->scroll + row;

		if (t->attrs[l])
			attron(A_REVERSE);
		mvaddnstr(HEAD_LINES + row, 0, t->txt[l], cols);
		if (t->attrs[l])
			attroff(A_REVERSE);
	}
	if (body && t->scroll + body < t->n_lines) {
		char more[64];

		snprintf(more, sizeof(more), "-- %u more lines (Down, Page Down) --",
			 t->n_lines - t->scroll - body + 1);
		move(rows - 1, 0);
		clrtoeol();
		mvaddnstr(rows - 1, 0, more, cols);
	}
	refresh();
}

/* The keys: false to quit. */
static bool handle_key(struct top *t, int ch)
{
	int rows = LINES;
	unsigned int page = rows > HEAD_LINES + 1 ? rows - HEAD_LINES - 1 : 1;

	switch (ch) {
	case 'q':
	case 'Q':
		return false;
	case KEY_UP:
	case 'k':
		if (t->scroll)
			t->scroll--;
		break;
	case KEY_DOWN:
	case 'j':
		t->scroll++;
		break;
	case KEY_PPAGE:
		t->scroll = t->scroll > page ? t->scroll - page : 0;
		break;
	case KEY_NPAGE:
	case ' ':
		t->scroll += page;
		break;
	case KEY_HOME:
		t->scroll = 0;
		break;
	default:
		break;
	}
	return true;
}

static void top_free(struct top *t)
{
	if (t->have_snap)
		nt_snapshot_free(&t->snap);
	free(t->prev);
	free(t->util);
	free(t->procs);
	free(t->txt);
	free(t->attrs);
	nt_ctx_close(&t->ctx);
}

static int run(struct top *t)
{
	double next;
	SCREEN *scr;
	int ret = 0;

	scr = newterm(NULL, stdout, stdin);
	if (!scr) {
		const char *term = getenv("TERM");

		fprintf(stderr, "%s: cannot use the terminal (TERM=%s): no terminfo entry?\n",
			prog, term ? term : "(unset)");
		return TOP_EXIT_NO_TTY;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	curs_set(0);
	next = mono_now();
	for (;;) {
		double now = mono_now();
		int ch, wait_ms;

		if (now >= next) {
			ret = sample(t);
			if (ret)
				break;
			next = now + REFRESH_MS / 1000.0;
			draw(t);
		}
		wait_ms = (int)((next - mono_now()) * 1000) + 1;
		timeout(wait_ms > 0 ? wait_ms : 0);
		ch = getch();
		if (ch == ERR)
			continue;
		if (!handle_key(t, ch))
			break;
		draw(t);
	}
	endwin();
	delscreen(scr);
	return ret;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char type[LINE_LEN / 2], id[LINE_LEN / 2];
	struct top t = { 0 };
	int c, ret;

	c = getopt_long(argc, argv, "h", opts, NULL);
	if (c == 'h' && optind == argc) {
		print_usage(stdout);
		return NT_EXIT_OK;
	}
	/* No option but --help, no argument. */
	if (c != -1 || optind < argc) {
		print_usage(stderr);
		return NT_EXIT_USAGE;
	}
	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
		fprintf(stderr,
			"%s: standard input and output must be a terminal (for a report without one, use neuron-monitor or neuron-ls)\n",
			prog);
		return TOP_EXIT_NO_TTY;
	}
	if (setupterm(NULL, STDOUT_FILENO, &c) != OK) {
		const char *term = getenv("TERM");

		fprintf(stderr, "%s: cannot use the terminal (TERM=%s): %s\n", prog,
			term ? term : "(unset)",
			c == 0 ? "no terminfo entry for it" : "not a usable terminal type");
		return TOP_EXIT_NO_TTY;
	}
	ret = nt_ctx_open(&t.ctx, prog);
	if (ret)
		return ret;
	ret = sample(&t);
	if (!ret && !t.snap.n_devs) {
		fprintf(stderr, "%s: no neuron device\n", prog);
		ret = NT_EXIT_NO_MODULE;
	}
	if (!ret) {
		nt_instance_read(type, sizeof(type), id, sizeof(id));
		snprintf(t.instance, sizeof(t.instance), "%s %s", type[0] ? type : "-",
			 id[0] ? id : "");
		ret = run(&t);
	}
	top_free(&t);
	return ret;
}
