/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_epseg.c: RDMA to segments bound with gex_EP_BindSegment over ofi (PSHM
 * off): Puts and Gets through gex_TM_Pair to a non-primordial endpoint's segment (client
 * memory and Rivet's) and to a primordial endpoint's bound segment of a client that never
 * attaches are fi_write/fi_read (the transport's counters grow by one per chunk), land byte
 * by byte, and a segment destroyed and bound again under the same index is reached anew. */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#define SZ (256 * 1024u)

static rv_ofi_stats_t stats(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use");
    return s;
}

/* Writes SZ bytes into EP idx of the next rank, reads them back; both by RDMA. */
static void round_trip(gex_TM_t pair, gex_EP_Index_t idx, uint64_t seed)
{
    static uint8_t src[SZ], dst[SZ];
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    void *base;
    uintptr_t size;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(pair, peer, &base, NULL, &size, 0));
    RVT_CHECK(size >= SZ, "EP %u of rank %u: %" PRIuPTR " bytes", (unsigned)idx, (unsigned)peer,
              size);
    rv_ofi_stats_t before = stats();
    rvt_fill(src, SZ, seed + rvt_me);
    RVT_OK(gex_RMA_PutBlocking(pair, peer, base, src, SZ, 0));
    memset(dst, 0, SZ);
    RVT_OK(gex_RMA_GetBlocking(pair, dst, peer, base, SZ, 0));
    RVT_VERIFY(dst, SZ, seed + rvt_me, "read back by RDMA");
    rv_ofi_stats_t after = stats();
    RVT_CHECK(after.puts > before.puts && after.gets > before.gets,
              "EP %u: no RDMA (puts %" PRIu64 " -> %" PRIu64 ", gets %" PRIu64 " -> %" PRIu64 ")",
              (unsigned)idx, before.puts, after.puts, before.gets, after.gets);
    rvt_barrier();
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    /* the primordial endpoint: a created segment instead of an attached one */
    gex_Segment_t s0, s1;
    RVT_OK(gex_Segment_Create(&s0, rvt_client, NULL, SZ, GEX_MK_HOST, 0));
    RVT_OK(gex_EP_BindSegment(rvt_ep, s0, 0));
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 0));
    round_trip(rvt_tm, 0, 11);

    /* endpoint 1: client memory, then (destroyed, bound again) Rivet's */
    gex_EP_t ep1;
    RVT_OK(gex_EP_Create(&ep1, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    uint8_t *mem = malloc(SZ + 64);
    RVT_CHECK(mem != NULL, "malloc");
    RVT_OK(gex_Segment_Create(&s1, rvt_client, mem + 8, SZ, GEX_MK_HOST, 0));
    RVT_OK(gex_EP_BindSegment(ep1, s1, 0));
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &ep1, 1, 0));
    round_trip(gex_TM_Pair(rvt_ep, 1), 1, 22);
    round_trip(gex_TM_Pair(ep1, 1), 1, 33);
    gex_Segment_Destroy(s1, 0);
    free(mem);
    RVT_OK(gex_Segment_Create(&s1, rvt_client, NULL, SZ, GEX_MK_HOST, 0));
    RVT_OK(gex_EP_BindSegment(ep1, s1, 0));
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &ep1, 1, 0));
    round_trip(gex_TM_Pair(ep1, 1), 1, 44);
    gex_EP_Destroy(ep1, 0);
    gex_Segment_Destroy(s1, 0);
    return rvt_done("ofi_epseg");
}
