/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_ratomic.h: the spec's remote atomics: atomic domains (gex_AD_*) and the typed
 * gex_AD_OpNB_<DT> / gex_AD_OpNBI_<DT> calls. gex_DT_t, gex_OP_t, GEX_DT_*, GEX_OP_* and
 * the GEX_FLAG_AD_* flags come from gasnetex.h. See docs/atomics.md. */
#ifndef _GASNET_RATOMIC_H
#define _GASNET_RATOMIC_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

typedef struct rv_ad *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

/* Collective over tm. dt: one of GEX_DT_{I32,U32,I64,U64,FLT,DBL}; ops: the set of
 * GEX_OP_* the domain will be used with (bitwise ops only for integer types). */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective; every operation on the domain must be complete. */
extern void gex_AD_Destroy(gex_AD_t ad);

extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t    gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t    gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t    gex_AD_QueryOps(gex_AD_t ad);
extern void        gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void       *gex_AD_QueryCData(gex_AD_t ad);

/* (ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags). result_p receives
 * the fetched value for fetching ops (GEX_OP_F*, SWAP, FCAS, GET) and is ignored otherwise.
 * NB returns an event (GEX_EVENT_INVALID when already complete, GEX_EVENT_NO_OP when
 * GEX_FLAG_IMMEDIATE found no resources); NBI returns 0, or 1 for the latter. */
#define RV_AD_DECL(DT, T)                                                                     \
    extern gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,       \
                                        void *tgt_addr, gex_OP_t opcode, T operand1,          \
                                        T operand2, gex_Flags_t flags);                       \
    extern int gex_AD_OpNBI_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,              \
                                 void *tgt_addr, gex_OP_t opcode, T operand1, T operand2,     \
                                 gex_Flags_t flags);
RV_AD_DECL(I32, int32_t)
RV_AD_DECL(U32, uint32_t)
RV_AD_DECL(I64, int64_t)
RV_AD_DECL(U64, uint64_t)
RV_AD_DECL(FLT, float)
RV_AD_DECL(DBL, double)
#undef RV_AD_DECL

/* ---- inline fast path (reserved: _rivet_* are not API) ------------------------------------
 * An operation on a domain that uses CPU atomics, flags 0, outside an AM handler, on a valid
 * target this process maps: done here, as the library would do it (relaxed): one CPU atomic
 * for an integer type and a compile-time opcode; for FLT/DBL a compile-time opcode is one
 * CPU atomic (GET SET SWAP CAS FCAS) or a compare-exchange loop on the word's bits (the
 * arithmetic ones, the same expressions as the library's); (F)ADD known only at run time is
 * the fetch-add (integers) or that loop (FLT/DBL); any other op a call of the domain's CPU
 * function for that op (no checks left to make, no switch). Anything else calls the library,
 * which makes every check with its message. The head mirrors the library's struct rv_ad (it
 * asserts the layout); clients must not use it. RIVET_NO_INLINE turns it off. */
/* the relaxed CPU atomic, one op, on a local word; returns the old value */
typedef uint64_t (*_rivet_amo_fn_t)(void *p, uint64_t a, uint64_t b);
struct _rivet_ad_head {
    const struct _rivet_segent *seg; /* the segment table, once the library knows it */
    const gex_Rank_t *jobranks;       /* [size]: team rank -> jobrank (never NULL) */
    const _rivet_amo_fn_t *fn; /* [log2 of a GEX_OP_*]: the function for each op of the type */
    /* [log2 of a GEX_DT_*]: the domain's ops in its type's slot when it uses CPU atomics,
     * else 0 (so one test checks the type and the op) */
    gex_OP_t fast[6];
    gex_Rank_t size; /* the team's size once seg is set (stored after it), else 0 */
};

#if defined(__GNUC__) && !defined(RV_BUILDING_LIBRIVET) && !defined(RIVET_NO_INLINE)
#define _RIVET_AD_INLINE_OPS                                                                  \
    (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS | GEX_OP_ADD |          \
     GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC |         \
     GEX_OP_FDEC | GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
/* FLT/DBL: done as a CPU atomic on the bits, or as a compare-exchange loop */
#define _RIVET_AD_FP_BITS (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS)
#define _RIVET_AD_FP_ARITH                                                                    \
    (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_INC | GEX_OP_FINC |         \
     GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_MULT | GEX_OP_FMULT | GEX_OP_MIN | GEX_OP_FMIN |       \
     GEX_OP_MAX | GEX_OP_FMAX)
#define _RIVET_AD_FETCHING                                                                    \
    (GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC |     \
     GEX_OP_FDEC | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS |        \
     GEX_OP_GET)

/* The local address of the n-byte word addr of (ad's team, rank), or NULL: library path. */
static inline __attribute__((always_inline)) char *
_rivet_ad_direct(gex_AD_t ad, gex_DT_t dt, gex_Rank_t rank, void *addr, gex_OP_t op,
                 gex_Flags_t flags, unsigned n)
{
    const struct _rivet_ad_head *a = (const struct _rivet_ad_head *)(const void *)ad;
    if (__builtin_expect(!a || flags || !(op & a->fast[__builtin_ctz(dt)]) ||
                             _rivet_am_token != 0, 0))
        return 0;
    /* acquire: pairs with the library's release store of size after seg (a plain load on
     * x86; elsewhere it keeps a stale NULL seg from being read after a non-zero size) */
    if (__builtin_expect(rank >= __atomic_load_n(&a->size, __ATOMIC_ACQUIRE), 0)) return 0;
    const struct _rivet_segent *m = &a->seg[a->jobranks[rank]];
    uintptr_t off = (uintptr_t)addr - (uintptr_t)m->owner_base;
    if (__builtin_expect(!m->local_base || m->size < n || off > m->size - n ||
                             ((uintptr_t)addr & (n - 1)), 0))
        return 0;
    return (char *)m->local_base + off;
}

/* FLT/DBL arithmetic (op one of _RIVET_AD_FP_ARITH) on the word w: a relaxed compare-exchange
 * loop computing in the type, as ratomic_cpu.c does (a constant op folds to one expression).
 * Returns the bits found before. */
#define _RIVET_AD_FP(DT, T, UT)                                                              \
    static inline __attribute__((always_inline)) UT                                           \
    _rivet_ad_fp_##DT(UT *w, gex_OP_t op, T y)                                               \
    {                                                                                         \
        UT old = __atomic_load_n(w, __ATOMIC_RELAXED), nv;                                    \
        T x, r;                                                                               \
        do {                                                                                  \
            memcpy(&x, &old, sizeof x);                                                       \
            if (op & (GEX_OP_ADD | GEX_OP_FADD)) r = x + y;                                   \
            else if (op & (GEX_OP_SUB | GEX_OP_FSUB)) r = x - y;                              \
            else if (op & (GEX_OP_INC | GEX_OP_FINC)) r = x + (T)1;                           \
            else if (op & (GEX_OP_DEC | GEX_OP_FDEC)) r = x - (T)1;                           \
            else if (op & (GEX_OP_MULT | GEX_OP_FMULT)) r = x * y;                            \
            else if (op & (GEX_OP_MIN | GEX_OP_FMIN)) r = x < y ? x : y;                      \
            else r = x > y ? x : y;                                                           \
            memcpy(&nv, &r, sizeof nv);                                                       \
        } while (!__atomic_compare_exchange_n(w, &old, nv, 1, __ATOMIC_RELAXED,               \
                                              __ATOMIC_RELAXED));                             \
        return old;                                                                           \
    }
_RIVET_AD_FP(FLT, float, uint32_t)
_RIVET_AD_FP(DBL, double, uint64_t)
#undef _RIVET_AD_FP
/* never called: the integer types take the CPU atomics */
#define _rivet_ad_fp_I32(w, op, y) 0
#define _rivet_ad_fp_U32(w, op, y) 0
#define _rivet_ad_fp_I64(w, op, y) 0
#define _rivet_ad_fp_U64(w, op, y) 0

#define _RIVET_AD_FN(ad, op)                                                                  \
    (((const struct _rivet_ad_head *)(const void *)(ad))->fn[__builtin_ctz(op)])

/* One operation done here (1), or 0: the library does it. An opcode known only at run time:
 * (F)ADD done here, any other valid one by the domain's function for it. A literal opcode:
 * one CPU atomic, or (FLT/DBL arithmetic) one compare-exchange loop, or the function. */
#define _RIVET_AD_FAST(DT, T, UT)                                                            \
    static inline __attribute__((always_inline)) int                                          \
    _rivet_ad_cpu_##DT(gex_AD_t ad, T *result_p, gex_Rank_t rank, void *addr, gex_OP_t op,    \
                       T a1, T a2, gex_Flags_t flags)                                         \
    {                                                                                         \
        if (__builtin_constant_p(op) && (!op || (op & (op - 1)))) return 0;                   \
        UT *w = (UT *)(void *)_rivet_ad_direct(ad, GEX_DT_##DT, rank, addr, op, flags,        \
                                                sizeof(UT));                                  \
        if (__builtin_expect(!w, 0)) return 0;                                                \
        UT x, y, old = 0;                                                                     \
        memcpy(&x, &a1, sizeof x);                                                            \
        memcpy(&y, &a2, sizeof y);                                                            \
        if (!__builtin_constant_p(op)) { /* the common ones first, one compare each */        \
            if (op == GEX_OP_FADD) {                                                          \
                if (__builtin_expect(!result_p, 0)) return 0;                                 \
                if (_RIVET_AD_INT_##DT) old = __atomic_fetch_add(w, x, __ATOMIC_RELAXED);     \
                else old = (UT)_rivet_ad_fp_##DT(w, GEX_OP_FADD, a1);                         \
                memcpy(result_p, &old, sizeof old);                                           \
                return 1;                                                                     \
            }                                                                                 \
            if (op == GEX_OP_ADD) {                                                           \
                if (_RIVET_AD_INT_##DT) __atomic_fetch_add(w, x, __ATOMIC_RELAXED);           \
                else (void)_rivet_ad_fp_##DT(w, GEX_OP_ADD, a1);                              \
                return 1;                                                                     \
            }                                                                                 \
            if (__builtin_expect((op & (op - 1)) || ((op & _RIVET_AD_FETCHING) && !result_p), \
                                 0))                                                          \
                return 0;                                                                     \
            old = (UT)_RIVET_AD_FN(ad, op)(w, (uint64_t)x, (uint64_t)y);                           \
        } else if (__builtin_expect((op & _RIVET_AD_FETCHING) && !result_p, 0)) {             \
            return 0;                                                                         \
        } else if (!_RIVET_AD_INT_##DT && (op & _RIVET_AD_FP_ARITH)) {                        \
            old = (UT)_rivet_ad_fp_##DT(w, op, a1);                                           \
        } else if (!(op & (_RIVET_AD_INT_##DT ? _RIVET_AD_INLINE_OPS : _RIVET_AD_FP_BITS))) { \
            old = (UT)_RIVET_AD_FN(ad, op)(w, (uint64_t)x, (uint64_t)y);                           \
        } else switch (op) {                                                                  \
        case GEX_OP_GET: old = __atomic_load_n(w, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_SET: __atomic_store_n(w, x, __ATOMIC_RELAXED); break;                     \
        case GEX_OP_SWAP: old = __atomic_exchange_n(w, x, __ATOMIC_RELAXED); break;           \
        case GEX_OP_CAS: case GEX_OP_FCAS:                                                    \
            old = x;                                                                          \
            __atomic_compare_exchange_n(w, &old, y, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED);   \
            break;                                                                            \
        case GEX_OP_ADD: __atomic_fetch_add(w, x, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_FADD: old = __atomic_fetch_add(w, x, __ATOMIC_RELAXED); break;            \
        case GEX_OP_SUB: __atomic_fetch_sub(w, x, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_FSUB: old = __atomic_fetch_sub(w, x, __ATOMIC_RELAXED); break;            \
        case GEX_OP_INC: __atomic_fetch_add(w, 1, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_FINC: old = __atomic_fetch_add(w, 1, __ATOMIC_RELAXED); break;            \
        case GEX_OP_DEC: __atomic_fetch_sub(w, 1, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_FDEC: old = __atomic_fetch_sub(w, 1, __ATOMIC_RELAXED); break;            \
        case GEX_OP_AND: __atomic_fetch_and(w, x, __ATOMIC_RELAXED); break;                   \
        case GEX_OP_FAND: old = __atomic_fetch_and(w, x, __ATOMIC_RELAXED); break;            \
        case GEX_OP_OR: __atomic_fetch_or(w, x, __ATOMIC_RELAXED); break;                     \
        case GEX_OP_FOR: old = __atomic_fetch_or(w, x, __ATOMIC_RELAXED); break;              \
        case GEX_OP_XOR: __atomic_fetch_xor(w, x, __ATOMIC_RELAXED); break;                   \
        default: old = __atomic_fetch_xor(w, x, __ATOMIC_RELAXED); break; /* FXOR */          \
        }                                                                                     \
        if (op & _RIVET_AD_FETCHING) memcpy(result_p, &old, sizeof old);                      \
        return 1;                                                                             \
    }                                                                                         \
    static inline __attribute__((always_inline)) gex_Event_t                                  \
    _rivet_ad_opnb_##DT(gex_AD_t ad, T *result_p, gex_Rank_t rank,                            \
                                                  void *addr, gex_OP_t op, T a1, T a2,        \
                                                  gex_Flags_t flags)                          \
    {                                                                                         \
        if (_rivet_ad_cpu_##DT(ad, result_p, rank, addr, op, a1, a2, flags))                  \
            return GEX_EVENT_INVALID;                                                         \
        return (gex_AD_OpNB_##DT)(ad, result_p, rank, addr, op, a1, a2, flags);               \
    }                                                                                         \
    static inline __attribute__((always_inline)) int                                          \
    _rivet_ad_opnbi_##DT(gex_AD_t ad, T *result_p, gex_Rank_t rank,                           \
                                           void *addr, gex_OP_t op, T a1, T a2,               \
                                           gex_Flags_t flags)                                 \
    {                                                                                         \
        if (_rivet_ad_cpu_##DT(ad, result_p, rank, addr, op, a1, a2, flags)) return 0;        \
        return (gex_AD_OpNBI_##DT)(ad, result_p, rank, addr, op, a1, a2, flags);              \
    }
#define _RIVET_AD_INT_I32 1
#define _RIVET_AD_INT_U32 1
#define _RIVET_AD_INT_I64 1
#define _RIVET_AD_INT_U64 1
#define _RIVET_AD_INT_FLT 0
#define _RIVET_AD_INT_DBL 0
_RIVET_AD_FAST(I32, int32_t, uint32_t)
_RIVET_AD_FAST(U32, uint32_t, uint32_t)
_RIVET_AD_FAST(I64, int64_t, uint64_t)
_RIVET_AD_FAST(U64, uint64_t, uint64_t)
_RIVET_AD_FAST(FLT, float, uint32_t)
_RIVET_AD_FAST(DBL, double, uint64_t)
#undef _RIVET_AD_FAST
#undef _rivet_ad_fp_I32
#undef _rivet_ad_fp_U32
#undef _rivet_ad_fp_I64
#undef _rivet_ad_fp_U64
#undef _RIVET_AD_FN
#define gex_AD_OpNB_I32(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_I32(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNB_U32(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_U32(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNB_I64(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_I64(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNB_U64(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_U64(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_I32(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_I32(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_U32(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_U32(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_I64(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_I64(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_U64(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_U64(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNB_FLT(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_FLT(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNB_DBL(ad, r, k, a, op, x, y, f) _rivet_ad_opnb_DBL(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_FLT(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_FLT(ad, r, k, a, op, x, y, f)
#define gex_AD_OpNBI_DBL(ad, r, k, a, op, x, y, f) _rivet_ad_opnbi_DBL(ad, r, k, a, op, x, y, f)
#endif /* inline fast path */

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _GASNET_RATOMIC_H */
