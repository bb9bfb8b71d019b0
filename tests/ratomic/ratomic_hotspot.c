/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_hotspot.c: every rank updates one location on rank 0 thousands of times
 * (INC NBI, FADD NB, ADD on a signed domain, FSUB/FADD on doubles with exact values) and the
 * totals are exact; a rank's own FADD results increase strictly; GEX_FLAG_RANK_IS_JOBRANK,
 * GEX_FLAG_IMMEDIATE (retried on refusal), ACQ/REL and the FAVOR hints are accepted. */
#include "rv_test.h"
#include <gasnet_ratomic.h>

#define ITERS 3000

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    uint64_t *ctr = (uint64_t *)rvt_seg_addr(0, 0);
    int32_t *sctr = (int32_t *)rvt_seg_addr(0, 64);
    double *dctr = (double *)rvt_seg_addr(0, 128);

    gex_AD_t ad, ads, add;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_INC | GEX_OP_FADD | GEX_OP_GET | GEX_OP_SET,
                  GEX_FLAG_AD_FAVOR_REMOTE);
    gex_AD_Create(&ads, rvt_tm, GEX_DT_I32, GEX_OP_ADD | GEX_OP_SET | GEX_OP_GET,
                  GEX_FLAG_AD_FAVOR_MY_NBRHD);
    gex_AD_Create(&add, rvt_tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_SUB | GEX_OP_SET | GEX_OP_GET,
                  GEX_FLAG_AD_FAVOR_MY_RANK);
    if (rvt_me == 0) {
        gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, ctr, GEX_OP_SET, 0, 0, GEX_FLAG_AD_MY_RANK));
        gex_Event_Wait(gex_AD_OpNB_I32(ads, NULL, 0, sctr, GEX_OP_SET, INT32_MAX - 10, 0, 0));
        gex_Event_Wait(gex_AD_OpNB_DBL(add, NULL, 0, dctr, GEX_OP_SET, 0.0, 0.0, 0));
    }
    rvt_barrier();

    uint64_t prev = 0;
    gex_Rank_t jr0 = gex_TM_TranslateRankToJobrank(rvt_tm, 0);
    for (int i = 0; i < ITERS; i++) {
        if (i & 1) {
            uint64_t got;
            gex_Event_t ev;
            gex_Flags_t imm = (i % 7 == 1) ? GEX_FLAG_IMMEDIATE : 0;
            while ((ev = gex_AD_OpNB_U64(ad, &got, 0, ctr, GEX_OP_FADD, 1, 0,
                                         GEX_FLAG_AD_REL | imm)) == GEX_EVENT_NO_OP)
                gasnet_AMPoll();
            gex_Event_Wait(ev);
            RVT_CHECK(i < 2 || got > prev, "FADD fetched %llu after %llu", (unsigned long long)got,
                      (unsigned long long)prev);
            prev = got;
        } else {
            RVT_CHECK(gex_AD_OpNBI_U64(ad, NULL, jr0, ctr, GEX_OP_INC, 0, 0,
                                       GEX_FLAG_RANK_IS_JOBRANK) == 0, "NBI INC");
        }
        if (i % 5 == 0) { /* IMMEDIATE: retried until it is accepted */
            while (gex_AD_OpNBI_I32(ads, NULL, 0, sctr, GEX_OP_ADD, 1, 0, GEX_FLAG_IMMEDIATE))
                gasnet_AMPoll();
        } else {
            gex_AD_OpNBI_I32(ads, NULL, 0, sctr, GEX_OP_ADD, 1, 0, 0);
        }
        /* small integers in a double are exact, in any order */
        if (i % 3 == 0) gex_AD_OpNBI_DBL(add, NULL, 0, dctr, GEX_OP_SUB, -2.0, 0.0, 0);
        if (i % 64 == 63) gex_NBI_Wait(GEX_EC_RMW, 0);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    rvt_barrier();

    uint64_t total;
    int32_t stotal;
    double dtotal;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, ctr, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
    gex_AD_OpNBI_I32(ads, &stotal, 0, sctr, GEX_OP_GET, 0, 0, 0);
    gex_AD_OpNBI_DBL(add, &dtotal, 0, dctr, GEX_OP_GET, 0.0, 0.0, 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    RVT_CHECK(total == (uint64_t)ITERS * rvt_n, "U64 total %llu, expected %llu",
              (unsigned long long)total, (unsigned long long)ITERS * rvt_n);
    /* wraps past INT32_MAX */
    int32_t swant = (int32_t)((uint32_t)(INT32_MAX - 10) + (uint32_t)ITERS * rvt_n);
    RVT_CHECK(stotal == swant, "I32 total %d, expected %d", stotal, swant);
    double dwant = 2.0 * ((ITERS + 2) / 3) * rvt_n;
    RVT_CHECK(dtotal == dwant, "DBL total %g, expected %g", dtotal, dwant);
    rvt_barrier();
    gex_AD_Destroy(add);
    gex_AD_Destroy(ads);
    gex_AD_Destroy(ad);
    return rvt_done("ratomic_hotspot");
}
