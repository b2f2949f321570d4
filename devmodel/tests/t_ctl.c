// SPDX-License-Identifier: GPL-2.0
/* The control protocol parser. */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "ctl.h"
#include "test.h"

static bool ok(struct dev *d, const char *line, char *out)
{
	ctl_exec(d, line, out, CTL_OUT_MAX);
	return strlen(out) >= 3 && !strcmp(out + strlen(out) - 3, "ok\n");
}

static bool err(struct dev *d, const char *line, char *out)
{
	ctl_exec(d, line, out, CTL_OUT_MAX);
	return !strncmp(out, "err ", 4) && out[strlen(out) - 1] == '\n';
}

static void commands(void)
{
	struct dev *d = t_dev("trn1", false);
	char out[CTL_OUT_MAX];

	CHECK(ok(d, "stats", out));
	CHECK(strstr(out, "descs 0\n") && strstr(out, "mbox_req 0\n") && strstr(out, "dma_maps 0\n"));
	CHECK(ok(d, "help", out));
	CHECK(ok(d, "engine-status 33", out));
	CHECK(strstr(out, "engine 33 base 0x30d00000"));
	CHECK(ok(d, "engine-slow 0 100", out));
	CHECK_EQ(d->eng[0].slow_us, 100);
	CHECK(ok(d, "engine-hang 1", out));
	CHECK(d->eng[1].hang);
	CHECK(ok(d, "engine-hang 1 off", out));
	CHECK(!d->eng[1].hang);
	CHECK(ok(d, "desc-error 2", out));
	CHECK(d->eng[2].inject_err);
	CHECK(ok(d, "lost-completion 3", out));
	CHECK_EQ(atomic_load(&d->lost_completion), 3);
	CHECK(ok(d, "mailbox-silent on", out) && d->mbox_silent);
	CHECK(ok(d, "reset-refuse on", out) && d->reset_refuse);
	CHECK(ok(d, "reset-delay 250", out));
	CHECK_EQ(d->reset_delay_ms, 250);
	CHECK(ok(d, "not-ready forever", out));
	CHECK_EQ(d->ready_at, NEVER);
	CHECK(ok(d, "  not-ready\t0  ", out));
	CHECK(d->ready_at != NEVER);
	CHECK(err(d, "intx", out));			/* no eventfd */
	CHECK(ok(d, "vanish on", out) && atomic_load(&d->vanished));
	CHECK(ok(d, "vanish off", out) && !atomic_load(&d->vanished));
	CHECK(ctl_exec(d, "quit", out, sizeof(out)));
	CHECK(!strcmp(out, "ok\n"));
	dev_destroy(d);
}

/* `die` ends the process by SIGKILL, with no answer (in a child here). */
static void die(void)
{
	struct dev *d = t_dev("trn1", false);
	char out[CTL_OUT_MAX];
	int status = 0;
	pid_t pid;

	fflush(NULL);
	pid = fork();
	CHECK(pid >= 0);
	if (!pid) {
		ctl_exec(d, "die", out, sizeof(out));
		_exit(0);
	}
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	CHECK(err(d, "die now", out));
	dev_destroy(d);
}

static void bad_commands(void)
{
	struct dev *d = t_dev("trn1", false);
	char out[CTL_OUT_MAX], longline[400];

	CHECK(err(d, "", out));
	CHECK(err(d, "frobnicate", out));
	CHECK(err(d, "engine-hang 34", out));		/* trn1 has 0..33 */
	CHECK(err(d, "engine-hang -1", out));
	CHECK(err(d, "engine-hang 1 maybe", out));
	CHECK(err(d, "engine-slow 1", out));
	CHECK(err(d, "engine-slow 1 x", out));
	CHECK(err(d, "engine-slow 1 99999999999", out));
	CHECK(err(d, "desc-error", out));
	CHECK(err(d, "mailbox-silent", out));
	CHECK(err(d, "vanish", out));
	CHECK(err(d, "vanish maybe", out));
	CHECK(err(d, "vanish on now", out));
	CHECK(err(d, "reset-delay 1e3", out));
	CHECK(err(d, "not-ready soon", out));
	CHECK(err(d, "ecc 5 1", out));
	CHECK(err(d, "nq nc 2 0", out));			/* trn1 has NC 0, 1 */
	CHECK(err(d, "nq nc 0 96", out));
	CHECK(err(d, "notify nc 0 0 1 2 3", out));	/* slot not valid */
	CHECK(err(d, "stats extra", out));
	CHECK(err(d, "a b c d e f g h i", out));		/* too many words */
	memset(longline, 'x', sizeof(longline) - 1);
	longline[sizeof(longline) - 1] = 0;
	CHECK(err(d, longline, out));
	CHECK(!ctl_exec(d, "quit now", out, sizeof(out)));
	dev_destroy(d);
}

const struct test ctl_tests[] = {
	{ "ctl.commands", commands },
	{ "ctl.bad_commands", bad_commands },
	{ "ctl.die", die },
	{ NULL, NULL },
};
