// SPDX-License-Identifier: GPL-2.0
/*
 * The sysfs files of the neuron class devices and of the neuron_sim bus:
 *  - the files present are exactly those documented in docs/ABI/testing
 *    (the documented paths come from abi_paths.h, which the Makefile
 *    generates from the What: lines; the files the driver core makes for
 *    every device or bus are left out);
 *  - the values agree with NEURON_QUERY_DEVICE, _MEM_USAGE and _NC_STATE;
 *  - the counters move with copies, model loads and executions.
 */
#include "neuron_test.h"

static const char *const abi_paths[] = {
#include "abi_paths.h"
};

#define CLASS_DIR	"/sys/class/neuron/neuron<N>"
#define SIM_DEV_DIR	NEURON_SIM_BUS "/devices/neuron_sim<ID>"

/* Files of the driver core, documented by the kernel itself. */
static const char *const core_files[] = {
	"uevent", "subsystem", "device", "power", "driver", "driver_override",
	"drivers_probe", "drivers_autoprobe", "devices", "drivers", "neuron",
	"modalias",
};

static bool is_core_file(const char *name)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(core_files); i++)
		if (!strcmp(name, core_files[i]))
			return true;
	return false;
}

static bool documented(const char *pattern)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(abi_paths); i++)
		if (!strcmp(abi_paths[i], pattern))
			return true;
	return false;
}

/*
 * Every file of @dir (@pattern: its documented form) is documented, and
 * its ncM subdirectories (@nc_count of them, none other) too. Returns the
 * number of files checked.
 */
static int check_dir(struct __test_metadata *_metadata, const char *dir,
		     const char *pattern, unsigned int nc_count, bool class_dir)
{
	char path[512], pat[512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		EXPECT_EQ(0, -errno) TH_LOG("opendir %s", dir);
		return 0;
	}
	while ((de = readdir(d))) {
		unsigned int m;
		char extra;
		struct stat st;

		if (de->d_name[0] == '.' || is_core_file(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		EXPECT_EQ(0, lstat(path, &st));
		if (class_dir && !strcmp(de->d_name, "ecc")) {
			char sub[512];

			EXPECT_TRUE(S_ISDIR(st.st_mode));
			snprintf(sub, sizeof(sub), "%s/ecc", pattern);
			n += check_dir(_metadata, path, sub, 0, false);
			continue;
		}
		if (class_dir && sscanf(de->d_name, "nc%u%c", &m, &extra) == 1) {
			char sub[512];

			EXPECT_TRUE(S_ISDIR(st.st_mode));
			EXPECT_LT(m, nc_count) TH_LOG("%s: no such NC", path);
			snprintf(sub, sizeof(sub), "%s/nc<M>", pattern);
			n += check_dir(_metadata, path, sub, 0, false);
			continue;
		}
		snprintf(pat, sizeof(pat), "%s/%s", pattern, de->d_name);
		EXPECT_TRUE(documented(pat)) TH_LOG("%s (%s) is not documented in docs/ABI",
						    path, pat);
		if (class_dir || strstr(pattern, "/nc<M>") || strstr(pattern, "/ecc"))
			EXPECT_EQ(0444U, st.st_mode & 0777)
				TH_LOG("%s: mode %o", path, st.st_mode & 0777);
		n++;
	}
	closedir(d);
	return n;
}

/*
 * A firmware to ask (serial_number, ecc/): a PCI device with its engines
 * driven.
 */
static bool has_fw(const struct neuron_device_info *info)
{
	return info->pci_vendor && !(info->flags & NEURON_DEV_ENGINES_OFF);
}

/* Replace @key in @in by @val into @out. */
static void subst(char *out, size_t size, const char *in, const char *key,
		  const char *val)
{
	const char *p = strstr(in, key);

	if (!p) {
		snprintf(out, size, "%s", in);
		return;
	}
	snprintf(out, size, "%.*s%s%s", (int)(p - in), in, val, p + strlen(key));
}

/* Read an unsigned decimal sysfs file. */
static unsigned long long read_u64(struct __test_metadata *_metadata,
				   const char *path)
{
	char buf[64], *end;
	unsigned long long v = 0;

	EXPECT_EQ(0, neuron_read_text(path, buf, sizeof(buf))) TH_LOG("%s", path);
	v = strtoull(buf, &end, 10);
	EXPECT_TRUE(end != buf && *end == '\n') TH_LOG("%s: '%s'", path, buf);
	return v;
}

static void read_word(struct __test_metadata *_metadata, const char *path,
		      char *buf, size_t size)
{
	ASSERT_EQ(0, neuron_read_text(path, buf, size)) TH_LOG("%s", path);
	buf[strcspn(buf, "\n")] = '\0';
}

static unsigned long long nc_u64(struct __test_metadata *_metadata,
				 unsigned int minor, unsigned int nc,
				 const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u/%s",
		 minor, nc, name);
	return read_u64(_metadata, path);
}

static unsigned long long dev_u64(struct __test_metadata *_metadata,
				  unsigned int minor, const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/%s", minor, name);
	return read_u64(_metadata, path);
}

static const char *const nc_state_names[] = {
	"free", "reserved", "running", "resetting", "failed",
};

FIXTURE(sysfs) {
	struct neuron_node node;
	struct neuron_device_info info;
};

FIXTURE_VARIANT(sysfs) NEURON_ARCH_VARIANT;
FIXTURE_VARIANT_ADD(sysfs, v2) NEURON_ARCH_V2_VARIANT;
FIXTURE_VARIANT_ADD(sysfs, v3) NEURON_ARCH_V3_VARIANT;

FIXTURE_SETUP(sysfs)
{
	neuron_setup_node(_metadata, &self->node, variant->name, 64);
	ASSERT_EQ(0, neuron_query_info(self->node.fd, &self->info, NULL));
}

FIXTURE_TEARDOWN(sysfs)
{
	neuron_node_release(&self->node);
}

/* What is there is documented. */
TEST_F(sysfs, present_is_documented)
{
	char dir[128];
	int n;

	ASSERT_LT(0U, ARRAY_SIZE(abi_paths));
	snprintf(dir, sizeof(dir), "/sys/class/neuron/neuron%u", self->node.minor);
	n = check_dir(_metadata, dir, CLASS_DIR, self->info.nc_count, true);
	/* A device with a firmware to ask: serial_number and ecc/'s 10 files. */
	EXPECT_EQ(7 + 1 + 10 * (int)self->info.nc_count + (has_fw(&self->info) ? 11 : 0), n);
	if (neuron_mode() != NEURON_MODE_SIM)
		return;
	EXPECT_EQ(2, check_dir(_metadata, NEURON_SIM_BUS, NEURON_SIM_BUS, 0, false));
	snprintf(dir, sizeof(dir), NEURON_SIM_BUS "/devices/neuron_sim%u",
		 self->node.sim_id);
	EXPECT_EQ(10, check_dir(_metadata, dir, SIM_DEV_DIR, 0, false));
}

/*
 * The vendor's layout (docs/compat.md): every file under
 * /sys/class/neuron_device/neuron<N>, its neuron_core<M> directories
 * included, is documented; returns the number of files.
 */
static int check_vtree(struct __test_metadata *_metadata, const char *dir,
		       const char *pattern, unsigned int nc_count)
{
	char path[512], pat[512];
	struct dirent *de;
	int n = 0;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		EXPECT_EQ(0, -errno) TH_LOG("opendir %s", dir);
		return 0;
	}
	while ((de = readdir(d))) {
		unsigned int m;
		struct stat st;
		char extra;

		if (de->d_name[0] == '.' || is_core_file(de->d_name))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ASSERT_EQ(0, lstat(path, &st));
		if (sscanf(de->d_name, "neuron_core%u%c", &m, &extra) == 1) {
			EXPECT_LT(m, nc_count) TH_LOG("%s: no such NC", path);
			snprintf(pat, sizeof(pat), "%s/neuron_core<M>", pattern);
		} else {
			snprintf(pat, sizeof(pat), "%s/%s", pattern, de->d_name);
		}
		if (S_ISDIR(st.st_mode)) {
			n += check_vtree(_metadata, path, pat, nc_count);
			continue;
		}
		EXPECT_TRUE(documented(pat)) TH_LOG("%s (%s) is not documented in docs/ABI",
						    path, pat);
		/*
		 * Root clears a "present" or "peak" (0644, as the vendor's); a
		 * memory category (below host_mem/ or device_mem/) is root's
		 * only: 0400 and 0600.
		 */
		{
			const char *c = strstr(pat, "_mem/");
			bool cat = c && strchr(c + 5, '/');
			bool rw = !strcmp(de->d_name, "present") || !strcmp(de->d_name, "peak");

			EXPECT_EQ(cat ? (rw ? 0600U : 0400U) : (rw ? 0644U : 0444U),
				  st.st_mode & 0777)
				TH_LOG("%s: mode %o", path, st.st_mode & 0777);
		}
		n++;
	}
	closedir(d);
	return n;
}

/* The exact text of a sysfs file (at most @size - 1 bytes). */
static void read_exact(struct __test_metadata *_metadata, const char *path, char *buf,
		       size_t size)
{
	ssize_t n;
	int fd;

	buf[0] = '\0';
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	n = read(fd, buf, size - 1);
	close(fd);
	ASSERT_LE(0, n);
	buf[n] = '\0';
}

/*
 * The vendor's tree: at /sys/devices/virtual/neuron_device/neuron<N>, with
 * its class link; every file documented and mode 0444 (a status's
 * "present" 0644); core_count without
 * a newline; connected_devices empty; the architecture names of the arch;
 * /proc/devices names the char devices "neuron".
 */
TEST_F(sysfs, vendor_tree)
{
	char dir[128], path[256], real[PATH_MAX], want[64], buf[256];
	const char *nd_arch, *nc_arch;
	unsigned int m;
	FILE *f;
	bool found = false;

	snprintf(dir, sizeof(dir), "/sys/class/neuron_device/neuron%u", self->node.minor);
	ASSERT_NE(NULL, realpath(dir, real)) TH_LOG("%s: %s", dir, strerror(errno));
	snprintf(path, sizeof(path), "/sys/devices/virtual/neuron_device/neuron%u",
		 self->node.minor);
	EXPECT_STREQ(path, real);
	/*
	 * The device: 5 (6 with info/serial_number, where there is a
	 * firmware to ask), and total, present and peak of 5 host memory
	 * categories; per NC: arch_type, total and present of 4 statuses
	 * and 3 other_info counters, total, present and peak of host_mem,
	 * device_mem and 6 categories.
	 */
	EXPECT_EQ(20 + 39 * (int)self->info.nc_count + has_fw(&self->info),
		  check_vtree(_metadata, dir, "/sys/class/neuron_device/neuron<N>",
			      self->info.nc_count));
	snprintf(path, sizeof(path), "%s/dev", dir);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s: a second device number", path);

	snprintf(path, sizeof(path), "%s/core_count", dir);
	read_exact(_metadata, path, buf, sizeof(buf));
	snprintf(want, sizeof(want), "%u", self->info.nc_count);
	EXPECT_STREQ(want, buf);
	snprintf(path, sizeof(path), "%s/connected_devices", dir);
	read_exact(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ("\n", buf);

	if (!strcmp(self->info.arch_name, "v2")) {
		nd_arch = "NDv2\n";
		nc_arch = "NCv2\n";
		if (!strcmp(self->info.product, "inf2"))
			nd_arch = "NDv3\n";
	} else if (!strcmp(self->info.arch_name, "v3")) {
		nd_arch = "NDv3\n";
		nc_arch = "NCv3\n";
	} else {
		nd_arch = "NDv1\n";
		nc_arch = "NCv1\n";
	}
	snprintf(path, sizeof(path), "%s/info/architecture/arch_type", dir);
	read_exact(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ(nd_arch, buf);
	for (m = 0; m < self->info.nc_count; m++) {
		snprintf(path, sizeof(path), "%s/neuron_core%u/info/architecture/arch_type",
			 dir, m);
		read_exact(_metadata, path, buf, sizeof(buf));
		EXPECT_STREQ(nc_arch, buf);
	}
	if (self->info.flags & NEURON_DEV_SIMULATED) {
		snprintf(path, sizeof(path), "%s/info/architecture/device_name", dir);
		read_exact(_metadata, path, buf, sizeof(buf));
		EXPECT_STREQ("Simulator\n", buf);
		snprintf(path, sizeof(path), "%s/info/architecture/instance_type", dir);
		read_exact(_metadata, path, buf, sizeof(buf));
		EXPECT_STREQ("Sim\n", buf);
	}

	f = fopen("/proc/devices", "re");
	ASSERT_NE(NULL, f);
	while (fgets(buf, sizeof(buf), f)) {
		unsigned int major;
		char name[64];

		if (sscanf(buf, "%u %63s", &major, name) == 2 && !strcmp(name, "neuron"))
			found = true;
	}
	fclose(f);
	EXPECT_TRUE(found) TH_LOG("no 'neuron' in /proc/devices");
}

/* What is documented is there (every NC of the device), and no more NCs. */
TEST_F(sysfs, documented_is_present)
{
	char minor[16], id[16], nc[16], a[512], b[512], path[512];
	unsigned int m;
	size_t i;

	snprintf(minor, sizeof(minor), "%u", self->node.minor);
	snprintf(id, sizeof(id), "%u", self->node.sim_id);
	for (i = 0; i < ARRAY_SIZE(abi_paths); i++) {
		const char *p = abi_paths[i];

		if (!strncmp(p, NEURON_SIM_BUS, strlen(NEURON_SIM_BUS)) &&
		    neuron_mode() != NEURON_MODE_SIM)
			continue;
		/* What the firmware reports: where there is one to ask. */
		if ((strstr(p, "/serial_number") || strstr(p, "/ecc/")) && !has_fw(&self->info)) {
			subst(path, sizeof(path), p, "<N>", minor);
			EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s exists", path);
			continue;
		}
		subst(a, sizeof(a), p, "<N>", minor);
		subst(b, sizeof(b), a, "<ID>", id);
		for (m = 0; m < (strstr(b, "<M>") ? self->info.nc_count : 1); m++) {
			snprintf(nc, sizeof(nc), "%u", m);
			subst(path, sizeof(path), b, "<M>", nc);
			EXPECT_EQ(0, access(path, F_OK)) TH_LOG("%s (%s) is missing", path, p);
		}
	}
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u",
		 self->node.minor, self->info.nc_count);
	EXPECT_NE(0, access(path, F_OK)) TH_LOG("%s exists", path);
}

/* The values are those of QUERY. */
TEST_F(sysfs, values_match_query)
{
	struct {
		struct neuron_mem_usage u;
		struct neuron_mem_usage_nc nc[8];
	} usage;
	struct {
		struct neuron_nc_states h;
		struct neuron_nc_state nc[8];
	} states;
	struct neuron_mem_alloc a;
	char path[128], buf[64];
	unsigned int i, minor = self->node.minor;

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/arch", minor);
	read_word(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ(self->info.arch_name, buf);
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/product", minor);
	read_word(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ(self->info.product, buf);
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/state", minor);
	read_word(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ("ok", buf);
	EXPECT_EQ(self->info.nc_count, dev_u64(_metadata, minor, "nc_count"));
	EXPECT_EQ(self->info.dram_size, dev_u64(_metadata, minor, "mem_total"));

	/* Memory on NC 1 (device) and NC 0 (host), NC 1 reserved. */
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 3 * 4096, 1, &a));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_HOST, 2 * 4096, 0, &a));
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));

	ASSERT_EQ(0, neuron_query_into(self->node.fd, NEURON_QUERY_MEM_USAGE,
				       &usage, sizeof(usage), NULL));
	EXPECT_EQ(usage.u.device_bytes, dev_u64(_metadata, minor, "mem_used_device"));
	EXPECT_EQ(usage.u.host_bytes, dev_u64(_metadata, minor, "mem_used_host"));
	EXPECT_LE(3 * 4096ULL, usage.u.device_bytes);
	EXPECT_LE(2 * 4096ULL, usage.u.host_bytes);
	ASSERT_EQ(self->info.nc_count, usage.u.nc_count);
	for (i = 0; i < usage.u.nc_count; i++) {
		EXPECT_EQ(usage.nc[i].device_bytes, nc_u64(_metadata, minor, i, "mem_device"));
		EXPECT_EQ(usage.nc[i].host_bytes, nc_u64(_metadata, minor, i, "mem_host"));
	}
	EXPECT_LE(3 * 4096ULL, nc_u64(_metadata, minor, 1, "mem_device"));
	EXPECT_LE(2 * 4096ULL, nc_u64(_metadata, minor, 0, "mem_host"));

	ASSERT_EQ(0, neuron_query_into(self->node.fd, NEURON_QUERY_NC_STATE,
				       &states, sizeof(states), NULL));
	ASSERT_EQ(self->info.nc_count, states.h.nc_count);
	for (i = 0; i < states.h.nc_count; i++) {
		snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc%u/state",
			 minor, i);
		read_word(_metadata, path, buf, sizeof(buf));
		ASSERT_LT(states.nc[i].state, ARRAY_SIZE(nc_state_names));
		EXPECT_STREQ(nc_state_names[states.nc[i].state], buf);
	}
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc1/state", minor);
	read_word(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ("reserved", buf);
	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/nc0/state", minor);
	read_word(_metadata, path, buf, sizeof(buf));
	EXPECT_STREQ("free", buf);
}

#define MM	NEURON_TEST_MM

/* The counters move: copies, models, executions. */
TEST_F(sysfs, counters_move)
{
	unsigned int minor = self->node.minor;
	unsigned long long jobs, jobs0, execs, execs0, errs, busy, models, derr, resets;
	struct neuron_mem_alloc a;
	__u32 in, out, model, bind[2], status;
	float buf[MM * MM];
	unsigned int i;

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	in = a.handle;
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	out = a.handle;

	/* A named device has a past: compare with the counts before. */
	jobs0 = nc_u64(_metadata, minor, 0, "dma_jobs");
	jobs = nc_u64(_metadata, minor, 1, "dma_jobs");
	derr = nc_u64(_metadata, minor, 1, "dma_errors");
	for (i = 0; i < MM * MM; i++)
		buf[i] = i + 1;
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, in, 0, buf, NULL,
				    sizeof(buf), 0, NULL));
	EXPECT_LT(jobs, nc_u64(_metadata, minor, 1, "dma_jobs"));
	EXPECT_EQ(derr, nc_u64(_metadata, minor, 1, "dma_errors"));
	EXPECT_EQ(jobs0, nc_u64(_metadata, minor, 0, "dma_jobs"));

	if (!(self->info.caps & NEURON_CAP_EXEC))
		return;
	models = nc_u64(_metadata, minor, 1, "models");
	ASSERT_EQ(0, neuron_mm_model_load(self->node.fd, 1, &model));
	EXPECT_EQ(models + 1, nc_u64(_metadata, minor, 1, "models"));
	execs = nc_u64(_metadata, minor, 1, "executions");
	execs0 = nc_u64(_metadata, minor, 0, "executions");
	resets = nc_u64(_metadata, minor, 1, "resets");
	errs = nc_u64(_metadata, minor, 1, "exec_errors");
	busy = nc_u64(_metadata, minor, 1, "busy_ns");
	bind[0] = in;
	bind[1] = out;
	ASSERT_EQ(0, nio_execute_wait(self->node.fd, model, bind, 2, 0, &status));
	ASSERT_EQ((__u32)NEURON_EXEC_OK, status);
	EXPECT_EQ(execs + 1, nc_u64(_metadata, minor, 1, "executions"));
	EXPECT_EQ(errs, nc_u64(_metadata, minor, 1, "exec_errors"));
	EXPECT_LT(busy, nc_u64(_metadata, minor, 1, "busy_ns"));
	EXPECT_EQ(resets, nc_u64(_metadata, minor, 1, "resets"));
	EXPECT_EQ(execs0, nc_u64(_metadata, minor, 0, "executions"));
}

/* neuron_core<M>/stats/status/<status>/@name of the vendor's tree. */
static void vstat_path(char *path, size_t size, unsigned int minor, unsigned int nc,
		       const char *status, const char *name)
{
	snprintf(path, size,
		 "/sys/class/neuron_device/neuron%u/neuron_core%u/stats/status/%s/%s",
		 minor, nc, status, name);
}

static unsigned long long vstat_u64(struct __test_metadata *_metadata, unsigned int minor,
				    unsigned int nc, const char *status, const char *name)
{
	char path[256];

	vstat_path(path, sizeof(path), minor, nc, status, name);
	return read_u64(_metadata, path);
}

/* A file of other_info/@name/ of NC @nc in the vendor's tree. */
static unsigned long long vother_u64(struct __test_metadata *_metadata, unsigned int minor,
				     unsigned int nc, const char *name, const char *file)
{
	char path[256];

	snprintf(path, sizeof(path),
		 "/sys/class/neuron_device/neuron%u/neuron_core%u/stats/other_info/%s/%s",
		 minor, nc, name, file);
	return read_u64(_metadata, path);
}

/*
 * The vendor's per-core status counters: two executions that end well
 * count in success/{total,present} of their NC only, and in
 * other_info/inference_count; the model load in model_load_count; no
 * reset; root's write clears "present" and not "total"; nobody cannot
 * write it.
 */
TEST_F(sysfs, vendor_status_counters)
{
	static const char *const others[] = { "exec_bad_input", "hw_error", "timeout" };
	unsigned long long total, present, other[ARRAY_SIZE(others)], nc0, loads, infer, resets;
	unsigned int minor = self->node.minor, k;
	__u32 model, bind[2], status;
	struct neuron_mem_alloc a;
	char path[256];
	int fd, st;
	pid_t pid;

	if (!(self->info.caps & NEURON_CAP_EXEC) || geteuid())
		SKIP(return, "needs NEURON_CAP_EXEC and root");
	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	bind[0] = a.handle;
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	bind[1] = a.handle;
	loads = vother_u64(_metadata, minor, 1, "model_load_count", "total");
	ASSERT_EQ(0, neuron_mm_model_load(self->node.fd, 1, &model));
	EXPECT_EQ(loads + 1, vother_u64(_metadata, minor, 1, "model_load_count", "total"));
	infer = vother_u64(_metadata, minor, 1, "inference_count", "total");
	resets = vother_u64(_metadata, minor, 1, "reset_req_count", "total");
	total = vstat_u64(_metadata, minor, 1, "success", "total");
	present = vstat_u64(_metadata, minor, 1, "success", "present");
	nc0 = vstat_u64(_metadata, minor, 0, "success", "total");
	for (k = 0; k < ARRAY_SIZE(others); k++)
		other[k] = vstat_u64(_metadata, minor, 1, others[k], "total");
	for (k = 0; k < 2; k++) {
		ASSERT_EQ(0, nio_execute_wait(self->node.fd, model, bind, 2, 0, &status));
		ASSERT_EQ((__u32)NEURON_EXEC_OK, status);
	}
	EXPECT_EQ(total + 2, vstat_u64(_metadata, minor, 1, "success", "total"));
	EXPECT_EQ(present + 2, vstat_u64(_metadata, minor, 1, "success", "present"));
	EXPECT_EQ(nc0, vstat_u64(_metadata, minor, 0, "success", "total"));
	EXPECT_EQ(infer + 2, vother_u64(_metadata, minor, 1, "inference_count", "total"));
	EXPECT_EQ(resets, vother_u64(_metadata, minor, 1, "reset_req_count", "total"));
	for (k = 0; k < ARRAY_SIZE(others); k++)
		EXPECT_EQ(other[k], vstat_u64(_metadata, minor, 1, others[k], "total"))
			TH_LOG("%s", others[k] ?: "");

	/* nobody may not clear it. */
	vstat_path(path, sizeof(path), minor, 1, "success", "present");
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		if (neuron_drop_privileges(0, 0))
			_exit(10);
		fd = open(path, O_WRONLY | O_CLOEXEC);
		_exit(fd < 0 && errno == EACCES ? 0 : 11);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("status %d", st);
	EXPECT_EQ(present + 2, vstat_u64(_metadata, minor, 1, "success", "present"));

	/* root clears it: "present" counts from now, "total" goes on. */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	EXPECT_EQ(2, write(fd, "0\n", 2));
	close(fd);
	EXPECT_EQ(0ULL, vstat_u64(_metadata, minor, 1, "success", "present"));
	ASSERT_EQ(0, nio_execute_wait(self->node.fd, model, bind, 2, 0, &status));
	EXPECT_EQ(1ULL, vstat_u64(_metadata, minor, 1, "success", "present"));
	EXPECT_EQ(total + 3, vstat_u64(_metadata, minor, 1, "success", "total"));
}

/* A file of a memory counter of the vendor's tree: NC @nc, or the device's (-1). */
static unsigned long long vmem_u64(struct __test_metadata *_metadata, unsigned int minor,
				   int nc, const char *rel)
{
	char path[256];

	if (nc < 0)
		snprintf(path, sizeof(path),
			 "/sys/class/neuron_device/neuron%u/stats/memory_usage/%s", minor, rel);
	else
		snprintf(path, sizeof(path),
			 "/sys/class/neuron_device/neuron%u/neuron_core%d/stats/memory_usage/%s",
			 minor, nc, rel);
	return read_u64(_metadata, path);
}

static int write_str(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, text, strlen(text)) < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/*
 * The vendor's memory counters: device memory of two usages and host
 * memory on NC 1 move device_mem/{total,present,peak}, its categories,
 * host_mem and the device's host categories by what was allocated; a
 * free drops "total", not "peak"; root's write clears "present" and sets
 * "peak" to what is in use; nobody can neither clear a total's "present"
 * nor read a category.
 */
TEST_F(sysfs, vendor_memory_counters)
{
	unsigned int minor = self->node.minor;
	unsigned long long t0, p0, k0, c0, h0, a0, pk;
	struct neuron_mem_alloc a;
	__u32 tens, cons;
	char path[256];
	int st;
	pid_t pid;

	if (!(self->info.caps & NEURON_CAP_MEM) || geteuid() || self->info.nc_count < 2)
		SKIP(return, "needs NEURON_CAP_MEM, root and 2 NCs");
	t0 = vmem_u64(_metadata, minor, 1, "device_mem/total");
	p0 = vmem_u64(_metadata, minor, 1, "device_mem/present");
	k0 = vmem_u64(_metadata, minor, 1, "device_mem/tensors/total");
	c0 = vmem_u64(_metadata, minor, 1, "device_mem/constants/total");
	h0 = vmem_u64(_metadata, minor, 1, "host_mem/total");
	a0 = vmem_u64(_metadata, minor, -1, "host_mem/application_memory/total");
	neuron_mem_alloc_prep(&a, NEURON_MEM_DEVICE, 3 << 16, 1);
	a.usage = NEURON_MEM_USAGE_TENSORS;
	ASSERT_EQ(0, neuron_mem_alloc_req(self->node.fd, &a));
	tens = a.handle;
	neuron_mem_alloc_prep(&a, NEURON_MEM_DEVICE, 1 << 16, 1);
	a.usage = NEURON_MEM_USAGE_CONSTANTS;
	ASSERT_EQ(0, neuron_mem_alloc_req(self->node.fd, &a));
	cons = a.handle;
	neuron_mem_alloc_prep(&a, NEURON_MEM_HOST, 1 << 16, 1);
	a.usage = NEURON_MEM_USAGE_APPLICATION;
	ASSERT_EQ(0, neuron_mem_alloc_req(self->node.fd, &a));
	EXPECT_EQ(t0 + (4 << 16), vmem_u64(_metadata, minor, 1, "device_mem/total"));
	EXPECT_EQ(p0 + (4 << 16), vmem_u64(_metadata, minor, 1, "device_mem/present"));
	EXPECT_EQ(k0 + (3 << 16), vmem_u64(_metadata, minor, 1, "device_mem/tensors/total"));
	EXPECT_EQ(c0 + (1 << 16), vmem_u64(_metadata, minor, 1, "device_mem/constants/total"));
	EXPECT_EQ(h0 + (1 << 16), vmem_u64(_metadata, minor, 1, "host_mem/total"));
	EXPECT_EQ(a0 + (1 << 16),
		  vmem_u64(_metadata, minor, -1, "host_mem/application_memory/total"));
	pk = vmem_u64(_metadata, minor, 1, "device_mem/peak");
	EXPECT_LE(t0 + (4 << 16), pk);

	/* Freed: "total" drops, "present" and "peak" stay. */
	ASSERT_EQ(0, neuron_mem_free(self->node.fd, tens));
	EXPECT_EQ(t0 + (1 << 16), vmem_u64(_metadata, minor, 1, "device_mem/total"));
	EXPECT_EQ(k0, vmem_u64(_metadata, minor, 1, "device_mem/tensors/total"));
	EXPECT_EQ(p0 + (4 << 16), vmem_u64(_metadata, minor, 1, "device_mem/present"));
	EXPECT_EQ(pk, vmem_u64(_metadata, minor, 1, "device_mem/peak"));

	/* nobody: no clearing, no category. */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		const char *dir = "neuron_core1/stats/memory_usage/device_mem";
		char p2[256];

		snprintf(p2, sizeof(p2), "/sys/class/neuron_device/neuron%u/%s/tensors/total",
			 minor, dir);
		snprintf(path, sizeof(path), "/sys/class/neuron_device/neuron%u/%s/peak", minor,
			 dir);
		if (neuron_drop_privileges(0, 0))
			_exit(10);
		if (write_str(path, "0") != -EACCES)
			_exit(11);
		_exit(open(p2, O_RDONLY | O_CLOEXEC) < 0 && errno == EACCES ? 0 : 12);
	}
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0) TH_LOG("status %d", st);

	/* Root clears: "present" from 0, "peak" what is in use. */
	snprintf(path, sizeof(path),
		 "/sys/class/neuron_device/neuron%u/neuron_core1/stats/memory_usage/device_mem/peak",
		 minor);
	EXPECT_EQ(0, write_str(path, "0\n"));
	EXPECT_EQ(0ULL, vmem_u64(_metadata, minor, 1, "device_mem/present"));
	EXPECT_EQ(vmem_u64(_metadata, minor, 1, "device_mem/total"),
		  vmem_u64(_metadata, minor, 1, "device_mem/peak"));
	ASSERT_EQ(0, neuron_mem_free(self->node.fd, cons));
	EXPECT_EQ(0ULL, vmem_u64(_metadata, minor, 1, "device_mem/present"));
}

/* debugfs (not an ABI): the queue state files exist, 0400, and parse. */
TEST_F(sysfs, debugfs_queues)
{
	unsigned int prod = 0, done = 1, pending = 1, depth = 1;
	char path[128], buf[1024];
	struct neuron_mem_alloc a;
	unsigned char data[4096];
	const char *p;
	struct stat st;
	int nsc;

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%u", self->node.minor);
	if (access("/sys/kernel/debug/neuron", F_OK))
		SKIP(return, "no debugfs at /sys/kernel/debug");
	ASSERT_EQ(0, stat(path, &st)) TH_LOG("%s", path);
	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%u/nc%u",
		 self->node.minor, self->info.nc_count);
	EXPECT_NE(0, access(path, F_OK));

	ASSERT_EQ(0, neuron_reserve(self->node.fd, 2));
	ASSERT_EQ(0, neuron_mem_alloc(self->node.fd, NEURON_MEM_DEVICE, 4096, 1, &a));
	memset(data, 1, sizeof(data));
	ASSERT_EQ(0, neuron_copy_op(self->node.fd, 0, 0, a.handle, 0, data, NULL,
				    sizeof(data), 0, NULL));
	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%u/nc1/dma",
		 self->node.minor);
	ASSERT_EQ(0, stat(path, &st));
	EXPECT_EQ(0400U, st.st_mode & 0777);
	ASSERT_EQ(0, neuron_read_text(path, buf, sizeof(buf)));
	p = strstr(buf, "prod: ");
	ASSERT_NE(NULL, p) TH_LOG("%s", buf);
	nsc = sscanf(p, "prod: %u", &prod);
	EXPECT_EQ(1, nsc);
	EXPECT_LT(0U, prod);
	p = strstr(buf, "done_idx: ");
	ASSERT_NE(NULL, p);
	nsc = sscanf(p, "done_idx: %u", &done);
	EXPECT_EQ(1, nsc);
	EXPECT_EQ(prod, done);
	p = strstr(buf, "pending_jobs: ");
	ASSERT_NE(NULL, p);
	nsc = sscanf(p, "pending_jobs: %u", &pending);
	EXPECT_EQ(1, nsc);
	EXPECT_EQ(0U, pending);
	EXPECT_NE(NULL, strstr(buf, "stopped: 0"));

	snprintf(path, sizeof(path), "/sys/kernel/debug/neuron/neuron%u/nc1/exec",
		 self->node.minor);
	ASSERT_EQ(0, neuron_read_text(path, buf, sizeof(buf)));
	if (strstr(buf, "created: 1")) {
		p = strstr(buf, "depth: ");
		ASSERT_NE(NULL, p);
		nsc = sscanf(p, "depth: %u", &depth);
		EXPECT_EQ(1, nsc);
		EXPECT_EQ(0U, depth);
	}
}

TEST_HARNESS_MAIN
