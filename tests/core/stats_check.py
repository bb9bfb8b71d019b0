#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
# tests/core/stats_check.py RIVETRUN RIVET_INFO STATS_COUNTS NP MODE: runs stats_counts under
# rivetrun with RIVET_STATS and checks the job summary against the operations it made.
#   auto   over shm: mapped copies, CPU atomics; per-rank files (RIVET_STATS_FILE with %), also
#          merged by rivet-info --stats to the same totals
#   ref    RIVET_RMA/RATOMIC/VIS=ref: everything by AM; one shared file (GASNET_STATSFILE)
#   fatal  the last rank dies of a fatal error: every rank still leaves its record
#   badenv bad settings stop the job before it starts, naming the variable
#   ofi    RIVET_TRANSPORT=ofi RIVET_PSHM=0: RDMA puts and gets, native atomics, VIS by AM, and
#          the transport's own counters folded in (tp.ofi.*)
#   segv   the last rank dies of a segmentation fault: its record says "crash" (SIGSEGV), with
#          exactly the counts up to then
#   kill   the last rank is killed by SIGKILL: rivetrun makes its record from its live file
#          ("killed"), with exactly the counts up to then
#   udp    RIVET_TRANSPORT=udp RIVET_PSHM=0 through UDP_RELAY (the 6th argument,
#          tests/transport/udp_relay.c) dropping 10% of the datagrams: the same exact counts,
#          tp.retransmits > 0 and the transport's counters (tp.udp.*)
#   udp_noloss  the same without the relay, with long retransmission timeouts and no tail-loss
#          probes (a descheduled peer would draw them): tp.retransmits is 0
import json, os, subprocess, sys, tempfile

rivetrun, info, prog, np, mode = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5]
relay = sys.argv[6] if len(sys.argv) > 6 else None
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)


def run(cmd, env_extra, timeout=90):
    env = dict(os.environ)
    for k in list(env):
        if k.startswith("RIVET_STATS") or k == "GASNET_STATSFILE":
            del env[k]
    env.update(env_extra)
    p = subprocess.run(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=timeout)
    return p.returncode, p.stdout, p.stderr


# What stats_counts does on every rank (tests/core/stats_counts.c).
def expected(np, ref, upto_fatal=False, net=False, max_long=None):
    e = {
        "am.sent.short.request": 3, "am.sent.short.reply": 3,
        "am.sent.medium.request": 5, "am.sent.medium.reply": 5,
        "am.sent.long.request": 2, "am.sent.long.reply": 0,
        "am.sent_bytes.medium.request": 10 + 100 + 1000 + 5000 + 40000,
        "am.sent_bytes.medium.reply": 5 * 16,
        "am.sent_bytes.long.request": 100 + 300000, "am.sent_bytes.long.reply": 0,
        "am.recv.short.request": 3, "am.recv.short.reply": 3,
        "am.recv.medium.request": 5, "am.recv.medium.reply": 5,
        "am.recv.long.request": 2, "am.recv.long.reply": 0,
        # Medium/Long payloads: 10, 100, 1000, 5000, 40000, 5 x 16 (replies), 100, 300000
        "am.sent_size.0-64": 6, "am.sent_size.65-512": 2, "am.sent_size.513-4K": 1,
        "am.sent_size.4K-32K": 1, "am.sent_size.32K-256K": 1, "am.sent_size.256K-": 1,
        "am.loopback": 18 if np == 1 else 0,
        "am.immediate_refused": 0,
    }
    if max_long:  # the 300000-byte Long went at the transport's largest (udp: 64 KiB)
        e.update({"am.sent_bytes.long.request": 100 + max_long, "am.sent_size.256K-": 0,
                  "am.sent_size.32K-256K": 2})
    if upto_fatal:
        return e
    if net:  # np 2 over ofi without shared memory (np 1: the own rank is mapped)
        e.update({
            "rma.put.rdma": 8, "rma.put.rdma_bytes": 7 * 64 + 1000, "rma.get.rdma": 4,
            "rma.get.rdma_bytes": 4 * 128, "rma.put.mapped": 0, "rma.put.am": 0,
            "amo.native": 7, "amo.cpu": 0, "amo.am": 0,
            "vis.put.am": 2, "vis.put.am_bytes": 2 * 64, "vis.get.am": 1, "vis.get.am_bytes": 2 * 32,
            "vis.put.mapped": 0, "coll.small": 8,
            # the RDMA of the puts and gets, and of the one 300000-byte AM Long
            "tp.ofi.puts": 9, "tp.ofi.gets": 4, "tp.ofi.amos": 7,
        })
        return e
    m, a = ("am", "am") if ref else ("mapped", "cpu")
    other = "mapped" if ref else "am"
    e.update({
        "rma.put." + m: 8, "rma.put." + m + "_bytes": 7 * 64 + 1000,
        "rma.get." + m: 4, "rma.get." + m + "_bytes": 4 * 128,
        "rma.put." + other: 0, "rma.get." + other: 0, "rma.put.rdma": 0, "rma.get.rdma": 0,
        "amo." + a: 7, "amo.cpu" if ref else "amo.am": 0, "amo.native": 0,
        "vis.put." + m: 2, "vis.put." + m + "_bytes": 2 * 64,
        "vis.get." + m: 1, "vis.get." + m + "_bytes": 2 * 32,
        "vis.put." + other: 0, "vis.get." + other: 0,
        # 6 barriers, 1 broadcast, and the collective inside gex_AD_Create
        "coll.small": 8, "coll.large": 0, "coll.two_level": 0, "coll.bytes": 64,
    })
    return e


def check_job(job, np, exp, what, reasons=None):
    check(job.get("rivet_stats_job") == 1, what + ": not a job summary")
    check(job.get("size") == np and job.get("ranks_found") == np,
          "%s: size %s, ranks found %s, expected %d" % (what, job.get("size"), job.get("ranks_found"), np))
    for k, v in exp.items():
        per = job["per_rank"].get(k)
        check(per == [v] * np, "%s: %s per rank is %s, expected %d on each" % (what, k, per, v))
        check(job["counters"].get(k) == v * np,
              "%s: %s total is %s, expected %d" % (what, k, job["counters"].get(k), v * np))
    for r in job["ranks"]:
        want = reasons(r["rank"]) if reasons else "exit"
        check(r["reason"] == want, "%s: rank %d ended with reason %s, expected %s" % (what, r["rank"], r["reason"], want))
    # times are nanoseconds within the rank's life (stats_counts has one thread; a poll inside
    # a poll is timed once)
    for r in job["ranks"]:
        el = r["elapsed_ns"]
        for k in ("poll.time_ns", "am.handler_ns", "am.internal.handler_ns"):
            v = job["per_rank"][k][r["rank"]]
            check(v <= el,
                  "%s: rank %d %s = %d exceeds its elapsed %d ns" % (what, r["rank"], k, v, el))
    # handlers ran and polls were timed
    if np > 1:
        check(all(x > 0 for x in job["per_rank"]["am.handler_ns"]), what + ": am.handler_ns is 0")
        check(all(x > 0 for x in job["per_rank"]["poll.calls"]), what + ": poll.calls is 0")


with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "job.json")
    if mode in ("auto", "ref"):
        env = {"RIVET_STATS": "1", "RIVET_STATS_JSON": out}
        if mode == "auto":
            env["RIVET_STATS_FILE"] = os.path.join(d, "r-%.json")
        else:
            env.update({"RIVET_RMA": "ref", "RIVET_RATOMIC": "ref", "RIVET_VIS": "ref",
                        "GASNET_STATSFILE": os.path.join(d, "all.json")})
        rc, so, se = run([rivetrun, "--timeout", "80", "-n", str(np), prog], env)
        check(rc == 0, "job failed (%d): %s" % (rc, se[-2000:]))
        check("rivet stats: %d of %d rank(s)" % (np, np) in se, "no summary table on stderr: " + se[-2000:])
        job = json.load(open(out))
        check_job(job, np, expected(np, mode == "ref"), mode)
        files = [os.path.join(d, "r-%d.json" % r) for r in range(np)] if mode == "auto" \
            else [os.path.join(d, "all.json")]
        for f in files:
            check(os.path.exists(f), "per-rank file %s missing" % f)
        if mode == "ref":
            lines = open(files[0]).read().splitlines()
            check(len(lines) == np, "shared file has %d records, expected %d" % (len(lines), np))
        out2 = os.path.join(d, "info.json")
        rc, so, se = run([info, "--stats", "--json", out2] + files, {})
        check(rc == 0, "rivet-info --stats failed (%d): %s" % (rc, se))
        check("rivet stats: %d of %d rank(s)" % (np, np) in so, "rivet-info --stats printed no table: " + so)
        check(json.load(open(out2))["counters"] == job["counters"], "rivet-info --stats totals differ from rivetrun's")
    elif mode == "ofi":
        env = {"RIVET_STATS": "1", "RIVET_STATS_JSON": out, "RIVET_PSHM": "0"}
        rc, so, se = run([rivetrun, "--timeout", "80", "--transport", "ofi", "-n", str(np), prog], env)
        check(rc == 0, "job failed (%d): %s" % (rc, se[-2000:]))
        job = json.load(open(out))
        if np > 1:
            check_job(job, np, expected(np, False, net=True), mode)
        else:
            check_job(job, np, expected(np, False), mode)
    elif mode == "fatal":
        env = {"RIVET_STATS": "1", "RIVET_STATS_JSON": out}
        rc, so, se = run([rivetrun, "--timeout", "80", "-n", str(np), prog, "fatal"], env)
        check(rc != 0, "the job with a fatal error exited 0")
        check("rivet: fatal:" in se, "no fatal error reported: " + se[-2000:])
        job = json.load(open(out))
        check_job(job, np, expected(np, False, upto_fatal=True), "fatal",
                  reasons=lambda r: "fatal" if r == np - 1 else "signal")
        check("ended by a fatal error" in se, "the table does not say a rank died: " + se[-2000:])
    elif mode in ("segv", "kill"):
        jobtmp = os.path.join(d, "tmp")  # rivetrun's job directory goes there
        os.mkdir(jobtmp)
        env = {"RIVET_STATS": "1", "RIVET_STATS_JSON": out, "TMPDIR": jobtmp}
        rc, so, se = run([rivetrun, "--timeout", "80", "-n", str(np), prog, mode], env)
        check(rc != 0, "the job whose rank died exited 0")
        sig = "SIGSEGV" if mode == "segv" else "SIGKILL"
        # (a sanitizer's SEGV handler, run after Rivet's, ends the rank with status 1 instead)
        check("killed by signal " + sig in se or (mode == "segv" and "Sanitizer: SEGV" in se),
              "rivetrun did not report the %s: %s" % (sig, se[-2000:]))
        job = json.load(open(out))
        want = "crash" if mode == "segv" else "killed"
        check_job(job, np, expected(np, False, upto_fatal=True), mode,
                  reasons=lambda r: want if r == np - 1 else "signal")
        last = job["ranks"][np - 1]
        if mode == "segv":
            check(last.get("signal") == "SIGSEGV", "segv: the record names signal %s" % last.get("signal"))
            check("rank %d crashed (SIGSEGV)" % (np - 1) in se, "the table does not say it crashed: " + se[-2000:])
        else:
            check("rank %d was killed" % (np - 1) in se, "the table does not say it was killed: " + se[-2000:])
        check(last.get("pid", 0) > 0 and last.get("elapsed_ns", 0) > 0, "%s: no pid or elapsed time: %s" % (mode, last))
        left = os.listdir(jobtmp)
        check(not left, "%s: rivetrun left its job directory behind: %s" % (mode, left))
        if mode == "kill":
            # without a launcher the live file stays; rivet-info --stats reads it
            rc, so, se = run([prog, "kill"], {"RIVET_STATS_FILE": os.path.join(d, "s-%.json")})
            live = os.path.join(d, "s-0.json.live")
            check(rc != 0 and os.path.exists(live), "kill alone: exit %d, live file %s" % (rc, os.listdir(d)))
            out2 = os.path.join(d, "alone.json")
            rc, so, se = run([info, "--stats", "--json", out2, live], {})
            check(rc == 0 and "rank 0 was killed" in so, "rivet-info --stats on a live file: %d %s %s" % (rc, so, se))
            if rc == 0:
                check_job(json.load(open(out2)), 1, expected(1, False, upto_fatal=True), "kill alone",
                          reasons=lambda r: "killed")
    elif mode in ("udp", "udp_noloss"):
        env = {"RIVET_STATS": "1", "RIVET_STATS_JSON": out, "RIVET_PSHM": "0", "RIVET_TRANSPORT": "udp"}
        cmd = [rivetrun, "--timeout", "100", "-n", str(np), prog]
        if mode == "udp":
            env["RIVET_UDP_RTO_US"] = "3000"
            cmd = [relay, "--ranks", str(np), "--drop", "100", "--"] + cmd
        else:  # no spurious timeouts on a loaded machine: retransmissions only after 0.5 s
            env.update({"RIVET_UDP_RTO_US": "500000", "RIVET_UDP_RTO_MIN_US": "500000",
                        "RIVET_UDP_TLP": "0"})
        rc, so, se = run(cmd, env, timeout=110)
        check(rc == 0, "job failed (%d): %s" % (rc, se[-2000:]))
        job = json.load(open(out))
        check_job(job, np, expected(np, np > 1, max_long=65536 if np > 1 else None), mode)
        c = job["counters"]
        check(c.get("tp.udp.data_out", 0) > 0 and c.get("tp.udp.dgrams_in", 0) > 0,
              "%s: no tp.udp counters: %s" % (mode, {k: v for k, v in c.items() if k.startswith("tp.")}))
        retx = c.get("tp.retransmits")
        if mode == "udp":
            check(retx is not None and retx > 0, "udp with 10%% loss: tp.retransmits is %s" % retx)
            check(retx == c.get("tp.udp.retx_timeout", -1) + c.get("tp.udp.retx_fast", -1) +
                  c.get("tp.udp.tlp", -1),
                  "tp.retransmits %s is not tp.udp.retx_timeout + retx_fast + tlp" % retx)
        else:
            check(retx == 0, "udp without loss: tp.retransmits is %s" % retx)
    elif mode == "badenv":
        cases = [
            ({"RIVET_STATS_FILE": "/nonexistent-dir/s-%.json"}, ["RIVET_STATS_FILE", "does not exist"]),
            ({"GASNET_STATSFILE": "/nonexistent-dir/s.json"}, ["GASNET_STATSFILE", "does not exist"]),
            ({"RIVET_STATS_FILE": d + "/"}, ["RIVET_STATS_FILE", "ends with '/'"]),
            ({"RIVET_STATS": "maybe"}, ["RIVET_STATS", "maybe"]),
        ]
        for env, words in cases:
            rc, so, se = run([rivetrun, "--timeout", "60", "-n", str(np), prog], env)
            check(rc == 2, "%s: rivetrun exited %d, expected 2 (nothing started)" % (env, rc))
            check(all(w in se for w in words), "%s: message lacks %s: %s" % (env, words, se))
            check("PASS" not in so, "%s: the program ran" % env)
            # the program alone (no launcher) refuses as well
            rc, so, se = run([prog], env)
            check(rc != 0 and all(w in se for w in words),
                  "%s alone: exit %d, message %s" % (env, rc, se))
        bad = os.path.join(d, "bad.json")
        open(bad, "w").write('{"hello": 1}\n')
        rc, so, se = run([info, "--stats", bad], {})
        check(rc != 0 and "not a RIVET_STATS record" in se, "rivet-info --stats on a bad file: %d %s" % (rc, se))
    else:
        fails.append("unknown mode " + mode)

if fails:
    for f in fails:
        print("FAIL:", f)
    sys.exit(1)
print("stats_check %s np%d: PASS" % (mode, np))
