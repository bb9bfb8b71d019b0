/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/barrier.c: gex_Coll_BarrierNB as a dissemination barrier over internal AM Shorts. */
#include "coll/coll_int.h"
#include "event/event.h"
#include "am/am_int.h"

#include <stdlib.h>

struct rv_barrier_op {
    struct rv_op          op; /* first: gex_Event_t points here */
    struct rv_coll_team  *ct;
    uint32_t              seq;
    unsigned              round; /* round whose arrival we wait for */
    unsigned              sent;  /* rounds whose message has been sent */
    int                   done;
    struct rv_barrier_op *next_free;
};

static struct rv_coll_team **rv_coll_teams; /* by team id */
static size_t rv_coll_nteams;
static struct rv_barrier_op *rv_barrier_free;
static pthread_mutex_t rv_barrier_lock = PTHREAD_MUTEX_INITIALIZER;

/* Arrival of round 'round' of barrier 'seq' on team 'id' (args: id, seq, round). */
static void rv_barrier_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    (void)buf, (void)nbytes;
    uint32_t id = (uint32_t)a[0], seq = (uint32_t)a[1], round = (uint32_t)a[2];
    if (nargs != 3 || id >= rv_coll_nteams || !rv_coll_teams[id] || round >= 32)
        rv_fatal("malformed barrier message from rank %u", tok->src);
    atomic_fetch_or_explicit(&rv_coll_teams[id]->arrived[seq % RV_BARRIER_SLOTS], 1u << round,
                             memory_order_release);
}

void rv_coll_team_init(struct rv_tm *tm)
{
    struct rv_coll_team *ct = calloc(1, sizeof *ct);
    if (!ct) rv_fatal("out of memory creating team state");
    ct->tm = tm;
    while ((1u << ct->rounds) < tm->size) ct->rounds++;
    tm->coll = ct;
    if (tm->id >= rv_coll_nteams) {
        size_t n = tm->id + 16;
        struct rv_coll_team **t = realloc(rv_coll_teams, n * sizeof *t);
        if (!t) rv_fatal("out of memory creating team state");
        for (size_t i = rv_coll_nteams; i < n; i++) t[i] = NULL;
        rv_coll_teams = t;
        rv_coll_nteams = n;
    }
    rv_coll_teams[tm->id] = ct;
    if (tm->id == 0) rv_am_register_internal(RV_AMI_BARRIER, rv_barrier_handler);
}

/* Advances a barrier as far as arrivals allow. Sends use GEX_FLAG_IMMEDIATE so
 * this never polls (gex_Event_Test must not); a refused send is retried later. */
static int rv_barrier_test(struct rv_op *o)
{
    struct rv_barrier_op *b = (struct rv_barrier_op *)o;
    struct rv_coll_team *ct = b->ct;
    struct rv_tm *tm = ct->tm;
    _Atomic uint32_t *slot = &ct->arrived[b->seq % RV_BARRIER_SLOTS];
    if (b->done) return 1;
    for (;;) {
        if (b->sent <= b->round) {
            gex_Rank_t peer = (gex_Rank_t)((tm->rank + (1u << b->round)) % tm->size);
            gex_AM_Arg_t args[3] = { (gex_AM_Arg_t)tm->id, (gex_AM_Arg_t)b->seq,
                                     (gex_AM_Arg_t)b->round };
            if (rv_am_send_internal(rv_tm_jobrank(tm, peer), RV_CHAN_REQ, RV_AM_SHORT,
                                    RV_AMI_BARRIER, args, 3, NULL, 0, NULL, GEX_FLAG_IMMEDIATE))
                return 0;
            b->sent = b->round + 1;
        }
        if (!(atomic_load_explicit(slot, memory_order_acquire) & (1u << b->round))) return 0;
        if (++b->round == ct->rounds) break;
    }
    atomic_store_explicit(slot, 0, memory_order_relaxed);
    if (ct->inflight[b->seq % RV_BARRIER_WINDOW] == b) ct->inflight[b->seq % RV_BARRIER_WINDOW] = NULL;
    atomic_thread_fence(memory_order_seq_cst); /* acquire side of the barrier */
    b->done = 1;
    return 1;
}

static void rv_barrier_release(struct rv_op *o)
{
    struct rv_barrier_op *b = (struct rv_barrier_op *)o;
    pthread_mutex_lock(&rv_barrier_lock);
    b->next_free = rv_barrier_free;
    rv_barrier_free = b;
    pthread_mutex_unlock(&rv_barrier_lock);
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags;
    RV_CHECK_INIT("gex_Coll_BarrierNB");
    if (!tm) rv_fatal("gex_Coll_BarrierNB: tm is GEX_TM_INVALID");
    if (rv_am_in_handler()) rv_fatal("gex_Coll_BarrierNB called inside an AM handler");
    struct rv_coll_team *ct = tm->coll;
    atomic_thread_fence(memory_order_seq_cst); /* release side of the barrier */
    if (ct->rounds == 0) return GEX_EVENT_INVALID;

    uint32_t seq = ct->issued++;
    /* Keep at most RV_BARRIER_WINDOW in flight so arrival slots are never reused
     * early: finish the barrier that used this window slot before. */
    struct rv_barrier_op *old = ct->inflight[seq % RV_BARRIER_WINDOW];
    while (old && !rv_barrier_test(&old->op)) rv_progress_wait_step();

    pthread_mutex_lock(&rv_barrier_lock);
    struct rv_barrier_op *b = rv_barrier_free;
    if (b) rv_barrier_free = b->next_free;
    pthread_mutex_unlock(&rv_barrier_lock);
    if (!b && !(b = malloc(sizeof *b))) rv_fatal("gex_Coll_BarrierNB: out of memory");
    b->op.test = rv_barrier_test;
    b->op.release = rv_barrier_release;
    b->op.leaf = NULL;
    b->ct = ct;
    b->seq = seq;
    b->round = 0;
    b->sent = 0;
    b->done = 0;
    ct->inflight[seq % RV_BARRIER_WINDOW] = b;
    rv_barrier_test(&b->op);
    return &b->op;
}
