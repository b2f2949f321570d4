/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The neuron selftests' library (libneuron_test.a, built from the .c files
 * of this folder, 64- and 32-bit): which device to test, simulated devices
 * through /sys/bus/neuron_sim, sysfs and module parameters, privileges,
 * probing mapped memory, and the helpers over libneuron's calls
 * (tools/lib/neuron) that the tests share.  Nothing here uses the
 * kselftest harness: what needs _metadata stays in neuron_test.h.
 *
 * Device selection (docs/architecture.md, "Selftests"):
 *  - NEURON_DEVICE=/dev/neuronN: tests run on that device, tests that need
 *    the simulator skip;
 *  - else, with /sys/bus/neuron_sim present, each test creates its own
 *    simulated devices (IDs derived from its pid) and deletes them;
 *  - else every test skips and the program exits 4 (KSFT_SKIP).
 */
#ifndef NEURON_LIB_H
#define NEURON_LIB_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "neuron.h"
#include "neuron_asm.h"
#include "neuron_io.h"

#define NEURON_SIM_BUS		"/sys/bus/neuron_sim"
/* The driver of neuron_sim.ko on its bus: bind and unbind files. */
#define NEURON_SIM_DRIVER	NEURON_SIM_BUS "/drivers/neuron_sim"
#define NEURON_MAX_DEVICES	64
/* Size of the first version of struct neuron_query. */
#define NEURON_QUERY_SIZE_VER0	40
/* Default device memory of a simulated device, in MiB. */
#define NEURON_SIM_MEM_DEFAULT	256
/* How long a device node may take to appear or go (devtmpfs), in ms. */
#define NEURON_NODE_TIMEOUT_MS	5000

/* Geometry of each arch, from the public facts (docs/). */
struct neuron_geometry {
	__u32 arch;
	const char *name;
	__u32 nc_count;
	__u32 dma_engines;
	__u32 dma_queues_per_engine;
	__u32 dram_channels;
	__u32 semaphores_per_nc;
	__u32 events_per_nc;
};

extern const struct neuron_geometry neuron_geometries[3];
const struct neuron_geometry *neuron_geometry_of(__u32 arch);

enum neuron_mode {
	NEURON_MODE_NONE,	/* nothing to test: every test skips */
	NEURON_MODE_DEVICE,	/* NEURON_DEVICE names the device */
	NEURON_MODE_SIM,	/* simulated devices through /sys/bus/neuron_sim */
};

const char *neuron_env_device(void);
enum neuron_mode neuron_mode(void);
const char *neuron_mode_skip_reason(void);
/*
 * The device model's control channel (NEURON_DEVMODEL_CTL, a serial line in
 * the pci tier's VMs, docs/devmodel.md), or NULL: not on a device model.
 */
const char *neuron_env_devmodel_ctl(void);
/*
 * The device model's control channel opened raw, with nothing left over
 * from an earlier command: its fd, -ENODEV without a channel, or -errno.
 */
int neuron_devmodel_open(void);
/*
 * One command to the device model on @fd (neuron_devmodel_open()): 0 when
 * it answers "ok", -EIO when it answers "err ..." (printed), -ETIMEDOUT
 * without an answer in 20 s, or another -errno of the channel. The lines
 * of the answer before "ok" go into @out unless it is NULL (as many as fit
 * in @outlen, each ended by a newline).
 */
int neuron_devmodel_ask(int fd, const char *cmd, char *out, size_t outlen);
/*
 * The device model's counter @name (its `stats` command, docs/devmodel.md)
 * asked on @fd, in *@val: 0, -ENOENT when the model has no such counter, or
 * an error of neuron_devmodel_ask().
 */
int neuron_devmodel_stat_fd(int fd, const char *name, long long *val);
/*
 * One command to the device model on a channel opened for it: as
 * neuron_devmodel_ask(), or -ENODEV without a channel.
 */
int neuron_devmodel_cmd(const char *cmd);
/* neuron_devmodel_stat_fd() on a channel opened for it. */
int neuron_devmodel_stat(const char *name, long long *val);
/*
 * QEMU's QMP monitor (NEURON_DEVMODEL_QMP, the guest's third serial line in
 * the pci tier's hotplug VM, scripts/vm-pci.sh), or NULL: no hot unplug.
 */
const char *neuron_env_devmodel_qmp(void);
/*
 * QMP device_del of the device of qdev id @id, then wait up to @ms for
 * QEMU's DEVICE_DELETED event of it (the guest ejected it): 0, -EIO when
 * QEMU refuses (its error printed), -ENODEV without a monitor, -ETIMEDOUT
 * without the event, or another -errno of the line.
 */
int neuron_qmp_device_del(const char *id, int ms);
/*
 * NEURON_DEVMODEL_KILL is set (the pci tier's kill VM, scripts/vm-pci.sh
 * NEURON_VM_MODEL_KILL=1): a test may kill the device model.
 */
bool neuron_env_devmodel_kill(void);
/*
 * The model's `die`: it kills itself (SIGKILL) without an answer. 0 when
 * no answer came within @ms, -EPROTO when one did (it is alive), -ENODEV
 * without a channel, or another -errno of the channel.
 */
int neuron_devmodel_die(int ms);

/* ---- sysfs ---- */

/* Write @text to the sysfs file @path in one write(): 0 or -errno. */
int neuron_sysfs_write(const char *path, const char *text);
/* Read a small text file into @buf (NUL-terminated): 0 or -errno. */
int neuron_read_text(const char *path, char *buf, size_t size);
/*
 * Is /dev/neuron@minor a PCI device? 0 if so, its PCI name (the address,
 * "0000:00:01.0") into @name of @len bytes unless @len is 0; -ENODEV if it
 * is none (or is gone), -ENAMETOOLONG if @name is too short.
 */
int neuron_pci_name(unsigned int minor, char *name, size_t len);
/*
 * Every regular file of @dir (not recursive): no group or other write bit,
 * and (@try_open, for an unprivileged caller) none opens for writing. The
 * number of files, or -1 (the reason printed).
 */
int neuron_files_closed(const char *dir, bool try_open);
void neuron_sleep_ms(unsigned int ms);
/* Kernel log records holding @what (/dev/kmsg): how many, or -1. */
int neuron_kmsg_count(const char *what);

/* ---- simulated devices ---- */

/* Raw write to new_device: 0 or -errno. */
int neuron_sim_new_text(const char *text);
/* Create sim device @id of @arch, @mem_mb 0 meaning the default. */
int neuron_sim_new(unsigned int id, const char *arch, unsigned int mem_mb);
int neuron_sim_del(unsigned int id);
bool neuron_sim_exists(unsigned int id);
/* Bind (@bind) or unbind sim device @id to/from the driver: 0 or -errno. */
int neuron_sim_bind(unsigned int id, bool bind);
/* Whether sim device @id is bound to the driver (has a neuron device). */
bool neuron_sim_bound(unsigned int id);
/* The machine's RAM in bytes (sysinfo), 0 if unknown. */
unsigned long long neuron_ram_bytes(void);
/*
 * @mem_mb, or less on a machine with less RAM: a simulated device may not
 * have more memory than the machine (new_device refuses it with ENOMEM).
 */
unsigned int neuron_sim_mem_fit(unsigned int mem_mb);
/*
 * Find the char device of sim device @id: the minor N of its neuronN class
 * device and its dev_t.  0, or -errno (-ENOENT while it is not there).
 */
int neuron_sim_lookup(unsigned int id, unsigned int *minor_nr, dev_t *devt);
/*
 * The sim ID of the device with minor @minor, from its sysfs parent
 * (.../neuron_simID): 0, or -errno (-ENOENT for a device that is not
 * simulated).
 */
int neuron_sim_id_of_minor(unsigned int minor, unsigned int *id);
/* Wait until @path is the char device @devt (@present) or is gone. */
bool neuron_wait_node(const char *path, dev_t devt, bool present);

/* One device under test: a simulated device we created, or NEURON_DEVICE. */
struct neuron_node {
	int fd;			/* open file, -1 when closed */
	bool created;		/* simulated device created by this test */
	unsigned int sim_id;
	unsigned int minor;	/* N of /dev/neuronN */
	dev_t devt;
	char path[64];		/* /dev/neuronN */
};

void neuron_node_init(struct neuron_node *n);
/*
 * Sim IDs of this process: 32 per pid (mod 2000), above 1000, so that the
 * devices of the module parameter (0, 1, ...) and of other tests differ.
 */
unsigned int neuron_sim_next_id(void);
/*
 * Fill @n for the just created sim device @id and wait for its node: 0, or
 * -ETIMEDOUT when its class device or node does not show up.  @n is marked
 * created in any case, so that teardown deletes the device.
 */
int neuron_sim_attach(struct neuron_node *n, unsigned int id);
/*
 * Create sim device @id and wait for its node: 0, or -errno of the write,
 * or -ETIMEDOUT.  On failure nothing is left behind.
 */
int neuron_sim_create_id(struct neuron_node *n, unsigned int id,
			 const char *arch, unsigned int mem_mb);
/* Create a sim device with a fresh ID (skipping IDs already taken). */
int neuron_sim_create(struct neuron_node *n, const char *arch, unsigned int mem_mb);
/* Delete a sim device we created and wait for its node to go: 0/-errno. */
int neuron_sim_remove(struct neuron_node *n);
int neuron_node_open(struct neuron_node *n);
/* Teardown: close, and delete the sim device if this test created it. */
void neuron_node_release(struct neuron_node *n);
/* Write a knob of the simulated device behind @n. */
int neuron_sim_knob(struct neuron_node *n, const char *knob, const char *val);

/* ---- module parameters ---- */

#define NEURON_PARAM_DIR	"/sys/module/neuron/parameters/"

/* Read the module parameter @name: 0, or -errno. */
int neuron_param_get(const char *name, unsigned long long *val);
/* Set the module parameter @name (root): 0, or -errno. */
int neuron_param_set(const char *name, unsigned long long val);

/* ---- probing mapped memory, pinned memory, privileges ---- */

/*
 * Read the byte at @p into *@val (or, with @store, write *@val to it): 0, or
 * the signal the access raised (SIGBUS, SIGSEGV).
 */
int neuron_probe(unsigned char *p, unsigned char *val, bool store);
/*
 * Pages of this process charged to pinned_vm (VmPin in /proc/self/status),
 * in KiB; -1 if unknown.
 */
long neuron_vm_pinned_kb(void);
/*
 * Wait up to 2 s for VmPin to come back to @kb (asynchronous work may
 * still hold pages for a moment); returns the last value read.
 */
long neuron_vm_pinned_wait(long kb);

/* The unprivileged user and group the tests become. */
#define NEURON_TEST_NOBODY	65534

/*
 * For a forked child (the harness's test process must stay root): set
 * RLIMIT_MEMLOCK to @memlock bytes and become uid/gid NEURON_TEST_NOBODY
 * with no supplementary groups, keeping only the capabilities of @keep (a
 * mask of bits 0..31, e.g. 1U << CAP_IPC_LOCK) in the permitted and
 * effective sets; every other capability also leaves the bounding set.
 * Files opened before stay usable (the device node is root's), and so does
 * neuron_vm_pinned_kb(): /proc/self/status is opened first, since paths
 * may not be reachable any more (the test VM's root folder is 0700).
 * 0, or -1.
 */
int neuron_drop_privileges(__u32 keep, rlim_t memlock);
/* The same for user and group @uid. */
int neuron_drop_privileges_to(uid_t uid, __u32 keep, rlim_t memlock);

/* ---- the driver's calls ---- */

/*
 * ioctl() returning 0 or -errno, once: the tests of the raw interface (a
 * malformed argument, a signal) use it; the helpers below go through
 * libneuron (nio_*(), which repeat a call a signal interrupted).
 */
int neuron_ioctl(int fd, unsigned long nr, void *arg);

void neuron_query_prep(struct neuron_query *q, __u32 op, void *data, __u32 size);
/*
 * QUERY @op into @buf of @len bytes (zeroed first): 0 or -errno; @size
 * (unless NULL) gets the size of the answer.
 */
int neuron_query_into(int fd, __u32 op, void *buf, __u32 len, __u32 *size);
/* NEURON_QUERY_DEVICE into @info: 0 or -errno; @size gets the answer size. */
int neuron_query_info(int fd, struct neuron_device_info *info, __u32 *size);
/* True if the string field @s of @len bytes is NUL-terminated. */
bool neuron_str_ok(const char *s, size_t len);

/* More per-NC entries than any arch has (NEURON_QUERY_MEM_USAGE). */
#define NEURON_TEST_MAX_NC	16

/* Room for a whole NEURON_QUERY_MEM_USAGE answer. */
struct neuron_mem_usage_buf {
	struct neuron_mem_usage u;
	struct neuron_mem_usage_nc nc[NEURON_TEST_MAX_NC];
};

/* NEURON_QUERY_MEM_USAGE into @b: 0 or -errno; @size gets the answer size. */
int neuron_query_mem_usage(int fd, struct neuron_mem_usage_buf *b, __u32 *size);

/* Room for a whole NEURON_QUERY_NC_STATE answer. */
struct neuron_nc_states_buf {
	struct neuron_nc_states h;
	struct neuron_nc_state nc[NEURON_TEST_MAX_NC];
};

/* NEURON_QUERY_NC_STATE into @b: 0 or -errno; @size gets the answer size. */
int neuron_query_nc_states(int fd, struct neuron_nc_states_buf *b, __u32 *size);
/* The state of NC @nc as @fd sees it: 0 or -errno (-ERANGE: no such NC). */
int neuron_nc_state(int fd, __u32 nc, struct neuron_nc_state *st);

/*
 * A valid MEM_ALLOC request: @kind memory of @size bytes charged to
 * NeuronCore @nc; device memory in any channel, no alignment.
 */
void neuron_mem_alloc_prep(struct neuron_mem_alloc *a, __u32 kind, __u64 size, __u32 nc);
/* MEM_ALLOC of a prepared request: 0 or -errno. */
int neuron_mem_alloc_req(int fd, struct neuron_mem_alloc *a);
/* Allocate @kind memory of @size bytes on NC @nc; @a gets the answer. */
int neuron_mem_alloc(int fd, __u32 kind, __u64 size, __u32 nc, struct neuron_mem_alloc *a);
/*
 * The same, the answer into *@h and *@off (each unless NULL; 0 when the call
 * failed).
 */
int neuron_alloc(int fd, __u32 kind, __u64 size, __u32 nc, __u32 *h, __u64 *off);
/* MEM_FREE of @handle: 0 or -errno. */
int neuron_mem_free(int fd, __u32 handle);

/* COPY: 0 or -errno. */
int neuron_copy_op(int fd, __u32 src, __u64 soff, __u32 dst, __u64 doff,
		   const void *sptr, void *dptr, __u64 size, __u32 flags,
		   __u64 *seqno);
__s64 neuron_now_ns(void);
/* WAIT for @seqno until the absolute @deadline: 0 or -errno. */
int neuron_wait_seq(int fd, __u64 seqno, __s64 deadline);

/* NC_RESERVE, NC_RELEASE of the NCs of @mask: 0 or -errno. */
int neuron_reserve(int fd, __u64 mask);
int neuron_release(int fd, __u64 mask);

/*
 * NC_SEM: 0 or -errno; *@out (unless NULL) gets the value returned (the
 * value sent when the call failed).
 */
int neuron_sem(int fd, __u32 nc, __u32 kind, __u32 index, __u32 op,
	       __u32 value, __s64 deadline, __u32 *out);

/* ---- notification queues ---- */

/* NOTIFY_SETUP of (@nc, @type) with @entries, no eventfd. */
int neuron_notify_setup(int fd, __u32 nc, __u32 type, __u32 entries,
			__u64 *mmap_size, __u64 *mmap_offset);
int neuron_notify_teardown(int fd, __u32 nc, __u32 type);

/*
 * A queue set up and mapped: struct nio_notify_queue, by nio_notify_open()
 * (whose -errno a test asserts on: neuron_ring_open_ok() in neuron_test.h).
 */
/* Unmap it (the queue stays: the file's close or a teardown ends it). */
void neuron_ring_unmap(struct nio_notify_queue *r);
/* The head the kernel published. */
__u32 neuron_ring_head(const struct nio_notify_queue *r);
/* Entry @i (an index of the ring: taken modulo its size). */
const struct neuron_notify_entry *neuron_ring_entry(const struct nio_notify_queue *r, __u32 i);

/* ---- models, execution ---- */

/*
 * The small model several tests run: out[MM x MM] = in[MM x MM] *
 * data[MM x MM], one MATMUL on PE, data 2 * identity (so out = 2 * in).
 */
#define NEURON_TEST_MM	8

/* MODEL_LOAD of that model on @nc (reserved by @fd): 0 or -errno. */
int neuron_mm_model_load(int fd, __u32 nc, __u32 *handle);

/*
 * MODEL_LOAD of a model with one block on @engine (@insns, @count) and no
 * slots, @data_size bytes of @data, @scratch bytes of scratch: 0 or -errno.
 */
int neuron_model_load_block(int fd, __u32 nc, __u32 engine,
			    const struct neuron_tpb_insn *insns, __u32 count,
			    const void *data, __u64 data_size, __u64 scratch,
			    __u32 *handle);
int neuron_model_unload(int fd, __u32 handle);

/*
 * EXECUTE of @model with @nbind bindings, @flags (NEURON_EXEC_WAIT or 0):
 * 0 or -errno; *@seq and *@status (unless NULL) the Out fields.
 */
int neuron_execute(int fd, __u32 model, __u32 flags, __u32 timeout_ms,
		   const __u32 *bind, __u32 nbind, __u64 *seq, __u32 *status);

#endif /* NEURON_LIB_H */
