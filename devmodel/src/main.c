// SPDX-License-Identifier: GPL-2.0
/* neuron-devmodel: a vfio-user server presenting a trn1/trn2 PCI device. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "dev.h"
#include "server.h"
#include "util.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: neuron-devmodel -s SOCKET [-p trn1|trn2] [-c CONTROL-SOCKET] [options]\n"
		"  -s, --socket PATH         vfio-user socket to listen on\n"
		"  -p, --personality NAME    trn1 (1d0f:7164, v2) or trn2 (1d0f:7364, v3); default trn1\n"
		"  -c, --control PATH        control socket (fault injection, stats)\n"
		"      --not-ready-ms N|-1   routing id reads 0xDEADBEEF for N ms from power-on and from\n"
		"                            each PCI reset; -1 (or forever): never ready (default 0)\n"
		"      --routing-id N        routing id once ready (default 0, must be < 64)\n"
		"      --serial N            64-bit serial number (default 0x0000000123456789)\n"
		"      --fw-api-version N    misc RAM firmware API version (default 1)\n"
		"      --reset-busy-ms N     FW status bit 3 stays set N ms after a reset is taken (default 50)\n"
		"      --no-bus-master-check allow DMA with bus mastering off\n"
		"      --persist             wait for a new client when one leaves\n"
		"  -v, --verbose             more log (repeat for debug)\n"
		"  -q, --quiet               errors only\n"
		"  -h, --help\n");
}

static int parse_u64(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (!s || !*s || *s == '-')
		return -1;
	*v = strtoull(s, &end, 0);
	return *end || *v > max ? -1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "personality", required_argument, NULL, 'p' },
		{ "control", required_argument, NULL, 'c' },
		{ "not-ready-ms", required_argument, NULL, 1 },
		{ "routing-id", required_argument, NULL, 2 },
		{ "serial", required_argument, NULL, 3 },
		{ "fw-api-version", required_argument, NULL, 4 },
		{ "reset-busy-ms", required_argument, NULL, 5 },
		{ "no-bus-master-check", no_argument, NULL, 6 },
		{ "persist", no_argument, NULL, 7 },
		{ "verbose", no_argument, NULL, 'v' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct dev_opts dopt = { .pers = "trn1", .serial = 0x0000000123456789ull,
				 .fw_api_version = 1, .reset_busy_ms = 50 };
	struct server_opts sopt = { 0 };
	struct dev *d;
	uint64_t v;
	int c, ret;

	while ((c = getopt_long(argc, argv, "s:p:c:vqh", lo, NULL)) != -1) {
		switch (c) {
		case 's':
			sopt.sock_path = optarg;
			break;
		case 'p':
			dopt.pers = optarg;
			break;
		case 'c':
			sopt.ctl_path = optarg;
			break;
		case 1:
			if (!strcmp(optarg, "forever") || !strcmp(optarg, "-1"))
				dopt.not_ready_ms = -1;
			else if (parse_u64(optarg, 86400000, &v))
				goto bad;
			else
				dopt.not_ready_ms = (int64_t)v;
			break;
		case 2:
			if (parse_u64(optarg, 63, &v))
				goto bad;
			dopt.routing_id = (uint32_t)v;
			break;
		case 3:
			if (parse_u64(optarg, UINT64_MAX, &v))
				goto bad;
			dopt.serial = v;
			break;
		case 4:
			if (parse_u64(optarg, 0xFFFFFFFF, &v))
				goto bad;
			dopt.fw_api_version = (uint32_t)v;
			break;
		case 5:
			if (parse_u64(optarg, 600000, &v))
				goto bad;
			dopt.reset_busy_ms = (uint32_t)v;
			break;
		case 6:
			dopt.no_bus_master_check = true;
			break;
		case 7:
			sopt.persist = true;
			break;
		case 'v':
			dm_log_level++;
			break;
		case 'q':
			dm_log_level = LOG_ERR;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (!sopt.sock_path || optind != argc) {
		usage(stderr);
		return 2;
	}
	d = dev_create(&dopt);
	if (!d)
		return 1;
	ret = server_run(d, &sopt);
	dev_destroy(d);
	return ret;
bad:
	fprintf(stderr, "neuron-devmodel: bad value '%s' for --%s\n", optarg, lo[c + 2].name);
	return 2;
}
