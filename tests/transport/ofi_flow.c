/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_flow.c: AM credit flow control of the ofi transport.
 *  1. self, inattentive: IMMEDIATE Requests to myself without polling are accepted exactly up
 *     to the initial credits, then refused; after polling, the implicit Replies (the handler
 *     sends none) give every credit back.
 *  2. many-to-one into a slow receiver (each handler takes 100 us): nothing lost or doubled,
 *     every payload intact; senders stall instead of queueing (their memory stays bounded),
 *     report it, and receive credit loans the receiver counts as granted.
 *  3. (3+ ranks) the pattern changes: rank 2 alone is hot while rank 1 trickles; the receiver
 *     takes rank 1's loans back (its reserve is small) and lends them to rank 2.
 * Run with RIVET_PSHM=0 RIVET_TRANSPORT=ofi RIVET_OFI_CREDIT_RESERVE=48 RIVET_OFI_RECV_REGION=1
 * (the smallest regions, so that they fill up and are re-posted many times). */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#include <time.h>

enum { H_REQ = GEX_AM_INDEX_BASE, H_ACK, H_SELF };
#define N2 600   /* Requests per sender in phase 2 */
#define PAY 256
#define MAXR 64

static volatile unsigned long got, acks, self_got;
static uint8_t *seen; /* [MAXR][N2 + trickle] */
static volatile int spin_us;

static double now_us(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static rv_ofi_stats_t stats(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use");
    return s;
}

static uint64_t seed_of(gex_Rank_t src, int seq) { return (uint64_t)src * 1000003u + (uint64_t)seq; }

/* args: seq, want an ack */
static void h_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq, gex_AM_Arg_t ack)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    gex_Rank_t src = ti.gex_srcrank;
    RVT_CHECK(src < MAXR && seq >= 0 && seq < 2 * N2 && !seen[src * 2 * N2 + seq],
              "Request %d from rank %u: out of range or seen twice", (int)seq, (unsigned)src);
    seen[src * 2 * N2 + seq] = 1;
    RVT_CHECK(n == PAY, "Request %d: %zu bytes", (int)seq, n);
    RVT_VERIFY(buf, n, seed_of(src, seq), "Request payload");
    if (spin_us) { /* a slow receiver */
        double t0 = now_us();
        while (now_us() - t0 < spin_us) { }
    }
    got++;
    if (ack) gex_AM_ReplyShort0(t, H_ACK, 0);
}

static void h_ack(gex_Token_t t) { (void)t; acks++; }
static void h_self(gex_Token_t t) { (void)t; self_got++; }

static void send_req(gex_Rank_t to, int seq, int ack)
{
    uint8_t buf[PAY];
    rvt_fill(buf, PAY, seed_of(rvt_me, seq));
    RVT_OK(gex_AM_RequestMedium2(rvt_tm, to, H_REQ, buf, PAY, GEX_EVENT_NOW, 0, seq, ack));
}

static void phase_self(void)
{
    rv_ofi_stats_t s0 = stats();
    unsigned long acc = 0;
    while (acc < 100000 && gex_AM_RequestShort0(rvt_tm, rvt_me, H_SELF, GEX_FLAG_IMMEDIATE) == 0)
        acc++;
    RVT_CHECK(acc == s0.credits_init, "%lu IMMEDIATE Requests to myself accepted without "
              "polling; the initial credits are %llu", acc, (unsigned long long)s0.credits_init);
    GASNET_BLOCKUNTIL(self_got == acc);
    /* the handler sent no Reply: the credits came back by implicit Replies */
    unsigned long again = 0;
    for (int tries = 0; again < acc && tries < 1000000; tries++) {
        if (gex_AM_RequestShort0(rvt_tm, rvt_me, H_SELF, GEX_FLAG_IMMEDIATE) == 0) again++;
        else gasnet_AMPoll();
    }
    RVT_CHECK(again == acc, "only %lu of %lu credits came back", again, acc);
    GASNET_BLOCKUNTIL(self_got == 2 * acc);
    rv_ofi_stats_t s1 = stats();
    RVT_CHECK(s1.implicit_replies > s0.implicit_replies && s1.credit_stalls > s0.credit_stalls,
              "implicit replies %llu, stalls %llu", (unsigned long long)s1.implicit_replies,
              (unsigned long long)s1.credit_stalls);
}

/* Rank 0 handles slowly; 'senders' (bit mask) send n Requests each, the last acked. */
static void flood(unsigned senders, int n, unsigned trickler, int ntrickle)
{
    got = acks = 0;
    memset(seen, 0, (size_t)MAXR * 2 * N2);
    rvt_barrier();
    unsigned long want = 0;
    for (gex_Rank_t r = 1; r < rvt_n; r++) want += (senders >> r & 1) ? (unsigned long)n : 0;
    want += ntrickle;
    if (senders >> rvt_me & 1) {
        for (int i = 0; i < n; i++) send_req(0, i, i == n - 1);
        GASNET_BLOCKUNTIL(acks == 1);
    } else if (rvt_me == trickler) {
        /* one at a time, each answered before the next: never stalls, never asks for more */
        for (int i = 0; i < ntrickle; i++) {
            send_req(0, N2 + i, 1);
            GASNET_BLOCKUNTIL(acks == (unsigned long)i + 1);
        }
    } else if (rvt_me == 0) {
        GASNET_BLOCKUNTIL(got == want);
        for (gex_Rank_t r = 1; r < rvt_n; r++) {
            for (int i = 0; (senders >> r & 1) && i < n; i++)
                RVT_CHECK(seen[r * 2 * N2 + i], "Request %d from rank %u never arrived", i,
                          (unsigned)r);
        }
    }
    rvt_barrier();
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(rvt_n <= MAXR, "at most %d ranks", MAXR);
    gex_AM_Entry_t tab[] = {
        {H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "req"},
        {H_ACK, (gex_AM_Fn_t)h_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack"},
        {H_SELF, (gex_AM_Fn_t)h_self, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "self"},
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 3));
    seen = calloc((size_t)MAXR * 2 * N2, 1);
    RVT_CHECK(seen != NULL, "calloc");
    rvt_barrier();

    phase_self();
    rvt_barrier();

    spin_us = 100;

    /* phase 2: rank 1 alone is hot */
    rv_ofi_stats_t a = stats();
    flood(1u << 1, N2, 0, 0);
    rv_ofi_stats_t b = stats();
    if (rvt_me == 0)
        RVT_CHECK(b.loans_granted > a.loans_granted, "no credit loans granted to the hot peer");
    if (rvt_me == 1) {
        RVT_CHECK(b.credit_stalls > a.credit_stalls, "a sender into a slow receiver never stalled");
        RVT_CHECK(b.loans_received > a.loans_received, "a stalled sender got no credit loan");
    }

    /* phase 3: the pattern changes: rank 2 is hot, rank 1 only trickles */
    if (rvt_n >= 3) {
        flood(1u << 2, N2, 1, 40);
        rv_ofi_stats_t c = stats();
        if (rvt_me == 0)
            RVT_CHECK(c.loans_reclaimed > b.loans_reclaimed, "no loan taken back from rank 1 "
                      "(reserve %llu)", (unsigned long long)c.reserve_now);
        if (rvt_me == 2)
            RVT_CHECK(c.loans_received > b.loans_received, "the newly hot rank 2 got no loan");
    }

    /* phase 4: many-to-one */
    unsigned all = 0;
    for (gex_Rank_t r = 1; r < rvt_n; r++) all |= 1u << r;
    rv_ofi_stats_t d = stats();
    flood(all, N2 / 2, 0, 0);
    rv_ofi_stats_t e = stats();
    if (rvt_me != 0)
        RVT_CHECK(e.credit_stalls > d.credit_stalls, "many-to-one: rank %u never stalled",
                  (unsigned)rvt_me);
    /* the receive regions (smallest size here) filled up and went back to the provider */
    if (rvt_me == 0 && e.multi_recv)
        RVT_CHECK(e.multi_recv_reposts > 2, "receive regions re-posted only %llu times",
                  (unsigned long long)e.multi_recv_reposts);
    spin_us = 0;
    return rvt_done("ofi_flow");
}
