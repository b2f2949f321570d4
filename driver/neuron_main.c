// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: driver for AWS Neuron accelerators (Inferentia, Trainium).
 * Module entry points of neuron.ko: the core and the PCI backend. The
 * simulated devices are another module's (neuron_sim.ko, driver/sim/),
 * which creates them through what this one exports in NEURON_NS.
 */
#include <linux/module.h>

#include "neuron_common.h"
#include "neuron_device.h"

/*
 * Per-file limits: what one open file may hold at a time. Root changes
 * them at run time in /sys/module/neuron/parameters/; a new value applies
 * to later requests, what files already hold is kept. 0 means no limit.
 * docs/uapi.md ("Limits") gives the errors and the reasons for the
 * defaults.
 */
unsigned int neuron_max_handles = 65536;
module_param_named(max_handles, neuron_max_handles, uint, 0644);
MODULE_PARM_DESC(max_handles,
		 "memory object handles per file (default 65536, 0: no limit but 2^24-1)");

unsigned long long neuron_max_mem_bytes;
module_param_named(max_mem_bytes, neuron_max_mem_bytes, ullong, 0644);
MODULE_PARM_DESC(max_mem_bytes,
		 "bytes of memory objects (host and device) per file (default 0: no limit)");

unsigned int neuron_max_notify_queues = NEURON_NOTIFY_TYPES;
module_param_named(max_notify_queues, neuron_max_notify_queues, uint, 0644);
MODULE_PARM_DESC(max_notify_queues,
		 "notification queues per file (default 4, one NeuronCore's; 0: no limit)");

unsigned int neuron_max_async = 4096;
module_param_named(max_async, neuron_max_async, uint, 0644);
MODULE_PARM_DESC(max_async,
		 "asynchronous calls per file not yet collected by WAIT (default 4096, 0: no limit)");

static int __init neuron_init(void)
{
	int ret;

	neuron_debugfs_init();
	ret = neuron_chrdev_init();
	if (ret)
		goto err_debugfs;
	/* Before any device exists: devices send events from their creation. */
	ret = neuron_netlink_init();
	if (ret)
		goto err_chrdev;
	ret = neuron_pci_init();
	if (ret)
		goto err_netlink;
	pr_info("neuron: driver %s loaded\n", NEURON_DRIVER_VERSION);
	return 0;

err_netlink:
	neuron_netlink_exit();
err_chrdev:
	neuron_chrdev_exit();
err_debugfs:
	neuron_debugfs_exit();
	return ret;
}

static void __exit neuron_exit(void)
{
	neuron_pci_exit();
	neuron_netlink_exit();
	neuron_chrdev_exit();
	neuron_debugfs_exit();
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_DESCRIPTION("AWS Neuron accelerators (Inferentia, Trainium)");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
