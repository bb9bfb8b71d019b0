/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_immediate.c: GEX_FLAG_IMMEDIATE. Each rank sends IMMEDIATE Requests to itself
 * without polling: a Request to the own rank runs its handler inside the call (loopback,
 * docs/completion.md "Progress"), so none is refused and each has run, with its Reply, when
 * the call returns, for Short, Medium and Long. Then a ring exchange, where nobody waits for
 * anybody and bounded queues refuse IMMEDIATE Requests, checks that refusals and retries
 * lose nothing. */
#include "rv_test.h"
#include "am_macros.h"

enum { H_SHORT = 150, H_MEDIUM, H_LONG, H_REPLY };

#define LONG_SLOT 1024
#define LONG_SLOTS 2048   /* the segment holds this many Long payloads */

static volatile unsigned long got, replies;
static unsigned long reply_refused;
static char *myseg;
static uint8_t *seen, *rseen; /* [seq]: Request / Reply handled (AMs are not ordered) */
#define SEEN_MAX 1000000u

static void on_request(gex_Token_t t, const char *what, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    RVT_CHECK(seq >= 0 && (unsigned)seq < SEEN_MAX && !seen[seq], "%s: seq %d twice or out of range",
              what, seq);
    seen[seq] = 1;
    RVT_CHECK(chk == amt_arg((uint32_t)seq, 1), "%s seq %d: check argument wrong", what, seq);
    got++;
    /* A refused IMMEDIATE Reply is a no-op: the handler may still Reply once. */
    if (gex_AM_ReplyShort(t, H_REPLY, GEX_FLAG_IMMEDIATE, seq) != 0) {
        reply_refused++;
        RVT_OK(gex_AM_ReplyShort(t, H_REPLY, 0, seq));
    }
}

static void h_short(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    on_request(t, "Short", seq, chk);
}

static void h_medium(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    RVT_CHECK(nb == 1000, "Medium: %zu bytes", nb);
    AMT_VERIFY(buf, nb, (uint64_t)seq + 77, "Medium payload");
    on_request(t, "Medium", seq, chk);
}

static void h_long(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    RVT_CHECK(buf == myseg + (size_t)seq * LONG_SLOT + 3 && nb == 1000, "Long: buf %p, %zu bytes",
              buf, nb);
    AMT_VERIFY(buf, nb, (uint64_t)seq + 99, "Long payload");
    on_request(t, "Long", seq, chk);
}

static void h_reply(gex_Token_t t, gex_AM_Arg_t seq)
{
    (void)t;
    RVT_CHECK(seq >= 0 && (unsigned)seq < SEEN_MAX && !rseen[seq], "Reply for seq %d twice or out "
              "of range", seq);
    rseen[seq] = 1;
    replies++;
}

/* Sends 'limit' IMMEDIATE Requests of one kind to myself: each runs (and its Reply) inside
 * the call that sent it. */
static void fill_self(int kind, unsigned long limit)
{
    static const char *const names[] = { "Short", "Medium", "Long" };
    uint8_t buf[1000];
    got = replies = 0;
    memset(seen, 0, SEEN_MAX);
    memset(rseen, 0, SEEN_MAX);
    unsigned long sent = 0;
    for (; sent < limit; sent++) {
        gex_AM_Arg_t seq = (gex_AM_Arg_t)sent, chk = amt_arg((uint32_t)sent, 1);
        int rc;
        if (kind == 0) {
            rc = gex_AM_RequestShort(rvt_tm, rvt_me, H_SHORT, GEX_FLAG_IMMEDIATE, seq, chk);
        } else if (kind == 1) {
            amt_fill(buf, sizeof buf, sent + 77);
            rc = gex_AM_RequestMedium(rvt_tm, rvt_me, H_MEDIUM, buf, sizeof buf, GEX_EVENT_NOW,
                                      GEX_FLAG_IMMEDIATE, seq, chk);
            memset(buf, 0xee, sizeof buf); /* the handler saw its own copy */
        } else {
            amt_fill(buf, sizeof buf, sent + 99);
            rc = gex_AM_RequestLong(rvt_tm, rvt_me, H_LONG, buf, sizeof buf,
                                    myseg + sent * LONG_SLOT + 3, GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE,
                                    seq, chk);
        }
        RVT_CHECK(rc == 0, "%s: IMMEDIATE Request %lu to myself was refused", names[kind], sent);
        RVT_CHECK(got == sent + 1 && replies == sent + 1, "%s: Request %lu to myself returned "
                  "before its handler and Reply ran (%lu handled, %lu replies)", names[kind], sent,
                  got, replies);
    }
    /* Poll some more: nothing may run twice. */
    for (int i = 0; i < 100; i++) gasnet_AMPoll();
    RVT_CHECK(got == sent && replies == sent, "%s: %lu sent, %lu delivered, %lu replies",
              names[kind], sent, got, replies);
}

/* Ring: everybody sends n IMMEDIATE Requests to the next rank, retrying refusals. */
static volatile unsigned long ring_got;
static void h_ring(gex_Token_t t, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    RVT_CHECK(info.gex_srcrank == (rvt_me + rvt_n - 1) % rvt_n, "ring: from rank %u",
              (unsigned)info.gex_srcrank);
    RVT_CHECK(seq >= 0 && (unsigned)seq < SEEN_MAX && !seen[seq], "ring: seq %d twice or out of "
              "range", seq);
    seen[seq] = 1;
    ring_got++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, (uintptr_t)LONG_SLOTS * LONG_SLOT);
    myseg = gex_Segment_QueryAddr(rvt_seg);
    gex_AM_Entry_t table[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, NULL },
        { H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, NULL },
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, NULL },
        { H_REPLY, (gex_AM_Fn_t)h_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, NULL },
        { 0, (gex_AM_Fn_t)h_ring, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "ring" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 5));
    gex_AM_Index_t h_ring_idx = table[4].gex_index;
    RVT_CHECK(h_ring_idx == 255, "index 0 entry got %u, expected 255", h_ring_idx);
    rvt_barrier();

    seen = malloc(SEEN_MAX);
    rseen = malloc(SEEN_MAX);
    RVT_CHECK(seen && rseen, "out of memory");
    fill_self(0, 100000);
    fill_self(1, 20000);
    fill_self(2, LONG_SLOTS);
    memset(seen, 0, SEEN_MAX);
    rvt_barrier();

    const unsigned long n = 20000;
    gex_Rank_t next = (rvt_me + 1) % rvt_n;
    unsigned long refused = 0;
    for (unsigned long i = 0; i < n; i++)
        while (gex_AM_RequestShort(rvt_tm, next, h_ring_idx, GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)i)) {
            refused++;
            gasnet_AMPoll();
        }
    GASNET_BLOCKUNTIL(ring_got == n);
    if (getenv("AMT_VERBOSE"))
        printf("rank %u: %lu ring refusals, %lu reply refusals\n", (unsigned)rvt_me, refused,
               reply_refused);
    return rvt_done("am_immediate");
}
