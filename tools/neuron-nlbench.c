// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-nlbench: what the generic netlink family "neuron" costs.
 *
 *  - the NC_GET dump of 16 simulated v3 devices (8 NCs each) against one
 *    NEURON_IOCTL_QUERY (NEURON_QUERY_NC_STATE) of each of them, median of
 *    many rounds, and their ratio;
 *  - the latency of an event: a DMA fault injected (dma_fail_next = 1,
 *    then a COPY on the device) until its NEURON_EVENT_DMA_FAULT arrives
 *    on the "events" group, best of 5.
 *
 * Root only (it creates and deletes simulated devices, IDs 7700-7715).
 * Prints "bench: <name> <value> (<note>)" lines; exit 0, 1 without the
 * module, 2 on any other error.
 *
 * Build: make -f tools/Makefile.nl O=dir
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>

#include "neuron.h"
#include "neuron_netlink.h"
#include "nl_common.h"
#include "neuron_io.h"

#define SIM_BUS		"/sys/bus/neuron_sim"
#define N_DEVS		16
#define FIRST_ID	7700
#define ROUNDS		200
#define LAT_TRIES	5

/* The result lines, one a #define to keep them whole for grep. */
#define FMT_DUMP_US \
	"bench: nc_get_dump_us %.1f (NC_GET dump of %u NCs, %d v3 devices created, median of %d)\n"
#define FMT_QUERY_US \
	"bench: nc_state_query_us %.1f (NEURON_QUERY_NC_STATE of each of %d devices, median of %d)\n"
#define FMT_EVENT_MS \
	"bench: event_latency_ms %.3f (dma_fault: COPY with dma_fail_next=1 until the netlink event, best of %d)\n"

static const char *prog = "neuron-nlbench";
static int created[N_DEVS];
static unsigned int minors[N_DEVS];
static int fds[N_DEVS] = { [0 ... N_DEVS - 1] = -1 };

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int sysfs_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), err = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, text, strlen(text)) != (ssize_t)strlen(text))
		err = -errno ?: -EIO;
	close(fd);
	return err;
}

static void cleanup(void)
{
	char text[32];
	int i;

	for (i = 0; i < N_DEVS; i++) {
		if (fds[i] >= 0)
			close(fds[i]);
		fds[i] = -1;
		if (created[i]) {
			snprintf(text, sizeof(text), "%d\n", FIRST_ID + i);
			sysfs_write(SIM_BUS "/del_device", text);
			created[i] = 0;
		}
	}
}

/* The minor of sim device @id once its node is there: 0 or -errno. */
static int sim_minor(unsigned int id, unsigned int *minor)
{
	char dir[128], path[192];
	struct dirent *de;
	struct stat st;
	int waited;

	snprintf(dir, sizeof(dir), SIM_BUS "/devices/neuron_sim%u/neuron", id);
	for (waited = 0; waited < 5000; waited += 10) {
		DIR *d = opendir(dir);

		while (d && (de = readdir(d)))
			if (sscanf(de->d_name, "neuron%u", minor) == 1) {
				closedir(d);
				snprintf(path, sizeof(path), "/dev/neuron%u", *minor);
				for (; waited < 5000; waited += 10) {
					if (!stat(path, &st))
						return 0;
					usleep(10000);
				}
				return -ETIMEDOUT;
			}
		if (d)
			closedir(d);
		usleep(10000);
	}
	return -ETIMEDOUT;
}

static int count_cb(struct nl_msg *msg, void *arg)
{
	(void)msg;
	(*(unsigned int *)arg)++;
	return NL_OK;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

struct nc_states {
	struct neuron_nc_states h;
	struct neuron_nc_state nc[16];
};

static int bench_dump(struct nt_ctx *c)
{
	static double dump[ROUNDS], query[ROUNDS];
	struct nc_states st;
	unsigned int n = 0;
	int r, i, err;

	for (r = 0; r < ROUNDS; r++) {
		double t0 = now_us();

		n = 0;
		err = nt_dump(c, NEURON_CMD_NC_GET, count_cb, &n);
		if (err) {
			nt_report(prog, "NC_GET dump", err);
			return 2;
		}
		dump[r] = now_us() - t0;
		t0 = now_us();
		for (i = 0; i < N_DEVS; i++) {
			if (nio_query(fds[i], NEURON_QUERY_NC_STATE, &st, sizeof(st), NULL)) {
				perror("NEURON_IOCTL_QUERY");
				return 2;
			}
		}
		query[r] = now_us() - t0;
	}
	qsort(dump, ROUNDS, sizeof(double), cmp_double);
	qsort(query, ROUNDS, sizeof(double), cmp_double);
	printf(FMT_DUMP_US,
	       dump[ROUNDS / 2], n, N_DEVS, ROUNDS);
	printf(FMT_QUERY_US,
	       query[ROUNDS / 2], N_DEVS, ROUNDS);
	printf("bench: dump_vs_query_ratio %.2f (NC_GET dump / QUERY of each device)\n",
	       dump[ROUNDS / 2] / query[ROUNDS / 2]);
	return 0;
}

struct lat_state {
	unsigned int dev;
	bool got;
};

static int fault_cb(struct nl_msg *msg, void *arg)
{
	struct nlattr *tb[NEURON_A_MAX + 1];
	struct lat_state *l = arg;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, NEURON_A_MAX, nt_neuron_policy()) < 0 ||
	    !tb[NEURON_A_EVENT_TYPE] || !tb[NEURON_A_DEV_INDEX])
		return NL_SKIP;
	if (nla_get_u32(tb[NEURON_A_EVENT_TYPE]) == NEURON_EVENT_DMA_FAULT &&
	    nla_get_u32(tb[NEURON_A_DEV_INDEX]) == l->dev)
		l->got = true;
	return NL_OK;
}

/* Receive events for up to @ms: stops early once l->got. */
static int pump(struct nt_ctx *ev, struct lat_state *l, int ms)
{
	double end = now_us() + ms * 1000.0;

	while (!l->got) {
		struct pollfd pfd = { .fd = nl_socket_get_fd(ev->sk), .events = POLLIN };
		double left = (end - now_us()) / 1000;
		int n;

		if (left <= 0)
			return -ETIMEDOUT;
		if (poll(&pfd, 1, (int)left + 1) <= 0)
			continue;
		n = nl_recvmsgs_default(ev->sk);
		if (n < 0 && n != -NLE_NOMEM)
			return n;
	}
	return 0;
}

static int bench_latency(void)
{
	struct neuron_mem_alloc a = { .size = 4096, .kind = NEURON_MEM_DEVICE,
				      .channel = NEURON_MEM_CHANNEL_ANY };
	static char buf[4096];
	struct lat_state l = { .dev = minors[0] };
	double best = 1e18, t0;
	struct nt_ctx ev;
	char knob[128];
	int grp, i, err;

	if (nt_ctx_open(&ev, prog))
		return 2;
	nl_socket_disable_seq_check(ev.sk);
	grp = genl_ctrl_resolve_grp(ev.sk, NEURON_GENL_NAME, NEURON_GENL_MCGRP_EVENTS);
	err = grp < 0 ? grp : nl_socket_add_membership(ev.sk, grp);
	if (err < 0) {
		nt_report(prog, "joining the events group", err);
		nt_ctx_close(&ev);
		return 2;
	}
	nl_socket_modify_cb(ev.sk, NL_CB_VALID, NL_CB_CUSTOM, fault_cb, &l);
	if (nio_mem_alloc_req(fds[0], &a)) {
		perror("NEURON_IOCTL_MEM_ALLOC");
		nt_ctx_close(&ev);
		return 2;
	}
	snprintf(knob, sizeof(knob), SIM_BUS "/devices/neuron_sim%d/dma_fail_next",
		 FIRST_ID);
	for (i = 0; i < LAT_TRIES; i++) {
		/* Let the previous fault's reset end; drop its events. */
		l.got = false;
		pump(&ev, &l, 300);
		l.got = false;
		err = sysfs_write(knob, "1\n");
		if (err) {
			fprintf(stderr, "%s: %s: %s\n", prog, knob, strerror(-err));
			break;
		}
		t0 = now_us();
		if (!nio_write(fds[0], a.handle, 0, buf, sizeof(buf)))
			fprintf(stderr, "%s: the COPY did not fail\n", prog);
		err = pump(&ev, &l, 2000);
		if (err) {
			fprintf(stderr, "%s: no dma_fault event: %s\n", prog,
				err == -ETIMEDOUT ? "timed out" : nl_geterror(-err));
			break;
		}
		if (now_us() - t0 < best)
			best = now_us() - t0;
	}
	nt_ctx_close(&ev);
	if (i < LAT_TRIES)
		return 2;
	printf(FMT_EVENT_MS,
	       best / 1000, LAT_TRIES);
	return 0;
}

int main(int argc, char **argv)
{
	char text[64];
	struct nt_ctx c;
	int i, err, ret;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "Usage: %s (no arguments; root, neuron_sim loaded)\n", prog);
		return 64;
	}
	ret = nt_ctx_open(&c, prog);
	if (ret)
		return ret;
	atexit(cleanup);
	for (i = 0; i < N_DEVS; i++) {
		snprintf(text, sizeof(text), "%d v3\n", FIRST_ID + i);
		err = sysfs_write(SIM_BUS "/new_device", text);
		if (err) {
			fprintf(stderr, "%s: new_device '%d v3': %s\n", prog, FIRST_ID + i,
				strerror(-err));
			return 2;
		}
		created[i] = 1;
		err = sim_minor(FIRST_ID + i, &minors[i]);
		if (!err) {
			fds[i] = nio_open(minors[i], O_RDWR);
			err = fds[i] < 0 ? fds[i] : 0;
		}
		if (err) {
			fprintf(stderr, "%s: sim device %d: %s\n", prog, FIRST_ID + i,
				strerror(-err));
			return 2;
		}
	}
	ret = bench_dump(&c);
	if (!ret)
		ret = bench_latency();
	nt_ctx_close(&c);
	return ret;
}
