// SPDX-License-Identifier: GPL-2.0
/*
 * neuron-info: print what NEURON_IOCTL_QUERY says about neuron devices.
 *
 *   neuron-info [/dev/neuronN ...]
 *
 * Without arguments every /dev/neuron[0-9]* is shown.  Exit status: 0 when
 * every device answered, 1 on any error, 2 on bad usage.
 *
 * Build from the top of the tree: gcc -O2 -Wall -I uapi -o neuron-info <this file>
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "neuron.h"
#include "neuron_io.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

struct bit_name {
	unsigned long long bit;
	const char *name;
};

static const struct bit_name cap_names[] = {
	{ NEURON_CAP_QUERY, "QUERY" },
	{ NEURON_CAP_MEM, "MEM" },
	{ NEURON_CAP_COPY, "COPY" },
	{ NEURON_CAP_NOTIFY, "NOTIFY" },
	{ NEURON_CAP_RESERVE, "RESERVE" },
	{ NEURON_CAP_SEM, "SEM" },
	{ NEURON_CAP_EXEC, "EXEC" },
};

static const struct bit_name flag_names[] = {
	{ NEURON_DEV_SIMULATED, "SIMULATED" },
	{ NEURON_DEV_ENGINES_OFF, "ENGINES_OFF" },
};

static const char *prog = "neuron-info";

/* Print the names of the bits set in @v, unknown ones in hex. */
static void print_bits(unsigned long long v, const struct bit_name *names,
		       size_t count)
{
	const char *sep = "";
	size_t i;

	if (!v) {
		printf(" (none)\n");
		return;
	}
	printf(" (");
	for (i = 0; i < count; i++) {
		if (v & names[i].bit) {
			printf("%s%s", sep, names[i].name);
			sep = "|";
			v &= ~names[i].bit;
		}
	}
	if (v)
		printf("%sunknown 0x%llx", sep, v);
	printf(")\n");
}

static void print_size(const char *name, unsigned long long bytes)
{
	printf("  %-24s %llu", name, bytes);
	if (bytes && !(bytes & ((1u << 20) - 1)))
		printf(" (%llu MiB)", bytes >> 20);
	else if (bytes && !(bytes & ((1u << 10) - 1)))
		printf(" (%llu KiB)", bytes >> 10);
	printf("\n");
}

/* String fields are NUL-terminated by the driver; stay bounded anyway. */
static void print_str(const char *name, const char *s, size_t size)
{
	printf("  %-24s %.*s\n", name, (int)strnlen(s, size), s);
}

static void print_info(const char *path, const struct neuron_device_info *d,
		       unsigned int answer_size)
{
	printf("%s:\n", path);
	printf("  %-24s %u.%u (0x%08x)\n", "uapi_version", d->uapi_version >> 16,
	       d->uapi_version & 0xffff, d->uapi_version);
	print_str("driver_version", d->driver_version, sizeof(d->driver_version));
	printf("  %-24s %u\n", "arch", d->arch);
	print_str("arch_name", d->arch_name, sizeof(d->arch_name));
	print_str("product", d->product, sizeof(d->product));
	printf("  %-24s 0x%016llx", "caps", (unsigned long long)d->caps);
	print_bits(d->caps, cap_names, ARRAY_SIZE(cap_names));
	printf("  %-24s 0x%08x", "flags", d->flags);
	print_bits(d->flags, flag_names, ARRAY_SIZE(flag_names));
	printf("  %-24s %u\n", "minor", d->minor);
	printf("  %-24s %u\n", "sim_id", d->sim_id);
	printf("  %-24s 0x%04x\n", "pci_vendor", d->pci_vendor);
	printf("  %-24s 0x%04x\n", "pci_device", d->pci_device);
	printf("  %-24s 0x%04x\n", "pci_subsystem_vendor", d->pci_subsystem_vendor);
	printf("  %-24s 0x%04x\n", "pci_subsystem_device", d->pci_subsystem_device);
	printf("  %-24s %04x:%02x:%02x.%u\n", "pci_address", d->pci_domain,
	       d->pci_bus, d->pci_devfn >> 3, d->pci_devfn & 7);
	printf("  %-24s %u\n", "pci_domain", d->pci_domain);
	printf("  %-24s %u\n", "pci_bus", d->pci_bus);
	printf("  %-24s 0x%02x\n", "pci_devfn", d->pci_devfn);
	printf("  %-24s %u\n", "nc_count", d->nc_count);
	printf("  %-24s %u\n", "dma_engines", d->dma_engines);
	printf("  %-24s %u\n", "dma_queues_per_engine", d->dma_queues_per_engine);
	printf("  %-24s %u\n", "dram_channels", d->dram_channels);
	printf("  %-24s %u\n", "semaphores_per_nc", d->semaphores_per_nc);
	printf("  %-24s %u\n", "events_per_nc", d->events_per_nc);
	print_size("dram_size", d->dram_size);
	print_size("dram_channel_size", d->dram_channel_size);
	printf("  %-24s %u bytes", "answer_size", answer_size);
	if (answer_size > sizeof(*d))
		printf(" (this tool knows the first %zu)", sizeof(*d));
	else if (answer_size < sizeof(*d))
		printf(" (older driver: the fields past it read 0)");
	printf("\n");
}

/* Query @path and print it: 0, or 1 after an error message. */
static int show(const char *path)
{
	struct neuron_device_info info;
	__u32 size;
	int fd;

	fd = nio_open_path(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "%s: cannot open %s: %s\n", prog, path,
			strerror(errno));
		return 1;
	}
	if (nio_device_info(fd, &info, &size)) {
		int err = errno;

		fprintf(stderr, "%s: %s: NEURON_IOCTL_QUERY failed: %s%s\n",
			prog, path, strerror(err),
			err == ENOTTY ? " (not a neuron device?)" :
			err == ENODEV ? " (the device was removed)" : "");
		close(fd);
		return 1;
	}
	close(fd);
	print_info(path, &info, size);
	return 0;
}

/* Order /dev/neuronN by N (glob sorts neuron10 before neuron2). */
static int by_minor(const void *a, const void *b)
{
	const char *x = *(const char * const *)a, *y = *(const char * const *)b;
	unsigned long nx = strtoul(x + strlen("/dev/neuron"), NULL, 10);
	unsigned long ny = strtoul(y + strlen("/dev/neuron"), NULL, 10);

	return nx < ny ? -1 : nx > ny;
}

static void print_usage(FILE *f)
{
	fprintf(f,
		"usage: %s [/dev/neuronN ...]\n"
		"Print the answer of NEURON_IOCTL_QUERY for each device\n"
		"(default: every /dev/neuron[0-9]*).\n", prog);
}

int main(int argc, char **argv)
{
	int i, ret = 0, first = 1;
	glob_t g;

	if (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
			print_usage(stdout);
			return 0;
		}
		if (strcmp(argv[1], "--")) {
			fprintf(stderr, "%s: unknown option %s\n", prog, argv[1]);
			print_usage(stderr);
			return 2;
		}
		argv++;
		argc--;
	}

	if (argc > 1) {
		for (i = 1; i < argc; i++) {
			if (!first)
				printf("\n");
			first = 0;
			ret |= show(argv[i]);
		}
		return ret;
	}

	memset(&g, 0, sizeof(g));
	if (glob("/dev/neuron[0-9]*", 0, NULL, &g) || !g.gl_pathc) {
		fprintf(stderr, "%s: no /dev/neuron[0-9]* device found (is neuron.ko loaded?)\n",
			prog);
		globfree(&g);
		return 1;
	}
	qsort(g.gl_pathv, g.gl_pathc, sizeof(char *), by_minor);
	for (i = 0; i < (int)g.gl_pathc; i++) {
		if (!first)
			printf("\n");
		first = 0;
		ret |= show(g.gl_pathv[i]);
	}
	globfree(&g);
	return ret;
}
