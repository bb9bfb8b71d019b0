/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/reduce_large.c: reductions of large vectors: reduce-scatter by recursive halving,
 * then allgather (ReduceToAll) or gather to the root (ReduceToOne) by recursive
 * doubling, after folding the ranks beyond the largest power of two. Each rank sends
 * and combines about 2 * nbytes instead of nbytes * log2(size). */
#include "coll/coll_int.h"

#include <string.h>

/* Rank order is kept, so GEX_OP_USER_NC is exact: halving goes through the distances
 * 1, 2, 4, ... so that at distance d the two partners hold the reductions of two
 * adjacent, aligned groups of d ranks, and the lower group is the left operand. */

static uint64_t rv_root_nr(const struct rv_coll_op *o)
{
    gex_Rank_t r = o->root;
    return r < 2 * o->rem ? r / 2 : r - o->rem;
}

int rv_coll_rsag_advance(struct rv_coll_op *o)
{
    gex_Rank_t me = o->me;
    const size_t es = o->dt_sz, nb = o->nbytes;
    unsigned char *acc = o->acc;
    for (;;) {
        switch (o->state) {
        case 0: /* fold the extra ranks: even 2i sends everything to 2i + 1 */
            if (me < 2 * o->rem) {
                if (!(me & 1)) {
                    rv_coll_queue(o, me + 1, RV_STEP_FOLD, acc, nb, 0);
                    o->state = 10;
                    break;
                }
                if (!rv_coll_recv(o, RV_STEP_FOLD, o->tmp, nb, nb, 1)) return 0;
                rv_coll_combine(o, o->tmp, acc, o->dt_cnt);
            }
            o->lo = 0;
            o->hi = o->dt_cnt;
            o->state = 1;
            break;
        case 1: /* reduce-scatter: keep one half of [lo, hi), send the other to nr ^ d */
            while ((1u << o->k) < o->p2) {
                uint64_t d = 1u << o->k, mid = o->lo + (o->hi - o->lo) / 2;
                int low = !(o->nr & d);
                uint64_t klo = low ? o->lo : mid, khi = low ? mid : o->hi;
                uint64_t slo = low ? mid : o->lo, shi = low ? o->hi : mid;
                gex_Rank_t pnr = (gex_Rank_t)(o->nr ^ d);
                if (!o->bstate) {
                    o->los[o->k] = o->lo;
                    o->his[o->k] = o->hi;
                    rv_coll_queue(o, rv_coll_rd_rank(o, pnr), RV_STEP_HALVE + o->k, acc + slo * es,
                                  (size_t)((shi - slo) * es), 0);
                    o->bstate = 1;
                }
                if (!rv_coll_xchg(o, RV_STEP_HALVE + o->k, o->tmp, nb, (khi - klo) * es)) return 0;
                o->bstate = 0;
                if (pnr < o->nr) {
                    rv_coll_combine(o, o->tmp, acc + klo * es, (size_t)(khi - klo));
                } else {
                    rv_coll_combine(o, acc + klo * es, o->tmp, (size_t)(khi - klo));
                    memcpy(acc + klo * es, o->tmp, (size_t)((khi - klo) * es));
                }
                o->lo = klo;
                o->hi = khi;
                o->k++;
            }
            o->state = 2;
            break;
        case 2: /* (all)gather, finest split first: swap halves of the level's range */
            while (o->k > 0) {
                unsigned k = o->k - 1;
                uint64_t d = 1u << k, lo = o->los[k], hi = o->his[k], mid = lo + (hi - lo) / 2;
                int low = !(o->nr & d);
                uint64_t mlo = low ? lo : mid, mhi = low ? mid : hi;
                uint64_t olo = low ? mid : lo, ohi = low ? hi : mid;
                gex_Rank_t partner = rv_coll_rd_rank(o, (gex_Rank_t)(o->nr ^ d));
                int sender = !o->all && ((o->nr ^ rv_root_nr(o)) & d);
                if (!o->bstate) {
                    if (o->all || sender)
                        rv_coll_queue(o, partner, RV_STEP_ALLGATHER + k, acc + mlo * es,
                                      (size_t)((mhi - mlo) * es), mlo * es);
                    o->bstate = 1;
                }
                if (sender) {
                    if (!rv_coll_pump(o)) return 0;
                    o->bstate = 0;
                    o->state = 4; /* done: the root's side has my part */
                    break;
                }
                if (o->all) {
                    if (!rv_coll_xchg(o, RV_STEP_ALLGATHER + k, acc, nb, (ohi - olo) * es)) return 0;
                } else if (!rv_coll_recv(o, RV_STEP_ALLGATHER + k, acc, nb, (ohi - olo) * es, 1)) {
                    return 0;
                }
                o->bstate = 0;
                o->k--;
            }
            if (o->state == 4) break;
            o->state = 3;
            break;
        case 3: /* this rank holds the whole result */
            if (o->all) {
                if (me < 2 * o->rem) rv_coll_queue(o, me - 1, RV_STEP_UNFOLD, acc, nb, 0);
            } else if (me == o->root) {
                memcpy(o->dst, acc, nb);
            } else {
                rv_coll_queue(o, o->root, RV_STEP_TOROOT, acc, nb, 0); /* root folded away */
            }
            o->state = 4;
            break;
        case 4:
            return rv_coll_pump(o);
        default: /* 10: folded away */
            if (o->all) return rv_coll_xchg(o, RV_STEP_UNFOLD, o->dst, nb, nb);
            if (me != o->root) return rv_coll_pump(o);
            return rv_coll_xchg(o, RV_STEP_TOROOT, o->dst, nb, nb);
        }
    }
}
