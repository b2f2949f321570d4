// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: MODEL_LOAD and MODEL_UNLOAD. A model is checked whole before
 * anything is allocated: the argument, the slots, and every instruction of
 * every block against docs/sim-isa.md (neuron_tpb_check_block()), on a
 * copy in kernel memory, which is then what goes to the device: userspace
 * cannot change an instruction after it was checked. The blocks and the
 * data then go into one device memory object of the model through the
 * NC's DMA queue (a host staging object of at most
 * NEURON_MODEL_STAGE_BYTES at a time), and the scratch stays as the
 * device memory comes: zeroed. A model that does not fit fails with
 * -ENOMEM and leaves nothing behind.
 *
 * Models are handles of the file in nf->models (their own numbering).
 * The handle holds a reference; each execution queued or running holds
 * one, so an unloaded model's memory goes after its last execution.
 */
#include <linux/highmem.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_mem.h"
#include "neuron_ioctl.h"
#include "neuron_copy.h"
#include "neuron_exec.h"
#include "ndhal/ndhal.h"

/* The most host memory a load stages at a time. */
#define NEURON_MODEL_STAGE_BYTES	SZ_1M

/* Opcodes and the engines that have them. */
#define NEURON_ENG_ALL	(BIT(NEURON_ENGINES) - 1)

static u32 neuron_tpb_engines(u8 opcode)
{
	switch (opcode) {
	case NEURON_TPB_END:
	case NEURON_TPB_JUMP:
	case NEURON_TPB_COPY:
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
	case NEURON_TPB_NOTIFY:
		return NEURON_ENG_ALL;
	case NEURON_TPB_MATMUL:
		return BIT(NEURON_ENGINE_PE);
	case NEURON_TPB_ACT:
		return BIT(NEURON_ENGINE_ACT);
	case NEURON_TPB_POOL:
		return BIT(NEURON_ENGINE_POOL);
	case NEURON_TPB_TT:
	case NEURON_TPB_TS:
		return BIT(NEURON_ENGINE_DVE);
	}
	return 0;
}

static bool neuron_tpb_ref_zero(const struct neuron_tpb_ref *r)
{
	return !r->region && !r->offset;
}

/* Operand @r of @elems elements inside its region (writable if @write)? */
static bool neuron_tpb_ref_ok(const struct neuron_tpb_ref *r, u64 elems,
			      bool write, const struct neuron_tpb_limits *lim)
{
	u64 size;

	if (r->region >= lim->nregions || r->offset % 4)
		return false;
	size = lim->region_size[r->region];
	if (!size || (write && lim->region_ro[r->region]))
		return false;
	return r->offset <= size && elems * 4 <= size - r->offset;
}

static bool neuron_tpb_dim_ok(u32 d)
{
	return d >= 1 && d <= NEURON_TPB_MAX_DIM;
}

/* One instruction at @i of a block of @count on @engine: valid? */
static bool neuron_tpb_insn_ok(const struct neuron_tpb_insn *in, u32 i,
			       u32 count, u32 engine,
			       const struct neuron_tpb_limits *lim)
{
	u64 m = in->m, k = in->k, n = in->n;
	u32 op;

	if (!(neuron_tpb_engines(in->opcode) & BIT(engine)) || in->flags ||
	    in->dtype > NEURON_DT_INT32)
		return false;

	switch (in->opcode) {
	case NEURON_TPB_END:
	case NEURON_TPB_JUMP:
	case NEURON_TPB_NOTIFY:
	case NEURON_TPB_SEM_SIGNAL:
	case NEURON_TPB_SEM_WAIT:
	case NEURON_TPB_EVENT_SET:
	case NEURON_TPB_EVENT_WAIT:
		/* No data: only imm (and index) may be set. */
		if (in->dtype || in->func || in->m || in->k || in->n ||
		    !neuron_tpb_ref_zero(&in->dst) || !neuron_tpb_ref_zero(&in->a) ||
		    !neuron_tpb_ref_zero(&in->b))
			return false;
		switch (in->opcode) {
		case NEURON_TPB_END:
			return !in->imm && !in->index;
		case NEURON_TPB_JUMP:
			return in->imm < count && !in->index;
		case NEURON_TPB_NOTIFY:
			return !in->index;
		case NEURON_TPB_SEM_SIGNAL:
		case NEURON_TPB_SEM_WAIT:
			return in->index < lim->sems && in->imm >= 1;
		default:
			return in->index < lim->events && in->imm <= 1;
		}
	case NEURON_TPB_COPY:
		return !in->func && !in->imm && !in->m && !in->k && !in->index &&
		       n >= 1 && n <= NEURON_TPB_MAX_ELEMS &&
		       neuron_tpb_ref_zero(&in->b) &&
		       neuron_tpb_ref_ok(&in->dst, n, true, lim) &&
		       neuron_tpb_ref_ok(&in->a, n, false, lim);
	case NEURON_TPB_MATMUL:
		return (in->func & ~NEURON_TPB_ACCUMULATE) == 0 && !in->imm &&
		       !in->index && neuron_tpb_dim_ok(in->m) &&
		       neuron_tpb_dim_ok(in->k) && neuron_tpb_dim_ok(in->n) &&
		       m * k <= NEURON_TPB_MAX_ELEMS && k * n <= NEURON_TPB_MAX_ELEMS &&
		       m * n <= NEURON_TPB_MAX_ELEMS &&
		       neuron_tpb_ref_ok(&in->dst, m * n, true, lim) &&
		       neuron_tpb_ref_ok(&in->a, m * k, false, lim) &&
		       neuron_tpb_ref_ok(&in->b, k * n, false, lim);
	case NEURON_TPB_ACT:
		if (in->func > NEURON_ACT_TANH ||
		    (in->func >= NEURON_ACT_SIGMOID && in->dtype != NEURON_DT_FP32))
			return false;
		return !in->imm && !in->m && !in->k && !in->index &&
		       n >= 1 && n <= NEURON_TPB_MAX_ELEMS &&
		       neuron_tpb_ref_zero(&in->b) &&
		       neuron_tpb_ref_ok(&in->dst, n, true, lim) &&
		       neuron_tpb_ref_ok(&in->a, n, false, lim);
	case NEURON_TPB_POOL:
		return in->func <= NEURON_POOL_AVG && !in->imm && !in->index &&
		       neuron_tpb_dim_ok(in->m) && neuron_tpb_dim_ok(in->k) &&
		       neuron_tpb_dim_ok(in->n) && m * n * k <= NEURON_TPB_MAX_ELEMS &&
		       neuron_tpb_ref_zero(&in->b) &&
		       neuron_tpb_ref_ok(&in->dst, m * n, true, lim) &&
		       neuron_tpb_ref_ok(&in->a, m * n * k, false, lim);
	case NEURON_TPB_TT:
	case NEURON_TPB_TS:
		op = in->func & ~NEURON_TPB_BCAST;
		if (op > NEURON_ALU_DIV || in->k || in->index ||
		    !neuron_tpb_dim_ok(in->m) || !neuron_tpb_dim_ok(in->n) ||
		    m * n > NEURON_TPB_MAX_ELEMS ||
		    !neuron_tpb_ref_ok(&in->dst, m * n, true, lim) ||
		    !neuron_tpb_ref_ok(&in->a, m * n, false, lim))
			return false;
		if (in->opcode == NEURON_TPB_TS)
			return !(in->func & NEURON_TPB_BCAST) &&
			       neuron_tpb_ref_zero(&in->b);
		return !in->imm &&
		       neuron_tpb_ref_ok(&in->b, in->func & NEURON_TPB_BCAST ? n : m * n,
					 false, lim);
	}
	return false;
}

/**
 * neuron_tpb_check_block() - validate one engine's block
 * @insns: the instructions, in kernel memory.
 * @count: how many, at least 1.
 * @engine: NEURON_ENGINE_* of the block.
 * @lim: the model's regions and the arch's counts.
 * @bad: set to the index of the first instruction refused (@count when
 *	the block runs off its end).
 *
 * Return: 0 or -ENOEXEC.
 */
VISIBLE_IF_KUNIT int neuron_tpb_check_block(const struct neuron_tpb_insn *insns,
					    u32 count, u32 engine,
					    const struct neuron_tpb_limits *lim,
					    u32 *bad)
{
	u32 i;

	for (i = 0; i < count; i++) {
		if (!neuron_tpb_insn_ok(&insns[i], i, count, engine, lim)) {
			*bad = i;
			return -ENOEXEC;
		}
	}
	if (insns[count - 1].opcode != NEURON_TPB_END &&
	    insns[count - 1].opcode != NEURON_TPB_JUMP) {
		*bad = count;
		return -ENOEXEC;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_tpb_check_block);

/**
 * neuron_model_slot_check() - validate one I/O slot of a MODEL_LOAD
 * @s: the slot, in kernel memory.
 *
 * The shape's element count is computed with overflow checks: a product
 * that wraps (2^64 + 4 elements) never passes for a small size.
 * Return: 0 or -EINVAL.
 */
VISIBLE_IF_KUNIT int neuron_model_slot_check(const struct neuron_model_slot *s)
{
	u64 elems = 1, bytes;
	u32 i;

	if (s->size < 4 || s->size % 4 || s->size > NEURON_MEM_MAX_SIZE ||
	    s->kind > NEURON_SLOT_OUTPUT || s->dtype > NEURON_DT_INT32 ||
	    s->ndim > NEURON_MAX_DIMS)
		return -EINVAL;
	for (i = 0; i < NEURON_MAX_DIMS; i++) {
		if (i >= s->ndim) {
			if (s->shape[i])
				return -EINVAL;
			continue;
		}
		if (!s->shape[i] || check_mul_overflow(elems, (u64)s->shape[i], &elems))
			return -EINVAL;
	}
	if (s->ndim && (check_mul_overflow(elems, (u64)4, &bytes) || bytes != s->size))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_model_slot_check);

/* The parts of a model being loaded, in kernel memory. */
struct neuron_model_src {
	struct neuron_model_block blocks[NEURON_ENGINES];
	struct neuron_tpb_insn *insns[NEURON_ENGINES];
};

static void neuron_model_src_free(struct neuron_model_src *src)
{
	u32 i;

	for (i = 0; i < NEURON_ENGINES; i++)
		kvfree(src->insns[i]);
}

/* Check the argument, copy and check the slots and blocks into @model/@src. */
static int neuron_model_read(struct neuron_file *nf, struct neuron_model_load *l,
			     struct neuron_model *model,
			     struct neuron_model_src *src)
{
	const struct ndhal_arch *arch = nf->nd->hal->arch;
	struct neuron_tpb_limits *lim;
	u32 engines = 0, i;
	int ret;

	if (copy_from_user(src->blocks, u64_to_user_ptr(l->blocks),
			   l->nblocks * sizeof(src->blocks[0])))
		return -EFAULT;
	for (i = 0; i < l->nblocks; i++) {
		if (src->blocks[i].engine >= NEURON_ENGINES || !src->blocks[i].count ||
		    (engines & BIT(src->blocks[i].engine)))
			return -EINVAL;
		if (src->blocks[i].count > NEURON_TPB_MAX_INSNS)
			return -E2BIG;
		engines |= BIT(src->blocks[i].engine);
	}
	if (copy_from_user(model->slots, u64_to_user_ptr(l->slots),
			   l->nslots * sizeof(model->slots[0])))
		return -EFAULT;
	for (i = 0; i < l->nslots; i++) {
		ret = neuron_model_slot_check(&model->slots[i]);
		if (ret)
			return ret;
	}

	lim = kzalloc(sizeof(*lim), GFP_KERNEL);
	if (!lim)
		return -ENOMEM;
	lim->nregions = 2 + l->nslots;
	lim->region_size[NEURON_REGION_DATA] = l->data_size;
	lim->region_ro[NEURON_REGION_DATA] = true;
	lim->region_size[NEURON_REGION_SCRATCH] = l->scratch_size;
	for (i = 0; i < l->nslots; i++) {
		lim->region_size[NEURON_REGION_SLOT(i)] = model->slots[i].size;
		lim->region_ro[NEURON_REGION_SLOT(i)] =
			model->slots[i].kind == NEURON_SLOT_INPUT;
	}
	lim->sems = arch->semaphores_per_nc;
	lim->events = arch->events_per_nc;

	ret = 0;
	for (i = 0; i < l->nblocks && !ret; i++) {
		const struct neuron_model_block *b = &src->blocks[i];
		struct neuron_tpb_insn *insns;

		insns = kvmalloc_array(b->count, sizeof(*insns),
				       GFP_KERNEL_ACCOUNT | __GFP_RETRY_MAYFAIL);
		if (!insns) {
			ret = -ENOMEM;
			break;
		}
		src->insns[i] = insns;
		if (copy_from_user(insns, u64_to_user_ptr(b->insns),
				   (size_t)b->count * sizeof(*insns))) {
			ret = -EFAULT;
			break;
		}
		ret = neuron_tpb_check_block(insns, b->count, b->engine, lim,
					     &l->err_insn);
		if (ret)
			l->err_block = i;
	}
	kfree(lim);
	return ret;
}

/*
 * Copy @len bytes (at most the size of staging @st) to the start of @st from
 * kernel memory *@kbuf, or from user memory *@ubuf when *@kbuf is NULL, and
 * move that pointer past them.
 */
static int neuron_stage_fill(struct neuron_mem *st, const void **kbuf,
			     const void __user **ubuf, u64 len)
{
	u64 off;

	for (off = 0; off < len; off += PAGE_SIZE) {
		u32 n = min_t(u64, len - off, PAGE_SIZE);
		void *va = kmap_local_page(st->pages[off >> PAGE_SHIFT]);
		int ret = 0;

		if (*kbuf)
			memcpy(va, *kbuf + off, n);
		else if (copy_from_user(va, *ubuf + off, n))
			ret = -EFAULT;
		kunmap_local(va);
		if (ret)
			return ret;
	}
	if (*kbuf)
		*kbuf += len;
	else
		*ubuf += len;
	return 0;
}

/*
 * Move @len bytes from @kbuf (or @ubuf) to @off of the model's memory
 * through the staging object @st, a piece at a time.
 */
static int neuron_model_write(struct neuron_model *model, struct neuron_mem *st,
			      u64 off, const void *kbuf, const void __user *ubuf,
			      u64 len)
{
	while (len) {
		u64 n = min_t(u64, len, st->size);
		int ret;

		ret = neuron_stage_fill(st, &kbuf, &ubuf, n);
		if (!ret)
			ret = neuron_copy_mem(st, 0, model->mem, off, n);
		if (ret)
			return ret;
		off += n;
		len -= n;
	}
	return 0;
}

/* Allocate the model's memory and fill it; outside the removal guard. */
static int neuron_model_place(struct neuron_file *nf, struct neuron_model_load *l,
			      struct neuron_model *model,
			      struct neuron_model_src *src)
{
	struct neuron_device *nd = nf->nd;
	struct neuron_mem *st = NULL;
	u64 off = 0, total;
	int idx, ret = 0;
	u32 i;

	for (i = 0; i < l->nblocks; i++) {
		u32 e = src->blocks[i].engine;

		model->block_off[e] = off;
		model->block_count[e] = src->blocks[i].count;
		off += PAGE_ALIGN((u64)src->blocks[i].count * sizeof(struct neuron_tpb_insn));
	}
	/* Each part is at most NEURON_MEM_MAX_SIZE (checked): no wrap, still checked. */
	model->data_off = off;
	model->data_size = l->data_size;
	if (check_add_overflow(off, (u64)PAGE_ALIGN(l->data_size), &off))
		return -ENOMEM;
	model->scratch_off = off;
	model->scratch_size = l->scratch_size;
	if (check_add_overflow(off, (u64)PAGE_ALIGN(l->scratch_size), &total) ||
	    total > NEURON_MEM_MAX_SIZE)
		return -ENOMEM;

	if (!neuron_dev_enter(nd, &idx))
		return -ENODEV;
	/* Charged to the file until freed, after the last execution too. */
	model->mem = neuron_mem_new(nd, nf, NEURON_MEM_DEVICE,
				    NEURON_MEM_USAGE_MODEL_CODE, l->nc,
				    NEURON_MEM_CHANNEL_ANY, 0, total);
	if (IS_ERR(model->mem)) {
		ret = PTR_ERR(model->mem);
		model->mem = NULL;
	} else {
		st = neuron_mem_new(nd, NULL, NEURON_MEM_HOST,
				    NEURON_MEM_USAGE_UNCATEGORIZED, l->nc, 0, 0,
				    min_t(u64, model->scratch_off,
					  NEURON_MODEL_STAGE_BYTES));
		if (IS_ERR(st)) {
			ret = PTR_ERR(st);
			st = NULL;
		}
	}
	neuron_dev_exit(nd, idx);
	if (ret)
		goto err;

	for (i = 0; i < l->nblocks && !ret; i++) {
		const struct neuron_model_block *b = &src->blocks[i];

		ret = neuron_model_write(model, st, model->block_off[b->engine],
					 src->insns[i], NULL,
					 (u64)b->count * sizeof(struct neuron_tpb_insn));
	}
	if (!ret && l->data_size)
		ret = neuron_model_write(model, st, model->data_off,
					 NULL, u64_to_user_ptr(l->data), l->data_size);
	neuron_mem_put(st);
	return ret;	/* on error the caller puts the model and its memory */

err:
	if (model->mem)
		neuron_mem_put(model->mem);
	model->mem = NULL;
	return ret;
}

static void neuron_model_release(struct kref *ref)
{
	struct neuron_model *model = container_of(ref, struct neuron_model, ref);

	if (model->mem)
		neuron_mem_put(model->mem);
	kfree(model);
}

void neuron_model_put(struct neuron_model *model)
{
	kref_put(&model->ref, neuron_model_release);
}

/*
 * The handle of @model in @nf goes (its memory stays charged to the file
 * until the last execution using it is gone).
 */
static void neuron_model_unhandle(struct neuron_file *nf, struct neuron_model *model)
{
	if (model->counted) {
		atomic_dec(&model->nd->nc[model->nc].models);
		neuron_file_handle_put(nf);
	}
	neuron_model_put(model);
}

int neuron_ioctl_model_load(struct neuron_file *nf, void *arg)
{
	struct neuron_model_load *l = arg;
	struct neuron_device *nd = nf->nd;
	struct neuron_model_src src = {};
	struct neuron_model *model;
	u32 handle;
	int ret;

	l->handle = 0;
	l->err_block = ~0U;
	l->err_insn = ~0U;
	if (!(nd->hal->caps & NEURON_CAP_EXEC))
		return -EOPNOTSUPP;
	if (l->flags || l->pad || l->nc >= nd->hal->arch->nc_count ||
	    !l->nblocks || l->nblocks > NEURON_ENGINES ||
	    l->nslots > NEURON_MAX_SLOTS || !l->data != !l->data_size ||
	    l->data_size > NEURON_MEM_MAX_SIZE ||
	    l->scratch_size > NEURON_MEM_MAX_SIZE)
		return -EINVAL;
	/*
	 * The NC is the file's from here until the handle exists: the
	 * model is placed on, charged to and copied through the NC of its
	 * owner only (a release on another thread waits for the load).
	 */
	ret = neuron_nc_enter(nf, BIT_ULL(l->nc), BIT_ULL(l->nc));
	if (ret)
		return ret;
	ret = -ENOMEM;
	model = kzalloc(struct_size(model, slots, l->nslots), GFP_KERNEL_ACCOUNT);
	if (!model)
		goto out;
	kref_init(&model->ref);
	model->nd = nd;
	model->nc = array_index_nospec(l->nc, nd->hal->arch->nc_count);
	model->nslots = l->nslots;

	ret = neuron_model_read(nf, l, model, &src);
	if (ret)
		goto err_model;
	ret = neuron_file_handle_get(nf);
	if (ret)
		goto err_model;
	/* Counted before the handle is seen (an UNLOAD may come at once). */
	model->counted = true;
	atomic_inc(&nd->nc[model->nc].models);
	ret = neuron_model_place(nf, l, model, &src);
	if (ret)
		goto err_model;
	ret = xa_alloc(&nf->models, &handle, model, XA_LIMIT(1, U32_MAX),
		       GFP_KERNEL_ACCOUNT);
	if (ret) {
		if (ret == -EBUSY)
			ret = -ENOSPC;
		goto err_model;
	}
	l->handle = handle;
	atomic64_inc(&nd->nc[model->nc].model_loads);
	goto out;

err_model:
	neuron_model_unhandle(nf, model);
out:
	neuron_model_src_free(&src);
	neuron_nc_exit(nf, BIT_ULL(l->nc));
	return ret;
}

int neuron_ioctl_model_unload(struct neuron_file *nf, void *arg)
{
	struct neuron_model_unload *u = arg;
	struct neuron_model *model;

	if (u->flags)
		return -EINVAL;
	if (!u->handle)
		return -ENOENT;
	model = xa_erase(&nf->models, u->handle);
	if (!model)
		return -ENOENT;
	neuron_model_unhandle(nf, model);
	return 0;
}

/* A reference on the model behind one of the file's handles, or NULL. */
struct neuron_model *neuron_model_lookup(struct neuron_file *nf, u32 handle)
{
	struct neuron_model *model;

	xa_lock(&nf->models);
	model = handle ? xa_load(&nf->models, handle) : NULL;
	if (model)
		kref_get(&model->ref);
	xa_unlock(&nf->models);
	return model;
}

/* The file is gone: unload its models (executions keep what they use). */
void neuron_file_model_release(struct neuron_file *nf)
{
	struct neuron_model *model;
	unsigned long handle;

	xa_for_each(&nf->models, handle, model)
		neuron_model_unhandle(nf, model);
	xa_destroy(&nf->models);
}
