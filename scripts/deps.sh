#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# scripts/deps.sh: installs the Debian packages Rivet needs that are missing.
# usage: scripts/deps.sh [--test] [--bench] [--clang]
#   (no option)  build: cmake make gcc pkg-config python3 libfabric-dev (ofi), libucx-dev (ucx),
#                libpmix-dev (PMIx bootstrap), libpmi2-0-dev (PMI2 bootstrap: Slurm's pmi2.h;
#                libpmi2-0 with it)
#   --test       also what the test suite runs under: openmpi-bin and munge slurmctld slurmd
#                slurm-client (the PMIx and PMI2 tests run under mpirun and a private one-node
#                Slurm: srun --mpi=pmix and --mpi=pmi2)
#   --bench      also the benchmark peers and plots: Open MPI and MPICH, UCX tools,
#                python3-matplotlib (or gnuplot, if that is what is installed)
#   --clang      also clang
# As root (or with password-less sudo) it runs apt-get; otherwise it prints the command
# to run and exits 1. Nothing missing: one dpkg-query call, no output, exit 0.
set -eu
pkgs="cmake make gcc libc6-dev pkg-config python3 libfabric-dev libucx-dev libpmix-dev libpmi2-0-dev"
for a in "$@"; do
    case $a in
        # Open MPI and MPICH co-install on Debian 12 (mpicc/mpirun are alternatives;
        # scripts/bench.sh calls mpicc.openmpi and mpicc.mpich by name). "a|b": either will do.
        --bench) pkgs="$pkgs libopenmpi-dev openmpi-bin libmpich-dev mpich ucx-utils python3-matplotlib|gnuplot-nox" ;;
        --test) pkgs="$pkgs openmpi-bin munge slurmctld slurmd slurm-client" ;;
        --clang) pkgs="$pkgs clang" ;;
        -h|--help) sed -n '3,14p' "$0"; exit 0 ;;
        *) echo "deps.sh: unknown option $a" >&2; exit 2 ;;
    esac
done

# every package that is installed, as " name name ... "
installed=" $(dpkg-query -W -f='${db:Status-Status} ${Package}\n' $(echo "$pkgs" | tr '|' ' ') 2>/dev/null |
              sed -n 's/^installed //p' | tr '\n' ' ')"
missing=
for p in $pkgs; do
    ok=
    for alt in $(echo "$p" | tr '|' ' '); do
        case $installed in *" $alt "*) ok=1 ;; esac
    done
    [ -n "$ok" ] || missing="$missing ${p%%|*}"
done
[ -z "$missing" ] && exit 0

cmd="apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends$missing"
if [ "$(id -u)" = 0 ]; then
    echo "deps.sh: installing:$missing"
    sh -c "$cmd"
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    echo "deps.sh: installing with sudo:$missing"
    sudo sh -c "$cmd"
else
    echo "deps.sh: missing Debian packages:$missing"
    echo "deps.sh: run as root:  $cmd"
    exit 1
fi
