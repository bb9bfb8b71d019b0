/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/barrier.c: gex_Coll_BarrierNB and gex_Coll_BarrierBlocking as a dissemination
 * barrier on any team (over the neighbourhood leaders when it runs in two levels, hier.c). */
#include "coll/coll_int.h"
#include "core/trace.h"
#include "transport/transport.h"

#include <stdlib.h>

/* Round k: tell rank + 2^k, wait for rank - 2^k. */
static int rv_barrier_advance(struct rv_coll_op *o)
{
    while (o->k < o->rounds) {
        if (!o->bstate) {
            rv_coll_queue(o, (gex_Rank_t)((o->me + (1ull << o->k)) % o->n), o->k, NULL, 0, 0);
            o->bstate = 1;
        }
        if (!rv_coll_xchg(o, o->k, NULL, 0, 0)) return 0;
        o->k++;
        o->bstate = 0;
    }
    return 1;
}

/* ---- sync lines: the barrier of an all-local primordial team without messages ----------
 * Every rank's line (transport.h sync_line) holds in word 0 'ncoll << 8 | kind' of the last
 * collective it started on the team (coll_int.h rv_coll_lines_publish; collectives are
 * started in the same order everywhere). A barrier that is this rank's collective number c
 * is complete once every other line shows a number >= c: each rank reads the others' lines,
 * one cache line per peer that its owner writes once per collective, and no rank sends
 * anything. A line showing number c with another kind is a mismatched call. GASNet-1's
 * barrier also carries three values to MAX-reduce (named ids, mismatch flag) in words 1-3 or
 * 4-6 of the line, alternating by its own phase: a rank overwrites one buffer only two phases
 * later, which the barrier in between holds back until every peer has read it. */
struct rv_lbar {
    struct rv_op         op; /* first: gex_Event_t points here */
    struct rv_coll_team *ct;
    uint64_t             want;  /* the barrier's collective number */
    gex_Rank_t           next;  /* team ranks below it have arrived */
    unsigned             kind;
    unsigned             vbuf;  /* G1: the value buffer's first word (1 or 4) */
    uint64_t            *out;   /* G1: where the MAX goes */
    uint32_t             seq;   /* for a mismatch report */
};

static __attribute__((noinline, noreturn)) void rv_lbar_mismatch(struct rv_lbar *b, gex_Rank_t r,
                                                                 uint64_t w)
{
    struct rv_coll_sig s = { .kind = b->kind, .root = GEX_RANK_INVALID };
    struct rv_coll_sig m = { .kind = (uint32_t)(w & 0xff), .root = GEX_RANK_INVALID };
    rv_coll_sig_report(b->ct->tm, b->seq, &s, &m, rv_tm_jobrank(b->ct->tm, r), "");
}

/* 1 once every rank has arrived (then out[] holds the MAX for a GASNet-1 barrier). */
static int rv_lbar_done(struct rv_lbar *b)
{
    struct rv_coll_team *ct = b->ct;
    gex_Rank_t n = ct->tm->size, me = ct->tm->rank;
    for (gex_Rank_t r = b->next; r < n; r++) {
        if (r == me) continue;
        uint64_t w = atomic_load_explicit((_Atomic uint64_t *)(void *)ct->lines[r],
                                          memory_order_acquire);
        if ((w >> 8) < b->want) {
            b->next = r;
            return 0;
        }
        if (__builtin_expect((w >> 8) == b->want && (w & 0xff) != b->kind, 0))
            rv_lbar_mismatch(b, r, w);
    }
    if (b->out) {
        for (gex_Rank_t r = 0; r < n; r++) {
            if (r == me) continue;
            const uint64_t *v = ct->lines[r] + b->vbuf;
            for (unsigned i = 0; i < 3; i++) {
                uint64_t x = atomic_load_explicit((_Atomic uint64_t *)(void *)&v[i],
                                                  memory_order_relaxed);
                if (x > b->out[i]) b->out[i] = x;
            }
        }
    }
    /* what the peers wrote before arriving is visible to the caller (acquire above) */
    return 1;
}

/* Once every rank has arrived, one poll delivers what the peers sent before arriving (their
 * ring writes precede their line's release store), as a message barrier would have: a message
 * of a collective another rank called differently then meets its signature check here. */
static int rv_lbar_finish(void)
{
    if (!rv_am_in_handler()) rv_poll();
    return 1;
}

/* RIVET_TRACE: the barrier as an asynchronous span, as a message barrier's (coll.c). */
static __attribute__((noinline)) void rv_lbar_trace(const struct rv_lbar *b, int begin)
{
    rv_trace_async(RV_TR_BARRIER, begin, rv_coll_kind_name(b->kind),
                   (uint64_t)b->ct->tm->id << 32 | b->seq, 0, b->ct->tm->id);
}

static int rv_lbar_test(struct rv_op *op)
{
    struct rv_lbar *b = (struct rv_lbar *)op;
    if (!rv_lbar_done(b) || !rv_lbar_finish()) return 0;
    if (RV_OBS_ON(RV_OBS_TRACE)) rv_lbar_trace(b, 0);
    return 1;
}
static void rv_lbar_release(struct rv_op *op) { free(op); }

void rv_coll_lines_init(struct rv_coll_team *ct)
{
    const struct rv_tm *tm = ct->tm;
    if (!rv_tp.ops.sync_line || !ct->one_nbrhd || tm->size != rv_job.size || tm->size < 2) return;
    uint64_t **l = calloc(tm->size, sizeof *l);
    if (!l) rv_fatal("out of memory creating team state");
    for (gex_Rank_t r = 0; r < tm->size; r++)
        if (!(l[r] = rv_tp.ops.sync_line(rv_tp.priv, rv_tm_jobrank(tm, r)))) {
            free(l);
            return;
        }
    ct->lines = l;
}

/* Starts a barrier of 'kind' over the lines: NULL-free fast path, an op only if it must wait. */
static gex_Event_t rv_lbar_start(const char *call, gex_TM_t tm, unsigned kind,
                                 const uint64_t *in, uint64_t *out)
{
    RV_CHECK_INIT(call);
    if (__builtin_expect(rv_am_in_handler(), 0)) rv_fatal("%s called inside an AM handler", call);
    struct rv_coll_team *ct = tm->coll;
    struct rv_lbar b = { .ct = ct, .kind = kind, .out = out, .seq = ct->seq++ };
    if (RV_OBS_ON(RV_OBS_STATS | RV_OBS_TRACE)) {
        RV_STAT_INC(RV_ST_COLL_FLAT); /* a small collective, like the message barrier */
        if (RV_OBS_ON(RV_OBS_TRACE)) rv_lbar_trace(&b, 1);
    }
    if (in) {
        b.vbuf = (ct->g1phase++ & 1) ? 4 : 1;
        uint64_t *v = ct->lines[tm->rank] + b.vbuf;
        for (unsigned i = 0; i < 3; i++) {
            atomic_store_explicit((_Atomic uint64_t *)(void *)&v[i], in[i], memory_order_relaxed);
            out[i] = in[i];
        }
    }
    /* arrival is a release: what the caller wrote before is visible to the peers */
    atomic_thread_fence(memory_order_seq_cst);
    rv_coll_lines_publish(ct, kind);
    b.want = ct->ncoll;
    if (rv_lbar_done(&b) && rv_lbar_finish()) {
        if (RV_OBS_ON(RV_OBS_TRACE)) rv_lbar_trace(&b, 0);
        return GEX_EVENT_INVALID;
    }
    struct rv_lbar *o = malloc(sizeof *o);
    if (!o) rv_fatal("%s: out of memory", call);
    *o = b;
    o->op.test = rv_lbar_test;
    o->op.release = rv_lbar_release;
    o->op.leaf = NULL;
    return &o->op;
}

int rv_coll_g1_barrier_max3(const char *call, gex_TM_t tm, const uint64_t in[3], uint64_t out[3],
                            gex_Event_t *ev)
{
    if (!tm || !tm->coll || !tm->coll->lines) return 0;
    *ev = rv_lbar_start(call, tm, RV_COLL_G1_BARRIER, in, out);
    return 1;
}

/* A barrier on a team of one: nothing to wait for and nobody to tell, so no op; only the
 * sequence number, the release and acquire of a barrier, and the checks of the general path.
 * (Not under ThreadSanitizer, which rejects a lone fence: there the general path runs.) */
#if defined(__SANITIZE_THREAD__)
#define RV_SOLO_BARRIER 0
#else
#define RV_SOLO_BARRIER 1
static gex_Event_t rv_solo_barrier(const char *call, gex_TM_t tm)
{
    RV_CHECK_INIT(call);
    if (__builtin_expect(rv_am_in_handler(), 0)) rv_fatal("%s called inside an AM handler", call);
    tm->coll->seq++;
    RV_STAT_INC(RV_ST_COLL_FLAT);
    atomic_thread_fence(memory_order_seq_cst);
    return GEX_EVENT_INVALID;
}
#endif

gex_Event_t rv_coll_barrier_kind(const char *call, gex_TM_t tm, unsigned kind)
{
    if (kind == RV_COLL_BARRIER && tm && tm->coll) {
        if (tm->coll->lines) return rv_lbar_start(call, tm, kind, NULL, NULL);
#if RV_SOLO_BARRIER
        if (tm->size == 1 && !RV_OBS_ON(RV_OBS_TRACE)) return rv_solo_barrier(call, tm);
#endif
    }
    struct rv_coll_sig sig = { .kind = kind, .root = GEX_RANK_INVALID };
    struct rv_coll_op *o = rv_coll_op_new(call, tm, &sig, rv_barrier_advance);
    if (rv_coll_hier_begin(o)) rv_coll_hier_wrap(o);
    return rv_coll_op_start(o);
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_barrier_kind("gex_Coll_BarrierNB", tm, RV_COLL_BARRIER);
}

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    gex_Event_Wait(rv_coll_barrier_kind("gex_Coll_BarrierBlocking", tm, RV_COLL_BARRIER));
}
