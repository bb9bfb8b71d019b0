/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_gather.c: rivet_Coll_GatherNB (every root), rivet_Coll_AllgatherNB and
 * rivet_Coll_AlltoallNB (rivet.h) checked byte for byte at sizes from 0 to 20 KB per rank
 * (tree and direct gather), in place where allowed, on the whole job and on a sub-team. */
#include "rv_test.h"
#include <rivet.h>

/* The pattern of the block rank 'from' contributes for rank 'to' (gather: to = 0). */
static uint64_t seed_of(int round, gex_Rank_t from, gex_Rank_t to) { return round * 10007u + from * 101u + to + 1; }

static void run(gex_TM_t tm, int round, size_t nb)
{
    gex_Rank_t n = gex_TM_QuerySize(tm), me = gex_TM_QueryRank(tm);
    unsigned char *src = malloc(n * nb + 1), *dst = malloc(n * nb + 1);
    RVT_CHECK(src && dst, "malloc");

    /* gather to every root, then in place on the root */
    for (gex_Rank_t root = 0; root < n; root++) {
        rvt_fill(src, nb, seed_of(round, me, root));
        memset(dst, 0xEE, n * nb + 1);
        gex_Event_Wait(rivet_Coll_GatherNB(tm, root, me == root ? dst : NULL, src, nb, 0));
        if (me == root) {
            for (gex_Rank_t r = 0; r < n; r++)
                RVT_VERIFY(dst + r * nb, nb, seed_of(round, r, root), "gather block");
            RVT_CHECK(dst[n * nb] == 0xEE, "gather of %zu x %u bytes wrote past the end", nb, n);
            rvt_fill(dst + me * nb, nb, seed_of(round + 1, me, root));
        } else {
            rvt_fill(src, nb, seed_of(round + 1, me, root));
        }
        gex_Event_Wait(rivet_Coll_GatherNB(tm, root, me == root ? dst : NULL,
                                           me == root ? dst + me * nb : src, nb, 0));
        if (me == root)
            for (gex_Rank_t r = 0; r < n; r++)
                RVT_VERIFY(dst + r * nb, nb, seed_of(round + 1, r, root), "in-place gather block");
    }

    /* allgather, then in place */
    rvt_fill(src, nb, seed_of(round, me, 0));
    memset(dst, 0xEE, n * nb + 1);
    gex_Event_Wait(rivet_Coll_AllgatherNB(tm, dst, src, nb, 0));
    for (gex_Rank_t r = 0; r < n; r++) RVT_VERIFY(dst + r * nb, nb, seed_of(round, r, 0), "allgather block");
    RVT_CHECK(dst[n * nb] == 0xEE, "allgather of %zu x %u bytes wrote past the end", nb, n);
    rvt_fill(dst + me * nb, nb, seed_of(round + 2, me, 0));
    gex_Event_Wait(rivet_Coll_AllgatherNB(tm, dst, dst + me * nb, nb, 0));
    for (gex_Rank_t r = 0; r < n; r++)
        RVT_VERIFY(dst + r * nb, nb, seed_of(round + 2, r, 0), "in-place allgather block");

    /* all-to-all: block j of rank i's src is seed (i, j) */
    for (gex_Rank_t j = 0; j < n; j++) rvt_fill(src + j * nb, nb, seed_of(round, me, j));
    memset(dst, 0xEE, n * nb + 1);
    gex_Event_Wait(rivet_Coll_AlltoallNB(tm, dst, src, nb, 0));
    for (gex_Rank_t i = 0; i < n; i++) RVT_VERIFY(dst + i * nb, nb, seed_of(round, i, me), "alltoall block");
    RVT_CHECK(dst[n * nb] == 0xEE, "alltoall of %zu x %u bytes wrote past the end", nb, n);
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    static const size_t sizes[] = { 0, 1, 7, 1000, 8191, 8192, 20000 };
    gex_TM_t sub;
    gex_TM_Split(&sub, rvt_tm, (int)(rvt_me % 2), -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        run(rvt_tm, (int)(3 * si), sizes[si]);
        run(sub, (int)(3 * si + 100), sizes[si]);
    }
    /* several in flight at once: non-blocking, completed in reverse order */
    {
        enum { K = 8, NB = 3000 };
        gex_Rank_t n = rvt_n;
        unsigned char *src = malloc(K * n * NB), *dst = malloc(K * n * NB);
        gex_Event_t ev[K];
        for (int k = 0; k < K; k++) {
            for (gex_Rank_t j = 0; j < n; j++) rvt_fill(src + (k * n + j) * NB, NB, seed_of(500 + k, rvt_me, j));
            ev[k] = (k % 2) ? rivet_Coll_AlltoallNB(rvt_tm, dst + k * n * NB, src + k * n * NB, NB, 0)
                            : rivet_Coll_AllgatherNB(rvt_tm, dst + k * n * NB, src + k * n * NB, NB, 0);
        }
        for (int k = K - 1; k >= 0; k--) gex_Event_Wait(ev[k]);
        for (int k = 0; k < K; k++)
            for (gex_Rank_t i = 0; i < n; i++)
                RVT_VERIFY(dst + (k * n + i) * NB, NB, seed_of(500 + k, i, (k % 2) ? rvt_me : 0),
                           "collective in flight");
        free(src);
        free(dst);
    }
    gex_TM_Destroy(sub, NULL, 0);
    return rvt_done("coll_gather");
}
