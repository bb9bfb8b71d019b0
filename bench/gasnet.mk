# SPDX-License-Identifier: BSD-3-Clause
# bench/gasnet.mk: builds the bench drivers against an installed GASNet-EX, through the
# makefile fragment that installation ships for the chosen conduit and threading mode
# ($(GASNET_PREFIX)/include/<conduit>-conduit/<conduit>-<mode>.mak), so the peer is compiled
# exactly the way GASNet tells its clients to be compiled. Used by scripts/bench.sh:
#   make -f bench/gasnet.mk GASNET_PREFIX=/opt/gasnet CONDUIT=smp OUT=build/bench/peers/gasnet-ex-smp
# Nothing else in the tree needs GASNet-EX.
BENCH_SRC := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))

ifeq ($(strip $(GASNET_PREFIX)),)
$(error bench/gasnet.mk: set GASNET_PREFIX to an installed GASNet-EX)
endif
CONDUIT ?= smp
MODE    ?= par
OUT     ?= gasnet-ex-$(CONDUIT)
PROGRAMS ?= bench_rma bench_am bench_inject bench_barrier bench_coll bench_amo bench_vis \
            bench_np bench_imm

FRAGMENT := $(GASNET_PREFIX)/include/$(CONDUIT)-conduit/$(CONDUIT)-$(MODE).mak
ifeq ($(wildcard $(FRAGMENT)),)
$(error bench/gasnet.mk: $(FRAGMENT) not found (conduit $(CONDUIT) not installed?))
endif
include $(FRAGMENT)

SHARED := $(OUT)/obj/bench_gex.o $(OUT)/obj/bench_util.o

.PHONY: all
all: $(addprefix $(OUT)/,$(PROGRAMS))

$(OUT)/obj/%.o: $(BENCH_SRC)/%.c $(BENCH_SRC)/bench_gex.h $(BENCH_SRC)/bench_util.h $(FRAGMENT)
	@mkdir -p $(OUT)/obj
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -I$(BENCH_SRC) -c $< -o $@

$(OUT)/%: $(OUT)/obj/%.o $(SHARED)
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ $^ $(GASNET_LIBS)
