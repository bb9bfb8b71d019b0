/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_maxeps_smp.c: built as the smp fragment builds clients (GASNET_CONDUIT_SMP),
 * or the udp one (GASNET_CONDUIT_UDP: core_maxeps_udp), a client sees GASNET_MAXEPS 1, as on
 * GASNet's smp and udp conduits, and takes the one-endpoint path
 * of GASNet's testtmpair: AM (Short, Medium, Long, negotiated Medium and Long) and RMA through
 * gex_TM_Pair(primordial endpoint, 0) to the next rank, each answered by a Reply; data, source
 * ranks and Long destinations checked. */
#include "rv_test.h"

#if !(defined(GASNET_CONDUIT_SMP) || defined(GASNET_CONDUIT_UDP)) || GASNET_MAXEPS != 1
#error "built through the smp or udp fragment, GASNET_MAXEPS must be 1 (GASNet's smp and udp conduits' value)"
#endif

enum { H_PING = GEX_AM_INDEX_BASE, H_PONG, H_MPING, H_MPONG, H_LPING, H_LPONG };

static gex_Rank_t next, prev;
static volatile unsigned long pings, pongs;
static gex_Rank_t *myslots, *nextslots, *prevslots; /* [0]: Long request, [1]: Long reply */

static void from(gex_Token_t t, gex_Rank_t want, const char *what)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    RVT_CHECK(info.gex_srcrank == want, "%s from rank %u, not %u", what,
              (unsigned)info.gex_srcrank, (unsigned)want);
}
static void h_ping(gex_Token_t t) { from(t, prev, "Short ping"); pings++; gex_AM_ReplyShort0(t, H_PONG, 0); }
static void h_pong(gex_Token_t t) { from(t, next, "Short pong"); pongs++; }
static void h_mping(gex_Token_t t, void *b, size_t n)
{
    from(t, prev, "Medium ping");
    RVT_CHECK(n == sizeof(gex_Rank_t) && *(gex_Rank_t *)b == rvt_me, "Medium ping payload");
    pings++;
    gex_AM_ReplyMedium0(t, H_MPONG, b, n, GEX_EVENT_NOW, 0);
}
static void h_mpong(gex_Token_t t, void *b, size_t n)
{
    from(t, next, "Medium pong");
    RVT_CHECK(n == sizeof(gex_Rank_t) && *(gex_Rank_t *)b == next, "Medium pong payload");
    pongs++;
}
static void h_lping(gex_Token_t t, void *b, size_t n)
{
    from(t, prev, "Long ping");
    RVT_CHECK(b == &myslots[0] && n == sizeof(gex_Rank_t) && myslots[0] == rvt_me, "Long ping");
    pings++;
    gex_AM_ReplyLong0(t, H_LPONG, b, n, &prevslots[1], GEX_EVENT_NOW, 0);
}
static void h_lpong(gex_Token_t t, void *b, size_t n)
{
    from(t, next, "Long pong");
    RVT_CHECK(b == &myslots[1] && n == sizeof(gex_Rank_t) && myslots[1] == next, "Long pong");
    pongs++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, GASNET_PAGESIZE);
    gex_AM_Entry_t tab[] = {
        { H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0, NULL, NULL },
        { H_PONG, (gex_AM_Fn_t)h_pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 0, NULL, NULL },
        { H_MPING, (gex_AM_Fn_t)h_mping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, NULL },
        { H_MPONG, (gex_AM_Fn_t)h_mpong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 0, NULL, NULL },
        { H_LPING, (gex_AM_Fn_t)h_lping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 0, NULL, NULL },
        { H_LPONG, (gex_AM_Fn_t)h_lpong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_LONG, 0, NULL, NULL },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 6));
    next = (rvt_me + 1) % rvt_n;
    prev = (rvt_me + rvt_n - 1) % rvt_n;
    myslots = gex_Segment_QueryAddr(rvt_seg);
    nextslots = rvt_seg_addr(next, 0);
    prevslots = rvt_seg_addr(prev, 0);
    const int num_eps = GASNET_MAXEPS < 4 ? GASNET_MAXEPS : 4; /* testtmpair's choice */
    RVT_CHECK(num_eps == 1, "num_eps %d", num_eps);
    /* testgasnet's check: a client compiled with GASNET_MAXEPS 1 cannot create a second
     * endpoint, while a call through a pointer gets the library's limit */
    gex_System_SetVerboseErrors(0);
    gex_EP_t extra;
    int rc = gex_EP_Create(&extra, rvt_client, GEX_EP_CAPABILITY_RMA, 0);
    RVT_CHECK(rc == GASNET_ERR_RESOURCE, "gex_EP_Create past GASNET_MAXEPS 1 returned %d", rc);
    gex_System_SetVerboseErrors(1);
    int (*create)(gex_EP_t *, gex_Client_t, gex_EP_Capabilities_t, gex_Flags_t) = gex_EP_Create;
    RVT_OK(create(&extra, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    RVT_CHECK(gex_EP_QueryIndex(extra) == 1, "the extra endpoint has index %u",
              (unsigned)gex_EP_QueryIndex(extra));
    gex_EP_Destroy(extra, 0);
    gex_TM_t pair = gex_TM_Pair(rvt_ep, 0);
    rvt_barrier();

    gex_AM_RequestShort0(pair, next, H_PING, 0);
    gex_AM_RequestMedium0(pair, next, H_MPING, &next, sizeof next, GEX_EVENT_NOW, 0);
    gex_AM_RequestLong0(pair, next, H_LPING, &next, sizeof next, &nextslots[0], GEX_EVENT_NOW, 0);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(pair, next, &next, sizeof next, sizeof next,
                                                      GEX_EVENT_NOW, 0, 0);
    gex_AM_CommitRequestMedium0(sd, H_MPING, sizeof next);
    GASNET_BLOCKUNTIL(pings == 4 && pongs == 4);
    rvt_barrier();

    gex_Rank_t v = rvt_me, got = GEX_RANK_INVALID;
    RVT_OK(gex_RMA_PutBlocking(pair, next, &nextslots[2], &v, sizeof v, 0));
    rvt_barrier();
    RVT_CHECK(myslots[2] == prev, "put through the pair: %u", (unsigned)myslots[2]);
    RVT_OK(gex_RMA_GetBlocking(pair, &got, next, &nextslots[2], sizeof got, 0));
    RVT_CHECK(got == rvt_me, "get through the pair: %u", (unsigned)got);
    rvt_barrier();
    return rvt_done("core_maxeps_smp");
}
