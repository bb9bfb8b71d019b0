#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# scripts/bench_report.py: turns build/bench/results.json into report.md (tables, ratios, goals)
# and PNG plots (matplotlib if importable, else gnuplot, else none, with the reason).
"""Aggregates every JSON line of results.json by (benchmark, system, variant, config, size,
metric, depth): best-of-N is the minimum of all trial samples for latencies ("us") and the
maximum for bandwidths/rates; the median is over all samples of all interleaved runs."""
import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict

RIVET = "rivet-shm"
PEERS = ["mpi-openmpi", "mpi-mpich", "oshmem", "ucx"]
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
    if unit == "MB/s" or abs(v) >= 1000:
        return "%.0f" % v
    if abs(v) >= 10:
        return "%.1f" % v
    if abs(v) >= 1:
        return "%.2f" % v
    return "%.3f" % v


def ratio(a, b):
    if a is None or b is None or b == 0:
        return None
    return a / b


class Store:
    def __init__(self, path):
        self.groups = defaultdict(list)
        self.meta = {}
        self.bad = 0
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
                    self.bad += 1
                    continue
                key = (r["benchmark"], r["system"], r.get("variant", ""), r.get("config", ""),
                       int(r["size"]), r["metric"], int(r.get("depth", 0)))
                samples = r.get("samples") or [r["value"]]
                self.groups[key].extend(float(x) for x in samples)
                self.meta[key] = r["unit"]

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
        head += ["limit %s" % limit[0], "Rivet/limit"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "---|" * len(head))
    for size in sizes:
        r = st.stat(bench, RIVET, hv, "", size, metric)
        row = [fmt_size(size), fmt(r and r["best"], unit), fmt(r and r["median"], unit)]
        for s in systems:
            p = st.stat(bench, s, None, None, size, metric)
            row += [fmt(p and p["best"], unit) + ((" (%s)" % p["label"]) if p and p["label"] else ""),
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


def inject_table(st):
    keys = sorted({(k[1], k[2], k[4]) for k in st.groups if k[0] == "inject_overhead"},
                  key=lambda x: (x[0] != RIVET, x[0], x[1], x[2]))
    if not keys:
        return []
    depths = sorted({k[6] for k in st.groups if k[0] == "inject_overhead"})
    head = ["depth"] + ["%s %s %s" % (s, v, fmt_size(z)) for s, v, z in keys]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for d in depths:
        row = [str(d)]
        for s, v, z in keys:
            r = st.stat("inject_overhead", s, v, None, z, "overhead", d)
            row.append(fmt(r and r["best"], "us"))
        lines.append("| " + " | ".join(row) + " |")
    return lines


# ---- goals ---------------------------------------------------------------------------------
def goals(st):
    out = []

    def g(name, target, measured, ok):
        status = "unknown (not measured)" if ok is None else ("**met**" if ok else "**missed**")
        out.append("| %s | %s | %s | %s |" % (name, target, measured, status))

    short = st.stat("am_short_rtt", RIVET, None, "", 0, "latency")
    cl = st.stat("limit_cacheline_rtt", "limit", "one_line", "", 64)
    r = ratio(short and short["best"], cl and cl["best"])
    g("AM Short round trip vs cache-line round trip", "<= 1.3x",
      "Rivet %s us / cache line %s us = %sx" % (fmt(short and short["best"]), fmt(cl and cl["best"]), fmt(r)),
      None if r is None else r <= 1.3)

    for bench, what in (("put_latency", "put"), ("get_latency", "get")):
        rv = st.stat(bench, RIVET, "blocking", "", 8, "latency")
        best_mpi, who = None, None
        for s in ("mpi-openmpi", "mpi-mpich"):
            p = st.stat(bench, s, None, None, 8, "latency")
            if p and (best_mpi is None or p["best"] < best_mpi):
                best_mpi, who = p["best"], s + ((" [%s]" % p["label"]) if p["label"] else "")
        r = ratio(best_mpi, rv and rv["best"])
        g("8-byte blocking %s latency vs best MPI-3 RMA" % what, ">= 5x lower",
          "Rivet %s us, best MPI %s us (%s): %sx lower" % (fmt(rv and rv["best"]), fmt(best_mpi),
                                                          who or "none", fmt(r)),
          None if r is None else r >= 5)

    mb = 1 << 20
    pb = st.stat("put_bw", RIVET, None, "", mb, "bandwidth")
    mc = st.stat("limit_memcpy_bw", "limit", None, "", mb)
    r = ratio(pb and pb["best"], mc and mc["best"])
    g("put flood bandwidth at 1 MiB vs single-core memcpy at 1 MiB", ">= 0.9x",
      "Rivet %s MB/s (%s) / memcpy %s MB/s = %sx" % (fmt(pb and pb["best"], "MB/s"),
                                                    pb and pb["variant"], fmt(mc and mc["best"], "MB/s"), fmt(r)),
      None if r is None else r >= 0.9)

    med = st.stat("am_medium_rtt", RIVET, None, "", 4096, "latency")
    r = ratio(med and med["best"], short and short["best"])
    g("AM Medium round trip at 4 KiB vs AM Short round trip", "<= 2x",
      "Medium 4 KiB %s us / Short %s us = %sx" % (fmt(med and med["best"]), fmt(short and short["best"]), fmt(r)),
      None if r is None else r <= 2)
    return out


# ---- plots ----------------------------------------------------------------------------------
PLOTS = [
    ("latency_vs_size.png", "Latency vs size (best of N)", "us",
     [("put_latency", "latency"), ("get_latency", "latency"), ("am_medium_rtt", "latency"),
      ("am_long_rtt", "latency")]),
    ("bandwidth_vs_size.png", "Bandwidth vs size (best of N)", "MB/s",
     [("put_bw", "bandwidth"), ("get_bw", "bandwidth"), ("am_medium_flood", "bandwidth"),
      ("am_long_flood", "bandwidth"), ("limit_memcpy_bw", "bandwidth")]),
]


def series(st, bench, metric):
    """One series per (system, variant, config): [(size, best)]."""
    out = {}
    for k, vals in st.groups.items():
        if k[0] != bench or k[5] != metric or k[4] <= 0:
            continue
        lower = st.meta[k] == "us"
        label = "%s %s%s%s" % (k[1], bench, (" " + k[2]) if k[2] else "", (" [" + k[3] + "]") if k[3] else "")
        out.setdefault(label, []).append((k[4], min(vals) if lower else max(vals)))
    return {k: sorted(v) for k, v in out.items()}


def inject_series(st):
    out = {}
    for k, vals in st.groups.items():
        if k[0] != "inject_overhead":
            continue
        label = "%s %s %s" % (k[1], k[2], fmt_size(k[4]))
        out.setdefault(label, []).append((k[6], min(vals)))
    return {k: sorted(v) for k, v in out.items()}


def all_plots(st):
    specs = []
    for fname, title, unit, benches in PLOTS:
        s = {}
        for b, m in benches:
            s.update(series(st, b, m))
        specs.append((fname, title, "size (bytes)", unit, s))
    specs.append(("inject_overhead_vs_depth.png", "Injection overhead per op vs queue depth "
                  "(GEX_EVENT_GROUP)", "queue depth", "us per operation", inject_series(st)))
    return [x for x in specs if x[4]]


def plot_matplotlib(specs, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    made = []
    for fname, title, xl, yl, s in specs:
        fig, ax = plt.subplots(figsize=(10, 6))
        for label, pts in sorted(s.items()):
            style = "-" if label.startswith(RIVET) else ("--" if label.startswith("limit") else ":")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker=".", label=label)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(title)
        ax.set_xlabel(xl)
        ax.set_ylabel(yl)
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=6, ncol=2)
        fig.tight_layout()
        fig.savefig(os.path.join(out, fname), dpi=110)
        plt.close(fig)
        made.append(fname)
    return made


def plot_gnuplot(specs, out):
    gp = shutil.which("gnuplot")
    made = []
    for fname, title, xl, yl, s in specs:
        dat = os.path.join(out, fname + ".dat")
        names = sorted(s)
        with open(dat, "w") as f:
            for label in names:
                for x, y in s[label]:
                    f.write("%g %g\n" % (x, y))
                f.write("\n\n")
        cmds = ['set terminal png size 1000,600', 'set output "%s"' % os.path.join(out, fname),
                'set logscale xy', 'set title "%s"' % title, 'set xlabel "%s"' % xl,
                'set ylabel "%s"' % yl, 'set key outside right font ",7"', 'set grid']
        plots = ['"%s" index %d with linespoints title "%s"' % (dat, i, n.replace('"', ''))
                 for i, n in enumerate(names)]
        cmds.append("plot " + ", ".join(plots))
        subprocess.run([gp], input="\n".join(cmds), text=True, check=True)
        os.unlink(dat)
        made.append(fname)
    return made


def make_plots(st, out):
    specs = all_plots(st)
    if not specs:
        return [], "no data to plot"
    try:
        return plot_matplotlib(specs, out), "matplotlib"
    except ImportError:
        pass
    if shutil.which("gnuplot"):
        try:
            return plot_gnuplot(specs, out), "gnuplot"
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
    L.append("- %d measurements, %d program runs%s" % (len(st.groups), len(runs),
             (", %d unparsable lines" % st.bad) if st.bad else ""))
    L.append("")

    L.append("## Goals (2 ranks, one host)")
    L.append("")
    L.append("| goal | target | measured (best of N) | status |")
    L.append("|---|---|---|---|")
    L += goals(st)
    L.append("")

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
        L.append("Runs that did not exit cleanly (results they printed before failing are kept):")
        L.append("")
        L.append("| system | group | round | status | note |")
        L.append("|---|---|---|---|---|")
        for r in bad:
            L.append("| %s | %s | %s | %s | %s |" % (r["system"], r["group"], r["round"], r["status"],
                                                    r["note"].replace("|", "/")))
    else:
        L.append("Every program run exited cleanly.")
    L.append("")

    sections = [
        ("put_latency", "Put latency, blocking (us)", "latency", "us", None),
        ("get_latency", "Get latency, blocking (us)", "latency", "us", None),
        ("put_bw", "Put flood bandwidth (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("get_bw", "Get flood bandwidth (MB/s)", "bandwidth", "MB/s", ("limit_memcpy_bw", None, None)),
        ("am_short_rtt", "AM Short round trip (us)", "latency", "us", ("limit_cacheline_rtt", "one_line", 64)),
        ("am_medium_rtt", "AM Medium round trip (us)", "latency", "us", ("limit_cacheline_rtt", "one_line", 64)),
        ("am_long_rtt", "AM Long round trip (us)", "latency", "us", ("limit_cacheline_rtt", "one_line", 64)),
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
        t = comparison_table(st, bench, metric, unit, lim)
        if t:
            L.append("### %s" % title)
            L.append("")
            L += t
            L.append("")

    L.append("## Rivet variants (best of N)")
    L.append("")
    for bench, metric, unit in (("put_latency", "latency", "us"), ("get_latency", "latency", "us"),
                                ("put_bw", "bandwidth", "MB/s"), ("get_bw", "bandwidth", "MB/s")):
        t = variants_table(st, bench, metric, unit)
        if t:
            L.append("### %s" % bench)
            L.append("")
            L += t
            L.append("")

    t = inject_table(st)
    if t:
        L.append("## Injection overhead per operation vs queue depth (us, best of N)")
        L.append("")
        L.append("d back-to-back injections with GEX_EVENT_GROUP local completion (MPI: MPI_Put), "
                 "completion and a barrier outside the timed region; value = injection time / d.")
        L.append("")
        L += t
        L.append("")

    L.append("## Limits")
    L.append("")
    for v in ("one_line", "two_lines"):
        r = st.stat("limit_cacheline_rtt", "limit", v, "", 64)
        if r:
            L.append("- cache-line round trip between two processes (%s): best %s us, median %s us (%d samples)"
                     % (v, fmt(r["best"]), fmt(r["median"]), r["n"]))
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
