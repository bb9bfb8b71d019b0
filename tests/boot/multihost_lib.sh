# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_lib.sh: sourced by the scripts that run a 2-host x 2-rank job on fake
# hosts through the whole multi-host spawn path (multihost_ofi.sh, multihost_udp.sh,
# tests/transport/ucx_multihost.sh). Settings for the job go in the caller's environment.

mh_name=${0##*/}

mh_fail() { echo "$mh_name: FAIL: $*"; exit 1; }

# mh_run RIVETRUN SSH PROGRAM [ARGS...]: runs PROGRAM on hosts h1:2,h2:2 with SSH as the remote
# shell (verbose, yield wait, RIVET_TEST_JOB_TIMEOUT or 50 s), prints what it said (kept in
# mh_out) and fails unless it exited 0.
mh_run() {
  mh_rivetrun=$1
  mh_ssh=$2
  shift 2
  mh_out=$(RIVET_SSH=$mh_ssh RIVET_VERBOSE=1 RIVET_WAIT_MODE=yield \
           "$mh_rivetrun" --timeout "${RIVET_TEST_JOB_TIMEOUT:-50}" --hosts h1:2,h2:2 "$@" 2>&1)
  mh_rc=$?
  printf '%s\n' "$mh_out"
  [ "$mh_rc" -eq 0 ] || mh_fail "the job exited $mh_rc"
}

# mh_expect RANK REGEX WHAT: the job printed a line "rivet[RANK]: REGEX...", else fails with
# "rank RANK WHAT".
mh_expect() {
  printf '%s\n' "$mh_out" | grep -q "^rivet\[$1\]: $2" || mh_fail "rank $1 $3"
}
