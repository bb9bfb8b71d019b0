#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/startup_time.sh: start-up and exit of the smallest job (startup_prog: init, attach
# 1 MiB, one barrier, gasnet_exit) stays close to what it cannot avoid, measured as ratios
# against references run the same way in the same test (never absolute times; the machine may
# be loaded), interleaved, best of N each:
#   librivet.so needs no network library at load time (readelf: no NEEDED libfabric, libucp,
#     libuct, libucs): each transport dlopens its own when probed
#   shm: 2 ranks of startup_prog over shared memory take at most SHM_RATIO x (2 ranks of
#     /bin/true through rivetrun) + 50 ms (before the fix: ~55x, linking libfabric and UCX ran
#     two 100 ms calibration loops in every process)
#   udp (STARTUP_UDP=1: the transport is built): 2 ranks of startup_prog with RIVET_PSHM=0
#     RIVET_TRANSPORT=udp, the network transport of Ethernet hosts, take at most UDP_RATIO x the
#     shm run + 50 ms, interleaved with it (GASNet-EX udp's smallest job takes ~15x as long)
#   ofi: 2 ranks of startup_prog with RIVET_TRANSPORT=ofi take at most OFI_RATIO x 2 ranks of
#     startup_fi (raw libfabric: load + fi_getinfo) (before: 2.5-3x; the bound is loose: load
#     swings the ratio, and the readelf check above guards the main regression); and over
#     ofi_rxm on a host with no fabric device, rxm's bounce buffers are 4 KiB (RIVET_VERBOSE=1
#     says so): with 64 KiB ones rxm clears 2 x 67 MB per rank, a third of the job's start-up
# usage: startup_time.sh <rivetrun> <librivet.so> <startup_prog> [<startup_fi>]
set -u
RUN=$1 LIB=$2 PROG=$3 FI=${4:-}
N=${STARTUP_RUNS:-5}
SHM_RATIO=15
OFI_RATIO=3
UDP_RATIO=3
UDP=${STARTUP_UDP:-0}
fail() { echo "startup_time.sh: FAIL: $*"; exit 1; }

needed=$(readelf -d "$LIB" | grep NEEDED)
echo "$needed"
if echo "$needed" | grep -E 'lib(fabric|ucp|uct|ucs|ucm)\.' >/dev/null; then
    fail "$LIB links a network library at load time (it must dlopen it when its transport is probed)"
fi

now() { date +%s.%N; }
# a fabric device as core/fabric.c finds one (then rxm may run over verbs: buffers stay large)
fabric_device() {
    for d in /sys/class/infiniband /sys/class/cxi; do
        [ -n "$(ls -A "$d" 2>/dev/null)" ] && return 0
    done
    for n in /dev/kgni0 /dev/hfi1_0 /dev/cxi0; do [ -e "$n" ] && return 0; done
    return 1
}
calc() { awk "BEGIN { print $* }"; }
holds() { awk "BEGIN { exit !($*) }"; }
# best of the times (seconds) given on stdin
best() { sort -n | head -1; }
# time one run of "$@"; fails the test when the run fails
t1() {
    s=$(now)
    "$@" >/dev/null 2>"$tmp/err" || { cat "$tmp/err"; fail "$* exited $?"; }
    e=$(now)
    calc "$e - $s"
}
tmp=$(mktemp -d /tmp/rivet-startup.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

: >"$tmp/true"; : >"$tmp/shm"; : >"$tmp/udp"
i=0
while [ $i -lt "$N" ]; do
    t1 "$RUN" -n 2 /bin/true >>"$tmp/true"
    t1 "$RUN" -n 2 "$PROG" >>"$tmp/shm"
    [ "$UDP" = 1 ] && t1 env RIVET_PSHM=0 RIVET_TRANSPORT=udp "$RUN" -n 2 "$PROG" >>"$tmp/udp"
    i=$((i + 1))
done
bt=$(best <"$tmp/true"); bs=$(best <"$tmp/shm")
lim=$(calc "$SHM_RATIO * $bt + 0.05")
printf 'shm: best %.4f s, rivetrun /bin/true best %.4f s: ratio %.1f (limit %s x + 50 ms = %.4f s)\n' \
    "$bs" "$bt" "$(calc "$bs / $bt")" "$SHM_RATIO" "$lim"
holds "$bs <= $lim" || fail "the smallest shm job is slow to start and end"
if [ "$UDP" = 1 ]; then
    bu=$(best <"$tmp/udp")
    lim=$(calc "$UDP_RATIO * $bs + 0.05")
    printf 'udp: best %.4f s, shm best %.4f s: ratio %.2f (limit %s x + 50 ms = %.4f s)\n' \
        "$bu" "$bs" "$(calc "$bu / $bs")" "$UDP_RATIO" "$lim"
    holds "$bu <= $lim" || fail "the smallest udp job is slow to start and end"
fi

if [ -n "$FI" ]; then
    if ! "$FI" >/dev/null 2>"$tmp/err"; then
        echo "startup_time.sh: ofi part skipped: no libfabric provider answers ($(cat "$tmp/err"))"
    else
        "$FI" # prints its load and fi_getinfo times
        RIVET_VERBOSE=1 RIVET_TRANSPORT=ofi "$RUN" -n 2 "$PROG" >"$tmp/v" 2>&1 ||
            { cat "$tmp/v"; fail "the ofi job failed"; }
        grep 'rxm bounce buffers' "$tmp/v" | head -1
        if grep -q 'provider [a-z]*;ofi_rxm' "$tmp/v" &&
           ! fabric_device &&
           ! grep -q 'rxm bounce buffers of 4096 bytes' "$tmp/v"; then
            [ -n "${FI_OFI_RXM_BUFFER_SIZE:-}${FI_OFI_RXM_EAGER_LIMIT:-}" ] ||
                fail "ofi_rxm on a host with no fabric device does not use 4 KiB bounce buffers"
        fi
        : >"$tmp/fi"; : >"$tmp/ofi"
        i=0
        while [ $i -lt "$N" ]; do
            t1 "$RUN" -n 2 "$FI" >>"$tmp/fi"
            t1 env RIVET_TRANSPORT=ofi "$RUN" -n 2 "$PROG" >>"$tmp/ofi"
            i=$((i + 1))
        done
        bf=$(best <"$tmp/fi"); bo=$(best <"$tmp/ofi")
        printf 'ofi: best %.4f s, raw libfabric (load + 2 fi_getinfo) best %.4f s: ratio %.2f (limit %s)\n' \
            "$bo" "$bf" "$(calc "$bo / $bf")" "$OFI_RATIO"
        holds "$bo <= $OFI_RATIO * $bf" ||
            fail "the smallest ofi job is slow to start and end"
    fi
fi
echo "startup_time.sh: PASS"
