#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/core/shm_ring_space.sh: the AM rings of all ranks on a host must fit in /dev/shm. With
# the largest rings (RIVET_SHM_RING_SIZE=64M) each of N ranks makes a queue file of
# 2 * N * 64 MiB; N is chosen from the free space so that they cannot fit, and the job must end
# at start-up with a message naming the setting instead of filling /dev/shm.
# usage: shm_ring_space.sh RIVETRUN PROGRAM
set -u
rivetrun=$1 prog=$2
avail_k=$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')
n=2
while [ $((n * n * 2 * 64 * 1024)) -le "$avail_k" ]; do n=$((n + 1)); done
if [ "$n" -gt 40 ]; then
  echo "shm_ring_space: /dev/shm has ${avail_k} KiB free: $n ranks would be needed; skipped"
  exit 0
fi
out=$(RIVET_SHM_RING_SIZE=64M "$rivetrun" --timeout 100 -n "$n" "$prog" 2>&1)
rc=$?
want="RIVET_SHM_RING_SIZE=64M: the AM rings of the $n ranks on this host need [0-9]+ MiB of /dev/shm, but only [0-9]+ MiB are free"
if [ "$rc" -eq 0 ] || ! printf '%s\n' "$out" | grep -Eq "$want"; then
  printf '%s\n' "$out" | head -20
  echo "shm_ring_space: FAIL: $n ranks with 64M rings: status $rc, want a failure matching: $want"
  exit 1
fi
echo "shm_ring_space: ok ($n ranks, ${avail_k} KiB free in /dev/shm)"
