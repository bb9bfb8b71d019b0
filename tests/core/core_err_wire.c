/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_err_wire.c: the target never trusts the wire. Rank 0 hands the
 * transport hand-made AM messages that the sender-side checks would have refused,
 * and the target must stop the job with a clear message before touching memory.
 * One case per run: core_err_wire <case>. Links the library's internals. */
#include "rv_test.h"
#include "am/am_int.h"

enum { H_LONG0 = 140 };

static volatile int never;
static void h_long0(gex_Token_t t, void *buf, size_t nb) { (void)t, (void)buf, (void)nb; }

/* Sends one raw message: header fields as given, then 'paylen' payload bytes. */
static void raw_send(gex_Rank_t to, unsigned kind, unsigned handler, uint32_t nbytes, void *dest,
                     size_t paylen)
{
    union {
        rv_am_hdr_t h;
        uint64_t    raw[RV_AM_HDR_MAX / 8];
    } hb;
    static uint8_t payload[4096];
    memset(&hb, 0, sizeof hb);
    hb.h.kind = (uint8_t)kind;
    hb.h.handler = (uint8_t)handler;
    hb.h.nbytes = nbytes;
    hb.h.dest = (uint64_t)(uintptr_t)dest;
    memset(payload, 0xAB, sizeof payload);
    while (rv_tp.ops.send(rv_tp.priv, to, RV_CHAN_REQ, &hb.h, RV_AM_HDR_BYTES(0), payload, paylen))
        gasnet_AMPoll();
}

int main(int argc, char **argv)
{
    if (argc < 2) return 2;
    const char *c = argv[1];
    rvt_init(&argc, &argv, 4 * GASNET_PAGESIZE);
    gex_AM_Entry_t e = { H_LONG0, (gex_AM_Fn_t)h_long0, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST,
                         0, NULL, "long0" };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &e, 1));
    rvt_barrier();
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    if (rvt_me == 0) {
        void *pseg = NULL;
        uintptr_t psize = 0;
        RVT_OK(gex_Segment_QueryBound(rvt_tm, peer, &pseg, NULL, &psize));
        char *pend = (char *)pseg + psize;
        if (!strcmp(c, "long_past_end")) /* 16 bytes, the last 8 past the segment */
            raw_send(peer, RV_AM_LONG | RV_AM_F_INLINE, H_LONG0, 16, pend - 8, 16);
        else if (!strcmp(c, "long_wild")) /* an address that is not in the segment at all */
            raw_send(peer, RV_AM_LONG | RV_AM_F_INLINE, H_LONG0, 64, (void *)&raw_send, 64);
        else if (!strcmp(c, "long_wrap")) /* offset + length wrapping around */
            raw_send(peer, RV_AM_LONG | RV_AM_F_INLINE, H_LONG0, 64, (void *)UINTPTR_MAX - 8, 64);
        else if (!strcmp(c, "medium_length")) /* header says 100 bytes, 10 arrive */
            raw_send(peer, RV_AM_MEDIUM, H_LONG0, 100, NULL, 10);
        else if (!strcmp(c, "bad_kind"))
            raw_send(peer, 7, H_LONG0, 0, NULL, 0);
        else if (!strcmp(c, "unregistered"))
            raw_send(peer, RV_AM_SHORT, 250, 0, NULL, 0);
        else return 2;
    }
    GASNET_BLOCKUNTIL(never);
    return 0;
}
