/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_bcast_direct.c: gex_Coll_BroadcastNB with the root's payload in its
 * segment (the direct broadcast: every rank copies it from the root's mapped segment), in
 * dst only, in src only, in neither (the flat fallback) and in place, from every root, at
 * sizes around the thresholds (8 KiB, 16 KiB, 32 KiB), on the whole team and on a sub-team whose
 * rank order is reversed (root != 0 in both orders, odd sizes). Bytes past the end are
 * checked to stay untouched. */
#include "rv_test.h"
#include <gasnet_coll.h>

#define MAXSZ 300001
#define SEGSZ (160 * 4096) /* 2 x (MAXSZ + 128) and more, in pages */

static void one(gex_TM_t tm, gex_Rank_t me, gex_Rank_t n, unsigned char *src, unsigned char *dst,
                size_t sz, uint64_t seed, const char *what)
{
    for (gex_Rank_t root = 0; root < n; root++) {
        uint64_t s = seed * 131 + root;
        if (me == root) rvt_fill(src, sz, s);
        memset(dst, 0xEE, sz + 1);
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, dst, me == root ? src : NULL, sz, 0));
        RVT_VERIFY(dst, sz, s, what);
        RVT_CHECK(dst[sz] == 0xEE, "%s: broadcast of %zu bytes from %u wrote past the end", what, sz,
                  root);
        /* the root's src is left alone */
        if (me == root && src != dst) RVT_VERIFY(src, sz, s, "root's src after the broadcast");
        /* in place on the root */
        if (me == root) rvt_fill(dst, sz, s + 7);
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, dst, me == root ? dst : NULL, sz, 0));
        RVT_VERIFY(dst, sz, s + 7, what);
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEGSZ);
    static const size_t sizes[] = { 0, 1, 8, 63, 4095, 4096, 8191, 8192, 16383, 16384, 32767, 32768, 100000, MAXSZ };
    unsigned char *seg = rvt_seg_addr(rvt_me, 0);
    unsigned char *ssrc = seg + 3, *sdst = seg + MAXSZ + 131; /* odd offsets: not aligned */
    unsigned char *msrc = malloc(MAXSZ), *mdst = malloc(MAXSZ + 1);
    RVT_CHECK(msrc && mdst, "malloc");
    /* a sub-team in reverse order: the odd ranks (or everyone at one rank) */
    gex_TM_t sub = GEX_TM_INVALID;
    gex_TM_Split(&sub, rvt_tm, rvt_n > 1 ? rvt_me % 2 : 0, -(int)rvt_me, NULL, 0,
                 GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t sme = gex_TM_QueryRank(sub), sn = gex_TM_QuerySize(sub);
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t sz = sizes[si];
        one(rvt_tm, rvt_me, rvt_n, ssrc, sdst, sz, 10 * si + 1, "segment to segment");
        one(rvt_tm, rvt_me, rvt_n, msrc, sdst, sz, 10 * si + 2, "dst in the segment");
        one(rvt_tm, rvt_me, rvt_n, ssrc, mdst, sz, 10 * si + 3, "src in the segment");
        one(rvt_tm, rvt_me, rvt_n, msrc, mdst, sz, 10 * si + 4, "neither in the segment");
        one(sub, sme, sn, ssrc, sdst, sz, 10 * si + 5, "sub-team, segment to segment");
        one(sub, sme, sn, msrc, mdst, sz, 10 * si + 6, "sub-team, outside the segment");
        rvt_barrier();
    }
    free(msrc);
    free(mdst);
    return rvt_done("coll_bcast_direct");
}
