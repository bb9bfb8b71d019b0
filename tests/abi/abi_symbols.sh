#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/abi/abi_symbols.sh: librivet.so exports the public API and nothing else.
# usage: abi_symbols.sh <nm> <librivet.so> [<librivet.a> <include dir>]
# Fails when the shared library's dynamic symbol table defines
#   - any rv_* name (an internal), or any name outside gex_* gasnet_* gasnett_* rivet_* _rivet_*
#     (the patterns of src/librivet.map), or a name without the RIVET_1 version;
# and, given the static library and the public headers, when
#   - a global of the same objects that matches those patterns is not exported (a public
#     function or variable hidden by mistake), or
#   - a name the public headers use (a macro's or inline function's callee, a variable) is
#     defined by the library but not exported: a client would fail to link.
set -u
nm=$1 so=$2 ar=${3:-} inc=${4:-}
tmp=$(mktemp -d /tmp/rivet-abi.XXXXXX) || exit 1
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "abi_symbols: FAIL: $*"; fail=1; }

# name@@VERSION per line; the version node itself is an absolute symbol (A RIVET_1)
"$nm" -D --defined-only "$so" > "$tmp/nm" || { echo "abi_symbols: FAIL: $nm -D $so"; exit 1; }
awk 'NF >= 3 && $2 != "A" { print $3 }' "$tmp/nm" | sort -u > "$tmp/dyn"
sed 's/@.*//' "$tmp/dyn" | sort -u > "$tmp/exports"
n=$(wc -l < "$tmp/exports")
[ "$n" -gt 0 ] || bad "$so exports nothing"
grep -qx gex_Client_Init "$tmp/exports" || bad "gex_Client_Init is not exported"

internal=$(grep -E '^rv_' "$tmp/exports")
[ -z "$internal" ] || bad "internal rv_* symbols exported: $(echo $internal)"
other=$(grep -vE '^(gex_|gasnet_|gasnett_|rivet_|_rivet_)' "$tmp/exports" | grep -vE '^rv_')
[ -z "$other" ] || bad "symbols outside the public patterns exported: $(echo $other)"
unversioned=$(grep -v '@@\?RIVET_1$' "$tmp/dyn")
[ -z "$unversioned" ] || bad "symbols without the RIVET_1 version: $(echo $unversioned)"

if [ -n "$ar" ]; then
    # global definitions of the same objects (code, data, bss, read-only, TLS, weak, unique)
    "$nm" -g --defined-only "$ar" 2>/dev/null | awk 'NF == 3 { print $3 }' | sort -u > "$tmp/globals"
    [ -s "$tmp/globals" ] || bad "$nm -g $ar listed nothing"
    hidden=$(grep -E '^(gex_|gasnet_|gasnett_|rivet_|_rivet_)' "$tmp/globals" | comm -23 - "$tmp/exports")
    [ -z "$hidden" ] || bad "public names defined but not exported: $(echo $hidden)"
    if [ -n "$inc" ]; then
        cat "$inc"/*.h | grep -oE '[A-Za-z_][A-Za-z0-9_]*' | sort -u > "$tmp/hdr"
        missing=$(comm -12 "$tmp/hdr" "$tmp/globals" | comm -23 - "$tmp/exports")
        [ -z "$missing" ] || bad "names the public headers use, defined but not exported: $(echo $missing)"
        used=$(comm -12 "$tmp/hdr" "$tmp/exports" | grep -c '^_rivet_')
        echo "abi_symbols: the public headers use $used exported _rivet_* names"
    fi
fi
if [ $fail = 0 ]; then
    echo "abi_symbols: PASS: $so exports $n symbols, all public (gex_ gasnet_ gasnett_ rivet_ _rivet_), version RIVET_1"
fi
exit $fail
