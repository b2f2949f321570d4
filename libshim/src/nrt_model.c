// SPDX-License-Identifier: GPL-2.0
/*
 * libnrt.so.1: models (MODEL_LOAD / MODEL_UNLOAD), execution (EXECUTE
 * with NEURON_EXEC_WAIT) and model tensor introspection.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nrt_internal.h"

static nrt_dtype_t dtype_of(uint32_t dt)
{
	switch (dt) {
	case NEURON_DT_FP32:
		return NRT_DTYPE_FLOAT32;
	case NEURON_DT_INT32:
		return NRT_DTYPE_INT32;
	}
	return NRT_DTYPE_UNKNOWN;
}

NRT_EXPORT NRT_STATUS nrt_load(const void *neff_bytes, size_t size, int32_t start_vnc,
			       int32_t vnc_count, nrt_model_t **model)
{
	static const char fn[] = "nrt_load";
	struct neuron_model_block blocks[NEURON_ENGINES];
	struct neuron_model_slot *slots = NULL;
	struct neuron_model_load ml;
	struct nrtc_model *cm = NULL;
	struct nrt_model *m = NULL;
	struct nrt_dev *dv;
	char err[256], obj[48];
	uint32_t core, nc, i;
	int vnc, r;
	NRT_STATUS s;

	if (!neff_bytes || !size || !model) {
		nrt_log(fn, "check arguments", NULL, "NULL or empty model, or NULL result pointer");
		return NRT_INVALID;
	}
	if (start_vnc < -1 || vnc_count == 0 || vnc_count < -1) {
		nrt_log(fn, "check arguments", NULL,
			"start_vnc %d, vnc_count %d: expected -1 or a core index, and -1 or a count",
			start_vnc, vnc_count);
		return NRT_INVALID;
	}
	s = nrt_enter(fn);
	if (s)
		return s;
	vnc = start_vnc < 0 ? 0 : start_vnc;
	snprintf(obj, sizeof(obj), "vnc %d", vnc);
	if (vnc_count > 1) {
		uint32_t vis = nrt_rt.fixed ? nrt_rt.nvnc : nrt_rt.total_cores;

		if ((uint64_t)vnc + (uint64_t)vnc_count > vis) {
			nrt_log(fn, "place model", obj,
				"%d NeuronCores asked from vnc %d, %u visible",
				vnc_count, vnc, vis);
			s = NRT_LOAD_NOT_ENOUGH_NC;
			goto out;
		}
	}

	r = nrtc_parse(neff_bytes, size, &cm, err, sizeof(err));
	if (r != NRTC_OK) {
		nrt_log(fn, "read model container", NULL, "%s",
			err[0] ? err :
			(r == NRTC_ENOMEM ? "out of host memory" : "not a model container"));
		cm = NULL;
		s = r == NRTC_EVERSION ? NRT_UNSUPPORTED_NEFF_VERSION :
		    r == NRTC_ENOMEM ? NRT_FAIL_HOST_MEM_ALLOC : NRT_INVALID;
		goto out;
	}
	if (cm->nc_count > 1) {
		nrt_log(fn, "place model", obj,
			"the model needs %u NeuronCores; models here run on one",
			cm->nc_count);
		s = NRT_LOAD_NOT_ENOUGH_NC;
		goto out;
	}

	s = nrt_vnc_core(fn, "reserve core", vnc, &core, NRT_LOAD_NOT_ENOUGH_NC);
	if (s)
		goto out;
	dv = nrt_core_dev(core, &nc);
	snprintf(obj, sizeof(obj), "nc %u", core);

	m = calloc(1, sizeof(*m));
	slots = calloc(cm->ntensors ? cm->ntensors : 1, sizeof(*slots));
	if (m && slots && cm->ntensors)
		m->tensors = calloc(cm->ntensors, sizeof(*m->tensors));
	if (!m || !slots || (cm->ntensors && !m->tensors)) {
		nrt_log(fn, "load", obj, "out of host memory");
		s = NRT_FAIL_HOST_MEM_ALLOC;
		goto out;
	}
	for (i = 0; i < cm->ntensors; i++) {
		const struct nrtc_tensor *t = &cm->tensors[i];
		uint32_t d;

		m->tensors[i] = *t;
		m->tensors[i].name[NRTC_NAME_MAX - 1] = 0;
		slots[i].size = t->size;
		slots[i].kind = t->usage ? NEURON_SLOT_OUTPUT : NEURON_SLOT_INPUT;
		slots[i].dtype = t->dtype;
		slots[i].ndim = t->ndim;
		for (d = 0; d < t->ndim && d < NEURON_MAX_DIMS; d++)
			slots[i].shape[d] = t->shape[d];
		slots[i].name = i;
	}
	m->ntensors = cm->ntensors;
	memset(blocks, 0, sizeof(blocks));
	for (i = 0; i < cm->nblocks && i < NEURON_ENGINES; i++) {
		blocks[i].insns = (uintptr_t)cm->blocks[i].insns;
		blocks[i].count = cm->blocks[i].count;
		blocks[i].engine = cm->blocks[i].engine;
	}
	memset(&ml, 0, sizeof(ml));
	ml.nc = nc;
	ml.blocks = (uintptr_t)blocks;
	ml.slots = (uintptr_t)slots;
	ml.data = (uintptr_t)cm->data;
	ml.data_size = cm->data ? cm->data_size : 0;
	ml.scratch_size = cm->scratch_size;
	ml.nblocks = cm->nblocks;
	ml.nslots = cm->ntensors;
	if (nio_model_load(dv->fd, &ml) < 0) {
		int e = errno;

		if (e == ENOEXEC) {
			uint32_t eng = ml.err_block < cm->nblocks ?
				       cm->blocks[ml.err_block].engine : ~0u;

			nrt_log(fn, "load program", obj,
				"the driver refused block %u (engine %u), instruction %u",
				ml.err_block, eng, ml.err_insn);
			s = NRT_INVALID;
		} else if (e == ENOMEM || e == ENOSPC) {
			nrt_log(fn, "load", obj, "%s",
				e == ENOMEM ? "the model does not fit in the core's device memory"
					    : "the per-file memory or handle limit is reached");
			s = NRT_RESOURCE;
		} else {
			nrt_log(fn, "load", obj, "%s", strerror(e));
			s = nrt_errno_status(e);
		}
		goto out;
	}
	m->gen = nrt_rt.gen;
	m->dev = (uint32_t)(dv - nrt_rt.devs);
	m->core = core;
	m->vnc = vnc;
	m->handle = ml.handle;
	*model = m;
	m = NULL;
out:
	nrt_leave();
	nrtc_free(cm);
	free(slots);
	if (m) {
		free(m->tensors);
		free(m);
	}
	return s;
}

NRT_EXPORT NRT_STATUS nrt_unload(nrt_model_t *model)
{
	static const char fn[] = "nrt_unload";
	NRT_STATUS s;
	char obj[32];

	if (!model) {
		nrt_log(fn, "check arguments", NULL, "NULL model");
		return NRT_INVALID_HANDLE;
	}
	s = nrt_enter(fn);
	if (s == NRT_SUCCESS) {
		if (model->gen == nrt_rt.gen) {
			if (nio_model_unload(nrt_rt.devs[model->dev].fd, model->handle) < 0) {
				snprintf(obj, sizeof(obj), "nc %u", model->core);
				nrt_log(fn, "unload", obj, "%s", strerror(errno));
				s = nrt_errno_status(errno);
			}
		}	/* else unloaded by nrt_close() already */
		nrt_leave();
	}
	/* the host side goes in any case */
	free(model->tensors);
	free(model);
	return s;
}

NRT_EXPORT NRT_STATUS nrt_get_model_nc_count(const nrt_model_t *model, uint32_t *vnc_count)
{
	if (!model || !vnc_count) {
		nrt_log("nrt_get_model_nc_count", "check arguments", NULL,
			"NULL model or count pointer");
		return model ? NRT_INVALID : NRT_INVALID_HANDLE;
	}
	*vnc_count = 1;
	return NRT_SUCCESS;
}

static NRT_STATUS exec_status(const char *fn, const char *obj, uint32_t st)
{
	switch (st) {
	case NEURON_EXEC_OK:
		return NRT_SUCCESS;
	case NEURON_EXEC_BAD_INPUT:
		nrt_log(fn, "execute", obj, "the input made an instruction fault");
		return NRT_EXEC_BAD_INPUT;
	case NEURON_EXEC_DEVICE_ERROR:
		nrt_log(fn, "execute", obj, "the NeuronCore reported an error");
		return NRT_EXEC_HW_ERR_NC_UE;
	case NEURON_EXEC_TIMEOUT:
		nrt_log(fn, "execute", obj,
			"the execution overran its timeout; the core was reset");
		return NRT_TIMEOUT;
	case NEURON_EXEC_CANCELLED:
		nrt_log(fn, "execute", obj, "cancelled: queued behind an execution that was reset");
		return NRT_FAILURE;
	}
	nrt_log(fn, "execute", obj, "unknown execution status %u", st);
	return NRT_FAILURE;
}

/* A binding refused: "bind (tensor 'x'): ..."; the name is made only here. */
static void bind_log(const char *fn, const struct nrtc_tensor *mt, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void bind_log(const char *fn, const struct nrtc_tensor *mt, const char *fmt, ...)
{
	char obj[320], why[512];
	va_list ap;

	snprintf(obj, sizeof(obj), "tensor '%s'", mt->name);
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	nrt_log(fn, "bind", obj, "%s", why);
}

/* The memory handle of the slot @mt's tensor in @set, or 0 (logged). */
static uint32_t bind_one(const char *fn, const struct nrt_model *model,
			 const struct nrtc_tensor *mt, struct nrt_set *set, NRT_STATUS *s)
{
	const char *kind = mt->usage ? "output" : "input";
	nrt_tensor_t *t = NULL;

	*s = NRT_INVALID;
	if (set) {
		pthread_mutex_lock(&set->lock);
		t = nrt_set_find(set, mt->name);
		pthread_mutex_unlock(&set->lock);
	}
	if (!t) {
		bind_log(fn, mt, "%s tensor '%s' missing from the set", kind, mt->name);
		return 0;
	}
	if (!t->st) {
		bind_log(fn, mt, "the %s tensor has no memory", kind);
		return 0;
	}
	if (t->st->kind != NRT_ST_DEVICE) {
		bind_log(fn, mt,
			 "the %s tensor is in host memory; executions bind device tensors only (NRT_TENSOR_PLACEMENT_DEVICE)",
			 kind);
		return 0;
	}
	if (t->st->gen != nrt_rt.gen) {
		bind_log(fn, mt, "the %s tensor was allocated before nrt_close()", kind);
		*s = NRT_INVALID_HANDLE;
		return 0;
	}
	if (t->offset) {
		bind_log(fn, mt,
			 "the %s tensor is a slice at offset %zu; only whole device tensors (or slices at offset 0) can be bound",
			 kind, t->offset);
		return 0;
	}
	if (t->size < mt->size) {
		bind_log(fn, mt, "the %s tensor has %zu bytes, the model needs %llu",
			 kind, t->size, (unsigned long long)mt->size);
		return 0;
	}
	if (t->st->dev != model->dev) {
		bind_log(fn, mt,
			 "the %s tensor is on core %u, another device than the model's core %u",
			 kind, t->st->core, model->core);
		return 0;
	}
	*s = NRT_SUCCESS;
	return t->st->handle;
}

/*
 * The bindings, then one EXECUTE with NEURON_EXEC_WAIT per repetition. The
 * success path formats nothing and allocates nothing (a model has at most
 * NEURON_MAX_SLOTS slots): what it adds to the ioctl is the lock, the set
 * lookups and the checks.
 */
static NRT_STATUS run(const char *fn, nrt_model_t *model, const nrt_tensor_set_t *in,
		      nrt_tensor_set_t *out, int repeat)
{
	struct nrt_set *sets[2] = { (struct nrt_set *)in, (struct nrt_set *)out };
	uint32_t bind[NEURON_MAX_SLOTS], i;
	struct neuron_execute ex;
	char obj[32];
	NRT_STATUS s;
	int k;

	if (!model) {
		nrt_log(fn, "check arguments", NULL, "NULL model");
		return NRT_INVALID_HANDLE;
	}
	for (k = 0; k < 2; k++) {
		if (sets[k] && sets[k]->magic != NRT_SET_MAGIC) {
			nrt_log(fn, "check arguments", NULL, "the %s set is not a tensor set",
				k ? "output" : "input");
			return NRT_INVALID_HANDLE;
		}
	}
	if (repeat < 1) {
		nrt_log(fn, "check arguments", NULL, "repeat count %d, expected at least 1",
			repeat);
		return NRT_INVALID;
	}
	s = nrt_enter(fn);
	if (s)
		return s;
	if (model->gen != nrt_rt.gen) {
		nrt_log(fn, "execute", NULL, "the model was loaded before nrt_close()");
		s = NRT_INVALID_HANDLE;
		goto out;
	}
	if (model->ntensors > NEURON_MAX_SLOTS) {	/* nrt_load() refuses more */
		nrt_log(fn, "execute", NULL, "the model has %u slots", model->ntensors);
		s = NRT_INVALID;
		goto out;
	}
	for (i = 0; i < model->ntensors; i++) {
		const struct nrtc_tensor *mt = &model->tensors[i];

		bind[i] = bind_one(fn, model, mt, sets[mt->usage ? 1 : 0], &s);
		if (s)
			goto out;
	}
	for (k = 0; k < repeat; k++) {
		memset(&ex, 0, sizeof(ex));
		ex.model = model->handle;
		ex.flags = NEURON_EXEC_WAIT;
		ex.bindings = (uintptr_t)bind;
		ex.nbindings = model->ntensors;
		if (nio_execute_req(nrt_rt.devs[model->dev].fd, &ex) < 0) {
			int e = errno;

			snprintf(obj, sizeof(obj), "nc %u", model->core);
			if (e == EAGAIN) {
				nrt_log(fn, "execute", obj, "the core's execution queue is full");
				s = NRT_QUEUE_FULL;
			} else {
				nrt_log(fn, "execute", obj, "%s", strerror(e));
				s = nrt_errno_status(e);
			}
			goto out;
		}
		if (ex.status != NEURON_EXEC_OK) {
			snprintf(obj, sizeof(obj), "nc %u", model->core);
			s = exec_status(fn, obj, ex.status);
			goto out;
		}
	}
out:
	nrt_leave();
	return s;
}

NRT_EXPORT NRT_STATUS nrt_execute(nrt_model_t *model, const nrt_tensor_set_t *input_set,
				  nrt_tensor_set_t *output_set)
{
	return run("nrt_execute", model, input_set, output_set, 1);
}

NRT_EXPORT NRT_STATUS nrt_execute_repeat(nrt_model_t *model, const nrt_tensor_set_t *input_set,
					 nrt_tensor_set_t *output_set, int repeat_count)
{
	return run("nrt_execute_repeat", model, input_set, output_set, repeat_count);
}

NRT_EXPORT NRT_STATUS nrt_get_model_tensor_info(nrt_model_t *model,
						nrt_tensor_info_array_t **tensor_info)
{
	static const char fn[] = "nrt_get_model_tensor_info";
	nrt_tensor_info_array_t *a;
	uint32_t *shapes, i, d;
	size_t sz;

	if (!model || !tensor_info) {
		nrt_log(fn, "check arguments", NULL, "NULL model or result pointer");
		return model ? NRT_INVALID : NRT_INVALID_HANDLE;
	}
	/* one block: header, entries, then the shapes the entries point to */
	sz = sizeof(*a) + (size_t)model->ntensors * sizeof(nrt_tensor_info_t) +
	     (size_t)model->ntensors * NEURON_MAX_DIMS * sizeof(uint32_t);
	a = calloc(1, sz);
	if (!a) {
		nrt_log(fn, "allocate", NULL, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	shapes = (uint32_t *)&a->tensor_array[model->ntensors];
	a->tensor_count = model->ntensors;
	for (i = 0; i < model->ntensors; i++) {
		const struct nrtc_tensor *mt = &model->tensors[i];
		nrt_tensor_info_t *ti = &a->tensor_array[i];

		snprintf(ti->name, sizeof(ti->name), "%s", mt->name);
		ti->usage = mt->usage ? NRT_TENSOR_USAGE_OUTPUT : NRT_TENSOR_USAGE_INPUT;
		ti->size = mt->size;
		ti->dtype = dtype_of(mt->dtype);
		ti->ndim = mt->ndim <= NEURON_MAX_DIMS ? mt->ndim : NEURON_MAX_DIMS;
		ti->shape = shapes + (size_t)i * NEURON_MAX_DIMS;
		for (d = 0; d < ti->ndim; d++)
			ti->shape[d] = mt->shape[d];
	}
	*tensor_info = a;
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_free_model_tensor_info(nrt_tensor_info_array_t *tensor_info)
{
	free(tensor_info);
	return NRT_SUCCESS;
}
