/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/stats_counts.c: does a known number of operations of every kind RIVET_STATS counts
 * (AMs by category and size, blocking/NB/NBI RMA, atomics, VIS, collectives), to the next rank;
 * stats_check.py runs it under rivetrun with RIVET_STATS=1 and compares the job summary with
 * the exact counts. "fatal": the last rank then makes an erroneous call (a fatal error) while
 * the others wait in a barrier, so its record says "fatal" and theirs "signal". "segv" and
 * "kill": the last rank instead dies of a real segmentation fault, or by SIGKILL (its counters
 * then come from its live file, core/stats.h). A Long larger than the transport's largest
 * (udp: 64 KiB) is sent at the largest size. */
#include <signal.h>
#include <unistd.h>
#include "rv_test.h"
#include <gasnet_coll.h>
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

#define H_SHORT  (GEX_AM_INDEX_BASE + 0)
#define H_MEDIUM (GEX_AM_INDEX_BASE + 1)
#define H_LONG   (GEX_AM_INDEX_BASE + 2)
#define H_REPS   (GEX_AM_INDEX_BASE + 3)
#define H_REPM   (GEX_AM_INDEX_BASE + 4)

static volatile int replies, longs;
static char reply_buf[16];

static void h_short(gex_Token_t t, gex_AM_Arg_t a) { gex_AM_ReplyShort1(t, H_REPS, 0, a); }
static void h_medium(gex_Token_t t, void *buf, size_t n)
{
    (void)buf;
    (void)n;
    gex_AM_ReplyMedium0(t, H_REPM, reply_buf, sizeof reply_buf, GEX_EVENT_NOW, 0);
}
static void h_long(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    (void)buf;
    (void)n;
    longs++;
}
static void h_reps(gex_Token_t t, gex_AM_Arg_t a)
{
    (void)t;
    (void)a;
    replies++;
}
static void h_repm(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    (void)buf;
    (void)n;
    replies++;
}

static const size_t medium_sizes[] = { 10, 100, 1000, 5000, 40000 };
static size_t long_sizes[] = { 100, 300000 };

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int fatal = !strcmp(mode, "fatal") || !strcmp(mode, "segv") || !strcmp(mode, "kill");
    rvt_init(&argc, &argv, 1 << 20);
    gex_AM_Entry_t h[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "s" },
        { H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "m" },
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "l" },
        { H_REPS, (gex_AM_Fn_t)h_reps, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL, "rs" },
        { H_REPM, (gex_AM_Fn_t)h_repm, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 0, NULL, "rm" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, sizeof h / sizeof h[0]));
    rvt_barrier(); /* collective 1 */
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    static char src[300000];
    rvt_fill(src, sizeof src, rvt_me);

    /* AMs: 3 Short + 5 Medium Requests (each answered by a Reply), 2 Long Requests */
    for (int i = 0; i < 3; i++) RVT_OK(gex_AM_RequestShort1(rvt_tm, peer, H_SHORT, 0, i));
    for (int i = 0; i < 5; i++)
        RVT_OK(gex_AM_RequestMedium0(rvt_tm, peer, H_MEDIUM, src, medium_sizes[i], GEX_EVENT_NOW,
                                     0));
    char *seg = rvt_seg_addr(peer, 0);
    size_t max_long = gex_AM_MaxRequestLong(rvt_tm, peer, GEX_EVENT_NOW, 0, 0);
    if (long_sizes[1] > max_long) long_sizes[1] = max_long;
    for (int i = 0; i < 2; i++)
        RVT_OK(gex_AM_RequestLong0(rvt_tm, peer, H_LONG, src, long_sizes[i], seg + 4096,
                                   GEX_EVENT_NOW, 0));
    GASNET_BLOCKUNTIL(replies == 8 && longs == 2);
    rvt_barrier(); /* 2 */

    if (fatal && rvt_me == rvt_n - 1 && !strcmp(mode, "segv")) {
        volatile uintptr_t nowhere = 16; /* not NULL: UBSan's null check would end it first */
        *(volatile int *)nowhere = 1;    /* a real fault */
        RVT_FAIL("the fault returned");
    }
    if (fatal && rvt_me == rvt_n - 1 && !strcmp(mode, "kill")) {
        kill(getpid(), SIGKILL);
        RVT_FAIL("SIGKILL returned");
    }
    if (fatal && rvt_me == rvt_n - 1) {
        gex_AM_RequestShort1(rvt_tm, rvt_n + 5, H_SHORT, 0, 0); /* rank out of range: fatal */
        RVT_FAIL("the erroneous call returned");
    }
    if (fatal) rvt_barrier(); /* never completes: the last rank is gone */

    /* RMA: 7 blocking puts of 64 bytes, 1 NB put of 1000, 4 NBI gets of 128 */
    char *rbase = seg + 65536;
    for (int i = 0; i < 7; i++) RVT_OK(gex_RMA_PutBlocking(rvt_tm, peer, rbase + 64 * i, src, 64, 0));
    gex_Event_Wait(gex_RMA_PutNB(rvt_tm, peer, rbase + 4096, src, 1000, GEX_EVENT_DEFER, 0));
    static char dst[4096];
    for (int i = 0; i < 4; i++) RVT_OK(gex_RMA_GetNBI(rvt_tm, dst + 128 * i, peer, rbase, 128, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
    RVT_VERIFY(dst, 64, rvt_me, "get"); /* what our 7 puts wrote there (np 1: ourselves) */

    /* atomics: 6 FADD and 1 SET on a word of the peer */
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_SET, 0);
    uint64_t *word = (uint64_t *)(void *)(seg + 8192), old;
    rvt_barrier(); /* 3 */
    for (int i = 0; i < 6; i++)
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, peer, word, GEX_OP_FADD, 1, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, peer, word + 1, GEX_OP_SET, 7, 0, 0));
    rvt_barrier(); /* 4 */
    gex_AD_Destroy(ad);

    /* VIS: 2 strided puts of 4 x 16 bytes, 1 vector get of 2 x 32 bytes */
    ptrdiff_t strides[1] = { 64 };
    size_t count[1] = { 4 };
    for (int i = 0; i < 2; i++)
        RVT_OK(gex_VIS_StridedPutBlocking(rvt_tm, peer, rbase + 8192, strides, src, strides, 16,
                                          count, 1, 0) == 0 ? GASNET_OK : 1);
    gex_Memvec_t dv[2] = { { dst, 32 }, { dst + 64, 32 } }, sv[2] = { { rbase, 32 }, { rbase + 256, 32 } };
    RVT_OK(gex_VIS_VectorGetBlocking(rvt_tm, 2, dv, peer, 2, sv, 0) == 0 ? GASNET_OK : 1);

    /* collectives: 1 broadcast of 64 bytes, then rvt_done's barrier (6) */
    gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, 0, dst, src, 64, 0));
    rvt_barrier(); /* 5 */
    return rvt_done("stats_counts");
}
