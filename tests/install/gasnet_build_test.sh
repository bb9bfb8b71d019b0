#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/install/gasnet_build_test.sh: install into a fresh prefix, then build gasnet_client.c
# and gasnet_client.cc the ways GASNet clients do: with make through every installed
# <conduit>-<mode>.mak fragment, and with pkg-config through every gasnet-<conduit>-<mode>.pc;
# run each program at -n 2 (rivetrun, and the gasnetrun_<conduit> wrapper) and check every
# rank's line, including the threading mode the fragment selected. Also builds a tools-only
# program through gasnet_tools-{seq,par}.mak and checks that the wrapper refuses an option
# it cannot honour. The programs link through lib/libgasnet-<conduit>-<mode>, GASNet's
# library names (links to librivet).
# usage: gasnet_build_test.sh <build dir> <this source dir>
set -eu
bin=$1 src=$2
tmp=$(mktemp -d /tmp/rivet-gasnet-build.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$bin" --prefix "$prefix" >/dev/null
fail() { echo "gasnet_build_test.sh: FAIL: $*"; exit 1; }
# check <program> <launcher...>: both ranks report the language, mode and conduit wanted
# ($lang, $mode, $c)
check() {
    prog=$1; shift
    out=$("$@" -n 2 "$prog") || fail "$* -n 2 $prog exited $?"
    for r in 0 1; do
        echo "$out" | grep -qx "gasnet_client $lang: rank $r of 2, GASNET_$mode, conduit $c ($C), data ok" ||
            { echo "$out"; fail "$prog: no line from rank $r ($lang, GASNET_$mode, $c)"; }
    done
}
conduits=$(cd "$prefix/include" && ls -d ./*-conduit | sed 's|^\./||; s|-conduit$||')
echo "conduit names installed: $(echo $conduits)"
echo "$conduits" | grep -qx smp || fail "no smp-conduit fragments"

# The makefile a GASNet client writes (warnings as errors through the MANUAL_* hooks).
cat > "$tmp/Makefile" <<'EOM'
include $(GASNET_PREFIX)/include/$(CONDUIT)-conduit/$(CONDUIT)-$(MODE).mak
MANUAL_CFLAGS = -Wall -Wextra -Werror
MANUAL_CXXFLAGS = -Wall -Wextra -Werror
all: c_prog cxx_prog
c_prog.o: $(SRC)/gasnet_client.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c -o $@ $(SRC)/gasnet_client.c
c_prog: c_prog.o
	$(GASNET_LD) $(GASNET_LDFLAGS) -o $@ c_prog.o $(GASNET_LIBS)
cxx_prog.o: $(SRC)/gasnet_client.cc
	$(GASNET_CXX) $(GASNET_CXXCPPFLAGS) $(GASNET_CXXFLAGS) -c -o $@ $(SRC)/gasnet_client.cc
cxx_prog: cxx_prog.o
	$(GASNET_CXX) $(GASNET_LDFLAGS) -o $@ cxx_prog.o $(GASNET_LIBS)
EOM
run="$prefix/bin/rivetrun --timeout 30"
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
for c in $conduits; do
    C=$(echo "$c" | tr a-z A-Z)   # GASNET_CONDUIT_NAME, as GASNet spells it
    for m in seq par parsync; do
        mode=$(echo "$m" | tr a-z A-Z)
        d=$tmp/mak-$c-$m
        mkdir "$d"
        # GASNet's library name (CMake finders such as Legion's take it from GASNET_LIBS)
        for ext in so a; do
            [ -e "$prefix/lib/libgasnet-$c-$m.$ext" ] || fail "no lib/libgasnet-$c-$m.$ext"
        done
        pkg-config --variable=GASNET_LIBS "gasnet-$c-$m" | grep -q -- "-lgasnet-$c-$m " ||
            fail "GASNET_LIBS of gasnet-$c-$m.pc does not name -lgasnet-$c-$m"
        make -s -C "$d" -f "$tmp/Makefile" GASNET_PREFIX="$prefix" CONDUIT="$c" MODE="$m" SRC="$src" ||
            fail "make with $c-$m.mak"
        lang=C; check "$d/c_prog" $run
        lang=C++; check "$d/cxx_prog" "$prefix/bin/gasnetrun_$c"
        # pkg-config: the C program through each .pc; its GASNET_CXX variable for the C++ one
        pc=gasnet-$c-$m
        # shellcheck disable=SC2046
        "$(pkg-config --variable=GASNET_CC "$pc")" -o "$d/c_pc" "$src/gasnet_client.c" \
            $(pkg-config --cflags --libs "$pc") || fail "cc with pkg-config $pc"
        lang=C; check "$d/c_pc" $run
        echo "$c-$m: make (C, C++) and pkg-config $pc: PASS"
    done
done
d=$tmp/mak-smp-par
# shellcheck disable=SC2046
"$(pkg-config --variable=GASNET_CXX gasnet-smp-par)" -o "$d/cxx_pc" "$src/gasnet_client.cc" \
    $(pkg-config --cflags --libs gasnet-smp-par) || fail "c++ with pkg-config gasnet-smp-par"
c=smp C=SMP lang=C++ mode=PAR; check "$d/cxx_pc" $run

# the tools-only fragments: a gasnet_tools.h program, no job (it runs on its own)
cat > "$tmp/tools.c" <<'EOC'
#include <gasnet_tools.h>
#include <stdio.h>
int main(void)
{
    gasnett_atomic_t a = gasnett_atomic_init(40);
    gasnett_atomic_add(&a, 2, 0);
    gasnett_tick_t t0 = gasnett_ticks_now();
    printf("tools: %d %d\n", (int)gasnett_atomic_read(&a, 0), gasnett_ticks_now() >= t0);
    return 0;
}
EOC
for m in seq par; do
    cat > "$tmp/Makefile.tools" <<EOM
include \$(GASNET_PREFIX)/include/gasnet_tools-$m.mak
tools_$m: $tmp/tools.c
	\$(GASNETTOOLS_CC) \$(GASNETTOOLS_CPPFLAGS) \$(GASNETTOOLS_CFLAGS) -c -o tools_$m.o $tmp/tools.c
	\$(GASNETTOOLS_LD) \$(GASNETTOOLS_LDFLAGS) -o tools_$m tools_$m.o \$(GASNETTOOLS_LIBS)
EOM
    make -s -C "$tmp" -f "$tmp/Makefile.tools" GASNET_PREFIX="$prefix" MANUAL_CFLAGS=-Werror ||
        fail "make with gasnet_tools-$m.mak"
    [ "$("$tmp/tools_$m")" = "tools: 42 1" ] || fail "tools_$m printed $("$tmp/tools_$m")"
done
echo "gasnet_tools-seq.mak, gasnet_tools-par.mak: PASS"

# the launcher wrapper: -t shows the rivetrun command; an option it cannot honour is an error
cmd=$("$prefix/bin/gasnetrun_smp" -t -E A,B -n 2 ./prog x)
[ "$cmd" = "$prefix/bin/rivetrun -x A -x B -n 2 ./prog x" ] || fail "gasnetrun_smp -t printed: $cmd"
if err=$("$prefix/bin/gasnetrun_smp" -c 2 -n 2 "$d/c_prog" 2>&1); then fail "gasnetrun_smp -c 2 succeeded"; fi
echo "$err" | grep -q "^gasnetrun_smp: -c: cpus per process is not supported" ||
    fail "gasnetrun_smp -c 2 said: $err"
echo "gasnet_build_test.sh: PASS"
