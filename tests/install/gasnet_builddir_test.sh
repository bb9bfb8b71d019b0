#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/install/gasnet_builddir_test.sh: install into a fresh prefix and check what GASNet
# clients' configure scripts and builds read there, the way they read it:
#  - include/gasnet_config.h: one line each for the release version (osss-gasnet's configure
#    takes the third field of the GASNET_RELEASE_VERSION_* lines) and the GASNet-EX spec
#    version (UPC++'s configure greps EX_SPEC_VERSION_MAJOR/MINOR), equal to gasnetex.h's;
#  - include/<c>-conduit/gasnet_core.h for every conduit (osss-gasnet: "a configured
#    conduit"), which compiles on its own and names the conduit as GASNet does (SMP, OFI);
#  - the GASNet build directory share/rivet/gasnet-build (UPC++: --with-gasnet=<it>): its
#    gasnet_config.h, <c>-conduit/ fragments and gasnet_core.h are the installed ones;
#    config.status fills a template as UPC++ runs it (and refuses what it cannot do);
#    `make -C <c>-conduit <c>-<mode>.mak`, `make all` and `make install prefix=DIR` answer,
#    and a client built through the fragments of the build directory and of the DIR install
#    runs under their gasnetrun_<c>;
#  - configuring with a conduit the build does not install in RIVET_GASNET_BUILD_CONDUITS
#    stops with an error.
# usage: gasnet_builddir_test.sh <build dir> <this source dir> <source dir> <C compiler>
set -eu
bin=$1 src=$2 top=$3 cc=$4
tmp=$(mktemp -d /tmp/rivet-gasnet-builddir.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
cmake --install "$bin" --prefix "$prefix" >/dev/null
fail() { echo "gasnet_builddir_test.sh: FAIL: $*"; exit 1; }
inc=$prefix/include
gb=$prefix/share/rivet/gasnet-build
conduits=$(cd "$inc" && ls -d ./*-conduit | sed 's|^\./||; s|-conduit$||')
echo "conduits: $(echo $conduits)"

# ---- gasnet_config.h, read as the clients' configure scripts read it
cfg=$inc/gasnet_config.h
[ -r "$cfg" ] || fail "no include/gasnet_config.h"
# what gasnetex.h says (the preprocessor's answer)
hdr() {
    printf '#include <gasnetex.h>\nRV_VALUE %s\n' "$1" | "$cc" -E -I"$inc" - | sed -n 's/^RV_VALUE //p' |
        tr -d ' ()'
}
for v in MAJOR MINOR PATCH; do
    got=$(awk "/GASNET_RELEASE_VERSION_$v/ {print \$3}" "$cfg")
    want=$(hdr "GASNET_RELEASE_VERSION_$v")
    [ "$got" = "$want" ] ||
        fail "gasnet_config.h: GASNET_RELEASE_VERSION_$v read as '$got', gasnetex.h says '$want'"
done
for v in MAJOR MINOR; do
    got=$(grep "EX_SPEC_VERSION_$v" "$cfg" | head -1 | tr '\t' ' ' | sed -n 's/^[^ ]* [^ ]* \([0-9][0-9]*\).*/\1/p')
    want=$(hdr "GEX_SPEC_VERSION_$v")
    [ "$got" = "$want" ] || fail "gasnet_config.h: EX_SPEC_VERSION_$v read as '$got', gasnetex.h says '$want'"
done
echo "gasnet_config.h: release and spec versions as in gasnetex.h: PASS"

# ---- gasnet_core.h per conduit: present, self-sufficient, naming the conduit
for c in $conduits; do
    C=$(echo "$c" | tr a-z A-Z)
    [ -r "$inc/$c-conduit/gasnet_core.h" ] || fail "no include/$c-conduit/gasnet_core.h"
    cat > "$tmp/core_$c.c" <<EOC
#include <gasnet_core.h>
#include <string.h>
int main(void) { return strcmp(GASNET_CONDUIT_NAME_STR, "$C") != 0 || !GASNET_CONDUIT_$C; }
EOC
    # the defines of the conduit's fragment (GASNET_CONDUIT_NAME, GASNET_CONDUIT_<C>)
    defs=$(sed -n 's/^GASNET_DEFINES = //p' "$inc/$c-conduit/$c-seq.mak" | sed 's/\$([A-Z_]*)//g')
    # shellcheck disable=SC2086
    "$cc" -Werror -I"$inc" -I"$inc/$c-conduit" $defs -o "$tmp/core_$c" "$tmp/core_$c.c" \
        -L"$prefix/lib" -Wl,-rpath,"$prefix/lib" -lrivet || fail "$c-conduit/gasnet_core.h does not compile"
    "$tmp/core_$c" || fail "$c: GASNET_CONDUIT_NAME_STR is not \"$C\" under $c-seq.mak's defines"
done
echo "include/<conduit>-conduit/gasnet_core.h, GASNET_CONDUIT_NAME: PASS"

# ---- the GASNet build directory
[ -d "$gb" ] || fail "no share/rivet/gasnet-build"
cmp -s "$gb/gasnet_config.h" "$cfg" || fail "gasnet-build/gasnet_config.h is not include/gasnet_config.h"
for c in $conduits; do
    for f in gasnet_core.h "$c-seq.mak" "$c-par.mak" "$c-parsync.mak"; do
        cmp -s "$gb/$c-conduit/$f" "$inc/$c-conduit/$f" ||
            fail "gasnet-build/$c-conduit/$f is not include/$c-conduit/$f"
    done
    # what UPC++ runs there
    for m in seq par parsync; do
        make -s -C "$gb/$c-conduit" "$c-$m.mak" >/dev/null || fail "make -C $c-conduit $c-$m.mak"
        make -s -C "$gb/$c-conduit" "$m" >/dev/null || fail "make -C $c-conduit $m"
    done
    for l in "bin/gasnetrun_$c" "$c-conduit/contrib/gasnetrun_$c"; do
        cmd=$("$gb/$l" -t -n 2 ./prog)
        run=${cmd%% *}
        [ "$(cd "$(dirname "$run")" && pwd -P)/rivetrun" = "$(cd "$prefix/bin" && pwd -P)/rivetrun" ] &&
            [ "${cmd#* }" = "-n 2 ./prog" ] || fail "gasnet-build/$l -t printed: $cmd"
    done
done
make -s -C "$gb" all || fail "make all in gasnet-build"
echo "gasnet-build: headers, fragments, conduit targets and launchers: PASS"

# config.status, as UPC++ runs it: in the build directory, output relative to it
cat > "$tmp/tmpl.in" <<'EOT'
PERL=@PERL@
CONDUITS=@CONDUITS@
EXESUFFIX=[@EXESUFFIX@]
CC_FAMILY=@CC_FAMILY@ @CC_SUBFAMILY@
CXX_FAMILY=@CXX_FAMILY@ @CXX_SUBFAMILY@
THREADED=@GASNET_THREAD_DEFINES@ @GASNET_THREAD_LIBS@
UNKNOWN=@NOT_A_GASNET_VARIABLE@
EOT
(cd "$gb" && env CONFIG_COMMANDS= CONFIG_LINKS= CONFIG_HEADERS= CONFIG_FILES="conftest.txt:$tmp/tmpl.in" \
    ./config.status >/dev/null) || fail "config.status CONFIG_FILES=conftest.txt:... failed"
out=$(cat "$gb/conftest.txt") && rm -f "$gb/conftest.txt"
val() { echo "$out" | sed -n "s/^$1=//p"; }
[ -x "$(val PERL)" ] || fail "config.status: PERL is '$(val PERL)'"
[ "$(val CONDUITS)" = smp ] || fail "config.status: CONDUITS is '$(val CONDUITS)' (the default is smp)"
[ "$(val EXESUFFIX)" = "[]" ] || fail "config.status: EXESUFFIX is '$(val EXESUFFIX)'"
for l in CC_FAMILY CXX_FAMILY; do
    case $(val $l) in "GNU GNU" | "Clang LLVM" | "Clang APPLE" | "Clang INTEL" | Intel\ none | NVHPC\ none | PGI\ none) ;;
    *) fail "config.status: $l is '$(val $l)'" ;;
    esac
done
[ "$(val THREADED)" = "-D_REENTRANT -lpthread" ] || fail "config.status: thread flags '$(val THREADED)'"
[ "$(val UNKNOWN)" = "@NOT_A_GASNET_VARIABLE@" ] || fail "config.status replaced an unknown name: $(val UNKNOWN)"
# the other ways to name files: arguments, standard input and output
got=$(echo "x @CONDUITS@ y" | "$gb/config.status" -:-) || fail "config.status -:- failed"
[ "$got" = "x smp y" ] || fail "config.status -:- printed '$got'"
# and what it cannot do
expect_error() {  # expect_error <what the message says> <command...>
    want=$1; shift
    if err=$("$@" 2>&1); then fail "$* succeeded"; fi
    echo "$err" | grep -q "^config.status: error: $want" || fail "$* said: $err"
}
expect_error "CONFIG_HEADERS" env CONFIG_HEADERS=gasnet_config.h "$gb/config.status"
expect_error "CONFIG_COMMANDS" env CONFIG_COMMANDS=depfiles "$gb/config.status"
expect_error "cannot read template '$tmp/none.in'" "$gb/config.status" "$tmp/out:$tmp/none.in"
expect_error "unknown option --frobnicate" "$gb/config.status" --frobnicate
[ ! -e "$tmp/out" ] || fail "config.status wrote an output from a missing template"
echo "gasnet-build/config.status: PASS"

# a client built through the build directory's fragment (-I/-L lead to the installation)
cat > "$tmp/Makefile" <<'EOM'
include $(FRAG)
client: $(SRC)/gasnet_client.c
	$(GASNET_CC) $(GASNET_CPPFLAGS) $(GASNET_CFLAGS) -c -o client.o $(SRC)/gasnet_client.c
	$(GASNET_LD) $(GASNET_LDFLAGS) -o client client.o $(GASNET_LIBS)
EOM
check() {  # check <launcher> <program>: both ranks' lines, GASNET_SEQ, smp (SMP)
    out=$("$1" -n 2 "$2") || fail "$1 -n 2 $2 exited $?"
    for r in 0 1; do
        echo "$out" | grep -qx "gasnet_client C: rank $r of 2, GASNET_SEQ, conduit smp (SMP), data ok" ||
            { echo "$out"; fail "$2 under $1: no line from rank $r"; }
    done
}
mkdir "$tmp/b1"
make -s -C "$tmp/b1" -f "$tmp/Makefile" FRAG="$gb/smp-conduit/smp-seq.mak" SRC="$src" MANUAL_CFLAGS=-Werror ||
    fail "make with gasnet-build/smp-conduit/smp-seq.mak"
check "$gb/bin/gasnetrun_smp" "$tmp/b1/client"

# make install prefix=DIR: a GASNet-style install tree leading back to this installation
if err=$(make -s -C "$gb" install 2>&1); then fail "make install without prefix succeeded"; fi
echo "$err" | grep -q "give the destination: make install prefix=DIR" || fail "make install said: $err"
gi=$tmp/gi
make -s -C "$gb" install prefix="$gi" >/dev/null || fail "make install prefix=DIR"
cmp -s "$gi/include/gasnet_config.h" "$cfg" || fail "install: include/gasnet_config.h"
for c in $conduits; do
    for f in gasnet_core.h "$c-seq.mak" "$c-par.mak" "$c-parsync.mak"; do
        cmp -s "$gi/include/$c-conduit/$f" "$inc/$c-conduit/$f" || fail "install: include/$c-conduit/$f"
    done
    [ -x "$gi/bin/gasnetrun_$c" ] || fail "install: no bin/gasnetrun_$c"
done
mkdir "$tmp/b2"
make -s -C "$tmp/b2" -f "$tmp/Makefile" FRAG="$gi/include/smp-conduit/smp-seq.mak" SRC="$src" MANUAL_CFLAGS=-Werror ||
    fail "make with the installed tree's smp-seq.mak"
check "$gi/bin/gasnetrun_smp" "$tmp/b2/client"
echo "gasnet-build: make install prefix=DIR, clients through both: PASS"

# a conduit this build does not install cannot be reported
if err=$(cmake -S "$top" -B "$tmp/cfg" -DCMAKE_C_COMPILER="$cc" -DRIVET_GASNET_BUILD_CONDUITS="smp;mpi" 2>&1); then
    fail "configuring with RIVET_GASNET_BUILD_CONDUITS=smp;mpi succeeded"
fi
echo "$err" | grep -q "RIVET_GASNET_BUILD_CONDUITS: 'mpi' is not a conduit this build installs" ||
    { echo "$err" | tail -20; fail "RIVET_GASNET_BUILD_CONDUITS=smp;mpi: no clear error"; }
echo "RIVET_GASNET_BUILD_CONDUITS error: PASS"
echo "gasnet_builddir_test.sh: PASS"
