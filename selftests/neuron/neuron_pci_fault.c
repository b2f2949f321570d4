// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: engine faults of a PCI device, made by the device model
 * (docs/devmodel.md, "Control protocol") and recovered by the driver
 * (docs/architecture.md, "Hangs"; docs/uapi.md, NEURON_IOCTL_COPY). Runs in
 * the pci tier's VMs (docs/testing.md, "The pci tier"): NEURON_DEVICE is
 * the model's device, NEURON_DEVMODEL_CTL (/dev/ttyS1) its control
 * channel. For each fault a copy on one NC (NC 0 and NC 1: on trn2 both
 * share one engine, as queues 0 and 1), its outcome, the netlink events
 * about the device, the NC's counters in sysfs, and a copy afterwards
 * whose data must come back right:
 *  - desc_error (`desc-error ENGINE`): the copy fails with EIO at once;
 *    DMA_FAULT then NC_RESET (DMA_ERROR) for the NC; resets and
 *    dma_errors one more;
 *  - engine_hang (`engine-hang ENGINE on`, job_timeout_ms 1000): the copy
 *    fails with EIO after the timeout; the NC is reset through the
 *    firmware (the model's tpb_resets one more, with the NC's map);
 *    NC_RESET (DMA_HANG) and no DMA_FAULT; the engine resumes (`off`) and
 *    the next copy works;
 *  - reset_delay (`reset-delay 1500`): the same, the firmware taking the
 *    reset 1.5 s after it is asked: NC_RESET comes no sooner, the copy
 *    after it works;
 *  - reset_refused (`reset-refuse on`, pci_reset_timeout_ms 2000): the
 *    firmware never takes the reset: after 2 s one kernel line, NC_RESET,
 *    the NC reads "failed" and a copy on it fails with EIO; with
 *    `reset-refuse off` an unbind and bind of the device (the explicit
 *    recovery, docs/uapi.md) gives a device whose copies work;
 *  - engine_hang_fed: the same with a copy queued every 200 ms: a doorbell
 *    is no progress, the hang is declared within two periods of the first;
 *  - engine_slow (`engine-slow ENGINE 50000`): 50 ms per packet, the copy
 *    below the timeout: it completes (no sooner than its packets' delay),
 *    right, and no event nor reset;
 *  - lost_completion (`lost-completion 1`): the copy's completion marker
 *    is dropped; nothing completes, the queue is declared hung after the
 *    timeout: EIO, NC_RESET (DMA_HANG);
 *  - lost_completion_covered: the same with a second copy queued behind
 *    the first: its marker says both are done, both succeed, no reset;
 *  - engine_hang_halts_queues: a hang with an EVENT queue set up on the
 *    NC: the queue is halted before the NC's reset (NOTIFY_WAIT -EIO, the
 *    model takes no post, the ring keeps its entry), and set up again it
 *    works;
 *  - reset_coalesced (trn2 only, skips elsewhere; `reset-delay 3000`):
 *    three NCs hang, two of them sharing a host-copy engine, while the
 *    first one's reset is out: the two wait and go out as one firmware
 *    request with their maps ORed (the model's reset_requests,
 *    tpb_resets, tpb_reset_ncs, last_tpb_map), the shared engine is reset
 *    and set up again (engine-status fw_resets, setup_writes), each NC
 *    gets NC_RESET and a copy on each works after.
 * Skips (exit 4) without NEURON_DEVMODEL_CTL or its device (the simulator,
 * silicon), or when the device under test is not a PCI device. With the
 * channel there, a model that does not answer fails.
 */
#include <linux/limits.h>

#include "neuron_test.h"
#include "neuron_nl.h"

/* Driver-side DMA error codes (driver/dma/neuron_dma.h, docs/netlink.md). */
#define DMA_ERR_DESC	1

/* One copy: 64 KiB, one packet per run of contiguous host pages. */
#define COPY_SIZE	65536
#define BUF_SIZE	(4 * COPY_SIZE)
#define SLOW_US		50000
/* job_timeout_ms while the tests run. */
#define TIMEOUT_MS	1000
/* How long to listen for an event that must not come, in ms. */
#define QUIET_MS	300
/* The firmware's delay in reset_delay, the give-up bound in reset_refused. */
#define RESET_DELAY_MS	1500
#define GIVE_UP_MS	2000

/* ---- the model's control channel ---- */

/* The model's counter @name (the `stats` command): its value, or -1. */
static long long ctl_stat(int fd, const char *name)
{
	long long val;

	return neuron_devmodel_stat_fd(fd, name, &val) ? -1 : val;
}

/* ---- the fixture ---- */

FIXTURE(pcifault) {
	struct neuron_node node;
	struct neuron_device_info info;
	struct nl ev;
	int ctl;
	__u32 engine;
	char eng[64];		/* "ENGINE" of the commands */
	unsigned long long timeout;	/* job_timeout_ms before */
	unsigned long long give_up;	/* pci_reset_timeout_ms before */
	bool give_up_set;
	__u32 tpb_map;		/* the NC's TPB reset map (docs/hw-facts.md) */
	__u32 v3_hung;		/* v3 engines 128 + i made to hang (bit i): reset_coalesced */
	unsigned char *src, *back;
	__u32 handle;
};

FIXTURE_VARIANT(pcifault) {
	__u32 nc;
};

FIXTURE_VARIANT_ADD(pcifault, nc0) { .nc = 0 };
FIXTURE_VARIANT_ADD(pcifault, nc1) { .nc = 1 };

FIXTURE_SETUP(pcifault)
{
	const char *ctl = getenv("NEURON_DEVMODEL_CTL");
	int ret;

	self->ctl = -1;
	self->timeout = 0;
	if (!ctl || !*ctl)
		NEURON_SKIP_SETUP("no device model control channel (NEURON_DEVMODEL_CTL): %s",
				  "only the pci tier's VMs have one");
	if (access(ctl, F_OK))
		NEURON_SKIP_SETUP("%s: no such device", ctl);
	if (neuron_mode() != NEURON_MODE_DEVICE)
		NEURON_SKIP_SETUP("%s", neuron_mode_skip_reason());
	neuron_setup_node(_metadata, &self->node, NULL, 0);
	if (neuron_pci_name(self->node.minor, NULL, 0))
		NEURON_SKIP_SETUP("%s is not a PCI device", self->node.path);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
	ASSERT_EQ(NEURON_CAP_COPY | NEURON_CAP_MEM,
		  self->info.caps & (NEURON_CAP_COPY | NEURON_CAP_MEM))
		TH_LOG("the pci tier loads neuron.ko with pci_engines=1: copies expected");
	ASSERT_LT(variant->nc, self->info.nc_count);
	/* The NC's copy queue (driver/ndhal: silicon->copy_queue). */
	if (self->info.arch == NEURON_ARCH_V2) {
		self->engine = 32 + variant->nc;
		self->tpb_map = (1u << variant->nc) | (7u << (8 + 3 * variant->nc));
	} else if (self->info.arch == NEURON_ARCH_V3) {
		self->engine = 128 + variant->nc / 2;
		self->tpb_map = (1u << variant->nc) | (1u << (8 + variant->nc)) |
				(1u << (16 + variant->nc));
	} else {
		NEURON_SKIP_SETUP("arch %.16s: no PCI copy queue known", self->info.arch_name);
	}
	snprintf(self->eng, sizeof(self->eng), "%u", self->engine);

	self->ctl = neuron_devmodel_open();
	ASSERT_LE(0, self->ctl) TH_LOG("open %s: %s", ctl, strerror(-self->ctl));
	ASSERT_LE(0, ctl_stat(self->ctl, "errors"))
		TH_LOG("the device model does not answer on %s", ctl);

	ret = nl_setup(&self->ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));
	ASSERT_EQ(0, neuron_param_get("job_timeout_ms", &self->timeout));
	ASSERT_EQ(0, neuron_param_set("job_timeout_ms", TIMEOUT_MS));

	self->src = malloc(BUF_SIZE);
	self->back = malloc(BUF_SIZE);
	ASSERT_NE(NULL, self->src);
	ASSERT_NE(NULL, self->back);
	ASSERT_EQ(0, neuron_alloc(self->node.fd, NEURON_MEM_DEVICE, BUF_SIZE, variant->nc,
				  &self->handle, NULL));
}

FIXTURE_TEARDOWN(pcifault)
{
	if (self->ctl >= 0) {
		/* Whatever a failed test left on. */
		char cmd[96];

		snprintf(cmd, sizeof(cmd), "engine-hang %s off", self->eng);
		neuron_devmodel_ask(self->ctl, cmd, NULL, 0);
		snprintf(cmd, sizeof(cmd), "engine-slow %s 0", self->eng);
		neuron_devmodel_ask(self->ctl, cmd, NULL, 0);
		neuron_devmodel_ask(self->ctl, "lost-completion 0", NULL, 0);
		neuron_devmodel_ask(self->ctl, "reset-refuse off", NULL, 0);
		neuron_devmodel_ask(self->ctl, "reset-delay 0", NULL, 0);
		for (int i = 0; i < 4; i++) {
			if (!(self->v3_hung & (1u << i)))
				continue;
			snprintf(cmd, sizeof(cmd), "engine-hang %d off", 128 + i);
			neuron_devmodel_ask(self->ctl, cmd, NULL, 0);
		}
		close(self->ctl);
	}
	if (self->timeout)
		neuron_param_set("job_timeout_ms", self->timeout);
	if (self->give_up_set)
		neuron_param_set("pci_reset_timeout_ms", self->give_up);
	nl_close(&self->ev);
	free(self->src);
	free(self->back);
	neuron_node_release(&self->node);
}

/* ---- helpers ---- */

/*
 * Helpers take the fixture data as struct _test_data_pcifault, which is
 * what FIXTURE_DATA(pcifault) stands for (spelled out so that checkpatch
 * sees a type).
 */

/* Send "VERB ENGINE [ARG]" to the model, asserting "ok". */
static void ctl_engine(struct __test_metadata *_metadata, struct _test_data_pcifault *self,
		       const char *verb, const char *arg)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "%s %s%s%s", verb, self->eng, arg ? " " : "", arg ? arg : "");
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, cmd, NULL, 0)) TH_LOG("model command %s", cmd);
}

/* The NC's counter @name in sysfs (nc<M>/resets, dma_errors). */
static long long nc_counter(struct _test_data_pcifault *self, __u32 nc, const char *name)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u/%s",
		 self->node.minor, nc, name);
	if (neuron_read_text(path, text, sizeof(text)))
		return -1;
	return atoll(text);
}

/* Assert that the next event about the device is @type on @nc with @code. */
static void expect_event(struct __test_metadata *_metadata, struct _test_data_pcifault *self,
			 __u32 type, int nc, __u32 code)
{
	struct nl_event e;
	int ret = event_wait_ms(&self->ev, EVENT_MS, 0, self->node.minor, -1, &e);

	ASSERT_EQ(0, ret) TH_LOG("no event %u about NC %d: %s", type, nc, strerror(-ret));
	EXPECT_EQ(type, e.type) TH_LOG("event %u (NC %d, code %u), not %u", e.type, e.nc,
				       e.code, type);
	EXPECT_EQ(nc, e.nc);
	EXPECT_TRUE(e.has_code);
	EXPECT_EQ(code, e.code);
}

/* Assert that no event about the device comes within QUIET_MS. */
static void expect_quiet(struct __test_metadata *_metadata, struct _test_data_pcifault *self)
{
	struct nl_event e;
	int ret = event_wait_ms(&self->ev, QUIET_MS, 0, self->node.minor, -1, &e);

	EXPECT_EQ(-ETIMEDOUT, ret) TH_LOG("event %u about NC %d (code %u)", e.type, e.nc,
					  e.code);
}

/* A pattern of @size bytes from @seed into @p. */
static void fill(unsigned char *p, size_t size, unsigned int seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 7 + seed * 13 + (i >> 8));
}

/* Copy @size bytes of self->src to the device at @off: 0 or -errno. */
static int copy_in(struct _test_data_pcifault *self, __u64 off, size_t size)
{
	return neuron_copy_op(self->node.fd, 0, 0, self->handle, off, self->src, NULL,
			      size, 0, NULL);
}

/*
 * The NC works: a new pattern copied in and back (at @off, @size bytes)
 * comes back right.
 */
static void copy_checked(struct __test_metadata *_metadata, struct _test_data_pcifault *self,
			 __u64 off, size_t size, unsigned int seed)
{
	fill(self->src, size, seed);
	memset(self->back, 0, size);
	ASSERT_EQ(0, copy_in(self, off, size));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->handle, off, 0, 0, NULL, self->back,
				    size, 0, NULL));
	ASSERT_EQ(0, memcmp(self->src, self->back, size));
}

/* ---- the faults ---- */

TEST_F_TIMEOUT(pcifault, desc_error, 120)
{
	long long resets = nc_counter(self, variant->nc, "resets");
	long long errs = nc_counter(self, variant->nc, "dma_errors");
	long long model_errs = ctl_stat(self->ctl, "errors");

	ASSERT_LE(0, resets);
	ASSERT_LE(0, errs);
	ASSERT_LE(0, model_errs);
	copy_checked(_metadata, self, 0, COPY_SIZE, 1);
	ctl_engine(_metadata, self, "desc-error", NULL);
	fill(self->src, COPY_SIZE, 2);
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	EXPECT_EQ(model_errs + 1, ctl_stat(self->ctl, "errors"));
	expect_event(_metadata, self, NEURON_EVENT_DMA_FAULT, variant->nc, DMA_ERR_DESC);
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_ERROR);
	EXPECT_EQ(resets + 1, nc_counter(self, variant->nc, "resets"));
	EXPECT_EQ(errs + 1, nc_counter(self, variant->nc, "dma_errors"));
	copy_checked(_metadata, self, 0, COPY_SIZE, 3);
	copy_checked(_metadata, self, COPY_SIZE, 3 * COPY_SIZE, 4);
	expect_quiet(_metadata, self);
}

TEST_F_TIMEOUT(pcifault, engine_hang, 120)
{
	long long resets = nc_counter(self, variant->nc, "resets");
	long long tpb = ctl_stat(self->ctl, "tpb_resets");
	__s64 t0;
	long ms;

	ASSERT_LE(0, resets);
	ASSERT_LE(0, tpb);
	ctl_engine(_metadata, self, "engine-hang", "on");
	fill(self->src, COPY_SIZE, 5);
	t0 = neuron_now_ns();
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	/*
	 * Declared hung job_timeout_ms after the doorbell of an idle queue
	 * (jiffies: a tick early at most), not a period later.
	 */
	EXPECT_LE(TIMEOUT_MS - 20, ms);
	EXPECT_GT(2 * TIMEOUT_MS, ms);
	/* A hang is no device error: no DMA_FAULT, the reset first. */
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	EXPECT_EQ(resets + 1, nc_counter(self, variant->nc, "resets"));
	/* The NC was reset through the firmware, with its own map. */
	EXPECT_EQ(tpb + 1, ctl_stat(self->ctl, "tpb_resets"));
	EXPECT_EQ(self->tpb_map, ctl_stat(self->ctl, "last_tpb_map"));
	ctl_engine(_metadata, self, "engine-hang", "off");
	copy_checked(_metadata, self, 0, COPY_SIZE, 6);
	expect_quiet(_metadata, self);
	TH_LOG("hang declared after %ld ms", ms);
}

/*
 * The firmware takes the NC's reset RESET_DELAY_MS after it is asked: the
 * hung copy fails at the timeout (before the reset), NC_RESET comes once
 * the reset is done, and the NC works afterwards.
 */
TEST_F_TIMEOUT(pcifault, reset_delay, 120)
{
	long long tpb = ctl_stat(self->ctl, "tpb_resets");
	char delay[32];
	__s64 t0;
	long ms;

	ASSERT_LE(0, tpb);
	snprintf(delay, sizeof(delay), "reset-delay %u", RESET_DELAY_MS);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, delay, NULL, 0));
	ctl_engine(_metadata, self, "engine-hang", "on");
	fill(self->src, COPY_SIZE, 14);
	t0 = neuron_now_ns();
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	ctl_engine(_metadata, self, "engine-hang", "off");
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	EXPECT_LE(TIMEOUT_MS + RESET_DELAY_MS - 20, ms);
	EXPECT_EQ(tpb + 1, ctl_stat(self->ctl, "tpb_resets"));
	EXPECT_EQ(self->tpb_map, ctl_stat(self->ctl, "last_tpb_map"));
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "reset-delay 0", NULL, 0));
	copy_checked(_metadata, self, 0, COPY_SIZE, 15);
	expect_quiet(_metadata, self);
	TH_LOG("hang and reset took %ld ms", ms);
}

/* Unbind the device from neuron and bind it again: 0, or -errno. */
static int rebind(const char *pci_dev)
{
	static const char *const ops[] = { "unbind", "bind" };
	char path[PATH_MAX];
	int i, fd;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/sys/bus/pci/drivers/neuron/%s", ops[i]);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			return -errno;
		if (write(fd, pci_dev, strlen(pci_dev)) < 0) {
			i = -errno;
			close(fd);
			return i;
		}
		close(fd);
	}
	return 0;
}

/*
 * The firmware never takes the reset: it fails after pci_reset_timeout_ms
 * with one kernel line, the NC is out of service (state "failed", a copy
 * fails with EIO), and the device works again after an unbind and bind.
 */
TEST_F_TIMEOUT(pcifault, reset_refused, 120)
{
	long long tpb = ctl_stat(self->ctl, "tpb_resets");
	long long refused = ctl_stat(self->ctl, "resets_refused");
	int lines = neuron_kmsg_count("did not take the TPB reset");
	char path[128], link[PATH_MAX], state[32], *pci_dev;
	__s64 t0, end;
	ssize_t n;
	long ms;

	ASSERT_LE(0, tpb);
	ASSERT_LE(0, refused);
	ASSERT_LE(0, lines) TH_LOG("/dev/kmsg: %s", strerror(errno));
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/device", self->node.minor);
	n = readlink(path, link, sizeof(link) - 1);
	ASSERT_LT(0, n) TH_LOG("%s: %s", path, strerror(errno));
	link[n] = '\0';
	pci_dev = strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
	ASSERT_EQ(0, neuron_param_get("pci_reset_timeout_ms", &self->give_up));
	ASSERT_EQ(0, neuron_param_set("pci_reset_timeout_ms", GIVE_UP_MS));
	self->give_up_set = true;
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "reset-refuse on", NULL, 0));
	ctl_engine(_metadata, self, "engine-hang", "on");
	fill(self->src, COPY_SIZE, 16);
	t0 = neuron_now_ns();
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	EXPECT_LE(TIMEOUT_MS + GIVE_UP_MS - 20, ms);
	EXPECT_EQ(lines + 1, neuron_kmsg_count("did not take the TPB reset"));
	EXPECT_EQ(tpb, ctl_stat(self->ctl, "tpb_resets"));
	EXPECT_EQ(refused + 1, ctl_stat(self->ctl, "resets_refused"));
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u/state",
		 self->node.minor, variant->nc);
	ASSERT_EQ(0, neuron_read_text(path, state, sizeof(state)));
	EXPECT_EQ(0, strncmp(state, "failed", 6)) TH_LOG("%s: %s", path, state);
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));

	/* The explicit recovery: the device again, from probe. */
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "reset-refuse off", NULL, 0));
	ctl_engine(_metadata, self, "engine-hang", "off");
	neuron_node_release(&self->node);
	ASSERT_EQ(0, rebind(pci_dev)) TH_LOG("rebind %s", pci_dev);
	end = neuron_now_ns() + 30000000000LL;
	while (access(neuron_env_device(), F_OK) && neuron_now_ns() < end)
		usleep(100000);
	neuron_setup_node(_metadata, &self->node, NULL, 0);
	ASSERT_EQ(0, neuron_alloc(self->node.fd, NEURON_MEM_DEVICE, BUF_SIZE, variant->nc,
				  &self->handle, NULL));
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u/state",
		 self->node.minor, variant->nc);
	ASSERT_EQ(0, neuron_read_text(path, state, sizeof(state)));
	EXPECT_NE(0, strncmp(state, "failed", 6)) TH_LOG("%s: %s", path, state);
	copy_checked(_metadata, self, 0, COPY_SIZE, 17);
	TH_LOG("reset given up after %ld ms", ms);
}

/*
 * A hung engine that is fed new copies: a doorbell is no progress, so the
 * hang is declared within two periods of the first copy, not a period
 * after the last one.
 */
TEST_F_TIMEOUT(pcifault, engine_hang_fed, 120)
{
	__u64 seq[64];
	int n = 0, i, ret;
	__s64 t0;
	long ms;

	ctl_engine(_metadata, self, "engine-hang", "on");
	fill(self->src, COPY_SIZE, 12);
	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->handle, 0, self->src, NULL,
				    COPY_SIZE, NEURON_COPY_ASYNC, &seq[n++]));
	/* A copy every 200 ms until the first fails, for 6 periods at most. */
	for (;;) {
		ret = neuron_wait_seq(self->node.fd, seq[0], neuron_now_ns() + 200000000LL);
		if (ret != -ETIME || n == (int)ARRAY_SIZE(seq) ||
		    neuron_now_ns() - t0 > 6LL * TIMEOUT_MS * 1000000)
			break;
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->handle, 0, self->src,
					    NULL, COPY_SIZE, NEURON_COPY_ASYNC, &seq[n++]));
	}
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	EXPECT_EQ(-EIO, ret);
	EXPECT_LE(TIMEOUT_MS - 20, ms);
	EXPECT_GT(2 * TIMEOUT_MS + 500, ms) TH_LOG("%d copies queued meanwhile", n - 1);
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	ctl_engine(_metadata, self, "engine-hang", "off");
	/* Those queued after the reset may run or be reset again. */
	for (i = 1; i < n; i++) {
		ret = neuron_wait_seq(self->node.fd, seq[i],
				      neuron_now_ns() + 10LL * TIMEOUT_MS * 1000000);
		EXPECT_TRUE(ret == 0 || ret == -EIO) TH_LOG("copy %d: %d", i, ret);
	}
	copy_checked(_metadata, self, 0, COPY_SIZE, 13);
	TH_LOG("hang declared after %ld ms, %d copies fed", ms, n - 1);
}

TEST_F_TIMEOUT(pcifault, engine_slow, 120)
{
	long long resets = nc_counter(self, variant->nc, "resets");
	long long packets = ctl_stat(self->ctl, "packets");
	char us[16];
	__s64 t0;
	long ms;

	ASSERT_LE(0, resets);
	ASSERT_LE(0, packets);
	/*
	 * A packet per host page at most (16, and the marker): 0.85 s each
	 * way, below the timeout, which is no progress for 5 s.
	 */
	ASSERT_EQ(0, neuron_param_set("job_timeout_ms", 5000));
	snprintf(us, sizeof(us), "%u", SLOW_US);
	ctl_engine(_metadata, self, "engine-slow", us);
	t0 = neuron_now_ns();
	copy_checked(_metadata, self, 0, COPY_SIZE, 7);
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	ctl_engine(_metadata, self, "engine-slow", "0");
	packets = ctl_stat(self->ctl, "packets") - packets;
	/* In and back: at least a data packet and the marker each way. */
	ASSERT_LE(4, packets);
	/* Each packet but the last of each way was slept after. */
	EXPECT_LE((packets - 2) * (SLOW_US / 1000), ms);
	expect_quiet(_metadata, self);
	EXPECT_EQ(resets, nc_counter(self, variant->nc, "resets"));
	copy_checked(_metadata, self, 0, COPY_SIZE, 8);
	TH_LOG("slow copy in and back: %lld packets, %ld ms", packets, ms);
}

TEST_F_TIMEOUT(pcifault, lost_completion, 120)
{
	long long resets = nc_counter(self, variant->nc, "resets");
	long long dropped = ctl_stat(self->ctl, "markers_dropped");
	__s64 t0;
	long ms;

	ASSERT_LE(0, resets);
	ASSERT_LE(0, dropped);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "lost-completion 1", NULL, 0));
	fill(self->src, COPY_SIZE, 9);
	t0 = neuron_now_ns();
	/* The data moved, but nothing says so: the queue is hung. */
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	ms = (long)((neuron_now_ns() - t0) / 1000000);
	EXPECT_LE(TIMEOUT_MS - 20, ms);
	EXPECT_EQ(dropped + 1, ctl_stat(self->ctl, "markers_dropped"));
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	EXPECT_EQ(resets + 1, nc_counter(self, variant->nc, "resets"));
	copy_checked(_metadata, self, 0, COPY_SIZE, 10);
	expect_quiet(_metadata, self);
}

TEST_F_TIMEOUT(pcifault, lost_completion_covered, 120)
{
	long long resets = nc_counter(self, variant->nc, "resets");
	long long dropped = ctl_stat(self->ctl, "markers_dropped");
	__u64 s1 = 0, s2 = 0;
	__s64 end;

	ASSERT_LE(0, resets);
	ASSERT_LE(0, dropped);
	fill(self->src, 2 * COPY_SIZE, 11);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "lost-completion 1", NULL, 0));
	/* Two doorbells, two markers: the second tells both are done. */
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->handle, 0, self->src, NULL,
				    COPY_SIZE, NEURON_COPY_ASYNC, &s1));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, self->handle, COPY_SIZE,
				    self->src + COPY_SIZE, NULL, COPY_SIZE,
				    NEURON_COPY_ASYNC, &s2));
	end = neuron_now_ns() + 10LL * TIMEOUT_MS * 1000000;
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, s1, end));
	EXPECT_EQ(0, neuron_wait_seq(self->node.fd, s2, end));
	EXPECT_EQ(dropped + 1, ctl_stat(self->ctl, "markers_dropped"));
	memset(self->back, 0, 2 * COPY_SIZE);
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, self->handle, 0, 0, 0, NULL, self->back,
				    2 * COPY_SIZE, 0, NULL));
	EXPECT_EQ(0, memcmp(self->src, self->back, 2 * COPY_SIZE));
	expect_quiet(_metadata, self);
	EXPECT_EQ(resets, nc_counter(self, variant->nc, "resets"));
}

/*
 * Post @data to the NC's EVENT queue through the model (slot 32: the
 * driver's choice, docs/hw-facts.md [inferred]): 0 or -EIO (the model
 * refused: no queue programmed there).
 */
static int post_event(struct _test_data_pcifault *self, __u32 nc, __u32 data)
{
	char cmd[96];

	snprintf(cmd, sizeof(cmd), "notify nc %u 32 %u 7 %u", nc, NEURON_NOTIFY_EVENT, data);
	return neuron_devmodel_ask(self->ctl, cmd, NULL, 0);
}

/* NOTIFY_WAIT of the NC's EVENT queue up to 2 s for head past @consumed. */
static int wait_event(struct _test_data_pcifault *self, __u32 nc, __u32 consumed,
		      __u32 *head)
{
	return nio_notify_wait(self->node.fd, nc, NEURON_NOTIFY_EVENT, consumed,
			       neuron_now_ns() + 2000000000LL, head);
}

/*
 * A hang resets the NC through the firmware: its notification queues are
 * halted first (docs/hw-facts.md, "Reset", step 1). The EVENT queue set
 * up before reads -EIO from then on, keeps what was written before, and
 * the model takes no post for it; torn down and set up again, it works.
 */
TEST_F_TIMEOUT(pcifault, engine_hang_halts_queues, 120)
{
	struct nio_notify_queue r;
	__u32 head = 0;

	ASSERT_NE(0U, self->info.caps & NEURON_CAP_NOTIFY);
	neuron_ring_open_ok(_metadata, self->node.fd, variant->nc, NEURON_NOTIFY_EVENT, 64,
			    -1, &r);
	ASSERT_EQ(0, post_event(self, variant->nc, 41));
	ASSERT_EQ(0, wait_event(self, variant->nc, 0, &head));
	ASSERT_EQ(1U, head);
	EXPECT_EQ(41U, neuron_ring_entry(&r, 0)->data);

	ctl_engine(_metadata, self, "engine-hang", "on");
	fill(self->src, COPY_SIZE, 16);
	EXPECT_EQ(-EIO, copy_in(self, 0, COPY_SIZE));
	expect_event(_metadata, self, NEURON_EVENT_NC_RESET, variant->nc,
		     NEURON_RESET_DMA_HANG);
	ctl_engine(_metadata, self, "engine-hang", "off");

	/* Halted: the wait says so at once, the device writes nothing more. */
	EXPECT_EQ(-EIO, wait_event(self, variant->nc, 1, &head));
	EXPECT_EQ(-EIO, post_event(self, variant->nc, 42));
	EXPECT_EQ(-EIO, wait_event(self, variant->nc, 1, &head));
	/* The frozen ring still holds what came before. */
	EXPECT_EQ(1U, neuron_ring_head(&r));
	EXPECT_EQ(41U, neuron_ring_entry(&r, 0)->data);

	/* Set up again, the queue works. */
	ASSERT_EQ(0, nio_notify_close(self->node.fd, &r));
	neuron_ring_open_ok(_metadata, self->node.fd, variant->nc, NEURON_NOTIFY_EVENT, 64,
			    -1, &r);
	ASSERT_EQ(0, post_event(self, variant->nc, 43));
	ASSERT_EQ(0, wait_event(self, variant->nc, 0, &head));
	EXPECT_EQ(1U, head);
	EXPECT_EQ(43U, neuron_ring_entry(&r, 0)->data);
	EXPECT_EQ(0, nio_notify_close(self->node.fd, &r));
	copy_checked(_metadata, self, 0, COPY_SIZE, 17);
}

/* ---- coalesced resets (trn2: two NCs share a host-copy engine) ---- */

/* The model's field @name in the line of `engine-status ENGINE`: its value, or -1. */
static long long engine_field(int fd, __u32 engine, const char *name)
{
	char cmd[48], out[4096], key[48], *p;

	snprintf(cmd, sizeof(cmd), "engine-status %u", engine);
	snprintf(key, sizeof(key), " %s ", name);
	if (neuron_devmodel_ask(fd, cmd, out, sizeof(out)))
		return -1;
	p = strstr(out, key);
	return p ? atoll(p + strlen(key)) : -1;
}

/* v3 TPB reset map of NC @nc (docs/hw-facts.md, "Reset"). */
static __u32 v3_map(__u32 nc)
{
	return (1u << nc) | (1u << (8 + nc)) | (1u << (16 + nc));
}

/*
 * Three NCs hang: first one (the lead) whose reset the firmware takes
 * COALESCE_DELAY_MS after it is asked, then, while that one is out, both
 * NCs of another host-copy engine. Their two resets wait and go out as
 * one request with both maps ORed: the model takes 2 TPB resets for 3
 * NCs, the last with both maps, and resets the shared engine (it does so
 * only when both its NCs are in one map), which the driver then sets up
 * again (set-up writes seen after the engine's reset). Every hung copy
 * fails with EIO, every NC gets its NC_RESET, and afterwards a copy on
 * each of the three works. Variant nc0: NCs 0 and 1 (engine 128), lead NC
 * 4 (engine 130); nc1: NCs 2 and 3 (engine 129), lead NC 6 (engine 131).
 */
#define COALESCE_DELAY_MS	3000

TEST_F_TIMEOUT(pcifault, reset_coalesced, 120)
{
	__u32 nc[3], eng[2], h[3], i, got = 0;
	long long tpb, ncs, reqs, fw_resets[2], resets[3];
	__u64 seq[3];
	char cmd[64];
	__s64 end;

	if (self->info.arch != NEURON_ARCH_V3)
		SKIP(return, "arch %.16s: no two NCs share a host-copy engine (trn2 only)",
		     self->info.arch_name);
	ASSERT_LE(8U, self->info.nc_count);
	nc[0] = 4 + 2 * variant->nc;		/* the lead */
	nc[1] = 2 * variant->nc;		/* the pair */
	nc[2] = nc[1] + 1;
	eng[0] = 128 + nc[0] / 2;
	eng[1] = 128 + nc[1] / 2;
	for (i = 0; i < 3; i++) {
		ASSERT_EQ(0, neuron_alloc(self->node.fd, NEURON_MEM_DEVICE, COPY_SIZE, nc[i],
					  &h[i], NULL));
		resets[i] = nc_counter(self, nc[i], "resets");
		ASSERT_LE(0, resets[i]);
	}
	tpb = ctl_stat(self->ctl, "tpb_resets");
	ncs = ctl_stat(self->ctl, "tpb_reset_ncs");
	reqs = ctl_stat(self->ctl, "reset_requests");
	ASSERT_LE(0, tpb);
	ASSERT_LE(0, ncs) TH_LOG("a device model without tpb_reset_ncs");
	ASSERT_LE(0, reqs);
	for (i = 0; i < 2; i++) {
		fw_resets[i] = engine_field(self->ctl, eng[i], "fw_resets");
		ASSERT_LE(0, fw_resets[i]);
	}

	snprintf(cmd, sizeof(cmd), "reset-delay %u", COALESCE_DELAY_MS);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, cmd, NULL, 0));
	fill(self->src, COPY_SIZE, 20);
	snprintf(cmd, sizeof(cmd), "engine-hang %u on", eng[0]);
	self->v3_hung |= 1u << (eng[0] - 128);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, cmd, NULL, 0));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, h[0], 0, self->src, NULL, COPY_SIZE,
				    NEURON_COPY_ASYNC, &seq[0]));
	/* The lead's request is out (rung, not taken) before the pair hangs. */
	end = neuron_now_ns() + 5LL * TIMEOUT_MS * 1000000;
	while (ctl_stat(self->ctl, "reset_requests") == reqs && neuron_now_ns() < end)
		usleep(20000);
	ASSERT_EQ(reqs + 1, ctl_stat(self->ctl, "reset_requests"));
	ASSERT_EQ(tpb, ctl_stat(self->ctl, "tpb_resets"));
	snprintf(cmd, sizeof(cmd), "engine-hang %u on", eng[1]);
	self->v3_hung |= 1u << (eng[1] - 128);
	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, cmd, NULL, 0));
	for (i = 1; i < 3; i++)
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, h[i], 0, self->src, NULL,
					    COPY_SIZE, NEURON_COPY_ASYNC, &seq[i]));
	for (i = 0; i < 3; i++) {
		int ret = neuron_wait_seq(self->node.fd, seq[i], neuron_now_ns() + 20000000000LL);
		__u32 n = nc[i];

		EXPECT_EQ(-EIO, ret) TH_LOG("the hung copy on NC %u", n);
	}
	/* Each NC's reset, the lead's first; the pair's after the second request. */
	for (i = 0; i < 3; i++) {
		struct nl_event e;
		int ret = event_wait_ms(&self->ev, 3 * COALESCE_DELAY_MS, NEURON_EVENT_NC_RESET,
					self->node.minor, -1, &e);

		ASSERT_EQ(0, ret) TH_LOG("NC_RESET %u of 3: %s", i + 1, strerror(-ret));
		ASSERT_LE(0, e.nc);
		ASSERT_GT(8, e.nc);
		EXPECT_EQ((__u32)NEURON_RESET_DMA_HANG, e.code);
		if (i == 0)
			EXPECT_EQ(nc[0], (__u32)e.nc);
		got |= 1u << e.nc;
	}
	EXPECT_EQ((1u << nc[0]) | (1u << nc[1]) | (1u << nc[2]), got);

	/* Two requests, two resets taken, three NCs: the pair's were one. */
	EXPECT_EQ(reqs + 2, ctl_stat(self->ctl, "reset_requests"));
	EXPECT_EQ(tpb + 2, ctl_stat(self->ctl, "tpb_resets"));
	EXPECT_EQ(ncs + 3, ctl_stat(self->ctl, "tpb_reset_ncs"));
	EXPECT_EQ(v3_map(nc[1]) | v3_map(nc[2]), ctl_stat(self->ctl, "last_tpb_map"));
	/* The pair's engine was reset (both its NCs in one map) and set up again. */
	EXPECT_EQ(fw_resets[1] + 1, engine_field(self->ctl, eng[1], "fw_resets"));
	EXPECT_LT(0, engine_field(self->ctl, eng[1], "setup_writes"))
		TH_LOG("engine %u not set up again after its reset", eng[1]);
	/* The lead's engine, shared with an NC not reset, was kept. */
	EXPECT_EQ(fw_resets[0], engine_field(self->ctl, eng[0], "fw_resets"));
	for (i = 0; i < 3; i++)
		EXPECT_EQ(resets[i] + 1, nc_counter(self, nc[i], "resets"));

	ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, "reset-delay 0", NULL, 0));
	for (i = 0; i < 2; i++) {
		snprintf(cmd, sizeof(cmd), "engine-hang %u off", eng[i]);
		ASSERT_EQ(0, neuron_devmodel_ask(self->ctl, cmd, NULL, 0));
	}
	/* Every queue works again. */
	for (i = 0; i < 3; i++) {
		__u32 n = nc[i];

		fill(self->src, COPY_SIZE, 21 + i);
		memset(self->back, 0, COPY_SIZE);
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, h[i], 0, self->src, NULL,
					    COPY_SIZE, 0, NULL)) TH_LOG("copy to NC %u", n);
		ASSERT_EQ(0, neuron_copy_op(self->node.fd, h[i], 0, 0, 0, NULL, self->back,
					    COPY_SIZE, 0, NULL)) TH_LOG("copy from NC %u", n);
		EXPECT_EQ(0, memcmp(self->src, self->back, COPY_SIZE)) TH_LOG("NC %u", n);
	}
	expect_quiet(_metadata, self);
}

TEST_HARNESS_MAIN
