#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tests/info/info_test.sh: runs rivet-info alone and under rivetrun and checks what it reports:
# version, transports built, the transport selected (and that it is the one in use), limits,
# the configuration in effect with its source, atomics, --shape, and its usage errors.
# usage: info_test.sh RIVETRUN RIVET_INFO HAVE_OFI(0|1) [RUN_OFI(0|1), default HAVE_OFI]
run=$1
info=$2
have_ofi=$3
run_ofi=${4:-$3}
fails=0
out=
fail() { echo "info_test: FAIL: $*"; fails=$((fails + 1)); }
# has "what" "fixed string": the last output must contain it
has() { printf '%s\n' "$out" | grep -qF -- "$2" || fail "$1: output lacks \"$2\""; }
go() { out=$("$@" 2>&1); rc=$?; printf '%s\n' "---- $* (exit $rc)" "$out"; }

unset RIVET_TRANSPORT RIVET_PSHM GASNET_PSHM_NODES RIVET_RATOMIC RIVET_SHM_RING_SIZE

go "$info"
[ "$rc" -eq 0 ] || fail "singleton: exit $rc"
has singleton "Rivet 0.1.0, GASNet-EX spec"
has singleton "transports built: shm"
has singleton "ranks: 1 (bootstrap: singleton)"
has singleton "selected: shm"
has singleton "in use: shm"
has singleton "AM arguments: 16"
has singleton "AM Medium LUB: request 65536, reply 65536"
has singleton "segment max: local "
has singleton "GEX_DT_U64 {FADD} flags 0x0: CPU atomics on mapped neighbourhood segments"
has singleton "RIVET_TRANSPORT        = \"\"                   (default)"
has singleton "RIVET_SSH              = \"ssh -x\"             (default)"

# RIVET_VERBOSE=1: the library says which transport it opened and why (rv_tp_select)
go env RIVET_VERBOSE=1 "$info" --version
[ "$rc" -eq 0 ] || fail "verbose: exit $rc"
has verbose "transport shm (max message "
has verbose "): RIVET_TRANSPORT is empty: shm is the highest-priority transport that accepts this job (1 rank(s) in 1 neighbourhood(s))"

# where each value comes from: RIVET_*, a GASNet alias, the default
go env RIVET_SHM_RING_SIZE=1M GASNET_PSHM_NODES=1 RIVET_RATOMIC=ref "$info" --env --atomics I32:SET,GET
[ "$rc" -eq 0 ] || fail "env: exit $rc"
has env "RIVET_SHM_RING_SIZE    = 1048576              (RIVET_SHM_RING_SIZE)"
has env "RIVET_PSHM             = 0                    (GASNET_PSHM_NODES)"
has env "GEX_DT_I32 {SET,GET} flags 0x0: AM reference for every peer (RIVET_RATOMIC=ref)"
printf '%s\n' "$out" | grep -q "^Rivet " && fail "env: --env printed the version section too"

# a job of several ranks: what it picks must be what gex_Client_Init picked
go "$run" --timeout 30 -n 2 "$info" --job --transports --limits
[ "$rc" -eq 0 ] || fail "np 2: exit $rc"
has "np 2" "ranks: 2 (bootstrap: launcher)"
has "np 2" "selected: shm"
has "np 2" "in use: shm"
has "np 2" "to a neighbourhood peer (rank 1):"
[ "$(printf '%s\n' "$out" | grep -c '^transports for this job')" -eq 1 ] || fail "np 2: more than rank 0 printed"
# The network transport a job picks by itself: ofi on a host with a fabric device, else (only
# Ethernet) udp when it is built.
have_udp=0
"$info" --transports 2>&1 | grep -q '^  udp  priority' && have_udp=1
fabric=0
for d in /sys/class/infiniband/* /sys/class/cxi/* /dev/kgni0 /dev/hfi1_0 /dev/cxi0; do
  [ -e "$d" ] && fabric=1
done
net=
if [ "$fabric" = 1 ] && [ "$have_ofi" = 1 ]; then net=ofi; elif [ "$have_udp" = 1 ]; then net=udp
elif [ "$have_ofi" = 1 ]; then net=ofi; fi
if [ -n "$net" ] && { [ "$net" != ofi ] || [ "$run_ofi" = 1 ]; }; then
  go env RIVET_PSHM=0 "$run" --timeout 30 -n 2 "$info" --transports --limits
  [ "$rc" -eq 0 ] || fail "PSHM=0: exit $rc"
  has "PSHM=0" "shm  priority 100  declines"
  has "PSHM=0" "selected: $net"
  has "PSHM=0" "why: RIVET_TRANSPORT is empty: $net is the highest-priority transport that accepts this job (2 rank(s) in 2 neighbourhood(s), RIVET_PSHM=0)"
  has "PSHM=0" "neighbourhood(s), RIVET_PSHM=0); declined: shm (priority 100)"
  has "PSHM=0" "in use: $net"
  has "PSHM=0" "to a peer in another neighbourhood (rank 1):"
fi
if [ "$have_ofi" = 1 ] && [ "$fabric" = 0 ] && [ "$have_udp" = 1 ]; then
  go env RIVET_VERBOSE=1 "$info" --shape 4/2
  has "no fabric" "ofi: declines: no fabric device (/sys/class/infiniband, /sys/class/cxi are empty), so udp serves; RIVET_TRANSPORT=ofi uses libfabric's tcp anyway"
fi
if [ "$run_ofi" = 1 ]; then
  go env RIVET_TRANSPORT=ofi "$info" --transports
  has "TRANSPORT=ofi" "why: RIVET_TRANSPORT=ofi asks for it and it accepts this job"
  has "TRANSPORT=ofi" "in use: ofi"
fi

# made-up shapes
go "$info" --shape 8 --shape 8/2
[ "$rc" -eq 0 ] || fail "shape: exit $rc"
has shape "transports for a job of 8 rank(s) on 1 host(s), 1 neighbourhood(s):"
has shape "transports for a job of 8 rank(s) on 2 host(s), 2 neighbourhood(s):"
if [ -n "$net" ]; then
  [ "$(printf '%s\n' "$out" | grep -c 'selected: ')" -eq 2 ] || fail "shape: expected two selections"
  printf '%s\n' "$out" | sed -n '/on 2 host/,$p' | grep -q "selected: $net" || fail "shape: 8/2 did not select $net"
else
  printf '%s\n' "$out" | sed -n '/on 2 host/,$p' | grep -q "selected: (none)" || fail "shape: 8/2 without a network transport"
  has shape "why: no transport built into this library can serve this job (8 ranks in 2 neighbourhoods); built: shm (RIVET_VERBOSE=1 says why each declined): gex_Client_Init fails"
  has shape "ofi  priority  50  -        libfabric"
fi

# usage errors: exit 2 and a message naming the problem
go "$info" --atomics FLT:AND
[ "$rc" -eq 2 ] || fail "FLT:AND: exit $rc"
has "FLT:AND" "AND is not valid for GEX_DT_FLT"
go "$info" --atomics U64:FADD:FAVOR_MY_RANK,FAVOR_REMOTE
[ "$rc" -eq 2 ] || fail "two FAVOR flags: exit $rc"
has "two FAVOR flags" "the FAVOR_* flags exclude each other"
go "$info" --shape 3/4
[ "$rc" -eq 2 ] || fail "--shape 3/4: exit $rc"
go "$info" --bogus
[ "$rc" -eq 2 ] || fail "--bogus: exit $rc"
has "--bogus" "unknown option '--bogus'"
go "$info" --help
[ "$rc" -eq 0 ] || fail "--help: exit $rc"
has "--help" "--atomics T:OPS[:FLAGS]"

if [ "$fails" -ne 0 ]; then echo "info_test: $fails failure(s)"; exit 1; fi
echo "info_test: ok"
