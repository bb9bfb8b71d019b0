/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_macros.h: preprocessor lists for writing AM handlers and calls with
 * 0..16 arguments: parameter lists, argument lists and array-element lists. */
#ifndef AM_MACROS_H
#define AM_MACROS_H

#include "rv_test.h"

/* ", gex_AM_Arg_t a0, ..., gex_AM_Arg_t a<n-1>": a handler's trailing parameters. */
#define AMT_P0
#define AMT_P1  AMT_P0,  gex_AM_Arg_t a0
#define AMT_P2  AMT_P1,  gex_AM_Arg_t a1
#define AMT_P3  AMT_P2,  gex_AM_Arg_t a2
#define AMT_P4  AMT_P3,  gex_AM_Arg_t a3
#define AMT_P5  AMT_P4,  gex_AM_Arg_t a4
#define AMT_P6  AMT_P5,  gex_AM_Arg_t a5
#define AMT_P7  AMT_P6,  gex_AM_Arg_t a6
#define AMT_P8  AMT_P7,  gex_AM_Arg_t a7
#define AMT_P9  AMT_P8,  gex_AM_Arg_t a8
#define AMT_P10 AMT_P9,  gex_AM_Arg_t a9
#define AMT_P11 AMT_P10, gex_AM_Arg_t a10
#define AMT_P12 AMT_P11, gex_AM_Arg_t a11
#define AMT_P13 AMT_P12, gex_AM_Arg_t a12
#define AMT_P14 AMT_P13, gex_AM_Arg_t a13
#define AMT_P15 AMT_P14, gex_AM_Arg_t a14
#define AMT_P16 AMT_P15, gex_AM_Arg_t a15

/* ", a0, ..., a<n-1>": those parameters as values. */
#define AMT_A0
#define AMT_A1  AMT_A0,  a0
#define AMT_A2  AMT_A1,  a1
#define AMT_A3  AMT_A2,  a2
#define AMT_A4  AMT_A3,  a3
#define AMT_A5  AMT_A4,  a4
#define AMT_A6  AMT_A5,  a5
#define AMT_A7  AMT_A6,  a6
#define AMT_A8  AMT_A7,  a7
#define AMT_A9  AMT_A8,  a8
#define AMT_A10 AMT_A9,  a9
#define AMT_A11 AMT_A10, a10
#define AMT_A12 AMT_A11, a11
#define AMT_A13 AMT_A12, a12
#define AMT_A14 AMT_A13, a13
#define AMT_A15 AMT_A14, a14
#define AMT_A16 AMT_A15, a15

/* ", v[0], ..., v[n-1]": the first n elements of an array named v. */
#define AMT_V0
#define AMT_V1  AMT_V0,  v[0]
#define AMT_V2  AMT_V1,  v[1]
#define AMT_V3  AMT_V2,  v[2]
#define AMT_V4  AMT_V3,  v[3]
#define AMT_V5  AMT_V4,  v[4]
#define AMT_V6  AMT_V5,  v[5]
#define AMT_V7  AMT_V6,  v[6]
#define AMT_V8  AMT_V7,  v[7]
#define AMT_V9  AMT_V8,  v[8]
#define AMT_V10 AMT_V9,  v[9]
#define AMT_V11 AMT_V10, v[10]
#define AMT_V12 AMT_V11, v[11]
#define AMT_V13 AMT_V12, v[12]
#define AMT_V14 AMT_V13, v[13]
#define AMT_V15 AMT_V14, v[14]
#define AMT_V16 AMT_V15, v[15]

/* Calls f with the argument list after expanding it, so a list macro like
 * AMT_V3 becomes three arguments of a numbered form such as gex_AM_RequestShort3. */
#define AMT_APPLY(f, ...) f(__VA_ARGS__)

/* Applies X to 0..16. */
#define AMT_ALL(X) \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

#define AMT_MAXARGS 16

/* Handler argument values: mostly mixed bits, sometimes an extreme. */
static inline gex_AM_Arg_t amt_arg(uint32_t seed, unsigned i)
{
    static const int32_t special[] = { 0, -1, INT32_MIN, INT32_MAX, 1, (int32_t)0x80000001 };
    uint32_t x = seed * 2654435761u + (i + 1) * 0x85EBCA77u;
    x ^= x >> 15;
    x *= 0x2C1B3C6Du;
    x ^= x >> 12;
    if ((seed + i) % 3 == 0) return special[(seed + i) / 3 % 6];
    return (gex_AM_Arg_t)x;
}

/* A payload pattern that is fast to make and check even for multi-megabyte Longs:
 * byte i is byte i%8 of a 64-bit mix of (seed, i/8). Defined by position only, so
 * it does not depend on the buffer's alignment. */
static inline uint64_t amt_word(uint64_t seed, uint64_t w)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + (w + 1) * 0xD1B54A32D192ED03ull;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    return x ^ (x >> 29);
}

static inline void amt_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = (uint8_t *)buf;
    size_t w = 0;
    for (; (w + 1) * 8 <= n; w++) {
        uint64_t x = amt_word(seed, w);
        memcpy(p + w * 8, &x, 8);
    }
    if (w * 8 < n) {
        uint64_t x = amt_word(seed, w);
        memcpy(p + w * 8, &x, n - w * 8);
    }
}

/* Index of the first wrong byte, or (size_t)-1. */
static inline size_t amt_find_bad(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)buf;
    for (size_t w = 0; w * 8 < n; w++) {
        uint64_t x = amt_word(seed, w);
        size_t len = n - w * 8 < 8 ? n - w * 8 : 8;
        if (memcmp(p + w * 8, &x, len) != 0)
            for (size_t i = 0; i < len; i++)
                if (p[w * 8 + i] != ((const uint8_t *)&x)[i]) return w * 8 + i;
    }
    return (size_t)-1;
}

static inline uint8_t amt_byte(uint64_t seed, size_t i)
{
    uint64_t x = amt_word(seed, i / 8);
    return ((const uint8_t *)&x)[i % 8];
}

#define AMT_VERIFY(buf, n, seed, what)                                                           \
    do {                                                                                         \
        size_t amt_bad_ = amt_find_bad((buf), (n), (seed));                                      \
        RVT_CHECK(amt_bad_ == (size_t)-1, "%s: %zu bytes, byte %zu is 0x%02x, expected 0x%02x",  \
                  (what), (size_t)(n), amt_bad_, ((const uint8_t *)(buf))[amt_bad_],             \
                  amt_byte((seed), amt_bad_));                                                   \
    } while (0)

#endif /* AM_MACROS_H */
