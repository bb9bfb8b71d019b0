/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_immediate.c: GEX_FLAG_IMMEDIATE on the reference (AM) path. Rank 1 stops
 * polling: it spins on a word of its own segment that rank 0 later sets with a plain store
 * through its shared-memory mapping of that segment (gex_Segment_QueryBound's local address);
 * it announces each stop the same way, so rank 0 knows it is no longer polling.
 *
 * Stop 1: rank 0 fills what the reference path needs (its message space at rank 1) with
 * IMMEDIATE PutNBIs until even a 1-byte one is refused, then checks that every RMA call given
 * GEX_FLAG_IMMEDIATE returns "no op" (GEX_EVENT_NO_OP for NB, non-zero for NBI and Blocking)
 * without blocking (a blocked call would hang: rank 1 never polls), leaves nothing counted in
 * the NBI categories, and never delivers data, not even later. After the release, ordinary
 * and IMMEDIATE operations work again.
 * Stops 2..6: a Put larger than that space is only partly accepted (the rest waits for room):
 * its local completion must then be reported as pending (GEX_EC_LC, the lc event, the leaf of
 * an access region), except with GEX_EVENT_NOW, which must still return at once and locally
 * complete. The rest is delivered once rank 1 polls again; the source is overwritten and
 * freed right after local completion, and the data must arrive intact.
 *
 * Rank 1's segment: [0, 64) control words, [64 KiB, +64 KiB) targets after the release,
 * [1 MiB, +1 MiB) probe area the no-op Puts aim at (must keep rank 1's pattern),
 * [2 MiB, +512 KiB) get source, [4 MiB, +8 MiB) fill area, [16 MiB, +20 MiB) the partly
 * accepted Puts. */
#include "rma_test.h"

#include <sched.h>

#define SEG_BYTES (40 * RMAT_MIB)
#define OFF_CTL ((size_t)0) /* u64 [0] stop released, [1] mode (1 run, 2 skip), [2] fill bytes,
                               [3] stop rank 1 is in (not polling) */
#define OFF_AFTER (64 * RMAT_KIB)
#define OFF_PROBE (RMAT_MIB)
#define OFF_GSRC (2 * RMAT_MIB)
#define OFF_FILL (4 * RMAT_MIB)
#define FILL_MAX (8 * RMAT_MIB)
#define BIG ((size_t)300000) /* more than one reference-path chunk */
#define PROBE_PAT 0x1000      /* pattern offsets of rank 1's probe and get-source areas */
#define GSRC_PAT 0x2000
#define OFF_PART (16 * RMAT_MIB)
#define PART (4 * RMAT_MIB)   /* larger than rank 1's message space for rank 0 */
#define NSTOPS 6
#define PART_PAT(s) ((size_t)(s) * 4099)

static volatile uint64_t *ctl1; /* rank 0's view of rank 1's control words */

static void wait_stopped(uint64_t stop)
{
    while (__atomic_load_n(&ctl1[3], __ATOMIC_ACQUIRE) < stop) sched_yield();
}

/* A plain store into rank 1's segment through our mapping of it. */
static void release(uint64_t stop) { __atomic_store_n(&ctl1[0], stop, __ATOMIC_RELEASE); }

static uint8_t *myseg;

static void scribble_free(uint8_t *src)
{
    memset(src, 0xEE, PART);
    free(src);
}

/* Stops 2..6: one Put of PART bytes while rank 1 does not poll. On an empty message space its
 * first chunk fits and, unless that space holds PART bytes, the rest has to wait. */
static int partial_expected = -1;

static void partial_put(uint8_t *r1, int stop)
{
    const gex_Flags_t IMM = GEX_FLAG_IMMEDIATE;
    uint8_t *src = rmat_xmalloc(PART), *dst = r1 + OFF_PART + (size_t)(stop - 2) * PART;
    memcpy(src, rmat_pat(PART_PAT(stop), PART), PART);
    rmat_set_ctx("stop %d: IMMEDIATE Put of %zu bytes to a rank that does not poll", stop, (size_t)PART);
    gex_Event_t e, lc = GEX_EVENT_NO_OP, region, leaf;
    switch (stop) {
    case 2: /* PutNBI(GROUP): pending local completion shows in GEX_EC_LC */
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, dst, src, PART, GEX_EVENT_GROUP, IMM) == 0,
                  "%s: PutNBI refused with rank 1's message space empty", rmat_ctx);
        partial_expected = gex_NBI_Test(GEX_EC_LC, 0) != GASNET_OK;
        if (!partial_expected)
            printf("rma_immediate: note: rank 1 took all %zu bytes at once; the checks of partly "
                   "accepted Puts only check the data\n", (size_t)PART);
        RVT_CHECK(gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK, "%s: GEX_EC_PUT ready", rmat_ctx);
        release((uint64_t)stop);
        gex_NBI_Wait(GEX_EC_LC, 0);
        scribble_free(src);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        break;
    case 3: /* the same in an access region: the region's LC leaf */
        gex_NBI_BeginAccessRegion(0);
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, dst, src, PART, GEX_EVENT_GROUP, IMM) == 0,
                  "%s: PutNBI refused with rank 1's message space empty", rmat_ctx);
        region = gex_NBI_EndAccessRegion(0);
        leaf = gex_Event_QueryLeaf(region, GEX_EC_LC);
        RVT_CHECK(gex_NBI_Test(GEX_EC_LC, 0) == GASNET_OK,
                  "%s: a Put inside an access region counted in the thread's GEX_EC_LC", rmat_ctx);
        if (partial_expected)
            RVT_CHECK(leaf != GEX_EVENT_INVALID && gex_Event_Test(leaf) != GASNET_OK,
                      "%s: gex_Event_QueryLeaf(region, GEX_EC_LC) says locally complete", rmat_ctx);
        RVT_CHECK(gex_Event_Test(region) != GASNET_OK, "%s: region event complete", rmat_ctx);
        release((uint64_t)stop);
        gex_Event_Wait(leaf);
        scribble_free(src);
        gex_Event_Wait(region);
        break;
    case 4: /* PutNB(&lc) */
        e = gex_RMA_PutNB(rvt_tm, 1, dst, src, PART, &lc, IMM);
        RVT_CHECK(e != GEX_EVENT_NO_OP, "%s: PutNB refused with rank 1's message space empty", rmat_ctx);
        RVT_CHECK(lc != GEX_EVENT_NO_OP, "%s: lc event not written", rmat_ctx);
        if (partial_expected) {
            RVT_CHECK(lc != GEX_EVENT_INVALID && gex_Event_Test(lc) != GASNET_OK,
                      "%s: the lc event says locally complete", rmat_ctx);
            RVT_CHECK(gex_Event_QueryLeaf(e, GEX_EC_LC) == lc,
                      "%s: gex_Event_QueryLeaf(root, GEX_EC_LC) is not the lc event", rmat_ctx);
        }
        RVT_CHECK(gex_Event_Test(e) != GASNET_OK, "%s: root event complete", rmat_ctx);
        release((uint64_t)stop);
        gex_Event_Wait(lc);
        scribble_free(src);
        gex_Event_Wait(e);
        break;
    case 5: /* PutNB(NOW): returns at once, locally complete */
        e = gex_RMA_PutNB(rvt_tm, 1, dst, src, PART, GEX_EVENT_NOW, IMM);
        RVT_CHECK(e != GEX_EVENT_NO_OP, "%s: PutNB refused with rank 1's message space empty", rmat_ctx);
        scribble_free(src);
        RVT_CHECK(gex_Event_Test(e) != GASNET_OK, "%s: root event complete", rmat_ctx);
        release((uint64_t)stop);
        gex_Event_Wait(e);
        break;
    case 6: /* PutNBI(NOW) */
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, dst, src, PART, GEX_EVENT_NOW, IMM) == 0,
                  "%s: PutNBI refused with rank 1's message space empty", rmat_ctx);
        scribble_free(src);
        RVT_CHECK(gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK, "%s: GEX_EC_PUT ready", rmat_ctx);
        release((uint64_t)stop);
        gex_NBI_Wait(GEX_EC_ALL, 0);
        break;
    }
}

static void rank0(void)
{
    void *local1 = NULL;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, 1, NULL, &local1, NULL));
    uint8_t *r1 = (uint8_t *)rvt_seg_addr(1, 0);
    uint64_t mode = local1 ? 1 : 2;
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, 1, r1 + OFF_CTL + 8, mode, 8, 0));
    rvt_barrier(); /* rank 1 stops polling after this */
    if (!local1) {
        printf("rma_immediate: SKIPPED: rank 1's segment is not mapped here, so rank 0 cannot "
               "release it without a message\n");
        for (int stop = 1; stop <= NSTOPS; stop++) rvt_barrier();
        return;
    }

    ctl1 = (volatile uint64_t *)local1;
    wait_stopped(1);

    /* Fill: IMMEDIATE PutNBIs, largest first, until even one byte is refused. */
    const gex_Flags_t IMM = GEX_FLAG_IMMEDIATE;
    size_t filled = 0, nfill = 0;
    for (size_t sz = 64 * RMAT_KIB; sz >= 1; sz /= 2) {
        for (;;) {
            RVT_CHECK(filled + sz <= FILL_MAX, "the reference path accepted %zu bytes in %zu "
                      "IMMEDIATE Puts to a rank that does not poll and never said no", filled, nfill);
            if (gex_RMA_PutNBI(rvt_tm, 1, r1 + OFF_FILL + filled, rmat_pat(filled, sz), sz,
                               GEX_EVENT_DEFER, IMM))
                break;
            filled += sz;
            nfill++;
        }
    }
    printf("rma_immediate: rank 1 stopped accepting after %zu IMMEDIATE Puts (%zu bytes)\n", nfill,
           filled);
    fflush(stdout);
    RVT_CHECK(gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK,
              "gex_NBI_Test(GEX_EC_PUT) ready while rank 1 has not polled");

    /* Every call is now a "no op". */
    uint8_t *probe = r1 + OFF_PROBE, *gsrc = r1 + OFF_GSRC;
    const uint8_t *src = rmat_pat(0, BIG);
    gex_Event_t lc = GEX_EVENT_INVALID;
    static const size_t szs[2] = {8, BIG};
    for (int b = 0; b < 2; b++) {
        size_t n = szs[b], o = (size_t)b * (BIG + 64);
        gex_Event_t e;
        e = gex_RMA_PutNB(rvt_tm, 1, probe + o, src, n, GEX_EVENT_NOW, IMM);
        RVT_CHECK(e == GEX_EVENT_NO_OP, "gex_RMA_PutNB(%zu bytes, NOW, IMMEDIATE) did not return GEX_EVENT_NO_OP", n);
        e = gex_RMA_PutNB(rvt_tm, 1, probe + o + 1, src, n, GEX_EVENT_DEFER, IMM);
        RVT_CHECK(e == GEX_EVENT_NO_OP, "gex_RMA_PutNB(%zu bytes, DEFER, IMMEDIATE) did not return GEX_EVENT_NO_OP", n);
        e = gex_RMA_PutNB(rvt_tm, 1, probe + o + 2, src, n, &lc, IMM);
        RVT_CHECK(e == GEX_EVENT_NO_OP, "gex_RMA_PutNB(%zu bytes, &lc, IMMEDIATE) did not return GEX_EVENT_NO_OP", n);
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, probe + o + 3, src, n, GEX_EVENT_GROUP, IMM) != 0,
                  "gex_RMA_PutNBI(%zu bytes, GROUP, IMMEDIATE) returned 0", n);
        RVT_CHECK(gex_NBI_Test(GEX_EC_LC, 0) == GASNET_OK,
                  "a refused PutNBI(GEX_EVENT_GROUP) is counted in GEX_EC_LC");
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, probe + o + 4, src, n, GEX_EVENT_NOW, IMM) != 0,
                  "gex_RMA_PutNBI(%zu bytes, NOW, IMMEDIATE) returned 0", n);
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, 1, probe + o + 5, src, n, GEX_EVENT_DEFER, IMM) != 0,
                  "gex_RMA_PutNBI(%zu bytes, DEFER, IMMEDIATE) returned 0", n);
        RVT_CHECK(gex_RMA_PutBlocking(rvt_tm, 1, probe + o + 6, src, n, IMM) != 0,
                  "gex_RMA_PutBlocking(%zu bytes, IMMEDIATE) returned 0", n);
    }
    RVT_CHECK(gex_RMA_PutNBVal(rvt_tm, 1, probe + 2 * (BIG + 64), 0x1122334455667788ull, 8, IMM) ==
                  GEX_EVENT_NO_OP, "gex_RMA_PutNBVal(IMMEDIATE) did not return GEX_EVENT_NO_OP");
    RVT_CHECK(gex_RMA_PutNBIVal(rvt_tm, 1, probe + 2 * (BIG + 64) + 16, 0x11223344, 4, IMM) != 0,
              "gex_RMA_PutNBIVal(IMMEDIATE) returned 0");
    RVT_CHECK(gex_RMA_PutBlockingVal(rvt_tm, 1, probe + 2 * (BIG + 64) + 32, 0x55, 1, IMM) != 0,
              "gex_RMA_PutBlockingVal(IMMEDIATE) returned 0");

    uint8_t *dst = rmat_xmalloc(BIG);
    memset(dst, 0xCC, BIG);
    for (int b = 0; b < 2; b++) {
        size_t n = szs[b];
        RVT_CHECK(gex_RMA_GetNB(rvt_tm, dst, 1, gsrc + 1, n, IMM) == GEX_EVENT_NO_OP,
                  "gex_RMA_GetNB(%zu bytes, IMMEDIATE) did not return GEX_EVENT_NO_OP", n);
        RVT_CHECK(gex_RMA_GetNBI(rvt_tm, dst, 1, gsrc + 2, n, IMM) != 0,
                  "gex_RMA_GetNBI(%zu bytes, IMMEDIATE) returned 0", n);
        RVT_CHECK(gex_NBI_Test(GEX_EC_GET, 0) == GASNET_OK, "a refused GetNBI is counted in GEX_EC_GET");
        RVT_CHECK(gex_RMA_GetBlocking(rvt_tm, dst, 1, gsrc + 3, n, IMM) != 0,
                  "gex_RMA_GetBlocking(%zu bytes, IMMEDIATE) returned 0", n);
    }
    rmat_set_ctx("local buffer of refused IMMEDIATE Gets");
    rmat_expect_fill(dst, 0xCC, BIG, "a refused Get wrote its destination");
    RVT_CHECK(gex_NBI_Test(GEX_EC_PUT, 0) != GASNET_OK,
              "gex_NBI_Test(GEX_EC_PUT) ready while rank 1 has not polled");

    release(1);
    gex_NBI_Wait(GEX_EC_ALL, 0);

    /* Normal operation again: ordinary calls, and IMMEDIATE ones once rank 1 has drained. */
    uint8_t *after = r1 + OFF_AFTER;
    RVT_OK(gex_RMA_PutBlocking(rvt_tm, 1, after, rmat_pat(100, 1000), 1000, 0));
    gex_Event_t e = GEX_EVENT_NO_OP;
    for (long tries = 0; e == GEX_EVENT_NO_OP; tries++) {
        RVT_CHECK(tries < 100000000L, "IMMEDIATE PutNB still refused after rank 1 resumed polling");
        e = gex_RMA_PutNB(rvt_tm, 1, after + 2048, rmat_pat(200, BIG / 8), BIG / 8, GEX_EVENT_NOW, IMM);
        if (e == GEX_EVENT_NO_OP) gasnet_AMPoll();
    }
    gex_Event_Wait(e);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, dst, 1, gsrc + 5, BIG, 0));
    rmat_set_ctx("GetBlocking of %zu bytes after the release", BIG);
    rmat_expect_bytes(dst, rmat_pat(GSRC_PAT + 5, BIG), BIG, "data that was fetched");
    memset(dst, 0xCC, BIG);
    e = GEX_EVENT_NO_OP;
    for (long tries = 0; e == GEX_EVENT_NO_OP; tries++) {
        RVT_CHECK(tries < 100000000L, "IMMEDIATE GetNB still refused after rank 1 resumed polling");
        e = gex_RMA_GetNB(rvt_tm, dst, 1, gsrc + 7, 4096, IMM);
        if (e == GEX_EVENT_NO_OP) gasnet_AMPoll();
    }
    gex_Event_Wait(e);
    rmat_set_ctx("IMMEDIATE GetNB after the release");
    rmat_expect_bytes(dst, rmat_pat(GSRC_PAT + 7, 4096), 4096, "data that was fetched");
    rmat_expect_fill(dst + 4096, 0xCC, BIG - 4096, "bytes after the fetched data");
    free(dst);
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, 1, r1 + OFF_CTL + 16, (gex_RMA_Value_t)filled, 8, 0));
    rvt_barrier();

    for (uint64_t stop = 2; stop <= NSTOPS; stop++) {
        wait_stopped(stop);
        partial_put(r1, (int)stop);
        rvt_barrier();
    }
}

static void rank1(void)
{
    memcpy(myseg + OFF_PROBE, rmat_pat(PROBE_PAT, RMAT_MIB), RMAT_MIB);
    memcpy(myseg + OFF_GSRC, rmat_pat(GSRC_PAT, 512 * RMAT_KIB), 512 * RMAT_KIB);
    volatile uint64_t *ctl = (volatile uint64_t *)(void *)(myseg + OFF_CTL);
    rvt_barrier();
    if (ctl[1] != 1) { /* rank 0 cannot release us: skipped */
        for (int stop = 1; stop <= NSTOPS; stop++) rvt_barrier();
        return;
    }
    for (uint64_t stop = 1; stop <= NSTOPS; stop++) {
        /* No polling from here until rank 0's store. */
        __atomic_store_n(&ctl[3], stop, __ATOMIC_RELEASE);
        while (__atomic_load_n(&ctl[0], __ATOMIC_ACQUIRE) < stop) sched_yield();
        rvt_barrier();
    }
}

static void rank1_verify(void)
{
    const uint64_t *ctl = (const uint64_t *)(void *)(myseg + OFF_CTL);
    if (ctl[1] != 1) return;
    size_t filled = (size_t)ctl[2];
    rmat_set_ctx("rank 1 after the test");
    rmat_expect_bytes(myseg + OFF_PROBE, rmat_pat(PROBE_PAT, RMAT_MIB), RMAT_MIB,
                      "probe area (a refused IMMEDIATE Put delivered data)");
    rmat_expect_bytes(myseg + OFF_FILL, rmat_pat(0, filled), filled, "data of the accepted Puts");
    rmat_expect_bytes(myseg + OFF_AFTER, rmat_pat(100, 1000), 1000, "PutBlocking after the release");
    rmat_expect_bytes(myseg + OFF_AFTER + 2048, rmat_pat(200, BIG / 8), BIG / 8,
                      "IMMEDIATE PutNB after the release");
    for (int stop = 2; stop <= NSTOPS; stop++) {
        rmat_set_ctx("rank 1 after stop %d", stop);
        rmat_expect_bytes(myseg + OFF_PART + (size_t)(stop - 2) * PART,
                          rmat_pat(PART_PAT(stop), PART), PART, "data of the partly accepted Put");
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    if (rvt_n < 2 || !rmat_ref_mode()) {
        if (rvt_me == 0)
            printf("rma_immediate: SKIPPED: needs 2 or more ranks and RIVET_RMA=ref (the direct "
                   "path never needs resources)\n");
        return rvt_done("rma_immediate");
    }
    rmat_master_init(FILL_MAX + 2 * RMAT_MIB);
    myseg = rmat_my_seg();
    if (rvt_me == 0) rank0();
    else if (rvt_me == 1) rank1();
    else
        for (int b = 0; b <= NSTOPS; b++) rvt_barrier();
    rvt_barrier();
    if (rvt_me == 1) rank1_verify();
    return rvt_done("rma_immediate");
}
