/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_immediate.c: GEX_FLAG_IMMEDIATE on the AM mechanism (run with RIVET_VIS=ref on
 * one host, 2 ranks). Rank 1 stops polling: it spins on a word of its own segment that rank 0
 * sets with a plain store through its shared-memory mapping, after announcing the stop the same
 * way in rank 0's segment.
 *
 * Stop 1: rank 0 fills its message space at rank 1 with small IMMEDIATE StridedPutNBs until one
 * is refused, then every VIS family and form given IMMEDIATE must return "no op" at once
 * (GEX_EVENT_NO_OP, or non-zero) without counting anything in the NBI set; the refused Puts
 * must never write (checked after the release), the accepted ones must.
 * Stops 2..4: an IMMEDIATE operation larger than that space is only partly accepted: it must
 * return at once with its completion (and a Put's local completion: the leaf event, or
 * GEX_EC_LC for NBI) pending; the rest goes out from progress once rank 1 polls again. The Put
 * source is scribbled right after local completion; the data must arrive intact. */
#include "rv_test.h"
#include <gasnet_vis.h>
#include <sched.h>

#define MIB ((size_t)1 << 20)
#define SEG (24 * MIB)
#define OFF_CTL 0             /* u64 [0] released stop (rank 1's), [1] stop entered (rank 0's) */
#define OFF_FILL (1 * MIB)    /* the small Puts: 8 bytes every 32 */
#define OFF_PROBE (4 * MIB)   /* where refused Puts aim: must keep its pattern */
#define OFF_BIG (8 * MIB)     /* the partly accepted operations */
#define BIG (4 * MIB)

static volatile uint64_t *peer_ctl; /* the other rank's control words, mapped here */
static volatile uint64_t *my_ctl;

static void wait_word(volatile uint64_t *w, uint64_t v)
{
    while (__atomic_load_n(w, __ATOMIC_ACQUIRE) < v) sched_yield();
}

static uint8_t pat(size_t i, unsigned salt) { return (uint8_t)(i * 31 + (i >> 9) + salt * 77); }

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG);
    if (rvt_n != 2) RVT_FAIL("vis_immediate needs exactly 2 ranks");
    gex_Rank_t peer = 1 - rvt_me;
    void *owner, *local;
    uintptr_t sz;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, peer, &owner, &local, &sz));
    if (!local) {
        if (rvt_me == 0) printf("vis_immediate: the peer's segment is not mapped here; skipped\n");
        return rvt_done("vis_immediate");
    }
    uint8_t *myseg = rvt_seg_addr(rvt_me, 0), *pseg = owner;
    peer_ctl = (volatile uint64_t *)local;
    my_ctl = (volatile uint64_t *)myseg;
    for (size_t i = 0; i < 64 * 1024; i++) myseg[OFF_PROBE + i] = pat(i, 9);
    rvt_barrier();

    if (rvt_me == 1) {
        for (uint64_t stop = 1; stop <= 4; stop++) {
            __atomic_store_n(&peer_ctl[1], stop, __ATOMIC_RELEASE); /* stopped: no polling */
            wait_word(&my_ctl[0], stop);
            rvt_barrier(); /* polls again until rank 0 is done with this stop */
        }
        return rvt_done("vis_immediate");
    }

    const gex_Flags_t IMM = GEX_FLAG_IMMEDIATE;
    ptrdiff_t st8[1] = {32};
    size_t one[1] = {1};
    uint64_t val = 0x1122334455667788ull;

    /* ---- stop 1: fill, then every form must refuse -------------------------------------- */
    wait_word(&my_ctl[1], 1);
    size_t cap = 65536, nfill = 0;
    gex_Event_t *fill = malloc(cap * sizeof *fill);
    for (;;) {
        RVT_CHECK(nfill < cap, "%zu small IMMEDIATE Puts accepted by a rank that does not poll", nfill);
        gex_Event_t e = gex_VIS_StridedPutNB(rvt_tm, 1, pseg + OFF_FILL + 32 * nfill, st8, &val, st8,
                                             8, one, 1, IMM);
        if (e == GEX_EVENT_NO_OP) break;
        fill[nfill++] = e;
    }
    RVT_CHECK(nfill > 0, "the first IMMEDIATE Put to an idle message space was refused");
    uint8_t src[16384]; /* covers the strided shape below (7376 bytes) */
    memset(src, 0x5A, sizeof src);
    uint8_t *probe = pseg + OFF_PROBE;
    gex_Memvec_t dv[2] = {{probe, 100}, {probe + 200, 28}}, sv[1] = {{src, 128}};
    void *di[4] = {probe, probe + 64, probe + 128, probe + 192}, *si[2] = {src, src + 256};
    ptrdiff_t s2[2] = {64, 1024};
    size_t c2[2] = {4, 8};
    RVT_CHECK(gex_VIS_StridedPutNB(rvt_tm, 1, probe, s2, src, s2, 16, c2, 2, IMM) == GEX_EVENT_NO_OP,
              "StridedPutNB not refused");
    RVT_CHECK(gex_VIS_StridedPutNBI(rvt_tm, 1, probe, s2, src, s2, 16, c2, 2,
                                    IMM | GEX_FLAG_ENABLE_LEAF_LC) != 0, "StridedPutNBI not refused");
    RVT_CHECK(gex_VIS_StridedPutBlocking(rvt_tm, 1, probe, s2, src, s2, 16, c2, 2, IMM) != 0,
              "StridedPutBlocking not refused");
    RVT_CHECK(gex_VIS_StridedGetNB(rvt_tm, src, s2, 1, probe, s2, 16, c2, 2, IMM) == GEX_EVENT_NO_OP,
              "StridedGetNB not refused");
    RVT_CHECK(gex_VIS_VectorPutNBI(rvt_tm, 1, 2, dv, 1, sv, IMM) != 0, "VectorPutNBI not refused");
    RVT_CHECK(gex_VIS_VectorGetBlocking(rvt_tm, 1, sv, 1, 2, dv, IMM) != 0,
              "VectorGetBlocking not refused");
    RVT_CHECK(gex_VIS_IndexedPutNB(rvt_tm, 1, 4, di, 32, 2, si, 64, IMM | GEX_FLAG_ENABLE_LEAF_LC) ==
                  GEX_EVENT_NO_OP, "IndexedPutNB not refused");
    RVT_CHECK(gex_VIS_IndexedGetNBI(rvt_tm, 2, si, 64, 1, 4, di, 32, IMM) != 0,
              "IndexedGetNBI not refused");
    RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK, "a refused NBI call left something counted");
    __atomic_store_n(&peer_ctl[0], 1, __ATOMIC_RELEASE);
    gex_Event_WaitAll(fill, nfill, 0);
    rvt_barrier();
    uint8_t *back = malloc(BIG);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, 1, pseg + OFF_FILL, 32 * nfill, 0));
    for (size_t i = 0; i < nfill; i++)
        RVT_CHECK(!memcmp(back + 32 * i, &val, 8), "accepted Put %zu of %zu did not arrive", i, nfill);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, 1, probe, 64 * 1024, 0));
    for (size_t i = 0; i < 64 * 1024; i++)
        RVT_CHECK(back[i] == pat(i, 9), "a refused Put wrote probe byte %zu", i);

    /* ---- stops 2..4: partly accepted operations ------------------------------------------ */
    uint8_t *big_src = malloc(BIG);
    for (uint64_t stop = 2; stop <= 4; stop++) {
        wait_word(&my_ctl[1], stop);
        uint8_t *dst = pseg + OFF_BIG;
        for (size_t i = 0; i < BIG; i++) big_src[i] = pat(i, (unsigned)stop);
        gex_Event_t e = GEX_EVENT_INVALID, lc = GEX_EVENT_INVALID;
        size_t n8 = BIG / 8;
        void **da = NULL, **sa = NULL;
        gex_Memvec_t bv[3];
        if (stop == 2) { /* Strided PutNB with a leaf: 2 KiB rows, reversed row order */
            ptrdiff_t ds[2] = {1, -2048}, ss[2] = {1, 2048};
            size_t cnt[2] = {2048, BIG / 2048};
            e = gex_VIS_StridedPutNB(rvt_tm, 1, dst + BIG - 2048, ds, big_src, ss, 1, cnt, 2,
                                     IMM | GEX_FLAG_ENABLE_LEAF_LC);
            RVT_CHECK(e != GEX_EVENT_NO_OP, "the first chunk was refused by an empty space");
            lc = gex_Event_QueryLeaf(e, GEX_EC_LC);
            RVT_CHECK(lc != GEX_EVENT_INVALID && gex_Event_Test(lc) != GASNET_OK,
                      "a partly accepted Put reports local completion");
            RVT_CHECK(gex_Event_Test(e) != GASNET_OK, "a partly accepted Put reports completion");
        } else if (stop == 3) { /* Vector PutNBI with GEX_EC_LC */
            bv[0].gex_addr = dst;
            bv[0].gex_len = BIG / 2;
            bv[1].gex_addr = dst + BIG / 2;
            bv[1].gex_len = BIG / 2;
            bv[2].gex_addr = big_src;
            bv[2].gex_len = BIG;
            RVT_CHECK(gex_VIS_VectorPutNBI(rvt_tm, 1, 2, bv, 1, bv + 2,
                                           IMM | GEX_FLAG_ENABLE_LEAF_LC) == 0,
                      "the first chunk was refused by an empty space");
            RVT_CHECK(gex_NBI_Test(GEX_EC_LC, 0) != GASNET_OK,
                      "a partly accepted NBI Put reports local completion");
        } else { /* Indexed GetNB of 8-byte entries: the metadata alone overflows the space */
            da = malloc(n8 * sizeof *da);
            sa = malloc(n8 * sizeof *sa);
            for (size_t i = 0; i < n8; i++) {
                da[i] = big_src + 8 * i;
                sa[i] = dst + 8 * (n8 - 1 - i);
            }
            e = gex_VIS_IndexedGetNB(rvt_tm, n8, da, 8, 1, n8, sa, 8, IMM);
            RVT_CHECK(e != GEX_EVENT_NO_OP, "the first chunk was refused by an empty space");
            RVT_CHECK(gex_Event_Test(e) != GASNET_OK, "a partly accepted Get reports completion");
        }
        __atomic_store_n(&peer_ctl[0], stop, __ATOMIC_RELEASE);
        if (stop == 2) {
            gex_Event_Wait(lc);
            memset(big_src, 0xEE, BIG);
            gex_Event_Wait(e);
        } else if (stop == 3) {
            gex_NBI_Wait(GEX_EC_LC, 0);
            memset(big_src, 0xEE, BIG);
            gex_NBI_Wait(GEX_EC_PUT, 0);
        } else {
            gex_Event_Wait(e);
        }
        rvt_barrier();
        if (stop < 4) {
            RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, 1, dst, BIG, 0));
            for (size_t i = 0; i < BIG; i++) {
                size_t from = stop == 2 ? (BIG / 2048 - 1 - i / 2048) * 2048 + i % 2048 : i;
                RVT_CHECK(back[i] == pat(from, (unsigned)stop), "stop %u: byte %zu is 0x%02x, "
                          "expected 0x%02x", (unsigned)stop, i, back[i], pat(from, (unsigned)stop));
            }
        } else { /* the Get read stop 3's data, 8-byte entries in reverse */
            for (size_t i = 0; i < BIG; i++) {
                size_t from = 8 * (n8 - 1 - i / 8) + i % 8;
                RVT_CHECK(big_src[i] == pat(from, 3), "stop 4: byte %zu is 0x%02x, expected 0x%02x",
                          i, big_src[i], pat(from, 3));
            }
        }
        free(da);
        free(sa);
    }
    free(big_src);
    free(back);
    free(fill);
    return rvt_done("vis_immediate");
}
