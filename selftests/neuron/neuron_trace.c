// SPDX-License-Identifier: GPL-2.0
/*
 * The neuron tracepoints (events/neuron/ in tracefs): a copy, an execution
 * and an execution that overruns its timeout (simulator knob tpb_hang_nc)
 * leave neuron_dma_submit/_complete, neuron_exec_submit/_complete and
 * neuron_nc_reset events with the right fields. tracefs is mounted if it
 * is not; the test skips only if there is no tracefs at all.
 */
#include <sys/mount.h>

#include "neuron_test.h"

static char tdir[64];

/* Find or mount tracefs: true if events/ is there. */
static bool trace_find(void)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	char path[128];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		snprintf(path, sizeof(path), "%s/events", dirs[i]);
		if (access(path, F_OK) && i == 0)
			mount("nodev", dirs[i], "tracefs", 0, NULL);
		if (!access(path, F_OK)) {
			snprintf(tdir, sizeof(tdir), "%s", dirs[i]);
			return true;
		}
	}
	return false;
}

static int trace_write(const char *file, const char *text)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", tdir, file);
	return neuron_sysfs_write(path, text);
}

/* The whole trace buffer (malloc'ed, NUL-terminated), or NULL. */
static char *trace_read(void)
{
	size_t size = 0, cap = 1 << 16;
	char path[128], *buf = malloc(cap);
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/trace", tdir);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || !buf) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((n = read(fd, buf + size, cap - size - 1)) > 0) {
		size += n;
		if (cap - size < 4096) {
			char *more = realloc(buf, cap * 2);

			if (!more)
				break;
			buf = more;
			cap *= 2;
		}
	}
	buf[size] = '\0';
	close(fd);
	return buf;
}

/* The fields after "@event: " of the @nth line of @event for @dev/@nc. */
static const char *trace_find_event(const char *buf, const char *event,
				    unsigned int dev, unsigned int nc,
				    unsigned int nth)
{
	char key[96];
	const char *p = buf;
	unsigned int d, n;

	snprintf(key, sizeof(key), " %s: ", event);
	while ((p = strstr(p, key))) {
		p += strlen(key);
		if (sscanf(p, "dev=%u nc=%u", &d, &n) == 2 && d == dev && n == nc &&
		    !nth--)
			return p;
	}
	return NULL;
}

#define MM	NEURON_TEST_MM

static int execute(int fd, __u32 model, __u32 in, __u32 out, __u32 timeout_ms,
		   __u32 *status)
{
	__u32 bind[2] = { in, out };

	return nio_execute_wait(fd, model, bind, 2, timeout_ms, status);
}

FIXTURE(trace) {
	struct neuron_node node;
	struct neuron_device_info info;
	bool on;
	bool cmd;
};

FIXTURE_SETUP(trace)
{
	char path[128];

	if (!trace_find())
		NEURON_SKIP_SETUP("no tracefs (CONFIG_FTRACE off?)");
	neuron_setup_node(_metadata, &self->node, "v2", 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	snprintf(path, sizeof(path), "%s/events/neuron", tdir);
	ASSERT_EQ(0, access(path, F_OK))
		TH_LOG("no %s: neuron.ko has no tracepoints", path);
	ASSERT_EQ(0, trace_write("tracing_on", "0"));
	ASSERT_EQ(0, trace_write("trace", "\n"));
	/*
	 * No task names: recording them hooks the scheduler's tracepoints,
	 * and patching those while the other vCPU runs through them oopsed
	 * a TCG guest once (int3 in ttwu_do_activate). The events need no
	 * names; the option is put back at teardown.
	 */
	self->cmd = trace_write("options/record-cmd", "0") == 0;
	ASSERT_EQ(0, trace_write("events/neuron/enable", "1"));
	self->on = true;
	ASSERT_EQ(0, trace_write("tracing_on", "1"));
}

FIXTURE_TEARDOWN(trace)
{
	if (self->on) {
		trace_write("tracing_on", "0");
		trace_write("events/neuron/enable", "0");
	}
	if (self->cmd)
		trace_write("options/record-cmd", "1");
	neuron_node_release(&self->node);
}

/* Every event has its format file: the fields are numbers only. */
TEST_F(trace, formats)
{
	static const char *const events[] = {
		"neuron_dma_submit", "neuron_dma_complete", "neuron_exec_submit",
		"neuron_exec_complete", "neuron_notify", "neuron_nc_reset",
	};
	char path[160], buf[4096];
	size_t i;

	for (i = 0; i < ARRAY_SIZE(events); i++) {
		snprintf(path, sizeof(path), "%s/events/neuron/%s/format", tdir,
			 events[i]);
		ASSERT_EQ(0, neuron_read_text(path, buf, sizeof(buf))) TH_LOG("%s", path);
		EXPECT_NE(NULL, strstr(buf, "field:u32 dev;")) TH_LOG("%s", events[i]);
		EXPECT_NE(NULL, strstr(buf, "field:u32 nc;")) TH_LOG("%s", events[i]);
		EXPECT_EQ(NULL, strstr(buf, "__data_loc")) TH_LOG("%s", events[i]);
		EXPECT_EQ(NULL, strchr(buf, '*')) TH_LOG("%s: a pointer", events[i]);
	}
}

/* A copy of 256 bytes to NC 1: submit and complete with its seqno. */
TEST_F(trace, copy)
{
	struct neuron_mem_alloc a;
	unsigned long long seq, seq2, bytes;
	unsigned char data[256];
	const char *e, *last = NULL;
	unsigned int i;
	char *buf;
	int err, nsc;

	memset(data, 0x3c, sizeof(data));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, a.handle, 0, data, NULL,
				    sizeof(data), 0, NULL));
	ASSERT_EQ(0, trace_write("tracing_on", "0"));
	buf = trace_read();
	ASSERT_NE(NULL, buf);
	/*
	 * The copy is the last transfer on NC 1 (a device whose memory is
	 * cleared by DMA at allocation, a PCI device, has one before it).
	 */
	for (i = 0; (e = trace_find_event(buf, "neuron_dma_submit", self->node.minor, 1, i)); i++)
		last = e;
	ASSERT_NE(NULL, last) TH_LOG("no neuron_dma_submit for dev %u nc 1:\n%s",
				     self->node.minor, buf);
	nsc = sscanf(last, "dev=%*u nc=%*u seqno=%llu bytes=%llu", &seq, &bytes);
	ASSERT_EQ(2, nsc);
	EXPECT_EQ(sizeof(data), bytes);
	EXPECT_LT(0ULL, seq);
	for (i = 0; (e = trace_find_event(buf, "neuron_dma_complete",
					  self->node.minor, 1, i)); i++) {
		nsc = sscanf(e, "dev=%*u nc=%*u seqno=%llu error=%d", &seq2, &err);
		ASSERT_EQ(2, nsc);
		if (seq2 == seq)
			break;
	}
	ASSERT_NE(NULL, e) TH_LOG("no neuron_dma_complete of seqno %llu:\n%s", seq, buf);
	EXPECT_EQ(0, err);
	EXPECT_EQ(NULL, trace_find_event(buf, "neuron_dma_submit", self->node.minor, 0, 0));
	free(buf);
}

/* An execution on NC 1, then one that overruns its timeout. */
TEST_F(trace, execution)
{
	unsigned long long seq, seq2, ns;
	__u32 in, out, model, status, st;
	struct neuron_mem_alloc a;
	char knob[160];
	const char *e;
	char *buf;
	int nsc;

	if (!(self->info.caps & NEURON_CAP_EXEC))
		SKIP(return, "no NEURON_CAP_EXEC");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	in = a.handle;
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	out = a.handle;
	ASSERT_EQ(0, neuron_mm_model_load(self->node.fd, 1, &model));
	ASSERT_EQ(0, execute(self->node.fd, model, in, out, 0, &status));
	ASSERT_EQ((__u32)NEURON_EXEC_OK, status);

	/* The second one hangs (NC 1: knob value 2) and is timed out. */
	snprintf(knob, sizeof(knob), NEURON_SIM_BUS "/devices/neuron_sim%u/tpb_hang_nc",
		 self->node.sim_id);
	if (self->node.created) {
		ASSERT_EQ(0, neuron_sysfs_write(knob, "2"));
		ASSERT_EQ(0, execute(self->node.fd, model, in, out, 100, &status));
		ASSERT_EQ((__u32)NEURON_EXEC_TIMEOUT, status);
	}
	ASSERT_EQ(0, trace_write("tracing_on", "0"));
	buf = trace_read();
	ASSERT_NE(NULL, buf);

	e = trace_find_event(buf, "neuron_exec_submit", self->node.minor, 1, 0);
	ASSERT_NE(NULL, e) TH_LOG("no neuron_exec_submit:\n%s", buf);
	nsc = sscanf(e, "dev=%*u nc=%*u seqno=%llu", &seq);
	ASSERT_EQ(1, nsc);
	e = trace_find_event(buf, "neuron_exec_complete", self->node.minor, 1, 0);
	ASSERT_NE(NULL, e) TH_LOG("no neuron_exec_complete:\n%s", buf);
	nsc = sscanf(e, "dev=%*u nc=%*u seqno=%llu status=%u duration_ns=%llu",
		     &seq2, &st, &ns);
	ASSERT_EQ(3, nsc);
	EXPECT_EQ(seq, seq2);
	EXPECT_EQ((__u32)NEURON_EXEC_OK, st);
	EXPECT_LT(0ULL, ns);

	if (self->node.created) {
		e = trace_find_event(buf, "neuron_exec_complete", self->node.minor, 1, 1);
		ASSERT_NE(NULL, e) TH_LOG("no second neuron_exec_complete:\n%s", buf);
		nsc = sscanf(e, "dev=%*u nc=%*u seqno=%llu status=%u duration_ns=%llu",
			     &seq2, &st, &ns);
		ASSERT_EQ(3, nsc);
		EXPECT_EQ(seq + 1, seq2);
		EXPECT_EQ((__u32)NEURON_EXEC_TIMEOUT, st);
		/* The 100 ms deadline counts from the submission, the
		 * duration from the start on the core: a loaded VM starts it
		 * a few ms late (96.4 ms seen). An OK one takes microseconds.
		 */
		EXPECT_LE(50000000ULL, ns);
		e = trace_find_event(buf, "neuron_nc_reset", self->node.minor, 1, 0);
		ASSERT_NE(NULL, e) TH_LOG("no neuron_nc_reset:\n%s", buf);
		EXPECT_NE(NULL, strstr(e, "reason=exec_timeout"));
	}
	free(buf);
}

TEST_HARNESS_MAIN
