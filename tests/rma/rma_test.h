/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_test.h: helpers shared by the RMA tests: one job-wide byte pattern ("master")
 * that every rank can recompute, checks that name the first wrong byte, the native-endian
 * reading of a gex_RMA_Value_t, and which RMA path the run was asked to use. Public API only. */
#ifndef RMA_TEST_H
#define RMA_TEST_H

#include "rv_test.h"

#include <stdarg.h>

#define RMAT_KIB ((size_t)1024)
#define RMAT_MIB ((size_t)1024 * 1024)

/* The same bytes on every rank: data expected at a target is recomputed there, not sent. */
static uint8_t *rmat_master;
static size_t rmat_master_len;

static inline void rmat_master_init(size_t len)
{
    rmat_master = (uint8_t *)malloc(len);
    RVT_CHECK(rmat_master != NULL, "malloc(%zu) for the pattern failed", len);
    rvt_fill(rmat_master, len, 0x5EEDu);
    rmat_master_len = len;
}

static inline const uint8_t *rmat_pat(size_t start, size_t n)
{
    RVT_CHECK(start + n <= rmat_master_len, "pattern window [%zu, +%zu) beyond %zu", start, n,
              rmat_master_len);
    return rmat_master + start;
}

/* A well-mixed 64-bit hash of a few small integers (choosing pattern windows, values). */
static inline uint64_t rmat_mix(uint64_t a, uint64_t b, uint64_t c, uint64_t d)
{
    uint64_t x = a * 0x9E3779B97F4A7C15ull ^ (b + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
    x ^= (c + 0x2545F4914F6CDD1Dull) * 0x94D049BB133111EBull;
    x ^= (d + 0x5851F42D4C957F2Dull) * 0xD6E8FEB86659FD93ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 29);
}

/* Context of the current check, printed with any failure. */
static char rmat_ctx[256];

static inline void rmat_set_ctx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline void rmat_set_ctx(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(rmat_ctx, sizeof rmat_ctx, fmt, ap);
    va_end(ap);
}

/* got[0..n) must equal want[0..n). */
static inline void rmat_expect_bytes(const void *got, const void *want, size_t n, const char *what)
{
    if (!n || !memcmp(got, want, n)) return;
    const uint8_t *g = (const uint8_t *)got, *w = (const uint8_t *)want;
    size_t i = 0;
    while (g[i] == w[i]) i++;
    RVT_FAIL("%s (%s): %zu bytes, byte %zu is 0x%02x, expected 0x%02x", what, rmat_ctx, n, i, g[i],
             w[i]);
}

/* p[0..n) must all be 'v' (guard bytes around a transfer, areas a no-op must not touch). */
static inline void rmat_expect_fill(const void *p, int v, size_t n, const char *what)
{
    const uint8_t *b = (const uint8_t *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != (uint8_t)v)
            RVT_FAIL("%s (%s): byte %zu of %zu is 0x%02x, expected 0x%02x", what, rmat_ctx, i, n,
                     b[i], (uint8_t)v);
}

static inline int rmat_little_endian(void)
{
    const uint16_t one = 1;
    return *(const uint8_t *)&one == 1;
}

/* The value whose nbytes-wide native representation is p[0..nbytes): what GetBlockingVal of
 * those bytes returns, and what PutBlockingVal must be given to store them. */
static inline gex_RMA_Value_t rmat_native_load(const void *p, size_t nbytes)
{
    const uint8_t *b = (const uint8_t *)p;
    gex_RMA_Value_t v = 0;
    for (size_t i = 0; i < nbytes; i++) {
        size_t shift = rmat_little_endian() ? i : nbytes - 1 - i;
        v |= (gex_RMA_Value_t)b[i] << (8 * shift);
    }
    return v;
}

/* The nbytes a Put of 'v' stores: its low-order nbytes in native byte order. */
static inline void rmat_native_store(gex_RMA_Value_t v, size_t nbytes, void *out)
{
    uint8_t tmp[sizeof v];
    if (nbytes > sizeof v) nbytes = sizeof v;
    for (size_t i = 0; i < nbytes; i++) {
        size_t shift = rmat_little_endian() ? i : nbytes - 1 - i;
        tmp[i] = (uint8_t)(v >> (8 * shift));
    }
    memcpy(out, tmp, nbytes);
}

/* RIVET_RMA=ref runs everything over AM; some checks hold only there (an operation to any
 * rank stays incomplete until the initiator polls again). */
static inline int rmat_ref_mode(void)
{
    const char *e = getenv("RIVET_RMA");
    return e && !strcmp(e, "ref");
}

static inline uint8_t *rmat_xmalloc(size_t n)
{
    uint8_t *p = (uint8_t *)malloc(n);
    RVT_CHECK(p != NULL, "malloc(%zu) failed", n);
    return p;
}

static inline uint8_t *rmat_my_seg(void) { return (uint8_t *)rvt_seg_addr(rvt_me, 0); }

/* Lays out one slot per size back to back in an area of 'area' bytes: slot j holds a guard,
 * up to 8 bytes of misalignment, sizes[j] bytes and a guard, rounded up to 64 bytes. Fails
 * the test if they do not fit. */
static inline void rmat_slots(const size_t *sizes, size_t n, size_t guard, size_t area,
                              size_t *slot_off, size_t *slot_len)
{
    size_t off = 0;
    for (size_t j = 0; j < n; j++) {
        slot_off[j] = off;
        slot_len[j] = (guard + 8 + sizes[j] + guard + 63) & ~(size_t)63;
        off += slot_len[j];
    }
    RVT_CHECK(off <= area, "slots need %zu bytes, the area has %zu", off, area);
}

#endif /* RMA_TEST_H */
