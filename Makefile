# SPDX-License-Identifier: GPL-2.0
#
# make [modules]  build neuron.ko and neuron_sim.ko for the running kernel,
#                 or for KDIR=<headers>
# make check      the whole test loop in QEMU (scripts/check.sh)
# make coverage   line coverage of driver/ by the debug-kernel tests
# make bench      data-path ratios in the VM (docs/performance.md)
# make demo       boot a VM with two simulated devices and query them
# make clean
# The modules themselves are described by the Kbuild file.

KDIR ?= /lib/modules/$(shell uname -r)/build

all modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

clean:
	[ ! -d $(KDIR) ] || $(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf build

check:
	@scripts/check.sh

demo:
	@scripts/demo.sh

coverage:
	@scripts/coverage.sh

bench:
	@scripts/bench.sh

.PHONY: all modules clean check demo coverage bench
