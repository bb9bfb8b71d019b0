#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_udp.sh: a 2-host x 2-rank job through the whole multi-host spawn path
# (fake_ssh.sh as the remote shell, agents, TCP bootstrap) with RIVET_TRANSPORT=udp: each fake
# host is its own neighbourhood, so the traffic between them crosses the udp transport. IFACE
# (the first argument, may be empty) is given as RIVET_UDP_IFACE (an interface name or an IPv4
# address); every rank must say it bound there (or, empty, to the address rivet picked).
# usage: multihost_udp.sh IFACE RIVETRUN FAKE_SSH PROGRAM [ARGS...]
iface=$1
rivetrun=$2
ssh=$3
shift 3
out=$(RIVET_SSH=$ssh RIVET_VERBOSE=1 RIVET_WAIT_MODE=yield RIVET_TRANSPORT=udp RIVET_UDP_IFACE=$iface \
      "$rivetrun" --timeout "${RIVET_TEST_JOB_TIMEOUT:-50}" --hosts h1:2,h2:2 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
fail() { echo "multihost_udp.sh: FAIL: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "the job exited $rc"
want=
case $iface in
  '') ;;
  [0-9]*) want=$iface ;;
  *) want=$(ip -4 -o addr show dev "$iface" 2>/dev/null | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p' | head -n1) ;;
esac
for r in 0 1 2 3; do
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: job of 4 ranks on 2 host(s), 2 neighbourhood(s); 2 rank(s) here" \
    || fail "rank $r did not see 2 hosts of 2 ranks"
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: transport udp" || fail "rank $r did not use udp"
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: udp: rank $r bound to ${want:-[0-9.]*}:" \
    || fail "rank $r did not bind to ${want:-an IPv4 address}"
done
echo "multihost_udp.sh: ok: 2 hosts x 2 ranks over udp${iface:+ (RIVET_UDP_IFACE=$iface)}"
