/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_native.c: Put/Get by RDMA through the transport's put/get, for peers whose segment the
 * transport can reach but this process does not map; the transport's events drive the op. */
#include "rma/rma_int.h"

#include <sched.h>
#include <stddef.h>

/* One chunk's local completion (or the injection reference): the last one makes the Put
 * locally complete. */
static void rv_rma_native_lc(rv_rma_op_t *op)
{
    /* read before the count drops: the op may be recycled right after */
    rv_nbi_set_t *nbi = op->nbi;
    int report = op->nbi_lc;
    if (atomic_fetch_sub_explicit(&op->lc_pending, 1, memory_order_acq_rel) == 1 && report)
        rv_nbi_done(nbi, RV_EC_LC);
}

/* Called from the transport's poll. LOCAL before REMOTE: the remote one may free the op. */
static void rv_rma_native_done(rv_tp_cmpl_t *c, unsigned ev)
{
    rv_rma_op_t *op = (rv_rma_op_t *)(void *)((char *)c - offsetof(rv_rma_op_t, cmpl));
    if ((ev & RV_TP_EV_LOCAL) && !op->is_get) rv_rma_native_lc(op);
    if (ev & RV_TP_EV_REMOTE) rv_rma_chunk_done(op);
}

static inline void rv_rma_native_wait_step(void)
{
    if (rv_poll() == 0 && rv_idle_should_yield()) sched_yield();
}

rv_rma_op_t *rv_rma_native_start(int is_get, gex_Rank_t jr, gex_EP_Index_t epidx, void *local,
                                 uintptr_t remote, size_t nbytes, int is_nbi, int lc,
                                 gex_Flags_t flags)
{
    rv_rma_op_t *op = rv_rma_op_start(is_get, jr, epidx, local, remote, nbytes,
                                      rv_tp.lim.max_rdma, is_nbi, lc);
    op->cmpl.done = rv_rma_native_done;
    /* a one-chunk put that returns locally complete is usually waited for at once */
    unsigned pflags = !is_nbi && lc == RV_LC_NOW && (nbytes + op->chunk - 1) / op->chunk == 1
                          ? RV_TP_PUT_WAITED : 0;

    while (op->off < nbytes) {
        size_t n = nbytes - op->off;
        if (n > op->chunk) n = op->chunk;
        int rc;
        if (!is_get) {
            /* counted before the call: another thread's poll may report it at once */
            atomic_fetch_add_explicit(&op->lc_pending, 1, memory_order_relaxed);
            rc = __builtin_expect(epidx != 0, 0)
                     ? rv_tp.ops.put_seg(rv_tp.priv, jr, epidx, remote + op->off,
                                         op->local + op->off, n, &op->cmpl, pflags)
                     : rv_tp.ops.put(rv_tp.priv, jr, remote + op->off, op->local + op->off, n,
                                     &op->cmpl, pflags, 0);
            if (rc != RV_TP_LC_LATER)
                atomic_fetch_sub_explicit(&op->lc_pending, 1, memory_order_relaxed);
        } else {
            rc = __builtin_expect(epidx != 0, 0)
                     ? rv_tp.ops.get_seg(rv_tp.priv, jr, epidx, op->local + op->off,
                                         remote + op->off, n, &op->cmpl)
                     : rv_tp.ops.get(rv_tp.priv, jr, op->local + op->off, remote + op->off, n,
                                     &op->cmpl);
        }
        if (__builtin_expect(rc == RV_TP_AGAIN, 0)) {
            if (op->off == 0 && (flags & GEX_FLAG_IMMEDIATE)) { /* nothing started: "no op" */
                rv_rma_op_cancel(op);
                return RV_RMA_NO_OP;
            }
            rv_rma_native_wait_step(); /* the transport is out of resources: progress */
            continue;
        }
        op->off += n;
    }
    if (!is_get) {
        rv_rma_native_lc(op); /* the injection reference */
        if (lc == RV_LC_NOW)
            while (!rv_rma_lc_done(op)) rv_rma_native_wait_step();
    } else {
        atomic_store_explicit(&op->lc_pending, 0, memory_order_release);
    }
    rv_rma_chunk_done(op); /* the injection reference; an NBI op may be recycled here */
    return is_nbi ? NULL : op;
}
