/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every neuron selftest includes: the kselftest harness, the tests'
 * library (lib/neuron_lib.h: devices, sysfs, privileges, the driver's calls
 * through libneuron) and the pieces that need the harness itself (its
 * _metadata, its ASSERT macros, its per-program counters), which therefore
 * stay inline here.
 */
#ifndef NEURON_TEST_H
#define NEURON_TEST_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <grp.h>
#include <linux/capability.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/sysinfo.h>
#include <time.h>
#include <unistd.h>

/* The 6.1 harness has a handler with an unused parameter (-Wextra). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
#include "neuron.h"
#include "neuron_lib.h"

/*
 * fork() in a test: stdio flushed first (a child never repeats what the
 * parent buffered), a failed fork an assertion failure. The child's pid,
 * or 0 in the child.
 */
static inline pid_t neuron_fork(struct __test_metadata *_metadata)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	ASSERT_LE(0, pid);
	return pid;
}

/*
 * neuron_fork() after two pipe()s, @a then @b, for the parent and the
 * child to talk (each closes the ends it does not use).
 */
static inline pid_t neuron_fork_pipes(struct __test_metadata *_metadata,
				      int a[2], int b[2])
{
	ASSERT_EQ(0, pipe(a));
	ASSERT_EQ(0, pipe(b));
	return neuron_fork(_metadata);
}

/*
 * The per-arch variants of a fixture F, one per arch with memory:
 *	FIXTURE_VARIANT(F) NEURON_ARCH_VARIANT;
 *	FIXTURE_VARIANT_ADD(F, v2) NEURON_ARCH_V2_VARIANT;
 *	FIXTURE_VARIANT_ADD(F, v3) NEURON_ARCH_V3_VARIANT;
 * give variant->arch (NEURON_ARCH_V2, _V3) and variant->name ("v2", "v3").
 */
#define NEURON_ARCH_VARIANT	{ __u32 arch; const char *name; }
#define NEURON_ARCH_V2_VARIANT	{ .arch = NEURON_ARCH_V2, .name = "v2" }
#define NEURON_ARCH_V3_VARIANT	{ .arch = NEURON_ARCH_V3, .name = "v3" }

/*
 * The 6.1 harness exits 0 when every test skipped; kselftest runners expect
 * 4 then.  Its last step is exit(), so an atexit() handler of the main
 * process turns "all skipped" into KSFT_SKIP.  Test children end with
 * _exit() and never run it.
 */
static pid_t neuron_main_pid;

static void neuron_exit_status(void)
{
	if (getpid() != neuron_main_pid || !ksft_plan)
		return;
	if (ksft_get_xskip_cnt() == (int)ksft_plan) {
		fflush(stdout);
		fflush(stderr);
		_exit(KSFT_SKIP);
	}
}

static void __attribute__((constructor)) neuron_test_init(void)
{
	neuron_main_pid = getpid();
	atexit(neuron_exit_status);
}

/*
 * Skip from a FIXTURE_SETUP.  The 6.1 harness would still run the test body
 * after a SKIP in the setup, so the test child ends here with the harness's
 * "skipped" status (255); the reason is already in the shared results.
 */
#define NEURON_SKIP_SETUP(fmt, ...) \
	SKIP({ fflush(NULL); _exit(255); }, fmt, ##__VA_ARGS__)

/* ---- fixture setup ---- */

/*
 * Get the device of a test: in NEURON_DEVICE mode open it (skip if @arch is
 * set and the device is another arch), in sim mode create one of @arch
 * ("v2" when NULL) with @mem_mb (0: default) and open it; otherwise skip.
 * For FIXTURE_SETUP only (a skip ends the test child).
 */
static inline void neuron_setup_node(struct __test_metadata *_metadata,
				     struct neuron_node *n, const char *arch,
				     unsigned int mem_mb)
{
	struct neuron_device_info info;
	struct stat st;
	int err;

	neuron_node_init(n);
	switch (neuron_mode()) {
	case NEURON_MODE_NONE:
		NEURON_SKIP_SETUP("%s", neuron_mode_skip_reason());
		break;
	case NEURON_MODE_DEVICE:
		snprintf(n->path, sizeof(n->path), "%s", neuron_env_device());
		ASSERT_EQ(0, neuron_node_open(n))
			TH_LOG("open %s: %s", n->path, strerror(errno));
		ASSERT_EQ(0, fstat(n->fd, &st));
		ASSERT_TRUE(S_ISCHR(st.st_mode));
		n->devt = st.st_rdev;
		n->minor = minor(st.st_rdev);
		if (arch) {
			ASSERT_EQ(0, neuron_query_info(n->fd, &info, NULL));
			if (strncmp(info.arch_name, arch, sizeof(info.arch_name)))
				NEURON_SKIP_SETUP("%s is %.16s, this variant is %s",
						  n->path, info.arch_name, arch);
		}
		break;
	case NEURON_MODE_SIM:
		err = neuron_sim_create(n, arch ? arch : "v2", mem_mb);
		if (err == -EACCES || err == -EPERM)
			NEURON_SKIP_SETUP("creating a simulated device needs root");
		ASSERT_EQ(0, err)
			TH_LOG("creating a simulated %s device: %s",
			       arch ? arch : "v2", strerror(-err));
		err = neuron_node_open(n);
		if (err)
			neuron_node_release(n);
		ASSERT_EQ(0, err) TH_LOG("open %s: %s", n->path, strerror(-err));
		break;
	}
}

/* For FIXTURE_SETUP of tests that create their own simulated devices. */
static inline void neuron_require_sim(struct __test_metadata *_metadata)
{
	if (neuron_mode() != NEURON_MODE_SIM)
		NEURON_SKIP_SETUP("%s", neuron_mode_skip_reason());
	if (access(NEURON_SIM_BUS "/new_device", W_OK))
		NEURON_SKIP_SETUP("%s/new_device is not writable: needs root",
				  NEURON_SIM_BUS);
}

/*
 * In a test body: skip (and return true) unless the device (@n, whose
 * caps are @caps) has every capability of @want (named @name).
 */
static inline bool neuron_skip_no_cap(struct __test_metadata *_metadata,
				      const struct neuron_node *n, __u64 caps,
				      __u64 want, const char *name)
{
	if ((caps & want) == want)
		return false;
	SKIP(return true, "%s has no %s", n->path, name);
}

/*
 * In a test body: skip (and return true) unless the device (@n, whose
 * caps are @caps) has memory objects.
 */
static inline bool neuron_skip_no_mem(struct __test_metadata *_metadata,
				      const struct neuron_node *n, __u64 caps)
{
	if (caps & NEURON_CAP_MEM)
		return false;
	SKIP(return true, "%s has no NEURON_CAP_MEM", n->path);
}

/* ... unless it also is a simulated device of our own (to fill or remove). */
static inline bool neuron_skip_no_sim(struct __test_metadata *_metadata,
				      const struct neuron_node *n, __u64 caps)
{
	if (neuron_skip_no_mem(_metadata, n, caps))
		return true;
	if (n->created)
		return false;
	SKIP(return true, "needs a simulated device of our own");
}

/* nio_notify_open() in a test, asserting success. */
static inline void neuron_ring_open_ok(struct __test_metadata *_metadata, int fd,
				       __u32 nc, __u32 type, __u32 entries, int efd,
				       struct nio_notify_queue *r)
{
	int err = nio_notify_open(fd, nc, type, entries, efd, r);

	ASSERT_EQ(0, err) TH_LOG("notification queue of nc %u type %u: %s", nc, type,
				 strerror(-err));
}

#endif /* NEURON_TEST_H */
