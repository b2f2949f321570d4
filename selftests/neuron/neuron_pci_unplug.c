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

/* Why this VM cannot run the tests (see the header), or NULL. */
static const char *skip_reason(void)
{
	if (!neuron_env_devmodel_ctl())
		return "no NEURON_DEVMODEL_CTL: only the pci tier's VMs remove a device";
	if (neuron_mode() != NEURON_MODE_DEVICE)
		return neuron_mode_skip_reason();
	return NULL;
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

/* ---- the tests (in this order: the second finds what the first removed) ---- */

/* TEST() without a fixture leaves the harness's variant unused. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

TEST(remove_live)
{
	struct waiter ws = { .sem = true }, wc = { .sem = false };
	struct neuron_device_info info;
	unsigned long long timeout = 0;
	char cmd[96], bdf[64], path[160];
	struct neuron_node node;
	unsigned char *src, *p, v;
	bool sem, copy, hung = false, qmp = neuron_env_devmodel_qmp();
	__s64 t0, t1;
	pthread_t ts, tc;
	struct nl_event e;
	struct nl ev;
	__u32 h, minor;
	int eng = -1, ret;
	__u64 off;
	size_t i;

	if (skip_reason())
		SKIP(return, "%s", skip_reason());
	neuron_setup_node(_metadata, &node, NULL, 0);
	if (neuron_pci_name(node.minor, bdf, sizeof(bdf)))
		SKIP(return, "%s is not a PCI device", node.path);
	minor = node.minor;
	fprintf(stderr, "# device %s\n", bdf);
	ASSERT_EQ(0, neuron_query_info(node.fd, &info, NULL));
	ASSERT_NE(0ULL, info.caps & NEURON_CAP_MEM);
	sem = info.caps & NEURON_CAP_SEM;
	copy = (info.caps & NEURON_CAP_COPY) && copy_engine(&info) >= 0;
	ret = nl_setup(&ev, true);
	ASSERT_EQ(0, ret) TH_LOG("netlink events: %s", strerror(-ret));

	/* Device memory (BAR4), mapped and written. */
	ASSERT_EQ(0, neuron_alloc(node.fd, NEURON_MEM_DEVICE, MEM_SIZE, 0, &h, &off));
	p = mmap(NULL, MEM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, node.fd, off);
	ASSERT_NE(MAP_FAILED, p) TH_LOG("mmap: %s", strerror(errno));
	fill(p, MEM_SIZE, 1);
	for (i = 0; i < MEM_SIZE && p[i] == (unsigned char)(i * 7 + 13 + (i >> 8)); i++)
		;
	EXPECT_EQ((size_t)MEM_SIZE, i);

	/* A semaphore wait of no deadline. */
	if (sem) {
		ASSERT_EQ(0, neuron_reserve(node.fd, 1));
		ws.fd = node.fd;
		ASSERT_EQ(0, pthread_create(&ts, NULL, wait_fn, &ws));
	} else {
		fprintf(stderr, "# no NEURON_CAP_SEM: no semaphore wait\n");
	}
	/* A copy held by a hung engine, and its wait of no deadline. */
	src = malloc(MEM_SIZE);
	ASSERT_NE(NULL, src);
	fill(src, MEM_SIZE, 2);
	if (copy) {
		eng = copy_engine(&info);
		ASSERT_EQ(0, neuron_param_get("job_timeout_ms", &timeout));
		ASSERT_EQ(0, neuron_param_set("job_timeout_ms", JOB_TIMEOUT_MS));
		snprintf(cmd, sizeof(cmd), "engine-hang %d on", eng);
		ASSERT_EQ(0, neuron_devmodel_cmd(cmd));
		hung = true;
		ASSERT_EQ(0, neuron_copy_op(node.fd, 0, 0, h, 0, src, NULL, MEM_SIZE,
					    NEURON_COPY_ASYNC, &wc.seqno));
		wc.fd = node.fd;
		ASSERT_EQ(0, pthread_create(&tc, NULL, wait_fn, &wc));
	} else {
		fprintf(stderr, "# no copies: no copy in flight\n");
	}
	neuron_sleep_ms(300);
	EXPECT_FALSE(__atomic_load_n(&ws.done, __ATOMIC_ACQUIRE));
	EXPECT_FALSE(__atomic_load_n(&wc.done, __ATOMIC_ACQUIRE));

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
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", bdf);
		ASSERT_EQ(0, neuron_sysfs_write(path, "1"));
	}
	t1 = neuron_now_ns();
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", bdf);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s still there", path);
	EXPECT_NE(0, access(node.path, F_OK)) TH_LOG("%s still there", node.path);

	/*
	 * The sleepers end with ENODEV, woken by the removal (a wait of no
	 * deadline): they return within SLACK_NS of its end (time to be
	 * scheduled on a busy guest).
	 */
	if (sem) {
		ASSERT_EQ(0, join_ms(ts, &ws, WAKE_MS)) TH_LOG("the semaphore wait goes on");
		EXPECT_EQ(-ENODEV, ws.ret);
		EXPECT_LE(ws.ended, t1 + SLACK_NS);
	}
	if (copy) {
		ASSERT_EQ(0, join_ms(tc, &wc, WAKE_MS)) TH_LOG("the copy's wait goes on");
		EXPECT_EQ(-ENODEV, wc.ret);
		EXPECT_LE(wc.ended, t1 + SLACK_NS);
	}
	fprintf(stderr, "# removal (%s) took %lld ms; waits ended after %lld, %lld ms\n",
		qmp ? "device_del" : "sysfs", (t1 - t0) / 1000000,
		sem ? (ws.ended - t0) / 1000000 : -1LL, copy ? (wc.ended - t0) / 1000000 : -1LL);

	/* The open file: ENODEV; the mapping: SIGBUS; munmap and close work. */
	EXPECT_EQ(-ENODEV, neuron_query_info(node.fd, &info, NULL));
	EXPECT_EQ(-ENODEV, neuron_mem_free(node.fd, h));
	if (sem)
		EXPECT_EQ(-ENODEV, neuron_sem(node.fd, 0, NEURON_SEM_KIND_SEMAPHORE, 3,
					      NEURON_SEM_READ, 0, 0, NULL));
	if (copy)
		EXPECT_EQ(-ENODEV, neuron_copy_op(node.fd, 0, 0, h, 0, src, NULL, 4096, 0,
						  NULL));
	EXPECT_EQ(SIGBUS, neuron_probe(p, &v, false));
	v = 0x5a;
	EXPECT_EQ(SIGBUS, neuron_probe(p + MEM_SIZE - 1, &v, true));
	errno = 0;
	EXPECT_EQ(MAP_FAILED, mmap(NULL, MEM_SIZE, PROT_READ, MAP_SHARED, node.fd, off));
	EXPECT_EQ(ENODEV, errno);
	EXPECT_EQ(0, munmap(p, MEM_SIZE));
	EXPECT_EQ(0, close(node.fd));
	node.fd = -1;

	ret = event_wait_ms(&ev, 5000, NEURON_EVENT_DEV_REMOVED, minor, -1, &e);
	EXPECT_EQ(0, ret) TH_LOG("no DEV_REMOVED event: %s", strerror(-ret));

	if (qmp) {
		/* QEMU closed the connection: the model has gone (no --persist). */
		ret = neuron_devmodel_cmd("stats");
		EXPECT_EQ(-ETIMEDOUT, ret) TH_LOG("the model answers: %s", strerror(-ret));
	} else if (hung) {
		snprintf(cmd, sizeof(cmd), "engine-hang %d off", eng);
		EXPECT_EQ(0, neuron_devmodel_cmd(cmd));
	}
	if (timeout)
		neuron_param_set("job_timeout_ms", timeout);
	nl_close(&ev);
	free(src);
	/* Nothing of the removed device holds the module. */
	ASSERT_EQ(0, neuron_read_text("/sys/module/neuron/refcnt", cmd, sizeof(cmd)));
	EXPECT_EQ(0, strcmp(cmd, "0\n")) TH_LOG("refcnt %s", cmd);
}

TEST(rescan_back)
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

TEST(deleted_stays_gone)
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

#pragma GCC diagnostic pop

TEST_HARNESS_MAIN
