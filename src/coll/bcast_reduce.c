/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/bcast_reduce.c: binomial-tree broadcast and reductions (ReduceToOne, ReduceToAll). */
#include "coll/coll_int.h"

#include <stdlib.h>
#include <string.h>

/* Binomial broadcast of o->dst (already filled at vroot 0) rooted at 'root';
 * 'step' tags it. Returns 1 when this rank has received and forwarded. */
static int rv_bcast_phase(struct rv_coll_op *o, gex_Rank_t root, uint32_t step)
{
    struct rv_tm *tm = o->ct->tm;
    gex_Rank_t n = tm->size, vr = (tm->rank + n - root) % n;
    if (o->bstate == 0) {
        if (vr != 0 && !rv_coll_recv(o, step, o->dst, o->nbytes)) return 0;
        gex_Rank_t low = vr ? (vr & -vr) : (gex_Rank_t)1 << o->ct->rounds;
        for (gex_Rank_t m = 1; m < low && vr + m < n; m <<= 1)
            rv_coll_queue(o, (vr + m + root) % n, step, o->dst, o->nbytes);
        o->bstate = 1;
    }
    return rv_coll_pump(o);
}

static int rv_bcast_advance(struct rv_coll_op *o) { return rv_bcast_phase(o, o->root, 0); }

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    (void)flags;
    struct rv_coll_op *o = rv_coll_op_new("gex_Coll_BroadcastNB", tm, rv_bcast_advance);
    if (root >= tm->size)
        rv_fatal("gex_Coll_BroadcastNB: root %u is out of range (team size %u)", root, tm->size);
    o->root = root;
    o->dst = dst;
    o->nbytes = nbytes;
    if (tm->rank == root && dst != src && nbytes) memmove(dst, src, nbytes);
    return rv_coll_op_start(o);
}

/* ---- reductions ------------------------------------------------------------ */

#define RV_ARITH(T, UT)                                                                     \
    case GEX_OP_ADD:                                                                        \
        for (size_t i = 0; i < cnt; i++) b[i] = (T)((UT)a[i] + (UT)b[i]);                   \
        break;                                                                              \
    case GEX_OP_MULT:                                                                       \
        for (size_t i = 0; i < cnt; i++) b[i] = (T)((UT)a[i] * (UT)b[i]);                   \
        break;                                                                              \
    case GEX_OP_MIN:                                                                        \
        for (size_t i = 0; i < cnt; i++) if (a[i] < b[i]) b[i] = a[i];                      \
        break;                                                                              \
    case GEX_OP_MAX:                                                                        \
        for (size_t i = 0; i < cnt; i++) if (a[i] > b[i]) b[i] = a[i];                      \
        break;
#define RV_BITS                                                                             \
    case GEX_OP_AND: for (size_t i = 0; i < cnt; i++) b[i] &= a[i]; break;                  \
    case GEX_OP_OR:  for (size_t i = 0; i < cnt; i++) b[i] |= a[i]; break;                  \
    case GEX_OP_XOR: for (size_t i = 0; i < cnt; i++) b[i] ^= a[i]; break;
#define RV_INT_CASE(DT, T, UT)                                                              \
    case DT: {                                                                              \
        const T *a = in;                                                                    \
        T *b = io;                                                                          \
        switch (op) { RV_ARITH(T, UT) RV_BITS default: break; }                             \
        break;                                                                              \
    }
#define RV_FLT_CASE(DT, T)                                                                  \
    case DT: {                                                                              \
        const T *a = in;                                                                    \
        T *b = io;                                                                          \
        switch (op) { RV_ARITH(T, T) default: break; }                                      \
        break;                                                                              \
    }

/* io[i] = in[i] OP io[i]; 'in' holds the lower ranks' contribution. */
static void rv_reduce_combine(const struct rv_coll_op *o, const void *in, void *io)
{
    size_t cnt = o->dt_cnt;
    gex_OP_t op = o->gop;
    if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
        o->fn(in, io, cnt, o->cdata);
        return;
    }
    switch (o->dt) {
        RV_INT_CASE(GEX_DT_I32, int32_t, uint32_t)
        RV_INT_CASE(GEX_DT_U32, uint32_t, uint32_t)
        RV_INT_CASE(GEX_DT_I64, int64_t, uint64_t)
        RV_INT_CASE(GEX_DT_U64, uint64_t, uint64_t)
        RV_FLT_CASE(GEX_DT_FLT, float)
        RV_FLT_CASE(GEX_DT_DBL, double)
    default: break;
    }
}

/* Binomial reduction to team rank 0 (rank order kept, so USER_NC is exact),
 * then to the root (ReduceToOne) or a broadcast from rank 0 (ReduceToAll). */
static int rv_reduce_advance(struct rv_coll_op *o)
{
    struct rv_tm *tm = o->ct->tm;
    gex_Rank_t me = tm->rank, n = tm->size;
    for (;;) {
        switch (o->state) {
        case 0: /* fan-in round k */
            if (o->k >= o->ct->rounds) { o->state = 2; break; }
            {
                gex_Rank_t m = (gex_Rank_t)1 << o->k;
                if (me & m) {
                    rv_coll_queue(o, me - m, o->k, o->acc, o->nbytes);
                    o->state = 1;
                    break;
                }
                if (me + m < n) {
                    if (!rv_coll_recv(o, o->k, o->tmp, o->nbytes)) return 0;
                    rv_reduce_combine(o, o->acc, o->tmp);
                    unsigned char *t = o->acc;
                    o->acc = o->tmp;
                    o->tmp = t;
                }
                o->k++;
            }
            break;
        case 1: /* sent my partial result up; the result comes back later or not at all */
            if (!rv_coll_pump(o)) return 0;
            o->state = 3;
            break;
        case 2: /* rank 0 holds the result */
            if (o->all || o->root == 0) {
                if (o->nbytes) memcpy(o->dst, o->acc, o->nbytes);
            } else {
                rv_coll_queue(o, o->root, RV_STEP_TOROOT, o->acc, o->nbytes);
            }
            o->state = 3;
            break;
        case 3:
            if (!rv_coll_pump(o)) return 0;
            if (o->all) {
                o->state = 4;
                break;
            }
            if (me == o->root && me != 0 && !rv_coll_recv(o, RV_STEP_TOROOT, o->dst, o->nbytes))
                return 0;
            return 1;
        default: /* 4: broadcast phase of ReduceToAll */
            return rv_bcast_phase(o, 0, RV_STEP_BCAST);
        }
    }
}

static struct rv_coll_op *rv_reduce_new(const char *call, gex_TM_t tm, void *dst, const void *src,
                                        gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                        gex_Coll_ReduceFn_t user_op, void *user_cdata)
{
    size_t want = 0;
    int isint = 0;
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: want = 4; isint = 1; break;
    case GEX_DT_I64: case GEX_DT_U64: want = 8; isint = 1; break;
    case GEX_DT_FLT: want = 4; break;
    case GEX_DT_DBL: want = 8; break;
    case GEX_DT_USER: break;
    default: rv_fatal("%s: invalid data type 0x%x", call, (unsigned)dt);
    }
    if (want && dt_sz != want)
        rv_fatal("%s: dt_sz %zu does not match the data type (%zu)", call, dt_sz, want);
    if (!dt_sz) rv_fatal("%s: dt_sz is 0", call);
    switch (op) {
    case GEX_OP_ADD: case GEX_OP_MULT: case GEX_OP_MIN: case GEX_OP_MAX:
        if (dt == GEX_DT_USER) rv_fatal("%s: GEX_DT_USER requires GEX_OP_USER or USER_NC", call);
        break;
    case GEX_OP_AND: case GEX_OP_OR: case GEX_OP_XOR:
        if (!isint) rv_fatal("%s: bitwise operation on a non-integer data type", call);
        break;
    case GEX_OP_USER: case GEX_OP_USER_NC:
        if (!user_op) rv_fatal("%s: GEX_OP_USER without a user_op", call);
        break;
    default: rv_fatal("%s: operation 0x%x is not a reduction operation", call, (unsigned)op);
    }
    struct rv_coll_op *o = rv_coll_op_new(call, tm, rv_reduce_advance);
    o->dst = dst;
    o->src = src;
    o->dt = dt;
    o->dt_sz = dt_sz;
    o->dt_cnt = dt_cnt;
    o->nbytes = dt_sz * dt_cnt;
    o->gop = op;
    o->fn = user_op;
    o->cdata = user_cdata;
    o->acc = malloc(o->nbytes ? o->nbytes : 1);
    o->tmp = malloc(o->nbytes ? o->nbytes : 1);
    if (!o->acc || !o->tmp) rv_fatal("%s: out of memory", call);
    if (o->nbytes) memcpy(o->acc, src, o->nbytes);
    return o;
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags)
{
    (void)flags;
    if (tm && root >= tm->size)
        rv_fatal("gex_Coll_ReduceToOneNB: root %u is out of range (team size %u)", root, tm->size);
    struct rv_coll_op *o = rv_reduce_new("gex_Coll_ReduceToOneNB", tm, dst, src, dt, dt_sz, dt_cnt,
                                         op, user_op, user_cdata);
    o->root = root;
    return rv_coll_op_start(o);
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags)
{
    (void)flags;
    struct rv_coll_op *o = rv_reduce_new("gex_Coll_ReduceToAllNB", tm, dst, src, dt, dt_sz, dt_cnt,
                                         op, user_op, user_cdata);
    o->all = 1;
    return rv_coll_op_start(o);
}
