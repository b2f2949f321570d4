// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests' library: the driver's calls the tests share, over
 * libneuron (neuron_lib.h).
 */
#include <errno.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>

#include "neuron_lib.h"

int neuron_ioctl(int fd, unsigned long nr, void *arg)
{
	return ioctl(fd, nr, arg) ? -errno : 0;
}

/* ---- QUERY ---- */

void neuron_query_prep(struct neuron_query *q, __u32 op, void *data, __u32 size)
{
	memset(q, 0, sizeof(*q));
	q->op = op;
	q->data = (__u64)(uintptr_t)data;
	q->size = size;
}

int neuron_query_into(int fd, __u32 op, void *buf, __u32 len, __u32 *size)
{
	memset(buf, 0, len);
	return nio_query(fd, op, buf, len, size);
}

int neuron_query_info(int fd, struct neuron_device_info *info, __u32 *size)
{
	return neuron_query_into(fd, NEURON_QUERY_DEVICE, info, sizeof(*info), size);
}

bool neuron_str_ok(const char *s, size_t len)
{
	return !!memchr(s, '\0', len);
}

int neuron_query_mem_usage(int fd, struct neuron_mem_usage_buf *b, __u32 *size)
{
	return neuron_query_into(fd, NEURON_QUERY_MEM_USAGE, b, sizeof(*b), size);
}

int neuron_query_nc_states(int fd, struct neuron_nc_states_buf *b, __u32 *size)
{
	return neuron_query_into(fd, NEURON_QUERY_NC_STATE, b, sizeof(*b), size);
}

int neuron_nc_state(int fd, __u32 nc, struct neuron_nc_state *st)
{
	struct neuron_nc_states_buf b;
	int err = neuron_query_nc_states(fd, &b, NULL);

	if (err)
		return err;
	if (nc >= b.h.nc_count || nc >= NEURON_TEST_MAX_NC)
		return -ERANGE;
	*st = b.nc[nc];
	return 0;
}

/* ---- memory, COPY, WAIT ---- */

void neuron_mem_alloc_prep(struct neuron_mem_alloc *a, __u32 kind, __u64 size, __u32 nc)
{
	memset(a, 0, sizeof(*a));
	a->kind = kind;
	a->size = size;
	a->nc = nc;
	a->channel = kind == NEURON_MEM_DEVICE ? NEURON_MEM_CHANNEL_ANY : 0;
}

int neuron_mem_alloc_req(int fd, struct neuron_mem_alloc *a)
{
	return nio_mem_alloc_req(fd, a);
}

int neuron_mem_alloc(int fd, __u32 kind, __u64 size, __u32 nc, struct neuron_mem_alloc *a)
{
	neuron_mem_alloc_prep(a, kind, size, nc);
	return neuron_mem_alloc_req(fd, a);
}

int neuron_alloc(int fd, __u32 kind, __u64 size, __u32 nc, __u32 *h, __u64 *off)
{
	struct neuron_mem_alloc a;
	int err = neuron_mem_alloc(fd, kind, size, nc, &a);

	if (h)
		*h = a.handle;
	if (off)
		*off = a.mmap_offset;
	return err;
}

int neuron_mem_free(int fd, __u32 handle)
{
	return nio_mem_free(fd, handle);
}

int neuron_copy_op(int fd, __u32 src, __u64 soff, __u32 dst, __u64 doff,
		   const void *sptr, void *dptr, __u64 size, __u32 flags,
		   __u64 *seqno)
{
	return nio_copy(fd, src, soff, dst, doff, sptr, dptr, size, flags, seqno);
}

__s64 neuron_now_ns(void)
{
	return nio_now_ns();
}

int neuron_wait_seq(int fd, __u64 seqno, __s64 deadline)
{
	return nio_wait(fd, seqno, deadline);
}

/* ---- NeuronCores ---- */

int neuron_reserve(int fd, __u64 mask)
{
	return nio_nc_reserve(fd, mask);
}

int neuron_release(int fd, __u64 mask)
{
	return nio_nc_release(fd, mask);
}

int neuron_sem(int fd, __u32 nc, __u32 kind, __u32 index, __u32 op,
	       __u32 value, __s64 deadline, __u32 *out)
{
	struct neuron_nc_sem s = {
		.nc = nc, .kind = kind, .index = index, .op = op,
		.value = value, .timeout_ns = deadline,
	};
	int ret = nio_nc_sem_req(fd, &s);

	if (out)
		*out = s.value;
	return ret;
}

/* ---- notification queues ---- */

int neuron_notify_setup(int fd, __u32 nc, __u32 type, __u32 entries,
			__u64 *mmap_size, __u64 *mmap_offset)
{
	struct neuron_notify_setup s = {
		.nc = nc, .type = type, .entries = entries, .eventfd = -1,
	};
	int err = nio_notify_setup_req(fd, &s);

	if (!err && mmap_size)
		*mmap_size = s.mmap_size;
	if (!err && mmap_offset)
		*mmap_offset = s.mmap_offset;
	return err;
}

int neuron_notify_teardown(int fd, __u32 nc, __u32 type)
{
	return nio_notify_teardown(fd, nc, type);
}

void neuron_ring_unmap(struct nio_notify_queue *r)
{
	if (r->map)
		munmap(r->map, r->map_size);
	r->map = NULL;
}

__u32 neuron_ring_head(const struct nio_notify_queue *r)
{
	return __atomic_load_n(&r->hdr->head, __ATOMIC_ACQUIRE);
}

const struct neuron_notify_entry *neuron_ring_entry(const struct nio_notify_queue *r, __u32 i)
{
	return &r->ent[i & (r->entries - 1)];
}

/* ---- models, execution ---- */

/* The model of neuron_mm_model_load(), in the assembler's text syntax. */
static const char mm_source[] =
	"# out = in * w, w = 2 * identity (filled in below)\n"
	"arch v2		# what a container records; MODEL_LOAD reads no arch\n"
	"tensor input in float32 8x8\n"
	"tensor output out float32 8x8\n"
	"data w float32 8x8 zeros\n"
	"scratch 4096\n"
	"engine pe\n"
	"	matmul m=8 k=8 n=8 dst=out:out a=in:in b=data:w\n"
	"	end\n";

int neuron_mm_model_load(int fd, __u32 nc, __u32 *handle)
{
	struct neuron_model_load l;
	struct nasm *a = nasm_new();
	float *w;
	unsigned int i;
	int err;

	*handle = 0;
	if (!a)
		return -ENOMEM;
	if (nasm_parse_text(a, "neuron_mm_model", mm_source)) {
		nasm_delete(a);
		return -EINVAL;
	}
	w = nasm_data_ptr(a, "w");
	for (i = 0; i < NEURON_TEST_MM; i++)
		w[i * NEURON_TEST_MM + i] = 2;
	err = nasm_load(fd, nc, a, &l);
	*handle = l.handle;
	nasm_delete(a);
	return err;
}

int neuron_model_load_block(int fd, __u32 nc, __u32 engine,
			    const struct neuron_tpb_insn *insns, __u32 count,
			    const void *data, __u64 data_size, __u64 scratch,
			    __u32 *handle)
{
	struct neuron_model_block b = { .insns = (uintptr_t)insns, .count = count,
					.engine = engine };
	struct neuron_model_load l = {
		.nc = nc, .blocks = (uintptr_t)&b, .nblocks = 1,
		.data = (uintptr_t)data, .data_size = data_size,
		.scratch_size = scratch,
	};
	int err = nio_model_load(fd, &l);

	*handle = l.handle;
	return err;
}

int neuron_model_unload(int fd, __u32 handle)
{
	return nio_model_unload(fd, handle);
}

int neuron_execute(int fd, __u32 model, __u32 flags, __u32 timeout_ms,
		   const __u32 *bind, __u32 nbind, __u64 *seq, __u32 *status)
{
	struct neuron_execute x = { .model = model, .flags = flags,
				    .timeout_ms = timeout_ms,
				    .bindings = (uintptr_t)bind, .nbindings = nbind };
	int err = nio_execute_req(fd, &x);

	if (seq)
		*seq = x.seqno;
	if (status)
		*status = x.status;
	return err;
}
