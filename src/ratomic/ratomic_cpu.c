/* SPDX-License-Identifier: BSD-3-Clause */
/* ratomic/ratomic_cpu.c: the remote-atomic operations as CPU atomics on a word of memory, used on
 * a mapped neighbourhood segment by the initiator and at the target by the AM reference. */
#include "ratomic/ratomic_int.h"

#include <string.h>

/* Every function returns the value found at p before the operation (for CAS too); INC/DEC
 * ignore the operands. Integer arithmetic runs on the unsigned type (two's complement
 * wraparound, no undefined behaviour); MIN/MAX compare as the client's type. The results
 * are the spec's expressions, e.g. MIN: (op0 < op1) ? op0 : op1, so for floats a NaN or a
 * signed zero comes out exactly as that C expression says. CAS never fails spuriously
 * (strong compare-exchange); for floats it compares bit patterns, as the spec permits.
 * MO is the memory order of the access (relaxed, or seq_cst under ACQ/REL). */
#define RV_AMO_INT(NAME, UT, CT, MO)                                                          \
    static inline __attribute__((always_inline)) uint64_t NAME(void *vp, gex_OP_t op,          \
                                                               uint64_t a64, uint64_t b64)     \
    {                                                                                         \
        UT *p = vp, a = (UT)a64, b = (UT)b64, old, nv;                                        \
        switch (op) {                                                                         \
        case GEX_OP_GET: return __atomic_load_n(p, MO);                                       \
        case GEX_OP_SET: __atomic_store_n(p, a, MO); return 0;                                \
        case GEX_OP_SWAP: return __atomic_exchange_n(p, a, MO);                               \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                                    \
            old = a;                                                                          \
            __atomic_compare_exchange_n(p, &old, b, 0, MO, MO);                               \
            return old;                                                                       \
        case GEX_OP_ADD: case GEX_OP_FADD: return __atomic_fetch_add(p, a, MO);               \
        case GEX_OP_SUB: case GEX_OP_FSUB: return __atomic_fetch_sub(p, a, MO);               \
        case GEX_OP_INC: case GEX_OP_FINC: return __atomic_fetch_add(p, 1, MO);               \
        case GEX_OP_DEC: case GEX_OP_FDEC: return __atomic_fetch_sub(p, 1, MO);               \
        case GEX_OP_AND: case GEX_OP_FAND: return __atomic_fetch_and(p, a, MO);               \
        case GEX_OP_OR: case GEX_OP_FOR: return __atomic_fetch_or(p, a, MO);                  \
        case GEX_OP_XOR: case GEX_OP_FXOR: return __atomic_fetch_xor(p, a, MO);               \
        default: break;                                                                       \
        }                                                                                     \
        old = __atomic_load_n(p, __ATOMIC_RELAXED);                                           \
        do {                                                                                  \
            if (op == GEX_OP_MULT || op == GEX_OP_FMULT) nv = (UT)(old * a);                  \
            else if (op == GEX_OP_MIN || op == GEX_OP_FMIN) nv = (CT)old < (CT)a ? old : a;   \
            else nv = (CT)old > (CT)a ? old : a;                                              \
        } while (!__atomic_compare_exchange_n(p, &old, nv, 1, MO, __ATOMIC_RELAXED));         \
        return old;                                                                           \
    }

#define RV_AMO_FP(NAME, UT, FT, MO)                                                           \
    static inline __attribute__((always_inline)) uint64_t NAME(void *vp, gex_OP_t op,          \
                                                               uint64_t a64, uint64_t b64)     \
    {                                                                                         \
        UT *p = vp, a = (UT)a64, b = (UT)b64, old, nv;                                        \
        FT x, y, r;                                                                           \
        switch (op) {                                                                         \
        case GEX_OP_GET: return __atomic_load_n(p, MO);                                       \
        case GEX_OP_SET: __atomic_store_n(p, a, MO); return 0;                                \
        case GEX_OP_SWAP: return __atomic_exchange_n(p, a, MO);                               \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                                    \
            old = a;                                                                          \
            __atomic_compare_exchange_n(p, &old, b, 0, MO, MO);                               \
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
            case GEX_OP_MIN: case GEX_OP_FMIN: r = x < y ? x : y; break;                      \
            case GEX_OP_MAX: case GEX_OP_FMAX: r = x > y ? x : y; break;                      \
            case GEX_OP_INC: case GEX_OP_FINC: r = x + (FT)1; break;                          \
            default: r = x - (FT)1; break;                                                    \
            }                                                                                 \
            memcpy(&nv, &r, sizeof nv);                                                       \
        } while (!__atomic_compare_exchange_n(p, &old, nv, 1, MO, __ATOMIC_RELAXED));         \
        return old;                                                                           \
    }

/* Always inline: each table function below fixes op (no switch); rv_ratomic_cpu_fn takes
 * the address of these, an out-of-line copy that switches on op. */
RV_AMO_INT(rv_amo_i32, uint32_t, int32_t, __ATOMIC_RELAXED)
RV_AMO_INT(rv_amo_u32, uint32_t, uint32_t, __ATOMIC_RELAXED)
RV_AMO_INT(rv_amo_i64, uint64_t, int64_t, __ATOMIC_RELAXED)
RV_AMO_INT(rv_amo_u64, uint64_t, uint64_t, __ATOMIC_RELAXED)
RV_AMO_FP(rv_amo_flt, uint32_t, float, __ATOMIC_RELAXED)
RV_AMO_FP(rv_amo_dbl, uint64_t, double, __ATOMIC_RELAXED)
RV_AMO_INT(rv_amo_i32_sc, uint32_t, int32_t, __ATOMIC_SEQ_CST)
RV_AMO_INT(rv_amo_u32_sc, uint32_t, uint32_t, __ATOMIC_SEQ_CST)
RV_AMO_INT(rv_amo_i64_sc, uint64_t, int64_t, __ATOMIC_SEQ_CST)
RV_AMO_INT(rv_amo_u64_sc, uint64_t, uint64_t, __ATOMIC_SEQ_CST)
RV_AMO_FP(rv_amo_flt_sc, uint32_t, float, __ATOMIC_SEQ_CST)
RV_AMO_FP(rv_amo_dbl_sc, uint64_t, double, __ATOMIC_SEQ_CST)

/* The tables of rv_ratomic_cpu_tab: one relaxed function per op (the body with that op
 * constant: no switch), at the op's bit position; NULL for ops not valid for the type. */
#define RV_AMO_ONE(T, O)                                                                      \
    static uint64_t rv_amo_##T##_##O(void *p, uint64_t a, uint64_t b)                         \
    {                                                                                         \
        return rv_amo_##T(p, GEX_OP_##O, a, b);                                               \
    }
#define RV_AMO_SLOT(T, O) [__builtin_ctz(GEX_OP_##O)] = rv_amo_##T##_##O,
#define RV_AMO_FP_OPS(X, T)                                                                   \
    X(T, ADD) X(T, FADD) X(T, SUB) X(T, FSUB) X(T, MULT) X(T, FMULT) X(T, MIN) X(T, FMIN)     \
    X(T, MAX) X(T, FMAX) X(T, INC) X(T, FINC) X(T, DEC) X(T, FDEC) X(T, SET) X(T, GET)        \
    X(T, SWAP) X(T, CAS) X(T, FCAS)
#define RV_AMO_INT_OPS(X, T)                                                                  \
    RV_AMO_FP_OPS(X, T) X(T, AND) X(T, FAND) X(T, OR) X(T, FOR) X(T, XOR) X(T, FXOR)
#define RV_AMO_TAB(T, OPS)                                                                    \
    OPS(RV_AMO_ONE, T)                                                                        \
    static const rv_amo_op_fn_t rv_amo_tab_##T[32] = {OPS(RV_AMO_SLOT, T)};
RV_AMO_TAB(i32, RV_AMO_INT_OPS)
RV_AMO_TAB(u32, RV_AMO_INT_OPS)
RV_AMO_TAB(i64, RV_AMO_INT_OPS)
RV_AMO_TAB(u64, RV_AMO_INT_OPS)
RV_AMO_TAB(flt, RV_AMO_FP_OPS)
RV_AMO_TAB(dbl, RV_AMO_FP_OPS)

const rv_amo_op_fn_t *rv_ratomic_cpu_tab(gex_DT_t dt)
{
    switch (dt) {
    case GEX_DT_I32: return rv_amo_tab_i32;
    case GEX_DT_U32: return rv_amo_tab_u32;
    case GEX_DT_I64: return rv_amo_tab_i64;
    case GEX_DT_U64: return rv_amo_tab_u64;
    case GEX_DT_FLT: return rv_amo_tab_flt;
    case GEX_DT_DBL: return rv_amo_tab_dbl;
    default: return NULL;
    }
}

rv_amo_fn_t rv_ratomic_cpu_fn(gex_DT_t dt, int strong)
{
    switch (dt) {
    case GEX_DT_I32: return strong ? rv_amo_i32_sc : rv_amo_i32;
    case GEX_DT_U32: return strong ? rv_amo_u32_sc : rv_amo_u32;
    case GEX_DT_I64: return strong ? rv_amo_i64_sc : rv_amo_i64;
    case GEX_DT_U64: return strong ? rv_amo_u64_sc : rv_amo_u64;
    case GEX_DT_FLT: return strong ? rv_amo_flt_sc : rv_amo_flt;
    case GEX_DT_DBL: return strong ? rv_amo_dbl_sc : rv_amo_dbl;
    default: return NULL;
    }
}
