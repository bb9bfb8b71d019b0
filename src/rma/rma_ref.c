/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_ref.c: the reference Put/Get, written only over AM: chunked Long puts acknowledged by
 * Short replies, Short get requests answered by Medium replies; refused sends resume from progress. */
#include "rma/rma_int.h"
#include "am/am_int.h"
#include "core/amargs.h"
#include "core/defer.h"

#include <stdlib.h>
#include <string.h>

/* Sends the chunks from op->off on. Returns 1 when all are sent, 0 when the
 * peer had no room (only possible with GEX_FLAG_IMMEDIATE). */
static int rv_rma_inject(rv_rma_op_t *op, gex_Flags_t flags)
{
    gex_AM_Arg_t a[8];
    rv_args_set_ptr(a, op);
    while (op->off < op->nbytes) {
        size_t n = op->nbytes - op->off;
        if (n > op->chunk) n = op->chunk;
        int rc;
        if (!op->is_get && !op->epidx) {
            rc = rv_am_send_internal(op->jr, RV_CHAN_REQ, RV_AM_LONG, RV_AMI_PUT, a, 2,
                                     op->local + op->off, n, (void *)(op->remote + op->off),
                                     op->by_ref ? flags | RV_AM_FLAG_PAYLOAD_REF : flags);
        } else if (!op->is_get) {
            rv_args_set_ptr(a + 2, (void *)(op->remote + op->off));
            a[4] = (gex_AM_Arg_t)op->epidx;
            rc = rv_am_send_internal(op->jr, RV_CHAN_REQ, RV_AM_MEDIUM, RV_AMI_PUT_EP, a, 5,
                                     op->local + op->off, n, NULL, flags);
        } else {
            rv_args_set_ptr(a + 2, op->local + op->off);
            rv_args_set_ptr(a + 4, (void *)(op->remote + op->off));
            a[6] = (gex_AM_Arg_t)n;
            a[7] = (gex_AM_Arg_t)op->epidx;
            rc = rv_am_send_internal(op->jr, RV_CHAN_REQ, RV_AM_SHORT, RV_AMI_GET, a, 8, NULL, 0,
                                     NULL, flags);
        }
        if (rc) return 0;
        op->off += n;
    }
    return 1;
}

/* Every chunk is handed off: the payload is locally complete. */
static void rv_rma_inject_done(rv_rma_op_t *op)
{
    atomic_store_explicit(&op->lc_pending, 0, memory_order_release);
    if (op->nbi_lc) rv_nbi_done(op->nbi, RV_EC_LC);
    rv_rma_chunk_done(op); /* drops the injection reference */
}

/* Operations whose remaining chunks wait for room at the target. */
static rv_defer_t rv_rma_deferred = RV_DEFER_INIT;

static int rv_rma_progress(void)
{
    if (!rv_defer_pending(&rv_rma_deferred) || !rv_defer_trylock(&rv_rma_deferred)) return 0;
    int n = 0;
    rv_slink_t *l;
    while ((l = rv_defer_head(&rv_rma_deferred)) &&
           rv_rma_inject(rv_container_of(l, rv_rma_op_t, link), GEX_FLAG_IMMEDIATE)) {
        rv_defer_pop(&rv_rma_deferred);
        rv_rma_inject_done(rv_container_of(l, rv_rma_op_t, link));
        n++;
    }
    rv_defer_unlock(&rv_rma_deferred);
    return n;
}

rv_rma_op_t *rv_rma_ref_start(int is_get, gex_Rank_t jr, gex_EP_Index_t epidx, void *local,
                              uintptr_t remote, size_t nbytes, int is_nbi, int lc,
                              gex_Flags_t flags)
{
    size_t chunk = is_get || epidx ? rv_am_max_medium() : rv_am_max_long(jr);
    /* Under IMMEDIATE a Put chunk must travel inside its message: a larger Long payload is
     * copied into the mapped target segment before the send, which then waits for room, so a
     * refused chunk would leave data behind and block (here, or in the progress hook). */
    if (!is_get && (flags & GEX_FLAG_IMMEDIATE) && chunk > rv_am_max_medium())
        chunk = rv_am_max_medium();
    /* A transport that cuts messages into packets (udp's datagrams): chunks that fit one, a
     * multiple of 64 bytes (a 64 KiB chunk plus its header would take two datagrams, the
     * second nearly empty: 1 MiB in 32 instead of 17) */
    size_t pref = rv_tp.lim.pref_msg > RV_AM_HDR_MAX ? (rv_tp.lim.pref_msg - RV_AM_HDR_MAX) & ~(size_t)63 : 0;
    if (pref >= 4096 && chunk > pref && chunk <= rv_am_max_medium()) chunk = pref;
    rv_rma_op_t *op = rv_rma_op_start(is_get, jr, epidx, local, remote, nbytes, chunk, is_nbi, lc);
    /* With GEX_EVENT_DEFER the source is the client's until remote completion, which each
     * chunk's acknowledgement (a reply, sent after the chunk was delivered) brings: a
     * transport may send the chunks without copying them (transport.h, send_ref). Local
     * completion at injection's end changes nothing then: nobody observes it. */
    op->by_ref = (uint8_t)(!is_get && !epidx && lc == RV_LC_DEFER);

    gex_Flags_t imm = flags & GEX_FLAG_IMMEDIATE;
    if (!rv_rma_inject(op, imm)) {
        if (op->off == 0) { /* nothing sent: "no op" */
            rv_rma_op_cancel(op);
            return RV_RMA_NO_OP;
        }
        if (lc == RV_LC_NOW) {
            /* Local completion is due before return, and IMMEDIATE may not wait for room:
             * the rest goes out from a private copy. Chunks stay aligned, so the count holds. */
            size_t rest = op->nbytes - op->off;
            char *copy = malloc(rest);
            if (!copy) rv_fatal("out of memory copying the last %zu bytes of an IMMEDIATE Put", rest);
            memcpy(copy, op->local + op->off, rest);
            op->bounce = op->local = copy;
            op->remote += op->off;
            op->nbytes = rest;
            op->off = 0;
        }
        rv_defer_push(&rv_rma_deferred, &op->link); /* under IMMEDIATE the rest goes out from progress */
        return is_nbi ? NULL : op;
    }
    rv_rma_inject_done(op);
    return is_nbi ? NULL : op;
}

/* ---- target-side and completion handlers -------------------------------- */

/* Put chunk landed in our segment (the AM engine checked and wrote it). */
static void rv_rma_put_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    (void)buf, (void)nbytes, (void)nargs;
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_SHORT, RV_AMI_PUT_ACK, a, 2, NULL, 0, NULL, 0);
}

static void rv_rma_put_ack_handler(gex_Token_t tok, void *buf, size_t nbytes,
                                   const gex_AM_Arg_t *a, unsigned nargs)
{
    (void)tok, (void)buf, (void)nbytes, (void)nargs;
    rv_rma_chunk_done(rv_args_ptr(a));
}

/* The segment bound to this rank's endpoint index idx (an AM argument), or NULL. */
static const struct rv_segment *rv_rma_ep_seg(gex_AM_Arg_t idx)
{
    const struct rv_ep *ep = (uint32_t)idx < GASNET_MAXEPS ? rv_eps[(uint32_t)idx] : NULL;
    return ep ? ep->seg : NULL;
}

/* A Put chunk to a non-primordial endpoint. args: op(2), our destination(2), endpoint index. */
static void rv_rma_put_ep_handler(gex_Token_t tok, void *buf, size_t nbytes,
                                  const gex_AM_Arg_t *a, unsigned nargs)
{
    const struct rv_segment *seg = nargs == 5 ? rv_rma_ep_seg(a[4]) : NULL;
    uintptr_t d = (uintptr_t)rv_args_ptr(a + 2), base = seg ? (uintptr_t)seg->addr : 0;
    if (!seg || d < base || nbytes > seg->size || d - base > seg->size - nbytes)
        rv_fatal("reference Put from rank %u: destination [%p, +%zu) is outside the segment "
                 "bound to endpoint index %u of this rank; nothing was written", tok->src,
                 (void *)d, nbytes, nargs == 5 ? (unsigned)a[4] : 0u);
    memcpy((void *)d, buf, nbytes);
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_SHORT, RV_AMI_PUT_ACK, a, 2, NULL, 0, NULL, 0);
}

/* args: op(2), requester's destination(2), our source(2), length, endpoint index. */
static void rv_rma_get_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    (void)buf, (void)nbytes;
    const struct rv_segment *seg = nargs == 8 ? rv_rma_ep_seg(a[7]) : NULL;
    uintptr_t s = (uintptr_t)rv_args_ptr(a + 4), base = seg ? (uintptr_t)seg->addr : 0;
    size_t n = (size_t)(uint32_t)a[6];
    if (!seg || s < base || n > seg->size || s - base > seg->size - n || n > rv_am_max_medium())
        rv_fatal("reference Get from rank %u: source [%p, +%zu) is outside the segment bound to "
                 "endpoint index %u of this rank", tok->src, (void *)s, n,
                 nargs == 8 ? (unsigned)a[7] : 0u);
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_MEDIUM, RV_AMI_GET_REPLY, a, 4, (void *)s, n,
                        NULL, 0);
}

static void rv_rma_get_reply_handler(gex_Token_t tok, void *buf, size_t nbytes,
                                     const gex_AM_Arg_t *a, unsigned nargs)
{
    (void)tok, (void)nargs;
    memcpy(rv_args_ptr(a + 2), buf, nbytes);
    rv_rma_chunk_done(rv_args_ptr(a));
}

void rv_rma_init(void)
{
    rv_am_register_internal(RV_AMI_PUT, rv_rma_put_handler);
    rv_am_register_internal(RV_AMI_PUT_EP, rv_rma_put_ep_handler);
    rv_am_register_internal(RV_AMI_PUT_ACK, rv_rma_put_ack_handler);
    rv_am_register_internal(RV_AMI_GET, rv_rma_get_handler);
    rv_am_register_internal(RV_AMI_GET_REPLY, rv_rma_get_reply_handler);
    rv_progress_register(rv_rma_progress, &rv_rma_deferred.n);
}
