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

/* Device flags (struct neuron_device_info.flags). */
/** NEURON_DEV_SIMULATED - the device is a simulated one (driver/sim). */
#define NEURON_DEV_SIMULATED		_BITUL(0)
/** NEURON_DEV_ENGINES_OFF - silicon found but its engines are not driven. */
#define NEURON_DEV_ENGINES_OFF		_BITUL(1)

/* Query operations (struct neuron_query.op). */
/** NEURON_QUERY_DEVICE - fills a struct neuron_device_info. */
#define NEURON_QUERY_DEVICE		0
#define NEURON_QUERY_COUNT		1

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
 * NEURON_IOCTL_QUERY - read information about the device
 *
 * Who: any opener of the device node.  Errors: -EINVAL for an unknown @op,
 * non-zero @flags, @pad or @reserved; -EFAULT for a bad @data; -ENODEV once
 * the device is gone.
 */
#define NEURON_IOCTL_QUERY	_IOWR(NEURON_IOCTL_MAGIC, 0x00, struct neuron_query)

#endif /* _UAPI_NEURON_H */
