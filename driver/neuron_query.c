// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: NEURON_IOCTL_QUERY. Each op fills an answer structure in kernel
 * memory; neuron_query_answer() copies it out with snprintf() semantics.
 */
#include <linux/pci.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_common.h"
#include "neuron_device.h"
#include "neuron_file.h"
#include "neuron_ioctl.h"
#include "ndhal/ndhal.h"

static_assert(sizeof(struct neuron_query) == 40);
static_assert(sizeof(struct neuron_device_info) == 152);
static_assert(sizeof(struct neuron_mem_usage) == 48);
static_assert(sizeof(struct neuron_mem_usage_nc) == 16);

/*
 * Copy @len bytes of @answer to the caller's buffer, at most @q->size of
 * them, and report the whole size in @q->size.
 */
int neuron_query_answer(struct neuron_query *q, const void *answer, u32 len)
{
	u32 n = min(q->size, len);

	if (n && copy_to_user(u64_to_user_ptr(q->data), answer, n))
		return -EFAULT;
	q->size = len;
	return 0;
}

/* Fill the answer of NEURON_QUERY_DEVICE (once, at device creation). */
void neuron_query_device(struct neuron_device *nd,
			 struct neuron_device_info *info)
{
	const struct ndhal_arch *arch = nd->hal->arch;

	memset(info, 0, sizeof(*info));
	info->uapi_version = NEURON_UAPI_VERSION;
	info->arch = arch->arch;
	info->caps = nd->hal->caps;
	info->flags = nd->hal->flags;
	info->minor = nd->minor;
	if (nd->pdev) {
		struct pci_dev *pdev = nd->pdev;

		info->pci_vendor = pdev->vendor;
		info->pci_device = pdev->device;
		info->pci_subsystem_vendor = pdev->subsystem_vendor;
		info->pci_subsystem_device = pdev->subsystem_device;
		info->pci_domain = pci_domain_nr(pdev->bus);
		info->pci_bus = pdev->bus->number;
		info->pci_devfn = pdev->devfn;
	}
	info->sim_id = nd->sim_id;
	info->nc_count = arch->nc_count;
	info->dma_engines = arch->dma_engines;
	info->dma_queues_per_engine = arch->dma_queues_per_engine;
	info->dram_channels = arch->dram_channels;
	info->semaphores_per_nc = arch->semaphores_per_nc;
	info->events_per_nc = arch->events_per_nc;
	info->dram_size = nd->dram_size;
	info->dram_channel_size = div_u64(nd->dram_size, arch->dram_channels);
	strscpy(info->driver_version, NEURON_DRIVER_VERSION,
		sizeof(info->driver_version));
	strscpy(info->arch_name, arch->name, sizeof(info->arch_name));
	strscpy(info->product, nd->product, sizeof(info->product));
}
EXPORT_SYMBOL_IF_KUNIT(neuron_query_device);

/* Reject what the caller must leave zero and the ops we do not know. */
VISIBLE_IF_KUNIT int neuron_query_check(const struct neuron_query *q)
{
	if (q->flags || q->pad || q->reserved[0] || q->reserved[1])
		return -EINVAL;
	if (q->op >= NEURON_QUERY_COUNT)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_query_check);

/* Answer NEURON_QUERY_MEM_USAGE (its own frame: zeroed only when used). */
static noinline int neuron_query_mem_usage(struct neuron_file *nf,
					   struct neuron_query *q)
{
	struct neuron_device *nd = nf->nd;
	u32 i, count = nd->hal->arch->nc_count;
	struct {
		struct neuron_mem_usage u;
		struct neuron_mem_usage_nc nc[NEURON_MAX_NC];
	} usage;

	memset(&usage.u, 0, sizeof(usage.u));
	usage.u.device_bytes = atomic64_read(&nd->usage.device);
	usage.u.host_bytes = atomic64_read(&nd->usage.host);
	usage.u.file_device_bytes = atomic64_read(&nf->usage.device);
	usage.u.file_host_bytes = atomic64_read(&nf->usage.host);
	usage.u.file_handles = atomic64_read(&nf->nhandles);
	usage.u.nc_count = count;
	for (i = 0; i < count; i++) {
		usage.nc[i].device_bytes = atomic64_read(&nd->nc[i].usage.device);
		usage.nc[i].host_bytes = atomic64_read(&nd->nc[i].usage.host);
	}
	return neuron_query_answer(q, &usage,
				   sizeof(usage.u) + count * sizeof(usage.nc[0]));
}

int neuron_ioctl_query(struct neuron_file *nf, void *arg)
{
	struct neuron_query *q = arg;
	int ret;

	ret = neuron_query_check(q);
	if (ret)
		return ret;

	switch (q->op) {
	case NEURON_QUERY_DEVICE:
		return neuron_query_answer(q, &nf->nd->info, sizeof(nf->nd->info));
	case NEURON_QUERY_MEM_USAGE:
		return neuron_query_mem_usage(nf, q);
	case NEURON_QUERY_NC_STATE:
		return neuron_query_nc_state(nf, q);
	}
	return -EINVAL;
}
