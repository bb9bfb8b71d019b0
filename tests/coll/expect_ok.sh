#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/coll/expect_ok.sh: runs a command that must succeed (exit 0) and whose output
# (stdout+stderr) must have a line matching each extended regex given ("!regex": no line
# may match it). usage: expect_ok.sh <regex>... -- <command> [args...]
n=0
while [ "$#" -gt 0 ] && [ "$1" != "--" ]; do n=$((n + 1)); eval "re_$n=\$1"; shift; done
[ "$1" = "--" ] || { echo "expect_ok.sh: usage: expect_ok.sh <regex>... -- <command>"; exit 2; }
shift
out=$("$@" 2>&1); rc=$?
printf '%s\n' "$out"
if [ "$rc" -ne 0 ]; then echo "expect_ok.sh: FAIL: command exited $rc"; exit 1; fi
i=1
while [ "$i" -le "$n" ]; do
  eval "re=\$re_$i"
  case $re in
  !*) if printf '%s\n' "$out" | grep -Eq -- "${re#!}"; then
        echo "expect_ok.sh: FAIL: a line matches /${re#!}/"; exit 1; fi ;;
  *)  if ! printf '%s\n' "$out" | grep -Eq -- "$re"; then
        echo "expect_ok.sh: FAIL: no line matches /$re/"; exit 1; fi ;;
  esac
  i=$((i + 1))
done
echo "expect_ok.sh: ok: exit 0 and all $n pattern(s) as expected"
