/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_amo.c: remote atomics (public API only), testfaddperf's method: latency (one at a
 * time) and throughput (many in flight, then one sync) from rank 0 to a word of rank 1, for
 * fetch-add (amo_fadd_latency, amo_fadd_throughput), fetching compare-and-swap (amo_fcas_*:
 * every compare succeeds) and swap (amo_swap_*), each on U32/U64/I32/I64/FLT/DBL (variants
 * u32 ... dbl), the opcode a literal at the call; and the hot spot (every rank fetch-adds one
 * word of rank 0, aggregate rate; variant np<N>: amo_hotspot). Which implementation is
 * measured is the library's choice: with Rivet, RIVET_RATOMIC=ref (and --config ref) measures
 * the AM reference. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <gasnetex.h>
#include <gasnet_ratomic.h>
#include <gasnet_coll.h>
#include "bench_gex.h"

#include <stdio.h>
#include <stdlib.h>

static gex_TM_t tm;
static gex_Rank_t me, n;
static bu_opts_t o;
static uint64_t *results; /* fetched values, one slot per op in flight */
static long max_iters;

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

static void *seg_of(gex_Rank_t r)
{
    void *base = NULL;
    uintptr_t size = 0;
    if (gex_Segment_QueryBound(tm, r, &base, NULL, &size) != GASNET_OK || !base || size < 64) {
        fprintf(stderr, "bench_amo: gex_Segment_QueryBound(%u) failed\n", (unsigned)r);
        gasnet_exit(1);
    }
    return base;
}

/* One (op, type) loop: 'iters' operations to (rank, p), one at a time (lat) or all in flight
 * then gex_NBI_Wait; each fetches into its own slot of 'results'. The opcode is a literal. */
typedef void (*amo_loop_t)(gex_AD_t ad, int lat, gex_Rank_t rank, void *p, long iters);
#define AMO_LOOP(NAME, DT, T, OPC, A1, A2)                                                    \
    static void NAME##_##DT(gex_AD_t ad, int lat, gex_Rank_t rank, void *p, long iters)       \
    {                                                                                         \
        T r, *res = (T *)(void *)results;                                                     \
        if (lat) {                                                                            \
            for (long i = 0; i < iters; i++)                                                  \
                gex_Event_Wait(gex_AD_OpNB_##DT(ad, &r, rank, p, OPC, A1, A2, 0));            \
        } else {                                                                              \
            for (long i = 0; i < iters; i++)                                                  \
                gex_AD_OpNBI_##DT(ad, &res[i], rank, p, OPC, A1, A2, 0);                      \
            gex_NBI_Wait(GEX_EC_RMW, 0);                                                      \
        }                                                                                     \
        BU_CLOBBER();                                                                         \
    }
/* fcas: compare 0, store 0 (the word is 0: every compare succeeds); swap: store 0 */
#define AMO_LOOPS(DT, T)                                                                      \
    static void zero_##DT(gex_AD_t ad, gex_Rank_t rank, void *p)                              \
    {                                                                                         \
        gex_Event_Wait(gex_AD_OpNB_##DT(ad, NULL, rank, p, GEX_OP_SET, (T)0, (T)0, 0));       \
    }                                                                                         \
    AMO_LOOP(fadd, DT, T, GEX_OP_FADD, (T)1, (T)0)                                            \
    AMO_LOOP(fcas, DT, T, GEX_OP_FCAS, (T)0, (T)0)                                            \
    AMO_LOOP(swap, DT, T, GEX_OP_SWAP, (T)0, (T)0)
AMO_LOOPS(U32, uint32_t)
AMO_LOOPS(U64, uint64_t)
AMO_LOOPS(I32, int32_t)
AMO_LOOPS(I64, int64_t)
AMO_LOOPS(FLT, float)
AMO_LOOPS(DBL, double)

static const struct amo_type {
    const char *variant;
    gex_DT_t dt;
    int size;
    amo_loop_t loop[3]; /* fadd, fcas, swap */
    void (*zero)(gex_AD_t ad, gex_Rank_t rank, void *p);
} amo_types[] = {
#define AMO_TYPE(v, DT, n) {v, GEX_DT_##DT, n, {fadd_##DT, fcas_##DT, swap_##DT}, zero_##DT}
    AMO_TYPE("u32", U32, 4), AMO_TYPE("u64", U64, 8), AMO_TYPE("i32", I32, 4),
    AMO_TYPE("i64", I64, 8), AMO_TYPE("flt", FLT, 4), AMO_TYPE("dbl", DBL, 8),
#undef AMO_TYPE
};
static const gex_OP_t amo_ops[3] = {GEX_OP_FADD, GEX_OP_FCAS, GEX_OP_SWAP};

static void sync_all(void *ctx) { (void)ctx; barrier(); }

/* bu_run_fn of the pair benchmarks: one (op, type) loop, timed. */
typedef struct { const struct amo_type *ty; int op, lat; gex_AD_t ad; void *p; } pair_ctx_t;
static double pair_run(void *ctx, size_t size, long iters)
{
    const pair_ctx_t *c = ctx;
    (void)size;
    double t0 = bu_now();
    c->ty->loop[c->op](c->ad, c->lat, 1, c->p, iters);
    return bu_now() - t0;
}

/* amo_<op>_latency / amo_<op>_throughput (op 0 fadd, 1 fcas, 2 swap): rank 0 to a word of
 * rank 1, every type. */
static void pair_bench(const char *bench, int op, int lat)
{
    if (n < 2) return;
    for (size_t k = 0; k < sizeof amo_types / sizeof amo_types[0]; k++) {
        const struct amo_type *ty = &amo_types[k];
        if (!bu_selected(&o, bench, ty->variant)) continue;
        gex_AD_t ad;
        gex_AD_Create(&ad, tm, ty->dt, amo_ops[op] | GEX_OP_SET, 0);
        void *p = (char *)seg_of(1) + 8;
        if (me == 0) ty->zero(ad, 1, p); /* fcas compares with 0 */
        long iters = bu_iters(&o, lat ? 20000 : 50000, 0, 0, 10);
        if (iters > max_iters) iters = max_iters;
        double vals[BU_MAX_TRIALS];
        pair_ctx_t c = { ty, op, lat, ad, p };
        bu_pair_t pair = { pair_run, sync_all, &c, (int)me };
        bu_pair_trials(&o, &pair, 0, iters, lat, 1.0, vals);
        bu_report_iters(&o, (int)me, bench, ty->variant, (size_t)ty->size, lat ? "latency" : "rate",
                        lat ? "us" : "Mops/s", vals, iters);
        barrier();
        gex_AD_Destroy(ad);
    }
}

/* amo_hotspot: every rank fetch-adds 'iters' times (all in flight, then sync) to one word of
 * rank 0. The aggregate rate is all ranks' operations over the window from the first rank's
 * start to the last rank's end (CLOCK_MONOTONIC, one host): timing between barriers would
 * miss work done by ranks that leave the barrier earlier than rank 0 (time-shared cores).
 * The final count must be exact. */
static void hotspot(void)
{
    char variant[16]; /* the job size: the report keys measurements by variant */
    snprintf(variant, sizeof variant, "np%d", (int)n);
    if (!bu_selected(&o, "amo_hotspot", variant)) return;
    gex_AD_t ad;
    gex_AD_Create(&ad, tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    uint64_t *p = (uint64_t *)((char *)seg_of(0) + 16);
    long iters = bu_iters(&o, 20000, 0, 0, 10);
    if (iters > max_iters) iters = max_iters;
    double vals[BU_MAX_TRIALS];
    for (int t = -1; t < o.trials; t++) { /* trial -1: warm-up */
        if (me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, p, GEX_OP_SET, 0, 0, 0));
        barrier();
        double t0 = bu_now();
        fadd_U64(ad, 0, 0, p, iters);
        double mine[2] = {-t0, bu_now()}, span[2]; /* max of -start = -(min start) */
        gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, 0, span, mine, GEX_DT_DBL, sizeof(double), 2,
                                              GEX_OP_MAX, NULL, NULL, 0));
        if (t >= 0 && me == 0) vals[t] = (double)iters * (double)n / (span[1] + span[0]) / 1e6;
        if (me == 0) {
            uint64_t total = 0;
            gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, p, GEX_OP_GET, 0, 0, 0));
            if (total != (uint64_t)iters * n) {
                fprintf(stderr, "bench_amo: amo_hotspot total %llu, expected %llu\n",
                        (unsigned long long)total, (unsigned long long)iters * n);
                gasnet_exit(1);
            }
        }
        barrier();
    }
    bu_report_iters(&o, (int)me, "amo_hotspot", variant, 8, "rate", "Mops/s", vals, iters);
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "bench_amo", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "bench_amo: gex_Client_Init failed\n");
        return 1;
    }
    me = gex_TM_QueryRank(tm);
    n = gex_TM_QuerySize(tm);
    if (bu_parse_args(&o, argc, argv, BG_DEFAULT_SYSTEM, NULL)) gasnet_exit(2);
    o.ranks = (int)n;
    if (gex_Segment_Attach(&seg, tm, 4096) != GASNET_OK) {
        fprintf(stderr, "bench_amo: gex_Segment_Attach failed\n");
        gasnet_exit(1);
    }
    max_iters = bu_iters(&o, 50000, 0, 0, 10);
    results = bu_alloc((size_t)max_iters * sizeof *results);
    barrier();
    pair_bench("amo_fadd_latency", 0, 1);
    pair_bench("amo_fadd_throughput", 0, 0);
    pair_bench("amo_fcas_latency", 1, 1);
    pair_bench("amo_fcas_throughput", 1, 0);
    pair_bench("amo_swap_latency", 2, 1);
    pair_bench("amo_swap_throughput", 2, 0);
    hotspot();
    fflush(stdout);
    barrier();
    gasnet_exit(0);
}
