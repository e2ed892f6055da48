# SPDX-License-Identifier: GPL-2.0
#
# blkfast: split-deadline (sched/) and pdm (poll/) for Debian 12's Linux 6.1.
#
#   make                 build the modules for KDIR (see below)
#   make tools           build the user-space programs in tools/
#   make check           install what is missing, build, lint, run every test
#                        (the debug kernel tier's core included; all of it:
#                        tests/run debug)
#   make lint            checkpatch, sparse, clang-format spacing, shellcheck
#   make mutants         each tests/mutants/*.patch must make its tests fail
#   make bench           every comparison in VM boots: build/bench/report.md
#   make demo            install what is missing, build, run the demo in a VM
#   sudo make load       insert the modules into the running kernel
#   sudo make install    install modules, tools and man page (uninstall)
#   sudo make dkms-add   register the sources with DKMS (dkms-remove)
#   make clean           remove everything the build made

# Debian's kernel ABI and the default flavour: stated in scripts/config.sh.
KABI		:= $(shell sed -n 's/^KABI=//p' scripts/config.sh)
ifeq ($(origin FLAVOUR),undefined)
FLAVOUR		:= $(shell sed -n 's/^BLKFAST_DEFAULT_FLAVOUR=//p' scripts/config.sh)
endif
KVER		?= $(shell uname -r)
# The kernel the VM tests boot, and the headers that match it.
VM_KDIR		:= /usr/src/linux-headers-$(KABI)-$(FLAVOUR)

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
    KDIR := /lib/modules/$(KVER)/build
  else
    KDIR := $(VM_KDIR)
    ifeq ($(filter check demo lint clean tools vm-build mutants bench bench-sched install uninstall dkms-src dkms-add dkms-remove,$(MAKECMDGOALS)),)
      $(info blkfast: /lib/modules/$(KVER)/build not found; building against $(KDIR))
    endif
  endif
endif

# Private block/ headers, extracted per kernel version (never committed).
# Run without our MAKEFLAGS: under a parent make (DKMS runs `make -j2 -C
# ...`) the sub-make would print its directory changes into the value.
KVERSION	= $(shell MAKEFLAGS= $(MAKE) -s --no-print-directory -C $(KDIR) \
			kernelversion 2>/dev/null | grep -E '^[0-9]+\.[0-9]+' | tail -n 1)
PRIV_DIR	= $(CURDIR)/build/kheaders-$(KVERSION)
KSRC		?=
BLKFAST_TESTS	?=
# kbuild on our tree, followed by a kbuild target (modules, clean, ...);
# recipes mark it with "+": make passes its jobserver only to a $(MAKE)
# it sees in the recipe itself.
KBUILD		= $(MAKE) -C $(KDIR) M=$(CURDIR) BLKFAST_PRIV=$(PRIV_DIR)

.PHONY: all modules tools vm-build check demo load unload clean deps bench-sched bench lint mutants

all: modules

modules:
	@test -f $(KDIR)/Makefile || { echo "blkfast: no kernel headers at KDIR=$(KDIR)"; exit 1; }
	@test -f $(PRIV_DIR)/version || scripts/private-headers.sh $(KDIR) $(PRIV_DIR) $(KSRC)
	+$(KBUILD) BLKFAST_TESTS=$(BLKFAST_TESTS) modules

tools:
	$(MAKE) -C tools

deps:
	scripts/deps.sh --flavour $(FLAVOUR)

# What every VM run needs.  The VM boots Debian's kernel, so the modules
# (the test-only ones too) are built against its headers, whatever the host
# runs; and the tools.
vm-build: deps
	$(MAKE) modules KDIR=$(VM_KDIR) BLKFAST_TESTS=1
	$(MAKE) tools

check: vm-build
	scripts/lint.sh
	BLKFAST_DEBUG_TIER=core tests/run -j 2 unit host vm rt debug

demo: vm-build
	scripts/vm.sh -c 2 tests/vm/bench/demo.sh

# checkpatch --strict, sparse, clang-format's spacing and shellcheck over
# our sources: see scripts/lint.sh.
lint: deps
	scripts/lint.sh

# Mutation check (scripts/mutants.sh): slow, one VM test run per mutant and
# test; MUTANTS="name ..." for a subset.
mutants: vm-build
	scripts/mutants.sh $(MUTANTS)

# Every comparison, one report: build/bench/report.md (see scripts/bench.sh).
# BENCH_QUICK=1 for a smoke run; BENCH_REPEATS, BENCH_SECS, BENCH_CPUS (the
# scheduler part's vCPU counts, default "2 8"); BENCH_ONLY=sched,pdm,...
# for some of the parts.
BENCH_FLAGS	= $(if $(filter-out 0,$(BENCH_QUICK)),--quick) \
		  $(if $(BENCH_ONLY),--only=$(BENCH_ONLY))
bench: vm-build
	scripts/bench.sh $(BENCH_FLAGS)

# The scheduler part alone; BENCH_JOBS=1,4 for other job counts.
bench-sched: vm-build
	scripts/bench.sh $(BENCH_FLAGS) --only=sched \
		$(if $(BENCH_JOBS),sched_jobs=$(BENCH_JOBS))

load: modules
	insmod sched/split-deadline.ko
	insmod poll/pdm.ko

unload:
	rmmod pdm split-deadline

# Installing (README.md, "Installing").  DESTDIR stages, PREFIX (/usr/local)
# places the tools and the man page, INSTALL_MOD_DIR (updates) the modules
# under /lib/modules/<KDIR's release>/.  SIGN_KEY=<key> SIGN_CERT=<cert>
# signs the installed modules for Secure Boot (e.g. DKMS's MOK pair,
# /var/lib/dkms/mok.key and mok.pub).
BLKFAST_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
MAN8DIR		?= $(PREFIX)/share/man/man8
INSTALL_MOD_DIR	?= updates
SIGN_KEY	?=
SIGN_CERT	?=
# KDIR's release as its modules carry it (`make kernelrelease` in Debian's
# headers says 6.1.y instead).
KRELEASE	= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
			$(KDIR)/include/generated/utsrelease.h)
MOD_DEST	= $(DESTDIR)/lib/modules/$(KRELEASE)/$(INSTALL_MOD_DIR)
INSTALL_MODS	:= sched/split-deadline.ko poll/pdm.ko
INSTALL_TOOLS	:= pdmsetup uring-bench
# What DKMS needs to build the modules, and nothing that a build made
# (tests/modules/ too: kbuild's clean, which DKMS runs, descends into it).
DKMS_SRCTREE	?= /usr/src
DKMS_SRC	= $(DKMS_SRCTREE)/blkfast-$(BLKFAST_VERSION)
DKMS_FILES	= Makefile Kbuild dkms.conf scripts/private-headers.sh \
		  scripts/config.sh \
		  $(filter-out %.mod.c,$(wildcard sched/Kbuild sched/*.[ch] \
		    poll/Kbuild poll/*.[ch] include/*/*.h include/*/*/*.h \
		    tests/modules/Kbuild tests/modules/*.[ch]))

.PHONY: install uninstall dkms-src dkms-add dkms-remove

# kbuild's own signing wants the kernel's build key, which no headers
# package ships: it is turned off, and SIGN_KEY does it instead.  kbuild's
# depmod needs a System.map that the headers lack: depmod runs here.
install: modules tools
	+$(KBUILD) INSTALL_MOD_PATH=$(DESTDIR) INSTALL_MOD_DIR=$(INSTALL_MOD_DIR) \
		CONFIG_MODULE_SIG_ALL= modules_install
ifneq ($(SIGN_KEY),)
	for m in $(INSTALL_MODS); do \
		$(KDIR)/scripts/sign-file \
			$$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' \
				$(KDIR)/.config) \
			$(SIGN_KEY) $(SIGN_CERT) $(MOD_DEST)/$$m || exit 1; \
	done
endif
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KRELEASE)
	install -d $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MAN8DIR)
	install -m 755 $(addprefix tools/,$(INSTALL_TOOLS)) $(DESTDIR)$(SBINDIR)/
	install -m 644 man/pdmsetup.8 $(DESTDIR)$(MAN8DIR)/

uninstall:
	rm -f $(addprefix $(MOD_DEST)/,$(INSTALL_MODS))
	-rmdir $(MOD_DEST)/sched $(MOD_DEST)/poll 2>/dev/null
	if [ -d $(DESTDIR)/lib/modules/$(KRELEASE)/kernel ] || \
	   [ -f $(DESTDIR)/lib/modules/$(KRELEASE)/modules.dep ]; then \
		depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KRELEASE); fi
	rm -f $(addprefix $(DESTDIR)$(SBINDIR)/,$(INSTALL_TOOLS)) \
		$(DESTDIR)$(MAN8DIR)/pdmsetup.8

# DKMS (dkms.conf): the sources into DKMS_SRC, then `dkms add`; after that
# `dkms install blkfast/<version>` builds and installs for a kernel, and
# DKMS rebuilds for every new kernel.  dkms-remove undoes both.
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	for f in $(DKMS_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit 1; done
	chmod 755 $(DESTDIR)$(DKMS_SRC)/scripts/private-headers.sh

dkms-add: dkms-src
	dkms add -m blkfast -v $(BLKFAST_VERSION) --sourcetree $(DKMS_SRCTREE)

dkms-remove:
	-dkms remove -m blkfast -v $(BLKFAST_VERSION) --all
	rm -rf $(DESTDIR)$(DKMS_SRC)

clean:
	+@if [ -f $(KDIR)/Makefile ]; then $(KBUILD) clean; fi
	$(MAKE) -C tools clean
	rm -rf build
