/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_nbrhd.c: under the ofi transport, the segments of my neighbourhood's
 * ranks are mapped here and reached by direct copies; other ranks' by RDMA. For every peer:
 * the bound segment is mapped exactly when the peer is in my neighbourhood; a put, a get and
 * an AM Long (64 KiB each) carry the right bytes; and the transport's RDMA counters move for
 * peers outside my neighbourhood only. Run with RIVET_TRANSPORT=ofi (PSHM on). */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#include <stdlib.h>

#define N ((size_t)64 * 1024)
#define H_LONG 200

static volatile unsigned got; /* AM Longs received with the right payload */

static void long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    size_t bad = rvt_find_bad(buf, n, (uint64_t)seed);
    RVT_CHECK(n == N && bad == (size_t)-1, "AM Long from rank %u: %zu bytes, first bad byte at %zu",
              (unsigned)info.gex_srcrank, n, bad);
    got++;
}

static uint64_t rdma_ops(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use (set RIVET_TRANSPORT=ofi)");
    return s.puts + s.gets;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 2 * 8 * N);
    RVT_CHECK(rvt_n <= 8, "at most 8 ranks (segment slots), not %u", (unsigned)rvt_n);
    gex_AM_Entry_t tab[] = {
        {H_LONG, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long"},
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 1));
    gex_RankInfo_t *nb;
    gex_Rank_t nbn, nbme;
    gex_System_QueryNbrhdInfo(&nb, &nbn, &nbme);
    uint8_t *src = malloc(N), *back = malloc(N);
    RVT_CHECK(src && back, "malloc failed");
    rvt_barrier();
    unsigned sent = 0;
    for (gex_Rank_t p = 0; p < rvt_n; p++) {
        if (p == rvt_me) continue;
        int mine = 0;
        for (gex_Rank_t i = 0; i < nbn; i++) mine |= nb[i].gex_jobrank == p;
        void *owner, *local;
        uintptr_t size;
        RVT_OK(gex_Segment_QueryBound(rvt_tm, p, &owner, &local, &size));
        RVT_CHECK((local != NULL) == mine, "rank %u is%s in my neighbourhood but its segment is%s "
                  "mapped here", (unsigned)p, mine ? "" : " not", local ? "" : " not");
        /* my slots in p's segment: [2 me N, 2 me N + N) by RMA, the next N by AM Long */
        uint8_t *slot = (uint8_t *)rvt_seg_addr(p, 2 * (uintptr_t)rvt_me * N);
        uint64_t seed = 0x5E00u + 16u * rvt_me + p;
        uint64_t before = rdma_ops();
        rvt_fill(src, N, seed);
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, p, slot, src, N, 0));
        memset(back, 0, N);
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, p, slot, N, 0));
        RVT_VERIFY(back, N, seed, "put then get");
        if (mine) {
            size_t bad = rvt_find_bad((uint8_t *)local + 2 * (uintptr_t)rvt_me * N, N, seed);
            RVT_CHECK(bad == (size_t)-1, "rank %u's segment, read through my mapping: byte %zu differs",
                      (unsigned)p, bad);
        }
        rvt_fill(src, N, seed + 1);
        RVT_OK(gex_AM_RequestLong1(rvt_tm, p, H_LONG, src, N, slot + N, GEX_EVENT_NOW, 0,
                                   (gex_AM_Arg_t)(seed + 1)));
        sent++;
        uint64_t moved = rdma_ops() - before;
        RVT_CHECK(mine ? moved == 0 : moved > 0, "%" PRIu64 " RDMA operations to rank %u, which "
                  "is%s in my neighbourhood", moved, (unsigned)p, mine ? "" : " not");
    }
    /* every rank sends one AM Long to each other rank */
    while (got < sent) gasnet_AMPoll();
    RVT_CHECK(got == sent, "received %u AM Longs, expected %u", got, sent);
    rvt_barrier();
    free(src);
    free(back);
    return rvt_done("ofi_nbrhd");
}
