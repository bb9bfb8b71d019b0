#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""trace_svg.py: draws a RIVET_TRACE job trace (Chrome/Perfetto JSON) as a static HTML page with
an SVG timeline: one lane per rank and thread, complete events as boxes stacked by nesting,
collectives and barriers as spans in a lane of their own, a line from each client AM send to
the handler run it caused. For documentation and quick looks without a trace viewer
(docs/observability.md); Perfetto (ui.perfetto.dev) or chrome://tracing open the same file.

Usage: trace_svg.py TRACE.json OUT.html [--from US] [--to US] [--width PX] [--title TEXT]
  --from/--to: the window, in microseconds of the trace's clock (default: everything)
Needs only python3."""
import argparse
import collections
import html
import json

COLORS = {"A": "#4e79a7", "C": "#9c755f", "P": "#59a14f", "G": "#8cd17d", "R": "#e15759",
          "V": "#b07aa1", "W": "#f28e2b", "B": "#edc948", "I": "#bab0ac"}
CAT_NAMES = {"A": "AM send / handler", "C": "internal AM", "P": "Put", "G": "Get",
             "R": "atomic", "V": "VIS", "W": "collective", "B": "barrier",
             "I": "start-up / exit phase"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("trace")
    ap.add_argument("out")
    ap.add_argument("--from", dest="t0", type=float)
    ap.add_argument("--to", dest="t1", type=float)
    ap.add_argument("--width", type=int, default=1400)
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    with open(a.trace) as f:
        evs = json.load(f)["traceEvents"]
    names = {}
    for e in evs:
        if e["ph"] == "M" and e["name"] == "process_name":
            names[e["pid"]] = e["args"]["name"]
    xs = [e for e in evs if e["ph"] == "X"]
    asy = [e for e in evs if e["ph"] in "be"]
    inst = [e for e in evs if e["ph"] == "i"]
    allts = [e["ts"] for e in xs + asy + inst] + [e["ts"] + e["dur"] for e in xs]
    t0 = a.t0 if a.t0 is not None else min(allts)
    t1 = a.t1 if a.t1 is not None else max(allts)
    span = max(t1 - t0, 1e-3)
    left, right, lane_h, box_h = 170, 20, 0, 14
    W = a.width
    px = lambda t: left + (min(max(t, t0), t1) - t0) / span * (W - left - right)
    vis = lambda b, e: e >= t0 and b <= t1

    # lanes: (pid, tid) for complete events, stacked by nesting depth; (pid, 'coll') for spans
    lanes = collections.defaultdict(list)
    for e in sorted(xs, key=lambda e: (e["pid"], e["tid"], e["ts"], -e["dur"])):
        lanes[(e["pid"], e["tid"])].append(e)
    depth = {}
    maxdepth = collections.Counter()
    for key, l in lanes.items():
        stack = []
        for e in l:
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            d = len(stack)
            depth[id(e)] = d
            stack.append(e["ts"] + e["dur"])
            if vis(e["ts"], e["ts"] + e["dur"]):
                maxdepth[key] = max(maxdepth[key], d + 1)
    spans = collections.defaultdict(list)
    open_ = {}
    for e in sorted(asy, key=lambda e: e["ts"]):
        k = (e["pid"], e["cat"], e["id"])
        if e["ph"] == "b":
            open_[k] = e
        elif k in open_:
            b = open_.pop(k)
            spans[e["pid"]].append((b["ts"], e["ts"], b["name"], b["cat"]))

    rows = []  # (label, kind, key, y, height)
    y = 60
    pids = sorted({p for p, _ in lanes} | set(spans))
    for p in pids:
        for key in sorted(k for k in lanes if k[0] == p):
            h = max(1, maxdepth[key]) * (box_h + 2) + 6
            rows.append(("%s thread %d" % (names.get(p, "rank %d" % p), key[1]), "x", key, y, h))
            y += h
        if spans.get(p):
            rows.append(("%s collectives" % names.get(p, "rank %d" % p), "s", p, y, box_h + 8))
            y += box_h + 8
        y += 8
    H = y + 70
    out = []
    out.append('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" '
               'font-family="sans-serif" font-size="11">' % (W, H))
    out.append('<rect width="100%" height="100%" fill="white"/>')
    out.append('<text x="10" y="20" font-size="15" font-weight="bold">%s</text>'
               % html.escape(a.title or "Rivet trace: %s" % a.trace))
    # time axis
    for i in range(11):
        t = t0 + span * i / 10
        x = px(t)
        out.append('<line x1="%.1f" y1="40" x2="%.1f" y2="%d" stroke="#ddd"/>' % (x, x, y))
        out.append('<text x="%.1f" y="36" text-anchor="middle" fill="#555">%s us</text>'
                   % (x, "%.1f" % t if span < 1e4 else "%.0f" % t))
    ypos = {}
    for label, kind, key, ry, h in rows:
        out.append('<rect x="0" y="%d" width="%d" height="%d" fill="%s"/>'
                   % (ry, W, h, "#f7f7f7" if kind == "x" else "#fdf6ec"))
        out.append('<text x="6" y="%d" fill="#222">%s</text>' % (ry + 14, html.escape(label)))
        if kind == "x":
            ypos[key] = ry
            for e in lanes[key]:
                b, en = e["ts"], e["ts"] + e["dur"]
                if not vis(b, en):
                    continue
                x0, x1 = px(b), px(en)
                yy = ry + 3 + depth[id(e)] * (box_h + 2)
                c = COLORS.get(e["cat"], "#999")
                tip = "%s (%s) %.3f us %s" % (e["name"], e["cat"], e["dur"],
                                               json.dumps(e.get("args", {})))
                out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" '
                           'stroke="#333" stroke-width="0.3"><title>%s</title></rect>'
                           % (x0, yy, max(x1 - x0, 1.0), box_h, c, html.escape(tip)))
                if x1 - x0 > 7 * len(e["name"]):
                    out.append('<text x="%.1f" y="%d" fill="white">%s</text>'
                               % (x0 + 2, yy + 11, html.escape(e["name"])))
        else:
            for b, en, name, cat in spans[key]:
                if not vis(b, en):
                    continue
                x0, x1 = px(b), px(en)
                out.append('<rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" '
                           'stroke="#333" stroke-width="0.3"><title>%s</title></rect>'
                           % (x0, ry + 4, max(x1 - x0, 1.0), box_h, COLORS.get(cat, "#999"),
                              html.escape("%s %.3f us" % (name, en - b))))
                if x1 - x0 > 7 * len(name):
                    out.append('<text x="%.1f" y="%d">%s</text>'
                               % (x0 + 2, ry + 15, html.escape(name)))
    # client AM send -> handler run: the k-th send from a to b with handler h meets the k-th
    # run on b of h from a (queues deliver a pair's messages in order)
    sends = collections.defaultdict(list)
    runs = collections.defaultdict(list)
    for e in sorted(xs, key=lambda e: e["ts"]):
        ar = e.get("args", {})
        if e["cat"] != "A" or "handler" not in ar:
            continue
        if e["name"].startswith("gex_AM_"):
            sends[(e["pid"], ar["peer"], ar["handler"])].append(e)
        else:
            runs[(ar["peer"], e["pid"], ar["handler"])].append(e)
    for k, sl in sends.items():
        for s, r in zip(sl, runs.get(k, [])):
            if not (vis(s["ts"], s["ts"]) or vis(r["ts"], r["ts"])):
                continue
            ks, kr = (s["pid"], s["tid"]), (r["pid"], r["tid"])
            if ks not in ypos or kr not in ypos:
                continue
            out.append('<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#4e79a7" '
                       'stroke-opacity="0.5" stroke-width="0.8"/>'
                       % (px(s["ts"] + s["dur"]), ypos[ks] + 3 + depth[id(s)] * (box_h + 2) + box_h,
                          px(r["ts"]), ypos[kr] + 3 + depth[id(r)] * (box_h + 2)))
    # legend
    x = 10
    for c, name in CAT_NAMES.items():
        out.append('<rect x="%d" y="%d" width="12" height="12" fill="%s"/>' % (x, y + 20, COLORS[c]))
        out.append('<text x="%d" y="%d">%s %s</text>' % (x + 16, y + 30, c, html.escape(name)))
        x += 30 + 7 * len(name)
    out.append('<text x="10" y="%d" fill="#555">window %.3f .. %.3f us; lines: AM send to '
               'its handler run</text>' % (y + 55, t0, t1))
    out.append("</svg>")
    with open(a.out, "w") as f:
        f.write("<!DOCTYPE html><html><head><meta charset='utf-8'><title>%s</title></head>"
                "<body style='margin:0'>%s</body></html>\n"
                % (html.escape(a.title or a.trace), "\n".join(out)))
    print("%s: %d lanes, %d events in the window, %d x %d px" % (a.out, len(rows),
          sum(1 for e in xs if vis(e["ts"], e["ts"] + e["dur"])), W, H))


if __name__ == "__main__":
    main()
