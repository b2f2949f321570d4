# SPDX-License-Identifier: GPL-2.0
#
# make [modules]  build neuron.ko and neuron_sim.ko for the running kernel,
#                 or for KDIR=<headers>
# make check      the whole test loop in QEMU (scripts/check.sh)
# make coverage   line coverage of driver/ by the debug-kernel tests
# make fuzz       soak the driver with the coverage-guided fuzzer on the
#                 debug kernel: CALLS calls (default 1000000), then which
#                 handlers it reached (scripts/fuzz.sh, docs/testing.md)
# make bench      data-path ratios in the VM (docs/performance.md)
# make demo       boot a VM with two simulated devices, query them and run
#                 the example MLP through libnrt.so.1 on four NeuronCores
# make shim       libnrt.so.1, neuron-pack, neuron-dump and the example
#                 models into build/shim (O=...)
# make install    the library (with its symlinks), headers, nrt.pc,
#                 neuron-pack, neuron-dump and the example models;
#                 PREFIX (/usr/local) and DESTDIR as usual
# The targets below serve distribution packages (debian/, docs/packaging.md);
# all take DESTDIR, and PREFIX where it applies:
# make tools      neuron-pack, neuron-dump, neuron-ls, neuron-monitor,
#                 neuron-top (shared libnl and ncurses) and neuron-info into
#                 $(O), with the caller's
#                 CPPFLAGS, CFLAGS and LDFLAGS (e.g. dpkg-buildflags') added
#                 to each tool's own flags
# make install-tools     those into BINDIR, the man pages of docs/man into MANDIR
# make install-dkms      the DKMS source tree into DKMS_SRCDIR
#                        (/usr/src/neuron-VERSION): dkms.conf, VERSION,
#                        Kbuild, the sources of driver/ and uapi/
# make install-udev      udev/60-neuron.rules into UDEV_RULES_DIR
#                        (/lib/udev/rules.d) and the group into SYSUSERS_DIR
#                        (/usr/lib/sysusers.d/neuron.conf)
# make install-uapi      uapi/neuron.h and uapi/neuron_netlink.h into
#                        INCDIR/neuron/ (PREFIX/include/neuron) and
#                        neuron-uapi.pc (Cflags -I INCDIR/neuron) into
#                        PKGDATADIR (PREFIX/share/pkgconfig)
# make clean
# The modules themselves are described by the Kbuild file.

KDIR ?= /lib/modules/$(shell uname -r)/build
PREFIX ?= /usr/local
DESTDIR ?=
O ?= $(CURDIR)/build/shim
VERSION := $(strip $(shell cat $(CURDIR)/VERSION))
BINDIR ?= $(PREFIX)/bin
MANDIR ?= $(PREFIX)/share/man
INCDIR ?= $(PREFIX)/include
PKGDATADIR ?= $(PREFIX)/share/pkgconfig
DKMS_SRCDIR ?= /usr/src/neuron-$(VERSION)
UDEV_RULES_DIR ?= /lib/udev/rules.d
SYSUSERS_DIR ?= /usr/lib/sysusers.d

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

CALLS ?= 1000000
fuzz:
	@scripts/fuzz.sh $(CALLS)

# docs/privilege-model.md and the tests agree (host only, seconds).
privilege-table:
	@scripts/privilege-table.sh

# tools/syzkaller/dev_neuron.txt and uapi/ agree (host only, a second);
# syz-const rewrites its .const file from the headers (docs/fuzzing.md).
syz-check:
	@scripts/syz-check.sh

syz-const:
	@scripts/syz-check.sh --const

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

# The tools, built with extra flags: Makefile.container reads none (they go
# in with CC), Makefile.nl reads EXTRA_CFLAGS (compile and link in one step).
# MAKEFLAGS is emptied for these two: a CFLAGS given on our command line
# would otherwise replace Makefile.nl's own.
TOOL_FLAGS = $(strip $(CPPFLAGS) $(CFLAGS) $(LDFLAGS))
TOOLS := neuron-pack neuron-dump neuron-ls neuron-monitor neuron-top neuron-info
tools:
	MAKEFLAGS= $(MAKE) -f libshim/Makefile.container O=$(abspath $(O)) \
		CC="$(CC) $(TOOL_FLAGS)" container-tools
	MAKEFLAGS= $(MAKE) -f tools/Makefile.nl O=$(abspath $(O)) STATIC=0 CC="$(CC)" \
		EXTRA_CFLAGS="$(TOOL_FLAGS)" $(abspath $(O))/neuron-ls $(abspath $(O))/neuron-monitor \
		$(abspath $(O))/neuron-top
	MAKEFLAGS= $(MAKE) -C tools/lib/neuron O=$(abspath $(O))/libneuron CC="$(CC)" \
		LIB_CFLAGS="-O2 $(CPPFLAGS) $(CFLAGS)"
	$(CC) $(CPPFLAGS) -O2 $(CFLAGS) -Wall -Wextra -I$(CURDIR)/uapi -I$(CURDIR)/tools/lib/neuron \
		-o $(O)/neuron-info tools/neuron-info.c $(O)/libneuron/libneuron.a $(LDFLAGS)

install-tools: tools
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(addprefix $(O)/,$(TOOLS)) $(DESTDIR)$(BINDIR)/
	install -m 0644 docs/man/*.1 $(DESTDIR)$(MANDIR)/man1/

# Only sources: a tree that has been built in place keeps its objects.
DKMS_FILES := $(shell cd $(CURDIR) && find driver uapi -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort)
install-dkms:
	install -d $(DESTDIR)$(DKMS_SRCDIR)
	install -m 0644 dkms.conf VERSION Kbuild $(DESTDIR)$(DKMS_SRCDIR)/
	for f in $(DKMS_FILES); do \
		install -D -m 0644 $$f $(DESTDIR)$(DKMS_SRCDIR)/$$f || exit 1; \
	done

install-udev:
	install -D -m 0644 udev/60-neuron.rules $(DESTDIR)$(UDEV_RULES_DIR)/60-neuron.rules
	install -D -m 0644 udev/neuron.sysusers $(DESTDIR)$(SYSUSERS_DIR)/neuron.conf

install-uapi:
	install -d $(DESTDIR)$(INCDIR)/neuron $(DESTDIR)$(PKGDATADIR)
	install -m 0644 uapi/neuron.h uapi/neuron_netlink.h $(DESTDIR)$(INCDIR)/neuron/
	printf '%s\n' \
		'prefix=$(PREFIX)' \
		'includedir=$(patsubst $(PREFIX)/%,$${prefix}/%,$(INCDIR))' \
		'' \
		'Name: neuron-uapi' \
		'Description: userspace API of the neuron kernel module (ioctls, netlink)' \
		'Version: $(VERSION)' \
		'Cflags: -I$${includedir}/neuron' > $(DESTDIR)$(PKGDATADIR)/neuron-uapi.pc

.PHONY: all modules clean check demo coverage fuzz privilege-table syz-check syz-const bench shim install tools \
	install-tools install-dkms install-udev install-uapi
