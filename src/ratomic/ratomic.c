/* SPDX-License-Identifier: BSD-3-Clause */
/* ratomic/ratomic.c: atomic domains (gex_AD_*): creation with the choice of implementation,
 * queries, and gex_AD_Op{NB,NBI}_<DT>: argument checks, then CPU atomics on a mapped
 * neighbourhood segment, or an operation record handed to the AM reference or native atomics. */
#include "ratomic/ratomic_int.h"
#include "am/am_int.h"

#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "core/trace.h"

/* ---- choosing the implementation --------------------------------------------------------- */

static pthread_once_t rv_ratomic_once = PTHREAD_ONCE_INIT;
static int rv_ratomic_ref_only; /* RIVET_RATOMIC=ref */
static int rv_ratomic_no_native; /* RIVET_RATOMIC=cpu */

static void rv_ratomic_parse_env(void)
{
    if (!strcmp(rv_cfg.RATOMIC, "ref")) rv_ratomic_ref_only = 1;
    else if (!strcmp(rv_cfg.RATOMIC, "cpu")) rv_ratomic_no_native = 1;
    else if (strcmp(rv_cfg.RATOMIC, "auto"))
        rv_fatal("environment: RIVET_RATOMIC=%s is not one of auto, cpu, ref", rv_cfg.RATOMIC);
}

/* The native atomics of the transport in use (rv_tp_desc_t.atomics, an optional entry at the
 * end of the descriptor), or NULL: none, or RIVET_RATOMIC=cpu. */
static const rv_ratomic_native_t *rv_ratomic_native(void)
{
    const rv_tp_desc_t *d = rv_tp.desc;
    if (rv_ratomic_no_native || !d ||
        d->size < offsetof(rv_tp_desc_t, atomics) + sizeof d->atomics || !d->atomics)
        return NULL;
    const rv_ratomic_native_t *nat = d->atomics(rv_tp.priv, rv_ratomic_complete);
    return nat && nat->size >= sizeof *nat && nat->supports && nat->issue ? nat : NULL;
}

static void rv_ratomic_init(void)
{
    rv_ratomic_parse_env();
    rv_ratomic_ref_init();
}

/* 1 if every member of tm (NULL: the job) is in my neighbourhood. */
static int rv_ad_team_in_nbrhd(gex_TM_t tm)
{
    gex_Rank_t n = tm ? tm->size : rv_job.size;
    for (gex_Rank_t r = 0; r < n; r++)
        if (!rv_job_in_nbrhd(tm ? rv_tm_jobrank(tm, r) : r)) return 0;
    return 1;
}

/* The implementation for a domain of type dt and op set ops over team tm (NULL: the whole
 * job) with creation flags 'flags'. Every argument is single-valued and the environment is the
 * same everywhere, so every member makes the same choice. The rule:
 *  - RIVET_RATOMIC=ref: the AM reference for every peer;
 *  - else the transport's native atomics, when it has them for *every* op in the set on dt,
 *    unless the creation hints favour local targets (GEX_FLAG_AD_FAVOR_MY_RANK/_MY_NBRHD) or
 *    the whole team lives in one neighbourhood (then CPU atomics are faster);
 *  - else CPU atomics on mapped neighbourhood segments, the AM reference for other peers.
 * *native receives the native table for RV_AD_NATIVE. */
static rv_ad_impl_t rv_ad_choose(gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags,
                                 const rv_ratomic_native_t **native)
{
    pthread_once(&rv_ratomic_once, rv_ratomic_init);
    *native = NULL;
    if (rv_ratomic_ref_only) return RV_AD_REF;
    const rv_ratomic_native_t *nat = rv_ratomic_native();
    if (nat && !(flags & (GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD)) &&
        !rv_ad_team_in_nbrhd(tm)) {
        gex_OP_t rest = ops;
        while (rest && nat->supports(dt, rest & -rest)) rest &= rest - 1;
        if (!rest) {
            *native = nat;
            return RV_AD_NATIVE;
        }
    }
    return RV_AD_CPU;
}

static const char *rv_ad_impl_name(rv_ad_impl_t impl, const rv_ratomic_native_t *native)
{
    switch (impl) {
    case RV_AD_REF: return "AM reference for every peer (RIVET_RATOMIC=ref)";
    case RV_AD_NATIVE: return native ? native->name : "transport-native atomics";
    default: return "CPU atomics on mapped neighbourhood segments, AM reference for other peers";
    }
}

/* gasnet_ratomic.h's inline fast path reads a domain through struct _rivet_ad_head. */
#define RV_AD_SAME(f)                                                                          \
    _Static_assert(offsetof(struct rv_ad, f) == offsetof(struct _rivet_ad_head, f) &&         \
                   sizeof(((struct rv_ad *)0)->f) == sizeof(((struct _rivet_ad_head *)0)->f), \
                   "gasnet_ratomic.h's struct _rivet_ad_head does not mirror rv_ad." #f)
_Static_assert(offsetof(struct rv_ad, seg) == offsetof(struct _rivet_ad_head, seg) &&
                   sizeof(((struct rv_ad *)0)->seg) == sizeof(void *),
               "gasnet_ratomic.h's struct _rivet_ad_head does not mirror rv_ad.seg");
RV_AD_SAME(jobranks);
RV_AD_SAME(fast);
_Static_assert(offsetof(struct rv_ad, tm_size) == offsetof(struct _rivet_ad_head, size) &&
                   sizeof(((struct rv_ad *)0)->tm_size) == sizeof(gex_Rank_t),
               "gasnet_ratomic.h's struct _rivet_ad_head does not mirror rv_ad.tm_size");
_Static_assert(offsetof(struct rv_ad, fast_fn) == offsetof(struct _rivet_ad_head, fn),
               "gasnet_ratomic.h's struct _rivet_ad_head does not mirror rv_ad.fast_fn");
_Static_assert(GEX_DT_I32 == 1 && GEX_DT_DBL == 1 << 5,
               "struct rv_ad.fast has a slot per type, at log2 of its GEX_DT_*");

/* ---- domains ------------------------------------------------------------------------------ */

/* The identity map of the job's ranks, shared by every domain of a team whose jobranks are
 * its ranks (the inline path indexes a table without testing for NULL). Built by the first
 * gex_AD_Create that needs it; lives as long as the process. */
static const gex_Rank_t *rv_ratomic_identity(void)
{
    static _Atomic(gex_Rank_t *) ids;
    gex_Rank_t *p = atomic_load_explicit(&ids, memory_order_acquire);
    if (p) return p;
    gex_Rank_t *mine = malloc((size_t)(rv_job.size ? rv_job.size : 1) * sizeof *mine);
    if (!mine) rv_fatal("gex_AD_Create: out of memory");
    for (gex_Rank_t r = 0; r < rv_job.size; r++) mine[r] = r;
    if (!atomic_compare_exchange_strong_explicit(&ids, &p, mine, memory_order_acq_rel,
                                                 memory_order_acquire)) {
        free(mine); /* another thread's is in place: p */
        return p;
    }
    return mine;
}

#define RV_AD_FAVOR \
    (GEX_FLAG_AD_FAVOR_MY_RANK | GEX_FLAG_AD_FAVOR_MY_NBRHD | GEX_FLAG_AD_FAVOR_REMOTE)

void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    static const char call[] = "gex_AD_Create";
    RV_CHECK_INIT(call);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    if (!ad_p) rv_fatal("%s: ad_p is NULL", call);
    if (tm == GEX_TM_INVALID) rv_fatal("%s: tm is GEX_TM_INVALID", call);
    if (tm->is_pair) rv_fatal("%s: tm is a gex_TM_Pair; an atomic domain needs a team", call);
    gex_OP_t valid = rv_ratomic_valid_ops(dt);
    if (!valid)
        rv_fatal("%s: dt 0x%x is not one of GEX_DT_{I32,U32,I64,U64,FLT,DBL}", call, (unsigned)dt);
    if (ops & ~valid)
        rv_fatal("%s: ops 0x%x include 0x%x, not valid for %s%s", call, (unsigned)ops,
                 (unsigned)(ops & ~valid), rv_ratomic_dt_name(dt),
                 valid & GEX_OP_AND ? " (GEX_OP_USER/USER_NC are for reductions only)"
                                    : " (bitwise ops are integer-only; GEX_OP_USER/USER_NC are "
                                      "for reductions only)");
    gex_Flags_t favor = flags & RV_AD_FAVOR;
    if (favor & (favor - 1))
        rv_fatal("%s: flags 0x%x name more than one of the mutually exclusive "
                 "GEX_FLAG_AD_FAVOR_{MY_RANK,MY_NBRHD,REMOTE}", call, (unsigned)flags);
    struct rv_ad *ad = calloc(1, sizeof *ad);
    if (!ad) rv_fatal("%s: out of memory", call);
    ad->tm = tm;
    ad->dt = dt;
    ad->ops = ops;
    ad->flags = flags; /* stored unchanged: QueryFlags returns exactly what was given */
    ad->size = rv_ratomic_size(dt);
    ad->cpu[0] = rv_ratomic_cpu_fn(dt, 0);
    ad->cpu[1] = rv_ratomic_cpu_fn(dt, 1);
    ad->impl = rv_ad_choose(tm, dt, ops, flags, &ad->native);
    atomic_init(&ad->seg, rv_segmap);
    /* (0 while observability is on: every operation then passes the hooks here; with
     * RIVET_STATS the CPU path is the counted one) */
    ad->fast[__builtin_ctz(dt)] =
        ad->impl == RV_AD_CPU && !RV_OBS_ON(RV_OBS_STATS | RV_OBS_TRACE) ? ops : 0;
    if (ad->impl == RV_AD_CPU && RV_STAT_ON()) ad->impl = RV_AD_CPU_COUNTED;
    ad->fast_fn = rv_ratomic_cpu_tab(dt);
    atomic_init(&ad->tm_size, rv_segmap ? tm->size : 0);
    ad->jobranks = tm->jobranks ? tm->jobranks : rv_ratomic_identity();
    if (tm->jobranks) { /* membership, for GEX_FLAG_RANK_IS_JOBRANK */
        uint8_t *mem = calloc(rv_job.size, 1);
        if (!mem) rv_fatal("%s: out of memory", call);
        for (gex_Rank_t r = 0; r < tm->size; r++) mem[tm->jobranks[r]] = 1;
        ad->member = mem;
    }
    rv_verbose(1, "%s: %s ops 0x%x flags 0x%x: %s", call, rv_ratomic_dt_name(dt), (unsigned)ops,
               (unsigned)flags, rv_ad_impl_name(ad->impl, ad->native));
    /* Collective: no member may target a peer before that peer's handlers exist. */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    *ad_p = ad;
}

/* Local only (the spec does not promise a barrier): every operation on the domain has completed
 * before any member calls this, and nothing at a target refers to the domain. */
void gex_AD_Destroy(gex_AD_t ad)
{
    RV_CHECK_INIT("gex_AD_Destroy");
    if (!ad) rv_fatal("gex_AD_Destroy: ad is GEX_AD_INVALID");
    if (rv_am_in_handler()) rv_fatal("gex_AD_Destroy called inside an AM handler");
    free((void *)ad->member);
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

/* ---- operations: the error paths (out of line) -------------------------------------------- */

static __attribute__((noreturn, noinline)) void rv_ad_bad_call(const char *call, gex_AD_t ad,
                                                               gex_DT_t dt, gex_OP_t op)
{
    RV_CHECK_INIT(call);
    if (!ad) rv_fatal("%s: ad is GEX_AD_INVALID", call);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler; handlers may only Reply", call);
    if (ad->dt != dt)
        rv_fatal("%s: the domain's type is %s, not %s", call, rv_ratomic_dt_name(ad->dt),
                 rv_ratomic_dt_name(dt));
    rv_fatal("%s: opcode 0x%x is not one of the domain's ops 0x%x (given to gex_AD_Create)", call,
             (unsigned)op, (unsigned)ad->ops);
}

/* Resolves tgt_rank under GEX_FLAG_RANK_IS_JOBRANK: a jobrank that must be a team member. */
static __attribute__((noinline)) gex_Rank_t rv_ad_jobrank(const char *call, gex_AD_t ad,
                                                          gex_Rank_t rank)
{
    if (rank >= rv_job.size)
        rv_fatal("%s: jobrank %u is out of range (job size %u)", call, rank, rv_job.size);
    if (ad->member ? !ad->member[rank] : rank >= ad->tm->size)
        rv_fatal("%s: jobrank %u (GEX_FLAG_RANK_IS_JOBRANK) is not a member of the domain's "
                 "team", call, rank);
    return rank;
}

/* GEX_FLAG_AD_MY_RANK / _MY_NBRHD are assertions: a false one is a client error. */
static __attribute__((noinline)) void rv_ad_check_locality(const char *call, gex_Flags_t flags,
                                                           gex_Rank_t jr, gex_Rank_t rank)
{
    if ((flags & GEX_FLAG_AD_MY_RANK) && (flags & GEX_FLAG_AD_MY_NBRHD))
        rv_fatal("%s: GEX_FLAG_AD_MY_RANK and GEX_FLAG_AD_MY_NBRHD are mutually exclusive", call);
    if ((flags & GEX_FLAG_AD_MY_RANK) && jr != rv_job.rank)
        rv_fatal("%s: GEX_FLAG_AD_MY_RANK given, but tgt_rank %u (jobrank %u) is not the "
                 "calling rank (jobrank %u)", call, rank, jr, rv_job.rank);
    if ((flags & GEX_FLAG_AD_MY_NBRHD) && !rv_job_in_nbrhd(jr))
        rv_fatal("%s: GEX_FLAG_AD_MY_NBRHD given, but tgt_rank %u (jobrank %u) is not in the "
                 "calling rank's neighbourhood", call, rank, jr);
}

static __attribute__((noreturn, noinline)) void rv_ad_bad_target(const char *call, gex_Rank_t rank,
                                                                  gex_Rank_t jr, void *addr,
                                                                  uintptr_t t, unsigned n,
                                                                  gex_Flags_t flags)
{
    const rv_segmap_t *m = rv_segmap ? &rv_segmap[jr] : NULL;
    if (!m || !m->size) rv_fatal("%s: rank %u has no bound segment", call, rank);
    uintptr_t base = (uintptr_t)m->owner_base;
    if (m->size >= n && t - base <= m->size - n)
        rv_fatal("%s: target %p of rank %u is not %u-byte aligned", call, addr, rank, n);
    if (flags & GEX_FLAG_PEER_SEG_OFFSET)
        rv_fatal("%s: target offset %p (GEX_FLAG_PEER_SEG_OFFSET) + %u bytes is outside the bound "
                 "segment of rank %u (%" PRIuPTR " bytes)", call, addr, n, rank, m->size);
    rv_fatal("%s: target [%p, %p) is outside the bound segment [%p, %p) of rank %u", call, addr,
             (void *)(t + n), m->owner_base, (void *)(base + m->size), rank);
}

/* result_p under GEX_FLAG_SELF_SEG_OFFSET: an offset into the caller's bound segment. */
static __attribute__((noinline)) void *rv_ad_self_offset(const char *call, void *result_p,
                                                         unsigned n)
{
    const rv_segmap_t *m = rv_segmap ? &rv_segmap[rv_job.rank] : NULL;
    uintptr_t off = (uintptr_t)result_p;
    if (!m || m->size < n || off > m->size - n || (off & (n - 1)))
        rv_fatal("%s: result offset %p (GEX_FLAG_SELF_SEG_OFFSET) is not an aligned %u-byte word "
                 "in the calling rank's bound segment", call, result_p, n);
    return (char *)m->owner_base + off;
}

/* ---- operations --------------------------------------------------------------------------- */

/* The record path: AM reference or native. Returns the event (NB), GEX_EVENT_INVALID (NBI) or
 * GEX_EVENT_NO_OP (GEX_FLAG_IMMEDIATE found no room; nothing was done). */
static __attribute__((noinline)) gex_Event_t rv_ad_issue(gex_AD_t ad, gex_Rank_t jr, uintptr_t t,
                                                         gex_OP_t op, uint64_t a, uint64_t b,
                                                         void *result_p, gex_Flags_t flags,
                                                         int is_nbi)
{
    rv_amo_op_t *o = rv_amo_op_get();
    atomic_store_explicit(&o->done, 0, memory_order_relaxed);
    o->size = (uint8_t)ad->size;
    o->ec = op == GEX_OP_SET ? RV_EC_PUT : op == GEX_OP_GET ? RV_EC_GET : RV_EC_RMW;
    o->result_p = result_p;
    o->nbi = is_nbi ? rv_nbi_current() : NULL;
    if (o->nbi) rv_nbi_add(o->nbi, o->ec);
    int rc = __builtin_expect(ad->impl == RV_AD_NATIVE, 0)
                 ? ad->native->issue(jr, t, ad->dt, op, a, b, flags, o)
                 : rv_ratomic_ref_issue(jr, t, ad->dt, op, a, b, flags, o);
    if (__builtin_expect(rc != 0, 0)) {
        if (o->nbi) rv_nbi_done(o->nbi, o->ec);
        rv_amo_op_put(o);
        RV_STAT_INC(RV_ST_AMO_IMM_REFUSED);
        return GEX_EVENT_NO_OP;
    }
    RV_STAT_INC(ad->impl == RV_AD_NATIVE ? RV_ST_AMO_NATIVE : RV_ST_AMO_REF);
    return is_nbi ? GEX_EVENT_INVALID : &o->root;
}

/* The CPU atomic on a mapped target word, its result stored for a fetching op. */
static inline __attribute__((always_inline)) void
rv_ad_cpu_op(gex_AD_t ad, const rv_segmap_t *m, uintptr_t t, uintptr_t base, unsigned n,
             gex_OP_t op, uint64_t a, uint64_t b, void *result_p, gex_Flags_t flags, int fetching)
{
    uint64_t old = ad->cpu[(flags & (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)) != 0](
        (char *)m->local_base + (t - base), op, a, b);
    if (fetching) {
        if (n == 4) {
            uint32_t v = (uint32_t)old;
            memcpy(result_p, &v, 4);
        } else {
            memcpy(result_p, &old, 8);
        }
    }
}

/* RIVET_STATS on: the same, counted. */
static __attribute__((noinline)) gex_Event_t
rv_ad_cpu_counted(gex_AD_t ad, const rv_segmap_t *m, uintptr_t t, gex_OP_t op, uint64_t a,
                  uint64_t b, void *result_p, gex_Flags_t flags, int fetching)
{
    rv_ad_cpu_op(ad, m, t, (uintptr_t)m->owner_base, ad->size, op, a, b, result_p, flags,
                 fetching);
    rv_stats_add(RV_ST_AMO_CPU, 1);
    return GEX_EVENT_INVALID;
}

/* Stands for every rank's segment before any was attached (size 0: every target is bad). */
static const rv_segmap_t rv_ad_no_segment;

#define RV_AD_LOCALITY (GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_MY_NBRHD)
#define RV_AD_STRONG (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)

/* Everything but the typed signature. On the CPU path: a few compares, one indirect call to
 * the atomic, no allocation, no lock, no system call. */
static inline __attribute__((always_inline)) gex_Event_t
rv_ad_op_body(const char *call, gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t rank,
              void *addr, gex_OP_t op, uint64_t a, uint64_t b, gex_Flags_t flags, int is_nbi)
{
    if (__builtin_expect(!ad || ad->dt != dt || !op || (op & (op - 1)) || !(op & ad->ops) ||
                             rv_am_in_handler(), 0))
        rv_ad_bad_call(call, ad, dt, op);
    gex_Rank_t jr;
    if (__builtin_expect(flags & GEX_FLAG_RANK_IS_JOBRANK, 0)) {
        jr = rv_ad_jobrank(call, ad, rank);
    } else {
        if (__builtin_expect(rank >= ad->tm->size, 0))
            rv_fatal("%s: rank %u is out of range (team size %u)", call, rank, ad->tm->size);
        jr = rv_tm_jobrank(ad->tm, rank);
    }
    if (__builtin_expect(flags & RV_AD_LOCALITY, 0)) rv_ad_check_locality(call, flags, jr, rank);

    const unsigned n = ad->size;
    /* acquire: the table's entries as they were when it was published (core.h) */
    const rv_segmap_t *tab = __atomic_load_n(&rv_segmap, __ATOMIC_ACQUIRE);
    const rv_segmap_t *m = tab ? &tab[jr] : &rv_ad_no_segment;
    /* the inline path's table, for a domain created before the segment table existed (its
     * reader loads tm_size with acquire, then seg and the entries) */
    if (__builtin_expect(tab && !atomic_load_explicit(&ad->seg, memory_order_relaxed), 0)) {
        atomic_store_explicit(&ad->seg, tab, memory_order_relaxed);
        atomic_store_explicit(&ad->tm_size, ad->tm->size, memory_order_release);
    }
    uintptr_t base = (uintptr_t)m->owner_base, t = (uintptr_t)addr;
    if (__builtin_expect(flags & GEX_FLAG_PEER_SEG_OFFSET, 0)) t += base;
    if (__builtin_expect(m->size < n || t - base > m->size - n || (t & (n - 1)), 0))
        rv_ad_bad_target(call, rank, jr, addr, t, n, flags);

    const int fetching = (op & RV_OPS_FETCHING) != 0;
    if (fetching) {
        if (__builtin_expect(flags & GEX_FLAG_SELF_SEG_OFFSET, 0))
            result_p = rv_ad_self_offset(call, result_p, n);
        else if (__builtin_expect(!result_p, 0))
            rv_fatal("%s: result_p is NULL for fetching opcode 0x%x", call, (unsigned)op);
    } else {
        result_p = NULL; /* ignored for non-fetching ops */
    }

    if (__builtin_expect(ad->impl == RV_AD_CPU && m->local_base != NULL, 1)) {
        rv_ad_cpu_op(ad, m, t, base, n, op, a, b, result_p, flags, fetching);
        return GEX_EVENT_INVALID;
    }
    if (__builtin_expect(ad->impl == RV_AD_CPU_COUNTED && m->local_base != NULL, 0))
        return rv_ad_cpu_counted(ad, m, t, op, a, b, result_p, flags, fetching);
    return rv_ad_issue(ad, jr, t, op, a, b, result_p, flags, is_nbi);
}

/* RIVET_TRACE: the initiation as one event, named by the call, with the peer's jobrank, the
 * operand size and the opcode. */
static __attribute__((noinline)) gex_Event_t
rv_ad_op_traced(const char *call, gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t rank,
                void *addr, gex_OP_t op, uint64_t a, uint64_t b, gex_Flags_t flags, int is_nbi)
{
    uint64_t t0 = rv_trace_begin(RV_TR_AMO);
    gex_Event_t ev = rv_ad_op_body(call, ad, dt, result_p, rank, addr, op, a, b, flags, is_nbi);
    if (ev != GEX_EVENT_NO_OP) /* the body checked ad and rank */
        rv_trace_end(RV_TR_AMO, t0, call,
                     (flags & GEX_FLAG_RANK_IS_JOBRANK) ? rank : rv_tm_jobrank(ad->tm, rank),
                     ad->size, (uint32_t)op);
    return ev;
}

static inline __attribute__((always_inline)) gex_Event_t
rv_ad_op(const char *call, gex_AD_t ad, gex_DT_t dt, void *result_p, gex_Rank_t rank, void *addr,
         gex_OP_t op, uint64_t a, uint64_t b, gex_Flags_t flags, int is_nbi)
{
    if (RV_OBS_ON(RV_OBS_TRACE))
        return rv_ad_op_traced(call, ad, dt, result_p, rank, addr, op, a, b, flags, is_nbi);
    return rv_ad_op_body(call, ad, dt, result_p, rank, addr, op, a, b, flags, is_nbi);
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

/* ---- for tools ----------------------------------------------------------------------------- */

/* rivet-info: in words, the implementation gex_AD_Create(ad_p, tm, dt, ops, flags) would pick
 * now (same rule, rv_ad_choose); NULL when (dt, ops) is not a valid domain. After init. */
const char *rv_ratomic_query(gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    gex_OP_t valid = rv_ratomic_valid_ops(dt);
    if (!valid || !ops || (ops & ~valid)) return NULL;
    const rv_ratomic_native_t *native;
    rv_ad_impl_t impl = rv_ad_choose(tm, dt, ops, flags, &native);
    return rv_ad_impl_name(impl, native);
}
