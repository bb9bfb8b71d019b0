/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/harness/rv_test.h: small helpers shared by the API tests: checks that end
 * the whole job loudly, job start-up, byte patterns and their verification.
 * Uses only the public GASNet-EX API, so a test builds against any implementation. */
#ifndef RV_TEST_H
#define RV_TEST_H

#include <gasnetex.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gex_Client_t  rvt_client;
static gex_EP_t      rvt_ep;
static gex_TM_t      rvt_tm;
static gex_Segment_t rvt_seg;
static gex_Rank_t    rvt_me, rvt_n;

/* Fails the whole job with exit code 1 and a message naming rank, file and line. */
#define RVT_FAIL(...)                                                                   \
    do {                                                                                \
        fprintf(stderr, "FAIL rank %u %s:%d: ", (unsigned)rvt_me, __FILE__, __LINE__);  \
        fprintf(stderr, __VA_ARGS__);                                                   \
        fprintf(stderr, "\n");                                                          \
        fflush(stderr);                                                                 \
        gasnet_exit(1);                                                                 \
    } while (0)

#define RVT_CHECK(cond, ...)                                                             \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            fprintf(stderr, "FAIL rank %u %s:%d: check '%s' failed: ", (unsigned)rvt_me, \
                    __FILE__, __LINE__, #cond);                                          \
            fprintf(stderr, __VA_ARGS__);                                                \
            fprintf(stderr, "\n");                                                       \
            fflush(stderr);                                                              \
            gasnet_exit(1);                                                              \
        }                                                                                \
    } while (0)

#define RVT_OK(call)                                                              \
    do {                                                                          \
        int rvt_rc_ = (call);                                                     \
        RVT_CHECK(rvt_rc_ == GASNET_OK, "%s returned %d (%s)", #call, rvt_rc_,    \
                  gasnet_ErrorName(rvt_rc_));                                     \
    } while (0)

/* Initializes the client "rvtest" and attaches a segment of segsize bytes (0: none). */
static inline void rvt_init(int *argc, char ***argv, uintptr_t segsize)
{
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "rvtest", argc, argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    if (segsize) RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, segsize));
}

static inline void rvt_barrier(void)
{
    gex_Event_Wait(gex_Coll_BarrierNB(rvt_tm, 0));
}

/* Address of 'offset' in rank's segment, as that rank sees it (for RMA/Long targets). */
static inline void *rvt_seg_addr(gex_Rank_t rank, uintptr_t offset)
{
    void *base = NULL;
    uintptr_t size = 0;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, rank, &base, NULL, &size));
    RVT_CHECK(offset <= size, "offset %" PRIuPTR " beyond segment of rank %u (%" PRIuPTR ")",
              offset, (unsigned)rank, size);
    return (char *)base + offset;
}

/* The byte pattern: depends on seed and position, never constant over 256 bytes. */
static inline uint8_t rvt_byte(uint64_t seed, size_t i)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + i * 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    return (uint8_t)(x ^ (x >> 8) ^ (i * 7));
}

static inline void rvt_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *p = (uint8_t *)buf;
    for (size_t i = 0; i < n; i++) p[i] = rvt_byte(seed, i);
}

/* Returns the index of the first wrong byte, or (size_t)-1 if all match. */
static inline size_t rvt_find_bad(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *p = (const uint8_t *)buf;
    for (size_t i = 0; i < n; i++)
        if (p[i] != rvt_byte(seed, i)) return i;
    return (size_t)-1;
}

#define RVT_VERIFY(buf, n, seed, what)                                                        \
    do {                                                                                      \
        size_t rvt_bad_ = rvt_find_bad((buf), (n), (seed));                                   \
        RVT_CHECK(rvt_bad_ == (size_t)-1, "%s: %zu bytes, byte %zu is 0x%02x, expected 0x%02x", \
                  (what), (size_t)(n), rvt_bad_, ((const uint8_t *)(buf))[rvt_bad_],          \
                  rvt_byte((seed), rvt_bad_));                                                \
    } while (0)

/* Ends a passing test: a barrier, one line from rank 0, and a normal return. */
static inline int rvt_done(const char *name)
{
    rvt_barrier();
    if (rvt_me == 0) printf("%s: PASS on %u ranks\n", name, (unsigned)rvt_n);
    fflush(stdout);
    return 0;
}

#endif /* RV_TEST_H */
