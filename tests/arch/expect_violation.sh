#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/arch/expect_violation.sh <python3> <check_layers.py> <regex> <checker args...>:
# the layer check must fail (exit 1) and print a line matching <regex>; proves that the check
# catches a deliberately bad fixture tree (tests/arch/fixtures/).
py=$1; script=$2; want=$3; shift 3
out=$("$py" "$script" "$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 1 ]; then
    echo "expect_violation: check_layers.py exited $rc, expected 1 (a violation)" >&2
    exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$want"; then
    echo "expect_violation: no line matches: $want" >&2
    exit 1
fi
echo "expect_violation: failed as it should"
