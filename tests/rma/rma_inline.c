/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_inline.c: the inline fast paths of gasnetex.h / gasnet_ratomic.h (blocking
 * Put/Get and the Val forms to a mapped peer, gex_AD_Op{NB,NBI}_<DT> on CPU atomics, gex_Event_Wait of
 * GEX_EVENT_INVALID). This program defines the library's entry points itself, counting each
 * call and handing it on (rv_count.h): a call the inline path completes never reaches
 * them. Checks: the data and fetched values are right for constant and run-time sizes and
 * opcodes; mapped peers take no library call (RIVET_RMA=ref: every Put/Get does); flags, an
 * unmapped case and the first Event_Wait of a thread still go to the library. (A blocking
 * Put/Get that is a copy does not poll, as in GASNet-EX: docs/completion.md.) */
#define _GNU_SOURCE 1
#include "rv_count.h"
#include <gasnet_ratomic.h>

static long n_put, n_get, n_nb, n_nbi, n_wait;
RVT_COUNT(gex_RMA_PutBlocking, n_put)
RVT_COUNT(gex_RMA_GetBlocking, n_get)
RVT_COUNT(gex_AD_OpNB_U64, n_nb)
RVT_COUNT(gex_AD_OpNBI_I32, n_nbi)
RVT_COUNT(gex_Event_Wait, n_wait)
static long n_getv, n_putv, n_putnbv, n_putnbiv;
RVT_COUNT(gex_RMA_GetBlockingVal, n_getv)
RVT_COUNT(gex_RMA_PutBlockingVal, n_putv)
RVT_COUNT(gex_RMA_PutNBVal, n_putnbv)
RVT_COUNT(gex_RMA_PutNBIVal, n_putnbiv)

static volatile size_t v_eight = 8, v_three = 3;
static volatile gex_OP_t v_fadd = GEX_OP_FADD, v_fmult = GEX_OP_FMULT, v_add = GEX_OP_ADD;

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 20);
    gex_AD_t ad64, ad32;
    gex_AD_Create(&ad64, rvt_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_ADD | GEX_OP_FMULT | GEX_OP_SWAP |
                  GEX_OP_FCAS | GEX_OP_GET | GEX_OP_SET | GEX_OP_FXOR, 0);
    gex_AD_Create(&ad32, rvt_tm, GEX_DT_I32, GEX_OP_ADD | GEX_OP_FINC | GEX_OP_DEC, 0);
    const char *rma = getenv("RIVET_RMA");
    int ref = rma && !strcmp(rma, "ref");
    gex_Rank_t peer = (rvt_me + 1) % rvt_n, left = (rvt_me + rvt_n - 1) % rvt_n;
    char *mine = rvt_seg_addr(rvt_me, 0), *theirs = rvt_seg_addr(peer, 0);
    rvt_barrier();

    /* Put/Get of 1..136 bytes into the right neighbour's segment, slot 8192 + 160 * n (zero
     * before) */
    long puts = 0, gets = 0;
    uint8_t src[136], back[144];
    /* every size the inline copy treats apart: words, 8/16-byte pieces, memcpy from 65 */
    for (size_t n = 1; n <= 136; n++) {
        rvt_fill(src, n, n * 31 + rvt_me);
        gex_RMA_PutBlocking(rvt_tm, peer, theirs + 8192 + 160 * n, src, n, 0);
        memset(back, 0, sizeof back);
        gex_RMA_GetBlocking(rvt_tm, back, peer, theirs + 8192 + 160 * n, n, 0);
        RVT_CHECK(!memcmp(back, src, n), "%zu-byte put/get round trip differs", n);
        gex_RMA_GetBlocking(rvt_tm, back, peer, theirs + 8192 + 160 * n, n + 8, 0);
        for (size_t i = n; i < n + 8; i++)
            RVT_CHECK(back[i] == 0, "%zu-byte put wrote byte %zu past its end", n, i - n);
        puts++, gets += 2;
    }
    uint64_t w = 0x0123456789abcdefull + rvt_me, r = 0;
    gex_RMA_PutBlocking(rvt_tm, peer, theirs + 8, &w, 8, 0);
    gex_RMA_GetBlocking(rvt_tm, &r, peer, theirs + 8, v_eight, 0);
    RVT_CHECK(r == w, "8-byte get returned 0x%" PRIx64 ", expected 0x%" PRIx64, r, w);
    gex_RMA_PutBlocking(rvt_tm, peer, theirs + 17, &w, v_three, 0); /* unaligned, odd size */
    puts += 2, gets++;
    long lib_puts = n_put, lib_gets = n_get;
    /* a flag sends even a mapped peer's Put/Get to the library */
    gex_RMA_PutBlocking(rvt_tm, peer, (void *)(uintptr_t)8, &w, 8, GEX_FLAG_PEER_SEG_OFFSET);
    gex_RMA_GetBlocking(rvt_tm, &r, peer, (void *)(uintptr_t)8, 8, GEX_FLAG_PEER_SEG_OFFSET);
    RVT_CHECK(r == w, "PEER_SEG_OFFSET get returned 0x%" PRIx64, r);
    RVT_CHECK(n_put == lib_puts + 1 && n_get == lib_gets + 1,
              "flagged Put/Get: %ld/%ld library calls, expected 1/1", n_put - lib_puts,
              n_get - lib_gets);
    if (ref)
        RVT_CHECK(lib_puts == puts && lib_gets == gets,
                  "RIVET_RMA=ref: %ld of %ld puts, %ld of %ld gets reached the library", lib_puts,
                  puts, lib_gets, gets);
    else
        RVT_CHECK(lib_puts == 0 && lib_gets == 0,
                  "mapped peer: %ld puts and %ld gets reached the library (expected none)",
                  lib_puts, lib_gets);
    rvt_barrier();
    uint64_t got;
    memcpy(&got, mine + 8, 8);
    RVT_CHECK(got == 0x0123456789abcdefull + left, "word from rank %u is 0x%" PRIx64, left, got);

    /* Val forms: 1..8 bytes at offsets 0..7 of the neighbour's 16-byte slots from 65536 (zero
     * before), run-time sizes, the Put form taking turns; the value's low-order nbytes land
     * in host order, nothing round them changes, GetBlockingVal returns them */
    long vals = 0, vgets = 0;
    for (size_t n = 1; n <= 8; n++) {
        for (size_t off = 0; off < 8; off++) {
            size_t k = 8 * (n - 1) + off;
            char *slot = theirs + 65536 + 16 * k;
            gex_RMA_Value_t v = 0xf1e2d3c4b5a69788ull * (k + 1) + rvt_me;
            gex_RMA_Value_t low = n == 8 ? v : v & ((1ull << (8 * n)) - 1);
            size_t vn = n == 8 ? v_eight : n; /* not a constant */
            if (k % 3 == 0) {
                RVT_CHECK(gex_RMA_PutBlockingVal(rvt_tm, peer, slot + off, v, vn, 0) == 0,
                          "PutBlockingVal failed");
            } else if (k % 3 == 1) {
                gex_Event_t ev = gex_RMA_PutNBVal(rvt_tm, peer, slot + off, v, vn, 0);
                if (!ref)
                    RVT_CHECK(ev == GEX_EVENT_INVALID, "mapped PutNBVal returned an event");
                gex_Event_Wait(ev);
            } else {
                RVT_CHECK(gex_RMA_PutNBIVal(rvt_tm, peer, slot + off, v, vn, 0) == 0,
                          "PutNBIVal failed");
                gex_NBI_Wait(GEX_EC_PUT, 0);
            }
            uint8_t raw[16];
            gex_RMA_GetBlocking(rvt_tm, raw, peer, slot, 16, 0);
            gex_RMA_Value_t got = gex_RMA_GetBlockingVal(rvt_tm, peer, slot + off, vn, 0);
            RVT_CHECK(got == low, "%zu-byte Val at offset %zu: got 0x%" PRIx64 ", put 0x%" PRIx64,
                      n, off, (uint64_t)got, (uint64_t)low);
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
            const char *lowp = (const char *)&v + sizeof v - n;
#else
            const char *lowp = (const char *)&v;
#endif
            RVT_CHECK(!memcmp(raw + off, lowp, n), "%zu-byte Val put at offset %zu: bytes not "
                      "the value's low-order ones in host order", n, off);
            for (size_t i = 0; i < 16; i++)
                RVT_CHECK(i - off < n || raw[i] == 0, "%zu-byte Val put at offset %zu wrote "
                          "byte %zu", n, off, i);
            vals++, vgets++;
        }
    }
    /* constant sizes (one load or store of the word) */
    gex_RMA_PutBlockingVal(rvt_tm, peer, theirs + 66560, 0xa5a5a5a5deadbeefull, 4, 0);
    gex_RMA_PutNBIVal(rvt_tm, peer, theirs + 66568, 0x0102030405060708ull, 8, 0);
    gex_Event_Wait(gex_RMA_PutNBVal(rvt_tm, peer, theirs + 66577, 0x1277, 1, 0));
    RVT_CHECK(gex_RMA_GetBlockingVal(rvt_tm, peer, theirs + 66560, 4, 0) == 0xdeadbeefull &&
                  gex_RMA_GetBlockingVal(rvt_tm, peer, theirs + 66568, 8, 0) ==
                      0x0102030405060708ull &&
                  gex_RMA_GetBlockingVal(rvt_tm, peer, theirs + 66577, 1, 0) == 0x77,
              "constant-size Val round trip differs");
    vals += 3, vgets += 3;
    long lib_v = n_putv + n_putnbv + n_putnbiv, lib_vg = n_getv;
    if (ref)
        RVT_CHECK(lib_v == vals && lib_vg == vgets, "RIVET_RMA=ref: %ld of %ld Val puts, %ld "
                  "of %ld Val gets reached the library", lib_v, vals, lib_vg, vgets);
    else
        RVT_CHECK(lib_v == 0 && lib_vg == 0, "mapped peer: %ld Val puts and %ld Val gets "
                  "reached the library (expected none)", lib_v, lib_vg);
    /* a flag sends each form to the library */
    gex_RMA_PutBlockingVal(rvt_tm, peer, (void *)(uintptr_t)66560, 1, 4, GEX_FLAG_PEER_SEG_OFFSET);
    gex_Event_Wait(gex_RMA_PutNBVal(rvt_tm, peer, (void *)(uintptr_t)66564, 2, 4,
                                    GEX_FLAG_PEER_SEG_OFFSET));
    gex_RMA_PutNBIVal(rvt_tm, peer, (void *)(uintptr_t)66568, 3, 4, GEX_FLAG_PEER_SEG_OFFSET);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    RVT_CHECK(gex_RMA_GetBlockingVal(rvt_tm, peer, (void *)(uintptr_t)66564, 4,
                                     GEX_FLAG_PEER_SEG_OFFSET) == 2 &&
                  gex_RMA_GetBlockingVal(rvt_tm, peer, theirs + 66560, 4, 0) == 1 &&
                  gex_RMA_GetBlockingVal(rvt_tm, peer, theirs + 66568, 4, 0) == 3,
              "flagged Val round trip differs");
    RVT_CHECK(n_putv + n_putnbv + n_putnbiv == lib_v + 3 && n_getv == lib_vg + 1 + 2 * ref,
              "flagged Val forms: %ld puts, %ld gets reached the library, expected 3, 1",
              n_putv + n_putnbv + n_putnbiv - lib_v, n_getv - lib_vg);

    /* atomics on the right neighbour's words 4096.. (only this rank touches them) */
    uint64_t *t = (uint64_t *)(void *)(theirs + 4096), res = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, NULL, peer, t, GEX_OP_SET, 10, 0, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_FADD, 5, 0, 0));
    RVT_CHECK(res == 10, "FADD fetched %" PRIu64 ", expected 10", res);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, v_fadd, 7, 0, 0));
    RVT_CHECK(res == 15, "run-time FADD fetched %" PRIu64 ", expected 15", res);
    gex_AD_OpNBI_U64(ad64, NULL, peer, t, v_add, 3, 0, 0);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, v_fmult, 2, 0, 0));
    RVT_CHECK(res == 25, "run-time FMULT fetched %" PRIu64 ", expected 25", res);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_SWAP, 99, 0, 0));
    RVT_CHECK(res == 50, "SWAP fetched %" PRIu64 ", expected 50", res);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_FCAS, 98, 1, 0));
    RVT_CHECK(res == 99, "failing FCAS fetched %" PRIu64 ", expected 99", res);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_FCAS, 99, 1, 0));
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_FXOR, 3, 0, 0));
    RVT_CHECK(res == 1, "FXOR after a CAS to 1 fetched %" PRIu64, res);
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(res == 2, "GET fetched %" PRIu64 ", expected 2", res);
    int32_t *t32 = (int32_t *)(void *)(theirs + 4160), r32 = 0;
    gex_AD_OpNBI_I32(ad32, NULL, peer, t32, GEX_OP_ADD, -5, 0, 0);
    gex_AD_OpNBI_I32(ad32, &r32, peer, t32, GEX_OP_FINC, 0, 0, 0);
    RVT_CHECK(r32 == -5, "I32 FINC fetched %d, expected -5", (int)r32);
    gex_AD_OpNBI_I32(ad32, NULL, peer, t32, GEX_OP_DEC, 0, 0, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    RVT_CHECK(n_nb == 0 && n_nbi == 0, "mapped CPU-atomic ops reached the library (%ld NB, %ld "
              "NBI)", n_nb, n_nbi);
    /* flags send an op to the library */
    gex_Event_Wait(gex_AD_OpNB_U64(ad64, &res, peer, t, GEX_OP_GET, 0, 0, GEX_FLAG_AD_ACQ));
    RVT_CHECK(res == 2 && n_nb == 1, "GEX_FLAG_AD_ACQ GET: %" PRIu64 ", %ld library calls", res,
              n_nb);
    /* the first wait on this thread went to the library, later INVALID waits do not */
    long waits = n_wait;
    for (int i = 0; i < 100; i++) gex_Event_Wait(GEX_EVENT_INVALID);
    RVT_CHECK(n_wait == waits, "%ld of 100 waits on GEX_EVENT_INVALID reached the library",
              n_wait - waits);
    rvt_barrier();
    RVT_CHECK(*(uint64_t *)(void *)(mine + 4096) == 2 && *(int32_t *)(void *)(mine + 4160) == -5,
              "atomics from rank %u left %" PRIu64 " and %d", left,
              *(uint64_t *)(void *)(mine + 4096), (int)*(int32_t *)(void *)(mine + 4160));

    gex_AD_Destroy(ad64);
    gex_AD_Destroy(ad32);
    return rvt_done("rma_inline");
}
