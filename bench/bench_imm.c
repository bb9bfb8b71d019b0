/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_imm.c: static vs dynamic (GEX_FLAG_IMMEDIATE) communication schedules towards
 * inattentive receivers; the method of GASNet-EX's testimm and the Aries seed's Figure 2.
 * Public GASNet-EX API only.
 *
 * Rank 0 sends M messages of one size to every other rank; the receivers sleep between polls
 * (--sleep-us, default 500) and only ever make progress in gasnet_AMPoll and the barrier test.
 * The nominal schedule sends blocks of B messages to one receiver before moving to the next:
 * B = M ("full"), 5 ("b5") or 1 ("cyclic"). "static": every operation without flags (an
 * operation that meets backpressure waits inside the call). "imm": the same schedule with
 * GEX_FLAG_IMMEDIATE; an operation that reports backpressure gets one gasnet_AMPoll and one
 * retry, and if that fails too the rest of the block is deferred and rank 0 moves on to the
 * next receiver; the outer loop runs until nothing is deferred. Time: from the start barrier
 * to the end of the barrier after the last operation's completion, per message.
 * Operations: AM Medium and AM Long Requests always; PutNBI and GetNBI when the receivers
 * are outside rank 0's shared-memory neighbourhood (over shared memory they are plain loads
 * and stores). Each receiver checks that exactly M AMs arrived. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { H_MED = GEX_AM_INDEX_BASE, H_LONG };
enum { OP_MED, OP_LONG, OP_PUT, OP_GET, NOPS };
static const char *const op_name[NOPS] = { "imm_am_medium", "imm_am_long", "imm_put", "imm_get" };

static _Atomic uint64_t arrived; /* AMs that reached this receiver in the current run */

static void h_med(gex_Token_t t, void *buf, size_t n) { (void)t, (void)buf, (void)n;
    atomic_fetch_add_explicit(&arrived, 1, memory_order_relaxed); }
static void h_long(gex_Token_t t, void *buf, size_t n) { (void)t, (void)buf, (void)n;
    atomic_fetch_add_explicit(&arrived, 1, memory_order_relaxed); }

static gex_AM_Entry_t handlers[] = {
    { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "imm_med" },
    { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 0, NULL, "imm_long" },
};

typedef struct {
    bg_job_t *j;
    size_t    size;       /* bytes per operation */
    long      m;          /* operations per receiver */
    long      sleep_us;   /* receivers' interval between polls */
    char    **seg;        /* every rank's segment base (rank 0 only) */
    long     *remain;     /* per receiver (rank 0 only) */
} imm_t;

static void nap(long us)
{
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* The receivers' barrier: sleep, poll, test. */
static void sleepy_barrier(imm_t *x)
{
    gex_Event_t e = gex_Coll_BarrierNB(x->j->tm, 0);
    do {
        nap(x->sleep_us);
        gasnet_AMPoll();
    } while (gex_Event_Test(e) != GASNET_OK);
}

/* One operation towards receiver r; nonzero when GEX_FLAG_IMMEDIATE found backpressure. */
static inline int issue(imm_t *x, int op, gex_Rank_t r, gex_Flags_t flags)
{
    bg_job_t *j = x->j;
    char *local = j->my_local_area;
    char *remote = x->seg[r];
    switch (op) {
    case OP_MED:
        return gex_AM_RequestMedium0(j->tm, r, H_MED, local, x->size, GEX_EVENT_GROUP, flags);
    case OP_LONG:
        return gex_AM_RequestLong0(j->tm, r, H_LONG, local, x->size, remote, GEX_EVENT_GROUP,
                                   flags);
    case OP_PUT:
        return gex_RMA_PutNBI(j->tm, r, remote, local, x->size, GEX_EVENT_GROUP, flags);
    default:
        return gex_RMA_GetNBI(j->tm, local, r, remote, x->size, flags);
    }
}

/* Rank 0's schedule; returns the operations that reported backpressure. */
static long active(imm_t *x, int op, long block, gex_Flags_t flags)
{
    gex_Rank_t n = x->j->n;
    long fails = 0;
    for (gex_Rank_t r = 1; r < n; r++) x->remain[r] = x->m;
    int done;
    do {
        done = 1;
        for (gex_Rank_t r = 1; r < n; r++) {
            long c, lim = block < x->remain[r] ? block : x->remain[r];
            for (c = 0; c < lim; c++) {
                if (!issue(x, op, r, flags)) continue;
                fails++;          /* backpressure: one poll, one retry, */
                gasnet_AMPoll();
                if (!issue(x, op, r, flags)) continue;
                fails++;          /* then defer the rest of this block */
                break;
            }
            x->remain[r] -= c;
            if (x->remain[r]) done = 0;
        }
    } while (!done);
    gex_NBI_Wait(op == OP_GET ? GEX_EC_GET : op == OP_PUT ? GEX_EC_PUT : GEX_EC_AM, 0);
    return fails;
}

/* One run on every rank; rank 0 returns the elapsed seconds, *fails its backpressure count.
 * A receiver that sees a number of AMs other than M exits the job with status 3. */
static double run(imm_t *x, int op, long block, gex_Flags_t flags, long *fails)
{
    bg_job_t *j = x->j;
    double dt = 0;
    if (j->me == 0) {
        bg_barrier(j); /* start */
        double t0 = bu_now();
        *fails = active(x, op, block, flags);
        bg_barrier(j); /* end */
        dt = bu_now() - t0;
    } else {
        atomic_store(&arrived, 0);
        sleepy_barrier(x); /* start */
        if (op == OP_MED || op == OP_LONG)
            while (atomic_load_explicit(&arrived, memory_order_relaxed) < (uint64_t)x->m) {
                nap(x->sleep_us);
                gasnet_AMPoll();
            }
        sleepy_barrier(x); /* end */
        uint64_t got = atomic_load(&arrived);
        if ((op == OP_MED || op == OP_LONG) && got != (uint64_t)x->m) {
            fprintf(stderr, "bench_imm: rank %u: %s: %llu AMs arrived, %ld sent\n",
                    (unsigned)j->me, op_name[op], (unsigned long long)got, x->m);
            gasnet_exit(3);
        }
    }
    return dt;
}

static long opt_long(int *argc, char **argv, const char *name, long dflt)
{
    long v = dflt;
    int k = 1;
    for (int i = 1; i < *argc; i++) {
        if (!strcmp(argv[i], name) && i + 1 < *argc) v = atol(argv[++i]);
        else argv[k++] = argv[i];
    }
    *argc = k;
    argv[k] = NULL;
    return v;
}

int main(int argc, char **argv)
{
    /* our own options first: bu_parse_args knows only the common ones */
    long sleep_us = opt_long(&argc, argv, "--sleep-us", 500);
    long msg_size = opt_long(&argc, argv, "--msg-size", 4096);
    long total = opt_long(&argc, argv, "--messages", 20000);
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_imm", handlers, sizeof handlers / sizeof handlers[0]);
    const bu_opts_t *o = &j.opt;
    imm_t x = { .j = &j, .sleep_us = sleep_us < 0 ? 0 : sleep_us };
    /* the seed strong-scales the count: 'total' messages over all receivers */
    x.m = (long)((double)total * o->scale / (double)(j.n - 1));
    if (x.m < 8) x.m = 8;
    size_t sz = msg_size < 0 ? 0 : (size_t)msg_size;
    if (sz > gex_AM_LUBRequestMedium()) sz = gex_AM_LUBRequestMedium();
    if (sz > gex_AM_LUBRequestLong()) sz = gex_AM_LUBRequestLong();
    if (sz > j.area) sz = j.area;
    x.size = sz;
    /* Put and Get only towards receivers outside our neighbourhood (every rank decides alike:
     * the neighbourhood is either everyone or only oneself here) */
    gex_RankInfo_t *nb = NULL;
    gex_Rank_t nbsize = 0;
    gex_System_QueryNbrhdInfo(&nb, &nbsize, NULL);
    int network = nbsize == 1;
    if (j.me == 0) {
        x.seg = calloc(j.n, sizeof *x.seg);
        x.remain = calloc(j.n, sizeof *x.remain);
        if (!x.seg || !x.remain) { fprintf(stderr, "bench_imm: out of memory\n"); gasnet_exit(2); }
        for (gex_Rank_t r = 1; r < j.n; r++) {
            void *base = NULL;
            if (gex_Segment_QueryBound(j.tm, r, &base, NULL, NULL) != GASNET_OK || !base) {
                fprintf(stderr, "bench_imm: gex_Segment_QueryBound(%u) failed\n", (unsigned)r);
                gasnet_exit(1);
            }
            x.seg[r] = base;
        }
        memset(j.my_local_area, 0x3c, sz);
    }
    static const char *const bname[3] = { "full", "b5", "cyclic" };
    long blocks[3] = { x.m, 5, 1 };
    for (int op = 0; op < NOPS; op++) {
        if ((op == OP_PUT || op == OP_GET) && !network && !(o->only && bu_selected(o, op_name[op], NULL)))
            continue;
        for (int b = 0; b < 3; b++) {
            char vs[2][24];
            snprintf(vs[0], sizeof vs[0], "%s-static", bname[b]);
            snprintf(vs[1], sizeof vs[1], "%s-imm", bname[b]);
            int sel[2] = { bu_selected(o, op_name[op], vs[0]), bu_selected(o, op_name[op], vs[1]) };
            if (!sel[0] && !sel[1]) continue;
            double per[2][BU_MAX_TRIALS];
            long fails[2] = { 0, 0 };
            /* trials alternate static and imm, so both see the same moments of the machine */
            for (int t = 0; t < o->trials; t++)
                for (int v = 0; v < 2; v++) {
                    if (!sel[v]) continue;
                    long f = 0;
                    double s = run(&x, op, blocks[b], v ? GEX_FLAG_IMMEDIATE : 0, &f);
                    per[v][t] = 1e6 * s / ((double)x.m * (double)(j.n - 1));
                    fails[v] += f;
                }
            if (j.me == 0)
                for (int v = 0; v < 2; v++) {
                    if (!sel[v]) continue;
                    char extra[160];
                    snprintf(extra, sizeof extra,
                             "\"messages\":%ld,\"receivers\":%u,\"block\":%ld,\"sleep_us\":%ld,"
                             "\"imm_fails\":%ld",
                             x.m, (unsigned)(j.n - 1), blocks[b], x.sleep_us, fails[v]);
                    bu_report(o, op_name[op], vs[v], x.size, "time_per_op", "us", per[v],
                              o->trials, extra);
                }
        }
    }
    bg_finish(&j);
}
