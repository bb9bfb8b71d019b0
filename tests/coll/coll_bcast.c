/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_bcast.c: gex_Coll_BroadcastNB from every root at sizes from 0 to
 * 100 KB (chunked), in place on the root, and barriers in between. */
#include "rv_test.h"
#include <gasnet_coll.h>

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    static const size_t sizes[] = { 0, 1, 8, 4096, 100000 };
    unsigned char *src = malloc(100000), *dst = malloc(100001);
    RVT_CHECK(src && dst, "malloc");
    for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
        size_t n = sizes[si];
        for (gex_Rank_t root = 0; root < rvt_n; root++) {
            uint64_t seed = 1000 * si + root + 1;
            rvt_fill(src, n, seed);
            memset(dst, 0xEE, n + 1);
            gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, root, dst, src, n, 0));
            RVT_VERIFY(dst, n, seed, "broadcast");
            RVT_CHECK(dst[n] == 0xEE, "broadcast of %zu bytes wrote past the end", n);
            /* in place on the root */
            if (rvt_me == root) rvt_fill(dst, n, seed + 7);
            gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, root, dst, dst, n, 0));
            RVT_VERIFY(dst, n, seed + 7, "in-place broadcast");
            if (root % 2) rvt_barrier();
        }
    }
    free(src);
    free(dst);
    return rvt_done("coll_bcast");
}
