#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/harness/expect.sh: runs a command that must fail: non-zero exit and a
# line of its output (stdout+stderr) matching an extended regex.
# usage: expect.sh <regex> <command> [args...]
regex=$1; shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -eq 0 ]; then
  echo "expect.sh: FAIL: command exited 0, expected a failure matching /$regex/"; exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$regex"; then
  echo "expect.sh: FAIL: exit $rc but no output line matches /$regex/"; exit 1
fi
echo "expect.sh: ok: exit $rc and output matches /$regex/"
exit 0
