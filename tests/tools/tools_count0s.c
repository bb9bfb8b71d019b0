/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_count0s.c: gasnett_count0s, gasnett_count0s_copy and the word forms
 * against a byte loop: every length 0..600 and some long ones (past the 8160-byte block of
 * the vector loop), at every source offset 0..31 and copy offsets that misalign source and
 * destination differently, with random data of several zero densities (all zeros, none,
 * half, sparse). The copy must copy exactly: the destination's guard bytes either side
 * stay untouched. */
#include <gasnet_tools.h>

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "rv_check.h"
#include "rv_rand.h"

static size_t byte_count(const unsigned char *p, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++) c += p[i] == 0;
    return c;
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static unsigned rnd(void) { return (unsigned)(rvt_rand(&rng) >> 32); }

enum { MAXLEN = 20000, PAD = 64 };
static unsigned char src[MAXLEN + 2 * PAD], dst[MAXLEN + 3 * PAD];

static void fill(int density)
{
    for (size_t i = 0; i < sizeof src; i++) {
        unsigned r = rnd();
        switch (density) {
        case 0: src[i] = 0; break;                               /* all zeros */
        case 1: src[i] = (unsigned char)(1 + r % 255); break;    /* none */
        case 2: src[i] = (r & 1) ? 0 : (unsigned char)(r >> 8); break; /* about half */
        default: src[i] = (r % 61) ? (unsigned char)(1 + (r >> 8) % 255) : 0; break; /* sparse */
        }
    }
}

static void check(size_t len, size_t so, size_t doff)
{
    const unsigned char *s = src + so;
    size_t want = byte_count(s, len);
    size_t got = gasnett_count0s(s, len);
    CHECK(got == want, "count0s(len %zu, offset %zu) = %zu, want %zu", len, so, got, want);
    memset(dst, 0xA5, sizeof dst);
    got = gasnett_count0s_copy(dst + doff, s, len);
    CHECK(got == want, "count0s_copy(len %zu, offsets %zu/%zu) = %zu, want %zu", len, so, doff,
          got, want);
    CHECK(!memcmp(dst + doff, s, len), "count0s_copy(len %zu) copied wrong bytes", len);
    CHECK(byte_count(dst, doff) == 0 && byte_count(dst + doff + len, PAD) == 0 &&
              dst[doff - 1] == 0xA5 && dst[doff + len] == 0xA5,
          "count0s_copy(len %zu, offset %zu) wrote outside the destination", len, doff);
}

int main(void)
{
    long checks = 0;
    for (int density = 0; density < 4; density++) {
        fill(density);
        for (size_t len = 0; len <= 600; len++)
            for (size_t so = 0; so < 32; so++) {
                check(len, so, PAD + (so * 7 + len) % 32);
                checks++;
            }
        static const size_t longs[] = { 1024, 4095, 8159, 8160, 8161, 8192, 8191 + 32,
                                        16320, 16321, 19999, MAXLEN };
        for (size_t k = 0; k < sizeof longs / sizeof longs[0]; k++)
            for (size_t so = 0; so < 16; so++) {
                check(longs[k] - (longs[k] == MAXLEN ? so : 0), so, PAD + (so * 3) % 16);
                checks++;
            }
    }
    /* word forms: every single-byte position zero or not, and random words */
    for (int i = 0; i < 200000; i++) {
        uint64_t w = ((uint64_t)rnd() << 32) | rnd();
        int mask = rnd() & 0xFF;
        for (int b = 0; b < 8; b++)
            if (mask & (1 << b)) w &= ~((uint64_t)0xFF << (8 * b));
        if (i & 1) w |= (uint64_t)0x80 << (8 * (rnd() & 7)); /* high bits set too */
        unsigned char bytes[8];
        memcpy(bytes, &w, 8);
        int want64 = (int)byte_count(bytes, 8);
        uint32_t lo = (uint32_t)w;
        memcpy(bytes, &lo, 4);
        int want32 = (int)byte_count(bytes, 4);
        CHECK(gasnett_count0s_uint64_t(w) == want64, "count0s_uint64_t(0x%016" PRIx64 ") = %d, want %d",
              w, gasnett_count0s_uint64_t(w), want64);
        CHECK(gasnett_count0s_uint32_t(lo) == want32, "count0s_uint32_t(0x%08" PRIx32 ") = %d, want %d",
              lo, gasnett_count0s_uint32_t(lo), want32);
        CHECK(gasnett_count0s_uintptr_t((uintptr_t)w) == want64, "count0s_uintptr_t");
        /* the library's out-of-line copies (a parenthesised name is not the macro) */
        CHECK((gasnett_count0s_uint64_t)(w) == want64 && (gasnett_count0s_uint32_t)(lo) == want32 &&
                  (gasnett_count0s_uintptr_t)((uintptr_t)w) == want64,
              "out-of-line count0s of 0x%016" PRIx64, w);
    }
    CHECK(gasnett_count0s_uint64_t(0) == 8 && gasnett_count0s_uint32_t(0) == 4 &&
              gasnett_count0s_uint64_t(UINT64_MAX) == 0 && gasnett_count0s_uint32_t(0x01000100u) == 2 &&
              gasnett_count0s_uint64_t(0x8000000000000080ull) == 6, "word edge cases");
    printf("tools_count0s: %ld buffer checks ok\n", checks);
    return 0;
}
