/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_npam.c: negotiated-payload AM. Prepare/Commit of Request and Reply,
 * Medium and Long, with a client buffer (the address must be that buffer) and with a
 * GASNet-provided one (suitably aligned), numbered, count-inferring and _v2 Commit
 * forms, Long destinations given at Prepare or only at Commit, sizes up to the
 * maximum, Cancel followed by a new Prepare (or a fixed-payload Reply), and IMMEDIATE
 * Prepares that may return GEX_AM_SRCDESC_NO_OP. Every byte and argument is checked. */
#include "rv_test.h"
#include "am_macros.h"

#include <stdalign.h>
#include <stddef.h>

enum { H_REQ_MED = 160, H_REQ_LONG, H_REP_MED, H_REP_LONG, H_REP_SHORT, H_REQ_MANY };

#define ITERS 96
#define REGION 65536          /* Long Requests land in [0, REGION), Replies above */
#define LONG_MAX_USED (REGION - 64)

static gex_Rank_t peer, prev;
static char **segbase;
static volatile int rep_done;
static volatile unsigned req_got;
static unsigned rep_mode_seen[4];
static uint8_t *cbuf; /* client buffer for Replies */

static uint32_t seed_of(gex_Rank_t src, unsigned seq, int reply)
{
    return (src * 7919u + seq) * 2u + (unsigned)reply + 11u;
}
static size_t req_len(unsigned seq) { return 1 + (seq * 977u) % 3000u; }
static uintptr_t req_off(unsigned seq) { return 1 + seq % 13; }
static uintptr_t rep_off(unsigned seq) { return REGION + 5 + seq % 11; }

static void check_any_aligned(void *p, const char *what)
{
    RVT_CHECK(((uintptr_t)p % alignof(max_align_t)) == 0, "%s: GASNet buffer %p is not aligned "
              "for any type", what, p);
}

/* Replies, in four ways chosen by the sequence number. */
static void reply(gex_Token_t t, gex_Rank_t src, unsigned seq)
{
    unsigned mode = seq % 4;
    uint32_t seed = seed_of(rvt_me, seq, 1);
    size_t len = 1 + (seq * 331u) % 2000u;
    gex_AM_SrcDesc_t sd;
    switch (mode) {
    case 0: /* Medium from my buffer; numbered Commit */
        amt_fill(cbuf, len, seed);
        sd = gex_AM_PrepareReplyMedium(t, cbuf, len, len, GEX_EVENT_NOW, 0, 2);
        RVT_CHECK(sd != GEX_AM_SRCDESC_NO_OP, "PrepareReplyMedium returned NO_OP without IMMEDIATE");
        RVT_CHECK(gex_AM_SrcDescAddr(sd) == cbuf && gex_AM_SrcDescSize(sd) == len,
                  "PrepareReplyMedium(client_buf): addr %p size %zu", gex_AM_SrcDescAddr(sd),
                  gex_AM_SrcDescSize(sd));
        gex_AM_CommitReplyMedium2(sd, H_REP_MED, len, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)len);
        break;
    case 1: { /* Medium in a GASNet buffer, more offered than needed; _v2 Commit */
        sd = gex_AM_PrepareReplyMedium(t, NULL, len / 2 + 1, len, NULL, 0, 2);
        size_t sz = gex_AM_SrcDescSize(sd);
        void *a = gex_AM_SrcDescAddr(sd);
        RVT_CHECK(sz >= len / 2 + 1 && sz <= len, "PrepareReplyMedium: size %zu not in [%zu, %zu]",
                  sz, len / 2 + 1, len);
        check_any_aligned(a, "PrepareReplyMedium");
        amt_fill(a, sz, seed);
        RVT_OK(gex_AM_CommitReplyMedium_v2(sd, H_REP_MED, sz, 0, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)sz));
        break;
    }
    case 2: { /* Long into the requester's segment, destination known at Prepare */
        void *dest = segbase[src] + rep_off(seq);
        sd = gex_AM_PrepareReplyLong(t, NULL, len, len, dest, NULL, 0, 2);
        RVT_CHECK(gex_AM_SrcDescSize(sd) == len, "PrepareReplyLong: size %zu", gex_AM_SrcDescSize(sd));
        check_any_aligned(gex_AM_SrcDescAddr(sd), "PrepareReplyLong");
        amt_fill(gex_AM_SrcDescAddr(sd), len, seed);
        gex_AM_CommitReplyLong(sd, H_REP_LONG, len, dest, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)len);
        break;
    }
    default: /* Prepare, Cancel, then an ordinary Reply: Cancel sent nothing */
        sd = gex_AM_PrepareReplyLong(t, cbuf, 1, len, segbase[src] + rep_off(seq), GEX_EVENT_NOW, 0, 2);
        RVT_OK(gex_AM_CancelReplyLong(sd, 0));
        sd = gex_AM_PrepareReplyMedium(t, NULL, 1, len, NULL, 0, 2);
        RVT_OK(gex_AM_CancelReplyMedium(sd, 0));
        RVT_OK(gex_AM_ReplyShort1(t, H_REP_SHORT, 0, (gex_AM_Arg_t)seq));
        break;
    }
}

static gex_Rank_t srcrank(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    return info.gex_srcrank;
}

static void h_req_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t len)
{
    gex_Rank_t src = srcrank(t);
    RVT_CHECK(src == prev && (unsigned)seq == req_got, "Medium Request seq %d from %u", seq, (unsigned)src);
    RVT_CHECK(nb == (size_t)len, "Medium Request: %zu bytes, argument says %d", nb, len);
    RVT_CHECK(((uintptr_t)buf & 7) == 0 || nb == 0, "Medium payload not 8-byte aligned");
    AMT_VERIFY(buf, nb, seed_of(src, (unsigned)seq, 0), "NP Medium Request payload");
    req_got++;
    reply(t, src, (unsigned)seq);
}

static void h_req_long(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t len)
{
    gex_Rank_t src = srcrank(t);
    RVT_CHECK(src == prev && (unsigned)seq == req_got, "Long Request seq %d from %u", seq, (unsigned)src);
    RVT_CHECK(nb == (size_t)len && buf == segbase[rvt_me] + req_off((unsigned)seq),
              "Long Request: %zu bytes at %p", nb, buf);
    AMT_VERIFY(buf, nb, seed_of(src, (unsigned)seq, 0), "NP Long Request payload");
    req_got++;
    reply(t, src, (unsigned)seq);
}

static volatile unsigned expect_seq;

static void h_rep_med(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t len)
{
    RVT_CHECK(srcrank(t) == peer && (unsigned)seq == expect_seq && !rep_done, "Medium Reply seq %d", seq);
    RVT_CHECK(nb == (size_t)len, "Medium Reply: %zu bytes, argument says %d", nb, len);
    AMT_VERIFY(buf, nb, seed_of(peer, (unsigned)seq, 1), "NP Medium Reply payload");
    rep_mode_seen[seq % 4]++;
    rep_done = 1;
}

static void h_rep_long(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t len)
{
    RVT_CHECK(srcrank(t) == peer && (unsigned)seq == expect_seq && !rep_done, "Long Reply seq %d", seq);
    RVT_CHECK(nb == (size_t)len && buf == segbase[rvt_me] + rep_off((unsigned)seq),
              "Long Reply: %zu bytes at %p", nb, buf);
    AMT_VERIFY(buf, nb, seed_of(peer, (unsigned)seq, 1), "NP Long Reply payload");
    rep_mode_seen[seq % 4]++;
    rep_done = 1;
}

static void h_rep_short(gex_Token_t t, gex_AM_Arg_t seq)
{
    RVT_CHECK(srcrank(t) == peer && (unsigned)seq == expect_seq && !rep_done, "Short Reply seq %d", seq);
    rep_mode_seen[seq % 4]++;
    rep_done = 1;
}

/* 16 arguments through the count-inferring Commit. */
static volatile unsigned many_got;
static void h_req_many(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a0, gex_AM_Arg_t a1,
                       gex_AM_Arg_t a2, gex_AM_Arg_t a3, gex_AM_Arg_t a4, gex_AM_Arg_t a5,
                       gex_AM_Arg_t a6, gex_AM_Arg_t a7, gex_AM_Arg_t a8, gex_AM_Arg_t a9,
                       gex_AM_Arg_t a10, gex_AM_Arg_t a11, gex_AM_Arg_t a12, gex_AM_Arg_t a13,
                       gex_AM_Arg_t a14, gex_AM_Arg_t a15)
{
    gex_AM_Arg_t a[16] = { a0, a1, a2, a3, a4, a5, a6, a7, a8, a9, a10, a11, a12, a13, a14, a15 };
    gex_Rank_t src = srcrank(t);
    for (unsigned i = 0; i < 16; i++)
        RVT_CHECK(a[i] == amt_arg(src + 5, i), "16-arg Commit: argument %u is %d", i, a[i]);
    RVT_CHECK(nb == 600, "16-arg Commit: %zu bytes", nb);
    AMT_VERIFY(buf, nb, src + 5, "16-arg Commit payload");
    many_got++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 2 * REGION);
    peer = (rvt_me + 1) % rvt_n;
    prev = (rvt_me + rvt_n - 1) % rvt_n;
    gex_AM_Entry_t table[] = {
        { H_REQ_MED, (gex_AM_Fn_t)h_req_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "req_med" },
        { H_REQ_LONG, (gex_AM_Fn_t)h_req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "req_long" },
        { H_REP_MED, (gex_AM_Fn_t)h_rep_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 2, NULL, "rep_med" },
        { H_REP_LONG, (gex_AM_Fn_t)h_rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep_long" },
        { H_REP_SHORT, (gex_AM_Fn_t)h_rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rep_short" },
        { H_REQ_MANY, (gex_AM_Fn_t)h_req_many, GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQUEST, 16, NULL, "req_many" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, sizeof table / sizeof table[0]));
    segbase = calloc(rvt_n, sizeof *segbase);
    size_t maxmed = gex_AM_MaxRequestMedium(rvt_tm, peer, GEX_EVENT_NOW,
                                            GEX_FLAG_AM_PREPARE_LEAST_CLIENT, 2);
    size_t maxmed_alloc = gex_AM_MaxRequestMedium(rvt_tm, peer, NULL, GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 2);
    uint8_t *buf = malloc(maxmed + 16);
    cbuf = malloc(4096);
    RVT_CHECK(segbase && buf && cbuf, "out of memory");
    for (gex_Rank_t r = 0; r < rvt_n; r++) segbase[r] = rvt_seg_addr(r, 0);
    rvt_barrier();

    for (unsigned seq = 0; seq < ITERS; seq++) {
        uint32_t seed = seed_of(rvt_me, seq, 0);
        size_t len = req_len(seq);
        gex_AM_SrcDesc_t sd;
        expect_seq = seq;
        rep_done = 0;
        switch (seq % 6) {
        case 0: { /* Medium from my buffer, the whole maximum every 12th time */
            if (seq % 12 == 0) len = maxmed;
            uint8_t *src = buf + seq % 8;
            amt_fill(src, len, seed);
            gex_Event_t lc;
            sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, src, len, len, &lc, 0, 2);
            RVT_CHECK(gex_AM_SrcDescAddr(sd) == src && gex_AM_SrcDescSize(sd) == len,
                      "PrepareRequestMedium(client_buf): addr %p size %zu, want %p %zu",
                      gex_AM_SrcDescAddr(sd), gex_AM_SrcDescSize(sd), (void *)src, len);
            gex_AM_CommitRequestMedium2(sd, H_REQ_MED, len, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)len);
            gex_Event_Wait(lc);
            break;
        }
        case 1: { /* Medium in a GASNet buffer; sends less than offered */
            size_t least = seq % 12 == 1 ? maxmed_alloc : len;
            sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, least, 2 * least + 100, NULL, 0, 2);
            size_t sz = gex_AM_SrcDescSize(sd);
            RVT_CHECK(sz >= least && sz <= 2 * least + 100, "PrepareRequestMedium: size %zu", sz);
            check_any_aligned(gex_AM_SrcDescAddr(sd), "PrepareRequestMedium");
            size_t nb = sz - sz % 8; /* the client may send a shorter prefix */
            amt_fill(gex_AM_SrcDescAddr(sd), nb, seed);
            gex_AM_CommitRequestMedium(sd, H_REQ_MED, nb, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)nb);
            break;
        }
        case 2: { /* Long from my buffer, destination at Prepare; _v2 Commit */
            void *dest = segbase[peer] + req_off(seq);
            amt_fill(buf, len, seed);
            sd = gex_AM_PrepareRequestLong(rvt_tm, peer, buf, len, len, dest, GEX_EVENT_NOW, 0, 2);
            RVT_CHECK(gex_AM_SrcDescAddr(sd) == buf && gex_AM_SrcDescSize(sd) == len,
                      "PrepareRequestLong(client_buf): addr/size wrong");
            RVT_OK(gex_AM_CommitRequestLong2_v2(sd, H_REQ_LONG, len, dest, 0, (gex_AM_Arg_t)seq,
                                                (gex_AM_Arg_t)len));
            break;
        }
        case 3: { /* Long in a GASNet buffer, destination only at Commit */
            size_t most = LONG_MAX_USED - req_off(seq);
            sd = gex_AM_PrepareRequestLong(rvt_tm, peer, NULL, len, most, NULL, NULL, 0, 2);
            size_t sz = gex_AM_SrcDescSize(sd);
            RVT_CHECK(sz >= len && sz <= most, "PrepareRequestLong: size %zu not in [%zu, %zu]", sz,
                      len, most);
            check_any_aligned(gex_AM_SrcDescAddr(sd), "PrepareRequestLong");
            amt_fill(gex_AM_SrcDescAddr(sd), sz, seed);
            gex_AM_CommitRequestLong(sd, H_REQ_LONG, sz, segbase[peer] + req_off(seq),
                                     (gex_AM_Arg_t)seq, (gex_AM_Arg_t)sz);
            break;
        }
        case 4: /* Cancel both kinds, then Prepare again and send */
            sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, 8, 64, NULL, 0, 2);
            RVT_OK(gex_AM_CancelRequestMedium(sd, 0));
            sd = gex_AM_PrepareRequestLong(rvt_tm, peer, buf, 8, 64, segbase[peer], GEX_EVENT_NOW, 0, 2);
            RVT_OK(gex_AM_CancelRequestLong(sd, 0));
            sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, len, len, NULL, 0, 2);
            amt_fill(gex_AM_SrcDescAddr(sd), len, seed);
            gex_AM_CommitRequestMedium2(sd, H_REQ_MED, len, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)len);
            break;
        default: /* IMMEDIATE Prepare: NO_OP means nothing happened, try again */
            while ((sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, len, len, NULL,
                                                     GEX_FLAG_IMMEDIATE, 2)) == GEX_AM_SRCDESC_NO_OP)
                gasnet_AMPoll();
            amt_fill(gex_AM_SrcDescAddr(sd), len, seed);
            gex_AM_CommitRequestMedium(sd, H_REQ_MED, len, (gex_AM_Arg_t)seq, (gex_AM_Arg_t)len);
            break;
        }
        GASNET_BLOCKUNTIL(rep_done);
    }
    GASNET_BLOCKUNTIL(req_got == ITERS);
    for (int m = 0; m < 4; m++)
        RVT_CHECK(rep_mode_seen[m] == ITERS / 4, "reply mode %d seen %u times", m, rep_mode_seen[m]);

    /* 16 arguments, count-inferring Commit, to every rank. */
    rvt_barrier();
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(rvt_tm, r, NULL, 600, 600, NULL, 0, 16);
        amt_fill(gex_AM_SrcDescAddr(sd), 600, rvt_me + 5);
        uint32_t s = rvt_me + 5;
        gex_AM_CommitRequestMedium(sd, H_REQ_MANY, 600, amt_arg(s, 0), amt_arg(s, 1), amt_arg(s, 2),
                                   amt_arg(s, 3), amt_arg(s, 4), amt_arg(s, 5), amt_arg(s, 6),
                                   amt_arg(s, 7), amt_arg(s, 8), amt_arg(s, 9), amt_arg(s, 10),
                                   amt_arg(s, 11), amt_arg(s, 12), amt_arg(s, 13), amt_arg(s, 14),
                                   amt_arg(s, 15));
    }
    GASNET_BLOCKUNTIL(many_got == rvt_n);
    free(buf);
    return rvt_done("am_npam");
}
