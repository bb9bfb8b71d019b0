/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/coll_int.h: per-team collective state and the collectives' entry points for the core. */
#ifndef RV_COLL_INT_H
#define RV_COLL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include "core/core.h"

#define RV_BARRIER_SLOTS  128 /* arrival slots, indexed by sequence number */
#define RV_BARRIER_WINDOW 64  /* barriers a rank may have in flight on one team */

struct rv_barrier_op;

struct rv_coll_team {
    struct rv_tm         *tm;
    unsigned              rounds;   /* ceil(log2(size)) dissemination rounds */
    uint32_t              issued;   /* barriers started here */
    _Atomic uint32_t      arrived[RV_BARRIER_SLOTS]; /* bit r: round-r message arrived */
    struct rv_barrier_op *inflight[RV_BARRIER_WINDOW];
};

/* Sets up collective state for a new team (not collective itself). */
void rv_coll_team_init(struct rv_tm *tm);

#endif /* RV_COLL_INT_H */
