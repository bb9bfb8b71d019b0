/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_am.c: AM Short/Medium/Long ping-pong round trip and one-way flood throughput. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    H_PING_SHORT = GEX_AM_INDEX_BASE, H_PONG_SHORT, H_PING_MED, H_PONG_MED, H_PING_LONG,
    H_PONG_LONG, H_FLOOD_MED, H_FLOOD_LONG, H_ACK
};

static _Atomic uint64_t pongs;     /* replies (and flood acks) seen by the initiator */
static uint64_t flood_count;       /* flood requests seen by the target */
static void *reply_long_dest;      /* the initiator's remote-access area, for Long replies */

static void pong(void) { atomic_fetch_add_explicit(&pongs, 1, memory_order_release); }

static void h_ping_short(gex_Token_t t) { gex_AM_ReplyShort0(t, H_PONG_SHORT, 0); }
static void h_pong_short(gex_Token_t t) { (void)t; pong(); }
static void h_ping_med(gex_Token_t t, void *buf, size_t n)
{
    gex_AM_ReplyMedium0(t, H_PONG_MED, buf, n, GEX_EVENT_NOW, 0);
}
static void h_pong_med(gex_Token_t t, void *buf, size_t n) { (void)t, (void)buf, (void)n; pong(); }
static void h_ping_long(gex_Token_t t, void *buf, size_t n)
{
    gex_AM_ReplyLong0(t, H_PONG_LONG, buf, n, reply_long_dest, GEX_EVENT_NOW, 0);
}
static void h_pong_long(gex_Token_t t, void *buf, size_t n) { (void)t, (void)buf, (void)n; pong(); }
static void h_flood(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t expected)
{
    (void)buf, (void)n;
    if (++flood_count == (uint64_t)(uint32_t)expected) {
        flood_count = 0;
        gex_AM_ReplyShort0(t, H_ACK, 0);
    }
}
static void h_ack(gex_Token_t t) { (void)t; pong(); }

#define REQ GEX_FLAG_AM_REQUEST
#define REP GEX_FLAG_AM_REPLY
static gex_AM_Entry_t handlers[] = {
    { H_PING_SHORT, (gex_AM_Fn_t)h_ping_short, REQ | GEX_FLAG_AM_SHORT, 0, NULL, "ping_short" },
    { H_PONG_SHORT, (gex_AM_Fn_t)h_pong_short, REP | GEX_FLAG_AM_SHORT, 0, NULL, "pong_short" },
    { H_PING_MED, (gex_AM_Fn_t)h_ping_med, REQ | GEX_FLAG_AM_MEDIUM, 0, NULL, "ping_med" },
    { H_PONG_MED, (gex_AM_Fn_t)h_pong_med, REP | GEX_FLAG_AM_MEDIUM, 0, NULL, "pong_med" },
    { H_PING_LONG, (gex_AM_Fn_t)h_ping_long, REQ | GEX_FLAG_AM_LONG, 0, NULL, "ping_long" },
    { H_PONG_LONG, (gex_AM_Fn_t)h_pong_long, REP | GEX_FLAG_AM_LONG, 0, NULL, "pong_long" },
    { H_FLOOD_MED, (gex_AM_Fn_t)h_flood, REQ | GEX_FLAG_AM_MEDIUM, 1, NULL, "flood_med" },
    { H_FLOOD_LONG, (gex_AM_Fn_t)h_flood, REQ | GEX_FLAG_AM_LONG, 1, NULL, "flood_long" },
    { H_ACK, (gex_AM_Fn_t)h_ack, REP | GEX_FLAG_AM_SHORT, 0, NULL, "ack" },
};

enum { K_SHORT, K_MED, K_LONG };

static inline void wait_pongs(uint64_t target)
{
    GASNET_BLOCKUNTIL(atomic_load_explicit(&pongs, memory_order_acquire) >= target);
}

/* 'iters' round trips of kind k at 'size' bytes; returns elapsed seconds. */
static double pingpong(bg_job_t *j, int k, size_t size, long iters)
{
    gex_TM_t tm = j->tm;
    gex_Rank_t peer = j->peer;
    char *src = j->my_local_area;
    char *dst = j->peer_remote_area;
    uint64_t want = atomic_load_explicit(&pongs, memory_order_relaxed);
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        want++;
        if (k == K_SHORT) gex_AM_RequestShort0(tm, peer, H_PING_SHORT, 0);
        else if (k == K_MED)
            gex_AM_RequestMedium0(tm, peer, H_PING_MED, src, size, GEX_EVENT_NOW, 0);
        else gex_AM_RequestLong0(tm, peer, H_PING_LONG, src, size, dst, GEX_EVENT_NOW, 0);
        wait_pongs(want);
    }
    return bu_now() - t0;
}

/* 'iters' one-way requests of kind k, then the target's acknowledgement; elapsed seconds. */
static double flood(bg_job_t *j, int k, size_t size, long iters)
{
    gex_TM_t tm = j->tm;
    gex_Rank_t peer = j->peer;
    char *src = j->my_local_area;
    char *dst = j->peer_remote_area;
    uint64_t want = atomic_load_explicit(&pongs, memory_order_relaxed) + 1;
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        if (k == K_MED)
            gex_AM_RequestMedium1(tm, peer, H_FLOOD_MED, src, size, GEX_EVENT_NOW, 0, iters);
        else gex_AM_RequestLong1(tm, peer, H_FLOOD_LONG, src, size, dst, GEX_EVENT_NOW, 0, iters);
    }
    wait_pongs(want);
    return bu_now() - t0;
}

static size_t next(size_t s, size_t first, size_t limit)
{
    if (s == limit) return limit + 1;
    size_t n = s == 0 ? first : 2 * s;
    return n > limit ? limit : n;
}

static void measure(bg_job_t *j, const char *bench, int k, int is_flood, size_t limit)
{
    const bu_opts_t *o = &j->opt;
    double lat[BU_MAX_TRIALS], bw[BU_MAX_TRIALS], rate[BU_MAX_TRIALS];
    if (!bu_selected(o, bench, NULL)) return;
    size_t first = o->min_size;
    for (size_t size = 0; size <= limit; size = next(size, first, limit)) {
        long iters = is_flood ? bu_iters(o, 20000, size, 32.0 * 1024 * 1024, 8)
                              : bu_iters(o, 20000, size, 16.0 * 1024 * 1024, 8);
        if (j->me == 0) { /* warm-up */
            if (is_flood) flood(j, k, size, iters / 4 + 1);
            else pingpong(j, k, size, iters / 4 + 1);
        }
        for (int t = 0; t < o->trials; t++) {
            bg_barrier(j);
            if (j->me == 0) {
                double s = is_flood ? flood(j, k, size, iters) : pingpong(j, k, size, iters);
                lat[t] = 1e6 * s / (double)iters;
                bw[t] = (double)size * (double)iters / s / 1e6;
                rate[t] = (double)iters / s / 1e6;
            }
            bg_barrier(j);
        }
        int me = (int)j->me;
        if (!is_flood) {
            bu_report_iters(o, me, bench, NULL, size, "latency", "us", lat, iters);
        } else {
            if (size) bu_report_iters(o, me, bench, NULL, size, "bandwidth", "MB/s", bw, iters);
            bu_report_iters(o, me, bench, NULL, size, "rate", "Mmsg/s", rate, iters);
        }
        if (k == K_SHORT) break;
    }
}

static size_t min3(size_t a, size_t b, size_t c)
{
    size_t m = a < b ? a : b;
    return m < c ? m : c;
}

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_am", handlers, sizeof handlers / sizeof handlers[0]);
    reply_long_dest = j.peer_remote_area;
    /* Every rank runs the same sweep (ranks other than 0 and 1 only join its barriers), so
     * every rank asks the same question: the limits over all ranks (GEX_RANK_INVALID). */
    gex_TM_t tm = j.tm;
    gex_Rank_t p = GEX_RANK_INVALID;
    size_t area = j.opt.max_size;
    size_t med = min3(gex_AM_MaxRequestMedium(tm, p, GEX_EVENT_NOW, 0, 1),
                      gex_AM_MaxReplyMedium(tm, p, GEX_EVENT_NOW, 0, 0), area);
    size_t lng = min3(gex_AM_MaxRequestLong(tm, p, GEX_EVENT_NOW, 0, 1),
                      gex_AM_MaxReplyLong(tm, p, GEX_EVENT_NOW, 0, 0), area);
    measure(&j, "am_short_rtt", K_SHORT, 0, 0);
    measure(&j, "am_medium_rtt", K_MED, 0, med);
    measure(&j, "am_long_rtt", K_LONG, 0, lng);
    measure(&j, "am_medium_flood", K_MED, 1, med);
    measure(&j, "am_long_flood", K_LONG, 1, lng);
    bg_finish(&j);
}
