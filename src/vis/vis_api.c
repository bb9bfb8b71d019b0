/* SPDX-License-Identifier: BSD-3-Clause */
/* vis/vis_api.c: the gex_VIS_* calls: argument checks, degenerate cases, the stride optimizer,
 * and the choice of mechanism per operation (direct loops over a mapped peer segment, or AM
 * pack/unpack); the Blocking/NB/NBI forms. */
#include "vis/vis_int.h"
#include "am/am_int.h"
#include "gasnet_vis.h"
#include "core/trace.h"

#include <pthread.h>
#include <string.h>

/* gasnet_vis.h: this thread may take the inline one-chunk path (RIVET_VIS=auto, configuration
 * read, no peer completion armed); set by the mapped-peer path below, cleared on arming. */
__thread unsigned char _rivet_vis_fast;

static pthread_once_t rv_vis_cfg_once = PTHREAD_ONCE_INIT;
static int rv_vis_ref_only;  /* RIVET_VIS=ref */
static int rv_vis_opt_on;    /* RIVET_VIS_OPT */
static int rv_vis_cfg_ready; /* set (release) once the two above are: one load per call */

static void rv_vis_cfg_load(void)
{
    if (!strcmp(rv_cfg.VIS, "ref")) rv_vis_ref_only = 1;
    else if (strcmp(rv_cfg.VIS, "auto"))
        rv_fatal("environment: RIVET_VIS=%s is not one of auto, ref", rv_cfg.VIS);
    rv_vis_opt_on = rv_cfg.VIS_OPT;
    rv_verbose(1, "VIS: %s; strided optimizer %s",
               rv_vis_ref_only ? "AM pack/unpack for every peer"
                               : "direct loops to neighbourhood peers, AM pack/unpack otherwise",
               rv_vis_opt_on ? "on" : "off");
    __atomic_store_n(&rv_vis_cfg_ready, 1, __ATOMIC_RELEASE);
}

enum { RV_VIS_BLOCKING, RV_VIS_NB, RV_VIS_NBI };

/* gex_VIS_SetPeerCompletionHandler: armed (handler != 0) for the next VIS Put this thread
 * starts. Such a Put runs to completion inside its initiation call (so its data is at the
 * peer), then the 0-argument Medium Reply handler runs at the peer with the payload. */
static _Thread_local struct {
    gex_AM_Index_t handler;
    const void    *src;
    size_t         nbytes;
} rv_vis_pc;

void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                      size_t nbytes, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_VIS_SetPeerCompletionHandler");
    if (flags)
        rv_fatal("gex_VIS_SetPeerCompletionHandler: flags=0x%x must be 0", (unsigned)flags);
    if (handler && nbytes > GEX_VIS_MAX_PEERCOMPLETION)
        rv_fatal("gex_VIS_SetPeerCompletionHandler: nbytes=%zu exceeds "
                 "GEX_VIS_MAX_PEERCOMPLETION (%zu)", nbytes, (size_t)GEX_VIS_MAX_PEERCOMPLETION);
    if (handler && nbytes && !source_addr)
        rv_fatal("gex_VIS_SetPeerCompletionHandler: source_addr is NULL with nbytes=%zu", nbytes);
    rv_vis_pc.handler = handler; /* 0 disarms */
    if (handler) _rivet_vis_fast = 0; /* the armed Put takes the library's path */
    rv_vis_pc.src = source_addr;
    rv_vis_pc.nbytes = handler ? nbytes : 0;
}

/* Called by every Put form after the Put was started synchronously (see rv_vis_lists and
 * rv_vis_strided): sends the armed notification to the target and disarms. */
static gex_Event_t rv_vis_pc_notify(const char *call, gex_TM_t tm, gex_Rank_t rank,
                                    gex_Event_t ev)
{
    if (__builtin_expect(!rv_vis_pc.handler, 1)) return ev;
    gex_Rank_t jr = rv_tm_check_rank(call, tm, rank);
    gex_AM_Index_t h = rv_vis_pc.handler;
    rv_vis_pc.handler = 0;
    static const gex_AM_Arg_t noargs[1];
    rv_am_send(call, jr, RV_CHAN_REP, RV_AM_MEDIUM, h, rv_vis_pc.src, rv_vis_pc.nbytes, NULL, 0,
               0, noargs);
    return ev;
}

/* The checks every call makes. Returns the peer's jobrank; *lc: the Put's local completion. */
static gex_Rank_t rv_vis_begin(const char *call, gex_TM_t tm, gex_Rank_t rank, int is_put,
                               int form, gex_Flags_t flags, int *lc)
{
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("%s called inside an AM handler; handlers may only Reply", call);
    gex_Rank_t jr = rv_tm_check_rank(call, tm, rank);
    if (__builtin_expect(tm->pair_index || tm->ep->index, 0))
        rv_tm_pair_only_rma(call, "GEX_EP_CAPABILITY_VIS", tm);
    if (__builtin_expect(!__atomic_load_n(&rv_vis_cfg_ready, __ATOMIC_ACQUIRE), 0))
        pthread_once(&rv_vis_cfg_once, rv_vis_cfg_load);
    /* Only Puts support peer completion: a Get leaves the handler armed for the next Put. */
    if (__builtin_expect(is_put && rv_vis_pc.handler != 0 && (flags & GEX_FLAG_IMMEDIATE), 0))
        rv_fatal("%s: GEX_FLAG_IMMEDIATE is not allowed while a peer completion handler is armed",
                 call);
    gex_Flags_t leaf_ok = is_put && form != RV_VIS_BLOCKING ? GEX_FLAG_ENABLE_LEAF_LC : 0;
    if (__builtin_expect(flags & ~(GEX_FLAG_IMMEDIATE | leaf_ok), 0)) {
        if (flags & GEX_FLAG_ENABLE_LEAF_LC & ~leaf_ok)
            rv_fatal("%s: GEX_FLAG_ENABLE_LEAF_LC is only for gex_VIS_*PutNB and "
                     "gex_VIS_*PutNBI", call);
        rv_fatal("%s: flags 0x%x has bits other than GEX_FLAG_IMMEDIATE%s", call, (unsigned)flags,
                 leaf_ok ? " and GEX_FLAG_ENABLE_LEAF_LC" : "");
    }
    *lc = !(flags & GEX_FLAG_ENABLE_LEAF_LC) ? RV_VIS_LC_DEFER
        : form == RV_VIS_NB                  ? RV_VIS_LC_LEAF : RV_VIS_LC_GROUP;
    return jr;
}

/* The remote side must lie in the peer's bound segment. */
static const rv_segmap_t *rv_vis_target(const char *call, gex_Rank_t jr, gex_Rank_t rank,
                                        const rv_vis_side_t *r, size_t total, const char *role)
{
    const rv_segmap_t *m = rv_segmap ? &rv_segmap[jr] : NULL;
    if (__builtin_expect(!m || !m->size, 0))
        rv_fatal("%s: rank %u has no bound segment", call, rank);
    rv_vis_pos_t p0 = { 0, 0 };
    size_t e;
    uintptr_t lo, hi, base = (uintptr_t)m->owner_base;
    if (__builtin_expect(!rv_vis_side_inside(r, p0, total, base, m->size, &e, &lo, &hi), 0)) {
        if (e != SIZE_MAX)
            rv_fatal("%s: %s entry %zu [%p, %p) is outside the bound segment [%p, %p) of rank %u",
                     call, role, e, (void *)lo, (void *)hi, m->owner_base,
                     (void *)(base + m->size), rank);
        if (!hi)
            rv_fatal("%s: the %s strides and counts reach beyond the address space", call, role);
        rv_fatal("%s: %s [%p, %p) (the extent of the strided section) is outside the bound "
                 "segment [%p, %p) of rank %u", call, role, (void *)lo, (void *)hi,
                 m->owner_base, (void *)(base + m->size), rank);
    }
    return m;
}

/* RIVET_STATS: one VIS call by its mechanism (mapped copy or AM), or refused under IMMEDIATE. */
static __attribute__((noinline)) void rv_vis_stat(int is_get, int mapped, size_t total, int refused)
{
    if (refused) {
        rv_stats_add(RV_ST_VIS_IMM_REFUSED, 1);
        return;
    }
    rv_stat_t id = is_get ? (mapped ? RV_ST_VIS_GET_MAPPED : RV_ST_VIS_GET_AM)
                          : (mapped ? RV_ST_VIS_PUT_MAPPED : RV_ST_VIS_PUT_AM);
    rv_stats_add(id, 1);
    rv_stats_add((rv_stat_t)(id + 1), total);
}

static inline int rv_vis_direct(const rv_segmap_t *m)
{
    return m->local_base != NULL && !rv_vis_ref_only;
}

static inline uintptr_t rv_vis_delta(const rv_segmap_t *m)
{
    return (uintptr_t)m->local_base - (uintptr_t)m->owner_base;
}

/* The bytes a vector list names (RIVET_STATS, RIVET_TRACE). */
static size_t rv_vis_memvec_bytes(size_t n, gex_Memvec_t const l[])
{
    size_t b = 0;
    for (size_t i = 0; l && i < n; i++) b += l[i].gex_len;
    return b;
}

/* ---- the mapped-peer fast path ------------------------------------------------------------
 * A peer whose segment is mapped here (RIVET_VIS=auto) takes the common shapes in one pass
 * over the caller's lists, no side descriptions or walkers: vector lists that pair up entry by
 * entry with equal lengths, indexed lists with equal entry sizes, strided shapes of at most
 * RV_VIS_FAST_LEVELS levels (optimizer on). The whole remote side is checked against the
 * peer's bound segment first, then copied. Any other shape, and any check that fails, takes
 * the general path below, which makes every check in its order with its message. */
#define RV_VIS_FAST_LEVELS 4

/* The peer's segment entry when VIS copies to it directly, else NULL. */
static inline const rv_segmap_t *rv_vis_mapped(gex_Rank_t jr)
{
    const rv_segmap_t *m = rv_segmap ? &rv_segmap[jr] : NULL;
    return m && m->local_base && !rv_vis_ref_only ? m : NULL;
}

/* [a, a + n) inside the segment, n >= 1 */
static inline int rv_vis_in_seg(const rv_segmap_t *m, uintptr_t a, size_t n)
{
    uintptr_t off = a - (uintptr_t)m->owner_base;
    return off <= m->size && n <= m->size - off;
}

/* Returns 1 if done (all copied, or nothing to move); 0: take the general path. */
static inline int rv_vis_vector_fast(int is_get, const rv_segmap_t *m, size_t n,
                                     const gex_Memvec_t *dl, const gex_Memvec_t *sl)
{
    if (!dl || !sl || !n) return 0;
    const gex_Memvec_t *rl = is_get ? sl : dl;
    const uintptr_t base = (uintptr_t)m->owner_base, size = m->size;
    size_t any = 0, L0 = sl[0].gex_len, t;
    /* every entry is checked to be in the segment (an empty one too: one elsewhere takes the
     * general path), so the total is at most n * size: it fits when that does */
    if (__builtin_mul_overflow(n, size, &t)) return 0;
    int uni = 1; /* every entry L0 bytes: the copy takes a fixed-size move */
    for (size_t i = 0; i < n; i++) {
        size_t L = sl[i].gex_len;
        uintptr_t off = (uintptr_t)rl[i].gex_addr - base;
        if (L != dl[i].gex_len || off > size || L > size - off) return 0;
        any |= L;
        uni &= L == L0;
    }
    if (!any) return 1;
    uintptr_t delta = rv_vis_delta(m), dd = is_get ? 0 : delta, sd = is_get ? delta : 0;
    if (uni) rv_vis_vec_copy_uni(dl, dd, sl, sd, n, L0);
    else rv_vis_vec_copy(dl, dd, sl, sd, n);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 1, rv_vis_memvec_bytes(n, sl), 0);
    return 1;
}

static inline int rv_vis_indexed_fast(int is_get, const rv_segmap_t *m, size_t n,
                                      void *const *dl, void *const *sl, size_t len)
{
    size_t t;
    if (!n || !len || !dl || !sl || __builtin_mul_overflow(n, len, &t)) return 0;
    void *const *rl = is_get ? sl : dl;
    const uintptr_t base = (uintptr_t)m->owner_base, size = m->size;
    if (len > size) return 0;
    for (size_t i = 0; i < n; i++)
        if ((uintptr_t)rl[i] - base > size - len) return 0;
    uintptr_t delta = rv_vis_delta(m);
    if (is_get) rv_vis_idx_copy(dl, 0, sl, delta, n, len);
    else rv_vis_idx_copy(dl, delta, sl, 0, n, len);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 1, t, 0);
    return 1;
}

/* la/ls: the local side; ra/rs: the remote side (owner addresses). elemsz and every count are
 * non-zero; levels <= RV_VIS_FAST_LEVELS. */
static inline int rv_vis_strided_fast(int is_get, const rv_segmap_t *m, uintptr_t la,
                                      const ptrdiff_t *ls, uintptr_t ra, const ptrdiff_t *rs,
                                      size_t es, const size_t *count, size_t levels)
{
    rv_vis_dim_t d[RV_VIS_FAST_LEVELS];
    size_t nd = 0, total = es;
    ptrdiff_t neg = 0, pos = 0;
    int bad = 0;
    for (size_t k = 0; k < levels; k++) {
        size_t c = count[k];
        bad |= !c; /* nothing to move: the general path's degenerate case */
        bad |= __builtin_mul_overflow(total, c, &total);
        if (c == 1) continue;
        ptrdiff_t span;
        bad |= c - 1 > (size_t)PTRDIFF_MAX;
        bad |= __builtin_mul_overflow((ptrdiff_t)(c - 1), rs[k], &span);
        if (span < 0) bad |= __builtin_add_overflow(neg, span, &neg);
        else bad |= __builtin_add_overflow(pos, span, &pos);
        d[nd].count = c;
        d[nd].lstride = ls[k];
        d[nd].rstride = rs[k];
        nd++;
    }
    /* the remote extent: lowest to past the highest byte */
    uintptr_t lo = ra - ((uintptr_t)0 - (uintptr_t)neg), end;
    bad |= lo > ra;
    bad |= __builtin_add_overflow(ra, (uintptr_t)pos, &end);
    bad |= __builtin_add_overflow(end, es, &end);
    if (bad || !rv_vis_in_seg(m, lo, end - lo)) return 0;
    /* folding: inner levels contiguous on both sides join the element, and a level that
     * continues the one inside it on both sides joins that loop */
    size_t k = 0, n2 = 0;
    while (k < nd && d[k].lstride == (ptrdiff_t)es && d[k].rstride == (ptrdiff_t)es)
        es *= d[k++].count;
    for (; k < nd; k++) {
        if (n2 && (uintptr_t)d[k].lstride == (uintptr_t)d[n2 - 1].count * (uintptr_t)d[n2 - 1].lstride &&
            (uintptr_t)d[k].rstride == (uintptr_t)d[n2 - 1].count * (uintptr_t)d[n2 - 1].rstride)
            d[n2 - 1].count *= d[k].count;
        else
            d[n2++] = d[k];
    }
    rv_vis_nest_copy(la, ra + rv_vis_delta(m), es, d, n2, !is_get);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 1, total, 0);
    return 1;
}

/* At most two levels (testvisperf's shapes, a 2-d block): count-1 levels dropped, the remote
 * extent checked once from the two spans, then _rivet_vis_copy2 (also gasnet_vis.h's). Counts and elemsz below 2^20 and remote strides below 2^40 in magnitude (else
 * rv_vis_strided_fast): no span, extent or total overflows. elemsz is non-zero. */
#define RV_VIS_F2_CMAX ((size_t)1 << 20)
#define RV_VIS_F2_SMAX ((uintptr_t)1 << 40)
static inline int rv_vis_strided_fast2(int is_get, const rv_segmap_t *m, uintptr_t la,
                                       const ptrdiff_t *ls, uintptr_t ra, const ptrdiff_t *rs,
                                       size_t es, const size_t *count, size_t levels)
{
    size_t c0 = 1, c1 = 1;
    ptrdiff_t l0 = 0, r0 = 0, l1 = 0, r1 = 0;
    if (levels) c0 = count[0], l0 = ls[0], r0 = rs[0];
    if (levels == 2) {
        c1 = count[1], l1 = ls[1], r1 = rs[1];
        if (c0 == 1) c0 = c1, l0 = l1, r0 = r1, c1 = 1;
    }
    /* a count 0 (c - 1 wraps) or anything large: the other paths */
    if (((c0 - 1) | (c1 - 1) | es) >= RV_VIS_F2_CMAX ||
        (uintptr_t)r0 + RV_VIS_F2_SMAX >= 2 * RV_VIS_F2_SMAX ||
        (uintptr_t)r1 + RV_VIS_F2_SMAX >= 2 * RV_VIS_F2_SMAX)
        return 0;
    ptrdiff_t s0 = (ptrdiff_t)(c0 - 1) * r0, s1 = (ptrdiff_t)(c1 - 1) * r1;
    uintptr_t neg = (uintptr_t)(s0 < 0 ? -s0 : 0) + (uintptr_t)(s1 < 0 ? -s1 : 0);
    uintptr_t pos = (uintptr_t)(s0 > 0 ? s0 : 0) + (uintptr_t)(s1 > 0 ? s1 : 0) + es;
    uintptr_t roff = ra - (uintptr_t)m->owner_base, size = m->size;
    if (roff > size || neg > roff || pos > size - roff) return 0;
    _rivet_vis_copy2(RV_VIS_P(ra + rv_vis_delta(m)), RV_VIS_P(la), es, c0, r0, l0, c1, r1, l1,
                     !is_get);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 1, es * c0 * c1, 0);
    return 1;
}

/* Strided, as the caller passes it (the general path handles every degenerate case). */
static inline int rv_vis_strided_try(int is_get, const rv_segmap_t *m, void *dstaddr,
                                     const ptrdiff_t *dststrides, void *srcaddr,
                                     const ptrdiff_t *srcstrides, size_t elemsz,
                                     const size_t *count, size_t levels)
{
    if (levels > RV_VIS_FAST_LEVELS || !elemsz || !rv_vis_opt_on ||
        (levels && (!count || !dststrides || !srcstrides)))
        return 0;
    uintptr_t la = (uintptr_t)(is_get ? dstaddr : srcaddr);
    uintptr_t ra = (uintptr_t)(is_get ? srcaddr : dstaddr);
    const ptrdiff_t *ls = is_get ? dststrides : srcstrides, *rs = is_get ? srcstrides : dststrides;
    if (levels <= 2 && rv_vis_strided_fast2(is_get, m, la, ls, ra, rs, elemsz, count, levels))
        return 1;
    return rv_vis_strided_fast(is_get, m, la, ls, ra, rs, elemsz, count, levels);
}

/* The entry checks of the fast path, made first by every gex_VIS_* call: no flags, outside a
 * handler, a valid (tm, rank) of a primordial-endpoint team, the configuration read, no peer
 * completion armed, the peer mapped. NULL: the general path (which makes every check again,
 * with its messages). */
static inline __attribute__((always_inline)) const rv_segmap_t *
rv_vis_fast_begin(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    if (__builtin_expect(flags != 0 || rv_am_in_handler() || rv_client_g == NULL ||
                             tm == GEX_TM_INVALID || rank >= tm->size || tm->pair_index ||
                             tm->ep->index || rv_vis_pc.handler != 0 ||
                             !__atomic_load_n(&rv_vis_cfg_ready, __ATOMIC_ACQUIRE) ||
                             RV_OBS_ON(RV_OBS_TRACE), 0))
        return NULL;
    const rv_segmap_t *m = rv_vis_mapped(rv_tm_jobrank(tm, rank));
    if (m) _rivet_vis_fast = 1; /* gasnet_vis.h's inline path may take this thread's next */
    return m;
}

/* Vector and Indexed: either mechanism, from the two sides as byte streams. */
static gex_Event_t rv_vis_lists(const char *call, int is_get, gex_Rank_t jr, gex_Rank_t rank,
                                rv_vis_side_t *dst, rv_vis_side_t *src, size_t total, int form,
                                int lc, gex_Flags_t flags)
{
    rv_vis_side_t *local = is_get ? dst : src, *remote = is_get ? src : dst;
    const rv_segmap_t *m = rv_vis_target(call, jr, rank, remote, total,
                                         is_get ? "source" : "destination");
    if (rv_vis_direct(m)) {
        rv_vis_pos_t p0 = { 0, 0 };
        rv_vis_walk_t dw, sw;
        remote->delta = rv_vis_delta(m);
        rv_vis_walk_init(&dw, dst, p0);
        rv_vis_walk_init(&sw, src, p0);
        rv_vis_walk_copy(&dw, &sw, total);
        if (RV_STAT_ON()) rv_vis_stat(is_get, 1, total, 0);
        return GEX_EVENT_INVALID;
    }
    if (__builtin_expect(!is_get && rv_vis_pc.handler != 0, 0)) { /* peer completion: finish here */
        struct rv_vis_op *op = rv_vis_am_start(is_get, jr, local, remote, total, 0,
                                               RV_VIS_LC_DEFER, flags & ~GEX_FLAG_ENABLE_LEAF_LC);
        if (op) gex_Event_Wait(rv_vis_op_event(op));
        if (RV_STAT_ON()) rv_vis_stat(is_get, 0, total, 0);
        return GEX_EVENT_INVALID;
    }
    struct rv_vis_op *op = rv_vis_am_start(is_get, jr, local, remote, total,
                                           form == RV_VIS_NBI, lc, flags);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 0, total, op == RV_VIS_NO_OP);
    if (op == RV_VIS_NO_OP) return GEX_EVENT_NO_OP;
    return op ? rv_vis_op_event(op) : GEX_EVENT_INVALID;
}

static size_t rv_vis_vec_total(const char *call, const char *which, size_t count,
                               const gex_Memvec_t *list)
{
    if (count && !list) rv_fatal("%s: %s is NULL with %scount=%zu", call, which,
                                 which[0] == 'd' ? "dst" : "src", count);
    size_t t = 0;
    for (size_t i = 0; i < count; i++)
        if (__builtin_add_overflow(t, list[i].gex_len, &t))
            rv_fatal("%s: the lengths in %s add up to more than SIZE_MAX", call, which);
    return t;
}

/* One side of a vector (vec) or indexed (addrs, entries of 'len' bytes) transfer. */
static rv_vis_side_t rv_vis_list_side(unsigned kind, size_t n, size_t len, const gex_Memvec_t *vec,
                                      void *const *addrs)
{
    rv_vis_side_t x;
    memset(&x, 0, sizeof x);
    x.kind = kind;
    x.n = n;
    x.len = len;
    x.vec = vec;
    x.addrs = addrs;
    return x;
}

static gex_Event_t rv_vis_vector(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank,
                                 size_t dstcount, const gex_Memvec_t *dstlist, size_t srccount,
                                 const gex_Memvec_t *srclist, int form, gex_Flags_t flags)
{
    int lc;
    gex_Rank_t jr = rv_vis_begin(call, tm, rank, !is_get, form, flags, &lc);
    const rv_segmap_t *m = rv_vis_mapped(jr);
    if (m && dstcount == srccount && rv_vis_vector_fast(is_get, m, dstcount, dstlist, srclist))
        return GEX_EVENT_INVALID;
    size_t dt = rv_vis_vec_total(call, "dstlist", dstcount, dstlist);
    size_t st = rv_vis_vec_total(call, "srclist", srccount, srclist);
    if (__builtin_expect(dt != st, 0))
        rv_fatal("%s: dstlist describes %zu bytes and srclist %zu; the totals must be equal", call,
                 dt, st);
    if (!dt) return GEX_EVENT_INVALID;
    rv_vis_side_t d = rv_vis_list_side(RV_VIS_K_VECTOR, dstcount, 0, dstlist, NULL);
    rv_vis_side_t s = rv_vis_list_side(RV_VIS_K_VECTOR, srccount, 0, srclist, NULL);
    return rv_vis_lists(call, is_get, jr, rank, &d, &s, dt, form, lc, flags);
}

static gex_Event_t rv_vis_indexed(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank,
                                  size_t dstcount, void *const *dstlist, size_t dstlen,
                                  size_t srccount, void *const *srclist, size_t srclen, int form,
                                  gex_Flags_t flags)
{
    int lc;
    gex_Rank_t jr = rv_vis_begin(call, tm, rank, !is_get, form, flags, &lc);
    const rv_segmap_t *m = rv_vis_mapped(jr);
    if (m && dstcount == srccount && dstlen == srclen &&
        rv_vis_indexed_fast(is_get, m, dstcount, dstlist, srclist, dstlen))
        return GEX_EVENT_INVALID;
    size_t dt, st;
    if (__builtin_mul_overflow(dstcount, dstlen, &dt) ||
        __builtin_mul_overflow(srccount, srclen, &st))
        rv_fatal("%s: count times length overflows size_t (dst %zu x %zu, src %zu x %zu)", call,
                 dstcount, dstlen, srccount, srclen);
    if (__builtin_expect(dt != st, 0))
        rv_fatal("%s: dstlist describes %zu bytes (%zu x %zu) and srclist %zu (%zu x %zu); the "
                 "totals must be equal", call, dt, dstcount, dstlen, st, srccount, srclen);
    if (!dt) return GEX_EVENT_INVALID;
    if (!dstlist || !srclist)
        rv_fatal("%s: %s is NULL with a non-empty transfer", call, dstlist ? "srclist" : "dstlist");
    rv_vis_side_t d = rv_vis_list_side(RV_VIS_K_INDEXED, dstcount, dstlen, NULL, dstlist);
    rv_vis_side_t s = rv_vis_list_side(RV_VIS_K_INDEXED, srccount, srclen, NULL, srclist);
    return rv_vis_lists(call, is_get, jr, rank, &d, &s, dt, form, lc, flags);
}

static gex_Event_t rv_vis_strided(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank,
                                  void *dstaddr, const ptrdiff_t *dststrides, void *srcaddr,
                                  const ptrdiff_t *srcstrides, size_t elemsz, const size_t *count,
                                  size_t levels, int form, gex_Flags_t flags)
{
    /* Degenerate cases first: they ignore the arguments they name. */
    if (!elemsz) return GEX_EVENT_INVALID;
    if (levels && !count) rv_fatal("%s: count is NULL with stridelevels=%zu", call, levels);
    for (size_t k = 0; k < levels; k++)
        if (!count[k]) return GEX_EVENT_INVALID;
    if (levels && (!dststrides || !srcstrides))
        rv_fatal("%s: %s is NULL with stridelevels=%zu", call,
                 dststrides ? "srcstrides" : "dststrides", levels);
    int lc;
    gex_Rank_t jr = rv_vis_begin(call, tm, rank, !is_get, form, flags, &lc);
    const rv_segmap_t *fm = rv_vis_mapped(jr);
    if (fm && rv_vis_strided_try(is_get, fm, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
                                 count, levels))
        return GEX_EVENT_INVALID;

    rv_vis_strided_t s;
    size_t total;
    int rc = is_get ? rv_vis_strided_load(&s, dstaddr, dststrides, srcaddr, srcstrides, elemsz,
                                          count, levels, rv_vis_opt_on, &total)
                    : rv_vis_strided_load(&s, srcaddr, srcstrides, dstaddr, dststrides, elemsz,
                                          count, levels, rv_vis_opt_on, &total);
    if (__builtin_expect(rc == RV_VIS_LOAD_OVERFLOW, 0))
        rv_fatal("%s: elemsz=%zu times the product of the %zu counts does not fit in size_t",
                 call, elemsz, levels);
    if (rv_vis_opt_on) rv_vis_optimize(&s);

    size_t nd = s.ndim;
    rv_vis_sdim_t ld[RV_VIS_MAXDIM], rd[RV_VIS_MAXDIM];
    for (size_t k = 0; k < nd; k++) {
        rd[k].count = s.dim[k].count;
        rd[k].stride = s.dim[k].rstride;
    }
    rv_vis_side_t r, l;
    memset(&r, 0, sizeof r);
    r.kind = RV_VIS_K_STRIDED;
    r.n = nd;
    r.len = s.elemsz;
    r.base = s.rbase;
    r.dims = rd;
    const rv_segmap_t *m = rv_vis_target(call, jr, rank, &r, total,
                                         is_get ? "source" : "destination");
    if (rv_vis_direct(m)) {
        rv_vis_strided_copy(&s, rv_vis_delta(m), !is_get);
        if (RV_STAT_ON()) rv_vis_stat(is_get, 1, total, 0);
        return GEX_EVENT_INVALID;
    }
    for (size_t k = 0; k < nd; k++) {
        ld[k].count = s.dim[k].count;
        ld[k].stride = s.dim[k].lstride;
    }
    l = r;
    l.base = s.lbase;
    l.dims = ld;
    if (__builtin_expect(!is_get && rv_vis_pc.handler != 0, 0)) { /* peer completion: finish here */
        struct rv_vis_op *op = rv_vis_am_start(is_get, jr, &l, &r, total, 0, RV_VIS_LC_DEFER,
                                               flags & ~GEX_FLAG_ENABLE_LEAF_LC);
        if (op) gex_Event_Wait(rv_vis_op_event(op));
        if (RV_STAT_ON()) rv_vis_stat(is_get, 0, total, 0);
        return GEX_EVENT_INVALID;
    }
    struct rv_vis_op *op = rv_vis_am_start(is_get, jr, &l, &r, total, form == RV_VIS_NBI, lc,
                                           flags);
    if (RV_STAT_ON()) rv_vis_stat(is_get, 0, total, op == RV_VIS_NO_OP);
    if (op == RV_VIS_NO_OP) return GEX_EVENT_NO_OP;
    return op ? rv_vis_op_event(op) : GEX_EVENT_INVALID;
}

/* ---- the forms ------------------------------------------------------------------------------ */

static inline int rv_vis_nbi_rc(gex_Event_t ev) { return ev == GEX_EVENT_NO_OP; }

static inline int rv_vis_blocking_rc(gex_Event_t ev)
{
    if (ev == GEX_EVENT_NO_OP) return 1;
    if (ev != GEX_EVENT_INVALID) gex_Event_Wait(ev);
    return 0;
}

/* RIVET_TRACE: one VIS call as one event (a blocking one's: with its wait), named by the call,
 * with the peer's jobrank and the bytes it moves. */

static size_t rv_vis_strided_bytes(size_t elemsz, const size_t count[], size_t levels)
{
    size_t b = elemsz;
    if (!elemsz || !count) return 0; /* a no-op call may pass NULL */
    for (size_t i = 0; i < levels; i++) b *= count[i]; /* stridelevels entries (the spec) */
    return b;
}

static __attribute__((noinline)) void rv_vis_trace(unsigned id, uint64_t t0, const char *call,
                                                   gex_TM_t tm, gex_Rank_t rank,
                                                   gex_Flags_t flags, size_t bytes)
{
    gex_Rank_t jr = (flags & GEX_FLAG_RANK_IS_JOBRANK) || !tm || rank >= tm->size
                        ? rank : rv_tm_jobrank(tm, rank);
    rv_trace_end(id, t0, call, jr, bytes, ~0u);
}

#define RV_VIS_NAME(kind, dir, form) "gex_VIS_" #kind #dir #form

/* The general path of a call (out of line: the exported function keeps only the fast path's
 * registers): trace, the operation, a Put's peer completion, a Blocking form's wait (inside
 * the traced interval). */
static inline gex_Event_t rv_vis_finish(const char *call, int is_get, gex_TM_t tm,
                                        gex_Rank_t rank, int form, gex_Event_t ev)
{
    if (!is_get) ev = rv_vis_pc_notify(call, tm, rank, ev);
    if (form == RV_VIS_BLOCKING && ev != GEX_EVENT_INVALID && ev != GEX_EVENT_NO_OP) {
        gex_Event_Wait(ev);
        ev = GEX_EVENT_INVALID;
    }
    return ev;
}

static __attribute__((noinline)) gex_Event_t
rv_vis_vector_call(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                   const gex_Memvec_t *dstlist, size_t srccount, const gex_Memvec_t *srclist,
                   int form, gex_Flags_t flags)
{
    unsigned id = is_get ? RV_TR_VIS_GET : RV_TR_VIS_PUT;
    uint64_t t0 = RV_OBS_ON(RV_OBS_TRACE) ? rv_trace_begin(id) : 0;
    gex_Event_t ev = rv_vis_finish(call, is_get, tm, rank, form,
                                   rv_vis_vector(call, is_get, tm, rank, dstcount, dstlist,
                                                 srccount, srclist, form, flags));
    if (t0) rv_vis_trace(id, t0, call, tm, rank, flags, rv_vis_memvec_bytes(srccount, srclist));
    return ev;
}

static __attribute__((noinline)) gex_Event_t
rv_vis_indexed_call(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank, size_t dstcount,
                    void *const *dstlist, size_t dstlen, size_t srccount, void *const *srclist,
                    size_t srclen, int form, gex_Flags_t flags)
{
    unsigned id = is_get ? RV_TR_VIS_GET : RV_TR_VIS_PUT;
    uint64_t t0 = RV_OBS_ON(RV_OBS_TRACE) ? rv_trace_begin(id) : 0;
    gex_Event_t ev = rv_vis_finish(call, is_get, tm, rank, form,
                                   rv_vis_indexed(call, is_get, tm, rank, dstcount, dstlist,
                                                  dstlen, srccount, srclist, srclen, form,
                                                  flags));
    if (t0) rv_vis_trace(id, t0, call, tm, rank, flags, srccount * srclen);
    return ev;
}

static __attribute__((noinline)) gex_Event_t
rv_vis_strided_call(const char *call, int is_get, gex_TM_t tm, gex_Rank_t rank, void *dstaddr,
                    const ptrdiff_t *dststrides, void *srcaddr, const ptrdiff_t *srcstrides,
                    size_t elemsz, const size_t *count, size_t levels, int form,
                    gex_Flags_t flags)
{
    unsigned id = is_get ? RV_TR_VIS_GET : RV_TR_VIS_PUT;
    uint64_t t0 = RV_OBS_ON(RV_OBS_TRACE) ? rv_trace_begin(id) : 0;
    gex_Event_t ev = rv_vis_finish(call, is_get, tm, rank, form,
                                   rv_vis_strided(call, is_get, tm, rank, dstaddr, dststrides,
                                                  srcaddr, srcstrides, elemsz, count, levels,
                                                  form, flags));
    if (t0) rv_vis_trace(id, t0, call, tm, rank, flags,
                         rv_vis_strided_bytes(elemsz, count, levels));
    return ev;
}

/* Each exported call: the mapped-peer fast path inline, else the general path. */
#define RV_VIS_VGET(form, ret, wrap)                                                            \
    ret gex_VIS_VectorGet##form(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],     \
                                gex_Rank_t srcrank, size_t srccount,                            \
                                gex_Memvec_t const srclist[], gex_Flags_t flags)                \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, srcrank, flags);                          \
        if (m_ && dstcount == srccount && rv_vis_vector_fast(1, m_, dstcount, dstlist, srclist)) \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_vector_call(RV_VIS_NAME(Vector, Get, form), 1, tm, srcrank, dstcount, \
                                       dstlist, srccount, srclist, RV_VIS_FORM_##form, flags));  \
    }
#define RV_VIS_VPUT(form, ret, wrap)                                                            \
    ret gex_VIS_VectorPut##form(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,               \
                                gex_Memvec_t const dstlist[], size_t srccount,                  \
                                gex_Memvec_t const srclist[], gex_Flags_t flags)                \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, dstrank, flags);                          \
        if (m_ && dstcount == srccount && rv_vis_vector_fast(0, m_, dstcount, dstlist, srclist)) \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_vector_call(RV_VIS_NAME(Vector, Put, form), 0, tm, dstrank, dstcount, \
                                       dstlist, srccount, srclist, RV_VIS_FORM_##form, flags));  \
    }
#define RV_VIS_IGET(form, ret, wrap)                                                            \
    ret gex_VIS_IndexedGet##form(gex_TM_t tm, size_t dstcount, void *const dstlist[],           \
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,            \
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)       \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, srcrank, flags);                          \
        if (m_ && dstcount == srccount && dstlen == srclen &&                                   \
            rv_vis_indexed_fast(1, m_, dstcount, dstlist, srclist, dstlen))                     \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_indexed_call(RV_VIS_NAME(Indexed, Get, form), 1, tm, srcrank,         \
                                        dstcount, dstlist, dstlen, srccount, srclist, srclen,   \
                                        RV_VIS_FORM_##form, flags));                            \
    }
#define RV_VIS_IPUT(form, ret, wrap)                                                            \
    ret gex_VIS_IndexedPut##form(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,              \
                                 void *const dstlist[], size_t dstlen, size_t srccount,         \
                                 void *const srclist[], size_t srclen, gex_Flags_t flags)       \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, dstrank, flags);                          \
        if (m_ && dstcount == srccount && dstlen == srclen &&                                   \
            rv_vis_indexed_fast(0, m_, dstcount, dstlist, srclist, dstlen))                     \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_indexed_call(RV_VIS_NAME(Indexed, Put, form), 0, tm, dstrank,         \
                                        dstcount, dstlist, dstlen, srccount, srclist, srclen,   \
                                        RV_VIS_FORM_##form, flags));                            \
    }
#define RV_VIS_SGET(form, ret, wrap)                                                            \
    ret gex_VIS_StridedGet##form(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],      \
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[], \
                                 size_t elemsz, const size_t count[], size_t stridelevels,      \
                                 gex_Flags_t flags)                                             \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, srcrank, flags);                          \
        if (m_ && rv_vis_strided_try(1, m_, dstaddr, dststrides, srcaddr, srcstrides, elemsz,   \
                                     count, stridelevels))                                       \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_strided_call(RV_VIS_NAME(Strided, Get, form), 1, tm, srcrank,         \
                                        dstaddr, dststrides, srcaddr, srcstrides, elemsz, count, \
                                        stridelevels, RV_VIS_FORM_##form, flags));              \
    }
#define RV_VIS_SPUT(form, ret, wrap)                                                            \
    ret gex_VIS_StridedPut##form(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,                \
                                 const ptrdiff_t dststrides[], void *srcaddr,                   \
                                 const ptrdiff_t srcstrides[], size_t elemsz,                   \
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags)  \
    {                                                                                           \
        const rv_segmap_t *m_ = rv_vis_fast_begin(tm, dstrank, flags);                          \
        if (m_ && rv_vis_strided_try(0, m_, dstaddr, dststrides, srcaddr, srcstrides, elemsz,   \
                                     count, stridelevels))                                       \
            return wrap(GEX_EVENT_INVALID);                                                     \
        return wrap(rv_vis_strided_call(RV_VIS_NAME(Strided, Put, form), 0, tm, dstrank,         \
                                        dstaddr, dststrides, srcaddr, srcstrides, elemsz, count, \
                                        stridelevels, RV_VIS_FORM_##form, flags));              \
    }

#define RV_VIS_FORM_NB RV_VIS_NB
#define RV_VIS_FORM_NBI RV_VIS_NBI
#define RV_VIS_FORM_Blocking RV_VIS_BLOCKING
#define RV_VIS_EV(x) (x)

#define RV_VIS_ALL_FORMS(X)                  \
    X(NB, gex_Event_t, RV_VIS_EV)            \
    X(NBI, int, rv_vis_nbi_rc)               \
    X(Blocking, int, rv_vis_blocking_rc)

RV_VIS_ALL_FORMS(RV_VIS_VGET)
RV_VIS_ALL_FORMS(RV_VIS_VPUT)
RV_VIS_ALL_FORMS(RV_VIS_IGET)
RV_VIS_ALL_FORMS(RV_VIS_IPUT)
RV_VIS_ALL_FORMS(RV_VIS_SGET)
RV_VIS_ALL_FORMS(RV_VIS_SPUT)
