/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * neuron: userspace API of the neuron.ko driver for AWS Neuron accelerators.
 *
 * Design rules (Documentation/process/botching-up-ioctls.rst):
 *  - fixed-width types only, pointers travel as __u64;
 *  - every structure is naturally aligned with explicit padding and a size
 *    that is a multiple of 8, so the same layout serves 32- and 64-bit
 *    callers (compat_ptr_ioctl);
 *  - every pad, reserved field and unknown flag must be zero, or the call
 *    fails with -EINVAL;
 *  - ioctl argument structures are extensible: the kernel reads them with
 *    copy_struct_from_user(), so an older caller (shorter struct) is zero
 *    extended and a newer caller (longer struct) is accepted only if the
 *    bytes the kernel does not know are zero (-E2BIG otherwise);
 *  - features are discovered with NEURON_IOCTL_QUERY, never by version.
 *
 * Each field is marked In (set by the caller), Out (set by the kernel) or
 * In/Out.  docs/uapi.md describes each ioctl, who may call it and what the
 * kernel checks.
 */
#ifndef _UAPI_NEURON_H
#define _UAPI_NEURON_H

#include <linux/const.h>
#include <linux/ioctl.h>
#include <linux/types.h>

#define NEURON_UAPI_VERSION_MAJOR	1
#define NEURON_UAPI_VERSION_MINOR	1
/** NEURON_UAPI_VERSION - packed as (major << 16) | minor. */
#define NEURON_UAPI_VERSION \
	((NEURON_UAPI_VERSION_MAJOR << 16) | NEURON_UAPI_VERSION_MINOR)

#define NEURON_IOCTL_MAGIC		'N'

/* Architectures (struct neuron_device_info.arch). */
#define NEURON_ARCH_V1			1	/* Inferentia (inf1) */
#define NEURON_ARCH_V2			2	/* Trainium (trn1), Inferentia2 */
#define NEURON_ARCH_V3			3	/* Trainium2 (trn2) */

/* Capability bits (struct neuron_device_info.caps): what works today. */
/** NEURON_CAP_QUERY - NEURON_IOCTL_QUERY is available (always set). */
#define NEURON_CAP_QUERY		_BITULL(0)
/** NEURON_CAP_MEM - MEM_ALLOC, MEM_FREE and mmap() of memory objects. */
#define NEURON_CAP_MEM			_BITULL(1)
/** NEURON_CAP_COPY - COPY, MEMSET and WAIT through the DMA engines. */
#define NEURON_CAP_COPY			_BITULL(2)

/* Device flags (struct neuron_device_info.flags). */
/** NEURON_DEV_SIMULATED - the device is a simulated one (driver/sim). */
#define NEURON_DEV_SIMULATED		_BITUL(0)
/** NEURON_DEV_ENGINES_OFF - silicon found but its engines are not driven. */
#define NEURON_DEV_ENGINES_OFF		_BITUL(1)

/* Query operations (struct neuron_query.op). */
/** NEURON_QUERY_DEVICE - fills a struct neuron_device_info. */
#define NEURON_QUERY_DEVICE		0
/** NEURON_QUERY_MEM_USAGE - fills a struct neuron_mem_usage. */
#define NEURON_QUERY_MEM_USAGE		1
/** NEURON_QUERY_NC_STATE - fills a struct neuron_nc_states (NEURON_CAP_RESERVE). */
#define NEURON_QUERY_NC_STATE		2
#define NEURON_QUERY_COUNT		3

#define NEURON_NAME_LEN			32

/**
 * struct neuron_device_info - answer of %NEURON_QUERY_DEVICE
 * @uapi_version: Out: NEURON_UAPI_VERSION of the running driver.
 * @arch: Out: NEURON_ARCH_* of the device (or of the arch it simulates).
 * @caps: Out: NEURON_CAP_* bits of the features that work on this device.
 * @flags: Out: NEURON_DEV_* bits.
 * @minor: Out: minor number, N of /dev/neuronN.
 * @pci_vendor: Out: PCI vendor id, 0 for a simulated device.
 * @pci_device: Out: PCI device id, 0 for a simulated device.
 * @pci_subsystem_vendor: Out: PCI subsystem vendor id, 0 when simulated.
 * @pci_subsystem_device: Out: PCI subsystem device id, 0 when simulated.
 * @pci_domain: Out: PCI domain, 0 for a simulated device.
 * @pci_bus: Out: PCI bus, 0 for a simulated device.
 * @pci_devfn: Out: PCI device/function, 0 for a simulated device.
 * @sim_id: Out: ID given at creation of a simulated device, else 0.
 * @nc_count: Out: NeuronCores on the device.
 * @dma_engines: Out: DMA engines on the device.
 * @dma_queues_per_engine: Out: queues of each DMA engine.
 * @dram_channels: Out: device DRAM channels.
 * @semaphores_per_nc: Out: semaphores of each NeuronCore.
 * @events_per_nc: Out: events of each NeuronCore.
 * @pad: Out: zero.
 * @dram_size: Out: device memory in bytes, all channels together.
 * @dram_channel_size: Out: device memory in bytes of one channel.
 * @driver_version: Out: NUL-terminated version of neuron.ko.
 * @arch_name: Out: NUL-terminated arch name ("v1", "v2", "v3").
 * @product: Out: NUL-terminated product ("inf1", "trn1", "inf2", "trn2").
 */
struct neuron_device_info {
	__u32 uapi_version;
	__u32 arch;
	__u64 caps;
	__u32 flags;
	__u32 minor;
	__u16 pci_vendor;
	__u16 pci_device;
	__u16 pci_subsystem_vendor;
	__u16 pci_subsystem_device;
	__u32 pci_domain;
	__u16 pci_bus;
	__u16 pci_devfn;
	__u32 sim_id;
	__u32 nc_count;
	__u32 dma_engines;
	__u32 dma_queues_per_engine;
	__u32 dram_channels;
	__u32 semaphores_per_nc;
	__u32 events_per_nc;
	__u32 pad;
	__u64 dram_size;
	__u64 dram_channel_size;
	char driver_version[NEURON_NAME_LEN];
	char arch_name[NEURON_NAME_LEN / 2];
	char product[NEURON_NAME_LEN / 2];
};

/**
 * struct neuron_query - argument of %NEURON_IOCTL_QUERY
 * @op: In: NEURON_QUERY_* operation.
 * @flags: In: must be 0.
 * @data: In: user pointer to the answer buffer; may be 0 when @size is 0.
 * @size: In/Out: In: bytes at @data. Out: bytes of the whole answer. As
 *	with snprintf(), a short buffer gets the first @size bytes and the
 *	call still succeeds; a larger buffer gets the whole answer and the
 *	bytes past it are left untouched.  @size 0 only asks the size.
 * @pad: In: must be 0.
 * @reserved: In: must be 0.
 */
struct neuron_query {
	__u32 op;
	__u32 flags;
	__u64 data;
	__u32 size;
	__u32 pad;
	__u64 reserved[2];
};

/**
 * struct neuron_mem_usage_nc - memory charged to one NeuronCore
 * @device_bytes: Out: device memory, all files of the device.
 * @host_bytes: Out: host memory, all files of the device.
 */
struct neuron_mem_usage_nc {
	__u64 device_bytes;
	__u64 host_bytes;
};

/**
 * struct neuron_mem_usage - answer of %NEURON_QUERY_MEM_USAGE
 *
 * The answer is this structure followed by @nc_count entries of struct
 * neuron_mem_usage_nc, one per NeuronCore. Bytes are counted in whole
 * pages. Memory counts until it is freed: a mapping, a transfer or an
 * execution keeps memory whose handle is gone alive, and charged to the
 * file that allocated it.
 *
 * @device_bytes: Out: device memory in use on the device.
 * @host_bytes: Out: host memory in use for the device.
 * @file_device_bytes: Out: device memory the calling file allocated that
 *	is alive (memory objects and models).
 * @file_host_bytes: Out: host memory the calling file allocated that is
 *	alive.
 * @file_handles: Out: live handles of the calling file (memory objects
 *	and models).
 * @nc_count: Out: struct neuron_mem_usage_nc entries that follow.
 * @pad: Out: zero.
 */
struct neuron_mem_usage {
	__u64 device_bytes;
	__u64 host_bytes;
	__u64 file_device_bytes;
	__u64 file_host_bytes;
	__u64 file_handles;
	__u32 nc_count;
	__u32 pad;
};

/* Memory kinds (struct neuron_mem_alloc.kind). */
/** NEURON_MEM_HOST - host memory the device can reach. */
#define NEURON_MEM_HOST			0
/** NEURON_MEM_DEVICE - device DRAM. */
#define NEURON_MEM_DEVICE		1

/*
 * Memory usages (struct neuron_mem_alloc.usage): what the memory is for,
 * as the program says. The driver only counts the memory of each usage
 * (per file and NeuronCore, with its peak: NEURON_A_NC_MEM_*_BY_USAGE of
 * the netlink family); the usage changes nothing else.
 */
/** NEURON_MEM_USAGE_UNCATEGORIZED - not said (the default). */
#define NEURON_MEM_USAGE_UNCATEGORIZED	0
/** NEURON_MEM_USAGE_TENSORS - a model's inputs and outputs. */
#define NEURON_MEM_USAGE_TENSORS	1
/** NEURON_MEM_USAGE_CONSTANTS - a model's weights and other constants. */
#define NEURON_MEM_USAGE_CONSTANTS	2
/** NEURON_MEM_USAGE_MODEL_CODE - instructions; a loaded model's memory. */
#define NEURON_MEM_USAGE_MODEL_CODE	3
/** NEURON_MEM_USAGE_RUNTIME - the runtime library's own state. */
#define NEURON_MEM_USAGE_RUNTIME	4
/** NEURON_MEM_USAGE_SCRATCHPAD - scratch space shared by models. */
#define NEURON_MEM_USAGE_SCRATCHPAD	5
/** NEURON_MEM_USAGE_APPLICATION - the program's own data (host memory). */
#define NEURON_MEM_USAGE_APPLICATION	6
/** NEURON_MEM_USAGE_DMA_BUFFERS - staging buffers of transfers. */
#define NEURON_MEM_USAGE_DMA_BUFFERS	7
/** NEURON_MEM_USAGE_COUNT - the usages; @usage is below it. */
#define NEURON_MEM_USAGE_COUNT		8

/** NEURON_MEM_CHANNEL_ANY - let the driver choose the DRAM channel. */
#define NEURON_MEM_CHANNEL_ANY		0xffffffffU

/**
 * struct neuron_mem_alloc - argument of %NEURON_IOCTL_MEM_ALLOC
 * @size: In: bytes, at least 1; rounded up to whole pages.
 * @align: In: device memory: 0 (page) or a power of two from 4096 to
 *	1 GiB. Host memory: must be 0 (always page aligned).
 * @kind: In: NEURON_MEM_HOST or NEURON_MEM_DEVICE.
 * @nc: In: NeuronCore the memory is charged to, below nc_count.
 * @channel: In: device memory: DRAM channel below dram_channels, or
 *	NEURON_MEM_CHANNEL_ANY (the channel nearest @nc first). Host memory:
 *	must be 0.
 * @flags: In: must be 0.
 * @handle: Out: handle of the memory, valid for this file only; never 0.
 * @usage: In: NEURON_MEM_USAGE_*, what the memory is for (counted by
 *	usage; 0, uncategorized, before uapi 1.1 had this field).
 * @mmap_offset: Out: offset to pass to mmap() to map the memory.
 * @reserved: In: must be 0.
 */
struct neuron_mem_alloc {
	__u64 size;
	__u64 align;
	__u32 kind;
	__u32 nc;
	__u32 channel;
	__u32 flags;
	__u32 handle;
	__u32 usage;
	__u64 mmap_offset;
	__u64 reserved[2];
};

/**
 * struct neuron_mem_free - argument of %NEURON_IOCTL_MEM_FREE
 * @handle: In: a handle of this file.
 * @flags: In: must be 0.
 */
struct neuron_mem_free {
	__u32 handle;
	__u32 flags;
};

/** NEURON_COPY_ASYNC - return at once with a sequence number to wait for. */
#define NEURON_COPY_ASYNC		_BITUL(0)

/**
 * struct neuron_copy - argument of %NEURON_IOCTL_COPY
 *
 * Each side is either a memory handle of this file (with an offset) or,
 * with handle 0, a pointer into the caller's memory. At most one side may
 * be a pointer. An asynchronous copy with a pointer keeps the user pages
 * pinned until it completes, counted in the caller's pinned memory (VmPin)
 * within RLIMIT_MEMLOCK unless the caller has CAP_IPC_LOCK.
 *
 * @src_handle: In: source handle, or 0 for @src_ptr.
 * @dst_handle: In: destination handle, or 0 for @dst_ptr.
 * @src_offset: In: byte offset in the source object; 0 with a pointer.
 * @dst_offset: In: byte offset in the destination object; 0 with a pointer.
 * @src_ptr: In: user pointer when @src_handle is 0, else must be 0.
 * @dst_ptr: In: user pointer when @dst_handle is 0, else must be 0.
 * @size: In: bytes to copy, at least 1; the ranges must lie inside the
 *	objects.
 * @flags: In: NEURON_COPY_ASYNC or 0.
 * @pad: In: must be 0.
 * @seqno: Out: with NEURON_COPY_ASYNC, the number to pass to
 *	%NEURON_IOCTL_WAIT.
 * @reserved: In: must be 0.
 */
struct neuron_copy {
	__u32 src_handle;
	__u32 dst_handle;
	__u64 src_offset;
	__u64 dst_offset;
	__u64 src_ptr;
	__u64 dst_ptr;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 seqno;
	__u64 reserved[2];
};

/**
 * struct neuron_memset - argument of %NEURON_IOCTL_MEMSET
 * @handle: In: memory handle of this file.
 * @value: In: byte value, 0 to 255.
 * @offset: In: byte offset in the object.
 * @size: In: bytes to set, at least 1, inside the object.
 * @flags: In: NEURON_COPY_ASYNC or 0.
 * @pad: In: must be 0.
 * @seqno: Out: with NEURON_COPY_ASYNC, the number to wait for.
 * @reserved: In: must be 0.
 */
struct neuron_memset {
	__u32 handle;
	__u32 value;
	__u64 offset;
	__u64 size;
	__u32 flags;
	__u32 pad;
	__u64 seqno;
	__u64 reserved[2];
};

/**
 * struct neuron_wait - argument of %NEURON_IOCTL_WAIT
 * @seqno: In: a sequence number this file got from an asynchronous call
 *	and has not waited for successfully yet.
 * @timeout_ns: In: absolute CLOCK_MONOTONIC deadline in nanoseconds; a
 *	deadline in the past only polls.
 * @flags: In: must be 0.
 * @pad: In: must be 0.
 */
struct neuron_wait {
	__u64 seqno;
	__s64 timeout_ns;
	__u32 flags;
	__u32 pad;
};

/**
 * NEURON_IOCTL_QUERY - read information about the device
 *
 * Who: any opener of the device node.  Errors: -EINVAL for an unknown @op,
 * non-zero @flags, @pad or @reserved; -EFAULT for a bad @data; -ENODEV once
 * the device is gone.
 */
#define NEURON_IOCTL_QUERY	_IOWR(NEURON_IOCTL_MAGIC, 0x00, struct neuron_query)

/**
 * NEURON_IOCTL_MEM_ALLOC - allocate zeroed host or device memory
 *
 * Who: any opener. The memory belongs to the file: its handle means
 * nothing to other files, and it is freed when the file is released.
 * Errors: -EINVAL (a field out of range, non-zero @flags/@pad/@reserved),
 * -EOPNOTSUPP (no NEURON_CAP_MEM), -ENOMEM (no memory left in the channel,
 * or on the host), -ENODEV.
 */
#define NEURON_IOCTL_MEM_ALLOC	_IOWR(NEURON_IOCTL_MAGIC, 0x01, struct neuron_mem_alloc)

/**
 * NEURON_IOCTL_MEM_FREE - drop a handle
 *
 * Who: the file that owns the handle. Mappings of the memory stay valid
 * until unmapped. Errors: -EINVAL (@flags), -ENOENT (not a handle of
 * this file), -ENODEV.
 */
#define NEURON_IOCTL_MEM_FREE	_IOW(NEURON_IOCTL_MAGIC, 0x02, struct neuron_mem_free)

/**
 * NEURON_IOCTL_COPY - copy through a DMA engine of the device
 *
 * Who: any opener, on its own handles and its own memory. The driver
 * builds every descriptor itself. Errors: -EINVAL (bad field, range
 * outside an object, two pointers), -ENOENT (a handle that is not the
 * file's), -EFAULT (bad pointer), -ENOMEM (an asynchronous copy with a
 * pointer would pass RLIMIT_MEMLOCK), -EOPNOTSUPP (no NEURON_CAP_COPY),
 * -EAGAIN (too many asynchronous calls not waited for), -EIO (the device
 * reported a DMA error), -EINTR (killed while waiting: the copy may still
 * complete), -ENODEV.
 */
#define NEURON_IOCTL_COPY	_IOWR(NEURON_IOCTL_MAGIC, 0x03, struct neuron_copy)

/**
 * NEURON_IOCTL_MEMSET - set bytes of a memory object through a DMA engine
 *
 * Who: any opener, on its own handles. Errors as for %NEURON_IOCTL_COPY.
 */
#define NEURON_IOCTL_MEMSET	_IOWR(NEURON_IOCTL_MAGIC, 0x04, struct neuron_memset)

/**
 * NEURON_IOCTL_WAIT - wait for an asynchronous COPY or MEMSET
 *
 * Who: the file that started it. Returns 0 once it completed (the sequence
 * number is then spent), -ETIME at the deadline, -EIO if the device failed
 * it (spent too), -ENOENT for a number that is not pending for this file,
 * -EINVAL for non-zero @flags or @pad, -ERESTARTSYS on a signal (restarted
 * with the same absolute deadline), -ENODEV.
 */
#define NEURON_IOCTL_WAIT	_IOW(NEURON_IOCTL_MAGIC, 0x05, struct neuron_wait)

/*
 * ---- Notification queues (NEURON_CAP_NOTIFY) ----
 *
 * Per NeuronCore, one queue of each NEURON_NOTIFY_* type. A queue is a ring
 * of struct neuron_notify_entry in host memory that the device writes and
 * userspace reads through a read-only mapping: the first 4 KiB hold a
 * struct neuron_notify_header, entry i (free running) is at byte
 * NEURON_NOTIFY_ENTRY_OFFSET + (i % entries) * sizeof(entry). The device
 * writes an entry, then advances head; when the ring is full (head - tail
 * == entries) it drops the new entry and counts it in overflow instead of
 * overwriting unread ones. The consumer gives entries back with
 * NEURON_IOCTL_NOTIFY_WAIT (@consumed), which also sleeps until head moves.
 */
/** NEURON_CAP_NOTIFY - NOTIFY_SETUP, NOTIFY_WAIT, NOTIFY_TEARDOWN. */
#define NEURON_CAP_NOTIFY		_BITULL(3)

/* Queue types (struct neuron_notify_setup.type). */
/** NEURON_NOTIFY_COMPLETION - a DMA transfer or program step finished. */
#define NEURON_NOTIFY_COMPLETION	0
/** NEURON_NOTIFY_EVENT - an event the device program signalled. */
#define NEURON_NOTIFY_EVENT		1
/** NEURON_NOTIFY_ERROR - the device reports an error. */
#define NEURON_NOTIFY_ERROR		2
/** NEURON_NOTIFY_TRACE - trace records. */
#define NEURON_NOTIFY_TRACE		3
#define NEURON_NOTIFY_TYPES		4

/* Ring sizes in entries: a power of two in this range. */
#define NEURON_NOTIFY_MIN_ENTRIES	16
#define NEURON_NOTIFY_MAX_ENTRIES	65536
/** NEURON_NOTIFY_ENTRY_OFFSET - byte offset of entry 0 in the mapping. */
#define NEURON_NOTIFY_ENTRY_OFFSET	4096

/**
 * struct neuron_notify_entry - one notification, written by the device
 * @seq: Out: the entry's producer index (head before it was written), so
 *	that the entry at index i of the ring has @seq == i.
 * @type: Out: NEURON_NOTIFY_* type of the queue.
 * @nc: Out: NeuronCore of the queue.
 * @code: Out: what happened; its meaning depends on the source.
 * @data: Out: an argument of @code.
 */
struct neuron_notify_entry {
	__u32 seq;
	__u16 type;
	__u16 nc;
	__u32 code;
	__u32 data;
};

/**
 * struct neuron_notify_header - start of a queue's mapping, written by the
 * device only
 *
 * Indexes are free running 32-bit counters: the ring slot of index i is
 * i % @entries, and head - tail (modulo 2^32) entries are unread. Read
 * @head with acquire ordering before reading the entries below it.
 *
 * @head: Out: producer index: entries below it are written.
 * @tail: Out: consumer index as the device knows it (the last @consumed
 *	of %NEURON_IOCTL_NOTIFY_WAIT); entries from @tail up may be unread.
 * @overflow: Out: notifications dropped because the ring was full.
 * @entries: Out: ring size in entries.
 * @reserved: Out: zero.
 */
struct neuron_notify_header {
	__u32 head;
	__u32 tail;
	__u32 overflow;
	__u32 entries;
	__u32 reserved[12];
};

/**
 * struct neuron_notify_setup - argument of %NEURON_IOCTL_NOTIFY_SETUP
 * @nc: In: NeuronCore, below nc_count.
 * @type: In: NEURON_NOTIFY_* type.
 * @entries: In: ring size in entries, a power of two from
 *	NEURON_NOTIFY_MIN_ENTRIES to NEURON_NOTIFY_MAX_ENTRIES.
 * @flags: In: must be 0.
 * @eventfd: In: an eventfd the driver signals when head or overflow moves
 *	(and when the queue fails), or -1 for none.
 * @pad: In: must be 0.
 * @mmap_offset: Out: offset to pass to mmap() (PROT_READ, MAP_SHARED).
 * @mmap_size: Out: bytes of the mapping: the header page and the entries,
 *	rounded up to whole pages.
 * @reserved: In: must be 0.
 */
struct neuron_notify_setup {
	__u32 nc;
	__u32 type;
	__u32 entries;
	__u32 flags;
	__s32 eventfd;
	__u32 pad;
	__u64 mmap_offset;
	__u64 mmap_size;
	__u64 reserved[2];
};

/**
 * struct neuron_notify_wait - argument of %NEURON_IOCTL_NOTIFY_WAIT
 * @nc: In: NeuronCore of the queue.
 * @type: In: NEURON_NOTIFY_* type of the queue.
 * @consumed: In: new consumer index: the entries below it are read and
 *	their slots may be reused. Between the current tail and head.
 * @flags: In: must be 0.
 * @timeout_ns: In: absolute CLOCK_MONOTONIC deadline in nanoseconds; 0
 *	does not wait (only reports head and overflow).
 * @head: Out: producer index, validated by the driver.
 * @overflow: Out: notifications dropped so far.
 * @reserved: In: must be 0.
 */
struct neuron_notify_wait {
	__u32 nc;
	__u32 type;
	__u32 consumed;
	__u32 flags;
	__s64 timeout_ns;
	__u32 head;
	__u32 overflow;
	__u64 reserved[2];
};

/**
 * struct neuron_notify_teardown - argument of %NEURON_IOCTL_NOTIFY_TEARDOWN
 * @nc: In: NeuronCore of the queue.
 * @type: In: NEURON_NOTIFY_* type of the queue.
 * @flags: In: must be 0.
 * @pad: In: must be 0.
 */
struct neuron_notify_teardown {
	__u32 nc;
	__u32 type;
	__u32 flags;
	__u32 pad;
};

/**
 * NEURON_IOCTL_NOTIFY_SETUP - create a notification queue and own it
 *
 * Who: any opener; the queue (@nc, @type) of the device then belongs to
 * the calling file until NOTIFY_TEARDOWN or until the file is released,
 * and only that file may map and wait on it. Errors: -EINVAL (a field out
 * of range or not zero), -EOPNOTSUPP (no NEURON_CAP_NOTIFY), -EBUSY (the
 * queue has an owner), -EBADF (@eventfd is not an open file; -EINVAL if
 * it is not an eventfd), -ENOMEM, -ENODEV.
 */
#define NEURON_IOCTL_NOTIFY_SETUP	_IOWR(NEURON_IOCTL_MAGIC, 0x08, struct neuron_notify_setup)

/**
 * NEURON_IOCTL_NOTIFY_WAIT - give entries back, wait for new ones
 *
 * Who: the owner of the queue. Sets the consumer index to @consumed, then
 * waits until head differs from @consumed or the deadline passes.
 * Returns 0 with @head and @overflow; -ETIME at the deadline; -EINVAL
 * (@consumed outside tail..head, non-zero @flags or @reserved, @nc or
 * @type out of range); -ENOENT (the file does not own the queue, or it was
 * torn down meanwhile); -EIO (the device wrote an impossible head: the
 * queue is dead until torn down); -ERESTARTSYS on a signal (restarted with
 * the same absolute deadline); -EOPNOTSUPP; -ENODEV.
 */
#define NEURON_IOCTL_NOTIFY_WAIT	_IOWR(NEURON_IOCTL_MAGIC, 0x09, struct neuron_notify_wait)

/**
 * NEURON_IOCTL_NOTIFY_TEARDOWN - stop a queue and give it up
 *
 * Who: the owner. Existing mappings stay readable (frozen) until
 * unmapped. Errors: -EINVAL, -ENOENT (not owned by the file),
 * -EOPNOTSUPP, -ENODEV.
 */
#define NEURON_IOCTL_NOTIFY_TEARDOWN \
	_IOW(NEURON_IOCTL_MAGIC, 0x0a, struct neuron_notify_teardown)

/* ---- end of notification queues ---- */

/*
 * ---- NeuronCore reservation (NEURON_CAP_RESERVE) ----
 *
 * A file reserves NeuronCores of its device for itself alone. While an NC
 * is reserved, every call of another file that touches it (memory charged
 * to it, copies through it, its notification queues) fails with -EBUSY;
 * an NC nobody reserved stays open to every writable file. A reservation
 * ends with NC_RELEASE or when the file is released (its last close: the
 * exit of a killed owner releases it at once). NEURON_QUERY_NC_STATE tells
 * who holds what.
 */

/** NEURON_CAP_RESERVE - NC_RESERVE, NC_RELEASE and NEURON_QUERY_NC_STATE. */
#define NEURON_CAP_RESERVE		_BITULL(4)

/* NeuronCore states (struct neuron_nc_state.state). */
#define NEURON_NC_FREE			0	/* in service, not reserved */
#define NEURON_NC_RESERVED		1	/* in service, reserved by a file */
#define NEURON_NC_RUNNING		2	/* its core is executing a model */
#define NEURON_NC_RESETTING		3	/* being reset after a hang or error */
#define NEURON_NC_FAILED		4	/* out of service: a reset failed */

/* struct neuron_nc_state.flags */
/** NEURON_NC_STATE_MINE - reserved by the calling file. */
#define NEURON_NC_STATE_MINE		_BITUL(0)
/** NEURON_NC_STATE_OWNER - @owner_pid and @owner_uid are given. */
#define NEURON_NC_STATE_OWNER		_BITUL(1)

/**
 * struct neuron_nc_state - one NeuronCore in %NEURON_QUERY_NC_STATE
 * @state: Out: NEURON_NC_*.
 * @flags: Out: NEURON_NC_STATE_* bits.
 * @owner_pid: Out: the process (thread group, in the caller's pid
 *	namespace) that reserved the NC; given (NEURON_NC_STATE_OWNER) only
 *	to a caller of the same uid as the owner or with CAP_SYS_ADMIN, else 0.
 * @owner_uid: Out: the owner's uid (in the caller's user namespace), given
 *	under the same rule, else 0.
 */
struct neuron_nc_state {
	__u32 state;
	__u32 flags;
	__s32 owner_pid;
	__u32 owner_uid;
};

/**
 * struct neuron_nc_states - answer of %NEURON_QUERY_NC_STATE
 *
 * The answer is this structure followed by @nc_count entries of struct
 * neuron_nc_state, one per NeuronCore.
 *
 * @nc_count: Out: entries that follow.
 * @pad: Out: zero.
 */
struct neuron_nc_states {
	__u32 nc_count;
	__u32 pad;
};

/**
 * struct neuron_nc_reserve - argument of %NEURON_IOCTL_NC_RESERVE and
 *	%NEURON_IOCTL_NC_RELEASE
 * @nc_mask: In: the NeuronCores, bit n for NC n; at least one, all below
 *	nc_count.
 * @flags: In: must be 0.
 * @pad: In: must be 0.
 */
struct neuron_nc_reserve {
	__u64 nc_mask;
	__u32 flags;
	__u32 pad;
};

/*
 * NEURON_IOCTL_NC_RESERVE: reserve every NC of @nc_mask for this file, all
 * or none; NCs the file already holds are kept. Errors: -EINVAL (fields),
 * -EOPNOTSUPP (no NEURON_CAP_RESERVE), -EBUSY (an NC is held by another
 * file), -EIO (an NC is out of service), -EBADF (file not opened for
 * writing), -ENODEV.
 */
#define NEURON_IOCTL_NC_RESERVE	_IOW(NEURON_IOCTL_MAGIC, 0x0b, struct neuron_nc_reserve)

/*
 * NEURON_IOCTL_NC_RELEASE: release every NC of @nc_mask, all or none.
 * Errors: -EINVAL (fields), -EOPNOTSUPP, -ENOENT (an NC of the mask is not
 * held by this file), -EBADF, -ENODEV.
 */
#define NEURON_IOCTL_NC_RELEASE	_IOW(NEURON_IOCTL_MAGIC, 0x0c, struct neuron_nc_reserve)

/*
 * ---- Semaphores and events of a NeuronCore (NEURON_CAP_SEM) ----
 *
 * Each NC has semaphores_per_nc semaphores (u32 counters) and
 * events_per_nc events (0 or 1), which the programs of its engines use to
 * synchronise; the file that reserved the NC reads and changes them with
 * NEURON_IOCTL_NC_SEM, and waits for a value.
 */

/** NEURON_CAP_SEM - NEURON_IOCTL_NC_SEM. */
#define NEURON_CAP_SEM			_BITULL(5)

/* struct neuron_nc_sem.kind */
#define NEURON_SEM_KIND_SEMAPHORE	0
#define NEURON_SEM_KIND_EVENT		1

/* struct neuron_nc_sem.op */
/** NEURON_SEM_READ - read the value. */
#define NEURON_SEM_READ			0
/** NEURON_SEM_SET - set it to @value (an event: 1 if @value is not 0). */
#define NEURON_SEM_SET			1
/** NEURON_SEM_INC - add @value to a semaphore (-EOVERFLOW past U32_MAX). */
#define NEURON_SEM_INC			2
/** NEURON_SEM_DEC - take @value from a semaphore (-EAGAIN below 0). */
#define NEURON_SEM_DEC			3
/** NEURON_SEM_WAIT - wait until the value is at least @value (an event: is @value). */
#define NEURON_SEM_WAIT			4

/**
 * struct neuron_nc_sem - argument of %NEURON_IOCTL_NC_SEM
 * @nc: In: the NeuronCore, reserved by this file.
 * @kind: In: NEURON_SEM_KIND_SEMAPHORE or NEURON_SEM_KIND_EVENT.
 * @index: In: below semaphores_per_nc or events_per_nc.
 * @op: In: NEURON_SEM_*; INC and DEC only on a semaphore.
 * @value: In: the operand of SET, INC, DEC and WAIT (an event's is 0 or 1).
 *	Out: the value after the operation (on success only: a failed call
 *	changes nothing and copies nothing back).
 * @flags: In: must be 0.
 * @timeout_ns: In: WAIT: absolute CLOCK_MONOTONIC deadline in nanoseconds;
 *	a deadline in the past only checks. Other ops: must be 0.
 */
struct neuron_nc_sem {
	__u32 nc;
	__u32 kind;
	__u32 index;
	__u32 op;
	__u32 value;
	__u32 flags;
	__s64 timeout_ns;
};

/*
 * NEURON_IOCTL_NC_SEM: errors -EINVAL (a field out of range or not zero,
 * INC or DEC on an event), -EOPNOTSUPP (no NEURON_CAP_SEM), -EACCES (the
 * NC is not reserved by this file), -EAGAIN (DEC below 0), -EOVERFLOW
 * (INC past U32_MAX), -ETIME (WAIT: the deadline passed), -ERESTARTSYS
 * (WAIT: a signal; restarted with the same deadline), -EBADF, -ENODEV.
 */
#define NEURON_IOCTL_NC_SEM	_IOWR(NEURON_IOCTL_MAGIC, 0x0d, struct neuron_nc_sem)

/* ---- end of semaphores and events ---- */

/* ---- end of NeuronCore reservation ---- */

/*
 * ---- Models and execution (NEURON_CAP_EXEC) ----
 *
 * A model is a program for the engines of one NeuronCore: one block of
 * struct neuron_tpb_insn per engine, constant data, a scratch size and a
 * table of input/output slots. NEURON_IOCTL_MODEL_LOAD validates every
 * instruction, copies the blocks and the data into device memory owned by
 * the model and returns a model handle of the file; NEURON_IOCTL_EXECUTE
 * binds memory objects to the slots and runs it. The instruction set is
 * documented in docs/sim-isa.md. An instruction names memory only as a
 * region (NEURON_REGION_*) and an offset in it, never as an address.
 */

/** NEURON_CAP_EXEC - MODEL_LOAD, MODEL_UNLOAD, EXECUTE. */
#define NEURON_CAP_EXEC			_BITULL(6)

/* Engines of a NeuronCore: struct neuron_model_block.engine. */
#define NEURON_ENGINE_PE		0	/* matrix multiply */
#define NEURON_ENGINE_ACT		1	/* activation functions */
#define NEURON_ENGINE_POOL		2	/* pooling */
#define NEURON_ENGINE_DVE		3	/* vector (elementwise) */
#define NEURON_ENGINE_SP		4	/* sync and data movement */
#define NEURON_ENGINES			5

/* Element types: struct neuron_tpb_insn.dtype, neuron_model_slot.dtype. */
#define NEURON_DT_FP32			0
#define NEURON_DT_INT32			1

/* Regions: struct neuron_tpb_ref.region. */
/** NEURON_REGION_DATA - the model's constant data (read only). */
#define NEURON_REGION_DATA		0
/** NEURON_REGION_SCRATCH - the model's scratch memory (zeroed at load). */
#define NEURON_REGION_SCRATCH		1
/** NEURON_REGION_SLOT - the memory object bound to I/O slot @i. */
#define NEURON_REGION_SLOT(i)		(2 + (i))

/* Opcodes: struct neuron_tpb_insn.opcode (docs/sim-isa.md). */
#define NEURON_TPB_END			0x01
#define NEURON_TPB_JUMP			0x02
#define NEURON_TPB_COPY			0x10
#define NEURON_TPB_MATMUL		0x20
#define NEURON_TPB_ACT			0x30
#define NEURON_TPB_POOL			0x40
#define NEURON_TPB_TT			0x50
#define NEURON_TPB_TS			0x51
#define NEURON_TPB_SEM_SIGNAL		0x60
#define NEURON_TPB_SEM_WAIT		0x61
#define NEURON_TPB_EVENT_SET		0x62
#define NEURON_TPB_EVENT_WAIT		0x63
#define NEURON_TPB_NOTIFY		0x70

/* MATMUL func: add to the destination instead of overwriting it. */
#define NEURON_TPB_ACCUMULATE		1
/* ACT func */
#define NEURON_ACT_IDENTITY		0
#define NEURON_ACT_RELU			1
#define NEURON_ACT_SIGMOID		2
#define NEURON_ACT_TANH			3
/* POOL func */
#define NEURON_POOL_MAX			0
#define NEURON_POOL_AVG			1
/* TT and TS func: the operation, possibly with NEURON_TPB_BCAST (TT). */
#define NEURON_ALU_ADD			0
#define NEURON_ALU_SUB			1
#define NEURON_ALU_MUL			2
#define NEURON_ALU_MAX			3
#define NEURON_ALU_DIV			4
/* TT: operand b is one row of n elements, used for every row. */
#define NEURON_TPB_BCAST		0x80

/* Largest m, k, n of an instruction; largest elements of one operand. */
#define NEURON_TPB_MAX_DIM		1024
#define NEURON_TPB_MAX_ELEMS		(256 * 1024)
/* Largest block, in instructions. */
#define NEURON_TPB_MAX_INSNS		65536

/**
 * struct neuron_tpb_ref - a memory operand
 * @region: NEURON_REGION_*.
 * @offset: byte offset in the region, a multiple of 4.
 */
struct neuron_tpb_ref {
	__u32 region;
	__u32 offset;
};

/**
 * struct neuron_tpb_insn - one instruction (48 bytes; docs/sim-isa.md)
 * @opcode: NEURON_TPB_*.
 * @dtype: NEURON_DT_* of the elements.
 * @func: the operation's variant (ACT function, POOL kind, ALU op, flags).
 * @flags: must be 0.
 * @imm: immediate: a scalar (bits of a @dtype value), a count, a jump
 *	target or a notification value, per opcode.
 * @m: rows.
 * @k: inner dimension (MATMUL) or pooling window (POOL).
 * @n: columns, or elements.
 * @index: semaphore or event number.
 * @dst: destination operand.
 * @a: first source operand.
 * @b: second source operand.
 *
 * Fields an opcode does not use must be 0.
 */
struct neuron_tpb_insn {
	__u8 opcode;
	__u8 dtype;
	__u8 func;
	__u8 flags;
	__u32 imm;
	__u32 m;
	__u32 k;
	__u32 n;
	__u32 index;
	struct neuron_tpb_ref dst;
	struct neuron_tpb_ref a;
	struct neuron_tpb_ref b;
};

/**
 * struct neuron_model_block - the program of one engine
 * @insns: In: user pointer to @count struct neuron_tpb_insn.
 * @count: In: 1 to NEURON_TPB_MAX_INSNS.
 * @engine: In: NEURON_ENGINE_*, each engine at most once per model.
 */
struct neuron_model_block {
	__u64 insns;
	__u32 count;
	__u32 engine;
};

/* struct neuron_model_slot.kind */
#define NEURON_SLOT_INPUT		0
#define NEURON_SLOT_OUTPUT		1
#define NEURON_MAX_SLOTS		64
#define NEURON_MAX_DIMS			4

/**
 * struct neuron_model_slot - one input or output of a model
 * @size: In: bytes, at least 4, a multiple of 4; the memory object bound
 *	to the slot at execution must be at least this large.
 * @kind: In: NEURON_SLOT_INPUT (the program may not write it) or
 *	NEURON_SLOT_OUTPUT.
 * @dtype: In: NEURON_DT_*.
 * @ndim: In: 0 to NEURON_MAX_DIMS; when not 0, the product of @shape
 *	times 4 is @size.
 * @shape: In: dimensions; entries from @ndim on must be 0.
 * @name: In: the caller's name for the slot (an index into its own name
 *	table); the driver keeps it and does not interpret it.
 */
struct neuron_model_slot {
	__u64 size;
	__u32 kind;
	__u32 dtype;
	__u32 ndim;
	__u32 shape[NEURON_MAX_DIMS];
	__u32 name;
};

/**
 * struct neuron_model_load - argument of %NEURON_IOCTL_MODEL_LOAD
 * @nc: In: the NeuronCore, reserved by this file.
 * @flags: In: must be 0.
 * @blocks: In: user pointer to @nblocks struct neuron_model_block.
 * @slots: In: user pointer to @nslots struct neuron_model_slot.
 * @data: In: user pointer to @data_size bytes of constants (0 if none).
 * @data_size: In: bytes of constants (region NEURON_REGION_DATA).
 * @scratch_size: In: bytes of scratch memory (region
 *	NEURON_REGION_SCRATCH), zeroed at load and kept between executions.
 * @nblocks: In: 1 to NEURON_ENGINES.
 * @nslots: In: 0 to NEURON_MAX_SLOTS.
 * @handle: Out: the model, a handle of this file.
 * @err_block: Out: on -ENOEXEC, the index in @blocks of the block refused;
 *	else ~0.
 * @err_insn: Out: on -ENOEXEC, the instruction refused (its index in the
 *	block; the block's count when it has no end); else ~0.
 * @pad: In: must be 0.
 *
 * Unlike other calls, this one also writes its Out fields when it fails.
 */
struct neuron_model_load {
	__u32 nc;
	__u32 flags;
	__u64 blocks;
	__u64 slots;
	__u64 data;
	__u64 data_size;
	__u64 scratch_size;
	__u32 nblocks;
	__u32 nslots;
	__u32 handle;
	__u32 err_block;
	__u32 err_insn;
	__u32 pad;
};

/*
 * NEURON_IOCTL_MODEL_LOAD: errors -ENOEXEC (an instruction is invalid:
 * unknown opcode, an engine that has no such instruction, a field out of
 * range or not zero, an operand outside its region or writing a read-only
 * one, a jump out of the block, a block that does not end with END or
 * JUMP; @err_block and @err_insn tell which), -EINVAL (a field of the
 * argument, a block or a slot out of range or not zero, an engine given
 * twice), -E2BIG (more than NEURON_TPB_MAX_INSNS in a block), -EACCES (the
 * NC is not reserved by this file), -ENOMEM (the model does not fit in the
 * NC's memory: nothing is loaded), -ENOSPC (the file's limits), -EFAULT,
 * -EOPNOTSUPP (no NEURON_CAP_EXEC), -EBADF, -ENODEV.
 */
#define NEURON_IOCTL_MODEL_LOAD	_IOWR(NEURON_IOCTL_MAGIC, 0x0e, struct neuron_model_load)

/**
 * struct neuron_model_unload - argument of %NEURON_IOCTL_MODEL_UNLOAD
 * @handle: In: a model of this file.
 * @flags: In: must be 0.
 *
 * The handle goes at once; executions already queued still run, and the
 * model's memory is freed after the last of them.
 */
struct neuron_model_unload {
	__u32 handle;
	__u32 flags;
};

/* NEURON_IOCTL_MODEL_UNLOAD: -ENOENT (not a model of this file), -EINVAL. */
#define NEURON_IOCTL_MODEL_UNLOAD	_IOW(NEURON_IOCTL_MAGIC, 0x0f, struct neuron_model_unload)

/* struct neuron_execute.flags: submit and wait for the end in one call. */
#define NEURON_EXEC_WAIT		_BITUL(0)

/* struct neuron_execute.status; WAIT returns the errno given here. */
/** NEURON_EXEC_OK - the program ended (WAIT: 0). */
#define NEURON_EXEC_OK			0
/** NEURON_EXEC_BAD_INPUT - the input faulted an instruction (-EDOM). */
#define NEURON_EXEC_BAD_INPUT		1
/** NEURON_EXEC_DEVICE_ERROR - the NC reported an error (-EIO). */
#define NEURON_EXEC_DEVICE_ERROR	2
/** NEURON_EXEC_TIMEOUT - it overran its timeout; the NC was reset (-ETIMEDOUT). */
#define NEURON_EXEC_TIMEOUT		3
/** NEURON_EXEC_CANCELLED - queued behind one that was reset (-ECANCELED). */
#define NEURON_EXEC_CANCELLED		4

/**
 * struct neuron_execute - argument of %NEURON_IOCTL_EXECUTE
 * @model: In: a model of this file, on an NC this file holds.
 * @flags: In: 0 or NEURON_EXEC_WAIT.
 * @bindings: In: user pointer to @nbindings __u32 memory handles of this
 *	file, one per slot in slot order: device memory, at least the slot's
 *	size.
 * @nbindings: In: the model's slot count.
 * @timeout_ms: In: how long the execution may run once started before
 *	the NC is reset; 0 for the module's exec_timeout_ms; at most 600000.
 * @seqno: Out: without NEURON_EXEC_WAIT, the sequence number for
 *	NEURON_IOCTL_WAIT; else 0.
 * @status: Out: with NEURON_EXEC_WAIT, NEURON_EXEC_*; else 0.
 * @pad: In: must be 0.
 */
struct neuron_execute {
	__u32 model;
	__u32 flags;
	__u64 bindings;
	__u32 nbindings;
	__u32 timeout_ms;
	__u64 seqno;
	__u32 status;
	__u32 pad;
};

/*
 * NEURON_IOCTL_EXECUTE: errors -ENOENT (model or handle not the file's),
 * -EINVAL (a field, a binding count or a memory object that does not fit
 * its slot), -EACCES (the model's NC is not held by this file), -EAGAIN
 * (the NC's queue is full, or the file's max_async), -EIO (the NC is out
 * of service), -EFAULT, -EOPNOTSUPP, -EBADF, -ENODEV. With
 * NEURON_EXEC_WAIT the call returns 0 once the execution ended, however
 * it ended (@status); the wait can be ended only by a fatal signal (an
 * execution always ends within its timeout).
 */
#define NEURON_IOCTL_EXECUTE	_IOWR(NEURON_IOCTL_MAGIC, 0x10, struct neuron_execute)

/* struct neuron_notify_entry.code of execution (ERROR and EVENT queues) */
/** NEURON_NOTIFY_EXEC_TIMEOUT - ERROR: an execution overran, the NC was reset. */
#define NEURON_NOTIFY_EXEC_TIMEOUT	0x100
/** NEURON_NOTIFY_EXEC_FAULT - ERROR: an execution ended with a device error. */
#define NEURON_NOTIFY_EXEC_FAULT	0x101
/** NEURON_NOTIFY_PROGRAM - EVENT: a NOTIFY instruction; data is its @imm. */
#define NEURON_NOTIFY_PROGRAM		0x200

/* ---- end of models and execution ---- */

#endif /* _UAPI_NEURON_H */
