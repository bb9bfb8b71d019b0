#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/registry_check.sh: the transport registry stays the one list. Every folder of
# src/transport/ has a line in registry.def (and every line a folder); a transport's settings
# live in its own NAME_config.def, are named RIVET_<NAME>_*, and appear in rivetrun --help-env
# (hence in docs/env.md, which docs_env_current compares); core/config.def declares none of them;
# docs/architecture.md says how to add one.
# usage: registry_check.sh <source dir> <rivetrun>
src=$1
rivetrun=$2
fails=0
fail() { echo "registry_check: FAIL: $*"; fails=$((fails + 1)); }
reg="$src/src/transport/registry.def"
names=$(sed -n 's/^RV_TP( *\([a-z][a-z0-9_]*\) *,.*/\1/p' "$reg")
[ -n "$names" ] || fail "no RV_TP lines in $reg"
help=$("$rivetrun" --help-env) || fail "rivetrun --help-env failed"
for d in "$src"/src/transport/*/; do
    n=$(basename "$d")
    printf '%s\n' "$names" | grep -qx "$n" || fail "src/transport/$n/ has no line in registry.def"
done
for n in $names; do
    [ -d "$src/src/transport/$n" ] || fail "registry.def names $n, but src/transport/$n/ does not exist"
    N=$(printf '%s' "$n" | tr a-z A-Z)
    cfg="$src/src/transport/$n/${n}_config.def"
    if [ -f "$cfg" ]; then
        for row in $(sed -n 's/^RV_ENV( *\([A-Z0-9_]*\) *,.*/\1/p' "$cfg"); do
            case $row in "${N}"_*) ;; *) fail "$cfg: setting RIVET_$row is not named RIVET_${N}_*" ;; esac
            printf '%s\n' "$help" | grep -q "^RIVET_$row " || fail "rivetrun --help-env lacks RIVET_$row ($cfg)"
        done
    fi
    grep -q "^RV_ENV( *${N}_" "$src/src/core/config.def" &&
        fail "core/config.def declares a RIVET_${N}_* setting: it belongs in src/transport/$n/${n}_config.def"
    printf '%s\n' "$help" | grep "^RIVET_TRANSPORT " | grep -q "[ ,]$n[],]" ||
        fail "RIVET_TRANSPORT does not allow $n"
done
grep -q '^## Adding a transport' "$src/docs/architecture.md" || fail "docs/architecture.md has no '## Adding a transport'"
if [ "$fails" -ne 0 ]; then echo "registry_check: $fails failure(s)"; exit 1; fi
echo "registry_check: ok ($(echo $names))"
