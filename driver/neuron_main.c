// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: driver for AWS Neuron accelerators (Inferentia, Trainium).
 * Module entry points of neuron.ko: the core and the PCI backend. The
 * simulated devices are another module's (neuron_sim.ko, driver/sim/),
 * which creates them through what this one exports in NEURON_NS.
 */
#include <linux/module.h>

#include "neuron_drv.h"

static int __init neuron_init(void)
{
	int ret;

	ret = neuron_chrdev_init();
	if (ret)
		return ret;
	ret = neuron_pci_init();
	if (ret)
		goto err_chrdev;
	pr_info("neuron: driver %s loaded\n", NEURON_DRIVER_VERSION);
	return 0;

err_chrdev:
	neuron_chrdev_exit();
	return ret;
}

static void __exit neuron_exit(void)
{
	neuron_pci_exit();
	neuron_chrdev_exit();
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_DESCRIPTION("AWS Neuron accelerators (Inferentia, Trainium)");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
