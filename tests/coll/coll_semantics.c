/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_semantics.c: the collectives section's statements not covered elsewhere:
 * reductions in place (ReduceToOne with src == dst on the root, ReduceToAll with src == dst
 * on every rank; small and large), ReduceToOne's dst ignored off the root (NULL), GEX_OP_USER
 * on a built-in type with each rank's own user_cdata reaching only its own calls, several
 * barriers in flight on one team synced in reverse order, and every collective on single-rank
 * teams (gex_TM_Split with one colour per rank, keys ignored). */
#include "rv_test.h"
#include <gasnet_coll.h>

#define BIG 20000 /* int64 elements: 160 KB, above the large-message threshold */

static int64_t v(gex_Rank_t r, size_t i) { return (int64_t)((r + 1) * 3 + (i % 11)) - 5; }

static int cdata_bad;
static void user_add(const void *a1, void *a2, size_t count, const void *cdata)
{
    if (cdata != &rvt_me) cdata_bad++;
    const int64_t *x = a1;
    int64_t *y = a2;
    for (size_t i = 0; i < count; i++) y[i] = x[i] + y[i];
}

static void check_sum(const int64_t *buf, size_t cnt, gex_TM_t tm, const char *what)
{
    gex_Rank_t n = gex_TM_QuerySize(tm);
    for (size_t i = 0; i < cnt; i++) {
        int64_t e = 0;
        for (gex_Rank_t r = 0; r < n; r++) e += v(gex_TM_TranslateRankToJobrank(tm, r), i);
        RVT_CHECK(buf[i] == e, "%s: element %zu is %lld, want %lld", what, i, (long long)buf[i],
                  (long long)e);
    }
}

static void fill(int64_t *buf, size_t cnt)
{
    for (size_t i = 0; i < cnt; i++) buf[i] = v(rvt_me, i);
}

static void reductions(gex_TM_t tm, int64_t *buf, int64_t *other, const char *what)
{
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    static const size_t counts[] = { 1, 3, BIG };
    for (size_t c = 0; c < 3; c++) {
        size_t cnt = counts[c];
        /* ReduceToAll in place on every rank, built-in op then user op */
        for (int user = 0; user < 2; user++) {
            fill(buf, cnt);
            gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, buf, buf, GEX_DT_I64, 8, cnt,
                                                  user ? GEX_OP_USER : GEX_OP_ADD,
                                                  user ? user_add : NULL, user ? &rvt_me : NULL, 0));
            check_sum(buf, cnt, tm, user ? "in-place ReduceToAll (GEX_OP_USER)" : "in-place ReduceToAll");
        }
        for (gex_Rank_t root = 0; root < n; root++) {
            /* in place on the root; other ranks pass distinct src and a NULL dst */
            fill(buf, cnt);
            const int64_t *src = buf;
            if (me != root) {
                fill(other, cnt);
                src = other;
            }
            gex_Event_Wait(gex_Coll_ReduceToOneNB(tm, root, me == root ? buf : NULL, src, GEX_DT_I64,
                                                  8, cnt, root % 2 ? GEX_OP_USER : GEX_OP_ADD,
                                                  user_add, &rvt_me, 0));
            if (me == root) check_sum(buf, cnt, tm, "in-place ReduceToOne");
            else
                for (size_t i = 0; i < cnt; i++)
                    RVT_CHECK(other[i] == v(rvt_me, i), "%s: ReduceToOne changed src", what);
        }
    }
    RVT_CHECK(!cdata_bad, "%s: a user op got another rank's user_cdata (%d times)", what, cdata_bad);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    int64_t *buf = malloc(BIG * sizeof *buf), *other = malloc(BIG * sizeof *other);
    RVT_CHECK(buf && other, "malloc");

    reductions(rvt_tm, buf, other, "primordial team");

    /* several barriers in flight on one team, synced newest first */
    gex_Event_t b[4];
    for (int i = 0; i < 4; i++) b[i] = gex_Coll_BarrierNB(rvt_tm, 0);
    for (int i = 3; i >= 0; i--) gex_Event_Wait(b[i]);

    /* single-rank teams: colour = jobrank, a key that would reorder if compared across colours */
    gex_TM_t solo = GEX_TM_INVALID;
    gex_TM_Split(&solo, rvt_tm, (int)rvt_me, -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    RVT_CHECK(solo != GEX_TM_INVALID && gex_TM_QuerySize(solo) == 1 && gex_TM_QueryRank(solo) == 0,
              "single-rank team: size %u rank %u", gex_TM_QuerySize(solo), gex_TM_QueryRank(solo));
    RVT_CHECK(gex_TM_QueryFlags(solo) == GEX_FLAG_TM_NO_SCRATCH, "flags 0x%x",
              (unsigned)gex_TM_QueryFlags(solo));
    RVT_CHECK(gex_TM_TranslateRankToJobrank(solo, 0) == rvt_me, "solo rank 0 is jobrank %u",
              gex_TM_TranslateRankToJobrank(solo, 0));
    for (gex_Rank_t j = 0; j < rvt_n; j++)
        RVT_CHECK(gex_TM_TranslateJobrankToRank(solo, j) == (j == rvt_me ? 0 : GEX_RANK_INVALID),
                  "solo: jobrank %u -> %u", j, gex_TM_TranslateJobrankToRank(solo, j));
    gex_Event_Wait(gex_Coll_BarrierNB(solo, 0));
    char bsrc[100], bdst[100];
    rvt_fill(bsrc, sizeof bsrc, 77 + rvt_me);
    gex_Event_Wait(gex_Coll_BroadcastNB(solo, 0, bdst, bsrc, sizeof bdst, 0));
    RVT_VERIFY(bdst, sizeof bdst, 77 + rvt_me, "single-rank broadcast");
    gex_Event_Wait(gex_Coll_BroadcastNB(solo, 0, bsrc, bsrc, sizeof bsrc, 0));
    RVT_VERIFY(bsrc, sizeof bsrc, 77 + rvt_me, "single-rank in-place broadcast");
    reductions(solo, buf, other, "single-rank team");
    double d = 2.5, dr = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(solo, &dr, &d, GEX_DT_DBL, 8, 1, GEX_OP_MULT, NULL, NULL, 0));
    RVT_CHECK(dr == 2.5, "single-rank MULT: %g", dr);
    RVT_CHECK(gex_TM_Destroy(solo, NULL, 0) == 0, "destroy of a team without scratch returned non-zero");

    free(buf);
    free(other);
    return rvt_done("coll_semantics");
}
