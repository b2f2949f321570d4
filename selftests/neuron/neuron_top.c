// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: neuron-top (tools/neuron-top.c), the terminal view,
 * run beside this program (or in NEURON_TOOLS_DIR) under a pseudo-terminal
 * of 80x24 with TERM=vt100.  The screen is rebuilt from what the tool
 * writes by a small VT100 interpreter (cursor moves, erases, scroll
 * regions), then read as text: the device of a workload child, the NC it
 * reserved with its pid, the process with the device memory charged to
 * that NC; `q` ends the tool with status 0.  Without a terminal, with an
 * unknown terminal and without any device it exits with a message and a
 * non-zero status.  Every test skips when the tool is not there.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <limits.h>
#include <poll.h>
#include <pty.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define ROWS		24
#define COLS		80
#define TOP_WAIT_MS	20000	/* a frame under QEMU without KVM */
#define WORK_SIZE	(3ULL << 20)
#define WORK_SIZE_STR	"3.0M"

static char tool[PATH_MAX];

/* The tool: NEURON_TOOLS_DIR/neuron-top, else beside this program. */
static bool find_tool(void)
{
	const char *dir = getenv("NEURON_TOOLS_DIR");
	char exe[PATH_MAX] = "";
	ssize_t n;

	if (!dir || !*dir) {
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		exe[n > 0 ? n : 0] = '\0';
		dir = n > 0 ? dirname(exe) : ".";
	}
	if ((size_t)snprintf(tool, sizeof(tool), "%s/neuron-top", dir) >= sizeof(tool))
		return false;
	return access(tool, X_OK) == 0;
}

/* ---- a VT100 screen, enough for what ncurses writes ---- */

struct screen {
	char cell[ROWS][COLS];
	int r, c, top, bot, saved_r, saved_c;
	bool wrap;		/* the last column was written */
	int state;		/* 0 text, 1 after ESC, 2 CSI, 3 charset byte */
	int p[8], np;
	bool priv;		/* CSI ? ... */
	char out[8192];		/* the start of the raw output, for messages */
	size_t out_len;
};

static void scr_init(struct screen *s)
{
	memset(s, 0, sizeof(*s));
	memset(s->cell, ' ', sizeof(s->cell));
	s->bot = ROWS - 1;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Scroll rows top..bot by @n (> 0 up, < 0 down), blank rows coming in. */
static void scr_scroll(struct screen *s, int top, int bot, int n)
{
	int i;

	for (; n > 0; n--) {
		for (i = top; i < bot; i++)
			memcpy(s->cell[i], s->cell[i + 1], COLS);
		memset(s->cell[bot], ' ', COLS);
	}
	for (; n < 0; n++) {
		for (i = bot; i > top; i--)
			memcpy(s->cell[i], s->cell[i - 1], COLS);
		memset(s->cell[top], ' ', COLS);
	}
}

static void scr_newline(struct screen *s)
{
	if (s->r == s->bot)
		scr_scroll(s, s->top, s->bot, 1);
	else if (s->r < ROWS - 1)
		s->r++;
}

static int arg(const struct screen *s, int i, int def)
{
	return i < s->np && s->p[i] ? s->p[i] : def;
}

static void scr_csi(struct screen *s, char f)
{
	int n = arg(s, 0, 1), i;

	s->wrap = false;
	if (s->priv)
		return;		/* modes (cursor keys, cursor visibility) */
	switch (f) {
	case 'H':
	case 'f':
		s->r = clampi(arg(s, 0, 1) - 1, 0, ROWS - 1);
		s->c = clampi(arg(s, 1, 1) - 1, 0, COLS - 1);
		break;
	case 'A':
		s->r = clampi(s->r - n, 0, ROWS - 1);
		break;
	case 'B':
		s->r = clampi(s->r + n, 0, ROWS - 1);
		break;
	case 'C':
		s->c = clampi(s->c + n, 0, COLS - 1);
		break;
	case 'D':
		s->c = clampi(s->c - n, 0, COLS - 1);
		break;
	case 'G':
		s->c = clampi(n - 1, 0, COLS - 1);
		break;
	case 'd':
		s->r = clampi(n - 1, 0, ROWS - 1);
		break;
	case 'K':
		i = s->np ? s->p[0] : 0;
		if (i == 0)
			memset(&s->cell[s->r][s->c], ' ', COLS - s->c);
		else if (i == 1)
			memset(s->cell[s->r], ' ', s->c + 1);
		else
			memset(s->cell[s->r], ' ', COLS);
		break;
	case 'J':
		i = s->np ? s->p[0] : 0;
		if (i == 0) {
			memset(&s->cell[s->r][s->c], ' ', COLS - s->c);
			if (s->r < ROWS - 1)
				memset(s->cell[s->r + 1], ' ', (ROWS - s->r - 1) * COLS);
		} else if (i == 1) {
			memset(s->cell, ' ', s->r * COLS);
			memset(s->cell[s->r], ' ', s->c + 1);
		} else {
			memset(s->cell, ' ', sizeof(s->cell));
		}
		break;
	case 'r':
		s->top = clampi(arg(s, 0, 1) - 1, 0, ROWS - 1);
		s->bot = clampi(arg(s, 1, ROWS) - 1, s->top, ROWS - 1);
		s->r = 0;
		s->c = 0;
		break;
	case 'L':
	case 'M':
		if (s->r >= s->top && s->r <= s->bot)
			scr_scroll(s, s->r, s->bot, f == 'L' ? -n : n);
		break;
	case 'P':
		n = clampi(n, 0, COLS - s->c);
		memmove(&s->cell[s->r][s->c], &s->cell[s->r][s->c + n], COLS - s->c - n);
		memset(&s->cell[s->r][COLS - n], ' ', n);
		break;
	case '@':
		n = clampi(n, 0, COLS - s->c);
		memmove(&s->cell[s->r][s->c + n], &s->cell[s->r][s->c], COLS - s->c - n);
		memset(&s->cell[s->r][s->c], ' ', n);
		break;
	case 'X':
		memset(&s->cell[s->r][s->c], ' ', clampi(n, 0, COLS - s->c));
		break;
	default:		/* m (attributes) and the rest: no text */
		break;
	}
}

static void scr_esc(struct screen *s, char ch)
{
	s->state = 0;
	switch (ch) {
	case '[':
		s->state = 2;
		s->np = 0;
		s->priv = false;
		memset(s->p, 0, sizeof(s->p));
		break;
	case '(':
	case ')':
		s->state = 3;
		break;
	case '7':
		s->saved_r = s->r;
		s->saved_c = s->c;
		break;
	case '8':
		s->r = s->saved_r;
		s->c = s->saved_c;
		break;
	case 'M':
		if (s->r == s->top)
			scr_scroll(s, s->top, s->bot, -1);
		else if (s->r > 0)
			s->r--;
		break;
	case 'D':
		scr_newline(s);
		break;
	case 'E':
		s->c = 0;
		scr_newline(s);
		break;
	default:		/* = > c and others: no text */
		break;
	}
}

static void scr_char(struct screen *s, char ch)
{
	if (s->wrap) {
		s->wrap = false;
		s->c = 0;
		scr_newline(s);
	}
	s->cell[s->r][s->c] = ch;
	if (s->c == COLS - 1)
		s->wrap = true;
	else
		s->c++;
}

static void scr_feed(struct screen *s, const char *buf, size_t len)
{
	size_t i;

	if (s->out_len < sizeof(s->out) - 1) {
		size_t n = len < sizeof(s->out) - 1 - s->out_len ? len :
			   sizeof(s->out) - 1 - s->out_len;

		memcpy(s->out + s->out_len, buf, n);
		s->out_len += n;
		s->out[s->out_len] = '\0';
	}
	for (i = 0; i < len; i++) {
		unsigned char ch = buf[i];

		switch (s->state) {
		case 1:
			scr_esc(s, ch);
			continue;
		case 2:
			if (ch >= '0' && ch <= '9') {
				if (!s->np)
					s->np = 1;
				s->p[s->np - 1] = s->p[s->np - 1] * 10 + (ch - '0');
			} else if (ch == ';') {
				if (!s->np)
					s->np = 1;
				if (s->np < (int)ARRAY_SIZE(s->p))
					s->np++;
			} else if (ch == '?' || ch == '>') {
				s->priv = true;
			} else if (ch >= 0x40 && ch <= 0x7e) {
				s->state = 0;
				scr_csi(s, ch);
			}
			continue;
		case 3:
			s->state = 0;
			continue;
		}
		if (ch == 0x1b) {
			s->state = 1;
		} else if (ch == '\r') {
			s->c = 0;
			s->wrap = false;
		} else if (ch == '\n' || ch == '\v' || ch == '\f') {
			s->wrap = false;
			scr_newline(s);
		} else if (ch == '\b') {
			s->wrap = false;
			if (s->c > 0)
				s->c--;
		} else if (ch == '\t') {
			s->c = clampi((s->c / 8 + 1) * 8, 0, COLS - 1);
		} else if (ch >= 0x20 && ch != 0x7f) {
			scr_char(s, ch >= 0x80 ? '?' : ch);
		}
	}
}

/* Row @r as a string, without the spaces at its end. */
static void scr_row(const struct screen *s, int r, char *buf)
{
	int n = COLS;

	memcpy(buf, s->cell[r], COLS);
	while (n > 0 && buf[n - 1] == ' ')
		n--;
	buf[n] = '\0';
}

static void scr_log(struct __test_metadata *_metadata, const struct screen *s)
{
	char row[COLS + 1];
	int r;

	for (r = 0; r < ROWS; r++) {
		scr_row(s, r, row);
		TH_LOG("|%s", row);
	}
}

/* The row whose words @w[0..n-1] are at the given places (NULL: any), or -1. */
static int scr_find(const struct screen *s, const char *const *w, int n)
{
	char row[COLS + 1], *tok[16], *save;
	int r, k, nt;

	for (r = 0; r < ROWS; r++) {
		scr_row(s, r, row);
		nt = 0;
		for (tok[0] = strtok_r(row, " ", &save); tok[nt] && nt < 15;
		     tok[++nt] = strtok_r(NULL, " ", &save))
			;
		if (nt < n)
			continue;
		for (k = 0; k < n && (!w[k] || !strcmp(w[k], tok[k])); k++)
			;
		if (k == n)
			return r;
	}
	return -1;
}

/* ---- running the tool ---- */

struct top_run {
	pid_t pid;
	int master;
	struct screen scr;
};

static void top_env(const char *term)
{
	clearenv();
	setenv("PATH", "/bin:/sbin:/usr/bin", 1);
	setenv("LC_ALL", "C", 1);
	setenv("NCURSES_NO_PADDING", "1", 1);
	if (term)
		setenv("TERM", term, 1);
}

/* Start the tool on a new pseudo-terminal of 80x24: 0 or -errno. */
static int top_start(struct top_run *t, const char *term)
{
	struct winsize ws = { .ws_row = ROWS, .ws_col = COLS };

	scr_init(&t->scr);
	fflush(NULL);
	t->pid = forkpty(&t->master, NULL, NULL, &ws);
	if (t->pid < 0)
		return -errno;
	if (!t->pid) {
		top_env(term);
		execl(tool, "neuron-top", (char *)NULL);
		_exit(127);
	}
	return 0;
}

/*
 * Read what the tool writes for up to @ms, until @done says the screen is
 * complete (when given) or the tool exits: true if @done said so or the
 * tool ended (t->pid is then 0 and *@status its wait status).
 */
static bool top_read(struct top_run *t, int ms, bool (*done)(const struct screen *, void *),
		     void *arg, int *status)
{
	__s64 end = neuron_now_ns() + (__s64)ms * 1000000;
	char buf[4096];
	ssize_t n;

	for (;;) {
		struct pollfd p = { .fd = t->master, .events = POLLIN };
		__s64 left = (end - neuron_now_ns()) / 1000000;

		if (done && done(&t->scr, arg))
			return true;
		if (t->pid && waitpid(t->pid, status, WNOHANG) == t->pid)
			t->pid = 0;
		if (left <= 0)
			return !t->pid;
		if (poll(&p, 1, left > 200 ? 200 : (int)left) > 0) {
			n = read(t->master, buf, sizeof(buf));
			if (n > 0)
				scr_feed(&t->scr, buf, n);
			else if (!t->pid)
				return true;	/* ended and drained (EIO) */
			else if (n < 0 && errno == EIO)
				neuron_sleep_ms(50);
		}
	}
}

static void top_stop(struct top_run *t)
{
	if (t->pid > 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
		t->pid = 0;
	}
	if (t->master >= 0)
		close(t->master);
	t->master = -1;
}

/* ---- the workload: a child holding an NC and device memory ---- */

struct workload {
	pid_t pid;
	int go;			/* write end: closed to end the child */
};

/*
 * In the workload child: load the matrix model on @nc of @fd and execute
 * it until @go (non-blocking) reads its end. Return: 0, or -errno of the
 * setup.
 */
static int workload_exec(int fd, unsigned int nc, int go)
{
	__u32 bind[2], model, status;
	struct neuron_mem_alloc a;
	int k, err = 0;
	char c;

	for (k = 0; k < 2 && !err; k++) {
		err = neuron_mem_alloc(fd, NEURON_MEM_DEVICE, 4096, nc, &a);
		bind[k] = a.handle;
	}
	if (!err)
		err = neuron_mm_model_load(fd, nc, &model);
	if (!err && fcntl(go, F_SETFL, O_NONBLOCK))
		err = -errno;
	while (!err && read(go, &c, 1) < 0 && errno == EAGAIN)
		err = nio_execute_wait(fd, model, bind, 2, 0, &status);
	return err;
}

/*
 * Reserve @nc of @path and allocate WORK_SIZE on it in a child; with
 * @exec, then execute on it without a pause: 0/-errno.
 */
static int workload_start(struct workload *w, const char *path, unsigned int nc, bool exec)
{
	int ready[2], go[2], err = 0;
	ssize_t n;

	if (pipe2(ready, O_CLOEXEC) || pipe2(go, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	w->pid = fork();
	if (w->pid < 0)
		return -errno;
	if (!w->pid) {
		char c;
		int fd;

		close(ready[0]);
		close(go[1]);
		fd = open(path, O_RDWR | O_CLOEXEC);
		err = fd < 0 ? errno : 0;
		if (!err)
			err = -neuron_reserve(fd, 1ULL << nc);
		if (!err) {
			struct neuron_mem_alloc a;

			/* Tensors: the usage table's TENSORS column. */
			neuron_mem_alloc_prep(&a, NEURON_MEM_DEVICE, WORK_SIZE, nc);
			a.usage = NEURON_MEM_USAGE_TENSORS;
			err = -neuron_mem_alloc_req(fd, &a);
		}
		if (write(ready[1], &err, sizeof(err)) != sizeof(err))
			_exit(1);
		if (exec && !err)
			_exit(workload_exec(fd, nc, go[0]) ? 2 : 0);
		while (read(go[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	w->go = go[1];
	n = read(ready[0], &err, sizeof(err));
	close(ready[0]);
	return n == sizeof(err) ? -err : -EPIPE;
}

static void workload_stop(struct workload *w)
{
	if (w->pid > 0) {
		close(w->go);
		waitpid(w->pid, NULL, 0);
		w->pid = 0;
	}
}

/* ---- tests ---- */

FIXTURE(top) {
	struct neuron_node node;
	struct neuron_device_info info;
	struct workload work;
	struct top_run run;
};

FIXTURE_SETUP(top)
{
	self->work.pid = 0;
	self->run.pid = 0;
	self->run.master = -1;
	if (!find_tool())
		NEURON_SKIP_SETUP("%.200s not found (NEURON_TOOLS_DIR)", tool);
	neuron_setup_node(_metadata, &self->node, NULL, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
}

FIXTURE_TEARDOWN(top)
{
	top_stop(&self->run);
	workload_stop(&self->work);
	neuron_node_release(&self->node);
}

/* What the screen must show for the workload. */
struct expect {
	char dev[16], nc[24], pid[16], arch[24];
};

static bool rows_dev(const struct screen *s, const struct expect *e)
{
	const char *const w[] = { e->dev, e->arch };

	return scr_find(s, w, 2) >= 0;
}

static bool rows_nc(const struct screen *s, const struct expect *e)
{
	/* DEV:NC STATE PID UTIL EXECS ERRS MODELS DEV-MEM */
	const char *const w[] = { e->nc, "reserved", e->pid, NULL, NULL, NULL, NULL,
				  WORK_SIZE_STR };

	return scr_find(s, w, ARRAY_SIZE(w)) >= 0;
}

static bool rows_proc(const struct screen *s, const struct expect *e)
{
	/* PID COMMAND NCS UTIL DEV-MEM */
	const char *const w[] = { e->pid, NULL, e->nc, NULL, WORK_SIZE_STR };

	return scr_find(s, w, ARRAY_SIZE(w)) >= 0;
}

static bool rows_usage(const struct screen *s, const struct expect *e)
{
	/* DEV:NC PID TENSORS CONSTS CODE SCRATCH RUNTIME OTHER */
	const char *const w[] = { e->nc, e->pid, WORK_SIZE_STR, "0B", "0B", "0B", "0B", "0B" };

	return scr_find(s, w, ARRAY_SIZE(w)) >= 0;
}

static bool workload_shown(const struct screen *s, void *arg)
{
	const struct expect *e = arg;

	return rows_dev(s, e) && rows_nc(s, e) && rows_proc(s, e) && rows_usage(s, e);
}

/*
 * A child reserves the last NC of the device and allocates 3 MiB of
 * tensors charged to it: the device, the NC (reserved, the child's pid,
 * 3.0M), the process (its pid, the NC, 3.0M) and the NC's memory by usage
 * (3.0M of tensors, nothing else) are on the 80x24 screen; q ends the tool
 * with status 0 within 5 s.
 */
TEST_F(top, shows_workload_and_quits)
{
	unsigned int nc = self->info.nc_count - 1;
	struct expect e;
	int status = 0;
	bool shown;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_RESERVE | NEURON_CAP_MEM,
			       "NEURON_CAP_RESERVE and NEURON_CAP_MEM"))
		return;
	ASSERT_LT(0U, self->info.nc_count);
	ASSERT_EQ(0, workload_start(&self->work, self->node.path, nc, false));
	snprintf(e.dev, sizeof(e.dev), "%u", self->node.minor);
	snprintf(e.nc, sizeof(e.nc), "%u:%u", self->node.minor, nc);
	snprintf(e.pid, sizeof(e.pid), "%d", self->work.pid);
	snprintf(e.arch, sizeof(e.arch), "%.16s", self->info.arch_name);

	ASSERT_EQ(0, top_start(&self->run, "vt100"));
	shown = top_read(&self->run, TOP_WAIT_MS, workload_shown, &e, &status);
	/* The screen in the log, as the tool drew it. */
	scr_log(_metadata, &self->run.scr);
	if (!shown || !workload_shown(&self->run.scr, &e)) {
		TH_LOG("device row %d, NC row %d, process row %d, usage row %d (tool %s)",
		       rows_dev(&self->run.scr, &e), rows_nc(&self->run.scr, &e),
		       rows_proc(&self->run.scr, &e), rows_usage(&self->run.scr, &e),
		       self->run.pid ? "running" : "ended");
	}
	ASSERT_TRUE(self->run.pid > 0);
	ASSERT_TRUE(workload_shown(&self->run.scr, &e));
	/* The header names the tool; the screen is 80 columns, no more. */
	ASSERT_EQ(0, strncmp(self->run.scr.cell[0], "neuron-top", 10));

	ASSERT_EQ(1, write(self->run.master, "q", 1));
	ASSERT_TRUE(top_read(&self->run, 5000, NULL, NULL, &status));
	ASSERT_EQ(0, self->run.pid) TH_LOG("still running 5 s after q");
	ASSERT_TRUE(WIFEXITED(status));
	ASSERT_EQ(0, WEXITSTATUS(status));
}

/* The UTIL of NeuronCore e->nc on the screen, in percent; -1 if not shown. */
static int nc_util(const struct screen *s, const struct expect *e)
{
	char row[COLS + 1], *tok[4], *save;
	int r, k, pct;

	for (r = 0; r < ROWS; r++) {
		scr_row(s, r, row);
		/* DEV:NC STATE PID UTIL ... */
		for (k = 0, tok[0] = strtok_r(row, " ", &save); k < 3 && tok[k]; k++)
			tok[k + 1] = strtok_r(NULL, " ", &save);
		if (k == 3 && tok[3] && !strcmp(tok[0], e->nc) && !strcmp(tok[2], e->pid) &&
		    sscanf(tok[3], "%d%%", &pct) == 1)
			return pct;
	}
	return -1;
}

static bool util_shown(const struct screen *s, void *arg)
{
	return nc_util(s, arg) > 0;
}

/*
 * A child executes on the last NC of the device without a pause: its row
 * shows a UTIL above 0% (the NC's busy time over the refresh interval)
 * within a few refreshes.
 */
TEST_F(top, shows_utilization)
{
	unsigned int nc = self->info.nc_count - 1;
	struct expect e;
	int status = 0;

	if (neuron_skip_no_cap(_metadata, &self->node, self->info.caps,
			       NEURON_CAP_RESERVE | NEURON_CAP_MEM | NEURON_CAP_EXEC,
			       "NEURON_CAP_RESERVE, NEURON_CAP_MEM and NEURON_CAP_EXEC"))
		return;
	ASSERT_EQ(0, workload_start(&self->work, self->node.path, nc, true));
	snprintf(e.nc, sizeof(e.nc), "%u:%u", self->node.minor, nc);
	snprintf(e.pid, sizeof(e.pid), "%d", self->work.pid);
	ASSERT_EQ(0, top_start(&self->run, "vt100"));
	top_read(&self->run, TOP_WAIT_MS, util_shown, &e, &status);
	scr_log(_metadata, &self->run.scr);
	EXPECT_LT(0, nc_util(&self->run.scr, &e)) TH_LOG("NC %s of pid %s", e.nc, e.pid);
	EXPECT_TRUE(self->run.pid > 0) TH_LOG("the tool ended");
}

/*
 * Run the tool with @term (NULL: none) and stdin and stdout not a
 * terminal (@tty false) or a terminal: its exit status, stderr into @err.
 */
static int top_status(const char *term, bool tty, char *err, size_t size)
{
	struct top_run t = { .master = -1 };
	int status = -1, pipefd[2];
	size_t len = 0;
	ssize_t n;
	pid_t pid;

	err[0] = '\0';
	if (tty) {
		if (top_start(&t, term) || !top_read(&t, 10000, NULL, NULL, &status)) {
			top_stop(&t);
			return -1;
		}
		snprintf(err, size, "%s", t.scr.out);
		top_stop(&t);
		return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	if (pipe2(pipefd, O_CLOEXEC))
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		int null = open("/dev/null", O_RDONLY);

		top_env(term);
		if (null < 0 || dup2(null, 0) < 0 || dup2(pipefd[1], 1) < 0 ||
		    dup2(pipefd[1], 2) < 0)
			_exit(126);
		execl(tool, "neuron-top", (char *)NULL);
		_exit(127);
	}
	close(pipefd[1]);
	while (len < size - 1 && (n = read(pipefd[0], err + len, size - 1 - len)) > 0)
		len += n;
	err[len] = '\0';
	close(pipefd[0]);
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -1;
	return WEXITSTATUS(status);
}

/* The tests without a device of their own. */
FIXTURE(alone) {
	int unused;
};

FIXTURE_SETUP(alone)
{
	if (!find_tool())
		NEURON_SKIP_SETUP("%.200s not found (NEURON_TOOLS_DIR)", tool);
}

FIXTURE_TEARDOWN(alone)
{
}

/* No terminal, or one without a terminfo entry: a message and status 3. */
TEST_F(alone, no_terminal)
{
	char err[4096];

	EXPECT_EQ(3, top_status("vt100", false, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_TRUE(!!strstr(err, "must be a terminal")) TH_LOG("%s", err);
	EXPECT_EQ(3, top_status("no-such-terminal", true, err, sizeof(err))) TH_LOG("%s", err);
	EXPECT_TRUE(!!strstr(err, "cannot use the terminal")) TH_LOG("%s", err);
}

/* A device of the simulator to make again: its ID, arch, memory, minor. */
struct sim_dev {
	unsigned int id;
	char arch[16];
	unsigned int mem_mb;
	unsigned int minor;
};

static int sim_dev_cmp(const void *a, const void *b)
{
	const struct sim_dev *x = a, *y = b;

	return x->minor < y->minor ? -1 : x->minor > y->minor;
}

/* Make @d again and wait for its node: 0, or -errno; its minor in *@minor. */
static int sim_dev_remake(const struct sim_dev *d, unsigned int *minor)
{
	struct neuron_node n;
	int ret;

	ret = neuron_sim_create_id(&n, d->id, d->arch, d->mem_mb);
	*minor = n.minor;
	return ret;
}

/*
 * No device at all (every simulated device deleted for the time of the
 * test, then made again in the order of their minors, so that each gets
 * its minor back): a message and status 1, on a terminal.
 */
TEST_F(alone, no_device)
{
	struct sim_dev devs[NEURON_MAX_DEVICES];
	unsigned int n = 0, i, minor;
	char path[320], text[64], err[8192];
	struct dirent *de;
	int ret = 0;
	DIR *d;

	if (neuron_mode() != NEURON_MODE_SIM || access(NEURON_SIM_BUS "/del_device", W_OK))
		SKIP(return, "needs the simulator and root (deletes every device)");
	d = opendir("/sys/class/neuron");
	ASSERT_NE(NULL, d);
	while ((de = readdir(d)) && n < ARRAY_SIZE(devs)) {
		unsigned long long total;

		if (sscanf(de->d_name, "neuron%u", &minor) != 1)
			continue;
		ret = neuron_sim_id_of_minor(minor, &devs[n].id);
		if (ret)
			break;
		snprintf(path, sizeof(path), "/sys/class/neuron/%s/arch", de->d_name);
		ret = neuron_read_text(path, devs[n].arch, sizeof(devs[n].arch));
		if (ret)
			break;
		devs[n].arch[strcspn(devs[n].arch, "\n")] = '\0';
		snprintf(path, sizeof(path), "/sys/class/neuron/%s/mem_total", de->d_name);
		ret = neuron_read_text(path, text, sizeof(text));
		if (ret)
			break;
		total = strtoull(text, NULL, 10);
		devs[n].mem_mb = (unsigned int)(total >> 20);
		devs[n++].minor = minor;
	}
	closedir(d);
	if (ret == -ENOENT)
		SKIP(return, "a device that is not simulated is present");
	ASSERT_EQ(0, ret);
	qsort(devs, n, sizeof(devs[0]), sim_dev_cmp);

	for (i = 0; i < n; i++)
		EXPECT_EQ(0, neuron_sim_del(devs[i].id)) TH_LOG("del_device %u", devs[i].id);
	ret = top_status("vt100", true, err, sizeof(err));
	for (i = 0; i < n; i++) {
		EXPECT_EQ(0, sim_dev_remake(&devs[i], &minor))
			TH_LOG("new_device %u %s %u", devs[i].id, devs[i].arch, devs[i].mem_mb);
		EXPECT_EQ(devs[i].minor, minor) TH_LOG("sim %u", devs[i].id);
	}
	EXPECT_EQ(1, ret) TH_LOG("%s", err);
	EXPECT_TRUE(!!strstr(err, "no neuron device")) TH_LOG("%s", err);
}

TEST_HARNESS_MAIN
