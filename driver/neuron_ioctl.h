/* SPDX-License-Identifier: GPL-2.0 */
/*
 * neuron: the ioctls (neuron_cdev.c dispatches them): the dispatch table's
 * entry and flags, and every handler. A handler gets its argument in
 * kernel memory; it acts on the objects of its file (memory, models, NCs,
 * queues), which act through jobs on queues, which call the backend.
 */
#ifndef _NEURON_IOCTL_H
#define _NEURON_IOCTL_H

#include <linux/bits.h>

#include <neuron.h>

#include "neuron_common.h"

/* neuron_cdev.c */
extern const struct file_operations neuron_fops;

/* The ioctl needs a file opened for writing (FMODE_WRITE), else -EBADF. */
#define NEURON_IOCTL_WRITE	BIT(0)
/*
 * The handler manages the removal guard itself (it sleeps): the
 * dispatcher does not enter it around the call.
 */
#define NEURON_IOCTL_UNGUARDED	BIT(1)
/*
 * The Out fields are copied back even when the handler fails (it sets
 * them for that case too).
 */
#define NEURON_IOCTL_OUT_ALWAYS	BIT(2)
/* Room for the largest ioctl argument structure. */
#define NEURON_IOCTL_ARG_MAX	128

/**
 * struct neuron_ioctl_desc - one ioctl of the dispatch table
 * @cmd: the command with the size of the current argument structure.
 * @min_size: size of the first version of the argument structure.
 * @flags: NEURON_IOCTL_* flags.
 * @fn: handler; gets the argument in kernel memory.
 */
struct neuron_ioctl_desc {
	unsigned int cmd;
	unsigned int min_size;
	unsigned int flags;
	int (*fn)(struct neuron_file *nf, void *arg);
};

/* neuron_query.c */
int neuron_query_answer(struct neuron_query *q, const void *answer, u32 len);
void neuron_query_device(struct neuron_device *nd,
			 struct neuron_device_info *info);
int neuron_query_nc_state(struct neuron_file *nf, struct neuron_query *q);

/* The handlers, by ioctl. */
int neuron_ioctl_query(struct neuron_file *nf, void *arg);
int neuron_ioctl_mem_alloc(struct neuron_file *nf, void *arg);
int neuron_ioctl_mem_free(struct neuron_file *nf, void *arg);
int neuron_ioctl_copy(struct neuron_file *nf, void *arg);
int neuron_ioctl_memset(struct neuron_file *nf, void *arg);
int neuron_ioctl_wait(struct neuron_file *nf, void *arg);
int neuron_ioctl_notify_setup(struct neuron_file *nf, void *arg);
int neuron_ioctl_notify_wait(struct neuron_file *nf, void *arg);
int neuron_ioctl_notify_teardown(struct neuron_file *nf, void *arg);
int neuron_ioctl_nc_reserve(struct neuron_file *nf, void *arg);
int neuron_ioctl_nc_release(struct neuron_file *nf, void *arg);
int neuron_ioctl_nc_sem(struct neuron_file *nf, void *arg);
int neuron_ioctl_model_load(struct neuron_file *nf, void *arg);
int neuron_ioctl_model_unload(struct neuron_file *nf, void *arg);
int neuron_ioctl_execute(struct neuron_file *nf, void *arg);

/*
 * Internal functions with no other user than the KUnit suites
 * (driver/tests/): static unless CONFIG_KUNIT, see <kunit/visibility.h>.
 */
#if IS_ENABLED(CONFIG_KUNIT)
const struct neuron_ioctl_desc *neuron_ioctl_lookup(unsigned int cmd);
int neuron_query_check(const struct neuron_query *q);
#endif

#endif /* _NEURON_IOCTL_H */
