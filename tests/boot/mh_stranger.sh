#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/mh_stranger.sh: a multi-host job (every host through fake_ssh.sh) must start and
# pass while a stranger floods rivetrun's agent port: "hold" keeps more connections open than
# rivetrun has handshake slots, "garbage" keeps answering the challenge with bad answers. The
# launcher must say what the stranger did (counted, not one line per connection).
# usage: mh_stranger.sh RIVETRUN FAKE_SSH STRANGER BOOT_PROG hold|garbage
set -u
rivetrun=$1 fake_ssh=$2 stranger=$3 prog=$4 mode=$5
out=$(RIVET_SSH=$fake_ssh RIVET_TEST_STRANGER="$stranger $mode" \
      "$rivetrun" --timeout 100 --hosts h1,flood-h2,h3 -n 6 "$prog" ok 2>&1)
rc=$?
fail() {
  printf '%s\n' "$out" | head -30
  echo "mh_stranger $mode: FAIL: $1"
  exit 1
}
[ "$rc" -eq 0 ] || fail "the job ended with status $rc"
printf '%s\n' "$out" | grep -q "fake_ssh: the stranger is in place" || fail "the stranger did not connect first"
printf '%s\n' "$out" | grep -Eq "rivetrun: while the agents connected, [0-9]+ connection\(s\) to TCP port [0-9]+ failed authentication, [0-9]+ timed out in the handshake and [0-9]+ were dropped to make room" ||
  fail "no summary of the refused connections"
n=$(printf '%s\n' "$out" | grep -c "rivetrun: refused a connection")
[ "$n" -le 3 ] || fail "$n refusals reported one by one (at most 3, then counted)"
echo "mh_stranger $mode: ok"
