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
#   make bench           every comparison in VM boots, 6.1 and 6.12:
#                        build/bench/report.md
#   make bench-exact     instructions per I/O, exact: build/bench/exact.md
#   make demo            install what is missing, build, run the demo in a VM
#   sudo make load       insert the modules into the running kernel
#   sudo make install    install modules, pdmsetup, udev rules, generator
#                        and man pages (uninstall)
#   make deb             the Debian packages, in build/deb/
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
    ifeq ($(filter check demo lint clean tools vm-build mutants bench bench-sched bench-exact install-tools deb dkms-src dkms-add dkms-remove,$(MAKECMDGOALS)),)
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

.PHONY: all modules tools vm-build check demo load unload clean deps bench-sched bench bench-exact lint mutants

all: modules

# Without the kernel source that split-deadline's private headers come from,
# pdm alone is built, and build/split-deadline.skipped says why and what to
# install (DKMS prints it after the build); the tests need both modules.
SCHED_SKIPPED	= build/split-deadline.skipped
modules:
	@test -f $(KDIR)/Makefile || { echo "blkfast: no kernel headers at KDIR=$(KDIR)"; exit 1; }
	@mkdir -p build && rm -f $(SCHED_SKIPPED)
	+@if [ -f $(PRIV_DIR)/version ] || \
	    scripts/private-headers.sh $(KDIR) $(PRIV_DIR) $(KSRC) \
		2>build/private-headers.err; then \
		nosched=; \
	else \
		if [ -n "$(BLKFAST_TESTS)" ]; then \
			cat build/private-headers.err >&2; exit 1; \
		fi; \
		nosched=1; \
		{ echo "blkfast: split-deadline not built for $(KVERSION), pdm is:"; \
		  sed 's/^private-headers: //' build/private-headers.err; } \
			>$(SCHED_SKIPPED); \
		cat $(SCHED_SKIPPED) >&2; \
	fi; \
	rm -f build/private-headers.err; \
	$(KBUILD) BLKFAST_TESTS=$(BLKFAST_TESTS) BLKFAST_NO_SCHED=$$nosched modules

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

# The whole of make check, set-up and the debug kernel's build included,
# ends within CHECK_BUDGET_S of its start (CI stops at 90 minutes): past
# the deadline tests/run fails what is left rather than run it, and cuts
# each guest's time limit to what remains.
CHECK_BUDGET_S	?= 5040
check: export BLKFAST_DEADLINE := $(shell echo $$(( $$(date +%s) + $(CHECK_BUDGET_S) )))
# host/flavours-build leaves rt-amd64 to the rt tier's prepare step, which
# builds it under the same rules (warnings are errors, modpost's too).
check: vm-build
	scripts/lint.sh
	BLKFAST_DEBUG_TIER=core BLKFAST_VM_TIER=core \
	BLKFAST_BUILD_FLAVOURS="amd64 cloud-amd64" \
		tests/run -j 2 unit host vm rt 6.12 6.12-rt debug

# The demo needs less than the tests: no lint, DKMS or debug kernel.  Its
# guest output streams as it runs ([k/N] per run), then its table.
demo:
	scripts/deps.sh --demo
	$(MAKE) modules KDIR=$(VM_KDIR) BLKFAST_TESTS=1
	$(MAKE) tools
	scripts/vm.sh -s -c 2 tests/vm/bench/demo.sh

# checkpatch --strict, sparse, clang-format's spacing and shellcheck over
# our sources: see scripts/lint.sh.
lint: deps
	scripts/lint.sh

# Mutation check (scripts/mutants.sh): slow, one VM test run per mutant and
# test; MUTANTS="name ..." for a subset.
mutants: vm-build
	scripts/mutants.sh $(MUTANTS)

# Every comparison, one report: build/bench/report.md (see scripts/bench.sh),
# on Debian's 6.1 and 6.12 side by side.  BENCH_QUICK=1 for a smoke run;
# BENCH_REPEATS, BENCH_SECS, BENCH_CPUS (the scheduler part's vCPU counts,
# default "2 8"); BENCH_ONLY=sched,pdm,... for some of the parts;
# BENCH_KERNELS=6.1 (or 6.12) for one kernel line.
BENCH_FLAGS	= $(if $(filter-out 0,$(BENCH_QUICK)),--quick) \
		  $(if $(BENCH_ONLY),--only=$(BENCH_ONLY)) \
		  $(if $(BENCH_KERNELS),--kernels=$(BENCH_KERNELS))
bench: vm-build
	scripts/bench.sh $(BENCH_FLAGS)

# The scheduler part alone; BENCH_JOBS=1,4 for other job counts.
bench-sched: vm-build
	scripts/bench.sh $(BENCH_FLAGS) --only=sched \
		$(if $(BENCH_JOBS),sched_jobs=$(BENCH_JOBS))

# The exact cost of an I/O, in instructions, from exact-time boots
# (scripts/bench-exact.sh): build/bench/exact.md.  BENCH_EXACT_IOS (50000)
# I/Os per measured run; BENCH_ONLY=matrix,profile,hybrid for some parts.
bench-exact: vm-build
	scripts/bench-exact.sh $(if $(BENCH_ONLY),--only=$(BENCH_ONLY))

load: modules
	insmod sched/split-deadline.ko
	insmod poll/pdm.ko

unload:
	rmmod pdm split-deadline

# Installing (README.md, "Installing").  DESTDIR stages, PREFIX (/usr/local)
# places pdmsetup and the man pages; the modules go where DKMS puts them,
# /lib/modules/<KDIR's release>/updates/dkms/, so that `make install` and
# the package (or DKMS) replace each other instead of leaving two copies;
# udev rules and the systemd generator go where udev and systemd look
# (/usr/local is not searched for rules).  SIGN_KEY=<key> SIGN_CERT=<cert>
# signs the installed modules for Secure Boot (e.g. DKMS's MOK pair,
# /var/lib/dkms/mok.key and mok.pub).  install-modules and install-tools
# do each half (the Debian package uses the second).
BLKFAST_VERSION	:= $(shell sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' dkms.conf)
PREFIX		?= /usr/local
SBINDIR		?= $(PREFIX)/sbin
MANDIR		?= $(PREFIX)/share/man
DOCDIR		?= $(PREFIX)/share/doc/pdmsetup
COMPLETIONDIR	?= $(PREFIX)/share/bash-completion/completions
UDEVRULESDIR	?= /lib/udev/rules.d
GENERATORDIR	?= /lib/systemd/system-generators
INSTALL_MOD_DIR	?= updates/dkms
SIGN_KEY	?=
SIGN_CERT	?=
# KDIR's release as its modules carry it (`make kernelrelease` in Debian's
# headers says 6.1.y instead).
KRELEASE	= $(shell sed -n 's/^\#define UTS_RELEASE "\(.*\)"/\1/p' \
			$(KDIR)/include/generated/utsrelease.h)
MOD_DEST	= $(DESTDIR)/lib/modules/$(KRELEASE)/$(INSTALL_MOD_DIR)
INSTALL_MODS	:= sched/split-deadline.ko poll/pdm.ko
# What install-tools puts where (uninstall removes the same list).
TOOL_FILES	= $(DESTDIR)$(SBINDIR)/pdmsetup \
		  $(DESTDIR)$(MANDIR)/man8/pdmsetup.8 \
		  $(DESTDIR)$(MANDIR)/man5/pdmtab.5 \
		  $(DESTDIR)$(UDEVRULESDIR)/60-pdm.rules \
		  $(DESTDIR)$(GENERATORDIR)/pdm-generator \
		  $(DESTDIR)$(COMPLETIONDIR)/pdmsetup \
		  $(DESTDIR)$(DOCDIR)/examples/pdmtab \
		  $(DESTDIR)$(DOCDIR)/examples/65-split-deadline.rules
# What DKMS needs to build the modules, and nothing that a build made; no
# tests (Kbuild leaves out the test modules where tests/ is missing).
DKMS_SRCTREE	?= /usr/src
DKMS_SRC	= $(DKMS_SRCTREE)/blkfast-$(BLKFAST_VERSION)
DKMS_FILES	= Makefile Kbuild dkms.conf scripts/private-headers.sh \
		  scripts/dkms-post-build.sh \
		  scripts/config.sh \
		  $(filter-out %.mod.c,$(wildcard sched/Kbuild sched/*.[ch] \
		    poll/Kbuild poll/*.[ch] include/*/*.h include/*/*/*.h))

.PHONY: install install-modules install-tools uninstall dkms-src dkms-add dkms-remove

install: install-modules install-tools

# The modules the build made (split-deadline is left out where its kernel
# source is missing: `make modules` said why, and an older build's .ko is
# not for this kernel's source).  kbuild's modules_install
# would keep our sched/ and poll/ folders and sign with the kernel's build
# key, which no headers package ships; depmod runs here for the same
# reason (kbuild's wants a System.map).
install-modules: modules
	install -d $(MOD_DEST)
	for m in $(INSTALL_MODS); do \
		test -f $$m || continue; \
		case $$m in sched/*) test ! -f $(SCHED_SKIPPED) || continue;; esac; \
		install -m 644 $$m $(MOD_DEST)/ || exit 1; \
		test -z "$(SIGN_KEY)" || $(KDIR)/scripts/sign-file \
			$$(sed -n 's/^CONFIG_MODULE_SIG_HASH="\(.*\)"/\1/p' \
				$(KDIR)/.config) \
			$(SIGN_KEY) $(SIGN_CERT) $(MOD_DEST)/$${m##*/} || exit 1; \
	done
	depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KRELEASE)

install-tools:
	$(MAKE) -C tools dynamic/pdmsetup pdmsetup.8
	install -D -m 755 tools/dynamic/pdmsetup $(DESTDIR)$(SBINDIR)/pdmsetup
	install -D -m 644 tools/pdmsetup.8 $(DESTDIR)$(MANDIR)/man8/pdmsetup.8
	install -D -m 644 man/pdmtab.5 $(DESTDIR)$(MANDIR)/man5/pdmtab.5
	install -D -m 644 system/udev/60-pdm.rules \
		$(DESTDIR)$(UDEVRULESDIR)/60-pdm.rules
	install -D -m 755 system/systemd/pdm-generator \
		$(DESTDIR)$(GENERATORDIR)/pdm-generator
	install -D -m 644 system/bash-completion/pdmsetup \
		$(DESTDIR)$(COMPLETIONDIR)/pdmsetup
	install -D -m 644 system/pdmtab.example $(DESTDIR)$(DOCDIR)/examples/pdmtab
	install -D -m 644 system/udev/examples/65-split-deadline.rules \
		$(DESTDIR)$(DOCDIR)/examples/65-split-deadline.rules

uninstall:
	rm -f $(addprefix $(MOD_DEST)/,$(notdir $(INSTALL_MODS))) $(TOOL_FILES)
	-rmdir $(MOD_DEST) $(DESTDIR)$(DOCDIR)/examples $(DESTDIR)$(DOCDIR) \
		2>/dev/null
	if [ -d $(DESTDIR)/lib/modules/$(KRELEASE)/kernel ] || \
	   [ -f $(DESTDIR)/lib/modules/$(KRELEASE)/modules.dep ]; then \
		depmod -a $(if $(DESTDIR),-b $(DESTDIR)) $(KRELEASE); fi

# DKMS (dkms.conf): the sources into DKMS_SRC, then `dkms add`; after that
# `dkms install blkfast/<version>` builds and installs for a kernel, and
# DKMS rebuilds for every new kernel.  dkms-remove undoes both.
dkms-src:
	rm -rf $(DESTDIR)$(DKMS_SRC)
	for f in $(DKMS_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DKMS_SRC)/$$f || exit 1; done
	chmod 755 $(addprefix $(DESTDIR)$(DKMS_SRC)/scripts/,private-headers.sh \
		dkms-post-build.sh)

# The Debian packages (debian/): blkfast-dkms and pdmsetup, unsigned, from
# this checkout; dpkg-buildpackage writes them beside it, and they are
# moved to build/deb/.
DEB_FILES	= blkfast-dkms_$(BLKFAST_VERSION)_all.deb \
		  pdmsetup_$(BLKFAST_VERSION)_*.deb blkfast_$(BLKFAST_VERSION)_*.buildinfo \
		  blkfast_$(BLKFAST_VERSION)_*.changes pdmsetup-dbgsym_$(BLKFAST_VERSION)_*.deb
.PHONY: deb
deb:
	dpkg-buildpackage -b -us -uc
	mkdir -p build/deb
	cd .. && mv -f $(DEB_FILES) $(CURDIR)/build/deb/ 2>/dev/null; \
		ls $(CURDIR)/build/deb/

dkms-add: dkms-src
	dkms add -m blkfast -v $(BLKFAST_VERSION) --sourcetree $(DKMS_SRCTREE)

dkms-remove:
	-dkms remove -m blkfast -v $(BLKFAST_VERSION) --all
	rm -rf $(DESTDIR)$(DKMS_SRC)

clean:
	+@if [ -f $(KDIR)/Makefile ]; then $(KBUILD) clean; fi
	$(MAKE) -C tools clean
	rm -rf build
