// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: hot removal of a PCI device (docs/testing.md, "The pci
 * tier") while a file, a mapping and waits of the device are live, on the
 * device model (NEURON_DEVICE, NEURON_DEVMODEL_CTL), in one of two ways:
 *  - in the pci tier's VMs on q35, where QEMU's device_del cannot reach
 *    the guest (docs/devmodel.md, "Hot removal"), as the PCI core does it
 *    after a hotplug eject: sysfs "remove" calls the driver's remove, then
 *    deletes the pci_dev; a rescan of the bus finds the device again;
 *  - with NEURON_DEVMODEL_QMP (the hotplug VM on i440fx, scripts/vm-pci.sh
 *    NEURON_VM_HOTPLUG=1): a real hot unplug, QEMU's device_del of the
 *    device (qdev id "neuron0") through the QMP monitor on that serial
 *    line; the guest's ACPI hotplug driver (acpiphp) runs the driver's
 *    remove and ejects the slot, QEMU deletes the device and closes the
 *    vfio-user connection, and the model exits (its status, 0, is judged
 *    on the host: "### NEURON DEVMODEL status=0 ###").
 * The tests, in this order:
 *  - remove_live: a file open, device memory mapped, a semaphore wait and
 *    a copy's wait asleep (the copy held by an engine the model hangs):
 *    the removal ends both waits with ENODEV, the node and the pci_dev go,
 *    later ioctls and mmap fail with ENODEV, the mapping raises SIGBUS,
 *    munmap and close work, netlink announces DEV_REMOVED, and nothing
 *    holds the module (refcnt 0); after device_del the model's control
 *    channel no longer answers (the model has exited);
 *  - rescan_back (sysfs removal only): the bus rescanned, the device is
 *    probed again: /dev/neuron0 is back and a copy into its memory and
 *    back is right;
 *  - deleted_stays_gone (device_del only): a rescan finds no device, the
 *    driver has none bound, no /dev/neuron0.
 * And surprise removal, the device that stops answering (the model's
 * `vanish on`: BAR0 reads all ones, writes are lost, as when the model is
 * killed under QEMU; docs/devmodel.md, "Hot removal"), which the driver
 * must notice on its own (docs/uapi.md, "Surprise removal"); these run
 * first, each ending with the device answering again and bound anew:
 *  - vanish_live: a file open, device memory mapped, a semaphore wait and
 *    a copy's wait asleep (the copy held by a hung engine): once the
 *    device vanishes both waits end with ENODEV, netlink announces
 *    DEV_LOST, the driver lets go of the device (its pci_dev stays),
 *    DEV_REMOVED follows, the mapping raises SIGBUS, calls fail with
 *    ENODEV; then `vanish off`, a bind through sysfs, a copy in and back;
 *  - vanish_idle_copy, _sem, _fw: the device vanishes with nothing in
 *    flight: it stays bound (nothing reads it) until a call that reads it
 *    (a copy: the engine state; a semaphore read; the serial number: the
 *    mailbox's wait), which ends with ENODEV; one kernel line names that
 *    read; DEV_LOST; the driver lets go; then back as above;
 *  - vanish_race_unbind: the driver's own unbinding against an unbind
 *    through sysfs, 6 rounds: the read that notices ends with ENODEV, the
 *    device is unbound once, without a splat, and binds again;
 *  - vanish_combos: vanish_live's checks for every combination of its
 *    state, a round each: memory mapped or not, a semaphore wait, a copy's
 *    wait or both asleep.
 * And last (the device back from rescan_back; they skip in the hotplug VM,
 * where device_del deleted it), the device that vanishes while the driver
 * waits for its firmware:
 *  - vanish_probe_ready, _reset: during the probe's wait for readiness
 *    (the model's `not-ready forever`) or for the firmware to take the
 *    probe's device reset (`reset-delay`): the bind fails with ENODEV
 *    within 3 s, one kernel line for the device (the one naming the read),
 *    no node, unbound, refcnt 0; then back as above;
 *  - vanish_nc_reset: during an NC reset (a copy held by `engine-hang`
 *    declared hung, failed with EIO; the firmware taking resets 60 s late)
 *    with a second copy waiting for it: the reset ends within 3 s of
 *    `vanish on` (NC_RESET), `device lost (reset request)`, DEV_LOST, the
 *    waiting copy ends with ENODEV or EIO, the driver lets go, refcnt 0
 *    once the file is closed; then back as above.
 * And the model killed for real (its `die`), only with NEURON_DEVMODEL_KILL
 * (the pci tier's kill VM, scripts/vm-pci.sh NEURON_VM_MODEL_KILL=1), where
 * every other test skips:
 *  - kill_idle: a file with NC 0 reserved and device memory mapped,
 *    nothing in flight; after the kill QEMU gives all ones for the
 *    device's reads: the device stays bound until a semaphore read, which
 *    ends with ENODEV; DEV_LOST, the driver lets go (the pci_dev stays),
 *    the mapping raises SIGBUS, calls fail with ENODEV; a bind then fails
 *    with ENODEV at once, with one line ("routing id reads all ones").
 *    The model's status, 137, is judged on the host.
 * Skips (exit 4) without NEURON_DEVMODEL_CTL (the simulator; on silicon a
 * test does not remove the host's device), or when the device under test
 * is not a PCI device.
 */
#include <pthread.h>
#include <sys/mman.h>

#include "neuron_test.h"
#include "neuron_nl.h"

#define MEM_SIZE	65536
/* The waits end within this after the removal began... */
#define WAKE_MS		10000
/* ...and within this after it returned (scheduling on a busy guest). */
#define SLACK_NS	2000000000LL
/* Probe again after the rescan: the firmware readiness, the engines. */
#define ADD_MS		60000
/* job_timeout_ms while the copy is held: longer than the removal. */
#define JOB_TIMEOUT_MS	300000
/* A vanished device is let go within this (its waits end, it is unbound). */
#define LOST_MS		10000
/* With nothing in flight nothing reads the device: still bound after this. */
#define IDLE_MS		1000
/* The qdev id of the device in the hotplug VM (scripts/vm-pci.sh). */
#define QMP_ID		"neuron0"
/* device_del to QEMU's DEVICE_DELETED: the guest's eject. */
#define DEL_MS		60000
/* The PCI vendor ID of the device (docs/hw-facts.md). */
#define VENDOR		"0x1d0f"

/* The copy queue's engine of NC 0 for the model's commands (neuron_pci_fault). */
static int copy_engine(const struct neuron_device_info *info)
{
	if (!strncmp(info->arch_name, "v2", sizeof(info->arch_name)))
		return 32;
	if (!strncmp(info->arch_name, "v3", sizeof(info->arch_name)))
		return 128;
	return -1;
}

/* Why this VM cannot run a test that removes the device, or NULL. */
static const char *removal_skip_reason(void)
{
	if (!neuron_env_devmodel_ctl())
		return "no NEURON_DEVMODEL_CTL: only the pci tier's VMs remove a device";
	if (neuron_mode() != NEURON_MODE_DEVICE)
		return neuron_mode_skip_reason();
	return NULL;
}

/* Why this VM cannot run the tests but kill_idle (see the header), or NULL. */
static const char *skip_reason(void)
{
	if (neuron_env_devmodel_kill())
		return "the kill VM runs kill_idle alone (the model is dead after it)";
	return removal_skip_reason();
}

/* ---- waiters ---- */

struct waiter {
	int fd;
	bool sem;		/* a semaphore wait, else the copy's */
	__u64 seqno;
	int ret;
	__s64 ended;		/* neuron_now_ns() at the return */
	bool done;		/* set last, read with __atomic_load_n() */
};

static void *wait_fn(void *arg)
{
	struct waiter *w = arg;

	if (w->sem)
		w->ret = neuron_sem(w->fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3, NEURON_SEM_WAIT,
				    1, INT64_MAX, NULL);
	else
		w->ret = neuron_wait_seq(w->fd, w->seqno, INT64_MAX);
	w->ended = neuron_now_ns();
	__atomic_store_n(&w->done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* Join @t within @ms: 0, or -ETIMEDOUT (the thread is left running). */
static int join_ms(pthread_t t, struct waiter *w, int ms)
{
	__s64 end = neuron_now_ns() + ms * 1000000LL;

	while (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE) && neuron_now_ns() < end)
		neuron_sleep_ms(20);
	if (!__atomic_load_n(&w->done, __ATOMIC_ACQUIRE))
		return -ETIMEDOUT;
	return pthread_join(t, NULL) ? -EINVAL : 0;
}

static void fill(unsigned char *p, size_t size, unsigned int seed)
{
	size_t i;

	for (i = 0; i < size; i++)
		p[i] = (unsigned char)(i * 7 + seed * 13 + (i >> 8));
}

/* ---- a device in use: what remove_live and vanish_live take away ---- */

/*
 * A file open, device memory mapped and written, a semaphore wait of no
 * deadline asleep (NEURON_CAP_SEM), a copy held by an engine the model
 * hangs and its wait asleep (copies).
 */
struct scene {
	struct neuron_node node;
	struct neuron_device_info info;
	char bdf[64];
	__u32 minor;
	bool sem, copy, hung;
	unsigned int omit;		/* SC_NO_*: parts left out (vanish_combos) */
	int eng;
	unsigned long long timeout;	/* job_timeout_ms before */
	struct waiter ws, wc;
	pthread_t ts, tc;
	__u32 h;
	__u64 off;
	unsigned char *p, *src;
	struct nl ev;
};

/* Parts of a scene that vanish_combos leaves out (struct scene's omit). */
#define SC_NO_MAP	1u
#define SC_NO_SEM	2u
#define SC_NO_COPY	4u

/* The file, the mapping and the sleepers of @sc (its node set up). */
static void scene_start(struct __test_metadata *_metadata, struct scene *sc)
{
	char cmd[64];
	size_t i;
	int ret;

	sc->minor = sc->node.minor;
	sc->ws.sem = true;
	ASSERT_EQ(0, neuron_query_info(sc->node.fd, &sc->info, NULL));
	ASSERT_NE(0ULL, sc->info.caps & NEURON_CAP_MEM);
	sc->sem = (sc->info.caps & NEURON_CAP_SEM) && !(sc->omit & SC_NO_SEM);
	sc->copy = (sc->info.caps & NEURON_CAP_COPY) && copy_engine(&sc->info) >= 0 &&
		   !(sc->omit & SC_NO_COPY);
	ret = nl_setup(&sc->ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));

	/* Device memory (BAR4), mapped and written. */
	ASSERT_EQ(0, neuron_alloc(sc->node.fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &sc->h, &sc->off));
	if (sc->omit & SC_NO_MAP)
		goto sleepers;
	sc->p = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, sc->node.fd, sc->off);
	ASSERT_NE(MAP_FAILED, sc->p) TH_LOG("mmap: %s", strerror(errno));
	fill(sc->p, MEM_SIZE, 1);
	for (i = 0; i < MEM_SIZE && sc->p[i] == (unsigned char)(i * 7 + 13 + (i >> 8)); i++)
		;
	EXPECT_EQ((size_t)MEM_SIZE, i);

sleepers:
	/* A semaphore wait of no deadline. */
	if (sc->sem) {
		ASSERT_EQ(0, neuron_reserve(sc->node.fd, 1));
		sc->ws.fd = sc->node.fd;
		ASSERT_EQ(0, pthread_create(&sc->ts, NULL, wait_fn, &sc->ws));
	} else {
		fprintf(stderr, "# no NEURON_CAP_SEM: no semaphore wait\n");
	}
	/* A copy held by a hung engine, and its wait of no deadline. */
	sc->src = malloc(MEM_SIZE);
	ASSERT_NE(NULL, sc->src);
	fill(sc->src, MEM_SIZE, 2);
	if (sc->copy) {
		sc->eng = copy_engine(&sc->info);
		ASSERT_EQ(0, neuron_param_get("job_timeout_ms", &sc->timeout));
		ASSERT_EQ(0, neuron_param_set("job_timeout_ms", JOB_TIMEOUT_MS));
		snprintf(cmd, sizeof(cmd), "engine-hang %d on", sc->eng);
		ASSERT_EQ(0, neuron_devmodel_cmd(cmd));
		sc->hung = true;
		ASSERT_EQ(0, neuron_copy_op(sc->node.fd, 0, 0, sc->h, 0, sc->src, NULL, MEM_SIZE,
					    NEURON_COPY_ASYNC, &sc->wc.seqno));
		sc->wc.fd = sc->node.fd;
		ASSERT_EQ(0, pthread_create(&sc->tc, NULL, wait_fn, &sc->wc));
	} else {
		fprintf(stderr, "# no copies: no copy in flight\n");
	}
	neuron_sleep_ms(300);
	EXPECT_FALSE(__atomic_load_n(&sc->ws.done, __ATOMIC_ACQUIRE));
	EXPECT_FALSE(__atomic_load_n(&sc->wc.done, __ATOMIC_ACQUIRE));
}

/* The device gone: the open file ENODEV, the mapping SIGBUS; munmap, close. */
static void scene_gone(struct __test_metadata *_metadata, struct scene *sc)
{
	unsigned char v;
	int fd = sc->node.fd;

	EXPECT_EQ(-ENODEV, neuron_query_info(fd, &sc->info, NULL));
	EXPECT_EQ(-ENODEV, neuron_mem_free(fd, sc->h));
	if (sc->sem)
		EXPECT_EQ(-ENODEV, neuron_sem(fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3,
					      NEURON_SEM_READ, 0, 0, NULL));
	if (sc->copy)
		EXPECT_EQ(-ENODEV, neuron_copy_op(fd, 0, 0, sc->h, 0, sc->src, NULL, 4096, 0,
						  NULL));
	if (sc->p) {
		EXPECT_EQ(SIGBUS, neuron_probe(sc->p, &v, false));
		v = 0x5a;
		EXPECT_EQ(SIGBUS, neuron_probe(sc->p + MEM_SIZE - 1, &v, true));
	}
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, MEM_SIZE, PROT_READ, MAP_SHARED, fd, sc->off));
	EXPECT_EQ(ENODEV, errno);
	if (sc->p)
		EXPECT_EQ(0, munmap(sc->p, MEM_SIZE));
	EXPECT_EQ(0, close(fd));
	sc->node.fd = -1;
}

/* DEV_REMOVED seen; the model's engine and job_timeout_ms as they were. */
static void scene_end(struct __test_metadata *_metadata, struct scene *sc)
{
	struct nl_event e;
	char cmd[64];
	int ret;

	ret = event_wait_ms(&sc->ev, 5000, NEURON_EVENT_DEV_REMOVED, sc->minor, -1, &e);
	EXPECT_EQ(0, ret) TH_LOG("no DEV_REMOVED event: %s", strerror(-ret));
	if (sc->hung) {
		snprintf(cmd, sizeof(cmd), "engine-hang %d off", sc->eng);
		EXPECT_EQ(0, neuron_devmodel_cmd(cmd));
	}
	if (sc->timeout)
		neuron_param_set("job_timeout_ms", sc->timeout);
	nl_close(&sc->ev);
	free(sc->src);
}

/* ---- surprise removal: the model's `vanish` ---- */

/* Is there a PCI device @bdf? */
static bool pci_dev_present(const char *bdf)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	return !access(path, F_OK);
}

/* Is the neuron driver bound to the PCI device @bdf? */
static bool bound(const char *bdf)
{
	char path[160];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver", bdf);
	return !access(path, F_OK);
}

/* Wait up to @ms for @bdf to be unbound (@want false) or bound: 0, -ETIMEDOUT. */
static int wait_bound(const char *bdf, bool want, int ms)
{
	__s64 end = neuron_now_ns() + ms * 1000000LL;

	while (bound(bdf) != want && neuron_now_ns() < end)
		neuron_sleep_ms(20);
	return bound(bdf) == want ? 0 : -ETIMEDOUT;
}

/*
 * Wait up to @ms for the node @path to go: 0, -ETIMEDOUT. (The driver core
 * removes the "driver" link before it calls the driver's remove, which
 * removes the node and zaps the mappings: unbound is not yet removed.)
 */
static int wait_node_gone(const char *path, int ms)
{
	__s64 end = neuron_now_ns() + ms * 1000000LL;

	while (!access(path, F_OK) && neuron_now_ns() < end)
		neuron_sleep_ms(20);
	return access(path, F_OK) ? 0 : -ETIMEDOUT;
}

/* A copy into new device memory and back: 0 if the bytes come back. */
static int round_trip(int fd, unsigned int seed)
{
	unsigned char *src = malloc(MEM_SIZE), *back = calloc(1, MEM_SIZE);
	int ret = -ENOMEM;
	__u32 h;

	if (src && back) {
		fill(src, MEM_SIZE, seed);
		ret = neuron_alloc(fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &h, NULL);
		if (!ret) {
			ret = neuron_copy_op(fd, 0, 0, h, 0, src, NULL, MEM_SIZE, 0, NULL);
			if (!ret)
				ret = neuron_copy_op(fd, h, 0, 0, 0, NULL, back, MEM_SIZE, 0, NULL);
			if (!ret && memcmp(src, back, MEM_SIZE))
				ret = -EILSEQ;
			neuron_mem_free(fd, h);
		}
	}
	free(src);
	free(back);
	return ret;
}

/*
 * The device answers again (`vanish off`: the state after a PCI reset),
 * the driver is bound to it through sysfs, and (@copy) a copy goes in and
 * back.
 */
static void vanish_back(struct __test_metadata *_metadata, const char *bdf, bool copy)
{
	struct neuron_node node;
	__s64 t0;
	int ret;

	ASSERT_EQ(0, neuron_devmodel_cmd("vanish off"));
	t0 = neuron_now_ns();
	ret = neuron_sysfs_write("/sys/bus/pci/drivers/neuron/bind", bdf);
	ASSERT_EQ(0, ret) TH_LOG("bind %s: %s", bdf, strerror(-ret));
	while (access(neuron_env_device(), F_OK) && neuron_now_ns() < t0 + ADD_MS * 1000000LL)
		neuron_sleep_ms(50);
	ASSERT_EQ(0, access(neuron_env_device(), F_OK))
		TH_LOG("no %s after the bind", neuron_env_device());
	fprintf(stderr, "# bound again, %s back after %lld ms\n", neuron_env_device(),
		(neuron_now_ns() - t0) / 1000000);
	if (!copy)
		return;
	neuron_setup_node(_metadata, &node, NULL, 0);
	EXPECT_EQ(0, round_trip(node.fd, 5));
	neuron_node_release(&node);
}

/* What vanish_* need, or the reason to skip: a PCI device with copies. */
static const char *vanish_setup(struct __test_metadata *_metadata, struct neuron_node *node,
				struct neuron_device_info *info, char *bdf, size_t len)
{
	if (skip_reason())
		return skip_reason();
	neuron_setup_node(_metadata, node, NULL, 0);
	if (neuron_pci_name(node->minor, bdf, len))
		return "not a PCI device";
	if (neuron_query_info(node->fd, info, NULL))
		return "no QUERY";
	/* Without the engines the driver reads no register after probe. */
	if (!(info->caps & NEURON_CAP_COPY) || copy_engine(info) < 0)
		return "no copies (pci_engines=0): the driver reads nothing of the device";
	return NULL;
}

/* ---- the tests (in this order: rescan_back finds what remove_live removed) ---- */

/*
 * The harness gives a TEST 30 s. Every case here ends with a bind or a
 * rescan, up to 5 s on the debug kernel, and the cases of several rounds
 * take longer: vanish_combos passed 30 s in the debug hotplug boot. So
 * the cases are TEST_F of this fixture, which does nothing, to have times
 * of their own (and keep their order: the harness runs a fixture's cases
 * together).
 */
#define CASE_S		60
#define ROUNDS_S	180

FIXTURE(unplug) {
	int unused;
};

FIXTURE_SETUP(unplug)
{
}

FIXTURE_TEARDOWN(unplug)
{
}

/*
 * The model killed (its `die`: SIGKILL to itself) under a file that holds
 * reserved NC 0 and device memory mapped, nothing in flight: QEMU keeps the
 * device on the bus and gives all ones for its reads, as the model's
 * `vanish` does, so the driver notices at the next read; then no bind
 * takes the dead device. (With reads in flight at the kill, QEMU 11.1.3
 * aborts: docs/devmodel.md, "Hot removal".)
 */
TEST_F_TIMEOUT(unplug, kill_idle, CASE_S)
{
	struct scene sc = { .node.fd = -1 };
	int lost, gone, ret;
	struct nl_event e;
	__s64 t0, t1;
	size_t i;

	if (removal_skip_reason())
		SKIP(return, "%s", removal_skip_reason());
	if (!neuron_env_devmodel_kill())
		SKIP(return, "no NEURON_DEVMODEL_KILL: only the kill VM kills the model");
	neuron_setup_node(_metadata, &sc.node, NULL, 0);
	if (neuron_pci_name(sc.node.minor, sc.bdf, sizeof(sc.bdf)))
		SKIP(return, "%s is not a PCI device", sc.node.path);
	fprintf(stderr, "# device %s\n", sc.bdf);
	sc.minor = sc.node.minor;
	ASSERT_EQ(0, neuron_query_info(sc.node.fd, &sc.info, NULL));
	ASSERT_NE(0ULL, sc.info.caps & NEURON_CAP_SEM);
	sc.sem = true;
	ASSERT_EQ(0, neuron_reserve(sc.node.fd, 1));
	ret = nl_setup(&sc.ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));
	ASSERT_EQ(0, neuron_alloc(sc.node.fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &sc.h, &sc.off));
	sc.p = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, sc.node.fd, sc.off);
	ASSERT_NE(MAP_FAILED, sc.p) TH_LOG("mmap: %s", strerror(errno));
	fill(sc.p, MEM_SIZE, 1);
	for (i = 0; i < MEM_SIZE && sc.p[i] == (unsigned char)(i * 7 + 13 + (i >> 8)); i++)
		;
	EXPECT_EQ((size_t)MEM_SIZE, i);
	lost = neuron_kmsg_count("device lost (semaphore)");
	ASSERT_LE(0, lost) TH_LOG("/dev/kmsg: %s", strerror(errno));
	gone = neuron_kmsg_count("routing id reads all ones");

	ret = neuron_devmodel_die(1000);
	ASSERT_EQ(0, ret) TH_LOG("die: %s", strerror(-ret));
	neuron_sleep_ms(IDLE_MS);
	EXPECT_TRUE(bound(sc.bdf)) TH_LOG("unbound with nothing reading the device");

	t0 = neuron_now_ns();
	ret = neuron_sem(sc.node.fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3, NEURON_SEM_READ, 0, 0,
			 NULL);
	EXPECT_EQ(-ENODEV, ret) TH_LOG("the semaphore read: %s", strerror(-ret));
	t1 = neuron_now_ns();
	ret = event_wait_ms(&sc.ev, LOST_MS, NEURON_EVENT_DEV_LOST, sc.minor, -1, &e);
	EXPECT_EQ(0, ret) TH_LOG("no DEV_LOST event: %s", strerror(-ret));
	ASSERT_EQ(0, wait_bound(sc.bdf, false, LOST_MS)) TH_LOG("%s still bound", sc.bdf);
	fprintf(stderr, "# the read ended after %lld ms, unbound by %lld ms\n",
		(t1 - t0) / 1000000, (neuron_now_ns() - t0) / 1000000);
	EXPECT_TRUE(pci_dev_present(sc.bdf)) TH_LOG("the pci_dev went too");
	EXPECT_EQ(0, wait_node_gone(sc.node.path, LOST_MS)) TH_LOG("%s still there", sc.node.path);
	EXPECT_EQ(lost + 1, neuron_kmsg_count("device lost (semaphore)"));
	scene_gone(_metadata, &sc);
	scene_end(_metadata, &sc);

	/* A bind probes a device that reads all ones: ENODEV at once, one line. */
	t0 = neuron_now_ns();
	ret = neuron_sysfs_write("/sys/bus/pci/drivers/neuron/bind", sc.bdf);
	t1 = neuron_now_ns();
	EXPECT_EQ(-ENODEV, ret) TH_LOG("bind %s: %s", sc.bdf, strerror(-ret));
	EXPECT_LT(t1 - t0, 5000000000LL);
	EXPECT_FALSE(bound(sc.bdf));
	EXPECT_NE(0, access(sc.node.path, F_OK));
	EXPECT_EQ(gone + 1, neuron_kmsg_count("routing id reads all ones"));
	fprintf(stderr, "# the bind failed after %lld ms\n", (t1 - t0) / 1000000);
}

TEST_F_TIMEOUT(unplug, vanish_live, CASE_S)
{
	struct scene sc = { .node.fd = -1 };
	const char *why;
	struct nl_event e;
	__s64 t0, t_lost, t_unbound;
	int lost, ret;

	why = vanish_setup(_metadata, &sc.node, &sc.info, sc.bdf, sizeof(sc.bdf));
	if (why) {
		neuron_node_release(&sc.node);
		SKIP(return, "%s", why);
	}
	fprintf(stderr, "# device %s, engine %d\n", sc.bdf, copy_engine(&sc.info));
	lost = neuron_kmsg_count("device lost (");
	ASSERT_LE(0, lost) TH_LOG("/dev/kmsg: %s", strerror(errno));
	scene_start(_metadata, &sc);

	/* The device stops answering; the driver must notice by itself. */
	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
	if (sc.sem) {
		ASSERT_EQ(0, join_ms(sc.ts, &sc.ws, LOST_MS)) TH_LOG("the semaphore wait goes on");
		EXPECT_EQ(-ENODEV, sc.ws.ret);
	}
	ASSERT_EQ(0, join_ms(sc.tc, &sc.wc, LOST_MS)) TH_LOG("the copy's wait goes on");
	EXPECT_EQ(-ENODEV, sc.wc.ret);
	ret = event_wait_ms(&sc.ev, LOST_MS, NEURON_EVENT_DEV_LOST, sc.minor, -1, &e);
	EXPECT_EQ(0, ret) TH_LOG("no DEV_LOST event: %s", strerror(-ret));
	t_lost = neuron_now_ns();
	ASSERT_EQ(0, wait_bound(sc.bdf, false, LOST_MS)) TH_LOG("%s still bound", sc.bdf);
	t_unbound = neuron_now_ns();
	fprintf(stderr, "# waits ended after %lld, %lld ms; DEV_LOST by %lld, unbound by %lld ms\n",
		sc.sem ? (sc.ws.ended - t0) / 1000000 : -1LL, (sc.wc.ended - t0) / 1000000,
		(t_lost - t0) / 1000000, (t_unbound - t0) / 1000000);
	EXPECT_TRUE(pci_dev_present(sc.bdf)) TH_LOG("the pci_dev went too");
	EXPECT_EQ(0, wait_node_gone(sc.node.path, LOST_MS)) TH_LOG("%s still there", sc.node.path);
	/* One line, whichever read noticed first. */
	EXPECT_EQ(lost + 1, neuron_kmsg_count("device lost ("));
	scene_gone(_metadata, &sc);
	scene_end(_metadata, &sc);

	vanish_back(_metadata, sc.bdf, true);
}

/* How vanish_idle_* find out, and the driver's name for what read all ones. */
enum idle_how { IDLE_COPY, IDLE_SEM, IDLE_FW };

static const char *const idle_what[] = {
	[IDLE_COPY] = "device lost (engine state)",
	[IDLE_SEM] = "device lost (semaphore)",
	[IDLE_FW] = "device lost (mailbox wait)",
};

/*
 * The device vanishes with nothing in flight: it stays bound (nothing
 * reads it) until a call that reads it, which ends with ENODEV; one kernel
 * line names what read all ones, DEV_LOST is sent, the driver lets go.
 */
static void vanish_idle(struct __test_metadata *_metadata, enum idle_how how)
{
	struct neuron_device_info info;
	struct neuron_node node = { .fd = -1 };
	char bdf[64], path[160], text[64];
	const char *why;
	struct nl_event e;
	struct nl ev;
	int lost, ret;
	__s64 t0;
	__u32 minor;

	why = vanish_setup(_metadata, &node, &info, bdf, sizeof(bdf));
	if (!why && how == IDLE_SEM && !(info.caps & NEURON_CAP_SEM))
		why = "no NEURON_CAP_SEM";
	if (why) {
		neuron_node_release(&node);
		SKIP(return, "%s", why);
	}
	minor = node.minor;
	lost = neuron_kmsg_count(idle_what[how]);
	ASSERT_LE(0, lost) TH_LOG("/dev/kmsg: %s", strerror(errno));
	if (how == IDLE_SEM)
		ASSERT_EQ(0, neuron_reserve(node.fd, 1));
	ret = nl_setup(&ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));
	ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
	neuron_sleep_ms(IDLE_MS);
	EXPECT_TRUE(bound(bdf)) TH_LOG("unbound with nothing reading the device");
	EXPECT_EQ(-ETIMEDOUT, event_wait_ms(&ev, 10, NEURON_EVENT_DEV_LOST, minor, -1, &e));

	t0 = neuron_now_ns();
	switch (how) {
	case IDLE_COPY:		/* its progress poll reads the engine's state */
		ret = round_trip(node.fd, 4);
		break;
	case IDLE_SEM:
		ret = neuron_sem(node.fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3, NEURON_SEM_READ,
				 0, 0, NULL);
		break;
	case IDLE_FW:		/* the mailbox's answer never comes */
		snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/serial_number", minor);
		ret = neuron_read_text(path, text, sizeof(text));
		break;
	}
	EXPECT_EQ(-ENODEV, ret) TH_LOG("the call: %s", strerror(-ret));
	fprintf(stderr, "# the call ended after %lld ms\n", (neuron_now_ns() - t0) / 1000000);
	ret = event_wait_ms(&ev, LOST_MS, NEURON_EVENT_DEV_LOST, minor, -1, &e);
	EXPECT_EQ(0, ret) TH_LOG("no DEV_LOST event: %s", strerror(-ret));
	ASSERT_EQ(0, wait_bound(bdf, false, LOST_MS)) TH_LOG("%s still bound", bdf);
	EXPECT_EQ(lost + 1, neuron_kmsg_count(idle_what[how]));
	EXPECT_EQ(-ENODEV, neuron_query_info(node.fd, &info, NULL));
	neuron_node_release(&node);
	nl_close(&ev);

	vanish_back(_metadata, bdf, true);
}

TEST_F_TIMEOUT(unplug, vanish_idle_copy, CASE_S)
{
	vanish_idle(_metadata, IDLE_COPY);
}

TEST_F_TIMEOUT(unplug, vanish_idle_sem, CASE_S)
{
	vanish_idle(_metadata, IDLE_SEM);
}

TEST_F_TIMEOUT(unplug, vanish_idle_fw, CASE_S)
{
	vanish_idle(_metadata, IDLE_FW);
}

/* A semaphore read of NC 0 (on its own thread in vanish_race_unbind). */
struct reader {
	int fd;
	unsigned int delay_us;
	int ret;
};

static void *read_fn(void *arg)
{
	struct reader *r = arg;

	usleep(r->delay_us);
	r->ret = neuron_sem(r->fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3, NEURON_SEM_READ, 0, 0, NULL);
	return NULL;
}

/*
 * The driver's own unbinding of a lost device against an unbind through
 * sysfs: the device vanishes, a semaphore read that notices it runs while
 * the driver is unbound by hand (the read starting from 450 us before the
 * unbind to 300 us after it, 6 rounds). The read ends with ENODEV either way, the device is
 * unbound once, without a splat (the VM's verdict reads the kernel log),
 * and binds again (and copies, after the last round).
 */
#define ROUNDS	6

TEST_F_TIMEOUT(unplug, vanish_race_unbind, ROUNDS_S)
{
	struct neuron_device_info info;
	struct reader rd;
	char bdf[64];
	const char *why;
	pthread_t t;
	int round, ret;

	for (round = 0; round < ROUNDS; round++) {
		struct neuron_node node = { .fd = -1 };

		why = vanish_setup(_metadata, &node, &info, bdf, sizeof(bdf));
		if (why) {
			neuron_node_release(&node);
			SKIP(return, "%s", why);
		}
		if (!(info.caps & NEURON_CAP_SEM)) {
			neuron_node_release(&node);
			SKIP(return, "no NEURON_CAP_SEM");
		}
		ASSERT_EQ(0, neuron_reserve(node.fd, 1));
		ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
		rd = (struct reader){ .fd = node.fd, .delay_us = round * 150 };
		ASSERT_EQ(0, pthread_create(&t, NULL, read_fn, &rd));
		usleep(ROUNDS * 150 / 2);
		ret = neuron_sysfs_write("/sys/bus/pci/drivers/neuron/unbind", bdf);
		/* ENODEV: the driver's own unbinding came first. */
		EXPECT_TRUE(!ret || ret == -ENODEV) TH_LOG("unbind: %s", strerror(-ret));
		ASSERT_EQ(0, pthread_join(t, NULL));
		EXPECT_EQ(-ENODEV, rd.ret) TH_LOG("round %d: read: %s", round, strerror(-rd.ret));
		ASSERT_EQ(0, wait_bound(bdf, false, LOST_MS)) TH_LOG("%s still bound", bdf);
		neuron_node_release(&node);
		vanish_back(_metadata, bdf, round == ROUNDS - 1);
	}
}

/*
 * Every combination of what vanish_live holds, one a round: a file open
 * always, device memory mapped or not, a semaphore wait or a copy's wait
 * or both asleep (something that reads the device). Each round: the
 * device vanishes, the waits end with ENODEV, DEV_LOST, the driver lets
 * go, the node goes, the mapping raises SIGBUS, calls fail with ENODEV,
 * DEV_REMOVED; then back (a copy after the last round).
 */
TEST_F_TIMEOUT(unplug, vanish_combos, ROUNDS_S)
{
	static const unsigned int omit[] = {
		SC_NO_COPY, SC_NO_SEM, 0,
		SC_NO_MAP | SC_NO_COPY, SC_NO_MAP | SC_NO_SEM, SC_NO_MAP,
	};
	unsigned int round;
	struct nl_event e;
	const char *why;
	int ret;

	for (round = 0; round < ARRAY_SIZE(omit); round++) {
		struct scene sc = { .node.fd = -1, .omit = omit[round] };
		__s64 t0;

		why = vanish_setup(_metadata, &sc.node, &sc.info, sc.bdf, sizeof(sc.bdf));
		if (!why && !(sc.info.caps & NEURON_CAP_SEM))
			why = "no NEURON_CAP_SEM";
		if (why) {
			neuron_node_release(&sc.node);
			SKIP(return, "%s", why);
		}
		scene_start(_metadata, &sc);
		t0 = neuron_now_ns();
		ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
		if (sc.sem) {
			ASSERT_EQ(0, join_ms(sc.ts, &sc.ws, LOST_MS))
				TH_LOG("round %u: the semaphore wait goes on", round);
			EXPECT_EQ(-ENODEV, sc.ws.ret);
		}
		if (sc.copy) {
			ASSERT_EQ(0, join_ms(sc.tc, &sc.wc, LOST_MS))
				TH_LOG("round %u: the copy's wait goes on", round);
			EXPECT_EQ(-ENODEV, sc.wc.ret);
		}
		ret = event_wait_ms(&sc.ev, LOST_MS, NEURON_EVENT_DEV_LOST, sc.minor, -1, &e);
		EXPECT_EQ(0, ret) TH_LOG("round %u: no DEV_LOST: %s", round, strerror(-ret));
		ASSERT_EQ(0, wait_bound(sc.bdf, false, LOST_MS)) TH_LOG("%s still bound", sc.bdf);
		EXPECT_EQ(0, wait_node_gone(sc.node.path, LOST_MS))
			TH_LOG("%s still there", sc.node.path);
		fprintf(stderr, "# round %u (map %d, sem %d, copy %d): gone after %lld ms\n",
			round, !(sc.omit & SC_NO_MAP), sc.sem, sc.copy,
			(neuron_now_ns() - t0) / 1000000);
		scene_gone(_metadata, &sc);
		scene_end(_metadata, &sc);
		vanish_back(_metadata, sc.bdf, round == ARRAY_SIZE(omit) - 1);
	}
}

TEST_F_TIMEOUT(unplug, remove_live, CASE_S)
{
	struct scene sc = { .node.fd = -1 };
	bool qmp = neuron_env_devmodel_qmp();
	char path[160], text[32];
	__s64 t0, t1;
	int ret;

	if (skip_reason())
		SKIP(return, "%s", skip_reason());
	neuron_setup_node(_metadata, &sc.node, NULL, 0);
	if (neuron_pci_name(sc.node.minor, sc.bdf, sizeof(sc.bdf)))
		SKIP(return, "%s is not a PCI device", sc.node.path);
	fprintf(stderr, "# device %s\n", sc.bdf);
	scene_start(_metadata, &sc);

	/*
	 * The removal: the driver's remove, then the pci_dev is deleted; with
	 * device_del, the guest ejects the slot then and QEMU says
	 * DEVICE_DELETED.
	 */
	t0 = neuron_now_ns();
	if (qmp) {
		ret = neuron_qmp_device_del(QMP_ID, DEL_MS);
		ASSERT_EQ(0, ret) TH_LOG("device_del %s: %s", QMP_ID, strerror(-ret));
	} else {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", sc.bdf);
		ASSERT_EQ(0, neuron_sysfs_write(path, "1"));
	}
	t1 = neuron_now_ns();
	EXPECT_FALSE(pci_dev_present(sc.bdf)) TH_LOG("%s still there", sc.bdf);
	EXPECT_NE(0, access(sc.node.path, F_OK)) TH_LOG("%s still there", sc.node.path);

	/*
	 * The sleepers end with ENODEV, woken by the removal (a wait of no
	 * deadline): they return within SLACK_NS of its end (time to be
	 * scheduled on a busy guest).
	 */
	if (sc.sem) {
		ASSERT_EQ(0, join_ms(sc.ts, &sc.ws, WAKE_MS)) TH_LOG("the semaphore wait goes on");
		EXPECT_EQ(-ENODEV, sc.ws.ret);
		EXPECT_LE(sc.ws.ended, t1 + SLACK_NS);
	}
	if (sc.copy) {
		ASSERT_EQ(0, join_ms(sc.tc, &sc.wc, WAKE_MS)) TH_LOG("the copy's wait goes on");
		EXPECT_EQ(-ENODEV, sc.wc.ret);
		EXPECT_LE(sc.wc.ended, t1 + SLACK_NS);
	}
	fprintf(stderr, "# removal (%s) took %lld ms; waits ended after %lld, %lld ms\n",
		qmp ? "device_del" : "sysfs", (t1 - t0) / 1000000,
		sc.sem ? (sc.ws.ended - t0) / 1000000 : -1LL,
		sc.copy ? (sc.wc.ended - t0) / 1000000 : -1LL);
	scene_gone(_metadata, &sc);
	if (qmp) {
		/* QEMU closed the connection: the model has gone (no --persist). */
		ret = neuron_devmodel_cmd("stats");
		EXPECT_EQ(-ETIMEDOUT, ret) TH_LOG("the model answers: %s", strerror(-ret));
		sc.hung = false;
	}
	scene_end(_metadata, &sc);
	/* Nothing of the removed device holds the module. */
	ASSERT_EQ(0, neuron_read_text("/sys/module/neuron/refcnt", text, sizeof(text)));
	EXPECT_EQ(0, strcmp(text, "0\n")) TH_LOG("refcnt %s", text);
}

TEST_F_TIMEOUT(unplug, rescan_back, CASE_S)
{
	struct neuron_device_info info;
	unsigned char *src, *back;
	struct neuron_node node;
	__s64 t0;
	__u32 h;

	if (skip_reason())
		SKIP(return, "%s", skip_reason());
	if (neuron_env_devmodel_qmp())
		SKIP(return, "device_del deleted the device from the machine: deleted_stays_gone");
	ASSERT_NE(0, access(neuron_env_device(), F_OK))
		TH_LOG("%s is there: the removal did not take it", neuron_env_device());
	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_sysfs_write("/sys/bus/pci/rescan", "1"));
	while (access(neuron_env_device(), F_OK) && neuron_now_ns() < t0 + ADD_MS * 1000000LL)
		neuron_sleep_ms(50);
	ASSERT_EQ(0, access(neuron_env_device(), F_OK))
		TH_LOG("no %s after the rescan", neuron_env_device());
	fprintf(stderr, "# %s back %lld ms after the rescan\n", neuron_env_device(),
		(neuron_now_ns() - t0) / 1000000);

	neuron_setup_node(_metadata, &node, NULL, 0);
	EXPECT_EQ(0, neuron_pci_name(node.minor, NULL, 0));
	ASSERT_EQ(0, neuron_query_info(node.fd, &info, NULL));
	ASSERT_NE(0ULL, info.caps & NEURON_CAP_MEM);
	if (!(info.caps & NEURON_CAP_COPY)) {
		neuron_node_release(&node);
		return;
	}
	/* A copy in and back: the engines and DMA work on the new pci_dev. */
	src = malloc(MEM_SIZE);
	back = calloc(1, MEM_SIZE);
	ASSERT_NE(NULL, src);
	ASSERT_NE(NULL, back);
	fill(src, MEM_SIZE, 3);
	ASSERT_EQ(0, neuron_alloc(node.fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &h, NULL));
	EXPECT_EQ(0, neuron_copy_op(node.fd, 0, 0, h, 0, src, NULL, MEM_SIZE, 0, NULL));
	EXPECT_EQ(0, neuron_copy_op(node.fd, h, 0, 0, 0, NULL, back, MEM_SIZE, 0, NULL));
	EXPECT_EQ(0, memcmp(src, back, MEM_SIZE));
	EXPECT_EQ(0, neuron_mem_free(node.fd, h));
	free(src);
	free(back);
	neuron_node_release(&node);
}

TEST_F_TIMEOUT(unplug, deleted_stays_gone, CASE_S)
{
	char path[320], text[32];
	struct dirent *de;
	int found = 0;
	DIR *dir;

	if (skip_reason())
		SKIP(return, "%s", skip_reason());
	if (!neuron_env_devmodel_qmp())
		SKIP(return, "no NEURON_DEVMODEL_QMP: the removal was sysfs's (rescan_back)");
	ASSERT_EQ(0, neuron_sysfs_write("/sys/bus/pci/rescan", "1"));
	neuron_sleep_ms(2000);
	EXPECT_NE(0, access(neuron_env_device(), F_OK))
		TH_LOG("%s is back after the rescan", neuron_env_device());
	dir = opendir("/sys/bus/pci/devices");
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor", de->d_name);
		if (!neuron_read_text(path, text, sizeof(text)) && !strncmp(text, VENDOR, 6)) {
			fprintf(stderr, "# %s: a device of vendor %s\n", de->d_name, VENDOR);
			found++;
		}
	}
	closedir(dir);
	EXPECT_EQ(0, found);
	dir = opendir("/sys/bus/pci/drivers/neuron");
	ASSERT_NE(NULL, dir);
	while ((de = readdir(dir)))
		if (!strncmp(de->d_name, "0000:", 5)) {
			fprintf(stderr, "# %s still bound to neuron\n", de->d_name);
			found++;
		}
	closedir(dir);
	EXPECT_EQ(0, found);
}

/* ---- surprise removal while the driver waits for the firmware ---- */

/* The device vanishes this long after the wait began (the probe's, the reset's). */
#define WAITING_MS	1000
/* The wait then ends within this: its reads every 100 ms, a busy guest. */
#define GONE_MS		3000
/* The firmware's delay in taking a reset: far longer than any test. */
#define RESET_HOLD_MS	60000
/* job_timeout_ms of vanish_nc_reset: the hung copy starts the NC reset. */
#define HANG_MS		1000

/* A bind of @bdf through sysfs on its own thread: its result in @w. */
struct binder {
	struct waiter w;
	const char *bdf;
};

static void *bind_fn(void *arg)
{
	struct binder *b = arg;

	b->w.ret = neuron_sysfs_write("/sys/bus/pci/drivers/neuron/bind", b->bdf);
	b->w.ended = neuron_now_ns();
	__atomic_store_n(&b->w.done, true, __ATOMIC_RELEASE);
	return NULL;
}

/* A copy of @src into @h of NC 0 on its own thread, to its end: its result in @w. */
struct copier {
	struct waiter w;
	__u32 h;
	unsigned char *src;
};

static void *copy_fn(void *arg)
{
	struct copier *c = arg;

	c->w.ret = neuron_copy_op(c->w.fd, 0, 0, c->h, 0, c->src, NULL, MEM_SIZE, 0, NULL);
	c->w.ended = neuron_now_ns();
	__atomic_store_n(&c->w.done, true, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Why the cases after deleted_stays_gone cannot run, or NULL: in the
 * hotplug VM device_del deleted the device from the machine.
 */
static const char *deleted_reason(void)
{
	if (neuron_env_devmodel_qmp())
		return "device_del deleted the device from the machine (deleted_stays_gone)";
	return NULL;
}

/* Nothing of the devices gone holds the module: its refcnt is 0. */
static void expect_refcnt_0(struct __test_metadata *_metadata)
{
	char text[32];

	ASSERT_EQ(0, neuron_read_text("/sys/module/neuron/refcnt", text, sizeof(text)));
	EXPECT_EQ(0, strcmp(text, "0\n")) TH_LOG("refcnt %s", text);
}

/* Where vanish_probe_* vanish the device, and the probe's line then. */
enum probe_at { PROBE_READY, PROBE_RESET };

static const char *const probe_what[] = {
	[PROBE_READY] = "routing id reads all ones: the device does not answer",
	[PROBE_RESET] = "reset request and the routing id read all ones: the device does not",
};

/*
 * The device vanishes while the driver's probe waits for it: for the
 * firmware to be ready (the model's `not-ready forever`), or for it to take
 * the device reset of the probe (`reset-delay`; the test waits for the
 * model to count the probe's reset request). The bind fails with ENODEV
 * soon after (not after pci_ready_ms, 20 s, nor the reset's bound), with
 * one kernel line for the device, the one naming that read; no node,
 * unbound, nothing holds the module; then back as above.
 */
static void vanish_probe(struct __test_metadata *_metadata, enum probe_at at)
{
	struct neuron_device_info info;
	struct neuron_node node = { .fd = -1 };
	struct binder b = { 0 };
	char bdf[64], prefix[96], cmd[64];
	const char *why;
	long long reqs, now;
	int lines, what;
	__s64 t0, end;
	pthread_t t;

	if (deleted_reason())
		SKIP(return, "%s", deleted_reason());
	why = vanish_setup(_metadata, &node, &info, bdf, sizeof(bdf));
	neuron_node_release(&node);
	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, neuron_sysfs_write("/sys/bus/pci/drivers/neuron/unbind", bdf));
	ASSERT_FALSE(bound(bdf));
	if (at == PROBE_READY)
		snprintf(cmd, sizeof(cmd), "not-ready forever");
	else
		snprintf(cmd, sizeof(cmd), "reset-delay %d", RESET_HOLD_MS);
	ASSERT_EQ(0, neuron_devmodel_cmd(cmd));
	snprintf(prefix, sizeof(prefix), "neuron %s: ", bdf);
	lines = neuron_kmsg_count(prefix);
	what = neuron_kmsg_count(probe_what[at]);
	ASSERT_LE(0, lines) TH_LOG("/dev/kmsg: %s", strerror(errno));

	ASSERT_EQ(0, neuron_devmodel_stat("reset_requests", &reqs));

	b.bdf = bdf;
	ASSERT_EQ(0, pthread_create(&t, NULL, bind_fn, &b));
	if (at == PROBE_RESET) {
		/*
		 * Not a fixed time: on the debug kernel the probe's steps
		 * before the reset took over 1 s, and the device vanished
		 * while they read the routing id.
		 */
		end = neuron_now_ns() + LOST_MS * 1000000LL;
		do {
			neuron_sleep_ms(20);
			ASSERT_EQ(0, neuron_devmodel_stat("reset_requests", &now));
		} while (now == reqs && neuron_now_ns() < end);
		ASSERT_LT(reqs, now) TH_LOG("the probe rang no reset request");
	} else {
		neuron_sleep_ms(WAITING_MS);
	}
	EXPECT_FALSE(__atomic_load_n(&b.w.done, __ATOMIC_ACQUIRE))
		TH_LOG("the bind did not wait (%s)", strerror(-b.w.ret));
	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
	ASSERT_EQ(0, join_ms(t, &b.w, LOST_MS)) TH_LOG("the bind goes on");
	EXPECT_EQ(-ENODEV, b.w.ret) TH_LOG("the bind: %s", strerror(-b.w.ret));
	fprintf(stderr, "# the bind failed %lld ms after vanish on\n", (b.w.ended - t0) / 1000000);
	EXPECT_LE(b.w.ended, t0 + GONE_MS * 1000000LL);
	EXPECT_FALSE(bound(bdf));
	EXPECT_NE(0, access(neuron_env_device(), F_OK))
		TH_LOG("%s is there", neuron_env_device());
	EXPECT_EQ(what + 1, neuron_kmsg_count(probe_what[at]));
	EXPECT_EQ(lines + 1, neuron_kmsg_count(prefix));
	expect_refcnt_0(_metadata);

	ASSERT_EQ(0, neuron_devmodel_cmd(at == PROBE_READY ? "not-ready 0" : "reset-delay 0"));
	vanish_back(_metadata, bdf, true);
}

TEST_F_TIMEOUT(unplug, vanish_probe_ready, CASE_S)
{
	vanish_probe(_metadata, PROBE_READY);
}

TEST_F_TIMEOUT(unplug, vanish_probe_reset, CASE_S)
{
	vanish_probe(_metadata, PROBE_RESET);
}

/*
 * The device vanishes during an NC reset: a copy held by `engine-hang`
 * (job_timeout_ms HANG_MS) is declared hung, fails with EIO, and NC 0 is
 * reset through the firmware, which takes resets RESET_HOLD_MS late
 * (`reset-delay`); a second copy waits for the reset (the queue's
 * submit_lock). Then `vanish on`: the reset ends within GONE_MS (its
 * request reads all ones: not its timeout, nor the firmware's delay), NC
 * reset ends (NC_RESET), the kernel line `device lost (reset request)`,
 * DEV_LOST, the second copy ends with ENODEV or EIO (the queue stopped by
 * the failed reset, if it runs before the unbind), the driver is unbound,
 * nothing holds the module once the file is closed; then back as above.
 */
TEST_F_TIMEOUT(unplug, vanish_nc_reset, CASE_S)
{
	struct neuron_device_info info;
	struct neuron_node node = { .fd = -1 };
	struct copier c = { 0 };
	struct waiter a = { 0 };
	unsigned long long timeout;
	char bdf[64], path[160], text[32], cmd[64];
	__s64 t0, t_reset = 0, t_lost = 0, end;
	long long resets;
	pthread_t ta, tc;
	const char *why;
	struct nl_event e;
	struct nl ev;
	int lost, eng, ret;
	__u32 h, minor;

	if (deleted_reason())
		SKIP(return, "%s", deleted_reason());
	why = vanish_setup(_metadata, &node, &info, bdf, sizeof(bdf));
	if (why) {
		neuron_node_release(&node);
		SKIP(return, "%s", why);
	}
	minor = node.minor;
	eng = copy_engine(&info);
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc0/resets", minor);
	ASSERT_EQ(0, neuron_read_text(path, text, sizeof(text)));
	resets = atoll(text);
	lost = neuron_kmsg_count("device lost (reset request)");
	ASSERT_LE(0, lost) TH_LOG("/dev/kmsg: %s", strerror(errno));
	ret = nl_setup(&ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));
	c.src = malloc(MEM_SIZE);
	ASSERT_NE(NULL, c.src);
	fill(c.src, MEM_SIZE, 6);
	ASSERT_EQ(0, neuron_alloc(node.fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &h, NULL));

	/* The hung copy; its NC reset waits for the firmware. */
	ASSERT_EQ(0, neuron_param_get("job_timeout_ms", &timeout));
	ASSERT_EQ(0, neuron_param_set("job_timeout_ms", HANG_MS));
	snprintf(cmd, sizeof(cmd), "reset-delay %d", RESET_HOLD_MS);
	ASSERT_EQ(0, neuron_devmodel_cmd(cmd));
	snprintf(cmd, sizeof(cmd), "engine-hang %d on", eng);
	ASSERT_EQ(0, neuron_devmodel_cmd(cmd));
	ASSERT_EQ(0, neuron_copy_op(node.fd, 0, 0, h, 0, c.src, NULL, MEM_SIZE,
				    NEURON_COPY_ASYNC, &a.seqno));
	a.fd = node.fd;
	ASSERT_EQ(0, pthread_create(&ta, NULL, wait_fn, &a));
	ASSERT_EQ(0, join_ms(ta, &a, LOST_MS)) TH_LOG("the hung copy goes on");
	EXPECT_EQ(-EIO, a.ret) TH_LOG("the hung copy: %s", strerror(-a.ret));
	ASSERT_EQ(0, neuron_read_text(path, text, sizeof(text)));
	ASSERT_EQ(resets + 1, atoll(text)) TH_LOG("no NC reset");
	c.w.fd = node.fd;
	c.h = h;
	ASSERT_EQ(0, pthread_create(&tc, NULL, copy_fn, &c));
	neuron_sleep_ms(WAITING_MS);
	/* In flight: its NC_RESET comes at its end. */
	EXPECT_EQ(-ETIMEDOUT, event_wait_ms(&ev, 10, NEURON_EVENT_NC_RESET, minor, 0, &e))
		TH_LOG("the NC reset is over");
	EXPECT_FALSE(__atomic_load_n(&c.w.done, __ATOMIC_ACQUIRE))
		TH_LOG("the copy did not wait for the reset (%s)", strerror(-c.w.ret));

	t0 = neuron_now_ns();
	ASSERT_EQ(0, neuron_devmodel_cmd("vanish on"));
	end = t0 + LOST_MS * 1000000LL;
	while ((!t_reset || !t_lost) && neuron_now_ns() < end &&
	       !event_wait_ms(&ev, (int)((end - neuron_now_ns()) / 1000000) + 1, 0, minor, -1,
			      &e)) {
		if (e.type == NEURON_EVENT_NC_RESET && e.nc == 0)
			t_reset = neuron_now_ns();
		if (e.type == NEURON_EVENT_DEV_LOST)
			t_lost = neuron_now_ns();
	}
	ASSERT_NE(0, t_reset) TH_LOG("the NC reset goes on");
	EXPECT_NE(0, t_lost) TH_LOG("no DEV_LOST event");
	EXPECT_LE(t_reset, t0 + GONE_MS * 1000000LL);
	ASSERT_EQ(0, join_ms(tc, &c.w, LOST_MS)) TH_LOG("the second copy goes on");
	EXPECT_TRUE(c.w.ret == -ENODEV || c.w.ret == -EIO)
		TH_LOG("the second copy: %s", strerror(-c.w.ret));
	ASSERT_EQ(0, wait_bound(bdf, false, LOST_MS)) TH_LOG("%s still bound", bdf);
	fprintf(stderr, "# NC reset over by %lld ms, DEV_LOST by %lld ms, copy: %s by %lld ms\n",
		(t_reset - t0) / 1000000, t_lost ? (t_lost - t0) / 1000000 : -1LL,
		strerror(-c.w.ret), (c.w.ended - t0) / 1000000);
	EXPECT_EQ(lost + 1, neuron_kmsg_count("device lost (reset request)"));
	EXPECT_EQ(-ENODEV, neuron_query_info(node.fd, &info, NULL));
	neuron_node_release(&node);
	nl_close(&ev);
	free(c.src);
	expect_refcnt_0(_metadata);

	snprintf(cmd, sizeof(cmd), "engine-hang %d off", eng);
	EXPECT_EQ(0, neuron_devmodel_cmd(cmd));
	EXPECT_EQ(0, neuron_devmodel_cmd("reset-delay 0"));
	neuron_param_set("job_timeout_ms", timeout);
	vanish_back(_metadata, bdf, true);
}

TEST_HARNESS_MAIN
