#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""trace_check.py CASE RIVETRUN RIVET_INFO TRACE_PROG WORKDIR: runs trace_prog under RIVET_TRACE
and checks the trace (tests/trace/CMakeLists.txt). Prints 'trace_CASE: PASS' or fails loudly."""
import collections
import json
import os
import shutil
import subprocess
import sys

case, rivetrun, rivet_info, prog, work = sys.argv[1:6]
NP = 2
# trace_prog.c's numbers
N_SHORT, N_MEDIUM, MEDIUM_BYTES, N_LONG, LONG_BYTES = 37, 11, 100, 5, 4096
N_PUT, PUT_BYTES, N_GET, GET_BYTES, N_AMO = 13, 256, 7, 64, 3


def fail(msg):
    print("FAIL trace_%s: %s" % (case, msg))
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def run(env, np=NP, expect_ok=True, cmd=None):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("RIVET_TRACE") or k.startswith("GASNET_TRACE"):
            del e[k]
    e.update(env)
    cmd = cmd or [rivetrun, "-n", str(np), "--timeout", "150", prog]
    p = subprocess.run(cmd, env=e, cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, timeout=170)
    out = p.stdout + p.stderr
    if expect_ok and p.returncode != 0:
        fail("%s exited %d:\n%s" % (" ".join(cmd), p.returncode, out))
    return p.returncode, out


def load(path):
    check(os.path.exists(path), "no trace file %s" % path)
    with open(path) as f:
        try:
            d = json.load(f)
        except ValueError as x:
            fail("%s is not JSON: %s" % (path, x))
    check(isinstance(d.get("traceEvents"), list), "%s has no traceEvents list" % path)
    for ev in d["traceEvents"]:
        for k in ("name", "ph", "pid"):
            check(k in ev, "event without %s: %s" % (k, ev))
        if ev["ph"] != "M":
            check(isinstance(ev.get("ts"), (int, float)) and ev["ts"] >= 0, "bad ts: %s" % ev)
            check("cat" in ev and "tid" in ev, "event without cat/tid: %s" % ev)
        if ev["ph"] == "X":
            check(isinstance(ev.get("dur"), (int, float)) and ev["dur"] >= 0, "bad dur: %s" % ev)
    return d


def count(d, pid, name, peer=None, nbytes=None, ph="X"):
    n = 0
    for ev in d["traceEvents"]:
        if ev["pid"] != pid or ev["name"] != name or ev["ph"] != ph:
            continue
        a = ev.get("args", {})
        if peer is not None and a.get("peer") != peer:
            continue
        if nbytes is not None and a.get("bytes") != nbytes:
            continue
        n += 1
    return n


def expect(d, pid, name, want, **kw):
    got = count(d, pid, name, **kw)
    check(got == want, "rank %d: %d '%s' events %s, expected %d" % (pid, got, name, kw, want))


def check_all_ops(d, cats="GPRVWBACI"):
    """Exactly the operations trace_prog did, for the categories in cats."""
    for r in range(NP):
        right, left = (r + 1) % NP, (r + NP - 1) % NP
        on = lambda c: c in cats
        expect(d, r, "gex_AM_RequestShort", N_SHORT if on("A") else 0, peer=right, nbytes=0)
        expect(d, r, "gex_AM_RequestMedium", N_MEDIUM if on("A") else 0, peer=right,
               nbytes=MEDIUM_BYTES)
        expect(d, r, "gex_AM_RequestLong", N_LONG if on("A") else 0, peer=right,
               nbytes=LONG_BYTES)
        expect(d, r, "t_short", N_SHORT if on("A") else 0, peer=left, nbytes=0)
        expect(d, r, "t_medium", N_MEDIUM if on("A") else 0, peer=left, nbytes=MEDIUM_BYTES)
        expect(d, r, "t_long", N_LONG if on("A") else 0, peer=left, nbytes=LONG_BYTES)
        expect(d, r, "gex_RMA_PutBlocking", N_PUT if on("P") else 0, peer=right,
               nbytes=PUT_BYTES)
        expect(d, r, "gex_RMA_GetBlocking", N_GET if on("G") else 0, peer=right,
               nbytes=GET_BYTES)
        expect(d, r, "gex_AD_OpNB_U64", N_AMO if on("R") else 0, peer=right, nbytes=8)
        expect(d, r, "gex_VIS_StridedPutBlocking", 1 if on("V") else 0, peer=right, nbytes=64)
        # the client's three barriers (rvt_barrier) and the end one, begun and ended
        nb = count(d, r, "gex_Coll_BarrierNB", ph="b")
        ne = count(d, r, "gex_Coll_BarrierNB", ph="e")
        check(nb == ne and (nb >= 4 if on("B") else nb == 0),
              "rank %d: %d barrier begins, %d ends" % (r, nb, ne))
        for phase in ("bootstrap", "transport open", "gex_Client_Init", "exit"):
            expect(d, r, phase, 1 if on("I") else 0)
    cats_seen = {ev["cat"] for ev in d["traceEvents"] if ev["ph"] != "M"}
    check(cats_seen <= set(cats), "categories %s outside the mask %s" % (cats_seen, cats))
    check({ev["pid"] for ev in d["traceEvents"]} == set(range(NP)), "pids are not the ranks")


shutil.rmtree(work, ignore_errors=True)
os.makedirs(work)
spec = os.path.join(work, "t.json")
parts = [os.path.join(work, "t.%d.json" % r) for r in range(NP)]

if case == "events":
    rc, out = run({"RIVET_TRACE": spec})
    check("trace of %d rank(s)" % NP in out, "rivetrun did not report the merge:\n" + out)
    d = load(spec)
    check_all_ops(d)
    check(not any(os.path.exists(p) for p in parts), "rank files left after the merge")
    check(d["otherData"]["dropped"] == 0 and d["otherData"]["missing"] == [],
          "otherData: %s" % d["otherData"])
    # one timeline: times from the job's first event
    check(min(ev["ts"] for ev in d["traceEvents"] if "ts" in ev) == 0, "not rebased to 0")
    # library-internal AMs (the broadcast's messages) are category C
    check(any(ev["cat"] == "C" for ev in d["traceEvents"] if ev["ph"] == "X"),
          "no internal AM events")
    # scripts/trace_svg.py draws it: a lane per rank's thread and one for its collectives
    svg = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts",
                       "trace_svg.py")
    page = os.path.join(work, "t.html")
    p = subprocess.run([sys.executable, svg, spec, page], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    check(p.returncode == 0 and "%d lanes" % (2 * NP) in p.stdout, "trace_svg.py: " + p.stdout)
    with open(page) as f:
        text = f.read()
    check("<svg" in text and "gex_Coll_BarrierNB" in text and "t_short" in text,
          "trace_svg.py drew no events")
elif case == "cap":
    rc, out = run({"RIVET_TRACE": spec, "RIVET_TRACE_MAX": "20"})
    check("dropped at RIVET_TRACE_MAX" in out, "merge did not report dropped events:\n" + out)
    d = load(spec)
    for r in range(NP):
        evs = [ev for ev in d["traceEvents"] if ev["pid"] == r and ev["ph"] != "M"]
        notes = [ev for ev in evs if ev["ph"] == "i"]
        check(len(evs) == 21, "rank %d recorded %d events, expected 20 and the note"
              % (r, len(evs)))
        check(len(notes) == 1 and "truncated" in notes[0]["name"],
              "rank %d: no truncation note: %s" % (r, notes))
    check(d["otherData"]["dropped"] > 2 * (N_SHORT + N_PUT), "dropped: %s" % d["otherData"])
elif case == "mask":
    for mask in ("P", "AG", "WBI"):
        run({"RIVET_TRACE": spec, "RIVET_TRACE_MASK": mask})
        check_all_ops(load(spec), mask)
elif case == "gasnet":
    # GASNet's names: GASNET_TRACEFILE with % (the rank), GASNET_TRACEMASK
    gspec = os.path.join(work, "g_%.trace")
    run({"GASNET_TRACEFILE": gspec, "GASNET_TRACEMASK": "GP"})
    d = load(os.path.join(work, "g_all.trace"))
    check_all_ops(d, "GP")
    check(not os.path.exists(os.path.join(work, "g_0.trace")), "rank files left")
elif case == "merge_tool":
    # a job without rivetrun (a singleton, as under srun each rank would be) leaves its
    # rank file; rivet-info --merge-trace merges it
    e = {"RIVET_TRACE": spec}
    run(e, cmd=[prog])
    check(os.path.exists(parts[0]), "singleton left no %s" % parts[0])
    p = subprocess.run([rivet_info, "--merge-trace", spec], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True, timeout=60)
    check(p.returncode == 0 and "trace of 1 rank(s)" in p.stdout, "merge: %s" % p.stdout)
    d = load(spec)
    check(count(d, 0, "gex_RMA_PutBlocking", peer=0, nbytes=PUT_BYTES) == N_PUT, "puts")
    check(os.path.exists(parts[0]), "rivet-info removed the rank file")
    p = subprocess.run([rivet_info, "--merge-trace", os.path.join(work, "none.json")],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, timeout=60)
    check(p.returncode != 0 and "no rank file" in p.stdout, "missing files: %s" % p.stdout)
elif case == "bad":
    for env, want in (
            ({"RIVET_TRACE": spec, "RIVET_TRACE_MASK": "PQ"},
             "RIVET_TRACE_MASK=PQ: 'Q' is not a trace category"),
            ({"RIVET_TRACE": spec, "GASNET_TRACEMASK": "p"}, "'p' is not a trace category"),
            ({"RIVET_TRACE": spec, "RIVET_TRACE_MAX": "0"}, "RIVET_TRACE_MAX"),
            ({"RIVET_TRACE": spec, "RIVET_TRACE_BUF": "1K"}, "RIVET_TRACE_BUF"),
            ({"GASNET_TRACEFILE": "stderr"}, "traces go to files"),
            ({"RIVET_TRACE": os.path.join(work, "no", "such", "dir", "t.json")},
             "cannot create the trace file")):
        rc, out = run(env, expect_ok=False)
        check(rc != 0, "%s: the job succeeded" % env)
        check(want in out, "%s: no '%s' in:\n%s" % (env, want, out))
elif case == "killed":
    # rank 0 ends the job with gasnet_exit(3) while rank 1 waits: rivetrun ends rank 1 with
    # SIGTERM, and rank 1 still writes its whole trace
    rc, out = run({"RIVET_TRACE": spec}, expect_ok=False,
                  cmd=[rivetrun, "-n", str(NP), "--timeout", "150", prog, "die"])
    check(rc == 3, "exit status %d, expected 3:\n%s" % (rc, out))
    check("trace of %d rank(s)" % NP in out and "cut short" not in out, "merge: " + out)
    d = load(spec)
    for r in range(NP):
        expect(d, r, "t_short", N_SHORT, peer=(r + NP - 1) % NP, nbytes=0)
        expect(d, r, "exit", 1)
elif case == "threads":
    # rma_threads: per rank, 2 threads x 2000 iterations of PutNB, GetNB, PutNBI, GetNBI
    run({"RIVET_TRACE": spec})
    d = load(spec)
    for r in range(NP):
        lanes = collections.Counter(ev["tid"] for ev in d["traceEvents"]
                                    if ev["pid"] == r and ev["ph"] == "X" and ev["cat"] in "PG")
        check(len(lanes) == 2 and all(n == 8000 for n in lanes.values()),
              "rank %d: RMA events by thread %s, expected 2 threads of 8000 (4 a loop)" % (r, dict(lanes)))
        names = [ev["args"]["name"] for ev in d["traceEvents"]
                 if ev["pid"] == r and ev["name"] == "thread_name"]
        check(len(names) >= 3 and any(n.startswith("main") for n in names),
              "rank %d thread names: %s" % (r, names))
else:
    fail("unknown case")
print("trace_%s: PASS" % case)
