/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/install/gasnet_client.c: a C client built the way GASNet clients build (makefile fragment or gasnet-<conduit>-<mode>.pc): reports its threading mode and checks puts into every rank's segment. */
#include <gasnetex.h>
#include <stdio.h>

/* GASNet clients test PLATFORM_* after including only gasnetex.h (GASNet's testval: an
 * undefined PLATFORM_ARCH_64 silently dropped its 8-byte rows) */
#if !PLATFORM_ARCH_64 != !(UINTPTR_MAX > 0xFFFFFFFFu) || !defined(PLATFORM_COMPILER_FAMILYNAME)
#error "gasnetex.h must provide PLATFORM_ARCH_64/32 and the compiler's PLATFORM_* names"
#endif

#include "gasnet_client_build.h"
#define WORDS 8

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "gasnet_client", &argc, &argv, 0) != GASNET_OK ||
        gex_Segment_Attach(&seg, tm, 1 << 16) != GASNET_OK)
        return 1;
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    uint64_t *mine = gex_Segment_QueryAddr(seg), v[WORDS];
    for (int i = 0; i < WORDS; i++) v[i] = (uint64_t)me << 32 | (uint64_t)i;
    /* slot `me` of every rank's segment gets this rank's pattern */
    for (gex_Rank_t r = 0; r < n; r++) {
        void *base;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(tm, r, &base, NULL, NULL, 0));
        gex_RMA_PutBlocking(tm, r, (uint64_t *)base + me * WORDS, v, sizeof v, 0);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    for (gex_Rank_t r = 0; r < n; r++)
        for (int i = 0; i < WORDS; i++)
            if (mine[r * WORDS + i] != ((uint64_t)r << 32 | (uint64_t)i)) {
                fprintf(stderr, "gasnet_client: rank %u: word %d from rank %u is wrong\n", me, i, r);
                gasnet_exit(1);
            }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    printf("gasnet_client C: rank %u of %u, GASNET_%s, conduit %s (%s), data ok\n", me, n, MODE, CONDUIT,
                CONDUIT_NAME);
    return 0;
}
