#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/docs/check_env_md.sh: fails (with the diff) when docs/env.md is not what
# scripts/gen_env_md.sh makes from the current configuration table; fix with `make docs`.
# usage: check_env_md.sh <source dir> <rivetrun>
set -eu
src=$1 rivetrun=$2
tmp=$(mktemp /tmp/rivet-env-md.XXXXXX)
trap 'rm -f "$tmp"' EXIT
sh "$src/scripts/gen_env_md.sh" "$rivetrun" > "$tmp"
if ! diff -u "$src/docs/env.md" "$tmp"; then
    echo "docs_env_current: FAIL: docs/env.md is out of date with src/core/config.def or a transport's NAME_config.def; run 'make docs'"
    exit 1
fi
echo "docs_env_current: PASS"
