/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_inline_nb.c: gasnetex.h's inline NB/NBI Put/Get and its inline event and NBI
 * syncs (gex_Event_{Test,Wait}{,Some,All}, gex_NBI_{Test,Wait}). The program defines the
 * library's entry points itself, counting each call and handing it on (rv_count.h): a call
 * the inline path completes never reaches them. Checks, for constant and run-time sizes: the
 * data is right; a mapped peer's NB/NBI Put/Get takes no library call and returns
 * GEX_EVENT_INVALID, a gex_Event_t* lc_opt is set to GEX_EVENT_INVALID; NBI ops inside an access
 * region (inline ones and, through a flag, a library one) leave its event right; syncs of
 * INVALID events and of an empty NBI state take no call once the thread's first one has made
 * the checks, while an NBI op the library counts sends the next sync there; inside an AM
 * handler the syncs go to the library. Built a second time with RIVET_NO_INLINE
 * (rma_inline_nb_off): then every call reaches the library. RIVET_RMA=ref: every Put/Get does. */
#define _GNU_SOURCE 1
#include "rv_count.h"

static long n_putnb, n_getnb, n_putnbi, n_getnbi, n_wait, n_test, n_waitall, n_waitsome,
    n_testall, n_testsome, n_nbiwait, n_nbitest;
RVT_COUNT(gex_RMA_PutNB, n_putnb)
RVT_COUNT(gex_RMA_GetNB, n_getnb)
RVT_COUNT(gex_RMA_PutNBI, n_putnbi)
RVT_COUNT(gex_RMA_GetNBI, n_getnbi)
RVT_COUNT(gex_Event_Wait, n_wait)
RVT_COUNT(gex_Event_Test, n_test)
RVT_COUNT(gex_Event_WaitAll, n_waitall)
RVT_COUNT(gex_Event_WaitSome, n_waitsome)
RVT_COUNT(gex_Event_TestAll, n_testall)
RVT_COUNT(gex_Event_TestSome, n_testsome)
RVT_COUNT(gex_NBI_Wait, n_nbiwait)
RVT_COUNT(gex_NBI_Test, n_nbitest)

#ifdef RIVET_NO_INLINE
#define INLINE_ON 0
#else
#define INLINE_ON 1
#endif

static volatile size_t v_sizes[] = {1, 2, 3, 4, 7, 8, 16, 64, 4096};
#define NSIZES (sizeof v_sizes / sizeof v_sizes[0])
#define SLOT 8192 /* each size's slot in the target segment */

static long lib_rma(void) { return n_putnb + n_getnb + n_putnbi + n_getnbi; }
static long lib_sync(void)
{
    return n_wait + n_test + n_waitall + n_waitsome + n_testall + n_testsome + n_nbiwait +
           n_nbitest;
}

/* Inside a handler every sync is the library's (which lets these pass, with one warning). */
static volatile long h_syncs = -1;
static void in_handler(gex_Token_t t)
{
    (void)t;
    long before = lib_sync();
    gex_Event_t arr[4] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID,
                          GEX_EVENT_INVALID};
    gex_Event_Wait(GEX_EVENT_INVALID);
    (void)gex_Event_Test(GEX_EVENT_INVALID);
    gex_Event_WaitAll(arr, 4, 0);
    (void)gex_Event_TestSome(arr, 4, 0);
    (void)gex_NBI_Test(GEX_EC_ALL, 0);
    h_syncs = lib_sync() - before;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 20);
    gex_AM_Entry_t am = {0, (gex_AM_Fn_t)in_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 0,
                         NULL, "in_handler"};
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &am, 1));
    const char *rma = getenv("RIVET_RMA");
    int fast = INLINE_ON && !(rma && !strcmp(rma, "ref"));
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    char *theirs = rvt_seg_addr(peer, 0);
    static uint8_t src[4096], back[4096];
    rvt_barrier();

    /* the thread's first syncs make the library's checks */
    gex_Event_Wait(GEX_EVENT_INVALID);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    long rma0 = lib_rma(), sync0 = lib_sync(), ops = 0;

    /* NB: lc_opt NOW, DEFER and a pointer; Get back with GetNB; WaitAll / TestAll on the events */
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = v_sizes[k];
        char *slot = theirs + SLOT * k;
        gex_Event_t ev[4], lc = (gex_Event_t)(uintptr_t)0x5a5a5a50;
        rvt_fill(src, n, n * 7 + rvt_me);
        ev[0] = gex_RMA_PutNB(rvt_tm, peer, slot, src, n, GEX_EVENT_NOW, 0);
        ev[1] = gex_RMA_PutNB(rvt_tm, peer, slot, src, n, GEX_EVENT_DEFER, 0);
        ev[2] = gex_RMA_PutNB(rvt_tm, peer, slot, src, n, &lc, 0);
        if (fast)
            RVT_CHECK(lc == GEX_EVENT_INVALID && ev[0] == GEX_EVENT_INVALID &&
                          ev[1] == GEX_EVENT_INVALID && ev[2] == GEX_EVENT_INVALID,
                      "%zu-byte inline PutNB: events %p %p %p, lc_opt event %p", n, (void *)ev[0],
                      (void *)ev[1], (void *)ev[2], (void *)lc);
        if (lc != GEX_EVENT_INVALID) gex_Event_Wait(lc);
        gex_Event_WaitAll(ev, 3, 0);
        memset(back, 0, n);
        ev[3] = gex_RMA_GetNB(rvt_tm, back, peer, slot, n, 0);
        if (fast) RVT_CHECK(ev[3] == GEX_EVENT_INVALID, "%zu-byte inline GetNB: event", n);
        if (gex_Event_TestAll(ev, 4, 0) != GASNET_OK) gex_Event_WaitAll(ev, 4, 0);
        RVT_CHECK(!memcmp(back, src, n), "%zu-byte NB put/get round trip", n);
        ops += 4;
    }
    /* a constant 8-byte size (the one-word copy) */
    uint64_t w = 0x1122334455667788ull + rvt_me, r = 0;
    gex_Event_t e8 = gex_RMA_PutNB(rvt_tm, peer, theirs + 8, &w, 8, GEX_EVENT_NOW, 0);
    gex_Event_Wait(e8);
    gex_Event_Wait(gex_RMA_GetNB(rvt_tm, &r, peer, theirs + 8, 8, 0));
    RVT_CHECK(r == w, "8-byte NB get returned 0x%" PRIx64, r);
    ops += 2;

    /* NBI with NOW, DEFER and GROUP, then gex_NBI_Wait / Test */
    for (size_t k = 0; k < NSIZES; k++) {
        size_t n = v_sizes[k];
        char *slot = theirs + SLOT * k;
        rvt_fill(src, n, n * 13 + rvt_me);
        gex_RMA_PutNBI(rvt_tm, peer, slot, src, n, GEX_EVENT_NOW, 0);
        gex_RMA_PutNBI(rvt_tm, peer, slot, src, n, GEX_EVENT_DEFER, 0);
        gex_RMA_PutNBI(rvt_tm, peer, slot, src, n, GEX_EVENT_GROUP, 0);
        gex_NBI_Wait(GEX_EC_PUT | GEX_EC_LC, 0);
        memset(back, 0, n);
        gex_RMA_GetNBI(rvt_tm, back, peer, slot, n, 0);
        while (gex_NBI_Test(GEX_EC_GET, 0) != GASNET_OK) gasnet_AMPoll();
        gex_NBI_Wait(GEX_EC_ALL, 0); /* everything synced: the state is empty again */
        RVT_CHECK(!memcmp(back, src, n), "%zu-byte NBI put/get round trip", n);
        ops += 4;
    }
    if (fast)
        RVT_CHECK(lib_rma() == rma0 && lib_sync() == sync0,
                  "mapped peer: %ld NB/NBI calls and %ld syncs reached the library (expected "
                  "none)", lib_rma() - rma0, lib_sync() - sync0);
    else if (!INLINE_ON)
        RVT_CHECK(lib_rma() - rma0 == ops && lib_sync() > sync0,
                  "RIVET_NO_INLINE: %ld of %ld NB/NBI calls and %ld syncs reached the library",
                  lib_rma() - rma0, ops, lib_sync() - sync0);
    else
        RVT_CHECK(lib_rma() - rma0 == ops, "RIVET_RMA=ref: %ld of %ld NB/NBI calls reached the "
                  "library", lib_rma() - rma0, ops);

    /* an access region: inline NBI ops count in no set; a flagged one (the library's) in the
     * region's. Its event completes once all have; data right after it. */
    for (int round = 0; round < 2; round++) {
        size_t n = v_sizes[round ? 8 : 5];
        rvt_fill(src, n, 0xA00 + round * 10 + rvt_me);
        long lib0 = lib_rma();
        gex_NBI_BeginAccessRegion(0);
        gex_RMA_PutNBI(rvt_tm, peer, theirs + 2 * SLOT, src, n, GEX_EVENT_GROUP, 0);
        if (round) /* the library's path inside the same region */
            gex_RMA_PutNBI(rvt_tm, peer, (void *)(uintptr_t)(3 * SLOT), src, n, GEX_EVENT_NOW,
                           GEX_FLAG_PEER_SEG_OFFSET);
        gex_RMA_GetNBI(rvt_tm, back, peer, theirs + 2 * SLOT, 0, 0); /* 0 bytes: library */
        gex_Event_t rev = gex_NBI_EndAccessRegion(0);
        gex_Event_Wait(rev);
        if (fast)
            RVT_CHECK(lib_rma() - lib0 == 1 + round, "region round %d: %ld library calls, "
                      "expected %d", round, lib_rma() - lib0, 1 + round);
        memset(back, 0, n);
        gex_RMA_GetBlocking(rvt_tm, back, peer, theirs + 2 * SLOT, n, 0);
        RVT_CHECK(!memcmp(back, src, n), "region round %d: first put", round);
        if (round) {
            memset(back, 0, n);
            gex_RMA_GetBlocking(rvt_tm, back, peer, theirs + 3 * SLOT, n, 0);
            RVT_CHECK(!memcmp(back, src, n), "region round %d: flagged put", round);
        }
    }
    /* an NBI op the library counts (RIVET_RMA=ref) sends the next sync to the library, the
     * one after that (state empty again) is inline; the library's copy to a mapped peer
     * (through a flag) counts nothing, as the inline one */
    gex_NBI_Wait(GEX_EC_ALL, 0);
    long nw = n_nbiwait;
    gex_RMA_PutNBI(rvt_tm, peer, (void *)(uintptr_t)SLOT, src, 8, GEX_EVENT_NOW,
                   GEX_FLAG_PEER_SEG_OFFSET);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    if (INLINE_ON)
        RVT_CHECK(n_nbiwait - nw == !fast, "after a flagged NBI put: %ld library waits "
                  "(expected %d)", n_nbiwait - nw, !fast);

    /* syncs of INVALID events: none reaches the library (after the first) */
    {
        static gex_Event_t arr[1000];
        long s0 = lib_sync();
        for (int i = 0; i < 100; i++) {
            gex_Event_WaitAll(arr, 1000, 0);
            gex_Event_WaitSome(arr, 999, 0);
            RVT_OK(gex_Event_TestAll(arr, 3, 0));
            RVT_OK(gex_Event_TestSome(arr, 1000, 0));
            RVT_OK(gex_Event_Test(GEX_EVENT_INVALID));
            gex_Event_Wait(GEX_EVENT_INVALID);
            gex_NBI_Wait(GEX_EC_ALL, 0);
            RVT_OK(gex_NBI_Test(GEX_EC_GET, 0));
        }
        if (INLINE_ON)
            RVT_CHECK(lib_sync() == s0, "%ld syncs of INVALID events / empty NBI state reached "
                      "the library", lib_sync() - s0);
        else
            RVT_CHECK(lib_sync() - s0 == 800, "RIVET_NO_INLINE: %ld of 800 syncs reached the "
                      "library", lib_sync() - s0);
    }

    /* inside a handler (an AM to this rank) every sync goes to the library */
    RVT_OK(gex_AM_RequestShort0(rvt_tm, rvt_me, am.gex_index, 0));
    GASNET_BLOCKUNTIL(h_syncs >= 0);
    RVT_CHECK(h_syncs == 5, "inside a handler %ld of 5 syncs reached the library", h_syncs);

    rvt_barrier();
    return rvt_done(INLINE_ON ? "rma_inline_nb" : "rma_inline_nb_off");
}
