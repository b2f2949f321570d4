// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests' library: probing mapped memory, pinned memory (VmPin),
 * dropping privileges (neuron_lib.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "neuron_lib.h"

static sigjmp_buf neuron_probe_env;

/* A child's /proc/self/status kept by neuron_drop_privileges(), else -1. */
static int neuron_status_fd = -1;

static void neuron_probe_handler(int sig)
{
	siglongjmp(neuron_probe_env, sig);
}

int neuron_probe(unsigned char *p, unsigned char *val, bool store)
{
	struct sigaction sa, old_bus, old_segv;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = neuron_probe_handler;
	sigaction(SIGBUS, &sa, &old_bus);
	sigaction(SIGSEGV, &sa, &old_segv);
	sig = sigsetjmp(neuron_probe_env, 1);
	if (!sig) {
		/* Atomic accesses: the compiler may not drop or merge them. */
		if (store)
			__atomic_store_n(p, *val, __ATOMIC_RELAXED);
		else
			*val = __atomic_load_n(p, __ATOMIC_RELAXED);
	}
	sigaction(SIGBUS, &old_bus, NULL);
	sigaction(SIGSEGV, &old_segv, NULL);
	return sig;
}

long neuron_vm_pinned_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f;

	/* Opened before privileges were dropped: read it again from the start. */
	if (neuron_status_fd >= 0) {
		int fd = dup(neuron_status_fd);

		f = fd < 0 ? NULL : fdopen(fd, "r");
		if (!f && fd >= 0)
			close(fd);
		if (f)
			rewind(f);
	} else {
		f = fopen("/proc/self/status", "r");
	}
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "VmPin: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

long neuron_vm_pinned_wait(long kb)
{
	long now = neuron_vm_pinned_kb();
	int i;

	for (i = 0; i < 200 && now != kb; i++) {
		neuron_sleep_ms(10);
		now = neuron_vm_pinned_kb();
	}
	return now;
}

int neuron_drop_privileges(__u32 keep, rlim_t memlock)
{
	return neuron_drop_privileges_to(NEURON_TEST_NOBODY, keep, memlock);
}

int neuron_drop_privileges_to(uid_t uid, __u32 keep, rlim_t memlock)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];
	struct rlimit lim = { .rlim_cur = memlock, .rlim_max = memlock };
	int cap;

	if (setrlimit(RLIMIT_MEMLOCK, &lim))
		return -1;
	neuron_status_fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (neuron_status_fd < 0)
		return -1;
	for (cap = 0; prctl(PR_CAPBSET_READ, cap) >= 0; cap++)
		if ((cap >= 32 || !(keep & (1U << cap))) &&
		    prctl(PR_CAPBSET_DROP, cap))
			return -1;
	/*
	 * Keep the permitted set across setresuid(), then trim it (raw
	 * system calls: the child is single-threaded, and no _GNU_SOURCE).
	 */
	if (prctl(PR_SET_KEEPCAPS, 1) || setgroups(0, NULL) ||
	    syscall(SYS_setresgid, uid, uid, uid) ||
	    syscall(SYS_setresuid, uid, uid, uid) ||
	    prctl(PR_SET_KEEPCAPS, 0))
		return -1;
	memset(d, 0, sizeof(d));
	d[0].permitted = keep;
	d[0].effective = keep;
	if (syscall(SYS_capset, &h, d))
		return -1;
	/* Check what the kernel says. */
	if (syscall(SYS_capget, &h, d) || d[0].effective != keep || d[1].effective ||
	    d[0].permitted != keep || d[1].permitted || !geteuid() || !getuid())
		return -1;
	/* The uid change made the process non-dumpable: /proc/self is root's. */
	return prctl(PR_SET_DUMPABLE, 1) ? -1 : 0;
}
