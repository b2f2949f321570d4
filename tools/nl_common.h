/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nl_common: what neuron-ls and neuron-monitor share: the connection to
 * the generic netlink family "neuron" (uapi/neuron_netlink.h), the dumps
 * of devices and NeuronCores, names of states and events, JSON strings.
 *
 * Exit codes of the tools (docs/man/neuron-ls.1, neuron-monitor.1).
 */
#ifndef NT_COMMON_H
#define NT_COMMON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include <netlink/genl/genl.h>

#define NT_EXIT_OK		0
#define NT_EXIT_NO_MODULE	1	/* no generic netlink family "neuron" */
#define NT_EXIT_NETLINK		2	/* any netlink error, EPERM included */
#define NT_EXIT_USAGE		64	/* EX_USAGE */

#define NT_STR_LEN		64
#define NT_MAX_CHANNELS		16

/* Bits of nt_nc.have / nt_dev.have: which attributes the kernel sent. */
enum {
	NT_NC_OWNER_PID = 1u << 0,
	NT_NC_MODELS = 1u << 1,
	NT_NC_EXECUTIONS = 1u << 2,
	NT_NC_EXEC_ERRORS = 1u << 3,
	NT_NC_BUSY_NS = 1u << 4,
	NT_NC_DMA_JOBS = 1u << 5,
	NT_NC_DMA_ERRORS = 1u << 6,
	NT_NC_RESETS = 1u << 7,
	NT_NC_MEM_DEVICE = 1u << 8,
	NT_NC_MEM_HOST = 1u << 9,
	NT_NC_STATE = 1u << 10,
	NT_NC_EXEC_STATUS = 1u << 11,	/* exec_status[], all of them */
	NT_NC_EXEC_LATENCY = 1u << 12,
	NT_NC_EXEC_TOTAL_LATENCY = 1u << 13,
	NT_NC_MEM_USAGE = 1u << 14,	/* the four tables by usage, the peaks */
};

/* Usages kept of the tables by usage (NEURON_MEM_USAGE_*; the kernel sends 8). */
#define NT_MEM_USAGES		16

/* nt_nc.exec_status[]: the NEURON_EXEC_* statuses (uapi/neuron.h). */
enum {
	NT_EXEC_OK, NT_EXEC_BAD_INPUT, NT_EXEC_DEVICE_ERROR, NT_EXEC_TIMEOUT,
	NT_EXEC_CANCELLED, NT_EXEC_STATUSES,
};

/* Buckets of the latency histogram kept (the kernel sends 40 today). */
#define NT_LATENCY_BUCKETS	64

enum {
	NT_DEV_ARCH = 1u << 0,
	NT_DEV_PCI = 1u << 1,
	NT_DEV_SIM_ID = 1u << 2,
	NT_DEV_NC_COUNT = 1u << 3,
	NT_DEV_MEM_TOTAL = 1u << 4,
	NT_DEV_MEM_USED_DEVICE = 1u << 5,
	NT_DEV_MEM_USED_HOST = 1u << 6,
	NT_DEV_STATE = 1u << 7,
};

struct nt_nc {
	uint32_t dev;
	uint32_t index;
	uint32_t have;		/* NL_NC_* */
	uint32_t state;
	uint32_t owner_pid;
	uint32_t models;
	uint64_t executions;
	uint64_t exec_errors;
	uint64_t busy_ns;
	uint64_t dma_jobs;
	uint64_t dma_errors;
	uint64_t resets;
	uint64_t mem_device;
	uint64_t mem_host;
	/* Executions by status; bucket i: of 2^i to 2^(i+1) - 1 ns on the core. */
	uint64_t exec_status[NT_EXEC_STATUSES];
	uint64_t exec_latency[NT_LATENCY_BUCKETS];
	/* The same buckets, of the time from submission to end. */
	uint64_t exec_total_latency[NT_LATENCY_BUCKETS];
	/* The reserver's memory on the NC by NEURON_MEM_USAGE_*, and peaks. */
	uint64_t mem_dev_usage[NT_MEM_USAGES], mem_dev_usage_peak[NT_MEM_USAGES];
	uint64_t mem_host_usage[NT_MEM_USAGES], mem_host_usage_peak[NT_MEM_USAGES];
	uint64_t mem_dev_peak, mem_host_peak;
};

struct nt_channel {
	uint32_t index;
	uint64_t total;
	uint64_t used;
};

struct nt_dev {
	uint32_t index;
	uint32_t have;		/* NL_DEV_* */
	uint32_t arch;
	char arch_name[NT_STR_LEN];
	char product[NT_STR_LEN];
	char pci_addr[NT_STR_LEN];
	uint32_t sim_id;
	uint32_t nc_count;
	uint32_t state;
	uint64_t mem_total;
	uint64_t mem_used_device;
	uint64_t mem_used_host;
	unsigned int n_channels;
	struct nt_channel channels[NT_MAX_CHANNELS];
	/* The NCs of the device from the NC_GET dump, sorted by index. */
	unsigned int n_ncs;
	struct nt_nc *ncs;
};

struct nt_snapshot {
	unsigned int n_devs;
	struct nt_dev *devs;	/* sorted by index */
};

struct nt_ctx {
	const char *prog;	/* for messages */
	struct nl_sock *sk;
	int family;
};

/*
 * Connect and resolve the family: NT_EXIT_OK, or an exit code after a
 * message on stderr (the module not loaded, a netlink error).
 */
int nt_ctx_open(struct nt_ctx *c, const char *prog);
void nt_ctx_close(struct nt_ctx *c);

/* Dump every device and every NC: NT_EXIT_OK or an exit code (message). */
int nt_snapshot_get(struct nt_ctx *c, struct nt_snapshot *s);
void nt_snapshot_free(struct nt_snapshot *s);

/* The attribute policy of the family (every NEURON_A_*). */
struct nla_policy *nt_neuron_policy(void);
/* Fill @nc from the parsed attributes of an NC_GET answer: 0, or -1. */
int nt_parse_nc(struct nlattr **tb, struct nt_nc *nc);
/* One dump of @cmd, @cb called per answer: 0 or a negative NLE_* code. */
int nt_dump(struct nt_ctx *c, uint8_t cmd, int (*cb)(struct nl_msg *, void *),
	    void *arg);

#define NT_ECC_COUNTERS		5

/**
 * struct nt_fw - a DEV_FW_GET answer
 * @serial: the device's serial number, if @have_serial.
 * @ecc_corrected: per NEURON_ECC_* counter, if bit i of @have_ecc.
 * @ecc_uncorrected: as @ecc_corrected.
 * @have_serial: the answer had NEURON_A_DEV_SERIAL.
 * @have_ecc: bit i: the answer had counter i.
 */
struct nt_fw {
	uint64_t serial;
	uint32_t ecc_corrected[NT_ECC_COUNTERS];
	uint32_t ecc_uncorrected[NT_ECC_COUNTERS];
	bool have_serial;
	uint32_t have_ecc;
};

/*
 * Ask device @dev's firmware (DEV_FW_GET): 0, or a negative NLE_* code;
 * *@kerr is then the kernel's errno when it refused the request, else 0.
 */
int nt_fw_get(struct nt_ctx *c, uint32_t dev, struct nt_fw *fw, int *kerr);

/* Print a message for libnl error @err (negative NLE_*) of @what. */
void nt_report(const char *prog, const char *what, int err);

/* Names (never NULL; "unknown" for values this build does not know). */
const char *nt_nc_state_name(uint32_t state);

/* The first line of @path, without its newline, into @buf: true if read. */
bool nt_read_line(const char *path, char *buf, size_t size);
/*
 * What the machine says about itself (DMI): on EC2 the instance type and
 * id, anywhere else both empty, never made up.
 */
void nt_instance_read(char *type, size_t type_size, char *id, size_t id_size);
const char *nt_event_name(uint32_t type);
/* Name of an event's code (reset reason, queue type) or NULL. */
const char *nt_event_code_name(uint32_t type, uint32_t code);

/* Print @s as a JSON string (quotes included) to @f. */
void nt_json_string(FILE *f, const char *s);

/* CLOCK_REALTIME as "seconds.milliseconds" into @buf. */
void nt_time_now(char *buf, size_t size);

#endif /* NT_COMMON_H */
