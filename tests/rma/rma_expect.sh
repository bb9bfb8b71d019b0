#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/rma/rma_expect.sh: the harness's expect.sh (non-zero exit, an output line matching the
# regex), plus: the program announced, one "rma_errors: expect: TEXT" line each, what its fatal
# message must contain (the call, the rank, the exact address range and segment bounds), and
# one "rivet: fatal:" line must contain every TEXT.
# usage: rma_expect.sh <regex> <command> [args...]
here=$(dirname "$0")
out=$("$here/../harness/expect.sh" "$@"); rc=$?
printf '%s\n' "$out"
[ "$rc" -eq 0 ] || exit "$rc"
wants=$(printf '%s\n' "$out" | sed -n 's/^rma_errors: expect: //p')
if [ -z "$wants" ]; then
  echo "rma_expect.sh: FAIL: the program announced no expected message"; exit 1
fi
first=$(printf '%s\n' "$wants" | head -n 1)
fatal=$(printf '%s\n' "$out" | grep 'rivet: fatal:' | grep -F -m 1 -- "$first")
printf '%s\n' "$wants" | while IFS= read -r want; do
  case $fatal in
    *"$want"*) ;;
    *) echo "rma_expect.sh: FAIL: no fatal message contains '$want'"; exit 1 ;;
  esac
done || exit 1
echo "rma_expect.sh: ok: the fatal message names everything announced"
