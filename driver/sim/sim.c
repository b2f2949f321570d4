// SPDX-License-Identifier: GPL-2.0
/*
 * neuron_sim.ko: simulated devices, in the spirit of netdevsim.
 *
 * Root creates and destroys them at run time through the neuron_sim bus:
 *   echo "ID ARCH [MEM_MB]" > /sys/bus/neuron_sim/new_device
 *   echo "ID" > /sys/bus/neuron_sim/del_device
 * or at load time with the module parameter sim=ARCH[:MEM_MB],... (IDs 0..).
 * A simulated device takes the geometry of the arch it impersonates and
 * uses the simulator backend (neuron_sim_ops) behind the same ndhal
 * interface as silicon. Its memory may not exceed the machine's RAM.
 *
 * new_device adds a device on the bus; the bus's driver (neuron_sim) binds
 * it: its probe creates /dev/neuronN with neuron_device_create(), its
 * remove takes it away with neuron_device_remove(). The driver core's
 * unbind and bind files of the driver do the same to a device that stays
 * on the bus, so the driver's remove path runs like a hot unplug.
 */
#include <linux/device.h>
#include <linux/kernel.h>
#include <linux/list.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>
#include <linux/wait.h>
#include <kunit/visibility.h>

#include <neuron.h>

#include "neuron_common.h"
#include "neuron_device.h"
#include "neuron_mem.h"
#include "neuron_compat.h"
#include "ndhal/ndhal.h"
#include "sim/sim.h"
#include "sim/sim_notify.h"

#define NEURON_SIM_MAX_ID	65535
#define NEURON_SIM_MAX_MEM_MB	65536
#define NEURON_SIM_DEF_MEM_MB	256

/*
 * neuron_sim_lock serialises creation and removal, and guards the list and
 * neuron_sim_closing (set at module exit: the bus files may still be
 * written until bus_unregister() returns, and must create nothing then).
 */
static DEFINE_MUTEX(neuron_sim_lock);
static LIST_HEAD(neuron_sim_devs);
static bool neuron_sim_closing;

/*
 * Simulated devices not yet released: a removed device lives on while files
 * of it are open (their neuron device holds it), and its release and the
 * ops its memory objects call are this module's code, so module exit waits
 * for the count to drop to zero.
 */
static atomic_t neuron_sim_alive = ATOMIC_INIT(0);
static DECLARE_WAIT_QUEUE_HEAD(neuron_sim_released);

static char *sim[NEURON_MAX_DEVICES];
static int sim_count;
module_param_array(sim, charp, &sim_count, 0444);
MODULE_PARM_DESC(sim, "simulated devices to create at load: ARCH[:MEM_MB],... (ARCH v2 or v3)");

/*
 * Take the pages of a memory object out of the DRAM map, where they are
 * still its own: after an unbind and a bind, the new binding may have put
 * its pages at the same addresses while the old object lived on.
 */
static void neuron_sim_dram_unmap(struct neuron_sim_dev *sd, u64 dev_addr,
				  struct page **pages, unsigned long npages)
{
	unsigned long first = dev_addr >> PAGE_SHIFT, i;

	for (i = 0; i < npages; i++)
		xa_cmpxchg(&sd->dram, first + i, pages[i], NULL, 0);
}

/* Back device memory with zeroed pages of the simulated DRAM. */
static int neuron_sim_dram_alloc(struct neuron_device *nd, struct neuron_mem *mem)
{
	struct neuron_sim_dev *sd = nd->backend;
	unsigned long first = mem->dev_addr >> PAGE_SHIFT, i;
	int ret;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	mem->pages = neuron_pages_alloc(mem->npages);
	if (!mem->pages)
		return -ENOMEM;
	for (i = 0; i < mem->npages; i++) {
		ret = xa_err(xa_store(&sd->dram, first + i, mem->pages[i], GFP_KERNEL));
		if (ret) {
			neuron_sim_dram_unmap(sd, mem->dev_addr, mem->pages, i);
			neuron_pages_free(mem->pages, mem->npages);
			return ret;
		}
	}
	return 0;
}

static void neuron_sim_dram_free(struct neuron_device *nd, struct neuron_mem *mem)
{
	if (neuron_sim_gone(nd))
		return;
	neuron_sim_dram_unmap(nd->backend, mem->dev_addr, mem->pages, mem->npages);
	neuron_pages_free(mem->pages, mem->npages);
}

/* One contiguous range of the simulated IOMMU for the whole list. */
static int neuron_sim_iova_map(struct neuron_device *nd, struct page **pages,
			       unsigned long npages, u64 *iova)
{
	struct neuron_sim_dev *sd = nd->backend;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	return neuron_sim_iommu_map(&sd->iommu, pages, npages, iova);
}

static void neuron_sim_iova_unmap(struct neuron_device *nd, u64 iova)
{
	struct neuron_sim_dev *sd = nd->backend;

	if (neuron_sim_gone(nd))
		return;
	neuron_sim_iommu_unmap(&sd->iommu, iova);
}

static int neuron_sim_dma_map(struct neuron_device *nd, struct page **pages,
			      unsigned long npages, u64 *addrs)
{
	unsigned long i;
	u64 iova;
	int ret;

	ret = neuron_sim_iova_map(nd, pages, npages, &iova);
	if (ret)
		return ret;
	for (i = 0; i < npages; i++)
		addrs[i] = iova + i * PAGE_SIZE;
	return 0;
}

static void neuron_sim_dma_unmap(struct neuron_device *nd, unsigned long npages,
				 const u64 *addrs)
{
	neuron_sim_iova_unmap(nd, addrs[0]);
}

/*
 * Coherent memory: host pages seen by the CPU through a vmap() and by the
 * device through the simulated IOMMU. The simulated device reads and
 * writes them with memcpy, so there is no cache to maintain.
 */
static int neuron_sim_coherent_alloc(struct neuron_device *nd, size_t size,
				     void **va, u64 *iova, void **cookie)
{
	unsigned long npages = DIV_ROUND_UP(size, PAGE_SIZE);
	struct page **pages;
	int ret;

	pages = neuron_pages_alloc(npages);
	if (!pages)
		return -ENOMEM;
	*va = vmap(pages, npages, VM_MAP, PAGE_KERNEL);
	if (!*va) {
		ret = -ENOMEM;
		goto err_pages;
	}
	ret = neuron_sim_iova_map(nd, pages, npages, iova);
	if (ret)
		goto err_vunmap;
	*cookie = pages;
	return 0;

err_vunmap:
	vunmap(*va);
err_pages:
	neuron_pages_free(pages, npages);
	return ret;
}

static void neuron_sim_coherent_free(struct neuron_device *nd, size_t size,
				     void *va, u64 iova, void *cookie)
{
	neuron_sim_iova_unmap(nd, iova);
	vunmap(va);
	neuron_pages_free(cookie, DIV_ROUND_UP(size, PAGE_SIZE));
}

static void neuron_sim_irq_work(struct irq_work *work)
{
	struct neuron_sim_irq *irq = container_of(work, struct neuron_sim_irq, work);
	irq_handler_t handler = READ_ONCE(irq->handler);

	if (handler)
		handler(irq->vector, irq->data);
}

/* The device raises interrupt @vector: the handler runs in hard IRQ context. */
void neuron_sim_raise_irq(struct neuron_sim_dev *sd, unsigned int vector)
{
	/* Nobody listens (the driver polls this vector): no work at all. */
	if (vector < NEURON_IRQ_COUNT && READ_ONCE(sd->irq[vector].handler))
		irq_work_queue(&sd->irq[vector].work);
}

static int neuron_sim_irq_request(struct neuron_device *nd, unsigned int vector,
				  irq_handler_t handler, void *data)
{
	struct neuron_sim_dev *sd = nd->backend;
	struct neuron_sim_irq *irq;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	if (vector >= NEURON_IRQ_COUNT)
		return -EINVAL;
	irq = &sd->irq[vector];
	if (irq->handler)
		return -EBUSY;
	irq->data = data;
	/* Publish the handler after its data (read in neuron_sim_irq_work). */
	smp_store_release(&irq->handler, handler);
	return 0;
}

/* A handler of @vector that started has returned. */
static void neuron_sim_irq_sync(struct neuron_device *nd, unsigned int vector)
{
	struct neuron_sim_dev *sd = nd->backend;

	if (vector < NEURON_IRQ_COUNT)
		irq_work_sync(&sd->irq[vector].work);
}

static void neuron_sim_irq_free(struct neuron_device *nd, unsigned int vector)
{
	struct neuron_sim_dev *sd = nd->backend;

	if (vector >= NEURON_IRQ_COUNT)
		return;
	WRITE_ONCE(sd->irq[vector].handler, NULL);
	neuron_sim_irq_sync(nd, vector);
}

/*
 * Semaphores and events: @op on entry @index of @kind of NC @nc. A
 * semaphore is a u32 counter; an event is 0 or 1 (set with any non-zero
 * value). The driver checked @op against @kind and the indices.
 */
static int neuron_sim_sem_update(struct neuron_device *nd, u32 nc, u32 kind,
				 u32 index, u32 op, u32 val, u32 *out)
{
	struct neuron_sim_dev *sd = nd->backend;
	u32 *v;
	int ret = 0;

	if (neuron_sim_gone(nd))
		return -ENODEV;
	if (nc >= NEURON_MAX_NC || index >= NEURON_SIM_SEMS || kind > 1)
		return -EINVAL;
	v = &sd->sems[(nc * 2 + kind) * NEURON_SIM_SEMS + index];
	spin_lock(&sd->sem_lock);
	switch (op) {
	case NEURON_SEM_SET:
		*v = kind == NEURON_SEM_KIND_EVENT ? !!val : val;
		break;
	case NEURON_SEM_INC:
		if (*v > U32_MAX - val)
			ret = -EOVERFLOW;
		else
			*v += val;
		break;
	case NEURON_SEM_DEC:
		if (*v < val)
			ret = -EAGAIN;
		else
			*v -= val;
		break;
	}
	*out = *v;
	spin_unlock(&sd->sem_lock);
	/* The driver wakes the threads that compute a program waiting for it. */
	return ret;
}

/*
 * The driver tore the backend down: nothing may call it any more. The
 * cores stop first: their executors use the neuron device.
 */
static void neuron_sim_fini(struct neuron_device *nd)
{
	struct neuron_sim_dev *sd = nd->backend;

	neuron_sim_tpb_stop_all(sd);
	WRITE_ONCE(sd->gone, true);
}

const struct ndhal_ops neuron_sim_ops = {
	.name = "sim",
	.fini = neuron_sim_fini,
	.dram_alloc = neuron_sim_dram_alloc,
	.dram_free = neuron_sim_dram_free,
	.dma_map = neuron_sim_dma_map,
	.dma_unmap = neuron_sim_dma_unmap,
	.irq_request = neuron_sim_irq_request,
	.irq_free = neuron_sim_irq_free,
	.irq_sync = neuron_sim_irq_sync,
	.sem_update = neuron_sim_sem_update,
	.coherent_alloc = neuron_sim_coherent_alloc,
	.coherent_free = neuron_sim_coherent_free,
	.dma_desc = neuron_sim_dma_desc,
	.dma_queue_start = neuron_sim_dma_queue_start,
	.dma_queue_kick = neuron_sim_dma_queue_kick,
	.dma_queue_stop = neuron_sim_dma_queue_stop,
	.notify_init = neuron_sim_notify_queue_init,
	.notify_fini = neuron_sim_notify_queue_fini,
	.notify_consume = neuron_sim_notify_queue_consume,
	.exec_start = neuron_sim_exec_start,
	.exec_reset = neuron_sim_exec_reset,
	.exec_drive = neuron_sim_exec_drive,
};

static const struct attribute_group *neuron_sim_dev_groups[] = {
	&neuron_sim_dma_group,
	&neuron_sim_notify_group,
	&neuron_sim_tpb_group,
	NULL,
};

const struct ndhal ndhal_sim_v2 = {
	.arch = &ndhal_arch_v2,
	.ops = &neuron_sim_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE | NEURON_CAP_MEM | NEURON_CAP_COPY |
		NEURON_CAP_NOTIFY | NEURON_CAP_SEM | NEURON_CAP_EXEC,
	.flags = NEURON_DEV_SIMULATED,
};
EXPORT_SYMBOL_IF_KUNIT(ndhal_sim_v2);

const struct ndhal ndhal_sim_v3 = {
	.arch = &ndhal_arch_v3,
	.ops = &neuron_sim_ops,
	.caps = NEURON_CAP_QUERY | NEURON_CAP_RESERVE | NEURON_CAP_MEM | NEURON_CAP_COPY |
		NEURON_CAP_NOTIFY | NEURON_CAP_SEM | NEURON_CAP_EXEC,
	.flags = NEURON_DEV_SIMULATED,
};
EXPORT_SYMBOL_IF_KUNIT(ndhal_sim_v3);

static const struct ndhal *neuron_sim_hal(const char *arch)
{
	if (!strcmp(arch, "v2"))
		return &ndhal_sim_v2;
	if (!strcmp(arch, "v3"))
		return &ndhal_sim_v3;
	return NULL;
}

static struct bus_type neuron_sim_bus;

static struct neuron_sim_dev *to_neuron_sim_dev(struct device *dev)
{
	return container_of(dev, struct neuron_sim_dev, dev);
}

static void neuron_sim_dev_release(struct device *dev)
{
	struct neuron_sim_dev *sd = to_neuron_sim_dev(dev);

	neuron_sim_tpb_fini(sd);
	neuron_sim_dma_fini(sd);
	neuron_sim_notify_free(sd);
	xa_destroy(&sd->dram);
	neuron_sim_iommu_fini(&sd->iommu);
	kvfree(sd->sems);
	kfree(sd);
	if (atomic_dec_and_test(&neuron_sim_alive))
		wake_up(&neuron_sim_released);
}

/*
 * The driver's probe: bind a simulated device, i.e. create its neuron
 * device (/dev/neuronN) on top of the simulated hardware.
 */
static int neuron_sim_probe(struct device *dev)
{
	struct neuron_sim_dev *sd = to_neuron_sim_dev(dev);
	struct neuron_device_desc desc = {
		.parent = dev,
		.hal = sd->hal,
		.product = "sim",
		.sim_id = sd->id,
		.dram_size = sd->dram_size,
		.backend = sd,
	};
	struct neuron_device *nd;

	/* A new binding: the driver may call the backend again. */
	WRITE_ONCE(sd->gone, false);
	spin_lock(&sd->sem_lock);
	memset(sd->sems, 0, NEURON_MAX_NC * 2 * NEURON_SIM_SEMS * sizeof(u32));
	spin_unlock(&sd->sem_lock);
	nd = neuron_device_create(&desc);
	if (IS_ERR(nd)) {
		WRITE_ONCE(sd->probe_ret, PTR_ERR(nd));
		return PTR_ERR(nd);
	}
	sd->nd = nd;
	WRITE_ONCE(sd->probe_ret, 0);
	return 0;
}

/*
 * The driver's remove (unbind, del_device, module exit): unplug the neuron
 * device. Its open files get -ENODEV, their mappings SIGBUS; they and their
 * memory objects keep the simulated device (not the binding) alive.
 */
static int neuron_sim_remove(struct device *dev)
{
	struct neuron_sim_dev *sd = to_neuron_sim_dev(dev);

	neuron_device_remove(sd->nd);
	sd->nd = NULL;
	return 0;
}

static struct device_driver neuron_sim_driver = {
	.name = "neuron_sim",
	.bus = &neuron_sim_bus,
	.owner = THIS_MODULE,
	.probe = neuron_sim_probe,
	.remove = neuron_sim_remove,
};

static struct neuron_sim_dev *neuron_sim_find(u32 id)
{
	struct neuron_sim_dev *sd;

	list_for_each_entry(sd, &neuron_sim_devs, list)
		if (sd->id == id)
			return sd;
	return NULL;
}

/*
 * Create a simulated device and let the driver bind it. Called with
 * neuron_sim_lock held. A failed probe fails the creation (nothing is left
 * behind); a device the driver core did not offer to the driver at all
 * (drivers_autoprobe set to 0 by root) stays on the bus, unbound.
 * Return: 0, -EEXIST (ID taken), -ENOMEM (device memory larger than the
 * machine's RAM: every page of simulated DRAM in use is a page of RAM, so
 * it could never be backed; or out of memory), the probe's error.
 */
static int neuron_sim_create_locked(u32 id, const struct ndhal *hal, u32 mem_mb)
{
	struct neuron_sim_dev *sd;
	int i, ret;

	lockdep_assert_held(&neuron_sim_lock);
	if (neuron_sim_closing)
		return -ENODEV;
	if (neuron_sim_find(id))
		return -EEXIST;
	if ((u64)mem_mb << (20 - PAGE_SHIFT) > totalram_pages())
		return -ENOMEM;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;
	atomic_inc(&neuron_sim_alive);
	sd->id = id;
	sd->hal = hal;
	sd->dram_size = (u64)mem_mb << 20;
	sd->probe_ret = 1;
	xa_init(&sd->dram);
	spin_lock_init(&sd->sem_lock);
	neuron_sim_iommu_init(&sd->iommu);
	for (i = 0; i < NEURON_IRQ_COUNT; i++) {
		sd->irq[i].vector = i;
		init_irq_work(&sd->irq[i].work, neuron_sim_irq_work);
	}
	device_initialize(&sd->dev);
	sd->dev.bus = &neuron_sim_bus;
	sd->dev.release = neuron_sim_dev_release;
	sd->dev.groups = neuron_sim_dev_groups;
	ret = -ENOMEM;
	sd->sems = kvcalloc(NEURON_MAX_NC * 2 * NEURON_SIM_SEMS, sizeof(u32),
			    GFP_KERNEL);
	if (!sd->sems)
		goto err_put;
	ret = neuron_sim_dma_init(sd);
	if (ret)
		goto err_put;
	ret = neuron_sim_notify_alloc(sd);
	if (ret)
		goto err_put;
	ret = neuron_sim_tpb_init(sd);
	if (ret)
		goto err_put;
	ret = dev_set_name(&sd->dev, "neuron_sim%u", id);
	if (ret)
		goto err_put;
	/* Probes synchronously: the driver is registered before any device. */
	ret = device_add(&sd->dev);
	if (ret)
		goto err_put;
	ret = READ_ONCE(sd->probe_ret);
	if (ret < 0) {
		device_del(&sd->dev);
		goto err_put;
	}
	list_add_tail(&sd->list, &neuron_sim_devs);
	return 0;

err_put:
	put_device(&sd->dev);
	return ret;
}

/* Destroy a simulated device. Called with neuron_sim_lock held. */
static void neuron_sim_destroy_locked(struct neuron_sim_dev *sd)
{
	lockdep_assert_held(&neuron_sim_lock);
	list_del(&sd->list);
	/* Unbinds it first: the driver's remove runs. */
	device_unregister(&sd->dev);
}

/*
 * Parse "ARCH[:MEM_MB]" (module parameter) or "ARCH [MEM_MB]" (bus file,
 * after the ID): @sep is the separator before the size.
 */
VISIBLE_IF_KUNIT int neuron_sim_parse(char *spec, char sep,
				      const struct ndhal **hal, u32 *mem_mb)
{
	char *size = strchr(spec, sep);

	*mem_mb = NEURON_SIM_DEF_MEM_MB;
	if (size) {
		*size++ = '\0';
		if (kstrtou32(size, 10, mem_mb))
			return -EINVAL;
	}
	*hal = neuron_sim_hal(spec);
	if (!*hal || !*mem_mb || *mem_mb > NEURON_SIM_MAX_MEM_MB)
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(neuron_sim_parse);

static ssize_t new_device_store(NEURON_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	const struct ndhal *hal;
	char *spec, *arch;
	u32 id, mem_mb;
	int ret;

	spec = kstrndup(buf, count, GFP_KERNEL);
	if (!spec)
		return -ENOMEM;
	arch = strim(spec);
	/* "ID ARCH [MEM_MB]": split the ID off, then parse the rest. */
	ret = -EINVAL;
	arch = strchr(arch, ' ');
	if (!arch)
		goto out;
	*arch++ = '\0';
	if (kstrtou32(strim(spec), 10, &id) || id > NEURON_SIM_MAX_ID)
		goto out;
	ret = neuron_sim_parse(skip_spaces(arch), ' ', &hal, &mem_mb);
	if (ret)
		goto out;

	mutex_lock(&neuron_sim_lock);
	ret = neuron_sim_create_locked(id, hal, mem_mb);
	mutex_unlock(&neuron_sim_lock);
out:
	kfree(spec);
	return ret ? ret : count;
}
static BUS_ATTR_WO(new_device);

static ssize_t del_device_store(NEURON_BUS_CONST struct bus_type *bus,
				const char *buf, size_t count)
{
	struct neuron_sim_dev *sd;
	u32 id;
	int ret;

	ret = kstrtou32(buf, 10, &id);
	if (ret)
		return ret;

	mutex_lock(&neuron_sim_lock);
	sd = neuron_sim_find(id);
	if (sd)
		neuron_sim_destroy_locked(sd);
	mutex_unlock(&neuron_sim_lock);
	return sd ? count : -ENOENT;
}
static BUS_ATTR_WO(del_device);

static struct attribute *neuron_sim_bus_attrs[] = {
	&bus_attr_new_device.attr,
	&bus_attr_del_device.attr,
	NULL,
};
ATTRIBUTE_GROUPS(neuron_sim_bus);

static struct bus_type neuron_sim_bus = {
	.name = "neuron_sim",
	.bus_groups = neuron_sim_bus_groups,
};

static void neuron_sim_destroy_all(void)
{
	struct neuron_sim_dev *sd, *tmp;

	mutex_lock(&neuron_sim_lock);
	neuron_sim_closing = true;
	list_for_each_entry_safe_reverse(sd, tmp, &neuron_sim_devs, list)
		neuron_sim_destroy_locked(sd);
	mutex_unlock(&neuron_sim_lock);
}

/* Create the devices asked for with the sim= module parameter. */
static int neuron_sim_create_param(void)
{
	const struct ndhal *hal;
	char spec[32];
	u32 mem_mb;
	int i, ret;

	for (i = 0; i < sim_count; i++) {
		ret = -EINVAL;
		if (strscpy(spec, sim[i], sizeof(spec)) >= 0)
			ret = neuron_sim_parse(spec, ':', &hal, &mem_mb);
		if (ret) {
			pr_err("neuron_sim: bad sim=%s: want ARCH[:MEM_MB], ARCH v2 or v3\n",
			       sim[i]);
			return ret;
		}
		mutex_lock(&neuron_sim_lock);
		ret = neuron_sim_create_locked(i, hal, mem_mb);
		mutex_unlock(&neuron_sim_lock);
		if (ret) {
			pr_err("neuron_sim: cannot create simulated device %d: %d\n",
			       i, ret);
			return ret;
		}
	}
	return 0;
}

/*
 * Remove every simulated device, then wait until the last of them is
 * released: files still open on one keep module exit waiting until they
 * are closed (their memory objects call this module's ops).
 */
static void neuron_sim_teardown(void)
{
	neuron_sim_destroy_all();
	driver_unregister(&neuron_sim_driver);
	if (atomic_read(&neuron_sim_alive))
		pr_info("neuron_sim: waiting for the open files of removed devices\n");
	wait_event(neuron_sim_released, !atomic_read(&neuron_sim_alive));
	bus_unregister(&neuron_sim_bus);
}

static int __init neuron_sim_init(void)
{
	int ret;

	ret = bus_register(&neuron_sim_bus);
	if (ret)
		return ret;
	ret = driver_register(&neuron_sim_driver);
	if (ret) {
		bus_unregister(&neuron_sim_bus);
		return ret;
	}
	ret = neuron_sim_create_param();
	if (ret)
		neuron_sim_teardown();
	return ret;
}

static void __exit neuron_sim_exit(void)
{
	neuron_sim_teardown();
}

module_init(neuron_sim_init);
module_exit(neuron_sim_exit);

MODULE_DESCRIPTION("Simulated AWS Neuron devices for the neuron driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
MODULE_IMPORT_NS(NEURON_NS);
