/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_multiep.c: segments made by gex_Segment_Create, bound with
 * gex_EP_BindSegment and published with gex_EP_PublishBoundSegment, on the primordial
 * endpoint of a client that never attaches ("primordial gasnet|client") and on two extra
 * RMA endpoints per rank ("multi"), reached in every RMA form through gex_TM_Pair and checked
 * byte by byte; "bindargs": gex_EP_BindSegment's returned bad-argument errors and a segment
 * bound to two endpoints; "err <case>" makes one documented mistake (see CMakeLists.txt). */
#include "rv_test.h"
#include <gasnet_ratomic.h>
#include <gasnet_vis.h>

#define CH     4096u   /* one small-form region */
#define NPUT   7       /* put forms with a CH-byte region each */
#define BIG    150000u /* one large put per writer: more than one AM Medium or RDMA chunk */
#define SLOT   (NPUT * CH + BIG)
#define EXTRA  (8 * CH) /* AM Long (3 CH), atomics (1 CH) and VIS regions (primordial mode) */

static uint64_t seed_of(gex_Rank_t w, gex_Rank_t t, unsigned k, unsigned f)
{
    return (uint64_t)w * 1000003u + (uint64_t)t * 1009u + k * 101u + f + 1;
}

static uintptr_t seg_bytes(void) { return (uintptr_t)rvt_n * SLOT + EXTRA; }

/* Writes every put form from this rank into EP index k of rank t, whose segment starts at
 * 'base' there, through tm (a team or a TM-pair naming index k); rank t's region for this
 * writer starts at base + me * SLOT. */
static void put_all(gex_TM_t tm, gex_Rank_t t, unsigned k, char *base)
{
    static uint8_t src[BIG];
    char *r = base + (uintptr_t)rvt_me * SLOT;
    gex_Event_t lc, ev;

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 0));
    RVT_OK(gex_RMA_PutBlocking(tm, t, r, src, CH, 0));

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 1));
    gex_Event_Wait(gex_RMA_PutNB(tm, t, r + CH, src, CH, GEX_EVENT_NOW, 0));

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 2));
    gex_Event_Wait(gex_RMA_PutNB(tm, t, r + 2 * CH, src, CH, GEX_EVENT_DEFER, 0));

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 3));
    ev = gex_RMA_PutNB(tm, t, r + 3 * CH, src, CH, &lc, 0);
    gex_Event_Wait(lc);
    gex_Event_Wait(ev);

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 4));
    RVT_OK(gex_RMA_PutNBI(tm, t, r + 4 * CH, src, CH, GEX_EVENT_DEFER, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);

    rvt_fill(src, CH, seed_of(rvt_me, t, k, 5));
    gex_NBI_BeginAccessRegion(0);
    RVT_OK(gex_RMA_PutNBI(tm, t, r + 5 * CH, src, CH, GEX_EVENT_GROUP, 0));
    gex_Event_Wait(gex_NBI_EndAccessRegion(0));

    /* the value forms write the first 15 bytes of region 6 (8 + 4 + 2 + 1) */
    uint8_t v[15];
    rvt_fill(v, sizeof v, seed_of(rvt_me, t, k, 6));
    uint64_t v8;
    uint32_t v4;
    uint16_t v2;
    memcpy(&v8, v, 8);
    memcpy(&v4, v + 8, 4);
    memcpy(&v2, v + 12, 2);
    RVT_OK(gex_RMA_PutBlockingVal(tm, t, r + 6 * CH, v8, 8, 0));
    gex_Event_Wait(gex_RMA_PutNBVal(tm, t, r + 6 * CH + 8, v4, 4, 0));
    RVT_OK(gex_RMA_PutNBIVal(tm, t, r + 6 * CH + 12, v2, 2, 0));
    RVT_OK(gex_RMA_PutNBIVal(tm, t, r + 6 * CH + 14, v[14], 1, 0));
    gex_NBI_Wait(GEX_EC_PUT, 0);

    rvt_fill(src, BIG, seed_of(rvt_me, t, k, 7));
    gex_Event_Wait(gex_RMA_PutNB(tm, t, r + NPUT * CH, src, BIG, GEX_EVENT_DEFER, 0));
}

/* Checks what every writer put into my EP k segment (here at 'mine'). */
static void verify_all(unsigned k, const char *mine)
{
    char what[96];
    for (gex_Rank_t w = 0; w < rvt_n; w++) {
        const char *r = mine + (uintptr_t)w * SLOT;
        for (unsigned f = 0; f < NPUT - 1; f++) {
            snprintf(what, sizeof what, "EP %u: put form %u from rank %u", k, f, (unsigned)w);
            RVT_VERIFY(r + f * CH, CH, seed_of(w, rvt_me, k, f), what);
        }
        snprintf(what, sizeof what, "EP %u: value puts from rank %u", k, (unsigned)w);
        RVT_VERIFY(r + 6 * CH, 15, seed_of(w, rvt_me, k, 6), what);
        snprintf(what, sizeof what, "EP %u: large put from rank %u", k, (unsigned)w);
        RVT_VERIFY(r + NPUT * CH, BIG, seed_of(w, rvt_me, k, 7), what);
    }
}

/* Reads back, in every get form, what this rank put into EP k of rank t. */
static void get_all(gex_TM_t tm, gex_Rank_t t, unsigned k, char *base)
{
    static uint8_t dst[BIG];
    char *r = base + (uintptr_t)rvt_me * SLOT;
    char what[96];
    snprintf(what, sizeof what, "EP %u of rank %u: gets", k, (unsigned)t);

    memset(dst, 0, CH);
    RVT_OK(gex_RMA_GetBlocking(tm, dst, t, r, CH, 0));
    RVT_VERIFY(dst, CH, seed_of(rvt_me, t, k, 0), what);

    memset(dst, 0, CH);
    gex_Event_Wait(gex_RMA_GetNB(tm, dst, t, r + CH, CH, 0));
    RVT_VERIFY(dst, CH, seed_of(rvt_me, t, k, 1), what);

    memset(dst, 0, CH);
    RVT_OK(gex_RMA_GetNBI(tm, dst, t, r + 2 * CH, CH, 0));
    gex_NBI_Wait(GEX_EC_GET, 0);
    RVT_VERIFY(dst, CH, seed_of(rvt_me, t, k, 2), what);

    uint8_t v[15];
    rvt_fill(v, sizeof v, seed_of(rvt_me, t, k, 6));
    uint64_t v8;
    memcpy(&v8, v, 8);
    RVT_CHECK(gex_RMA_GetBlockingVal(tm, t, r + 6 * CH, 8, 0) == v8, "%s: 8-byte value", what);
    RVT_CHECK(gex_RMA_GetBlockingVal(tm, t, r + 6 * CH + 14, 1, 0) == v[14], "%s: 1-byte value",
              what);

    memset(dst, 0, BIG);
    gex_Event_Wait(gex_RMA_GetNB(tm, dst, t, r + NPUT * CH, BIG, 0));
    RVT_VERIFY(dst, BIG, seed_of(rvt_me, t, k, 7), what);
}

/* ---- primordial: a created segment bound to the primordial endpoint, no attach -------- */

static volatile int long_got;
static void long_handler(gex_Token_t tok, void *buf, size_t n, gex_AM_Arg_t from)
{
    (void)tok;
    char what[64];
    snprintf(what, sizeof what, "AM Long payload from rank %d", (int)from);
    RVT_VERIFY(buf, n, seed_of((gex_Rank_t)from, rvt_me, 0, 9), what);
    __atomic_add_fetch(&long_got, 1, __ATOMIC_RELAXED);
}

static void primordial(int client_memory)
{
    uintptr_t size = seg_bytes();
    char *mem = NULL, *addr = NULL;
    if (client_memory) { /* unaligned client memory */
        mem = malloc(size + 64);
        RVT_CHECK(mem != NULL, "malloc");
        addr = mem + 24;
    }
    gex_Segment_t seg;
    RVT_OK(gex_Segment_Create(&seg, rvt_client, addr, size, GEX_MK_HOST, 0));
    char *mine = gex_Segment_QueryAddr(seg);
    RVT_CHECK(!client_memory || mine == addr, "client memory address");
    RVT_CHECK(gex_Segment_QueryBound(rvt_tm, rvt_me, NULL, NULL, NULL) == GASNET_ERR_RESOURCE,
              "QueryBound before any bind");
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 0)); /* nothing bound yet: no-op */
    RVT_OK(gex_EP_BindSegment(rvt_ep, seg, 0));
    RVT_CHECK(gex_EP_QuerySegment(rvt_ep) == seg, "gex_EP_QuerySegment after bind");
    void *o = NULL, *l = NULL;
    uintptr_t sz = 0;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, rvt_me, &o, &l, &sz)); /* own: known before publish */
    RVT_CHECK(o == mine && l == mine && sz == size, "own bound segment");
    memset(mine, 0, size);
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 0));

    gex_AM_Entry_t h[1] = { { 0, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG,
                              1, NULL, "long" } };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, 1));
    char **bases = calloc(rvt_n, sizeof *bases);
    for (gex_Rank_t t = 0; t < rvt_n; t++) {
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(rvt_tm, t, &o, NULL, &sz, 0));
        RVT_CHECK(sz == size, "size of rank %u's segment", (unsigned)t);
        bases[t] = o;
    }
    rvt_barrier();

    /* RMA through the team and through gex_TM_Pair(ep, 0): the same endpoints */
    for (gex_Rank_t t = 0; t < rvt_n; t++) put_all(t % 2 ? gex_TM_Pair(rvt_ep, 0) : rvt_tm, t, 0,
                                                   bases[t]);
    rvt_barrier();
    verify_all(0, mine);
    for (gex_Rank_t t = 0; t < rvt_n; t++) get_all(rvt_tm, t, 0, bases[t]);

    /* AM Long, atomics and VIS into the extra regions (at most 4 ranks: 3000 bytes each) */
    uintptr_t extra = (uintptr_t)rvt_n * SLOT;
    RVT_CHECK(rvt_n <= 4, "at most 4 ranks");
    static uint8_t payload[3000];
    for (gex_Rank_t t = 0; t < rvt_n; t++) {
        rvt_fill(payload, sizeof payload, seed_of(rvt_me, t, 0, 9));
        RVT_OK(gex_AM_RequestLong1(rvt_tm, t, h[0].gex_index, payload, sizeof payload,
                                   bases[t] + extra + (uintptr_t)rvt_me * 3072, GEX_EVENT_NOW, 0,
                                   (gex_AM_Arg_t)rvt_me));
    }
    while (__atomic_load_n(&long_got, __ATOMIC_RELAXED) < (int)rvt_n) gasnet_AMPoll();
    for (gex_Rank_t w = 0; w < rvt_n; w++)
        RVT_VERIFY(mine + extra + (uintptr_t)w * 3072, 3000, seed_of(w, rvt_me, 0, 9),
                   "AM Long payload in the segment");

    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD | GEX_OP_GET, 0);
    for (gex_Rank_t t = 0; t < rvt_n; t++)
        RVT_OK(gex_AD_OpNBI_U64(ad, NULL, t, bases[t] + extra + 3 * CH, GEX_OP_ADD,
                                rvt_me + 1, 0, 0));
    gex_NBI_Wait(GEX_EC_ALL, 0);
    rvt_barrier();
    for (gex_Rank_t t = 0; t < rvt_n; t++) {
        uint64_t got = 0;
        gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, t, bases[t] + extra + 3 * CH,
                                       GEX_OP_GET, 0, 0, 0));
        RVT_CHECK(got == (uint64_t)rvt_n * (rvt_n + 1) / 2, "atomic sum at rank %u: %" PRIu64,
                  (unsigned)t, got);
    }
    rvt_barrier();
    gex_AD_Destroy(ad);

    /* VIS: two pieces per writer into rank t's region, 64 bytes apart */
    uint8_t a[100], b[50];
    for (gex_Rank_t t = 0; t < rvt_n; t++) {
        rvt_fill(a, sizeof a, seed_of(rvt_me, t, 0, 10));
        rvt_fill(b, sizeof b, seed_of(rvt_me, t, 0, 11));
        char *d = bases[t] + extra + 4 * CH + (uintptr_t)rvt_me * 256;
        gex_Memvec_t dst[2] = { { d, sizeof a }, { d + 164, sizeof b } };
        gex_Memvec_t src[2] = { { a, sizeof a }, { b, sizeof b } };
        RVT_OK(gex_VIS_VectorPutBlocking(rvt_tm, t, 2, dst, 2, src, 0));
    }
    rvt_barrier();
    for (gex_Rank_t w = 0; w < rvt_n; w++) {
        const char *d = mine + extra + 4 * CH + (uintptr_t)w * 256;
        RVT_VERIFY(d, 100, seed_of(w, rvt_me, 0, 10), "VIS piece 1");
        RVT_VERIFY(d + 164, 50, seed_of(w, rvt_me, 0, 11), "VIS piece 2");
    }
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 0)); /* again: changes nothing */
    rvt_barrier();
    free(bases);
}

/* ---- multi: two RMA endpoints per rank, Rivet-allocated and client memory ------------- */

static void multi(void)
{
    uintptr_t size = seg_bytes();
    gex_EP_t ep[3] = { rvt_ep, GEX_EP_INVALID, GEX_EP_INVALID };
    gex_Segment_t seg[3] = { rvt_seg, GEX_SEGMENT_INVALID, GEX_SEGMENT_INVALID };
    char *mem = malloc(size + 64);
    RVT_CHECK(mem != NULL, "malloc");
    RVT_OK(gex_Segment_Create(&seg[1], rvt_client, NULL, size, GEX_MK_HOST, 0));
    RVT_OK(gex_Segment_Create(&seg[2], rvt_client, mem + 40, size, GEX_MK_HOST, 0));
    for (unsigned k = 1; k <= 2; k++) {
        RVT_OK(gex_EP_Create(&ep[k], rvt_client, GEX_EP_CAPABILITY_RMA, 0));
        RVT_CHECK(gex_EP_QueryIndex(ep[k]) == k && gex_EP_QueryClient(ep[k]) == rvt_client,
                  "endpoint %u: index and client", k);
        RVT_OK(gex_EP_BindSegment(ep[k], seg[k], 0));
        RVT_CHECK(gex_EP_QuerySegment(ep[k]) == seg[k], "endpoint %u: its segment", k);
        memset(gex_Segment_QueryAddr(seg[k]), 0, size);
    }
    /* not AM-capable: registering handlers is refused; other capabilities are not available */
    gex_AM_Entry_t h[1] = { { 0, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG,
                              1, NULL, "long" } };
    RVT_CHECK(gex_EP_RegisterHandlers(ep[1], h, 1) == GASNET_ERR_BAD_ARG,
              "handlers on an RMA-only endpoint");
    gex_EP_t bad = GEX_EP_INVALID;
    const gex_EP_Capabilities_t caps[] = { GEX_EP_CAPABILITY_AM, GEX_EP_CAPABILITY_VIS,
                                           GEX_EP_CAPABILITY_COLL, GEX_EP_CAPABILITY_AD,
                                           GEX_EP_CAPABILITY_ALL };
    for (unsigned i = 0; i < sizeof caps / sizeof caps[0]; i++)
        RVT_CHECK(gex_EP_Create(&bad, rvt_client, caps[i], 0) == GASNET_ERR_BAD_ARG &&
                      bad == GEX_EP_INVALID, "gex_EP_Create(capabilities 0x%x)", (unsigned)caps[i]);
    /* unpublished: the queries know only this rank's own */
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    void *o = NULL;
    uintptr_t sz = 0;
    RVT_OK(gex_Segment_QueryBound(gex_TM_Pair(rvt_ep, 1), rvt_me, &o, NULL, &sz));
    RVT_CHECK(o == gex_Segment_QueryAddr(seg[1]) && sz == size, "own EP 1 segment");
    sz = 0;
    RVT_CHECK(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(rvt_ep, 1), rvt_me, &o, NULL, &sz,
                                         GEX_FLAG_IMMEDIATE) == GEX_EVENT_INVALID &&
                  o == gex_Segment_QueryAddr(seg[1]) && sz == size,
              "own EP 1 segment (NB, unpublished: the own one is always known)");
    if (peer != rvt_me) {
        RVT_CHECK(gex_Segment_QueryBound(gex_TM_Pair(rvt_ep, 2), peer, &o, NULL, &sz) ==
                      GASNET_ERR_RESOURCE, "EP 2 of rank %u before publication", (unsigned)peer);
        /* the NB query of an unpublished segment is "unsuccessful": size 0, no error */
        for (int imm = 0; imm < 2; imm++) {
            sz = 1;
            gex_Event_t ev = gex_EP_QueryBoundSegmentNB(gex_TM_Pair(rvt_ep, 2), peer, &o, NULL,
                                                        &sz, imm ? GEX_FLAG_IMMEDIATE : 0);
            RVT_CHECK(ev == GEX_EVENT_INVALID && sz == 0, "NB query of EP 2 of rank %u before "
                      "publication: event %p, size %" PRIuPTR, (unsigned)peer, (void *)ev, sz);
        }
    }
    /* an index with no endpoint anywhere: size 0 too */
    sz = 1;
    gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(rvt_ep, 5), peer, NULL, NULL, &sz, 0));
    RVT_CHECK(sz == 0, "NB query of endpoint index 5 (none) gave size %" PRIuPTR, sz);
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, ep + 1, 2, 0));

    char *bases[3][64];
    RVT_CHECK(rvt_n <= 64, "at most 64 ranks");
    for (unsigned k = 1; k <= 2; k++)
        for (gex_Rank_t t = 0; t < rvt_n; t++) {
            gex_EP_Location_t loc = gex_TM_TranslateRankToEP(gex_TM_Pair(ep[1], k), t, 0);
            RVT_CHECK(loc.gex_rank == t && loc.gex_ep_index == k, "gex_TM_TranslateRankToEP");
            gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(rvt_ep, k), t, &o, NULL, &sz, 0));
            RVT_CHECK(sz == size, "size of EP %u of rank %u", k, (unsigned)t);
            bases[k][t] = o;
        }
    rvt_barrier();

    /* local endpoint: the primordial one, or the RMA endpoint itself */
    for (unsigned k = 1; k <= 2; k++)
        for (gex_Rank_t t = 0; t < rvt_n; t++)
            put_all(gex_TM_Pair(t % 2 ? ep[k] : rvt_ep, k), t, k, bases[k][t]);
    rvt_barrier();
    for (unsigned k = 1; k <= 2; k++) verify_all(k, gex_Segment_QueryAddr(seg[k]));
    for (unsigned k = 1; k <= 2; k++)
        for (gex_Rank_t t = 0; t < rvt_n; t++)
            get_all(gex_TM_Pair(t % 2 ? rvt_ep : ep[k], k), t, k, bases[k][t]);
    /* the primordial segment is still reached through pairs from any local endpoint */
    uint64_t x = 0x1122334455667788ull + rvt_me;
    RVT_OK(gex_RMA_PutBlocking(gex_TM_Pair(ep[2], 0), peer, rvt_seg_addr(peer, 8 * rvt_me), &x,
                               8, 0));
    rvt_barrier();
    uint64_t y;
    gex_Rank_t from = (rvt_me + rvt_n - 1) % rvt_n;
    memcpy(&y, (char *)rvt_seg_addr(rvt_me, 8 * from), 8);
    RVT_CHECK(y == 0x1122334455667788ull + from, "put through gex_TM_Pair(ep 2, 0)");
    rvt_barrier();

    /* teardown: a non-primordial endpoint's segment may be destroyed while bound (it becomes
     * unbound); endpoints are destroyed; indices are reused */
    gex_Segment_Destroy(seg[1], 0);
    RVT_CHECK(gex_EP_QuerySegment(ep[1]) == GEX_SEGMENT_INVALID, "unbound by destroy");
    gex_EP_Destroy(ep[1], 0);
    gex_EP_Destroy(ep[2], 0);
    RVT_CHECK(gex_Segment_QueryBound(gex_TM_Pair(rvt_ep, 2), rvt_me, NULL, NULL, NULL) ==
                  GASNET_ERR_RESOURCE, "own EP 2 segment after destroy");
    gex_Segment_Destroy(seg[2], 0);
    gex_EP_t all[GASNET_MAXEPS];
    for (unsigned i = 1; i < GASNET_MAXEPS; i++) {
        RVT_OK(gex_EP_Create(&all[i], rvt_client, GEX_EP_CAPABILITY_RMA, GEX_FLAG_HINT_ACCEL_ALL));
        RVT_CHECK(gex_EP_QueryIndex(all[i]) == i, "endpoint index %u reused in order", i);
    }
    RVT_CHECK(gex_EP_Create(&bad, rvt_client, GEX_EP_CAPABILITY_RMA, 0) == GASNET_ERR_RESOURCE,
              "endpoint number GASNET_MAXEPS + 1");
    for (unsigned i = 1; i < GASNET_MAXEPS; i++) gex_EP_Destroy(all[i], 0);
    free(mem);
}

/* ---- gex_EP_BindSegment's bad arguments (returned, as GASNet-EX does) and one segment bound
 * to two endpoints, reached through both indices ---------------------------------------- */

static void bindargs(void)
{
    gex_Segment_t s1, s2;
    gex_EP_t e1, e2;
    RVT_OK(gex_Segment_Create(&s1, rvt_client, NULL, 8 * CH, GEX_MK_HOST, 0));
    RVT_OK(gex_Segment_Create(&s2, rvt_client, NULL, 8 * CH, GEX_MK_HOST, 0));
    RVT_OK(gex_EP_Create(&e1, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    RVT_OK(gex_EP_Create(&e2, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_EP_BindSegment(GEX_EP_INVALID, s1, 0) == GASNET_ERR_BAD_ARG, "GEX_EP_INVALID");
    RVT_CHECK(gex_EP_BindSegment(e1, GEX_SEGMENT_INVALID, 0) == GASNET_ERR_BAD_ARG,
              "GEX_SEGMENT_INVALID");
    RVT_CHECK(gex_EP_BindSegment(e1, s1, 1) == GASNET_ERR_BAD_ARG, "flags=1");
    RVT_CHECK(gex_EP_QuerySegment(e1) == GEX_SEGMENT_INVALID, "a refused bind binds nothing");
    RVT_OK(gex_EP_BindSegment(e1, s1, 0));
    RVT_CHECK(gex_EP_BindSegment(e1, s2, 0) == GASNET_ERR_BAD_ARG, "second segment");
    RVT_OK(gex_EP_BindSegment(e1, s1, 0)); /* the same segment again: a no-op */
    RVT_CHECK(gex_EP_QuerySegment(e1) == s1, "the first binding stays");
    gex_System_SetVerboseErrors(1);
    /* s1 also serves e2; s2 goes unbound */
    RVT_OK(gex_EP_BindSegment(e2, s1, 0));
    gex_Segment_Destroy(s2, 0);
    gex_EP_t both[2] = { e1, e2 };
    RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, both, 2, 0));
    gex_Rank_t t = (rvt_me + 1) % rvt_n;
    uint64_t *mine = gex_Segment_QueryAddr(s1);
    for (unsigned k = 1; k <= 2; k++) {
        void *o;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(rvt_ep, k), t, &o, NULL, NULL, 0));
        uint64_t v = seed_of(rvt_me, t, k, 0);
        RVT_OK(gex_RMA_PutBlocking(gex_TM_Pair(k == 1 ? e1 : e2, k), t, (uint64_t *)o + k, &v,
                                   8, 0));
    }
    rvt_barrier();
    gex_Rank_t w = (rvt_me + rvt_n - 1) % rvt_n;
    for (unsigned k = 1; k <= 2; k++)
        RVT_CHECK(mine[k] == seed_of(w, rvt_me, k, 0), "word %u written through index %u", k, k);
    rvt_barrier();
    gex_EP_Destroy(e1, 0);
    RVT_CHECK(gex_EP_QuerySegment(e2) == s1, "s1 stays bound to e2");
    gex_Segment_Destroy(s1, 0);
    RVT_CHECK(gex_EP_QuerySegment(e2) == GEX_SEGMENT_INVALID, "destroy unbinds e2");
    gex_EP_Destroy(e2, 0);
    rvt_barrier();
}

/* ---- error cases ---------------------------------------------------------------------- */

/* Every rank sets the case up (collective steps included); then rank 0 alone makes the bad
 * call, to the last rank, while the others wait in a barrier it never reaches. */
static void err(const char *c)
{
    gex_Segment_t s1, s2;
    gex_EP_t e1, e2;
    RVT_OK(gex_Segment_Create(&s1, rvt_client, NULL, 8 * CH, GEX_MK_HOST, 0));
    RVT_OK(gex_Segment_Create(&s2, rvt_client, NULL, 8 * CH, GEX_MK_HOST, 0));
    RVT_OK(gex_EP_Create(&e1, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    RVT_OK(gex_EP_Create(&e2, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
    gex_Rank_t t = rvt_n - 1;
    uint64_t buf[4] = { 0 };
    int published = !strcmp(c, "put_outside") || !strcmp(c, "get_outside") ||
                    !strcmp(c, "offset_outside");
    if (published || !strcmp(c, "unpublished")) RVT_OK(gex_EP_BindSegment(e1, s1, 0));
    if (published) RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &e1, 1, 0));
    if (rvt_me != 0) {
        rvt_barrier();
        RVT_FAIL("case %s: the bad call did not end the job", c);
    }
    if (!strcmp(c, "bind_dead_ep")) {
        gex_EP_Destroy(e2, 0);
        gex_EP_BindSegment(e2, s1, 0);
    } else if (!strcmp(c, "unpublished")) {
        gex_RMA_PutBlocking(gex_TM_Pair(rvt_ep, 1), t, gex_Segment_QueryAddr(s1), buf, 8, 0);
    } else if (published) {
        void *o;
        uintptr_t sz;
        gex_Event_Wait(gex_EP_QueryBoundSegmentNB(gex_TM_Pair(e1, 1), t, &o, NULL, &sz, 0));
        char *end = (char *)o + sz;
        printf("core_multiep: segment of EP 1 of rank %u: [%p, %p)\n", (unsigned)t, o,
               (void *)end);
        fflush(stdout);
        if (c[0] == 'p') gex_RMA_PutNBI(gex_TM_Pair(e1, 1), t, end - 4, buf, 8, GEX_EVENT_NOW, 0);
        else if (c[0] == 'g') gex_RMA_GetBlocking(gex_TM_Pair(rvt_ep, 1), buf, t, end, 8, 0);
        else gex_RMA_PutBlocking(gex_TM_Pair(rvt_ep, 1), t, (void *)(sz - 4), buf, 8,
                                 GEX_FLAG_PEER_SEG_OFFSET);
    } else if (!strcmp(c, "am_pair")) {
        gex_AM_RequestShort0(gex_TM_Pair(rvt_ep, 1), t, GEX_AM_INDEX_BASE, 0);
    } else if (!strcmp(c, "am_local")) {
        gex_AM_RequestShort0(gex_TM_Pair(e1, 0), t, GEX_AM_INDEX_BASE, 0);
    } else if (!strcmp(c, "am_max_pair")) {
        (void)gex_AM_MaxRequestLong(gex_TM_Pair(rvt_ep, 1), t, GEX_EVENT_NOW, 0, 0);
    } else if (!strcmp(c, "vis_pair")) {
        gex_Memvec_t v = { buf, 8 };
        gex_VIS_VectorPutBlocking(gex_TM_Pair(rvt_ep, 1), t, 1, &v, 1, &v, 0);
    } else if (!strcmp(c, "pair_index")) {
        gex_TM_Pair(rvt_ep, GASNET_MAXEPS);
    } else if (!strcmp(c, "destroy_primordial_seg")) {
        RVT_OK(gex_EP_BindSegment(rvt_ep, s1, 0));
        gex_Segment_Destroy(s1, 0);
    } else if (!strcmp(c, "destroy_primordial_ep")) {
        gex_EP_Destroy(rvt_ep, 0);
    } else if (!strcmp(c, "attach_after_bind")) {
        RVT_OK(gex_EP_BindSegment(rvt_ep, s1, 0));
        gex_Segment_Attach(&s2, rvt_tm, 4 * CH);
    } else if (!strcmp(c, "publish_pair")) {
        gex_EP_PublishBoundSegment(gex_TM_Pair(rvt_ep, 1), &e1, 1, 0);
    } else if (!strcmp(c, "publish_dup")) {
        gex_EP_t two[2] = { e1, e1 };
        gex_EP_PublishBoundSegment(rvt_tm, two, 2, 0);
    } else {
        RVT_FAIL("unknown case %s", c);
    }
    RVT_FAIL("case %s: the bad call returned", c);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int attach = !strcmp(mode, "multi");
    rvt_init(&argc, &argv, attach ? 16 * CH : 0);
    if (!strcmp(mode, "primordial") && argc == 3) {
        RVT_CHECK(!strcmp(argv[2], "gasnet") || !strcmp(argv[2], "client"), "gasnet or client");
        primordial(!strcmp(argv[2], "client"));
    } else if (attach) {
        multi();
    } else if (!strcmp(mode, "bindargs")) {
        bindargs();
    } else if (!strcmp(mode, "err") && argc == 3) {
        err(argv[2]);
    } else {
        RVT_FAIL("usage: core_multiep primordial gasnet|client | multi | bindargs | err <case>");
    }
    return rvt_done("core_multiep");
}
