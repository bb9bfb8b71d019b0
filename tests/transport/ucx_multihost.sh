#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/ucx_multihost.sh: a 2-host x 2-rank job over the ucx transport through the
# whole multi-host spawn path (tests/boot/fake_ssh.sh as the remote shell). The remote shell
# drops UCX_TLS from the environment it passes on, so the ranks see UCX_TLS=tcp only if
# rivetrun forwarded it (it forwards UCX_* as it does RIVET_*, GASNET_* and FI_*).
# usage: ucx_multihost.sh RIVETRUN FAKE_SSH PROGRAM [ARGS...]
rivetrun=$1
fake=$2
shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nexec env -u UCX_TLS %s "$@"\n' "$fake" >"$dir/ssh"
chmod +x "$dir/ssh"
out=$(UCX_TLS=tcp RIVET_TRANSPORT=ucx RIVET_SSH=$dir/ssh RIVET_VERBOSE=1 RIVET_WAIT_MODE=yield \
      "$rivetrun" --timeout "${RIVET_TEST_JOB_TIMEOUT:-50}" --hosts h1:2,h2:2 "$@" 2>&1)
rc=$?
printf '%s\n' "$out"
fail() { echo "ucx_multihost.sh: FAIL: $*"; exit 1; }
[ "$rc" -eq 0 ] || fail "the job exited $rc"
for r in 0 1 2 3; do
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: job of 4 ranks on 2 host(s), 2 neighbourhood(s)" \
    || fail "rank $r did not see 2 hosts"
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: transport ucx" || fail "rank $r did not use ucx"
  printf '%s\n' "$out" | grep -q "^rivet\[$r\]: ucx: UCX .*UCX_TLS=tcp" \
    || fail "rank $r did not get UCX_TLS=tcp from rivetrun"
done
echo "ucx_multihost.sh: ok: 2 hosts x 2 ranks over ucx, UCX_TLS forwarded"
