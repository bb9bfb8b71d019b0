#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_udp.sh: a 2-host x 2-rank job through the whole multi-host spawn path
# (fake_ssh.sh as the remote shell, agents, TCP bootstrap) with RIVET_TRANSPORT=udp: each fake
# host is its own neighbourhood, so the traffic between them crosses the udp transport. IFACE
# (the first argument, may be empty) is given as RIVET_UDP_IFACE (an interface name or an IPv4
# address); every rank must say it bound there (or, empty, to the address rivet picked).
# usage: multihost_udp.sh IFACE RIVETRUN FAKE_SSH PROGRAM [ARGS...]
. "$(dirname "$0")/multihost_lib.sh"
iface=$1
shift
RIVET_TRANSPORT=udp RIVET_UDP_IFACE=$iface
export RIVET_TRANSPORT RIVET_UDP_IFACE
mh_run "$@"
want=
case $iface in
  '') ;;
  [0-9]*) want=$iface ;;
  *) want=$(ip -4 -o addr show dev "$iface" 2>/dev/null | sed -n 's/.* inet \([0-9.]*\)\/.*/\1/p' | head -n1) ;;
esac
for r in 0 1 2 3; do
  mh_expect $r "job of 4 ranks on 2 host(s), 2 neighbourhood(s); 2 rank(s) here" \
    "did not see 2 hosts of 2 ranks"
  mh_expect $r "transport udp" "did not use udp"
  mh_expect $r "udp: rank $r bound to ${want:-[0-9.]*}:" "did not bind to ${want:-an IPv4 address}"
done
echo "multihost_udp.sh: ok: 2 hosts x 2 ranks over udp${iface:+ (RIVET_UDP_IFACE=$iface)}"
