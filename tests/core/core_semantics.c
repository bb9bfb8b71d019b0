/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_semantics.c: spec statements on initialization, teams and atomics not covered
 * by core_query or coll_team: gex_Client_Init's error returns (GASNET_ERR_BAD_ARG for a bad
 * name, output pointer or flag; GASNET_ERR_RESOURCE for a second client) and NULL argc/argv
 * (allowed when every caller does), gex_TM_Create ranking members in the order of 'args' (not
 * by jobrank) and a split of that team breaking key ties by its (not the job's) rank order, a
 * caller of a split that passes a NULL new_tm_p staying out of its colour's team, TM-pair
 * translations and queries, atomic domains on such teams (GEX_FLAG_RANK_IS_JOBRANK,
 * GEX_FLAG_AD_MY_RANK as "the team rank of the caller"), a floating-point domain with every op
 * the spec allows for it, and gex_Event_QueryLeaf of GEX_EVENT_INVALID. */
#include "rv_test.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>

#define SEG 65536

int main(void)
{
    /* the error returns first: nothing is initialized by a refused call */
    gex_Client_t c;
    gex_EP_t e;
    gex_TM_t t;
    gex_Flags_t bad = 1;
    while (bad & (GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS)) bad <<= 1;
    RVT_CHECK(gex_Client_Init(&c, &e, &t, "", NULL, NULL, 0) == GASNET_ERR_BAD_ARG, "empty name");
    RVT_CHECK(gex_Client_Init(&c, &e, &t, NULL, NULL, NULL, 0) == GASNET_ERR_BAD_ARG, "NULL name");
    RVT_CHECK(gex_Client_Init(NULL, &e, &t, "X", NULL, NULL, 0) == GASNET_ERR_BAD_ARG, "NULL client_p");
    RVT_CHECK(gex_Client_Init(&c, &e, &t, "X", NULL, NULL, bad) == GASNET_ERR_BAD_ARG,
              "unknown flag 0x%x", (unsigned)bad);
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "CORE_SEMANTICS", NULL, NULL, 0));
    RVT_CHECK(gex_Client_Init(&c, &e, &t, "AGAIN", NULL, NULL, 0) == GASNET_ERR_RESOURCE,
              "a second gex_Client_Init");
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, SEG));
    RVT_CHECK(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC) == GEX_EVENT_INVALID ||
                  gex_Event_Test(gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC)) == 0,
              "QueryLeaf of GEX_EVENT_INVALID is neither invalid nor complete");

    /* gex_TM_Create: every rank joins a team whose members are listed from the highest jobrank
     * down, so team rank i is jobrank n-1-i; each passes its own copy of the list. */
    gex_EP_Location_t *args = calloc(rvt_n, sizeof *args);
    RVT_CHECK(args != NULL, "calloc");
    for (gex_Rank_t i = 0; i < rvt_n; i++) args[i].gex_rank = rvt_n - 1 - i;
    gex_TM_t rev = GEX_TM_INVALID;
    gex_TM_Create(&rev, 1, rvt_tm, args, rvt_n, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    RVT_CHECK(rev != GEX_TM_INVALID && gex_TM_QueryRank(rev) == rvt_n - 1 - rvt_me &&
                  gex_TM_QuerySize(rev) == rvt_n,
              "TM_Create: rank %u size %u (want rank %u)", gex_TM_QueryRank(rev),
              gex_TM_QuerySize(rev), rvt_n - 1 - rvt_me);
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        RVT_CHECK(gex_TM_TranslateRankToJobrank(rev, r) == rvt_n - 1 - r, "rev rank %u", r);
    /* broadcast from team rank 0 (the highest jobrank) */
    uint32_t v = rvt_me * 10 + 1, got = 0;
    gex_Event_Wait(gex_Coll_BroadcastNB(rev, 0, &got, &v, sizeof v, 0));
    RVT_CHECK(got == (rvt_n - 1) * 10 + 1, "broadcast on the reversed team: %u", got);

    /* a split of it with equal keys keeps its (reversed) order: ties go by parent rank */
    gex_TM_t half = GEX_TM_INVALID;
    gex_Rank_t prank = gex_TM_QueryRank(rev);
    gex_TM_Split(&half, rev, (int)(prank % 2), 7, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    RVT_CHECK(gex_TM_QueryRank(half) == prank / 2, "split of rev: rank %u want %u",
              gex_TM_QueryRank(half), prank / 2);
    for (gex_Rank_t r = 0; r < gex_TM_QuerySize(half); r++)
        RVT_CHECK(gex_TM_TranslateRankToJobrank(half, r) == rvt_n - 1 - (2 * r + prank % 2),
                  "split of rev: rank %u is jobrank %u", r, gex_TM_TranslateRankToJobrank(half, r));
    RVT_CHECK(gex_TM_Destroy(half, NULL, 0) == 0, "destroy half");

    /* atomics on it: each rank adds to a word of team rank 0 (jobrank n-1), named once by team
     * rank and once by jobrank; MY_RANK holds for the caller's own team rank */
    gex_AD_t ad;
    gex_AD_Create(&ad, rev, GEX_DT_U64, GEX_OP_ADD | GEX_OP_FADD | GEX_OP_GET, 0);
    RVT_CHECK(gex_AD_QueryTM(ad) == rev && gex_AD_QueryCData(ad) == NULL, "AD queries");
    uint64_t *word = (uint64_t *)rvt_seg_addr(rvt_n - 1, 0);
    uint64_t old = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, 0, word, GEX_OP_FADD, 1, 0, 0));
    RVT_CHECK(gex_AD_OpNBI_U64(ad, NULL, rvt_n - 1, word, GEX_OP_ADD, 100, 0,
                               GEX_FLAG_RANK_IS_JOBRANK) == 0, "NBI add");
    gex_NBI_Wait(GEX_EC_RMW, 0);
    uint64_t *mine = (uint64_t *)gex_Segment_QueryAddr(rvt_seg) + 1;
    *mine = 5;
    gex_Event_Wait(gex_Coll_BarrierNB(rev, 0));
    uint64_t here = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &here, gex_TM_QueryRank(rev), mine, GEX_OP_GET, 0, 0,
                                   GEX_FLAG_AD_MY_RANK));
    RVT_CHECK(here == 5, "GET with GEX_FLAG_AD_MY_RANK: %llu", (unsigned long long)here);
    uint64_t total = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, rvt_n - 1, word, GEX_OP_GET, 0, 0,
                                   GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_AD_ACQ));
    RVT_CHECK(total == 101ull * rvt_n, "sum %llu want %llu", (unsigned long long)total,
              101ull * rvt_n);
    gex_Event_Wait(gex_Coll_BarrierNB(rev, 0));
    gex_AD_Destroy(ad);

    /* a float domain with every op valid for floating point (no bitwise ops) */
    const gex_OP_t fops = GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT |
                          GEX_OP_FMULT | GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX | GEX_OP_FMAX |
                          GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_SET |
                          GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS;
    gex_AD_t fad;
    gex_AD_Create(&fad, rvt_tm, GEX_DT_DBL, fops, GEX_FLAG_AD_FAVOR_REMOTE);
    RVT_CHECK(gex_AD_QueryOps(fad) == fops && gex_AD_QueryDT(fad) == GEX_DT_DBL &&
                  gex_AD_QueryFlags(fad) == GEX_FLAG_AD_FAVOR_REMOTE, "float AD queries");
    double *d = (double *)gex_Segment_QueryAddr(rvt_seg) + 2;
    double r = -1;
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, NULL, rvt_me, d, GEX_OP_SET, 1.5, 0, GEX_FLAG_AD_REL));
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_FINC, 0, 0, 0));
    RVT_CHECK(r == 1.5, "FINC fetched %g", r);
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_FMULT, 4, 0, 0));
    RVT_CHECK(r == 2.5, "FMULT fetched %g", r);
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, (double *)1, rvt_me, d, GEX_OP_DEC, 0, 0, 0)); /* result_p ignored */
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_FCAS, 9, 7, 0));
    RVT_CHECK(r == 9, "FCAS fetched %g", r);
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_SWAP, -2, 0, 0));
    RVT_CHECK(r == 7, "SWAP fetched %g", r);
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_FMIN, -3, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_DBL(fad, &r, rvt_me, d, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(r == -3, "MIN left %g", r);
    gex_Event_Wait(gex_Coll_BarrierNB(rvt_tm, 0));
    gex_AD_Destroy(fad);

    /* gex_TM_Split: odd jobranks pass NULL for new_tm_p, so the team holds the even ones only */
    gex_TM_t evens = GEX_TM_INVALID;
    gex_TM_Split(rvt_me % 2 ? NULL : &evens, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (rvt_me % 2 == 0) {
        RVT_CHECK(evens != GEX_TM_INVALID && gex_TM_QuerySize(evens) == (rvt_n + 1) / 2 &&
                      gex_TM_QueryRank(evens) == rvt_me / 2,
                  "evens: size %u rank %u", gex_TM_QuerySize(evens), gex_TM_QueryRank(evens));
        for (gex_Rank_t j = 0; j < rvt_n; j++)
            RVT_CHECK(gex_TM_TranslateJobrankToRank(evens, j) == (j % 2 ? GEX_RANK_INVALID : j / 2),
                      "evens: jobrank %u", j);
        gex_Event_Wait(gex_Coll_BarrierNB(evens, 0));
        RVT_CHECK(gex_TM_Destroy(evens, NULL, 0) == 0, "destroy evens");
    } else {
        RVT_CHECK(evens == GEX_TM_INVALID, "a caller with a NULL new_tm_p got a team");
    }

    /* TM-pair: point-to-point naming by jobrank and endpoint index */
    gex_TM_t pair = gex_TM_Pair(rvt_ep, 0);
    RVT_CHECK(gex_TM_QueryEP(pair) == rvt_ep && gex_TM_QueryClient(pair) == rvt_client, "pair");
    for (gex_Rank_t j = 0; j < rvt_n; j++) {
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(pair, j, 0);
        RVT_CHECK(loc.gex_rank == j && loc.gex_ep_index == 0, "pair RankToEP(%u)", j);
        RVT_CHECK(gex_TM_TranslateRankToJobrank(pair, j) == j &&
                      gex_TM_TranslateJobrankToRank(pair, j) == j, "pair translations of %u", j);
        void *o1, *o2;
        RVT_OK(gex_Segment_QueryBound(pair, j, &o1, NULL, NULL));
        RVT_OK(gex_Segment_QueryBound(rvt_tm, j, &o2, NULL, NULL));
        RVT_CHECK(o1 == o2, "QueryBound through the pair differs for %u", j);
    }
    RVT_CHECK(gex_TM_Destroy(rev, NULL, 0) == 0, "destroy rev");
    free(args);
    return rvt_done("core_semantics");
}
