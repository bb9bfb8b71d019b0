# SPDX-License-Identifier: BSD-3-Clause
# Makefile: the short way to build, run, test and install Rivet (wraps CMake).
#   make run        deps, Release build of the library, rivetrun and examples/hello, then a
#                   4-rank demo job (tests and benchmarks are not built)
#   make test       deps (also mpirun and Slurm for the PMIx tests: deps.sh --test), build, the
#                   whole ctest suite (exit status = result)
#   make install PREFIX=/dir
#   make asan | tsan | clang    the suite under ASan+UBSan, TSan (without the ofi runs, whose
#                   libfabric start-up is very slow under TSan, and the error-path tests), or
#                   built with clang (without the ofi runs, which the gcc suites cover)
#   make docs       regenerate docs/env.md from the configuration table
#   make bench | bench-smoke    benchmark suite (scripts/bench.sh); GASNET_PREFIX=/dir adds an
#                   installed GASNet-EX as peers gasnet-ex-smp / gasnet-ex-udp
BUILD   ?= build
PREFIX  ?= /usr/local
JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
NP      ?= 4
CTEST_ARGS ?= --output-on-failure -j $(JOBS) --timeout 300

.PHONY: all deps test-deps build run test install asan tsan clang docs bench bench-smoke clean

all: build

deps:
	@scripts/deps.sh

# what the suite runs under besides the build: Open MPI's mpirun and a one-node Slurm
test-deps:
	@scripts/deps.sh --test

# configure + build one tree: $(call build_tree,dir,build type,extra cmake args[,targets])
define build_tree
	cmake -S . -B $(1) -DCMAKE_BUILD_TYPE=$(2) $(3) >/dev/null
	cmake --build $(1) -j $(JOBS) $(if $(4),--target $(4))
endef

build: deps
	$(call build_tree,$(BUILD),Release)

# The demo builds only what it runs: the library, rivetrun and the example.
run: deps
	$(call build_tree,$(BUILD),Release,,rivetrun hello)
	$(BUILD)/bin/rivetrun -n $(NP) $(BUILD)/examples/hello

test: build test-deps
	ctest --test-dir $(BUILD) $(CTEST_ARGS)

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# UCX_MEM_EVENTS=no: UCX's memory hooks (patched malloc/mmap) crash under the sanitizers'
# interceptors; tests/lsan.supp: UCX's own allocations; tests/tsan.supp: a race inside libucs
# at exit.
asan: test-deps
	$(call build_tree,build-asan,RelWithDebInfo,-DRIVET_SANITIZE=ON)
	UCX_MEM_EVENTS=no LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp ctest --test-dir build-asan $(CTEST_ARGS)

tsan: test-deps
	$(call build_tree,build-tsan,RelWithDebInfo,-DRIVET_TSAN=ON)
	UCX_MEM_EVENTS=no TSAN_OPTIONS=suppressions=$(CURDIR)/tests/tsan.supp ctest --test-dir build-tsan $(CTEST_ARGS) -LE 'ofi|fault'

clang:
	@scripts/deps.sh --test --clang
	$(call build_tree,build-clang,Release,-DCMAKE_C_COMPILER=clang)
	ctest --test-dir build-clang $(CTEST_ARGS) -LE 'ofi|fault'

docs: build
	scripts/gen_env_md.sh $(BUILD)/bin/rivetrun > docs/env.md.tmp
	mv docs/env.md.tmp docs/env.md

bench:
	scripts/bench.sh --build-dir $(BUILD) $(if $(GASNET_PREFIX),--gasnet-prefix $(GASNET_PREFIX))

bench-smoke:
	scripts/bench.sh --smoke --no-peers --build-dir $(BUILD)

clean:
	rm -rf $(BUILD) build-asan build-tsan build-clang
