#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/pmix_mpirun.sh: runs a Rivet program under Open MPI's mpirun (the PMIx bootstrap)
# and checks how the job ends.
# usage: pmix_mpirun.sh HAVE_PMIX EXPECT NP PROG [ARGS...]
#        (RIVET_TEST_LAUNCH, when set, replaces "mpirun --oversubscribe -np NP": e.g. a rivetrun
#        command line; split at blanks. RIVET_TEST_SLURM_DIR: run under the test cluster
#        slurm_local.sh started there, by default with "srun --mpi=M -n NP", or skip;
#        M is RIVET_TEST_MPI, pmix by default, or pmi2: the PMI2 bootstrap, whose boot_slurm_pmi2_*
#        tests also set RIVET_TEST_BOOT=pmi2 for pmix_prog.)
#   HAVE_PMIX  1 when this Rivet was built with the PMIx bootstrap (with RIVET_TEST_MPI=pmi2:
#              with the PMI2 bootstrap)
#   EXPECT     ok (exit 0), exit:C (exit code C), fail (any non-zero code)
# Prints "SKIP: <reason>" and exits 77 (the ctest SKIP_RETURN_CODE) when mpirun, Open MPI or
# the PMIx bootstrap is missing. Checks: the exit code; that a failing job ends within
# RIVET_TEST_END_SECONDS (default 60, generous for a loaded machine) of its start; that no
# /dev/shm object named by a secret the program printed ("secret <hex>") is left; that every
# rank printed the same secret; with RIVET_TEST_EXPECT_LINE=<regex>, that exactly
# RIVET_TEST_EXPECT_COUNT (default NP) output lines match it; with RIVET_TEST_SRUN_EXITED=C
# (under srun), that srun's "task(s) LIST: ..." lines name each of the NP tasks once, every one
# "Exited with exit code C" (srun groups the tasks that end together, in one line or several).
set -u
have_pmix=$1 expect=$2 np=$3
shift 3
mpi=${RIVET_TEST_MPI:-pmix}
if [ "$mpi" = pmi2 ]; then
    [ "$have_pmix" = 1 ] || { echo "SKIP: Rivet was built without the PMI2 bootstrap (no slurm/pmi2.h: install libpmi2-0-dev)"; exit 77; }
else
    [ "$have_pmix" = 1 ] || { echo "SKIP: Rivet was built without the PMIx bootstrap (no pmix.h: install libpmix-dev)"; exit 77; }
fi
if [ -n "${RIVET_TEST_SLURM_DIR:-}" ]; then
    # under the test cluster of slurm_local.sh (boot_slurm_* tests): srun, not mpirun
    [ -f "$RIVET_TEST_SLURM_DIR/up" ] || {
        echo "SKIP: no test Slurm cluster: $(cat "$RIVET_TEST_SLURM_DIR/skip" 2>/dev/null || echo "boot_slurm_start did not run")"
        exit 77
    }
    export SLURM_CONF="$RIVET_TEST_SLURM_DIR/slurm.conf" PATH="$PATH:/usr/sbin"
    timeout 30 srun --mpi=list 2>&1 | grep -qw "$mpi" ||
        { echo "SKIP: srun --mpi=list does not offer $mpi (Slurm's mpi/$mpi plugin)"; exit 77; }
    : "${RIVET_TEST_LAUNCH:=srun --mpi=$mpi -n $np}"
else
    command -v mpirun >/dev/null 2>&1 || { echo "SKIP: no mpirun in PATH (Debian: apt-get install openmpi-bin)"; exit 77; }
    ver=$(mpirun --version 2>&1 | head -n 1)
    case $ver in
        *"Open MPI"*|*OpenRTE*|*PRRTE*|*prterun*) ;;
        *) echo "SKIP: mpirun is not Open MPI's ($ver); these tests drive Open MPI's PMIx server"; exit 77 ;;
    esac
fi
# mpirun refuses root unless told; --oversubscribe: more ranks than cores on a small machine.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# in sanitizer builds: what libpmix itself leaves allocated is not the program's leak
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$(cd "$(dirname "$0")" && pwd)/lsan_pmix.supp"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
end=${RIVET_TEST_END_SECONDS:-60}
start=$(date +%s)
# a bounded wait: the job must end by itself well before this
launch=${RIVET_TEST_LAUNCH:-mpirun --oversubscribe -np $np}
timeout -k 5 $((end + 60)) $launch "$@" >"$out" 2>&1
rc=$?
elapsed=$(( $(date +%s) - start ))
cat "$out"
fail() { echo "pmix_mpirun: FAIL: $*"; exit 1; }
[ $elapsed -lt $((end + 60)) ] || fail "the job did not end (rc $rc after ${elapsed}s)"
case $expect in
    ok)     [ $rc -eq 0 ] || fail "exit code $rc, expected 0" ;;
    exit:*) [ $rc -eq "${expect#exit:}" ] || fail "exit code $rc, expected ${expect#exit:}" ;;
    fail)   [ $rc -ne 0 ] || fail "exit code 0, expected a failure" ;;
esac
# a failing job must end promptly (a slow passing one, e.g. under TSan on a busy machine, is fine)
[ "$expect" = ok ] || [ $elapsed -le "$end" ] || fail "the job took ${elapsed}s to end (limit ${end}s)"
secrets=$(sed -n 's/.* secret \([0-9a-f]\{32\}\)$/\1/p' "$out" | sort -u)
if [ -n "$secrets" ]; then
    [ "$(echo "$secrets" | wc -l)" -eq 1 ] || fail "ranks printed different job secrets: $secrets"
    # a job that ends early may lose a rank's forwarded output: then only what arrived counts
    [ "$expect" != ok ] || [ "$(grep -c " secret $secrets\$" "$out")" -eq "$np" ] ||
        fail "not every rank printed the secret"
    left=$(ls /dev/shm 2>/dev/null | grep "^rivet-$secrets-")
    [ -z "$left" ] || fail "left in /dev/shm: $left"
fi
if [ -n "${RIVET_TEST_EXPECT_LINE:-}" ]; then
    n=$(grep -c -- "$RIVET_TEST_EXPECT_LINE" "$out")
    [ "$n" -eq "${RIVET_TEST_EXPECT_COUNT:-$np}" ] ||
        fail "$n lines match '$RIVET_TEST_EXPECT_LINE', expected ${RIVET_TEST_EXPECT_COUNT:-$np}"
fi
if [ -n "${RIVET_TEST_SRUN_EXITED:-}" ]; then
    # e.g. "srun: error: vm: tasks 0-1,3: Exited with exit code 7": count the tasks per outcome
    tally=$(sed -n 's/^srun: error: [^:]*: tasks\{0,1\} \([0-9,-]*\): \(.*\)$/\1 \2/p' "$out" |
        awk '{ n = 0; k = split($1, part, ",")
               for (i = 1; i <= k; i++) { m = split(part[i], ab, "-"); n += m == 2 ? ab[2] - ab[1] + 1 : 1 }
               $1 = ""; sub(/^ /, ""); cnt[$0] += n }
             END { for (o in cnt) print cnt[o] ": " o }')
    [ "$tally" = "$np: Exited with exit code $RIVET_TEST_SRUN_EXITED" ] ||
        fail "srun's task lines do not say all $np tasks exited with code $RIVET_TEST_SRUN_EXITED: ${tally:-none}"
fi
echo "pmix_mpirun: OK (exit code $rc after ${elapsed}s, expected $expect)"
exit 0
