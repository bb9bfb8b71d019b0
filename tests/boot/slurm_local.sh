#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/slurm_local.sh: a private one-node Slurm cluster for the boot_slurm_* tests.
# usage: slurm_local.sh start DIR [HAVE_PMIX [HAVE_PMI2]]   (both 0: skip, the build has neither
#                                    the PMIx nor the PMI2 bootstrap; HAVE_PMI2 defaults to 0)
#                                    start munged, slurmctld, slurmd with a configuration
#                                    generated in DIR (own ports, own munge socket: nothing
#                                    of a system Slurm is used or touched); exit 0, or print
#                                    "SKIP: <reason>" and exit 77 with nothing left running
#        slurm_local.sh stop DIR     stop the daemons started in DIR (by their pid files) and
#                                    remove DIR; always exit 0
# Needs root (the daemons run as root here) and Debian's munge, slurmctld, slurmd and
# slurm-client with the mpi/pmix or mpi/pmi2 plugin (of a bootstrap this build has); a test
# whose plugin is missing skips by itself. RIVET_TEST_SLURM=0 skips. Every wait is bounded,
# all of them together well below boot_slurm_start's ctest TIMEOUT.
set -u
cmd=$1 dir=$2

skip() {
    echo "SKIP: $*"
    mkdir -p "$dir" && echo "$*" > "$dir/skip"
    stop_daemons
    exit 77
}

# kills the pid in file $1 if it still is daemon $2; waits for it at most 10 s
stop_one() {
    [ -f "$1" ] || return 0
    pid=$(cat "$1" 2>/dev/null)
    case $pid in ''|*[!0-9]*) return 0 ;; esac
    grep -q "$2" "/proc/$pid/cmdline" 2>/dev/null || return 0
    kill "$pid" 2>/dev/null
    i=0
    while [ $i -lt 100 ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; i=$((i + 1)); done
    kill -0 "$pid" 2>/dev/null && kill -9 "$pid" 2>/dev/null
    rm -f "$1"
}

stop_daemons() {
    stop_one "$dir/slurmd.pid" slurmd
    stop_one "$dir/slurmctld.pid" slurmctld
    stop_one "$dir/munged.pid" munged
}

case $cmd in
stop)
    stop_daemons
    [ -f "$dir/up" ] && echo "slurm_local: stopped the daemons of $dir"
    rm -rf "$dir"
    exit 0 ;;
start) ;;
*) echo "usage: slurm_local.sh start|stop DIR" >&2; exit 2 ;;
esac

rm -rf "$dir"
mkdir -p "$dir/state" "$dir/spool" "$dir/tmp" || skip "cannot create $dir"
[ "${RIVET_TEST_SLURM:-1}" != 0 ] || skip "RIVET_TEST_SLURM=0"
have_pmix=${3:-1} have_pmi2=${4:-0}
[ "$have_pmix" = 1 ] || [ "$have_pmi2" = 1 ] ||
    skip "Rivet was built without the PMIx and the PMI2 bootstrap (no pmix.h, no slurm/pmi2.h: install libpmix-dev, libpmi2-0-dev)"
[ "$(id -u)" = 0 ] || skip "not root: the test cluster's daemons run as root"
for c in munged slurmctld slurmd srun sinfo; do
    command -v $c >/dev/null 2>&1 || PATH=$PATH:/usr/sbin command -v $c >/dev/null 2>&1 ||
        skip "no $c (Debian: apt-get install munge slurmctld slurmd slurm-client)"
done
PATH=$PATH:/usr/sbin
# the plugin the probe below uses: pmix if built and there, else pmi2 if built and there
probe=
for m in pmix pmi2; do
    [ "$m" = pmix ] && [ "$have_pmix" != 1 ] && continue
    [ "$m" = pmi2 ] && [ "$have_pmi2" != 1 ] && continue
    for f in /usr/lib/*/slurm-wlm/mpi_$m*.so /usr/lib/slurm/mpi_$m*.so /usr/lib64/slurm/mpi_$m*.so; do
        [ -e "$f" ] && [ -z "$probe" ] && probe=$m
    done
done
[ -n "$probe" ] || skip "Slurm has no mpi/pmix or mpi/pmi2 plugin for a bootstrap of this build (mpi_pmix.so, mpi_pmi2.so)"
host=$(hostname -s)
cpus=$(nproc)
[ "$cpus" -ge 4 ] || cpus=4          # np 4 on a smaller machine: the node claims 4 CPUs
chmod 755 "$dir"

dd if=/dev/urandom of="$dir/munge.key" bs=1024 count=1 2>/dev/null && chmod 600 "$dir/munge.key"
timeout 20 munged --force -S "$dir/munge.sock" --key-file="$dir/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" \
    >"$dir/munged.out" 2>&1 || skip "munged did not start: $(tail -n 2 "$dir/munged.out" "$dir/munged.log" 2>/dev/null | tr '\n' ' ')"

# two free-looking ports from a range few services use
base=$((47000 + $$ % 900 * 2))
cat > "$dir/slurm.conf" <<EOF
ClusterName=rivettest
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$base
SlurmdPort=$((base + 1))
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
# the pmix plugin's per-step directories (spmix_appdir_<uid>_<job>.<step>) live here, not in
# /tmp: job ids restart at 1 in every test cluster, and an aborted step may leave its own
TmpFS=$dir/tmp
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.sock
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus State=UNKNOWN
PartitionName=rivet Nodes=ALL Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE
EOF
export SLURM_CONF="$dir/slurm.conf"
timeout 20 slurmctld -f "$SLURM_CONF" >"$dir/slurmctld.out" 2>&1 ||
    skip "slurmctld did not start: $(tail -n 3 "$dir/slurmctld.out" "$dir/slurmctld.log" 2>/dev/null | tr '\n' ' ')"
timeout 20 slurmd -f "$SLURM_CONF" >"$dir/slurmd.out" 2>&1 ||
    skip "slurmd did not start: $(tail -n 3 "$dir/slurmd.out" "$dir/slurmd.log" 2>/dev/null | tr '\n' ' ')"
# 30 s of wall time, however long each sinfo takes (the steps' bounds add up to about 3
# minutes, under the test's TIMEOUT: a slow cluster skips, it never times out)
end=$(($(date +%s) + 30))
while [ "$(date +%s)" -lt $end ]; do
    state=$(timeout 5 sinfo -h -o %t 2>/dev/null)
    case $state in idle*|mix*|alloc*) break ;; esac
    sleep 1
done
case $state in idle*|mix*|alloc*) ;;
    *) skip "the node did not come up within 30 s (sinfo: '${state:-no answer}'; $(tail -n 2 "$dir/slurmd.log" 2>/dev/null | tr '\n' ' '))" ;;
esac
timeout 60 srun -n 1 --mpi=$probe true >"$dir/probe.out" 2>&1 ||
    skip "srun --mpi=$probe does not run a task: $(tail -n 2 "$dir/probe.out" | tr '\n' ' ')"
touch "$dir/up"
echo "slurm_local: one-node cluster up in $dir (node $host, $cpus CPUs, ports $base-$((base + 1)); srun --mpi=list: $(timeout 30 srun --mpi=list 2>&1 | sed -n 's/^[[:space:]]\{1,\}//p' | tr '\n' ' '))"
exit 0
