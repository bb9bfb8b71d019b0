/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_api.c: the gex_RMA_* calls: argument checks, lc_opt rules, and the choice between direct
 * copies into a mapped peer segment and the AM-based reference. */
#include "rma/rma_int.h"
#include "am/am_int.h"
#include "rma/rma_api.h"
#include "core/trace.h"

#include <stddef.h>
#include <string.h>

static int rv_rma_ref_only; /* RIVET_RMA=ref */
/* Copies to mapped peers on the path without a RIVET_STATS hook: neither RIVET_RMA=ref nor
 * stats (with stats on they take a second, counted branch; off, the check is the one it was). */
static int rv_rma_mapped_fast;

/* gasnetex.h's inline fast paths read these objects through its mirror structs. */
#define RV_SAME_FIELD(a, b, f)                                                                 \
    _Static_assert(offsetof(a, f) == offsetof(b, f) && sizeof(((a *)0)->f) ==                 \
                   sizeof(((b *)0)->f), "gasnetex.h's " #b " does not mirror " #a "." #f)
RV_SAME_FIELD(struct rv_tm, struct _rivet_tm_head, rma_map);
RV_SAME_FIELD(struct rv_tm, struct _rivet_tm_head, rma_n);
RV_SAME_FIELD(struct rv_tm, struct _rivet_tm_head, size);
RV_SAME_FIELD(struct rv_tm, struct _rivet_tm_head, jobranks);
RV_SAME_FIELD(struct rv_tm, struct _rivet_tm_head, rma_flat);
RV_SAME_FIELD(rv_segmap_t, struct _rivet_segent, owner_base);
RV_SAME_FIELD(rv_segmap_t, struct _rivet_segent, local_base);
RV_SAME_FIELD(rv_segmap_t, struct _rivet_segent, size);
_Static_assert(sizeof(rv_segmap_t) == sizeof(struct _rivet_segent), "segment entry size");
_Static_assert(RV_TM_TABLE_OFF == _RIVET_TM_TABLE_OFF && sizeof(struct rv_tm) <= RV_TM_TABLE_OFF &&
                   RV_TM_TABLE_OFF % _Alignof(rv_segmap_t) == 0, "primordial team's table");

void rv_rma_api_init(void)
{
    if (!strcmp(rv_cfg.RMA, "ref")) rv_rma_ref_only = 1;
    else if (strcmp(rv_cfg.RMA, "auto"))
        rv_fatal("environment: RIVET_RMA=%s is not one of auto, ref", rv_cfg.RMA);
    rv_rma_mapped_fast = !rv_rma_ref_only && !(rv_obs_mask & RV_OBS_STATS);
    /* the primordial team exists by now (gex_Client_Init); other teams and TM-pairs take
     * theirs from it when they are made (coll/tm_split.c) */
    /* (also NULL while observability is on: every Put and Get then passes the hooks here; the
     * inline path stays as it was with both off) */
    rv_eps[0]->client->tm0->rma_map =
        rv_rma_ref_only || RV_OBS_ON(RV_OBS_STATS | RV_OBS_TRACE) ? NULL : &rv_segmap;
    rv_tm_flat_track(rv_eps[0]->client->tm0);
    rv_rma_init();
    rv_verbose(1, "RMA: %s", rv_rma_ref_only ? "reference (AM) for every peer"
                                             : rv_tp.ops.put ? "direct copies to neighbourhood "
                                               "peers, RDMA to the others"
                                             : "direct copies to neighbourhood peers");
}

static inline int rv_rma_lc_nb(const char *call, gex_Event_t *lc)
{
    if (lc == GEX_EVENT_NOW) return RV_LC_NOW;
    if (lc == GEX_EVENT_DEFER) return RV_LC_DEFER;
    if (__builtin_expect(lc == GEX_EVENT_GROUP, 0))
        rv_fatal("%s: lc_opt GEX_EVENT_GROUP is only for NBI calls; pass GEX_EVENT_NOW, "
                 "GEX_EVENT_DEFER or a pointer to a gex_Event_t", call);
    if (__builtin_expect(lc == NULL, 0)) rv_fatal("%s: lc_opt is NULL", call);
    return RV_LC_LEAF;
}

static inline int rv_rma_lc_nbi(const char *call, gex_Event_t *lc)
{
    if (lc == GEX_EVENT_NOW) return RV_LC_NOW;
    if (lc == GEX_EVENT_DEFER) return RV_LC_DEFER;
    if (lc == GEX_EVENT_GROUP) return RV_LC_GROUP;
    if (lc == NULL) rv_fatal("%s: lc_opt is NULL", call);
    rv_fatal("%s: lc_opt must be GEX_EVENT_NOW, GEX_EVENT_DEFER or GEX_EVENT_GROUP for an NBI "
             "call, not a pointer (%p)", call, (void *)lc);
}

static inline gex_Rank_t rv_rma_rank(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("%s called inside an AM handler; handlers may only Reply", call);
    return rv_tm_check_rank(call, tm, rank);
}

static __attribute__((noreturn, noinline)) void rv_rma_bad_target(const char *call, gex_TM_t tm,
                                                                  const rv_segmap_t *m,
                                                                  gex_Rank_t rank,
                                                                  const void *remote, size_t n,
                                                                  const char *role)
{
    char ep[48] = "";
    if (tm->pair_index) snprintf(ep, sizeof ep, " (endpoint index %u)", tm->pair_index);
    if (!m || !m->size)
        rv_fatal("%s: rank %u%s has no bound segment%s", call, rank, ep,
                 tm->pair_index ? " published to this rank" : "");
    uintptr_t a = (uintptr_t)remote, base = (uintptr_t)m->owner_base;
    rv_fatal("%s: %s [%p, %p) is outside the bound segment [%p, %p) of rank %u%s", call, role,
             remote, (void *)(a + n), m->owner_base, (void *)(base + m->size), rank, ep);
}

/* The remote range must lie in the bound segment of the endpoint (tm, rank) names: index 0
 * (every team, and TM-pairs to index 0) on the fast path, others through their table. */
static inline const rv_segmap_t *rv_rma_target(const char *call, gex_TM_t tm, gex_Rank_t jr,
                                               gex_Rank_t rank, const void *remote, size_t n,
                                               const char *role)
{
    const rv_segmap_t *tab = __builtin_expect(tm->pair_index != 0, 0) ? rv_epsegs[tm->pair_index]
                                                                       : rv_segmap;
    const rv_segmap_t *m = tab ? &tab[jr] : NULL;
    uintptr_t a = (uintptr_t)remote, base = m ? (uintptr_t)m->owner_base : 0;
    if (__builtin_expect(!m || !m->size || a < base || n > m->size || a - base > m->size - n, 0))
        rv_rma_bad_target(call, tm, m, rank, remote, n, role);
    return m;
}

static inline void *rv_rma_mapped(const rv_segmap_t *m, const void *remote)
{
    return (char *)m->local_base + ((uintptr_t)remote - (uintptr_t)m->owner_base);
}

/* Copies into / out of a mapped peer segment. An aligned word of 1, 2, 4 or 8 bytes on the
 * segment side moves with exactly one load and one store: libc's memcpy writes small sizes as
 * overlapping pieces (the same 4 or 8 bytes twice, or a halfword then its first byte again),
 * so a peer's store landing between the two pieces was undone by the second one, or a reader
 * saw a torn value; a lock handed round with value puts then went back to an old owner. */
#define RV_RMA_WORD(bits)                                                                       \
    case (bits) / 8:                                                                            \
        if (!((uintptr_t)seg & ((bits) / 8 - 1))) {                                             \
            uint##bits##_t w;                                                                   \
            if (to_seg) {                                                                       \
                memcpy(&w, loc, sizeof w);                                                      \
                __atomic_store_n((uint##bits##_t *)seg, w, __ATOMIC_RELAXED);                   \
            } else {                                                                            \
                w = __atomic_load_n((const uint##bits##_t *)seg, __ATOMIC_RELAXED);             \
                memcpy(loc, &w, sizeof w);                                                      \
            }                                                                                   \
            return;                                                                             \
        }                                                                                       \
        break;

static inline void rv_rma_copy(int to_seg, void *seg, void *loc, size_t n)
{
    switch (n) {
        RV_RMA_WORD(8)
        RV_RMA_WORD(32)
        RV_RMA_WORD(64)
        RV_RMA_WORD(16)
    default: break;
    }
    if (to_seg) memcpy(seg, loc, n);
    else memcpy(loc, seg, n);
}

/* GEX_FLAG_{SELF,PEER}_SEG_OFFSET: the local / remote address is an offset from the start of
 * the respective bound segment. Turns offsets into addresses (range checks follow as usual;
 * the local range must lie in this rank's bound segment). */
static void rv_rma_offsets(const char *call, gex_TM_t tm, gex_Rank_t jr, gex_Rank_t rank,
                           gex_Flags_t flags, void **local, void **remote, size_t nbytes)
{
    if (flags & GEX_FLAG_PEER_SEG_OFFSET) {
        const rv_segmap_t *tab = rv_epseg_table(tm->pair_index);
        if (!tab || !tab[jr].size)
            rv_fatal("%s: GEX_FLAG_PEER_SEG_OFFSET but rank %u (endpoint index %u) has no bound "
                     "segment", call, rank, tm->pair_index);
        *remote = (char *)tab[jr].owner_base + (uintptr_t)*remote;
    }
    if (flags & GEX_FLAG_SELF_SEG_OFFSET) {
        const struct rv_segment *seg = tm->ep->seg;
        uintptr_t off = (uintptr_t)*local;
        if (!seg) rv_fatal("%s: GEX_FLAG_SELF_SEG_OFFSET but this rank has no bound segment", call);
        if (off > seg->size || nbytes > seg->size - off)
            rv_fatal("%s: local offset %" PRIuPTR " + %zu bytes (GEX_FLAG_SELF_SEG_OFFSET) is "
                     "outside this rank's %" PRIuPTR "-byte bound segment", call, off, nbytes,
                     seg->size);
        *local = (char *)seg->addr + off;
    }
}

/* RIVET_STATS: one RDMA or AM-reference operation started (id, then id + 1 its bytes), or
 * refused under IMMEDIATE. */
static __attribute__((noinline)) void rv_rma_stat(const rv_rma_op_t *op, rv_stat_t id,
                                                  size_t nbytes)
{
    if (op == RV_RMA_NO_OP) {
        rv_stats_add(RV_ST_RMA_IMM_REFUSED, 1);
        return;
    }
    rv_stats_add(id, 1);
    rv_stats_add((rv_stat_t)(id + 1), nbytes);
}

/* RIVET_STATS on: a copy to/from a mapped peer, counted. */
static __attribute__((noinline)) gex_Event_t rv_rma_mapped_counted(int to_seg, void *seg, void *loc,
                                                                   size_t nbytes)
{
    rv_rma_copy(to_seg, seg, loc, nbytes);
    rv_stats_add(to_seg ? RV_ST_RMA_PUT_MAPPED : RV_ST_RMA_GET_MAPPED, 1);
    rv_stats_add(to_seg ? RV_ST_RMA_PUT_MAPPED_BYTES : RV_ST_RMA_GET_MAPPED_BYTES, nbytes);
    return GEX_EVENT_INVALID;
}

static inline __attribute__((always_inline)) gex_Event_t
rv_rma_put_body(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                size_t nbytes, int lc, gex_Event_t *lcp, int is_nbi, gex_Flags_t flags)
{
    gex_Rank_t jr = rv_rma_rank(call, tm, rank);
    if (lc == RV_LC_LEAF) *lcp = GEX_EVENT_INVALID;
    if (__builtin_expect(nbytes == 0, 0)) return GEX_EVENT_INVALID;
    if (__builtin_expect(flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET), 0)) {
        void *l = (void *)src;
        rv_rma_offsets(call, tm, jr, rank, flags, &l, &dest, nbytes);
        src = l;
    }
    const rv_segmap_t *m = rv_rma_target(call, tm, jr, rank, dest, nbytes, "destination");
    if (m->local_base && rv_rma_mapped_fast) {
        rv_rma_copy(1, rv_rma_mapped(m, dest), (void *)src, nbytes);
        return GEX_EVENT_INVALID;
    }
    if (__builtin_expect(m->local_base && !rv_rma_ref_only, 0)) /* RIVET_STATS on */
        return rv_rma_mapped_counted(1, rv_rma_mapped(m, dest), (void *)src, nbytes);
    int rdma = (m->flags & RV_SEG_RDMA) && !rv_rma_ref_only;
    rv_rma_op_t *op = rdma ? rv_rma_native_start(0, jr, tm->pair_index, (void *)src,
                                                 (uintptr_t)dest, nbytes, is_nbi, lc, flags)
                           : rv_rma_ref_start(0, jr, tm->pair_index, (void *)src, (uintptr_t)dest,
                                              nbytes, is_nbi, lc, flags);
    if (RV_STAT_ON()) rv_rma_stat(op, rdma ? RV_ST_RMA_PUT_RDMA : RV_ST_RMA_PUT_REF, nbytes);
    if (op == RV_RMA_NO_OP) return GEX_EVENT_NO_OP;
    if (!op) return GEX_EVENT_INVALID;
    if (lc == RV_LC_LEAF && !rv_rma_lc_done(op)) *lcp = &op->leaf;
    return &op->root;
}

static inline __attribute__((always_inline)) gex_Event_t
rv_rma_get_body(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                size_t nbytes, int is_nbi, gex_Flags_t flags)
{
    gex_Rank_t jr = rv_rma_rank(call, tm, rank);
    if (__builtin_expect(nbytes == 0, 0)) return GEX_EVENT_INVALID;
    if (__builtin_expect(flags & (GEX_FLAG_SELF_SEG_OFFSET | GEX_FLAG_PEER_SEG_OFFSET), 0))
        rv_rma_offsets(call, tm, jr, rank, flags, &dest, &src, nbytes);
    const rv_segmap_t *m = rv_rma_target(call, tm, jr, rank, src, nbytes, "source");
    if (m->local_base && rv_rma_mapped_fast) {
        rv_rma_copy(0, rv_rma_mapped(m, src), dest, nbytes);
        return GEX_EVENT_INVALID;
    }
    if (__builtin_expect(m->local_base && !rv_rma_ref_only, 0)) /* RIVET_STATS on */
        return rv_rma_mapped_counted(0, rv_rma_mapped(m, src), dest, nbytes);
    int rdma = (m->flags & RV_SEG_RDMA) && !rv_rma_ref_only;
    rv_rma_op_t *op = rdma ? rv_rma_native_start(1, jr, tm->pair_index, dest, (uintptr_t)src,
                                                 nbytes, is_nbi, RV_LC_DEFER, flags)
                           : rv_rma_ref_start(1, jr, tm->pair_index, dest, (uintptr_t)src, nbytes,
                                              is_nbi, RV_LC_DEFER, flags);
    if (RV_STAT_ON()) rv_rma_stat(op, rdma ? RV_ST_RMA_GET_RDMA : RV_ST_RMA_GET_REF, nbytes);
    if (op == RV_RMA_NO_OP) return GEX_EVENT_NO_OP;
    return op ? &op->root : GEX_EVENT_INVALID;
}

/* RIVET_TRACE: the initiation as one event (a blocking call's: with its wait), named by the
 * call, with the peer's jobrank and the size. */
static __attribute__((noinline)) gex_Event_t
rv_rma_put_traced(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
                  size_t nbytes, int lc, gex_Event_t *lcp, int is_nbi, gex_Flags_t flags)
{
    uint64_t t0 = rv_trace_begin(RV_TR_PUT);
    gex_Rank_t jr = rv_rma_rank(call, tm, rank);
    gex_Event_t ev = rv_rma_put_body(call, tm, rank, dest, src, nbytes, lc, lcp, is_nbi, flags);
    if (ev != GEX_EVENT_NO_OP) rv_trace_end(RV_TR_PUT, t0, call, jr, nbytes, ~0u);
    return ev;
}

static __attribute__((noinline)) gex_Event_t
rv_rma_get_traced(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src,
                  size_t nbytes, int is_nbi, gex_Flags_t flags)
{
    uint64_t t0 = rv_trace_begin(RV_TR_GET);
    gex_Rank_t jr = rv_rma_rank(call, tm, rank);
    gex_Event_t ev = rv_rma_get_body(call, tm, dest, rank, src, nbytes, is_nbi, flags);
    if (ev != GEX_EVENT_NO_OP) rv_trace_end(RV_TR_GET, t0, call, jr, nbytes, ~0u);
    return ev;
}

static inline __attribute__((always_inline)) gex_Event_t
rv_rma_put(const char *call, gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src,
           size_t nbytes, int lc, gex_Event_t *lcp, int is_nbi, gex_Flags_t flags)
{
    if (RV_OBS_ON(RV_OBS_TRACE))
        return rv_rma_put_traced(call, tm, rank, dest, src, nbytes, lc, lcp, is_nbi, flags);
    return rv_rma_put_body(call, tm, rank, dest, src, nbytes, lc, lcp, is_nbi, flags);
}

static inline __attribute__((always_inline)) gex_Event_t
rv_rma_get(const char *call, gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
           int is_nbi, gex_Flags_t flags)
{
    if (RV_OBS_ON(RV_OBS_TRACE))
        return rv_rma_get_traced(call, tm, dest, rank, src, nbytes, is_nbi, flags);
    return rv_rma_get_body(call, tm, dest, rank, src, nbytes, is_nbi, flags);
}

/* A blocking call that must wait polls while it waits (gex_Event_Wait); one that completed
 * at once (a copy to a mapped peer) makes no progress, as in GASNet-EX (docs/completion.md,
 * "Progress"): a loop of such calls costs no more than the copies. */
static inline int rv_rma_sync(gex_Event_t ev)
{
    if (ev == GEX_EVENT_NO_OP) return 1;
    if (ev != GEX_EVENT_INVALID) gex_Event_Wait(ev);
    return 0;
}

static __attribute__((noinline)) int rv_rma_blocking_traced(int is_get, gex_TM_t tm,
                                                             gex_Rank_t rank, void *dest,
                                                             void *src, size_t nbytes,
                                                             gex_Flags_t flags)
{
    const char *call = is_get ? "gex_RMA_GetBlocking" : "gex_RMA_PutBlocking";
    unsigned id = is_get ? RV_TR_GET : RV_TR_PUT;
    uint64_t t0 = rv_trace_begin(id);
    gex_Rank_t jr = rv_rma_rank(call, tm, rank);
    int rc = is_get ? rv_rma_sync(rv_rma_get_body(call, tm, dest, rank, src, nbytes, 0, flags))
                    : rv_rma_sync(rv_rma_put_body(call, tm, rank, dest, src, nbytes, RV_LC_NOW,
                                                  NULL, 0, flags));
    if (!rc) rv_trace_end(id, t0, call, jr, nbytes, ~0u);
    return rc;
}

int gex_RMA_PutBlocking(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                        gex_Flags_t flags)
{
    if (RV_OBS_ON(RV_OBS_TRACE))
        return rv_rma_blocking_traced(0, tm, rank, dest, (void *)src, nbytes, flags);
    return rv_rma_sync(rv_rma_put("gex_RMA_PutBlocking", tm, rank, dest, src, nbytes, RV_LC_NOW,
                                  NULL, 0, flags));
}

int gex_RMA_PutNBI(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                   gex_Event_t *lc_opt, gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_PutNBI";
    int lc = rv_rma_lc_nbi(call, lc_opt);
    return rv_rma_put(call, tm, rank, dest, src, nbytes, lc, NULL, 1, flags) == GEX_EVENT_NO_OP;
}

gex_Event_t gex_RMA_PutNB(gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,
                          gex_Event_t *lc_opt, gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_PutNB";
    int lc = rv_rma_lc_nb(call, lc_opt);
    return rv_rma_put(call, tm, rank, dest, src, nbytes, lc, lc_opt, 0, flags);
}

int gex_RMA_GetBlocking(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                        gex_Flags_t flags)
{
    if (RV_OBS_ON(RV_OBS_TRACE)) return rv_rma_blocking_traced(1, tm, rank, dest, src, nbytes, flags);
    return rv_rma_sync(rv_rma_get("gex_RMA_GetBlocking", tm, dest, rank, src, nbytes, 0, flags));
}

int gex_RMA_GetNBI(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                   gex_Flags_t flags)
{
    return rv_rma_get("gex_RMA_GetNBI", tm, dest, rank, src, nbytes, 1, flags) == GEX_EVENT_NO_OP;
}

gex_Event_t gex_RMA_GetNB(gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,
                          gex_Flags_t flags)
{
    return rv_rma_get("gex_RMA_GetNB", tm, dest, rank, src, nbytes, 0, flags);
}

/* ---- value forms: the low-order nbytes of a gex_RMA_Value_t ---------------- */

static void rv_val_check(const char *call, size_t nbytes)
{
    if (nbytes < 1 || nbytes > SIZEOF_GEX_RMA_VALUE_T)
        rv_fatal("%s: nbytes=%zu must be between 1 and %d", call, nbytes, SIZEOF_GEX_RMA_VALUE_T);
}

static void rv_val_store(gex_RMA_Value_t v, size_t n, void *out)
{
    switch (n) {
    case 1: { uint8_t x = (uint8_t)v; memcpy(out, &x, 1); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(out, &x, 2); break; }
    case 4: { uint32_t x = (uint32_t)v; memcpy(out, &x, 4); break; }
    case 8: memcpy(out, &v, 8); break;
    default:
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        memcpy(out, (char *)&v + sizeof v - n, n);
#else
        memcpy(out, &v, n);
#endif
    }
}

static gex_RMA_Value_t rv_val_load(const void *in, size_t n)
{
    gex_RMA_Value_t v = 0;
    switch (n) {
    case 1: { uint8_t x; memcpy(&x, in, 1); return x; }
    case 2: { uint16_t x; memcpy(&x, in, 2); return x; }
    case 4: { uint32_t x; memcpy(&x, in, 4); return x; }
    case 8: memcpy(&v, in, 8); return v;
    default:
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
        memcpy((char *)&v + sizeof v - n, in, n);
#else
        memcpy(&v, in, n);
#endif
        return v;
    }
}

gex_RMA_Value_t gex_RMA_GetBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes,
                                       gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_GetBlockingVal";
    uint64_t buf = 0;
    rv_val_check(call, nbytes);
    rv_rma_sync(rv_rma_get(call, tm, &buf, rank, src, nbytes, 0,
                           flags & ~(GEX_FLAG_IMMEDIATE | GEX_FLAG_SELF_SEG_OFFSET)));
    return rv_val_load(&buf, nbytes);
}

int gex_RMA_PutBlockingVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                           size_t nbytes, gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_PutBlockingVal";
    uint64_t buf;
    rv_val_check(call, nbytes);
    rv_val_store(value, nbytes, &buf);
    return rv_rma_sync(rv_rma_put(call, tm, rank, dest, &buf, nbytes, RV_LC_NOW, NULL, 0,
                                  flags & ~GEX_FLAG_SELF_SEG_OFFSET));
}

int gex_RMA_PutNBIVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                      size_t nbytes, gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_PutNBIVal";
    uint64_t buf;
    rv_val_check(call, nbytes);
    rv_val_store(value, nbytes, &buf);
    return rv_rma_put(call, tm, rank, dest, &buf, nbytes, RV_LC_NOW, NULL, 1,
                      flags & ~GEX_FLAG_SELF_SEG_OFFSET) ==
           GEX_EVENT_NO_OP;
}

gex_Event_t gex_RMA_PutNBVal(gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,
                             size_t nbytes, gex_Flags_t flags)
{
    static const char call[] = "gex_RMA_PutNBVal";
    uint64_t buf;
    rv_val_check(call, nbytes);
    rv_val_store(value, nbytes, &buf);
    return rv_rma_put(call, tm, rank, dest, &buf, nbytes, RV_LC_NOW, NULL, 0,
                      flags & ~GEX_FLAG_SELF_SEG_OFFSET);
}
