#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/core/exit_code.sh: runs a command that must exit with one exact status
# within a time limit (for gasnet_exit(code) ending a whole job promptly).
# usage: exit_code.sh <status> <max seconds> <command> [args...]
want=$1; max=$2; shift 2
start=$(date +%s.%N)
"$@"; rc=$?
end=$(date +%s.%N)
elapsed=$(awk "BEGIN { printf \"%.2f\", $end - $start }")
if [ "$rc" -ne "$want" ]; then
  echo "exit_code.sh: FAIL: exit status $rc, expected $want"; exit 1
fi
if awk "BEGIN { exit !($elapsed > $max) }"; then
  echo "exit_code.sh: FAIL: took ${elapsed}s, limit ${max}s"; exit 1
fi
echo "exit_code.sh: ok: exit status $rc after ${elapsed}s"
exit 0
