/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_hier.c: collectives on a team whose neighbourhoods are NOT consecutive team
 * ranks (gex_TM_Create: even jobranks first, then odd ones; run with several neighbourhoods,
 * e.g. GASNET_SUPERNODE_MAXSIZE=2, and RIVET_COLL_HIER=1): barrier, broadcast from every root,
 * GEX_OP_ADD reductions (two levels) and a non-commutative GEX_OP_USER_NC reduction, which
 * must still come out in team rank order (Rivet runs that one flat), small and large; then
 * the same on the primordial team. */
#include "rv_test.h"

#include "coll_aff.h"

#include <gasnet_coll.h>

static aff_t aff_of(gex_Rank_t jobrank, size_t i)
{
    return (aff_t){ 2 * (jobrank * 13 + i) + 3, jobrank * 101 + i * 7 + 1 };
}

static void run(gex_TM_t tm, const char *what)
{
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    for (int i = 0; i < 3; i++) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    enum { BC = 3000 };
    static uint8_t buf[BC];
    for (gex_Rank_t root = 0; root < n; root++) {
        uint64_t seed = 77 + root;
        memset(buf, 0, sizeof buf);
        if (me == root) rvt_fill(buf, sizeof buf, seed);
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, buf, buf, sizeof buf, 0));
        size_t bad = rvt_find_bad(buf, sizeof buf, seed);
        RVT_CHECK(bad == (size_t)-1, "%s: broadcast from team rank %u: byte %zu is 0x%02x, "
                  "expected 0x%02x", what, (unsigned)root, bad, buf[bad], rvt_byte(seed, bad));
    }

    for (size_t cnt = 1; cnt <= 10000; cnt *= 100) { /* 8 B .. 80 KB: small and large */
        uint64_t *s = malloc(cnt * 8), *d = malloc(cnt * 8);
        for (size_t i = 0; i < cnt; i++) s[i] = rvt_me * UINT64_C(1000003) + i;
        for (gex_Rank_t root = 0; root <= n; root++) {
            memset(d, 0, cnt * 8);
            if (root == n)
                gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, d, s, GEX_DT_U64, 8, cnt, GEX_OP_ADD, NULL,
                                                      NULL, 0));
            else
                gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, d, s, GEX_DT_U64, 8, cnt, GEX_OP_ADD,
                                                      NULL, NULL, 0));
            if (root != n && root != me) continue;
            uint64_t js = 0; /* sum of the members' jobranks */
            for (gex_Rank_t r = 0; r < n; r++) js += gex_TM_TranslateRankToJobrank(tm, r);
            for (size_t i = 0; i < cnt; i++) {
                uint64_t e = js * UINT64_C(1000003) + (uint64_t)n * i;
                RVT_CHECK(d[i] == e, "%s: ADD elem %zu (root %u): %" PRIu64 ", expected %" PRIu64,
                          what, i, (unsigned)root, d[i], e);
            }
        }
        free(s);
        free(d);
    }

    for (size_t cnt = 1; cnt <= 4000; cnt *= 40) { /* 16 B .. 64 KB */
        aff_t *s = malloc(cnt * sizeof *s), *d = malloc(cnt * sizeof *d);
        for (size_t i = 0; i < cnt; i++) s[i] = aff_of(rvt_me, i);
        for (gex_Rank_t root = 0; root <= n; root++) {
            memset(d, 0, cnt * sizeof *d);
            if (root == n)
                gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, d, s, GEX_DT_USER, sizeof(aff_t), cnt,
                                                      GEX_OP_USER_NC, aff_compose, NULL, 0));
            else
                gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, d, s, GEX_DT_USER, sizeof(aff_t), cnt,
                                                      GEX_OP_USER_NC, aff_compose, NULL, 0));
            if (root != n && root != me) continue;
            for (size_t i = 0; i < cnt; i++) {
                aff_t e = aff_of(gex_TM_TranslateRankToJobrank(tm, 0), i);
                for (gex_Rank_t r = 1; r < n; r++) {
                    aff_t y = aff_of(gex_TM_TranslateRankToJobrank(tm, r), i);
                    aff_compose(&e, &y, 1, NULL);
                    e = y;
                }
                RVT_CHECK(d[i].m == e.m && d[i].c == e.c, "%s: USER_NC elem %zu (root %u) is not "
                          "the team-rank-order result", what, i, (unsigned)root);
            }
        }
        free(s);
        free(d);
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    gex_EP_Location_t *loc = malloc(rvt_n * sizeof *loc);
    size_t nl = 0;
    for (int odd = 0; odd < 2; odd++)
        for (gex_Rank_t j = odd; j < rvt_n; j += 2) loc[nl++] = (gex_EP_Location_t){ j, 0 };
    gex_TM_t mixed;
    RVT_CHECK(gex_TM_Create(&mixed, 1, rvt_tm, loc, nl, NULL, 0, GEX_FLAG_TM_NO_SCRATCH) == nl,
              "gex_TM_Create");
    run(mixed, "even-then-odd team");
    run(rvt_tm, "primordial team");
    gex_TM_Destroy(mixed, NULL, 0);
    free(loc);
    return rvt_done("coll_hier");
}
