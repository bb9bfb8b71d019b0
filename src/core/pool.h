/* SPDX-License-Identifier: BSD-3-Clause */
/* core/pool.h: per-thread pools of operation objects (an engine's in-flight Put/Get records):
 * taking and returning one is two loads and two stores on the calling thread's own list, with
 * no lock; an empty list takes the objects exited threads left behind, else a fresh batch. An
 * object returned by another thread than the one that took it joins that thread's list, which
 * is fine: a pool's objects are all alike. */
#ifndef RV_POOL_H
#define RV_POOL_H

#include <pthread.h>
#include <stddef.h>
#include "core/slist.h"

/* One kind of pooled object (a static of the engine that owns it). */
typedef struct rv_pool {
    size_t       size;     /* object bytes */
    size_t       link;     /* offset of its rv_slink_t */
    unsigned     batch;    /* objects allocated at a time */
    const char  *what;     /* names the objects in the out-of-memory message */
    void       (*init)(void *obj);  /* sets a fresh (zeroed) object's fixed fields, or NULL */
    void       (*thread_exit)(void); /* further per-thread clean-up at thread exit, or NULL */
    /* below: the pool's own state, zero-initialised */
    pthread_mutex_t lock;
    rv_slink_t     *spare;  /* the lists of exited threads */
    pthread_key_t   key;    /* runs the thread-exit hand-back */
    int             keyed;  /* key created (under lock) */
} rv_pool_t;

#define RV_POOL_INIT(T, member, nbatch, name, init_fn, exit_fn)                                  \
    { sizeof(T), offsetof(T, member), (nbatch), (name), (init_fn), (exit_fn),                   \
      PTHREAD_MUTEX_INITIALIZER, NULL, (pthread_key_t)0, 0 }

/* A thread's list of one pool (a static _Thread_local of the owning engine). */
typedef struct rv_pool_tls {
    rv_slink_t *head;
    rv_pool_t  *pool; /* set once the thread is watched */
} rv_pool_tls_t;

/* Slow path of rv_pool_get: refills t (never returns NULL; out of memory is fatal). */
rv_slink_t *rv_pool_refill(rv_pool_t *p, rv_pool_tls_t *t);

/* Makes the calling thread hand t back (and run p->thread_exit) when it exits. */
void rv_pool_watch_thread(rv_pool_t *p, rv_pool_tls_t *t);

/* The link of a pooled object; the caller finds the object by rv_container_of. */
static inline rv_slink_t *rv_pool_get(rv_pool_t *p, rv_pool_tls_t *t)
{
    rv_slink_t *n = t->head;
    if (__builtin_expect(!n, 0)) n = rv_pool_refill(p, t);
    t->head = n->next;
    return n;
}

static inline void rv_pool_put(rv_pool_tls_t *t, rv_slink_t *n)
{
    n->next = t->head;
    t->head = n;
}

#endif /* RV_POOL_H */
