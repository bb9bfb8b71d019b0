/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_mixed.c: a transitional client: gex_Client_Init with
 * GEX_FLAG_USES_GASNET1, an EX segment and EX handler registration, then GASNet-1 calls
 * (AMs to the EX handlers, put/get, segment info, barriers between EX collectives) and
 * gasnet_QueryGexObjects returning exactly the objects gex_Client_Init made. With the
 * argument "noflag" the client is initialized without the flag: everything still works. */
#include <gasnet.h>
#include "rv_test.h"

#define SEGSZ (64 * 1024)
static volatile int got_req, got_rep;

static void req2(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b)
{
    gasnet_node_t src;
    RVT_OK(gasnet_AMGetMsgSource(t, &src));
    if ((gasnet_node_t)a != src || b != -77) {
        fprintf(stderr, "FAIL rank %u: request args %d %d from %u\n", rvt_me, a, b, src);
        gasnet_exit(1);
    }
    got_req++;
    gasnet_AMReplyShort1(t, 250, (gasnet_handlerarg_t)src);
}
static void rep1(gex_Token_t t, gex_AM_Arg_t who)
{
    (void)t;
    if ((gasnet_node_t)who != rvt_me) {
        fprintf(stderr, "FAIL rank %u: reply names %d\n", rvt_me, who);
        gasnet_exit(1);
    }
    got_rep++;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    int noflag = argc > 1 && !strcmp(argv[1], "noflag");
    RVT_OK(gex_Client_Init(&client, &ep, &tm, "mixed", &argc, &argv,
                           noflag ? 0 : GEX_FLAG_USES_GASNET1));
    rvt_me = gex_TM_QueryRank(tm);
    gex_Rank_t n = gex_TM_QuerySize(tm);
    RVT_CHECK(gasnet_mynode() == rvt_me && gasnet_nodes() == n, "mynode/nodes");
    RVT_OK(gex_Segment_Attach(&seg, tm, SEGSZ));
    gex_AM_Entry_t h[] = {
        {249, (gex_AM_Fn_t)req2, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "req2"},
        {250, (gex_AM_Fn_t)rep1, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep1"},
    };
    RVT_OK(gex_EP_RegisterHandlers(ep, h, 2));
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));

    gex_Client_t c2;
    gex_EP_t e2;
    gex_TM_t t2;
    gex_Segment_t s2;
    gasnet_QueryGexObjects(&c2, &e2, &t2, &s2);
    RVT_CHECK(c2 == client && e2 == ep && t2 == tm && s2 == seg,
              "gasnet_QueryGexObjects returned other objects than gex_Client_Init");

    gasnet_seginfo_t *si = calloc(n, sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    RVT_CHECK(si[rvt_me].addr == gex_Segment_QueryAddr(seg) &&
              si[rvt_me].size == gex_Segment_QuerySize(seg), "seginfo differs from the EX segment");

    for (gex_Rank_t r = 0; r < n; r++)
        RVT_OK(gasnet_AMRequestShort2(r, 249, (gasnet_handlerarg_t)rvt_me, -77));
    GASNET_BLOCKUNTIL(got_rep == (int)n);

    /* legacy Put, EX barrier, EX Get; EX Put, legacy barrier, legacy Get */
    gex_Rank_t right = (rvt_me + 1) % n, left = (rvt_me + n - 1) % n;
    uint64_t v = 0x1111000000ull + rvt_me, w = 0;
    gasnet_put(right, si[right].addr, &v, 8);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    RVT_OK(gex_RMA_GetBlocking(tm, &w, rvt_me, si[rvt_me].addr, 8, 0));
    RVT_CHECK(w == 0x1111000000ull + left, "legacy put seen by EX get: %" PRIx64, w);
    v += 0x10;
    RVT_OK(gex_RMA_PutBlocking(tm, right, (char *)si[right].addr + 8, &v, 8, 0));
    gasnet_barrier_notify(1, 0);
    RVT_OK(gasnet_barrier_wait(1, 0));
    gasnet_get(&w, rvt_me, (char *)si[rvt_me].addr + 8, 8);
    RVT_CHECK(w == 0x1111000010ull + left, "EX put seen by legacy get: %" PRIx64, w);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    RVT_CHECK(got_req == (int)n, "received %d requests, expected %u", got_req, n);
    free(si);
    printf("legacy_mixed: rank %u of %u: EX and GASNet-1 calls interoperate\n", rvt_me, n);
    gasnet_exit(0);
    return 0;
}
