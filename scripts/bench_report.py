#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench_report.py: turns build/bench/results.json into report.md (tables, ratios, goals)
# and PNG plots (matplotlib if importable, else gnuplot, else none, with the reason).
"""Aggregates every JSON line of results.json by (benchmark, system, variant, config, size,
metric, depth): best-of-N is the minimum of all trial samples for latencies ("us") and the
maximum for bandwidths/rates; the median is over all samples of all interleaved runs."""
import argparse
import datetime
import math
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

import bench_report_gex as gex

RIVET = "rivet-shm"
PEERS = ["gasnet-ex-smp", "mpi-openmpi", "mpi-mpich", "oshmem", "ucx"]
# Rivet variant shown in the comparison tables (all variants get their own table).
HEADLINE = {"put_latency": "blocking", "get_latency": "blocking", "put_bw": "nbi_bulk",
            "get_bw": "nbi"}


def fmt_size(n):
    n = int(n)
    if n >= 1 << 20 and n % (1 << 20) == 0:
        return "%d MiB" % (n >> 20)
    if n >= 1024 and n % 1024 == 0:
        return "%d KiB" % (n >> 10)
    return "%d B" % n


def fmt(v, unit=None):
    if v is None:
        return "-"
    if (unit == "MB/s" and abs(v) >= 10) or abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    if 0 < abs(v) < 0.01:
        return "%.2g" % v  # tiny ratios and latencies keep two significant digits
    return "%.3f" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


class Store:
    def __init__(self, path):
        self.groups = defaultdict(list)
        self.by_round = defaultdict(lambda: defaultdict(list))
        self.meta = {}
        self.providers = defaultdict(set)  # system -> libfabric providers named in its results
        self.bad = 0
        for r in gex.read_results(path, self._count_bad):
            if str(r.get("group", "")).startswith(("coll-", "imm-")):
                continue  # np 2 and 4 collectives, bench_imm: their tables read them
            key = (r["benchmark"], r["system"], r.get("variant", ""), r.get("config", ""),
                   int(r["size"]), r["metric"], int(r.get("depth", 0)))
            samples = [float(x) for x in (r.get("samples") or [r["value"]])]
            self.groups[key].extend(samples)
            self.by_round[key][int(r.get("round", 0))].extend(samples)
            self.meta[key] = r["unit"]
            if r.get("provider"):
                self.providers[r["system"]].add(r["provider"])

    def _count_bad(self):
        self.bad += 1

    def stat(self, bench, system, variant=None, config="", size=0, metric=None, depth=0):
        """(best, median, n) for one measurement; variant None = best over variants."""
        cands = []
        for k, vals in self.groups.items():
            if k[0] != bench or k[1] != system or k[4] != size or k[6] != depth:
                continue
            if metric and k[5] != metric:
                continue
            if variant is not None and k[2] != variant:
                continue
            if config is not None and k[3] != config:
                continue
            unit = self.meta[k]
            lower = unit == "us"
            best = min(vals) if lower else max(vals)
            cands.append((best, statistics.median(vals), len(vals), k[2], lower, k[3]))
        if not cands:
            return None
        lower = cands[0][4]
        c = min(cands) if lower else max(cands)
        label = c[3] + ((" [%s]" % c[5]) if c[5] else "")
        return {"best": c[0], "median": c[1], "n": c[2], "variant": c[3], "label": label.strip()}

    def rounds(self):
        return sorted({r for d in self.by_round.values() for r in d})

    def round_best(self, rnd, bench, system, variant=None, config="", size=0, metric=None, depth=0):
        """Best value of one round (best over variants when variant is None), or None."""
        best = None
        for k, per in self.by_round.items():
            if k[0] != bench or k[1] != system or k[4] != size or k[6] != depth:
                continue
            if (metric and k[5] != metric) or (variant is not None and k[2] != variant):
                continue
            if (config is not None and k[3] != config) or rnd not in per:
                continue
            lower = self.meta[k] == "us"
            v = min(per[rnd]) if lower else max(per[rnd])
            if best is None or (v < best if lower else v > best):
                best = v
        return best

    def sizes(self, bench, system=None, metric=None):
        return sorted({k[4] for k in self.groups if k[0] == bench and
                       (system is None or k[1] == system) and (metric is None or k[5] == metric)})

    def variants(self, bench, system):
        return sorted({k[2] for k in self.groups if k[0] == bench and k[1] == system})

    def systems(self, bench):
        return sorted({k[1] for k in self.groups if k[0] == bench})

    def configs(self, bench, system):
        return sorted({k[3] for k in self.groups if k[0] == bench and k[1] == system})


def read_tsv(path):
    rows = []
    if os.path.exists(path):
        with open(path) as f:
            head = f.readline().rstrip("\n").split("\t")
            for line in f:
                parts = line.rstrip("\n").split("\t")
                rows.append(dict(zip(head, parts + [""] * (len(head) - len(parts)))))
    return rows


def machine():
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return "%s, %d cores, %s %s" % (cpu, os.cpu_count() or 0, platform.system(), platform.release())


# ---- tables ------------------------------------------------------------------------------
LIMIT_NAME = {"limit_memcpy_bw": "memcpy limit", "limit_cacheline_rtt": "cache-line RTT limit",
              "limit_copy_rtt": "echo RTT limit"}


def goal_status(q, med, ok):
    """A goal's status from its ratio of bests 'q' and median per-round ratio 'med'."""
    if q is None:
        return "not measured"
    status = "**met**" if ok(q) else "**missed**"
    if med is not None and ok(med) != ok(q):
        status += " (borderline: the median per-round ratio says %s)" % ("met" if ok(med) else "missed")
    return status


def goal_row(name, target, a, b, unit, q, med, ok):
    """A row of goal_table: values a / b (in unit), their ratio q, the median per-round one."""
    return "| %s | %s | %s / %s %s | %s | %s | %s |" % (
        name, target, fmt(a, unit), fmt(b, unit), unit, fmt(q), fmt(med), goal_status(q, med, ok))


def goal_table(values, rows):
    """The goals table of a transport section ('values': the heading of its values column)."""
    return ["| goal | target | %s | ratio of bests | median per-round ratio | status |" % values,
            "|---|---|---|---|---|---|"] + rows + [""]


def peer_label(p, rivet_variant):
    """A peer's variant/config, shown only when it says something beyond the Rivet headline."""
    parts = []
    if p["variant"] and p["variant"] != rivet_variant:
        parts.append(p["variant"])
    if p["label"].endswith("]"):
        parts.append(p["label"][p["label"].rindex("["):])
    return " ".join(parts)
def comparison_table(st, bench, metric, unit, limit=None):
    """Rows: sizes. Rivet headline (best, median), every peer best and Rivet/peer ratio,
    and a limit column with Rivet/limit when given: (limit_bench, limit_variant)."""
    systems = [s for s in PEERS if s in st.systems(bench)]
    hv = HEADLINE.get(bench)
    rv = st.variants(bench, RIVET)
    if hv not in rv:
        hv = None
    sizes = st.sizes(bench, RIVET, metric) or st.sizes(bench, None, metric)
    if not sizes:
        return []
    lines = []
    vlabel = (" (variant `%s`)" % hv) if hv else ""
    head = ["size", "Rivet best%s" % vlabel, "Rivet median"]
    for s in systems:
        head += ["%s best" % s, "Rivet/%s" % s]
    if limit:
        head += [LIMIT_NAME.get(limit[0], limit[0]), "Rivet/limit"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for size in sizes:
        r = st.stat(bench, RIVET, hv, "", size, metric)
        row = [fmt_size(size), fmt(r and r["best"], unit), fmt(r and r["median"], unit)]
        for s in systems:
            p = st.stat(bench, s, None, None, size, metric)
            lab = p and peer_label(p, hv)
            row += [fmt(p and p["best"], unit) + ((" (%s)" % lab) if lab else ""),
                    fmt(ratio(r and r["best"], p and p["best"]))]
        if limit:
            lsize = size if limit[2] is None else limit[2]
            lim = st.stat(limit[0], "limit", limit[1], "", lsize)
            row += [fmt(lim and lim["best"], unit), fmt(ratio(r and r["best"], lim and lim["best"]))]
        lines.append("| " + " | ".join(row) + " |")
    return lines


def variants_table(st, bench, metric, unit):
    vs = st.variants(bench, RIVET)
    cfgs = st.configs(bench, RIVET)
    have = {(k[2], k[3]) for k in st.groups if k[0] == bench and k[1] == RIVET and k[5] == metric}
    cols = [(v, c) for c in cfgs for v in vs if (v, c) in have]
    if not cols:
        return []
    head = ["size"] + [("%s%s" % (v or "-", (" [%s]" % c) if c else "")) for v, c in cols]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for size in st.sizes(bench, RIVET, metric):
        row = [fmt_size(size)]
        for v, c in cols:
            r = st.stat(bench, RIVET, v, c, size, metric)
            row.append(fmt(r and r["best"], unit))
        lines.append("| " + " | ".join(row) + " |")
    return lines


def inject_tables(st):
    """One table per size: rows depth, columns (system, variant, config)."""
    out = []
    sizes = sorted({k[4] for k in st.groups if k[0] == "inject_overhead"})
    for z in sizes:
        cols = sorted({(k[1], k[2], k[3]) for k in st.groups if k[0] == "inject_overhead" and k[4] == z},
                      key=lambda c: (c[0] != RIVET, c[0], c[1], c[2]))
        depths = sorted({k[6] for k in st.groups if k[0] == "inject_overhead" and k[4] == z})
        head = ["depth"] + ["%s %s%s" % (sy, v, (" [%s]" % c) if c else "") for sy, v, c in cols]
        out += ["### %s" % fmt_size(z), "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for d in depths:
            row = [str(d)]
            for sy, v, c in cols:
                r = st.stat("inject_overhead", sy, v, c, z, "overhead", d)
                row.append(fmt(r and r["best"], "us"))
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    return out


def amo_tables(st):
    """Remote atomics: fetch-add latency/throughput (2 ranks) and the hot spot per job size;
    Rivet's CPU atomics and AM reference ([ref]) side by side, then each MPI peer."""
    peers = [p for p in ("gasnet-ex-smp", "mpi-openmpi", "mpi-mpich")
             if any(p in st.systems(b) for b in ("amo_fadd_latency", "amo_hotspot"))]
    head = ["measurement", "Rivet CPU best (median)", "Rivet [ref] best (median)", "ref/CPU"]
    for p in peers:
        head += ["%s best" % p, "Rivet/%s" % p]
    rows = []
    specs = []
    for op, what in (("fadd", "fetch-add"), ("fcas", "fetching CAS"), ("swap", "swap")):
        for v in ("u32", "u64", "i32", "i64", "flt", "dbl"):
            specs.append(("amo_%s_latency" % op, v, "latency", "us",
                          "%s latency, %s (us)" % (what, v.upper())))
        for v in ("u32", "u64", "i32", "i64", "flt", "dbl"):
            specs.append(("amo_%s_throughput" % op, v, "rate", "Mops/s",
                          "%s throughput, %s (Mops/s)" % (what, v.upper())))
    nps = sorted({k[2] for k in st.groups if k[0] == "amo_hotspot"},
                 key=lambda v: int(v[2:]) if v[2:].isdigit() else 0)
    specs += [("amo_hotspot", v, "rate", "Mops/s", "hot spot, np %s (aggregate Mops/s)" % v[2:])
              for v in nps]
    for bench, v, metric, unit, title in specs:
        size = 4 if v in ("u32", "i32", "flt") else 8
        cpu = st.stat(bench, RIVET, v, "", size, metric)
        ref = st.stat(bench, RIVET, v, "ref", size, metric)
        if not cpu and not ref:
            continue
        row = [title, "%s (%s)" % (fmt(cpu and cpu["best"], unit), fmt(cpu and cpu["median"], unit)),
               "%s (%s)" % (fmt(ref and ref["best"], unit), fmt(ref and ref["median"], unit)),
               fmt(ratio(ref and ref["best"], cpu and cpu["best"]))]
        for p in peers:
            q = st.stat(bench, p, v, None, size, metric)
            lab = q["label"][q["label"].rindex("["):] if q and q["label"].endswith("]") else ""
            row += [fmt(q and q["best"], unit) + ((" " + lab) if lab else ""),
                    fmt(ratio(cpu and cpu["best"], q and q["best"]))]
        rows.append("| " + " | ".join(row) + " |")
    if not rows:
        return []
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + rows


def amo_ofi_table(st, meta):
    """Remote atomics over the ofi transport (2 ranks, RIVET_PSHM=0): RIVET_RATOMIC=auto (the
    transport's native atomics when the provider offers them, else the AM reference over ofi;
    which one gex_AD_Create chose is in meta.tsv) next to RIVET_RATOMIC=ref."""
    OFI_ = "rivet-ofi"
    if not any(OFI_ in st.systems(b) for b in ("amo_fadd_latency", "amo_fadd_throughput")):
        return []
    impl = meta.get("ofi_ratomic_auto", "") or "not recorded"
    if "AM reference for other peers" in impl:
        impl += " (with RIVET_PSHM=0 the peer is in another neighbourhood: the AM reference over ofi)"
    lines = ["RIVET_RATOMIC=auto chose: %s. ref = RIVET_RATOMIC=ref (every operation an AM round "
             "trip over ofi). ref/auto is the ratio of bests (latency: > 1 means auto is faster; "
             "rate: < 1 means auto is faster)." % impl, "",
             "| measurement | Rivet ofi auto best (median) | Rivet ofi [ref] best (median) | ref/auto |",
             "|---|---|---|---|"]
    n = 0
    for bench, metric, unit, what in (("amo_fadd_latency", "latency", "us", "fetch-add latency, %s (us)"),
                                      ("amo_fadd_throughput", "rate", "Mops/s",
                                       "fetch-add throughput, %s (Mops/s)")):
        for v in ("u32", "u64"):
            size = 4 if v in ("u32", "i32", "flt") else 8
            a = st.stat(bench, OFI_, v, "auto", size, metric)
            r = st.stat(bench, OFI_, v, "ref", size, metric)
            if not a and not r:
                continue
            n += 1
            lines.append("| %s | %s (%s) | %s (%s) | %s |" % (
                what % v.upper(), fmt(a and a["best"], unit), fmt(a and a["median"], unit),
                fmt(r and r["best"], unit), fmt(r and r["median"], unit),
                fmt(ratio(r and r["best"], a and a["best"]))))
    return lines if n else []


def coll_table(path):
    """Collectives (bench_coll, groups coll-np<N>): barrier, all-reduce and broadcast latency
    at each job size, Rivet vs each MPI peer (best over its configs); ratios of bests."""
    vals = defaultdict(list)
    for r in gex.read_results(path):
        if not str(r.get("group", "")).startswith("coll-"):
            continue
        key = (r["benchmark"], r["system"], r.get("config", ""), int(r["ranks"]), int(r["size"]))
        vals[key].extend(float(x) for x in (r.get("samples") or [r["value"]]))
    if not vals:
        return []

    def best(bench, system, np_, size):
        c = [(min(v), statistics.median(v), k[2]) for k, v in vals.items()
             if k[0] == bench and k[1] == system and k[3] == np_ and k[4] == size]
        return min(c) if c else None

    peers = [p for p in ("gasnet-ex-smp", "mpi-openmpi", "mpi-mpich") if any(k[1] == p for k in vals)]
    head = ["collective", "size", "ranks", "Rivet best (median)"]
    for p in peers:
        head += ["%s best" % p, "Rivet/%s" % p]
    rows = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for bench in ("barrier", "allreduce", "broadcast"):
        for size in sorted({k[4] for k in vals if k[0] == bench}):
            for np_ in sorted({k[3] for k in vals if k[0] == bench and k[4] == size}):
                r = best(bench, RIVET, np_, size)
                row = [bench, fmt_size(size) if bench != "barrier" else "-", str(np_),
                       "%s (%s)" % (fmt(r and r[0]), fmt(r and r[1]))]
                for p in peers:
                    q = best(bench, p, np_, size)
                    row += [fmt(q and q[0]) + ((" [%s]" % q[2]) if q and q[2] else ""),
                            fmt(ratio(r and r[0], q and q[0]))]
                rows.append("| " + " | ".join(row) + " |")
    return rows


def vis_tables(st):
    """Non-contiguous puts (bench_vis): per mechanism, 8-byte elements at 25% density as an
    Indexed list and as Strided metadata of 3, 8 and 32 levels, optimizer on and off
    (configs "", "noopt" direct; "ref", "ref-noopt" AM), then the 64-byte 3-d series."""
    out = []
    dims = ("e8_d3", "e8_d8", "e8_d32")
    for title, on, off in (("direct loops (neighbourhood peer)", "", "noopt"),
                           ("AM pack/unpack (RIVET_VIS=ref)", "ref", "ref-noopt")):
        sizes = sorted(set(st.sizes("vis_strided_put_bw", RIVET)) | set(st.sizes("vis_indexed_put_bw", RIVET)))
        sizes = [z for z in sizes if st.stat("vis_strided_put_bw", RIVET, "e8_d3", on, z)
                 or st.stat("vis_indexed_put_bw", RIVET, "e8", on, z)]
        if not sizes:
            continue
        head = ["payload", "indexed"] + ["%s-d on" % d[4:] for d in dims] + \
               ["%s-d off" % d[4:] for d in dims] + ["on/off %s-d" % d[4:] for d in dims]
        out += ["### 8-byte elements, %s (MB/s, best of N)" % title, "",
                "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for z in sizes:
            ix = st.stat("vis_indexed_put_bw", RIVET, "e8", on, z)
            a = [st.stat("vis_strided_put_bw", RIVET, d, on, z) for d in dims]
            b = [st.stat("vis_strided_put_bw", RIVET, d, off, z) for d in dims]
            row = [fmt_size(z), fmt(ix and ix["best"], "MB/s")]
            row += [fmt(x and x["best"], "MB/s") for x in a] + [fmt(x and x["best"], "MB/s") for x in b]
            row += [fmt(ratio(x and x["best"], y and y["best"])) for x, y in zip(a, b)]
            out.append("| " + " | ".join(row) + " |")
        out.append("")
    sizes = [z for z in st.sizes("vis_strided_put_bw", RIVET)
             if any(st.stat("vis_strided_put_bw", RIVET, "e64_d3", c, z) for c in ("", "ref"))]
    if sizes:
        cfgs = ("", "noopt", "ref", "ref-noopt")
        head = ["payload", "direct on", "direct off", "AM on", "AM off", "on/off direct", "on/off AM"]
        out += ["### 64-byte elements, 3-d (MB/s, best of N)", "",
                "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for z in sizes:
            v = [st.stat("vis_strided_put_bw", RIVET, "e64_d3", c, z) for c in cfgs]
            v = [x and x["best"] for x in v]
            out.append("| " + " | ".join([fmt_size(z)] + [fmt(x, "MB/s") for x in v] +
                                         [fmt(ratio(v[0], v[1])), fmt(ratio(v[2], v[3]))]) + " |")
        out.append("")
    return out

# ---- the ofi transport next to raw libfabric -----------------------------------------------
OFI, RAW = "rivet-ofi", "libfabric-raw"


# ---- the udp transport next to raw UDP sockets, ofi and GASNet-EX's udp conduit ---------------
UDP, URAW, GUDP = "rivet-udp", "udp-raw", "gasnet-ex-udp"
# The raw stream row the put flood is held against: the datagram size rivet-udp used (meta.tsv's
# udp_dgram, from its RIVET_VERBOSE=1 log), else loopback's default (the MTU's: 65000).
UDP_STREAM_DGRAM = 65000


def udp_tables(st, meta=None):
    """Rivet over the udp transport (RIVET_PSHM=0, 2 ranks) against bench/udp_raw (kernel UDP,
    busy-polling), rivet-ofi, and GASNet-EX's udp conduit. Empty when none of it ran."""
    if not st.sizes("am_short_rtt", UDP) and not st.sizes("udp_rtt", URAW):
        return []
    try:
        dgram = int((meta or {}).get("udp_dgram", "") or UDP_STREAM_DGRAM)
    except ValueError:
        dgram = UDP_STREAM_DGRAM
    if dgram not in st.sizes("udp_stream", URAW):  # udp_raw streams 1472, 8192 and 65000 bytes
        dgram = min(st.sizes("udp_stream", URAW) or [UDP_STREAM_DGRAM],
                    key=lambda z: abs(z - dgram))
    L = ["## Network transport: Rivet over udp vs raw UDP sockets, ofi and GASNet-EX udp", "",
         "2 ranks on this host, shared memory off: RIVET_PSHM=0 RIVET_TRANSPORT=udp (`rivet-udp`), "
         "bench/udp_raw (`udp-raw`: two processes, non-blocking sockets on 127.0.0.1, busy-polling; "
         "`udp_rtt` an n-byte datagram ping-pong, `udp_stream` n-byte datagrams with 64 in flight "
         "and a credit every 16), `rivet-ofi` and GASNet-EX's udp conduit "
         "(GASNET_SUPERNODE_MAXSIZE=1). Ratios of bests (best of all trials of all rounds); the "
         "median per-round ratio pairs measurements taken minutes apart at most.", ""]

    def val(bench, system, variant, size, metric):
        x = st.stat(bench, system, variant, "", size, metric)
        return x and x["best"]

    def per_round(a, b):
        out = []
        for n in st.rounds():
            x = ratio(st.round_best(n, *a), st.round_best(n, *b))
            if x is not None:
                out.append(x)
        return statistics.median(out) if out else None

    am = ("am_short_rtt", UDP, None, "", 0, "latency")
    put8 = ("put_latency", UDP, "blocking", "", 8, "latency")
    flood = ("put_bw", UDP, "nbi_bulk", "", 1 << 20, "bandwidth")
    rtt = ("udp_rtt", URAW, "pingpong", "", 8, "latency")
    strm = ("udp_stream", URAW, "window64", "", dgram, "bandwidth")
    g_am = ("am_short_rtt", GUDP, None, "", 0, "latency")
    g_put8 = ("put_latency", GUDP, "blocking", "", 8, "latency")
    g_flood = ("put_bw", GUDP, "nbi_bulk", "", 1 << 20, "bandwidth")
    rows = []
    for name, a, b, unit, target, ok in (
            ("AM Short round trip / raw UDP 8 B ping-pong", am, rtt, "us", "<= 1.3", lambda x: x <= 1.3),
            ("8 B blocking put / Rivet AM Short round trip", put8, am, "us", "<= 1.5", lambda x: x <= 1.5),
            ("1 MiB put flood / raw UDP stream (%s datagrams, rivet-udp's)" % fmt_size(dgram), flood, strm, "MB/s", ">= 0.7", lambda x: x >= 0.7),
            ("AM Short round trip / GASNet-EX udp's", am, g_am, "us", "<= 0.8", lambda x: x <= 0.8),
            ("8 B blocking put / GASNet-EX udp's", put8, g_put8, "us", "<= 0.8", lambda x: x <= 0.8),
            ("1 MiB put flood / GASNet-EX udp's", flood, g_flood, "MB/s", ">= 1", lambda x: x >= 1)):
        va, vb = st.stat(*a), st.stat(*b)
        va, vb = va and va["best"], vb and vb["best"]
        q = ratio(va, vb)
        med = per_round(a, b)
        rows.append(goal_row(name, target, va, vb, unit, q, med, ok))
    L += goal_table("values (best of N)", rows)
    L += ["| measurement | rivet-udp best (median) | udp-raw best | rivet-ofi best | gasnet-ex-udp best |",
          "|---|---|---|---|---|"]

    def cell(bench, system, variant, size, metric, unit):
        x = st.stat(bench, system, variant, "", size, metric)
        if not x:
            return "-"
        return "%s (%s)" % (fmt(x["best"], unit), fmt(x["median"], unit)) if system == UDP else fmt(x["best"], unit)

    for label, bench, variant, size, metric, unit, rawb, rawv, raws in (
            ("AM Short round trip (us)", "am_short_rtt", None, 0, "latency", "us", "udp_rtt", "pingpong", 8),
            ("8 B blocking put (us)", "put_latency", "blocking", 8, "latency", "us", None, None, 0),
            ("4 KiB blocking put (us)", "put_latency", "blocking", 4096, "latency", "us", "udp_rtt", "pingpong", 4096),
            ("64 KiB put flood (MB/s)", "put_bw", "nbi_bulk", 65536, "bandwidth", "MB/s", "udp_stream", "window64", 65000),
            ("1 MiB put flood (MB/s)", "put_bw", "nbi_bulk", 1 << 20, "bandwidth", "MB/s", "udp_stream", "window64", dgram)):
        raw = cell(rawb, URAW, rawv, raws, metric, unit) if rawb else "-"
        if rawb:
            raw += " (%s %s)" % (rawb, fmt_size(raws))
        L.append("| %s | %s | %s | %s | %s |" % (
            label, cell(bench, UDP, variant, size, metric, unit), raw,
            cell(bench, OFI, variant, size, metric, unit), cell(bench, GUDP, variant, size, metric, unit)))
    L.append("")
    return L


def ofi_tables(st, meta=None):
    """Rivet over the ofi transport (RIVET_PSHM=0, 2 ranks) against bench/ofi_raw with the same
    provider, and AM Long's two protocols side by side. Empty when neither ran."""
    if not st.sizes("put_latency", OFI) and not st.sizes("put_latency", RAW):
        return []
    L = ["## Network transport: Rivet over ofi vs raw libfabric", "",
         "2 ranks on this host with RIVET_PSHM=0 RIVET_TRANSPORT=ofi (`rivet-ofi`), and "
         "bench/ofi_raw (`libfabric-raw`: same provider choice, no Rivet). Rivet's blocking put "
         "waits for remote completion, as the raw `fi_write_dc` does (one write with "
         "FI_DELIVERY_COMPLETE, then its completion); `fi_write_pingpong` is the round trip of "
         "two writes, each side polling memory; `fi_inject_pingpong` (`msg_rtt`) is the round trip "
         "of two 32-byte messages (fi_inject, posted fi_recv buffers), the yardstick for Rivet's AM "
         "Short round trip. Bandwidth: Rivet `put_bw nbi_bulk` vs 64 raw "
         "delivery-complete writes in flight. Ratios are Rivet/raw of bests.", ""]
    prov_r = (meta or {}).get("ofi_provider_rivet", "") or "not recorded"
    prov_w = ", ".join(sorted(st.providers.get(RAW, ()))) or "not recorded"
    L += ["Providers: Rivet %s; raw %s%s." % (prov_r, prov_w, "" if prov_r == prov_w or "not recorded" in
                                              (prov_r, prov_w) else " (**different**: the ratios compare providers too)"), ""]
    goals_ = []
    # (name, Rivet bench, variant, size, raw bench, raw variant, raw size, metric, unit, target)
    for name, bench, rv, size, wb, wv, wsize, metric, unit, target, ok in (
            ("8 B put latency / raw fi_write round trip", "put_latency", "blocking", 8,
             "put_latency", "fi_write_dc", 8, "latency", "us", "<= 1.25", lambda x: x <= 1.25),
            ("AM Short round trip / raw fi_inject message ping-pong", "am_short_rtt", None, 0,
             "msg_rtt", "fi_inject_pingpong", 32, "latency", "us", "<= 1.25", lambda x: x <= 1.25),
            ("1 MiB put bandwidth / raw fi_write bandwidth", "put_bw", "nbi_bulk", 1 << 20,
             "put_bw", "fi_write_dc", 1 << 20, "bandwidth", "MB/s", ">= 0.9", lambda x: x >= 0.9)):
        r = st.stat(bench, OFI, rv, "", size, metric)
        w = st.stat(wb, RAW, wv, "", wsize, metric)
        q = ratio(r and r["best"], w and w["best"])
        # the same ratio per round (both sides measured minutes apart at most), as a check
        per = [ratio(st.round_best(n, bench, OFI, rv, "", size, metric),
                     st.round_best(n, wb, RAW, wv, "", wsize, metric)) for n in st.rounds()]
        per = [x for x in per if x is not None]
        med = statistics.median(per) if per else None
        goals_.append(goal_row(name, target, r and r["best"], w and w["best"], unit, q, med, ok))
    L += goal_table("Rivet / raw (best of N)", goals_)
    sizes = sorted(set(st.sizes("put_latency", OFI, "latency")) | set(st.sizes("put_latency", RAW, "latency")))
    if sizes:
        L += ["### Put latency over ofi (us)", "",
              "| size | Rivet best | Rivet median | raw fi_write_dc best | Rivet/raw | raw ping-pong RTT best | Rivet/ping-pong |",
              "|---|---|---|---|---|---|---|"]
        for z in sizes:
            r = st.stat("put_latency", OFI, "blocking", "", z, "latency")
            w = st.stat("put_latency", RAW, "fi_write_dc", "", z, "latency")
            pp = st.stat("put_rtt", RAW, "fi_write_pingpong", "", z, "latency")
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                fmt_size(z), fmt(r and r["best"]), fmt(r and r["median"]), fmt(w and w["best"]),
                fmt(ratio(r and r["best"], w and w["best"])), fmt(pp and pp["best"]),
                fmt(ratio(r and r["best"], pp and pp["best"]))))
        L.append("")
    sizes = sorted(set(st.sizes("put_bw", OFI, "bandwidth")) | set(st.sizes("put_bw", RAW, "bandwidth")))
    if sizes:
        L += ["### Put bandwidth over ofi (MB/s)", "",
              "| size | Rivet nbi_bulk best | raw fi_write_dc best | Rivet/raw |", "|---|---|---|---|"]
        for z in sizes:
            r = st.stat("put_bw", OFI, "nbi_bulk", "", z, "bandwidth")
            w = st.stat("put_bw", RAW, "fi_write_dc", "", z, "bandwidth")
            L.append("| %s | %s | %s | %s |" % (fmt_size(z), fmt(r and r["best"], "MB/s"),
                     fmt(w and w["best"], "MB/s"), fmt(ratio(r and r["best"], w and w["best"]))))
        L.append("")
    a = st.stat("am_short_rtt", OFI, None, "", 0, "latency")
    if a:
        L += ["AM Short round trip over ofi: best %s us, median %s us." % (fmt(a["best"]), fmt(a["median"])), ""]
    sizes = sorted(set(st.sizes("am_long_rtt", OFI, "latency")))
    if sizes:
        L += ["### AM Long over ofi: put-sync-send vs target-side reassembly", "",
              "RIVET_AMLONG=sync (put, wait for its remote completion, then the header) and "
              "=reassembly (payload and header back to back, matched at the target). Payloads up "
              "to RIVET_AMLONG_PACKED (8 KiB) travel inside the message for both. reasm/sync: "
              "< 1 is faster for latency, > 1 for bandwidth.", "",
              "| size | RTT sync (us) | RTT reassembly (us) | reasm/sync | flood sync (MB/s) | flood reassembly (MB/s) | reasm/sync |",
              "|---|---|---|---|---|---|---|"]
        for z in sizes:
            ls = st.stat("am_long_rtt", OFI, None, "sync", z, "latency")
            lr = st.stat("am_long_rtt", OFI, None, "reassembly", z, "latency")
            fs = st.stat("am_long_flood", OFI, None, "sync", z, "bandwidth")
            fr = st.stat("am_long_flood", OFI, None, "reassembly", z, "bandwidth")
            L.append("| %s | %s | %s | %s | %s | %s | %s |" % (
                fmt_size(z), fmt(ls and ls["best"]), fmt(lr and lr["best"]),
                fmt(ratio(lr and lr["best"], ls and ls["best"])), fmt(fs and fs["best"], "MB/s"),
                fmt(fr and fr["best"], "MB/s"), fmt(ratio(fr and fr["best"], fs and fs["best"]))))
        L.append("")
    return L


# ---- the ucx transport next to raw UCX (ucx_perftest) --------------------------------------
UCXR, UCXP = "rivet-ucx", "ucx-tcp"


def ucx_tables(st):
    """Rivet over the ucx transport (RIVET_PSHM=0, 2 ranks, UCX_TLS=tcp) against ucx_perftest on
    the same TLS, with the issue's goals. Empty when neither ran."""
    if not st.sizes("put_latency", UCXR) and not st.sizes("put_latency", UCXP):
        return []
    L = ["## Network transport: Rivet over ucx vs raw UCX (ucx_perftest)", "",
         "2 ranks on this host with RIVET_PSHM=0 RIVET_TRANSPORT=ucx UCX_TLS=tcp (`rivet-ucx`), "
         "and `ucx_perftest` server + client on the same TLS (`ucx-tcp`). Rivet: best trial "
         "(mean over its iterations) of all rounds; perftest: best report interval (its mean "
         "over about a second) of all rounds, with its per-operation median (p50) beside it. "
         "AM Short RTT: `am_short_rtt` vs `ucp_am_lat` 8 B x 2. 8 B blocking put (a put and its "
         "endpoint flush: one round trip) vs the round trip of `ucp_put_lat` (perftest reports "
         "half a put ping-pong; x 2). 1 MiB: `put_bw nbi_bulk` vs `ucp_put_bw`. Ratios are "
         "Rivet/raw of bests; the median per-round ratio checks them.", ""]
    goals_ = []
    for name, rb, rv, rsz, wb, wv, wf, metric, unit, target, ok in (
            ("AM Short round trip / ucp_am_lat x2", "am_short_rtt", None, 0, "am_short_rtt",
             "ucp_am_lat_x2", 1, "latency", "us", "<= 1.25", lambda x: x <= 1.25),
            ("8 B blocking put / ucp_put_lat round trip", "put_latency", "blocking", 8,
             "put_latency", "pingpong_half_rtt", 2, "latency", "us", "<= 1.25", lambda x: x <= 1.25),
            ("1 MiB put bandwidth / ucp_put_bw", "put_bw", "nbi_bulk", 1 << 20, "put_bw",
             "ucp_put_bw", 1, "bandwidth", "MB/s", ">= 0.9", lambda x: x >= 0.9)):
        wsz = 8 if rb == "am_short_rtt" else rsz
        r = st.stat(rb, UCXR, rv, "", rsz, metric)
        w = st.stat(wb, UCXP, wv, "", wsz, metric)
        wbest = w and w["best"] * wf
        q = ratio(r and r["best"], wbest)
        per = []
        for n in st.rounds():
            a = st.round_best(n, rb, UCXR, rv, "", rsz, metric)
            b = st.round_best(n, wb, UCXP, wv, "", wsz, metric)
            x = ratio(a, b * wf if b is not None else None)
            if x is not None:
                per.append(x)
        med = statistics.median(per) if per else None
        goals_.append(goal_row(name, target, r and r["best"], wbest, unit, q, med, ok))
    L += goal_table("Rivet / raw (best of N)", goals_)
    def both(bench, metric):  # the sizes both measured (else whatever either did)
        a, b = set(st.sizes(bench, UCXR, metric)), set(st.sizes(bench, UCXP, metric))
        return sorted((a & b) or (a | b))
    sizes = both("put_latency", "latency")
    if sizes:
        L += ["### Put latency over ucx (us)", "",
              "| size | Rivet blocking best | Rivet median | ucp_put_lat round trip best (x2) | Rivet/raw |",
              "|---|---|---|---|---|"]
        for z in sizes:
            r = st.stat("put_latency", UCXR, "blocking", "", z, "latency")
            w = st.stat("put_latency", UCXP, "pingpong_half_rtt", "", z, "latency")
            wb = w and 2 * w["best"]
            L.append("| %s | %s | %s | %s | %s |" % (
                fmt_size(z), fmt(r and r["best"]), fmt(r and r["median"]), fmt(wb),
                fmt(ratio(r and r["best"], wb))))
        L.append("")
    for bench, rv, wv, title in (("put_bw", "nbi_bulk", "ucp_put_bw", "Put"),
                                 ("get_bw", None, "ucp_get", "Get")):
        sizes = both(bench, "bandwidth")
        if not sizes:
            continue
        L += ["### %s bandwidth over ucx (MB/s)" % title, "",
              "| size | Rivet best | raw %s best | Rivet/raw |" % wv, "|---|---|---|---|"]
        for z in sizes:
            r = st.stat(bench, UCXR, rv, "", z, "bandwidth")
            w = st.stat(bench, UCXP, wv, "", z, "bandwidth")
            L.append("| %s | %s | %s | %s |" % (fmt_size(z), fmt(r and r["best"], "MB/s"),
                     fmt(w and w["best"], "MB/s"), fmt(ratio(r and r["best"], w and w["best"]))))
        L.append("")
    return L


# ---- goals ---------------------------------------------------------------------------------
# A cache-line round trip this short means the two processes shared a physical core (SMT
# siblings) when it was measured: not the cross-core transfer the goals are stated against.
SAME_CORE_RTT_US = 0.06


def goal_specs():
    """(name, target text, test, numerator, denominator, unit, numerator name, denominator
    name): numerator/denominator are functions (store, round or None) -> (value, label) giving
    that round's best value, or the best over all rounds for None."""
    def one(bench, system, variant, size, metric, config=""):
        def f(st, rnd):
            if rnd is None:
                r = st.stat(bench, system, variant, config, size, metric)
                return (r["best"], r["label"] or "") if r else (None, "")
            return st.round_best(rnd, bench, system, variant, config, size, metric), ""
        return f

    def best_mpi(bench):
        def f(st, rnd):
            best, who = None, ""
            for sy in ("mpi-openmpi", "mpi-mpich"):
                if rnd is None:
                    r = st.stat(bench, sy, None, None, 8, "latency")
                    v, lab = (r["best"], r["label"]) if r else (None, "")
                    lab = sy + ((" " + lab) if lab.endswith("]") else "")
                    lab = lab.replace(" blocking", "")
                else:
                    v, lab = st.round_best(rnd, bench, sy, None, None, 8, "latency"), sy
                if v is not None and (best is None or v < best):
                    best, who = v, lab
            return best, who
        return f

    return [
        ("AM Short round trip / cache-line round trip", "<= 1.3", lambda r: r <= 1.3,
         one("am_short_rtt", RIVET, None, 0, "latency"),
         one("limit_cacheline_rtt", "limit", "one_line", 64, "latency"), "us", "Rivet", "cache line"),
        ("best MPI-3 RMA 8 B blocking put latency / Rivet's", ">= 5", lambda r: r >= 5,
         best_mpi("put_latency"), one("put_latency", RIVET, "blocking", 8, "latency"), "us", "", "Rivet"),
        ("best MPI-3 RMA 8 B blocking get latency / Rivet's", ">= 5", lambda r: r >= 5,
         best_mpi("get_latency"), one("get_latency", RIVET, "blocking", 8, "latency"), "us", "", "Rivet"),
        ("put flood bandwidth at 1 MiB / single-core memcpy at 1 MiB", ">= 0.9", lambda r: r >= 0.9,
         one("put_bw", RIVET, None, 1 << 20, "bandwidth"),
         one("limit_memcpy_bw", "limit", None, 1 << 20, "bandwidth"), "MB/s", "Rivet", "memcpy"),
        ("AM Medium 4 KiB round trip / AM Short round trip", "<= 2", lambda r: r <= 2,
         one("am_medium_rtt", RIVET, None, 4096, "latency"),
         one("am_short_rtt", RIVET, None, 0, "latency"), "us", "Medium 4 KiB", "Short"),
    ]


def same_core_rounds(st):
    out = set()
    for rnd in st.rounds():
        v = st.round_best(rnd, "limit_cacheline_rtt", "limit", "one_line", "", 64, "latency")
        if v is not None and v < SAME_CORE_RTT_US:
            out.add(rnd)
    return out


def goals(st):
    """Rows of the goals table. Status: the ratio of the best-of-N values over all rounds, as
    issue 4 asks, leaving out rounds where the limit shows the two processes on one physical
    core. Each round measures both sides of a ratio seconds apart; the median of the per-round
    ratios is shown as a check (the machine changes speed within seconds, so a best-of-N value
    of one side may come from a faster moment than the other's): when it disagrees with the
    best-of-N ratio, the status says so."""
    out = []
    skip = same_core_rounds(st)
    rounds = [r for r in st.rounds() if r not in skip] or [None]
    for name, target, ok, num, den, unit, nname, dname in goal_specs():
        lower = unit == "us"

        def best_of(fn):
            cands = [(fn(st, r), r) for r in rounds]
            cands = [(v, r) for v, r in cands if v[0] is not None]
            if not cands:
                return None, ""
            (v, lab), _r = (min if lower else max)(cands, key=lambda c: c[0][0])
            if rounds == [None]:
                return v, lab
            return v, fn(st, None)[1] if not lab else lab
        nb, nl = best_of(num)
        db, dl = best_of(den)
        glob = ratio(nb, db)
        per = [ratio(num(st, r)[0], den(st, r)[0]) for r in rounds if r is not None]
        per = [x for x in per if x is not None]
        med = statistics.median(per) if per else None

        def side(who, v, lab):
            lab = "" if lab in ("blocking", "one_line") else lab
            w = " ".join(x for x in (who, ("(%s)" % lab) if lab and who else lab) if x)
            return "%s %s" % (w, fmt(v, unit))
        vals = "%s / %s %s" % (side(nname, nb, nl), side(dname, db, dl), unit)
        spread = ("%s .. %s (%d rounds)" % (fmt(min(per)), fmt(max(per)), len(per))) if per else "-"
        status = goal_status(glob, med, ok)
        out.append("| %s | %s | %s | %s | %s | %s | %s |" % (name, target, vals, fmt(glob), fmt(med),
                                                             spread, status))
    return out, skip


# ---- plots ----------------------------------------------------------------------------------
# Each PNG is a grid of panels; a panel draws one line per (system, variant, config), best of N.
# Rivet's variants shown per benchmark (every variant is in the report's tables).
PLOT_RIVET_VARIANTS = {
    "put_latency": ["blocking", "blocking_src_outside_seg"],
    "get_latency": ["blocking", "blocking_dst_outside_seg"],
    "put_bw": ["nbi_bulk", "nbi", "nb_bulk", "nbi_bulk_src_outside_seg"],
    "get_bw": ["nbi", "nb", "nbi_dst_outside_seg"],
}
# (title, benchmark, metric, limit overlay): limit is ("hline", bench, variant, size) for a
# horizontal reference line or ("series", bench) for a size sweep.
CL = ("hline", "limit_cacheline_rtt", "one_line", 64)
MC = ("series", "limit_memcpy_bw", None, "single-core memcpy (limit)")
ECHO = ("series", "limit_copy_rtt", "echo", "buffer echo between 2 processes (limit)")
FIGURES = [
    ("latency_vs_size.png", "Latency vs size, 2 ranks on one host (best of N)", "us", [
        ("Put, blocking (remote completion)", "put_latency", "latency", None),
        ("Get, blocking", "get_latency", "latency", None),
        ("AM Medium round trip", "am_medium_rtt", "latency", ECHO),
        ("AM Long round trip", "am_long_rtt", "latency", ECHO)]),
    ("bandwidth_vs_size.png", "Flood bandwidth vs size, 2 ranks on one host (best of N)", "MB/s", [
        ("Put flood", "put_bw", "bandwidth", MC),
        ("Get flood", "get_bw", "bandwidth", MC),
        ("AM Medium one-way flood", "am_medium_flood", "bandwidth", MC),
        ("AM Long one-way flood", "am_long_flood", "bandwidth", MC)]),
]
SYSTEM_COLOR = {RIVET: "#1f5fbf", "mpi-openmpi": "#e08000", "mpi-openmpi [ucx]": "#c03020",
                "mpi-mpich": "#2a9d3a", "oshmem": "#8040b0", "ucx": "#8c564b", "limit": "#000000",
                "gasnet-ex-smp": "#d62790"}
RIVET_STYLES = ["-", "--", "-.", ":"]


def panel_series(st, bench, metric):
    """[(label, system_key, rivet_rank, [(size, best)])] for one panel, Rivet first."""
    lines = {}
    for k, vals in st.groups.items():
        if k[0] != bench or k[5] != metric or k[4] <= 0:
            continue
        system, variant, config = k[1], k[2], k[3]
        if system == RIVET:
            want = PLOT_RIVET_VARIANTS.get(bench)
            if config or (want and variant not in want):
                continue
            rank = want.index(variant) if want else 0
        else:
            rank = 99
        lower = st.meta[k] == "us"
        skey = system + ((" [%s]" % config) if config else "")
        label = skey + ((" " + variant) if variant else "")
        lines.setdefault((rank, label, skey), []).append((k[4], min(vals) if lower else max(vals)))
    return [(lab, skey, rank, sorted(pts)) for (rank, lab, skey), pts in sorted(lines.items())]


def limit_overlay(st, lim):
    if not lim:
        return None
    if lim[0] == "hline":
        r = st.stat(lim[1], "limit", lim[2], "", lim[3])
        return ("hline", "cache-line round trip (limit)", r["best"]) if r else None
    pts = [(z, st.stat(lim[1], "limit", lim[2], "", z)["best"]) for z in st.sizes(lim[1], "limit")]
    pts = [p for p in pts if p[0] > 0]
    return ("series", lim[3], pts) if pts else None


def inject_figure(st):
    sizes = sorted({k[4] for k in st.groups if k[0] == "inject_overhead"})
    panels = []
    for z in sizes:
        lines = {}
        for k, vals in st.groups.items():
            if k[0] != "inject_overhead" or k[4] != z:
                continue
            skey = k[1] + ((" [%s]" % k[3]) if k[3] else "")
            label = "%s %s" % (skey, k[2])
            rank = (0 if k[2] == "am_long" else 1) if k[1] == RIVET and not k[3] else 99
            lines.setdefault((rank, label, skey), []).append((k[6], min(vals)))
        panels.append(("%s per operation" % fmt_size(z),
                       [(lab, skey, rank, sorted(p)) for (rank, lab, skey), p in sorted(lines.items())],
                       None))
    return panels


def all_figures(st):
    figs = []
    for fname, title, unit, panels in FIGURES:
        ps = []
        for ptitle, bench, metric, lim in panels:
            s = panel_series(st, bench, metric)
            if s:
                ps.append((ptitle, s, limit_overlay(st, lim)))
        if ps:
            figs.append((fname, title, "size", unit, ps, "size"))
    ip = inject_figure(st)
    if ip:
        figs.append(("inject_overhead_vs_depth.png", "Injection overhead vs queue depth "
                     "(GEX_EVENT_GROUP; completion outside the timer; best of N)",
                     "queue depth (operations injected back to back)", "us per operation", ip, "depth"))
    # A single panel for the README: put latency, Rivet against the peers.
    s = panel_series(st, "put_latency", "latency")
    if s:
        s = [x for x in s if x[1] != RIVET or x[2] == 0]
        figs.append(("put_latency.png", "8 B..4 MiB blocking put latency, 2 ranks on one host",
                     "size", "us", [("", s, None)], "size"))
    return figs


def size_label(x, _pos=None):
    x = int(round(x))
    if x >= 1 << 20:
        return "%dM" % (x >> 20)
    if x >= 1024:
        return "%dK" % (x >> 10)
    return "%d" % x


def plot_matplotlib(figs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter, LogLocator
    made = []
    for fname, title, xl, yl, panels, xkind in figs:
        n = len(panels)
        cols = 1 if n == 1 else 2
        rows = (n + cols - 1) // cols
        small = n == 1
        fig, axes = plt.subplots(rows, cols, figsize=(7.5, 4.2) if small else (13, 4.6 * rows),
                                 squeeze=False)
        for i, (ptitle, lines, lim) in enumerate(panels):
            ax = axes[i // cols][i % cols]
            for label, skey, rank, pts in lines:
                color = SYSTEM_COLOR.get(skey, None)
                if skey == RIVET:
                    style, lw = RIVET_STYLES[rank % len(RIVET_STYLES)], 2.2 if rank == 0 else 1.4
                else:
                    style, lw = "-", 1.2
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color=color, lw=lw,
                        marker="o" if skey == RIVET else ".", ms=3, label=label)
            if lim and lim[0] == "hline":
                ax.axhline(lim[2], color="black", ls=":", lw=1, label="%s %.3g us" % (lim[1], lim[2]))
            elif lim:
                ax.plot([p[0] for p in lim[2]], [p[1] for p in lim[2]], ":", color="black", lw=1.2,
                        label=lim[1])
            ax.set_xscale("log", base=2)
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(FuncFormatter(lambda y, _p: "%g" % y))
            ys = [p[1] for _l, _s, _r, pts in lines for p in pts if p[1] > 0]
            narrow = ys and max(ys) / min(ys) < 30

            def minor(y, _p, narrow=narrow):
                m = y / 10 ** math.floor(math.log10(y)) if y > 0 else 0
                return "%g" % y if narrow and round(m) in (2, 5) else ""
            ax.yaxis.set_minor_formatter(FuncFormatter(minor))
            if xkind == "size":
                ax.xaxis.set_major_locator(LogLocator(base=4))
                ax.xaxis.set_major_formatter(FuncFormatter(size_label))
            else:
                ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _p: "%d" % round(x)))
            if ptitle:
                ax.set_title(ptitle, fontsize=10)
            ax.set_xlabel("%s (bytes)" % xl if xkind == "size" else xl, fontsize=8)
            ax.set_ylabel(yl, fontsize=8)
            ax.tick_params(which="both", labelsize=7)
            ax.grid(True, which="major", alpha=0.35)
            ax.grid(True, which="minor", alpha=0.12)
            ax.legend(fontsize=6.5, loc="best")
        for j in range(n, rows * cols):
            axes[j // cols][j % cols].set_visible(False)
        fig.suptitle(title, fontsize=11 if small else 12)
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=90 if small else 100)
        plt.close(fig)
        made.append(fname)
    return made


def plot_gnuplot(figs, out):
    gp = shutil.which("gnuplot")
    made = []
    for fname, title, xl, yl, panels, xkind in figs:
        n = len(panels)
        cols = 1 if n == 1 else 2
        rows = (n + cols - 1) // cols
        dats = []
        cmds = ['set terminal pngcairo size %d,%d font ",8"' % ((750, 420) if n == 1 else (1300, 460 * rows)),
                'set output "%s"' % os.path.join(out, fname), 'set logscale xy 2', 'set logscale y 10',
                'set grid', 'set key top left font ",7"',
                'set multiplot layout %d,%d title "%s"' % (rows, cols, title)]
        for i, (ptitle, lines, lim) in enumerate(panels):
            if lim and lim[0] == "series":
                lines = lines + [(lim[1], "limit", 0, lim[2])]
            dat = os.path.join(out, "%s.%d.dat" % (fname, i))
            dats.append(dat)
            with open(dat, "w") as f:
                for _label, _s, _r, pts in lines:
                    for x, y in pts:
                        f.write("%g %g\n" % (x, y))
                    f.write("\n\n")
            cmds += ['set title "%s"' % ptitle, 'set xlabel "%s"' % xl, 'set ylabel "%s"' % yl]
            plots = ['"%s" index %d with linespoints title "%s"' % (dat, j, l[0].replace('"', ''))
                     for j, l in enumerate(lines)]
            if lim and lim[0] == "hline":
                plots.append('%g with lines dt 2 lc rgb "black" title "%s"' % (lim[2], lim[1]))
            cmds.append("plot " + ", ".join(plots))
        cmds.append("unset multiplot")
        subprocess.run([gp], input="\n".join(cmds), text=True, check=True)
        for d in dats:
            os.unlink(d)
        made.append(fname)
    return made


def make_plots(st, out):
    figs = all_figures(st)
    if not figs:
        return [], "no data to plot"
    try:
        return plot_matplotlib(figs, out), "matplotlib"
    except ImportError:
        pass
    if shutil.which("gnuplot"):
        try:
            return plot_gnuplot(figs, out), "gnuplot"
        except (OSError, subprocess.CalledProcessError) as e:
            return [], "gnuplot failed: %s" % e
    return [], "no plots: neither python3-matplotlib nor gnuplot is installed"


# ---- report ---------------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--out", required=True, help="directory with results.json; report goes here")
    ap.add_argument("--results", help="results file (default OUT/results.json)")
    ap.add_argument("--rounds", default="?")
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--no-plots", action="store_true")
    a = ap.parse_args()
    st = Store(a.results or os.path.join(a.out, "results.json"))
    runs = read_tsv(os.path.join(a.out, "runs.tsv"))
    peers = read_tsv(os.path.join(a.out, "peers.tsv"))
    plots, how = ([], "disabled") if a.no_plots else make_plots(st, a.out)

    L = []
    L.append("# Rivet benchmark report%s" % (" (smoke run: tiny sizes, not representative)" if a.smoke else ""))
    L.append("")
    L.append("- generated: %s" % datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"))
    L.append("- machine: %s" % machine())
    L.append("- method: %s interleaved rounds (Rivet, limit, peers, Rivet, ...); each program run "
             "does several timed trials; **best** = best sample over all trials of all rounds "
             "(min latency / max bandwidth), **median** = median of those samples. Ratios use best-of-N."
             % a.rounds)
    L.append("- ratios are Rivet/other: for latencies < 1 means Rivet is faster, for bandwidths > 1 means Rivet is faster.")
    meta = {}
    for row in read_tsv(os.path.join(a.out, "meta.tsv")):
        meta[row.get("key", "")] = row.get("value", "")
    if meta:
        L.append("- load average (1 min) at start %s, at end %s; run time %s s. The machine has %d cores: "
                 "anything else running competes with the two ranks and spoils medians (best-of-N "
                 "is more robust)." % (meta.get("load_start", "?"), meta.get("load_end", "?"),
                                       meta.get("seconds", "?"), os.cpu_count() or 0))
    L.append("- %d measurements, %d program runs%s" % (len(st.groups), len(runs),
             (", %d unparsable lines" % st.bad) if st.bad else ""))
    L.append("")

    L.append("## Goals (2 ranks, one host)")
    L.append("")
    rows, skip = goals(st)
    L.append("Each goal is a ratio of two measurements, both taken in every round (seconds apart). "
             "**Status** is decided on the ratio of the best-of-N values over all rounds. The median "
             "of the per-round ratios (each from that round's two best-of-N values) is a check: the "
             "machine changes speed within seconds, so the two best values may come from different "
             "moments; when the check disagrees the status says *borderline*.")
    if skip:
        L.append("")
        L.append("Rounds %s are left out of the goals: the cache-line round trip measured in them (< %g us) "
                 "shows the two processes on one physical core (SMT siblings), not the cross-core "
                 "transfer the goals are stated against." % (", ".join(str(r) for r in sorted(skip)),
                                                             SAME_CORE_RTT_US))
    L.append("")
    L.append("| goal (ratio) | target | best of N (all rounds) | ratio of bests | median per-round ratio "
             "| per-round range | status |")
    L.append("|---|---|---|---|---|---|---|")
    L += rows
    L.append("")

    L += gex.gasnet_table(st, fmt, ratio)

    L.append("## Peers and failures")
    L.append("")
    if peers:
        L.append("| peer | status | note |")
        L.append("|---|---|---|")
        for p in peers:
            L.append("| %s | %s | %s |" % (p["system"], p["status"], p["reason"]))
        L.append("")
    bad = [r for r in runs if r.get("status") != "ok"]
    if bad:
        # The same breakage repeats every round: one row per (system, status, kind of failure).
        total = defaultdict(int)
        for r in runs:
            total[r["system"]] += 1
        kinds = {}
        for r in bad:
            note = re.sub(r"\d+ results kept; ", "", r["note"])
            note = re.sub(r"\[\w+:\s*\d+\s*:\d+:\s*\d+\s*\]| at address 0x[0-9a-f]+|0x[0-9a-f]+|pid \d+|PID \d+", "", note).replace("|", "/")
            k = (r["system"], r["status"], note.strip())
            e = kinds.setdefault(k, {"n": 0, "groups": set(), "kept": 0})
            e["n"] += 1
            e["groups"].add(r["group"])
            m = re.search(r"(\d+) results kept", r["note"])
            e["kept"] += int(m.group(1)) if m else 0
        L.append("Runs that did not exit cleanly (whatever they printed before failing is kept and used):")
        L.append("")
        L.append("| system | failed runs | status | benchmark groups | results kept | what happened |")
        L.append("|---|---|---|---|---|---|")
        for (sy, stt, note), e in sorted(kinds.items()):
            L.append("| %s | %d of %d | %s | %s | %d | %s |" % (sy, e["n"], total[sy], stt,
                     ", ".join(sorted(e["groups"])), e["kept"], note))
    else:
        L.append("Every program run exited cleanly.")
    L.append("")

    sections = [
        ("put_latency", "Put latency, blocking (us)", "latency", "us", None),
        ("get_latency", "Get latency, blocking (us)", "latency", "us", None),
        ("put_bw", "Put flood bandwidth (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("get_bw", "Get flood bandwidth (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("am_short_rtt", "AM Short round trip (us)", "latency", "us", ("limit_cacheline_rtt", "one_line", 64)),
        ("am_medium_rtt", "AM Medium round trip (us)", "latency", "us", ("limit_copy_rtt", "echo", None)),
        ("am_long_rtt", "AM Long round trip (us)", "latency", "us", ("limit_copy_rtt", "echo", None)),
        ("am_medium_flood", "AM Medium one-way flood (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("am_medium_flood", "AM Medium one-way flood (million messages/s)", "rate", "Mmsg/s", None),
        ("am_long_flood", "AM Long one-way flood (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("am_long_flood", "AM Long one-way flood (million messages/s)", "rate", "Mmsg/s", None),
        ("barrier", "Barrier latency (us)", "latency", "us", None),
    ]
    L.append("## Rivet vs peers and limits")
    L.append("")
    L.append("Peer columns show the peer's best variant (in parentheses). MPI `am_*` rows are "
             "two-sided MPI_Send/MPI_Recv ping-pong (`send_recv`) or Isend/Irecv floods; OpenSHMEM "
             "`am_short_rtt` is a flag ping-pong with shmem_long_p; UCX `put_latency` is "
             "ucx_perftest's ucp_put_lat (half a put ping-pong round trip) and `am_medium_rtt` is "
             "twice ucp_am_lat.")
    L.append("")
    for bench, title, metric, unit, lim in sections:
        L += gex.section("### %s" % title, comparison_table(st, bench, metric, unit, lim))

    L.append("## Rivet variants (best of N)")
    L.append("")
    for bench, metric, unit in (("put_latency", "latency", "us"), ("get_latency", "latency", "us"),
                                ("put_bw", "bandwidth", "MB/s"), ("get_bw", "bandwidth", "MB/s")):
        L += gex.section("### %s" % bench, variants_table(st, bench, metric, unit))

    L += gex.section("## Injection overhead per operation vs queue depth (us, best of N)",
                     inject_tables(st),
                     "d back-to-back injections with GEX_EVENT_GROUP local completion (MPI: MPI_Put), "
                     "completion and a barrier outside the timed region; value = injection time / d.",
                     blank_after=False)

    L += gex.section("## Collectives (us, best of N)",
                     coll_table(a.results or os.path.join(a.out, "results.json")),
                     "bench_coll at 2 and 4 ranks on one host (2 cores: at 4 ranks they time-share): "
                     "each call timed on its own, then an untimed barrier; value = the slowest rank's "
                     "mean per call (barrier: back to back). allreduce = DBL sum; broadcast from rank 0. "
                     "MPI: MPI_Barrier, MPI_Allreduce, MPI_Bcast timed the same way (at more ranks than "
                     "cores: first round only, 0.5% of the iterations).")

    L += gex.section("## Remote atomics (best of N)", amo_tables(st),
                     "bench_amo: fetch-add from rank 0 to a word of rank 1, one at a time (latency) or "
                     "all in flight then one sync (throughput); hot spot: every rank fetch-adds one word "
                     "of rank 0, aggregate rate. CPU = atomics on the mapped segment, [ref] = "
                     "RIVET_RATOMIC=ref (every op an AM round trip); ref/CPU and Rivet/peer are ratios "
                     "of bests (for latencies < 1 is faster, for rates > 1 is faster). MPI: "
                     "MPI_Fetch_and_op(MPI_SUM) + MPI_Win_flush, a fifth of the iterations; at more "
                     "ranks than cores (hot spot np 4 and 8 on 2 cores) MPI busy-polls, so it runs in "
                     "the first round only with a twentieth.")
    L += gex.section("### Remote atomics over ofi (2 ranks, RIVET_PSHM=0)", amo_ofi_table(st, meta))

    L += gex.np_tables(st, fmt, fmt_size, ratio)
    L += gex.imm_tables(a.results or os.path.join(a.out, "results.json"), fmt, ratio)

    L += gex.section("## VIS: non-contiguous puts, stride optimizer on and off", vis_tables(st),
                     "bench_vis (the seed's testvisperf method): NB puts back to back, then one sync; "
                     "elements at 25% density on both sides; the 3-, 8- and 32-level Strided "
                     "descriptions all fold to the same 1-D stride. on = RIVET_VIS_OPT=1, off = 0 "
                     "(the caller's loop nest as given); on/off > 1 means the optimizer helps.",
                     blank_after=False)

    L += ofi_tables(st, meta)
    L += udp_tables(st, meta)
    L += ucx_tables(st)

    secs = defaultdict(float)
    for r in runs:
        try:
            g = "ucx perftest" if r["system"] == "ucx" else r["group"].split("-")[0]
            secs[(g, r["system"])] += float(r.get("seconds") or 0)
        except ValueError:
            pass
    if any(secs.values()):
        # where the run time goes, to keep `make bench` short (runs.tsv has every run's seconds)
        groups = sorted({g for g, _ in secs}, key=lambda g: -sum(v for (h, _), v in secs.items() if h == g))
        L.append("## Run time per benchmark group (s, all rounds)")
        L.append("")
        L.append("| group | total | Rivet | limits | peers |")
        L.append("|---|---|---|---|---|")
        for g in groups:
            tot = sum(v for (h, _), v in secs.items() if h == g)
            riv = sum(v for (h, sy), v in secs.items() if h == g and sy.startswith("rivet-"))
            lim = sum(v for (h, sy), v in secs.items() if h == g and sy == "limit")
            L.append("| %s | %.0f | %.0f | %.0f | %.0f |" % (g, tot, riv, lim, tot - riv - lim))
        L.append("")

    L.append("## Limits")
    L.append("")
    for v in ("one_line", "two_lines"):
        r = st.stat("limit_cacheline_rtt", "limit", v, "", 64)
        if r:
            L.append("- cache-line round trip between two processes (%s): best %s us, median %s us (%d samples)"
                     % (v, fmt(r["best"]), fmt(r["median"]), r["n"]))
    for z in (0, 4096):
        r = st.stat("limit_copy_rtt", "limit", "echo", "", z)
        if r:
            L.append("- %s echo round trip between two processes (copy in, copy across, flag each way): "
                     "best %s us, median %s us" % (fmt_size(z), fmt(r["best"]), fmt(r["median"])))
    r = st.stat("limit_memcpy_bw", "limit", None, "", 1 << 20)
    if r:
        L.append("- single-core memcpy at 1 MiB: best %s MB/s, median %s MB/s" % (fmt(r["best"], "MB/s"),
                                                                               fmt(r["median"], "MB/s")))
    L.append("")
    L.append("## Plots")
    L.append("")
    if plots:
        for p in plots:
            L.append("![%s](%s)" % (p, p))
        L.append("")
        L.append("(made with %s)" % how)
    else:
        L.append("No plots: %s." % how)
    L.append("")
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(L))
    return 0


if __name__ == "__main__":
    sys.exit(main())
