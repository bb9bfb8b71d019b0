/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_early.c: domains created before the segment is attached. The first
 * operations after gex_Segment_Attach go through the library, which gives the domain the
 * segment table gasnet_ratomic.h's inline path reads; the rest may then be done inline. Every
 * fetched value and every final value is checked: U64 and DBL, (F)ADD with the opcode as a
 * literal and as a run-time value, SWAP and FCAS, on a team whose ranks are reversed too.
 * The program defines the library's gex_AD_OpNB/NBI_{U64,DBL}, counting each call and handing
 * it on (rv_count.h): exactly each domain's first operation may reach the library, every
 * later one must be done inline (so the test fails if the inline path stays off);
 * RIVET_RATOMIC=ref: every one reaches it. */
#define _GNU_SOURCE 1
#include "rv_count.h"
#include <gasnet_ratomic.h>

static long n_lib; /* library atomic entry points reached */
RVT_COUNT(gex_AD_OpNB_U64, n_lib)
RVT_COUNT(gex_AD_OpNBI_U64, n_lib)
RVT_COUNT(gex_AD_OpNB_DBL, n_lib)
RVT_COUNT(gex_AD_OpNBI_DBL, n_lib)

#define ITERS 2000

static volatile gex_OP_t rt_fadd = GEX_OP_FADD, rt_add = GEX_OP_ADD, rt_swap = GEX_OP_SWAP;

/* The operations run() makes: two SETs, 10 per 4 iterations, two GETs. */
#define RUN_OPS (2 + ITERS / 4 * 10 + 2)

static void run(gex_AD_t au, gex_AD_t ad, gex_Rank_t peer, uint64_t *wu, double *wd, int fast)
{
    long lib0 = n_lib;
    /* each rank owns the words it targets: values are exact. The domains were made before the
     * segment: their first operation is the library's, which gives them the table */
    gex_Event_Wait(gex_AD_OpNB_U64(au, NULL, peer, wu, GEX_OP_SET, 0, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_DBL(ad, NULL, peer, wd, GEX_OP_SET, 0.0, 0.0, 0));
    RVT_CHECK(n_lib - lib0 == 2, "the first operation of each early domain: %ld library calls, "
              "expected 2", n_lib - lib0);
    uint64_t want = 0;
    for (int i = 0; i < ITERS; i++) {
        uint64_t got = ~(uint64_t)0;
        double dgot = -1.0;
        switch (i % 4) {
        case 0:
            gex_Event_Wait(gex_AD_OpNB_U64(au, &got, peer, wu, GEX_OP_FADD, 3, 0, 0));
            gex_Event_Wait(gex_AD_OpNB_DBL(ad, &dgot, peer, wd, GEX_OP_FADD, 3.0, 0.0, 0));
            break;
        case 1:
            gex_Event_Wait(gex_AD_OpNB_U64(au, &got, peer, wu, rt_fadd, 3, 0, 0));
            gex_Event_Wait(gex_AD_OpNB_DBL(ad, &dgot, peer, wd, rt_fadd, 3.0, 0.0, 0));
            break;
        case 2:
            gex_AD_OpNBI_U64(au, NULL, peer, wu, i & 8 ? GEX_OP_ADD : rt_add, 3, 0, 0);
            gex_AD_OpNBI_DBL(ad, NULL, peer, wd, i & 8 ? GEX_OP_ADD : rt_add, 3.0, 0.0, 0);
            gex_NBI_Wait(GEX_EC_RMW, 0);
            break;
        default: /* SWAP in the value it should hold next, then an FCAS that keeps it */
            gex_Event_Wait(gex_AD_OpNB_U64(au, &got, peer, wu, rt_swap, want + 3, 0, 0));
            gex_Event_Wait(gex_AD_OpNB_DBL(ad, &dgot, peer, wd, GEX_OP_SWAP,
                                           (double)(want + 3), 0.0, 0));
            RVT_CHECK(got == want && dgot == (double)want, "iteration %d: swapped out %llu / %g, "
                      "expected %llu", i, (unsigned long long)got, dgot, (unsigned long long)want);
            gex_Event_Wait(gex_AD_OpNB_U64(au, &got, peer, wu, GEX_OP_FCAS, want + 3, want + 3,
                                           0));
            gex_Event_Wait(gex_AD_OpNB_DBL(ad, &dgot, peer, wd, GEX_OP_FCAS,
                                           (double)(want + 3), (double)(want + 3), 0));
            RVT_CHECK(got == want + 3 && dgot == (double)(want + 3), "iteration %d: FCAS "
                      "fetched %llu / %g, expected %llu", i, (unsigned long long)got, dgot,
                      (unsigned long long)want + 3);
            break;
        }
        if (i % 4 < 2)
            RVT_CHECK(got == want && dgot == (double)want, "iteration %d: fetched %llu / %g, "
                      "expected %llu", i, (unsigned long long)got, dgot, (unsigned long long)want);
        want += 3;
    }
    uint64_t fu = 0;
    double fd = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(au, &fu, peer, wu, GEX_OP_GET, 0, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_DBL(ad, &fd, peer, wd, GEX_OP_GET, 0.0, 0.0, 0));
    RVT_CHECK(fu == want && fd == (double)want, "final %llu / %g, expected %llu",
              (unsigned long long)fu, fd, (unsigned long long)want);
    RVT_CHECK(n_lib - lib0 == (fast ? 2 : RUN_OPS), "%ld of %d operations reached the library "
              "(expected %d)", n_lib - lib0, RUN_OPS, fast ? 2 : RUN_OPS);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0); /* no segment yet */
    const char *impl = getenv("RIVET_RATOMIC");
    const int fast = !(impl && !strcmp(impl, "ref")); /* all ranks are mapped peers here */
    const gex_OP_t ops = GEX_OP_FADD | GEX_OP_ADD | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_SET |
                         GEX_OP_GET;
    gex_AD_t au, ad, ru, rd;
    gex_AD_Create(&au, rvt_tm, GEX_DT_U64, ops, 0);
    gex_AD_Create(&ad, rvt_tm, GEX_DT_DBL, ops, 0);
    gex_TM_t rev; /* the same ranks in reverse order */
    gex_TM_Split(&rev, rvt_tm, 0, -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_AD_Create(&ru, rev, GEX_DT_U64, ops, 0);
    gex_AD_Create(&rd, rev, GEX_DT_DBL, ops, 0);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 4096));

    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    run(au, ad, peer, (uint64_t *)rvt_seg_addr(peer, 0), (double *)rvt_seg_addr(peer, 8),
        fast);
    /* in the reversed team, rank n-1-j is jobrank j */
    run(ru, rd, rvt_n - 1 - peer, (uint64_t *)rvt_seg_addr(peer, 16),
        (double *)rvt_seg_addr(peer, 24), fast);
    rvt_barrier();
    gex_AD_Destroy(rd);
    gex_AD_Destroy(ru);
    gex_AD_Destroy(ad);
    gex_AD_Destroy(au);
    return rvt_done("ratomic_early");
}
