/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/coll.c: the collective engine: arrival store keyed by (team id, sequence,
 * step), an outbox per operation sent with GEX_FLAG_IMMEDIATE, and a progress
 * hook that advances every collective in flight from any wait. */
#include "coll/coll_int.h"
#include "am/am_int.h"

#include <stdlib.h>
#include <string.h>

struct rv_coll_msg {
    struct rv_coll_msg *next;
    uint32_t            tid, seq, step, off;
    size_t              len;
    unsigned char       data[];
};

#define RV_COLL_BUCKETS 256
/* Arrivals are stored by team id, not looked up in a team table, so a message
 * for a team this rank has not finished creating simply waits here. */
static struct rv_coll_msg *rv_coll_store[RV_COLL_BUCKETS];
static struct rv_coll_op  *rv_coll_active;
static pthread_mutex_t     rv_coll_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned rv_coll_bucket(uint32_t tid, uint32_t seq)
{
    return (tid * 2654435761u + seq) % RV_COLL_BUCKETS;
}

/* args: team id, sequence, step, byte offset. */
static void rv_coll_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                            unsigned nargs)
{
    if (nargs != 4) rv_fatal("malformed collective message from rank %u", tok->src);
    struct rv_coll_msg *m = malloc(sizeof *m + nbytes);
    if (!m) rv_fatal("out of memory receiving a collective message");
    m->tid = (uint32_t)a[0];
    m->seq = (uint32_t)a[1];
    m->step = (uint32_t)a[2];
    m->off = (uint32_t)a[3];
    m->len = nbytes;
    if (nbytes) memcpy(m->data, buf, nbytes);
    unsigned b = rv_coll_bucket(m->tid, m->seq);
    pthread_mutex_lock(&rv_coll_lock);
    m->next = rv_coll_store[b];
    rv_coll_store[b] = m;
    pthread_mutex_unlock(&rv_coll_lock);
}

int rv_coll_recv(struct rv_coll_op *o, uint32_t step, void *dst, size_t nbytes)
{
    struct rv_coll_msg **pp = &rv_coll_store[rv_coll_bucket(o->tid, o->seq)];
    while (*pp) {
        struct rv_coll_msg *m = *pp;
        if (m->tid == o->tid && m->seq == o->seq && m->step == step) {
            if ((size_t)m->off + m->len > nbytes)
                rv_fatal("collective on team %u: received %zu bytes at offset %u but this rank "
                         "expects %zu (mismatched arguments across ranks?)",
                         o->tid, m->len, m->off, nbytes);
            if (m->len) memcpy((unsigned char *)dst + m->off, m->data, m->len);
            o->rbytes += m->len;
            o->rmsgs++;
            *pp = m->next;
            free(m);
        } else {
            pp = &m->next;
        }
    }
    if (nbytes ? o->rbytes < nbytes : o->rmsgs == 0) return 0;
    o->rbytes = 0;
    o->rmsgs = 0;
    return 1;
}

void rv_coll_queue(struct rv_coll_op *o, gex_Rank_t team_rank, uint32_t step, const void *buf,
                   size_t len)
{
    if (o->nsend == RV_COLL_MAXSEND) rv_fatal("collective outbox overflow");
    struct rv_coll_send *s = &o->sends[o->nsend++];
    s->jobrank = rv_tm_jobrank(o->ct->tm, team_rank);
    s->step = step;
    s->buf = buf;
    s->len = len;
}

int rv_coll_pump(struct rv_coll_op *o)
{
    size_t chunk = rv_am_max_medium();
    while (o->cur < o->nsend) {
        struct rv_coll_send *s = &o->sends[o->cur];
        while (o->curoff < s->len || !o->cursent) {
            size_t n = s->len - o->curoff;
            if (n > chunk) n = chunk;
            gex_AM_Arg_t args[4] = { (gex_AM_Arg_t)o->tid, (gex_AM_Arg_t)o->seq,
                                     (gex_AM_Arg_t)s->step, (gex_AM_Arg_t)o->curoff };
            if (rv_am_send_internal(s->jobrank, RV_CHAN_REQ, RV_AM_MEDIUM, RV_AMI_COLL, args, 4,
                                    n ? s->buf + o->curoff : NULL, n, NULL, GEX_FLAG_IMMEDIATE))
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

static void rv_coll_unlink(struct rv_coll_op *o)
{
    if (o->prev) o->prev->next = o->next;
    else rv_coll_active = o->next;
    if (o->next) o->next->prev = o->prev;
    o->prev = o->next = NULL;
}

/* Called under the lock. */
static int rv_coll_step(struct rv_coll_op *o)
{
    if (o->done) return 1;
    if (o->advance(o)) {
        o->done = 1;
        rv_coll_unlink(o);
        free(o->acc);
        free(o->tmp);
        o->acc = o->tmp = NULL;
        atomic_thread_fence(memory_order_seq_cst);
    }
    return o->done;
}

static int rv_coll_test(struct rv_op *op)
{
    struct rv_coll_op *o = (struct rv_coll_op *)op;
    pthread_mutex_lock(&rv_coll_lock);
    int d = rv_coll_step(o);
    pthread_mutex_unlock(&rv_coll_lock);
    return d;
}

static void rv_coll_release(struct rv_op *op) { free(op); }

/* Progress hook: every collective in flight moves whenever anything polls, so a
 * rank waiting on one collective still serves the others its peers need. */
static int rv_coll_progress(void)
{
    int work = 0;
    if (!rv_coll_active) return 0;
    if (pthread_mutex_trylock(&rv_coll_lock)) return 0;
    for (struct rv_coll_op *o = rv_coll_active, *nx; o; o = nx) {
        nx = o->next;
        work += rv_coll_step(o);
    }
    pthread_mutex_unlock(&rv_coll_lock);
    return work;
}

struct rv_coll_op *rv_coll_op_new(const char *call, gex_TM_t tm,
                                  int (*advance)(struct rv_coll_op *))
{
    RV_CHECK_INIT(call);
    if (!tm) rv_fatal("%s: tm is GEX_TM_INVALID", call);
    if (!tm->coll) rv_fatal("%s: tm is not a team (a TM-pair or a destroyed team)", call);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    struct rv_coll_op *o = calloc(1, sizeof *o);
    if (!o) rv_fatal("%s: out of memory", call);
    o->op.test = rv_coll_test;
    o->op.release = rv_coll_release;
    o->op.leaf = NULL;
    o->ct = tm->coll;
    o->tid = tm->id;
    o->seq = tm->coll->seq++;
    o->advance = advance;
    return o;
}

gex_Event_t rv_coll_op_start(struct rv_coll_op *o)
{
    atomic_thread_fence(memory_order_seq_cst);
    pthread_mutex_lock(&rv_coll_lock);
    o->next = rv_coll_active;
    if (o->next) o->next->prev = o;
    rv_coll_active = o;
    int d = rv_coll_step(o);
    pthread_mutex_unlock(&rv_coll_lock);
    if (d) {
        free(o);
        return GEX_EVENT_INVALID;
    }
    return &o->op;
}

void rv_coll_wait(gex_Event_t ev) { gex_Event_Wait(ev); }

void rv_coll_team_init(struct rv_tm *tm)
{
    struct rv_coll_team *ct = calloc(1, sizeof *ct);
    if (!ct) rv_fatal("out of memory creating team state");
    ct->tm = tm;
    while ((1u << ct->rounds) < tm->size) ct->rounds++;
    tm->coll = ct;
    if (tm->id == 0) {
        rv_am_register_internal(RV_AMI_COLL, rv_coll_handler);
        rv_progress_register(rv_coll_progress);
    }
}

void rv_coll_team_fini(struct rv_tm *tm)
{
    free(tm->coll);
    tm->coll = NULL;
}
