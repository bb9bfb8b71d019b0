/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_coll.c: collective latency over the whole team (public API only): barrier,
 * all-reduce (gex_Coll_ReduceToAllNB, DBL sum) and broadcast (gex_Coll_BroadcastNB). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"
#include <gasnet_coll.h>

#include <stdio.h>
#include <stdlib.h>

/* Sizes measured for all-reduce and broadcast (within --min-size/--max-size). */
static const size_t coll_sizes[] = { 8, 4096, 65536, 1048576 };

/* The slowest rank's mean time per call, in microseconds, on rank 0. Each call is timed
 * on its own and followed by an untimed barrier, so ranks start every call together
 * and nobody runs ahead (the usual way MPI collective benchmarks time them). */
static double reduce_max(void *ctx, double v)
{
    bg_job_t *j = ctx;
    double out = 0;
    gex_Event_Wait(gex_Coll_ReduceToOneNB(j->tm, 0, &out, &v, GEX_DT_DBL, sizeof(double), 1,
                                          GEX_OP_MAX, NULL, NULL, 0));
    return out;
}

static double time_calls(bg_job_t *j, int kind, size_t size, long iters, double *src, double *dst)
{
    size_t cnt = size / sizeof(double);
    double sum = 0;
    for (long i = 0; i < iters; i++) {
        double t0 = bu_now();
        if (kind == 0)
            gex_Event_Wait(gex_Coll_ReduceToAllNB(j->tm, dst, src, GEX_DT_DBL, sizeof(double), cnt,
                                                  GEX_OP_ADD, NULL, NULL, 0));
        else
            gex_Event_Wait(gex_Coll_BroadcastNB(j->tm, 0, dst, src, size, 0));
        sum += bu_now() - t0;
        bg_barrier(j);
    }
    BU_CLOBBER();
    return 1e6 * sum / (double)iters;
}

static void sweep(bg_job_t *j, const char *name, int kind)
{
    const bu_opts_t *o = &j->opt;
    if (!bu_selected(o, name, NULL)) return;
    double vals[BU_MAX_TRIALS];
    for (size_t si = 0; si < sizeof coll_sizes / sizeof coll_sizes[0]; si++) {
        size_t size = coll_sizes[si];
        if (size < o->min_size || size > o->max_size) continue;
        double *src = bu_alloc(size), *dst = bu_alloc(size);
        for (size_t i = 0; i < size / sizeof(double); i++) src[i] = (double)(j->me + i);
        long iters = bu_iters(o, 5000, size, 256.0 * 1024 * 1024, 5);
        time_calls(j, kind, size, iters / 4 + 1, src, dst); /* warm-up */
        for (int t = 0; t < o->trials; t++) {
            bg_barrier(j);
            vals[t] = reduce_max(j, time_calls(j, kind, size, iters, src, dst));
        }
        bu_report_iters(o, (int)j->me, name, NULL, size, "latency", "us", vals, iters);
        free(src);
        free(dst);
    }
}

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_coll", NULL, 0);
    /* barrier: back to back (a barrier already makes every rank wait for the last), the
     * value the slowest rank's */
    bu_barrier_bench(&j.opt, (int)j.me, bg_sync, bg_sync, &j, reduce_max);
    sweep(&j, "allreduce", 0);
    sweep(&j, "broadcast", 1);
    bg_finish(&j);
}
