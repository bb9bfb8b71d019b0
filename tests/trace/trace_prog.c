/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/trace/trace_prog.c: a job doing known numbers of each traced operation (trace_check.py
 * counts them in the trace): every rank, to its right neighbour, sends N_SHORT AM Short
 * Requests (2 args), N_MEDIUM AM Medium Requests of MEDIUM_BYTES, N_LONG AM Long Requests of
 * LONG_BYTES, N_PUT blocking Puts of PUT_BYTES, N_GET blocking Gets of GET_BYTES, N_AMO atomic
 * fetch-adds (U64) and one strided VIS Put, then a barrier and a broadcast (its messages: the
 * library's own AMs). Data is checked too.
 * With the argument "die": after the AMs rank 0 calls gasnet_exit(3) while the others wait in
 * a barrier, which the launcher ends with SIGTERM (their traces must survive that). */
#include "rv_test.h"
#include <gasnet_ratomic.h>
#include <gasnet_coll.h>
#include <gasnet_vis.h>

enum { N_SHORT = 37, N_MEDIUM = 11, MEDIUM_BYTES = 100, N_LONG = 5, LONG_BYTES = 4096,
       N_PUT = 13, PUT_BYTES = 256, N_GET = 7, GET_BYTES = 64, N_AMO = 3 };
enum { H_SHORT = GEX_AM_INDEX_BASE, H_MEDIUM, H_LONG };

static volatile int got_short, got_medium, got_long;

static void h_short(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b)
{
    (void)t;
    if (a + 1 != b) abort();
    got_short++;
}
static void h_medium(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    (void)buf;
    if (n != MEDIUM_BYTES) abort();
    got_medium++;
}
static void h_long(gex_Token_t t, void *buf, size_t n)
{
    (void)t;
    (void)buf;
    if (n != LONG_BYTES) abort();
    got_long++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 20);
    gex_AM_Entry_t h[] = {
        { H_SHORT, (gex_AM_Fn_t)h_short, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, NULL, "t_short" },
        { H_MEDIUM, (gex_AM_Fn_t)h_medium, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 0, NULL, "t_medium" },
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 0, NULL, "t_long" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, 3));
    rvt_barrier();
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    static char buf[LONG_BYTES];
    rvt_fill(buf, sizeof buf, rvt_me);
    for (int i = 0; i < N_SHORT; i++) RVT_OK(gex_AM_RequestShort2(rvt_tm, peer, H_SHORT, 0, i, i + 1));
    for (int i = 0; i < N_MEDIUM; i++)
        RVT_OK(gex_AM_RequestMedium0(rvt_tm, peer, H_MEDIUM, buf, MEDIUM_BYTES, GEX_EVENT_NOW, 0));
    for (int i = 0; i < N_LONG; i++)
        RVT_OK(gex_AM_RequestLong0(rvt_tm, peer, H_LONG, buf, LONG_BYTES, rvt_seg_addr(peer, 0),
                                   GEX_EVENT_NOW, 0));
    GASNET_BLOCKUNTIL(got_short == N_SHORT && got_medium == N_MEDIUM && got_long == N_LONG);
    if (argc > 1 && !strcmp(argv[1], "die")) {
        rvt_barrier();
        if (rvt_me == 0) gasnet_exit(3);
        rvt_barrier(); /* never completes: rank 0 is gone */
        RVT_FAIL("the barrier without rank 0 completed");
    }
    rvt_barrier();
    for (int i = 0; i < N_PUT; i++)
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, peer, rvt_seg_addr(peer, 8192 + (uintptr_t)i * PUT_BYTES),
                                   buf, PUT_BYTES, 0));
    char in[GET_BYTES];
    for (int i = 0; i < N_GET; i++)
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, in, peer, rvt_seg_addr(peer, 8192), GET_BYTES, 0));
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_FADD, 0);
    uint64_t old;
    for (int i = 0; i < N_AMO; i++)
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &old, peer, rvt_seg_addr(peer, 65536), GEX_OP_FADD, 1, 0, 0));
    /* 4 rows of 16 bytes */
    size_t count[1] = { 4 }; /* stridelevels entries; the row is elemsz */
    ptrdiff_t strides[1] = { 16 };
    RVT_OK(gex_VIS_StridedPutBlocking(rvt_tm, peer, rvt_seg_addr(peer, 131072), strides, buf,
                                      strides, 16, count, 1, 0));
    rvt_barrier();
    /* the data arrived: the peer's puts from its left neighbour's pattern */
    gex_Rank_t left = (rvt_me + rvt_n - 1) % rvt_n;
    RVT_VERIFY(rvt_seg_addr(rvt_me, 8192), PUT_BYTES, left, "put data");
    RVT_VERIFY(in, GET_BYTES, rvt_me, "got data"); /* what this rank put there */
    uint64_t sum;
    memcpy(&sum, rvt_seg_addr(rvt_me, 65536), 8);
    RVT_CHECK(sum == N_AMO, "atomic sum %llu", (unsigned long long)sum);
    /* a broadcast: its messages are the library's own AMs (category C) */
    uint64_t word = 0x5eed0000u + rvt_me, got = 0;
    gex_Event_Wait(gex_Coll_BroadcastNB(rvt_tm, 0, &got, &word, sizeof word, 0));
    RVT_CHECK(got == 0x5eed0000u, "broadcast gave %llx", (unsigned long long)got);
    gex_AD_Destroy(ad);
    return rvt_done("trace_prog");
}
