// SPDX-License-Identifier: GPL-2.0
/*
 * test_nrt: the nrt_* API of libnrt.so.1 on the simulated devices of the
 * VM (a v2 device with 2 NCs, /dev/neuron0, and a v3 device with 8 NCs,
 * /dev/neuron1), with the example models installed in
 * /usr/share/neuron/models. Behaviours checked: docs/libnrt.md (and the
 * public API of its "Sources"), docs/model-format.md.
 *
 * Run in every VM of make check (scripts/check.sh), as root, against the
 * installed library. Every TEST runs in its own process (kselftest
 * harness), so each starts with a fresh runtime (nrt_init not called).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>

/*
 * The 6.1 harness: TEST() expands to a function with an unused parameter,
 * and ASSERT_EQ(2, unsigned_value) compares an int with an unsigned
 * (NRT_STATUS is an unsigned enum); both are warnings of -Wextra.
 */
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
/* an ASSERT (a for clause) before a { block } is no misleading indentation */
#pragma GCC diagnostic ignored "-Wmisleading-indentation"
/* gcc 12 sees the TH_LOG of an EXPECT in a loop run past the loop's end */
#pragma GCC diagnostic ignored "-Warray-bounds"
#include <kselftest_harness.h>

#include <neuron.h>
#include <neuron_io.h>

#include "nrt_test.h"

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* ---- models ---- */

static NRT_STATUS load_bytes(const void *b, size_t n, int vnc, nrt_model_t **m)
{
	*m = NULL;
	return nrt_load(b, n, vnc, -1, m);
}

static NRT_STATUS load_path(const char *path, int vnc, nrt_model_t **m)
{
	size_t n = 0;
	void *b = slurp(path, &n);
	NRT_STATUS s;

	*m = NULL;
	if (!b)
		return NRT_FAILURE;
	s = nrt_load(b, n, vnc, -1, m);
	memset(b, 0xee, n);	/* the library must have kept its own copy */
	free(b);
	return s;
}

/* One model with its own device tensors x and y and their sets. */
struct mrun {
	nrt_model_t *m;
	nrt_tensor_t *x, *y;
	nrt_tensor_set_t *in, *out;
};

static NRT_STATUS mrun_setup(struct mrun *r, nrt_model_t *m, int vnc)
{
	NRT_STATUS s;

	memset(r, 0, sizeof(*r));
	r->m = m;
	s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, X_BYTES, "x", &r->x);
	if (!s)
		s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, Y_BYTES, "y", &r->y);
	if (!s)
		s = nrt_allocate_tensor_set(&r->in);
	if (!s)
		s = nrt_allocate_tensor_set(&r->out);
	if (!s)
		s = nrt_add_tensor_to_tensor_set(r->in, "x", r->x);
	if (!s)
		s = nrt_add_tensor_to_tensor_set(r->out, "y", r->y);
	return s;
}

static NRT_STATUS mrun_exec(struct mrun *r, const float *x, float *y)
{
	NRT_STATUS s = nrt_tensor_write(r->x, x, 0, X_BYTES);

	if (!s)
		s = nrt_execute(r->m, r->in, r->out);
	if (!s)
		s = nrt_tensor_read(r->y, y, 0, Y_BYTES);
	return s;
}

static void mrun_free(struct mrun *r)
{
	nrt_tensor_free(&r->x);
	nrt_tensor_free(&r->y);
	nrt_destroy_tensor_set(&r->in);
	nrt_destroy_tensor_set(&r->out);
}

static void env_clear(void)
{
	unsetenv("NEURON_RT_VISIBLE_CORES");
	unsetenv("NEURON_RT_NUM_CORES");
	unsetenv("NEURON_RT_LOG_LEVEL");
}

/*
 * The helper mode of this program (main below): nrt_init(), optionally
 * allocate a device tensor on vnc @touch_vnc (>= 0), and exit with the
 * first status that was not NRT_SUCCESS (or 0).
 */
static const char *self_path;	/* argv[0] */

static int init_child_main(int touch_vnc)
{
	nrt_tensor_t *t = NULL;
	NRT_STATUS s;

	s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	if (!s && touch_vnc >= 0)
		s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, touch_vnc, 64, "t", &t);
	return s & 0xff;
}

/*
 * What nrt_init() gives another process with this environment (and then a
 * device tensor on vnc @touch_vnc, if >= 0). The process is a fresh exec of
 * this program: a fork alone would inherit the library's state (and the
 * device files, hence the reservations) of the caller. Its stderr is
 * silenced.
 */
static int child_init_status(const char *vis, const char *num, int touch_vnc)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -1;
	if (!pid) {
		char v[16];

		env_clear();
		setenv("NEURON_RT_LOG_LEVEL", "off", 1);
		if (vis)
			setenv("NEURON_RT_VISIBLE_CORES", vis, 1);
		if (num)
			setenv("NEURON_RT_NUM_CORES", num, 1);
		snprintf(v, sizeof(v), "%d", touch_vnc);
		execl("/proc/self/exe", "test_nrt", "--init-child", v, (char *)NULL);
		if (self_path)
			execl(self_path, "test_nrt", "--init-child", v, (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static const NRT_STATUS all_status[] = {
	NRT_SUCCESS, NRT_FAILURE, NRT_INVALID, NRT_INVALID_HANDLE, NRT_RESOURCE,
	NRT_TIMEOUT, NRT_HW_ERROR, NRT_QUEUE_FULL, NRT_LOAD_NOT_ENOUGH_NC,
	NRT_UNSUPPORTED_NEFF_VERSION, NRT_FAIL_HOST_MEM_ALLOC, NRT_UNINITIALIZED,
	NRT_CLOSED, NRT_QUEUE_EMPTY, NRT_EXEC_UNIT_UNRECOVERABLE, NRT_EXEC_BAD_INPUT,
	NRT_EXEC_COMPLETED_WITH_NUM_ERR, NRT_EXEC_COMPLETED_WITH_ERR, NRT_EXEC_NC_BUSY,
	NRT_EXEC_OOB, NRT_COLL_PENDING, NRT_EXEC_HW_ERR_COLLECTIVES, NRT_EXEC_HW_ERR_HBM_UE,
	NRT_EXEC_HW_ERR_NC_UE, NRT_EXEC_HW_ERR_DMA_ABORT, NRT_EXEC_SW_NQ_OVERFLOW,
	NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, NRT_NETWORK_PROXY_FAILURE,
};

#define N_STATUS ARRAY_SIZE(all_status)

/* ==================================================================== */

TEST(version)
{
	nrt_version_t v;
	unsigned char small[32];

	memset(&v, 0xaa, sizeof(v));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_version(&v, sizeof(v)));
	EXPECT_EQ(2, v.rt_major);
	EXPECT_EQ(0, v.rt_minor);
	EXPECT_EQ(0, v.rt_maintenance);
	ASSERT_NE(NULL, memchr(v.rt_detail, 0, sizeof(v.rt_detail)));
	ASSERT_NE(NULL, memchr(v.git_hash, 0, sizeof(v.git_hash)));
	EXPECT_NE(0, strlen(v.rt_detail));
	EXPECT_NE(0, strlen(v.git_hash));
	EXPECT_NE(NULL, strstr(v.rt_detail, "libnrt"));
	TH_LOG("version %llu.%llu.%llu '%s' '%s'", (unsigned long long)v.rt_major,
	       (unsigned long long)v.rt_minor, (unsigned long long)v.rt_patch, v.rt_detail,
	       v.git_hash);

	/* an older caller's smaller structure: exactly its bytes are written */
	memset(small, 0x5a, sizeof(small));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_version((nrt_version_t *)small, 16));
	EXPECT_EQ(0, memcmp(small, &v, 16));
	EXPECT_EQ(0x5a, small[16]);
	EXPECT_EQ(0x5a, small[31]);

	EXPECT_EQ(NRT_INVALID, nrt_get_version(NULL, sizeof(v)));
	EXPECT_EQ(NRT_INVALID, nrt_get_version(&v, 0));
}

TEST(status_strings)
{
	const char *s[N_STATUS];
	const char *u;
	size_t i, j;

	for (i = 0; i < N_STATUS; i++) {
		s[i] = nrt_get_status_as_str(all_status[i]);
		ASSERT_NE(NULL, s[i]) TH_LOG("status %d", (int)all_status[i]);
		EXPECT_NE(0, strlen(s[i])) TH_LOG("status %d", (int)all_status[i]);
	}
	for (i = 0; i < N_STATUS; i++)
		for (j = i + 1; j < N_STATUS; j++)
			EXPECT_NE(0, strcmp(s[i], s[j]))
				TH_LOG("status %d and %d: '%s'", (int)all_status[i],
				       (int)all_status[j], s[i]);
	u = nrt_get_status_as_str((NRT_STATUS)12);
	ASSERT_NE(NULL, u);
	EXPECT_NE(0, strlen(u));
	u = nrt_get_status_as_str((NRT_STATUS)987654);
	ASSERT_NE(NULL, u);
	EXPECT_NE(0, strlen(u));
	u = nrt_get_status_as_str((NRT_STATUS)-1);
	ASSERT_NE(NULL, u);
	for (i = 0; i < N_STATUS; i++)
		EXPECT_NE(0, strcmp(u, s[i]));
}

TEST(counts)
{
	uint32_t n;

	env_clear();
	/* before nrt_init */
	n = 0;
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	n = 0;
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	n = 0;
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_vnc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	n = 0;
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_vnc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	EXPECT_EQ(NRT_INVALID, nrt_get_total_nc_count(NULL));
	EXPECT_EQ(NRT_INVALID, nrt_get_visible_vnc_count(NULL));

	/* the environment before nrt_init */
	setenv("NEURON_RT_VISIBLE_CORES", "1,3-4", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_vnc_count(&n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	setenv("NEURON_RT_NUM_CORES", "2", 1);	/* VISIBLE_CORES wins */
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(3, n);
	unsetenv("NEURON_RT_VISIBLE_CORES");
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(2, n);
	setenv("NEURON_RT_NUM_CORES", "50", 1);	/* capped at the total */
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	env_clear();

	/* after nrt_init, with nothing reserved */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_vnc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_vnc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	nrt_close();
	/* and after nrt_close */
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
}

TEST(instance_info)
{
	nrt_instance_info_t ii;
	unsigned char small[12];

	memset(&ii, 0xaa, sizeof(ii));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_instance_info(&ii, sizeof(ii)));
	ASSERT_NE(NULL, memchr(ii.arch_name, 0, sizeof(ii.arch_name)));
	ASSERT_NE(NULL, memchr(ii.device_revision, 0, sizeof(ii.device_revision)));
	/* the first device is the v2 one; a simulated device's product is "sim" */
	EXPECT_STREQ("v2", ii.arch_name);
	EXPECT_STREQ("sim", ii.device_revision);
	EXPECT_EQ(NRT_INSTANCE_SIZE_UNKNOWN, ii.size);
	EXPECT_EQ(NRT_INSTANCE_UNKNOWN, ii.family);

	memset(small, 0x5a, sizeof(small));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_instance_info((nrt_instance_info_t *)small, 10));
	EXPECT_EQ(0, memcmp(small, &ii, 10));
	EXPECT_EQ(0x5a, small[10]);
	EXPECT_EQ(NRT_INVALID, nrt_get_instance_info(NULL, sizeof(ii)));

	/* the same after nrt_init */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	memset(&ii, 0, sizeof(ii));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_instance_info(&ii, sizeof(ii)));
	EXPECT_STREQ("v2", ii.arch_name);
	nrt_close();
}

TEST(init_state)
{
	nrt_model_t *m = NULL, *m2 = NULL;
	nrt_tensor_t *t = NULL, *old = NULL;
	nrt_tensor_set_t *in = NULL, *out = NULL;
	struct mrun r;
	size_t n;
	void *b = slurp(MATMUL_PATH, &n);
	char buf[16];
	int va_dummy = 0;

	ASSERT_NE(NULL, b);
	env_clear();
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);

	/* never initialised */
	EXPECT_EQ(NRT_UNINITIALIZED, nrt_load(b, n, -1, -1, &m));
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(NRT_UNINITIALIZED,
		  nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t));
	EXPECT_EQ(NRT_UNINITIALIZED,
		  nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "t", &t));
	EXPECT_EQ(NRT_UNINITIALIZED,
		  nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, -1, 64, "t", &t));
	EXPECT_EQ(NRT_UNINITIALIZED, nrt_tensor_allocate_empty("t", &t));
	EXPECT_EQ(NULL, t);
	EXPECT_EQ(NRT_UNINITIALIZED, nrt_memcpy_to_device(&va_dummy, buf, 4));
	/* calls that work at any time */
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&in));
	nrt_destroy_tensor_set(&in);
	EXPECT_EQ(NULL, in);
	nrt_close();	/* harmless before nrt_init */
	EXPECT_EQ(NRT_UNINITIALIZED, nrt_load(b, n, -1, -1, &m));

	/* bad framework */
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_INVALID, "", ""));
	EXPECT_EQ(NRT_INVALID, nrt_init((nrt_framework_type_t)77, "", ""));
	EXPECT_EQ(NRT_UNINITIALIZED, nrt_load(b, n, -1, -1, &m));

	/* initialised */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));	/* twice */
	ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, -1, -1, &m));
	ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, -1, -1, &m2));
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m2, 0));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64,
						   "old", &old));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(old, buf, 0, 16));
	nrt_close();

	/* closed */
	EXPECT_EQ(NRT_CLOSED, nrt_load(b, n, -1, -1, &m));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 64, "t", &t));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_allocate_empty("t", &t));
	EXPECT_EQ(NRT_CLOSED, nrt_execute(r.m, r.in, r.out));
	EXPECT_EQ(NRT_CLOSED, nrt_execute_repeat(r.m, r.in, r.out, 2));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_read(old, buf, 0, 16));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_write(old, buf, 0, 16));
	EXPECT_EQ(NRT_CLOSED, nrt_tensor_memset(old, 0, 1, 16));
	EXPECT_EQ(NRT_CLOSED, nrt_memcpy_to_device(&va_dummy, buf, 4));
	EXPECT_EQ(NRT_CLOSED, nrt_unload(m));	/* the host side is freed anyway */
	m = NULL;
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&out));	/* any time */
	nrt_destroy_tensor_set(&out);

	/* again */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	/* objects of the earlier run */
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_tensor_read(old, buf, 0, 16));
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute(r.m, r.in, r.out));
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m2));
	mrun_free(&r);
	nrt_tensor_free(&old);
	EXPECT_EQ(NULL, old);
	/* and the new run works */
	{
		struct weights w;
		float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
		uint32_t seed = 7;

		weights_init(&w);
		ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, -1, -1, &m));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 0));
		rand_input(x, X_ELEMS, &seed);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
		ref_matmul(&w, x, ref);
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
		mrun_free(&r);
		EXPECT_EQ(NRT_SUCCESS, nrt_unload(m));
	}
	nrt_close();
	nrt_close();	/* twice: harmless */
	free(b);
}

/* The SDK tutorial flow; returns through ASSERTs. */
static void tutorial(struct __test_metadata *_metadata, const char *path, int mlp)
{
	nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
	nrt_tensor_info_array_t *info = NULL;
	nrt_tensor_t *tensors[2] = { NULL, NULL }, *out = NULL;
	nrt_model_t *model = NULL;
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS], zero[Y_ELEMS];
	struct stat st;
	uint32_t seed = mlp ? 1234 : 99, nc = 0;
	void *neff;
	uint64_t i;
	int fd, k, d;

	weights_init(&w);
	env_clear();
	fd = open(path, O_RDONLY);
	ASSERT_LE(0, fd) TH_LOG("%s: %s", path, strerror(errno));
	ASSERT_EQ(0, fstat(fd, &st));
	neff = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	ASSERT_NE(MAP_FAILED, neff);

	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_load(neff, st.st_size, -1, -1, &model));
	ASSERT_NE(NULL, model);
	munmap(neff, st.st_size);
	close(fd);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_model_nc_count(model, &nc));
	EXPECT_EQ(1, nc);

	ASSERT_EQ(NRT_SUCCESS, nrt_get_model_tensor_info(model, &info));
	ASSERT_EQ(2, info->tensor_count);
	EXPECT_STREQ("x", info->tensor_array[0].name);
	EXPECT_EQ(NRT_TENSOR_USAGE_INPUT, info->tensor_array[0].usage);
	EXPECT_EQ(X_BYTES, info->tensor_array[0].size);
	EXPECT_EQ(NRT_DTYPE_FLOAT32, info->tensor_array[0].dtype);
	ASSERT_EQ(2, info->tensor_array[0].ndim);
	EXPECT_EQ(8, info->tensor_array[0].shape[0]);
	EXPECT_EQ(16, info->tensor_array[0].shape[1]);
	EXPECT_STREQ("y", info->tensor_array[1].name);
	EXPECT_EQ(NRT_TENSOR_USAGE_OUTPUT, info->tensor_array[1].usage);
	EXPECT_EQ(Y_BYTES, info->tensor_array[1].size);
	EXPECT_EQ(NRT_DTYPE_FLOAT32, info->tensor_array[1].dtype);
	ASSERT_EQ(2, info->tensor_array[1].ndim);
	EXPECT_EQ(8, info->tensor_array[1].shape[0]);
	EXPECT_EQ(4, info->tensor_array[1].shape[1]);

	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&inputs));
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&outputs));
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];
		unsigned char *zb = malloc(ti->size), *rb = calloc(1, ti->size);

		ASSERT_NE(NULL, zb);
		ASSERT_NE(NULL, rb);
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size,
							   ti->name, &tensors[i]));
		EXPECT_EQ(ti->size, nrt_tensor_get_size(tensors[i]));
		/* a new device tensor reads as zeros */
		memset(zb, 0xcd, ti->size);
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(tensors[i], zb, 0, ti->size));
		EXPECT_EQ(0, memcmp(zb, rb, ti->size));
		free(zb);
		free(rb);
		ASSERT_EQ(NRT_SUCCESS,
			  nrt_add_tensor_to_tensor_set(ti->usage == NRT_TENSOR_USAGE_INPUT ?
						       inputs : outputs, ti->name, tensors[i]));
	}

	/* zero input: matmul gives zeros; mlp gives relu(b1)·W2 + b2 */
	memset(x, 0, sizeof(x));
	memset(zero, 0, sizeof(zero));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tensors[0], x, 0, X_BYTES));
	ASSERT_EQ(NRT_SUCCESS, nrt_execute(model, inputs, outputs));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(tensors[1], y, 0, Y_BYTES));
	if (mlp)
		ref_mlp(&w, x, ref);
	else
		memcpy(ref, zero, sizeof(ref));
	k = fdiff(y, ref, Y_ELEMS);
	EXPECT_EQ(-1, k) TH_LOG("zero input: y[%d] = %.9g, expected %.9g", k, y[k], ref[k]);

	/* random inputs against the host reference with the regenerated weights */
	for (d = 0; d < 5; d++) {
		rand_input(x, X_ELEMS, &seed);
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tensors[0], x, 0, X_BYTES));
		ASSERT_EQ(NRT_SUCCESS, nrt_execute(model, inputs, outputs));
		ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(outputs, "y", &out));
		ASSERT_EQ(tensors[1], out);
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(out, y, 0, Y_BYTES));
		if (mlp)
			ref_mlp(&w, x, ref);
		else
			ref_matmul(&w, x, ref);
		k = fdiff(y, ref, Y_ELEMS);
		EXPECT_EQ(-1, k) TH_LOG("run %d: y[%d] = %.9g, expected %.9g", d, k, y[k], ref[k]);
	}

	if (!mlp) {
		/* one-hot rows reveal W's rows: W[p] for p = r and r + 8 */
		int half, r, j;
		float y2[Y_ELEMS], x2[X_ELEMS];

		for (half = 0; half < 2; half++) {
			memset(x, 0, sizeof(x));
			for (r = 0; r < XM; r++)
				x[r * XK + r + 8 * half] = 1.0f;
			ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tensors[0], x, 0, X_BYTES));
			ASSERT_EQ(NRT_SUCCESS, nrt_execute(model, inputs, outputs));
			ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(tensors[1], y, 0, Y_BYTES));
			for (r = 0; r < XM; r++)
				for (j = 0; j < YN; j++)
					EXPECT_EQ(w.W[(r + 8 * half) * YN + j], y[r * YN + j])
						TH_LOG("W[%d][%d]", r + 8 * half, j);
		}
		/*
		 * xorshift32 from 1 gives 270369, (270369 >> 8) / 2^24 - 0.5 =
		 * -0.49993706 (docs/model-format.md); the one-hot runs above
		 * show the device's W is this PRNG's.
		 */
		EXPECT_EQ(1056.0f / 16777216.0f - 0.5f, w.W[0]);
		/* linearity: out(2x) == 2 out(x) exactly */
		rand_input(x, X_ELEMS, &seed);
		for (j = 0; j < X_ELEMS; j++)
			x2[j] = 2 * x[j];
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tensors[0], x, 0, X_BYTES));
		ASSERT_EQ(NRT_SUCCESS, nrt_execute(model, inputs, outputs));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(tensors[1], y, 0, Y_BYTES));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tensors[0], x2, 0, X_BYTES));
		ASSERT_EQ(NRT_SUCCESS, nrt_execute(model, inputs, outputs));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(tensors[1], y2, 0, Y_BYTES));
		for (j = 0; j < Y_ELEMS; j++)
			EXPECT_EQ(2 * y[j], y2[j]);
	}

	ASSERT_EQ(NRT_SUCCESS, nrt_unload(model));
	for (i = 0; i < info->tensor_count; i++) {
		nrt_tensor_free(&tensors[i]);
		EXPECT_EQ(NULL, tensors[i]);
	}
	nrt_destroy_tensor_set(&inputs);
	nrt_destroy_tensor_set(&outputs);
	EXPECT_EQ(NULL, inputs);
	EXPECT_EQ(NULL, outputs);
	EXPECT_EQ(NRT_SUCCESS, nrt_free_model_tensor_info(info));
	nrt_close();
}

TEST(tutorial_matmul)
{
	tutorial(_metadata, MATMUL_PATH, 0);
}

TEST(tutorial_mlp)
{
	tutorial(_metadata, MLP_PATH, 1);
}

TEST(placement)
{
	static const int vncs[] = { 1, 2, 5, 9, 0 };
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	uint32_t seed = 5, nc = 0;
	nrt_model_t *m = NULL;
	struct mrun r, r0;
	size_t n, i;
	void *b = slurp(MATMUL_PATH, &n);

	ASSERT_NE(NULL, b);
	weights_init(&w);
	env_clear();
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));

	/* argument checks */
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, -2, -1, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, 0, 0, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, 0, -2, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, TOTAL_NC, -1, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, 1000, 1, &m));
	EXPECT_EQ(NRT_LOAD_NOT_ENOUGH_NC, nrt_load(b, n, 0, TOTAL_NC + 1, &m));
	EXPECT_EQ(NRT_LOAD_NOT_ENOUGH_NC, nrt_load(b, n, TOTAL_NC - 1, 2, &m));
	EXPECT_EQ(NULL, m);
	EXPECT_EQ(NRT_INVALID, nrt_load(NULL, n, -1, -1, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, 0, -1, -1, &m));
	EXPECT_EQ(NRT_INVALID, nrt_load(b, n, -1, -1, NULL));
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_get_model_nc_count(NULL, &nc));
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_unload(NULL));

	/* vnc_count 1 (and a fitting count > 1: still one core) */
	ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, -1, 1, &m));
	EXPECT_EQ(NRT_INVALID, nrt_get_model_nc_count(m, NULL));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_model_nc_count(m, &nc));
	EXPECT_EQ(1, nc);
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r0, m, 0));
	rand_input(x, X_ELEMS, &seed);
	ref_matmul(&w, x, ref);
	ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r0, x, y));
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	ASSERT_EQ(NRT_SUCCESS, nrt_unload(m));
	ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, 0, 2, &m));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_model_nc_count(m, &nc));
	EXPECT_EQ(1, nc);
	r0.m = m;
	ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r0, x, y));
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	ASSERT_EQ(NRT_SUCCESS, nrt_unload(m));

	/* explicit start_vnc, on both devices (a v2 model runs on v3 too) */
	for (i = 0; i < ARRAY_SIZE(vncs); i++) {
		int k;

		ASSERT_EQ(NRT_SUCCESS, nrt_load(b, n, vncs[i], 1, &m)) TH_LOG("vnc %d", vncs[i]);
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, vncs[i]));
		rand_input(x, X_ELEMS, &seed);
		ref_matmul(&w, x, ref);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y)) TH_LOG("vnc %d", vncs[i]);
		k = fdiff(y, ref, Y_ELEMS);
		EXPECT_EQ(-1, k) TH_LOG("vnc %d: y[%d]", vncs[i], k);
		if (vncs[i] >= 2) {
			/* tensors of the other device (vnc 0: device 0) */
			r0.m = m;
			EXPECT_EQ(NRT_INVALID, nrt_execute(m, r0.in, r0.out))
				TH_LOG("vnc %d model, vnc 0 tensors", vncs[i]);
		}
		mrun_free(&r);
		ASSERT_EQ(NRT_SUCCESS, nrt_unload(m));
	}
	/* several models on one core */
	{
		nrt_model_t *a = NULL, *c = NULL;
		struct mrun ra, rc;

		ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 3, &a));
		ASSERT_EQ(NRT_SUCCESS, load_path(MLP_PATH, 3, &c));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&ra, a, 3));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&rc, c, 3));
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&ra, x, y));
		ref_matmul(&w, x, ref);
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&rc, x, y));
		ref_mlp(&w, x, ref);
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
		mrun_free(&ra);
		mrun_free(&rc);
		EXPECT_EQ(NRT_SUCCESS, nrt_unload(a));
		EXPECT_EQ(NRT_SUCCESS, nrt_unload(c));
	}
	/* device tensors: vnc checks */
	{
		nrt_tensor_t *t = NULL;

		EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, TOTAL_NC,
							   64, "t", &t));
		EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, -1, 64,
							   "t", &t));
		EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate((nrt_tensor_placement_t)9, 0, 64,
							   "t", &t));
		EXPECT_EQ(NULL, t);
	}
	mrun_free(&r0);
	nrt_close();
	free(b);
}

TEST(tensor_api)
{
	unsigned char buf[1024], exp[1024], tmp[64];
	nrt_tensor_t *d = NULL, *d2 = NULL, *h = NULL, *v = NULL, *e = NULL, *s = NULL,
		     *s2 = NULL, *d3 = NULL;
	unsigned char *va, *hva, ubuf[128];
	size_t i;

	env_clear();
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1000, "d", &d));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1000,
						   "d2", &d2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 4, 1000,
						   "d3", &d3));
	EXPECT_EQ(1000, nrt_tensor_get_size(d));
	EXPECT_EQ(0, nrt_tensor_get_size(NULL));

	memset(exp, 0, sizeof(exp));
	memset(buf, 0xcc, sizeof(buf));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	ASSERT_EQ(0, memcmp(buf, exp, 1000));

	/* write at an offset */
	for (i = 0; i < 16; i++)
		tmp[i] = (unsigned char)(i + 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(d, tmp, 100, 16));
	memcpy(exp + 100, tmp, 16);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	memset(buf, 0, 16);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 104, 8));
	EXPECT_EQ(0, memcmp(buf, tmp + 4, 8));

	/* out of range: NRT_INVALID, nothing changed */
	memset(tmp, 0x77, sizeof(tmp));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(d, tmp, 990, 16));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(d, tmp, 1001, 0));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(d, tmp, SIZE_MAX, 1));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(d, tmp, 8, SIZE_MAX - 4));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_memset(d, 996, 0x55, 8));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_memset(d, UINT64_MAX, 0x55, 2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_copy(d, 0, d2, 999, 2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_copy(d, 999, d2, 0, 2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_copy(d, 0, d2, 8, SIZE_MAX));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(d, NULL, 0, 4));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(NULL, tmp, 0, 4));
	memset(buf, 0x99, sizeof(buf));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(d, buf, 999, 2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(d, buf, 0, 1001));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(d, NULL, 0, 4));
	EXPECT_EQ(0x99, buf[0]);	/* the buffer was not written */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d2, buf, 0, 1000));
	for (i = 0; i < 1000; i++)
		ASSERT_EQ(0, buf[i]) TH_LOG("d2[%zu] changed by a refused call", i);
	/* edges that are in range */
	EXPECT_EQ(NRT_SUCCESS, nrt_tensor_write(d, tmp, 1000, 0));
	EXPECT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 1000, 0));

	/* memset with an offset */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_memset(d, 200, 0xab, 50));
	memset(exp + 200, 0xab, 50);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));

	/* copy device -> device (same device, other device) with offsets */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(d, 100, d2, 500, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d2, buf, 0, 1000));
	for (i = 0; i < 1000; i++) {
		unsigned char want = i >= 500 && i < 516 ? exp[100 + i - 500] : 0;

		ASSERT_EQ(want, buf[i]) TH_LOG("d2[%zu]", i);
	}
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(d, 0, d3, 0, 1000));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d3, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	/* overlapping copy within one tensor (memmove) */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(d3, 100, d3, 104, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d3, buf, 104, 16));
	EXPECT_EQ(0, memcmp(buf, exp + 100, 16));

	/* get_va of device memory: the mapping */
	va = nrt_tensor_get_va(d);
	ASSERT_NE(NULL, va);
	EXPECT_EQ(0, memcmp(va, exp, 1000));
	va[10] = 0x42;
	exp[10] = 0x42;
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	memset(tmp, 0x31, 8);
	ASSERT_EQ(NRT_SUCCESS, nrt_memcpy_to_device(va + 900, tmp, 8));
	memset(exp + 900, 0x31, 8);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	EXPECT_EQ(NRT_SUCCESS, nrt_memcpy_to_device(NULL, NULL, 0));
	EXPECT_EQ(NRT_INVALID, nrt_memcpy_to_device(NULL, tmp, 8));

	/* HOST tensors */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 256, "h", &h));
	EXPECT_EQ(256, nrt_tensor_get_size(h));
	hva = nrt_tensor_get_va(h);
	ASSERT_NE(NULL, hva);
	for (i = 0; i < 256; i++)
		ASSERT_EQ(0, hva[i]);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(d, 100, h, 8, 16));	/* device -> host */
	EXPECT_EQ(0, memcmp(hva + 8, exp + 100, 16));
	hva[0] = 0x12;
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(h, buf, 0, 4));
	EXPECT_EQ(0x12, buf[0]);
	memset(tmp, 0x66, 32);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(h, tmp, 224, 32));
	EXPECT_EQ(0x66, hva[255]);
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(h, tmp, 225, 32));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(h, 224, d2, 0, 32));	/* host -> device */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d2, buf, 0, 32));
	EXPECT_EQ(0, memcmp(buf, tmp, 32));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_memset(h, 4, 0x01, 4));
	EXPECT_EQ(0x01, hva[7]);
	EXPECT_EQ(0x00, hva[3]);

	/* VIRTUAL without memory */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_VIRTUAL, -1, 64, "v", &v));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(v, buf, 0, 4));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(v, buf, 0, 4));
	EXPECT_EQ(NULL, nrt_tensor_get_va(v));
	/* allocate_empty + attach_buffer */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_empty("e", &e));
	EXPECT_EQ(0, nrt_tensor_get_size(e));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(e, buf, 0, 1));
	EXPECT_EQ(NULL, nrt_tensor_get_va(e));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate_slice(e, 0, 0, "es", &s));
	for (i = 0; i < sizeof(ubuf); i++)
		ubuf[i] = (unsigned char)i;
	EXPECT_EQ(NRT_INVALID, nrt_tensor_attach_buffer(e, NULL, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_attach_buffer(e, ubuf, sizeof(ubuf)));
	EXPECT_EQ(sizeof(ubuf), nrt_tensor_get_size(e));
	EXPECT_EQ((void *)ubuf, nrt_tensor_get_va(e));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(e, buf, 10, 4));
	EXPECT_EQ(10, buf[0]);
	EXPECT_EQ(13, buf[3]);
	memset(tmp, 0xee, 4);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(e, tmp, 120, 4));
	EXPECT_EQ(0xee, ubuf[123]);
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(e, tmp, 126, 4));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_copy(e, 0, d2, 0, 128));	/* user -> device */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d2, buf, 0, 128));
	EXPECT_EQ(0, memcmp(buf, ubuf, 128));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_attach_buffer(v, ubuf, 64));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(v, buf, 60, 4));
	EXPECT_EQ(63, buf[3]);
	nrt_tensor_free(&e);
	EXPECT_EQ(NULL, e);
	EXPECT_EQ(63, ubuf[63]);	/* the caller's buffer is left alone */

	/* slices of device memory */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(d, 64, 64, "s", &s));
	EXPECT_EQ(64, nrt_tensor_get_size(s));
	EXPECT_EQ((void *)(va + 64), nrt_tensor_get_va(s));
	memset(tmp, 0x5c, 8);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(s, tmp, 0, 8));
	memset(exp + 64, 0x5c, 8);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(d, buf, 0, 1000));
	EXPECT_EQ(0, memcmp(buf, exp, 1000));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s, buf, 36, 16));	/* d[100..116) */
	EXPECT_EQ(0, memcmp(buf, exp + 100, 16));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_read(s, buf, 60, 8));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_write(s, tmp, 64, 1));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_memset(s, 0, 0, 65));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate_slice(d, 990, 20, "bad", &s2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate_slice(d, 1001, 0, "bad", &s2));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate_slice(d, 8, SIZE_MAX, "bad", &s2));
	EXPECT_EQ(NULL, s2);
	/* slice of a slice */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(s, 32, 32, "s2", &s2));
	EXPECT_EQ((void *)(va + 96), nrt_tensor_get_va(s2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s2, buf, 4, 16));
	EXPECT_EQ(0, memcmp(buf, exp + 100, 16));
	/* the parent freed: the slices keep the memory */
	nrt_tensor_free(&d);
	EXPECT_EQ(NULL, d);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s, buf, 0, 64));
	EXPECT_EQ(0, memcmp(buf, exp + 64, 64));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_memset(s2, 0, 0x3d, 32));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s, buf, 32, 32));
	for (i = 0; i < 32; i++)
		EXPECT_EQ(0x3d, buf[i]);
	nrt_tensor_free(&s);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s2, buf, 0, 32));
	EXPECT_EQ(0x3d, buf[31]);
	nrt_tensor_free(&s2);
	EXPECT_EQ(NULL, s2);
	/* slice of a host tensor */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(h, 224, 32, "hs", &s));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(s, buf, 0, 32));
	EXPECT_EQ(0x66, buf[0]);
	nrt_tensor_free(&s);

	/* batch write and read over two tensors */
	{
		unsigned char a1[8], a2[8], r1[8], r2[8], r3[8];
		nrt_tensor_batch_op_t wops[2] = { { 0, 8, a1 }, { 40, 8, a2 } };
		nrt_tensor_batch_op_t rops[2] = { { 0, 8, r1 }, { 40, 8, r2 } };
		nrt_tensor_batch_op_t hop[1] = { { 16, 8, r3 } };
		nrt_tensor_batch_op_t bad[1] = { { 250, 8, r3 } };
		nrt_tensor_batch_t wb[2] = { { d2, wops, 2 }, { h, wops, 1 } };
		nrt_tensor_batch_t rb[2] = { { d2, rops, 2 }, { h, hop, 1 } };
		nrt_tensor_batch_t bb[1] = { { h, bad, 1 } };

		memset(a1, 0xa1, 8);
		memset(a2, 0xa2, 8);
		memcpy(hva + 16, "ABCDEFGH", 8);
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write_batch(wb, 2, false));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read_batch(rb, 2, true));
		EXPECT_EQ(0, memcmp(r1, a1, 8));
		EXPECT_EQ(0, memcmp(r2, a2, 8));
		EXPECT_EQ(0, memcmp(r3, "ABCDEFGH", 8));
		EXPECT_EQ(0xa1, hva[0]);
		EXPECT_EQ(NRT_INVALID, nrt_tensor_read_batch(bb, 1, false));
		EXPECT_EQ(NRT_INVALID, nrt_tensor_write_batch(bb, 1, true));
		EXPECT_EQ(NRT_INVALID, nrt_tensor_read_batch(NULL, 1, false));
		EXPECT_EQ(NRT_SUCCESS, nrt_tensor_read_batch(NULL, 0, false));
	}

	nrt_tensor_free(&d2);
	nrt_tensor_free(&d3);
	nrt_tensor_free(&h);
	nrt_tensor_free(&v);
	EXPECT_EQ(NULL, d2);
	EXPECT_EQ(NULL, h);
	EXPECT_EQ(NULL, v);
	nrt_tensor_free(&d2);	/* already NULL: nothing */
	nrt_tensor_free(NULL);
	nrt_close();
}

TEST(tensor_sets)
{
	nrt_tensor_set_t *s1 = NULL, *s2 = NULL;
	nrt_tensor_t *a = NULL, *b = NULL, *c = NULL, *got = NULL;
	unsigned char buf[16];

	env_clear();
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "a", &a));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, 16, "b", &b));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "c", &c));
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&s1));
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&s2));
	EXPECT_EQ(NRT_INVALID, nrt_allocate_tensor_set(NULL));

	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, "first", a));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, "second", b));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, "first", &got));
	EXPECT_EQ(a, got);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, "second", &got));
	EXPECT_EQ(b, got);
	got = NULL;
	EXPECT_EQ(NRT_INVALID, nrt_get_tensor_from_tensor_set(s1, "third", &got));
	EXPECT_EQ(NULL, got);
	EXPECT_EQ(NRT_INVALID, nrt_get_tensor_from_tensor_set(s1, "firs", &got));
	EXPECT_EQ(NRT_INVALID, nrt_get_tensor_from_tensor_set(s1, "", &got));
	EXPECT_NE(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(NULL, "first", &got));
	EXPECT_NE(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, NULL, &got));
	EXPECT_NE(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, "first", NULL));
	EXPECT_NE(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, NULL, a));
	EXPECT_NE(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, "n", NULL));
	EXPECT_NE(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(NULL, "n", a));
	/* a name given again replaces */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, "first", c));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, "first", &got));
	EXPECT_EQ(c, got);
	/* many names (the set grows) */
	{
		char nm[32];
		int i;

		for (i = 0; i < 100; i++) {
			snprintf(nm, sizeof(nm), "t%d", i);
			ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, nm, i % 2 ? a : b));
		}
		for (i = 0; i < 100; i++) {
			snprintf(nm, sizeof(nm), "t%d", i);
			ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, nm, &got));
			EXPECT_EQ(i % 2 ? a : b, got);
		}
	}
	/* one tensor in two sets */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s2, "x", a));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s2, "x", &got));
	EXPECT_EQ(a, got);
	/* destroying a set leaves its tensors alone */
	nrt_destroy_tensor_set(&s1);
	EXPECT_EQ(NULL, s1);
	nrt_destroy_tensor_set(&s1);	/* NULL: nothing */
	nrt_destroy_tensor_set(NULL);
	memset(buf, 0x11, sizeof(buf));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(a, buf, 0, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(b, buf, 0, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(c, buf, 0, 16));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s2, "x", &got));
	EXPECT_EQ(a, got);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(got, buf, 0, 16));
	EXPECT_EQ(0x11, buf[15]);
	nrt_destroy_tensor_set(&s2);
	nrt_tensor_free(&a);
	nrt_tensor_free(&b);
	nrt_tensor_free(&c);
	/* sets work without nrt_init too */
	nrt_close();
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&s1));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(s1, "k", (nrt_tensor_t *)buf));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_tensor_from_tensor_set(s1, "k", &got));
	EXPECT_EQ((nrt_tensor_t *)buf, got);
	nrt_destroy_tensor_set(&s1);
}

TEST(execute_errors)
{
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	nrt_tensor_t *small = NULL, *hx = NULL, *big = NULL, *sl = NULL, *sl0 = NULL,
		     *other = NULL, *ex = NULL;
	nrt_tensor_set_t *in2 = NULL, *out2 = NULL;
	nrt_model_t *m = NULL;
	struct mrun r;
	uint32_t seed = 3;
	struct { uint32_t magic; } fake = { 0x12345678 };

	weights_init(&w);
	env_clear();
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 0, &m));
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 0));
	rand_input(x, X_ELEMS, &seed);
	ref_matmul(&w, x, ref);
	ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
	ASSERT_EQ(-1, fdiff(y, ref, Y_ELEMS));

	/* NULL model, NULL or bad sets, repeat < 1 */
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute(NULL, r.in, r.out));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, NULL, r.out));	/* input 'x' missing */
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, r.in, NULL));	/* output 'y' missing */
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute(m, (nrt_tensor_set_t *)&fake, r.out));
	EXPECT_EQ(NRT_INVALID, nrt_execute_repeat(m, r.in, r.out, 0));
	EXPECT_EQ(NRT_INVALID, nrt_execute_repeat(m, r.in, r.out, -5));

	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&in2));
	ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(out2, "y", r.y));
	/* the input under another name */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "z", r.x));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	/* the input in the output set only */
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, out2, r.in));
	/* too small */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, X_BYTES - 4,
						   "x", &small));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", small));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	/* a HOST tensor */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, X_BYTES,
						   "x", &hx));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(hx, x, 0, X_BYTES));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", hx));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	/* a HOST tensor as output */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", r.x));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(out2, "y", hx));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(out2, "y", r.y));
	/* an empty (VIRTUAL) tensor, and one with an attached buffer */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_empty("x", &ex));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", ex));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_attach_buffer(ex, x, X_BYTES));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	/* a slice at offset != 0 is refused; at offset 0 it binds */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 2 * X_BYTES,
						   "big", &big));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(big, X_BYTES, X_BYTES, "x", &sl));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", sl));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(big, 0, X_BYTES, "x", &sl0));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(sl0, x, 0, X_BYTES));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", sl0));
	memset(y, 0, sizeof(y));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(r.y, y, 0, Y_BYTES));
	EXPECT_EQ(NRT_SUCCESS, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(r.y, y, 0, Y_BYTES));
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	/* a tensor on the other device */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 2, X_BYTES, "x",
						   &other));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", other));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	/* extra tensors in the sets are ignored; a bigger tensor is fine */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", big));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "unused", hx));
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(out2, "unused", ex));
	EXPECT_EQ(NRT_SUCCESS, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(r.y, y, 0, Y_BYTES));
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	/* a failed execution wrote nothing: y is as before */
	ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in2, "x", small));
	memset(y, 0, sizeof(y));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(r.y, y, 0, Y_BYTES));
	EXPECT_EQ(NRT_INVALID, nrt_execute(m, in2, out2));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(r.y, y, 0, Y_BYTES));
	EXPECT_EQ(0.0f, y[0]);

	nrt_tensor_free(&small);
	nrt_tensor_free(&hx);
	nrt_tensor_free(&ex);
	nrt_tensor_free(&sl);
	nrt_tensor_free(&sl0);
	nrt_tensor_free(&big);
	nrt_tensor_free(&other);
	nrt_destroy_tensor_set(&in2);
	nrt_destroy_tensor_set(&out2);

	/* an unloaded model (unloaded by nrt_close, the handle still held) */
	nrt_close();
	EXPECT_EQ(NRT_CLOSED, nrt_execute(m, r.in, r.out));
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute(m, r.in, r.out));
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m));
	mrun_free(&r);
	nrt_close();
}

TEST(execute_repeat)
{
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	nrt_model_t *m1 = NULL, *m2 = NULL;
	struct mrun r1, r2;
	uint32_t seed = 11;
	struct timespec t0, t1, t2;
	double one, many;

	weights_init(&w);
	env_clear();
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, -1, &m1));
	ASSERT_EQ(NRT_SUCCESS, load_path(MLP_PATH, 1, &m2));
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r1, m1, 0));
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r2, m2, 1));
	rand_input(x, X_ELEMS, &seed);

	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(r1.x, x, 0, X_BYTES));
	ASSERT_EQ(NRT_SUCCESS, nrt_execute_repeat(m1, r1.in, r1.out, 5));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(r1.y, y, 0, Y_BYTES));
	ref_matmul(&w, x, ref);
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));

	/* the mlp's semaphores come back after each run: 20 runs, then once more */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(r2.x, x, 0, X_BYTES));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(NRT_SUCCESS, nrt_execute_repeat(m2, r2.in, r2.out, 1));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(NRT_SUCCESS, nrt_execute_repeat(m2, r2.in, r2.out, 20));
	clock_gettime(CLOCK_MONOTONIC, &t2);
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(r2.y, y, 0, Y_BYTES));
	ref_mlp(&w, x, ref);
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	one = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	many = (t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9;
	TH_LOG("mlp: 1 run %.6f s, 20 runs %.6f s", one, many);
	rand_input(x, X_ELEMS, &seed);
	ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r2, x, y));
	ref_mlp(&w, x, ref);
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));

	EXPECT_EQ(NRT_INVALID, nrt_execute_repeat(m1, r1.in, r1.out, 0));
	EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute_repeat(NULL, r1.in, r1.out, 3));
	mrun_free(&r1);
	mrun_free(&r2);
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m1));
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m2));
	nrt_close();
}

/* ---- threads ---- */

struct thr {
	nrt_model_t *m;
	int vnc, mlp, iters;
	uint32_t seed;
	const struct weights *w;
	int fails, mismatches;
	NRT_STATUS first;
	char why[128];
};

static void *exec_thread(void *arg)
{
	struct thr *t = arg;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	struct mrun r;
	NRT_STATUS s;
	int i;

	s = mrun_setup(&r, t->m, t->vnc);
	if (s) {
		t->fails++;
		t->first = s;
		snprintf(t->why, sizeof(t->why), "setup: %d", (int)s);
		return NULL;
	}
	for (i = 0; i < t->iters; i++) {
		rand_input(x, X_ELEMS, &t->seed);
		memset(y, 0xff, sizeof(y));
		s = mrun_exec(&r, x, y);
		if (s) {
			if (!t->fails++)
				snprintf(t->why, sizeof(t->why), "iteration %d: status %d",
					 i, (int)s);
			continue;
		}
		if (t->mlp)
			ref_mlp(t->w, x, ref);
		else
			ref_matmul(t->w, x, ref);
		if (fdiff(y, ref, Y_ELEMS) >= 0 && !t->mismatches++)
			snprintf(t->why, sizeof(t->why), "iteration %d: y[%d] %.9g, expected %.9g",
				 i, fdiff(y, ref, Y_ELEMS), y[fdiff(y, ref, Y_ELEMS)],
				 ref[fdiff(y, ref, Y_ELEMS)]);
	}
	mrun_free(&r);
	return NULL;
}

struct iothr {
	nrt_tensor_t *t;
	int idx, iters, bad;
	NRT_STATUS first;
};

#define IO_REGION 4096

static void *io_thread(void *arg)
{
	struct iothr *t = arg;
	unsigned char wbuf[IO_REGION], rbuf[IO_REGION];
	size_t off = (size_t)t->idx * IO_REGION;
	int i, j;

	for (i = 0; i < t->iters; i++) {
		unsigned char v = (unsigned char)(t->idx * 64 + i);
		NRT_STATUS s;

		for (j = 0; j < IO_REGION; j++)
			wbuf[j] = (unsigned char)(v + j);
		if (i % 3 == 2) {
			s = nrt_tensor_memset(t->t, off, v, IO_REGION);
			memset(wbuf, v, IO_REGION);
		} else {
			s = nrt_tensor_write(t->t, wbuf, off, IO_REGION);
		}
		if (!s)
			s = nrt_tensor_read(t->t, rbuf, off, IO_REGION);
		if (s) {
			if (!t->first)
				t->first = s;
			t->bad++;
			continue;
		}
		if (memcmp(wbuf, rbuf, IO_REGION))
			t->bad++;
	}
	return NULL;
}

FIXTURE(nrt) {
	int unused;
};

FIXTURE_SETUP(nrt)
{
	env_clear();
}

FIXTURE_TEARDOWN(nrt)
{
}

TEST_F_TIMEOUT(nrt, threads, 120)
{
	struct weights w;
	nrt_model_t *m1 = NULL, *m2 = NULL;
	struct thr th[4];
	struct iothr io[4];
	pthread_t tid[8];
	nrt_tensor_t *shared = NULL, *shared3 = NULL;
	int i;

	weights_init(&w);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	/* two models on two vncs: matmul on vnc 0, mlp on vnc 1 */
	ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 0, &m1));
	ASSERT_EQ(NRT_SUCCESS, load_path(MLP_PATH, 1, &m2));
	for (i = 0; i < 4; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].m = i % 2 ? m2 : m1;
		th[i].mlp = i % 2;
		th[i].vnc = i % 2;
		th[i].iters = 50;
		th[i].seed = 1000 + i;
		th[i].w = &w;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, exec_thread, &th[i]));
	}
	for (i = 0; i < 4; i++) {
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
		EXPECT_EQ(0, th[i].fails) TH_LOG("thread %d: %s", i, th[i].why);
		EXPECT_EQ(0, th[i].mismatches) TH_LOG("thread %d: %s", i, th[i].why);
	}

	/* concurrent tensor I/O: each thread its own region, on two devices, while executing */
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 2 * IO_REGION,
						   "shared", &shared));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 3, 2 * IO_REGION,
						   "shared3", &shared3));
	for (i = 0; i < 4; i++) {
		memset(&io[i], 0, sizeof(io[i]));
		io[i].t = i < 2 ? shared : shared3;
		io[i].idx = i % 2;
		io[i].iters = 300;
		ASSERT_EQ(0, pthread_create(&tid[i], NULL, io_thread, &io[i]));
	}
	for (i = 0; i < 2; i++) {
		memset(&th[i], 0, sizeof(th[i]));
		th[i].m = i ? m2 : m1;
		th[i].mlp = i;
		th[i].vnc = i;
		th[i].iters = 20;
		th[i].seed = 77 + i;
		th[i].w = &w;
		ASSERT_EQ(0, pthread_create(&tid[4 + i], NULL, exec_thread, &th[i]));
	}
	for (i = 0; i < 6; i++)
		ASSERT_EQ(0, pthread_join(tid[i], NULL));
	for (i = 0; i < 4; i++)
		EXPECT_EQ(0, io[i].bad) TH_LOG("io thread %d: first status %d",
					       i, (int)io[i].first);
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, th[i].fails) TH_LOG("exec thread %d: %s", i, th[i].why);
		EXPECT_EQ(0, th[i].mismatches) TH_LOG("exec thread %d: %s", i, th[i].why);
	}
	nrt_tensor_free(&shared);
	nrt_tensor_free(&shared3);
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m1));
	EXPECT_EQ(NRT_SUCCESS, nrt_unload(m2));
	nrt_close();
}

/* ---- processes ---- */

/*
 * A child holding NEURON_RT_VISIBLE_CORES=@cores. It writes one byte, the
 * nrt_init status, to @ready; with @exec, it loads matmul, executes once
 * (checking the result), writes 'E' (or 'F') and then executes in a loop
 * until killed; without, it waits for a byte on @go and exits normally.
 */
static pid_t holder(const char *cores, int exec, int *ready, int *go)
{
	int p1[2], p2[2];
	pid_t pid;

	if (pipe(p1) || pipe(p2))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (!pid) {
		unsigned char c;
		NRT_STATUS s;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		close(p1[0]);
		close(p2[1]);
		env_clear();
		setenv("NEURON_RT_VISIBLE_CORES", cores, 1);
		s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
		c = (unsigned char)s;
		if (write(p1[1], &c, 1) != 1 || s)
			_exit(1);
		if (exec) {
			struct weights w;
			float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
			uint32_t seed = 42;
			nrt_model_t *m = NULL;
			struct mrun r;

			weights_init(&w);
			rand_input(x, X_ELEMS, &seed);
			ref_matmul(&w, x, ref);
			s = load_path(MATMUL_PATH, 0, &m);
			if (!s)
				s = mrun_setup(&r, m, 0);
			if (!s)
				s = mrun_exec(&r, x, y);
			c = !s && fdiff(y, ref, Y_ELEMS) < 0 ? 'E' : 'F';
			if (write(p1[1], &c, 1) != 1 || c != 'E')
				_exit(1);
			for (;;)
				nrt_execute(m, r.in, r.out);
		}
		if (read(p2[0], &c, 1) < 0)
			_exit(2);
		nrt_close();
		_exit(0);
	}
	close(p1[1]);
	close(p2[0]);
	*ready = p1[0];
	*go = p2[1];
	return pid;
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

TEST_F_TIMEOUT(nrt, contention, 60)
{
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	char want[160];
	unsigned char c;
	int ready, go, st, round;
	struct cap cap;
	NRT_STATUS s;
	pid_t pid;

	weights_init(&w);
	for (round = 0; round < 2; round++) {
		int killed = round == 1;

		pid = holder("1", killed, &ready, &go);
		ASSERT_LT(0, pid);
		ASSERT_EQ(1, read(ready, &c, 1));
		ASSERT_EQ(NRT_SUCCESS, c) TH_LOG("the child's nrt_init: %d", c);
		if (killed) {
			ASSERT_EQ(1, read(ready, &c, 1));
			ASSERT_EQ('E', c) TH_LOG("the child's first execution failed");
			usleep(100 * 1000);	/* let it run in its loop */
		}

		/* the parent asks for the same core */
		setenv("NEURON_RT_VISIBLE_CORES", "1", 1);
		ASSERT_EQ(0, cap_begin(&cap));
		s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
		cap_end(&cap);
		EXPECT_EQ(NRT_RESOURCE, s);
		snprintf(want, sizeof(want),
			 "nrt: nrt_init: reserve core (nc 1): core 1 is in use by another process (pid %d)\n",
			 (int)pid);
		EXPECT_STREQ(want, cap.buf);
		/* other cores are free */
		setenv("NEURON_RT_VISIBLE_CORES", "0,2-9", 1);
		s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
		EXPECT_EQ(NRT_SUCCESS, s);
		if (!s)
			nrt_close();
		/* NUM_CORES=10 cannot have them all */
		unsetenv("NEURON_RT_VISIBLE_CORES");
		setenv("NEURON_RT_NUM_CORES", "10", 1);
		setenv("NEURON_RT_LOG_LEVEL", "off", 1);
		EXPECT_EQ(NRT_RESOURCE, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
		env_clear();

		/* the holder goes */
		/* an ASSERT or EXPECT ends in a for clause: no else can follow one */
		if (killed)
			ASSERT_EQ(0, kill(pid, SIGKILL));
		if (!killed)
			ASSERT_EQ(1, write(go, "g", 1));
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		if (killed)
			EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
		if (!killed)
			EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
		close(ready);
		close(go);

		/* the core is usable at once */
		setenv("NEURON_RT_VISIBLE_CORES", "1", 1);
		s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
		EXPECT_EQ(NRT_SUCCESS, s) TH_LOG("round %d (%s): core 1 not free after waitpid",
						 round, killed ? "SIGKILL" : "exit");
		if (s) {
			double t0 = now();

			setenv("NEURON_RT_LOG_LEVEL", "off", 1);
			while (s && now() - t0 < 5) {
				usleep(10 * 1000);
				s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
			}
			TH_LOG("core 1 free after %.3f s more (status %d)", now() - t0, (int)s);
			ASSERT_EQ(NRT_SUCCESS, s);
		}
		{
			nrt_model_t *m = NULL;
			struct mrun r;
			uint32_t seed = 9, n = 0;

			ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
			EXPECT_EQ(1, n);
			ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, -1, &m));
			ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 0));
			rand_input(x, X_ELEMS, &seed);
			ref_matmul(&w, x, ref);
			ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
			EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
			mrun_free(&r);
			nrt_unload(m);
		}
		/* and now the parent holds it: a child is refused */
		EXPECT_EQ(NRT_RESOURCE, child_init_status("1", NULL, -1));
		nrt_close();
		EXPECT_EQ(NRT_SUCCESS, child_init_status("1", NULL, -1));
		env_clear();
	}
}

/* ---- nrt_close releases everything; whose a busy core is ---- */

/* What the driver says of /dev/neuron@minor: memory, NC states. */
static int dev_query(int minor, uint32_t op, void *buf, uint32_t size)
{
	int fd, r;

	fd = nio_open(minor, O_RDONLY);
	if (fd < 0)
		return -1;
	r = nio_query(fd, op, buf, size, NULL);
	close(fd);
	return r ? -1 : 0;
}

/* Device memory alive on /dev/neuron@minor, all files; ~0 if unknown. */
static uint64_t dev_bytes(int minor)
{
	struct neuron_mem_usage u;

	memset(&u, 0, sizeof(u));
	if (dev_query(minor, NEURON_QUERY_MEM_USAGE, &u, sizeof(u)))
		return ~0ULL;
	return u.device_bytes;
}

/* Both devices' memory back at @base within a second (the driver frees at release). */
static int dev_bytes_at(const uint64_t *base, double *waited)
{
	double t0 = now();

	*waited = 0;
	while (dev_bytes(0) != base[0] || dev_bytes(1) != base[1]) {
		*waited = now() - t0;
		if (*waited > 1.0)
			return 0;
		usleep(10 * 1000);
	}
	return 1;
}

/* The state of global core @core (0-1: /dev/neuron0, 2-9: /dev/neuron1). */
static int core_state(uint32_t core, struct neuron_nc_state *st)
{
	struct {
		struct neuron_nc_states h;
		struct neuron_nc_state nc[8];
	} s;
	int minor = core < 2 ? 0 : 1;
	uint32_t nc = core < 2 ? core : core - 2;

	memset(&s, 0, sizeof(s));
	memset(st, 0xff, sizeof(*st));
	if (dev_query(minor, NEURON_QUERY_NC_STATE, &s, sizeof(s)) || nc >= s.h.nc_count)
		return -1;
	*st = s.nc[nc];
	return 0;
}

/* A file of this process holding @mask of /dev/neuron@minor, or -1. */
static int own_reservation(int minor, uint64_t mask)
{
	int fd;

	fd = nio_open(minor, O_RDWR);
	if (fd < 0)
		return -1;
	if (nio_nc_reserve(fd, mask)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The permissions ("rw-s") of the mapping holding @p, from /proc/self/maps. */
static int map_perms(const void *p, char *perms)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long lo, hi;
	char line[512];
	int found = 0;

	strcpy(perms, "none");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) == 3 &&
		    (uintptr_t)p >= lo && (uintptr_t)p < hi)
			found = 1;
	fclose(f);
	if (!found)
		strcpy(perms, "none");
	return found ? 0 : -1;
}

/*
 * nrt_close() with device tensors (in sets, a slice), a model and their
 * memory left to it: the cores and the memory are free at once, the next
 * nrt_init() has core 0 again and runs on it, and what the caller still
 * holds is inert and safe to free. Round 0 with NEURON_RT_VISIBLE_CORES=0,
 * round 1 with no environment (core 0 taken at first use).
 */
TEST_F_TIMEOUT(nrt, close_releases_all, 90)
{
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	unsigned char pat[4096], buf[4096];
	nrt_tensor_t *big = NULL, *slice = NULL;
	nrt_model_t *m = NULL, *m2 = NULL;
	struct neuron_nc_state st;
	struct mrun r, r2;
	uint64_t base[2];
	uint32_t seed = 5;
	double waited;
	struct cap cap;
	unsigned char *va;
	char perms[8];
	NRT_STATUS s;
	int round, i;

	weights_init(&w);
	for (i = 0; i < (int)sizeof(pat); i++)
		pat[i] = (unsigned char)(i * 7 + 1);
	base[0] = dev_bytes(0);
	base[1] = dev_bytes(1);
	ASSERT_NE(~0ULL, base[0]);
	ASSERT_NE(~0ULL, base[1]);
	for (round = 0; round < 2; round++) {
		env_clear();
		if (round == 0)
			setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
		ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
		ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 0, &m));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 0));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 1 << 20,
							   "big", &big));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate_slice(big, 8192, 4096, "slice", &slice));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(slice, pat, 0, sizeof(pat)));
		rand_input(x, X_ELEMS, &seed);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
		va = nrt_tensor_get_va(big);
		ASSERT_NE(NULL, va);
		EXPECT_EQ(0, memcmp(va + 8192, pat, sizeof(pat)));
		EXPECT_LT(base[0], dev_bytes(0));
		ASSERT_EQ(0, core_state(0, &st));
		EXPECT_EQ(NEURON_NC_RESERVED, st.state);
		EXPECT_EQ(getpid(), st.owner_pid);

		/* close with all of it still allocated */
		nrt_close();
		EXPECT_TRUE(dev_bytes_at(base, &waited))
			TH_LOG("round %d: device bytes %llu and %llu, at first %llu and %llu",
			       round, (unsigned long long)dev_bytes(0),
			       (unsigned long long)dev_bytes(1), (unsigned long long)base[0],
			       (unsigned long long)base[1]);
		if (waited > 0 && waited <= 1.0)
			TH_LOG("round %d: memory back after %.3f s", round, waited);
		for (i = 0; i < TOTAL_NC; i++) {
			ASSERT_EQ(0, core_state(i, &st));
			EXPECT_EQ(NEURON_NC_FREE, st.state)
				TH_LOG("round %d: core %d still held (pid %d) after nrt_close",
				       round, i, st.owner_pid);
		}
		/* what the caller still holds is inert */
		setenv("NEURON_RT_LOG_LEVEL", "off", 1);
		EXPECT_EQ(NULL, nrt_tensor_get_va(big));
		EXPECT_EQ(NRT_CLOSED, nrt_tensor_read(slice, buf, 0, sizeof(buf)));
		/* its old address: reserved, inaccessible, so nothing else lands there */
		EXPECT_EQ(0, map_perms(va, perms));
		EXPECT_STREQ("---p", perms);
		unsetenv("NEURON_RT_LOG_LEVEL");

		/* init again: core 0 is ours again, and works */
		ASSERT_EQ(0, cap_begin(&cap));
		s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
		cap_end(&cap);
		ASSERT_EQ(NRT_SUCCESS, s) TH_LOG("round %d: %s", round, cap.buf);
		ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 0, &m2));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r2, m2, 0));
		ASSERT_EQ(0, core_state(0, &st));
		EXPECT_EQ(NEURON_NC_RESERVED, st.state);
		EXPECT_EQ(getpid(), st.owner_pid);
		ASSERT_EQ(0, core_state(1, &st));
		EXPECT_EQ(NEURON_NC_FREE, st.state) TH_LOG("round %d: vnc 0 is not core 0", round);
		rand_input(x, X_ELEMS, &seed);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r2, x, y));
		ref_matmul(&w, x, ref);
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));

		/* the earlier run's objects: refused, and freed without harm */
		setenv("NEURON_RT_LOG_LEVEL", "off", 1);
		EXPECT_EQ(NRT_INVALID_HANDLE, nrt_tensor_read(slice, buf, 0, sizeof(buf)));
		EXPECT_EQ(NRT_INVALID_HANDLE, nrt_execute(m, r.in, r.out));
		EXPECT_EQ(NULL, nrt_tensor_get_va(big));
		unsetenv("NEURON_RT_LOG_LEVEL");
		nrt_tensor_free(&slice);
		nrt_tensor_free(&big);
		EXPECT_EQ(NULL, big);
		EXPECT_EQ(-1, map_perms(va, perms)) TH_LOG("%p still mapped: %s", va, perms);
		mrun_free(&r);
		nrt_unload(m);
		m = NULL;
		rand_input(x, X_ELEMS, &seed);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r2, x, y));
		ref_matmul(&w, x, ref);
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
		EXPECT_LT(base[0], dev_bytes(0));

		/* and this run too goes with what it left */
		nrt_close();
		EXPECT_TRUE(dev_bytes_at(base, &waited)) TH_LOG("round %d: second run", round);
		ASSERT_EQ(0, core_state(0, &st));
		EXPECT_EQ(NEURON_NC_FREE, st.state);
		mrun_free(&r2);
		nrt_unload(m2);
		m2 = NULL;
	}
	env_clear();
}

/*
 * A core this process holds through a file of its own (not the runtime's)
 * is named as this process's, never as another process's; a core another
 * process holds is named as that process's, with its pid.
 */
TEST_F_TIMEOUT(nrt, busy_core_owner, 60)
{
	char want[512];
	struct cap cap;
	nrt_tensor_t *t = NULL;
	nrt_model_t *m = NULL;
	int fd0, fd1, ready, go, st;
	unsigned char c;
	NRT_STATUS s;
	pid_t pid;

	/* core 0 held by a file of this process */
	fd0 = own_reservation(0, 1);
	ASSERT_LE(0, fd0);
	setenv("NEURON_RT_VISIBLE_CORES", "0", 1);
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	cap_end(&cap);
	EXPECT_EQ(NRT_RESOURCE, s);
	snprintf(want, sizeof(want),
		 "nrt: nrt_init: reserve core (nc 0): core 0 is held by this process itself (pid %d) through another open file of its device (a leftover of its own, not this runtime's)\n",
		 (int)getpid());
	EXPECT_STREQ(want, cap.buf);
	EXPECT_EQ(NULL, strstr(cap.buf, "another process"));
	close(fd0);
	env_clear();

	/* every core held by files of this process: the first use fails */
	fd0 = own_reservation(0, 0x3);
	fd1 = own_reservation(1, 0xff);
	ASSERT_LE(0, fd0);
	ASSERT_LE(0, fd1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t);
	cap_end(&cap);
	EXPECT_EQ(NRT_RESOURCE, s);
	snprintf(want, sizeof(want), "%s",
		 "nrt: nrt_tensor_allocate: allocate device memory (vnc 0): no free NeuronCore left: 10 held by this process itself through other open files of the devices (leftovers of its own)\n");
	EXPECT_STREQ(want, cap.buf);
	ASSERT_EQ(0, cap_begin(&cap));
	s = load_path(MATMUL_PATH, -1, &m);
	cap_end(&cap);
	EXPECT_EQ(NRT_LOAD_NOT_ENOUGH_NC, s);
	EXPECT_EQ(NULL, strstr(cap.buf, "other process")) TH_LOG("%s", cap.buf);
	EXPECT_NE(NULL, strstr(cap.buf, "10 held by this process itself")) TH_LOG("%s", cap.buf);
	nrt_close();
	setenv("NEURON_RT_NUM_CORES", "2", 1);
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	cap_end(&cap);
	EXPECT_EQ(NRT_RESOURCE, s);
	snprintf(want, sizeof(want), "%s",
		 "nrt: nrt_init: reserve cores (NEURON_RT_NUM_CORES=2): only 0 of the 10 NeuronCores are free: 10 held by this process itself through other open files of the devices (leftovers of its own)\n");
	EXPECT_STREQ(want, cap.buf);
	env_clear();

	/* cores 2-9 held by another process, 0-1 by this one's file */
	close(fd0);
	close(fd1);
	pid = holder("2-9", 0, &ready, &go);	/* forked before fd0: not its file */
	ASSERT_LT(0, pid);
	ASSERT_EQ(1, read(ready, &c, 1));
	ASSERT_EQ(NRT_SUCCESS, c);
	fd0 = own_reservation(0, 0x3);
	ASSERT_LE(0, fd0);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t);
	cap_end(&cap);
	EXPECT_EQ(NRT_RESOURCE, s);
	snprintf(want, sizeof(want), "%s",
		 "nrt: nrt_tensor_allocate: allocate device memory (vnc 0): no free NeuronCore left: 2 held by this process itself through other open files of the devices (leftovers of its own), 8 in use by other processes\n");
	EXPECT_STREQ(want, cap.buf);
	nrt_close();
	close(fd0);
	setenv("NEURON_RT_VISIBLE_CORES", "0-2", 1);
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");
	cap_end(&cap);
	EXPECT_EQ(NRT_RESOURCE, s);
	snprintf(want, sizeof(want),
		 "nrt: nrt_init: reserve core (nc 2): core 2 is in use by another process (pid %d)\n",
		 (int)pid);
	EXPECT_STREQ(want, cap.buf);
	ASSERT_EQ(1, write(go, "g", 1));
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	close(ready);
	close(go);
	/* all free again */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	nrt_close();
	env_clear();
}

TEST_F_TIMEOUT(nrt, num_cores, 60)
{
	nrt_model_t *m = NULL;
	nrt_tensor_t *t = NULL;
	struct mrun r;
	struct weights w;
	float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
	uint32_t n = 0, seed = 1;

	weights_init(&w);
	/* bad values */
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	setenv("NEURON_RT_NUM_CORES", "0", 1);
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	setenv("NEURON_RT_NUM_CORES", "two", 1);
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	setenv("NEURON_RT_NUM_CORES", "11", 1);
	EXPECT_EQ(NRT_RESOURCE, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	unsetenv("NEURON_RT_NUM_CORES");
	setenv("NEURON_RT_VISIBLE_CORES", "10", 1);
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	setenv("NEURON_RT_VISIBLE_CORES", "3-1", 1);
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	setenv("NEURON_RT_VISIBLE_CORES", "x", 1);
	EXPECT_EQ(NRT_INVALID, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	env_clear();

	/* NEURON_RT_NUM_CORES=3: cores 0, 1, 2 */
	setenv("NEURON_RT_NUM_CORES", "3", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_vnc_count(&n));
	EXPECT_EQ(3, n);
	ASSERT_EQ(NRT_SUCCESS, nrt_get_total_nc_count(&n));
	EXPECT_EQ(TOTAL_NC, n);
	EXPECT_EQ(NRT_RESOURCE, child_init_status("0", NULL, -1));
	EXPECT_EQ(NRT_RESOURCE, child_init_status("2", NULL, -1));
	EXPECT_EQ(NRT_SUCCESS, child_init_status("3", NULL, -1));
	EXPECT_EQ(NRT_SUCCESS, child_init_status(NULL, "7", -1));
	EXPECT_EQ(NRT_RESOURCE, child_init_status(NULL, "8", -1));
	/* a child without environment takes the first free core at first use */
	EXPECT_EQ(NRT_SUCCESS, child_init_status(NULL, NULL, 0));
	EXPECT_EQ(NRT_SUCCESS, child_init_status(NULL, NULL, 6));	/* vnc 6 = core 9 */
	EXPECT_EQ(NRT_RESOURCE, child_init_status(NULL, NULL, 7));	/* no core 10 */
	/* vncs past the reserved ones */
	EXPECT_EQ(NRT_INVALID, load_path(MATMUL_PATH, 3, &m));
	EXPECT_EQ(NRT_LOAD_NOT_ENOUGH_NC, nrt_load("x", 1, 0, 4, &m));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 3, 64, "t", &t));
	/* vnc 2 is core 2 (the v3 device) */
	ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 2, &m));
	ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 2));
	rand_input(x, X_ELEMS, &seed);
	ref_matmul(&w, x, ref);
	ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
	EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
	mrun_free(&r);
	nrt_unload(m);
	nrt_close();
	EXPECT_EQ(NRT_SUCCESS, child_init_status("0-2", NULL, -1));	/* released */

	/* VISIBLE_CORES wins over NUM_CORES; vnc 0 is global core 5 */
	setenv("NEURON_RT_VISIBLE_CORES", "5", 1);
	setenv("NEURON_RT_NUM_CORES", "4", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, nrt_get_visible_nc_count(&n));
	EXPECT_EQ(1, n);
	EXPECT_EQ(NRT_RESOURCE, child_init_status("5", NULL, -1));
	EXPECT_EQ(NRT_SUCCESS, child_init_status("0-4,6-9", NULL, -1));
	EXPECT_EQ(NRT_INVALID, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 1, 64, "t", &t));
	nrt_close();
	env_clear();

	/* no environment: nothing reserved until first use, then the lowest free */
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	EXPECT_EQ(NRT_SUCCESS, child_init_status("0-9", NULL, -1));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "t", &t));
	EXPECT_EQ(NRT_RESOURCE, child_init_status("0", NULL, -1));
	EXPECT_EQ(NRT_SUCCESS, child_init_status("1-9", NULL, -1));
	ASSERT_EQ(NRT_SUCCESS, load_path(MATMUL_PATH, 1, &m));	/* takes core 1 */
	EXPECT_EQ(NRT_RESOURCE, child_init_status("1", NULL, -1));
	EXPECT_EQ(NRT_SUCCESS, child_init_status("2-9", NULL, -1));
	nrt_unload(m);
	nrt_tensor_free(&t);
	nrt_close();
}

/* ---- containers ---- */

/* A hand-made container: y[2x2] = x[2x3] . W[3x2], W = 1..6. */
/* the name of the hand-made container's instruction block */
#define HAND_PE "pe"

struct hand {
	const char *version, *arch, *extra, *first_name, *dtype;
	int bad_insn, no_data_entry, no_gzip;
};

static void build_hand(struct mbuf *out, const struct hand *h)
{
	static const float W[6] = { 1, 2, 3, 4, 5, 6 };
	struct neuron_tpb_insn in[2];
	struct mbuf tar = { 0 };
	char man[512];

	snprintf(man, sizeof(man),
		 "neuron-model %s\narch %s\n"
		 "%stensor input x %s 2x3\ntensor output y float32 2x2\n"
		 "block " HAND_PE " " HAND_PE ".bin\ndata data.bin\n",
		 h->version ? h->version : "1", h->arch ? h->arch : "v2",
		 h->extra ? h->extra : "", h->dtype ? h->dtype : "float32");
	memset(in, 0, sizeof(in));
	in[0].opcode = NEURON_TPB_MATMUL;
	in[0].dtype = NEURON_DT_FP32;
	in[0].m = h->bad_insn ? 0 : 2;
	in[0].k = 3;
	in[0].n = 2;
	in[0].dst.region = NEURON_REGION_SLOT(1);
	in[0].a.region = NEURON_REGION_SLOT(0);
	in[0].b.region = NEURON_REGION_DATA;
	in[1].opcode = NEURON_TPB_END;
	tar_add(&tar, h->first_name ? h->first_name : "manifest", man, strlen(man));
	tar_add(&tar, "pe.bin", in, sizeof(in));
	if (!h->no_data_entry)
		tar_add(&tar, "data.bin", W, sizeof(W));
	tar_end(&tar);
	memset(out, 0, sizeof(*out));
	if (h->no_gzip) {
		*out = tar;
		return;
	}
	gzip_stored(out, tar.p, tar.len);
	free(tar.p);
}

static NRT_STATUS load_hand(const struct hand *h, nrt_model_t **m)
{
	struct mbuf b;
	NRT_STATUS s;

	build_hand(&b, h);
	s = load_bytes(b.p, b.len, -1, m);
	free(b.p);
	return s;
}

#define FLIP_EXEC_FMT "bit %u of byte %zu of %zu: loads, executes with status %d"
#define FLIP_DIFF_FMT "bit %u of byte %zu of %zu: loads, computes y[%d] = %.9g instead of %.9g"
#define FLIP_SUM_FMT "bit flips: %d loaded (%d of them compute otherwise, %d fail), %d invalid, %d unsupported"

TEST_F_TIMEOUT(nrt, containers, 90)
{
	unsigned char *real, *buf;
	size_t n, len, i;
	nrt_model_t *m = NULL;
	NRT_STATUS s;
	uint32_t st = 2024;
	int bad = 0, ok = 0, inval = 0, unsup = 0;

	real = slurp(MATMUL_PATH, &n);
	ASSERT_NE(NULL, real);
	ASSERT_LT(64, n);
	buf = malloc(n + 65536);
	ASSERT_NE(NULL, buf);
	setenv("NEURON_RT_LOG_LEVEL", "off", 1);
	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));

	/* the real one loads */
	ASSERT_EQ(NRT_SUCCESS, load_bytes(real, n, -1, &m));
	ASSERT_EQ(NRT_SUCCESS, nrt_unload(m));

	/* truncated at every length */
	for (len = 1; len < n; len++) {
		memcpy(buf, real, len);
		m = NULL;
		s = load_bytes(buf, len, -1, &m);
		if (s != NRT_INVALID) {
			if (bad++ < 5)
				TH_LOG("truncated at %zu of %zu bytes: status %d", len, n, (int)s);
			if (!s)
				nrt_unload(m);
		}
		if (m && s)
			TH_LOG("truncated at %zu: model set on failure", len);
	}
	EXPECT_EQ(0, bad) TH_LOG("%d truncations not refused as NRT_INVALID", bad);

	/* random bytes: foreign (no gzip magic) */
	bad = 0;
	for (i = 0; i < 50; i++) {
		size_t k;

		len = 2 + xs32(&st) % 4096;
		for (k = 0; k < len; k++)
			buf[k] = (unsigned char)xs32(&st);
		if (buf[0] == 0x1f)
			buf[0] = 0;
		s = load_bytes(buf, len, -1, &m);
		if (s != NRT_UNSUPPORTED_NEFF_VERSION && bad++ < 5)
			TH_LOG("random %zu bytes: status %d", len, (int)s);
		/* with the gzip magic in front: corrupt */
		buf[0] = 0x1f;
		buf[1] = 0x8b;
		s = load_bytes(buf, len, -1, &m);
		if (s != NRT_INVALID && bad++ < 5)
			TH_LOG("gzip magic + random %zu bytes: status %d", len, (int)s);
	}
	EXPECT_EQ(0, bad);

	/*
	 * Single bit flips of the real model: refused, or a model that computes
	 * exactly what the real one does (a flip in a field that does not
	 * matter, e.g. the gzip header's mtime); never a crash. A damaged
	 * stream that loads as a different model means the gzip CRC was not
	 * checked.
	 */
	{
		struct weights w;
		float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
		struct mrun r;
		int differ = 0, fails = 0;

		weights_init(&w);
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, NULL, 0));
		rand_input(x, X_ELEMS, &st);
		ref_matmul(&w, x, ref);
		bad = 0;
		for (i = 0; i < 400; i++) {
			size_t pos = xs32(&st) % n;
			unsigned int bit = xs32(&st) % 8;

			memcpy(buf, real, n);
			buf[pos] ^= (unsigned char)(1u << bit);
			m = NULL;
			s = load_bytes(buf, n, -1, &m);
			if (s == NRT_SUCCESS) {
				ok++;
				r.m = m;
				memset(y, 0, sizeof(y));
				s = mrun_exec(&r, x, y);
				if (s) {
					if (fails++ < 5)
						TH_LOG(FLIP_EXEC_FMT,
						       bit, pos, n, (int)s);
				} else if (fdiff(y, ref, Y_ELEMS) >= 0) {
					if (differ++ < 5)
						TH_LOG(FLIP_DIFF_FMT,
						       bit, pos, n, fdiff(y, ref, Y_ELEMS),
						       y[fdiff(y, ref, Y_ELEMS)],
						       ref[fdiff(y, ref, Y_ELEMS)]);
				}
				nrt_unload(m);
			} else if (s == NRT_INVALID) {
				inval++;
			} else if (s == NRT_UNSUPPORTED_NEFF_VERSION) {
				unsup++;
			} else if (bad++ < 5) {
				TH_LOG("bit %u of byte %zu: status %d", bit, pos, (int)s);
			}
		}
		mrun_free(&r);
		TH_LOG(FLIP_SUM_FMT,
		       ok, differ, fails, inval, unsup);
		EXPECT_EQ(0, bad);
		EXPECT_EQ(0, differ) TH_LOG("damaged containers load as other models");
		EXPECT_EQ(0, fails);
	}
	/* appended garbage after the gzip stream */
	memcpy(buf, real, n);
	memset(buf + n, 0x41, 100);
	s = load_bytes(buf, n + 100, -1, &m);
	TH_LOG("the real model + 100 bytes of garbage: status %d", (int)s);
	if (!s)
		nrt_unload(m);

	/* a gzip of garbage, of zeros (an empty tar), an uncompressed tar */
	{
		struct mbuf g = { 0 };
		unsigned char junk[3000];

		for (i = 0; i < sizeof(junk); i++)
			junk[i] = (unsigned char)xs32(&st);
		gzip_stored(&g, junk, sizeof(junk));
		EXPECT_EQ(NRT_INVALID, load_bytes(g.p, g.len, -1, &m));
		free(g.p);
		memset(&g, 0, sizeof(g));
		memset(junk, 0, sizeof(junk));
		gzip_stored(&g, junk, sizeof(junk));
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_bytes(g.p, g.len, -1, &m));
		free(g.p);
	}

	/* hand-made containers: the valid one loads and computes */
	{
		struct hand h = { 0 };
		nrt_tensor_t *tx = NULL, *ty = NULL;
		nrt_tensor_set_t *in = NULL, *out = NULL;
		float x[6] = { 1, 0, -1, 0.5f, 2, 3 }, y[4];
		/* x . W with W = [[1,2],[3,4],[5,6]] */
		float ref[4] = { 1 - 5, 2 - 6, 0.5f + 6 + 15, 1 + 8 + 18 };

		ASSERT_EQ(NRT_SUCCESS, load_hand(&h, &m));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 24,
							   "x", &tx));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16,
							   "y", &ty));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&in));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&out));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(in, "x", tx));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(out, "y", ty));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_write(tx, x, 0, 24));
		ASSERT_EQ(NRT_SUCCESS, nrt_execute(m, in, out));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_read(ty, y, 0, 16));
		EXPECT_EQ(-1, fdiff(y, ref, 4));
		nrt_unload(m);
		nrt_tensor_free(&tx);
		nrt_tensor_free(&ty);
		nrt_destroy_tensor_set(&in);
		nrt_destroy_tensor_set(&out);
	}
	{
		struct hand h;

		memset(&h, 0, sizeof(h));
		h.version = "2";
		m = NULL;
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		EXPECT_EQ(NULL, m);
		h.version = "17";
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.arch = "v9";
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.extra = "nc_count 2\n";
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.first_name = "README";	/* another program's archive */
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.no_gzip = 1;			/* an uncompressed tar */
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.dtype = "float64";		/* manifest syntax */
		EXPECT_EQ(NRT_INVALID, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.extra = "bogus 1\n";
		EXPECT_EQ(NRT_INVALID, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.no_data_entry = 1;		/* a named file missing */
		EXPECT_EQ(NRT_INVALID, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.bad_insn = 1;			/* refused by the driver (-ENOEXEC) */
		EXPECT_EQ(NRT_INVALID, load_hand(&h, &m));
		memset(&h, 0, sizeof(h));
		h.version = "1";
		h.arch = "v3";			/* v3 arch, loaded on a v2 core */
		EXPECT_EQ(NRT_SUCCESS, load_hand(&h, &m));
		if (m)
			nrt_unload(m);
		m = NULL;
	}

	/* foreign files: this program (ELF), a NEFF-like header */
	{
		size_t en = 0;
		unsigned char *elf = slurp("/proc/self/exe", &en);
		static const char neff[] = "NEFF\x01\x00\x00\x00 a compiled neural network";

		if (!elf)
			elf = slurp("/bin/busybox", &en);
		ASSERT_NE(NULL, elf);
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_bytes(elf, en, -1, &m));
		free(elf);
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_bytes(neff, sizeof(neff), -1, &m));
		EXPECT_EQ(NRT_UNSUPPORTED_NEFF_VERSION, load_bytes("{}", 2, -1, &m));
	}
	EXPECT_EQ(NULL, m);

	/* after all that, the real model still loads and runs */
	{
		struct weights w;
		float x[X_ELEMS], y[Y_ELEMS], ref[Y_ELEMS];
		struct mrun r;

		weights_init(&w);
		ASSERT_EQ(NRT_SUCCESS, load_bytes(real, n, -1, &m));
		ASSERT_EQ(NRT_SUCCESS, mrun_setup(&r, m, 0));
		rand_input(x, X_ELEMS, &st);
		ref_matmul(&w, x, ref);
		ASSERT_EQ(NRT_SUCCESS, mrun_exec(&r, x, y));
		EXPECT_EQ(-1, fdiff(y, ref, Y_ELEMS));
		mrun_free(&r);
		nrt_unload(m);
	}
	nrt_close();
	free(buf);
	free(real);
}

/* ---- logging ---- */

struct logcase {
	const char *fn;		/* expected "nrt: <fn>: " */
	const char *needle;	/* expected in the line, or NULL */
	NRT_STATUS want;
	int id;
};

struct logctx {
	nrt_model_t *m;
	nrt_tensor_t *d, *h;
	nrt_tensor_set_t *in, *out, *in_missing, *in_host;
	void *real;
	size_t n;
};

static NRT_STATUS log_call(struct logctx *c, int id)
{
	nrt_model_t *m = NULL;
	nrt_tensor_t *t = NULL;
	unsigned char b[64];
	uint32_t u;
	struct hand h;

	memset(&h, 0, sizeof(h));
	switch (id) {
	case 0:
		return nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", "");	/* twice */
	case 1:
		return load_bytes("garbage!", 8, -1, &m);
	case 2:
		return nrt_tensor_read(c->d, b, 60, 8);
	case 3:
		return nrt_execute(c->m, c->in_missing, c->out);
	case 4:
		return nrt_execute(c->m, c->in_host, c->out);
	case 5:
		return nrt_get_tensor_from_tensor_set(c->in, "nope", &t);
	case 6:
		h.bad_insn = 1;
		return load_hand(&h, &m);
	case 7:
		return nrt_get_model_nc_count(NULL, &u);
	case 8:
		return nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 99, 16, "t", &t);
	case 9:
		return nrt_load(c->real, c->n / 2, -1, -1, &m);
	case 10:
		h.version = "2";
		return load_hand(&h, &m);
	case 11:
		return nrt_tensor_write(c->h, b, X_BYTES - 8, 16);
	case 12:
		return nrt_execute_repeat(c->m, c->in, c->out, 0);
	case 13:
		return nrt_tensor_allocate_slice(c->d, 32, 64, "s", &t);
	case 14:
		return nrt_get_version(NULL, 1);
	}
	return NRT_FAILURE;
}

static const struct logcase log_cases[] = {
	{ "nrt_init", "already initialised", NRT_INVALID, 0 },
	{ "nrt_load", NULL, NRT_UNSUPPORTED_NEFF_VERSION, 1 },
	{ "nrt_tensor_read", NULL, NRT_INVALID, 2 },
	{ "nrt_execute", "input tensor 'x' missing from the set", NRT_INVALID, 3 },
	{ "nrt_execute", "host memory", NRT_INVALID, 4 },
	{ "nrt_get_tensor_from_tensor_set", "nope", NRT_INVALID, 5 },
	{ "nrt_load", "block 0 (engine 0), instruction 0", NRT_INVALID, 6 },
	{ "nrt_get_model_nc_count", NULL, NRT_INVALID_HANDLE, 7 },
	{ "nrt_tensor_allocate", NULL, NRT_INVALID, 8 },
	{ "nrt_load", NULL, NRT_INVALID, 9 },
	{ "nrt_load", "version 2", NRT_UNSUPPORTED_NEFF_VERSION, 10 },
	{ "nrt_tensor_write", NULL, NRT_INVALID, 11 },
	{ "nrt_execute_repeat", NULL, NRT_INVALID, 12 },
	{ "nrt_tensor_allocate_slice", NULL, NRT_INVALID, 13 },
	{ "nrt_get_version", NULL, NRT_INVALID, 14 },
};

TEST_F_TIMEOUT(nrt, logging, 60)
{
	struct logctx c;
	struct cap cap;
	nrt_tensor_t *t = NULL;
	char prefix[64];
	size_t i;
	int pass;
	NRT_STATUS s;
	float x[X_ELEMS] = { 0 }, y[Y_ELEMS];
	unsigned char b[16];

	memset(&c, 0, sizeof(c));
	c.real = slurp(MATMUL_PATH, &c.n);
	ASSERT_NE(NULL, c.real);

	/* before nrt_init: one line */
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_load(c.real, c.n, -1, -1, &c.m);
	cap_end(&cap);
	EXPECT_EQ(NRT_UNINITIALIZED, s);
	EXPECT_EQ(1, count_lines(cap.buf)) TH_LOG("'%s'", cap.buf);
	EXPECT_EQ(0, strncmp(cap.buf, "nrt: nrt_load: ", 15)) TH_LOG("'%s'", cap.buf);
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 16, "t", &t);
	cap_end(&cap);
	EXPECT_EQ(NRT_UNINITIALIZED, s);
	EXPECT_EQ(1, count_lines(cap.buf)) TH_LOG("'%s'", cap.buf);
	EXPECT_EQ(0, strncmp(cap.buf, "nrt: nrt_tensor_allocate: ", 26)) TH_LOG("'%s'", cap.buf);

	ASSERT_EQ(NRT_SUCCESS, nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	ASSERT_EQ(NRT_SUCCESS, load_bytes(c.real, c.n, -1, &c.m));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, 64, "d", &c.d));
	ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_HOST, -1, X_BYTES,
						   "x", &c.h));
	{
		nrt_tensor_t *tx = NULL, *ty = NULL;

		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, X_BYTES,
							   "x", &tx));
		ASSERT_EQ(NRT_SUCCESS, nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, Y_BYTES,
							   "y", &ty));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&c.in));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&c.out));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&c.in_missing));
		ASSERT_EQ(NRT_SUCCESS, nrt_allocate_tensor_set(&c.in_host));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(c.in, "x", tx));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(c.out, "y", ty));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(c.in_missing, "w", tx));
		ASSERT_EQ(NRT_SUCCESS, nrt_add_tensor_to_tensor_set(c.in_host, "x", c.h));
	}

	/* successful calls are silent */
	ASSERT_EQ(0, cap_begin(&cap));
	nrt_tensor_t *tx = NULL;

	nrt_get_tensor_from_tensor_set(c.in, "x", &tx);
	nrt_tensor_write(tx, x, 0, X_BYTES);
	s = nrt_execute(c.m, c.in, c.out);
	nrt_tensor_t *ty = NULL;

	nrt_get_tensor_from_tensor_set(c.out, "y", &ty);
	nrt_tensor_read(ty, y, 0, Y_BYTES);
	nrt_tensor_read(c.d, b, 0, 16);
	cap_end(&cap);
	EXPECT_EQ(NRT_SUCCESS, s);
	EXPECT_STREQ("", cap.buf);

	for (pass = 0; pass < 3; pass++) {
		if (pass == 1)
			setenv("NEURON_RT_LOG_LEVEL", "off", 1);
		if (pass == 2)
			setenv("NEURON_RT_LOG_LEVEL", "none", 1);
		for (i = 0; i < ARRAY_SIZE(log_cases); i++) {
			const struct logcase *lc = &log_cases[i];

			ASSERT_EQ(0, cap_begin(&cap));
			s = log_call(&c, lc->id);
			cap_end(&cap);
			EXPECT_EQ(lc->want, s) TH_LOG("case %d (%s)", lc->id, lc->fn);
			if (pass) {
				EXPECT_STREQ("", cap.buf) TH_LOG("case %d, level %s", lc->id,
								 getenv("NEURON_RT_LOG_LEVEL"));
				continue;
			}
			snprintf(prefix, sizeof(prefix), "nrt: %s: ", lc->fn);
			EXPECT_EQ(1, count_lines(cap.buf)) TH_LOG("case %d: '%s'", lc->id, cap.buf);
			EXPECT_EQ(0, strncmp(cap.buf, prefix, strlen(prefix)))
				TH_LOG("case %d: '%s'", lc->id, cap.buf);
			EXPECT_EQ('\n', cap.len ? cap.buf[cap.len - 1] : 0)
				TH_LOG("case %d: '%s'", lc->id, cap.buf);
			if (lc->needle)
				EXPECT_NE(NULL, strstr(cap.buf, lc->needle))
					TH_LOG("case %d: '%s' lacks '%s'", lc->id, cap.buf,
					       lc->needle);
			TH_LOG("case %d: %s", lc->id, cap.buf);
		}
	}
	unsetenv("NEURON_RT_LOG_LEVEL");
	nrt_close();
	/* after nrt_close: one line */
	ASSERT_EQ(0, cap_begin(&cap));
	s = nrt_execute(c.m, c.in, c.out);
	cap_end(&cap);
	EXPECT_EQ(NRT_CLOSED, s);
	EXPECT_EQ(1, count_lines(cap.buf)) TH_LOG("'%s'", cap.buf);
	EXPECT_EQ(0, strncmp(cap.buf, "nrt: nrt_execute: ", 18)) TH_LOG("'%s'", cap.buf);
	free(c.real);
}

/* TEST_HARNESS_MAIN, with the helper mode of child_init_status() */
static void __attribute__((constructor)) __constructor_order_last(void)
{
	if (!__constructor_order)
		__constructor_order = _CONSTRUCTOR_ORDER_BACKWARD;
}

int main(int argc, char **argv)
{
	self_path = argv[0];
	if (argc == 3 && !strcmp(argv[1], "--init-child"))
		return init_child_main(atoi(argv[2]));
	return test_harness_run(argc, argv);
}
