/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_early_team.c: teams and TM-pairs made before the segment they reach exists.
 * "attach": gex_TM_Split (an identity copy of the primordial team and a reversed one) and
 * gex_TM_Pair(ep, 0) before gex_Segment_Attach. "publish": the same, and a second endpoint's
 * gex_TM_Pair(ep, 1), before gex_EP_BindSegment / gex_EP_PublishBoundSegment of segments made
 * by gex_Segment_Create. Afterwards every identity team and TM-pair must hold the flat table
 * gasnetex.h's inline Put/Get index (rma_flat, read through the header's mirror struct; NULL
 * before), as one made after the segment does; the reversed team keeps the jobrank lookup.
 * Blocking, NB and NBI Put/Get through each reach no library entry point (the program defines
 * them, counting each call and handing it on: rv_count.h) and move the right bytes.
 * RIVET_RMA=ref: no table anywhere, and every call reaches the library. "threads": as
 * "publish", while a second thread makes TM-pairs to every endpoint index (the library lists
 * those whose table does not exist yet, and the publish's table creation walks that list: under
 * TSan a walk that skipped the list's lock is a reported race); afterwards the pairs to indices
 * 0 and 1 hold their table, the others none. */
#define _GNU_SOURCE 1
#include "rv_count.h"
#include <pthread.h>

static long n_lib; /* library Put/Get entry points reached */
RVT_COUNT(gex_RMA_PutBlocking, n_lib)
RVT_COUNT(gex_RMA_GetBlocking, n_lib)
RVT_COUNT(gex_RMA_PutNBI, n_lib)
RVT_COUNT(gex_RMA_GetNB, n_lib)

static const void *flat_of(gex_TM_t tm)
{
    return __atomic_load_n(&((const struct _rivet_tm_head *)(const void *)tm)->rma_flat,
                           __ATOMIC_ACQUIRE);
}

#define SLOT 256 /* each team's bytes in the target segment */
#define NB 64    /* the blocking Put/Get size */
static volatile size_t v_nb = NB, v_8 = 8;

/* Put NB bytes (blocking) and 8 (NBI) into the next jobrank's segment through tm at slot k,
 * and Get them back (blocking, NB). base: that rank's segment base as it sees it. */
static void put_get(gex_TM_t tm, int k, void *base)
{
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    gex_Rank_t r = gex_TM_TranslateJobrankToRank(tm, peer);
    RVT_CHECK(r != GEX_RANK_INVALID, "team %d: jobrank %u is not a member", k, (unsigned)peer);
    char *slot = (char *)base + SLOT * k;
    uint8_t src[NB], back[NB];
    rvt_fill(src, NB, 100 * k + rvt_me);
    RVT_OK(gex_RMA_PutBlocking(tm, r, slot, src, v_nb, 0));
    memset(back, 0, sizeof back);
    RVT_OK(gex_RMA_GetBlocking(tm, back, r, slot, v_nb, 0));
    RVT_VERIFY(back, NB, 100 * k + rvt_me, "blocking put/get round trip");
    uint64_t w = 0x0123456789abcdefull ^ ((uint64_t)k << 40) ^ rvt_me, g = 0;
    gex_RMA_PutNBI(tm, r, slot + NB, &w, v_8, GEX_EVENT_NOW, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gex_Event_Wait(gex_RMA_GetNB(tm, &g, r, slot + NB, v_8, 0));
    RVT_CHECK(g == w, "team %d: NBI put / NB get returned 0x%llx, expected 0x%llx", k,
              (unsigned long long)g, (unsigned long long)w);
}

/* What the previous jobrank put into my segment (mine) at slot k. */
static void check_mine(const char *mine, int k)
{
    gex_Rank_t from = (rvt_me + rvt_n - 1) % rvt_n;
    char what[64];
    snprintf(what, sizeof what, "team %d: bytes from rank %u", k, (unsigned)from);
    RVT_VERIFY(mine + SLOT * k, NB, 100 * k + from, what);
    uint64_t w;
    memcpy(&w, mine + SLOT * k + NB, 8);
    RVT_CHECK(w == (0x0123456789abcdefull ^ ((uint64_t)k << 40) ^ from), "team %d: word from "
              "rank %u is 0x%llx", k, (unsigned)from, (unsigned long long)w);
}

#define NPAIRS (GASNET_MAXEPS < 8 ? GASNET_MAXEPS : 8)
static gex_TM_t pairs[NPAIRS];

static void *make_pairs(void *arg)
{
    (void)arg;
    for (int round = 0; round < 200; round++)
        for (int i = NPAIRS - 1; i >= 0; i--) {
            gex_TM_t p = gex_TM_Pair(rvt_ep, (gex_EP_Index_t)i);
            RVT_CHECK(!round ? (pairs[i] = p) != NULL : p == pairs[i], "gex_TM_Pair(ep, %d)", i);
        }
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0); /* no segment yet */
    RVT_CHECK(argc > 1 && (!strcmp(argv[1], "attach") || !strcmp(argv[1], "publish") ||
                           !strcmp(argv[1], "threads")),
              "usage: rma_early_team attach|publish|threads");
    const int threads = !strcmp(argv[1], "threads"), publish = threads || !strcmp(argv[1], "publish");
    const char *rma = getenv("RIVET_RMA");
    const int fast = !(rma && !strcmp(rma, "ref"));

    /* before any segment */
    enum { SAME, REV, PAIR0, TM0, PAIR1, AFTER, NTEAMS };
    gex_TM_t tm[NTEAMS] = {0};
    gex_TM_Split(&tm[SAME], rvt_tm, 0, (int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_TM_Split(&tm[REV], rvt_tm, 0, -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    tm[PAIR0] = gex_TM_Pair(rvt_ep, 0);
    tm[TM0] = rvt_tm;
    gex_EP_t ep1 = GEX_EP_INVALID;
    if (publish) {
        RVT_OK(gex_EP_Create(&ep1, rvt_client, GEX_EP_CAPABILITY_RMA, 0));
        tm[PAIR1] = gex_TM_Pair(rvt_ep, gex_EP_QueryIndex(ep1));
    }
    for (int k = 0; k < NTEAMS; k++)
        RVT_CHECK(!tm[k] || !flat_of(tm[k]), "team %d has a flat table before the segment", k);

    pthread_t helper;
    if (threads) RVT_CHECK(!pthread_create(&helper, NULL, make_pairs, NULL), "pthread_create");
    uintptr_t size = 4 * GASNET_PAGESIZE;
    gex_Segment_t seg1 = GEX_SEGMENT_INVALID;
    if (publish) {
        RVT_OK(gex_Segment_Create(&rvt_seg, rvt_client, NULL, size, GEX_MK_HOST, 0));
        RVT_OK(gex_EP_BindSegment(rvt_ep, rvt_seg, 0));
        RVT_OK(gex_Segment_Create(&seg1, rvt_client, NULL, size, GEX_MK_HOST, 0));
        RVT_OK(gex_EP_BindSegment(ep1, seg1, 0));
        RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &rvt_ep, 1, 0));
        RVT_OK(gex_EP_PublishBoundSegment(rvt_tm, &ep1, 1, 0));
    } else {
        RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, size));
    }
    gex_TM_Split(&tm[AFTER], rvt_tm, 0, (int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    if (threads) {
        RVT_CHECK(!pthread_join(helper, NULL), "pthread_join");
        for (int i = 0; i < NPAIRS; i++)
            RVT_CHECK(!flat_of(pairs[i]) == !(fast && i <= 1), "gex_TM_Pair(ep, %d): flat table "
                      "%p", i, flat_of(pairs[i]));
    }
    for (int k = 0; k < NTEAMS; k++) {
        if (!tm[k]) continue;
        if (fast && (k != REV || rvt_n == 1)) /* on one rank, reversed is the identity */
            RVT_CHECK(flat_of(tm[k]) != NULL, "team %d: no flat table after the segment", k);
        else
            RVT_CHECK(!flat_of(tm[k]), "team %d: a flat table (RIVET_RMA=%s)", k,
                      rma ? rma : "");
    }
    char *mine = gex_Segment_QueryAddr(rvt_seg);
    memset(mine, 0, size);
    if (publish) memset(gex_Segment_QueryAddr(seg1), 0, size);
    rvt_barrier();

    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    void *base0 = rvt_seg_addr(peer, 0), *base1 = NULL;
    if (publish) RVT_OK(gex_Segment_QueryBound(tm[PAIR1], peer, &base1, NULL, NULL));
    long lib0 = n_lib, ops = 0;
    for (int k = 0; k < NTEAMS; k++) {
        if (!tm[k]) continue;
        put_get(tm[k], k, k == PAIR1 ? base1 : base0);
        ops += 4;
    }
    RVT_CHECK(n_lib - lib0 == (fast ? 0 : ops), "%ld of %ld Put/Get calls reached the library "
              "(expected %ld)", n_lib - lib0, ops, fast ? 0 : ops);
    rvt_barrier();
    for (int k = 0; k < NTEAMS; k++) {
        if (!tm[k]) continue;
        check_mine(k == PAIR1 ? gex_Segment_QueryAddr(seg1) : mine, k);
    }
    rvt_barrier();
    gex_TM_Destroy(tm[AFTER], NULL, 0);
    gex_TM_Destroy(tm[REV], NULL, 0);
    gex_TM_Destroy(tm[SAME], NULL, 0);
    return rvt_done(threads   ? "rma_early_team threads"
                    : publish ? "rma_early_team publish"
                              : "rma_early_team attach");
}
