// SPDX-License-Identifier: GPL-2.0
/*
 * ABI test of libnrt.so.1: with the headers given by -I (ours or the
 * installed ones), check the layouts and values programs compiled for the
 * Neuron SDK API rely on, then check that the library (argv[1]) exports
 * exactly the expected functions, each at version NRT_2.0.0.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>
#include <nrt/nrt_status.h>
#include <nrt/nrt_version.h>

static int failures;

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define CHECK_EQ(expr, want) do { \
	long long got_ = (long long)(expr); \
	long long want_ = (long long)(want); \
	if (got_ != want_) { \
		printf("FAIL %s = %lld, expected %lld\n", #expr, got_, want_); \
		failures++; \
	} \
} while (0)

static const char *const expected_syms[] = {
	"nrt_add_tensor_to_tensor_set", "nrt_allocate_tensor_set", "nrt_close",
	"nrt_destroy_tensor_set", "nrt_execute", "nrt_execute_repeat",
	"nrt_free_model_tensor_info", "nrt_get_instance_info", "nrt_get_model_nc_count",
	"nrt_get_model_tensor_info", "nrt_get_status_as_str", "nrt_get_tensor_from_tensor_set",
	"nrt_get_total_nc_count", "nrt_get_total_vnc_count", "nrt_get_version",
	"nrt_get_visible_nc_count", "nrt_get_visible_vnc_count", "nrt_init", "nrt_load",
	"nrt_memcpy_to_device", "nrt_tensor_allocate", "nrt_tensor_allocate_empty",
	"nrt_tensor_allocate_slice", "nrt_tensor_attach_buffer", "nrt_tensor_copy",
	"nrt_tensor_free", "nrt_tensor_get_size", "nrt_tensor_get_va", "nrt_tensor_memset",
	"nrt_tensor_read", "nrt_tensor_read_batch", "nrt_tensor_write", "nrt_tensor_write_batch",
	"nrt_unload",
};

#define NSYMS ARRAY_SIZE(expected_syms)

/* NRT_STATUS under a name checkpatch parses as a type. */
typedef NRT_STATUS abi_status_t;

/* The prototypes must be those of the API (a mismatch does not compile). */
static void check_prototypes(void)
{
	abi_status_t (*init)(nrt_framework_type_t, const char *, const char *) = nrt_init;
	void (*close_)(void) = nrt_close;
	abi_status_t (*load)(const void *, size_t, int32_t, int32_t, nrt_model_t **) = nrt_load;
	abi_status_t (*exec)(nrt_model_t *, const nrt_tensor_set_t *, nrt_tensor_set_t *) =
		nrt_execute;
	abi_status_t (*rep)(nrt_model_t *, const nrt_tensor_set_t *, nrt_tensor_set_t *, int) =
		nrt_execute_repeat;
	abi_status_t (*alloc)(nrt_tensor_placement_t, int, size_t, const char *, nrt_tensor_t **) =
		nrt_tensor_allocate;
	abi_status_t (*rd)(const nrt_tensor_t *, void *, size_t, size_t) = nrt_tensor_read;
	abi_status_t (*wr)(nrt_tensor_t *, const void *, size_t, size_t) = nrt_tensor_write;
	abi_status_t (*rdb)(const nrt_tensor_batch_t *, uint64_t, bool) = nrt_tensor_read_batch;
	abi_status_t (*cp)(const nrt_tensor_t *, size_t, nrt_tensor_t *, size_t, size_t) =
		nrt_tensor_copy;
	abi_status_t (*ms)(nrt_tensor_t *, uint64_t, int, size_t) = nrt_tensor_memset;
	abi_status_t (*sl)(const nrt_tensor_t *, size_t, size_t, const char *, nrt_tensor_t **) =
		nrt_tensor_allocate_slice;
	abi_status_t (*ab)(struct nrt_tensor *, void *, size_t) = nrt_tensor_attach_buffer;
	void *(*va)(const nrt_tensor_t *) = nrt_tensor_get_va;
	size_t (*gs)(const nrt_tensor_t *) = nrt_tensor_get_size;
	abi_status_t (*ts)(nrt_tensor_set_t **) = nrt_allocate_tensor_set;
	void (*ds)(nrt_tensor_set_t **) = nrt_destroy_tensor_set;
	abi_status_t (*ti)(nrt_model_t *, nrt_tensor_info_array_t **) = nrt_get_model_tensor_info;
	abi_status_t (*gv)(nrt_version_t *, size_t) = nrt_get_version;
	abi_status_t (*gi)(nrt_instance_info_t *, size_t) = nrt_get_instance_info;
	abi_status_t (*mc)(void *, const void *, size_t) = nrt_memcpy_to_device;
	const char *(*ss)(NRT_STATUS) = nrt_get_status_as_str;
	void *all[] = { (void *)&init, (void *)&close_, (void *)&load, (void *)&exec,
			(void *)&rep, (void *)&alloc, (void *)&rd, (void *)&wr, (void *)&rdb,
			(void *)&cp, (void *)&ms, (void *)&sl, (void *)&ab, (void *)&va,
			(void *)&gs, (void *)&ts, (void *)&ds, (void *)&ti, (void *)&gv,
			(void *)&gi, (void *)&mc, (void *)&ss };
	(void)all;
}

static void check_layouts(void)
{
	nrt_tensor_set_t *set = NULL;
	void **as_void = (void **)&set;	/* nrt_tensor_set_t must stay void */

	(void)as_void;
	CHECK_EQ(sizeof(nrt_tensor_info_t), 296);
	CHECK_EQ(offsetof(nrt_tensor_info_t, name), 0);
	CHECK_EQ(offsetof(nrt_tensor_info_t, usage), 256);
	CHECK_EQ(offsetof(nrt_tensor_info_t, size), 264);
	CHECK_EQ(offsetof(nrt_tensor_info_t, dtype), 272);
	CHECK_EQ(offsetof(nrt_tensor_info_t, shape), 280);
	CHECK_EQ(offsetof(nrt_tensor_info_t, ndim), 288);
	CHECK_EQ(NRT_TENSOR_NAME_MAX, 256);
	CHECK_EQ(sizeof(nrt_tensor_info_array_t), 8);
	CHECK_EQ(offsetof(nrt_tensor_info_array_t, tensor_array), 8);
	CHECK_EQ(sizeof(nrt_version_t), 224);
	CHECK_EQ(offsetof(nrt_version_t, rt_minor), 8);
	CHECK_EQ(offsetof(nrt_version_t, rt_patch), 16);
	CHECK_EQ(offsetof(nrt_version_t, rt_maintenance), 24);
	CHECK_EQ(offsetof(nrt_version_t, rt_detail), 32);
	CHECK_EQ(offsetof(nrt_version_t, git_hash), 160);
	CHECK_EQ(sizeof(nrt_instance_info_t), 32);
	CHECK_EQ(offsetof(nrt_instance_info_t, size), 4);
	CHECK_EQ(offsetof(nrt_instance_info_t, arch_name), 8);
	CHECK_EQ(offsetof(nrt_instance_info_t, device_revision), 24);
	CHECK_EQ(sizeof(nrt_tensor_batch_op_t), 24);
	CHECK_EQ(offsetof(nrt_tensor_batch_op_t, size), 8);
	CHECK_EQ(offsetof(nrt_tensor_batch_op_t, buffer), 16);
	CHECK_EQ(sizeof(nrt_tensor_batch_t), 24);
	CHECK_EQ(offsetof(nrt_tensor_batch_t, ops), 8);
	CHECK_EQ(offsetof(nrt_tensor_batch_t, num_ops), 16);
	CHECK_EQ(sizeof(NRT_STATUS), 4);
	CHECK_EQ(sizeof(nrt_dtype_t), 4);
	CHECK_EQ(sizeof(nrt_tensor_usage_t), 4);
	CHECK_EQ(NRT_MAJOR_VERSION, 2);
	CHECK_EQ(NRT_MINOR_VERSION, 0);
}

static void check_values(void)
{
	/* NRT_STATUS */
	CHECK_EQ(NRT_SUCCESS, 0);
	CHECK_EQ(NRT_FAILURE, 1);
	CHECK_EQ(NRT_INVALID, 2);
	CHECK_EQ(NRT_INVALID_HANDLE, 3);
	CHECK_EQ(NRT_RESOURCE, 4);
	CHECK_EQ(NRT_TIMEOUT, 5);
	CHECK_EQ(NRT_HW_ERROR, 6);
	CHECK_EQ(NRT_QUEUE_FULL, 7);
	CHECK_EQ(NRT_LOAD_NOT_ENOUGH_NC, 9);
	CHECK_EQ(NRT_UNSUPPORTED_NEFF_VERSION, 10);
	CHECK_EQ(NRT_FAIL_HOST_MEM_ALLOC, 11);
	CHECK_EQ(NRT_UNINITIALIZED, 13);
	CHECK_EQ(NRT_CLOSED, 14);
	CHECK_EQ(NRT_QUEUE_EMPTY, 15);
	CHECK_EQ(NRT_EXEC_UNIT_UNRECOVERABLE, 101);
	CHECK_EQ(NRT_EXEC_BAD_INPUT, 1002);
	CHECK_EQ(NRT_EXEC_COMPLETED_WITH_NUM_ERR, 1003);
	CHECK_EQ(NRT_EXEC_COMPLETED_WITH_ERR, 1004);
	CHECK_EQ(NRT_EXEC_NC_BUSY, 1005);
	CHECK_EQ(NRT_EXEC_OOB, 1006);
	CHECK_EQ(NRT_COLL_PENDING, 1100);
	CHECK_EQ(NRT_EXEC_HW_ERR_COLLECTIVES, 1200);
	CHECK_EQ(NRT_EXEC_HW_ERR_HBM_UE, 1201);
	CHECK_EQ(NRT_EXEC_HW_ERR_NC_UE, 1202);
	CHECK_EQ(NRT_EXEC_HW_ERR_DMA_ABORT, 1203);
	CHECK_EQ(NRT_EXEC_SW_NQ_OVERFLOW, 1204);
	CHECK_EQ(NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE, 1205);
	CHECK_EQ(NRT_NETWORK_PROXY_FAILURE, 1206);
	/* nrt_dtype_t (current numbering) */
	CHECK_EQ(NRT_DTYPE_UNKNOWN, 0x0);
	CHECK_EQ(NRT_DTYPE_INVALID, 0x0);
	CHECK_EQ(NRT_DTYPE_UINT64, 0x1);
	CHECK_EQ(NRT_DTYPE_INT8, 0x2);
	CHECK_EQ(NRT_DTYPE_UINT8, 0x3);
	CHECK_EQ(NRT_DTYPE_INT16, 0x4);
	CHECK_EQ(NRT_DTYPE_UINT16, 0x5);
	CHECK_EQ(NRT_DTYPE_BFLOAT16, 0x6);
	CHECK_EQ(NRT_DTYPE_FLOAT16, 0x7);
	CHECK_EQ(NRT_DTYPE_INT32, 0x8);
	CHECK_EQ(NRT_DTYPE_UINT32, 0x9);
	CHECK_EQ(NRT_DTYPE_FLOAT32, 0xA);
	CHECK_EQ(NRT_DTYPE_FP32R, 0xB);
	CHECK_EQ(NRT_DTYPE_INT64, 0xC);
	CHECK_EQ(NRT_DTYPE_FP8_E3, 0xD);
	CHECK_EQ(NRT_DTYPE_FP8_E4, 0xE);
	CHECK_EQ(NRT_DTYPE_FP8_E5, 0xF);
	/* placement, framework, usage, instance */
	CHECK_EQ(NRT_TENSOR_PLACEMENT_DEVICE, 0);
	CHECK_EQ(NRT_TENSOR_PLACEMENT_HOST, 1);
	CHECK_EQ(NRT_TENSOR_PLACEMENT_VIRTUAL, 2);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_INVALID, 0);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_NO_FW, 1);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_TENSORFLOW, 2);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_PYTORCH, 3);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_MXNET, 4);
	CHECK_EQ(NRT_FRAMEWORK_TYPE_PRECHECK, 5);
	CHECK_EQ(NRT_TENSOR_USAGE_INPUT, 0);
	CHECK_EQ(NRT_TENSOR_USAGE_OUTPUT, 1);
	CHECK_EQ(NRT_INSTANCE_UNKNOWN, 0);
	CHECK_EQ(NRT_INSTANCE_INF1, 1);
	CHECK_EQ(NRT_INSTANCE_TRN1, 2);
	CHECK_EQ(NRT_INSTANCE_TRN1N, 3);
	CHECK_EQ(NRT_INSTANCE_INF2, 4);
	CHECK_EQ(NRT_INSTANCE_TRN2, 5);
	CHECK_EQ(NRT_INSTANCE_SIZE_1XL, 0);
	CHECK_EQ(NRT_INSTANCE_SIZE_3XL, 8);
	CHECK_EQ(NRT_INSTANCE_SIZE_UNKNOWN, 9);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Exported symbols of @lib (nm -D --defined-only): name@@NRT_2.0.0, exactly the list. */
static void check_symbols(const char *lib)
{
	char cmd[4096], line[512], *names[256];
	size_t n = 0, i;
	int seen_node = 0;
	FILE *p;

	snprintf(cmd, sizeof(cmd), "nm -D --defined-only '%s'", lib);
	p = popen(cmd, "r");
	if (!p) {
		printf("FAIL cannot run nm\n");
		failures++;
		return;
	}
	while (fgets(line, sizeof(line), p)) {
		char addr[64], type[8], sym[400], *at;

		if (sscanf(line, "%63s %7s %399s", addr, type, sym) != 3)
			continue;
		if (!strcmp(sym, "NRT_2.0.0") && !strcmp(type, "A")) {
			seen_node = 1;
			continue;
		}
		at = strstr(sym, "@@");
		if (!at || strcmp(at, "@@NRT_2.0.0")) {
			printf("FAIL exported symbol %s is not at version @@NRT_2.0.0\n", sym);
			failures++;
			continue;
		}
		if (strcmp(type, "T")) {
			printf("FAIL exported symbol %s is of type %s, expected a function (T)\n",
			       sym, type);
			failures++;
		}
		*at = 0;
		if (n < 256)
			names[n++] = strdup(sym);
	}
	if (pclose(p)) {
		printf("FAIL nm -D failed on %s\n", lib);
		failures++;
	}
	if (!seen_node) {
		printf("FAIL no version node NRT_2.0.0 in %s\n", lib);
		failures++;
	}
	qsort(names, n, sizeof(names[0]), cmp_str);
	for (i = 0; i < NSYMS; i++) {
		if (!bsearch(&expected_syms[i], names, n, sizeof(names[0]), cmp_str)) {
			printf("FAIL %s is not exported\n", expected_syms[i]);
			failures++;
		}
	}
	for (i = 0; i < n; i++) {
		size_t j;
		int ok = 0;

		for (j = 0; j < NSYMS; j++)
			ok |= !strcmp(names[i], expected_syms[j]);
		if (!ok) {
			printf("FAIL %s is exported but not expected\n", names[i]);
			failures++;
		}
		free(names[i]);
	}
	printf("symbols: %zu exported, %zu expected\n", n, (size_t)NSYMS);
}

int main(int argc, char **argv)
{
	check_prototypes();
	check_layouts();
	check_values();
	if (argc > 1)
		check_symbols(argv[1]);
	else
		printf("no library given: symbols not checked\n");
	printf("abi-test: %s (%d failure%s)\n", failures ? "FAIL" : "ok", failures,
	       failures == 1 ? "" : "s");
	return failures ? 1 : 0;
}
