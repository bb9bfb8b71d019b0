/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_op.c: the RMA op pool and the root/leaf event methods. */
#include "rma/rma_int.h"

#include <pthread.h>
#include <stdlib.h>

/* Per-thread free lists, refilled in batches; ops freed by another thread join
 * that thread's list, which is fine: they are all alike. A thread that exits hands
 * its list to the spare list, which the next empty thread takes before allocating. */
#define RV_RMA_BATCH 64
static _Thread_local rv_rma_op_t *rv_rma_free;
static rv_rma_op_t *rv_rma_spare;
static pthread_mutex_t rv_rma_spare_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t rv_rma_exit_key;
static pthread_once_t rv_rma_exit_once = PTHREAD_ONCE_INIT;

static void rv_rma_thread_exit(void *unused)
{
    (void)unused;
    rv_rma_op_t *head = rv_rma_free, *tail = head;
    if (!head) return;
    while (tail->next) tail = tail->next;
    pthread_mutex_lock(&rv_rma_spare_lock);
    tail->next = rv_rma_spare;
    rv_rma_spare = head;
    pthread_mutex_unlock(&rv_rma_spare_lock);
    rv_rma_free = NULL;
}

static void rv_rma_exit_key_create(void)
{
    if (pthread_key_create(&rv_rma_exit_key, rv_rma_thread_exit))
        rv_fatal("pthread_key_create failed for the RMA operation pool");
}

static int rv_rma_root_test(struct rv_op *o)
{
    rv_rma_op_t *op = (rv_rma_op_t *)o;
    return atomic_load_explicit(&op->pending, memory_order_acquire) == 0;
}

static void rv_rma_root_release(struct rv_op *o)
{
    rv_rma_op_free((rv_rma_op_t *)o);
}

static gex_Event_t rv_rma_root_leaf(struct rv_op *o, gex_EC_t ec)
{
    rv_rma_op_t *op = (rv_rma_op_t *)o;
    if (ec != GEX_EC_LC || !op->has_leaf || rv_rma_lc_done(op)) return GEX_EVENT_INVALID;
    return &op->leaf;
}

static int rv_rma_leaf_test(struct rv_op *o)
{
    rv_rma_op_t *op = (rv_rma_op_t *)((char *)o - offsetof(rv_rma_op_t, leaf));
    return rv_rma_lc_done(op);
}

/* A synced leaf is recycled with its root. */
static void rv_rma_leaf_release(struct rv_op *o) { (void)o; }

rv_rma_op_t *rv_rma_op_alloc(void)
{
    rv_rma_op_t *op = rv_rma_free;
    if (__builtin_expect(!op, 0)) {
        pthread_once(&rv_rma_exit_once, rv_rma_exit_key_create);
        pthread_setspecific(rv_rma_exit_key, &rv_rma_free); /* non-NULL: run at exit */
        pthread_mutex_lock(&rv_rma_spare_lock);
        op = rv_rma_spare;
        rv_rma_spare = NULL;
        pthread_mutex_unlock(&rv_rma_spare_lock);
    }
    if (__builtin_expect(!op, 0)) {
        rv_rma_op_t *batch = calloc(RV_RMA_BATCH, sizeof *batch);
        if (!batch) rv_fatal("out of memory allocating RMA operations");
        for (int i = 0; i < RV_RMA_BATCH; i++) {
            batch[i].root.test = rv_rma_root_test;
            batch[i].root.release = rv_rma_root_release;
            batch[i].root.leaf = rv_rma_root_leaf;
            batch[i].leaf.test = rv_rma_leaf_test;
            batch[i].leaf.release = rv_rma_leaf_release;
            batch[i].leaf.leaf = NULL;
            batch[i].next = i + 1 < RV_RMA_BATCH ? &batch[i + 1] : NULL;
        }
        op = batch;
    }
    rv_rma_free = op->next;
    return op;
}

void rv_rma_op_free(rv_rma_op_t *op)
{
    if (__builtin_expect(op->bounce != NULL, 0)) {
        free(op->bounce);
        op->bounce = NULL;
    }
    op->next = rv_rma_free;
    rv_rma_free = op;
}
