/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/coll.c: the collective engine: operations in flight (found by team id and
 * sequence), posted receives that incoming chunks are copied into directly, a store for
 * chunks that arrive before their receive is posted, an outbox per operation sent with
 * GEX_FLAG_IMMEDIATE, the signature check that catches mismatched calls, and a progress
 * hook that advances every collective in flight from any wait. */
#include "coll/coll_int.h"
#include "core/trace.h"
#include "am/am_int.h"
#include "core/amargs.h"

#include <stdlib.h>
#include <string.h>

/* Wire arguments of RV_AMI_COLL (AM Medium): */
enum {
    A_TID,    /* team id */
    A_SEQ,    /* sequence number of the collective on that team */
    A_STEP,   /* step (low 16 bits) | kind << 16 */
    A_OFFLO,  /* where the payload goes in the receiver's posted buffer (2 args) */
    A_OFFHI,
    A_NBLO,   /* signature: per-rank bytes (2 args) */
    A_NBHI,
    A_ROOT,   /* signature: root */
    A_DT,     /* signature: data type */
    A_OP,     /* signature: operation */
    A_COUNT
};

struct rv_coll_msg {
    struct rv_coll_msg *next;
    uint32_t            tid, seq, step;
    gex_Rank_t          src; /* jobrank */
    uint64_t            off;
    size_t              len;
    struct rv_coll_sig  sig;
    unsigned char       data[];
};

#define RV_COLL_BUCKETS 256
/* Early arrivals are kept by team id, not looked up in a team table, so a message for a
 * team this rank has not finished creating simply waits here. */
static struct rv_coll_msg *rv_coll_store[RV_COLL_BUCKETS];
static struct rv_coll_op  *rv_coll_ops[RV_COLL_BUCKETS]; /* in flight, by (tid, seq) */
static pthread_mutex_t     rv_coll_lock = PTHREAD_MUTEX_INITIALIZER;

/* The run queue: the ops in flight that may advance without a new message, oldest first, for
 * the progress hook. An op waiting for its posted receive with nothing left to send is off it
 * until a chunk completes that receive, so a poll costs nothing per idle collective however
 * many are in flight (and a test of an idle one takes no lock). */
static struct rv_coll_op  *rv_coll_rq_head, *rv_coll_rq_tail;
static atomic_int          rv_coll_nrun; /* its length, read without the lock */

static void rv_coll_rq_add(struct rv_coll_op *o)
{
    if (atomic_load_explicit(&o->inrq, memory_order_relaxed)) return;
    atomic_store_explicit(&o->inrq, 1, memory_order_relaxed);
    o->rqnext = NULL;
    o->rqprev = rv_coll_rq_tail;
    if (rv_coll_rq_tail) rv_coll_rq_tail->rqnext = o;
    else rv_coll_rq_head = o;
    rv_coll_rq_tail = o;
    atomic_fetch_add_explicit(&rv_coll_nrun, 1, memory_order_relaxed);
    rv_progress_note(1);
}

static void rv_coll_rq_del(struct rv_coll_op *o)
{
    if (!atomic_load_explicit(&o->inrq, memory_order_relaxed)) return;
    atomic_store_explicit(&o->inrq, 0, memory_order_relaxed);
    if (o->rqprev) o->rqprev->rqnext = o->rqnext;
    else rv_coll_rq_head = o->rqnext;
    if (o->rqnext) o->rqnext->rqprev = o->rqprev;
    else rv_coll_rq_tail = o->rqprev;
    o->rqprev = o->rqnext = NULL;
    atomic_fetch_sub_explicit(&rv_coll_nrun, 1, memory_order_relaxed);
    rv_progress_note(-1);
}

/* The posted receive has all it waits for. */
static inline int rv_coll_rdone(const struct rv_coll_op *o)
{
    return o->rexpect ? o->rbytes >= o->rexpect : o->rmsgs >= o->rsenders;
}

static unsigned rv_coll_bucket(uint32_t tid, uint32_t seq)
{
    return (tid * 2654435761u + seq * 40503u) % RV_COLL_BUCKETS;
}

uint64_t rv_coll_large(void) { return rv_cfg.COLL_LARGE ? rv_cfg.COLL_LARGE : UINT64_MAX; }

/* ---- reusable work buffers and ops ------------------------------------------------
 * Freed blocks are kept by power-of-two size class (1 KiB to 8 MiB), up to
 * RV_COLL_MEM_KEEP_BYTES in all, and freed ops up to RV_COLL_OPS_KEEP: many collectives in
 * flight at once (each holding an op and its buffers) would otherwise grow the heap, and
 * glibc would trim it again as they complete, so that every burst paid fresh page faults
 * (3 us per op in a burst of 200 small reductions). */

struct rv_coll_blk {
    struct rv_coll_blk *next;
    size_t              cap;
    max_align_t         data[];
};
#define RV_COLL_MEM_MIN_SHIFT 10
#define RV_COLL_MEM_MAX_SHIFT 23                 /* larger blocks go back to malloc */
#define RV_COLL_MEM_KEEP_BYTES ((size_t)16 << 20) /* kept for reuse, in all */
#define RV_COLL_OPS_KEEP 1024
static struct rv_coll_blk *rv_coll_free[RV_COLL_MEM_MAX_SHIFT + 1];
static size_t              rv_coll_kept;
static struct rv_coll_op  *rv_coll_free_ops; /* chained through hnext */
static unsigned            rv_coll_nfree_ops;
static pthread_mutex_t     rv_coll_mem_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned rv_coll_mem_class(size_t n)
{
    unsigned c = RV_COLL_MEM_MIN_SHIFT;
    while (c <= RV_COLL_MEM_MAX_SHIFT && ((size_t)1 << c) < n) c++;
    return c;
}

void *rv_coll_mem_get(size_t n)
{
    unsigned c = rv_coll_mem_class(n);
    struct rv_coll_blk *b = NULL;
    if (c <= RV_COLL_MEM_MAX_SHIFT) {
        pthread_mutex_lock(&rv_coll_mem_lock);
        if ((b = rv_coll_free[c])) {
            rv_coll_free[c] = b->next;
            rv_coll_kept -= b->cap;
        }
        pthread_mutex_unlock(&rv_coll_mem_lock);
    }
    if (!b) {
        size_t cap = c <= RV_COLL_MEM_MAX_SHIFT ? (size_t)1 << c : n;
        b = malloc(sizeof *b + cap);
        if (!b) rv_fatal("collectives: out of memory (%zu bytes)", n);
        b->cap = cap;
    }
    return b->data;
}

void rv_coll_mem_put(void *p)
{
    if (!p) return;
    struct rv_coll_blk *b = (struct rv_coll_blk *)((char *)p - offsetof(struct rv_coll_blk, data));
    unsigned c = rv_coll_mem_class(b->cap);
    if (c <= RV_COLL_MEM_MAX_SHIFT && b->cap == (size_t)1 << c) {
        pthread_mutex_lock(&rv_coll_mem_lock);
        if (rv_coll_kept + b->cap <= RV_COLL_MEM_KEEP_BYTES) {
            b->next = rv_coll_free[c];
            rv_coll_free[c] = b;
            rv_coll_kept += b->cap;
            b = NULL;
        }
        pthread_mutex_unlock(&rv_coll_mem_lock);
    }
    free(b);
}

/* A zeroed op (but for the arrays past RV_COLL_OP_CLEAR), from the kept ones if any. */
static struct rv_coll_op *rv_coll_op_alloc(const char *call)
{
    pthread_mutex_lock(&rv_coll_mem_lock);
    struct rv_coll_op *o = rv_coll_free_ops;
    if (o) {
        rv_coll_free_ops = o->hnext;
        rv_coll_nfree_ops--;
    }
    pthread_mutex_unlock(&rv_coll_mem_lock);
    if (!o && !(o = malloc(sizeof *o))) rv_fatal("%s: out of memory", call);
    memset(o, 0, RV_COLL_OP_CLEAR);
    return o;
}

static void rv_coll_op_free(struct rv_coll_op *o)
{
    pthread_mutex_lock(&rv_coll_mem_lock);
    if (rv_coll_nfree_ops < RV_COLL_OPS_KEEP) {
        o->hnext = rv_coll_free_ops;
        rv_coll_free_ops = o;
        rv_coll_nfree_ops++;
        o = NULL;
    }
    pthread_mutex_unlock(&rv_coll_mem_lock);
    free(o);
}

/* ---- signatures ------------------------------------------------------------ */

const char *rv_coll_kind_name(unsigned kind)
{
    static const char *const names[RV_COLL_KINDS] = {
        [RV_COLL_BARRIER] = "gex_Coll_BarrierNB",       [RV_COLL_BCAST] = "gex_Coll_BroadcastNB",
        [RV_COLL_REDUCE_ONE] = "gex_Coll_ReduceToOneNB", [RV_COLL_REDUCE_ALL] = "gex_Coll_ReduceToAllNB",
        [RV_COLL_GATHER] = "rivet_Coll_GatherNB",       [RV_COLL_ALLGATHER] = "rivet_Coll_AllgatherNB",
        [RV_COLL_ALLTOALL] = "rivet_Coll_AlltoallNB",   [RV_COLL_TM_SPLIT] = "gex_TM_Split",
        [RV_COLL_TM_CREATE] = "gex_TM_Create",          [RV_COLL_TM_DESTROY] = "gex_TM_Destroy",
        [RV_COLL_EP_PUBLISH] = "gex_EP_PublishBoundSegment", [RV_COLL_SCATTER] = "gasnet_coll_scatter",
        [RV_COLL_G1_BARRIER] = "gasnet_barrier_notify",
    };
    return kind < RV_COLL_KINDS && names[kind] ? names[kind] : "an unknown collective";
}

static gex_Rank_t rv_coll_team_rank_of(const struct rv_tm *tm, gex_Rank_t jobrank)
{
    for (gex_Rank_t r = 0; r < tm->size; r++)
        if (rv_tm_jobrank(tm, r) == jobrank) return r;
    return GEX_RANK_INVALID;
}

/* A message's signature must equal the local call's: the spec requires every member
 * to make the same collective calls on a team in the same order with the same
 * single-valued arguments. Anything else would corrupt memory or hang; stop instead. */
void rv_coll_sig_report(const struct rv_tm *tm, uint32_t seq, const struct rv_coll_sig *s,
                        const struct rv_coll_sig *m, gex_Rank_t src_jobrank, const char *late)
{
    gex_Rank_t them = rv_coll_team_rank_of(tm, src_jobrank);
    char what[200];
    const int red = s->kind == RV_COLL_REDUCE_ONE || s->kind == RV_COLL_REDUCE_ALL;
    const char *nb = red ? "dt_sz*dt_cnt" : "nbytes";
    if (s->kind != m->kind)
        snprintf(what, sizeof what, "team rank %u called %s but team rank %u called %s", tm->rank,
                 rv_coll_kind_name(s->kind), them, rv_coll_kind_name(m->kind));
    else if (s->root != m->root)
        snprintf(what, sizeof what, "team rank %u passed root=%u but team rank %u passed root=%u",
                 tm->rank, s->root, them, m->root);
    else if (s->nbytes != m->nbytes)
        snprintf(what, sizeof what, "team rank %u passed %s=%llu but team rank %u passed %s=%llu",
                 tm->rank, nb, (unsigned long long)s->nbytes, them, nb,
                 (unsigned long long)m->nbytes);
    else if (s->dt != m->dt)
        snprintf(what, sizeof what, "team rank %u passed dt=0x%x but team rank %u passed dt=0x%x",
                 tm->rank, s->dt, them, m->dt);
    else if (s->op != m->op && !red)
        snprintf(what, sizeof what, "team rank %u passed GASNET_COLL_* sync flags 0x%x but team rank "
                 "%u passed 0x%x", tm->rank, s->op, them, m->op);
    else if (s->op != m->op)
        snprintf(what, sizeof what, "team rank %u passed op=0x%x but team rank %u passed op=0x%x",
                 tm->rank, s->op, them, m->op);
    else
        snprintf(what, sizeof what, "team rank %u sent a message this rank (team rank %u) did not "
                 "expect", them, tm->rank);
    rv_fatal("%s: mismatched collective calls on team 0x%x (its collective #%u): %s (jobranks "
             "%u and %u)%s",
             rv_coll_kind_name(s->kind), tm->id, seq, what, rv_job.rank, src_jobrank, late);
}

static inline int rv_coll_sig_eq(const struct rv_coll_sig *s, const struct rv_coll_sig *m)
{
    return s->kind == m->kind && s->root == m->root && s->nbytes == m->nbytes && s->dt == m->dt &&
           s->op == m->op;
}

static void rv_coll_sig_check(const struct rv_coll_op *o, const struct rv_coll_sig *m,
                              gex_Rank_t src_jobrank)
{
    if (!rv_coll_sig_eq(&o->sig, m)) rv_coll_sig_report(o->tm, o->seq, &o->sig, m, src_jobrank, "");
}

/* ---- teams by id (under the lock) ------------------------------------------------ */

static struct rv_coll_team *rv_coll_teams[RV_COLL_BUCKETS];

static struct rv_coll_team *rv_coll_team_find(uint32_t tid)
{
    for (struct rv_coll_team *ct = rv_coll_teams[tid % RV_COLL_BUCKETS]; ct; ct = ct->hnext)
        if (ct->tm->id == tid) return ct;
    return NULL;
}

/* Every message a collective expects arrives before it completes, so one for a
 * collective this rank has finished means the ranks' calls differed. */
static void rv_coll_check_late(uint32_t tid, uint32_t seq, const struct rv_coll_sig *m,
                               gex_Rank_t src_jobrank)
{
    struct rv_coll_team *ct = rv_coll_team_find(tid);
    if (!ct || (int32_t)(seq - ct->started) >= 0) return; /* not started yet: keep it */
    const char *late = " (the message arrived after this rank had completed the collective)";
    if (ct->started - seq <= 8)
        rv_coll_sig_report(ct->tm, seq, &ct->hist[seq % 8], m, src_jobrank, late);
    rv_fatal("%s: mismatched collective calls on team 0x%x: a message from jobrank %u for its "
             "collective #%u arrived after this rank (jobrank %u) had completed it",
             rv_coll_kind_name(m->kind), tid, src_jobrank, seq, rv_job.rank);
}

/* ---- arrivals -------------------------------------------------------------- */

static struct rv_coll_op *rv_coll_find(uint32_t tid, uint32_t seq)
{
    for (struct rv_coll_op *o = rv_coll_ops[rv_coll_bucket(tid, seq)]; o; o = o->hnext)
        if (o->tid == tid && o->seq == seq) return o;
    return NULL;
}

/* Copies one chunk into the posted receive (under the lock). */
static void rv_coll_land(struct rv_coll_op *o, uint64_t off, const void *data, size_t len)
{
    if (off > o->rcap || len > o->rcap - off)
        rv_fatal("%s on team 0x%x: %zu bytes arrived for offset %llu of a %llu-byte buffer "
                 "(mismatched arguments across ranks?)",
                 rv_coll_kind_name(o->sig.kind), o->tid, len, (unsigned long long)off,
                 (unsigned long long)o->rcap);
    if (len) memcpy(o->rbase + off, data, len);
    o->rbytes += len;
    o->rmsgs++;
}

static void rv_coll_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                            unsigned nargs)
{
    if (nargs != A_COUNT) rv_fatal("malformed collective message from jobrank %u", tok->src);
    uint32_t tid = (uint32_t)a[A_TID], seq = (uint32_t)a[A_SEQ], sw = (uint32_t)a[A_STEP];
    uint64_t off = rv_args_u64(a + A_OFFLO);
    struct rv_coll_sig sig = {
        .kind = sw >> 16,
        .root = (uint32_t)a[A_ROOT],
        .nbytes = rv_args_u64(a + A_NBLO),
        .dt = (uint32_t)a[A_DT],
        .op = (uint32_t)a[A_OP],
    };
    uint32_t step = sw & 0xffff;
    pthread_mutex_lock(&rv_coll_lock);
    struct rv_coll_op *o = rv_coll_find(tid, seq);
    if (o) {
        rv_coll_sig_check(o, &sig, tok->src);
        if (o->rposted && o->rstep == step) {
            rv_coll_land(o, off, buf, nbytes);
            if (rv_coll_rdone(o)) rv_coll_rq_add(o);
            pthread_mutex_unlock(&rv_coll_lock);
            return;
        }
    } else {
        rv_coll_check_late(tid, seq, &sig, tok->src);
    }
    struct rv_coll_msg *m = rv_coll_mem_get(sizeof *m + nbytes);
    m->tid = tid;
    m->seq = seq;
    m->step = step;
    m->src = tok->src;
    m->off = off;
    m->len = nbytes;
    m->sig = sig;
    if (nbytes) memcpy(m->data, buf, nbytes);
    unsigned b = rv_coll_bucket(tid, seq);
    m->next = rv_coll_store[b];
    rv_coll_store[b] = m;
    pthread_mutex_unlock(&rv_coll_lock);
}

/* ---- receives and sends (under the lock) -------------------------------------- */

int rv_coll_recv(struct rv_coll_op *o, uint32_t step, void *base, uint64_t cap, uint64_t expect,
                 unsigned senders)
{
    if (!o->rposted) {
        o->rposted = 1;
        o->rstep = step;
        o->rbase = base;
        o->rcap = cap;
        o->rexpect = expect;
        o->rsenders = senders;
        o->rbytes = 0;
        o->rmsgs = 0;
        /* whatever arrived before the post */
        struct rv_coll_msg **pp = &rv_coll_store[rv_coll_bucket(o->tid, o->seq)];
        while (*pp) {
            struct rv_coll_msg *m = *pp;
            if (m->tid == o->tid && m->seq == o->seq && m->step == step) {
                rv_coll_land(o, m->off, m->data, m->len);
                *pp = m->next;
                rv_coll_mem_put(m);
            } else {
                pp = &m->next;
            }
        }
    } else if (o->rstep != step) {
        rv_fatal("collective engine: step %u polled while step %u is posted", step, o->rstep);
    }
    if (!rv_coll_rdone(o)) return 0;
    if (o->rbytes > o->rexpect)
        rv_fatal("%s on team 0x%x: %llu bytes arrived where %llu were expected (mismatched "
                 "arguments across ranks?)",
                 rv_coll_kind_name(o->sig.kind), o->tid, (unsigned long long)o->rbytes,
                 (unsigned long long)o->rexpect);
    o->rposted = 0;
    return 1;
}

void rv_coll_queue(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const void *buf, size_t len,
                   uint64_t off)
{
    rv_coll_queue_tm(o, o->map ? o->map[to] : to, step, buf, len, off);
}

void rv_coll_queue_tm(struct rv_coll_op *o, gex_Rank_t to, uint32_t step, const void *buf,
                      size_t len, uint64_t off)
{
    if (o->nsend == RV_COLL_MAXSEND) rv_fatal("collective engine: outbox overflow");
    struct rv_coll_send *s = &o->sends[o->nsend++];
    s->jobrank = rv_tm_jobrank(o->tm, to);
    s->step = step;
    s->buf = buf;
    s->len = len;
    s->off = off;
}

int rv_coll_pump(struct rv_coll_op *o)
{
    size_t chunk = rv_am_max_medium();
    while (o->cur < o->nsend) {
        struct rv_coll_send *s = &o->sends[o->cur];
        while (o->curoff < s->len || !o->cursent) {
            size_t n = s->len - o->curoff;
            if (n > chunk) n = chunk;
            uint64_t off = s->off + o->curoff;
            gex_AM_Arg_t args[A_COUNT] = {
                [A_TID] = (gex_AM_Arg_t)o->tid,
                [A_SEQ] = (gex_AM_Arg_t)o->seq,
                [A_STEP] = (gex_AM_Arg_t)(s->step | o->sig.kind << 16),
                [A_ROOT] = (gex_AM_Arg_t)o->sig.root,
                [A_DT] = (gex_AM_Arg_t)o->sig.dt,
                [A_OP] = (gex_AM_Arg_t)o->sig.op,
            };
            rv_args_set_u64(args + A_OFFLO, off);
            rv_args_set_u64(args + A_NBLO, o->sig.nbytes);
            if (rv_am_send_internal(s->jobrank, RV_CHAN_REQ, RV_AM_MEDIUM, RV_AMI_COLL, args,
                                    A_COUNT, n ? s->buf + o->curoff : NULL, n, NULL,
                                    GEX_FLAG_IMMEDIATE))
                return 0;
            o->curoff += n;
            o->cursent = 1;
        }
        o->cur++;
        o->curoff = 0;
        o->cursent = 0;
    }
    o->cur = o->nsend = 0;
    return 1;
}

int rv_coll_xchg(struct rv_coll_op *o, uint32_t step, void *base, uint64_t cap, uint64_t expect)
{
    if (!o->got) o->got = rv_coll_recv(o, step, base, cap, expect, 1);
    if (!rv_coll_pump(o) || !o->got) return 0;
    o->got = 0;
    return 1;
}

/* ---- operation lifecycle ----------------------------------------------------- */

static void rv_coll_unlink(struct rv_coll_op *o)
{
    rv_coll_rq_del(o);
    struct rv_coll_op **pp = &rv_coll_ops[rv_coll_bucket(o->tid, o->seq)];
    while (*pp != o) pp = &(*pp)->hnext;
    *pp = o->hnext;
    o->hnext = NULL;
    o->ct->active--;
}

/* RIVET_TRACE: a collective as an asynchronous span from its initiation to its completion
 * here, named by its call, keyed by (team, sequence number). */
static __attribute__((noinline)) void rv_coll_trace(const struct rv_coll_op *o, int begin)
{
    unsigned kind = o->sig.kind;
    rv_trace_async(kind == RV_COLL_BARRIER ? RV_TR_BARRIER : RV_TR_COLL, begin,
                   rv_coll_kind_name(kind), (uint64_t)o->tid << 32 | o->seq, o->sig.nbytes, o->tid);
}

/* Called under the lock. An op that returns waiting on its posted receive with its outbox
 * empty leaves the run queue (a chunk that completes the receive puts it back); any other
 * op that is not complete stays on it (sends refused for lack of room are retried). */
static int rv_coll_step(struct rv_coll_op *o)
{
    if (o->done) return 1;
    if (!o->advance(o)) {
        if (o->rposted && !o->nsend && !rv_coll_rdone(o)) rv_coll_rq_del(o);
        else rv_coll_rq_add(o);
    } else {
        o->done = 1;
        if (RV_OBS_ON(RV_OBS_TRACE)) rv_coll_trace(o, 0);
        rv_coll_unlink(o);
        for (unsigned i = 0; i < sizeof o->mem / sizeof o->mem[0]; i++) {
            rv_coll_mem_put(o->mem[i]);
            o->mem[i] = NULL;
        }
        /* the results are visible to the thread that syncs the event (acquire) */
        atomic_thread_fence(memory_order_seq_cst);
        atomic_store_explicit(&o->fin, 1, memory_order_relaxed);
    }
    return o->done;
}

static int rv_coll_test(struct rv_op *op)
{
    struct rv_coll_op *o = (struct rv_coll_op *)op;
    /* idle (waiting for a message) and not complete: nothing to advance. Read without the
     * lock: a chunk landing meanwhile on another thread queues the op for the next poll. */
    if (!atomic_load_explicit(&o->inrq, memory_order_relaxed) &&
        !atomic_load_explicit(&o->fin, memory_order_relaxed))
        return 0;
    pthread_mutex_lock(&rv_coll_lock);
    int d = rv_coll_step(o);
    pthread_mutex_unlock(&rv_coll_lock);
    return d;
}

static void rv_coll_release(struct rv_op *op) { rv_coll_op_free((struct rv_coll_op *)op); }

/* Progress hook: every collective in flight moves whenever anything polls, so a rank
 * waiting on one collective (or on anything else) still serves the others. */
static int rv_coll_progress(void)
{
    int work = 0;
    if (!atomic_load_explicit(&rv_coll_nrun, memory_order_relaxed)) return 0;
    if (pthread_mutex_trylock(&rv_coll_lock)) return 0;
    /* stepping an op changes no other op's place on the queue */
    for (struct rv_coll_op *o = rv_coll_rq_head, *nx; o; o = nx) {
        nx = o->rqnext;
        work += rv_coll_step(o);
    }
    pthread_mutex_unlock(&rv_coll_lock);
    return work;
}

struct rv_coll_op *rv_coll_op_new(const char *call, gex_TM_t tm, const struct rv_coll_sig *sig,
                                  int (*advance)(struct rv_coll_op *))
{
    RV_CHECK_INIT(call);
    if (!tm) rv_fatal("%s: tm is GEX_TM_INVALID", call);
    if (!tm->coll) rv_fatal("%s: tm is a TM-pair; collectives need a team", call);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    struct rv_coll_op *o = rv_coll_op_alloc(call);
    o->op.test = rv_coll_test;
    o->op.release = rv_coll_release;
    o->op.leaf = NULL;
    o->ct = tm->coll;
    o->tm = tm;
    o->tid = tm->id;
    o->seq = tm->coll->seq++;
    rv_coll_lines_publish(o->ct, sig->kind);
    o->lc = o->ct->ncoll;
    o->sig = *sig;
    o->advance = advance;
    o->root = GEX_RANK_INVALID;
    o->me = tm->rank;
    o->n = tm->size;
    o->rounds = o->ct->rounds;
    if (RV_OBS_ON(RV_OBS_TRACE)) rv_coll_trace(o, 1);
    return o;
}

struct rv_coll_op *rv_coll_data_op_new(const char *call, gex_TM_t tm, const struct rv_coll_sig *sig,
                                       void *dst, const void *src,
                                       int (*advance)(struct rv_coll_op *))
{
    RV_CHECK_INIT(call);
    gex_Rank_t root = sig->root;
    if (tm && tm->coll && root != GEX_RANK_INVALID && root >= tm->size)
        rv_fatal("%s: root %u is out of range (team size %u)", call, root, tm->size);
    struct rv_coll_op *o = rv_coll_op_new(call, tm, sig, advance);
    o->root = root;
    o->dst = dst;
    o->src = src;
    o->nbytes = sig->nbytes;
    return o;
}

/* ---- synchronizing ops (GASNet-1 IN_ALLSYNC / OUT_ALLSYNC) ------------------------ */

/* Dissemination barrier over the whole team in steps base + round. */
static int rv_coll_sync_barrier(struct rv_coll_op *o, uint32_t base)
{
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    while (o->sk < o->ct->rounds) {
        if (!o->sbstate) {
            rv_coll_queue_tm(o, (gex_Rank_t)((me + (1ull << o->sk)) % n), base + o->sk, NULL, 0, 0);
            o->sbstate = 1;
        }
        if (!rv_coll_xchg(o, base + o->sk, NULL, 0, 0)) return 0;
        o->sk++;
        o->sbstate = 0;
    }
    o->sk = 0;
    return 1;
}

/* The entry barrier on a team with sync lines: every rank has called this collective once
 * its line shows it started this one or a later one (coll_int.h rv_coll_lines_publish); no
 * message. The op stays on the run queue meanwhile (it waits for no message). */
static int rv_coll_sync_lines(struct rv_coll_op *o)
{
    struct rv_coll_team *ct = o->ct;
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    for (gex_Rank_t r = (gex_Rank_t)o->sk; r < n; r++) {
        if (r == me) continue;
        uint64_t w = atomic_load_explicit((_Atomic uint64_t *)(void *)ct->lines[r], memory_order_acquire);
        if ((w >> 8) < o->lc) {
            o->sk = r;
            return 0;
        }
        if ((w >> 8) == o->lc && (w & 0xff) != o->sig.kind) {
            struct rv_coll_sig m = { .kind = (uint32_t)(w & 0xff), .root = o->sig.root };
            rv_coll_sig_report(o->tm, o->seq, &o->sig, &m, rv_tm_jobrank(o->tm, r), "");
        }
    }
    o->sk = 0;
    return 1;
}

/* The exit barrier on a team with sync lines: word 7 of a rank's line is the number of its
 * OUT_ALLSYNC ops whose part is complete. Ops may complete out of order, so each publishes
 * its number only after every earlier one has (all ranks number them alike: they start
 * collectives in the same order); the barrier is over once every line shows this number. */
static int rv_coll_sync_post_lines(struct rv_coll_op *o)
{
    struct rv_coll_team *ct = o->ct;
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    if (o->sphase == 2) {
        if (ct->npost_arr + 1 != o->pidx) return 0; /* an earlier one has not got here yet */
        ct->npost_arr = o->pidx;
        atomic_store_explicit((_Atomic uint64_t *)(void *)&ct->lines[me][7], o->pidx,
                              memory_order_release);
        o->sphase = 3;
    }
    for (gex_Rank_t r = (gex_Rank_t)o->sk; r < n; r++) {
        if (r == me) continue;
        if (atomic_load_explicit((_Atomic uint64_t *)(void *)&ct->lines[r][7], memory_order_acquire) <
            o->pidx) {
            o->sk = r;
            return 0;
        }
    }
    o->sk = 0;
    return 1;
}

static int rv_coll_sync_advance(struct rv_coll_op *o)
{
    if (o->sphase == 0) {
        if ((o->sync & RV_SYNC_PRE) &&
            !(o->ct->lines ? rv_coll_sync_lines(o) : rv_coll_sync_barrier(o, RV_STEP_PRE)))
            return 0;
        if (o->prep) o->prep(o); /* everyone has called: the data may be read now */
        o->prep = NULL;
        o->sphase = 1;
    }
    if (o->sphase == 1) {
        if (!o->body(o)) return 0;
        o->got = 0; /* the body may leave its exchange flag set */
        o->sphase = 2;
    }
    if (!(o->sync & RV_SYNC_POST)) return 1;
    return o->ct->lines ? rv_coll_sync_post_lines(o) : rv_coll_sync_barrier(o, RV_STEP_POST);
}

void rv_coll_sync_wrap(struct rv_coll_op *o, unsigned sync)
{
    o->sync = sync;
    if (!sync) return;
    if ((sync & RV_SYNC_POST) && o->ct->lines) o->pidx = ++o->ct->npost;
    o->body = o->advance;
    o->advance = rv_coll_sync_advance;
}

/* RIVET_STATS: one collective started, by its algorithm family. */
static __attribute__((noinline)) void rv_coll_stat(const struct rv_coll_op *o)
{
    /* large: 1 scatter / reduce-scatter / one-step gather, 3 the direct broadcast */
    int large = o->large == 1 || (o->large == 3 && o->sig.kind == RV_COLL_BCAST);
    rv_stats_add(o->inner ? RV_ST_COLL_HIER : large ? RV_ST_COLL_LARGE : RV_ST_COLL_FLAT, 1);
    rv_stats_add(RV_ST_COLL_BYTES, o->nbytes);
}

gex_Event_t rv_coll_op_start(struct rv_coll_op *o)
{
    if (RV_STAT_ON()) rv_coll_stat(o);
    if (o->prep && !(o->sync & RV_SYNC_PRE)) {
        o->prep(o);
        o->prep = NULL;
    }
    /* initiation is a release: what the caller wrote before is visible to the peers */
    atomic_thread_fence(memory_order_seq_cst);
    pthread_mutex_lock(&rv_coll_lock);
    unsigned b = rv_coll_bucket(o->tid, o->seq);
    for (struct rv_coll_msg *m = rv_coll_store[b]; m; m = m->next)
        if (m->tid == o->tid && m->seq == o->seq) rv_coll_sig_check(o, &m->sig, m->src);
    o->hnext = rv_coll_ops[b];
    rv_coll_ops[b] = o;
    o->ct->active++;
    o->ct->started = o->seq + 1;
    o->ct->hist[o->seq % 8] = o->sig;
    int d = rv_coll_step(o);
    pthread_mutex_unlock(&rv_coll_lock);
    if (d) {
        rv_coll_op_free(o);
        return GEX_EVENT_INVALID;
    }
    return &o->op;
}

void rv_coll_op_run(struct rv_coll_op *o) { gex_Event_Wait(rv_coll_op_start(o)); }

unsigned rv_coll_team_active(const struct rv_coll_team *ct)
{
    pthread_mutex_lock(&rv_coll_lock);
    unsigned n = ct->active;
    pthread_mutex_unlock(&rv_coll_lock);
    return n;
}

void rv_coll_team_init(struct rv_tm *tm)
{
    struct rv_coll_team *ct = calloc(1, sizeof *ct);
    if (!ct) rv_fatal("out of memory creating team state");
    ct->tm = tm;
    while ((1ull << ct->rounds) < tm->size) ct->rounds++;
    ct->one_nbrhd = 1;
    for (gex_Rank_t r = 0; r < tm->size; r++) ct->one_nbrhd &= rv_job_in_nbrhd(rv_tm_jobrank(tm, r));
    ct->hier = ct->one_nbrhd ? NULL : rv_coll_hier_new(tm);
    tm->coll = ct;
    if (tm->id == 0) {
        rv_coll_lines_init(ct);
        rv_coll_hier_config();
        rv_am_register_internal(RV_AMI_COLL, rv_coll_handler);
        rv_progress_register(rv_coll_progress, &rv_coll_nrun);
    }
    pthread_mutex_lock(&rv_coll_lock);
    ct->hnext = rv_coll_teams[tm->id % RV_COLL_BUCKETS];
    rv_coll_teams[tm->id % RV_COLL_BUCKETS] = ct;
    pthread_mutex_unlock(&rv_coll_lock);
}

void rv_coll_team_fini(struct rv_tm *tm)
{
    struct rv_coll_team *ct = tm->coll;
    pthread_mutex_lock(&rv_coll_lock);
    struct rv_coll_team **pp = &rv_coll_teams[tm->id % RV_COLL_BUCKETS];
    while (*pp != ct) pp = &(*pp)->hnext;
    *pp = ct->hnext;
    pthread_mutex_unlock(&rv_coll_lock);
    rv_coll_hier_free(ct->hier);
    free(ct->lines);
    free(ct);
    tm->coll = NULL;
}
