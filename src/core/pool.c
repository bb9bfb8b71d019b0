/* SPDX-License-Identifier: BSD-3-Clause */
/* core/pool.c: the slow paths of the per-thread object pools (core/pool.h): the thread-exit
 * hand-back, the spare lists and the batch allocation. */
#include "core/pool.h"
#include "core/error.h"

#include <stdlib.h>

static void rv_pool_thread_exit(void *arg)
{
    rv_pool_tls_t *t = arg;
    rv_pool_t *p = t->pool;
    if (p->thread_exit) p->thread_exit();
    rv_slink_t *head = t->head, *tail = head;
    if (!head) return;
    while (tail->next) tail = tail->next;
    pthread_mutex_lock(&p->lock);
    tail->next = p->spare;
    p->spare = head;
    pthread_mutex_unlock(&p->lock);
    t->head = NULL;
}

/* Watches the calling thread (creating p's key on first use); with take_spare also takes the
 * exited threads' objects, returned (else NULL). */
static rv_slink_t *rv_pool_watch(rv_pool_t *p, rv_pool_tls_t *t, int take_spare)
{
    rv_slink_t *n = NULL;
    pthread_mutex_lock(&p->lock);
    if (!p->keyed) {
        if (pthread_key_create(&p->key, rv_pool_thread_exit))
            rv_fatal("pthread_key_create failed for the pool of %s", p->what);
        p->keyed = 1;
    }
    if (take_spare) {
        n = p->spare;
        p->spare = NULL;
    }
    pthread_mutex_unlock(&p->lock);
    t->pool = p;
    pthread_setspecific(p->key, t); /* non-NULL: run at exit */
    return n;
}

void rv_pool_watch_thread(rv_pool_t *p, rv_pool_tls_t *t) { (void)rv_pool_watch(p, t, 0); }

rv_slink_t *rv_pool_refill(rv_pool_t *p, rv_pool_tls_t *t)
{
    rv_slink_t *n = rv_pool_watch(p, t, 1);
    if (n) return n;
    char *b = calloc(p->batch, p->size);
    if (!b) rv_fatal("out of memory allocating %s", p->what);
    for (unsigned i = 0; i < p->batch; i++) {
        char *obj = b + (size_t)i * p->size;
        if (p->init) p->init(obj);
        ((rv_slink_t *)(void *)(obj + p->link))->next =
            i + 1 < p->batch ? (rv_slink_t *)(void *)(obj + p->size + p->link) : NULL;
    }
    return (rv_slink_t *)(void *)(b + p->link);
}
