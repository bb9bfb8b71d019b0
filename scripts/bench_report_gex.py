# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench_report_gex.py: the report sections for the GASNet-EX peers (Rivet/GASNet-EX
# ratio table) and for the Aries seed's two experiments (bench_np: negotiated vs fixed payload;
# bench_imm: static vs IMMEDIATE schedules). Imported by bench_report.py.
import json
import os
import statistics
from collections import defaultdict

GX_SMP, GX_UDP = "gasnet-ex-smp", "gasnet-ex-udp"
RIVET_SHM, RIVET_UDP, RIVET_OFI = "rivet-shm", "rivet-udp", "rivet-ofi"
# Rivet's network transport on an Ethernet host is udp; ofi there is libfabric's tcp;ofi_rxm
PAIRS = (("shared memory", RIVET_SHM, GX_SMP),
         ("network, udp (no shared memory)", RIVET_UDP, GX_UDP),
         ("network, ofi (no shared memory)", RIVET_OFI, GX_UDP))

# (label, benchmark, variant, size, metric, unit); variant None = best over variants
SHM_ROWS = [
    ("barrier (bench_barrier: gex_Coll_BarrierNB + wait)", "barrier", None, 0, "latency", "us"),
    ("8 B PutBlocking", "put_latency", "blocking", 8, "latency", "us"),
    ("8 B GetBlocking", "get_latency", "blocking", 8, "latency", "us"),
    ("U64 fetch-add latency", "amo_fadd_latency", "u64", 8, "latency", "us"),
    ("U64 fetch-add throughput", "amo_fadd_throughput", "u64", 8, "rate", "Mops/s"),
    ("AM Short round trip", "am_short_rtt", None, 0, "latency", "us"),
    ("AM Medium 0 B round trip", "am_medium_rtt", None, 0, "latency", "us"),
    ("AM Medium 4 KiB round trip", "am_medium_rtt", None, 4096, "latency", "us"),
    ("AM Long 4 KiB round trip", "am_long_rtt", None, 4096, "latency", "us"),
    ("AM Medium 8 B one-way flood", "am_medium_flood", None, 8, "rate", "Mmsg/s"),
    ("AM Medium 4 KiB round trip, payload generated in place (NP)", "am_medium_gen_rtt", "np",
     4096, "latency", "us"),
    ("put flood 1 MiB (nbi_bulk)", "put_bw", "nbi_bulk", 1 << 20, "bandwidth", "MB/s"),
    ("get flood 1 MiB (nbi)", "get_bw", "nbi", 1 << 20, "bandwidth", "MB/s"),
]
NET_ROWS = [
    ("8 B PutBlocking", "put_latency", "blocking", 8, "latency", "us"),
    ("AM Short round trip", "am_short_rtt", None, 0, "latency", "us"),
    ("AM Medium 4 KiB round trip, payload generated in place (NP)", "am_medium_gen_rtt", "np",
     4096, "latency", "us"),
    ("put flood 1 MiB (nbi_bulk)", "put_bw", "nbi_bulk", 1 << 20, "bandwidth", "MB/s"),
]


def pairs_with(has):
    """The PAIRS to print a per-system table for, given has(system): those whose Rivet system
    has data, and a GASNet-EX peer alone only when no pair that names it has its Rivet side."""
    out = [p for p in PAIRS if has(p[1])]
    for p in PAIRS:
        if not has(p[1]) and has(p[2]) and not any(q[2] == p[2] for q in out):
            out.append(p)
    return out


def read_results(path, on_bad=None):
    """The JSON objects of a results file (one a line; other lines are skipped, and an
    unparsable object calls on_bad()). A missing file has none."""
    if not os.path.exists(path):
        return
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line.startswith("{"):
                continue
            try:
                r = json.loads(line)
            except ValueError:
                if on_bad:
                    on_bad()
                continue
            yield r


def section(title, rows, note=None, blank_after=True):
    """A report section: heading, optional note paragraph, the rows; none without rows."""
    if not rows:
        return []
    L = [title, ""]
    if note:
        L += [note, ""]
    return L + list(rows) + ([""] if blank_after else [])


def gasnet_table(st, fmt, ratio):
    """Rivet vs GASNet-EX, the same drivers compiled against each, run interleaved."""
    if not any(GX_SMP in st.systems(b) or GX_UDP in st.systems(b) for b in
               ("barrier", "put_latency", "am_short_rtt", "am_medium_gen_rtt")):
        return []
    L = ["## Rivet vs GASNet-EX (the same drivers compiled against each, interleaved)", "",
         "Rivet/GASNet is the ratio of bests (and of medians): for latencies < 1 means Rivet is "
         "faster, for rates and bandwidths > 1. `gasnet-ex-smp` runs next to `rivet-shm`; "
         "`gasnet-ex-udp` (GASNET_SUPERNODE_MAXSIZE=1) next to `rivet-udp` and `rivet-ofi` "
         "(RIVET_PSHM=0; on a host without a fabric device ofi is libfabric's tcp;ofi_rxm). "
         "Barrier at 4 ranks: the collectives table.", "",
         "| transport | measurement | unit | GASNet-EX best (median) | Rivet best (median) "
         "| Rivet/GASNet best | Rivet/GASNet median | Rivet ahead |",
         "|---|---|---|---|---|---|---|---|"]
    n = 0
    for (kind, riv, gx), rows in zip(PAIRS, (SHM_ROWS, NET_ROWS, NET_ROWS)):
        for label, bench, var, size, metric, unit in rows:
            g = st.stat(bench, gx, var, "", size, metric)
            r = st.stat(bench, riv, var, "", size, metric)
            if not g or not r:
                continue
            n += 1
            qb, qm = ratio(r["best"], g["best"]), ratio(r["median"], g["median"])
            ahead = "-" if qb is None else ("yes" if (qb <= 1.0 if unit == "us" else qb >= 1.0)
                                           else "**no**")
            L.append("| %s | %s | %s | %s (%s) | %s (%s) | %s | %s | %s |" % (
                kind, label, unit, fmt(g["best"], unit), fmt(g["median"], unit),
                fmt(r["best"], unit), fmt(r["median"], unit), fmt(qb), fmt(qm), ahead))
    L.append("")
    return L if n else []


def np_tables(st, fmt, fmt_size, ratio):
    """bench_np: FP time / NP time per system (the seed's Figure 1 normalisation: > 1 means
    the negotiated payload is faster), and Rivet/GASNet-EX for the NP round trip."""
    L = []
    for kind, riv, gx in pairs_with(lambda s: s in st.systems("am_medium_gen_rtt")):
        systems = [s for s in (riv, gx) if s in st.systems("am_medium_gen_rtt")]
        if not systems:
            continue
        sizes = sorted({z for s in systems for z in st.sizes("am_medium_gen_rtt", s, "latency")})
        head = ["size"]
        for s in systems:
            head += ["%s FP best" % s, "%s NP best" % s, "%s FP/NP best (median)" % s]
        if len(systems) == 2:
            head += ["NP Rivet/GASNet best"]
        L += ["### %s (round trip, us)" % kind, "", "| " + " | ".join(head) + " |",
              "|" + "---|" * len(head)]
        for z in sizes:
            row = [fmt_size(z)]
            npb = {}
            for s in systems:
                f = st.stat("am_medium_gen_rtt", s, "fp", "", z, "latency")
                p = st.stat("am_medium_gen_rtt", s, "np", "", z, "latency")
                npb[s] = p and p["best"]
                row += [fmt(f and f["best"]), fmt(p and p["best"]),
                        "%s (%s)" % (fmt(ratio(f and f["best"], p and p["best"])),
                                     fmt(ratio(f and f["median"], p and p["median"])))]
            if len(systems) == 2:
                row.append(fmt(ratio(npb[riv], npb[gx])))
            L.append("| " + " | ".join(row) + " |")
        L.append("")
    if not L:
        return []
    return ["## Negotiated vs fixed payload AM Medium, payload generated in place (seed Figure 1)", "",
            "bench_np: AM Medium ping-pong, request and reply the same way. NP = "
            "gex_AM_Prepare{Request,Reply}Medium with no buffer, consecutive integers written into "
            "the buffer it returns, then Commit; FP = the same integers written into a buffer of "
            "our own, then gex_AM_{Request,Reply}Medium. Trials alternate FP and NP. FP/NP > 1 "
            "means the negotiated payload is faster (the seed: Aries NP up to 6% faster at 4 KiB, "
            "14% at 64 KiB). Every message's first and last words are checked.", ""] + L


def _imm_lines(path):
    vals = defaultdict(list)
    fails = defaultdict(int)
    for r in read_results(path):
        if not str(r.get("benchmark", "")).startswith("imm_"):
            continue
        key = (r["system"], int(r["ranks"]), r["benchmark"], r.get("variant", ""))
        vals[key].extend(float(x) for x in (r.get("samples") or [r["value"]]))
        fails[key] += int(r.get("imm_fails", 0))
    return vals, fails


def imm_tables(path, fmt, ratio):
    """bench_imm: per (operation, block, job size) the static and IMMEDIATE schedules' time per
    message (median), the seed's reduction 100 (Ts - Td) / Ts, and Rivet/GASNet-EX."""
    vals, fails = _imm_lines(path)
    if not vals:
        return []
    L = ["## IMMEDIATE vs static schedules, inattentive receivers (seed Figure 2, testimm's method)", "",
         "bench_imm: rank 0 sends M messages of 4 KiB to every other rank (M = 20000 / receivers, "
         "a quarter of that over the network); receivers sleep 500 us between polls. Blocks of B "
         "per receiver: full (B = M), b5, cyclic (B = 1). static: no flags; imm: "
         "GEX_FLAG_IMMEDIATE, on backpressure one poll and one retry, then the rest of the block "
         "is deferred. Values: us per message, median over trials and rounds. reduction = "
         "100 (Ts - Td) / Ts (> 0: IMMEDIATE helps). fails = IMMEDIATE operations that reported "
         "backpressure (all trials).", ""]
    ops = ("imm_am_medium", "imm_am_long", "imm_put", "imm_get")
    for kind, riv, gx in pairs_with(lambda s: any(k[0] == s for k in vals)):
        systems = [s for s in (riv, gx) if any(k[0] == s for k in vals)]
        if not systems:
            continue
        head = ["operation", "block", "ranks"]
        for s in systems:
            head += ["%s static" % s, "%s imm" % s, "%s reduction %%" % s, "%s fails" % s]
        if len(systems) == 2:
            head += ["imm Rivet/GASNet"]
        L += ["### %s" % kind, "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        ranks = sorted({k[1] for k in vals if k[0] in systems})
        for op in ops:
            for blk in ("full", "b5", "cyclic"):
                for n in ranks:
                    if not any((s, n, op, blk + "-static") in vals for s in systems):
                        continue
                    row = [op[4:], blk, str(n)]
                    med = {}
                    for s in systems:
                        a = vals.get((s, n, op, blk + "-static"))
                        b = vals.get((s, n, op, blk + "-imm"))
                        ma = statistics.median(a) if a else None
                        mb = statistics.median(b) if b else None
                        med[s] = mb
                        red = None if not ma or mb is None else 100.0 * (ma - mb) / ma
                        row += [fmt(ma), fmt(mb), "-" if red is None else "%+.1f" % red,
                                str(fails.get((s, n, op, blk + "-imm"), "-"))]
                    if len(systems) == 2:
                        row.append(fmt(ratio(med[riv], med[gx])))
                    L.append("| " + " | ".join(row) + " |")
        L.append("")
    return L
