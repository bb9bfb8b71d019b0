/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_op.c: the RMA op pool and the root/leaf event methods. */
#include "rma/rma_int.h"

#include <stdlib.h>

/* Per-thread free lists, refilled in batches; ops freed by another thread join
 * that thread's list, which is fine: they are all alike. */
#define RV_RMA_BATCH 64
static _Thread_local rv_rma_op_t *rv_rma_free;

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
    op->next = rv_rma_free;
    rv_rma_free = op;
}
