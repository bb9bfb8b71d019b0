#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/fake_ssh.sh: stands in for ssh in the multi-host launch tests (RIVET_SSH): runs
# the command on this machine as if on HOST, with RIVET_HOSTNAME=HOST so that every "host"
# is its own host and neighbourhood to Rivet.
# usage: fake_ssh.sh [-option...] HOST COMMAND...
# Hosts named unreachable*: fail the way ssh does (exit 255, message on stderr).
# Hosts named intruder*: first a stranger who does not know the job secret runs the same
# command line (it must be refused), then the real command runs.
# Hosts named flood*: first $RIVET_TEST_STRANGER ("PATH MODE", tests/boot/stranger.c) floods the
# launcher's agent port (taken from the agent command line), then the real command runs.
# With RIVET_TEST_PRIVATE_DIR=DIR (an absolute path): the host gets its own empty DIR (a tmpfs
# in a mount namespace of its own, with DIR/tmp in it), as if DIR were a local directory of each
# host: what the launcher keeps there, the host does not see (tests/boot/multihost_obs.py).
while [ $# -gt 0 ]; do
  case $1 in -*) shift ;; *) break ;; esac
done
host=$1
shift
remote_cmd=$*
case $host in
  unreachable*)
    echo "ssh: Could not resolve hostname $host: Name or service not known" >&2
    exit 255 ;;
  intruder*)
    if echo 0123456789abcdef0123456789abcdef | RIVET_HOSTNAME=$host sh -c "$*"; then
      echo "fake_ssh: FAIL: an agent with a wrong secret was let in" >&2
      exit 99
    fi
    echo "fake_ssh: the stranger was turned away" >&2 ;;
  flood*)
    set -- $RIVET_TEST_STRANGER
    stranger=$1 mode=$2
    eval "set -- $remote_cmd"
    # exec AGENT --agent INDEX PORT ADDRS HOST
    count=300
    [ "$mode" = garbage ] && count=40
    "$stranger" "$mode" $count "$5" || { echo "fake_ssh: the stranger failed" >&2; exit 98; }
    echo "fake_ssh: the stranger is in place ($mode, $count connections)" >&2
    set -- "$remote_cmd" ;;
esac
RIVET_HOSTNAME=$host
export RIVET_HOSTNAME
if [ -n "$RIVET_TEST_PRIVATE_DIR" ]; then
  exec unshare -m sh -c 'mount -t tmpfs fake-host-dir "$RIVET_TEST_PRIVATE_DIR" &&
                         mkdir "$RIVET_TEST_PRIVATE_DIR/tmp" && exec sh -c "$1"' sh "$*"
fi
exec sh -c "$*"
