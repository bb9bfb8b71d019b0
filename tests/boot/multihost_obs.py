#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/boot/multihost_obs.py RIVETRUN FAKE_SSH STATS_COUNTS: RIVET_STATS and RIVET_TRACE of a
# multi-host job (2 fake hosts x 2 ranks, fake_ssh.sh, the udp transport) whose launcher keeps
# its files in a directory the other hosts do not share (RIVET_TEST_PRIVATE_DIR: each fake host
# gets an empty one of its own): the agents send their ranks' files back, and rivetrun merges
# every rank's stats and trace. Jobs: all ranks exit; the last rank is killed by SIGKILL (its
# agent turns its live file into its record); it dies of a segmentation fault; all ranks exit
# and GASNET_STATSFILE names one shared file (no %), which held a stale line before.
import json, os, shutil, subprocess, sys, tempfile

rivetrun, ssh, prog = sys.argv[1:4]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


if not shutil.which("unshare") or subprocess.run(
        ["unshare", "-m", "sh", "-c", "mount -t tmpfs x /mnt 2>/dev/null || mount -t tmpfs x /tmp"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode != 0:
    print("multihost_obs: SKIP: no private mount namespaces here (unshare -m, mount -t tmpfs)")
    sys.exit(77)

for job_mode in ("exit", "kill", "segv", "shared"):
    mode = "exit" if job_mode == "shared" else job_mode
    priv = tempfile.mkdtemp(prefix="rivet-mh-obs-")
    os.mkdir(os.path.join(priv, "tmp"))
    shared = os.path.join(priv, "all.json")
    out, trace = os.path.join(priv, "job.json"), os.path.join(priv, "trace.json")
    env = dict(os.environ)
    for k in list(env):
        if k.startswith(("RIVET_STATS", "RIVET_TRACE", "GASNET_STATS", "GASNET_TRACE")):
            del env[k]
    env.update({"RIVET_SSH": ssh, "RIVET_WAIT_MODE": "yield", "RIVET_TRANSPORT": "udp",
                "RIVET_STATS": "1", "RIVET_STATS_JSON": out, "RIVET_TRACE": trace,
                "RIVET_TEST_PRIVATE_DIR": priv, "TMPDIR": os.path.join(priv, "tmp")})
    if job_mode == "shared":
        open(shared, "w").write("stale line of an earlier job\n")
        env["GASNET_STATSFILE"] = shared
    cmd = [rivetrun, "--timeout", os.environ.get("RIVET_TEST_JOB_TIMEOUT", "50"),
           "--hosts", "h1:2,h2:2", prog] + ([] if mode == "exit" else [mode])
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=120)
    what = "job %s" % job_mode
    if job_mode == "shared":
        lines = open(shared).read().splitlines() if os.path.exists(shared) else []
        check(len(lines) == 4 and all('"rivet_stats":1' in l for l in lines),
              "%s: the shared file has %d lines: %s" % (what, len(lines), lines[:2]))
    check((p.returncode == 0) == (mode == "exit"), "%s exited %d:\n%s" % (what, p.returncode, p.stdout[:3000]))
    check("cannot create the stats file" not in p.stdout and "cannot create the trace file" not in p.stdout,
          "%s: a rank could not write its files:\n%s" % (what, p.stdout[:3000]))
    try:
        job = json.load(open(out))
    except Exception as e:
        fails.append("%s: no job summary (%s):\n%s" % (what, e, p.stdout[:3000]))
        shutil.rmtree(priv, ignore_errors=True)
        continue
    check(job["ranks_found"] == 4, "%s: %d of 4 ranks' stats" % (what, job["ranks_found"]))
    last = {"exit": "exit", "kill": "killed", "segv": "crash"}[mode]
    reasons = [r["reason"] for r in job["ranks"]]
    want = ["exit"] * 4 if mode == "exit" else ["signal"] * 3 + [last]
    check(reasons == want, "%s: reasons %s, expected %s" % (what, reasons, want))
    hosts = [r.get("host") for r in job["ranks"]]
    check(hosts == ["h1", "h1", "h2", "h2"], "%s: hosts %s" % (what, hosts))
    # exact counts of what stats_counts did before the end (AMs, tests/core/stats_counts.c)
    for k, v in (("am.sent.short.request", 3), ("am.recv.short.reply", 3), ("am.sent.medium.request", 5),
                 ("am.recv.medium.request", 5), ("am.sent.long.request", 2)):
        check(job["per_rank"].get(k) == [v] * 4, "%s: %s per rank %s, expected %d" % (what, k, job["per_rank"].get(k), v))
    if mode == "exit":  # the RMA went by copy on the own host, by AM to the other
        puts = [job["per_rank"]["rma.put.mapped"][r] + job["per_rank"]["rma.put.am"][r] for r in range(4)]
        check(puts == [8] * 4, "%s: puts per rank %s, expected 8" % (what, puts))
        check(all(x > 0 for x in job["per_rank"]["tp.udp.data_out"]), "%s: tp.udp.data_out %s" % (what, job["per_rank"]["tp.udp.data_out"]))
    # one merged trace with every rank in it
    try:
        tr = json.load(open(trace))
        pids = sorted({e["pid"] for e in tr["traceEvents"] if e.get("ph") == "X"})
        want_pids = [0, 1, 2, 3] if mode == "exit" else [0, 1, 2]  # a killed rank may lose its buffer
        check(all(x in pids for x in want_pids), "%s: trace events from ranks %s, expected %s" % (what, pids, want_pids))
        if mode == "exit":
            names = {e["name"] for e in tr["traceEvents"] if e.get("pid") == 3}
            check("gex_AM_RequestShort" in names, "%s: rank 3's trace lacks its AM Shorts" % what)
    except Exception as e:
        fails.append("%s: no merged trace (%s):\n%s" % (what, e, p.stdout[:3000]))
    left = os.listdir(os.path.join(priv, "tmp"))
    check(not left, "%s: left in the launcher's TMPDIR: %s" % (what, left))
    shutil.rmtree(priv, ignore_errors=True)

if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("multihost_obs: PASS")
