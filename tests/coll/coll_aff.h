/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_aff.h: a non-commutative but associative GEX_OP_USER_NC reduction for the
 * collective tests: composition of affine maps mod 2^64, (m1, c1) then (m2, c2) is
 * (m1*m2, c1*m2 + c2); arg1 holds the earlier (lower team rank) maps. */
#ifndef COLL_AFF_H
#define COLL_AFF_H

#include <stddef.h>
#include <stdint.h>

typedef struct { uint64_t m, c; } aff_t;

static void aff_compose(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    (void)cdata;
    const aff_t *x = arg1;
    aff_t *y = arg2_and_out;
    for (size_t i = 0; i < count; i++) {
        aff_t r = { x[i].m * y[i].m, x[i].c * y[i].m + y[i].c };
        y[i] = r;
    }
}

#endif /* COLL_AFF_H */
