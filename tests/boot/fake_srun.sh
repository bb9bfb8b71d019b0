#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/fake_srun.sh: stands in for Slurm's srun in rivetrun --launcher=slurm tests on a
# machine without Slurm: prints the options it was given, checks rivetrun's (--ntasks=N
# --mpi=pmix --kill-on-bad-exit=1), then starts the program under Open MPI's mpirun, which,
# like srun --mpi=pmix, serves the ranks' PMIx bootstrap.
echo "fake_srun: $*" >&2
np=
case $1 in --ntasks=*) np=${1#--ntasks=} ;; *) echo "fake_srun: first option is not --ntasks=N" >&2; exit 2 ;; esac
[ "$2" = --mpi=pmix ] || { echo "fake_srun: second option is not --mpi=pmix" >&2; exit 2; }
[ "$3" = --kill-on-bad-exit=1 ] || { echo "fake_srun: third option is not --kill-on-bad-exit=1" >&2; exit 2; }
shift 3
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
exec mpirun --oversubscribe -np "$np" "$@"
