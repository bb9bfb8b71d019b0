/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_sizes.c: every contiguous RMA call (blocking, NB, NBI and the value forms) at
 * sizes 0 B .. 8 MiB, with unaligned source and destination, local buffers inside and outside
 * the segment, to every rank including itself. Every byte is checked, and so are the bytes
 * around each transfer, which must stay untouched.
 *
 * Segment layout, the same on every rank:
 *   [0, AREA)        landing area: puts from one source per round arrive here
 *   [AREA, 2 AREA)   get source: constant, filled by the owner before the first barrier
 *   [2 AREA, 3 AREA) local buffers inside the segment (put sources, get destinations)
 * Each area is cut into one slot per size; a slot holds GUARD zero bytes, the transfer at an
 * offset 0..7, and zero bytes after it. Round k: rank r targets r + k (mod n), so every rank
 * is the target of exactly one source per round and every pair (including self) is covered. */
#include "rma_test.h"

#define AREA (10 * RMAT_MIB)
#define SEG_BYTES (32 * RMAT_MIB)
#define OFF_LAND ((size_t)0)
#define OFF_GSRC (AREA)
#define OFF_LOCAL (2 * AREA)
#define GUARD ((size_t)32)

static const size_t sizes[] = {0, 1, 7, 8, 63, 4 * RMAT_KIB, 64 * RMAT_KIB, RMAT_MIB, 8 * RMAT_MIB};
#define NSIZES (sizeof sizes / sizeof sizes[0])
static size_t slot_off[NSIZES], slot_len[NSIZES];

enum { PUT_BLOCKING, PUT_NB, PUT_NBI, PUT_BLOCKING_VAL, PUT_NB_VAL, PUT_NBI_VAL, NPUT };
enum { GET_BLOCKING, GET_NB, GET_NBI, GET_BLOCKING_VAL, NGET };
static const char *const put_name[NPUT] = {"gex_RMA_PutBlocking", "gex_RMA_PutNB",
                                           "gex_RMA_PutNBI", "gex_RMA_PutBlockingVal",
                                           "gex_RMA_PutNBVal", "gex_RMA_PutNBIVal"};
static const char *const get_name[NGET] = {"gex_RMA_GetBlocking", "gex_RMA_GetNB",
                                           "gex_RMA_GetNBI", "gex_RMA_GetBlockingVal"};
static const char *const kind_name[2] = {"local buffer in the segment", "local buffer in malloc memory"};

static uint8_t *myseg, *outbuf; /* outbuf: AREA bytes outside any segment */

static int is_val_size(size_t n) { return n >= 1 && n <= SIZEOF_GEX_RMA_VALUE_T; }

/* Offsets that vary with the operation so aligned and unaligned cases all occur. */
static size_t src_off(size_t j, int call, int kind) { return (j * 3 + (size_t)call + (size_t)kind) % 8; }
static size_t dst_off(size_t j, int call, int kind) { return (j * 5 + (size_t)call * 3 + (size_t)kind + 1) % 8; }

/* Where in the pattern a put from 'src' (call, kind, size index j) takes its data. */
static size_t put_start(gex_Rank_t src, int call, int kind, size_t j)
{
    return (size_t)(rmat_mix(src, (uint64_t)call, (uint64_t)kind, j) % (RMAT_MIB / 8)) * 8 +
           src_off(j, call, kind);
}

/* A rank's get-source area holds the pattern from this offset on. */
static size_t gsrc_start(gex_Rank_t owner) { return ((size_t)owner * 4099) % RMAT_MIB; }

/* The value a value-Put is given: the wanted bytes in its low-order part, junk above it that
 * must not be stored. */
static gex_RMA_Value_t put_value(const uint8_t *want, size_t n, size_t j)
{
    gex_RMA_Value_t v = rmat_native_load(want, n);
    if (n < SIZEOF_GEX_RMA_VALUE_T) v |= (gex_RMA_Value_t)rmat_mix(j, n, 7, 7) << (8 * n);
    return v;
}

static void check_slot(uint8_t *slot, size_t j, size_t doff, const uint8_t *want, const char *what)
{
    size_t n = sizes[j];
    rmat_expect_fill(slot, 0, GUARD + doff, "bytes before the transfer were written");
    rmat_expect_bytes(slot + GUARD + doff, want, n, what);
    rmat_expect_fill(slot + GUARD + doff + n, 0, slot_len[j] - GUARD - doff - n,
                     "bytes after the transfer were written");
}

static void put_round(gex_Rank_t k, int kind, int call)
{
    gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n), from = (gex_Rank_t)((rvt_me + rvt_n - k) % rvt_n);
    uint8_t *rland = (uint8_t *)rvt_seg_addr(t, OFF_LAND);
    int val = call >= PUT_BLOCKING_VAL;
    gex_Event_t ev[NSIZES], lc[NSIZES];
    for (size_t j = 0; j < NSIZES; j++) ev[j] = lc[j] = GEX_EVENT_INVALID;

    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j], soff = src_off(j, call, kind);
        if (val && !is_val_size(n)) continue;
        const uint8_t *want = rmat_pat(put_start(rvt_me, call, kind, j), n);
        const void *src = want;
        if (kind == 0) {
            uint8_t *p = myseg + OFF_LOCAL + slot_off[j] + GUARD + soff;
            memcpy(p, want, n);
            src = p;
        }
        void *dst = rland + slot_off[j] + GUARD + dst_off(j, call, kind);
        rmat_set_ctx("%s of %zu bytes to rank %u, %s, src%%8=%zu dst%%8=%zu", put_name[call], n,
                     (unsigned)t, kind_name[kind], (size_t)((uintptr_t)src % 8),
                     (size_t)((uintptr_t)dst % 8));
        static gex_Event_t *const nb_lc[3] = {GEX_EVENT_NOW, GEX_EVENT_DEFER, NULL};
        static gex_Event_t *const nbi_lc[3] = {GEX_EVENT_NOW, GEX_EVENT_DEFER, GEX_EVENT_GROUP};
        int rc = 0;
        switch (call) {
        case PUT_BLOCKING: rc = gex_RMA_PutBlocking(rvt_tm, t, dst, src, n, 0); break;
        case PUT_NB: {
            gex_Event_t *lco = nb_lc[j % 3] ? nb_lc[j % 3] : &lc[j];
            ev[j] = gex_RMA_PutNB(rvt_tm, t, dst, src, n, lco, 0);
            RVT_CHECK(ev[j] != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP without IMMEDIATE", rmat_ctx);
            RVT_CHECK(lc[j] != GEX_EVENT_NO_OP, "%s stored GEX_EVENT_NO_OP as lc event", rmat_ctx);
            break;
        }
        case PUT_NBI: rc = gex_RMA_PutNBI(rvt_tm, t, dst, src, n, nbi_lc[j % 3], 0); break;
        case PUT_BLOCKING_VAL:
            rc = gex_RMA_PutBlockingVal(rvt_tm, t, dst, put_value(want, n, j), n, 0);
            break;
        case PUT_NB_VAL:
            ev[j] = gex_RMA_PutNBVal(rvt_tm, t, dst, put_value(want, n, j), n, 0);
            RVT_CHECK(ev[j] != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP without IMMEDIATE", rmat_ctx);
            break;
        case PUT_NBI_VAL: rc = gex_RMA_PutNBIVal(rvt_tm, t, dst, put_value(want, n, j), n, 0); break;
        }
        RVT_CHECK(rc == 0, "%s returned %d", rmat_ctx, rc);
    }
    gex_Event_WaitAll(lc, NSIZES, 0); /* leaves may be synced before their roots */
    gex_Event_WaitAll(ev, NSIZES, 0);
    for (size_t j = 0; j < NSIZES; j++)
        RVT_CHECK(ev[j] == GEX_EVENT_INVALID && lc[j] == GEX_EVENT_INVALID,
                  "gex_Event_WaitAll left entry %zu set", j);
    gex_NBI_Wait(GEX_EC_LC, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    rvt_barrier();

    /* What 'from' put here in this round. */
    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j];
        if (val && !is_val_size(n)) continue;
        rmat_set_ctx("%s of %zu bytes from rank %u, %s", put_name[call], n, (unsigned)from,
                     kind_name[kind]);
        uint8_t *slot = myseg + OFF_LAND + slot_off[j];
        check_slot(slot, j, dst_off(j, call, kind), rmat_pat(put_start(from, call, kind, j), n),
                   "data that arrived");
        memset(slot, 0, slot_len[j]);
    }
    rvt_barrier();
}

static void get_round(gex_Rank_t k, int kind, int call)
{
    gex_Rank_t t = (gex_Rank_t)((rvt_me + k) % rvt_n);
    uint8_t *rgsrc = (uint8_t *)rvt_seg_addr(t, OFF_GSRC);
    uint8_t *base = kind == 0 ? myseg + OFF_LOCAL : outbuf;
    int val = call == GET_BLOCKING_VAL;
    gex_Event_t ev[NSIZES];
    for (size_t j = 0; j < NSIZES; j++) ev[j] = GEX_EVENT_INVALID;

    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j];
        if (val && !is_val_size(n)) continue;
        uint8_t *slot = base + slot_off[j];
        memset(slot, 0, slot_len[j]);
        void *dst = slot + GUARD + dst_off(j, call, kind);
        void *src = rgsrc + slot_off[j] + GUARD + src_off(j, call, kind);
        rmat_set_ctx("%s of %zu bytes from rank %u, %s, src%%8=%zu dst%%8=%zu", get_name[call], n,
                     (unsigned)t, kind_name[kind], (size_t)((uintptr_t)src % 8),
                     (size_t)((uintptr_t)dst % 8));
        int rc = 0;
        switch (call) {
        case GET_BLOCKING: rc = gex_RMA_GetBlocking(rvt_tm, dst, t, src, n, 0); break;
        case GET_NB:
            ev[j] = gex_RMA_GetNB(rvt_tm, dst, t, src, n, 0);
            RVT_CHECK(ev[j] != GEX_EVENT_NO_OP, "%s returned GEX_EVENT_NO_OP without IMMEDIATE", rmat_ctx);
            break;
        case GET_NBI: rc = gex_RMA_GetNBI(rvt_tm, dst, t, src, n, 0); break;
        case GET_BLOCKING_VAL: {
            gex_RMA_Value_t v = gex_RMA_GetBlockingVal(rvt_tm, t, src, n, 0);
            if (n < SIZEOF_GEX_RMA_VALUE_T)
                RVT_CHECK((v >> (8 * n)) == 0, "%s: value 0x%016" PRIx64 " has bits above %zu bytes",
                          rmat_ctx, (uint64_t)v, n);
            rmat_native_store(v, n, dst);
            break;
        }
        }
        RVT_CHECK(rc == 0, "%s returned %d", rmat_ctx, rc);
    }
    gex_Event_WaitAll(ev, NSIZES, 0);
    gex_NBI_Wait(GEX_EC_GET, 0);

    for (size_t j = 0; j < NSIZES; j++) {
        size_t n = sizes[j];
        if (val && !is_val_size(n)) continue;
        rmat_set_ctx("%s of %zu bytes from rank %u, %s", get_name[call], n, (unsigned)t, kind_name[kind]);
        size_t roff = slot_off[j] + GUARD + src_off(j, call, kind);
        check_slot(base + slot_off[j], j, dst_off(j, call, kind), rmat_pat(gsrc_start(t) + roff, n),
                   "data that was fetched");
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    rmat_slots(sizes, NSIZES, GUARD, AREA, slot_off, slot_len);
    rmat_master_init(AREA + RMAT_MIB);
    myseg = rmat_my_seg();
    outbuf = rmat_xmalloc(AREA);
    memcpy(myseg + OFF_GSRC, rmat_pat(gsrc_start(rvt_me), AREA), AREA);
    rvt_barrier();

    for (gex_Rank_t k = 0; k < rvt_n; k++) {
        for (int kind = 0; kind < 2; kind++)
            for (int call = 0; call < NPUT; call++)
                if (kind == 0 || call < PUT_BLOCKING_VAL) put_round(k, kind, call);
        for (int kind = 0; kind < 2; kind++)
            for (int call = 0; call < NGET; call++) get_round(k, kind, call);
    }
    free(outbuf);
    return rvt_done("rma_sizes");
}
