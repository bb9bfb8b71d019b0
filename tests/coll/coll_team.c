/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_team.c: gex_TM_Split (reversed keys, odd/even colours, non-members,
 * nested splits, the scratch-size query), rank translation round trips, collectives
 * on sub-teams, gex_TM_Destroy and reuse, gex_TM_Pair. */
#include "rv_test.h"
#include <gasnet_coll.h>

static void check_team(gex_TM_t tm, const gex_Rank_t *expect_jobranks, gex_Rank_t n,
                       const char *what)
{
    RVT_CHECK(gex_TM_QuerySize(tm) == n, "%s: size %u want %u", what, gex_TM_QuerySize(tm), n);
    RVT_CHECK(gex_TM_QueryClient(tm) == rvt_client, "%s: client", what);
    RVT_CHECK(gex_TM_QueryEP(tm) == rvt_ep, "%s: ep", what);
    gex_Rank_t me = gex_TM_QueryRank(tm);
    RVT_CHECK(me < n && expect_jobranks[me] == rvt_me, "%s: my rank %u", what, me);
    for (gex_Rank_t r = 0; r < n; r++) {
        gex_Rank_t j = gex_TM_TranslateRankToJobrank(tm, r);
        RVT_CHECK(j == expect_jobranks[r], "%s: rank %u -> jobrank %u want %u", what, r, j,
                  expect_jobranks[r]);
        RVT_CHECK(gex_TM_TranslateJobrankToRank(tm, j) == r, "%s: round trip of %u", what, r);
        gex_EP_Location_t loc = gex_TM_TranslateRankToEP(tm, r, 0);
        RVT_CHECK(loc.gex_rank == j && loc.gex_ep_index == 0, "%s: RankToEP", what);
    }
    for (gex_Rank_t j = 0; j < rvt_n; j++) {
        int in = 0;
        for (gex_Rank_t r = 0; r < n; r++) in |= expect_jobranks[r] == j;
        if (!in) RVT_CHECK(gex_TM_TranslateJobrankToRank(tm, j) == GEX_RANK_INVALID,
                           "%s: jobrank %u is not a member", what, j);
    }
    /* collectives on the team: sum of jobranks, broadcast from every root, barrier */
    int64_t s = rvt_me, sum = -1, e = 0;
    for (gex_Rank_t r = 0; r < n; r++) e += expect_jobranks[r];
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &sum, &s, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
    RVT_CHECK(sum == e, "%s: allreduce %lld want %lld", what, (long long)sum, (long long)e);
    for (gex_Rank_t root = 0; root < n; root++) {
        uint32_t v = me == root ? 1000 + root : 0, got = 0;
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, &got, &v, sizeof v, 0));
        RVT_CHECK(got == 1000 + root, "%s: broadcast from %u", what, root);
        int32_t mx = -1;
        int32_t mine = (int32_t)me;
        gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, &mx, &mine, GEX_DT_I32, 4, 1, GEX_OP_MAX,
                                              NULL, NULL, 0));
        if (me == root) RVT_CHECK(mx == (int32_t)n - 1, "%s: reduce to %u", what, root);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    gex_Rank_t *exp = malloc(rvt_n * sizeof *exp), n;

    /* scratch query: local, non-zero for members, zero for non-members */
    gex_TM_t t = GEX_TM_INVALID;
    size_t sz = gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    RVT_CHECK(sz > 0 && t == GEX_TM_INVALID, "scratch query returned %zu", sz);
    RVT_CHECK(gex_TM_Split(NULL, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0,
              "scratch query for a non-member");

    for (int rep = 0; rep < 3; rep++) {
        /* reversed keys, one colour, with scratch */
        void *scratch = malloc(sz);
        gex_TM_t rev;
        size_t rs = gex_TM_Split(&rev, rvt_tm, 7, -(int)rvt_me, scratch, sz, 0);
        RVT_CHECK(rs == rvt_n, "split returned %zu", rs);
        for (gex_Rank_t r = 0; r < rvt_n; r++) exp[r] = rvt_n - 1 - r;
        check_team(rev, exp, rvt_n, "reversed");

        /* odd/even colours, equal keys: ties by parent rank */
        gex_TM_t oe;
        gex_TM_Split(&oe, rvt_tm, (int)(rvt_me % 2), 5, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        n = 0;
        for (gex_Rank_t j = rvt_me % 2; j < rvt_n; j += 2) exp[n++] = j;
        check_team(oe, exp, n, "odd/even");

        /* nested: split the reversed team by (team rank < half), keys = team rank */
        gex_Rank_t rr = gex_TM_QueryRank(rev), half = (rvt_n + 1) / 2;
        gex_TM_t nest;
        gex_TM_Split(&nest, rev, rr < half, (int)rr, NULL, 0, 0);
        n = 0;
        for (gex_Rank_t r = 0; r < rvt_n; r++)
            if ((r < half) == (rr < half)) exp[n++] = rvt_n - 1 - r;
        check_team(nest, exp, n, "nested");

        /* non-members: only rank 0 and the last rank join */
        gex_TM_t ends = GEX_TM_INVALID;
        int joins = rvt_me == 0 || rvt_me == rvt_n - 1;
        size_t es = gex_TM_Split(joins ? &ends : NULL, rvt_tm, 3, 0, NULL, 0, 0);
        if (joins) {
            n = 0;
            exp[n++] = 0;
            if (rvt_n > 1) exp[n++] = rvt_n - 1;
            RVT_CHECK(es == n, "ends size %zu", es);
            check_team(ends, exp, n, "ends");
            gex_TM_Destroy(ends, NULL, 0);
        } else {
            RVT_CHECK(es == 0 && ends == GEX_TM_INVALID, "non-member got a team");
        }

        /* collectives on the parent still work between sub-team operations */
        rvt_barrier();
        gex_Memvec_t mv = { NULL, 0 };
        RVT_CHECK(gex_TM_Destroy(nest, NULL, 0) == 0, "no scratch on nest");
        gex_TM_Destroy(oe, NULL, 0);
        RVT_CHECK(gex_TM_Destroy(rev, &mv, 0) != 0, "rev had scratch");
        RVT_CHECK(mv.gex_addr == scratch && mv.gex_len == sz, "scratch returned");
        free(scratch);
    }

    /* gex_TM_Create from an explicit list: the odd jobranks in reverse order */
    for (int rep = 0; rep < 2; rep++) {
        gex_EP_Location_t *loc = malloc(rvt_n * sizeof *loc);
        size_t nl = 0;
        for (gex_Rank_t j = rvt_n; j-- > 0;)
            if (j % 2) loc[nl++] = (gex_EP_Location_t){ j, 0 };
        if (!nl) loc[nl++] = (gex_EP_Location_t){ 0, 0 };
        int member = 0;
        for (size_t i = 0; i < nl; i++) member |= loc[i].gex_rank == rvt_me;
        gex_TM_t ct = GEX_TM_INVALID;
        size_t cs = gex_TM_Create(&ct, member, rvt_tm, loc, nl, NULL, 0,
                                  rep ? GEX_FLAG_RANK_IS_JOBRANK : 0);
        RVT_CHECK(cs == (member ? nl : 0), "TM_Create returned %zu", cs);
        if (member) {
            for (size_t i = 0; i < nl; i++) exp[i] = loc[i].gex_rank;
            check_team(ct, exp, (gex_Rank_t)nl, "created");
            gex_TM_Destroy(ct, NULL, 0);
        }
        free(loc);
        rvt_barrier();
    }

    /* TM-pair: point-to-point addressing of EP 0 on any jobrank */
    gex_TM_t pair = gex_TM_Pair(rvt_ep, 0);
    RVT_CHECK(pair != GEX_TM_INVALID, "pair");
    RVT_CHECK(gex_TM_TranslateRankToEP(pair, rvt_n - 1, 0).gex_rank == rvt_n - 1, "pair RankToEP");
    free(exp);
    return rvt_done("coll_team");
}
