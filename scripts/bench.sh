#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench.sh: runs the benchmark suite (Rivet, limits, MPI/OpenSHMEM/UCX peers, interleaved)
# and writes build/bench/{results.json,report.md,*.png}. `make bench` / `make bench-smoke`.
# With an installed GASNet-EX (GASNET_PREFIX) the same drivers are built against it through its
# own makefile fragments (bench/gasnet.mk) and run as the peers gasnet-ex-smp / gasnet-ex-udp.
set -u

usage() {
    cat <<'EOF'
usage: scripts/bench.sh [--smoke] [--build-dir DIR] [--rounds N] [--trials N]
                        [--no-peers] [--no-build] [--no-install] [--np N] [--groups G,...]
                        [--gasnet-prefix DIR[:DIR...]]
  --smoke        tiny sizes and iterations, Rivet + limits only (< 1 minute, for CI)
  --build-dir    CMake build directory (default: build, configured Release if missing)
  --rounds N     interleaved rounds (Rivet, limits, peers, Rivet, ...); default 3 (smoke 1)
  --trials N     timed trials per program run; default 3 (smoke 2)
  --no-peers     skip MPI, OpenSHMEM, UCX and GASNet-EX
  --no-build     do not build (the bench targets must exist)
  --no-install   never call apt-get, only print what is missing
  --np N         ranks per job (default 2)
  --groups G,... only these groups (lat,bw,am,inject,barrier,coll,amo,ofi,udp,ucx,vis,np,
                 imm); default all
  --gasnet-prefix  installed GASNet-EX to compare with (default: $GASNET_PREFIX, else the
                 CMake cache variable GASNET_PREFIX of the build directory); a :-list is searched
                 per conduit (smp, udp); the drivers are built with each conduit's <c>-par.mak
Environment: RIVET_BENCH_TIMEOUT (seconds per program run, default 300), GASNET_PREFIX.
Output: <build-dir>/bench/results.json (one JSON object per line), report.md, *.png,
        runs.tsv (every program run with its exit status), peers.tsv, meta.tsv, logs/.
EOF
}

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
SMOKE=0; ROUNDS=; TRIALS=; PEERS=1; DOBUILD=1; INSTALL=1; NP=2; BGROUPS=
GASNET=${GASNET_PREFIX:-}
while [ $# -gt 0 ]; do
    case $1 in
        --smoke) SMOKE=1 ;;
        --build-dir) BUILD=$(cd "$2" 2>/dev/null && pwd || echo "$2"); shift ;;
        --rounds) ROUNDS=$2; shift ;;
        --trials) TRIALS=$2; shift ;;
        --no-peers) PEERS=0 ;;
        --no-build) DOBUILD=0 ;;
        --no-install) INSTALL=0 ;;
        --np) NP=$2; shift ;;
        --groups) BGROUPS=$2; shift ;;
        --gasnet-prefix) GASNET=$2; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "bench.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
if [ "$SMOKE" = 1 ]; then
    PEERS=0; : "${ROUNDS:=1}"; : "${TRIALS:=2}"
    COMMON=(--json --smoke --trials "$TRIALS")
else
    : "${ROUNDS:=3}"; : "${TRIALS:=3}"
    COMMON=(--json --trials "$TRIALS")
fi
TIMEOUT=${RIVET_BENCH_TIMEOUT:-300}
OUT=$BUILD/bench
PEERDIR=$OUT/peers
LOGS=$OUT/logs
RESULTS=$OUT/results.json
RUNS=$OUT/runs.tsv
PEERS_TSV=$OUT/peers.tsv
T_START=$(date +%s)

log() { printf '[bench %3ds] %s\n' "$(( $(date +%s) - T_START ))" "$*" >&2; }

# ---- dependencies ------------------------------------------------------------------------
# Debian packages for what the full suite compares against; installed when we are root.
need_pkgs=()
if [ "$PEERS" = 1 ]; then
    command -v mpicc.openmpi >/dev/null || need_pkgs+=(libopenmpi-dev openmpi-bin)
    command -v mpicc.mpich   >/dev/null || need_pkgs+=(libmpich-dev mpich)
    command -v ucx_perftest  >/dev/null || need_pkgs+=(ucx-utils)
fi
have_mpl() { "$1" -c 'import matplotlib' >/dev/null 2>&1; }
PY=
for p in python3 /usr/bin/python3; do
    if command -v "$p" >/dev/null 2>&1 && have_mpl "$p"; then PY=$p; break; fi
done
if [ -z "$PY" ] && [ "$SMOKE" = 0 ]; then need_pkgs+=(python3-matplotlib); fi
if [ ${#need_pkgs[@]} -gt 0 ]; then
    cmd="apt-get install -y --no-install-recommends ${need_pkgs[*]}"
    if [ "$INSTALL" = 1 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing: ${need_pkgs[*]}"
        { apt-get update && DEBIAN_FRONTEND=noninteractive $cmd; } >"${TMPDIR:-/tmp}/rivet-bench-apt.log" 2>&1 \
            || log "apt-get failed (see ${TMPDIR:-/tmp}/rivet-bench-apt.log); continuing without"
    else
        log "missing packages; to install them: sudo apt-get update && sudo $cmd"
    fi
fi
if [ -z "$PY" ]; then
    for p in python3 /usr/bin/python3; do
        if command -v "$p" >/dev/null 2>&1 && have_mpl "$p"; then PY=$p; break; fi
    done
fi
[ -n "$PY" ] || PY=$(command -v python3 || command -v /usr/bin/python3 || true)

# ---- build -------------------------------------------------------------------------------
if [ "$DOBUILD" = 1 ]; then
    if [ ! -f "$BUILD/CMakeCache.txt" ]; then
        log "configuring $BUILD (Release)"
        gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
        cmake -S "$ROOT" -B "$BUILD" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release >/dev/null || exit 1
    fi
    log "building the bench targets"
    cmake --build "$BUILD" --target bench_programs >"${TMPDIR:-/tmp}/rivet-bench-build.log" 2>&1 || {
        cat "${TMPDIR:-/tmp}/rivet-bench-build.log" >&2; log "build failed"; exit 1; }
fi
RIVETRUN=$BUILD/bin/rivetrun
BIN=$BUILD/bench
for b in bench_rma bench_am bench_inject bench_barrier bench_limits bench_vis bench_coll; do
    [ -x "$BIN/$b" ] || { log "missing $BIN/$b (build the bench_programs target)"; exit 1; }
done
[ -x "$BIN/bench_amo" ] || { log "missing $BIN/bench_amo (build the bench_programs target)"; exit 1; }
[ -x "$RIVETRUN" ] || { log "missing $RIVETRUN"; exit 1; }
for b in bench_np bench_imm; do
    [ -x "$BIN/$b" ] || { log "missing $BIN/$b (build the bench_programs target)"; exit 1; }
done
if [ -z "$GASNET" ] && [ -f "$BUILD/CMakeCache.txt" ]; then
    GASNET=$(sed -n 's/^GASNET_PREFIX:[A-Z]*=//p' "$BUILD/CMakeCache.txt" | head -n1)
fi

mkdir -p "$OUT" "$LOGS" "$PEERDIR"
loadavg() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
META=$OUT/meta.tsv
printf 'key\tvalue\nload_start\t%s\n' "$(loadavg)" >"$META"
: >"$RESULTS"
printf 'system\tgroup\tround\tstatus\tnote\tseconds\n' >"$RUNS"
printf 'system\tstatus\treason\n' >"$PEERS_TSV"

# ---- peers: build each one that is present -----------------------------------------------
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
declare -A PEER_CMD=()
peer_status() { printf '%s\t%s\t%s\n' "$1" "$2" "$3" >>"$PEERS_TSV"; log "peer $1: $2${3:+ ($3)}"; }
build_peer() { # system compiler source output
    local sys=$1 cc=$2 src=$3 exe=$4
    if ! command -v "$cc" >/dev/null; then peer_status "$sys" skipped "$cc not found"; return 1; fi
    # peers are not our code's warnings policy: MPICH's headers trip gcc's -Wstringop-overflow
    if ! "$cc" -std=c11 -O2 -D_GNU_SOURCE "$src" "$ROOT/bench/bench_util.c" -o "$exe" \
            >"$LOGS/build-$sys.log" 2>&1; then
        peer_status "$sys" skipped "build with $cc failed (logs/build-$sys.log)"; return 1
    fi
    return 0
}
if [ "$PEERS" = 1 ]; then
    if build_peer mpi-openmpi mpicc.openmpi "$ROOT/bench/peers/mpi_bench.c" "$PEERDIR/mpi_bench.openmpi"; then
        if command -v mpirun.openmpi >/dev/null; then
            PEER_CMD[mpi-openmpi]="mpirun.openmpi --oversubscribe --bind-to none -np $NP $PEERDIR/mpi_bench.openmpi"
            peer_status mpi-openmpi built "osc/pml as Debian configures them (osc sm for MPI_Win_allocate on one host)"
            # Debian's Open MPI uses UCX only when asked, and pml ucx needs any device allowed
            PEER_CMD[mpi-openmpi+ucx]="mpirun.openmpi --oversubscribe --bind-to none --mca pml ucx --mca osc ucx --mca pml_ucx_tls any --mca pml_ucx_devices any -np $NP $PEERDIR/mpi_bench.openmpi"
            peer_status "mpi-openmpi [config ucx]" built "--mca pml ucx --mca osc ucx (pml_ucx_tls/devices any)"
        else peer_status mpi-openmpi skipped "mpirun.openmpi not found"; fi
    fi
    if build_peer mpi-mpich mpicc.mpich "$ROOT/bench/peers/mpi_bench.c" "$PEERDIR/mpi_bench.mpich"; then
        if command -v mpirun.mpich >/dev/null; then
            PEER_CMD[mpi-mpich]="mpirun.mpich -n $NP $PEERDIR/mpi_bench.mpich"
            peer_status mpi-mpich built ""
        else peer_status mpi-mpich skipped "mpirun.mpich not found"; fi
    fi
    if build_peer oshmem oshcc "$ROOT/bench/peers/shmem_bench.c" "$PEERDIR/shmem_bench"; then
        if command -v oshrun >/dev/null; then
            PEER_CMD[oshmem]="oshrun --oversubscribe --bind-to none -np $NP $PEERDIR/shmem_bench"
            peer_status oshmem built "Open MPI's OpenSHMEM (oshcc/oshrun)"
        else peer_status oshmem skipped "oshrun not found"; fi
    fi
    if command -v ucx_perftest >/dev/null; then
        PEER_CMD[ucx]=ucx_perftest
        peer_status ucx built "ucx_perftest, UCX_TLS=sm,self"
    else peer_status ucx skipped "ucx_perftest not found (Debian ucx-utils)"; fi
fi
# GASNet-EX: the bench drivers themselves, compiled unchanged against an installed GASNet-EX
# with the flags its <conduit>-par.mak fragment prescribes (bench/gasnet.mk). smp is compared
# with rivet-shm; udp, with its shared memory off (GASNET_SUPERNODE_MAXSIZE=1), with rivet-ofi
# (RIVET_PSHM=0). GASNET_LAUNCH[c] starts NP ranks ("@NP@" is replaced by the job size).
declare -A GASNET_LAUNCH=()
if [ "$PEERS" = 1 ] && [ -n "$GASNET" ]; then
    for cnd in smp udp; do
        pre= mode=
        IFS=: read -r -a gdirs <<<"$GASNET"
        # par if installed, else parsync (the drivers call GASNet from one thread; an install
        # configured without --enable-par has only seq and parsync)
        for m in par parsync; do
            for d in "${gdirs[@]}"; do
                [ -f "$d/include/$cnd-conduit/$cnd-$m.mak" ] && { pre=$d; mode=$m; break 2; }
            done
        done
        if [ -z "$pre" ]; then peer_status "gasnet-ex-$cnd" skipped "no $cnd-conduit (par or parsync) in $GASNET"; continue; fi
        if ! make -f "$ROOT/bench/gasnet.mk" GASNET_PREFIX="$pre" CONDUIT=$cnd MODE=$mode \
                OUT="$PEERDIR/gasnet-ex-$cnd" >"$LOGS/build-gasnet-ex-$cnd.log" 2>&1; then
            peer_status "gasnet-ex-$cnd" skipped "build failed (logs/build-gasnet-ex-$cnd.log)"; continue
        fi
        ver=$(sed -n 's/^#define GASNET_RELEASE_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\).*/\2/p' \
              "$pre/include/gasnet_config.h" 2>/dev/null | paste -sd. -)
        if [ "$cnd" = smp ]; then
            if [ -x "$pre/bin/gasnetrun_smp" ]; then GASNET_LAUNCH[smp]="$pre/bin/gasnetrun_smp -n @NP@"
            else GASNET_LAUNCH[smp]="env GASNET_PSHM_NODES=@NP@"; fi
            peer_status gasnet-ex-smp built "GASNet-EX ${ver:-?} smp-$mode from $pre (make -f bench/gasnet.mk)"
        else
            if [ ! -x "$pre/bin/amudprun" ]; then peer_status gasnet-ex-udp skipped "no amudprun in $pre/bin"; continue; fi
            GASNET_LAUNCH[udp]="env GASNET_SUPERNODE_MAXSIZE=1 $pre/bin/amudprun -np @NP@ -spawn L"
            peer_status gasnet-ex-udp built "GASNet-EX ${ver:-?} udp-$mode from $pre, GASNET_SUPERNODE_MAXSIZE=1 (no shared memory), amudprun -spawn L"
        fi
        printf 'gasnet_ex_%s\t%s\n' "$cnd" "$pre" >>"$META"
    done
elif [ "$PEERS" = 1 ]; then
    peer_status gasnet-ex skipped "GASNET_PREFIX not set (make bench GASNET_PREFIX=/path/to/gasnet-ex)"
fi

# ---- running -----------------------------------------------------------------------------
# run SYSTEM GROUP ROUND NOTE cmd...: keeps every JSON line of stdout (also from a run that
# crashed afterwards: what was printed before the crash is valid) and records the status.
run() {
    local sys=$1 group=$2 round=$3 note=$4; shift 4
    local logf="$LOGS/$sys-$group-r$round.log" outf="$LOGS/$sys-$group-r$round.out"
    local t0; t0=$(date +%s.%N)
    timeout --kill-after=5 "$TIMEOUT" "$@" >"$outf" 2>"$logf"
    local rc=$?
    local secs; secs=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
    # each line also records where it came from, so the report can pair runs of one round
    grep '^{' "$outf" | sed "s/}\$/,\"round\":$round,\"group\":\"$group\"}/" >>"$RESULTS"
    local n; n=$(grep -c '^{' "$outf")
    local status=ok
    if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then status="timeout after ${TIMEOUT}s"
    elif [ $rc -ne 0 ]; then status="exit $rc"; fi
    if [ "$status" != ok ]; then
        local why; why=$(grep -m1 -iE 'fatal|error|signal|segmentation|abort' "$logf" | cut -c1-160 | tr '\t' ' ')
        [ "$sys" = oshmem ] && grep -q 'results complete' "$logf" &&
            why="crashed after printing its results (Debian oshmem crashes in shmem_finalize); ${why}"
        note="${note:+$note; }$n results kept; ${why}"
        log "$sys $group round $round: $status ($note)"
    fi
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$sys" "$group" "$round" "$status" "$note" "$secs" >>"$RUNS"
}

# Rivet runs name their transport, so the "rivet-shm" label is what was measured.
rivet() { # group round program args...
    local group=$1 round=$2; shift 2
    run rivet-shm "$group" "$round" "" env RIVET_TRANSPORT=shm "$RIVETRUN" --timeout "$TIMEOUT" \
        -n "$NP" "$BIN/$1" --system rivet-shm "${COMMON[@]}" "${@:2}"
}
# The reference RMA (every put/get over AM, RIVET_RMA=ref) next to the direct path, as the
# design asks: labelled config "ref".
rivet_ref() { # group round program args...
    local group=$1 round=$2; shift 2
    # every operation is an AM round trip here: a quarter of the iterations keeps it short
    run rivet-shm "$group-ref" "$round" "RIVET_RMA=ref" env RIVET_TRANSPORT=shm RIVET_RMA=ref \
        "$RIVETRUN" --timeout "$TIMEOUT" -n "$NP" "$BIN/$1" --system rivet-shm --config ref \
        "${COMMON[@]}" --scale 0.25 "${@:2}"
}
# Remote atomics (bench_amo): CPU atomics (config "") and the AM reference (RIVET_RATOMIC=ref,
# config "ref") side by side, at NP ranks, or at the given count for the hot spot.
rivet_amo() { # group round ratomic(auto|ref) np args...
    local group=$1 round=$2 cfg=$3 np=$4; shift 4
    local c=(); [ "$cfg" = ref ] && c=(--config ref --scale 0.25)
    run rivet-shm "$group-$cfg-np$np" "$round" "RIVET_RATOMIC=$cfg" env RIVET_TRANSPORT=shm \
        RIVET_RATOMIC="$cfg" "$RIVETRUN" --timeout "$TIMEOUT" -n "$np" "$BIN/bench_amo" \
        --system rivet-shm "${COMMON[@]}" "${c[@]}" "$@"
}
# Non-contiguous puts (bench_vis): the stride optimizer on (config "") and off (RIVET_VIS_OPT=0,
# "noopt"), on the direct mechanism and on AM pack/unpack (RIVET_VIS=ref: "ref", "ref-noopt").
rivet_vis() { # group round vis(auto|ref) opt(1|0) args...
    local group=$1 round=$2 vis=$3 opt=$4; shift 4
    local tag="" cfg=()
    [ "$vis" = ref ] && tag=ref
    [ "$opt" = 0 ] && tag=${tag:+$tag-}noopt
    [ -n "$tag" ] && cfg=(--config "$tag")
    [ "$vis" = ref ] && cfg+=(--scale 0.25)
    run rivet-shm "$group${tag:+-$tag}" "$round" "RIVET_VIS=$vis RIVET_VIS_OPT=$opt" env \
        RIVET_TRANSPORT=shm RIVET_VIS="$vis" RIVET_VIS_OPT="$opt" "$RIVETRUN" --timeout "$TIMEOUT" \
        -n "$NP" "$BIN/bench_vis" --system rivet-shm "${COMMON[@]}" "${cfg[@]}" "$@"
}
# MPI_Fetch_and_op in bench/peers/mpi_bench.c, at np ranks (MPI peers only: no OpenSHMEM run).
mpi_amo() { # group round np args...
    local group=$1 round=$2 np=$3; shift 3
    local s cmd sc=(--scale 0.2)
    # more ranks than cores: MPI busy-polls, every operation waits for time slices (MPICH: ms)
    [ "$np" -gt "$(nproc 2>/dev/null || echo 2)" ] && { [ "$round" = 1 ] || return 0; sc=(--scale 0.05); }
    for s in mpi-openmpi mpi-openmpi+ucx mpi-mpich; do
        [ -n "${PEER_CMD[$s]:-}" ] || continue
        local sys=${s%+*} cfg=()
        [ "$s" != "$sys" ] && cfg=(--config "${s#*+}")
        cmd=${PEER_CMD[$s]/-np $NP /-np $np }; cmd=${cmd/-n $NP /-n $np }
        # MPI atomics cost 1..50 us each here (up to 50x Rivet's): a fifth of the iterations
        # shellcheck disable=SC2086
        run "$s" "$group-np$np" "$round" "" $cmd --system "$sys" "${cfg[@]}" "${COMMON[@]}" \
            "${sc[@]}" "$@"
    done
}
# Collectives (bench_coll: barrier, allreduce, broadcast) at np ranks; groups "coll-np<N>" keep
# them out of the 2-rank tables (bench_report.py gives them their own table).
rivet_coll() { # round np args...
    local round=$1 np=$2; shift 2
    run rivet-shm "coll-np$np" "$round" "" env RIVET_TRANSPORT=shm "$RIVETRUN" --timeout "$TIMEOUT" \
        -n "$np" "$BIN/bench_coll" --system rivet-shm "${COMMON[@]}" "$@"
}
# MPI_Barrier, MPI_Allreduce and MPI_Bcast from mpi_bench.c at np ranks. MPI busy-polls: with
# more ranks than cores every call waits for time slices (ms), so those runs use 0.5% of the
# iterations and only the first round (MPICH's barrier then takes ~13 ms).
mpi_coll() { # round np args...
    local round=$1 np=$2; shift 2
    local s cmd sc=()
    [ "$np" -gt "$(nproc 2>/dev/null || echo 2)" ] && { [ "$round" = 1 ] || return 0; sc=(--scale 0.005); }
    for s in mpi-openmpi mpi-openmpi+ucx mpi-mpich; do
        [ -n "${PEER_CMD[$s]:-}" ] || continue
        local sys=${s%+*} cfg=()
        [ "$s" != "$sys" ] && cfg=(--config "${s#*+}")
        cmd=${PEER_CMD[$s]/-np $NP /-np $np }; cmd=${cmd/-n $NP /-n $np }
        # shellcheck disable=SC2086
        run "$s" "coll-np$np" "$round" "" $cmd --system "$sys" "${cfg[@]}" "${COMMON[@]}" "${sc[@]}" \
            --only barrier,allreduce,broadcast "$@"
    done
}
# The ofi transport (libfabric) between 2 ranks on this host: RIVET_PSHM=0 makes every rank its
# own neighbourhood, so everything crosses the network stack ("rivet-ofi"), next to the raw
# libfabric yardstick bench/ofi_raw (same provider choice, "libfabric-raw"); AM Long with both
# protocols (configs "sync" and "reassembly").
rivet_ofi() { # group round config(""|sync|reassembly) program args...
    local group=$1 round=$2 cfg=$3; shift 3
    local c=() e=()
    [ -n "$cfg" ] && { c=(--config "$cfg"); e=(RIVET_AMLONG="$cfg"); }
    run rivet-ofi "$group${cfg:+-$cfg}" "$round" "${e[*]}" env RIVET_PSHM=0 RIVET_TRANSPORT=ofi \
        RIVET_VERBOSE=1 "${e[@]}" "$RIVETRUN" --timeout "$TIMEOUT" -n 2 "$BIN/$1" --system rivet-ofi \
        "${c[@]}" "${COMMON[@]}" "${@:2}"
    # the provider Rivet chose (RIVET_VERBOSE=1), for the report; ofi_raw names its own per result
    if [ "$round" = 1 ] && [ "$group" = ofi ]; then
        local prov; prov=$(grep -m1 -o 'rivet\[0\]: ofi: provider [^,]*' "$LOGS/rivet-ofi-$group-r$round.log" |
            sed 's/.*provider //')
        [ -n "$prov" ] && printf 'ofi_provider_rivet\t%s\n' "$prov" >>"$META"
    fi
}
# bench_amo over ofi (2 ranks, RIVET_PSHM=0): config "auto" (RIVET_RATOMIC=auto: native
# atomics if the transport offers them, else the AM reference) or "ref".
rivet_ofi_amo() { # round ratomic(auto|ref)
    local round=$1 cfg=$2
    run rivet-ofi "amo-$cfg" "$round" "RIVET_RATOMIC=$cfg" env RIVET_PSHM=0 RIVET_TRANSPORT=ofi \
        RIVET_RATOMIC="$cfg" RIVET_VERBOSE=1 "$RIVETRUN" --timeout "$TIMEOUT" -n 2 \
        "$BIN/bench_amo" --system rivet-ofi --config "$cfg" "${COMMON[@]}" --scale 0.1 \
        --only amo_fadd_latency,amo_fadd_throughput
    # which implementation gex_AD_Create chose (RIVET_VERBOSE=1), for the report
    local impl; impl=$(grep -m1 'rivet\[0\]: gex_AD_Create: GEX_DT_U64' "$LOGS/rivet-ofi-amo-$cfg-r$round.log" |
        sed 's/.*flags 0x[0-9a-f]*: //' | tr '\t' ' ')
    [ "$round" = 1 ] && [ -n "$impl" ] && printf 'ofi_ratomic_%s\t%s\n' "$cfg" "$impl" >>"$META"
}
# The same driver built against GASNet-EX's conduit c (smp or udp), at np ranks.
gasnet_np() { # conduit np group round program args...
    local cnd=$1 np=$2 group=$3 round=$4 prog=$5; shift 5
    [ -n "${GASNET_LAUNCH[$cnd]:-}" ] || return 0
    local launch=${GASNET_LAUNCH[$cnd]//@NP@/$np}
    # shellcheck disable=SC2086
    run "gasnet-ex-$cnd" "$group" "$round" "" $launch "$PEERDIR/gasnet-ex-$cnd/$prog" \
        --system "gasnet-ex-$cnd" "${COMMON[@]}" "$@"
}
gasnet() { # conduit group round program args... (NP ranks)
    local cnd=$1; shift
    gasnet_np "$cnd" "$NP" "$@"
}
# bench_np and bench_imm at np ranks over shm (rivet-shm) or ofi (rivet-ofi, RIVET_PSHM=0).
rivet_np() { # transport(shm|ofi) np group round program args...
    local t=$1 np=$2 group=$3 round=$4 prog=$5; shift 5
    local e=("RIVET_TRANSPORT=$t")
    [ "$t" = ofi ] && e+=(RIVET_PSHM=0)
    run "rivet-$t" "$group" "$round" "" env "${e[@]}" "$RIVETRUN" --timeout "$TIMEOUT" -n "$np" \
        "$BIN/$prog" --system "rivet-$t" "${COMMON[@]}" "$@"
}
# The udp transport between 2 ranks on this host with RIVET_PSHM=0 ("rivet-udp"), next to raw
# kernel UDP sockets (bench/udp_raw, "udp-raw"), rivet-ofi and GASNet-EX's udp conduit. Numbers
# and ratios: docs/benchmarks.md, "udp transport".
rivet_udp() { # group round program args...
    local group=$1 round=$2; shift 2
    run rivet-udp "$group" "$round" "" env RIVET_PSHM=0 RIVET_TRANSPORT=udp "$RIVETRUN" \
        --timeout "$TIMEOUT" -n 2 "$BIN/$1" --system rivet-udp "${COMMON[@]}" "${@:2}"
}
udp_raw() { # group round args...
    local group=$1 round=$2; shift 2
    run udp-raw "$group" "$round" "" "$BIN/udp_raw" --system udp-raw "${COMMON[@]}" "$@"
}
ofi_raw() { # group round args...
    local group=$1 round=$2; shift 2
    run libfabric-raw "$group" "$round" "" "$BIN/ofi_raw" --system libfabric-raw "${COMMON[@]}" "$@"
}
limits() { # group round args...
    local group=$1 round=$2; shift 2
    run limit "$group" "$round" "" "$BIN/bench_limits" --system limit "${COMMON[@]}" "$@"
}
mpi_peers() { # group round args...
    local group=$1 round=$2; shift 2
    local s
    for s in mpi-openmpi mpi-openmpi+ucx mpi-mpich; do
        [ -n "${PEER_CMD[$s]:-}" ] || continue
        local sys=${s%+*} cfg=()
        [ "$s" != "$sys" ] && cfg=(--config "${s#*+}")
        # shellcheck disable=SC2086
        run "$s" "$group" "$round" "" ${PEER_CMD[$s]} --system "$sys" "${cfg[@]}" "${COMMON[@]}" "$@"
    done
    if [ -n "${PEER_CMD[oshmem]:-}" ] && [ "$group" != inject ]; then
        # shellcheck disable=SC2086
        run oshmem "$group" "$round" "" ${PEER_CMD[oshmem]} --system oshmem "${COMMON[@]}" "$@"
    fi
}

UCX_PORT=$(( 20000 + $$ % 20000 ))
# ucx_one TEST SIZE ITERS BENCH VARIANT FACTOR KIND(lat|bw) ROUND: one server+client pair.
ucx_one() {
    local t=$1 s=$2 n=$3 bench=$4 variant=$5 factor=$6 kind=$7 round=$8
    UCX_PORT=$((UCX_PORT + 1))
    local logf="$LOGS/ucx-$t-$s-r$round.log" t0; t0=$(date +%s.%N)
    local tls=${UCX_ONE_TLS:-sm,self} sys=${UCX_ONE_SYSTEM:-ucx} grp=${UCX_ONE_GROUP:-ucx}
    logf="$LOGS/$sys-$t-$s-r$round.log"
    UCX_TLS=$tls timeout 60 ucx_perftest -p "$UCX_PORT" >"$logf.server" 2>&1 &
    local spid=$!
    sleep 0.3
    UCX_TLS=$tls timeout 60 ucx_perftest 127.0.0.1 -p "$UCX_PORT" -t "$t" -s "$s" -n "$n" \
        -w $((n / 10 + 1)) >"$logf" 2>&1
    local rc=$?
    kill "$spid" 2>/dev/null; wait "$spid" 2>/dev/null
    local secs; secs=$(echo "$t0 $(date +%s.%N)" | awk '{printf "%.1f", $2 - $1}')
    # Final: iters  lat50 lat_avg lat_overall  bw_avg bw_overall  mr_avg mr_overall
    local line; line=$(grep -m1 '^Final:' "$logf")
    if [ -z "$line" ]; then
        local why; why=$(grep -m1 -iE 'error|fail' "$logf" | cut -c1-160 | tr '\t' ' ')
        printf '%s\t%s\t%s\texit %s\t%s\t%s\n' "$sys" "$t-$s" "$round" "$rc" "no result; $why" "$secs" >>"$RUNS"
        return
    fi
    # value/median: the run's overall mean; best: its best report interval (perftest prints one
    # per second: "[thread 0] iters p50 avg overall bw_avg bw_overall ...", the analogue of a
    # Rivet trial's mean); p50: the per-operation median latency perftest reports. The sample
    # (what the report's best/median see) is the overall mean, or with UCX_ONE_BEST=1 the best
    # interval (the ucx group: its table compares with Rivet's best trial)
    grep -E '^(\[thread [0-9]+\]|Final:)' "$logf" | sed 's/^\[thread [0-9]*\]/T/' | \
    awk -v b="$bench" -v v="$variant" -v f="$factor" -v k="$kind" -v s="$s" -v np=2 -v r="$round" \
        -v sys="$sys" -v g="$grp" -v sb="${UCX_ONE_BEST:-0}" '
        { lat = $4 * f; bw = $6 * 1.048576 * f;            # perftest MB/s are MiB/s
          x = (k == "lat") ? lat : bw
          if (n == 0 || (k == "lat" ? x < best : x > best)) best = x
          n++ }
        $1 == "Final:" { val = (k == "lat") ? $5 * f : $7 * 1.048576 * f; p50 = $3 * f; it = $2 }
        END {
        smp = sb == 1 ? best : val
        unit = (k == "lat") ? "us" : "MB/s"; metric = (k == "lat") ? "latency" : "bandwidth";
        printf "{\"benchmark\":\"%s\",\"system\":\"%s\",\"ranks\":%d,\"size\":%d,\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"trials\":1,\"variant\":\"%s\",\"median\":%.6g,\"min\":%.6g,\"max\":%.6g,\"best\":%.6g,\"p50\":%.6g,\"iters\":%d,\"samples\":[%.6g],\"round\":%d,\"group\":\"%s\"}\n",
               b, sys, np, s, metric, val, unit, v, val, val, val, best, p50, it, smp, r, g }' >>"$RESULTS"
    printf '%s\t%s\t%s\tok\t\t%s\n' "$sys" "$t-$s" "$round" "$secs" >>"$RUNS"
}
ucx_peer() { # group round
    [ -n "${PEER_CMD[ucx]:-}" ] || return 0
    local group=$1 round=$2 s n
    for s in 8 4096 65536 1048576; do
        n=$(( s <= 8 ? 20000 : (s <= 4096 ? 10000 : (s <= 65536 ? 2000 : 200)) ))
        case $group in
            lat) ucx_one ucp_put_lat "$s" "$n" put_latency pingpong_half_rtt 1 lat "$round" ;;
            bw)  ucx_one ucp_put_bw "$s" "$n" put_bw ucp_put_bw 1 bw "$round"
                 ucx_one ucp_get "$s" "$n" get_bw ucp_get 1 bw "$round" ;;
            am)  [ "$s" -le 65536 ] && ucx_one ucp_am_lat "$s" "$n" am_medium_rtt ucp_am_lat_x2 2 lat "$round" ;;
        esac
    done
}

# The ucx transport between 2 ranks on this host over UCX_TLS=tcp with RIVET_PSHM=0
# ("rivet-ucx"), next to ucx_perftest on the same TLS ("ucx-tcp": ucp_am_lat, ucp_put_lat,
# ucp_put_bw, ucp_get). Numbers and ratios: docs/benchmarks.md, "ucx transport".
rivet_ucx() { # group round program args...
    local group=$1 round=$2; shift 2
    run rivet-ucx "$group" "$round" "UCX_TLS=tcp" env RIVET_PSHM=0 RIVET_TRANSPORT=ucx UCX_TLS=tcp \
        "$RIVETRUN" --timeout "$TIMEOUT" -n 2 "$BIN/$1" --system rivet-ucx "${COMMON[@]}" "${@:2}"
}
ucx_tcp_peer() { # round
    command -v ucx_perftest >/dev/null || return 0
    local round=$1 s n
    for s in 8 4096 65536 1048576; do
        n=$(( s <= 8 ? 5000 : (s <= 65536 ? 1000 : 300) ))
        UCX_ONE_TLS=tcp UCX_ONE_SYSTEM=ucx-tcp UCX_ONE_GROUP=ucx UCX_ONE_BEST=1 \
            ucx_one ucp_put_lat "$s" "$n" put_latency pingpong_half_rtt 1 lat "$round"
        UCX_ONE_TLS=tcp UCX_ONE_SYSTEM=ucx-tcp UCX_ONE_GROUP=ucx UCX_ONE_BEST=1 \
            ucx_one ucp_put_bw "$s" "$n" put_bw ucp_put_bw 1 bw "$round"
        UCX_ONE_TLS=tcp UCX_ONE_SYSTEM=ucx-tcp UCX_ONE_GROUP=ucx UCX_ONE_BEST=1 \
            ucx_one ucp_get "$s" "$n" get_bw ucp_get 1 bw "$round"
        [ "$s" -le 4096 ] && UCX_ONE_TLS=tcp UCX_ONE_SYSTEM=ucx-tcp UCX_ONE_GROUP=ucx UCX_ONE_BEST=1 \
            ucx_one ucp_am_lat "$s" "$n" am_short_rtt ucp_am_lat_x2 2 lat "$round"
    done
}

want() { [ -z "$BGROUPS" ] || [[ ",$BGROUPS," == *",$1,"* ]]; } # --groups
SIZES=()
[ "$SMOKE" = 1 ] || SIZES=(--max-size 4M)
for ((r = 1; r <= ROUNDS; r++)); do
  if want lat; then
    log "round $r/$ROUNDS: latency"
    rivet lat "$r" bench_rma --only put_latency,get_latency "${SIZES[@]}"
    gasnet smp lat "$r" bench_rma --only put_latency,get_latency "${SIZES[@]}"
    [ "$SMOKE" = 1 ] || rivet_ref lat "$r" bench_rma --only put_latency:blocking,get_latency:blocking "${SIZES[@]}"
    limits lat "$r" --only limit_cacheline_rtt
    [ "$PEERS" = 1 ] && { mpi_peers lat "$r" --only put_latency,get_latency "${SIZES[@]}"; ucx_peer lat "$r"; }
  fi
  if want bw; then
    log "round $r/$ROUNDS: bandwidth"
    rivet bw "$r" bench_rma --only put_bw,get_bw "${SIZES[@]}"
    gasnet smp bw "$r" bench_rma --only put_bw,get_bw "${SIZES[@]}"
    [ "$SMOKE" = 1 ] || rivet_ref bw "$r" bench_rma --only put_bw:nbi_bulk,put_bw:nbi,get_bw:nbi "${SIZES[@]}"
    limits bw "$r" --only limit_memcpy_bw "${SIZES[@]}"
    [ "$PEERS" = 1 ] && { mpi_peers bw "$r" --only put_bw,get_bw "${SIZES[@]}"; ucx_peer bw "$r"; }
  fi
  if want am; then
    log "round $r/$ROUNDS: active messages"
    rivet am "$r" bench_am
    gasnet smp am "$r" bench_am
    limits am "$r" --only limit_cacheline_rtt,limit_copy_rtt
    [ "$PEERS" = 1 ] && { mpi_peers am "$r" --only am_short_rtt,am_medium_rtt,am_medium_flood; ucx_peer am "$r"; }
  fi
  if want inject; then
    log "round $r/$ROUNDS: injection overhead"
    rivet inject "$r" bench_inject
    gasnet smp inject "$r" bench_inject
    [ "$PEERS" = 1 ] && mpi_peers inject "$r" --only inject_overhead
  fi
  if want barrier; then
    log "round $r/$ROUNDS: barrier"
    rivet barrier "$r" bench_barrier --max-size 64K
    gasnet smp barrier "$r" bench_barrier --max-size 64K
    [ "$PEERS" = 1 ] && mpi_peers barrier "$r" --only barrier
  fi
  if want coll; then
    log "round $r/$ROUNDS: collectives (np 2 and 4)"
    CSIZES=(); [ "$SMOKE" = 1 ] || CSIZES=(--max-size 1M)
    for cnp in 2 4; do
        rivet_coll "$r" "$cnp" "${CSIZES[@]}"
        # GASNet-EX's smp waits busy-poll like MPI's: at more ranks than cores only round 1
        # with 0.5% of the iterations, else a quarter (a full run took > 300 s at load 25)
        if [ "$cnp" -gt "$(nproc 2>/dev/null || echo 2)" ]; then
            [ "$r" = 1 ] && gasnet_np smp "$cnp" "coll-np$cnp" "$r" bench_coll "${CSIZES[@]}" --scale 0.005
        else
            gasnet_np smp "$cnp" "coll-np$cnp" "$r" bench_coll "${CSIZES[@]}" --scale 0.25
        fi
        [ "$PEERS" = 1 ] && mpi_coll "$r" "$cnp" "${CSIZES[@]}"
    done
  fi
  if want amo; then
    # hot spot at 1, 2, 4 and 8 ranks (on 2 cores, 4 and 8 ranks time-share: Rivet's waits
    # yield; MPI's busy-poll, so MPI runs them in the first round only, see mpi_amo)
    log "round $r/$ROUNDS: remote atomics"
    # rank 0 to rank 1: fetch-add, fetching compare-and-swap, swap; every type
    AMO_PAIR=amo_fadd_latency,amo_fadd_throughput,amo_fcas_latency,amo_fcas_throughput
    AMO_PAIR+=,amo_swap_latency,amo_swap_throughput
    for cfg in auto ref; do
        rivet_amo amo "$r" "$cfg" "$NP" --only "$AMO_PAIR"
        [ "$cfg" = auto ] && gasnet smp amo "$r" bench_amo --only "$AMO_PAIR"
        for k in 1 2 4 8; do rivet_amo amo_hotspot "$r" "$cfg" "$k" --only amo_hotspot; done
    done
    if [ "$PEERS" = 1 ]; then
        mpi_amo amo "$r" "$NP" --only amo_fadd_latency,amo_fadd_throughput
        for k in 1 2 4 8; do mpi_amo amo_hotspot "$r" "$k" --only amo_hotspot; done
    fi
  fi
    # over TCP loopback each run takes tens of seconds: the first two rounds only
    if want ofi && [ -x "$BIN/ofi_raw" ] && [ "$r" -le 2 ]; then
        log "round $r/$ROUNDS: network transport (ofi) and raw libfabric"
        # TCP loopback costs 20-200 us per round trip here: a tenth of the iterations
        OFI_SIZES=(--max-size 1M --scale 0.1); [ "$SMOKE" = 1 ] && OFI_SIZES=(--max-size 4K)
        rivet_ofi ofi "$r" "" bench_rma --only put_latency:blocking,put_bw:nbi_bulk "${OFI_SIZES[@]}"
        ofi_raw ofi "$r" --only put_latency,put_rtt,msg_rtt,put_bw "${OFI_SIZES[@]}"
        gasnet udp ofi "$r" bench_rma --only put_latency:blocking,put_bw:nbi_bulk "${OFI_SIZES[@]}"
        rivet_ofi ofi-am "$r" "" bench_am --only am_short_rtt --scale 0.1
        gasnet udp ofi-am "$r" bench_am --only am_short_rtt --scale 0.1
        for proto in sync reassembly; do
            rivet_ofi ofi-amlong "$r" "$proto" bench_am --only am_long_rtt,am_long_flood \
                --min-size 16K "${OFI_SIZES[@]}"
        done
        # remote atomics over ofi: auto (the transport's native atomics when the provider has
        # them, else the AM reference over ofi) and ref (RIVET_RATOMIC=ref)
        for cfg in auto ref; do rivet_ofi_amo "$r" "$cfg"; done
    fi

    if want udp && [ -x "$BIN/udp_raw" ]; then
        log "round $r/$ROUNDS: network transport (udp), raw UDP sockets, ofi, GASNet-EX udp"
        UDP_SIZES=(--max-size 1M --scale 0.1); [ "$SMOKE" = 1 ] && UDP_SIZES=(--max-size 4K)
        udp_raw udp "$r" "${UDP_SIZES[@]}"
        rivet_udp udp-am "$r" bench_am --only am_short_rtt --scale 0.1
        gasnet udp udp-am "$r" bench_am --only am_short_rtt --scale 0.1
        rivet_udp udp "$r" bench_rma --only put_latency:blocking,put_bw:nbi_bulk "${UDP_SIZES[@]}"
        gasnet udp udp "$r" bench_rma --only put_latency:blocking,put_bw:nbi_bulk "${UDP_SIZES[@]}"
        # rivet-ofi in the same round unless the ofi group measures it anyway
        if ! want ofi && [ -x "$BIN/ofi_raw" ]; then
            rivet_ofi udp-ofi "$r" "" bench_rma --only put_latency:blocking,put_bw:nbi_bulk "${UDP_SIZES[@]}"
            rivet_ofi udp-ofi-am "$r" "" bench_am --only am_short_rtt --scale 0.1
        fi
    fi

    # (every round when the ucx group runs alone: its report table is best of the rounds)
    if want ucx && "$BUILD/bin/rivet-info" --transports 2>/dev/null | grep -qE "^ *ucx .*(accepts|declines)" &&
       { [ "$r" -le 2 ] || [ "$BGROUPS" = ucx ]; }; then
        log "round $r/$ROUNDS: network transport (ucx, UCX_TLS=tcp) and ucx_perftest"
        UCX_SIZES=(--max-size 1M --scale 0.1); [ "$SMOKE" = 1 ] && UCX_SIZES=(--max-size 4K)
        rivet_ucx ucx "$r" bench_rma --only put_latency:blocking,put_bw:nbi_bulk,get_bw "${UCX_SIZES[@]}"
        rivet_ucx ucx-am "$r" bench_am --only am_short_rtt --scale 0.1
        [ "$PEERS" = 1 ] && ucx_tcp_peer "$r"
    fi

  if want np; then
    # the Aries seed's Figure 1: AM Medium ping-pong, payload generated in place, negotiated
    # (np) vs fixed (fp) payload, 0 B to the largest Medium; both variants alternate per trial
    log "round $r/$ROUNDS: negotiated vs fixed payload AM Medium"
    NP_SIZES=(); [ "$SMOKE" = 1 ] || NP_SIZES=(--max-size 1M)
    # (a quarter of the iterations: the sweep has 18 sizes and two variants)
    rivet_np shm "$NP" np "$r" bench_np "${NP_SIZES[@]}" --scale 0.25
    gasnet smp np "$r" bench_np "${NP_SIZES[@]}" --scale 0.25
    if [ "$r" -le 2 ] && [ -x "$BIN/ofi_raw" ]; then
        rivet_np ofi 2 np-net "$r" bench_np "${NP_SIZES[@]}" --scale 0.1
        gasnet_np udp 2 np-net "$r" bench_np "${NP_SIZES[@]}" --scale 0.1
    fi
  fi
  if want imm; then
    # the Aries seed's Figure 2 (GASNet's testimm method): static vs IMMEDIATE schedules
    # towards receivers that sleep 500 us between polls, 1 and 3 receivers
    log "round $r/$ROUNDS: IMMEDIATE vs static schedules, inattentive receivers"
    for inp in 2 4; do
        rivet_np shm "$inp" "imm-np$inp" "$r" bench_imm
        gasnet_np smp "$inp" "imm-np$inp" "$r" bench_imm
        if [ "$r" -le 2 ] && [ -x "$BIN/ofi_raw" ]; then
            rivet_np ofi "$inp" "imm-net-np$inp" "$r" bench_imm --scale 0.25
            gasnet_np udp "$inp" "imm-net-np$inp" "$r" bench_imm --scale 0.25
        fi
    done
  fi
  if want vis; then
    # the regions span 4x the payload: an 8 MiB area gives the seed's 2 MiB payloads
    log "round $r/$ROUNDS: VIS (non-contiguous puts)"
    VIS_SIZES=(); [ "$SMOKE" = 1 ] || VIS_SIZES=(--max-size 8M)
    for vis in auto ref; do
        for opt in 1 0; do rivet_vis vis "$r" "$vis" "$opt" "${VIS_SIZES[@]}"; done
    done
  fi
done

log "$(wc -l <"$RESULTS") measurements in $RESULTS"
printf 'load_end\t%s\nseconds\t%s\n' "$(loadavg)" "$(( $(date +%s) - T_START ))" >>"$META"
if [ -n "$PY" ]; then
    rep_args=(--out "$OUT" --rounds "$ROUNDS")
    [ "$SMOKE" = 1 ] && rep_args+=(--smoke)
    "$PY" "$ROOT/scripts/bench_report.py" "${rep_args[@]}" || { log "report generation failed"; exit 1; }
    log "report: $OUT/report.md"
else
    log "no python3: results only, no report"
fi
# The suite reports; it fails only when Rivet itself did not run cleanly.
if grep -P '^rivet-(shm|ofi|udp)\t' "$RUNS" | cut -f4 | grep -qv '^ok$'; then
    log "some Rivet runs failed (see $RUNS)"; exit 1
fi
exit 0
