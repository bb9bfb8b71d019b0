/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/reduce.c: gex_Coll_ReduceToOneNB and gex_Coll_ReduceToAllNB: argument checks,
 * the element-wise operators, a binomial fan-in (ReduceToOne) and recursive doubling
 * (ReduceToAll) for small vectors; large ones go to reduce_large.c. */
#include "coll/coll_int.h"

#include <string.h>

/* The element-wise operators: b[i] = X OP Y, with X and Y a[i] and b[i] in either order
 * (the left operand is always the lower ranks' contribution). */
#define RV_ARITH(T, UT, X, Y)                                                               \
    case GEX_OP_ADD:                                                                        \
        for (size_t i = 0; i < cnt; i++) b[i] = (T)((UT)(X) + (UT)(Y));                     \
        break;                                                                              \
    case GEX_OP_MULT:                                                                       \
        for (size_t i = 0; i < cnt; i++) b[i] = (T)((UT)(X) * (UT)(Y));                     \
        break;                                                                              \
    case GEX_OP_MIN:                                                                        \
        for (size_t i = 0; i < cnt; i++) b[i] = (X) < (Y) ? (X) : (Y);                      \
        break;                                                                              \
    case GEX_OP_MAX:                                                                        \
        for (size_t i = 0; i < cnt; i++) b[i] = (X) > (Y) ? (X) : (Y);                      \
        break;
#define RV_BITS                                                                             \
    case GEX_OP_AND: for (size_t i = 0; i < cnt; i++) b[i] &= a[i]; break;                  \
    case GEX_OP_OR:  for (size_t i = 0; i < cnt; i++) b[i] |= a[i]; break;                  \
    case GEX_OP_XOR: for (size_t i = 0; i < cnt; i++) b[i] ^= a[i]; break;
#define RV_INT_CASE(DT, T, UT, X, Y)                                                        \
    case DT: {                                                                              \
        const T *a = in;                                                                    \
        T *b = io;                                                                          \
        switch (op) { RV_ARITH(T, UT, X, Y) RV_BITS default: break; }                       \
        break;                                                                              \
    }
#define RV_FLT_CASE(DT, T, X, Y)                                                            \
    case DT: {                                                                              \
        const T *a = in;                                                                    \
        T *b = io;                                                                          \
        switch (op) { RV_ARITH(T, T, X, Y) default: break; }                                \
        break;                                                                              \
    }
#define RV_BUILTIN(X, Y)                                                                    \
    switch (o->dt) {                                                                        \
        RV_INT_CASE(GEX_DT_I32, int32_t, uint32_t, X, Y)                                    \
        RV_INT_CASE(GEX_DT_U32, uint32_t, uint32_t, X, Y)                                   \
        RV_INT_CASE(GEX_DT_I64, int64_t, uint64_t, X, Y)                                    \
        RV_INT_CASE(GEX_DT_U64, uint64_t, uint64_t, X, Y)                                   \
        RV_FLT_CASE(GEX_DT_FLT, float, X, Y)                                                \
        RV_FLT_CASE(GEX_DT_DBL, double, X, Y)                                               \
    default: break;                                                                         \
    }

/* The spec's expressions: op0 is the left ('in', lower ranks) operand. Signed integer
 * arithmetic wraps (done in the unsigned type). */
void rv_coll_combine(const struct rv_coll_op *o, const void *in, void *io, size_t cnt)
{
    gex_OP_t op = o->gop;
    if (!cnt) return;
    if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
        o->fn(in, io, cnt, o->cdata);
        return;
    }
    RV_BUILTIN(a[i], b[i])
}

void rv_coll_combine_left(const struct rv_coll_op *o, void *io, const void *in, size_t cnt)
{
    gex_OP_t op = o->gop;
    if (!cnt) return;
    if (op == GEX_OP_USER || op == GEX_OP_USER_NC) {
        /* the user's function writes its right operand: io's values move out first */
        size_t nb = cnt * o->dt_sz;
        void *t = rv_coll_mem_get(nb);
        memcpy(t, io, nb);
        memcpy(io, in, nb);
        o->fn(t, io, cnt, o->cdata);
        rv_coll_mem_put(t);
        return;
    }
    RV_BUILTIN(b[i], a[i])
}

void rv_coll_rd_setup(struct rv_coll_op *o)
{
    gex_Rank_t n = o->n, me = o->me;
    o->p2 = 1;
    while ((uint64_t)o->p2 * 2 <= n) o->p2 *= 2;
    o->rem = n - o->p2;
    if (me < 2 * o->rem) o->nr = (me & 1) ? me / 2 : GEX_RANK_INVALID;
    else o->nr = me - o->rem;
}

/* Small reductions keep no copy of src: o->acc, the running value, starts as src (or, two
 * levels, the neighbourhood's value), and o->w is where it is built (dst, or a buffer of the
 * op's where dst is not this rank's result). A partner's contribution lands straight in o->w
 * while the running value is still elsewhere, else in o->tmp; either way the result is in
 * o->w, which is the running value from then on. So two ranks reduce with no buffer and no
 * copy but the one combine, and a leaf of the tree sends src itself. */
static unsigned char *rv_absorb_buf(const struct rv_coll_op *o)
{
    return o->acc != o->w ? o->w : o->tmp;
}

static void rv_absorb(struct rv_coll_op *o, int partner_lower)
{
    if (o->acc != o->w) { /* landed in w; the running value is acc */
        if (partner_lower) rv_coll_combine_left(o, o->w, o->acc, o->dt_cnt);
        else rv_coll_combine(o, o->acc, o->w, o->dt_cnt);
        o->acc = o->w;
    } else { /* landed in tmp */
        if (partner_lower) rv_coll_combine(o, o->tmp, o->w, o->dt_cnt);
        else rv_coll_combine_left(o, o->w, o->tmp, o->dt_cnt);
    }
}

/* The buffers a small reduction that absorbs 'absorbs' contributions needs: o->tmp unless
 * at most the first one (landing in o->w) does. */
static void rv_absorb_setup(struct rv_coll_op *o, unsigned absorbs)
{
    if (absorbs >= 2 || (absorbs && o->acc == o->w)) o->tmp = o->mem[1] = rv_coll_mem_get(o->nbytes);
}

/* ReduceToAll, small: the first 2*rem ranks fold pairwise (even into odd), the p2
 * remaining ranks run recursive doubling (round k: exchange with nr ^ 2^k and combine,
 * lower group on the left, so every rank computes the same x0 OP x1 OP ... in rank
 * order: exact for GEX_OP_USER_NC and bitwise identical on every rank), then the odd
 * ranks hand the result back. log2(p2) rounds (+2 when size is not a power of two). */
static int rv_allreduce_small(struct rv_coll_op *o)
{
    gex_Rank_t me = o->me;
    size_t nb = o->nbytes;
    for (;;) {
        switch (o->state) {
        case 0: /* fold */
            if (me < 2 * o->rem) {
                if (!(me & 1)) {
                    rv_coll_queue(o, me + 1, RV_STEP_FOLD, o->acc, nb, 0);
                    o->state = 10;
                    break;
                }
                if (!rv_coll_recv(o, RV_STEP_FOLD, rv_absorb_buf(o), nb, nb, 1)) return 0;
                rv_absorb(o, 1);
            }
            o->state = 1;
            break;
        case 1: /* recursive doubling */
            while ((1u << o->k) < o->p2) {
                gex_Rank_t pnr = o->nr ^ (1u << o->k);
                if (!o->bstate) {
                    rv_coll_queue(o, rv_coll_rd_rank(o, pnr), RV_STEP_MAIN + o->k, o->acc, nb, 0);
                    o->bstate = 1;
                }
                if (!rv_coll_xchg(o, RV_STEP_MAIN + o->k, rv_absorb_buf(o), nb, nb)) return 0;
                o->bstate = 0;
                rv_absorb(o, pnr < o->nr);
                o->k++;
            }
            if (o->acc != (unsigned char *)o->dst) memmove(o->dst, o->acc, nb); /* a team of one */
            if (me < 2 * o->rem) rv_coll_queue(o, me - 1, RV_STEP_UNFOLD, o->dst, nb, 0);
            o->state = 2;
            break;
        case 2:
            return rv_coll_pump(o);
        default: /* 10: folded away; the result comes back (after what this rank sent left) */
            return rv_coll_xchg(o, RV_STEP_UNFOLD, o->dst, nb, nb);
        }
    }
}

/* ReduceToOne, small: binomial fan-in to 'troot' over virtual ranks vr = rank - troot
 * (round k: vr with bit k set sends its partial result to vr - 2^k, which combines it
 * on the right), then one message to the root if it is not troot. troot is the root,
 * except for GEX_OP_USER_NC, where it is rank 0 so that the order is the rank order. */
static gex_Rank_t rv_reduce_troot(const struct rv_coll_op *o)
{
    return o->gop == GEX_OP_USER_NC ? 0 : o->root;
}

static int rv_reduce_one_small(struct rv_coll_op *o)
{
    gex_Rank_t n = o->n, me = o->me;
    gex_Rank_t troot = rv_reduce_troot(o);
    uint64_t vr = ((uint64_t)me + n - troot) % n;
    size_t nb = o->nbytes;
    for (;;) {
        switch (o->state) {
        case 0:
            while (o->k < o->rounds) {
                uint64_t m = 1ull << o->k;
                if (vr & m) {
                    rv_coll_queue(o, (gex_Rank_t)((vr - m + troot) % n), RV_STEP_MAIN + o->k, o->acc,
                                  nb, 0);
                    o->state = 1;
                    break;
                }
                if (vr + m < n) {
                    if (!rv_coll_recv(o, RV_STEP_MAIN + o->k, rv_absorb_buf(o), nb, nb, 1)) return 0;
                    rv_absorb(o, 0);
                }
                o->k++;
            }
            if (o->state == 1) break;
            /* vr 0 holds the result */
            if (me == o->root) {
                if (o->acc != (unsigned char *)o->dst) memmove(o->dst, o->acc, nb); /* a team of one */
            } else {
                rv_coll_queue(o, o->root, RV_STEP_TOROOT, o->acc, nb, 0);
            }
            o->state = 1;
            break;
        case 1:
            if (!rv_coll_pump(o)) return 0;
            o->state = 2;
            break;
        default:
            if (me == o->root && me != troot &&
                !rv_coll_recv(o, RV_STEP_TOROOT, o->dst, nb, nb, 1))
                return 0;
            return 1;
        }
    }
}

/* Contributions a rank absorbs in the small algorithms. */
static unsigned rv_reduce_absorbs(const struct rv_coll_op *o)
{
    gex_Rank_t me = o->me;
    unsigned c = 0;
    if (o->all) {
        if (me < 2 * o->rem && !(me & 1)) return 0;
        if (me < 2 * o->rem) c++;
        for (gex_Rank_t d = 1; d < o->p2; d *= 2) c++;
        return c;
    }
    uint64_t n = o->n, vr = ((uint64_t)me + n - rv_reduce_troot(o)) % n;
    for (unsigned k = 0; k < o->rounds && !(vr & (1ull << k)); k++)
        if (vr + (1ull << k) < n) c++;
    return c;
}

static struct rv_coll_op *rv_reduce_new(const char *call, unsigned kind, gex_TM_t tm, gex_Rank_t root,
                                        void *dst, const void *src, gex_DT_t dt, size_t dt_sz,
                                        size_t dt_cnt, gex_OP_t op, gex_Coll_ReduceFn_t user_op,
                                        void *user_cdata)
{
    RV_CHECK_INIT(call);
    size_t want = 0;
    int isint = 0;
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: want = 4; isint = 1; break;
    case GEX_DT_I64: case GEX_DT_U64: want = 8; isint = 1; break;
    case GEX_DT_FLT: want = 4; break;
    case GEX_DT_DBL: want = 8; break;
    case GEX_DT_USER: break;
    default: rv_fatal("%s: dt 0x%x is not a GEX_DT_* data type", call, (unsigned)dt);
    }
    if (!dt_sz) rv_fatal("%s: dt_sz is 0", call);
    if (want && dt_sz != want)
        rv_fatal("%s: dt_sz %zu does not match the data type 0x%x (%zu bytes)", call, dt_sz,
                 (unsigned)dt, want);
    if (!dt_cnt) rv_fatal("%s: dt_cnt is 0 (the spec requires at least one element)", call);
    if (dt_cnt > SIZE_MAX / dt_sz) rv_fatal("%s: dt_sz * dt_cnt overflows", call);
    switch (op) {
    case GEX_OP_ADD: case GEX_OP_MULT: case GEX_OP_MIN: case GEX_OP_MAX:
        if (dt == GEX_DT_USER)
            rv_fatal("%s: GEX_DT_USER needs GEX_OP_USER or GEX_OP_USER_NC, not op 0x%x", call,
                     (unsigned)op);
        break;
    case GEX_OP_AND: case GEX_OP_OR: case GEX_OP_XOR:
        if (!isint)
            rv_fatal("%s: bitwise op 0x%x on dt 0x%x (only for integer types)", call, (unsigned)op,
                     (unsigned)dt);
        break;
    case GEX_OP_USER: case GEX_OP_USER_NC:
        if (!user_op) rv_fatal("%s: op 0x%x (user-defined) with a NULL user_op", call, (unsigned)op);
        break;
    default: rv_fatal("%s: op 0x%x is not valid for reductions", call, (unsigned)op);
    }
    if (!src) rv_fatal("%s: src is NULL", call);
    size_t nb = dt_sz * dt_cnt;
    struct rv_coll_sig sig = { .kind = kind, .root = root, .nbytes = nb, .dt = dt, .op = op };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, NULL);
    if ((kind == RV_COLL_REDUCE_ALL || tm->rank == root) && !dst)
        rv_fatal("%s: dst is NULL", call);
    o->dt = dt;
    o->dt_sz = dt_sz;
    o->dt_cnt = dt_cnt;
    o->gop = op;
    o->fn = user_op;
    o->cdata = user_cdata;
    o->all = kind == RV_COLL_REDUCE_ALL;
    /* two levels: the algorithm runs over the leaders, to the root's leader */
    int hier = rv_coll_hier_begin(o);
    if (hier && !o->all) o->root = o->ct->hier->lof[root];
    if (hier && o->me == GEX_RANK_INVALID) {
        /* not a leader: hands its contribution to its leader (hier.c) */
        o->acc = o->mem[0] = rv_coll_mem_get(nb);
        memcpy(o->acc, src, nb);
        rv_coll_hier_wrap(o);
        return o;
    }
    /* the root's leader gets the result in a buffer of its own if it is not the root */
    if (hier && !o->all && o->me == o->root && tm->rank != root) o->dst = o->mem[3] = rv_coll_mem_get(nb);
    rv_coll_rd_setup(o);
    o->large = o->n > 1 && nb >= rv_coll_large() && dt_cnt >= o->p2;
    if (o->large) {
        /* ReduceToAll works in dst itself; ReduceToOne needs its own (dst is the root's) */
        o->acc = o->all ? dst : (o->mem[0] = rv_coll_mem_get(nb));
        o->tmp = o->mem[1] = rv_coll_mem_get(nb);
        if (o->acc != src) memmove(o->acc, src, nb);
        o->advance = rv_coll_rsag_advance;
    } else {
        /* the leader's neighbourhood contributions are combined into its own copy (hier.c) */
        if (hier) memcpy(o->acc = o->mem[0] = rv_coll_mem_get(nb), src, nb);
        else o->acc = (unsigned char *)(uintptr_t)src; /* read, never written: o->w is */
        unsigned absorbs = rv_reduce_absorbs(o);
        if (o->all || (o->me == o->root && rv_reduce_troot(o) == o->root)) o->w = o->dst;
        else if (absorbs) o->w = o->mem[4] = rv_coll_mem_get(nb);
        rv_absorb_setup(o, absorbs);
        o->advance = o->all ? rv_allreduce_small : rv_reduce_one_small;
    }
    if (hier) rv_coll_hier_wrap(o);
    return o;
}

gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                   gex_DT_t dt, size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    if (root == GEX_RANK_INVALID)
        rv_fatal("gex_Coll_ReduceToOneNB: root is GEX_RANK_INVALID");
    return rv_coll_op_start(rv_reduce_new("gex_Coll_ReduceToOneNB", RV_COLL_REDUCE_ONE, tm, root, dst,
                                          src, dt, dt_sz, dt_cnt, op, user_op, user_cdata));
}

gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                   size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                   gex_Coll_ReduceFn_t user_op, void *user_cdata, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_op_start(rv_reduce_new("gex_Coll_ReduceToAllNB", RV_COLL_REDUCE_ALL, tm,
                                          GEX_RANK_INVALID, dst, src, dt, dt_sz, dt_cnt, op, user_op,
                                          user_cdata));
}
