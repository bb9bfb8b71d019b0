/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_segsize.c: the segment limit each rank reports for a GASNET_MAX_SEGSIZE value.
 * usage: core_segsize BYTES | fracF   (0: only start, attach one page and end)
 * BYTES: gasnet_getMaxLocalSegmentSize() must be exactly that; fracF: F times physical memory,
 * rounded down to a page. Then a segment of the largest size is attached and used. */
#include "rv_test.h"

#include <unistd.h>

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(argc == 2, "usage: core_segsize BYTES|fracF");
    uintptr_t max = gasnet_getMaxLocalSegmentSize(), gmax = gasnet_getMaxGlobalSegmentSize();
    uintptr_t want = GASNET_PAGESIZE;
    if (!strncmp(argv[1], "frac", 4)) {
        double f = atof(argv[1] + 4);
        double b = f * (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
        want = (uintptr_t)b & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    } else if (strcmp(argv[1], "0")) {
        want = (uintptr_t)strtoull(argv[1], NULL, 10);
    }
    if (strcmp(argv[1], "0")) {
        RVT_CHECK(max == want, "gasnet_getMaxLocalSegmentSize()=%" PRIuPTR ", want %" PRIuPTR
                  " for %s", max, want, getenv("GASNET_MAX_SEGSIZE") ? getenv("GASNET_MAX_SEGSIZE")
                                                                   : getenv("RIVET_MAX_SEGSIZE"));
        RVT_CHECK(gmax == want, "gasnet_getMaxGlobalSegmentSize()=%" PRIuPTR ", want %" PRIuPTR,
                  gmax, want);
    }
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, want));
    unsigned char *base = gex_Segment_QueryAddr(rvt_seg);
    memset(base, (int)rvt_me + 1, want);
    gex_Event_Wait(gex_Coll_BarrierNB(rvt_tm, 0));
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    unsigned char last = 0;
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, &last, peer, rvt_seg_addr(peer, want - 1), 1, 0));
    RVT_CHECK(last == (unsigned char)(peer + 1), "last byte of rank %u's segment is %u", peer, last);
    if (rvt_me == 0) printf("core_segsize: limit %" PRIuPTR "\n", max);
    rvt_done("core_segsize");
    gasnet_exit(0);
    return 0;
}
