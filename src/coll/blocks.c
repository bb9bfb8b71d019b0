/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/blocks.c: byte blocks of block-structured algorithms (scatter + allgather
 * broadcast, allgather) and the Bruck allgather over them. */
#include "coll/coll_int.h"

uint64_t rv_coll_blk_off(const struct rv_coll_blocks *b, uint64_t blk)
{
    uint64_t o = blk * b->bs;
    return o < b->total ? o : b->total;
}

uint64_t rv_coll_blk_bytes(const struct rv_coll_blocks *b, uint64_t first, uint64_t count)
{
    if (count >= b->n) return b->total;
    first %= b->n;
    uint64_t end = first + count;
    if (end <= b->n) return rv_coll_blk_off(b, end) - rv_coll_blk_off(b, first);
    return b->total - rv_coll_blk_off(b, first) + rv_coll_blk_off(b, end - b->n);
}

void rv_coll_blk_send(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const unsigned char *base,
                      const struct rv_coll_blocks *b, uint64_t first, uint64_t count)
{
    first %= b->n;
    uint64_t end = first + count, a[2], z[2];
    unsigned np = 0;
    if (end <= b->n) {
        a[np] = rv_coll_blk_off(b, first), z[np++] = rv_coll_blk_off(b, end);
    } else {
        a[np] = rv_coll_blk_off(b, first), z[np++] = b->total;
        a[np] = 0, z[np++] = rv_coll_blk_off(b, end - b->n);
    }
    int queued = 0;
    for (unsigned i = 0; i < np; i++)
        if (z[i] > a[i]) {
            rv_coll_queue(o, to, step, base + a[i], (size_t)(z[i] - a[i]), a[i]);
            queued = 1;
        }
    if (!queued) rv_coll_queue(o, to, step, NULL, 0, 0);
}

/* Round k (distance d = 2^k): send the blocks held so far, [vr, vr + c), to vr - d and
 * receive [vr + d, vr + d + c) from vr + d, with c = min(d, n - d). The blocks are
 * written at their final place, so no rotation is needed at the end. */
int rv_coll_bruck(struct rv_coll_op *o, unsigned char *base, gex_Rank_t root)
{
    const struct rv_coll_blocks *b = &o->blk;
    uint64_t n = b->n, vr = o->vr;
    while (((uint64_t)1 << o->k) < n) {
        uint64_t d = (uint64_t)1 << o->k, c = d < n - d ? d : n - d;
        uint32_t step = RV_STEP_ALLGATHER + o->k;
        if (!o->bstate) {
            rv_coll_blk_send(o, (gex_Rank_t)((vr + n - d + root) % n), step, base, b, vr, c);
            o->bstate = 1;
        }
        if (!rv_coll_xchg(o, step, base, b->total, rv_coll_blk_bytes(b, vr + d, c))) return 0;
        o->bstate = 0;
        o->k++;
    }
    return 1;
}
