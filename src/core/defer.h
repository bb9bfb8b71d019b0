/* SPDX-License-Identifier: BSD-3-Clause */
/* core/defer.h: a FIFO of operations whose remaining messages wait for room at the target
 * (sends refused under GEX_FLAG_IMMEDIATE), resumed in order by the owner's progress hook. A
 * hook costs one atomic load while the queue is empty; one thread drains it at a time:
 *
 *     if (!rv_defer_pending(&q) || !rv_defer_trylock(&q)) return 0;
 *     while ((l = rv_defer_head(&q)) && resume(op of l)) { rv_defer_pop(&q); finish(op); }
 *     rv_defer_unlock(&q);
 */
#ifndef RV_DEFER_H
#define RV_DEFER_H

#include <pthread.h>
#include <stdatomic.h>
#include "core/progress.h"
#include "core/slist.h"

typedef struct rv_defer {
    pthread_mutex_t lock;
    rv_slink_t     *head, *tail;
    atomic_int      n;
} rv_defer_t;

#define RV_DEFER_INIT { PTHREAD_MUTEX_INITIALIZER, NULL, NULL, 0 }

static inline void rv_defer_push(rv_defer_t *q, rv_slink_t *l)
{
    pthread_mutex_lock(&q->lock);
    l->next = NULL;
    if (q->tail) q->tail->next = l;
    else q->head = l;
    q->tail = l;
    atomic_fetch_add_explicit(&q->n, 1, memory_order_release);
    rv_progress_note(1);
    pthread_mutex_unlock(&q->lock);
}

/* Nonzero when something waits (a hint: check again under the lock). */
static inline int rv_defer_pending(rv_defer_t *q)
{
    return atomic_load_explicit(&q->n, memory_order_acquire) != 0;
}

/* 1 when this thread now drains the queue; 0 when another one does. */
static inline int rv_defer_trylock(rv_defer_t *q) { return pthread_mutex_trylock(&q->lock) == 0; }

static inline void rv_defer_unlock(rv_defer_t *q) { pthread_mutex_unlock(&q->lock); }

/* Under the lock: the oldest waiting operation's link, or NULL. */
static inline rv_slink_t *rv_defer_head(rv_defer_t *q) { return q->head; }

/* Under the lock: removes the head. */
static inline void rv_defer_pop(rv_defer_t *q)
{
    q->head = q->head->next;
    if (!q->head) q->tail = NULL;
    atomic_fetch_sub_explicit(&q->n, 1, memory_order_relaxed);
    rv_progress_note(-1);
}

#endif /* RV_DEFER_H */
