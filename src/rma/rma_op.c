/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_op.c: the RMA op pool and the root/leaf event methods. */
#include "rma/rma_int.h"
#include "core/pool.h"

#include <stdlib.h>

/* Per-thread free lists (core/pool.h); the event methods are set once per object. */
static void rv_rma_op_init(void *obj);
static rv_pool_t rv_rma_pool = RV_POOL_INIT(rv_rma_op_t, link, 64, "RMA operations",
                                            rv_rma_op_init, NULL);
static _Thread_local rv_pool_tls_t rv_rma_tls;

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

static void rv_rma_op_init(void *obj)
{
    rv_rma_op_t *op = obj;
    op->root.test = rv_rma_root_test;
    op->root.release = rv_rma_root_release;
    op->root.leaf = rv_rma_root_leaf;
    op->leaf.test = rv_rma_leaf_test;
    op->leaf.release = rv_rma_leaf_release;
    op->leaf.leaf = NULL;
}

rv_rma_op_t *rv_rma_op_alloc(void)
{
    return rv_container_of(rv_pool_get(&rv_rma_pool, &rv_rma_tls), rv_rma_op_t, link);
}

void rv_rma_op_free(rv_rma_op_t *op)
{
    if (__builtin_expect(op->bounce != NULL, 0)) {
        free(op->bounce);
        op->bounce = NULL;
    }
    rv_pool_put(&rv_rma_tls, &op->link);
}
