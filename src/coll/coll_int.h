/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/coll_int.h: per-team collective state and the collective engine shared by
 * barrier, broadcast, reductions and team construction. */
#ifndef RV_COLL_INT_H
#define RV_COLL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include "core/core.h"
#include "event/event.h"
#include <gasnet_coll.h>

struct rv_coll_team {
    struct rv_tm *tm;
    unsigned      rounds;  /* ceil(log2(size)) */
    uint32_t      seq;     /* collectives started on this team (all members agree) */
    gex_Memvec_t  scratch; /* what the client donated at creation */
};

/* Message steps inside one collective: distinct per (sender, receiver) pair. */
enum { RV_STEP_TOROOT = 40, RV_STEP_BCAST = 50 };
#define RV_COLL_MAXSEND 48

struct rv_coll_send {
    gex_Rank_t           jobrank;
    uint32_t             step;
    const unsigned char *buf;
    size_t               len;
};

/* One collective in flight. Its 'advance' runs under the engine lock, never
 * polls or blocks, and returns 1 when this rank's part is complete. */
struct rv_coll_op {
    struct rv_op         op; /* first: gex_Event_t points here */
    struct rv_coll_team *ct;
    uint32_t             tid, seq;
    int                  done, state, bstate;
    int                (*advance)(struct rv_coll_op *o);
    /* outbox: sends not yet injected */
    struct rv_coll_send  sends[RV_COLL_MAXSEND];
    unsigned             nsend, cur;
    size_t               curoff;
    int                  cursent;
    /* current receive */
    size_t               rbytes;
    unsigned             rmsgs;
    unsigned             k;
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
    int                  all;
    unsigned char       *acc, *tmp;
    struct rv_coll_op   *prev, *next; /* active list */
};

/* Sets up collective state for a new team (not collective itself). */
void rv_coll_team_init(struct rv_tm *tm);
void rv_coll_team_fini(struct rv_tm *tm);

/* Validates tm for collective 'call' and returns a fresh op bound to its next sequence number. */
struct rv_coll_op *rv_coll_op_new(const char *call, gex_TM_t tm,
                                  int (*advance)(struct rv_coll_op *));
/* Starts an op (advances once); returns its event. */
gex_Event_t rv_coll_op_start(struct rv_coll_op *o);
/* Outbox: queue a send; pump returns 1 when everything queued has been injected. */
void rv_coll_queue(struct rv_coll_op *o, gex_Rank_t team_rank, uint32_t step, const void *buf,
                   size_t len);
int rv_coll_pump(struct rv_coll_op *o);
/* Takes arrived messages of (o's collective, step) into dst; returns 1 once a
 * transfer of 'nbytes' is complete (then resets the receive counters). */
int rv_coll_recv(struct rv_coll_op *o, uint32_t step, void *dst, size_t nbytes);
/* Blocks (polling) until ev completes. */
void rv_coll_wait(gex_Event_t ev);

#endif /* RV_COLL_INT_H */
