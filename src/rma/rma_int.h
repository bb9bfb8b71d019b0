/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_int.h: the RMA operation object, its pool, start and completion accounting (shared by the
 * reference AM path and the native RDMA path), and both paths' entry points. */
#ifndef RV_RMA_INT_H
#define RV_RMA_INT_H

#include "core/core.h"
#include "transport/transport.h"
#include "core/slist.h"
#include "event/event.h"

/* One Put or Get in flight (reference path, or native RDMA through the transport). The root completes when every
 * chunk has been acknowledged (put) or answered (get); the leaf (puts) when every
 * chunk's payload has been handed to the transport. */
typedef struct rv_rma_op {
    struct rv_op      root;
    struct rv_op      leaf;
    _Atomic int       pending;    /* chunks outstanding, +1 until injection ends */
    _Atomic int       lc_pending; /* 1 until injection ends */
    rv_nbi_set_t     *nbi;        /* NBI op: set to report to (NULL: NB, client syncs) */
    uint8_t           nbi_lc;     /* NBI put with GEX_EVENT_GROUP: also report GEX_EC_LC */
    uint8_t           is_get;
    uint8_t           has_leaf;   /* PutNB given a pointer lc_opt */
    uint8_t           by_ref;     /* reference Put, GEX_EVENT_DEFER: its source stays valid
                                   * until remote completion, so chunks may travel by
                                   * reference (RV_AM_FLAG_PAYLOAD_REF) */
    gex_Rank_t        jr;         /* target jobrank */
    gex_EP_Index_t    epidx;      /* target endpoint index (reference path) */
    char             *local;      /* put source / get destination */
    char             *bounce;     /* malloc'd copy a deferred GEX_EVENT_NOW Put sends from */
    uintptr_t         remote;     /* address in the target's segment */
    size_t            nbytes, off, chunk;
    rv_slink_t        link;       /* pool or deferred-injection list */
    rv_tp_cmpl_t      cmpl;       /* native path: the transport reports events here */
} rv_rma_op_t;

/* Pool: no allocation once warm. */
rv_rma_op_t *rv_rma_op_alloc(void);
void rv_rma_op_free(rv_rma_op_t *op);

/* Local-completion handling requested for a Put (Gets pass RV_LC_DEFER). */
enum { RV_LC_NOW, RV_LC_DEFER, RV_LC_GROUP, RV_LC_LEAF };

/* An op from the pool for nbytes moved in chunks of 'chunk' bytes, its counts set (every chunk
 * plus the injection reference outstanding) and, for NBI, counted in the current NBI set
 * (with RV_LC_GROUP, local completion too) before any chunk can complete on another thread. */
static inline rv_rma_op_t *rv_rma_op_start(int is_get, gex_Rank_t jr, gex_EP_Index_t epidx,
                                           void *local, uintptr_t remote, size_t nbytes,
                                           size_t chunk, int is_nbi, int lc)
{
    rv_rma_op_t *op = rv_rma_op_alloc();
    op->is_get = (uint8_t)is_get;
    op->has_leaf = (uint8_t)(lc == RV_LC_LEAF);
    op->by_ref = 0;
    op->jr = jr;
    op->epidx = epidx;
    op->local = local;
    op->remote = remote;
    op->nbytes = nbytes;
    op->off = 0;
    op->chunk = chunk;
    size_t nchunks = (nbytes + chunk - 1) / chunk;
    atomic_store_explicit(&op->pending, (int)nchunks + 1, memory_order_relaxed);
    atomic_store_explicit(&op->lc_pending, 1, memory_order_relaxed);
    op->nbi = is_nbi ? rv_nbi_current() : NULL;
    op->nbi_lc = (uint8_t)(is_nbi && lc == RV_LC_GROUP);
    if (op->nbi) {
        rv_nbi_add(op->nbi, is_get ? RV_EC_GET : RV_EC_PUT);
        if (op->nbi_lc) rv_nbi_add(op->nbi, RV_EC_LC);
    }
    return op;
}

/* Undoes rv_rma_op_start for an op none of whose chunks was started ("no op" under
 * GEX_FLAG_IMMEDIATE) and returns it to the pool. */
static inline void rv_rma_op_cancel(rv_rma_op_t *op)
{
    if (op->nbi) {
        rv_nbi_done(op->nbi, op->is_get ? RV_EC_GET : RV_EC_PUT);
        if (op->nbi_lc) rv_nbi_done(op->nbi, RV_EC_LC);
    }
    rv_rma_op_free(op);
}

/* Starts a reference Put/Get. is_nbi: report completion to the current NBI set
 * (with RV_LC_GROUP, local completion too) instead of returning an event.
 * With RV_LC_NOW every chunk is handed off before return. Returns the op (NB),
 * NULL for NBI, or RV_RMA_NO_OP when GEX_FLAG_IMMEDIATE found no room for the
 * first chunk (then nothing was sent). epidx: the target endpoint's index (Puts to a
 * non-primordial endpoint travel as Mediums, checked against its segment there). */
#define RV_RMA_NO_OP ((rv_rma_op_t *)1)
rv_rma_op_t *rv_rma_ref_start(int is_get, gex_Rank_t jr, gex_EP_Index_t epidx, void *local,
                              uintptr_t remote, size_t nbytes, int is_nbi, int lc,
                              gex_Flags_t flags);

/* Native Put/Get through rv_tp.ops.put/get, or put_seg/get_seg for a non-primordial
 * endpoint epidx (the target's segment has RV_SEG_RDMA);
 * same contract as rv_rma_ref_start. */
rv_rma_op_t *rv_rma_native_start(int is_get, gex_Rank_t jr, gex_EP_Index_t epidx, void *local,
                                 uintptr_t remote, size_t nbytes, int is_nbi, int lc,
                                 gex_Flags_t flags);

/* True once the op's local completion has happened. */
static inline int rv_rma_lc_done(rv_rma_op_t *op)
{
    return atomic_load_explicit(&op->lc_pending, memory_order_acquire) == 0;
}

/* One chunk's remote completion (an acknowledged or answered AM chunk, or a transport's
 * RV_TP_EV_REMOTE), or the injection reference dropped: the last one completes the operation. */
static inline void rv_rma_chunk_done(rv_rma_op_t *op)
{
    /* Read before the count drops: once it is 0 another thread may sync an NB op and
     * recycle it. An NBI op is only ever freed here. */
    rv_nbi_set_t *nbi = op->nbi;
    int ec = op->is_get ? RV_EC_GET : RV_EC_PUT;
    if (atomic_fetch_sub_explicit(&op->pending, 1, memory_order_acq_rel) != 1) return;
    if (nbi) {
        rv_nbi_done(nbi, ec);
        rv_rma_op_free(op);
    }
}

void rv_rma_init(void);

#endif /* RV_RMA_INT_H */
