/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_vis.h: the spec's non-contiguous RMA ("VIS"): Vector, Indexed and Strided Puts and Gets
 * in Blocking, NB and NBI forms. gex_Memvec_t, GEX_FLAG_IMMEDIATE and GEX_FLAG_ENABLE_LEAF_LC
 * come from gasnetex.h. Metadata formats and the implementation: docs/vis.md. */
#ifndef _GASNET_VIS_H
#define _GASNET_VIS_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* Common rules (docs/vis.md):
 * - NB forms return a root event; Blocking and NBI forms return 0, or non-zero only when
 *   GEX_FLAG_IMMEDIATE was given and nothing was started ("no op"; NB: GEX_EVENT_NO_OP).
 * - flags: 0 or an OR of GEX_FLAG_IMMEDIATE and (Put NB/NBI only) GEX_FLAG_ENABLE_LEAF_LC.
 *   With ENABLE_LEAF_LC, a PutNB's local completion is gex_Event_QueryLeaf(root, GEX_EC_LC);
 *   a PutNBI's is tracked as GEX_EVENT_GROUP (gex_NBI_{Test,Wait}(GEX_EC_LC)). Without it,
 *   local completion comes with operation completion.
 * - Payload buffers and the Vector/Indexed lists must stay valid until completion; the Strided
 *   metadata (strides, count) is consumed before the call returns.
 * - Remote locations must lie in the peer's bound segment; destinations must not overlap each
 *   other or a source (sources may overlap each other). */

/* ---- Vector: lists of (address, length) on each side; equal totals, any segmentation ---- */
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                       gex_Rank_t srcrank, size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                     gex_Rank_t srcrank, size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                       gex_Memvec_t const dstlist[], size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                     gex_Memvec_t const dstlist[], size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);

/* ---- Indexed: lists of addresses with one chunk length per side; equal totals ---------- */
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                        size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);

/* ---- Strided: elemsz-byte elements, count[stridelevels] extents, signed byte strides ----
 * Element (i_0, ..., i_{L-1}) is at addr + sum_k i_k * strides[k] on each side; different
 * stride orders transpose, negative strides reflect. elemsz == 0 or any count[k] == 0: no-op
 * (nothing else is looked at); stridelevels == 0: one contiguous elemsz-byte copy. */
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                        gex_Rank_t srcrank, void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                      gex_Rank_t srcrank, void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                        const ptrdiff_t dststrides[], void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);

/* ---- Peer completion [EXPERIMENTAL in the spec] ------------------------------------------
 * Arms a notification for the next VIS Put this thread starts: once that Put's data is at the
 * target, 'handler' (registered there as GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY with 0
 * arguments) runs at the target with the nbytes at source_addr (nbytes <=
 * GEX_VIS_MAX_PEERCOMPLETION) as its payload. handler == 0 disarms; flags must be 0; the armed
 * Put may not pass GEX_FLAG_IMMEDIATE, and an armed Get is an error. Rivet completes an armed
 * Put inside its initiation call (its NB form returns GEX_EVENT_INVALID). */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)512)
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);

/* ---- inline fast path (reserved: _rivet_* are not API) -----------------------------------
 * A VIS call whose sides are each one contiguous run of the same length (Vector: entries that
 * each start where the one before ends; Indexed: one entry each of equal size; Strided: every
 * level with a count above 1 continues the run on both sides, stride == the bytes inside it),
 * flags 0, on the primordial team, to a peer whose segment is mapped here, is the inline
 * Put/Get of gasnetex.h: one copy, complete on return; a Strided shape of one or two levels
 * that is not one run is checked the same way (its remote extent as the range) and copied by
 * the library's _rivet_vis_copy2, complete on return too. Anything else calls the library
 * (whose own fast path takes the other common shapes: docs/vis.md). _rivet_vis_fast: this thread may
 * take it (set by the library's mapped-peer path under RIVET_VIS=auto, cleared while a peer
 * completion handler is armed). RIVET_NO_INLINE turns it off. */
extern __thread unsigned char _rivet_vis_fast;
/* The two-loop copy of _rivet_vis_str2 below (the remote side already checked and mapped) */
extern void _rivet_vis_copy2(void *seg, void *loc, size_t es, size_t c0, ptrdiff_t r0,
                             ptrdiff_t l0, size_t c1, ptrdiff_t r1, ptrdiff_t l1, int to_seg);
#if defined(__GNUC__) && !defined(RV_BUILDING_LIBRIVET) && !defined(RIVET_NO_INLINE)
/* The local address of [addr, addr+n) in the segment of (tm, rank), or NULL: the library.
 * Only the primordial team (rank < rma_n: the inline RMA path on, RIVET_RMA=auto, no stats
 * or trace): the library's VIS refuses TM-pairs to other endpoint indices. */
static inline __attribute__((always_inline)) char *
_rivet_vis_direct(gex_TM_t tm, gex_Rank_t rank, const void *addr, size_t n, gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_vis_fast, 0)) return 0;
    return _rivet_tm_direct(tm, rank, addr, n, flags, 0);
}
/* 1 when done here (a Put when to_seg); n == 0 (not one run) leaves it to the library */
static inline __attribute__((always_inline)) int
_rivet_vis_one(int to_seg, gex_TM_t tm, gex_Rank_t rank, void *remote, void *local, size_t n,
               gex_Flags_t flags)
{
    char *seg = _rivet_vis_direct(tm, rank, remote, n, flags);
    if (__builtin_expect(seg == 0, 0)) return 0;
    _rivet_rma_copy(to_seg, seg, local, n);
    return 1;
}
/* The bytes of a vector list that is one run (entry i+1 starts where entry i ends), else 0. */
static inline __attribute__((always_inline)) size_t _rivet_vis_vrun(size_t c,
                                                                    gex_Memvec_t const *l)
{
    if (!c || !l) return 0;
    size_t n = l[0].gex_len;
    for (size_t i_ = 1; i_ < c; i_++)
        if ((uintptr_t)l[i_].gex_addr != (uintptr_t)l[0].gex_addr + n ||
            __builtin_add_overflow(n, l[i_].gex_len, &n))
            return 0;
    return n;
}
static inline __attribute__((always_inline)) int
_rivet_vis_vec1(int to_seg, gex_TM_t tm, gex_Rank_t rank, size_t dc, gex_Memvec_t const *dl,
                size_t sc, gex_Memvec_t const *sl, gex_Flags_t flags)
{
    size_t n = _rivet_vis_vrun(sc, sl);
    if (!n || _rivet_vis_vrun(dc, dl) != n) return 0;
    return to_seg ? _rivet_vis_one(1, tm, rank, dl[0].gex_addr, sl[0].gex_addr, n, flags)
                  : _rivet_vis_one(0, tm, rank, sl[0].gex_addr, dl[0].gex_addr, n, flags);
}
static inline __attribute__((always_inline)) int
_rivet_vis_idx1(int to_seg, gex_TM_t tm, gex_Rank_t rank, size_t dc, void *const *dl, size_t dlen,
                size_t sc, void *const *sl, size_t slen, gex_Flags_t flags)
{
    if (!(dc == 1 && sc == 1 && dl && sl && dlen == slen)) return 0;
    return to_seg ? _rivet_vis_one(1, tm, rank, dl[0], sl[0], slen, flags)
                  : _rivet_vis_one(0, tm, rank, sl[0], dl[0], slen, flags);
}
/* The bytes of a strided shape that is one run on both sides, else 0 (also: elemsz 0 or a
 * count 0, the library's no-ops). */
static inline __attribute__((always_inline)) size_t
_rivet_vis_srun(const ptrdiff_t *dstr, const ptrdiff_t *sstr, size_t es, const size_t *count,
                size_t levels)
{
    ptrdiff_t n = (ptrdiff_t)es;
    if (n <= 0 || (levels && (!count || !dstr || !sstr))) return 0;
    for (size_t k_ = 0; k_ < levels; k_++) {
        size_t c_ = count[k_];
        if (c_ == 1) continue;
        if (c_ == 0 || dstr[k_] != n || sstr[k_] != n || __builtin_mul_overflow(n, c_, &n))
            return 0;
    }
    return (size_t)n;
}
/* Strided of at most two levels: one run (above) or the remote side's extent (lowest byte to
 * past the highest) checked as one range, then the library's two-loop copy without its entry
 * checks. Counts and elemsz 1 to 2^20, remote strides below 2^40 in magnitude (else 0: the
 * general run check below, or the library): nothing overflows. */
#define _RIVET_VIS_CMAX ((size_t)1 << 20)
#define _RIVET_VIS_SMAX ((uintptr_t)1 << 40)
static inline __attribute__((always_inline)) int
_rivet_vis_str2(int to_seg, gex_TM_t tm, gex_Rank_t rank, void *rem, const ptrdiff_t *rs,
                void *loc, const ptrdiff_t *ls, size_t es, const size_t *count, size_t levels,
                gex_Flags_t flags)
{
    size_t c0 = 1, c1 = 1;
    ptrdiff_t r0 = 0, l0 = 0, r1 = 0, l1 = 0;
    if (levels) {
        if (!count || !rs || !ls) return 0;
        c0 = count[0], r0 = rs[0], l0 = ls[0];
    }
    if (levels == 2) {
        c1 = count[1], r1 = rs[1], l1 = ls[1];
        if (c0 == 1) c0 = c1, r0 = r1, l0 = l1, c1 = 1; /* a count-1 level 0 drops out */
    }
    if (c0 == 1) return _rivet_vis_one(to_seg, tm, rank, rem, loc, es, flags); /* one element */
    if (((c0 - 1) | (c1 - 1) | (es - 1)) >= _RIVET_VIS_CMAX || /* also a count or elemsz 0 */
        (uintptr_t)r0 + _RIVET_VIS_SMAX >= 2 * _RIVET_VIS_SMAX ||
        (uintptr_t)r1 + _RIVET_VIS_SMAX >= 2 * _RIVET_VIS_SMAX)
        return 0;
    size_t run = l0 == (ptrdiff_t)es && r0 == (ptrdiff_t)es ? es * c0 : 0;
    if (c1 > 1) run = l1 == (ptrdiff_t)run && r1 == (ptrdiff_t)run ? run * c1 : 0;
    if (run) return _rivet_vis_one(to_seg, tm, rank, rem, loc, run, flags);
    ptrdiff_t p0 = (ptrdiff_t)(c0 - 1) * r0, p1 = (ptrdiff_t)(c1 - 1) * r1;
    size_t neg = (size_t)(p0 < 0 ? -p0 : 0) + (size_t)(p1 < 0 ? -p1 : 0);
    size_t ext = neg + (size_t)(p0 > 0 ? p0 : 0) + (size_t)(p1 > 0 ? p1 : 0) + es;
    char *seg = _rivet_vis_direct(tm, rank, (void *)((uintptr_t)rem - neg), ext, flags);
    if (__builtin_expect(seg == 0, 0)) return 0;
    _rivet_vis_copy2(seg + neg, loc, es, c0, r0, l0, c1, r1, l1, to_seg);
    return 1;
}
static inline __attribute__((always_inline)) int
_rivet_vis_str1(int to_seg, gex_TM_t tm, gex_Rank_t rank, void *dst, const ptrdiff_t *dstr,
                void *src, const ptrdiff_t *sstr, size_t es, const size_t *count, size_t levels,
                gex_Flags_t flags)
{
    if (__builtin_expect(!_rivet_vis_fast, 0)) return 0;
    if (levels <= 2 &&
        (to_seg ? _rivet_vis_str2(1, tm, rank, dst, dstr, src, sstr, es, count, levels, flags)
                : _rivet_vis_str2(0, tm, rank, src, sstr, dst, dstr, es, count, levels, flags)))
        return 1;
    size_t n = _rivet_vis_srun(dstr, sstr, es, count, levels);
    if (!n) return 0;
    return to_seg ? _rivet_vis_one(1, tm, rank, dst, src, n, flags)
                  : _rivet_vis_one(0, tm, rank, src, dst, n, flags);
}

/* The calls: the fast path, else the library's function (each argument evaluated once). */
#define _RIVET_VIS_OK_NB GEX_EVENT_INVALID
#define _RIVET_VIS_OK_NBI 0
#define _RIVET_VIS_OK_Blocking 0
#define _RIVET_VIS_INL(form, ret)                                                               \
    static inline __attribute__((always_inline)) ret _rivet_vis_vput_##form(                    \
        gex_TM_t tm, gex_Rank_t r, size_t dc, gex_Memvec_t const *dl, size_t sc,                \
        gex_Memvec_t const *sl, gex_Flags_t f)                                                  \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_vec1(1, tm, r, dc, dl, sc, sl, f), 1))                  \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_VectorPut##form)(tm, r, dc, dl, sc, sl, f);                             \
    }                                                                                           \
    static inline __attribute__((always_inline)) ret _rivet_vis_vget_##form(                    \
        gex_TM_t tm, size_t dc, gex_Memvec_t const *dl, gex_Rank_t r, size_t sc,                \
        gex_Memvec_t const *sl, gex_Flags_t f)                                                  \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_vec1(0, tm, r, dc, dl, sc, sl, f), 1))                  \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_VectorGet##form)(tm, dc, dl, r, sc, sl, f);                             \
    }                                                                                           \
    static inline __attribute__((always_inline)) ret _rivet_vis_iput_##form(                    \
        gex_TM_t tm, gex_Rank_t r, size_t dc, void *const *dl, size_t dn, size_t sc,            \
        void *const *sl, size_t sn, gex_Flags_t f)                                              \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_idx1(1, tm, r, dc, dl, dn, sc, sl, sn, f), 1))          \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_IndexedPut##form)(tm, r, dc, dl, dn, sc, sl, sn, f);                    \
    }                                                                                           \
    static inline __attribute__((always_inline)) ret _rivet_vis_iget_##form(                    \
        gex_TM_t tm, size_t dc, void *const *dl, size_t dn, gex_Rank_t r, size_t sc,            \
        void *const *sl, size_t sn, gex_Flags_t f)                                              \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_idx1(0, tm, r, dc, dl, dn, sc, sl, sn, f), 1))          \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_IndexedGet##form)(tm, dc, dl, dn, r, sc, sl, sn, f);                    \
    }                                                                                           \
    static inline __attribute__((always_inline)) ret _rivet_vis_sput_##form(                    \
        gex_TM_t tm, gex_Rank_t r, void *d, const ptrdiff_t *ds, void *s, const ptrdiff_t *ss,  \
        size_t es, const size_t *c, size_t lv, gex_Flags_t f)                                   \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_str1(1, tm, r, d, ds, s, ss, es, c, lv, f), 1))         \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_StridedPut##form)(tm, r, d, ds, s, ss, es, c, lv, f);                   \
    }                                                                                           \
    static inline __attribute__((always_inline)) ret _rivet_vis_sget_##form(                    \
        gex_TM_t tm, void *d, const ptrdiff_t *ds, gex_Rank_t r, void *s, const ptrdiff_t *ss,  \
        size_t es, const size_t *c, size_t lv, gex_Flags_t f)                                   \
    {                                                                                           \
        if (__builtin_expect(_rivet_vis_str1(0, tm, r, d, ds, s, ss, es, c, lv, f), 1))         \
            return _RIVET_VIS_OK_##form;                                                        \
        return (gex_VIS_StridedGet##form)(tm, d, ds, r, s, ss, es, c, lv, f);                   \
    }
_RIVET_VIS_INL(NB, gex_Event_t)
_RIVET_VIS_INL(NBI, int)
_RIVET_VIS_INL(Blocking, int)
#undef _RIVET_VIS_INL
#define gex_VIS_VectorPutNB(...) _rivet_vis_vput_NB(__VA_ARGS__)
#define gex_VIS_VectorPutNBI(...) _rivet_vis_vput_NBI(__VA_ARGS__)
#define gex_VIS_VectorPutBlocking(...) _rivet_vis_vput_Blocking(__VA_ARGS__)
#define gex_VIS_VectorGetNB(...) _rivet_vis_vget_NB(__VA_ARGS__)
#define gex_VIS_VectorGetNBI(...) _rivet_vis_vget_NBI(__VA_ARGS__)
#define gex_VIS_VectorGetBlocking(...) _rivet_vis_vget_Blocking(__VA_ARGS__)
#define gex_VIS_IndexedPutNB(...) _rivet_vis_iput_NB(__VA_ARGS__)
#define gex_VIS_IndexedPutNBI(...) _rivet_vis_iput_NBI(__VA_ARGS__)
#define gex_VIS_IndexedPutBlocking(...) _rivet_vis_iput_Blocking(__VA_ARGS__)
#define gex_VIS_IndexedGetNB(...) _rivet_vis_iget_NB(__VA_ARGS__)
#define gex_VIS_IndexedGetNBI(...) _rivet_vis_iget_NBI(__VA_ARGS__)
#define gex_VIS_IndexedGetBlocking(...) _rivet_vis_iget_Blocking(__VA_ARGS__)
#define gex_VIS_StridedPutNB(...) _rivet_vis_sput_NB(__VA_ARGS__)
#define gex_VIS_StridedPutNBI(...) _rivet_vis_sput_NBI(__VA_ARGS__)
#define gex_VIS_StridedPutBlocking(...) _rivet_vis_sput_Blocking(__VA_ARGS__)
#define gex_VIS_StridedGetNB(...) _rivet_vis_sget_NB(__VA_ARGS__)
#define gex_VIS_StridedGetNBI(...) _rivet_vis_sget_NBI(__VA_ARGS__)
#define gex_VIS_StridedGetBlocking(...) _rivet_vis_sget_Blocking(__VA_ARGS__)
#endif

/* ---- GASNet-1 VIS (legacy; docs/legacy.md) ----------------------------------------------
 * The GASNet-1 Vector/Indexed/Strided calls, on the primordial team of a GASNet-1 client
 * (gasnet_init, or gex_Client_Init with GEX_FLAG_USES_GASNET1). Only _bulk forms exist, as in
 * GASNet-1. Strided: strides[k] (k < stridelevels) are byte strides; count[0] is the byte
 * length of a contiguous chunk and count[1..stridelevels] the counts of each higher
 * dimension. gasnet_memvec_t has the layout of gex_Memvec_t. */
#ifndef RV_GASNET_MEMVEC_T
#define RV_GASNET_MEMVEC_T /* also defined by gasnet.h */
typedef struct {
    void  *addr;
    size_t len;
} gasnet_memvec_t;
#endif

extern void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                             gasnet_memvec_t const dstlist[], size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           gasnet_memvec_t const dstlist[], size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                 gasnet_memvec_t const dstlist[], size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                             gasnet_node_t srcnode, size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                           gasnet_node_t srcnode, size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                 gasnet_node_t srcnode, size_t srccount,
                                 gasnet_memvec_t const srclist[]);

extern void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                             size_t dstlen, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           void *const dstlist[], size_t dstlen,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                             gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[],
                                           size_t dstlen, gasnet_node_t srcnode,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                 size_t srclen);

extern void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                           const size_t dststrides[], void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                           gasnet_node_t srcnode, void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);

/* The GASNet-Tools VIS formatters (gasnett_format_memveclist, _putsgets, ...) are declared in
 * gasnetex.h. */

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _GASNET_VIS_H */
