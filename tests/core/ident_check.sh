#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/core/ident_check.sh: reads a program's GASNet ident strings as UPC++'s upcxx-run does
# (the file split at '$', the first field starting "GASNetConduitName:") and checks the
# conduit, that only one such field exists (one copy per program, whatever the number of
# objects), the thread model and EX API version; then that the library carries Rivet's own
# strings and no conduit name.
# usage: ident_check.sh <program> <CONDUIT> <librivet>
set -eu
prog=$1 want=$2 lib=$3
fail() { echo "ident_check.sh: FAIL: $*"; exit 1; }
fields() { tr '$' '\n' < "$1" | grep -a "^$2" || true; }
conduit=$(fields "$prog" "GASNetConduitName:" | head -n 1 | sed 's/^GASNetConduitName:[ ]*//; s/[ ]*$//')
[ "$conduit" = "$want" ] || fail "$prog: conduit '$conduit', expected '$want'"
n=$(fields "$prog" "GASNetConduitName:" | wc -l)
[ "$n" -eq 1 ] || fail "$prog: $n GASNetConduitName strings, expected 1"
fields "$prog" "GASNetThreadModel: GASNET_PAR " | grep -q . || fail "$prog: no GASNetThreadModel"
fields "$prog" "GASNetEXAPIVersion: 0.19 " | grep -q . || fail "$prog: no GASNetEXAPIVersion 0.19"
fields "$prog" "GASNetConfig: (gasnetex.h) RELEASE=2025.8.0,SPEC=0.19,CONDUIT=$want(" | grep -q . ||
    fail "$prog: no GASNetConfig naming $want"
fields "$lib" "GASNetCoreLibraryName: RIVET " | grep -q . || fail "$lib: no GASNetCoreLibraryName"
fields "$lib" "GASNetReleaseVersion: 2025.8.0 " | grep -q . || fail "$lib: no GASNetReleaseVersion"
[ -z "$(fields "$lib" "GASNetConduitName:")" ] || fail "$lib carries a conduit name"
echo "ident_check.sh: $prog is $want: PASS"
