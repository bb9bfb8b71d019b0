/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_team.c: gex_TM_Split (reversed keys, odd/even colours, non-members,
 * nested splits, scratch in the segment and the scratch-size query), gex_TM_Create from
 * explicit member lists (with and without GEX_FLAG_RANK_IS_JOBRANK, every scratch mode),
 * rank translation round trips, queries of new teams, collectives on sub-teams,
 * gex_TM_Destroy (return value, scratch hand-back, GEX_FLAG_GLOBALLY_QUIESCED) and
 * reuse over many create/destroy cycles, gex_TM_Pair. */
#include "rv_test.h"
#include <gasnet_coll.h>

#define SCRATCH 4096 /* bytes of segment per scratch area */

static void check_team(gex_TM_t tm, const gex_Rank_t *expect_jobranks, gex_Rank_t n,
                       gex_Flags_t flags, const char *what)
{
    RVT_CHECK(gex_TM_QuerySize(tm) == n, "%s: size %u want %u", what, gex_TM_QuerySize(tm), n);
    RVT_CHECK(gex_TM_QueryClient(tm) == rvt_client, "%s: client", what);
    RVT_CHECK(gex_TM_QueryEP(tm) == rvt_ep, "%s: ep", what);
    RVT_CHECK(gex_TM_QueryFlags(tm) == flags, "%s: flags 0x%x want 0x%x", what,
              (unsigned)gex_TM_QueryFlags(tm), (unsigned)flags);
    RVT_CHECK(gex_TM_QueryCData(tm) == NULL, "%s: new team's CData is not NULL", what);
    gex_TM_SetCData(tm, &rvt_me);
    RVT_CHECK(gex_TM_QueryCData(tm) == &rvt_me, "%s: CData round trip", what);
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
    rvt_init(&argc, &argv, 16 * SCRATCH);
    gex_Rank_t *exp = malloc(rvt_n * sizeof *exp), n;
    char *seg = gex_Segment_QueryAddr(rvt_seg);

    /* scratch query: non-zero for members, zero for non-members, no team written */
    gex_TM_t t = GEX_TM_INVALID;
    size_t sz = gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED);
    RVT_CHECK(sz > 0 && sz <= SCRATCH && t == GEX_TM_INVALID, "scratch query returned %zu", sz);
    RVT_CHECK(gex_TM_Split(NULL, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0,
              "scratch query for a non-member");
    gex_EP_Location_t self = { rvt_me, 0 };
    RVT_CHECK(gex_TM_Create(&t, 1, rvt_tm, &self, 1, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == sz &&
              t == GEX_TM_INVALID, "TM_Create scratch query");
    RVT_CHECK(gex_TM_Create(NULL, 0, rvt_tm, NULL, 0, NULL, 0, GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED) == 0,
              "TM_Create scratch query for a non-member");

    for (int rep = 0; rep < 3; rep++) {
        /* reversed keys, one colour, with scratch in the segment (the default: local) */
        void *scratch = seg + (rep % 2) * SCRATCH;
        gex_TM_t rev;
        size_t rs = gex_TM_Split(&rev, rvt_tm, 7, -(int)rvt_me, scratch, sz, 0);
        RVT_CHECK(rs == rvt_n, "split returned %zu", rs);
        for (gex_Rank_t r = 0; r < rvt_n; r++) exp[r] = rvt_n - 1 - r;
        check_team(rev, exp, rvt_n, 0, "reversed");

        /* odd/even colours, equal keys: ties by parent rank */
        gex_TM_t oe;
        gex_TM_Split(&oe, rvt_tm, (int)(rvt_me % 2), 5, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        n = 0;
        for (gex_Rank_t j = rvt_me % 2; j < rvt_n; j += 2) exp[n++] = j;
        check_team(oe, exp, n, GEX_FLAG_TM_NO_SCRATCH, "odd/even");

        /* nested: split the reversed team by (team rank < half), keys = team rank; the
         * scratch is an offset into the segment */
        gex_Rank_t rr = gex_TM_QueryRank(rev), half = (rvt_n + 1) / 2;
        gex_TM_t nest;
        const gex_Flags_t nf = GEX_FLAG_TM_LOCAL_SCRATCH | GEX_FLAG_SCRATCH_SEG_OFFSET;
        gex_TM_Split(&nest, rev, rr < half, (int)rr, (void *)(uintptr_t)(2 * SCRATCH), sz, nf);
        n = 0;
        for (gex_Rank_t r = 0; r < rvt_n; r++)
            if ((r < half) == (rr < half)) exp[n++] = rvt_n - 1 - r;
        check_team(nest, exp, n, nf, "nested");

        /* a split of the nested team by odd/even nested rank: three levels deep */
        gex_TM_t deep;
        gex_Rank_t nr = gex_TM_QueryRank(nest);
        gex_TM_Split(&deep, nest, (int)(nr % 2), 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_Rank_t dn = 0, *dexp = malloc(n * sizeof *dexp);
        for (gex_Rank_t r = nr % 2; r < n; r += 2) dexp[dn++] = exp[r];
        check_team(deep, dexp, dn, GEX_FLAG_TM_NO_SCRATCH, "three levels");
        free(dexp);

        /* non-members: only rank 0 and the last rank join */
        gex_TM_t ends = GEX_TM_INVALID;
        int joins = rvt_me == 0 || rvt_me == rvt_n - 1;
        size_t es = gex_TM_Split(joins ? &ends : NULL, rvt_tm, 3, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        if (joins) {
            n = 0;
            exp[n++] = 0;
            if (rvt_n > 1) exp[n++] = rvt_n - 1;
            RVT_CHECK(es == n, "ends size %zu", es);
            check_team(ends, exp, n, GEX_FLAG_TM_NO_SCRATCH, "ends");
            RVT_CHECK(gex_TM_Destroy(ends, NULL, 0) == 0, "destroy without scratch returned non-zero");
        } else {
            RVT_CHECK(es == 0 && ends == GEX_TM_INVALID, "non-member got a team");
        }

        /* collectives on the parent still work between sub-team operations */
        rvt_barrier();
        gex_Memvec_t mv = { (void *)1, 7 };
        RVT_CHECK(gex_TM_Destroy(deep, &mv, 0) == 0 && mv.gex_addr == (void *)1 && mv.gex_len == 7,
                  "destroy of a team without scratch wrote *scratch_p");
        RVT_CHECK(gex_TM_Destroy(nest, &mv, 0) == 1, "nest had scratch");
        RVT_CHECK(mv.gex_addr == (void *)(uintptr_t)(2 * SCRATCH) && mv.gex_len == sz,
                  "nest's scratch returned as passed (an offset): %p %zu", mv.gex_addr, mv.gex_len);
        gex_TM_Destroy(oe, NULL, 0);
        /* GEX_FLAG_GLOBALLY_QUIESCED: no barrier; everything on rev is complete everywhere
         * after this barrier on the parent */
        rvt_barrier();
        RVT_CHECK(gex_TM_Destroy(rev, NULL, GEX_FLAG_GLOBALLY_QUIESCED) == 0,
                  "destroy with scratch_p NULL must return 0");
    }
    {   /* scratch handed back */
        gex_TM_t s;
        gex_TM_Split(&s, rvt_tm, 0, 0, seg + 3 * SCRATCH, sz, 0);
        gex_Memvec_t mv = { NULL, 0 };
        RVT_CHECK(gex_TM_Destroy(s, &mv, 0) == 1, "scratch team: destroy returned 0");
        RVT_CHECK(mv.gex_addr == seg + 3 * SCRATCH && mv.gex_len == sz, "scratch returned");
    }

    /* gex_TM_Create from an explicit list: the odd jobranks in reverse order (jobrank 0
     * alone at np 1); non-members pass an empty list; every scratch mode */
    static const gex_Flags_t modes[] = { GEX_FLAG_TM_NO_SCRATCH, GEX_FLAG_TM_LOCAL_SCRATCH,
                                         GEX_FLAG_TM_GLOBAL_SCRATCH, GEX_FLAG_TM_SYMMETRIC_SCRATCH, 0 };
    for (int rep = 0; rep < 10; rep++) {
        gex_EP_Location_t *loc = malloc(rvt_n * sizeof *loc);
        gex_Addr_t *addrs = malloc(rvt_n * sizeof *addrs);
        size_t nl = 0;
        for (gex_Rank_t j = rvt_n; j-- > 0;)
            if (j % 2) loc[nl++] = (gex_EP_Location_t){ j, 0 };
        if (!nl) loc[nl++] = (gex_EP_Location_t){ 0, 0 };
        int member = 0;
        for (size_t i = 0; i < nl; i++) member |= loc[i].gex_rank == rvt_me;
        gex_Flags_t f = modes[rep % 5] | ((rep / 5) ? GEX_FLAG_RANK_IS_JOBRANK : 0);
        /* GLOBAL: one address per member, the member's own where it is; the others one each */
        for (size_t i = 0; i < rvt_n; i++) addrs[i] = seg + 4 * SCRATCH + (i % 4) * SCRATCH;
        size_t mypos = 0;
        for (size_t i = 0; i < nl; i++)
            if (loc[i].gex_rank == rvt_me) mypos = i;
        if (modes[rep % 5] != GEX_FLAG_TM_GLOBAL_SCRATCH) addrs[0] = addrs[mypos];
        gex_TM_t ct = GEX_TM_INVALID;
        size_t cs = member ? gex_TM_Create(&ct, 1, rvt_tm, loc, nl, addrs, sz, f)
                           : gex_TM_Create(NULL, 0, rvt_tm, NULL, 0, NULL, 0, f);
        RVT_CHECK(cs == (member ? nl : 0), "TM_Create returned %zu", cs);
        if (member) {
            for (size_t i = 0; i < nl; i++) exp[i] = loc[i].gex_rank;
            check_team(ct, exp, (gex_Rank_t)nl, f, "created");
            gex_Memvec_t mv = { NULL, 0 };
            int had = gex_TM_Destroy(ct, &mv, 0);
            if (modes[rep % 5] == GEX_FLAG_TM_NO_SCRATCH) {
                RVT_CHECK(had == 0, "created without scratch: destroy returned %d", had);
            } else {
                RVT_CHECK(had == 1 && mv.gex_addr == addrs[modes[rep % 5] == GEX_FLAG_TM_GLOBAL_SCRATCH ? mypos : 0] &&
                          mv.gex_len == sz, "created with scratch mode 0x%x: destroy returned %d, %p",
                          (unsigned)f, had, mv.gex_addr);
            }
        }
        free(loc);
        free(addrs);
        rvt_barrier();
    }

    /* destroy and reuse: team ids are recycled, so this may go on forever */
    for (int rep = 0; rep < 100; rep++) {
        gex_TM_t a, b;
        gex_TM_Split(&a, rvt_tm, 0, rep % 3 ? (int)rvt_me : -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_TM_Split(&b, a, (int)(gex_TM_QueryRank(a) % 2), 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        uint64_t v = rvt_me + 1, s = 0;
        gex_Event_Wait(gex_Coll_ReduceToAllNB(b, &s, &v, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
        uint64_t e = 0;
        for (gex_Rank_t r = gex_TM_QueryRank(a) % 2; r < rvt_n; r += 2)
            e += gex_TM_TranslateRankToJobrank(a, r) + 1;
        RVT_CHECK(s == e, "reuse %d: sum %llu want %llu", rep, (unsigned long long)s, (unsigned long long)e);
        gex_TM_Destroy(b, NULL, 0);
        gex_TM_Destroy(a, NULL, rep % 2 ? 0 : GEX_FLAG_GLOBALLY_QUIESCED);
        if (rep % 2 == 0) rvt_barrier(); /* what makes the quiesced destroy legal next time */
    }

    /* TM-pair: point-to-point addressing of EP 0 on any jobrank */
    gex_TM_t pair = gex_TM_Pair(rvt_ep, 0);
    RVT_CHECK(pair != GEX_TM_INVALID && gex_TM_Pair(rvt_ep, 0) == pair, "pair");
    RVT_CHECK(gex_TM_TranslateRankToEP(pair, rvt_n - 1, 0).gex_rank == rvt_n - 1, "pair RankToEP");
    free(exp);
    return rvt_done("coll_team");
}
