# SPDX-License-Identifier: GPL-2.0
#
# make [modules]  build neuron.ko and neuron_sim.ko for the running kernel,
#                 or for KDIR=<headers>
# make check      the whole test loop in QEMU (scripts/check.sh)
# make coverage   line coverage of driver/ by the debug-kernel tests
# make bench      data-path ratios in the VM (docs/performance.md)
# make demo       boot a VM with two simulated devices, query them and run
#                 the example MLP through libnrt.so.1 on four NeuronCores
# make shim       libnrt.so.1, neuron-pack, neuron-dump and the example
#                 models into build/shim (O=...)
# make install    the library (with its symlinks), headers, nrt.pc,
#                 neuron-pack, neuron-dump and the example models;
#                 PREFIX (/usr/local) and DESTDIR as usual
# make clean
# The modules themselves are described by the Kbuild file.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=
O ?= $(CURDIR)/build/shim

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

shim:
	$(MAKE) -C libshim O=$(O) all
	$(MAKE) -f libshim/Makefile.container O=$(O) container-tools

install: shim
	$(MAKE) -C libshim O=$(O) install PREFIX=$(PREFIX) DESTDIR=$(DESTDIR)
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/neuron/models
	install -m 0755 $(O)/neuron-pack $(O)/neuron-dump $(DESTDIR)$(PREFIX)/bin/
	install -m 0644 $(O)/models/*.nmodel $(DESTDIR)$(PREFIX)/share/neuron/models/

.PHONY: all modules clean check demo coverage bench shim install
