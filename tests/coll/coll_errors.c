/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_errors.c <case>: one erroneous use of teams or collectives per case,
 * each of which must end the job with a fatal error naming the call (CMakeLists.txt has
 * the expected messages). The mm_* cases are calls that differ across ranks. */
#include "rv_test.h"
#include <gasnet_coll.h>
#include <gasnet_mk.h>
#include <rivet.h>

static void user_sum(const void *a, void *b, size_t n, const void *cd)
{
    (void)cd;
    for (size_t i = 0; i < n; i++) ((int32_t *)b)[i] += ((const int32_t *)a)[i];
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    int seg = !strncmp(c, "split_scratch_outside", 21);
    rvt_init(&argc, &argv, seg ? 65536 : 0);
    static char buf[4096], out[4096];
    int32_t v[8] = { 0 }, r[8];
    gex_TM_t t = GEX_TM_INVALID;
    int z = rvt_me == 0; /* rank 0 calls differently in the mm_* cases */

    /* ---- calls that do not match across ranks ---- */
    if (!strcmp(c, "barrier_blocking_invalid"))
        gex_Coll_BarrierBlocking(GEX_TM_INVALID, 0);
    else if (!strcmp(c, "mk_query_invalid"))
        (void)gex_MK_QueryClass(GEX_MK_INVALID);
    else if (!strcmp(c, "mk_cdata_bogus"))
        gex_MK_SetCData((gex_MK_t)(void *)buf, NULL);
    else if (!strcmp(c, "mm_bcast_size"))
        gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, 0, buf, buf, z ? 100 : 200, 0));
    else if (!strcmp(c, "mm_kind"))
        gex_Event_Wait(z ? gex_Coll_BarrierNB(rvt_tm, 0) : gex_Coll_BroadcastNB(rvt_tm, 0, buf, buf, 8, 0));
    else if (!strcmp(c, "mm_root"))
        gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, z ? 0 : 1, buf, buf, 8, 0));
    else if (!strcmp(c, "mm_reduce_op"))
        gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_I32, 4, 2, z ? GEX_OP_ADD : GEX_OP_MAX,
                                              NULL, NULL, 0));
    else if (!strcmp(c, "mm_reduce_count"))
        gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_I32, 4, z ? 4 : 5, GEX_OP_ADD, NULL,
                                              NULL, 0));
    else if (!strcmp(c, "mm_gather_size"))
        gex_Event_Wait(rivet_Coll_GatherNB(rvt_tm, 0, out, buf, z ? 10 : 12, 0));
    else if (!strcmp(c, "mm_subteam")) {
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_Event_Wait(rivet_Coll_AllgatherNB(t, out, buf, z ? 16 : 8, 0));
    }
    /* ---- bad arguments ---- */
    else if (!strcmp(c, "dt_cnt_zero"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_I32, 4, 0, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "dt_sz_wrong"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_I64, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "bad_op"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_I32, 4, 1, GEX_OP_SUB, NULL, NULL, 0);
    else if (!strcmp(c, "bitwise_float"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_DBL, 8, 1, GEX_OP_AND, NULL, NULL, 0);
    else if (!strcmp(c, "user_dt_builtin_op"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_USER, 12, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "user_null_fn"))
        gex_Coll_ReduceToOneNB(rvt_tm, 0, r, v, GEX_DT_I32, 4, 1, GEX_OP_USER, NULL, NULL, 0);
    else if (!strcmp(c, "bad_root"))
        gex_Coll_BroadcastNB(rvt_tm, rvt_n, buf, buf, 8, 0);
    else if (!strcmp(c, "pair_coll"))
        gex_Coll_ReduceToAllNB(gex_TM_Pair(rvt_ep, 0), r, v, GEX_DT_I32, 4, 1, GEX_OP_USER, user_sum,
                               NULL, 0);
    else if (!strcmp(c, "root_invalid"))
        gex_Coll_ReduceToOneNB(rvt_tm, GEX_RANK_INVALID, r, v, GEX_DT_I32, 4, 1, GEX_OP_ADD, NULL,
                               NULL, 0);
    else if (!strcmp(c, "src_null"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, NULL, GEX_DT_I32, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "dst_null"))
        gex_Coll_ReduceToAllNB(rvt_tm, NULL, v, GEX_DT_I32, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "dt_sz_zero"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, GEX_DT_USER, 0, 1, GEX_OP_USER, user_sum, NULL, 0);
    else if (!strcmp(c, "bad_dt"))
        gex_Coll_ReduceToAllNB(rvt_tm, r, v, (gex_DT_t)0x1000, 4, 1, GEX_OP_ADD, NULL, NULL, 0);
    else if (!strcmp(c, "tm_invalid"))
        gex_Coll_BarrierNB(GEX_TM_INVALID, 0);
    else if (!strcmp(c, "split_scratch_zero"))
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, 0);
    else if (!strcmp(c, "split_no_segment"))
        gex_TM_Split(&t, rvt_tm, 0, 0, buf, sizeof buf, 0);
    else if (!strcmp(c, "split_scratch_outside"))
        gex_TM_Split(&t, rvt_tm, 0, 0, (char *)gex_Segment_QueryAddr(rvt_seg) + 61440, 8192, 0);
    else if (!strcmp(c, "split_negative_color"))
        gex_TM_Split(&t, rvt_tm, -1, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    else if (!strcmp(c, "split_global"))
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_GLOBAL_SCRATCH);
    else if (!strcmp(c, "split_both_queries"))
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0,
                     GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    else if (!strcmp(c, "create_dup")) {
        gex_EP_Location_t l[2] = { { 0, 0 }, { 0, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 2, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (!strcmp(c, "create_two_modes")) {
        gex_EP_Location_t l[1] = { { rvt_me, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH);
    } else if (!strcmp(c, "create_list_differs")) {
        gex_EP_Location_t l[2] = { { z ? 0 : 1, 0 }, { z ? 1 : 0, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 2, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (!strcmp(c, "create_ep_index")) {
        gex_EP_Location_t l[1] = { { rvt_me, 1 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (!strcmp(c, "create_jobrank_range")) {
        gex_EP_Location_t l[1] = { { rvt_n + 5, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK);
    } else if (!strcmp(c, "create_jobrank_outside")) { /* the parent holds only this rank */
        gex_TM_t solo;
        gex_TM_Split(&solo, rvt_tm, (int)rvt_me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_EP_Location_t l[1] = { { (rvt_me + 1) % rvt_n, 0 } };
        gex_TM_Create(&t, 1, solo, l, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH | GEX_FLAG_RANK_IS_JOBRANK);
    } else if (!strcmp(c, "create_no_new_tms")) {
        gex_EP_Location_t l[1] = { { rvt_me, 0 } };
        gex_TM_Create(&t, 0, rvt_tm, l, 1, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (!strcmp(c, "create_no_scratch_addrs")) {
        gex_EP_Location_t l[1] = { { rvt_me, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, l, 1, NULL, 4096, 0);
    } else if (!strcmp(c, "create_member_absent")) { /* rank 0 lists rank 1, which joins nothing */
        gex_EP_Location_t l[2] = { { 0, 0 }, { 1, 0 } };
        gex_TM_Create(&t, 1, rvt_tm, z ? l : NULL, z ? 2 : 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    } else if (!strcmp(c, "split_pair"))
        gex_TM_Split(&t, gex_TM_Pair(rvt_ep, 0), 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    else if (!strcmp(c, "destroy_primordial"))
        gex_TM_Destroy(rvt_tm, NULL, 0);
    else if (!strcmp(c, "destroy_flags")) {
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_TM_Destroy(t, NULL, GEX_FLAG_IMMEDIATE);
    } else if (!strcmp(c, "destroy_active")) {
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        if (rvt_me == 0) { /* rank 1 never joins this barrier */
            gex_Event_t ev = gex_Coll_BarrierNB(t, 0);
            (void)ev;
            gex_TM_Destroy(t, NULL, 0);
        }
        rvt_barrier();
    } else {
        RVT_FAIL("unknown case '%s'", c);
    }
    rvt_barrier();
    RVT_FAIL("case '%s' did not fail", c);
}
