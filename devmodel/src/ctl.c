// SPDX-License-Identifier: GPL-2.0
/* Control commands: see ctl.h and docs/devmodel.md. */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ctl.h"
#include "dev.h"
#include "util.h"

#define MAX_ARGS 8

struct out {
	char *buf;
	size_t len, cap;
};

static void put(struct out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void put(struct out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (o->len + 1 >= o->cap)
		return;
	va_start(ap, fmt);
	n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	o->len += (size_t)n < o->cap - o->len ? (size_t)n : o->cap - o->len - 1;
}

static bool num(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return false;
	errno = 0;
	*v = strtoull(s, &end, 0);
	return !errno && !*end && *v <= max;
}

static int onoff(const char *s)
{
	if (!s)
		return -1;
	if (!strcmp(s, "on"))
		return 1;
	if (!strcmp(s, "off"))
		return 0;
	return -1;
}

static int find_nq(struct dev *d, const char *kind, const char *idx)
{
	uint64_t i;
	int owner;

	if (!kind || !num(idx, 0xFFFF, &i))
		return -1;
	if (!strcmp(kind, "nc"))
		owner = NQO_NC;
	else if (!strcmp(kind, "topsp"))
		owner = NQO_TOPSP;
	else if (!strcmp(kind, "sdma"))
		owner = NQO_SDMA;
	else
		return -1;
	for (unsigned b = 0; b < d->n_nq; b++)
		if (d->nq[b].owner == owner && d->nq[b].owner_idx == i)
			return (int)b;
	return -1;
}

static const char help[] =
	"commands:\n"
	"  stats\n"
	"  engine-hang ENGINE [on|off]   engine-slow ENGINE US   desc-error ENGINE\n"
	"  engine-status ENGINE\n"
	"  lost-completion [N]\n"
	"  mailbox-silent on|off   reset-refuse on|off   reset-delay MS\n"
	"  not-ready MS|forever   ecc INDEX VALUE   intx   vanish on|off\n"
	"  nq nc|topsp|sdma INDEX SLOT\n"
	"  notify nc|topsp|sdma INDEX SLOT TYPE CODE DATA\n"
	"  quit   die\n";

static void stats(struct dev *d, struct out *o)
{
	struct dev_stats *s = &d->st;

#define S(name) put(o, #name " %" PRIu64 "\n", (uint64_t)atomic_load(&s->name))
	S(descs);
	S(packets);
	S(bytes);
	S(errors);
	S(doorbells);
	S(tpb_resets);
	S(dev_resets);
	S(pci_resets);
	S(resets_refused);
	S(last_tpb_map);
	S(reset_requests);
	S(tpb_reset_ncs);
	S(mbox_req);
	S(mbox_bad);
	S(mbox_ignored);
	S(markers_dropped);
	S(nq_writes);
	S(unknown_reads);
	S(unknown_writes);
	S(vanished_reads);
	S(vanished_writes);
#undef S
	put(o, "vanished %d\n", (int)atomic_load(&d->vanished));
	put(o, "dma_maps %zu\n", d->dma.n);
}

static void engine_status(struct engine *e, struct out *o)
{
	pthread_mutex_lock(&e->lock);
	put(o, "engine %u base 0x%" PRIx64 " hang %d slow_us %u forced_abort %d disabled %d"
	    " fw_resets %" PRIu64 " setup_writes %u\n",
	    e->id, e->base, e->hang, e->slow_us, e->forced_abort, e->disabled, e->fw_resets,
	    e->setup_writes);
	for (unsigned q = 0; q < QUEUES_PER_ENGINE; q++) {
		for (int s = 0; s < 2; s++) {
			struct udma_side *u = &e->q[q].s[s];

			if (!u->pending && !u->err && !u->head && !u->tail && u->head_rid == 1 && u->tail_rid == 1)
				continue;
			put(o, "queue %u %s head %u/%u tail %u/%u pending %u error %s\n", q,
			    s ? "s2m" : "m2s", u->head, u->head_rid, u->tail, u->tail_rid, u->pending,
			    u->err ? q_err_str(u->err) : "none");
		}
	}
	pthread_mutex_unlock(&e->lock);
}

static bool run(struct dev *d, char **a, int n, struct out *o)
{
	uint64_t v = 0, w = 0;
	int f = 0;

	if (!strcmp(a[0], "help")) {
		put(o, "%s", help);
	} else if (!strcmp(a[0], "stats") && n == 1) {
		stats(d, o);
	} else if (!strcmp(a[0], "quit") && n == 1) {
		return true;
	} else if (!strcmp(a[0], "die") && n == 1) {
		/*
		 * Surprise removal for real: the process ends at once, as under
		 * kill -9, with no answer and nothing closed in order (the
		 * kernel closes the sockets). Its status is 137 (128 + SIGKILL).
		 */
		log_info("control: die: SIGKILL to itself");
		raise(SIGKILL);
	} else if ((!strcmp(a[0], "engine-hang") && (n == 2 || n == 3)) ||
		   (!strcmp(a[0], "engine-slow") && n == 3) ||
		   (!strcmp(a[0], "desc-error") && n == 2) ||
		   (!strcmp(a[0], "engine-status") && n == 2)) {
		struct engine *e;

		if (!num(a[1], d->p->n_engines - 1, &v)) {
			put(o, "err engine must be 0..%u\n", d->p->n_engines - 1);
			return false;
		}
		e = &d->eng[v];
		if (!strcmp(a[0], "engine-status")) {
			engine_status(e, o);
		} else {
			if (a[0][7] == 'h') {
				f = n == 3 ? onoff(a[2]) : 1;
				if (f < 0) {
					put(o, "err expected on or off\n");
					return false;
				}
			} else if (a[0][7] == 's' && !num(a[2], 60000000, &w)) {
				put(o, "err microseconds must be 0..60000000\n");
				return false;
			}
			pthread_mutex_lock(&e->lock);
			if (a[0][7] == 'h')
				e->hang = f;
			else if (a[0][7] == 's')
				e->slow_us = (uint32_t)w;
			else
				e->inject_err = true;
			pthread_cond_broadcast(&e->cv);
			if (d->o.sync)
				udma_run(e);
			pthread_mutex_unlock(&e->lock);
		}
	} else if (!strcmp(a[0], "lost-completion") && n <= 2) {
		v = 1;
		if (n == 2 && !num(a[1], 1000000, &v)) {
			put(o, "err count must be 0..1000000\n");
			return false;
		}
		atomic_store(&d->lost_completion, (uint32_t)v);
	} else if ((!strcmp(a[0], "mailbox-silent") || !strcmp(a[0], "reset-refuse")) && n == 2) {
		f = onoff(a[1]);
		if (f < 0) {
			put(o, "err expected on or off\n");
			return false;
		}
		pthread_mutex_lock(&d->lock);
		if (a[0][0] == 'm')
			d->mbox_silent = f;
		else
			d->reset_refuse = f;
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(a[0], "vanish") && n == 2) {
		f = onoff(a[1]);
		if (f < 0) {
			put(o, "err expected on or off\n");
			return false;
		}
		dev_vanish(d, f);
	} else if (!strcmp(a[0], "reset-delay") && n == 2) {
		if (!num(a[1], 3600000, &v)) {
			put(o, "err milliseconds must be 0..3600000\n");
			return false;
		}
		pthread_mutex_lock(&d->lock);
		d->reset_delay_ms = (uint32_t)v;
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(a[0], "not-ready") && n == 2) {
		bool forever = !strcmp(a[1], "forever");

		if (!forever && !num(a[1], 86400000, &v)) {
			put(o, "err expected milliseconds or forever\n");
			return false;
		}
		pthread_mutex_lock(&d->lock);
		d->ready_at = forever ? NEVER : now_ms() + v;
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(a[0], "ecc") && n == 3) {
		if (!num(a[1], 4, &v) || !num(a[2], 0xFFFFFFFF, &w)) {
			put(o, "err ecc INDEX(0..4) VALUE\n");
			return false;
		}
		pthread_mutex_lock(&d->lock);
		d->misc[0x40 / 4 + v] = (uint32_t)w;
		pthread_mutex_unlock(&d->lock);
	} else if (!strcmp(a[0], "intx") && n == 1) {
		if (!dev_intx_raise(d)) {
			put(o, "err INTx not raised (no eventfd, masked, or disabled)\n");
			return false;
		}
	} else if ((!strcmp(a[0], "nq") && n == 4) || (!strcmp(a[0], "notify") && n == 7)) {
		int b = find_nq(d, a[1], a[2]);
		uint64_t slot, type = 0, code = 0, data = 0;
		char err[128];

		if (b < 0 || !num(a[3], NQ_SLOTS - 1, &slot)) {
			put(o, "err no such notification block or slot\n");
			return false;
		}
		if (n == 4) {
			pthread_mutex_lock(&d->lock);
			put(o, "block 0x%" PRIx64 " slot %" PRIu64 ": %s, next seq %u\n", d->nq[b].base,
			    slot, d->nq[b].slot[slot].why, d->nq[b].slot[slot].seq);
			pthread_mutex_unlock(&d->lock);
		} else {
			if (!num(a[4], 0xFFFF, &type) || !num(a[5], 0xFFFFFFFF, &code) ||
			    !num(a[6], 0xFFFFFFFF, &data)) {
				put(o, "err TYPE is 16-bit, CODE and DATA 32-bit\n");
				return false;
			}
			pthread_mutex_lock(&d->lock);
			f = nq_notify(d, (unsigned)b, (unsigned)slot, (uint16_t)type,
				      d->nq[b].owner == NQO_NC ? d->nq[b].owner_idx : 0,
				      (uint32_t)code, (uint32_t)data, err, sizeof(err));
			pthread_mutex_unlock(&d->lock);
			if (f) {
				put(o, "err %s\n", err);
				return false;
			}
		}
	} else {
		put(o, "err unknown command or wrong arguments (try help)\n");
		return false;
	}
	put(o, "ok\n");
	return false;
}

bool ctl_exec(struct dev *d, const char *line, char *outbuf, size_t outlen)
{
	char copy[CTL_LINE_MAX + 1], *a[MAX_ARGS], *save = NULL, *t;
	struct out o = { outbuf, 0, outlen };
	int n = 0;
	bool quit;

	outbuf[0] = 0;
	if (strlen(line) > CTL_LINE_MAX) {
		put(&o, "err line too long\n");
		return false;
	}
	strcpy(copy, line);
	for (t = strtok_r(copy, " \t\r", &save); t; t = strtok_r(NULL, " \t\r", &save)) {
		if (n == MAX_ARGS) {
			put(&o, "err too many arguments\n");
			return false;
		}
		a[n++] = t;
	}
	if (!n) {
		put(&o, "err empty command\n");
		return false;
	}
	quit = run(d, a, n, &o);
	if (quit)
		put(&o, "ok\n");
	return quit;
}
