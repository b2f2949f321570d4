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
#define NEURON_UAPI_VERSION_MINOR	0
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
#define NEURON_QUERY_COUNT		2

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
 * pages. Device-wide figures count memory that is still alive (a mapping
 * keeps freed memory alive); the file's figures count its live handles.
 *
 * @device_bytes: Out: device memory in use on the device.
 * @host_bytes: Out: host memory in use for the device.
 * @file_device_bytes: Out: device memory of the calling file's handles.
 * @file_host_bytes: Out: host memory of the calling file's handles.
 * @file_handles: Out: live memory handles of the calling file.
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
 * @pad: In: must be 0.
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
	__u32 pad;
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

#endif /* _UAPI_NEURON_H */
