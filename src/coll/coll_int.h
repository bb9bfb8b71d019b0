/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/coll_int.h: per-team collective state, the collective operation object and the
 * engine API (sends, posted receives, signatures) shared by every algorithm in coll/. */
#ifndef RV_COLL_INT_H
#define RV_COLL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include "core/core.h"
#include "event/event.h"
#include <gasnet_coll.h>
#include <rivet.h>

/* What a collective is. Carried in every message so calls that do not match across
 * ranks are caught (see rv_coll_sig_check); the TM_* kinds are the internal exchanges
 * of team construction and destruction, EP_PUBLISH gex_EP_PublishBoundSegment's. */
enum rv_coll_kind {
    RV_COLL_BARRIER = 1,
    RV_COLL_BCAST,
    RV_COLL_REDUCE_ONE,
    RV_COLL_REDUCE_ALL,
    RV_COLL_GATHER,
    RV_COLL_ALLGATHER,
    RV_COLL_ALLTOALL,
    RV_COLL_TM_SPLIT,
    RV_COLL_TM_CREATE,
    RV_COLL_TM_DESTROY,
    RV_COLL_EP_PUBLISH,
    RV_COLL_SCATTER, /* GASNet-1 gasnet_coll_scatter (legacy/legacy_coll.c) */
    RV_COLL_G1_BARRIER, /* GASNet-1 gasnet_barrier_notify over sync lines (barrier.c) */
    RV_COLL_KINDS
};
/* The public call a kind stands for, for error messages. */
const char *rv_coll_kind_name(unsigned kind);

/* The arguments every member must pass identically ("single-valued"). */
struct rv_coll_sig {
    uint32_t kind;
    uint32_t root;   /* GEX_RANK_INVALID for unrooted collectives */
    uint64_t nbytes; /* per-rank payload (reductions: dt_sz * dt_cnt) */
    uint32_t dt, op; /* reductions only; op of a GASNet-1 data collective: its sync flags */
};

struct rv_coll_team {
    struct rv_tm *tm;
    unsigned      rounds;      /* ceil(log2(size)) */
    uint32_t      seq;         /* collectives started on this team (all members agree) */
    unsigned      active;      /* of those, not yet complete here */
    gex_Memvec_t  scratch;     /* what the client granted, as it passed it */
    int           has_scratch;
    int           one_nbrhd;   /* every member is in this rank's neighbourhood */
    struct rv_coll_hier *hier; /* neighbourhood layout, when the team spans several (hier.c) */
    int           led;         /* this process's id counter named the team */
    uint32_t      counter;     /* that counter, returned to the pool on destroy */
    /* under the engine lock: for messages that arrive after their collective completed */
    uint32_t      started;     /* sequence number of the next collective to start here */
    struct rv_coll_sig hist[8];/* signatures of the last collectives started, by seq % 8 */
    struct rv_coll_team *hnext;/* team table chain (by id) */
    /* Sync lines (barrier.c): the primordial team of a job whose transport gives every rank a
     * line all ranks map (transport.h sync_line). lines[r] is team rank r's; NULL: none. Word 0
     * of a rank's line is ncoll << 8 | kind of the last collective it started on the team. */
    uint64_t    **lines;
    uint64_t      ncoll;       /* collectives started here on the team (never wraps) */
    uint32_t      g1phase;     /* GASNet-1 barriers over the lines (their value buffer) */
    /* GASNet-1 OUT_ALLSYNC over the lines (coll.c): word 7 of a rank's line counts the ops with
     * that flag whose part is complete here, published in the order they were started */
    uint64_t      npost, npost_arr;
};

/* Message steps: every (sender, receiver, step) is used at most once per collective. */
enum {
    RV_STEP_MAIN = 0,       /* + round: barrier, binomial trees, recursive doubling */
    RV_STEP_SCATTER = 64,   /* + round */
    RV_STEP_ALLGATHER = 128,/* + round: Bruck or recursive-doubling allgather */
    RV_STEP_HALVE = 192,    /* + round: recursive-halving reduce-scatter */
    RV_STEP_FOLD = 256,     /* non-power-of-two ranks fold in */
    RV_STEP_UNFOLD = 257,   /* ... and get the result back */
    RV_STEP_TOROOT = 258,   /* a result forwarded to a root */
    RV_STEP_DIRECT = 259,   /* one-step gather and all-to-all */
    RV_STEP_NB_IN = 260,    /* two-level: members to their neighbourhood's leader */
    RV_STEP_NB_OUT = 261,   /* two-level: leader to its members (or to a non-leader root) */
    RV_STEP_NB_ROOT = 262,  /* two-level broadcast: a non-leader root to its leader */
    RV_STEP_PRE = 320,      /* + round: barrier before the data moves (GASNet-1 IN_ALLSYNC) */
    RV_STEP_POST = 384      /* + round: barrier after it moved (GASNet-1 OUT_ALLSYNC) */
};

/* Two-level collectives (hier.c): a team spanning several neighbourhoods, as every member
 * sees it. The leader of a neighbourhood is its lowest team rank; leaders are numbered in
 * team rank order. */
struct rv_coll_hier {
    gex_Rank_t  nl;        /* leaders (neighbourhoods the team spans) */
    gex_Rank_t *leaders;   /* [nl] their team ranks, ascending */
    gex_Rank_t *lof;       /* [size] leader index of every team rank's neighbourhood */
    unsigned    lrounds;   /* ceil(log2(nl)) */
    gex_Rank_t  nm;        /* team members in my neighbourhood */
    gex_Rank_t *members;   /* [nm] their team ranks, ascending (members[0] leads) */
    gex_Rank_t  mi;        /* my index in members */
    int         usable;    /* nl > 1 and some neighbourhood holds two or more members */
    int         contig;    /* every neighbourhood's members are consecutive team ranks */
    int         hosts;     /* the team spans more than one host */
};

/* Sends an op queues at once: a tree's root queues one per round (at most 32), the rest
 * one or two per step; algorithms that send to many ranks queue RV_COLL_MAXSEND at a time. */
#define RV_COLL_MAXSEND 36

struct rv_coll_send {
    gex_Rank_t           jobrank;
    uint32_t             step;
    const unsigned char *buf;
    size_t               len;
    uint64_t             off; /* where the bytes go in the receiver's posted buffer */
};

/* Byte blocks of block-structured algorithms: block b is
 * [min(b*bs, total), min((b+1)*bs, total)) of a buffer of 'total' bytes. */
struct rv_coll_blocks {
    uint64_t bs, total, n;
};

/* One collective in flight. 'advance' runs under the engine lock, never polls or
 * blocks, and returns 1 when this rank's part is complete. */
struct rv_coll_op {
    struct rv_op         op; /* first: gex_Event_t points here */
    struct rv_coll_team *ct;
    struct rv_tm        *tm;
    uint32_t             tid, seq;
    struct rv_coll_sig   sig;
    int                  done;
    int                (*advance)(struct rv_coll_op *o);
    /* reads of this rank's src at initiation (own block to dst, ...); run when the data may
     * be read: at start, or after the entry barrier of a synchronizing op */
    void               (*prep)(struct rv_coll_op *o);
    /* synchronizing op (rv_coll_sync_wrap): barriers around 'body' */
    int                (*body)(struct rv_coll_op *o);
    unsigned             sync;            /* RV_SYNC_* */
    uint64_t             lc;              /* the team's collective count at this op (sync lines) */
    uint64_t             pidx;            /* its number among the team's OUT_ALLSYNC ops (lines) */
    int                  sphase, sbstate;
    unsigned             sk;
    /* outbox: sends not yet injected (sends[] below) */
    unsigned             nsend, cur;
    size_t               curoff;
    int                  cursent;
    /* the posted receive (one step at a time) */
    int                  rposted;
    uint32_t             rstep;
    unsigned char       *rbase;
    uint64_t             rcap, rexpect, rbytes;
    unsigned             rmsgs, rsenders;
    int                  got; /* the current step's receive completed, sends pending */
    /* algorithm state */
    int                  state, bstate;
    unsigned             k;
    gex_Rank_t           vr, nr, p2, rem; /* virtual rank; recursive-doubling rank, size, extra */
    /* the ranks the algorithm runs over: the team, or (two-level) the leaders */
    gex_Rank_t           me, n;           /* my rank among them and their number */
    unsigned             rounds;          /* ceil(log2(n)) */
    const gex_Rank_t    *map;             /* their team ranks (NULL: the identity) */
    int                  hstate;          /* two-level: stage */
    gex_Rank_t           hk;              /* two-level: fan-out progress */
    int                (*inner)(struct rv_coll_op *o); /* two-level: the algorithm over leaders */
    uint64_t             lo, hi;          /* element range held (reduce-scatter) */
    struct rv_coll_blocks blk;
    /* arguments */
    gex_Rank_t           root;
    void                *dst;
    const void          *src;
    size_t               nbytes;
    gex_DT_t             dt;
    size_t               dt_sz, dt_cnt;
    gex_OP_t             gop;
    gex_Coll_ReduceFn_t  fn;
    void                *cdata;
    int                  all, large;
    unsigned char       *acc, *tmp;       /* working pointers (may swap) */
    unsigned char       *w;               /* small reductions: where the running value goes */
    void                *mem[5];          /* buffers from rv_coll_mem_get, released at the end */
    struct rv_coll_op   *hnext;           /* (tid, seq) hash chain */
    /* run queue (coll.c): ops that may advance without a new message arriving */
    struct rv_coll_op   *rqprev, *rqnext;
    atomic_int           inrq;            /* on it (written under the engine lock) */
    atomic_int           fin;             /* 'done', for a test without the lock */
    /* Not cleared for a new op (each entry is written before it is read): */
    uint64_t             los[33], his[33]; /* reduce-scatter: ranges held before each halving */
    struct rv_coll_send  sends[RV_COLL_MAXSEND];
};
/* A new op is zero up to here. */
#define RV_COLL_OP_CLEAR offsetof(struct rv_coll_op, los)

/* ---- teams ----------------------------------------------------------------- */
/* Sets up collective state for a team (not collective itself). */
void rv_coll_team_init(struct rv_tm *tm);
void rv_coll_team_fini(struct rv_tm *tm);

/* ---- the engine (coll.c) ----------------------------------------------------- */
/* Validates tm for 'call' and returns a fresh op bound to the team's next sequence
 * number, with signature 'sig'. */
struct rv_coll_op *rv_coll_op_new(const char *call, gex_TM_t tm, const struct rv_coll_sig *sig,
                                  int (*advance)(struct rv_coll_op *));
/* rv_coll_op_new for a collective that moves data: sig->root checked against the team
 * (GEX_RANK_INVALID: none), and the op's root, dst, src and nbytes (sig->nbytes) set. */
struct rv_coll_op *rv_coll_data_op_new(const char *call, gex_TM_t tm, const struct rv_coll_sig *sig,
                                       void *dst, const void *src,
                                       int (*advance)(struct rv_coll_op *));
/* Starts an op (checks early arrivals against its signature, advances once); returns
 * its event, or GEX_EVENT_INVALID when it completed at once. */
gex_Event_t rv_coll_op_start(struct rv_coll_op *o);
/* Starts an op and waits for it (team construction). */
void rv_coll_op_run(struct rv_coll_op *o);
/* Collectives on the team in flight here (read under the engine lock). */
unsigned rv_coll_team_active(const struct rv_coll_team *ct);

/* Outbox: queue 'len' bytes to rank 'to' of the ranks the algorithm runs over (o->map),
 * landing at 'off' of its posted buffer (len 0: one empty message); rv_coll_queue_tm takes
 * a team rank. pump returns 1 when everything queued is injected. */
void rv_coll_queue(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const void *buf, size_t len,
                   uint64_t off);
void rv_coll_queue_tm(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const void *buf,
                      size_t len, uint64_t off);
int rv_coll_pump(struct rv_coll_op *o);
/* Posts (first call for a step) and tests the receive of 'step': bytes land at
 * base + their offset (fatal beyond 'cap'). Complete when 'expect' bytes arrived, or,
 * when 'expect' is 0, one (empty) message from each of 'senders'. Returns 1 once. */
int rv_coll_recv(struct rv_coll_op *o, uint32_t step, void *base, uint64_t cap, uint64_t expect,
                 unsigned senders);
/* Exchange step: posts the receive, pumps the sends; 1 once both are done. */
int rv_coll_xchg(struct rv_coll_op *o, uint32_t step, void *base, uint64_t cap, uint64_t expect);

/* Work buffers that are reused instead of returned to malloc (large malloc/free pairs
 * make glibc trim and regrow the heap on every collective). */
void *rv_coll_mem_get(size_t n);
void  rv_coll_mem_put(void *p);

/* ---- data collectives as ops, not yet started (bcast.c, gather.c), and the barriers
 * GASNet-1's IN_ALLSYNC / OUT_ALLSYNC put around them (legacy/legacy_coll.c) ---------- */
struct rv_coll_op *rv_coll_bcast_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                     const void *src, size_t nbytes, uint32_t sigop);
struct rv_coll_op *rv_coll_scatter_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                       const void *src, size_t nbytes, uint32_t sigop);
struct rv_coll_op *rv_coll_gather_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                      const void *src, size_t nbytes, uint32_t sigop);
struct rv_coll_op *rv_coll_allgather_new(const char *call, gex_TM_t tm, unsigned kind, void *dst,
                                         const void *src, size_t nbytes, uint32_t sigop);
struct rv_coll_op *rv_coll_alltoall_new(const char *call, gex_TM_t tm, void *dst, const void *src,
                                        size_t nbytes, uint32_t sigop);
enum { RV_SYNC_PRE = 1, RV_SYNC_POST = 2 };
/* Makes o run a team barrier first (RV_SYNC_PRE: no rank's data is read or written
 * before every member has called) and/or last (RV_SYNC_POST: o completes on no rank
 * before every member's part is complete). Call before rv_coll_op_start. */
void rv_coll_sync_wrap(struct rv_coll_op *o, unsigned sync);

/* Sync lines (barrier.c): sets ct->lines up for the primordial team when the transport has
 * them; publishes a collective of 'kind' starting (every collective on such a team does). */
void rv_coll_lines_init(struct rv_coll_team *ct);
static inline void rv_coll_lines_publish(struct rv_coll_team *ct, unsigned kind)
{
    if (ct->lines)
        atomic_store_explicit((_Atomic uint64_t *)(void *)ct->lines[ct->tm->rank],
                              ++ct->ncoll << 8 | kind, memory_order_release);
}
/* GASNet-1's barrier (legacy/legacy_barrier.c) on a team with sync lines: the MAX of every
 * rank's in[0..2] into out[0..2] once complete, without messages. Returns 0 when the team has
 * no sync lines (then nothing happened); else 1 with *ev the event (GEX_EVENT_INVALID: done). */
int rv_coll_g1_barrier_max3(const char *call, gex_TM_t tm, const uint64_t in[3], uint64_t out[3],
                            gex_Event_t *ev);
/* Reports mismatched collective calls (coll.c): this rank's call s, team rank of jobrank
 * src_jobrank's m; never returns. */
void rv_coll_sig_report(const struct rv_tm *tm, uint32_t seq, const struct rv_coll_sig *s,
                        const struct rv_coll_sig *m, gex_Rank_t src_jobrank, const char *late)
    __attribute__((noreturn));

/* Barrier of 'kind' (barrier.c): gex_Coll_BarrierNB, and gex_TM_Destroy's. */
gex_Event_t rv_coll_barrier_kind(const char *call, gex_TM_t tm, unsigned kind);
/* Blocking allgather of 'kind' (gather.c), for team construction. */
void rv_coll_allgather_run(const char *call, gex_TM_t tm, unsigned kind, void *dst, const void *src,
                           size_t nbytes);

/* ---- block helpers (blocks.c) ---------------------------------------------- */
uint64_t rv_coll_blk_off(const struct rv_coll_blocks *b, uint64_t blk);
/* Bytes in blocks [first, first + count) taken modulo b->n. */
uint64_t rv_coll_blk_bytes(const struct rv_coll_blocks *b, uint64_t first, uint64_t count);
/* Queues those blocks of base to team rank 'to' (one message per contiguous piece, or
 * one empty message when they hold no bytes). */
void rv_coll_blk_send(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const unsigned char *base,
                      const struct rv_coll_blocks *b, uint64_t first, uint64_t count);
/* Bruck allgather of o->blk in 'base' over virtual ranks: virtual rank v is team rank
 * (v + root) % n and starts holding block v. Uses o->k, o->bstate; 1 when complete. */
int rv_coll_bruck(struct rv_coll_op *o, unsigned char *base, gex_Rank_t root);

/* ---- reductions (reduce.c) ------------------------------------------------- */
/* io[i] = in[i] OP io[i] for 'cnt' elements; 'in' is the lower ranks' contribution. */
void rv_coll_combine(const struct rv_coll_op *o, const void *in, void *io, size_t cnt);
/* io[i] = io[i] OP in[i]: the same with 'io' the lower ranks' contribution. */
void rv_coll_combine_left(const struct rv_coll_op *o, void *io, const void *in, size_t cnt);
/* Recursive-doubling geometry (reduce.c): p2 = largest power of two <= size, rem =
 * size - p2; the first 2*rem ranks fold in pairs (even into odd). Sets o->p2, o->rem and
 * o->nr (GEX_RANK_INVALID for the even ranks that fold away). */
void rv_coll_rd_setup(struct rv_coll_op *o);
/* Team rank of recursive-doubling rank nr. */
static inline gex_Rank_t rv_coll_rd_rank(const struct rv_coll_op *o, gex_Rank_t nr)
{
    return nr < o->rem ? 2 * nr + 1 : nr + o->rem;
}
/* Large all-reduce and reduce-to-one: reduce-scatter by recursive halving, then
 * allgather (or gather to the root) by recursive doubling (reduce_large.c). */
int rv_coll_rsag_advance(struct rv_coll_op *o);

/* ---- two-level collectives (hier.c) ---------------------------------------- */
/* Reads RIVET_COLL_HIER (fatal if malformed); once, at start-up. */
void rv_coll_hier_config(void);
/* Team layout by neighbourhood (at team creation; NULL when the team lives in one). */
struct rv_coll_hier *rv_coll_hier_new(const struct rv_tm *tm);
void rv_coll_hier_free(struct rv_coll_hier *h);
/* Whether op o (its signature set) runs in two levels (RIVET_COLL_HIER); if so, makes
 * o->me, o->n, o->rounds and o->map the leaders' (the caller then sets its algorithm up
 * over them and calls rv_coll_hier_wrap). Non-leaders get o->me = GEX_RANK_INVALID. */
int rv_coll_hier_begin(struct rv_coll_op *o);
/* Runs o->advance over the leaders between the in-neighbourhood stages. */
void rv_coll_hier_wrap(struct rv_coll_op *o);

/* Threshold in bytes for the large-message algorithms (RIVET_COLL_LARGE). */
uint64_t rv_coll_large(void);

#endif /* RV_COLL_INT_H */
