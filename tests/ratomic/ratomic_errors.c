/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_errors.c: bad remote-atomic calls must end the job with a clear fatal
 * message (see CMakeLists.txt for the expected text of each case). */
#include "rv_test.h"
#include <gasnet_ratomic.h>

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    const char *c = argc > 1 ? argv[1] : "";
    void *base = NULL;
    uintptr_t size = 0;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, 0, &base, NULL, &size));
    char *b = (char *)base;
    gex_AD_t ad;
    uint64_t r64;
    uint32_t r32;
    if (!strcmp(c, "op_not_in_set")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_GET, 0);
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &r64, 0, b, GEX_OP_ADD, 1, 0, 0));
    } else if (!strcmp(c, "outside")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_I32, GEX_OP_ADD, 0);
        gex_AD_OpNBI_I32(ad, NULL, 0, b + size, GEX_OP_ADD, 1, 0, 0);
    } else if (!strcmp(c, "below")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_DBL, GEX_OP_SET, 0);
        gex_AD_OpNB_DBL(ad, NULL, 0, b - 8, GEX_OP_SET, 1.0, 0.0, 0);
    } else if (!strcmp(c, "type_mismatch")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_I32, GEX_OP_ADD, 0);
        gex_AD_OpNB_I64(ad, NULL, 0, b, GEX_OP_ADD, 1, 0, 0);
    } else if (!strcmp(c, "float_bitwise")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_FLT, GEX_OP_AND, 0);
    } else if (!strcmp(c, "two_ops")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_ADD | GEX_OP_FADD, 0);
        gex_AD_OpNBI_U32(ad, &r32, 0, b, GEX_OP_ADD | GEX_OP_FADD, 1, 0, 0);
    } else if (!strcmp(c, "null_result")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_FADD, 0);
        gex_AD_OpNB_U32(ad, NULL, 0, b, GEX_OP_FADD, 1, 0, 0);
    } else if (!strcmp(c, "misaligned")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNB_U64(ad, NULL, 0, b + 4, GEX_OP_ADD, 1, 0, 0);
    } else if (!strcmp(c, "bad_rank")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNB_U64(ad, NULL, rvt_n, b, GEX_OP_ADD, 1, 0, 0);
    } else if (!strcmp(c, "my_rank")) { /* np >= 2: the next rank is not me */
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U64(ad, NULL, (rvt_me + 1) % rvt_n, b, GEX_OP_ADD, 1, 0, GEX_FLAG_AD_MY_RANK);
    } else if (!strcmp(c, "my_nbrhd")) { /* run with RIVET_PSHM=0: the next rank is elsewhere */
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U64(ad, NULL, (rvt_me + 1) % rvt_n, b, GEX_OP_ADD, 1, 0,
                         GEX_FLAG_AD_MY_NBRHD);
    } else if (!strcmp(c, "both_locality")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U64(ad, NULL, rvt_me, b, GEX_OP_ADD, 1, 0,
                         GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD);
    } else if (!strcmp(c, "not_member")) { /* np >= 2: teams of one rank each */
        gex_TM_t one;
        gex_TM_Split(&one, rvt_tm, (int)rvt_me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_AD_Create(&ad, one, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U64(ad, NULL, (rvt_me + 1) % rvt_n, b, GEX_OP_ADD, 1, 0,
                         GEX_FLAG_RANK_IS_JOBRANK);
    } else if (!strcmp(c, "jobrank_range")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U64(ad, NULL, rvt_n, b, GEX_OP_ADD, 1, 0, GEX_FLAG_RANK_IS_JOBRANK);
    } else if (!strcmp(c, "peer_offset")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_ADD, 0);
        gex_AD_OpNBI_U32(ad, NULL, 0, (void *)size, GEX_OP_ADD, 1, 0, GEX_FLAG_PEER_SEG_OFFSET);
    } else if (!strcmp(c, "self_offset")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_FADD, 0);
        gex_AD_OpNBI_U32(ad, (uint32_t *)(size - 2), 0, b, GEX_OP_FADD, 1, 0,
                         GEX_FLAG_SELF_SEG_OFFSET);
    } else if (!strcmp(c, "favor_two")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD,
                      GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_REMOTE);
    } else if (!strcmp(c, "user_op")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_I32, GEX_OP_ADD | GEX_OP_USER, 0);
    } else if (!strcmp(c, "bad_dt")) {
        gex_AD_Create(&ad, rvt_tm, GEX_DT_USER, GEX_OP_ADD, 0);
    } else if (!strcmp(c, "null_ad_p")) {
        gex_AD_Create(NULL, rvt_tm, GEX_DT_U64, GEX_OP_ADD, 0);
    } else if (!strcmp(c, "invalid_ad")) {
        (void)gex_AD_QueryOps(GEX_AD_INVALID);
    } else if (!strcmp(c, "tm_pair")) {
        gex_AD_Create(&ad, gex_TM_Pair(rvt_ep, 0), GEX_DT_U64, GEX_OP_ADD, 0);
    } else {
        RVT_FAIL("unknown case '%s'", c);
    }
    RVT_FAIL("case '%s' did not fail", c);
}
