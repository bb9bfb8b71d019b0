/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_val.c: the value forms (gex_RMA_PutBlockingVal, PutNBVal, PutNBIVal,
 * GetBlockingVal) for every size 1..8, the non-powers of two included, at every alignment, to
 * every rank including itself. A Put of nbytes stores the low-order nbytes of the value in
 * native byte order (exactly what storing it as an nbytes-wide integer would) and nothing
 * beyond them; a Get returns the nbytes-wide native integer found there, zero-extended. Typed
 * checks (uint16/32/64, negative int32) show the same thing from the client's side.
 *
 * Segment layout: [0, 8 KiB) landing slots (one source per round), [64 KiB, +4 KiB) get source
 * (pattern), [72 KiB, +64) typed values written by the owner, [80 KiB, +64) typed landing. */
#include "rma_test.h"

#define SEG_BYTES (256 * RMAT_KIB)
#define OFF_LAND ((size_t)0)
#define OFF_GSRC (64 * RMAT_KIB)
#define OFF_TYPED (72 * RMAT_KIB)
#define OFF_TLAND (80 * RMAT_KIB)
#define SLOT ((size_t)32)
#define GUARD ((size_t)8)

enum { C_BLOCKING, C_NB, C_NBI, NCALLS };
static const char *const call_name[NCALLS] = {"gex_RMA_PutBlockingVal", "gex_RMA_PutNBVal",
                                              "gex_RMA_PutNBIVal"};
static uint8_t *myseg;

static size_t slot_of(int call, size_t n, size_t off)
{
    return OFF_LAND + (((size_t)call * 8 + (n - 1)) * 8 + off) * SLOT;
}

/* A value with no zero byte (a dropped byte always shows), different per operation. */
static gex_RMA_Value_t value_of(gex_Rank_t src, int call, size_t n, size_t off)
{
    uint64_t v = rmat_mix(src, (uint64_t)call, n, off);
    for (int b = 0; b < 8; b++)
        if (!((v >> (8 * b)) & 0xff)) v |= (uint64_t)0x5A << (8 * b);
    return (gex_RMA_Value_t)v;
}

static void put_round(gex_Rank_t k)
{
    gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n), from = (gex_Rank_t)((rvt_me + rvt_n - k) % rvt_n);
    uint8_t *rseg = (uint8_t *)rvt_seg_addr(t, 0);
    gex_Event_t ev[8 * 8];
    size_t nev = 0;
    for (int call = 0; call < NCALLS; call++) {
        for (size_t n = 1; n <= 8; n++) {
            for (size_t off = 0; off < 8; off++) {
                void *dst = rseg + slot_of(call, n, off) + GUARD + off;
                gex_RMA_Value_t v = value_of(rvt_me, call, n, off);
                rmat_set_ctx("%s of %zu bytes to rank %u at offset %zu", call_name[call], n,
                             (unsigned)t, off);
                if (call == C_BLOCKING) {
                    RVT_CHECK(gex_RMA_PutBlockingVal(rvt_tm, t, dst, v, n, 0) == 0, "%s failed", rmat_ctx);
                } else if (call == C_NBI) {
                    RVT_CHECK(gex_RMA_PutNBIVal(rvt_tm, t, dst, v, n, 0) == 0, "%s failed", rmat_ctx);
                } else {
                    ev[nev] = gex_RMA_PutNBVal(rvt_tm, t, dst, v, n, 0);
                    RVT_CHECK(ev[nev] != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP", rmat_ctx);
                    nev++;
                }
            }
        }
    }
    gex_Event_WaitAll(ev, nev, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);

    /* Typed: what a client storing an integer of that width expects to find. */
    uint8_t *tl = rseg + OFF_TLAND;
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, t, tl + 0, (gex_RMA_Value_t)0xFEDCBA9876543210ull, 1, 0));
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, t, tl + 2, (gex_RMA_Value_t)0xFEDCBA9876543210ull, 2, 0));
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, t, tl + 4, (gex_RMA_Value_t)0xFEDCBA9876543210ull, 4, 0));
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, t, tl + 8, (gex_RMA_Value_t)0xFEDCBA9876543210ull, 8, 0));
    RVT_OK(gex_RMA_PutBlockingVal(rvt_tm, t, tl + 16, (gex_RMA_Value_t)(uint32_t)(int32_t)-5, 4, 0));
    gex_Event_Wait(gex_RMA_PutNBVal(rvt_tm, t, tl + 24, (gex_RMA_Value_t)(uint16_t)0xBEEF, 2, 0));
    RVT_OK(gex_RMA_PutNBIVal(rvt_tm, t, tl + 32, (gex_RMA_Value_t)0x0102030405060708ull, 8, 0));
    gex_NBI_Wait(GEX_EC_ALL, 0);
    rvt_barrier();

    for (int call = 0; call < NCALLS; call++) {
        for (size_t n = 1; n <= 8; n++) {
            for (size_t off = 0; off < 8; off++) {
                uint8_t *slot = myseg + slot_of(call, n, off), want[8];
                rmat_set_ctx("%s of %zu bytes from rank %u at offset %zu", call_name[call], n,
                             (unsigned)from, off);
                rmat_native_store(value_of(from, call, n, off), n, want);
                rmat_expect_fill(slot, 0, GUARD + off, "bytes before the value were written");
                rmat_expect_bytes(slot + GUARD + off, want, n,
                                  "stored bytes (low-order nbytes of the value, native order)");
                rmat_expect_fill(slot + GUARD + off + n, 0, SLOT - GUARD - off - n,
                                 "bytes after the value were written");
                memset(slot, 0, SLOT);
            }
        }
    }
    uint8_t *tm = myseg + OFF_TLAND;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    int32_t i32;
    rmat_set_ctx("typed Puts from rank %u", (unsigned)from);
    RVT_CHECK(tm[0] == 0x10, "%s: 1-byte Put stored 0x%02x, expected 0x10", rmat_ctx, tm[0]);
    memcpy(&u16, tm + 2, 2);
    RVT_CHECK(u16 == 0x3210, "%s: 2-byte Put stored 0x%04x, expected 0x3210", rmat_ctx, u16);
    memcpy(&u32, tm + 4, 4);
    RVT_CHECK(u32 == 0x76543210u, "%s: 4-byte Put stored 0x%08x, expected 0x76543210", rmat_ctx, u32);
    memcpy(&u64, tm + 8, 8);
    RVT_CHECK(u64 == 0xFEDCBA9876543210ull, "%s: 8-byte Put stored 0x%016" PRIx64, rmat_ctx, u64);
    memcpy(&i32, tm + 16, 4);
    RVT_CHECK(i32 == -5, "%s: 4-byte Put of -5 stored %d", rmat_ctx, i32);
    memcpy(&u16, tm + 24, 2);
    RVT_CHECK(u16 == 0xBEEF, "%s: PutNBVal of 2 bytes stored 0x%04x", rmat_ctx, u16);
    memcpy(&u64, tm + 32, 8);
    RVT_CHECK(u64 == 0x0102030405060708ull, "%s: PutNBIVal of 8 bytes stored 0x%016" PRIx64,
              rmat_ctx, u64);
    rmat_expect_fill(tm + 1, 0, 1, "byte after the 1-byte Put");
    rmat_expect_fill(tm + 20, 0, 4, "bytes after the 4-byte Put of -5");
    rmat_expect_fill(tm + 26, 0, 6, "bytes after the 2-byte PutNBVal");
    memset(tm, 0, 64);
    rvt_barrier();
}

static void get_round(gex_Rank_t k)
{
    gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n);
    uint8_t *gsrc = (uint8_t *)rvt_seg_addr(t, OFF_GSRC);
    const uint8_t *pat = rmat_pat((size_t)t * 97, 4 * RMAT_KIB);
    for (size_t n = 1; n <= 8; n++) {
        for (size_t off = 0; off < 8; off++) {
            size_t at = 64 * n + off;
            gex_RMA_Value_t v = gex_RMA_GetBlockingVal(rvt_tm, t, gsrc + at, n, 0);
            gex_RMA_Value_t want = rmat_native_load(pat + at, n);
            RVT_CHECK(v == want, "gex_RMA_GetBlockingVal of %zu bytes from rank %u at offset %zu: "
                      "0x%016" PRIx64 ", expected 0x%016" PRIx64, n, (unsigned)t, off, (uint64_t)v,
                      (uint64_t)want);
        }
    }
    uint8_t *typed = (uint8_t *)rvt_seg_addr(t, OFF_TYPED);
    gex_RMA_Value_t v;
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 0, 1, 0);
    RVT_CHECK(v == 0xA7, "GetBlockingVal of a uint8_t 0xA7 returned 0x%" PRIx64, (uint64_t)v);
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 2, 2, 0);
    RVT_CHECK(v == 0xA1B2, "GetBlockingVal of a uint16_t 0xA1B2 returned 0x%" PRIx64, (uint64_t)v);
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 4, 4, 0);
    RVT_CHECK(v == 0xC3D4E5F6u, "GetBlockingVal of a uint32_t 0xC3D4E5F6 returned 0x%" PRIx64,
              (uint64_t)v);
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 8, 8, 0);
    RVT_CHECK(v == 0x0123456789ABCDEFull, "GetBlockingVal of a uint64_t returned 0x%" PRIx64,
              (uint64_t)v);
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 16, 4, 0);
    RVT_CHECK((int32_t)(uint32_t)v == -5 && (v >> 32) == 0,
              "GetBlockingVal of an int32_t -5 returned 0x%016" PRIx64 " (want 0xfffffffb, zero-extended)",
              (uint64_t)v);
    static const uint8_t odd3[3] = {0x22, 0x33, 0x44}; /* typed[21..23], see main() */
    v = gex_RMA_GetBlockingVal(rvt_tm, t, typed + 21, 3, 0); /* unaligned odd size */
    RVT_CHECK(v == rmat_native_load(odd3, 3) && (v >> 24) == 0,
              "GetBlockingVal of 3 bytes returned 0x%016" PRIx64, (uint64_t)v);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    rmat_master_init(RMAT_MIB);
    myseg = rmat_my_seg();
    RVT_CHECK(slot_of(NCALLS - 1, 8, 7) + SLOT <= OFF_GSRC, "landing slots overlap the get source");
    memcpy(myseg + OFF_GSRC, rmat_pat((size_t)rvt_me * 97, 4 * RMAT_KIB), 4 * RMAT_KIB);
    uint8_t *typed = myseg + OFF_TYPED;
    uint16_t u16 = 0xA1B2;
    uint32_t u32 = 0xC3D4E5F6u;
    uint64_t u64 = 0x0123456789ABCDEFull;
    int32_t i32 = -5;
    typed[0] = 0xA7;
    memcpy(typed + 2, &u16, 2);
    memcpy(typed + 4, &u32, 4);
    memcpy(typed + 8, &u64, 8);
    memcpy(typed + 16, &i32, 4);
    typed[20] = 0x11, typed[21] = 0x22, typed[22] = 0x33, typed[23] = 0x44, typed[24] = 0x55;
    rvt_barrier();

    for (gex_Rank_t k = 0; k < rvt_n; k++) {
        put_round(k);
        get_round(k);
    }
    return rvt_done("rma_val");
}
