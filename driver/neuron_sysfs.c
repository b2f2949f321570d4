// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: read-only counters in sysfs (docs/ABI/testing/sysfs-class-neuron).
 *
 * The class device /sys/class/neuron/neuronN gets one group of device-wide
 * attributes and one named group ("ncM", a subdirectory) per NeuronCore.
 * The groups are given to the driver core through the device's own
 * NULL-terminated list (&neuron_device.groups), filled for the device's
 * NC count, so that no empty ncM directory appears for an NC the arch
 * does not have (an is_visible hiding every file of a named group still
 * leaves its directory on the kernels before SYSFS_GROUP_INVISIBLE).
 *
 * Everything here is world-readable: no owner pid or uid. The values are
 * the counters of struct neuron_nc and struct neuron_device, read as
 * atomics; the states are read under the NC's lock. The serial number and
 * ecc/ of a PCI device with its engines driven are asked of the firmware
 * at each read, through its mailbox (one request at a time per device).
 */
#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/sysfs.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_hw.h"

static const char * const neuron_nc_state_names[] = {
	[NEURON_NC_FREE] = "free",
	[NEURON_NC_RESERVED] = "reserved",
	[NEURON_NC_RUNNING] = "running",
	[NEURON_NC_RESETTING] = "resetting",
	[NEURON_NC_FAILED] = "failed",
};

static const char *neuron_nc_state_name(struct neuron_nc *nc)
{
	u32 state;

	mutex_lock(&nc->lock);
	state = neuron_nc_state_locked(nc);
	mutex_unlock(&nc->lock);
	if (state >= ARRAY_SIZE(neuron_nc_state_names))
		return "unknown";
	return neuron_nc_state_names[state];
}

static struct neuron_device *neuron_sysfs_nd(struct device *dev)
{
	return container_of(dev, struct neuron_device, dev);
}

/* ---- the device ---- */

static ssize_t arch_show(struct device *dev, struct device_attribute *attr,
			 char *buf)
{
	return sysfs_emit(buf, "%s\n", neuron_sysfs_nd(dev)->hal->arch->name);
}
static DEVICE_ATTR_RO(arch);

static ssize_t product_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	return sysfs_emit(buf, "%s\n", neuron_sysfs_nd(dev)->product);
}
static DEVICE_ATTR_RO(product);

static ssize_t nc_count_show(struct device *dev, struct device_attribute *attr,
			     char *buf)
{
	return sysfs_emit(buf, "%u\n", neuron_sysfs_nd(dev)->hal->arch->nc_count);
}
static DEVICE_ATTR_RO(nc_count);

static ssize_t mem_total_show(struct device *dev, struct device_attribute *attr,
			      char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_sysfs_nd(dev)->dram_size);
}
static DEVICE_ATTR_RO(mem_total);

static ssize_t mem_used_device_show(struct device *dev,
				    struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&neuron_sysfs_nd(dev)->usage.device));
}
static DEVICE_ATTR_RO(mem_used_device);

static ssize_t mem_used_host_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&neuron_sysfs_nd(dev)->usage.host));
}
static DEVICE_ATTR_RO(mem_used_host);

/*
 * "unplugged" once removal started, "failed" when every NC is out of
 * service, "degraded" when some are, else "ok".
 */
static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct neuron_device *nd = neuron_sysfs_nd(dev);
	u32 i, count = nd->hal->arch->nc_count, failed = 0;
	const char *state = "ok";

	for (i = 0; i < count; i++) {
		mutex_lock(&nd->nc[i].lock);
		failed += neuron_nc_state_locked(&nd->nc[i]) == NEURON_NC_FAILED;
		mutex_unlock(&nd->nc[i].lock);
	}
	if (neuron_dev_unplugged(nd))
		state = "unplugged";
	else if (failed == count)
		state = "failed";
	else if (failed)
		state = "degraded";
	return sysfs_emit(buf, "%s\n", state);
}
static DEVICE_ATTR_RO(state);

/*
 * What the firmware reports is asked for at each read (neuron_hw_fw_info():
 * the mailbox, up to pci_mbox_tries seconds when it does not answer); its
 * errno is the read's.
 */
static ssize_t serial_number_show(struct device *dev,
				  struct device_attribute *attr, char *buf)
{
	struct ndhal_fw_info info;
	int ret;

	ret = neuron_hw_fw_info(neuron_sysfs_nd(dev), &info);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%016llx\n", info.serial);
}
static DEVICE_ATTR_RO(serial_number);

static struct attribute *neuron_dev_attrs[] = {
	&dev_attr_arch.attr,
	&dev_attr_product.attr,
	&dev_attr_nc_count.attr,
	&dev_attr_mem_total.attr,
	&dev_attr_mem_used_device.attr,
	&dev_attr_mem_used_host.attr,
	&dev_attr_state.attr,
	&dev_attr_serial_number.attr,
	NULL,
};

/* serial_number only where there is a firmware to ask. */
static umode_t neuron_dev_attr_visible(struct kobject *kobj, struct attribute *attr,
				       int n)
{
	struct neuron_device *nd = neuron_sysfs_nd(kobj_to_dev(kobj));

	if (attr == &dev_attr_serial_number.attr && !neuron_hw_has_fw(nd))
		return 0;
	return attr->mode;
}

static const struct attribute_group neuron_dev_group = {
	.attrs = neuron_dev_attrs,
	.is_visible = neuron_dev_attr_visible,
};

/*
 * ---- ecc/: the firmware's ECC counters ----
 *
 * <counter>_corrected and <counter>_uncorrected for the SRAM and each HBM
 * stack: the halves of the counter's register (docs/hw-facts.md). The
 * group is given only to a device with a firmware to ask.
 */

/**
 * struct neuron_ecc_attribute - one file of ecc/
 * @attr: the attribute.
 * @index: the counter (struct ndhal_fw_info.ecc).
 * @corrected: the corrected errors (bits 31:16), else the uncorrected.
 */
struct neuron_ecc_attribute {
	struct device_attribute attr;
	u32 index;
	bool corrected;
};

static ssize_t neuron_ecc_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct neuron_ecc_attribute *a =
		container_of(attr, struct neuron_ecc_attribute, attr);
	struct ndhal_fw_info info;
	int ret;

	ret = neuron_hw_fw_info(neuron_sysfs_nd(dev), &info);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%u\n", a->corrected ? info.ecc[a->index] >> 16 :
			  info.ecc[a->index] & 0xffff);
}

#define NEURON_ECC_ATTR(_name, _index, _corrected) {			\
	.attr = __ATTR(_name, 0444, neuron_ecc_show, NULL),		\
	.index = _index,						\
	.corrected = _corrected,					\
}

static struct neuron_ecc_attribute neuron_ecc_attrs[] = {
	NEURON_ECC_ATTR(sram_corrected, 0, true),
	NEURON_ECC_ATTR(sram_uncorrected, 0, false),
	NEURON_ECC_ATTR(hbm0_corrected, 1, true),
	NEURON_ECC_ATTR(hbm0_uncorrected, 1, false),
	NEURON_ECC_ATTR(hbm1_corrected, 2, true),
	NEURON_ECC_ATTR(hbm1_uncorrected, 2, false),
	NEURON_ECC_ATTR(hbm2_corrected, 3, true),
	NEURON_ECC_ATTR(hbm2_uncorrected, 3, false),
	NEURON_ECC_ATTR(hbm3_corrected, 4, true),
	NEURON_ECC_ATTR(hbm3_uncorrected, 4, false),
};

static struct attribute *neuron_ecc_attr_list[] = {
	&neuron_ecc_attrs[0].attr.attr, &neuron_ecc_attrs[1].attr.attr,
	&neuron_ecc_attrs[2].attr.attr, &neuron_ecc_attrs[3].attr.attr,
	&neuron_ecc_attrs[4].attr.attr, &neuron_ecc_attrs[5].attr.attr,
	&neuron_ecc_attrs[6].attr.attr, &neuron_ecc_attrs[7].attr.attr,
	&neuron_ecc_attrs[8].attr.attr, &neuron_ecc_attrs[9].attr.attr,
	NULL,
};

static const struct attribute_group neuron_ecc_group = {
	.name = "ecc",
	.attrs = neuron_ecc_attr_list,
};

/* ---- the NeuronCores ---- */

enum neuron_nc_field {
	NEURON_NC_F_STATE,
	NEURON_NC_F_MODELS,
	NEURON_NC_F_EXECUTIONS,
	NEURON_NC_F_EXEC_ERRORS,
	NEURON_NC_F_BUSY_NS,
	NEURON_NC_F_DMA_JOBS,
	NEURON_NC_F_DMA_ERRORS,
	NEURON_NC_F_RESETS,
	NEURON_NC_F_MEM_DEVICE,
	NEURON_NC_F_MEM_HOST,
};

/**
 * struct neuron_nc_attribute - one file of an ncM directory
 * @attr: the attribute.
 * @nc: M, the NC it reads.
 * @field: what it reads (enum neuron_nc_field).
 */
struct neuron_nc_attribute {
	struct device_attribute attr;
	u32 nc;
	u32 field;
};

static ssize_t neuron_nc_attr_show(struct device *dev,
				   struct device_attribute *attr, char *buf)
{
	struct neuron_nc_attribute *a =
		container_of(attr, struct neuron_nc_attribute, attr);
	struct neuron_device *nd = neuron_sysfs_nd(dev);
	struct neuron_nc *nc;
	s64 val;

	if (a->nc >= nd->hal->arch->nc_count)
		return -ENODEV;
	nc = neuron_nc_get(nd, a->nc);
	switch (a->field) {
	case NEURON_NC_F_STATE:
		return sysfs_emit(buf, "%s\n", neuron_nc_state_name(nc));
	case NEURON_NC_F_MODELS:
		val = atomic_read(&nc->models);
		break;
	case NEURON_NC_F_EXECUTIONS:
		val = atomic64_read(&nc->executions);
		break;
	case NEURON_NC_F_EXEC_ERRORS:
		val = atomic64_read(&nc->exec_errors);
		break;
	case NEURON_NC_F_BUSY_NS:
		val = atomic64_read(&nc->busy_ns);
		break;
	case NEURON_NC_F_DMA_JOBS:
		val = atomic64_read(&nc->jobs);
		break;
	case NEURON_NC_F_DMA_ERRORS:
		val = atomic64_read(&nc->jobs_failed);
		break;
	case NEURON_NC_F_RESETS:
		val = atomic64_read(&nc->resets);
		break;
	case NEURON_NC_F_MEM_DEVICE:
		val = atomic64_read(&nc->usage.device);
		break;
	case NEURON_NC_F_MEM_HOST:
		val = atomic64_read(&nc->usage.host);
		break;
	default:
		return -EINVAL;
	}
	return sysfs_emit(buf, "%lld\n", val);
}

/* The files of an ncM directory, in enum neuron_nc_field order. */
static const char * const neuron_nc_field_names[] = {
	[NEURON_NC_F_STATE] = "state",
	[NEURON_NC_F_MODELS] = "models",
	[NEURON_NC_F_EXECUTIONS] = "executions",
	[NEURON_NC_F_EXEC_ERRORS] = "exec_errors",
	[NEURON_NC_F_BUSY_NS] = "busy_ns",
	[NEURON_NC_F_DMA_JOBS] = "dma_jobs",
	[NEURON_NC_F_DMA_ERRORS] = "dma_errors",
	[NEURON_NC_F_RESETS] = "resets",
	[NEURON_NC_F_MEM_DEVICE] = "mem_device",
	[NEURON_NC_F_MEM_HOST] = "mem_host",
};

#define NEURON_NC_FIELDS	ARRAY_SIZE(neuron_nc_field_names)

/*
 * The groups nc0 to nc<NEURON_MAX_NC - 1>, shared by every device, made
 * once by the first device under neuron_nc_groups_lock.
 */
static struct neuron_nc_attribute neuron_nc_attrs[NEURON_MAX_NC][NEURON_NC_FIELDS];
static struct attribute *neuron_nc_attr_list[NEURON_MAX_NC][NEURON_NC_FIELDS + 1];
static char neuron_nc_group_names[NEURON_MAX_NC][8];
static struct attribute_group neuron_nc_groups[NEURON_MAX_NC];
static DEFINE_MUTEX(neuron_nc_groups_lock);
static bool neuron_nc_groups_ready;

static void neuron_nc_groups_init(void)
{
	u32 m, f;

	mutex_lock(&neuron_nc_groups_lock);
	for (m = 0; m < NEURON_MAX_NC && !neuron_nc_groups_ready; m++) {
		for (f = 0; f < NEURON_NC_FIELDS; f++) {
			struct neuron_nc_attribute *a = &neuron_nc_attrs[m][f];

			sysfs_attr_init(&a->attr.attr);
			a->attr.attr.name = neuron_nc_field_names[f];
			a->attr.attr.mode = 0444;
			a->attr.show = neuron_nc_attr_show;
			a->nc = m;
			a->field = f;
			neuron_nc_attr_list[m][f] = &a->attr.attr;
		}
		neuron_nc_attr_list[m][NEURON_NC_FIELDS] = NULL;
		snprintf(neuron_nc_group_names[m], sizeof(neuron_nc_group_names[m]),
			 "nc%u", m);
		neuron_nc_groups[m].name = neuron_nc_group_names[m];
		neuron_nc_groups[m].attrs = neuron_nc_attr_list[m];
	}
	neuron_nc_groups_ready = true;
	mutex_unlock(&neuron_nc_groups_lock);
}

/**
 * neuron_sysfs_groups() - the attribute groups of a new device
 * @nd: the device, its hal set, not registered yet.
 *
 * Return: the NULL-terminated list to put in the class device's groups
 * (stored in @nd): the device's group, ecc/ when there is a firmware to
 * ask, and one per NC it has.
 */
const struct attribute_group **neuron_sysfs_groups(struct neuron_device *nd)
{
	u32 i, n = 0;

	BUILD_BUG_ON(ARRAY_SIZE(neuron_ecc_attr_list) != ARRAY_SIZE(neuron_ecc_attrs) + 1);
	BUILD_BUG_ON(ARRAY_SIZE(neuron_ecc_attrs) != 2 * NDHAL_FW_ECC_COUNTERS);
	neuron_nc_groups_init();
	nd->groups[n++] = &neuron_dev_group;
	if (neuron_hw_has_fw(nd))
		nd->groups[n++] = &neuron_ecc_group;
	for (i = 0; i < nd->hal->arch->nc_count && i < NEURON_MAX_NC; i++)
		nd->groups[n++] = &neuron_nc_groups[i];
	nd->groups[n] = NULL;
	return nd->groups;
}
