#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/transport/ucx_multihost.sh: a 2-host x 2-rank job over the ucx transport through the
# whole multi-host spawn path (tests/boot/fake_ssh.sh as the remote shell). The remote shell
# drops UCX_TLS from the environment it passes on, so the ranks see UCX_TLS=tcp only if
# rivetrun forwarded it (it forwards UCX_* as it does RIVET_*, GASNET_* and FI_*).
# usage: ucx_multihost.sh RIVETRUN FAKE_SSH PROGRAM [ARGS...]
. "$(dirname "$0")/../boot/multihost_lib.sh"
rivetrun=$1
fake=$2
shift 2
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
printf '#!/bin/sh\nexec env -u UCX_TLS %s "$@"\n' "$fake" >"$dir/ssh"
chmod +x "$dir/ssh"
UCX_TLS=tcp RIVET_TRANSPORT=ucx
export UCX_TLS RIVET_TRANSPORT
mh_run "$rivetrun" "$dir/ssh" "$@"
for r in 0 1 2 3; do
  mh_expect $r "job of 4 ranks on 2 host(s), 2 neighbourhood(s)" "did not see 2 hosts"
  mh_expect $r "transport ucx" "did not use ucx"
  mh_expect $r "ucx: UCX .*UCX_TLS=tcp" "did not get UCX_TLS=tcp from rivetrun"
done
echo "ucx_multihost.sh: ok: 2 hosts x 2 ranks over ucx, UCX_TLS forwarded"
