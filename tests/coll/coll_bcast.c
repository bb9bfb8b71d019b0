/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_bcast.c: gex_Coll_BroadcastNB from every root at sizes from 0 to 300 KB
 * (below and above RIVET_COLL_LARGE, so both the binomial tree and scatter + allgather
 * run), in place on the root, with the bytes past the end left alone. */
#include "rv_test.h"
#include <gasnet_coll.h>

#define MAXSZ 300001

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    static const size_t sizes[] = { 0, 1, 8, 63, 4096, 32767, 32768, 100000, MAXSZ };
    unsigned char *src = malloc(MAXSZ), *dst = malloc(MAXSZ + 1);
    RVT_CHECK(src && dst, "malloc");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        for (gex_Rank_t root = 0; root < rvt_n; root++) {
            uint64_t seed = 1000 * si + root + 1;
            rvt_fill(src, n, seed);
            memset(dst, 0xEE, n + 1);
            gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, root, dst, src, n, 0));
            RVT_VERIFY(dst, n, seed, "broadcast");
            RVT_CHECK(dst[n] == 0xEE, "broadcast of %zu bytes from %u wrote past the end", n, root);
            /* in place on the root; the root's src is ignored elsewhere (NULL) */
            if (rvt_me == root) rvt_fill(dst, n, seed + 7);
            gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, root, dst, rvt_me == root ? dst : NULL, n, 0));
            RVT_VERIFY(dst, n, seed + 7, "in-place broadcast");
            if (root % 2) rvt_barrier();
        }
    }
    free(src);
    free(dst);
    return rvt_done("coll_bcast");
}
