/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_rma.c: put/get latency (blocking) and flood bandwidth (NB, NBI) over sizes. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One put/get pattern. */
typedef struct {
    const char *bench;   /* put_latency, get_latency, put_bw, get_bw */
    const char *variant;
    int         is_put;
    int         mode;    /* 0 blocking, 1 NB (explicit events), 2 NBI */
    int         bulk;    /* puts: lc_opt DEFER instead of NOW */
    int         outside; /* local buffer (put source / get destination) outside the segment */
} pattern_t;

static const pattern_t patterns[] = {
    { "put_latency", "blocking",                  1, 0, 0, 0 },
    { "put_latency", "blocking_src_outside_seg",  1, 0, 0, 1 },
    { "get_latency", "blocking",                  0, 0, 0, 0 },
    { "get_latency", "blocking_dst_outside_seg",  0, 0, 0, 1 },
    { "put_bw",      "nbi_bulk",                  1, 2, 1, 0 },
    { "put_bw",      "nbi",                       1, 2, 0, 0 },
    { "put_bw",      "nb_bulk",                   1, 1, 1, 0 },
    { "put_bw",      "nb",                        1, 1, 0, 0 },
    { "put_bw",      "nbi_bulk_src_outside_seg",  1, 2, 1, 1 },
    { "put_bw",      "nbi_src_outside_seg",       1, 2, 0, 1 },
    { "put_bw",      "nb_bulk_src_outside_seg",   1, 1, 1, 1 },
    { "put_bw",      "nb_src_outside_seg",        1, 1, 0, 1 },
    { "get_bw",      "nbi",                       0, 2, 0, 0 },
    { "get_bw",      "nb",                        0, 1, 0, 0 },
    { "get_bw",      "nbi_dst_outside_seg",       0, 2, 0, 1 },
    { "get_bw",      "nb_dst_outside_seg",        0, 1, 0, 1 },
};

#define MAX_EVENTS 65536
static gex_Event_t events[MAX_EVENTS];

/* 'iters' operations of pattern p at 'size' bytes, completed; returns elapsed seconds. */
static double run(bg_job_t *j, const pattern_t *p, size_t size, long iters)
{
    char *local = p->outside ? j->heap : j->my_local_area;
    char *remote = j->peer_remote_area;
    gex_Event_t *lc = p->bulk ? GEX_EVENT_DEFER : GEX_EVENT_NOW;
    gex_TM_t tm = j->tm;
    gex_Rank_t peer = j->peer;
    double t0 = bu_now();
    switch (p->mode * 2 + p->is_put) {
    case 0: /* blocking get */
        for (long i = 0; i < iters; i++) gex_RMA_GetBlocking(tm, local, peer, remote, size, 0);
        break;
    case 1: /* blocking put */
        for (long i = 0; i < iters; i++) gex_RMA_PutBlocking(tm, peer, remote, local, size, 0);
        break;
    case 2: /* NB get */
        for (long i = 0; i < iters; i++) events[i] = gex_RMA_GetNB(tm, local, peer, remote, size, 0);
        gex_Event_WaitAll(events, (size_t)iters, 0);
        break;
    case 3: /* NB put */
        for (long i = 0; i < iters; i++)
            events[i] = gex_RMA_PutNB(tm, peer, remote, local, size, lc, 0);
        gex_Event_WaitAll(events, (size_t)iters, 0);
        break;
    case 4: /* NBI get */
        for (long i = 0; i < iters; i++) gex_RMA_GetNBI(tm, local, peer, remote, size, 0);
        gex_NBI_Wait(GEX_EC_GET, 0);
        break;
    default: /* NBI put */
        for (long i = 0; i < iters; i++) gex_RMA_PutNBI(tm, peer, remote, local, size, lc, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    }
    double t = bu_now() - t0;
    BU_CLOBBER();
    return t;
}

/* bu_pair_t callbacks. */
typedef struct { bg_job_t *j; const pattern_t *p; } run_ctx_t;
static double run_fn(void *ctx, size_t size, long iters)
{
    const run_ctx_t *c = ctx;
    return run(c->j, c->p, size, iters);
}
static void sync_fn(void *ctx) { bg_barrier(((run_ctx_t *)ctx)->j); }

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_rma", NULL, 0);
    const bu_opts_t *o = &j.opt;
    double vals[BU_MAX_TRIALS];
    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        const pattern_t *p = &patterns[pi];
        if (!bu_selected(o, p->bench, p->variant)) continue;
        int lat = p->mode == 0;
        for (size_t size = o->min_size; size <= o->max_size; size = bg_next_size(size)) {
            long iters = lat ? bu_iters(o, 20000, size, 32.0 * 1024 * 1024, 4)
                             : bu_iters(o, 20000, size, 64.0 * 1024 * 1024, 4);
            if (iters > MAX_EVENTS) iters = MAX_EVENTS;
            run_ctx_t c = { &j, p };
            bu_pair_t pair = { run_fn, sync_fn, &c, (int)j.me };
            bu_pair_trials(o, &pair, size, iters, lat, (double)size, vals);
            bu_report_iters(o, (int)j.me, p->bench, p->variant, size, lat ? "latency" : "bandwidth",
                            lat ? "us" : "MB/s", vals, iters);
        }
    }
    bg_finish(&j);
}
