// SPDX-License-Identifier: GPL-2.0
/*
 * neuron: PCI driver for Neuron silicon (vendor 0x1d0f, docs/hw-facts.md).
 *
 * Probe enables the device and sets a 64-bit DMA mask; the backend's init
 * (neuron_pci_ops) checks and claims the BARs of the arch and maps the
 * register BAR before /dev/neuronN appears. The
 * engines are not programmed: the device reports NEURON_DEV_ENGINES_OFF and
 * only the capabilities that work (the query).
 */
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/pci.h>

#include "neuron_device.h"
#include "ndhal/ndhal.h"

/**
 * struct neuron_pci - PCI backend state of one device
 * @pdev: the PCI device.
 * @nd: the neuron device.
 */
struct neuron_pci {
	struct pci_dev *pdev;
	struct neuron_device *nd;
};

/**
 * struct neuron_pci_product - what a PCI device id stands for
 * @hal: arch table.
 * @name: product name.
 */
struct neuron_pci_product {
	const struct ndhal *hal;
	const char *name;
};

enum { NEURON_INF1, NEURON_TRN1, NEURON_INF2, NEURON_TRN2 };

static const struct neuron_pci_product neuron_pci_products[] = {
	[NEURON_INF1] = { &ndhal_v1, "inf1" },
	[NEURON_TRN1] = { &ndhal_v2, "trn1" },
	[NEURON_INF2] = { &ndhal_v2, "inf2" },
	[NEURON_TRN2] = { &ndhal_v3, "trn2" },
};

static const struct pci_device_id neuron_pci_ids[] = {
	{ PCI_VDEVICE(AMAZON, 0x7064), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7065), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7066), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7067), NEURON_INF1 },
	{ PCI_VDEVICE(AMAZON, 0x7164), NEURON_TRN1 },
	{ PCI_VDEVICE(AMAZON, 0x7264), NEURON_INF2 },
	{ PCI_VDEVICE(AMAZON, 0x7364), NEURON_TRN2 },
	{ }
};
MODULE_DEVICE_TABLE(pci, neuron_pci_ids);

static int neuron_pci_check_bars(struct pci_dev *pdev,
				 const struct ndhal_arch *arch)
{
	int bar;

	for (bar = 0; bar < PCI_STD_NUM_BARS; bar++) {
		if (!(arch->bar_mask & BIT(bar)))
			continue;
		if (!(pci_resource_flags(pdev, bar) & IORESOURCE_MEM) ||
		    !pci_resource_len(pdev, bar)) {
			dev_err(&pdev->dev, "BAR%d of a %s device is missing\n",
				bar, arch->name);
			return -ENODEV;
		}
	}
	return 0;
}

/*
 * Claim the BARs of the arch. The register BAR is mapped when the engines
 * are programmed (not yet: NEURON_DEV_ENGINES_OFF).
 */
static int neuron_pci_hw_init(struct neuron_device *nd)
{
	const struct ndhal_arch *arch = nd->hal->arch;
	struct neuron_pci *np = nd->backend;
	struct pci_dev *pdev = np->pdev;
	int ret;

	ret = neuron_pci_check_bars(pdev, arch);
	if (ret)
		return ret;
	return pci_request_selected_regions(pdev, arch->bar_mask, "neuron");
}

static void neuron_pci_hw_fini(struct neuron_device *nd)
{
	struct neuron_pci *np = nd->backend;

	pci_release_selected_regions(np->pdev, nd->hal->arch->bar_mask);
}

const struct ndhal_ops neuron_pci_ops = {
	.name = "pci",
	.init = neuron_pci_hw_init,
	.fini = neuron_pci_hw_fini,
};

static int neuron_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	const struct neuron_pci_product *prod = &neuron_pci_products[id->driver_data];
	struct neuron_device_desc desc = {};
	struct neuron_device *nd;
	struct neuron_pci *np;
	int ret;

	np = kzalloc(sizeof(*np), GFP_KERNEL);
	if (!np)
		return -ENOMEM;
	np->pdev = pdev;

	ret = pci_enable_device_mem(pdev);
	if (ret)
		goto err_free;
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret) {
		dev_err(&pdev->dev, "no 64-bit DMA\n");
		goto err_disable;
	}

	desc.parent = &pdev->dev;
	desc.hal = prod->hal;
	desc.product = prod->name;
	desc.pdev = pdev;
	desc.dram_size = pci_resource_len(pdev, prod->hal->arch->dram_bar);
	desc.backend = np;
	nd = neuron_device_create(&desc);
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
		goto err_disable;
	}
	np->nd = nd;
	pci_set_drvdata(pdev, np);
	return 0;

err_disable:
	pci_disable_device(pdev);
err_free:
	kfree(np);
	return ret;
}

static void neuron_pci_remove(struct pci_dev *pdev)
{
	struct neuron_pci *np = pci_get_drvdata(pdev);

	neuron_device_remove(np->nd);
	pci_disable_device(pdev);
	kfree(np);
}

static struct pci_driver neuron_pci_driver = {
	.name = "neuron",
	.id_table = neuron_pci_ids,
	.probe = neuron_pci_probe,
	.remove = neuron_pci_remove,
};

int neuron_pci_init(void)
{
	return pci_register_driver(&neuron_pci_driver);
}

void neuron_pci_exit(void)
{
	pci_unregister_driver(&neuron_pci_driver);
}
