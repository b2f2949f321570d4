/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * neuron: the generic netlink family "neuron" (docs/netlink.md): devices
 * and NeuronCores read without opening a device, and a multicast group of
 * events. Nothing here changes state; every attribute is validated by a
 * strict policy; no kernel address is ever sent.
 */
#ifndef _UAPI_NEURON_NETLINK_H
#define _UAPI_NEURON_NETLINK_H

#define NEURON_GENL_NAME		"neuron"
#define NEURON_GENL_VERSION		1
/* The multicast group of events (NEURON_CMD_EVENT messages). */
#define NEURON_GENL_MCGRP_EVENTS	"events"

/**
 * enum neuron_cmd - commands of the family
 * @NEURON_CMD_UNSPEC: unused.
 * @NEURON_CMD_DEV_GET: do (NEURON_A_DEV_INDEX given) or dump: one message
 *	per device with the NEURON_A_DEV_* attributes.
 * @NEURON_CMD_NC_GET: do (NEURON_A_DEV_INDEX and NEURON_A_NC_INDEX given)
 *	or dump (all NCs of all devices, or of the device NEURON_A_DEV_INDEX
 *	names): one message per NC with NEURON_A_DEV_INDEX and the
 *	NEURON_A_NC_* attributes.
 * @NEURON_CMD_EVENT: a notification of the "events" group, with
 *	NEURON_A_EVENT_TYPE, NEURON_A_DEV_INDEX and, when it is about one
 *	NC, NEURON_A_NC_INDEX; NEURON_A_EVENT_CODE for faults.
 * @NEURON_CMD_DEV_FW_GET: do only, NEURON_A_DEV_INDEX given: what the
 *	device's firmware reports, asked through its mailbox (it may take
 *	seconds): NEURON_A_DEV_INDEX, NEURON_A_DEV_SERIAL and one
 *	NEURON_A_DEV_ECC per ECC counter. EOPNOTSUPP for a device with no
 *	firmware to ask (the simulator, a PCI device with its engines off),
 *	ETIMEDOUT when the firmware does not answer, EIO when it fails the
 *	request, EPROTO when its answer is not one.
 */
enum neuron_cmd {
	NEURON_CMD_UNSPEC,
	NEURON_CMD_DEV_GET,
	NEURON_CMD_NC_GET,
	NEURON_CMD_EVENT,
	NEURON_CMD_DEV_FW_GET,
	__NEURON_CMD_MAX,
};

#define NEURON_CMD_MAX	(__NEURON_CMD_MAX - 1)

/* enum neuron_event_type: NEURON_A_EVENT_TYPE */
enum neuron_event_type {
	NEURON_EVENT_DEV_ADDED = 1,
	NEURON_EVENT_DEV_REMOVED,
	NEURON_EVENT_NC_RESERVED,
	NEURON_EVENT_NC_RELEASED,
	NEURON_EVENT_NC_RESET,		/* NEURON_A_EVENT_CODE: why (below) */
	NEURON_EVENT_DMA_FAULT,		/* NEURON_A_EVENT_CODE: NEURON_DMA error */
	NEURON_EVENT_EXEC_TIMEOUT,
	NEURON_EVENT_NOTIFY_OVERFLOW,	/* NEURON_A_EVENT_CODE: the queue type */
	NEURON_EVENT_DEV_LOST,		/* the device stopped answering (below) */
};

/*
 * NEURON_EVENT_DEV_LOST: the device no longer answers (a PCI device that
 * reads all ones: surprise removal, docs/netlink.md). Its calls end with
 * ENODEV from then on and the driver unbinds from it: DEV_REMOVED follows.
 * No NC, no code.
 */

/* NEURON_A_EVENT_CODE of NEURON_EVENT_NC_RESET */
#define NEURON_RESET_DMA_ERROR		1
#define NEURON_RESET_DMA_HANG		2
#define NEURON_RESET_EXEC_TIMEOUT	3

/* NEURON_A_NC_STATE: the NEURON_NC_* states of uapi/neuron.h. */

/* NEURON_A_ECC_INDEX: the memory an ECC counter is of. */
#define NEURON_ECC_SRAM		0
#define NEURON_ECC_HBM0		1	/* HBM stack i: NEURON_ECC_HBM0 + i */
#define NEURON_ECC_COUNTERS	5

/**
 * enum neuron_attr - attributes (NLA_ types in docs/netlink.md)
 * @NEURON_A_UNSPEC: unused.
 * @NEURON_A_DEV_INDEX: u32, the device's minor (N of /dev/neuronN).
 * @NEURON_A_DEV_ARCH: u32, NEURON_ARCH_*.
 * @NEURON_A_DEV_ARCH_NAME: string ("v2").
 * @NEURON_A_DEV_PRODUCT: string ("trn1", "sim", ...).
 * @NEURON_A_DEV_PCI_ADDR: string, "dddd:bb:dd.f" of a PCI device.
 * @NEURON_A_DEV_SIM_ID: u32, the ID of a simulated device.
 * @NEURON_A_DEV_NC_COUNT: u32.
 * @NEURON_A_DEV_MEM_TOTAL: u64, device memory in bytes.
 * @NEURON_A_DEV_MEM_USED_DEVICE: u64, device memory in use.
 * @NEURON_A_DEV_MEM_USED_HOST: u64, host memory objects in use.
 * @NEURON_A_DEV_CHANNEL: nested, one per DRAM channel, with
 *	NEURON_A_CHANNEL_INDEX, _TOTAL, _USED (u32, u64, u64).
 * @NEURON_A_DEV_STATE: u32, 0 present, 1 being removed.
 * @NEURON_A_NC_INDEX: u32.
 * @NEURON_A_NC_STATE: u32, NEURON_NC_*.
 * @NEURON_A_NC_OWNER_PID: u32, the reserving process (in the reader's pid
 *	namespace); only to the same effective uid or CAP_SYS_ADMIN.
 * @NEURON_A_NC_MODELS: u32, models loaded on the NC.
 * @NEURON_A_NC_EXECUTIONS: u64, executions ended.
 * @NEURON_A_NC_EXEC_ERRORS: u64, executions that did not end OK.
 * @NEURON_A_NC_BUSY_NS: u64, time the core spent executing.
 * @NEURON_A_NC_DMA_JOBS: u64, DMA jobs submitted.
 * @NEURON_A_NC_DMA_ERRORS: u64, DMA jobs that failed.
 * @NEURON_A_NC_RESETS: u64.
 * @NEURON_A_NC_MEM_DEVICE: u64, device memory charged to the NC.
 * @NEURON_A_NC_MEM_HOST: u64, host memory charged to the NC.
 * @NEURON_A_EVENT_TYPE: u32, enum neuron_event_type.
 * @NEURON_A_EVENT_CODE: u32, per type.
 * @NEURON_A_CHANNEL_INDEX: u32 (nested in NEURON_A_DEV_CHANNEL).
 * @NEURON_A_CHANNEL_TOTAL: u64.
 * @NEURON_A_CHANNEL_USED: u64.
 * @NEURON_A_PAD: padding of the u64 attributes.
 * @NEURON_A_NC_EXEC_OK: u64, executions that ended NEURON_EXEC_OK.
 * @NEURON_A_NC_EXEC_BAD_INPUT: u64, executions that ended
 *	NEURON_EXEC_BAD_INPUT (their input faulted an instruction).
 * @NEURON_A_NC_EXEC_DEVICE_ERROR: u64, executions that ended
 *	NEURON_EXEC_DEVICE_ERROR (the NC reported an error).
 * @NEURON_A_NC_EXEC_TIMEOUT: u64, executions that ended
 *	NEURON_EXEC_TIMEOUT (they overran their timeout).
 * @NEURON_A_NC_EXEC_CANCELLED: u64, executions that ended
 *	NEURON_EXEC_CANCELLED (queued behind one that was reset).
 * @NEURON_A_NC_EXEC_LATENCY: nested, the histogram of the executions'
 *	time on the core: attribute type i + 1 is a u64, the executions of
 *	2^i to 2^(i+1) - 1 ns (bucket 0 from 0 ns; the last bucket sent has
 *	no end); type 0 is padding. Executions that never ran are not in
 *	it. A reader ignores types it does not know (more buckets).
 * @NEURON_A_NC_MEM_DEVICE_BY_USAGE: nested, the device memory that the
 *	NC's reserver (its open file) has alive and charged to the NC, by
 *	usage: attribute type u + 1 is a u64, the bytes of
 *	NEURON_MEM_USAGE_* u (uapi/neuron.h); type 0 is padding. A reader
 *	ignores types it does not know (more usages).
 * @NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE: nested, as
 *	NEURON_A_NC_MEM_DEVICE_BY_USAGE, each usage's highest figure since
 *	the reserver opened the device.
 * @NEURON_A_NC_MEM_HOST_BY_USAGE: nested, as
 *	NEURON_A_NC_MEM_DEVICE_BY_USAGE for host memory.
 * @NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE: nested, as
 *	NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE for host memory.
 * @NEURON_A_NC_MEM_DEVICE_PEAK: u64, the highest device memory the
 *	reserver had alive and charged to the NC at one time (all usages).
 * @NEURON_A_NC_MEM_HOST_PEAK: u64, as NEURON_A_NC_MEM_DEVICE_PEAK for
 *	host memory.
 * @NEURON_A_NC_EXEC_TOTAL_LATENCY: nested, the histogram of the
 *	executions' time from their submission (the EXECUTE call) to their
 *	end, however they ended, with the buckets of NEURON_A_NC_EXEC_LATENCY.
 * @NEURON_A_DEV_SERIAL: u64, the device's serial number (DEV_FW_GET).
 * @NEURON_A_DEV_ECC: nested, one per ECC counter of the device
 *	(DEV_FW_GET), with NEURON_A_ECC_INDEX, _CORRECTED, _UNCORRECTED.
 * @NEURON_A_ECC_INDEX: u32 (nested in NEURON_A_DEV_ECC), the memory:
 *	NEURON_ECC_SRAM, or NEURON_ECC_HBM0 + i for HBM stack i.
 * @NEURON_A_ECC_CORRECTED: u32, errors corrected (16 bits wide).
 * @NEURON_A_ECC_UNCORRECTED: u32, errors not corrected (16 bits wide).
 *
 * NEURON_A_NC_EXEC_OK to NEURON_A_NC_EXEC_LATENCY and
 * NEURON_A_NC_EXEC_TOTAL_LATENCY tell how another user's work runs:
 * NC_GET sends them only to a reader with CAP_SYS_ADMIN, or of the
 * effective uid of the NC's reserver while it is reserved (the rule of
 * NEURON_A_NC_OWNER_PID). NEURON_A_NC_MEM_DEVICE_BY_USAGE to
 * NEURON_A_NC_MEM_HOST_PEAK are the reserver's own figures: they are sent
 * while the NC is reserved, to the same readers.
 */
enum neuron_attr {
	NEURON_A_UNSPEC,
	NEURON_A_DEV_INDEX,
	NEURON_A_DEV_ARCH,
	NEURON_A_DEV_ARCH_NAME,
	NEURON_A_DEV_PRODUCT,
	NEURON_A_DEV_PCI_ADDR,
	NEURON_A_DEV_SIM_ID,
	NEURON_A_DEV_NC_COUNT,
	NEURON_A_DEV_MEM_TOTAL,
	NEURON_A_DEV_MEM_USED_DEVICE,
	NEURON_A_DEV_MEM_USED_HOST,
	NEURON_A_DEV_CHANNEL,
	NEURON_A_DEV_STATE,
	NEURON_A_NC_INDEX,
	NEURON_A_NC_STATE,
	NEURON_A_NC_OWNER_PID,
	NEURON_A_NC_MODELS,
	NEURON_A_NC_EXECUTIONS,
	NEURON_A_NC_EXEC_ERRORS,
	NEURON_A_NC_BUSY_NS,
	NEURON_A_NC_DMA_JOBS,
	NEURON_A_NC_DMA_ERRORS,
	NEURON_A_NC_RESETS,
	NEURON_A_NC_MEM_DEVICE,
	NEURON_A_NC_MEM_HOST,
	NEURON_A_EVENT_TYPE,
	NEURON_A_EVENT_CODE,
	NEURON_A_CHANNEL_INDEX,
	NEURON_A_CHANNEL_TOTAL,
	NEURON_A_CHANNEL_USED,
	NEURON_A_PAD,
	NEURON_A_NC_EXEC_OK,
	NEURON_A_NC_EXEC_BAD_INPUT,
	NEURON_A_NC_EXEC_DEVICE_ERROR,
	NEURON_A_NC_EXEC_TIMEOUT,
	NEURON_A_NC_EXEC_CANCELLED,
	NEURON_A_NC_EXEC_LATENCY,
	NEURON_A_NC_MEM_DEVICE_BY_USAGE,
	NEURON_A_NC_MEM_DEVICE_PEAK_BY_USAGE,
	NEURON_A_NC_MEM_HOST_BY_USAGE,
	NEURON_A_NC_MEM_HOST_PEAK_BY_USAGE,
	NEURON_A_NC_MEM_DEVICE_PEAK,
	NEURON_A_NC_MEM_HOST_PEAK,
	NEURON_A_NC_EXEC_TOTAL_LATENCY,
	NEURON_A_DEV_SERIAL,
	NEURON_A_DEV_ECC,
	NEURON_A_ECC_INDEX,
	NEURON_A_ECC_CORRECTED,
	NEURON_A_ECC_UNCORRECTED,
	__NEURON_A_MAX,
};

#define NEURON_A_MAX	(__NEURON_A_MAX - 1)

#endif /* _UAPI_NEURON_NETLINK_H */
