/* SPDX-License-Identifier: BSD-3-Clause */
/* ratomic/ratomic.c: atomic domains and gex_AD_Op{NB,NBI}_<DT>: argument checks, CPU atomics on a
 * mapped neighbourhood segment, and the AM reference (the target applies the same CPU atomics). */
#include "core/core.h"
#include "event/event.h"
#include "am/am_int.h"
#include "gasnet_ratomic.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct rv_ad {
    gex_TM_t    tm;
    gex_DT_t    dt;
    gex_OP_t    ops;
    gex_Flags_t flags;
    void       *cdata;
    int         ref_only; /* RIVET_RATOMIC=ref at creation: AM reference for every peer */
};

#define RV_OPS_ARITH                                                                          \
    (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT | GEX_OP_FMULT |       \
     GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX | GEX_OP_FMAX | GEX_OP_INC | GEX_OP_FINC |         \
     GEX_OP_DEC | GEX_OP_FDEC)
#define RV_OPS_BIT (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define RV_OPS_ACCESS (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS)
#define RV_OPS_FETCHING                                                                       \
    (GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC |     \
     GEX_OP_FDEC | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS |        \
     GEX_OP_GET)

static int rv_ad_is_float(gex_DT_t dt) { return dt == GEX_DT_FLT || dt == GEX_DT_DBL; }
static size_t rv_ad_size(gex_DT_t dt) { return (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4 : 8; }
static gex_OP_t rv_ad_valid_ops(gex_DT_t dt)
{
    return RV_OPS_ARITH | RV_OPS_ACCESS | (rv_ad_is_float(dt) ? 0 : RV_OPS_BIT);
}

static const char *rv_dt_name(gex_DT_t dt)
{
    switch (dt) {
    case GEX_DT_I32: return "GEX_DT_I32";
    case GEX_DT_U32: return "GEX_DT_U32";
    case GEX_DT_I64: return "GEX_DT_I64";
    case GEX_DT_U64: return "GEX_DT_U64";
    case GEX_DT_FLT: return "GEX_DT_FLT";
    case GEX_DT_DBL: return "GEX_DT_DBL";
    default: return "an unknown gex_DT_t";
    }
}

/* ---- the atomic operations themselves ----------------------------------- */
/* Values travel as the low bits of a uint64_t. Each returns the value found at p before the
 * operation (for CAS/FCAS too); INC/DEC ignore the operands. Integer arithmetic runs on the
 * unsigned type (wraparound, no undefined behaviour); MIN/MAX compare as the client type. */
#define RV_AMO_INT(NAME, UT, CT)                                                              \
    static UT NAME(UT *p, gex_OP_t op, UT a, UT b)                                            \
    {                                                                                         \
        UT old, nv;                                                                           \
        switch (op) {                                                                         \
        case GEX_OP_GET: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                         \
        case GEX_OP_SET: __atomic_store_n(p, a, __ATOMIC_SEQ_CST); return 0;                  \
        case GEX_OP_SWAP: return __atomic_exchange_n(p, a, __ATOMIC_SEQ_CST);                 \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                                    \
            old = a;                                                                          \
            __atomic_compare_exchange_n(p, &old, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
            return old;                                                                       \
        case GEX_OP_ADD: case GEX_OP_FADD: return __atomic_fetch_add(p, a, __ATOMIC_SEQ_CST); \
        case GEX_OP_SUB: case GEX_OP_FSUB: return __atomic_fetch_sub(p, a, __ATOMIC_SEQ_CST); \
        case GEX_OP_INC: case GEX_OP_FINC: return __atomic_fetch_add(p, 1, __ATOMIC_SEQ_CST); \
        case GEX_OP_DEC: case GEX_OP_FDEC: return __atomic_fetch_sub(p, 1, __ATOMIC_SEQ_CST); \
        case GEX_OP_AND: case GEX_OP_FAND: return __atomic_fetch_and(p, a, __ATOMIC_SEQ_CST); \
        case GEX_OP_OR: case GEX_OP_FOR: return __atomic_fetch_or(p, a, __ATOMIC_SEQ_CST);    \
        case GEX_OP_XOR: case GEX_OP_FXOR: return __atomic_fetch_xor(p, a, __ATOMIC_SEQ_CST); \
        default: break;                                                                       \
        }                                                                                     \
        old = __atomic_load_n(p, __ATOMIC_RELAXED);                                           \
        do {                                                                                  \
            if (op == GEX_OP_MULT || op == GEX_OP_FMULT) nv = (UT)(old * a);                  \
            else if (op == GEX_OP_MIN || op == GEX_OP_FMIN) nv = (CT)a < (CT)old ? a : old;   \
            else nv = (CT)a > (CT)old ? a : old;                                              \
        } while (!__atomic_compare_exchange_n(p, &old, nv, 1, __ATOMIC_SEQ_CST,               \
                                              __ATOMIC_RELAXED));                             \
        return old;                                                                           \
    }
RV_AMO_INT(rv_amo_i32, uint32_t, int32_t)
RV_AMO_INT(rv_amo_u32, uint32_t, uint32_t)
RV_AMO_INT(rv_amo_i64, uint64_t, int64_t)
RV_AMO_INT(rv_amo_u64, uint64_t, uint64_t)

/* Floating point: the bits are the atomic object; CAS compares bit patterns. */
#define RV_AMO_FP(NAME, UT, FT)                                                               \
    static UT NAME(UT *p, gex_OP_t op, UT a, UT b)                                            \
    {                                                                                         \
        UT old, nv;                                                                           \
        FT x, y, r;                                                                           \
        switch (op) {                                                                         \
        case GEX_OP_GET: return __atomic_load_n(p, __ATOMIC_SEQ_CST);                         \
        case GEX_OP_SET: __atomic_store_n(p, a, __ATOMIC_SEQ_CST); return 0;                  \
        case GEX_OP_SWAP: return __atomic_exchange_n(p, a, __ATOMIC_SEQ_CST);                 \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                                    \
            old = a;                                                                          \
            __atomic_compare_exchange_n(p, &old, b, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);   \
            return old;                                                                       \
        default: break;                                                                       \
        }                                                                                     \
        memcpy(&y, &a, sizeof y);                                                             \
        old = __atomic_load_n(p, __ATOMIC_RELAXED);                                           \
        do {                                                                                  \
            memcpy(&x, &old, sizeof x);                                                       \
            switch (op) {                                                                     \
            case GEX_OP_ADD: case GEX_OP_FADD: r = x + y; break;                              \
            case GEX_OP_SUB: case GEX_OP_FSUB: r = x - y; break;                              \
            case GEX_OP_MULT: case GEX_OP_FMULT: r = x * y; break;                            \
            case GEX_OP_MIN: case GEX_OP_FMIN: r = y < x ? y : x; break;                      \
            case GEX_OP_MAX: case GEX_OP_FMAX: r = y > x ? y : x; break;                      \
            case GEX_OP_INC: case GEX_OP_FINC: r = x + (FT)1; break;                          \
            default: r = x - (FT)1; break;                                                    \
            }                                                                                 \
            memcpy(&nv, &r, sizeof nv);                                                       \
        } while (!__atomic_compare_exchange_n(p, &old, nv, 1, __ATOMIC_SEQ_CST,               \
                                              __ATOMIC_RELAXED));                             \
        return old;                                                                           \
    }
RV_AMO_FP(rv_amo_flt, uint32_t, float)
RV_AMO_FP(rv_amo_dbl, uint64_t, double)

static uint64_t rv_amo_apply(gex_DT_t dt, gex_OP_t op, void *p, uint64_t a, uint64_t b)
{
    switch (dt) {
    case GEX_DT_I32: return rv_amo_i32(p, op, (uint32_t)a, (uint32_t)b);
    case GEX_DT_U32: return rv_amo_u32(p, op, (uint32_t)a, (uint32_t)b);
    case GEX_DT_I64: return rv_amo_i64(p, op, a, b);
    case GEX_DT_U64: return rv_amo_u64(p, op, a, b);
    case GEX_DT_FLT: return rv_amo_flt(p, op, (uint32_t)a, (uint32_t)b);
    default: return rv_amo_dbl(p, op, a, b);
    }
}

static void rv_amo_store_result(void *result_p, size_t size, uint64_t v)
{
    if (size == 4) {
        uint32_t v32 = (uint32_t)v;
        memcpy(result_p, &v32, 4);
    } else {
        memcpy(result_p, &v, 8);
    }
}

/* ---- the AM reference ----------------------------------------------------- */

typedef struct rv_amo_op {
    struct rv_op  root;
    _Atomic int   done;
    void         *result_p; /* NULL: not fetching */
    size_t        size;
    rv_nbi_set_t *nbi;      /* NBI: set to report to, and the op frees itself */
    int           ec;
} rv_amo_op_t;

static int rv_amo_test(struct rv_op *o)
{
    return atomic_load_explicit(&((rv_amo_op_t *)o)->done, memory_order_acquire);
}

static void rv_amo_release(struct rv_op *o) { free(o); }

static inline void rv_ptr_args(gex_AM_Arg_t *a, uint64_t v)
{
    a[0] = (gex_AM_Arg_t)(uint32_t)v;
    a[1] = (gex_AM_Arg_t)(uint32_t)(v >> 32);
}

static inline uint64_t rv_args_u64(const gex_AM_Arg_t *a)
{
    return (uint64_t)(uint32_t)a[0] | (uint64_t)(uint32_t)a[1] << 32;
}

/* args: op(2), target address(2), opcode, dt, operand1(2), operand2(2). */
static void rv_amo_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                           unsigned nargs)
{
    (void)buf, (void)nbytes;
    const struct rv_segment *seg = rv_client_g->ep0->seg;
    uintptr_t t = (uintptr_t)rv_args_u64(a + 2), base = seg ? (uintptr_t)seg->addr : 0;
    gex_DT_t dt = (gex_DT_t)a[5];
    size_t n = rv_ad_size(dt);
    if (nargs != 10 || !seg || t < base || n > seg->size || t - base > seg->size - n)
        rv_fatal("reference atomic from rank %u: target [%p, +%zu) is outside the bound segment "
                 "of this rank", tok->src, (void *)t, n);
    uint64_t old = rv_amo_apply(dt, (gex_OP_t)a[4], (void *)t, rv_args_u64(a + 6),
                                rv_args_u64(a + 8));
    gex_AM_Arg_t r[4] = {a[0], a[1], 0, 0};
    rv_ptr_args(r + 2, old);
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_SHORT, RV_AMI_AMO_REPLY, r, 4, NULL, 0, NULL, 0);
}

static void rv_amo_reply_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                                 unsigned nargs)
{
    (void)tok, (void)buf, (void)nbytes, (void)nargs;
    rv_amo_op_t *op = (rv_amo_op_t *)(uintptr_t)rv_args_u64(a);
    if (op->result_p) rv_amo_store_result(op->result_p, op->size, rv_args_u64(a + 2));
    if (op->nbi) {
        rv_nbi_set_t *nbi = op->nbi;
        int ec = op->ec;
        free(op);
        rv_nbi_done(nbi, ec);
    } else {
        atomic_store_explicit(&op->done, 1, memory_order_release);
    }
}

/* ---- domains -------------------------------------------------------------- */

static pthread_once_t rv_ratomic_once = PTHREAD_ONCE_INIT;
static int rv_ratomic_ref_only;

static void rv_ratomic_init(void)
{
    if (!strcmp(rv_cfg.RATOMIC, "ref")) rv_ratomic_ref_only = 1;
    else if (strcmp(rv_cfg.RATOMIC, "auto"))
        rv_fatal("environment: RIVET_RATOMIC=%s is not one of auto, ref", rv_cfg.RATOMIC);
    rv_am_register_internal(RV_AMI_AMO, rv_amo_handler);
    rv_am_register_internal(RV_AMI_AMO_REPLY, rv_amo_reply_handler);
}

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_AD_Create");
    if (!ad_p) rv_fatal("gex_AD_Create: ad_p is NULL");
    if (tm == GEX_TM_INVALID) rv_fatal("gex_AD_Create: tm is GEX_TM_INVALID");
    if (dt != GEX_DT_I32 && dt != GEX_DT_U32 && dt != GEX_DT_I64 && dt != GEX_DT_U64 &&
        dt != GEX_DT_FLT && dt != GEX_DT_DBL)
        rv_fatal("gex_AD_Create: dt 0x%x is not one of GEX_DT_{I32,U32,I64,U64,FLT,DBL}",
                 (unsigned)dt);
    if (ops & ~rv_ad_valid_ops(dt))
        rv_fatal("gex_AD_Create: ops 0x%x include 0x%x, not valid for %s%s", (unsigned)ops,
                 (unsigned)(ops & ~rv_ad_valid_ops(dt)), rv_dt_name(dt),
                 rv_ad_is_float(dt) ? " (bitwise ops are integer-only; GEX_OP_USER is not supported)"
                                    : " (GEX_OP_USER is not supported)");
    pthread_once(&rv_ratomic_once, rv_ratomic_init);
    struct rv_ad *ad = calloc(1, sizeof *ad);
    if (!ad) rv_fatal("gex_AD_Create: out of memory");
    ad->tm = tm;
    ad->dt = dt;
    ad->ops = ops;
    ad->flags = flags;
    ad->ref_only = rv_ratomic_ref_only;
    rv_verbose(1, "gex_AD_Create: %s ops 0x%x: %s", rv_dt_name(dt), (unsigned)ops,
               ad->ref_only ? "AM reference for every peer"
                            : "CPU atomics on mapped neighbourhood segments, AM reference otherwise");
    /* Collective: no rank may target a peer before that peer's handlers exist. */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    *ad_p = ad;
}

void gex_AD_Destroy(gex_AD_t ad)
{
    RV_CHECK_INIT("gex_AD_Destroy");
    if (!ad) rv_fatal("gex_AD_Destroy: ad is GEX_AD_INVALID");
    gex_Event_Wait(gex_Coll_BarrierNB(ad->tm, 0));
    free(ad);
}

#define RV_AD_GET(call, ad) \
    ((ad) ? (ad) : (rv_fatal(call ": ad is GEX_AD_INVALID"), (ad)))
gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad) { return RV_AD_GET("gex_AD_QueryFlags", ad)->flags; }
gex_TM_t gex_AD_QueryTM(gex_AD_t ad) { return RV_AD_GET("gex_AD_QueryTM", ad)->tm; }
gex_DT_t gex_AD_QueryDT(gex_AD_t ad) { return RV_AD_GET("gex_AD_QueryDT", ad)->dt; }
gex_OP_t gex_AD_QueryOps(gex_AD_t ad) { return RV_AD_GET("gex_AD_QueryOps", ad)->ops; }
void gex_AD_SetCData(gex_AD_t ad, const void *val)
{
    RV_AD_GET("gex_AD_SetCData", ad)->cdata = (void *)val;
}
void *gex_AD_QueryCData(gex_AD_t ad) { return RV_AD_GET("gex_AD_QueryCData", ad)->cdata; }

/* ---- operations ----------------------------------------------------------- */

/* Returns the event (NB) or NULL/GEX_EVENT_NO_OP (NBI and NB alike). */
static gex_Event_t rv_ad_op(const char *call, gex_AD_t ad, gex_DT_t dt, void *result_p,
                            gex_Rank_t rank, void *addr, gex_OP_t op, uint64_t a, uint64_t b,
                            gex_Flags_t flags, int is_nbi)
{
    RV_CHECK_INIT(call);
    if (__builtin_expect(!ad, 0)) rv_fatal("%s: ad is GEX_AD_INVALID", call);
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("%s called inside an AM handler; handlers may only Reply", call);
    if (__builtin_expect(ad->dt != dt, 0))
        rv_fatal("%s: the domain's type is %s, not %s", call, rv_dt_name(ad->dt), rv_dt_name(dt));
    if (__builtin_expect(!op || (op & (op - 1)) || !(op & ad->ops), 0))
        rv_fatal("%s: opcode 0x%x is not one of the domain's ops 0x%x (given to gex_AD_Create)",
                 call, (unsigned)op, (unsigned)ad->ops);
    int fetching = (op & RV_OPS_FETCHING) != 0;
    if (__builtin_expect(fetching && !result_p, 0))
        rv_fatal("%s: result_p is NULL for fetching opcode 0x%x", call, (unsigned)op);
    gex_Rank_t jr;
    if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
        if (__builtin_expect(rank >= rv_job.size, 0))
            rv_fatal("%s: jobrank %u is out of range (job size %u)", call, rank, rv_job.size);
        jr = rank;
    } else {
        jr = rv_tm_check_rank(call, ad->tm, rank);
    }
    size_t n = rv_ad_size(dt);
    const rv_segmap_t *m = rv_segmap ? &rv_segmap[jr] : NULL;
    uintptr_t t = (uintptr_t)addr, base = m ? (uintptr_t)m->owner_base : 0;
    if (__builtin_expect(!m || !m->size || t < base || n > m->size || t - base > m->size - n, 0)) {
        if (!m || !m->size) rv_fatal("%s: rank %u has no bound segment", call, rank);
        rv_fatal("%s: target [%p, %p) is outside the bound segment [%p, %p) of rank %u", call,
                 addr, (void *)(t + n), m->owner_base, (void *)(base + m->size), rank);
    }
    if (__builtin_expect(t & (n - 1), 0))
        rv_fatal("%s: target %p of rank %u is not %zu-byte aligned", call, addr, rank, n);

    if (m->local_base && !ad->ref_only) {
        void *p = (char *)m->local_base + (t - base);
        uint64_t old = rv_amo_apply(dt, op, p, a, b);
        if (fetching) rv_amo_store_result(result_p, n, old);
        return GEX_EVENT_INVALID;
    }

    rv_amo_op_t *o = malloc(sizeof *o);
    if (!o) rv_fatal("%s: out of memory", call);
    o->root.test = rv_amo_test;
    o->root.release = rv_amo_release;
    o->root.leaf = NULL;
    atomic_store_explicit(&o->done, 0, memory_order_relaxed);
    o->result_p = fetching ? result_p : NULL;
    o->size = n;
    o->ec = op == GEX_OP_SET ? RV_EC_PUT : op == GEX_OP_GET ? RV_EC_GET : RV_EC_RMW;
    o->nbi = is_nbi ? rv_nbi_current() : NULL;
    if (o->nbi) rv_nbi_add(o->nbi, o->ec);
    gex_AM_Arg_t args[10];
    rv_ptr_args(args, (uint64_t)(uintptr_t)o);
    rv_ptr_args(args + 2, (uint64_t)t);
    args[4] = (gex_AM_Arg_t)op;
    args[5] = (gex_AM_Arg_t)dt;
    rv_ptr_args(args + 6, a);
    rv_ptr_args(args + 8, b);
    if (rv_am_send_internal(jr, RV_CHAN_REQ, RV_AM_SHORT, RV_AMI_AMO, args, 10, NULL, 0, NULL,
                            flags & GEX_FLAG_IMMEDIATE)) {
        if (o->nbi) rv_nbi_done(o->nbi, o->ec);
        free(o);
        return GEX_EVENT_NO_OP;
    }
    return is_nbi ? GEX_EVENT_INVALID : &o->root;
}

#define RV_AD_DEF(DT, T, UT)                                                                   \
    static inline uint64_t rv_ad_bits_##DT(T v)                                              \
    {                                                                                         \
        UT u;                                                                                 \
        memcpy(&u, &v, sizeof u);                                                             \
        return (uint64_t)u;                                                                   \
    }                                                                                         \
    gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,               \
                                 void *tgt_addr, gex_OP_t opcode, T operand1, T operand2,      \
                                 gex_Flags_t flags)                                            \
    {                                                                                         \
        return rv_ad_op("gex_AD_OpNB_" #DT, ad, GEX_DT_##DT, result_p, tgt_rank, tgt_addr,    \
                        opcode, rv_ad_bits_##DT(operand1), rv_ad_bits_##DT(operand2), flags, 0); \
    }                                                                                         \
    int gex_AD_OpNBI_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank, void *tgt_addr,      \
                          gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags)         \
    {                                                                                         \
        return rv_ad_op("gex_AD_OpNBI_" #DT, ad, GEX_DT_##DT, result_p, tgt_rank, tgt_addr,   \
                        opcode, rv_ad_bits_##DT(operand1), rv_ad_bits_##DT(operand2), flags,  \
                        1) == GEX_EVENT_NO_OP;                                                 \
    }
RV_AD_DEF(I32, int32_t, uint32_t)
RV_AD_DEF(U32, uint32_t, uint32_t)
RV_AD_DEF(I64, int64_t, uint64_t)
RV_AD_DEF(U64, uint64_t, uint64_t)
RV_AD_DEF(FLT, float, uint32_t)
RV_AD_DEF(DBL, double, uint64_t)
