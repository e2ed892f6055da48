# SPDX-License-Identifier: GPL-2.0
#
# blkfast: split-deadline (sched/) and pdm (poll/) for Debian 12's Linux 6.1.
#
#   make                 build the modules for KDIR (see below)
#   make tools           build the user-space programs in tools/
#   make check           install what is missing, build, run every test
#   make demo            install what is missing, build, run the demo in a VM
#   sudo make load       insert the modules into the running kernel
#   make clean           remove everything the build made

KABI		:= 6.1.0-57
FLAVOUR		?= amd64
KVER		?= $(shell uname -r)
# The kernel the VM tests boot, and the headers that match it.
VM_KDIR		:= /usr/src/linux-headers-$(KABI)-$(FLAVOUR)

ifeq ($(origin KDIR),undefined)
  ifneq ($(wildcard /lib/modules/$(KVER)/build/Makefile),)
    KDIR := /lib/modules/$(KVER)/build
  else
    KDIR := $(VM_KDIR)
    ifeq ($(filter check demo lint clean tools unit,$(MAKECMDGOALS)),)
      $(info blkfast: /lib/modules/$(KVER)/build not found; building against $(KDIR))
    endif
  endif
endif

# Private block/ headers, extracted per kernel version (never committed).
KVERSION	= $(shell $(MAKE) -s --no-print-directory -C $(KDIR) kernelversion 2>/dev/null)
PRIV_DIR	= $(CURDIR)/build/kheaders-$(KVERSION)
KSRC		?=
BLKFAST_TESTS	?=

.PHONY: all modules tools check demo unit vm-tests load unload clean deps

all: modules

modules:
	@test -f $(KDIR)/Makefile || { echo "blkfast: no kernel headers at KDIR=$(KDIR)"; exit 1; }
	@test -f $(PRIV_DIR)/version || scripts/private-headers.sh $(KDIR) $(PRIV_DIR) $(KSRC)
	$(MAKE) -C $(KDIR) M=$(CURDIR) BLKFAST_PRIV=$(PRIV_DIR) \
		BLKFAST_TESTS=$(BLKFAST_TESTS) modules

tools:
	$(MAKE) -C tools

deps:
	scripts/deps.sh --flavour $(FLAVOUR)

# The VM boots Debian's kernel, so the modules are always built against its
# headers here, whatever the host runs.
check: deps
	$(MAKE) modules KDIR=$(VM_KDIR) BLKFAST_TESTS=1
	$(MAKE) tools
	tests/run

demo: deps
	$(MAKE) modules KDIR=$(VM_KDIR) BLKFAST_TESTS=1
	$(MAKE) tools
	scripts/vm.sh -c 2 scripts/demo-guest.sh

load: modules
	insmod sched/split-deadline.ko
	insmod poll/pdm.ko

unload:
	rmmod pdm split-deadline

clean:
	@if [ -f $(KDIR)/Makefile ]; then $(MAKE) -C $(KDIR) M=$(CURDIR) clean; fi
	$(MAKE) -C tools clean
	rm -rf build
