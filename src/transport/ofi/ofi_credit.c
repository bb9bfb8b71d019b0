/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_credit.c: AM flow control for the ofi transport. A Request costs its sender
 * one credit for the target; the target gives credits back on its Replies, or, for Requests
 * whose handler sent none, in a control message at the end of the poll (the implicit Reply).
 * Dynamic loans: a sender that stalled says so in its next Request ('want'); the target lends
 * from its reserve in the return, and takes loans back (withholds returns) from peers that stopped
 * asking when its reserve runs low. Also the start-up hello that opens every connection. */
#include "transport/ofi/ofi_int.h"
#include "core/spin.h"
#include "core/core.h"

#include <sched.h>
#include <stdlib.h>
#include <string.h>

#define RV_OFI_HELLO_MAX 1024 /* larger jobs connect lazily, on first use */

int rv_ofi_credit_open(rv_ofi_t *o)
{
    o->peers = calloc(o->size, sizeof *o->peers);
    o->dirty = calloc(o->size, sizeof *o->dirty);
    if (!o->peers || !o->dirty) return -1;
    uint64_t c = rv_cfg.OFI_CREDITS, r = rv_cfg.OFI_CREDIT_RESERVE;
    o->credits0 = (uint32_t)(c < 1 ? 1 : c > 30000 ? 30000 : c);
    o->reserve = (int32_t)(r > 1000000 ? 1000000 : r);
    for (uint32_t i = 0; i < o->size; i++)
        atomic_store_explicit(&o->peers[i].avail, (int32_t)o->credits0, memory_order_relaxed);
    return 0;
}

void rv_ofi_credit_close(rv_ofi_t *o)
{
    free(o->peers);
    free(o->dirty);
    o->peers = NULL;
    o->dirty = NULL;
    o->ndirty = 0;
}

int rv_ofi_credit_take(rv_ofi_t *o, uint32_t peer, rv_ofi_hdr_t *h)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    int32_t a = atomic_load_explicit(&p->avail, memory_order_relaxed);
    do {
        if (a <= 0) {
            /* ask for as many again as the initial grant with the next Request */
            if (atomic_exchange_explicit(&p->want, o->credits0, memory_order_relaxed) == 0)
                RV_OFI_COUNT(o, credit_stalls, 1);
            return 0;
        }
    } while (!atomic_compare_exchange_weak_explicit(&p->avail, &a, a - 1, memory_order_acquire,
                                                    memory_order_relaxed));
    uint32_t w = atomic_exchange_explicit(&p->want, 0, memory_order_relaxed);
    h->want = (uint16_t)(w > 0xffff ? 0xffff : w);
    return 1;
}

void rv_ofi_credit_untake(rv_ofi_t *o, uint32_t peer, const rv_ofi_hdr_t *h)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    atomic_fetch_add_explicit(&p->avail, 1, memory_order_release);
    if (h->want) {
        uint32_t zero = 0;
        atomic_compare_exchange_strong_explicit(&p->want, &zero, h->want, memory_order_relaxed,
                                                memory_order_relaxed);
    }
}

void rv_ofi_credit_returned(rv_ofi_t *o, uint32_t peer, unsigned credits, unsigned lent)
{
    atomic_fetch_add_explicit(&o->peers[peer].avail, (int32_t)credits, memory_order_release);
    if (lent) RV_OFI_COUNT(o, loans_received, lent);
}

static inline void rv_ofi_mark(rv_ofi_t *o, uint32_t peer)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    if (!p->dirty) {
        p->dirty = 1;
        o->dirty[o->ndirty++] = peer;
    }
}

void rv_ofi_credit_consume(rv_ofi_t *o, uint32_t peer, unsigned want)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    p->owed++;
    int32_t low = (int32_t)rv_cfg.OFI_CREDIT_RESERVE / 4;
    if (want && o->reserve > 0) {
        uint32_t lend = want < (uint32_t)o->reserve ? want : (uint32_t)o->reserve;
        o->reserve -= (int32_t)lend;
        p->loan += lend;
        p->owed += lend;
        p->lent_now += lend;
        RV_OFI_COUNT(o, loans_granted, lend);
    } else if (!want && p->loan && o->reserve < low) {
        /* this peer no longer asks and others may: keep one of its credits back */
        p->loan--;
        p->owed--;
        o->reserve++;
        RV_OFI_COUNT(o, loans_reclaimed, 1);
    }
    if (p->owed) rv_ofi_mark(o, peer);
}

void rv_ofi_credit_attach(rv_ofi_t *o, uint32_t peer, rv_ofi_hdr_t *h)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    uint32_t c = p->owed > 0xffff ? 0xffff : p->owed;
    uint32_t l = p->lent_now < c ? p->lent_now : c;
    h->credits = (uint16_t)c;
    h->lent = (uint16_t)l;
    p->owed -= c;
    p->lent_now -= l;
}

void rv_ofi_credit_detach(rv_ofi_t *o, uint32_t peer, const rv_ofi_hdr_t *h)
{
    rv_ofi_peer_t *p = &o->peers[peer];
    p->owed += h->credits;
    p->lent_now += h->lent;
    if (p->owed) rv_ofi_mark(o, peer);
}

void rv_ofi_credit_flush(rv_ofi_t *o)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < o->ndirty; i++) {
        uint32_t peer = o->dirty[i];
        rv_ofi_peer_t *p = &o->peers[peer];
        if (p->owed) {
            rv_ofi_hdr_t h = { o->me, RV_OFI_CTRL, 0, 0, 0, 0, 0 };
            rv_ofi_credit_attach(o, peer, &h);
            if (rv_ofi_inject(o, peer, &h, sizeof h) != 0) {
                rv_ofi_credit_detach(o, peer, &h);
                o->dirty[keep++] = peer; /* the provider is busy: next poll */
                continue;
            }
            RV_OFI_COUNT(o, implicit_replies, 1);
            if (p->owed) {
                o->dirty[keep++] = peer;
                continue;
            }
        }
        p->dirty = 0;
    }
    o->ndirty = keep;
}

int rv_ofi_hello(rv_ofi_t *o)
{
    if (o->size > RV_OFI_HELLO_MAX) return 0;
    /* Sent with a completion, so that once it is in we owe the peer no more progress. */
    rv_ofi_hdr_t h = { o->me, RV_OFI_CTRL, 0, 0, 0, 0, 1 };
    /* not to this rank: a loopback connection is a second handshake at start-up, for
     * messages (internal AMs, RIVET_AM_LOOPBACK=queue) most jobs never send to themselves;
     * rxm connects on the first one, whose retries make the progress it needs */
    for (uint32_t k = 1; k < o->size; k++) {
        uint32_t peer = (o->me + k) % o->size;
        rv_ofi_sbuf_t *b;
        for (;;) {
            rv_slink_t *l = rv_flist_get(&o->sfree);
            b = l ? rv_container_of(l, rv_ofi_sbuf_t, link) : NULL;
            if (b) break;
            if (rv_ofi_poll(o, 0) == 0) sched_yield();
        }
        memcpy(b->data, &h, sizeof h);
        ssize_t rc;
        while ((rc = fi_send(o->ep, b->data, sizeof h, o->smr ? fi_mr_desc(o->smr) : NULL,
                             o->addr[peer], &b->ctx)) == -FI_EAGAIN)
            rv_ofi_poll(o, 0);
        if (rc) {
            rv_warn("ofi: the start-up message to rank %u failed: %s", peer, fi_strerror((int)-rc));
            return -1;
        }
    }
    while (o->hellos < o->size - 1 || rv_flist_count(&o->sfree) < RV_OFI_NSEND)
        if (rv_ofi_poll(o, 0) == 0) sched_yield();
    return 0;
}
