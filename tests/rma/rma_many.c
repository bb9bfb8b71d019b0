/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_many.c: thousands of Puts and Gets outstanding at once, to every rank, synced
 * every way the API offers: gex_Event_{Test,Wait}{Some,All} over arrays with GEX_EVENT_INVALID
 * holes, leaf (lc) events, gex_NBI_{Test,Wait} with each GEX_EC_* category, and access regions
 * (whose event covers exactly the NBI operations started inside them). Also the corner cases:
 * gex_Event_Test/Wait of GEX_EVENT_INVALID, all-INVALID and empty arrays, QueryLeaf of INVALID,
 * and GEX_EC_AM with AM Requests given GEX_EVENT_GROUP.
 *
 * Under RIVET_RMA=ref an operation stays incomplete until its initiator polls again (its
 * acknowledgement or reply must be handled), which makes some "not yet" answers certain; those
 * are checked only there.
 *
 * Segment layout: [0, 8 MiB) landing slots, one per source rank; [8, 10) MiB get source
 * (constant); [10, 12) MiB put sources (a copy of the pattern); [12, 14) MiB get destinations.
 * Op i of a phase owns region i of the slot (small or big), so nothing overlaps. */
#include "rma_test.h"

#define SEG_BYTES (16 * RMAT_MIB)
#define LAND (8 * RMAT_MIB)
#define OFF_GSRC (8 * RMAT_MIB)
#define OFF_PSRC (10 * RMAT_MIB)
#define OFF_GDST (12 * RMAT_MIB)
#define AREA (2 * RMAT_MIB)
#define SMALL ((size_t)512)
#define BIG ((size_t)96 * RMAT_KIB) /* two reference-path Get chunks */
#define NBIG 8

static uint8_t *myseg, *gdst_out;
static size_t slot_bytes, nsmall, nops;
static int ref_mode;

enum { PH_SOME, PH_ALL, PH_NBI, PH_REGION, NPHASES };

/* ---- the operations of a phase ------------------------------------------- */

static size_t region_off(size_t i) { return i < nsmall ? i * SMALL : nsmall * SMALL + (i - nsmall) * BIG; }
static size_t region_len(size_t i) { return i < nsmall ? SMALL : BIG; }
static gex_Rank_t target_of(gex_Rank_t src, size_t i) { return (gex_Rank_t)((src + i) % rvt_n); }
static size_t op_size(int ph, gex_Rank_t src, size_t i)
{
    uint64_t h = rmat_mix((uint64_t)ph, src, i, 11);
    return i < nsmall ? 1 + (size_t)(h % (SMALL - 16)) : BIG - 16 - (size_t)(h % 1024);
}
static size_t op_doff(int ph, gex_Rank_t src, size_t i) { return (size_t)(rmat_mix((uint64_t)ph, src, i, 12) % 8); }
static size_t put_start(int ph, gex_Rank_t src, size_t i)
{
    return (size_t)(rmat_mix((uint64_t)ph, src, i, 13) % (AREA - BIG));
}
static size_t get_off(int ph, gex_Rank_t src, size_t i)
{
    return (size_t)(rmat_mix((uint64_t)ph, src, i, 14) % (AREA - BIG));
}
static size_t gsrc_start(gex_Rank_t owner) { return ((size_t)owner * 7001) % RMAT_MIB; }

typedef struct {
    gex_Rank_t  t;
    size_t      n;
    void       *put_dst, *get_src, *get_dst;
    const void *put_src;
} op_t;

static op_t op_params(int ph, size_t i)
{
    op_t o;
    o.t = target_of(rvt_me, i);
    o.n = op_size(ph, rvt_me, i);
    size_t doff = op_doff(ph, rvt_me, i), ps = put_start(ph, rvt_me, i);
    o.put_dst = (uint8_t *)rvt_seg_addr(o.t, slot_bytes * rvt_me) + region_off(i) + doff;
    o.put_src = (i % 2) ? (const void *)(myseg + OFF_PSRC + ps) : (const void *)rmat_pat(ps, o.n);
    o.get_src = (uint8_t *)rvt_seg_addr(o.t, OFF_GSRC) + get_off(ph, rvt_me, i);
    o.get_dst = ((i % 2) ? gdst_out : myseg + OFF_GDST) + region_off(i) + doff;
    rmat_set_ctx("phase %d op %zu: %zu bytes, rank %u -> rank %u", ph, i, o.n, (unsigned)rvt_me,
                 (unsigned)o.t);
    return o;
}

/* Issue order: big and small operations interleaved. */
static size_t issue_order(size_t q) { return (q * 7919) % nops; }

static void clear_gets(void)
{
    memset(myseg + OFF_GDST, 0, AREA);
    memset(gdst_out, 0, AREA);
}

static void check_region(const uint8_t *reg, size_t len, size_t doff, const uint8_t *want, size_t n,
                         const char *what)
{
    rmat_expect_fill(reg, 0, doff, "bytes before the transfer were written");
    rmat_expect_bytes(reg + doff, want, n, what);
    rmat_expect_fill(reg + doff + n, 0, len - doff - n, "bytes after the transfer were written");
}

/* Gets of ops [lo, hi) have completed: check what they fetched. */
static void verify_gets(int ph, size_t lo, size_t hi)
{
    for (size_t i = lo; i < hi; i++) {
        op_t o = op_params(ph, i);
        const uint8_t *reg = ((i % 2) ? gdst_out : myseg + OFF_GDST) + region_off(i);
        check_region(reg, region_len(i), op_doff(ph, rvt_me, i),
                     rmat_pat(gsrc_start(o.t) + get_off(ph, rvt_me, i), o.n), o.n,
                     "data that was fetched");
    }
}

/* After a barrier: check every put aimed at me in this phase, then clear the slots. */
static void verify_puts(int ph)
{
    for (gex_Rank_t s = 0; s < rvt_n; s++) {
        uint8_t *slot = myseg + slot_bytes * s;
        for (size_t i = (rvt_me + rvt_n - s) % rvt_n; i < nops; i += rvt_n) {
            size_t n = op_size(ph, s, i);
            rmat_set_ctx("phase %d op %zu: %zu bytes, rank %u -> rank %u", ph, i, n, (unsigned)s,
                         (unsigned)rvt_me);
            check_region(slot + region_off(i), region_len(i), op_doff(ph, s, i),
                         rmat_pat(put_start(ph, s, i), n), n, "data that arrived");
        }
        memset(slot, 0, region_off(nops));
    }
    rvt_barrier();
}

static size_t count_live(const gex_Event_t *ev, size_t n)
{
    size_t live = 0;
    for (size_t i = 0; i < n; i++) live += ev[i] != GEX_EVENT_INVALID;
    return live;
}

/* Every entry is still the event it was, or GEX_EVENT_INVALID once completed. */
static void check_entries(const gex_Event_t *ev, const gex_Event_t *orig, size_t n, const char *call)
{
    for (size_t i = 0; i < n; i++)
        RVT_CHECK(ev[i] == orig[i] || ev[i] == GEX_EVENT_INVALID,
                  "%s changed entry %zu to something other than GEX_EVENT_INVALID", call, i);
}

/* ---- phase: Some ----------------------------------------------------------- */

static void phase_some(void)
{
    const int ph = PH_SOME;
    size_t m = 2 * nops + nops / 4; /* with INVALID holes */
    gex_Event_t *ev = calloc(m, sizeof *ev), *orig = calloc(m, sizeof *orig);
    gex_Event_t *lc = calloc(nops, sizeof *lc);
    RVT_CHECK(ev && orig && lc, "calloc failed");
    clear_gets();
    size_t e = 0;
    for (size_t q = 0; q < nops; q++) {
        size_t i = issue_order(q);
        op_t o = op_params(ph, i);
        gex_Event_t *lco = i % 3 == 0 ? GEX_EVENT_NOW : i % 3 == 1 ? GEX_EVENT_DEFER : &lc[i];
        if (q % 8 == 3) ev[e++] = GEX_EVENT_INVALID;
        ev[e++] = gex_RMA_PutNB(rvt_tm, o.t, o.put_dst, o.put_src, o.n, lco, 0);
        ev[e++] = gex_RMA_GetNB(rvt_tm, o.get_dst, o.t, o.get_src, o.n, 0);
        RVT_CHECK(ev[e - 1] != GEX_EVENT_NO_OP && ev[e - 2] != GEX_EVENT_NO_OP,
                  "%s: GEX_EVENT_NO_OP without IMMEDIATE", rmat_ctx);
    }
    RVT_CHECK(e <= m, "event array overflow");
    m = e;
    memcpy(orig, ev, m * sizeof *ev);

    /* Leaves first (a root's sync recycles its leaves). */
    size_t live = count_live(lc, nops);
    while (live) {
        gex_Event_WaitSome(lc, nops, 0);
        size_t now = count_live(lc, nops);
        RVT_CHECK(now < live, "gex_Event_WaitSome on lc events returned with none completed");
        live = now;
    }
    /* Roots: alternately a TestSome poll loop and WaitSome; each success completes >= 1. */
    live = count_live(ev, m);
    for (int round = 0; live; round++) {
        const char *call = (round % 2) ? "gex_Event_WaitSome" : "gex_Event_TestSome";
        if (round % 2) gex_Event_WaitSome(ev, m, 0);
        else
            while (gex_Event_TestSome(ev, m, 0) != GASNET_OK) gasnet_AMPoll();
        check_entries(ev, orig, m, call);
        size_t now = count_live(ev, m);
        RVT_CHECK(now < live, "%s succeeded with none of %zu events completed", call, live);
        live = now;
    }
    RVT_CHECK(gex_Event_TestSome(ev, m, 0) == GASNET_OK, "TestSome of only INVALID entries failed");
    RVT_CHECK(gex_Event_TestAll(ev, m, 0) == GASNET_OK, "TestAll of only INVALID entries failed");
    gex_Event_WaitSome(ev, m, 0);
    gex_Event_WaitAll(ev, m, 0);
    verify_gets(ph, 0, nops);
    free(ev), free(orig), free(lc);
    rvt_barrier();
    verify_puts(ph);
}

/* ---- phase: All ------------------------------------------------------------ */

static void phase_all(void)
{
    const int ph = PH_ALL;
    size_t m = 2 * nops;
    gex_Event_t *ev = calloc(m, sizeof *ev), *orig = calloc(m, sizeof *orig);
    RVT_CHECK(ev && orig, "calloc failed");
    clear_gets();
    for (size_t q = 0; q < nops; q++) {
        size_t i = issue_order(q);
        op_t o = op_params(ph, i);
        ev[2 * q] = gex_RMA_PutNB(rvt_tm, o.t, o.put_dst, o.put_src, o.n, GEX_EVENT_DEFER, 0);
        ev[2 * q + 1] = gex_RMA_GetNB(rvt_tm, o.get_dst, o.t, o.get_src, o.n, 0);
    }
    memcpy(orig, ev, m * sizeof *ev);
    int rc = gex_Event_TestAll(ev, m, 0);
    check_entries(ev, orig, m, "gex_Event_TestAll");
    /* The last Get's reply can only be handled by a poll of ours, and Test never polls. */
    if (ref_mode) RVT_CHECK(rc != GASNET_OK, "gex_Event_TestAll succeeded before any poll (ref path)");

    size_t half = m / 2;
    while (gex_Event_TestAll(ev, half, 0) != GASNET_OK) {
        check_entries(ev, orig, half, "gex_Event_TestAll");
        gasnet_AMPoll();
    }
    RVT_CHECK(count_live(ev, half) == 0, "gex_Event_TestAll succeeded but left events in the array");
    gex_Event_WaitAll(ev + half, m - half, 0);
    RVT_CHECK(count_live(ev, m) == 0, "gex_Event_WaitAll returned but left events in the array");
    verify_gets(ph, 0, nops);
    free(ev), free(orig);
    rvt_barrier();
    verify_puts(ph);
}

/* ---- phase: NBI categories ------------------------------------------------- */

static void expect_nbi_idle(gex_EC_t mask, const char *what)
{
    RVT_CHECK(gex_NBI_Test(mask, 0) == GASNET_OK, "gex_NBI_Test(%s) is not ready %s", what, rmat_ctx);
}

static void phase_nbi(void)
{
    const int ph = PH_NBI;
    static gex_Event_t *const lcs[3] = {GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP};
    clear_gets();
    expect_nbi_idle(GEX_EC_ALL, "GEX_EC_ALL");
    for (size_t q = 0; q < nops; q++) {
        size_t i = issue_order(q);
        op_t o = op_params(ph, i);
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, o.t, o.put_dst, o.put_src, o.n, lcs[i % 3], 0) == 0,
                  "%s: gex_RMA_PutNBI returned non-zero without IMMEDIATE", rmat_ctx);
        if (ref_mode && q == nops - 1)
            RVT_CHECK(gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK,
                      "gex_NBI_Test(GEX_EC_PUT) ready right after a PutNBI (ref path)");
        RVT_CHECK(gex_RMA_GetNBI(rvt_tm, o.get_dst, o.t, o.get_src, o.n, 0) == 0,
                  "%s: gex_RMA_GetNBI returned non-zero without IMMEDIATE", rmat_ctx);
        if (ref_mode && q == nops - 1) {
            RVT_CHECK(gex_NBI_Test(GEX_EC_GET, 0) != GASNET_OK,
                      "gex_NBI_Test(GEX_EC_GET) ready right after a GetNBI (ref path)");
            RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) != GASNET_OK,
                      "gex_NBI_Test(GEX_EC_ALL) ready with operations outstanding (ref path)");
        }
        expect_nbi_idle(GEX_EC_AM, "GEX_EC_AM");
        expect_nbi_idle(GEX_EC_RMW, "GEX_EC_RMW");
    }
    rmat_set_ctx("phase %d: after issuing %zu Puts and Gets", ph, nops);
    gex_NBI_Wait(GEX_EC_LC, 0);
    expect_nbi_idle(GEX_EC_LC, "GEX_EC_LC after gex_NBI_Wait(GEX_EC_LC)");
    gex_NBI_Wait(GEX_EC_GET, 0);
    expect_nbi_idle(GEX_EC_GET, "GEX_EC_GET after gex_NBI_Wait(GEX_EC_GET)");
    verify_gets(ph, 0, nops); /* Puts may still be in flight */
    while (gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK) gasnet_AMPoll();
    expect_nbi_idle(GEX_EC_ALL, "GEX_EC_ALL");
    expect_nbi_idle(GEX_EC_GET | GEX_EC_PUT | GEX_EC_LC, "GET|PUT|LC");
    expect_nbi_idle(GEX_EC_AM | GEX_EC_RMW, "AM|RMW");
    gex_NBI_Wait(GEX_EC_ALL, 0);
    rvt_barrier();
    verify_puts(ph);
}

/* ---- phase: access regions ------------------------------------------------- */

static void nbi_op(int ph, size_t i, gex_Event_t *lco)
{
    op_t o = op_params(ph, i);
    RVT_CHECK(gex_RMA_PutNBI(rvt_tm, o.t, o.put_dst, o.put_src, o.n, lco, 0) == 0,
              "%s: gex_RMA_PutNBI returned non-zero", rmat_ctx);
    RVT_CHECK(gex_RMA_GetNBI(rvt_tm, o.get_dst, o.t, o.get_src, o.n, 0) == 0,
              "%s: gex_RMA_GetNBI returned non-zero", rmat_ctx);
}

static void phase_region(void)
{
    const int ph = PH_REGION;
    static gex_Event_t *const lcs[3] = {GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP};
    size_t pre = nops / 8, mid = nops / 2, post = nops / 2 + nops / 8;
    gex_Event_t *nb = calloc(2 * nops, sizeof *nb);
    RVT_CHECK(nb != NULL, "calloc failed");
    size_t nnb = 0;
    clear_gets();

    /* Thread-set operations, then an empty region: its event must not wait for them. */
    for (size_t i = 0; i < pre; i++) nbi_op(ph, i, GEX_EVENT_DEFER);
    if (ref_mode)
        RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) != GASNET_OK,
                  "gex_NBI_Test(GEX_EC_ALL) ready right after a GetNBI (ref path)");
    gex_NBI_BeginAccessRegion(0);
    gex_Event_t e0 = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(e0 != GEX_EVENT_NO_OP, "gex_NBI_EndAccessRegion returned GEX_EVENT_NO_OP");
    RVT_CHECK(gex_Event_Test(e0) == GASNET_OK,
              "the event of an empty access region is not complete (it covers outside operations?)");
    gex_NBI_Wait(GEX_EC_ALL, 0);
    verify_gets(ph, 0, pre);

    /* Region 1: NBI operations of every lc kind, and NB operations (not part of the region). */
    gex_NBI_BeginAccessRegion(0);
    for (size_t i = pre; i < mid; i++) {
        if (i % 5 == 0 && i != mid - 1) {
            op_t o = op_params(ph, i);
            nb[nnb++] = gex_RMA_PutNB(rvt_tm, o.t, o.put_dst, o.put_src, o.n, GEX_EVENT_DEFER, 0);
            nb[nnb++] = gex_RMA_GetNB(rvt_tm, o.get_dst, o.t, o.get_src, o.n, 0);
        } else {
            nbi_op(ph, i, lcs[i % 3]);
        }
    }
    gex_Event_t e1 = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(e1 != GEX_EVENT_NO_OP, "gex_NBI_EndAccessRegion returned GEX_EVENT_NO_OP");
    rmat_set_ctx("phase %d: after access region 1", ph);
    /* Its operations are not the thread's: the thread's set is idle. */
    expect_nbi_idle(GEX_EC_ALL, "GEX_EC_ALL");
    if (ref_mode)
        RVT_CHECK(gex_Event_Test(e1) != GASNET_OK,
                  "access region event complete right after a GetNBI inside it (ref path)");

    /* After the region: the thread's set again. */
    for (size_t i = mid; i < post; i++) nbi_op(ph, i, GEX_EVENT_DEFER);
    if (ref_mode)
        RVT_CHECK(gex_NBI_Test(GEX_EC_GET, 0) != GASNET_OK,
                  "GetNBI after gex_NBI_EndAccessRegion not counted by gex_NBI_Test (ref path)");

    /* Region 2: GEX_EVENT_GROUP Puts; the region's LC leaf. */
    gex_NBI_BeginAccessRegion(0);
    for (size_t i = post; i < nops; i++) nbi_op(ph, i, GEX_EVENT_GROUP);
    gex_Event_t e2 = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(e2 != GEX_EVENT_NO_OP, "gex_NBI_EndAccessRegion returned GEX_EVENT_NO_OP");
    gex_Event_t leaf = gex_Event_QueryLeaf(e2, GEX_EC_LC);
    RVT_CHECK(leaf != GEX_EVENT_NO_OP, "gex_Event_QueryLeaf(region, GEX_EC_LC) returned NO_OP");
    gex_Event_Wait(leaf);

    gex_Event_t roots[3] = {e1, GEX_EVENT_INVALID, e2};
    gex_Event_WaitAll(roots, 3, 0);
    RVT_CHECK(count_live(roots, 3) == 0, "gex_Event_WaitAll left region events in the array");
    gex_Event_WaitAll(nb, nnb, 0);
    verify_gets(ph, pre, mid);
    verify_gets(ph, post, nops);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    verify_gets(ph, mid, post);
    free(nb);
    rvt_barrier();
    verify_puts(ph);
}

/* ---- GEX_EC_AM: AM Requests with GEX_EVENT_GROUP ------------------------- */

#define AM_HIDX 201
#define AM_PER_PEER 64
#define AM_BYTES 1000
static volatile int am_got, am_bad;

static void am_medium_handler(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    (void)tok;
    if (nbytes != AM_BYTES || memcmp(buf, rmat_pat((size_t)seq * 16, AM_BYTES), AM_BYTES)) am_bad++;
    am_got++;
}

static void phase_am(void)
{
    for (gex_Rank_t k = 0; k < rvt_n; k++) {
        gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n);
        /* GEX_EVENT_GROUP: the sources stay untouched until gex_NBI_Wait(GEX_EC_AM). */
        for (int s = 0; s < AM_PER_PEER; s++)
            RVT_OK(gex_AM_RequestMedium1(rvt_tm, t, AM_HIDX, rmat_pat((size_t)s * 16, AM_BYTES),
                                         AM_BYTES, GEX_EVENT_GROUP, 0, (gex_AM_Arg_t)s));
    }
    gex_NBI_Wait(GEX_EC_AM, 0);
    RVT_CHECK(gex_NBI_Test(GEX_EC_AM, 0) == GASNET_OK, "GEX_EC_AM not idle after gex_NBI_Wait");
    GASNET_BLOCKUNTIL(am_got == (int)(AM_PER_PEER * rvt_n));
    RVT_CHECK(am_bad == 0, "%d AM Medium payloads arrived wrong", am_bad);
    rvt_barrier();
}

/* ---- corner cases of the sync calls --------------------------------------- */

static void corner_cases(void)
{
    gex_Event_t none[4] = {GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID, GEX_EVENT_INVALID};
    RVT_CHECK(gex_Event_Test(GEX_EVENT_INVALID) == GASNET_OK, "gex_Event_Test(GEX_EVENT_INVALID) failed");
    gex_Event_Wait(GEX_EVENT_INVALID);
    RVT_CHECK(gex_Event_TestSome(none, 4, 0) == GASNET_OK, "gex_Event_TestSome of only INVALID failed");
    RVT_CHECK(gex_Event_TestAll(none, 4, 0) == GASNET_OK, "gex_Event_TestAll of only INVALID failed");
    RVT_CHECK(gex_Event_TestSome(none, 0, 0) == GASNET_OK, "gex_Event_TestSome of no events failed");
    RVT_CHECK(gex_Event_TestAll(none, 0, 0) == GASNET_OK, "gex_Event_TestAll of no events failed");
    gex_Event_WaitSome(none, 4, 0);
    gex_Event_WaitAll(none, 4, 0);
    gex_Event_WaitSome(none, 0, 0);
    gex_Event_WaitAll(none, 0, 0);
    gex_Event_t leaf = gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_LC);
    RVT_CHECK(leaf != GEX_EVENT_NO_OP, "gex_Event_QueryLeaf(GEX_EVENT_INVALID) returned NO_OP");
    RVT_CHECK(gex_Event_Test(leaf) == GASNET_OK,
              "gex_Event_QueryLeaf(GEX_EVENT_INVALID) returned an event that is not done");
    static const gex_EC_t ecs[] = {GEX_EC_ALL, GEX_EC_GET, GEX_EC_PUT, GEX_EC_AM, GEX_EC_LC, GEX_EC_RMW};
    for (size_t i = 0; i < sizeof ecs / sizeof ecs[0]; i++) {
        RVT_CHECK(gex_NBI_Test(ecs[i], 0) == GASNET_OK, "gex_NBI_Test(0x%x) with nothing outstanding",
                  (unsigned)ecs[i]);
        gex_NBI_Wait(ecs[i], 0);
    }
    /* Zero-byte operations complete at once and are safe to sync. */
    uint8_t *mine = myseg + OFF_GDST;
    gex_Event_t z[2] = {gex_RMA_PutNB(rvt_tm, rvt_me, mine, mine, 0, GEX_EVENT_DEFER, 0),
                        gex_RMA_GetNB(rvt_tm, mine, rvt_me, mine, 0, 0)};
    gex_Event_WaitAll(z, 2, 0);
    RVT_OK(gex_RMA_PutNBI(rvt_tm, rvt_me, mine, mine, 0, GEX_EVENT_GROUP, 0));
    RVT_OK(gex_RMA_GetNBI(rvt_tm, mine, rvt_me, mine, 0, 0));
    gex_NBI_Wait(GEX_EC_ALL, 0);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    ref_mode = rmat_ref_mode();
    slot_bytes = (LAND / rvt_n) & ~(size_t)63;
    RVT_CHECK(slot_bytes >= NBIG * BIG + 64 * SMALL, "too many ranks (%u) for this test", (unsigned)rvt_n);
    nsmall = (slot_bytes - NBIG * BIG) / SMALL;
    if (nsmall > 2048) nsmall = 2048;
    nops = nsmall + NBIG;
    RVT_CHECK(nops % 7919 != 0, "issue order is not a permutation");

    gex_AM_Entry_t h = {AM_HIDX, (gex_AM_Fn_t)am_medium_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                        1, NULL, "rma_many_medium"};
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &h, 1));

    rmat_master_init(2 * AREA);
    myseg = rmat_my_seg();
    gdst_out = rmat_xmalloc(AREA);
    memcpy(myseg + OFF_GSRC, rmat_pat(gsrc_start(rvt_me), AREA), AREA);
    memcpy(myseg + OFF_PSRC, rmat_pat(0, AREA), AREA);
    rvt_barrier();

    corner_cases();
    phase_some();
    phase_all();
    phase_nbi();
    phase_region();
    phase_am();
    corner_cases();
    free(gdst_out);
    return rvt_done("rma_many");
}
