// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: driver for AWS Neuron accelerators (Inferentia, Trainium) and
 * their simulated counterparts. Module entry points.
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
	ret = neuron_sim_init();
	if (ret)
		goto err_pci;
	pr_info("neuron: driver %s loaded\n", NEURON_DRIVER_VERSION);
	return 0;

err_pci:
	neuron_pci_exit();
err_chrdev:
	neuron_chrdev_exit();
	return ret;
}

static void __exit neuron_exit(void)
{
	neuron_sim_exit();
	neuron_pci_exit();
	neuron_chrdev_exit();
}

module_init(neuron_init);
module_exit(neuron_exit);

MODULE_DESCRIPTION("AWS Neuron accelerators (Inferentia, Trainium), with simulated devices");
MODULE_LICENSE("GPL");
MODULE_VERSION(NEURON_DRIVER_VERSION);
