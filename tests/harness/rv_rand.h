/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/harness/rv_rand.h: the tests' pseudo-random numbers: xorshift64, fast and the same
 * sequence from the same seed on every run (a failure replays). The state must not be 0. */
#ifndef RV_RAND_H
#define RV_RAND_H

#include <stdint.h>

static inline uint64_t rvt_rand(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

#endif /* RV_RAND_H */
