// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: the vendor's sysfs layout (docs/compat.md,
 * docs/ABI/testing/sysfs-class-neuron_device), beside ours.
 *
 * Programs written for the vendor's driver look for a class
 * "neuron_device" whose devices have no parent, so that they live at
 * /sys/devices/virtual/neuron_device/neuron<N> (and /sys/class/
 * neuron_device/neuron<N>), N the minor of /dev/neuron<N>. Each device
 * gets one such sysfs-only device (no device number, so no second node):
 * core_count, connected_devices, info/architecture/{arch_type,
 * device_name, instance_type}, info/serial_number where there is a
 * firmware to ask (a PCI device with its engines driven) and, per
 * NeuronCore,
 * neuron_core<M>/info/architecture/arch_type and
 * neuron_core<M>/stats/status/<status>/{total,present} for the statuses
 * the driver counts, neuron_core<M>/stats/other_info/<counter>/{total,
 * present} for the counters it has, and the memory counters
 * {total,present,peak}:
 * neuron_core<M>/stats/memory_usage/{host_mem,device_mem}/ and
 * device_mem/<category>/, stats/memory_usage/host_mem/<category>/ of the
 * device. The directories below the device are plain kobjects (an
 * attribute group gives one level only), but for the counters, which
 * carry what they count and the baseline of "present".
 *
 * The counts by status and the memory totals are the NC's (our class and
 * the netlink family show them to everyone too): world-readable. The
 * memory by category tells what the programs on the NC hold, as they
 * said it (the usage of MEM_ALLOC; the netlink family gives it to the
 * reserver's uid only): root-only, 0400 (docs/compat.md). Only root
 * clears a "present" or a "peak". The tree goes away at the start of the
 * device's removal, before the device itself: kernfs waits for the
 * readers, so no show runs after it.
 */
#include <linux/capability.h>
#include <linux/device.h>
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "neuron_common.h"
#include "neuron_nc.h"
#include "neuron_device.h"
#include "neuron_hw.h"

/* The vendor's per-core statuses the driver counts, and their NEURON_EXEC_*. */
static const struct {
	const char *name;
	u32 status;
} neuron_vstatus[] = {
	{ "success", NEURON_EXEC_OK },
	{ "exec_bad_input", NEURON_EXEC_BAD_INPUT },
	{ "hw_error", NEURON_EXEC_DEVICE_ERROR },
	{ "timeout", NEURON_EXEC_TIMEOUT },
};

/* The vendor's other_info counters the driver has: the NC's figure of each. */
static const struct {
	const char *name;
	size_t offset;
} neuron_vother[] = {
	{ "inference_count", offsetof(struct neuron_nc, executions) },
	{ "model_load_count", offsetof(struct neuron_nc, model_loads) },
	{ "reset_req_count", offsetof(struct neuron_nc, resets) },
};

/* The vendor's memory categories the driver has, and their NEURON_MEM_USAGE_*. */
struct neuron_vcat {
	const char *name;
	u32 usage;
};

/* Of the device's host memory. */
static const struct neuron_vcat neuron_vhost_cats[] = {
	{ "application_memory", NEURON_MEM_USAGE_APPLICATION },
	{ "constants", NEURON_MEM_USAGE_CONSTANTS },
	{ "dma_buffers", NEURON_MEM_USAGE_DMA_BUFFERS },
	{ "tensors", NEURON_MEM_USAGE_TENSORS },
	{ "uncategorized", NEURON_MEM_USAGE_UNCATEGORIZED },
};

/* Of an NC's device memory. */
static const struct neuron_vcat neuron_vdev_cats[] = {
	{ "constants", NEURON_MEM_USAGE_CONSTANTS },
	{ "model_code", NEURON_MEM_USAGE_MODEL_CODE },
	{ "model_shared_scratchpad", NEURON_MEM_USAGE_SCRATCHPAD },
	{ "runtime_memory", NEURON_MEM_USAGE_RUNTIME },
	{ "tensors", NEURON_MEM_USAGE_TENSORS },
	{ "uncategorized", NEURON_MEM_USAGE_UNCATEGORIZED },
};

/*
 * The kobjects of one device's tree, put in reverse order: info and
 * architecture, stats, memory_usage, host_mem and its categories; then
 * per NC the core, its info and architecture, stats, status and one per
 * status, memory_usage, host_mem, device_mem and its categories.
 */
#define NEURON_VSYSFS_KOBJS	(5 + ARRAY_SIZE(neuron_vhost_cats) + \
				 (10 + ARRAY_SIZE(neuron_vstatus) + ARRAY_SIZE(neuron_vother) + \
				  ARRAY_SIZE(neuron_vdev_cats)) * NEURON_MAX_NC)

struct neuron_vsysfs {
	struct device *dev;
	unsigned int n_kobj;
	struct kobject *kobj[NEURON_VSYSFS_KOBJS];
};

static struct class neuron_vclass = {
	.name = "neuron_device",
};

/* The vendor's names of a product: device arch, core arch, instance, name. */
struct neuron_vnames {
	const char *product;
	const char *arch_type;
	const char *nc_arch_type;
	const char *instance_type;
	const char *device_name;
};

static const struct neuron_vnames neuron_vnames[] = {
	{ "inf1", "NDv1", "NCv1", "Inf1", "Inferentia" },
	{ "trn1", "NDv2", "NCv2", "Trn1", "Trainium1" },
	{ "inf2", "NDv3", "NCv2", "Inf2", "Inferentia2" },
	{ "trn2", "NDv3", "NCv3", "Trn2", "Trainium2" },
};

/* A simulated device is no product: named by its arch (docs/compat.md). */
static const struct neuron_vnames neuron_vnames_sim[] = {
	{ "v2", "NDv2", "NCv2", "Sim", "Simulator" },
	{ "v3", "NDv3", "NCv3", "Sim", "Simulator" },
};

static const struct neuron_vnames neuron_vnames_unknown = {
	"", "", "", "", "",
};

static const struct neuron_vnames *neuron_vnames_of(struct neuron_device *nd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(neuron_vnames); i++)
		if (!strcmp(nd->product, neuron_vnames[i].product))
			return &neuron_vnames[i];
	for (i = 0; i < ARRAY_SIZE(neuron_vnames_sim); i++)
		if (!strcmp(nd->hal->arch->name, neuron_vnames_sim[i].product))
			return &neuron_vnames_sim[i];
	return &neuron_vnames_unknown;
}

/* ---- the device ---- */

static ssize_t core_count_show(struct device *dev, struct device_attribute *attr,
			       char *buf)
{
	struct neuron_device *nd = dev_get_drvdata(dev);
	int len;

	/* As the vendor prints it: no newline. */
	len = sysfs_emit(buf, "%u", nd->hal->arch->nc_count);
	return len;
}
static DEVICE_ATTR_RO(core_count);

static ssize_t connected_devices_show(struct device *dev,
				      struct device_attribute *attr, char *buf)
{
	/* No device reports a link to another: the empty list. */
	return sysfs_emit(buf, "\n");
}
static DEVICE_ATTR_RO(connected_devices);

static struct attribute *neuron_vdev_attrs[] = {
	&dev_attr_core_count.attr,
	&dev_attr_connected_devices.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_vdev);

/* The device of an architecture kobject @depth levels below it. */
static struct neuron_device *neuron_vsysfs_nd(struct kobject *kobj, int depth)
{
	while (depth--)
		kobj = kobj->parent;
	return dev_get_drvdata(kobj_to_dev(kobj));
}

/* info/architecture/ of the device: two levels below it. */
static ssize_t dev_arch_type_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	return sysfs_emit(buf, "%s\n", neuron_vnames_of(neuron_vsysfs_nd(kobj, 2))->arch_type);
}

static ssize_t dev_device_name_show(struct kobject *kobj, struct kobj_attribute *attr,
				    char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  neuron_vnames_of(neuron_vsysfs_nd(kobj, 2))->device_name);
}

static ssize_t dev_instance_type_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  neuron_vnames_of(neuron_vsysfs_nd(kobj, 2))->instance_type);
}

static struct kobj_attribute neuron_dev_arch_type =
	__ATTR(arch_type, 0444, dev_arch_type_show, NULL);
static struct kobj_attribute neuron_dev_device_name =
	__ATTR(device_name, 0444, dev_device_name_show, NULL);
static struct kobj_attribute neuron_dev_instance_type =
	__ATTR(instance_type, 0444, dev_instance_type_show, NULL);

static struct attribute *neuron_dev_arch_attrs[] = {
	&neuron_dev_arch_type.attr,
	&neuron_dev_device_name.attr,
	&neuron_dev_instance_type.attr,
	NULL,
};

static const struct attribute_group neuron_dev_arch_group = {
	.attrs = neuron_dev_arch_attrs,
};

/*
 * info/serial_number of a device with a firmware to ask: one level below
 * the device; asked of the firmware at each read, as ours
 * (/sys/class/neuron/neuron<N>/serial_number).
 */
static ssize_t dev_serial_number_show(struct kobject *kobj, struct kobj_attribute *attr,
				      char *buf)
{
	struct ndhal_fw_info info;
	int ret;

	ret = neuron_hw_fw_info(neuron_vsysfs_nd(kobj, 1), &info);
	if (ret)
		return ret;
	return sysfs_emit(buf, "%016llx\n", info.serial);
}

static struct kobj_attribute neuron_dev_serial_number =
	__ATTR(serial_number, 0444, dev_serial_number_show, NULL);

/* neuron_core<M>/info/architecture/: three levels below the device. */
static ssize_t nc_arch_type_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  neuron_vnames_of(neuron_vsysfs_nd(kobj, 3))->nc_arch_type);
}

static struct kobj_attribute neuron_nc_arch_type =
	__ATTR(arch_type, 0444, nc_arch_type_show, NULL);

static struct attribute *neuron_nc_arch_attrs[] = {
	&neuron_nc_arch_type.attr,
	NULL,
};

static const struct attribute_group neuron_nc_arch_group = {
	.attrs = neuron_nc_arch_attrs,
};

/* ---- neuron_core<M>/stats/status/<status>/ ---- */

/**
 * struct neuron_vstat - the directory of one counter of one NC (a status,
 *	an other_info counter)
 * @kobj: the directory.
 * @count: the NC's counter (inside the device, which outlives the tree).
 * @base: the count when "present" was last cleared.
 */
struct neuron_vstat {
	struct kobject kobj;
	atomic64_t *count;
	atomic64_t base;
};

static struct neuron_vstat *to_neuron_vstat(struct kobject *kobj)
{
	return container_of(kobj, struct neuron_vstat, kobj);
}

static u64 neuron_vstat_count(struct neuron_vstat *st)
{
	return atomic64_read(st->count);
}

static ssize_t vstat_total_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", neuron_vstat_count(to_neuron_vstat(kobj)));
}

static ssize_t vstat_present_show(struct kobject *kobj, struct kobj_attribute *attr,
				  char *buf)
{
	struct neuron_vstat *st = to_neuron_vstat(kobj);

	return sysfs_emit(buf, "%llu\n", neuron_vstat_count(st) - atomic64_read(&st->base));
}

/* Writing anything clears "present": it counts from now. */
static ssize_t vstat_present_store(struct kobject *kobj, struct kobj_attribute *attr,
				   const char *buf, size_t count)
{
	struct neuron_vstat *st = to_neuron_vstat(kobj);

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	atomic64_set(&st->base, neuron_vstat_count(st));
	return count;
}

static struct kobj_attribute neuron_vstat_total = __ATTR(total, 0444, vstat_total_show, NULL);
static struct kobj_attribute neuron_vstat_present =
	__ATTR(present, 0644, vstat_present_show, vstat_present_store);

static struct attribute *neuron_vstat_attrs[] = {
	&neuron_vstat_total.attr,
	&neuron_vstat_present.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_vstat);

static void neuron_vstat_release(struct kobject *kobj)
{
	kfree(to_neuron_vstat(kobj));
}

static struct kobj_type neuron_vstat_ktype = {
	.release = neuron_vstat_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = neuron_vstat_groups,
};

/* ---- stats/memory_usage/ ---- */

/**
 * struct neuron_vmem - the directory of one memory counter
 * @kobj: the directory.
 * @u: the figures (of an NC, or of the device; inside it, which outlives
 *	the tree).
 * @k: 0 host, 1 device memory.
 * @usage: NEURON_MEM_USAGE_*, or -1 for all of them.
 * @base: what @u had allocated when "present" was last cleared.
 */
struct neuron_vmem {
	struct kobject kobj;
	struct neuron_mem_by_usage *u;
	u32 k;
	int usage;
	atomic64_t base;
};

static struct neuron_vmem *to_neuron_vmem(struct kobject *kobj)
{
	return container_of(kobj, struct neuron_vmem, kobj);
}

static atomic64_t *neuron_vmem_now(struct neuron_vmem *vm)
{
	return vm->usage < 0 ? &vm->u->total[vm->k] : &vm->u->now[vm->k][vm->usage];
}

static atomic64_t *neuron_vmem_peak(struct neuron_vmem *vm)
{
	return vm->usage < 0 ? &vm->u->total_peak[vm->k] : &vm->u->peak[vm->k][vm->usage];
}

static u64 neuron_vmem_allocated(struct neuron_vmem *vm)
{
	return atomic64_read(vm->usage < 0 ? &vm->u->total_allocated[vm->k] :
			     &vm->u->allocated[vm->k][vm->usage]);
}

/* "total": the bytes in use now (the vendor's: current usage). */
static ssize_t vmem_total_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct neuron_vmem *vm = to_neuron_vmem(kobj);

	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(neuron_vmem_now(vm)));
}

/* "present": the bytes allocated since it was last cleared. */
static ssize_t vmem_present_show(struct kobject *kobj, struct kobj_attribute *attr,
				 char *buf)
{
	struct neuron_vmem *vm = to_neuron_vmem(kobj);

	return sysfs_emit(buf, "%llu\n", neuron_vmem_allocated(vm) - atomic64_read(&vm->base));
}

/* "peak": the most in use at one time since it was last cleared. */
static ssize_t vmem_peak_show(struct kobject *kobj, struct kobj_attribute *attr, char *buf)
{
	struct neuron_vmem *vm = to_neuron_vmem(kobj);

	return sysfs_emit(buf, "%llu\n", (u64)atomic64_read(neuron_vmem_peak(vm)));
}

/*
 * Writing anything to "present" or "peak" clears both: "present" counts
 * from now, "peak" starts at what is in use now.
 */
static ssize_t vmem_clear_store(struct kobject *kobj, struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	struct neuron_vmem *vm = to_neuron_vmem(kobj);

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	atomic64_set(&vm->base, neuron_vmem_allocated(vm));
	atomic64_set(neuron_vmem_peak(vm), atomic64_read(neuron_vmem_now(vm)));
	return count;
}

/* The totals: world-readable, as the NC's memory in our class. */
static struct kobj_attribute neuron_vmem_total = __ATTR(total, 0444, vmem_total_show, NULL);
static struct kobj_attribute neuron_vmem_present =
	__ATTR(present, 0644, vmem_present_show, vmem_clear_store);
static struct kobj_attribute neuron_vmem_peak_attr =
	__ATTR(peak, 0644, vmem_peak_show, vmem_clear_store);

static struct attribute *neuron_vmem_attrs[] = {
	&neuron_vmem_total.attr,
	&neuron_vmem_present.attr,
	&neuron_vmem_peak_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_vmem);

/* A category: root's only. */
static struct kobj_attribute neuron_vcat_total = __ATTR(total, 0400, vmem_total_show, NULL);
static struct kobj_attribute neuron_vcat_present =
	__ATTR(present, 0600, vmem_present_show, vmem_clear_store);
static struct kobj_attribute neuron_vcat_peak =
	__ATTR(peak, 0600, vmem_peak_show, vmem_clear_store);

static struct attribute *neuron_vcat_attrs[] = {
	&neuron_vcat_total.attr,
	&neuron_vcat_present.attr,
	&neuron_vcat_peak.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_vcat);

static void neuron_vmem_release(struct kobject *kobj)
{
	kfree(to_neuron_vmem(kobj));
}

static struct kobj_type neuron_vmem_ktype = {
	.release = neuron_vmem_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = neuron_vmem_groups,
};

static struct kobj_type neuron_vcat_ktype = {
	.release = neuron_vmem_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = neuron_vcat_groups,
};

/* A kobject @name under @parent, kept in @vs for the removal, or NULL. */
static struct kobject *neuron_vsysfs_kobj(struct neuron_vsysfs *vs, const char *name,
					  struct kobject *parent)
{
	struct kobject *kobj;

	if (WARN_ON(vs->n_kobj == NEURON_VSYSFS_KOBJS))
		return NULL;
	kobj = kobject_create_and_add(name, parent);
	if (kobj)
		vs->kobj[vs->n_kobj++] = kobj;
	return kobj;
}

/*
 * info/architecture under @parent with @group, and @info_attr (if any) in
 * info/: 0 or -errno.
 */
static int neuron_vsysfs_arch(struct neuron_vsysfs *vs, struct kobject *parent,
			      const struct attribute_group *group,
			      const struct kobj_attribute *info_attr)
{
	struct kobject *info, *arch;
	int ret;

	info = neuron_vsysfs_kobj(vs, "info", parent);
	if (!info)
		return -ENOMEM;
	if (info_attr) {
		ret = sysfs_create_file(info, &info_attr->attr);
		if (ret)
			return ret;
	}
	arch = neuron_vsysfs_kobj(vs, "architecture", info);
	if (!arch)
		return -ENOMEM;
	return sysfs_create_group(arch, group);
}

/*
 * A memory counter @name under @parent: of @u's memory of kind @k and
 * @usage (-1: all), with @ktype's modes. Return: the directory or NULL.
 */
static struct kobject *neuron_vsysfs_mem(struct neuron_vsysfs *vs, struct kobject *parent,
					 const char *name, struct kobj_type *ktype,
					 struct neuron_mem_by_usage *u, u32 k, int usage)
{
	struct neuron_vmem *vm;

	if (WARN_ON(vs->n_kobj == NEURON_VSYSFS_KOBJS))
		return NULL;
	vm = kzalloc(sizeof(*vm), GFP_KERNEL);
	if (!vm)
		return NULL;
	vm->u = u;
	vm->k = k;
	vm->usage = usage;
	if (kobject_init_and_add(&vm->kobj, ktype, parent, "%s", name)) {
		kobject_put(&vm->kobj);
		return NULL;
	}
	vs->kobj[vs->n_kobj++] = &vm->kobj;
	return &vm->kobj;
}

/*
 * @stats/memory_usage/host_mem/<category>/ of @u's host memory, for the
 * device (@nc_mem false), or of an NC: host_mem/ and device_mem/ with
 * their totals, device_mem/<category>/. Return: 0 or -ENOMEM.
 */
static int neuron_vsysfs_memory(struct neuron_vsysfs *vs, struct kobject *stats,
				struct neuron_mem_by_usage *u, bool nc_mem)
{
	struct kobject *mu, *host, *dev;
	size_t i;

	mu = neuron_vsysfs_kobj(vs, "memory_usage", stats);
	if (!mu)
		return -ENOMEM;
	if (!nc_mem) {
		host = neuron_vsysfs_kobj(vs, "host_mem", mu);
		for (i = 0; host && i < ARRAY_SIZE(neuron_vhost_cats); i++)
			if (!neuron_vsysfs_mem(vs, host, neuron_vhost_cats[i].name,
					       &neuron_vcat_ktype, u, 0,
					       neuron_vhost_cats[i].usage))
				return -ENOMEM;
		return host ? 0 : -ENOMEM;
	}
	host = neuron_vsysfs_mem(vs, mu, "host_mem", &neuron_vmem_ktype, u, 0, -1);
	dev = host ? neuron_vsysfs_mem(vs, mu, "device_mem", &neuron_vmem_ktype, u, 1, -1) :
		     NULL;
	for (i = 0; dev && i < ARRAY_SIZE(neuron_vdev_cats); i++)
		if (!neuron_vsysfs_mem(vs, dev, neuron_vdev_cats[i].name, &neuron_vcat_ktype,
				       u, 1, neuron_vdev_cats[i].usage))
			return -ENOMEM;
	return dev ? 0 : -ENOMEM;
}

/* A counter @name of @count under @parent: 0 or -errno. */
static int neuron_vsysfs_counter(struct neuron_vsysfs *vs, struct kobject *parent,
				 const char *name, atomic64_t *count)
{
	struct neuron_vstat *st;
	int ret;

	if (WARN_ON(vs->n_kobj == NEURON_VSYSFS_KOBJS))
		return -ENOMEM;
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	st->count = count;
	ret = kobject_init_and_add(&st->kobj, &neuron_vstat_ktype, parent, "%s", name);
	if (ret) {
		kobject_put(&st->kobj);
		return ret;
	}
	vs->kobj[vs->n_kobj++] = &st->kobj;
	return 0;
}

/*
 * stats/status/<status>/, stats/other_info/<counter>/ and
 * stats/memory_usage/ of NC @nc under its directory @core: 0 or -errno.
 */
static int neuron_vsysfs_status(struct neuron_vsysfs *vs, struct kobject *core,
				struct neuron_nc *nc)
{
	struct kobject *stats, *status, *other;
	size_t i;
	int ret = 0;

	stats = neuron_vsysfs_kobj(vs, "stats", core);
	status = stats ? neuron_vsysfs_kobj(vs, "status", stats) : NULL;
	other = status ? neuron_vsysfs_kobj(vs, "other_info", stats) : NULL;
	if (!other)
		return -ENOMEM;
	for (i = 0; !ret && i < ARRAY_SIZE(neuron_vstatus); i++)
		ret = neuron_vsysfs_counter(vs, status, neuron_vstatus[i].name,
					    &nc->exec_status[neuron_vstatus[i].status]);
	for (i = 0; !ret && i < ARRAY_SIZE(neuron_vother); i++)
		ret = neuron_vsysfs_counter(vs, other, neuron_vother[i].name,
					    (void *)nc + neuron_vother[i].offset);
	return ret ?: neuron_vsysfs_memory(vs, stats, &nc->by_usage, true);
}

/**
 * neuron_vsysfs_remove() - remove the vendor's tree of a device
 * @nd: the device; nothing happens when it has no tree.
 */
void neuron_vsysfs_remove(struct neuron_device *nd)
{
	struct neuron_vsysfs *vs = nd->vsysfs;

	if (!vs)
		return;
	nd->vsysfs = NULL;
	while (vs->n_kobj)
		kobject_put(vs->kobj[--vs->n_kobj]);
	device_unregister(vs->dev);
	kfree(vs);
}

/**
 * neuron_vsysfs_add() - add the vendor's tree of a device
 * @nd: a device being created, its minor and arch set.
 *
 * Return: 0, or -errno with nothing left behind.
 */
int neuron_vsysfs_add(struct neuron_device *nd)
{
	struct neuron_vsysfs *vs;
	char name[24];
	u32 m;
	int ret;

	vs = kzalloc(sizeof(*vs), GFP_KERNEL);
	if (!vs)
		return -ENOMEM;
	vs->dev = device_create_with_groups(&neuron_vclass, NULL, MKDEV(0, 0), nd,
					    neuron_vdev_groups, "neuron%d", nd->minor);
	if (IS_ERR(vs->dev)) {
		ret = PTR_ERR(vs->dev);
		kfree(vs);
		return ret;
	}
	nd->vsysfs = vs;
	ret = neuron_vsysfs_arch(vs, &vs->dev->kobj, &neuron_dev_arch_group,
				 neuron_hw_has_fw(nd) ? &neuron_dev_serial_number : NULL);
	if (!ret) {
		struct kobject *stats = neuron_vsysfs_kobj(vs, "stats", &vs->dev->kobj);

		ret = stats ? neuron_vsysfs_memory(vs, stats, &nd->by_usage, false) : -ENOMEM;
	}
	for (m = 0; !ret && m < nd->hal->arch->nc_count; m++) {
		struct kobject *core;

		snprintf(name, sizeof(name), "neuron_core%u", m);
		core = neuron_vsysfs_kobj(vs, name, &vs->dev->kobj);
		ret = core ? neuron_vsysfs_arch(vs, core, &neuron_nc_arch_group, NULL) : -ENOMEM;
		if (!ret)
			ret = neuron_vsysfs_status(vs, core, neuron_nc_get(nd, m));
	}
	if (ret)
		neuron_vsysfs_remove(nd);
	return ret;
}

int neuron_vsysfs_init(void)
{
	return class_register(&neuron_vclass);
}

void neuron_vsysfs_exit(void)
{
	class_unregister(&neuron_vclass);
}
