/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_lc.c: local completion of Puts. Once local completion is signalled, the source
 * is overwritten (and, outside the segment, freed) at once, usually long before the Put is
 * complete; what arrives must still be the original data. Covers GEX_EVENT_NOW (NB, NBI,
 * Blocking), an lc event pointer synced with gex_Event_Wait, gex_Event_Test or found with
 * gex_Event_QueryLeaf(root, GEX_EC_LC), GEX_EVENT_DEFER completed by the root event or by
 * gex_NBI_Wait(GEX_EC_PUT), GEX_EVENT_GROUP synced with gex_NBI_Test/Wait(GEX_EC_LC), and both
 * inside an access region. Every rank targets every rank, itself included.
 *
 * Segment layout: [0, AREA) landing area (one source per round), [AREA, 2 AREA) put sources
 * inside the segment. Sources outside the segment are malloc'd per operation. */
#include "rma_test.h"

#define AREA (6 * RMAT_MIB)
#define SEG_BYTES (16 * RMAT_MIB)
#define OFF_LAND ((size_t)0)
#define OFF_LOCAL (AREA)
#define GUARD ((size_t)32)
#define SCRIBBLE 0xEE

/* The largest is several reference-path chunks. */
static const size_t sizes[] = {8, 4 * RMAT_KIB + 3, 64 * RMAT_KIB + 5, 5 * RMAT_MIB + 7};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static size_t slot_off[NSIZES], slot_len[NSIZES];

enum {
    M_BLOCKING,       /* gex_RMA_PutBlocking */
    M_NB_NOW,         /* PutNB(GEX_EVENT_NOW) */
    M_NBI_NOW,        /* PutNBI(GEX_EVENT_NOW) */
    M_NB_LEAF_WAIT,   /* PutNB(&lc), gex_Event_Wait(lc) */
    M_NB_LEAF_TEST,   /* PutNB(&lc), gex_Event_Test(lc) + gasnet_AMPoll */
    M_NB_QUERYLEAF,   /* PutNB(&lc), gex_Event_QueryLeaf(root, GEX_EC_LC) */
    M_NB_DEFER,       /* PutNB(GEX_EVENT_DEFER): source free only after the root */
    M_NBI_DEFER,      /* PutNBI(GEX_EVENT_DEFER): source free after gex_NBI_Wait(GEX_EC_PUT) */
    M_NBI_GROUP_WAIT, /* PutNBI(GEX_EVENT_GROUP), gex_NBI_Wait(GEX_EC_LC) */
    M_NBI_GROUP_TEST, /* PutNBI(GEX_EVENT_GROUP), gex_NBI_Test(GEX_EC_LC) + gasnet_AMPoll */
    M_REGION_DEFER,   /* access region of PutNBI(GEX_EVENT_DEFER): free after the region event */
    M_REGION_GROUP,   /* access region of PutNBI(GEX_EVENT_GROUP): QueryLeaf(region, GEX_EC_LC) */
    NMODES
};
static const char *const mode_name[NMODES] = {
    "PutBlocking", "PutNB(NOW)", "PutNBI(NOW)", "PutNB(&lc)+Event_Wait(lc)",
    "PutNB(&lc)+Event_Test(lc)", "PutNB(&lc)+QueryLeaf(root,LC)", "PutNB(DEFER)",
    "PutNBI(DEFER)", "PutNBI(GROUP)+NBI_Wait(LC)", "PutNBI(GROUP)+NBI_Test(LC)",
    "region{PutNBI(DEFER)}", "region{PutNBI(GROUP)}+QueryLeaf(region,LC)"};

static uint8_t *myseg;

/* One source buffer: in the segment (kind 0) or freshly malloc'd (kind 1). */
typedef struct {
    uint8_t *src;   /* what the Put was given */
    uint8_t *alloc; /* malloc'd block (kind 1) or NULL */
    int      live;
} src_t;
static src_t srcs[NSIZES];

static int kind_of(int mode, size_t j) { return (int)((j + (size_t)mode) % 2); }
static size_t src_off(int mode, size_t j) { return (j * 3 + (size_t)mode) % 8; }
static size_t dst_off(int mode, size_t j) { return (j * 5 + (size_t)mode + 3) % 8; }
static size_t start_of(gex_Rank_t from, int mode, size_t j)
{
    return (size_t)(rmat_mix(from, (uint64_t)mode, j, 1) % RMAT_MIB);
}

static const uint8_t *make_src(int mode, size_t j)
{
    size_t n = sizes[j], off = src_off(mode, j);
    const uint8_t *want = rmat_pat(start_of(rvt_me, mode, j), n);
    src_t *s = &srcs[j];
    if (kind_of(mode, j) == 0) {
        s->alloc = NULL;
        s->src = myseg + OFF_LOCAL + slot_off[j] + GUARD + off;
    } else {
        s->alloc = rmat_xmalloc(n + 8);
        s->src = s->alloc + off;
    }
    memcpy(s->src, want, n);
    s->live = 1;
    return s->src;
}

/* Local completion has been signalled: the buffer is the client's again. */
static void reuse_src(size_t j)
{
    src_t *s = &srcs[j];
    if (!s->live) return;
    memset(s->src, SCRIBBLE, sizes[j]);
    free(s->alloc);
    s->alloc = NULL;
    s->live = 0;
}

static void reuse_all(void)
{
    for (size_t j = 0; j < NSIZES; j++) reuse_src(j);
}

static void run_mode(gex_Rank_t k, int mode)
{
    gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n), from = (gex_Rank_t)((rvt_me + rvt_n - k) % rvt_n);
    uint8_t *rland = (uint8_t *)rvt_seg_addr(t, OFF_LAND);
    gex_Event_t ev[NSIZES], region = GEX_EVENT_INVALID;
    for (size_t j = 0; j < NSIZES; j++) ev[j] = GEX_EVENT_INVALID;

    if (mode == M_REGION_DEFER || mode == M_REGION_GROUP) gex_NBI_BeginAccessRegion(0);
    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j];
        const uint8_t *src = make_src(mode, j);
        void *dst = rland + slot_off[j] + GUARD + dst_off(mode, j);
        rmat_set_ctx("%s of %zu bytes to rank %u, source %s", mode_name[mode], n, (unsigned)t,
                     kind_of(mode, j) ? "in malloc memory" : "in the segment");
        gex_Event_t lc = GEX_EVENT_NO_OP; /* must be overwritten by the call */
        int rc = 0;
        switch (mode) {
        case M_BLOCKING:
            rc = gex_RMA_PutBlocking(rvt_tm, t, dst, src, n, 0);
            reuse_src(j);
            break;
        case M_NB_NOW:
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, GEX_EVENT_NOW, 0);
            reuse_src(j);
            break;
        case M_NBI_NOW:
            rc = gex_RMA_PutNBI(rvt_tm, t, dst, src, n, GEX_EVENT_NOW, 0);
            reuse_src(j);
            break;
        case M_NB_LEAF_WAIT:
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, &lc, 0);
            RVT_CHECK(lc != GEX_EVENT_NO_OP, "%s: lc event not written", rmat_ctx);
            gex_Event_Wait(lc);
            reuse_src(j);
            break;
        case M_NB_LEAF_TEST:
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, &lc, 0);
            RVT_CHECK(lc != GEX_EVENT_NO_OP, "%s: lc event not written", rmat_ctx);
            while (gex_Event_Test(lc) != GASNET_OK) gasnet_AMPoll();
            reuse_src(j);
            break;
        case M_NB_QUERYLEAF: {
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, &lc, 0);
            RVT_CHECK(lc != GEX_EVENT_NO_OP, "%s: lc event not written", rmat_ctx);
            gex_Event_t leaf = gex_Event_QueryLeaf(ev[j], GEX_EC_LC);
            gex_Event_t again = gex_Event_QueryLeaf(ev[j], GEX_EC_LC);
            RVT_CHECK(leaf != GEX_EVENT_NO_OP && again != GEX_EVENT_NO_OP,
                      "%s: gex_Event_QueryLeaf returned GEX_EVENT_NO_OP", rmat_ctx);
            /* A query creates nothing: it is the lc event itself, or INVALID once it happened. */
            RVT_CHECK(leaf == GEX_EVENT_INVALID || leaf == lc,
                      "%s: gex_Event_QueryLeaf(root, GEX_EC_LC) is neither the lc event nor INVALID",
                      rmat_ctx);
            RVT_CHECK(leaf == GEX_EVENT_INVALID || again == GEX_EVENT_INVALID || leaf == again,
                      "%s: two gex_Event_QueryLeaf calls returned different events", rmat_ctx);
            gex_Event_Wait(leaf); /* INVALID: already locally complete */
            reuse_src(j);
            break;
        }
        case M_NB_DEFER:
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, GEX_EVENT_DEFER, 0);
            break;
        case M_NBI_DEFER:
        case M_REGION_DEFER:
            rc = gex_RMA_PutNBI(rvt_tm, t, dst, src, n, GEX_EVENT_DEFER, 0);
            break;
        case M_NBI_GROUP_WAIT:
        case M_NBI_GROUP_TEST:
        case M_REGION_GROUP:
            rc = gex_RMA_PutNBI(rvt_tm, t, dst, src, n, GEX_EVENT_GROUP, 0);
            break;
        }
        RVT_CHECK(rc == 0, "%s returned %d", rmat_ctx, rc);
        RVT_CHECK(ev[j] != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP without IMMEDIATE", rmat_ctx);
    }
    rmat_set_ctx("%s to rank %u", mode_name[mode], (unsigned)t);

    switch (mode) {
    case M_NB_DEFER:
        /* DEFER: local completion may come as late as the root's. */
        gex_Event_WaitAll(ev, NSIZES, 0);
        reuse_all();
        break;
    case M_NBI_DEFER:
        gex_NBI_Wait(GEX_EC_PUT, 0);
        reuse_all();
        break;
    case M_NBI_GROUP_WAIT:
        gex_NBI_Wait(GEX_EC_LC, 0);
        reuse_all();
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case M_NBI_GROUP_TEST:
        while (gex_NBI_Test(GEX_EC_LC, 0) != GASNET_OK) gasnet_AMPoll();
        reuse_all();
        while (gex_NBI_Test(GEX_EC_PUT | GEX_EC_LC, 0) != GASNET_OK) gasnet_AMPoll();
        break;
    case M_REGION_DEFER:
        region = gex_NBI_EndAccessRegion(0);
        RVT_CHECK(region != GEX_EVENT_NO_OP, "%s: region event is GEX_EVENT_NO_OP", rmat_ctx);
        gex_Event_Wait(region);
        reuse_all();
        break;
    case M_REGION_GROUP: {
        region = gex_NBI_EndAccessRegion(0);
        RVT_CHECK(region != GEX_EVENT_NO_OP, "%s: region event is GEX_EVENT_NO_OP", rmat_ctx);
        /* The region's operations are tracked by its event, not by the thread's NBI set. */
        RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK,
                  "%s: operations of a closed access region counted in gex_NBI_Test", rmat_ctx);
        gex_Event_t leaf = gex_Event_QueryLeaf(region, GEX_EC_LC);
        RVT_CHECK(leaf != GEX_EVENT_NO_OP, "%s: gex_Event_QueryLeaf returned GEX_EVENT_NO_OP", rmat_ctx);
        gex_Event_Wait(leaf);
        reuse_all();
        gex_Event_Wait(region);
        break;
    }
    default:
        gex_Event_WaitAll(ev, NSIZES, 0);
        break;
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    for (size_t j = 0; j < NSIZES; j++) RVT_CHECK(!srcs[j].live, "source %zu not reused", j);
    rvt_barrier();

    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j], doff = dst_off(mode, j);
        rmat_set_ctx("%s of %zu bytes from rank %u, source %s", mode_name[mode], n,
                     (unsigned)from, kind_of(mode, j) ? "in malloc memory" : "in the segment");
        uint8_t *slot = myseg + OFF_LAND + slot_off[j];
        rmat_expect_fill(slot, 0, GUARD + doff, "bytes before the transfer were written");
        rmat_expect_bytes(slot + GUARD + doff, rmat_pat(start_of(from, mode, j), n), n,
                          "data that arrived (a changed byte means the source was read after "
                          "local completion)");
        rmat_expect_fill(slot + GUARD + doff + n, 0, slot_len[j] - GUARD - doff - n,
                         "bytes after the transfer were written");
        memset(slot, 0, slot_len[j]);
    }
    rvt_barrier();
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    rmat_slots(sizes, NSIZES, GUARD, AREA, slot_off, slot_len);
    rmat_master_init(AREA + RMAT_MIB);
    myseg = rmat_my_seg();
    rvt_barrier();

    for (gex_Rank_t k = 0; k < rvt_n; k++)
        for (int mode = 0; mode < NMODES; mode++) run_mode(k, mode);
    return rvt_done("rma_lc");
}
