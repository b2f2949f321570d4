// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the netlink tools neuron-ls and neuron-monitor
 * (tools/Makefile.nl), run as child processes from the folder of this
 * program (or NEURON_TOOLS_DIR): neuron-ls --json is strict JSON and agrees
 * with NEURON_IOCTL_QUERY of every /dev/neuronN (count, arch, nc_count,
 * memory, NC states); neuron-monitor --count prints the events of a
 * simulated device created and removed; --prometheus is the text
 * exposition format with a sample per NC; --help exits 0, a bad option
 * 64; an unprivileged user lists fine but sees no owner pid of root's
 * reservation.
 *
 * Not in selftests/neuron/Makefile: it needs the tools built (libnl).
 * Build: gcc -static -O2 -Wall -Wextra -Werror -I uapi -I $KSFT_INC \
 *	selftests/neuron/neuron_tools.c -o neuron_tools
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <glob.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <sys/wait.h>

#include "neuron_test.h"

#define TOOL_TIMEOUT_MS		10000
#define TOOL_OUT_MAX		(1024 * 1024)

/* ---- a strict JSON parser (RFC 8259), into a tree ---- */

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

struct jval {
	enum jtype type;
	double num;
	bool is_uint;			/* an integer without sign, fraction, exponent */
	unsigned long long u;
	char *str;			/* J_STR; the key of an object member */
	char *key;
	struct jval *child, *next;	/* J_ARR, J_OBJ: first element/member */
};

struct jparser {
	const char *p, *end;
	int depth;
};

static void jfree(struct jval *v)
{
	while (v) {
		struct jval *next = v->next;

		jfree(v->child);
		free(v->str);
		free(v->key);
		free(v);
		v = next;
	}
}

static void jws(struct jparser *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' ||
				 *j->p == '\r'))
		j->p++;
}

static int jhex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at j->p ('"'): a malloc'ed UTF-8 copy, or NULL if malformed. */
static char *jstring(struct jparser *j)
{
	size_t cap = 16, len = 0;
	char *s = malloc(cap);

	if (!s || j->p >= j->end || *j->p != '"')
		goto bad;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned int c = (unsigned char)*j->p++;

		if (c < 0x20)
			goto bad;
		if (c == '\\') {
			if (j->p >= j->end)
				goto bad;
			c = (unsigned char)*j->p++;
			switch (c) {
			case '"':
			case '\\':
			case '/':
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case 'n':
				c = '\n';
				break;
			case 'r':
				c = '\r';
				break;
			case 't':
				c = '\t';
				break;
			case 'u': {
				int i, h;

				if (j->end - j->p < 4)
					goto bad;
				for (c = 0, i = 0; i < 4; i++) {
					h = jhex(j->p[i]);
					if (h < 0)
						goto bad;
					c = c * 16 + h;
				}
				j->p += 4;
				/* Kept as one byte below 0x100 (enough for the tests). */
				if (c >= 0x100 || c == 0)
					c = '?';
				break;
			}
			default:
				goto bad;
			}
		}
		if (len + 2 > cap) {
			char *n = realloc(s, cap *= 2);

			if (!n)
				goto bad;
			s = n;
		}
		s[len++] = (char)c;
	}
	if (j->p >= j->end)
		goto bad;
	j->p++;
	s[len] = '\0';
	return s;
bad:
	free(s);
	return NULL;
}

static struct jval *jvalue(struct jparser *j);

static bool jnumber(struct jparser *j, struct jval *v)
{
	const char *start = j->p;
	bool plain = true;
	char buf[64];

	if (j->p < j->end && *j->p == '-') {
		plain = false;
		j->p++;
	}
	if (j->p >= j->end || !isdigit((unsigned char)*j->p))
		return false;
	if (*j->p == '0')
		j->p++;
	else
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	if (j->p < j->end && *j->p == '.') {
		plain = false;
		j->p++;
		if (j->p >= j->end || !isdigit((unsigned char)*j->p))
			return false;
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		plain = false;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || !isdigit((unsigned char)*j->p))
			return false;
		while (j->p < j->end && isdigit((unsigned char)*j->p))
			j->p++;
	}
	if ((size_t)(j->p - start) >= sizeof(buf))
		return false;
	memcpy(buf, start, j->p - start);
	buf[j->p - start] = '\0';
	v->type = J_NUM;
	v->num = strtod(buf, NULL);
	if (plain) {
		errno = 0;
		v->u = strtoull(buf, NULL, 10);
		v->is_uint = !errno;
	}
	return true;
}

static bool jlit(struct jparser *j, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, lit, n))
		return false;
	j->p += n;
	return true;
}

static struct jval *jvalue(struct jparser *j)
{
	struct jval *v = calloc(1, sizeof(*v)), **tail;

	if (!v || ++j->depth > 64)
		goto bad;
	jws(j);
	if (j->p >= j->end)
		goto bad;
	switch (*j->p) {
	case '{':
	case '[': {
		bool obj = *j->p == '{';
		char close = obj ? '}' : ']';

		v->type = obj ? J_OBJ : J_ARR;
		j->p++;
		jws(j);
		tail = &v->child;
		if (j->p < j->end && *j->p == close) {
			j->p++;
			break;
		}
		for (;;) {
			char *key = NULL;
			struct jval *e;

			if (obj) {
				jws(j);
				key = jstring(j);
				if (!key)
					goto bad;
				jws(j);
				if (j->p >= j->end || *j->p != ':') {
					free(key);
					goto bad;
				}
				j->p++;
			}
			e = jvalue(j);
			if (!e) {
				free(key);
				goto bad;
			}
			e->key = key;
			*tail = e;
			tail = &e->next;
			jws(j);
			if (j->p < j->end && *j->p == ',') {
				j->p++;
				continue;
			}
			if (j->p < j->end && *j->p == close) {
				j->p++;
				break;
			}
			goto bad;
		}
		break;
	}
	case '"':
		v->type = J_STR;
		v->str = jstring(j);
		if (!v->str)
			goto bad;
		break;
	case 't':
		v->type = J_TRUE;
		if (!jlit(j, "true"))
			goto bad;
		break;
	case 'f':
		v->type = J_FALSE;
		if (!jlit(j, "false"))
			goto bad;
		break;
	case 'n':
		v->type = J_NULL;
		if (!jlit(j, "null"))
			goto bad;
		break;
	default:
		if (!jnumber(j, v))
			goto bad;
	}
	j->depth--;
	return v;
bad:
	jfree(v);
	return NULL;
}

/* Parse all of @text (one value, only whitespace around): NULL if bad. */
static struct jval *jparse(const char *text, size_t len)
{
	struct jparser j = { text, text + len, 0 };
	struct jval *v = jvalue(&j);

	if (!v)
		return NULL;
	jws(&j);
	if (j.p != j.end) {
		jfree(v);
		return NULL;
	}
	return v;
}

/* Member @key of object @o, or NULL. Duplicated keys are refused. */
static const struct jval *jget(const struct jval *o, const char *key)
{
	const struct jval *e, *found = NULL;

	if (!o || o->type != J_OBJ)
		return NULL;
	for (e = o->child; e; e = e->next)
		if (!strcmp(e->key, key)) {
			if (found)
				return NULL;
			found = e;
		}
	return found;
}

static bool jget_u64(const struct jval *o, const char *key, unsigned long long *u)
{
	const struct jval *v = jget(o, key);

	if (!v || v->type != J_NUM || !v->is_uint)
		return false;
	*u = v->u;
	return true;
}

static const char *jget_str(const struct jval *o, const char *key)
{
	const struct jval *v = jget(o, key);

	return v && v->type == J_STR ? v->str : NULL;
}

static unsigned int jlen(const struct jval *a)
{
	const struct jval *e;
	unsigned int n = 0;

	for (e = a ? a->child : NULL; e; e = e->next)
		n++;
	return n;
}

/* ---- running the tools ---- */

static char tools_dir[PATH_MAX / 2];

/* The folder of the tools: NEURON_TOOLS_DIR, else this program's. */
static void tools_dir_init(void)
{
	const char *env = getenv("NEURON_TOOLS_DIR");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env && strlen(env) < sizeof(tools_dir)) {
		memcpy(tools_dir, env, strlen(env) + 1);
		return;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n < 0) {
		snprintf(tools_dir, sizeof(tools_dir), ".");
		return;
	}
	exe[n] = '\0';
	if ((size_t)snprintf(tools_dir, sizeof(tools_dir), "%s", dirname(exe)) >=
	    sizeof(tools_dir))
		snprintf(tools_dir, sizeof(tools_dir), ".");
}

static bool tool_path(const char *name, char *path, size_t size)
{
	if (!tools_dir[0])
		tools_dir_init();
	if ((size_t)snprintf(path, size, "%s/%s", tools_dir, name) >= size)
		return false;
	return access(path, X_OK) == 0;
}

struct tool_run {
	char *out;		/* stdout, NUL-terminated */
	size_t len;
	char err[4096];		/* the start of stderr */
	int status;		/* exit status, or 128 + signal, -1 on timeout */
};

enum tool_flags {
	TOOL_NOBODY = 1,	/* as uid/gid 65534 without capabilities */
	TOOL_TTY_LESS = 2,	/* stdin /dev/null (always, in fact) */
};

/*
 * Run tool @argv[0] (a name in tools_dir) with stdin /dev/null, stdout and
 * stderr captured, for at most TOOL_TIMEOUT_MS: 0, or -errno.
 */
static int tool_run(char *const argv[], int flags, struct tool_run *r)
{
	int out[2], err[2], exe, devnull, status;
	struct pollfd pfd[2];
	size_t cap = 65536, elen = 0;
	char path[PATH_MAX];
	__s64 deadline;
	pid_t pid;

	memset(r, 0, sizeof(*r));
	r->status = -1;
	if (!tool_path(argv[0], path, sizeof(path)))
		return -ENOENT;
	r->out = malloc(cap);
	if (!r->out)
		return -ENOMEM;
	/* Opened as root: the VM's root folder is 0700 to nobody. */
	exe = open(path, O_PATH | O_CLOEXEC);
	if (exe < 0)
		return -errno;
	if (pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC)) {
		close(exe);
		return -errno;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		static char *const envp[] = { "PATH=/bin:/sbin:/usr/bin", "LC_ALL=C", NULL };

		devnull = open("/dev/null", O_RDONLY);
		if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 ||
		    dup2(err[1], 2) < 0)
			_exit(126);
		if ((flags & TOOL_NOBODY) && neuron_drop_privileges(0, 1 << 20))
			_exit(125);
		syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(exe);
	close(out[1]);
	close(err[1]);
	deadline = neuron_now_ns() + TOOL_TIMEOUT_MS * 1000000LL;
	pfd[0] = (struct pollfd){ .fd = out[0], .events = POLLIN };
	pfd[1] = (struct pollfd){ .fd = err[0], .events = POLLIN };
	while (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		__s64 left = (deadline - neuron_now_ns()) / 1000000;
		ssize_t n;

		if (left <= 0)
			break;
		if (poll(pfd, 2, (int)left) <= 0)
			continue;
		if (pfd[0].revents) {
			if (r->len + 1 >= cap && cap < TOOL_OUT_MAX) {
				char *m = realloc(r->out, cap * 2);

				if (m) {
					r->out = m;
					cap *= 2;
				}
			}
			n = r->len + 1 < cap ? read(out[0], r->out + r->len, cap - 1 - r->len) : 0;
			if (n <= 0) {
				close(out[0]);
				pfd[0].fd = -1;
			} else {
				r->len += n;
			}
		}
		if (pfd[1].revents) {
			char sink[1024];

			n = read(err[0], sink, sizeof(sink));
			if (n <= 0) {
				close(err[0]);
				pfd[1].fd = -1;
			} else if (elen + 1 < sizeof(r->err)) {
				size_t k = (size_t)n < sizeof(r->err) - 1 - elen ?
					   (size_t)n : sizeof(r->err) - 1 - elen;

				memcpy(r->err + elen, sink, k);
				elen += k;
			}
		}
	}
	r->out[r->len] = '\0';
	r->err[elen] = '\0';
	if (pfd[0].fd >= 0 || pfd[1].fd >= 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		if (pfd[0].fd >= 0)
			close(pfd[0].fd);
		if (pfd[1].fd >= 0)
			close(pfd[1].fd);
		return 0;	/* status -1: timed out */
	}
	if (waitpid(pid, &status, 0) < 0)
		return -errno;
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
	return 0;
}

static void tool_free(struct tool_run *r)
{
	free(r->out);
	r->out = NULL;
}

#define SKIP_WITHOUT_TOOL(name) do { \
	char _p[PATH_MAX]; \
	if (!tool_path(name, _p, sizeof(_p))) \
		NEURON_SKIP_SETUP("%.200s not found (NEURON_TOOLS_DIR)", _p); \
} while (0)

/* ---- the QUERY view of every device ---- */

struct nc_states {
	struct neuron_nc_states h;
	struct neuron_nc_state nc[NEURON_TEST_MAX_NC];
};

/* The minors of /dev/neuronN, sorted: their count. */
static int device_minors(unsigned int *minors, int max)
{
	glob_t g;
	size_t i;
	int n = 0;

	if (glob("/dev/neuron[0-9]*", 0, NULL, &g))
		return 0;
	for (i = 0; i < g.gl_pathc && n < max; i++) {
		unsigned int m;
		char extra;

		if (sscanf(g.gl_pathv[i], "/dev/neuron%u%c", &m, &extra) == 1)
			minors[n++] = m;
	}
	globfree(&g);
	for (i = 1; i < (size_t)n; i++) {	/* insertion sort */
		unsigned int v = minors[i];
		size_t k = i;

		for (; k > 0 && minors[k - 1] > v; k--)
			minors[k] = minors[k - 1];
		minors[k] = v;
	}
	return n;
}

/* The device of minor @minor in the neuron-ls document, or NULL. */
static const struct jval *json_device(const struct jval *doc, unsigned int minor)
{
	const struct jval *d;
	unsigned long long idx;

	for (d = jget(doc, "devices") ? jget(doc, "devices")->child : NULL; d; d = d->next)
		if (jget_u64(d, "index", &idx) && idx == minor)
			return d;
	return NULL;
}

static const struct jval *json_core(const struct jval *dev, unsigned int nc)
{
	const struct jval *c;
	unsigned long long idx;

	for (c = jget(dev, "cores") ? jget(dev, "cores")->child : NULL; c; c = c->next)
		if (jget_u64(c, "index", &idx) && idx == nc)
			return c;
	return NULL;
}

static const char *const state_names[] = {
	[NEURON_NC_FREE] = "free", [NEURON_NC_RESERVED] = "reserved",
	[NEURON_NC_RUNNING] = "running", [NEURON_NC_RESETTING] = "resetting",
	[NEURON_NC_FAILED] = "failed",
};

/* Run neuron-ls @opt (as nobody with @flags) and parse it. */
static struct jval *ls_run_json(struct __test_metadata *_metadata, const char *opt, int flags)
{
	char *const argv[] = { "neuron-ls", (char *)opt, NULL };
	struct tool_run r;
	struct jval *doc;

	EXPECT_EQ(0, tool_run(argv, flags, &r));
	EXPECT_EQ(0, r.status) TH_LOG("neuron-ls %s: %s", opt, r.err);
	doc = r.status ? NULL : jparse(r.out, r.len);
	EXPECT_NE(NULL, doc) TH_LOG("not JSON: %s", r.out);
	tool_free(&r);
	return doc;
}

/* Our document: neuron-ls --details-json. */
static struct jval *ls_json(struct __test_metadata *_metadata, int flags)
{
	return ls_run_json(_metadata, "--details-json", flags);
}

FIXTURE(tools) {
	struct neuron_node node;
	struct neuron_device_info info;
};

FIXTURE_SETUP(tools)
{
	/* Before a device is created: a skip here ends the test child. */
	SKIP_WITHOUT_TOOL("neuron-ls");
	SKIP_WITHOUT_TOOL("neuron-monitor");
	neuron_setup_node(_metadata, &self->node, NULL, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
}

FIXTURE_TEARDOWN(tools)
{
	neuron_node_release(&self->node);
}

/* neuron-ls --details-json: strict JSON, agreeing with QUERY of each device. */
TEST_F(tools, ls_json_matches_query)
{
	unsigned int minors[NEURON_MAX_DEVICES];
	const struct jval *devs, *d, *c;
	unsigned long long u;
	struct jval *doc;
	int n, i;
	__u32 k;

	n = device_minors(minors, NEURON_MAX_DEVICES);
	doc = ls_json(_metadata, 0);
	ASSERT_NE(NULL, doc);
	devs = jget(doc, "devices");
	ASSERT_NE(NULL, devs);
	ASSERT_EQ(J_ARR, (int)devs->type);
	EXPECT_EQ((unsigned int)n, jlen(devs));
	for (i = 0; i < n; i++) {
		struct neuron_device_info info;
		struct nc_states st;
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/neuron%u", minors[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd) TH_LOG("open %s: %s", path, strerror(errno));
		ASSERT_EQ(0, neuron_query_info(fd, &info, NULL));
		d = json_device(doc, minors[i]);
		ASSERT_NE(NULL, d) TH_LOG("%s is not in neuron-ls --details-json", path);
		EXPECT_TRUE(jget_u64(d, "arch", &u));
		EXPECT_EQ(info.arch, u);
		EXPECT_STREQ(info.arch_name, jget_str(d, "arch_name") ?: "(none)");
		EXPECT_STREQ(info.product, jget_str(d, "product") ?: "(none)");
		EXPECT_TRUE(jget_u64(d, "nc_count", &u));
		EXPECT_EQ(info.nc_count, u);
		EXPECT_TRUE(jget_u64(d, "memory_total", &u));
		EXPECT_EQ(info.dram_size, u);
		if (info.flags & NEURON_DEV_SIMULATED) {
			EXPECT_TRUE(jget_u64(d, "sim_id", &u));
			EXPECT_EQ(info.sim_id, u);
		}
		EXPECT_EQ(info.nc_count, jlen(jget(d, "cores")));
		if (info.caps & NEURON_CAP_RESERVE) {
			ASSERT_EQ(0, neuron_query_into(fd, NEURON_QUERY_NC_STATE, &st,
						       sizeof(st), NULL));
			for (k = 0; k < st.h.nc_count && k < NEURON_TEST_MAX_NC; k++) {
				c = json_core(d, k);
				ASSERT_NE(NULL, c) TH_LOG("%s NC %u missing", path, k);
				ASSERT_LT(st.nc[k].state, ARRAY_SIZE(state_names));
				EXPECT_STREQ(state_names[st.nc[k].state],
					     jget_str(c, "state") ?: "(none)");
				EXPECT_TRUE(jget_u64(c, "executions", &u));
				EXPECT_TRUE(jget_u64(c, "resets", &u));
			}
		}
		close(fd);
	}
	jfree(doc);
}

/* --details: our table, one line per device and NC, exit 0. */
TEST_F(tools, ls_details_table)
{
	char *const argv[] = { "neuron-ls", "--details", NULL };
	char needle[64];
	struct tool_run r;

	ASSERT_EQ(0, tool_run(argv, 0, &r));
	EXPECT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "DEV ")) TH_LOG("%s", r.out);
	snprintf(needle, sizeof(needle), "sim %u", self->node.sim_id);
	if (self->node.created)
		EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("%s", r.out);
	tool_free(&r);
}

/* ---- the vendor's formats (docs/compat.md) ---- */

/* The keys of a device object of neuron-ls -j, all of them, in order. */
static const char *const ls_keys[] = {
	"instance_type", "instance_id", "neuron_device", "bdf", "cpu_affinity",
	"numa_node", "connected_to", "nc_count", "memory_size", "neuroncore_ids",
	"neuron_processes",
};

/* The vendor's device object: exactly its keys, each of its type. */
static void check_ls_device(struct __test_metadata *_metadata, const struct jval *d)
{
	const struct jval *e, *v;
	unsigned int k = 0;

	ASSERT_EQ(J_OBJ, (int)d->type);
	for (e = d->child; e; e = e->next, k++) {
		ASSERT_LT(k, ARRAY_SIZE(ls_keys)) TH_LOG("extra key '%s'", e->key);
		EXPECT_STREQ(ls_keys[k], e->key);
	}
	EXPECT_EQ(ARRAY_SIZE(ls_keys), k);
	EXPECT_EQ(J_STR, (int)jget(d, "instance_type")->type);
	EXPECT_EQ(J_STR, (int)jget(d, "instance_id")->type);
	EXPECT_TRUE(jget(d, "neuron_device")->is_uint);
	EXPECT_EQ(J_STR, (int)jget(d, "bdf")->type);
	EXPECT_EQ(J_STR, (int)jget(d, "cpu_affinity")->type);
	v = jget(d, "numa_node");
	ASSERT_EQ(J_STR, (int)v->type) TH_LOG("numa_node must be a string");
	EXPECT_TRUE(!strcmp(v->str, "-1") || (v->str[0] >= '0' && v->str[0] <= '9'))
		TH_LOG("numa_node '%s'", v->str);
	/* No device reports a link: null, as on a single-device instance. */
	EXPECT_EQ(J_NULL, (int)jget(d, "connected_to")->type);
	EXPECT_TRUE(jget(d, "nc_count")->is_uint);
	EXPECT_TRUE(jget(d, "memory_size")->is_uint);
	ASSERT_EQ(J_ARR, (int)jget(d, "neuroncore_ids")->type);
	for (e = jget(d, "neuroncore_ids")->child; e; e = e->next)
		EXPECT_TRUE(e->type == J_NUM && e->is_uint);
	v = jget(d, "neuron_processes");
	ASSERT_EQ(J_ARR, (int)v->type);
	for (e = v->child; e; e = e->next) {
		ASSERT_EQ(J_OBJ, (int)e->type);
		EXPECT_EQ(3U, jlen(e));
		EXPECT_TRUE(jget(e, "pid") && jget(e, "pid")->is_uint);
		EXPECT_NE(NULL, jget_str(e, "command"));
		EXPECT_NE(NULL, jget_str(e, "neuron_runtime_version"));
	}
}

/* The device object of @minor in the vendor's array, or NULL. */
static const struct jval *ls_vendor_device(const struct jval *arr, unsigned int minor)
{
	const struct jval *d;
	unsigned long long idx;

	for (d = arr && arr->type == J_ARR ? arr->child : NULL; d; d = d->next)
		if (jget_u64(d, "neuron_device", &idx) && idx == minor)
			return d;
	return NULL;
}

/*
 * -j and --json-output: an array of every device, sorted, with the
 * vendor's keys and types, memory_size and nc_count as QUERY says, the
 * NeuronCore ids numbered across the instance; the same with both names.
 */
TEST_F(tools, ls_vendor_json)
{
	unsigned int minors[NEURON_MAX_DEVICES], next_nc = 0;
	unsigned long long u = 0, prev = 0;
	struct jval *doc, *doc2;
	const struct jval *d;
	int n, i;

	n = device_minors(minors, NEURON_MAX_DEVICES);
	doc = ls_run_json(_metadata, "--json-output", 0);
	ASSERT_NE(NULL, doc);
	ASSERT_EQ(J_ARR, (int)doc->type) TH_LOG("not an array");
	EXPECT_EQ((unsigned int)n, jlen(doc));
	for (d = doc->child, i = 0; d; d = d->next, i++) {
		const struct jval *e;
		unsigned int k = 0;

		check_ls_device(_metadata, d);
		ASSERT_TRUE(jget_u64(d, "neuron_device", &u));
		if (i)
			EXPECT_LT(prev, u);
		prev = u;
		ASSERT_TRUE(jget_u64(d, "nc_count", &u));
		EXPECT_EQ(u, jlen(jget(d, "neuroncore_ids")));
		for (e = jget(d, "neuroncore_ids")->child; e; e = e->next, k++)
			EXPECT_EQ(next_nc + k, e->u);
		next_nc += u;
	}
	for (i = 0; i < n; i++) {
		struct neuron_device_info info;
		char path[64];
		int fd;

		snprintf(path, sizeof(path), "/dev/neuron%u", minors[i]);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		ASSERT_LE(0, fd);
		ASSERT_EQ(0, neuron_query_info(fd, &info, NULL));
		close(fd);
		d = ls_vendor_device(doc, minors[i]);
		ASSERT_NE(NULL, d) TH_LOG("%s is not in neuron-ls -j", path);
		EXPECT_TRUE(jget_u64(d, "memory_size", &u));
		EXPECT_EQ(info.dram_size, u);
		EXPECT_TRUE(jget_u64(d, "nc_count", &u));
		EXPECT_EQ(info.nc_count, u);
		if (info.flags & NEURON_DEV_SIMULATED)
			EXPECT_STREQ("", jget_str(d, "bdf") ?: "(none)");
	}
	doc2 = ls_run_json(_metadata, "-j", 0);
	ASSERT_NE(NULL, doc2);
	EXPECT_EQ(jlen(doc), jlen(doc2));
	jfree(doc2);
	jfree(doc);
}

/*
 * neuron_processes: the holder of an NC, with its pid and command line,
 * runtime version "NA" (this program has no libnrt mapped); to nobody,
 * who may not see root's processes, none.
 */
TEST_F(tools, ls_vendor_processes)
{
	const struct jval *d, *p;
	unsigned long long pid;
	struct jval *doc;

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		SKIP(return, "no NEURON_CAP_RESERVE");
	doc = ls_run_json(_metadata, "-j", 0);
	ASSERT_NE(NULL, doc);
	d = ls_vendor_device(doc, self->node.minor);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(0U, jlen(jget(d, "neuron_processes")));
	jfree(doc);

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	doc = ls_run_json(_metadata, "-j", 0);
	ASSERT_NE(NULL, doc);
	d = ls_vendor_device(doc, self->node.minor);
	ASSERT_NE(NULL, d);
	check_ls_device(_metadata, d);
	ASSERT_EQ(1U, jlen(jget(d, "neuron_processes")));
	p = jget(d, "neuron_processes")->child;
	EXPECT_TRUE(jget_u64(p, "pid", &pid));
	EXPECT_EQ((unsigned long long)getpid(), pid);
	EXPECT_NE(NULL, strstr(jget_str(p, "command") ?: "", "neuron_tools"))
		TH_LOG("command '%s'", jget_str(p, "command") ?: "(none)");
	EXPECT_STREQ("NA", jget_str(p, "neuron_runtime_version") ?: "(none)");
	jfree(doc);

	doc = ls_run_json(_metadata, "--json-output", TOOL_NOBODY);
	ASSERT_NE(NULL, doc);
	d = ls_vendor_device(doc, self->node.minor);
	ASSERT_NE(NULL, d);
	EXPECT_EQ(0U, jlen(jget(d, "neuron_processes")));
	jfree(doc);
}

/* The line of @out starting with "| @dev " (a device row), or NULL. */
static const char *table_row(const char *out, unsigned int dev)
{
	char needle[32];
	const char *p;

	snprintf(needle, sizeof(needle), "\n| %u ", dev);
	p = strstr(out, needle);
	return p ? p + 1 : NULL;
}

/*
 * The vendor's table: instance-type and instance-id lines, then a
 * bordered table with its columns and a row per device; -w adds the
 * process columns with the holder's row; -a shows it too; -t adds the
 * topology; every line of the table as wide as its border.
 */
TEST_F(tools, ls_vendor_table)
{
	static const char *const cols[] = {
		"| NEURON | NEURON |  NEURON  | NEURON |",
		"| DEVICE | CORES  | CORE IDS | MEMORY |",
		"CONNECTED", "PCI", "BDF", "CPU", "AFFINITY", "NUMA", "NODE",
	};
	char *const plain[] = { "neuron-ls", NULL };
	char *const wide[] = { "neuron-ls", "-w", NULL };
	char *const all[] = { "neuron-ls", "--show-all-procs", NULL };
	char *const topo[] = { "neuron-ls", "--topology", NULL };
	char needle[64], *line, *save, *copy;
	const char *row, *eol;
	struct tool_run r;
	size_t width = 0;
	unsigned int k;

	ASSERT_EQ(0, tool_run(plain, 0, &r));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_EQ(0, strncmp(r.out, "instance-type: ", 15)) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\ninstance-id: ")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "\n+--------+--------+----------+--------+"))
		TH_LOG("%s", r.out);
	for (k = 0; k < ARRAY_SIZE(cols); k++)
		EXPECT_NE(NULL, strstr(r.out, cols[k])) TH_LOG("no column text %u", k);
	EXPECT_EQ(NULL, strstr(r.out, "COMMAND"));
	row = table_row(r.out, self->node.minor);
	ASSERT_NE(NULL, row) TH_LOG("no row of device %u: %s", self->node.minor, r.out);
	snprintf(needle, sizeof(needle), "| %u ", self->info.nc_count);
	eol = strchr(row, '\n');
	ASSERT_NE(NULL, eol);
	EXPECT_NE(NULL, memmem(row, eol - row, needle, strlen(needle)));
	/* Every table line as wide as the first border. */
	copy = strdup(strchr(r.out, '+'));
	ASSERT_NE(NULL, copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (!width)
			width = strlen(line);
		EXPECT_EQ(width, strlen(line)) TH_LOG("'%s'", line);
	}
	free(copy);
	tool_free(&r);

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		SKIP(return, "no NEURON_CAP_RESERVE");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));
	/* -w: only processes using the runtime; this one is not. */
	ASSERT_EQ(0, tool_run(wide, 0, &r));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "COMMAND")) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, strstr(r.out, "RUNTIME")) TH_LOG("%s", r.out);
	snprintf(needle, sizeof(needle), "| %d ", getpid());
	EXPECT_EQ(NULL, strstr(r.out, needle)) TH_LOG("%s", r.out);
	tool_free(&r);
	ASSERT_EQ(0, tool_run(all, 0, &r));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.err);
	row = table_row(r.out, self->node.minor);
	ASSERT_NE(NULL, row) TH_LOG("%s", r.out);
	eol = strchr(row, '\n');
	ASSERT_NE(NULL, eol);
	EXPECT_NE(NULL, memmem(row, eol - row, needle, strlen(needle))) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, memmem(row, eol - row, "neuron_tools", 12)) TH_LOG("%s", r.out);
	EXPECT_NE(NULL, memmem(row, eol - row, "| NA ", 5)) TH_LOG("%s", r.out);
	tool_free(&r);
	ASSERT_EQ(0, tool_run(topo, 0, &r));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.err);
	EXPECT_NE(NULL, strstr(r.out, "\nNeuron Device Topology\n")) TH_LOG("%s", r.out);
	tool_free(&r);
}

/* A reservation of root: its owner pid shown to root, not to nobody. */
TEST_F(tools, owner_pid_hidden_from_nobody)
{
	unsigned long long pid;
	const struct jval *c;
	struct jval *doc;

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		SKIP(return, "no NEURON_CAP_RESERVE");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 1));

	doc = ls_json(_metadata, 0);
	ASSERT_NE(NULL, doc);
	c = json_core(json_device(doc, self->node.minor), 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("reserved", jget_str(c, "state") ?: "(none)");
	EXPECT_TRUE(jget_u64(c, "owner_pid", &pid));
	EXPECT_EQ((unsigned long long)getpid(), pid);
	jfree(doc);

	doc = ls_json(_metadata, TOOL_NOBODY);
	ASSERT_NE(NULL, doc);
	c = json_core(json_device(doc, self->node.minor), 0);
	ASSERT_NE(NULL, c);
	EXPECT_STREQ("reserved", jget_str(c, "state") ?: "(none)");
	ASSERT_NE(NULL, jget(c, "owner_pid"));
	EXPECT_EQ(J_NULL, (int)jget(c, "owner_pid")->type);
	jfree(doc);
}

/* neuron-monitor --events --count 2: the events of a device created and removed. */
TEST_F(tools, monitor_device_events)
{
	char *const argv[] = {
		"neuron-monitor", "--events", "--count", "2", "--verbose", "1", NULL
	};
	int out[2], err[2], exe, status, i;
	char path[PATH_MAX], buf[8192], line[256] = "";
	struct neuron_node n2;
	size_t len = 0, elen = 0;
	struct timespec now;
	__s64 deadline;
	char *p, *nl;
	pid_t pid;

	if (neuron_mode() != NEURON_MODE_SIM)
		SKIP(return, "needs simulated devices");
	ASSERT_TRUE(tool_path("neuron-monitor", path, sizeof(path)));
	exe = open(path, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, exe);
	ASSERT_EQ(0, pipe2(out, O_CLOEXEC));
	ASSERT_EQ(0, pipe2(err, O_CLOEXEC));
	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		syscall(SYS_execveat, exe, "", argv, environ, AT_EMPTY_PATH);
		_exit(127);
	}
	close(exe);
	close(out[1]);
	close(err[1]);
	/* Wait for "subscribed" on its stderr. */
	deadline = neuron_now_ns() + TOOL_TIMEOUT_MS * 1000000LL;
	while (!strstr(line, "subscribed") && neuron_now_ns() < deadline) {
		struct pollfd pfd = { .fd = err[0], .events = POLLIN };
		ssize_t k;

		if (poll(&pfd, 1, 100) <= 0)
			continue;
		k = read(err[0], line + elen, sizeof(line) - 1 - elen);
		if (k <= 0)
			break;
		elen += k;
		line[elen] = '\0';
	}
	if (!strstr(line, "subscribed")) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ASSERT_NE(NULL, strstr(line, "subscribed")) TH_LOG("stderr: %s", line);
	}

	ASSERT_EQ(0, neuron_sim_create(&n2, "v2", 16));
	EXPECT_EQ(0, neuron_sim_remove(&n2));

	deadline = neuron_now_ns() + TOOL_TIMEOUT_MS * 1000000LL;
	for (;;) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		ssize_t k;

		if (neuron_now_ns() >= deadline)
			break;
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		k = read(out[0], buf + len, sizeof(buf) - 1 - len);
		if (k <= 0)
			break;
		len += k;
	}
	buf[len] = '\0';
	if (neuron_now_ns() >= deadline)
		kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(out[0]);
	close(err[0]);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0)
		TH_LOG("status %#x, stdout: %s", status, buf);

	clock_gettime(CLOCK_REALTIME, &now);
	for (i = 0, p = buf; i < 2; i++, p = nl + 1) {
		static const char *const expect[] = { "device_added", "device_removed" };
		unsigned long long dev;
		const struct jval *t;
		struct jval *ev;

		nl = strchr(p, '\n');
		ASSERT_NE(NULL, nl) TH_LOG("event %d missing: %s", i, buf);
		ev = jparse(p, nl - p);
		ASSERT_NE(NULL, ev) TH_LOG("not JSON: %.*s", (int)(nl - p), p);
		EXPECT_STREQ(expect[i], jget_str(ev, "event") ?: "(none)");
		EXPECT_TRUE(jget_u64(ev, "device", &dev));
		EXPECT_EQ(n2.minor, dev);
		t = jget(ev, "time");
		ASSERT_NE(NULL, t);
		ASSERT_EQ(J_NUM, (int)t->type);
		EXPECT_LT(fabs(t->num - (now.tv_sec + now.tv_nsec / 1e9)), 60.0);
		jfree(ev);
	}
	EXPECT_EQ('\0', *p) TH_LOG("more than 2 lines: %s", buf);
}

/* --prometheus-native (our names): HELP and TYPE of each family, a sample per NC. */
TEST_F(tools, monitor_prometheus)
{
	char *const argv[] = { "neuron-monitor", "--prometheus-native", NULL };
	static const char *const families[] = {
		"neuron_nc_executions_total counter", "neuron_nc_state gauge",
		"neuron_device_memory_used_bytes gauge", "neuron_nc_resets_total counter",
	};
	char needle[160], *line, *save, *copy;
	struct tool_run r;
	unsigned int k;

	ASSERT_EQ(0, tool_run(argv, 0, &r));
	ASSERT_EQ(0, r.status) TH_LOG("%s", r.err);
	for (k = 0; k < ARRAY_SIZE(families); k++) {
		char name[64];

		snprintf(needle, sizeof(needle), "# TYPE %s\n", families[k]);
		EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("no '%s'", needle);
		ASSERT_TRUE(sscanf(families[k], "%63s", name) == 1);
		snprintf(needle, sizeof(needle), "# HELP %s ", name);
		EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("no '%s'", needle);
	}
	for (k = 0; k < self->info.nc_count; k++) {
		snprintf(needle, sizeof(needle),
			 "\nneuron_nc_executions_total{device=\"%u\",nc=\"%u\"} ",
			 self->node.minor, k);
		EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("no '%s'", needle + 1);
		snprintf(needle, sizeof(needle), "\nneuron_nc_state{device=\"%u\",nc=\"%u\"} ",
			 self->node.minor, k);
		EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("no '%s'", needle + 1);
	}
	snprintf(needle, sizeof(needle),
		 "\nneuron_device_memory_used_bytes{device=\"%u\",kind=\"device\"} ",
		 self->node.minor);
	EXPECT_NE(NULL, strstr(r.out, needle)) TH_LOG("no '%s'", needle + 1);
	/* Every sample line: name{labels} value, its family typed before. */
	copy = strdup(r.out);
	ASSERT_NE(NULL, copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *at = r.out + (line - copy), *type_line;
		char name[128], typed[160];
		const char *brace, *close;
		char *end;

		if (line[0] == '#')
			continue;
		brace = strchr(line, '{');
		close = strrchr(line, '}');
		ASSERT_TRUE(brace && close && close > brace && close[1] == ' ')
			TH_LOG("bad line '%s'", line);
		snprintf(name, sizeof(name), "%.*s", (int)(brace - line), line);
		strtod(close + 2, &end);
		EXPECT_TRUE(end != close + 2 && *end == '\0') TH_LOG("bad value '%s'", line);
		snprintf(typed, sizeof(typed), "# TYPE %s ", name);
		type_line = strstr(r.out, typed);
		EXPECT_TRUE(type_line && type_line < at) TH_LOG("%s not typed before", name);
	}
	free(copy);
	tool_free(&r);
}

/* --help exits 0, a bad option 64, for both tools. */
TEST_F(tools, help_and_usage)
{
	static const char *const tools[] = { "neuron-ls", "neuron-monitor" };
	struct tool_run r;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(tools); k++) {
		char *const help[] = { (char *)tools[k], "--help", NULL };
		char *const bad[] = { (char *)tools[k], "--no-such-option", NULL };
		char *const extra[] = { (char *)tools[k], "stray", NULL };

		ASSERT_EQ(0, tool_run(help, 0, &r));
		EXPECT_EQ(0, r.status);
		EXPECT_NE(NULL, strstr(r.out, "Usage:"));
		tool_free(&r);
		ASSERT_EQ(0, tool_run(bad, 0, &r));
		EXPECT_EQ(64, r.status);
		EXPECT_NE(NULL, strstr(r.err, "Usage:"));
		tool_free(&r);
		ASSERT_EQ(0, tool_run(extra, 0, &r));
		EXPECT_EQ(64, r.status);
		tool_free(&r);
	}
	{
		char *const badcount[] = { "neuron-monitor", "--count", "0", NULL };
		char *const badverbose[] = { "neuron-monitor", "--verbose", "5", NULL };
		char *const noconfig[] = { "neuron-monitor", "-c", "/nonexistent.json", NULL };
		char *const lsjson[] = { "neuron-ls", "--json", "--details", NULL };

		ASSERT_EQ(0, tool_run(badcount, 0, &r));
		EXPECT_EQ(64, r.status);
		tool_free(&r);
		ASSERT_EQ(0, tool_run(badverbose, 0, &r));
		EXPECT_EQ(64, r.status);
		tool_free(&r);
		/* -c is the vendor's config file now, not a count. */
		ASSERT_EQ(0, tool_run(noconfig, 0, &r));
		EXPECT_EQ(64, r.status);
		EXPECT_NE(NULL, strstr(r.err, "/nonexistent.json")) TH_LOG("%s", r.err);
		tool_free(&r);
		ASSERT_EQ(0, tool_run(lsjson, 0, &r));
		EXPECT_EQ(64, r.status);
		tool_free(&r);
	}
}

/* --interval: a stats line per device, JSON, with its cores. */
TEST_F(tools, monitor_interval_stats)
{
	/* --count 1 never reached: killed by the timeout is not wanted, so
	 * the stats are read from a short run ended by SIGTERM instead.
	 */
	char *const argv[] = { "neuron-monitor", "--events", "--interval", "0.2", NULL };
	char path[PATH_MAX], buf[65536], want[32];
	int out[2], exe, status;
	size_t len = 0;
	__s64 deadline;
	pid_t pid;
	char *p, *nl;
	bool seen = false;

	ASSERT_TRUE(tool_path("neuron-monitor", path, sizeof(path)));
	exe = open(path, O_PATH | O_CLOEXEC);
	ASSERT_LE(0, exe);
	ASSERT_EQ(0, pipe2(out, O_CLOEXEC));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		dup2(out[1], 1);
		syscall(SYS_execveat, exe, "", argv, environ, AT_EMPTY_PATH);
		_exit(127);
	}
	close(exe);
	close(out[1]);
	/*
	 * Until the device's stats line is out (a loaded debug kernel may
	 * take seconds to start the tool: a fixed wait sent SIGTERM before
	 * its handler was there), at most 20 s.
	 */
	snprintf(want, sizeof(want), "\"device\": %u,", self->node.minor);
	deadline = neuron_now_ns() + 20000 * 1000000LL;
	while (neuron_now_ns() < deadline) {
		struct pollfd pfd = { .fd = out[0], .events = POLLIN };
		ssize_t k;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		k = read(out[0], buf + len, sizeof(buf) - 1 - len);
		if (k <= 0)
			break;
		len += k;
		buf[len] = '\0';
		p = strstr(buf, want);
		if (p && strchr(p, '\n'))
			break;
	}
	kill(pid, SIGTERM);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	close(out[0]);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) TH_LOG("%#x", status);
	buf[len] = '\0';
	for (p = buf; (nl = strchr(p, '\n')); p = nl + 1) {
		unsigned long long dev;
		struct jval *v = jparse(p, nl - p);

		ASSERT_NE(NULL, v) TH_LOG("not JSON: %.*s", (int)(nl - p), p);
		EXPECT_STREQ("stats", jget_str(v, "event") ?: "(none)");
		if (jget_u64(v, "device", &dev) && dev == self->node.minor) {
			seen = true;
			EXPECT_EQ(self->info.nc_count, jlen(jget(v, "cores")));
		}
		jfree(v);
	}
	EXPECT_TRUE(seen) TH_LOG("no stats line of device %u: %s", self->node.minor, buf);
}

/* ---- neuron-monitor: the vendor's report stream ---- */

struct mon {
	pid_t pid;
	int out, err;
	char buf[1 << 20];
	size_t len;
};

/* Start neuron-monitor @argv, stdin /dev/null and stdout a pipe (no terminal). */
static int mon_start(struct mon *m, char *const argv[])
{
	char path[PATH_MAX];
	int out[2], err[2], exe;

	memset(m, 0, sizeof(*m));
	if (!tool_path("neuron-monitor", path, sizeof(path)))
		return -ENOENT;
	exe = open(path, O_PATH | O_CLOEXEC);
	if (exe < 0 || pipe2(out, O_CLOEXEC) || pipe2(err, O_CLOEXEC))
		return -errno;
	fflush(NULL);
	m->pid = fork();
	if (m->pid < 0)
		return -errno;
	if (!m->pid) {
		int devnull = open("/dev/null", O_RDONLY);

		dup2(devnull, 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		syscall(SYS_execveat, exe, "", argv, environ, AT_EMPTY_PATH);
		_exit(127);
	}
	close(exe);
	close(out[1]);
	close(err[1]);
	m->out = out[0];
	m->err = err[0];
	return 0;
}

/* Read until @n complete lines are in m->buf or @ms passed: the lines. */
static int mon_lines(struct mon *m, int n, int ms)
{
	__s64 deadline = neuron_now_ns() + ms * 1000000LL;
	int lines = 0;
	size_t i;

	for (;;) {
		struct pollfd pfd = { .fd = m->out, .events = POLLIN };
		ssize_t k;

		for (lines = 0, i = 0; i < m->len; i++)
			lines += m->buf[i] == '\n';
		if (lines >= n || neuron_now_ns() >= deadline)
			return lines;
		if (poll(&pfd, 1, 50) <= 0)
			continue;
		k = read(m->out, m->buf + m->len, sizeof(m->buf) - 1 - m->len);
		if (k <= 0)
			return lines;
		m->len += k;
		m->buf[m->len] = '\0';
	}
}

/* SIGTERM, then its exit status (128 + signal if killed). */
static int mon_stop(struct mon *m)
{
	int status;

	kill(m->pid, SIGTERM);
	if (waitpid(m->pid, &status, 0) != m->pid)
		return -1;
	close(m->out);
	close(m->err);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* @o has exactly the keys @keys (any order), each once. */
static void check_keys(struct __test_metadata *_metadata, const struct jval *o,
		       const char *what, const char *const *keys, unsigned int n)
{
	const struct jval *e;
	unsigned int k;

	ASSERT_NE(NULL, o) TH_LOG("%s missing", what);
	ASSERT_EQ(J_OBJ, (int)o->type) TH_LOG("%s is not an object", what);
	for (e = o->child; e; e = e->next) {
		for (k = 0; k < n && strcmp(keys[k], e->key); k++)
			;
		EXPECT_LT(k, n) TH_LOG("%s: unexpected key '%s'", what, e->key);
	}
	for (k = 0; k < n; k++)
		EXPECT_NE(NULL, jget(o, keys[k])) TH_LOG("%s: no key '%s'", what, keys[k]);
}

static bool jnum(const struct jval *v)
{
	return v && v->type == J_NUM;
}

/* A group object: "period" a number, "error" "", and its own @keys. */
static void check_group(struct __test_metadata *_metadata, const struct jval *g,
			const char *name, const char *const *keys, unsigned int n)
{
	const char *all[16] = { "period", "error" };
	unsigned int k;

	ASSERT_LT(n + 2, ARRAY_SIZE(all));
	for (k = 0; k < n; k++)
		all[k + 2] = keys[k];
	check_keys(_metadata, g, name, all, n + 2);
	EXPECT_TRUE(jnum(jget(g, "period"))) TH_LOG("%s.period", name);
	EXPECT_STREQ("", jget_str(g, "error") ?: "(none)");
}

static const char *const top_keys[] = {
	"neuron_runtime_data", "system_data", "instance_info", "neuron_hardware_info",
};

static const char *const instance_keys[] = {
	"instance_name", "instance_id", "instance_type", "instance_availability_zone",
	"instance_availability_zone_id", "instance_region", "ami_id", "subnet_id", "error",
};

static const char *const hw_info_keys[] = {
	"neuron_device_type", "neuron_device_version", "neuroncore_version",
	"neuron_device_count", "neuron_device_memory_size", "neuroncore_per_device_count",
	"logical_neuroncore_config", "error",
};

/* One report line: the vendor's top level, system groups per @sys_groups. */
static struct jval *check_report(struct __test_metadata *_metadata, const char *line,
				 size_t len, bool sys_groups)
{
	static const char *const vcpu_keys[] = {
		"average_usage", "usage_data", "context_switch_count",
	};
	static const char *const usage_keys[] = {
		"user", "nice", "system", "idle", "io_wait", "irq", "soft_irq",
	};
	static const char *const meminfo_keys[] = {
		"memory_total_bytes", "memory_used_bytes", "swap_total_bytes", "swap_used_bytes",
	};
	static const char *const hwc_keys[] = { "neuron_devices" };
	static const char *const ecc_keys[] = {
		"neuron_device_index", "mem_ecc_corrected", "mem_ecc_uncorrected",
		"sram_ecc_uncorrected", "sram_ecc_corrected",
	};
	const struct jval *sd, *g, *e;
	unsigned long long u;
	struct jval *doc;

	doc = jparse(line, len);
	if (!doc)
		return NULL;
	check_keys(_metadata, doc, "report", top_keys, ARRAY_SIZE(top_keys));
	EXPECT_EQ(J_ARR, (int)jget(doc, "neuron_runtime_data")->type);
	check_keys(_metadata, jget(doc, "instance_info"), "instance_info", instance_keys,
		   ARRAY_SIZE(instance_keys));
	check_keys(_metadata, jget(doc, "neuron_hardware_info"), "neuron_hardware_info",
		   hw_info_keys, ARRAY_SIZE(hw_info_keys));
	EXPECT_TRUE(jget_u64(jget(doc, "neuron_hardware_info"), "neuron_device_count", &u));
	sd = jget(doc, "system_data");
	ASSERT_NE(NULL, sd);
	if (!sys_groups)
		return doc;
	g = jget(sd, "vcpu_usage");
	check_group(_metadata, g, "vcpu_usage", vcpu_keys, ARRAY_SIZE(vcpu_keys));
	check_keys(_metadata, jget(g, "average_usage"), "average_usage", usage_keys,
		   ARRAY_SIZE(usage_keys));
	for (e = jget(g, "usage_data") ? jget(g, "usage_data")->child : NULL; e; e = e->next)
		check_keys(_metadata, e, "usage_data[]", usage_keys, ARRAY_SIZE(usage_keys));
	EXPECT_LT(0U, jlen(jget(g, "usage_data")));
	g = jget(sd, "memory_info");
	check_group(_metadata, g, "memory_info", meminfo_keys, ARRAY_SIZE(meminfo_keys));
	EXPECT_TRUE(jget_u64(g, "memory_total_bytes", &u));
	EXPECT_LT(0ULL, u);
	g = jget(sd, "neuron_hw_counters");
	check_group(_metadata, g, "neuron_hw_counters", hwc_keys, ARRAY_SIZE(hwc_keys));
	for (e = jget(g, "neuron_devices")->child; e; e = e->next)
		check_keys(_metadata, e, "neuron_devices[]", ecc_keys, ARRAY_SIZE(ecc_keys));
	return doc;
}

/*
 * Without options and without a terminal: the vendor's stream (every 5 s),
 * not the usage; every line a report with all the groups.
 */
TEST_F(tools, monitor_vendor_default)
{
	char *const argv[] = { "neuron-monitor", NULL };
	struct mon *m = malloc(sizeof(*m));
	struct jval *doc;
	char *nl;

	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, mon_start(m, argv));
	EXPECT_EQ(1, mon_lines(m, 1, 9000)) TH_LOG("%s", m->buf);
	EXPECT_EQ(0, mon_stop(m));
	EXPECT_EQ(NULL, strstr(m->buf, "Usage:"));
	nl = strchr(m->buf, '\n');
	ASSERT_NE(NULL, nl);
	doc = check_report(_metadata, m->buf, nl - m->buf, true);
	ASSERT_NE(NULL, doc) TH_LOG("not JSON: %s", m->buf);
	jfree(doc);
	free(m);
}

/* The runtime entry of @pid in a report, or NULL. */
static const struct jval *report_runtime(const struct jval *doc, pid_t pid)
{
	const struct jval *e;
	unsigned long long u;

	for (e = jget(doc, "neuron_runtime_data")->child; e; e = e->next)
		if (jget_u64(e, "pid", &u) && u == (unsigned long long)pid)
			return e;
	return NULL;
}

/*
 * A latency object of execution_stats: null when nothing ran (@runs 0),
 * else the percentiles p0 to p100 in seconds, in order, each above 0 and
 * below the executions' 10 s.
 */
static void check_latency(struct __test_metadata *_metadata, const struct jval *l,
			  unsigned long long runs)
{
	static const char *const pct[] = { "p0", "p1", "p25", "p50", "p75", "p99", "p100" };
	double prev = 0;
	unsigned int k;

	ASSERT_NE(NULL, l);
	if (!runs) {
		EXPECT_EQ(J_NULL, (int)l->type);
		return;
	}
	check_keys(_metadata, l, "device_latency", pct, ARRAY_SIZE(pct));
	for (k = 0; k < ARRAY_SIZE(pct); k++) {
		const struct jval *v = jget(l, pct[k]);

		ASSERT_TRUE(jnum(v)) TH_LOG("%s", pct[k]);
		EXPECT_LT(0.0, v->num) TH_LOG("%s", pct[k]);
		EXPECT_GT(10.0, v->num) TH_LOG("%s", pct[k]);
		EXPECT_LE(prev, v->num) TH_LOG("%s below the one before", pct[k]);
		prev = v->num;
	}
}

/*
 * What the monitor tests' workload allocates on NC 0 besides its two
 * slots (a page each, tensors), in pages, by NEURON_MEM_USAGE_*.
 */
static const struct {
	__u32 kind, usage, pages;
} mon_allocs[] = {
	{ NEURON_MEM_DEVICE, NEURON_MEM_USAGE_CONSTANTS, 3 },
	{ NEURON_MEM_DEVICE, NEURON_MEM_USAGE_RUNTIME, 5 },
	{ NEURON_MEM_DEVICE, NEURON_MEM_USAGE_SCRATCHPAD, 6 },
	{ NEURON_MEM_DEVICE, NEURON_MEM_USAGE_UNCATEGORIZED, 1 },
	{ NEURON_MEM_HOST, NEURON_MEM_USAGE_APPLICATION, 7 },
	{ NEURON_MEM_HOST, NEURON_MEM_USAGE_CONSTANTS, 4 },
	{ NEURON_MEM_HOST, NEURON_MEM_USAGE_DMA_BUFFERS, 2 },
	{ NEURON_MEM_HOST, NEURON_MEM_USAGE_TENSORS, 1 },
};

/* Bytes of @kind and @usage that the workload (with @exec) allocated. */
static unsigned long long mon_alloc_bytes(bool exec, __u32 kind, __u32 usage)
{
	unsigned long long pages = 0;
	unsigned int k;

	if (!exec)
		return 0;
	for (k = 0; k < ARRAY_SIZE(mon_allocs); k++)
		if (mon_allocs[k].kind == kind && mon_allocs[k].usage == usage)
			pages += mon_allocs[k].pages;
	if (kind == NEURON_MEM_DEVICE && usage == NEURON_MEM_USAGE_TENSORS)
		pages += 2;
	return pages * getpagesize();
}

/* MEM_ALLOC of @pages pages of @kind and @usage on NC 0: the handle. */
static __u32 mon_alloc(struct __test_metadata *_metadata, int fd, __u32 kind, __u32 usage,
		       __u32 pages)
{
	struct neuron_mem_alloc a;

	neuron_mem_alloc_prep(&a, kind, (__u64)pages * getpagesize(), 0);
	a.usage = usage;
	EXPECT_EQ(0, neuron_mem_alloc_req(fd, &a)) TH_LOG("kind %u usage %u", kind, usage);
	return a.handle;
}

/*
 * The workload of the monitor tests: NC 0 of @node reserved and, with
 * @exec, a model loaded with an input and an output (tensors) bound in
 * @bind, and the memory of mon_allocs. Answers NC 0's number in the
 * instance's numbering (neuron-ls's).
 */
static unsigned int mon_workload_setup(struct __test_metadata *_metadata,
				       struct neuron_node *node, bool exec, __u32 *model,
				       __u32 *bind)
{
	unsigned int minors[NEURON_MAX_DEVICES], first_nc = 0;
	int n, k;

	n = device_minors(minors, NEURON_MAX_DEVICES);
	for (k = 0; k < n && minors[k] < node->minor; k++) {
		struct neuron_device_info info;
		char path[64];
		int dfd;

		snprintf(path, sizeof(path), "/dev/neuron%u", minors[k]);
		dfd = open(path, O_RDONLY | O_CLOEXEC);
		EXPECT_LE(0, dfd);
		if (dfd < 0)
			continue;
		EXPECT_EQ(0, neuron_query_info(dfd, &info, NULL));
		close(dfd);
		first_nc += info.nc_count;
	}
	EXPECT_EQ(0, neuron_reserve(node->fd, 1));
	if (!exec)
		return first_nc;
	bind[0] = mon_alloc(_metadata, node->fd, NEURON_MEM_DEVICE, NEURON_MEM_USAGE_TENSORS, 1);
	bind[1] = mon_alloc(_metadata, node->fd, NEURON_MEM_DEVICE, NEURON_MEM_USAGE_TENSORS, 1);
	for (k = 0; k < (int)ARRAY_SIZE(mon_allocs); k++)
		mon_alloc(_metadata, node->fd, mon_allocs[k].kind, mon_allocs[k].usage,
			  mon_allocs[k].pages);
	EXPECT_EQ(0, neuron_mm_model_load(node->fd, 0, model));
	return first_nc;
}

/*
 * Write the monitor config file @cfg (a mkstemp() template): the root
 * @period, a runtime whose tag_filter is this process's pid, then @rest.
 */
static void mon_config_write(struct __test_metadata *_metadata, char *cfg,
			     const char *period, const char *const *rest, unsigned int n)
{
	char text[1024];
	unsigned int k;
	int fd;

	snprintf(text, sizeof(text),
		 "{\"period\": \"%s\", \"neuron_runtimes\": [{\"tag_filter\": \"^%d$\", ",
		 period, getpid());
	for (k = 0; k < n; k++)
		strncat(text, rest[k], sizeof(text) - strlen(text) - 1);
	fd = mkstemp(cfg);
	ASSERT_LE(0, fd);
	EXPECT_EQ((ssize_t)strlen(text), write(fd, text, strlen(text)));
	close(fd);
}

/*
 * memory_used's usage_breakdown: exactly the vendor's keys, each the bytes
 * the workload allocated for it (mon_allocs; the model's memory in
 * model_code), NeuronCore @key the only one.
 */
static void check_breakdown(struct __test_metadata *_metadata, const struct jval *b,
			    const char *key, bool exec)
{
	static const struct {
		const char *key;
		__u32 usage;
	} host[] = {
		{ "application_memory", NEURON_MEM_USAGE_APPLICATION },
		{ "constants", NEURON_MEM_USAGE_CONSTANTS },
		{ "dma_buffers", NEURON_MEM_USAGE_DMA_BUFFERS },
		{ "tensors", NEURON_MEM_USAGE_TENSORS },
	}, nc[] = {
		{ "constants", NEURON_MEM_USAGE_CONSTANTS },
		{ "model_code", NEURON_MEM_USAGE_MODEL_CODE },
		{ "model_shared_scratchpad", NEURON_MEM_USAGE_SCRATCHPAD },
		{ "runtime_memory", NEURON_MEM_USAGE_RUNTIME },
		{ "tensors", NEURON_MEM_USAGE_TENSORS },
	};
	static const char *const b_keys[] = { "host", "neuroncore_memory_usage" };
	const char *hk[ARRAY_SIZE(host)], *nk[ARRAY_SIZE(nc)];
	const struct jval *o;
	unsigned long long u;
	unsigned int k;

	for (k = 0; k < ARRAY_SIZE(host); k++)
		hk[k] = host[k].key;
	for (k = 0; k < ARRAY_SIZE(nc); k++)
		nk[k] = nc[k].key;
	check_keys(_metadata, b, "usage_breakdown", b_keys, ARRAY_SIZE(b_keys));
	o = jget(b, "host");
	check_keys(_metadata, o, "usage_breakdown.host", hk, ARRAY_SIZE(hk));
	for (k = 0; k < ARRAY_SIZE(host); k++) {
		ASSERT_TRUE(jget_u64(o, host[k].key, &u)) TH_LOG("host.%s", host[k].key);
		EXPECT_EQ(mon_alloc_bytes(exec, NEURON_MEM_HOST, host[k].usage), u)
			TH_LOG("host.%s", host[k].key);
	}
	EXPECT_EQ(1U, jlen(jget(b, "neuroncore_memory_usage")));
	o = jget(jget(b, "neuroncore_memory_usage"), key);
	check_keys(_metadata, o, "neuroncore_memory_usage[nc]", nk, ARRAY_SIZE(nk));
	for (k = 0; k < ARRAY_SIZE(nc); k++) {
		ASSERT_TRUE(jget_u64(o, nc[k].key, &u)) TH_LOG("nc.%s", nc[k].key);
		if (nc[k].usage == NEURON_MEM_USAGE_MODEL_CODE) {
			EXPECT_TRUE(exec ? u >= (unsigned long long)getpagesize() : !u)
				TH_LOG("model_code %llu", u);
		} else {
			EXPECT_EQ(mon_alloc_bytes(exec, NEURON_MEM_DEVICE, nc[k].usage), u)
				TH_LOG("nc.%s", nc[k].key);
		}
	}
}

/*
 * -c FILE: the config's period and groups honoured; this process, holding
 * NC 0 and running a workload, is a runtime entry with its tag (its pid),
 * its NeuronCore under its instance-wide number, its memory (by usage as
 * it allocated it), and as many executions completed, summed over the
 * reports, as it ran, with both latencies; a tag_filter that does not
 * match leaves it out.
 */
TEST_F(tools, monitor_vendor_config)
{
	static const char *const rt_keys[] = {
		"pid", "address", "neuron_runtime_tag", "error", "report",
	};
	static const char *const group_keys[] = {
		"neuroncore_counters", "memory_used", "neuron_runtime_vcpu_usage",
		"execution_stats",
	};
	static const char *const ncc_keys[] = { "neuroncores_in_use" };
	static const char *const mem_keys[] = { "neuron_runtime_used_bytes", "loaded_models" };
	static const char *const rtv_keys[] = { "vcpu_usage" };
	static const char *const exec_keys[] = {
		"error_summary", "execution_summary", "latency_stats",
	};
	static const char *const err_keys[] = {
		"generic", "numerical", "transient", "model", "runtime", "hardware",
	};
	static const char *const sum_keys[] = {
		"completed", "completed_with_err", "completed_with_num_err", "timed_out",
		"incorrect_input", "failed_to_queue",
	};
	static const char *const config_rest[] = {
		"\"metrics\": [{\"type\": \"neuroncore_counters\"}, {\"type\": \"memory_used\"}, ",
		"{\"type\": \"neuron_runtime_vcpu_usage\"}, {\"type\": \"execution_stats\"}]}], ",
		"\"system_metrics\": [{\"type\": \"vcpu_usage\"}, {\"type\": \"memory_info\"}, ",
		"{\"period\": \"400ms\", \"type\": \"neuron_hw_counters\"}]}",
	};
	char cfg[] = "/tmp/neuron-monitor-XXXXXX", cfg2[] = "/tmp/neuron-monitor-XXXXXX";
	char *const argv[] = { "neuron-monitor", "-c", cfg, NULL };
	char *const argv2[] = { "neuron-monitor", "--config-file", cfg2, NULL };
	unsigned int first_nc, i;
	unsigned long long completed = 0, done, u[1];
	__u32 model = 0, bind[2], status;
	char key[16], text[1024];
	bool exec, seen = false;
	int fd, lines;
	struct mon *m;
	char *p, *nl;
	FILE *f;

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		SKIP(return, "no NEURON_CAP_RESERVE");
	exec = self->info.caps & NEURON_CAP_EXEC;
	first_nc = mon_workload_setup(_metadata, &self->node, exec, &model, bind);
	mon_config_write(_metadata, cfg, "400ms", config_rest, ARRAY_SIZE(config_rest));

	m = malloc(sizeof(*m));
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, mon_start(m, argv));
	/* The first report, then the workload, then two more reports. */
	ASSERT_EQ(1, mon_lines(m, 1, 8000)) TH_LOG("%s", m->buf);
	for (i = 0; exec && i < 5; i++) {
		ASSERT_EQ(0, nio_execute_wait(self->node.fd, model, bind, 2, 0, &status));
		ASSERT_EQ((__u32)NEURON_EXEC_OK, status);
	}
	lines = mon_lines(m, 3, 8000);
	EXPECT_EQ(0, mon_stop(m));
	ASSERT_LE(3, lines) TH_LOG("%s", m->buf);
	unlink(cfg);

	snprintf(key, sizeof(key), "%u", first_nc);
	for (p = m->buf; (nl = strchr(p, '\n')); p = nl + 1) {
		const struct jval *rt, *rep, *g, *e;
		struct jval *doc = check_report(_metadata, p, nl - p, true);

		ASSERT_NE(NULL, doc) TH_LOG("not JSON: %.*s", (int)(nl - p), p);
		g = jget(jget(jget(doc, "system_data"), "vcpu_usage"), "period");
		ASSERT_TRUE(jnum(g));
		/* The config's 400 ms, not the default 5 s: a loaded VM
		 * (2.18 s seen at load average 20) stays well below 4 s.
		 */
		EXPECT_LT(0.2, g->num) TH_LOG("period %f", g->num);
		EXPECT_GT(4.0, g->num) TH_LOG("period %f", g->num);
		rt = report_runtime(doc, getpid());
		ASSERT_NE(NULL, rt) TH_LOG("no runtime %d: %.*s", getpid(), (int)(nl - p), p);
		seen = true;
		EXPECT_EQ(1U, jlen(jget(doc, "neuron_runtime_data")));
		check_keys(_metadata, rt, "neuron_runtime_data[]", rt_keys, ARRAY_SIZE(rt_keys));
		snprintf(text, sizeof(text), "%d", getpid());
		EXPECT_STREQ(text, jget_str(rt, "neuron_runtime_tag") ?: "(none)");
		EXPECT_STREQ("", jget_str(rt, "error") ?: "(none)");
		rep = jget(rt, "report");
		check_keys(_metadata, rep, "report", group_keys, ARRAY_SIZE(group_keys));

		g = jget(rep, "neuroncore_counters");
		check_group(_metadata, g, "neuroncore_counters", ncc_keys, ARRAY_SIZE(ncc_keys));
		EXPECT_EQ(1U, jlen(jget(g, "neuroncores_in_use")));
		e = jget(jget(g, "neuroncores_in_use"), key);
		ASSERT_NE(NULL, e) TH_LOG("no NeuronCore \"%s\"", key);
		ASSERT_TRUE(jnum(jget(e, "neuroncore_utilization")));
		EXPECT_LE(0.0, jget(e, "neuroncore_utilization")->num);
		EXPECT_GE(100.0, jget(e, "neuroncore_utilization")->num);
		EXPECT_TRUE(jget_u64(e, "flops", u));

		g = jget(rep, "memory_used");
		check_group(_metadata, g, "memory_used", mem_keys, ARRAY_SIZE(mem_keys));
		e = jget(g, "neuron_runtime_used_bytes");
		EXPECT_TRUE(jget_u64(e, "host", u));
		EXPECT_TRUE(jget_u64(e, "neuron_device", u));
		check_breakdown(_metadata, jget(e, "usage_breakdown"), key, exec);

		g = jget(rep, "neuron_runtime_vcpu_usage");
		check_group(_metadata, g, "neuron_runtime_vcpu_usage", rtv_keys,
			    ARRAY_SIZE(rtv_keys));
		EXPECT_TRUE(jnum(jget(jget(g, "vcpu_usage"), "user")));
		EXPECT_TRUE(jnum(jget(jget(g, "vcpu_usage"), "system")));

		g = jget(rep, "execution_stats");
		check_group(_metadata, g, "execution_stats", exec_keys, ARRAY_SIZE(exec_keys));
		check_keys(_metadata, jget(g, "error_summary"), "error_summary", err_keys,
			   ARRAY_SIZE(err_keys));
		check_keys(_metadata, jget(g, "execution_summary"), "execution_summary",
			   sum_keys, ARRAY_SIZE(sum_keys));
		EXPECT_TRUE(jget_u64(jget(g, "execution_summary"), "completed", u));
		completed += u[0];
		done = u[0];
		check_latency(_metadata, jget(jget(g, "latency_stats"), "device_latency"), done);
		EXPECT_TRUE(jget_u64(jget(g, "execution_summary"), "completed_with_err", u));
		EXPECT_EQ(0ULL, u[0]);
		for (e = jget(g, "error_summary")->child; e; e = e->next)
			EXPECT_TRUE(e->is_uint && !e->u) TH_LOG("error_summary.%s", e->key);
		/* Submission to end: from the same executions. */
		check_latency(_metadata, jget(jget(g, "latency_stats"), "total_latency"), done);
		jfree(doc);
	}
	EXPECT_TRUE(seen);
	EXPECT_EQ(exec ? 5ULL : 0ULL, completed);

	/* A tag_filter that matches nothing: no runtime entry. */
	f = NULL;
	fd = mkstemp(cfg2);
	ASSERT_LE(0, fd);
	f = fdopen(fd, "w");
	ASSERT_NE(NULL, f);
	fputs("{\"period\": \"300ms\", \"neuron_runtimes\": [{\"tag_filter\": \"^nothing$\",", f);
	fputs(" \"metrics\": [{\"type\": \"execution_stats\"}]}], \"system_metrics\": []}", f);
	fclose(f);
	ASSERT_EQ(0, mon_start(m, argv2));
	lines = mon_lines(m, 1, 8000);
	EXPECT_EQ(0, mon_stop(m));
	unlink(cfg2);
	ASSERT_EQ(1, lines) TH_LOG("%s", m->buf);
	{
		struct jval *doc = check_report(_metadata, m->buf, strchr(m->buf, '\n') - m->buf,
						false);

		ASSERT_NE(NULL, doc) TH_LOG("%s", m->buf);
		EXPECT_EQ(0U, jlen(jget(doc, "neuron_runtime_data")));
		EXPECT_EQ(0U, jlen(jget(doc, "system_data")));
		jfree(doc);
	}
	free(m);
	if (exec)
		neuron_model_unload(self->node.fd, model);
}

/* ---- neuron-monitor --prometheus: the vendor exporter's names ---- */

#define PROM_MAX_LABELS	16

/* A sample line of the text exposition format. */
struct prom_sample {
	char name[128];
	unsigned int n;
	char key[PROM_MAX_LABELS][64];
	char val[PROM_MAX_LABELS][256];
	double value;
};

static bool prom_name_char(char c, bool first)
{
	return isalpha((unsigned char)c) || c == '_' || c == ':' ||
	       (!first && isdigit((unsigned char)c));
}

/* A label value up to its closing quote, unescaped: true if well formed. */
static bool prom_parse_value(const char **pp, char *out, size_t size)
{
	const char *p = *pp;
	size_t v = 0;

	for (; *p != '"'; p++) {
		char c = *p;

		if (!c || c == '\n' || v + 1 >= size)
			return false;
		if (c == '\\') {
			p++;
			if (*p == 'n')
				c = '\n';
			else if (*p == '\\' || *p == '"')
				c = *p;
			else
				return false;
		}
		out[v++] = c;
	}
	out[v] = '\0';
	*pp = p + 1;
	return true;
}

/* Parse @line, name{k="v",...} value (no timestamp): true if valid. */
static bool prom_parse(const char *line, struct prom_sample *s)
{
	const char *p = line;
	size_t n = 0;
	char *end;

	memset(s, 0, sizeof(*s));
	if (!prom_name_char(*p, true))
		return false;
	while (prom_name_char(*p, false) && n + 1 < sizeof(s->name))
		s->name[n++] = *p++;
	if (*p == '{') {
		for (p++; *p != '}';) {
			size_t k = 0;

			if (s->n == PROM_MAX_LABELS || !prom_name_char(*p, true) || *p == ':')
				return false;
			while (prom_name_char(*p, false) && *p != ':' && k + 1 < sizeof(s->key[0]))
				s->key[s->n][k++] = *p++;
			if (p[0] != '=' || p[1] != '"')
				return false;
			p += 2;
			if (!prom_parse_value(&p, s->val[s->n], sizeof(s->val[0])))
				return false;
			s->n++;
			if (*p == ',')
				p++;
			else if (*p != '}')
				return false;
		}
		p++;
	}
	if (*p != ' ')
		return false;
	s->value = strtod(p + 1, &end);
	return end != p + 1 && *end == '\0';
}

static const char *prom_get(const struct prom_sample *s, const char *key)
{
	unsigned int k;

	for (k = 0; k < s->n; k++)
		if (!strcmp(s->key[k], key))
			return s->val[k];
	return NULL;
}

/* Read the monitor's stderr until a line holds @needle or @ms passed. */
static bool mon_wait_err(struct mon *m, const char *needle, int ms)
{
	__s64 deadline = neuron_now_ns() + ms * 1000000LL;
	char buf[4096];
	size_t len = 0;

	while (neuron_now_ns() < deadline) {
		struct pollfd pfd = { .fd = m->err, .events = POLLIN };
		ssize_t k;

		if (poll(&pfd, 1, 50) <= 0)
			continue;
		k = read(m->err, buf + len, sizeof(buf) - 1 - len);
		if (k <= 0)
			return false;
		len += k;
		buf[len] = '\0';
		if (strstr(buf, needle))
			return true;
		if (len == sizeof(buf) - 1)
			len = 0;
	}
	return false;
}

/* The families of the exporter, their type, a label of theirs. */
static const struct {
	const char *name, *type, *label;
	bool runtime;		/* with runtime_tag */
} prom_families[] = {
	{ "neuroncore_utilization_ratio", "gauge", "neuroncore", true },
	{ "neuron_runtime_vcpu_usage_ratio", "gauge", "usage_type", true },
	{ "neuron_runtime_memory_used_bytes", "gauge", "memory_location", true },
	{ "neuroncore_memory_usage_constants", "gauge", "neuroncore", true },
	{ "neuroncore_memory_usage_model_code", "gauge", "neuroncore", true },
	{ "neuroncore_memory_usage_model_shared_scratchpad", "gauge", "neuroncore", true },
	{ "neuroncore_memory_usage_runtime_memory", "gauge", "neuroncore", true },
	{ "neuroncore_memory_usage_tensors", "gauge", "neuroncore", true },
	{ "execution_errors_total", "counter", "error_type", true },
	{ "execution_status_total", "counter", "status_type", true },
	{ "hardware_ecc_events_total", "counter", "event_type", false },
	{ "system_vcpu_count", "gauge", NULL, false },
	{ "system_vcpu_usage_ratio", "gauge", "usage_type", false },
	{ "system_memory_total_bytes", "gauge", NULL, false },
	{ "system_memory_used_bytes", "gauge", NULL, false },
	{ "system_swap_total_bytes", "gauge", NULL, false },
	{ "system_swap_used_bytes", "gauge", NULL, false },
	{ "instance_info", "gauge", NULL, false },
	{ "neuron_hardware_info", "gauge", "neuroncore_per_device_count", false },
};

static const char *const prom_instance_labels[] = {
	"instance_name", "instance_id", "instance_type", "availability_zone", "region",
	"subnet_id",
};

/* MemTotal of /proc/meminfo, bytes. */
static unsigned long long mem_total_bytes(void)
{
	unsigned long long kb = 0;
	char line[256];
	FILE *f = fopen("/proc/meminfo", "re");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "MemTotal: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

struct prom_seen {
	char typed[64][128];
	unsigned int n_typed;
	bool family[ARRAY_SIZE(prom_families)];
	bool completed, latency;
};

/* Check one sample line of the exporter's text against what the test did. */
static void prom_check_sample(struct __test_metadata *_metadata, const char *line,
			      struct prom_seen *seen, const char *tag, const char *nc,
			      unsigned long long execs)
{
	struct prom_sample s;
	unsigned int k, t;
	const char *v;

	ASSERT_TRUE(prom_parse(line, &s)) TH_LOG("not a sample: '%s'", line);
	for (t = 0; t < seen->n_typed && strcmp(seen->typed[t], s.name); t++)
		;
	EXPECT_LT(t, seen->n_typed) TH_LOG("%s not typed before its sample", s.name);
	for (k = 0; k < ARRAY_SIZE(prom_instance_labels); k++)
		EXPECT_NE(NULL, prom_get(&s, prom_instance_labels[k]))
			TH_LOG("%s: no label %s", line, prom_instance_labels[k] ?: "");
	for (k = 0; k < ARRAY_SIZE(prom_families) && strcmp(prom_families[k].name, s.name); k++)
		;
	if (!strcmp(s.name, "execution_latency_seconds")) {
		v = prom_get(&s, "percentile");
		EXPECT_TRUE(v && v[0] == 'p') TH_LOG("%s", line);
		EXPECT_LE(0.0, s.value);
		seen->latency = true;
		return;
	}
	ASSERT_LT(k, ARRAY_SIZE(prom_families)) TH_LOG("unexpected family: %s", line);
	seen->family[k] = true;
	if (prom_families[k].label)
		EXPECT_NE(NULL, prom_get(&s, prom_families[k].label)) TH_LOG("%s", line);
	v = prom_get(&s, "runtime_tag");
	/* The runtime's families have its tag, the others none. */
	EXPECT_STREQ(prom_families[k].runtime ? tag : "(none)", v ?: "(none)");
	if (!strcmp(s.name, "neuroncore_utilization_ratio")) {
		EXPECT_STREQ(nc, prom_get(&s, "neuroncore") ?: "(none)");
		EXPECT_LE(0.0, s.value);
		EXPECT_GE(1.0, s.value);
	} else if (!strncmp(s.name, "neuroncore_memory_usage_", 24)) {
		EXPECT_STREQ(nc, prom_get(&s, "neuroncore") ?: "(none)");
		/* The workload's memory by usage (execs: it has one). */
		if (!strcmp(s.name + 24, "tensors")) {
			EXPECT_EQ((double)mon_alloc_bytes(execs, NEURON_MEM_DEVICE,
							  NEURON_MEM_USAGE_TENSORS), s.value);
		} else if (!strcmp(s.name + 24, "runtime_memory")) {
			EXPECT_EQ((double)mon_alloc_bytes(execs, NEURON_MEM_DEVICE,
							  NEURON_MEM_USAGE_RUNTIME), s.value);
		} else if (!strcmp(s.name + 24, "model_code")) {
			EXPECT_EQ(!!execs, s.value > 0) TH_LOG("%s", line);
		}
	} else if (!strcmp(s.name, "execution_status_total")) {
		v = prom_get(&s, "status_type") ?: "";
		if (!strcmp(v, "completed")) {
			EXPECT_EQ((double)execs, s.value) TH_LOG("%s", line);
			seen->completed = true;
		} else {
			EXPECT_EQ(0.0, s.value) TH_LOG("%s", line);
		}
	} else if (!strcmp(s.name, "execution_errors_total")) {
		EXPECT_EQ(0.0, s.value) TH_LOG("%s", line);
	} else if (!strcmp(s.name, "system_memory_total_bytes")) {
		EXPECT_EQ((double)mem_total_bytes(), s.value);
	} else if (!strcmp(s.name, "system_vcpu_count")) {
		EXPECT_EQ((double)sysconf(_SC_NPROCESSORS_ONLN), s.value);
	} else if (!strcmp(s.name, "instance_info") || !strcmp(s.name, "neuron_hardware_info")) {
		EXPECT_EQ(1.0, s.value);
	}
}

/*
 * --prometheus -c FILE: one report in the vendor exporter's families,
 * a period after the start: every line a comment or a valid sample, each
 * family typed once and before its samples, the instance labels on every
 * sample, runtime_tag on the runtime's, the executions this process ran
 * in the period counted as completed.
 */
TEST_F(tools, monitor_prometheus_vendor)
{
	char cfg[] = "/tmp/neuron-monitor-XXXXXX", tag[16], nc[16];
	char *const argv[] = { "neuron-monitor", "--prometheus", "-c", cfg, "--verbose", "1",
			       NULL };
	static const char *const config_rest[] = {
		"\"metrics\": [{\"type\": \"neuroncore_counters\"}, {\"type\": \"memory_used\"}, ",
		"{\"type\": \"neuron_runtime_vcpu_usage\"}, {\"type\": \"execution_stats\"}]}], ",
		"\"system_metrics\": [{\"type\": \"vcpu_usage\"}, {\"type\": \"memory_info\"}, ",
		"{\"type\": \"neuron_hw_counters\"}]}",
	};
	__u32 model = 0, bind[2], status;
	struct prom_seen seen = { 0 };
	char *line, *save, *copy;
	unsigned int k, runs;
	struct mon *m;
	bool exec;

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		SKIP(return, "no NEURON_CAP_RESERVE");
	exec = self->info.caps & NEURON_CAP_EXEC;
	snprintf(nc, sizeof(nc), "%u",
		 mon_workload_setup(_metadata, &self->node, exec, &model, bind));
	snprintf(tag, sizeof(tag), "%d", getpid());
	mon_config_write(_metadata, cfg, "4s", config_rest, ARRAY_SIZE(config_rest));

	m = malloc(sizeof(*m));
	ASSERT_NE(NULL, m);
	ASSERT_EQ(0, mon_start(m, argv));
	/* Its baseline taken (the message after it), the workload runs. */
	EXPECT_TRUE(mon_wait_err(m, "reporting every", 8000));
	runs = exec ? 5 : 0;
	for (k = 0; k < runs; k++) {
		ASSERT_EQ(0, nio_execute_wait(self->node.fd, model, bind, 2, 0, &status));
		ASSERT_EQ((__u32)NEURON_EXEC_OK, status);
	}
	mon_lines(m, 1 << 20, 12000);
	EXPECT_EQ(0, mon_stop(m));
	unlink(cfg);
	ASSERT_LT(0U, m->len);
	ASSERT_EQ('\n', m->buf[m->len - 1]);

	copy = strdup(m->buf);
	ASSERT_NE(NULL, copy);
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char name[128], type[32];
		unsigned int t;

		if (!strncmp(line, "# TYPE ", 7)) {
			int got = sscanf(line + 7, "%127s %31s", name, type);

			ASSERT_EQ(2, got) TH_LOG("%s", line);
			for (t = 0; t < seen.n_typed && strcmp(seen.typed[t], name); t++)
				;
			EXPECT_EQ(t, seen.n_typed) TH_LOG("%s typed twice", name);
			ASSERT_LT(seen.n_typed, ARRAY_SIZE(seen.typed));
			strcpy(seen.typed[seen.n_typed++], name);
			for (t = 0; t < ARRAY_SIZE(prom_families); t++)
				if (!strcmp(prom_families[t].name, name))
					EXPECT_STREQ(prom_families[t].type, type);
			continue;
		}
		if (line[0] == '#') {
			EXPECT_EQ(0, strncmp(line, "# HELP ", 7)) TH_LOG("%s", line);
			continue;
		}
		prom_check_sample(_metadata, line, &seen, tag, nc, runs);
	}
	free(copy);
	for (k = 0; k < ARRAY_SIZE(prom_families); k++)
		EXPECT_TRUE(seen.family[k])
			TH_LOG("no %s: %s", prom_families[k].name ?: "", m->buf);
	EXPECT_TRUE(seen.completed);
	/* The exporter's latency family reads total_latency: there when runs ran. */
	EXPECT_EQ(runs > 0, seen.latency) TH_LOG("%s", m->buf);
	free(m);
	if (exec)
		neuron_model_unload(self->node.fd, model);
}

TEST_HARNESS_MAIN
