/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/peers/mpi_bench.c: the MPI-3 peer: the Rivet patterns with passive-target RMA
 * (MPI_Put/MPI_Get + MPI_Win_flush) and two-sided ping-pong; same options and JSON.
 * Built by scripts/bench.sh with each mpicc found (not by CMake). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <mpi.h>

#include "../bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;
static bu_opts_t o;
static MPI_Win win;
static char *winbase, *local, *heap;
static size_t area;

static void barrier(void) { MPI_Barrier(MPI_COMM_WORLD); }
static void mpi_barrier(void *ctx) { (void)ctx; MPI_Barrier(MPI_COMM_WORLD); }

/* RMA patterns: 0 put+flush each, 1 get+flush each, 2 puts then flush, 3 gets then flush. */
static double rma(void *ctx, size_t size, long iters)
{
    int kind = *(const int *)ctx;
    double t0 = bu_now();
    switch (kind) {
    case 0:
        for (long i = 0; i < iters; i++) {
            MPI_Put(heap, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        break;
    case 1:
        for (long i = 0; i < iters; i++) {
            MPI_Get(heap, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
            MPI_Win_flush(1, win);
        }
        break;
    case 2:
        for (long i = 0; i < iters; i++)
            MPI_Put(heap, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        break;
    default:
        for (long i = 0; i < iters; i++)
            MPI_Get(heap, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
        MPI_Win_flush(1, win);
        break;
    }
    double t = bu_now() - t0;
    BU_CLOBBER();
    return t;
}

/* Two-sided ping-pong of 'size' bytes; both ranks run it. */
static double pingpong(size_t size, long iters)
{
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        if (me == 0) {
            MPI_Send(local, (int)size, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(local, (int)size, MPI_BYTE, 1, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (me == 1) {
            MPI_Recv(local, (int)size, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(local, (int)size, MPI_BYTE, 0, 2, MPI_COMM_WORLD);
        }
    }
    return bu_now() - t0;
}

/* One-way flood: windows of 64 nonblocking sends, then a zero-byte acknowledgement. */
static double flood(size_t size, long iters)
{
    enum { W = 64 };
    MPI_Request rq[W];
    double t0 = bu_now();
    for (long i = 0; i < iters; i += W) {
        int n = (int)(iters - i < W ? iters - i : W);
        for (int k = 0; k < n; k++) {
            if (me == 0) MPI_Isend(local, (int)size, MPI_BYTE, 1, 3, MPI_COMM_WORLD, &rq[k]);
            else MPI_Irecv(local, (int)size, MPI_BYTE, 0, 3, MPI_COMM_WORLD, &rq[k]);
        }
        MPI_Waitall(n, rq, MPI_STATUSES_IGNORE);
    }
    if (me == 0) MPI_Recv(NULL, 0, MPI_BYTE, 1, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    else MPI_Send(NULL, 0, MPI_BYTE, 0, 4, MPI_COMM_WORLD);
    return bu_now() - t0;
}

static void twosided(const char *bench, int is_flood, size_t limit)
{
    if (!bu_selected(&o, bench, NULL)) return;
    MPI_Comm pair;
    MPI_Comm_split(MPI_COMM_WORLD, me < 2, me, &pair);
    double lat[BU_MAX_TRIALS], bw[BU_MAX_TRIALS], rate[BU_MAX_TRIALS];
    for (size_t size = 0; size <= limit; size = size ? 2 * size : o.min_size) {
        long iters = bu_iters(&o, 20000, size, (is_flood ? 32.0 : 16.0) * 1024 * 1024, 8);
        if (me < 2) { if (is_flood) flood(size, iters / 4 + 1); else pingpong(size, iters / 4 + 1); }
        for (int t = 0; t < o.trials; t++) {
            barrier();
            if (me < 2) {
                double s = is_flood ? flood(size, iters) : pingpong(size, iters);
                lat[t] = 1e6 * s / (double)iters;
                bw[t] = (double)size * (double)iters / s / 1e6;
                rate[t] = (double)iters / s / 1e6;
            }
            barrier();
        }
        const char *v = is_flood ? "isend_irecv" : "send_recv";
        if (!is_flood) {
            bu_report_iters(&o, me, bench, v, size, "latency", "us", lat, iters);
            if (size == 0) bu_report_iters(&o, me, "am_short_rtt", v, 0, "latency", "us", lat, iters);
        } else {
            if (size) bu_report_iters(&o, me, bench, v, size, "bandwidth", "MB/s", bw, iters);
            bu_report_iters(&o, me, bench, v, size, "rate", "Mmsg/s", rate, iters);
        }
    }
    MPI_Comm_free(&pair);
}

/* Injection overhead of MPI_Put with the flush outside the timed region. */
static void inject(void)
{
    if (!bu_selected(&o, "inject_overhead", "put")) return;
    static const size_t sizes[] = { 8, 4096, 65536, 1048576 };
    double vals[BU_MAX_TRIALS];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t size = sizes[si];
        if (size < o.min_size || size > o.max_size) continue;
        for (long depth = 1; depth <= 256; depth *= 2) {
            long reps = bu_iters(&o, 200, (size_t)depth * size, 64.0 * 1024 * 1024, 2);
            for (int t = -1; t < o.trials; t++) {
                double sum = 0;
                for (long r = 0; r < reps; r++) {
                    barrier();
                    if (me == 0) {
                        double t0 = bu_now();
                        for (long i = 0; i < depth; i++)
                            MPI_Put(local, (int)size, MPI_BYTE, 1, 0, (int)size, MPI_BYTE, win);
                        sum += bu_now() - t0;
                        MPI_Win_flush(1, win);
                    }
                    barrier();
                }
                if (t >= 0) vals[t] = 1e6 * sum / (double)reps / (double)depth;
            }
            if (me == 0) {
                char extra[80];
                snprintf(extra, sizeof extra, "\"depth\":%ld,\"iters\":%ld", depth, reps);
                bu_report(&o, "inject_overhead", "put", size, "overhead", "us", vals, o.trials,
                          extra);
            }
        }
    }
}

/* Remote atomics, as bench/bench_amo.c measures them: MPI_Fetch_and_op(MPI_SUM) on a word of
 * the window, one at a time (each followed by MPI_Win_flush) or many then one flush; the hot
 * spot has every rank fetch-add one word of rank 0, timed barrier to barrier on rank 0. */
static uint64_t *amo_res;
static long amo_max;

static double amo_run(int is64, int lat, int target, MPI_Aint disp, long iters)
{
    uint64_t one64 = 1;
    uint32_t one32 = 1, *res32 = (uint32_t *)amo_res;
    MPI_Datatype dt = is64 ? MPI_UINT64_T : MPI_UINT32_T;
    const void *one = is64 ? (const void *)&one64 : (const void *)&one32;
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        void *r = lat ? (void *)amo_res : is64 ? (void *)&amo_res[i] : (void *)&res32[i];
        MPI_Fetch_and_op(one, r, dt, target, disp, MPI_SUM, win);
        if (lat) MPI_Win_flush(target, win);
    }
    if (!lat) MPI_Win_flush(target, win);
    double t = bu_now() - t0;
    BU_CLOBBER();
    return t;
}

/* bu_run_fn of the pair benchmarks: ctx is {is64, lat}. */
static double amo_pair_run(void *ctx, size_t size, long iters)
{
    const int *k = ctx;
    (void)size;
    return amo_run(k[0], k[1], 1, 8, iters);
}

static void amo_pair(const char *bench, int lat)
{
    static const char *const variants[2] = {"u32", "u64"};
    for (int is64 = 0; is64 < 2; is64++) {
        if (!bu_selected(&o, bench, variants[is64])) continue;
        long iters = bu_iters(&o, lat ? 20000 : 50000, 0, 0, 10);
        if (iters > amo_max) iters = amo_max;
        double vals[BU_MAX_TRIALS];
        int k[2] = { is64, lat };
        bu_pair_t p = { amo_pair_run, mpi_barrier, k, me };
        bu_pair_trials(&o, &p, 0, iters, lat, 1.0, vals);
        bu_report_iters(&o, me, bench, variants[is64], is64 ? 8 : 4, lat ? "latency" : "rate",
                        lat ? "us" : "Mops/s", vals, iters);
    }
}

static void amo_hotspot(void)
{
    char variant[16]; /* the job size: the report keys measurements by variant */
    snprintf(variant, sizeof variant, "np%d", (int)np);
    if (!bu_selected(&o, "amo_hotspot", variant)) return;
    long iters = bu_iters(&o, 20000, 0, 0, 10);
    if (iters > amo_max) iters = amo_max;
    double vals[BU_MAX_TRIALS];
    for (int t = -1; t < o.trials; t++) { /* window: first start to last end, as bench_amo */
        barrier();
        double t0 = bu_now();
        amo_run(1, 0, 0, 16, iters);
        double mine[2] = {-t0, bu_now()}, span[2];
        MPI_Reduce(mine, span, 2, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
        if (t >= 0 && me == 0) vals[t] = (double)iters * np / (span[1] + span[0]) / 1e6;
    }
    bu_report_iters(&o, me, "amo_hotspot", variant, 8, "rate", "Mops/s", vals, iters);
}

static void amo_all(void)
{
    if (!bu_selected(&o, "amo_fadd_latency", NULL) && !bu_selected(&o, "amo_fadd_throughput", NULL) &&
        !bu_selected(&o, "amo_hotspot", NULL))
        return;
    amo_max = bu_iters(&o, 50000, 0, 0, 10);
    amo_res = bu_alloc((size_t)amo_max * sizeof *amo_res);
    if (np >= 2) {
        amo_pair("amo_fadd_latency", 1);
        amo_pair("amo_fadd_throughput", 0);
    }
    amo_hotspot();
    free(amo_res);
}

/* Collectives, timed as bench/bench_coll.c times Rivet's: each call on its own, then an
 * untimed barrier; the value is the slowest rank's mean per call. */
static void coll_sweep(const char *bench, int is_bcast)
{
    static const size_t sizes[] = { 8, 4096, 65536, 1048576 };
    if (!bu_selected(&o, bench, NULL)) return;
    double vals[BU_MAX_TRIALS];
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t size = sizes[si];
        if (size < o.min_size || size > o.max_size) continue;
        double *src = bu_alloc(size), *dst = bu_alloc(size);
        int cnt = (int)(size / sizeof(double));
        for (int i = 0; i < cnt; i++) src[i] = (double)(me + i);
        long iters = bu_iters(&o, 5000, size, 256.0 * 1024 * 1024, 5);
        for (int t = -1; t < o.trials; t++) {
            long n = t < 0 ? iters / 4 + 1 : iters;
            double sum = 0;
            barrier();
            for (long i = 0; i < n; i++) {
                double t0 = bu_now();
                if (is_bcast) MPI_Bcast(me == 0 ? src : dst, cnt, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                else MPI_Allreduce(src, dst, cnt, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
                sum += bu_now() - t0;
                barrier();
            }
            double mean = 1e6 * sum / (double)n, worst = 0;
            MPI_Reduce(&mean, &worst, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
            if (t >= 0) vals[t] = worst;
        }
        bu_report_iters(&o, me, bench, NULL, size, "latency", "us", vals, iters);
        free(src);
        free(dst);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (bu_parse_args(&o, argc, argv, "mpi", NULL)) MPI_Abort(MPI_COMM_WORLD, 2);
    o.ranks = np;
    if (np < 2 && o.only && !strcmp(o.only, "amo_hotspot")) { /* the one 1-rank benchmark */
        MPI_Win_allocate(4096, 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbase, &win);
        MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
        amo_all();
        MPI_Win_unlock_all(win);
        MPI_Win_free(&win);
        MPI_Finalize();
        return 0;
    }
    if (np < 2) {
        if (me == 0) fprintf(stderr, "mpi_bench: needs at least 2 ranks\n");
        MPI_Finalize();
        return 0;
    }
    area = o.max_size < 4096 ? 4096 : o.max_size;
    MPI_Win_allocate((MPI_Aint)(2 * area), 1, MPI_INFO_NULL, MPI_COMM_WORLD, &winbase, &win);
    memset(winbase, 1, 2 * area);
    local = winbase + area;
    heap = bu_alloc(area);
    MPI_Win_lock_all(MPI_MODE_NOCHECK, win);
    barrier();
    int kind;
    bu_pair_t rp = { rma, mpi_barrier, &kind, me };
    bu_rma_sweeps(&o, &rp);
    inject();
    size_t twosided_max = o.max_size < (64 << 10) ? o.max_size : (64 << 10);
    twosided("am_medium_rtt", 0, twosided_max);
    twosided("am_medium_flood", 1, twosided_max);
    bu_barrier_bench(&o, me, mpi_barrier, mpi_barrier, NULL, NULL);
    coll_sweep("allreduce", 0);
    coll_sweep("broadcast", 1);
    amo_all();
    MPI_Win_unlock_all(win);
    barrier();
    MPI_Win_free(&win);
    free(heap);
    MPI_Finalize();
    return 0;
}
