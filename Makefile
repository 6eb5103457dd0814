# SPDX-License-Identifier: GPL-2.0
#
# edm: top-level Makefile.
#   make          build edm.ko (for KREL=<release>, default: scripts/krel.sh),
#                 edmctl, ip's ndimm plug-in and the benchmark programs;
#                 EDM_FABRIC=n, EDM_NETDIMM=n, EDM_DFABRIC=n, EDM_COWBIRD=n leave
#                 subsystems out of edm.ko (Kbuild)
#   make bench    run every benchmark against its competitor (10 minutes under TCG)
#                 and write Documentation/benchmarks.md, its CSVs and plots
#                 (tools/bench/README.md)
#   make bench-build  only build the benchmark programs
#   make demo     boot a VM, load edm.ko, show it working (installs what it needs;
#                 KREL=<release> picks the kernel, default the newest supported)
#   make check    the whole suite: build gates, unit tests, VM tests in every installed
#                 supported kernel (installs what it needs)
#   make check-debug-full  every VM test but the CLI scripts on the debug kernel (~1 hour)
#   make unit     native unit tests of the kernel-agnostic cores, with sanitizers
#   make fuzz     each libFuzzer target for FUZZ_SECONDS (default 60)
#   make edmsim   the rack simulator, tools/edmsim (links the scheduler core)
#   make sim-report  Figure 8 sweeps, CSVs and plots into tools/edmsim/report
#
# edm.ko is built in build/<release>/, a tree of links to the sources, so
# builds for several kernels never share objects. The in-tree way,
# make -C $(KDIR) M=$(PWD), works too.

TOP := $(abspath $(dir $(lastword $(MAKEFILE_LIST))))
# The kernel: KREL=<release> (scripts/krel.sh says which are supported and
# picks the default), or KDIR=<build tree> with its KREL.
KREL ?= $(shell $(TOP)/scripts/krel.sh)
# Given a KDIR, the caller vouches for it; else KREL must be supported and
# have headers (one line says so otherwise).
KREL_CHECK := $(if $(filter command line environment,$(origin KDIR)),,$(TOP)/scripts/krel.sh --check $(KREL))
KDIR ?= $(if $(KREL),$(shell $(TOP)/scripts/krel.sh --kdir $(KREL)))
# Subsystems left out (EDM_FABRIC=n etc., see Kbuild) build apart, in
# build/<release>-no-<name>-..., and leave the top edm.ko link alone.
EDM_KNOBS_OFF := $(strip $(foreach k,EDM_FABRIC EDM_NETDIMM EDM_DFABRIC EDM_COWBIRD,\
	$(if $(filter n,$($(k))),$(k))))
BUILD := $(TOP)/build/$(KREL)$(if $(EDM_KNOBS_OFF),-no$(shell echo $(EDM_KNOBS_OFF) | \
	 tr A-Z a-z | sed 's/edm_//g; s/ /-/g; s/^/-/'))
# The module: Kbuild, VERSION, include/ and every folder with a Kbuild.mk.
MODULE_DIRS := $(patsubst $(TOP)/%/Kbuild.mk,%,$(wildcard $(TOP)/*/Kbuild.mk))
MODULE_SRCS := Kbuild VERSION include $(MODULE_DIRS)

FUZZ_SECONDS ?= 60
# Kbuild runs on every CPU unless the caller's make already has a job count.
MODULE_JOBS := $(if $(filter -j%,$(MAKEFLAGS)),,-j$(shell nproc))

.PHONY: all module edmctl bench bench-build edmsim sim-report selftests unit fuzz check check-debug-full \
	demo deps clean help

all: module edmctl bench-build

help:
	@sed -n 's/^#   //p' $(TOP)/Makefile

deps:
	$(TOP)/scripts/deps.sh

# W=1, C=1 or C=2 given on the command line pass through to Kbuild.
module:
	@$(if $(KREL),$(KREL_CHECK),echo "edm: no kernel to build for: install a supported" \
		"kernel's headers, or give KREL=<release> ($(TOP)/scripts/krel.sh --series)" >&2; false)
	@mkdir -p $(BUILD)
	@cd $(TOP) && find $(MODULE_SRCS) \( -name '*.[ch]' -o -name Kbuild -o -name Kbuild.mk -o -name VERSION \) \
		2>/dev/null | while read -r f; do \
		mkdir -p $(BUILD)/$$(dirname $$f) && ln -sf $(TOP)/$$f $(BUILD)/$$f; done
	$(MAKE) $(MODULE_JOBS) -C $(KDIR) M=$(BUILD) modules
	@$(if $(EDM_KNOBS_OFF),echo "edm.ko without $(EDM_KNOBS_OFF): $(BUILD)/edm.ko",\
		ln -sf $(BUILD)/edm.ko $(TOP)/edm.ko)

edmctl:
	$(MAKE) -C $(TOP)/tools/edmctl
	$(MAKE) -C $(TOP)/tools/edmop
	$(MAKE) -C $(TOP)/tools/iplink

bench:
	$(TOP)/tools/bench/all.sh

# Built with everything so they do not rot; never run by make check.
bench-build:
	$(MAKE) -C $(TOP)/tools/bench/floor
	$(MAKE) -C $(TOP)/tools/bench/cowbird
	$(MAKE) -C $(TOP)/tools/bench/dfabric
	$(MAKE) -C $(TOP)/tools/bench/fabric

edmsim:
	$(MAKE) -C $(TOP)/tools/edmsim

sim-report: edmsim
	$(TOP)/tools/edmsim/sim-report

selftests: edmctl
	$(MAKE) -C $(TOP)/selftests/edm

unit:
	$(MAKE) -C $(TOP)/selftests/unit run
	$(MAKE) -C $(TOP)/tools/edmsim test
	$(MAKE) -C $(TOP)/tools/lib/cowbird test

fuzz:
	$(MAKE) -C $(TOP)/selftests/unit fuzz FUZZ_SECONDS=$(FUZZ_SECONDS)

check:
	$(TOP)/scripts/check.sh

check-debug-full:
	$(TOP)/scripts/check.sh --debug-full

demo:
	$(TOP)/scripts/demo.sh

clean:
	rm -rf $(TOP)/build $(TOP)/edm.ko
	$(MAKE) -C $(TOP)/tools/edmctl clean
	$(MAKE) -C $(TOP)/tools/edmsim clean
	$(MAKE) -C $(TOP)/tools/edmop clean
	$(MAKE) -C $(TOP)/tools/iplink clean
	$(MAKE) -C $(TOP)/tools/bench/cowbird clean
	$(MAKE) -C $(TOP)/tools/bench/dfabric clean
	$(MAKE) -C $(TOP)/tools/bench/fabric clean
	$(MAKE) -C $(TOP)/selftests/edm clean
	$(MAKE) -C $(TOP)/selftests/unit clean
