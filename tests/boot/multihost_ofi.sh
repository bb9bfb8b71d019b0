#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_ofi.sh: a 2-host x 2-rank job through the whole multi-host spawn path
# (fake_ssh.sh as the remote shell, agents, TCP bootstrap). Each fake host is its own host and
# neighbourhood, and RIVET_TRANSPORT=ofi (unless the environment names another) makes the
# program's traffic between the hosts cross ofi (on a host with only Ethernet a job picks udp by
# itself: tests/info/info_test.sh checks that choice).
# usage: multihost_ofi.sh RIVETRUN FAKE_SSH PROGRAM [ARGS...]
. "$(dirname "$0")/multihost_lib.sh"
RIVET_TRANSPORT=${RIVET_TRANSPORT:-ofi}
export RIVET_TRANSPORT
mh_run "$@"
for r in 0 1 2 3; do
  mh_expect $r "job of 4 ranks on 2 host(s), 2 neighbourhood(s); 2 rank(s) here" \
    "did not see 2 hosts of 2 ranks"
  mh_expect $r "transport ofi" "did not choose ofi"
done
echo "multihost_ofi.sh: ok: 2 hosts x 2 ranks over ofi"
