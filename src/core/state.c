/* SPDX-License-Identifier: BSD-3-Clause */
/* core/state.c: the process-wide state every layer reads: the client, the endpoints and their
 * segment tables, and the handler context (core/core.h). The api fills them. */
#include "core/core.h"

#include <pthread.h>

struct rv_client *rv_client_g;
rv_segmap_t *rv_segmap;
struct rv_ep *rv_eps[GASNET_MAXEPS];
rv_segmap_t  *rv_epsegs[GASNET_MAXEPS];
_Thread_local struct rv_token *rv_am_cur_token;
unsigned char rv_seq_client;
struct rv_tm *rv_am_gate;

/* The tms waiting for their segment table (linked by flat_next). A leaf lock: whoever holds
 * it takes no other, so any caller may hold its own (rv_mep_lock, the TM-pair cache's). A tm
 * tracked before a table's release store and refresh finds it NULL and is listed before that
 * refresh can take the lock; one tracked after sees the table (the lock orders the two). */
static pthread_mutex_t rv_tm_flat_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_tm *rv_tm_flat_waiting;

void rv_tm_flat_track(struct rv_tm *tm)
{
    pthread_mutex_lock(&rv_tm_flat_lock);
    rv_tm_flat_set(tm);
    if (!tm->rma_flat && tm->rma_map && !tm->jobranks) {
        tm->flat_next = rv_tm_flat_waiting;
        rv_tm_flat_waiting = tm;
    }
    pthread_mutex_unlock(&rv_tm_flat_lock);
}

void rv_tm_flat_untrack(struct rv_tm *tm)
{
    pthread_mutex_lock(&rv_tm_flat_lock);
    for (struct rv_tm **pp = &rv_tm_flat_waiting; *pp; pp = &(*pp)->flat_next)
        if (*pp == tm) {
            *pp = tm->flat_next;
            break;
        }
    pthread_mutex_unlock(&rv_tm_flat_lock);
}

void rv_tm_flat_refresh(void)
{
    pthread_mutex_lock(&rv_tm_flat_lock);
    for (struct rv_tm **pp = &rv_tm_flat_waiting; *pp;) {
        struct rv_tm *tm = *pp;
        rv_tm_flat_set(tm);
        if (tm->rma_flat) *pp = tm->flat_next; /* set for good */
        else pp = &tm->flat_next;
    }
    pthread_mutex_unlock(&rv_tm_flat_lock);
}
