/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libshim: internals of libnrt.so.1 shared by nrt_*.c. Not installed.
 */
#ifndef NEURON_NRT_INTERNAL_H
#define NEURON_NRT_INTERNAL_H

#include <pthread.h>
#include <stdint.h>

#include <neuron.h>
#include <neuron_io.h>

#include "nrt/nrt.h"
#include "nrt/nrt_experimental.h"
#include "nrt/nrt_version.h"
#include "container.h"

#define NRT_EXPORT __attribute__((visibility("default")))

/* Global NeuronCores are numbered device by device (minor order). */
#define NRT_MAX_CORES 4096

struct nrt_dev {
	int fd;				/* O_RDWR, kept from nrt_init to nrt_close */
	uint32_t minor;
	uint32_t first_core;		/* global number of its NC 0 */
	struct neuron_device_info info;
};

enum nrt_state { NRT_STATE_NEW = 0, NRT_STATE_INIT, NRT_STATE_CLOSED };

struct nrt_storage;

struct nrt_runtime {
	/* Readers: every call using the devices. Writer: nrt_init, nrt_close. */
	pthread_rwlock_t lock;
	enum nrt_state state;
	unsigned int gen;		/* bumped by each nrt_init */
	struct nrt_dev *devs;
	uint32_t ndevs;
	uint32_t total_cores;
	/* vnc -> global core; guarded by core_lock */
	pthread_mutex_t core_lock;
	int fixed;			/* cores chosen by the environment at nrt_init */
	uint32_t nvnc;
	uint32_t vnc_core[NRT_MAX_CORES];
	/*
	 * The device storages of this run (whatever the caller still holds),
	 * so that nrt_close() can drop their mappings: a mapping holds the
	 * device file, and with it the file's cores, memory and models.
	 * Changed under the read lock with obj_lock, walked by nrt_close().
	 */
	pthread_mutex_t obj_lock;
	struct nrt_storage *dev_mem;
};

extern struct nrt_runtime nrt_rt;

/* Logging: one line "nrt: <fn>: <what> (<obj>): <why>" unless silenced. */
void nrt_log(const char *fn, const char *what, const char *obj, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
NRT_STATUS nrt_errno_status(int err);

/* Take the read lock when initialised; else log and return the state's code. */
NRT_STATUS nrt_enter(const char *fn);
void nrt_leave(void);

/* Resolve @vnc to a global core, reserving it if needed (read lock held). */
NRT_STATUS nrt_vnc_core(const char *fn, const char *what, int vnc, uint32_t *core,
			NRT_STATUS busy_status);
struct nrt_dev *nrt_core_dev(uint32_t core, uint32_t *local_nc);
/* Why @core is busy ("in use by another process (pid N)", ...). */
void nrt_busy_reason(uint32_t core, char *buf, size_t len);

/* Storage shared by a tensor and its slices. */
enum nrt_storage_kind { NRT_ST_DEVICE, NRT_ST_HOST, NRT_ST_USER };

struct nrt_storage {
	int refs;			/* atomic */
	enum nrt_storage_kind kind;
	void *ptr;			/* CPU address, NULL if device memory is not mapped */
	size_t size;
	/* device */
	unsigned int gen;
	uint32_t dev;			/* index in nrt_rt.devs */
	uint32_t core;			/* global core */
	uint32_t handle;
	size_t map_len;
	/* on nrt_rt.dev_mem while its run lives */
	struct nrt_storage *prev, *next;
};

struct nrt_tensor {
	nrt_tensor_placement_t placement;
	int vnc;
	struct nrt_storage *st;		/* NULL: empty */
	size_t offset;			/* in st */
	size_t size;
	char name[NRT_TENSOR_NAME_MAX];
};

struct nrt_model {
	unsigned int gen;
	uint32_t dev;
	uint32_t core;
	int vnc;
	uint32_t handle;
	uint32_t ntensors;
	struct nrtc_tensor *tensors;
};

struct nrt_set_entry {
	char *name;
	nrt_tensor_t *tensor;
};

struct nrt_set {
	uint32_t magic;
	pthread_mutex_t lock;
	size_t n, cap;
	struct nrt_set_entry *e;
};

#define NRT_SET_MAGIC 0x6e727473u

nrt_tensor_t *nrt_set_find(const struct nrt_set *set, const char *name);

/* nrt_close() (write lock held): unmap the device memory of the run. */
void nrt_drop_dev_mem(void);

#endif /* NEURON_NRT_INTERNAL_H */
