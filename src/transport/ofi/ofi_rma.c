/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_rma.c: RDMA put/get for the ofi transport: operation contexts, bounce
 * buffers, the choice of a local descriptor, remote completion (delivery-complete writes, a
 * read per write, or one flush read per peer), and RDMA completions. */
#include "transport/ofi/ofi_int.h"
#include "core/spin.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int rv_ofi_rma_open(rv_ofi_t *o)
{
    o->rops = calloc(RV_OFI_NROP, sizeof *o->rops);
    if (!o->rops) return -1;
    for (int i = RV_OFI_NROP - 1; i >= 0; i--) {
        o->rops[i].ctx.kind = RV_OFI_CTX_RMA;
        rv_flist_put(&o->rfree, &o->rops[i].link);
    }
    size_t bs = (size_t)rv_cfg.OFI_BOUNCE;
    o->bsize = bs ? (bs + 63) & ~(size_t)63 : 0;
    if (o->bsize) {
        o->bpool = mmap(NULL, o->bsize * RV_OFI_NBOUNCE, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (o->bpool == MAP_FAILED) {
            o->bpool = NULL;
            return -1;
        }
        for (unsigned i = 0; i < RV_OFI_NBOUNCE; i++) o->bfree[i] = o->bpool + i * o->bsize;
        o->bnfree = RV_OFI_NBOUNCE;
    }
    int rc = 0;
    if (o->mr_local && o->bpool)
        rc = rv_ofi_mr_reg(o, o->bpool, o->bsize * RV_OFI_NBOUNCE, FI_READ | FI_WRITE,
                           RV_OFI_KEY_BOUNCE, &o->bmr);
    if (!rc && o->mr_local && !o->dc) /* the follow-up reads land in rops[].scratch */
        rc = rv_ofi_mr_reg(o, o->rops, RV_OFI_NROP * sizeof *o->rops, FI_READ, RV_OFI_KEY_ROP,
                           &o->ropmr);
    if (!rc && o->pflush) {
        o->fpeers = calloc(o->size, sizeof *o->fpeers);
        o->fdirty = calloc(o->size, sizeof *o->fdirty);
        if (!o->fpeers || !o->fdirty) return -1;
        for (uint32_t r = 0; r < o->size; r++) o->fpeers[r].ctx.kind = RV_OFI_CTX_FLUSH;
        if (o->mr_local) /* the flush reads land in fpeers[].scratch */
            rc = rv_ofi_mr_reg(o, o->fpeers, o->size * sizeof *o->fpeers, FI_READ,
                               RV_OFI_KEY_FLUSH, &o->fpmr);
    }
    if (rc) {
        rv_warn("ofi: registering RDMA buffers failed: %s", fi_strerror(-rc));
        return -1;
    }
    o->rcmax = (size_t)rv_cfg.OFI_REGCACHE_MAX;
    o->st.rc_limit = o->rcmax;
    o->next_key = RV_OFI_KEY_CACHE;
    return 0;
}

void rv_ofi_rma_close(rv_ofi_t *o)
{
    rv_ofi_rc_close(o);
    if (o->bmr) fi_close(&o->bmr->fid);
    if (o->ropmr) fi_close(&o->ropmr->fid);
    if (o->fpmr) fi_close(&o->fpmr->fid);
    free(o->fpeers);
    free(o->fdirty);
    o->fpeers = NULL;
    o->fdirty = NULL;
    o->fpmr = NULL;
    o->fndirty = 0;
    if (o->bpool) munmap(o->bpool, o->bsize * RV_OFI_NBOUNCE);
    free(o->rops);
    o->bmr = o->ropmr = NULL;
    o->bpool = NULL;
    o->rops = NULL;
    o->rfree.head = NULL;
    o->bnfree = 0;
}

static inline rv_ofi_rop_t *rv_ofi_rop_get(rv_ofi_t *o)
{
    rv_slink_t *l = rv_flist_get(&o->rfree);
    return l ? rv_container_of(l, rv_ofi_rop_t, link) : NULL;
}

static inline void rv_ofi_rop_put(rv_ofi_t *o, rv_ofi_rop_t *op)
{
    rv_flist_put(&o->rfree, &op->link);
}

static inline unsigned char *rv_ofi_bounce_get(rv_ofi_t *o)
{
    unsigned char *b = NULL;
    rv_spin_lock(&o->block);
    if (o->bnfree) b = o->bfree[--o->bnfree];
    rv_spin_unlock(&o->block);
    return b;
}

static inline void rv_ofi_bounce_put(rv_ofi_t *o, unsigned char *b)
{
    rv_spin_lock(&o->block);
    o->bfree[o->bnfree++] = b;
    rv_spin_unlock(&o->block);
}

static inline int rv_ofi_in_seg(const rv_ofi_t *o, const void *p, size_t n)
{
    uintptr_t a = (uintptr_t)p, s = (uintptr_t)o->seg;
    return o->segmr && a >= s && n <= o->seglen && a - s <= o->seglen - n;
}

/* Gives back what an op borrowed (bounce buffer, cache entry). */
static inline void rv_ofi_rop_unborrow(rv_ofi_t *o, rv_ofi_rop_t *op)
{
    if (op->bounce) rv_ofi_bounce_put(o, op->bounce);
    if (op->rce) rv_ofi_rc_release(o, op->rce);
    op->bounce = NULL;
    op->rce = NULL;
}

/* The registration of endpoint index seg > 0 of peer (ops.put_seg/get_seg). */
static inline const rv_ofi_rseg_t *rv_ofi_eprseg(const rv_ofi_t *o, gex_Rank_t peer, unsigned seg)
{
    if (__builtin_expect(seg >= GASNET_MAXEPS || !o->eprseg[seg] || !o->eprseg[seg][peer].size, 0))
        rv_fatal("ofi: RDMA to endpoint index %u of rank %u, whose segment is not registered "
                 "here", seg, peer);
    return &o->eprseg[seg][peer];
}

/* Fills in what every RDMA op of 'nbytes' to 'remote' (within rs) of peer starts with. */
static inline void rv_ofi_rop_start(rv_ofi_t *o, rv_ofi_rop_t *op, int is_get, gex_Rank_t peer,
                                    const rv_ofi_rseg_t *rs, uintptr_t remote, size_t nbytes,
                                    rv_tp_cmpl_t *c)
{
    op->is_get = is_get;
    op->c = c;
    op->peer = peer;
    op->nbytes = nbytes;
    op->raddr = o->virt_addr ? (uint64_t)remote : (uint64_t)remote - rs->base;
    op->rkey = rs->key;
    op->bounce = NULL;
    op->rce = NULL;
}

/* Posts op's write from (or read into) 'buf', one iovec: 0, or RV_TP_AGAIN with the op given
 * back when the provider is busy; any other failure is fatal. */
static inline int rv_ofi_rop_post(rv_ofi_t *o, rv_ofi_rop_t *op, int is_get, gex_Rank_t peer,
                                  void *buf, size_t nbytes, void *desc, uint64_t fl,
                                  uint64_t data)
{
    struct iovec iov = { buf, nbytes };
    struct fi_rma_iov riov = { op->raddr, nbytes, op->rkey };
    struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = o->addr[peer],
                            .rma_iov = &riov, .rma_iov_count = 1, .context = &op->ctx,
                            .data = data };
    ssize_t rc = is_get ? fi_readmsg(o->ep, &m, fl) : fi_writemsg(o->ep, &m, fl);
    if (__builtin_expect(rc != 0, 0)) {
        rv_ofi_rop_unborrow(o, op);
        rv_ofi_rop_put(o, op);
        if (rc == -FI_EAGAIN) return RV_TP_AGAIN;
        rv_ofi_peer_failed((int)-rc);
        rv_fatal("ofi: %s of %zu bytes %s rank %u failed: %s",
                 is_get ? "fi_readmsg" : "fi_writemsg", nbytes, is_get ? "from" : "to", peer,
                 fi_strerror((int)-rc));
    }
    return 0;
}

static int rv_ofi_put_rs(rv_ofi_t *o, gex_Rank_t peer, const rv_ofi_rseg_t *rs, uintptr_t remote,
                         const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags,
                         uint32_t imm)
{
    rv_ofi_rop_t *op = rv_ofi_rop_get(o);
    if (!op) return RV_TP_AGAIN;
    int is_imm = (flags & RV_TP_PUT_IMM_FLAG) != 0;
    rv_ofi_rop_start(o, op, 0, peer, rs, remote, nbytes, c);
    /* a waited-for put is faster delivery-complete (one round trip) than flushed (its
     * transmit completion, then the read's round trip), except under an explicit 'flush' */
    int waited_dc = o->dc && (flags & RV_TP_PUT_WAITED) && o->pflush != 2;
    op->flush = is_imm || waited_dc ? RV_OFI_FL_NONE
              : o->pflush ? RV_OFI_FL_PEER
              : o->dc ? RV_OFI_FL_NONE : RV_OFI_FL_READ;
    op->events = is_imm ? 0 : RV_TP_EV_REMOTE;

    /* without FI_DELIVERY_COMPLETE the completion is the provider's default (transmit
     * complete): the source is reusable, the data maybe not yet at the target */
    uint64_t fl = FI_COMPLETION;
    if (is_imm) fl |= FI_REMOTE_CQ_DATA;
    else if (op->flush == RV_OFI_FL_NONE) fl |= FI_DELIVERY_COMPLETE;
    const void *src = local;
    void *desc = NULL;
    int ret = 0;
    unsigned char *b;
    if (nbytes <= o->rma_inject) {
        fl |= FI_INJECT; /* copied by the provider before it returns */
    } else if (nbytes <= o->bsize && (b = rv_ofi_bounce_get(o)) != NULL) {
        memcpy(b, local, nbytes);
        src = op->bounce = b;
        desc = o->bmr ? fi_mr_desc(o->bmr) : NULL;
        RV_OFI_COUNT(o, bounce_puts, 1);
    } else {
        ret = RV_TP_LC_LATER;
        op->events |= RV_TP_EV_LOCAL;
        if (rv_ofi_in_seg(o, local, nbytes)) {
            desc = o->segdesc;
        } else if (o->mr_local && rv_ofi_rc_acquire(o, local, nbytes, &op->rce, &desc)) {
            rv_ofi_rop_put(o, op);
            return RV_TP_AGAIN;
        }
    }
    if (rv_ofi_rop_post(o, op, 0, peer, (void *)src, nbytes, desc, fl,
                        is_imm ? RV_OFI_IMM(o->me, flags, imm) : 0))
        return RV_TP_AGAIN;
    RV_OFI_COUNT(o, puts, 1);
    return ret;
}

int rv_ofi_put(void *priv, gex_Rank_t peer, uintptr_t remote, const void *local, size_t nbytes,
               rv_tp_cmpl_t *c, unsigned flags, uint32_t imm)
{
    rv_ofi_t *o = priv;
    return rv_ofi_put_rs(o, peer, &o->rseg[peer], remote, local, nbytes, c, flags, imm);
}

int rv_ofi_put_seg(void *priv, gex_Rank_t peer, unsigned seg, uintptr_t remote,
                   const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags)
{
    rv_ofi_t *o = priv;
    return rv_ofi_put_rs(o, peer, rv_ofi_eprseg(o, peer, seg), remote, local, nbytes, c,
                         flags & ~RV_TP_PUT_IMM_FLAG, 0);
}

static int rv_ofi_get_rs(rv_ofi_t *o, gex_Rank_t peer, const rv_ofi_rseg_t *rs, void *local,
                         uintptr_t remote, size_t nbytes, rv_tp_cmpl_t *c)
{
    rv_ofi_rop_t *op = rv_ofi_rop_get(o);
    if (!op) return RV_TP_AGAIN;
    rv_ofi_rop_start(o, op, 1, peer, rs, remote, nbytes, c);
    op->flush = 0;
    op->events = RV_TP_EV_LOCAL | RV_TP_EV_REMOTE;
    op->getdst = local;

    void *dst = local, *desc = NULL;
    unsigned char *b;
    if (rv_ofi_in_seg(o, local, nbytes)) {
        desc = o->segdesc;
    } else if (o->mr_local) {
        if (nbytes <= o->bsize && (b = rv_ofi_bounce_get(o)) != NULL) {
            dst = op->bounce = b;
            desc = o->bmr ? fi_mr_desc(o->bmr) : NULL;
            RV_OFI_COUNT(o, bounce_gets, 1);
        } else if (rv_ofi_rc_acquire(o, local, nbytes, &op->rce, &desc)) {
            rv_ofi_rop_put(o, op);
            return RV_TP_AGAIN;
        }
    }
    if (rv_ofi_rop_post(o, op, 1, peer, dst, nbytes, desc, FI_COMPLETION, 0)) return RV_TP_AGAIN;
    RV_OFI_COUNT(o, gets, 1);
    return 0;
}

int rv_ofi_get(void *priv, gex_Rank_t peer, void *local, uintptr_t remote, size_t nbytes,
               rv_tp_cmpl_t *c)
{
    rv_ofi_t *o = priv;
    return rv_ofi_get_rs(o, peer, &o->rseg[peer], local, remote, nbytes, c);
}

int rv_ofi_get_seg(void *priv, gex_Rank_t peer, unsigned seg, void *local, uintptr_t remote,
                   size_t nbytes, rv_tp_cmpl_t *c)
{
    rv_ofi_t *o = priv;
    return rv_ofi_get_rs(o, peer, rv_ofi_eprseg(o, peer, seg), local, remote, nbytes, c);
}

/* Without FI_DELIVERY_COMPLETE a write's completion only frees its source. A read from
 * the same target that the provider orders after the write (FI_ORDER_RAW, required at
 * open) completes only once the write has landed: that is the remote completion. */
static void rv_ofi_flush(rv_ofi_t *o, rv_ofi_rop_t *op)
{
    void *desc = o->ropmr ? fi_mr_desc(o->ropmr) : NULL;
    size_t n = op->nbytes < sizeof op->scratch ? op->nbytes : sizeof op->scratch;
    struct iovec iov = { &op->scratch, n };
    struct fi_rma_iov riov = { op->raddr, n, op->rkey };
    struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                            .addr = o->addr[op->peer], .rma_iov = &riov, .rma_iov_count = 1,
                            .context = &op->ctx };
    ssize_t rc;
    while ((rc = fi_readmsg(o->ep, &m, FI_COMPLETION)) == -FI_EAGAIN)
        fi_cq_read(o->cq, NULL, 0); /* the transmit queue is momentarily full: progress */
    if (rc) {
        rv_ofi_peer_failed((int)-rc);
        rv_fatal("ofi: the follow-up read after a write to rank %u failed: %s", op->peer,
                 fi_strerror((int)-rc));
    }
    RV_OFI_COUNT(o, flush_reads, 1);
}

/* A transmit-complete write to op->peer waits for the peer's next flush. */
static void rv_ofi_flush_wait(rv_ofi_t *o, rv_ofi_rop_t *op)
{
    rv_ofi_fpeer_t *f = &o->fpeers[op->peer];
    op->next = NULL;
    if (f->pend) f->pend_tail->next = op;
    else f->pend = op;
    f->pend_tail = op;
    f->npend++;
    f->raddr = op->raddr;
    f->rkey = op->rkey;
    if (!f->listed) {
        f->listed = 1;
        f->age = 0;
        o->fdirty[o->fndirty++] = op->peer;
    }
}

/* Posts the flush read to peer: every write whose transmit completion we have seen was
 * posted before it, so the provider (FI_ORDER_RAW) runs the read after them at the target. */
static int rv_ofi_flush_post(rv_ofi_t *o, uint32_t peer, rv_ofi_fpeer_t *f)
{
    void *desc = o->fpmr ? fi_mr_desc(o->fpmr) : NULL;
    struct iovec iov = { &f->scratch, 1 };
    struct fi_rma_iov riov = { f->raddr, 1, f->rkey };
    struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = o->addr[peer],
                            .rma_iov = &riov, .rma_iov_count = 1, .context = &f->ctx };
    ssize_t rc = fi_readmsg(o->ep, &m, FI_COMPLETION);
    if (rc == -FI_EAGAIN) return -1; /* the transmit queue is full: the next poll retries */
    if (rc) {
        rv_ofi_peer_failed((int)-rc);
        rv_fatal("ofi: the flush read from rank %u failed: %s", peer, fi_strerror((int)-rc));
    }
    f->covered = f->pend;
    f->pend = f->pend_tail = NULL;
    f->npend = 0;
    f->inflight = 1;
    RV_OFI_COUNT(o, peer_flushes, 1);
    return 0;
}

/* A peer is flushed when no flush to it is in flight and either the completion queue ran
 * dry (no more transmit completions about to join), or enough writes wait (the contexts
 * they hold would otherwise run out), or it waited several polls (a busy queue). */
void rv_ofi_flush_issue(rv_ofi_t *o, int drained)
{
    uint32_t keep = 0;
    for (uint32_t i = 0; i < o->fndirty; i++) {
        uint32_t peer = o->fdirty[i];
        rv_ofi_fpeer_t *f = &o->fpeers[peer];
        if (!f->inflight && (drained || f->npend >= RV_OFI_NROP / 4 || f->age >= 8) &&
            rv_ofi_flush_post(o, peer, f) == 0) {
            f->listed = 0;
            continue;
        }
        if (f->age < 255) f->age++;
        o->fdirty[keep++] = peer;
    }
    o->fndirty = keep;
}

void rv_ofi_flush_complete(rv_ofi_t *o, rv_ofi_fpeer_t *f)
{
    rv_ofi_rop_t *op = f->covered;
    f->covered = NULL;
    f->inflight = 0;
    uint64_t n = 0;
    while (op) {
        rv_ofi_rop_t *next = op->next;
        rv_tp_cmpl_t *c = op->c;
        rv_ofi_rop_put(o, op);
        c->done(c, RV_TP_EV_REMOTE);
        op = next;
        n++;
    }
    RV_OFI_COUNT(o, flushed_puts, n);
}

void rv_ofi_rma_complete(rv_ofi_t *o, rv_ofi_rop_t *op)
{
    rv_tp_cmpl_t *c = op->c;
    if (op->flush) {
        unsigned lc = op->events & RV_TP_EV_LOCAL;
        op->events &= ~RV_TP_EV_LOCAL;
        int peer_flush = op->flush == RV_OFI_FL_PEER;
        op->flush = RV_OFI_FL_NONE;
        rv_ofi_rop_unborrow(o, op);
        if (peer_flush) rv_ofi_flush_wait(o, op);
        else rv_ofi_flush(o, op);
        if (lc) c->done(c, lc);
        return;
    }
    if (op->is_get && op->bounce) memcpy(op->getdst, op->bounce, op->nbytes);
    rv_ofi_rop_unborrow(o, op);
    unsigned ev = op->events;
    rv_ofi_rop_put(o, op);
    if (ev) c->done(c, ev);
}
