/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_flood.c: every rank floods every rank (itself included) with thousands of
 * AM Requests at once: Short, Medium and Long, some with GEX_FLAG_IMMEDIATE, each
 * answered by a Reply (Short, a Medium echo, or a Long into the requester's segment).
 * Nothing may be lost, duplicated or corrupted, and nobody may deadlock: every Request
 * and every Reply is recorded by sequence number and checked byte by byte.
 * Usage: am_flood [requests per destination, default 5000] */
#include "rv_test.h"
#include "am_macros.h"

enum { H_REQ_SHORT = 200, H_REQ_MEDIUM, H_REQ_LONG, H_REP_SHORT, H_REP_MEDIUM, H_REP_LONG };

#define W    32  /* Long slots per (sender, receiver) pair: in-flight Longs per peer */
#define SLOT 512 /* bytes per slot */

static unsigned   K;          /* Requests per destination */
static char     **segbase;
static uint8_t  **req_seen;   /* [src][seq]: Request handled */
static uint8_t  **rep_seen;   /* [dst][seq]: Reply handled */
static volatile unsigned long nreq, nrep;
static volatile uint8_t **busy; /* [dst][slot]: a Long of mine uses that slot */

static uint32_t msg_seed(gex_Rank_t src, gex_Rank_t dst, unsigned seq)
{
    return (src * 131u + dst) * 100003u + seq;
}
static size_t msg_size(unsigned seq) { return (seq * 37u) % (SLOT - 8); }
static int is_immediate(unsigned seq) { return seq % 5 == 0; }

/* Request slots of sender s in a segment, then Reply slots for peer d. */
static uintptr_t req_slot_off(gex_Rank_t s, unsigned slot) { return ((uintptr_t)s * W + slot) * SLOT; }
static uintptr_t rep_slot_off(gex_Rank_t d, unsigned slot)
{
    return ((uintptr_t)rvt_n * W + (uintptr_t)d * W + slot) * SLOT;
}

static gex_Rank_t token_src(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    RVT_CHECK(info.gex_srcrank < rvt_n, "bad srcrank %u", (unsigned)info.gex_srcrank);
    return info.gex_srcrank;
}

/* Arguments: seq, sender, nbytes, and a check value. */
static void check_req(gex_Token_t t, const char *what, gex_AM_Arg_t seq, gex_AM_Arg_t who,
                      gex_AM_Arg_t nb, gex_AM_Arg_t chk, gex_Rank_t *src_p, uint32_t *seed_p)
{
    gex_Rank_t src = token_src(t);
    RVT_CHECK((gex_Rank_t)who == src, "%s: from rank %u says it is from %d", what, (unsigned)src, who);
    RVT_CHECK(seq >= 0 && (unsigned)seq < K, "%s from %u: seq %d out of range", what, (unsigned)src, seq);
    uint32_t seed = msg_seed(src, rvt_me, (unsigned)seq);
    RVT_CHECK(chk == amt_arg(seed, 3), "%s from %u seq %d: check argument wrong", what, (unsigned)src, seq);
    RVT_CHECK((size_t)nb == msg_size((unsigned)seq), "%s from %u seq %d: nbytes arg %d", what,
              (unsigned)src, seq, nb);
    RVT_CHECK(!req_seen[src][seq], "%s from %u seq %d: delivered twice", what, (unsigned)src, seq);
    req_seen[src][seq] = 1;
    nreq++;
    *src_p = src;
    *seed_p = seed;
}

static void req_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t who, gex_AM_Arg_t nb,
                      gex_AM_Arg_t chk)
{
    gex_Rank_t src;
    uint32_t seed;
    check_req(t, "Short Request", seq, who, nb, chk, &src, &seed);
    RVT_OK(gex_AM_ReplyShort(t, H_REP_SHORT, 0, seq, amt_arg(seed, 5)));
}

static void req_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq,
                       gex_AM_Arg_t who, gex_AM_Arg_t nb, gex_AM_Arg_t chk)
{
    gex_Rank_t src;
    uint32_t seed;
    check_req(t, "Medium Request", seq, who, nb, chk, &src, &seed);
    RVT_CHECK(nbytes == (size_t)nb, "Medium Request: %zu bytes, expected %d", nbytes, nb);
    AMT_VERIFY(buf, nbytes, seed, "Medium Request payload");
    /* Echo the payload back: the Reply's source is the Request's own buffer. */
    RVT_OK(gex_AM_ReplyMedium(t, H_REP_MEDIUM, buf, nbytes, GEX_EVENT_NOW, 0, seq));
}

static void req_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq,
                     gex_AM_Arg_t who, gex_AM_Arg_t nb, gex_AM_Arg_t chk)
{
    gex_Rank_t src;
    uint32_t seed;
    check_req(t, "Long Request", seq, who, nb, chk, &src, &seed);
    unsigned slot = (unsigned)seq % W;
    void *want = segbase[rvt_me] + req_slot_off(src, slot) + (unsigned)seq % 8;
    RVT_CHECK(buf == want && nbytes == (size_t)nb, "Long Request: buf %p/%zu, expected %p/%d", buf,
              nbytes, want, nb);
    AMT_VERIFY(buf, nbytes, seed, "Long Request payload");
    /* Answer with the same bytes into the requester's reply slot. */
    void *dest = segbase[src] + rep_slot_off(rvt_me, slot) + (unsigned)seq % 7;
    RVT_OK(gex_AM_ReplyLong(t, H_REP_LONG, buf, nbytes, dest, GEX_EVENT_NOW, 0, seq));
}

static void rep_record(gex_Rank_t dst, gex_AM_Arg_t seq, const char *what)
{
    RVT_CHECK(seq >= 0 && (unsigned)seq < K, "%s from %u: seq %d out of range", what, (unsigned)dst, seq);
    RVT_CHECK(!rep_seen[dst][seq], "%s from %u seq %d: delivered twice", what, (unsigned)dst, seq);
    rep_seen[dst][seq] = 1;
    nrep++;
}

static void rep_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    gex_Rank_t dst = token_src(t);
    rep_record(dst, seq, "Short Reply");
    RVT_CHECK(chk == amt_arg(msg_seed(rvt_me, dst, (unsigned)seq), 5), "Short Reply from %u seq %d: "
              "check argument wrong", (unsigned)dst, seq);
}

static void rep_medium(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    gex_Rank_t dst = token_src(t);
    rep_record(dst, seq, "Medium Reply");
    RVT_CHECK(nbytes == msg_size((unsigned)seq), "Medium Reply: %zu bytes", nbytes);
    AMT_VERIFY(buf, nbytes, msg_seed(rvt_me, dst, (unsigned)seq), "Medium Reply payload");
}

static void rep_long(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    gex_Rank_t dst = token_src(t);
    rep_record(dst, seq, "Long Reply");
    unsigned slot = (unsigned)seq % W;
    void *want = segbase[rvt_me] + rep_slot_off(dst, slot) + (unsigned)seq % 7;
    RVT_CHECK(buf == want && nbytes == msg_size((unsigned)seq), "Long Reply: buf %p/%zu, expected %p",
              buf, nbytes, want);
    AMT_VERIFY(buf, nbytes, msg_seed(rvt_me, dst, (unsigned)seq), "Long Reply payload");
    RVT_CHECK(busy[dst][slot], "Long Reply for a free slot");
    busy[dst][slot] = 0;
}

int main(int argc, char **argv)
{
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "AMFLOOD", &argc, &argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    K = argc > 1 ? (unsigned)atoi(argv[1]) : 5000;
    uintptr_t segsz = 2 * (uintptr_t)rvt_n * W * SLOT;
    segsz = (segsz + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, segsz));

    gex_AM_Entry_t table[] = {
        { H_REQ_SHORT, (gex_AM_Fn_t)req_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 4, NULL, "req_short" },
        { H_REQ_MEDIUM, (gex_AM_Fn_t)req_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 4, NULL, "req_medium" },
        { H_REQ_LONG, (gex_AM_Fn_t)req_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 4, NULL, "req_long" },
        { H_REP_SHORT, (gex_AM_Fn_t)rep_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rep_short" },
        { H_REP_MEDIUM, (gex_AM_Fn_t)rep_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep_medium" },
        { H_REP_LONG, (gex_AM_Fn_t)rep_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "rep_long" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, sizeof table / sizeof table[0]));

    segbase = calloc(rvt_n, sizeof *segbase);
    req_seen = calloc(rvt_n, sizeof *req_seen);
    rep_seen = calloc(rvt_n, sizeof *rep_seen);
    busy = calloc(rvt_n, sizeof *busy);
    RVT_CHECK(segbase && req_seen && rep_seen && busy, "out of memory");
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        segbase[r] = rvt_seg_addr(r, 0);
        req_seen[r] = calloc(K, 1);
        rep_seen[r] = calloc(K, 1);
        busy[r] = calloc(W, 1);
        RVT_CHECK(req_seen[r] && rep_seen[r] && busy[r], "out of memory");
    }
    uint8_t *src = malloc(SLOT);
    RVT_CHECK(src != NULL, "out of memory");
    rvt_barrier();

    /* Everybody sends to everybody at once, starting with a different peer. */
    unsigned long immediate_refused = 0;
    for (unsigned seq = 0; seq < K; seq++) {
        for (gex_Rank_t i = 0; i < rvt_n; i++) {
            gex_Rank_t dst = (rvt_me + 1 + i) % rvt_n;
            uint32_t seed = msg_seed(rvt_me, dst, seq);
            size_t nb = msg_size(seq);
            gex_Flags_t fl = is_immediate(seq) ? GEX_FLAG_IMMEDIATE : 0;
            gex_AM_Arg_t chk = amt_arg(seed, 3);
            int kind = (seq + dst) % 3;
            void *dest = NULL;
            if (kind == 1) {
                amt_fill(src, nb, seed);
            } else if (kind == 2) {
                unsigned slot = seq % W;
                GASNET_BLOCKUNTIL(!busy[dst][slot]); /* its previous Long was answered */
                busy[dst][slot] = 1;
                amt_fill(src, nb, seed);
                dest = segbase[dst] + req_slot_off(rvt_me, slot) + seq % 8;
            }
            for (;;) {
                int rc = kind == 0 ? gex_AM_RequestShort(rvt_tm, dst, H_REQ_SHORT, fl, seq, rvt_me, nb, chk)
                       : kind == 1 ? gex_AM_RequestMedium(rvt_tm, dst, H_REQ_MEDIUM, src, nb,
                                                          GEX_EVENT_NOW, fl, seq, rvt_me, nb, chk)
                                   : gex_AM_RequestLong(rvt_tm, dst, H_REQ_LONG, src, nb, dest,
                                                        GEX_EVENT_NOW, fl, seq, rvt_me, nb, chk);
                if (rc == 0) break;
                RVT_CHECK(fl & GEX_FLAG_IMMEDIATE, "Request returned %d without IMMEDIATE", rc);
                immediate_refused++;
                gasnet_AMPoll();
            }
        }
    }
    free(src);
    unsigned long want = (unsigned long)K * rvt_n;
    GASNET_BLOCKUNTIL(nrep == want && nreq == want);
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        for (unsigned s = 0; s < K; s++)
            RVT_CHECK(req_seen[r][s] && rep_seen[r][s], "rank %u seq %u missing", (unsigned)r, s);
    if (getenv("AMT_VERBOSE"))
        printf("rank %u: %lu Requests and %lu Replies, %lu IMMEDIATE refusals\n", (unsigned)rvt_me,
               nreq, nrep, immediate_refused);
    return rvt_done("am_flood");
}
