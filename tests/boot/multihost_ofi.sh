#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_ofi.sh: a 2-host x 2-rank job through the whole multi-host spawn path
# (fake_ssh.sh as the remote shell, agents, TCP bootstrap). Each fake host is its own host and
# neighbourhood, and RIVET_TRANSPORT=ofi (unless the environment names another) makes the
# program's traffic between the hosts cross ofi (on a host with only Ethernet a job picks udp by
# itself: tests/info/info_test.sh checks that choice).
# usage: multihost_ofi.sh RIVETRUN FAKE_SSH PROGRAM [ARGS...]
rivetrun=$1
ssh=$2
shift 2
out=$(RIVET_SSH=$ssh RIVET_VERBOSE=1 RIVET_TRANSPORT=${RIVET_TRANSPORT:-ofi} RIVET_WAIT_MODE=yield \
      "$rivetrun" --timeout "${RIVET_TEST_JOB_TIMEOUT:-50}" --hosts h1:2,h2:2 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
fail() { echo "multihost_ofi.sh: FAIL: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "the job exited $rc"
for r in 0 1 2 3; do
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: job of 4 ranks on 2 host(s), 2 neighbourhood(s); 2 rank(s) here" \
    || fail "rank $r did not see 2 hosts of 2 ranks"
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: transport ofi" || fail "rank $r did not choose ofi"
done
echo "multihost_ofi.sh: ok: 2 hosts x 2 ranks over ofi"
