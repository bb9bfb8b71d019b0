/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_imm_poll.c: a refused GEX_FLAG_IMMEDIATE AM polls once before it reports
 * backpressure (docs/architecture.md, AM engine), fixed- and negotiated-payload alike.
 * Once rank 0 is out of the start barrier, rank 1 sends it a Short Request, then raises a flag in rank 0's segment. Rank 0, which
 * has not polled, sees the Request unhandled, then floods rank 1 (which does not poll either)
 * with IMMEDIATE Mediums until one is refused: by then that call's poll has run the Short's
 * handler. A negotiated-payload Prepare with IMMEDIATE to the full peer is a no-op too. Then
 * rank 1 drains and checks that every Medium arrived intact, exactly once. */
#include "rv_test.h"

enum { H_PING = 150, H_FILL };
#define FILL 4096
#define MAXFILL 100000

static volatile int pinged;
static volatile unsigned long filled;
static uint8_t *seen;

static void h_ping(gex_Token_t t, gex_AM_Arg_t v)
{
    (void)t;
    RVT_CHECK(v == 42, "ping: argument %d", v);
    pinged = 1;
}

static void h_fill(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq)
{
    (void)t;
    RVT_CHECK(nb == FILL && seq >= 0 && seq < MAXFILL && !seen[seq], "fill: %zu bytes, seq %d "
              "(twice or out of range)", nb, seq);
    RVT_VERIFY(buf, nb, (uint64_t)seq, "fill payload");
    seen[seq] = 1;
    filled++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 16);
    gex_AM_Entry_t table[] = {
        { H_PING, (gex_AM_Fn_t)h_ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1, NULL, "ping" },
        { H_FILL, (gex_AM_Fn_t)h_fill, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "fill" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 2));
    seen = calloc(MAXFILL, 1);
    RVT_CHECK(seen != NULL, "out of memory");
    volatile uint64_t *flag = rvt_seg_addr(rvt_me, 0), *ready = rvt_seg_addr(rvt_me, 8);
    rvt_barrier();
    if (rvt_n != 2) return rvt_done("am_imm_poll (2 ranks only)");

    if (rvt_me == 1) {
        while (!*ready) {} /* rank 0 has left the barrier: it polls no more */
        RVT_OK(gex_AM_RequestShort1(rvt_tm, 0, H_PING, 0, 42));
        uint64_t one = 1;
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, 0, rvt_seg_addr(0, 0), &one, sizeof one, 0));
        while (!*flag) {} /* no poll: rank 0's Mediums pile up */
        unsigned long sent = (unsigned long)(*flag - 1);
        while (filled < sent) gasnet_AMPoll();
        RVT_CHECK(filled == sent, "%lu Mediums arrived, %lu sent", filled, sent);
    } else {
        uint64_t one = 1;
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, 1, rvt_seg_addr(1, 8), &one, sizeof one, 0));
        while (!*flag) {} /* rank 1's Short is in our ring now; nobody has polled it */
        RVT_CHECK(!pinged, "the Short ran before rank 0 polled");
        uint8_t buf[FILL];
        unsigned long sent = 0;
        for (;; sent++) {
            RVT_CHECK(sent < MAXFILL, "%lu IMMEDIATE Mediums to a rank that does not poll were "
                      "all accepted", sent);
            rvt_fill(buf, FILL, sent);
            if (gex_AM_RequestMedium1(rvt_tm, 1, H_FILL, buf, FILL, GEX_EVENT_NOW,
                                      GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)sent))
                break;
        }
        RVT_CHECK(sent > 0, "the first IMMEDIATE Medium was refused");
        RVT_CHECK(pinged, "a refused IMMEDIATE Medium returned without polling");
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(rvt_tm, 1, NULL, FILL, FILL, NULL,
                                                          GEX_FLAG_IMMEDIATE, 1);
        if (sd != GEX_AM_SRCDESC_NO_OP) { /* only a transport without in-place Prepare */
            rvt_fill(gex_AM_SrcDescAddr(sd), FILL, sent);
            gex_AM_CommitRequestMedium1(sd, H_FILL, FILL, (gex_AM_Arg_t)sent);
            sent++;
        }
        uint64_t v = sent + 1;
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, 1, rvt_seg_addr(1, 0), &v, sizeof v, 0));
    }
    rvt_barrier();
    free(seen);
    return rvt_done("am_imm_poll");
}
