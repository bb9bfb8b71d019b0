/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_events.c: the event-array rules of the spec, entry by entry. TestSome succeeds
 * once one event has completed and TestAll once all have, an array of only GEX_EVENT_INVALID
 * counting as success for both; completed entries (and only those) become GEX_EVENT_INVALID,
 * also when the call as a whole reports GASNET_ERR_NOT_READY; pending entries stay as they were.
 * gex_Event_QueryLeaf answers the same leaf every time it is asked. Zero-byte transfers to a peer
 * (every form, any lc_opt) are complete on return and sync as such. Operations started inside
 * an access region count for its event and not for gex_NBI_* of the thread, by category.
 * "Not yet" answers are certain only under RIVET_RMA=ref, where a Get completes only after
 * its initiator polls; they are checked there. Every Get's data is checked. */
#include "rma_test.h"

#define SEG_BYTES (256 * RMAT_KIB)
#define N 4
#define LEN ((size_t)4096)

static int ref_mode;
static gex_Rank_t peer;
static uint8_t *myseg;

/* An explicit event that is already complete (an empty access region's). */
static gex_Event_t done_event(void)
{
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t e = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(e != GEX_EVENT_INVALID && e != GEX_EVENT_NO_OP, "empty region gave no event");
    return e;
}

static void check_gets(uint8_t *dst, int n)
{
    for (int i = 0; i < n; i++)
        rmat_expect_bytes(dst + i * LEN, rmat_pat(peer * 7 + i * LEN, LEN), LEN, "GetNB data");
}

static void arrays(void)
{
    uint8_t *dst = rmat_xmalloc(N * LEN);
    gex_Event_t ev[N + 1], orig[N + 1];

    /* TestAll: the complete entry is rewritten even though the answer is NOT_READY */
    ev[0] = done_event();
    for (int i = 1; i <= N; i++)
        ev[i] = gex_RMA_GetNB(rvt_tm, dst + (i - 1) * LEN, peer,
                              rvt_seg_addr(peer, (i - 1) * LEN), LEN, 0);
    memcpy(orig, ev, sizeof ev);
    int rc = gex_Event_TestAll(ev, N + 1, 0);
    RVT_CHECK(ev[0] == GEX_EVENT_INVALID, "TestAll left a complete event in the array");
    /* A Get may finish while TestAll polls (its reply can be back already): each entry is
     * either untouched or INVALID with its data in place, and the answer matches the array. */
    int pending = 0;
    for (int i = 1; i <= N; i++) {
        RVT_CHECK(ev[i] == orig[i] || ev[i] == GEX_EVENT_INVALID,
                  "TestAll rewrote entry %d to something other than GEX_EVENT_INVALID", i);
        if (ev[i] == GEX_EVENT_INVALID)
            rmat_expect_bytes(dst + (i - 1) * LEN, rmat_pat(peer * 7 + (i - 1) * LEN, LEN), LEN,
                              "GetNB data when TestAll saw it complete");
        else
            pending++;
    }
    RVT_CHECK(rc == (pending ? GASNET_ERR_NOT_READY : GASNET_OK),
              "TestAll returned %d with %d Gets pending", rc, pending);
    if (ref_mode && pending) {
        /* TestSome: NOT_READY leaves the array intact; OK rewrote what completed */
        memcpy(orig, ev, sizeof ev);
        rc = gex_Event_TestSome(ev, N + 1, 0);
        int done = 0;
        for (int i = 1; i <= N; i++) {
            RVT_CHECK(ev[i] == orig[i] || ev[i] == GEX_EVENT_INVALID,
                      "TestSome rewrote entry %d to something other than GEX_EVENT_INVALID", i);
            done += ev[i] != orig[i];
        }
        RVT_CHECK(rc == (done ? GASNET_OK : GASNET_ERR_NOT_READY),
                  "TestSome returned %d with %d newly complete", rc, done);
    }
    /* TestSome until it succeeds: each success rewrites exactly what completed */
    int left = 0;
    for (int i = 0; i <= N; i++) left += ev[i] != GEX_EVENT_INVALID;
    while (left) {
        gex_Event_t before[N + 1];
        memcpy(before, ev, sizeof ev);
        if (gex_Event_TestSome(ev, N + 1, 0) != GASNET_OK) {
            gasnet_AMPoll();
            continue;
        }
        int now = 0;
        for (int i = 0; i <= N; i++) {
            if (before[i] != GEX_EVENT_INVALID && ev[i] == GEX_EVENT_INVALID) now++;
            RVT_CHECK(ev[i] == GEX_EVENT_INVALID || ev[i] == before[i], "entry %d rewritten to "
                      "something other than GEX_EVENT_INVALID", i);
        }
        RVT_CHECK(now > 0, "TestSome returned GASNET_OK with nothing complete");
        left -= now;
    }
    check_gets(dst, N);
    /* now only INVALID: both succeed */
    RVT_CHECK(gex_Event_TestSome(ev, N + 1, 0) == GASNET_OK, "TestSome of only INVALID");
    RVT_CHECK(gex_Event_TestAll(ev, N + 1, 0) == GASNET_OK, "TestAll of only INVALID");

    /* WaitSome returns with at least one entry rewritten; WaitAll with all */
    memset(dst, 0, N * LEN);
    for (int i = 0; i < N; i++)
        ev[i] = gex_RMA_GetNB(rvt_tm, dst + i * LEN, peer, rvt_seg_addr(peer, i * LEN), LEN, 0);
    ev[N] = GEX_EVENT_INVALID;
    int live = 0;
    for (int i = 0; i < N; i++) live += ev[i] != GEX_EVENT_INVALID;
    gex_Event_WaitSome(ev, N + 1, 0);
    int after = 0;
    for (int i = 0; i < N; i++) after += ev[i] != GEX_EVENT_INVALID;
    RVT_CHECK(live == 0 || after < live, "WaitSome returned with no event completed");
    gex_Event_WaitAll(ev, N + 1, 0);
    for (int i = 0; i <= N; i++) RVT_CHECK(ev[i] == GEX_EVENT_INVALID, "WaitAll left entry %d", i);
    check_gets(dst, N);
    free(dst);
}

/* QueryLeaf is a query: asked twice it gives the same leaf (or INVALID once complete). */
static void leaves(void)
{
    uint8_t src[64];
    memset(src, 0x5a, sizeof src);
    gex_Event_t lc = GEX_EVENT_INVALID;
    gex_Event_t root = gex_RMA_PutNB(rvt_tm, peer, rvt_seg_addr(peer, SEG_BYTES - 64), src,
                                     sizeof src, &lc, 0);
    gex_Event_t a = gex_Event_QueryLeaf(root, GEX_EC_LC), b = gex_Event_QueryLeaf(root, GEX_EC_LC);
    RVT_CHECK(a == b || a == GEX_EVENT_INVALID || b == GEX_EVENT_INVALID,
              "QueryLeaf gave two different leaves for one root");
    gex_Event_Wait(lc);
    gex_Event_Wait(root);

    gex_NBI_BeginAccessRegion(0);
    RVT_OK(gex_RMA_PutNBI(rvt_tm, peer, rvt_seg_addr(peer, SEG_BYTES - 128), src, sizeof src,
                          GEX_EVENT_GROUP, 0));
    gex_Event_t reg = gex_NBI_EndAccessRegion(0);
    a = gex_Event_QueryLeaf(reg, GEX_EC_LC);
    b = gex_Event_QueryLeaf(reg, GEX_EC_LC);
    RVT_CHECK(a == b || a == GEX_EVENT_INVALID || b == GEX_EVENT_INVALID,
              "QueryLeaf gave two different leaves for one region");
    gex_Event_Wait(b);
    gex_Event_Wait(reg);
}

/* Zero-byte transfers to the peer: nothing to do, every form succeeds and syncs at once. */
static void zero_bytes(void)
{
    uint8_t *r = rvt_seg_addr(peer, 0), local[8];
    gex_Event_t lc = GEX_EVENT_NO_OP;
    gex_Event_t e[4] = {gex_RMA_PutNB(rvt_tm, peer, r, local, 0, &lc, 0),
                        gex_RMA_PutNB(rvt_tm, peer, r, local, 0, GEX_EVENT_NOW, 0),
                        gex_RMA_PutNB(rvt_tm, peer, r, local, 0, GEX_EVENT_DEFER, 0),
                        gex_RMA_GetNB(rvt_tm, local, peer, r, 0, 0)};
    for (int i = 0; i < 4; i++)
        RVT_CHECK(e[i] != GEX_EVENT_NO_OP, "zero-byte NB operation %d returned GEX_EVENT_NO_OP", i);
    RVT_CHECK(lc != GEX_EVENT_NO_OP, "zero-byte PutNB left its lc_opt event unset");
    RVT_CHECK(gex_Event_Test(lc) == GASNET_OK, "zero-byte PutNB: local completion pending");
    RVT_CHECK(gex_Event_TestAll(e, 4, 0) == GASNET_OK, "zero-byte NB operations pending");
    RVT_OK(gex_RMA_PutBlocking(rvt_tm, peer, r, local, 0, 0));
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, local, peer, r, 0, 0));
    gex_NBI_BeginAccessRegion(0);
    RVT_OK(gex_RMA_PutNBI(rvt_tm, peer, r, local, 0, GEX_EVENT_GROUP, 0));
    RVT_OK(gex_RMA_PutNBI(rvt_tm, peer, r, local, 0, GEX_EVENT_DEFER, 0));
    RVT_OK(gex_RMA_GetNBI(rvt_tm, local, peer, r, 0, 0));
    gex_Event_t reg = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(gex_Event_Test(reg) == GASNET_OK, "region of zero-byte NBI operations pending");
    RVT_OK(gex_RMA_PutNBI(rvt_tm, peer, r, local, 0, GEX_EVENT_NOW, 0));
    RVT_OK(gex_RMA_GetNBI(rvt_tm, local, peer, r, 0, 0));
    RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK, "zero-byte NBI operations pending");
}

/* A region's operations are not the thread's: gex_NBI_* outside do not see them. */
static void regions(void)
{
    uint8_t *dst = rmat_xmalloc(LEN);
    gex_NBI_BeginAccessRegion(0);
    RVT_OK(gex_RMA_GetNBI(rvt_tm, dst, peer, rvt_seg_addr(peer, LEN), LEN, 0));
    gex_Event_t reg = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(gex_NBI_Test(GEX_EC_GET, 0) == GASNET_OK,
              "gex_NBI_Test(GEX_EC_GET) sees a Get started inside an access region");
    /* the thread's own Put is pending (ref) while the region's Get is too */
    uint8_t v = 0x77;
    RVT_OK(gex_RMA_PutNBI(rvt_tm, peer, rvt_seg_addr(peer, SEG_BYTES - 1), &v, 1, GEX_EVENT_NOW,
                          0));
    /* The Put's answer may be back already: what a test reports complete must be done. */
    RVT_CHECK(gex_NBI_Test(GEX_EC_GET | GEX_EC_RMW | GEX_EC_AM, 0) == GASNET_OK,
              "a pending Put counts in another category");
    if (gex_NBI_Test(GEX_EC_PUT, 0) == GASNET_OK) {
        uint8_t back = 0;
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, &back, peer, rvt_seg_addr(peer, SEG_BYTES - 1), 1, 0));
        RVT_CHECK(back == v, "gex_NBI_Test(GEX_EC_PUT) said done but the Put's byte is 0x%02x", back);
    }
    if (gex_Event_Test(reg) == GASNET_OK) { /* a successful test retires the event */
        rmat_expect_bytes(dst, rmat_pat(peer * 7 + LEN, LEN), LEN, "region GetNBI data on Test");
        reg = GEX_EVENT_INVALID;
    }
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_Event_Wait(reg);
    rmat_expect_bytes(dst, rmat_pat(peer * 7 + LEN, LEN), LEN, "region GetNBI data");
    free(dst);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    ref_mode = rmat_ref_mode();
    peer = (rvt_me + 1) % rvt_n;
    rmat_master_init(SEG_BYTES + rvt_n * 7);
    myseg = rvt_seg_addr(rvt_me, 0);
    memcpy(myseg, rmat_pat(rvt_me * 7, SEG_BYTES - 256), SEG_BYTES - 256);
    rvt_barrier();
    arrays();
    leaves();
    zero_bytes();
    regions();
    rvt_barrier();
    return rvt_done("rma_events");
}
