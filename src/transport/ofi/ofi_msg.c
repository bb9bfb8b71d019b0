/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_msg.c: the ofi transport's messages: sends (fi_inject or a staged buffer,
 * under credit flow control for Requests), the receive regions (FI_MULTI_RECV, messages packed
 * back to back, re-posted once every message in them is handled), the stash of Requests that
 * cannot run yet, and the completion-queue poll. See README.md for the design. */
#include "transport/ofi/ofi_int.h"
#include "core/spin.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* ---- staged send buffers ------------------------------------------------------------ */

static inline rv_ofi_sbuf_t *rv_ofi_sbuf_get(rv_ofi_t *o)
{
    rv_slink_t *l = rv_flist_get(&o->sfree);
    return l ? rv_container_of(l, rv_ofi_sbuf_t, link) : NULL;
}

static inline void rv_ofi_sbuf_put(rv_ofi_t *o, rv_ofi_sbuf_t *b)
{
    rv_flist_put(&o->sfree, &b->link);
}

/* The send buffer reserved for the Reply of the Request handler running on this thread,
 * so that a Reply never waits for one (reserved before the handler runs). */
static _Thread_local rv_ofi_sbuf_t *rv_ofi_reply_sbuf;
static _Thread_local int rv_ofi_depth;

int rv_ofi_inject(rv_ofi_t *o, uint32_t peer, const void *msg, size_t len)
{
    ssize_t rc = fi_inject(o->ep, msg, len, o->addr[peer]);
    if (__builtin_expect(rc == 0, 1)) return 0;
    if (rc != -FI_EAGAIN) {
        rv_ofi_peer_failed((int)-rc);
        rv_fatal("ofi: fi_inject to rank %u failed: %s", peer, fi_strerror((int)-rc));
    }
    return RV_TP_AGAIN;
}

int rv_ofi_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen)
{
    rv_ofi_t *o = priv;
    size_t len = sizeof(rv_ofi_hdr_t) + hdrlen + paylen;
    size_t padded = (len + 7) & ~(size_t)7; /* keeps messages packed in a region aligned */
    rv_ofi_hdr_t oh = { o->me, (uint8_t)chan, (uint8_t)(padded - len), 0, 0, 0, 0 };
    if (chan == RV_CHAN_REQ) {
        if (!rv_ofi_credit_take(o, peer, &oh)) return RV_TP_AGAIN;
    } else {
        rv_ofi_credit_attach(o, peer, &oh); /* a Reply runs under the poll: plock is held */
    }
    int rc;
    if (padded <= o->inject && padded <= 512) {
        uint64_t tmp[64];
        unsigned char *p = (unsigned char *)tmp;
        memcpy(p, &oh, sizeof oh);
        memcpy(p + sizeof oh, hdr, hdrlen);
        if (paylen) memcpy(p + sizeof oh + hdrlen, payload, paylen);
        rc = rv_ofi_inject(o, peer, p, padded);
    } else {
        rv_ofi_sbuf_t *b = NULL;
        if (chan == RV_CHAN_REP && rv_ofi_reply_sbuf) {
            b = rv_ofi_reply_sbuf;
            rv_ofi_reply_sbuf = NULL;
        } else {
            b = rv_ofi_sbuf_get(o);
        }
        if (!b) {
            rc = RV_TP_AGAIN;
        } else {
            memcpy(b->data, &oh, sizeof oh);
            memcpy(b->data + sizeof oh, hdr, hdrlen);
            if (paylen) memcpy(b->data + sizeof oh + hdrlen, payload, paylen);
            ssize_t r = fi_send(o->ep, b->data, padded, o->smr ? fi_mr_desc(o->smr) : NULL,
                                o->addr[peer], &b->ctx);
            rc = 0;
            if (r) {
                if (r != -FI_EAGAIN) {
                    rv_ofi_peer_failed((int)-r);
                    rv_fatal("ofi: fi_send to rank %u failed: %s", peer, fi_strerror((int)-r));
                }
                if (chan == RV_CHAN_REP && !rv_ofi_reply_sbuf) rv_ofi_reply_sbuf = b; /* retry */
                else rv_ofi_sbuf_put(o, b);
                rc = RV_TP_AGAIN;
            }
        }
    }
    if (__builtin_expect(rc != 0, 0)) {
        if (chan == RV_CHAN_REQ) rv_ofi_credit_untake(o, peer, &oh);
        else rv_ofi_credit_detach(o, peer, &oh);
    }
    return rc;
}

/* ---- receive regions ---------------------------------------------------------------- */

static void rv_ofi_post(rv_ofi_t *o, rv_ofi_region_t *r)
{
    struct iovec iov = { r->buf, r->size };
    void *desc = o->rmr ? fi_mr_desc(o->rmr) : NULL;
    struct fi_msg m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                        .addr = FI_ADDR_UNSPEC, .context = &r->ctx };
    r->released = 0;
    r->done = r->end = r->extent = 0;
    ssize_t rc;
    while ((rc = fi_recvmsg(o->ep, &m, o->multi ? FI_MULTI_RECV : 0)) == -FI_EAGAIN)
        fi_cq_read(o->cq, NULL, 0); /* the receive queue is momentarily full: progress */
    if (rc) rv_fatal("ofi: posting a %zu-byte receive region failed: %s", r->size,
                     fi_strerror((int)-rc));
}

static inline void rv_ofi_region_check(rv_ofi_t *o, rv_ofi_region_t *r)
{
    if (r->released && r->pending == 0 && r->done >= r->extent) {
        rv_ofi_post(o, r);
        if (o->multi) RV_OFI_COUNT(o, multi_recv_reposts, 1);
    }
}

int rv_ofi_recv_open(rv_ofi_t *o)
{
    o->nregions = o->multi ? (unsigned)rv_cfg.OFI_RECV_REGIONS : RV_OFI_NRECV;
    if (o->nregions < 2) o->nregions = 2;
    o->rsize = o->bufsz;
    if (o->multi) {
        size_t want = (size_t)rv_cfg.OFI_RECV_REGION;
        if (want < 2 * o->bufsz) want = 2 * o->bufsz; /* room for two largest messages */
        o->rsize = (want + 4095) & ~(size_t)4095;
        /* a region is released once less than one largest message fits */
        size_t min = o->bufsz;
        int rc = fi_setopt(&o->ep->fid, FI_OPT_ENDPOINT, FI_OPT_MIN_MULTI_RECV, &min, sizeof min);
        if (rc) {
            rv_warn("ofi: setting FI_OPT_MIN_MULTI_RECV failed: %s", fi_strerror(-rc));
            return -1;
        }
    }
    size_t rlen = o->rsize * o->nregions;
    o->regions = calloc(o->nregions, sizeof *o->regions);
    o->rpool = mmap(NULL, rlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (!o->regions || o->rpool == MAP_FAILED) {
        o->rpool = NULL;
        rv_warn("ofi: cannot allocate %zu bytes of receive regions", rlen);
        return -1;
    }
    if (o->mr_local) {
        int rc = rv_ofi_mr_reg(o, o->rpool, rlen, FI_RECV, RV_OFI_KEY_RECV, &o->rmr);
        if (rc) {
            rv_warn("ofi: registering the receive regions failed: %s", fi_strerror(-rc));
            return -1;
        }
    }
    return 0;
}

void rv_ofi_recv_post_all(rv_ofi_t *o)
{
    for (unsigned i = 0; i < o->nregions; i++) {
        o->regions[i].ctx.kind = RV_OFI_CTX_RECV;
        o->regions[i].buf = o->rpool + (size_t)i * o->rsize;
        o->regions[i].size = o->rsize;
        rv_ofi_post(o, &o->regions[i]);
    }
}

void rv_ofi_recv_close(rv_ofi_t *o)
{
    if (o->rmr) fi_close(&o->rmr->fid);
    if (o->rpool) munmap(o->rpool, o->rsize * o->nregions);
    free(o->regions);
    o->rmr = NULL;
    o->rpool = NULL;
    o->regions = NULL;
    for (size_t i = 0; i < o->stash_n; i++) free(o->stash[(o->stash_head + i) % o->stash_cap].msg);
    free(o->stash);
    o->stash = NULL;
    o->stash_n = o->stash_cap = 0;
}

/* ---- the stash: Requests that cannot run now ---------------------------------------- */

/* Keeps a copy of a Request that cannot run now, so its region goes back to the provider:
 * replies must always find receive space, or two ranks each waiting to send a Reply would
 * wait for each other forever. Credits bound how many there can be. */
static void rv_ofi_stash_push(rv_ofi_t *o, const void *msg, size_t len, uint32_t src, uint32_t imm)
{
    RV_OFI_COUNT(o, stashed, 1);
    if (o->stash_n == o->stash_cap) { /* rare: grow, keeping order */
        size_t cap = o->stash_cap ? 2 * o->stash_cap : 256;
        rv_ofi_stashed_t *s = malloc(cap * sizeof *s);
        if (!s) rv_fatal("ofi: out of memory deferring %zu requests", o->stash_n);
        for (size_t i = 0; i < o->stash_n; i++) s[i] = o->stash[(o->stash_head + i) % o->stash_cap];
        free(o->stash);
        o->stash = s;
        o->stash_cap = cap;
        o->stash_head = 0;
    }
    void *copy = NULL;
    if (msg) {
        copy = malloc(len);
        if (!copy) rv_fatal("ofi: out of memory deferring a %zu-byte request", len);
        memcpy(copy, msg, len);
    }
    o->stash[(o->stash_head + o->stash_n++) % o->stash_cap] = (rv_ofi_stashed_t){copy, len, src, imm};
}

/* ---- delivery ------------------------------------------------------------------------- */

void rv_ofi_peer_failed(int err)
{
    switch (err) {
    case FI_ECANCELED: case FI_ENOTCONN: case FI_ECONNRESET: case FI_ECONNREFUSED:
    case FI_ECONNABORTED: case FI_ESHUTDOWN: case FI_EHOSTUNREACH: case FI_ENETUNREACH:
        rv_exit_await_end();
        break;
    default:
        break;
    }
}

static _Noreturn void rv_ofi_cq_error(rv_ofi_t *o, ssize_t rc)
{
    struct fi_cq_err_entry err = {0};
    if (rc == -FI_EAVAIL && fi_cq_readerr(o->cq, &err, 0) == 1) {
        rv_ofi_ctx_t *cx = err.op_context;
        const char *what = !cx ? "a remote operation"
                         : cx->kind == RV_OFI_CTX_SEND ? "a send"
                         : cx->kind == RV_OFI_CTX_RECV ? "a receive"
                         : cx->kind == RV_OFI_CTX_AMO ? "a native atomic"
                         : cx->kind == RV_OFI_CTX_FLUSH ? "a flush read after writes"
                         : ((rv_ofi_rop_t *)cx)->is_get ? "an RDMA read" : "an RDMA write";
        rv_ofi_peer_failed(err.err);
        if (cx && cx->kind == RV_OFI_CTX_RMA)
            rv_fatal("ofi: %s of %zu bytes with rank %u failed: %s (provider: %s)", what,
                     ((rv_ofi_rop_t *)cx)->nbytes, ((rv_ofi_rop_t *)cx)->peer,
                     fi_strerror(err.err),
                     fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
        rv_fatal("ofi: %s failed: %s (provider: %s)", what, fi_strerror(err.err),
                 fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
    }
    rv_fatal("ofi: fi_cq_read failed: %s", fi_strerror((int)-rc));
}

/* Checks the wire header. */
static inline void rv_ofi_parse(const rv_ofi_t *o, const void *msg, size_t len, rv_ofi_hdr_t *h)
{
    if (__builtin_expect(len < sizeof *h || (len & 7), 0))
        rv_fatal("ofi: malformed message of %zu bytes", len);
    memcpy(h, msg, sizeof *h);
    if (__builtin_expect(h->src >= o->size || h->chan > RV_OFI_CTRL || h->pad > 7 ||
                         len < sizeof *h + h->pad, 0))
        rv_fatal("ofi: malformed message of %zu bytes (source %u, channel %u)", len, h->src,
                 h->chan);
}

/* Runs one AM (its header already checked and its credits counted). A Request gets a
 * reserved send buffer for its Reply; its credit is counted consumed. */
static void rv_ofi_run(rv_ofi_t *o, const rv_ofi_hdr_t *h, void *msg, size_t len,
                       rv_ofi_sbuf_t *rb)
{
    void *body = (char *)msg + sizeof *h;
    size_t blen = len - sizeof *h - h->pad;
    if (h->chan == RV_CHAN_REQ) {
        rv_ofi_credit_consume(o, h->src, h->want);
        rv_ofi_sbuf_t *outer = rv_ofi_reply_sbuf;
        rv_ofi_reply_sbuf = rb;
        rv_am_deliver(h->src, RV_CHAN_REQ, body, blen);
        if (rv_ofi_reply_sbuf) rv_ofi_sbuf_put(o, rv_ofi_reply_sbuf); /* no Reply needed it */
        rv_ofi_reply_sbuf = outer;
    } else {
        rv_am_deliver(h->src, h->chan, body, blen);
    }
}

/* One received message: credits first, then run it, stash it, or (control) nothing more.
 * Returns 1 if an AM handler ran. */
static int rv_ofi_handle(rv_ofi_t *o, void *msg, size_t len, int reqs_ok, rv_ofi_region_t *r)
{
    rv_ofi_hdr_t h;
    rv_ofi_parse(o, msg, len, &h);
    if (h.credits) rv_ofi_credit_returned(o, h.src, h.credits, h.lent);
    if (h.chan == RV_OFI_CTRL) {
        if (h.hello) o->hellos++;
        return 0;
    }
    if (h.chan == RV_CHAN_REQ) {
        rv_ofi_sbuf_t *rb = NULL;
        if (!reqs_ok || o->stash_n || !(rb = rv_ofi_sbuf_get(o))) {
            /* keep it for later; its credits are already counted, so not twice */
            rv_ofi_hdr_t *c = msg;
            c->credits = c->lent = 0;
            rv_ofi_stash_push(o, msg, len, h.src, 0);
            return 0;
        }
        r->pending++;
        rv_ofi_run(o, &h, msg, len, rb);
        r->pending--;
        return 1;
    }
    r->pending++;
    rv_ofi_run(o, &h, msg, len, NULL);
    r->pending--;
    return 1;
}

/* Runs the oldest stashed Request if a Reply buffer is free. 1: ran, 0: not now. */
static int rv_ofi_unstash(rv_ofi_t *o)
{
    rv_ofi_stashed_t s = o->stash[o->stash_head];
    rv_ofi_sbuf_t *rb = NULL;
    if (s.msg && !(rb = rv_ofi_sbuf_get(o))) return 0;
    o->stash_head = (o->stash_head + 1) % o->stash_cap;
    o->stash_n--;
    if (!s.msg) {
        rv_am_imm_deliver(s.src, RV_CHAN_REQ, s.imm);
    } else {
        rv_ofi_hdr_t h;
        rv_ofi_parse(o, s.msg, s.len, &h);
        rv_ofi_run(o, &h, s.msg, s.len, rb);
        free(s.msg);
    }
    return 1;
}

int rv_ofi_poll(void *priv, unsigned chan_mask)
{
    rv_ofi_t *o = priv;
    if (rv_ofi_depth == 0) {
        if (pthread_mutex_trylock(&o->plock)) return 0; /* another thread polls */
    }
    rv_ofi_depth++;
    int reqs_ok = (chan_mask & RV_CHAN_MASK(RV_CHAN_REQ)) != 0;
    int n = 0, drained = 0;
    for (int budget = 0; budget < 64; budget++) {
        if (reqs_ok && o->stash_n && rv_ofi_unstash(o)) { /* deferred Requests first, in order */
            n++;
            continue;
        }
        struct fi_cq_data_entry e;
        ssize_t rc = fi_cq_read(o->cq, &e, 1);
        if (rc == -FI_EAGAIN) {
            drained = 1;
            break;
        }
        if (rc < 0) rv_ofi_cq_error(o, rc);
        if (e.flags & FI_REMOTE_WRITE) { /* a put's immediate data: no context */
            if (!(e.flags & FI_REMOTE_CQ_DATA)) continue;
            uint32_t src = (uint32_t)(e.data >> 32), imm = (uint32_t)e.data & 0x7fffffffu;
            unsigned chan = (unsigned)(e.data >> 31) & 1;
            if (src >= o->size) rv_fatal("ofi: remote write data names rank %u of %u", src, o->size);
            RV_OFI_COUNT(o, imm_recv, 1);
            if (chan == RV_CHAN_REQ && (!reqs_ok || o->stash_n)) {
                rv_ofi_stash_push(o, NULL, 0, src, imm);
            } else {
                rv_am_imm_deliver(src, chan, imm);
                n++;
            }
            continue;
        }
        rv_ofi_ctx_t *cx = e.op_context;
        if (!cx) continue;
        if (cx->kind == RV_OFI_CTX_SEND) {
            rv_ofi_sbuf_put(o, (rv_ofi_sbuf_t *)cx);
            continue;
        }
        if (cx->kind == RV_OFI_CTX_RMA) {
            rv_ofi_rma_complete(o, (rv_ofi_rop_t *)cx);
            continue;
        }
        if (cx->kind == RV_OFI_CTX_FLUSH) {
            rv_ofi_flush_complete(o, (rv_ofi_fpeer_t *)cx);
            continue;
        }
        if (cx->kind == RV_OFI_CTX_AMO) {
            rv_ofi_amo_complete(o, (rv_ofi_amo_t *)cx);
            continue;
        }
        if (cx->kind != RV_OFI_CTX_RECV) continue;
        rv_ofi_region_t *r = (rv_ofi_region_t *)cx;
        if ((e.flags & FI_RECV) && e.len) {
            void *msg = o->multi ? e.buf : r->buf;
            /* messages are packed back to back: once the completed ones add up to what
             * the provider carved before its release, none is still arriving */
            size_t end = (size_t)((unsigned char *)msg - r->buf) + e.len;
            r->done += e.len;
            if (end > r->end) r->end = end;
            if (r->released) RV_OFI_COUNT(o, multi_recv_late, 1);
            n += rv_ofi_handle(o, msg, e.len, reqs_ok, r);
        }
        /* the release comes with (rxm: on) the furthest slice, or after every slice */
        if (e.flags & FI_MULTI_RECV) r->extent = r->end;
        if (!o->multi || (e.flags & FI_MULTI_RECV)) r->released = 1;
        rv_ofi_region_check(o, r);
    }
    if (o->fndirty) rv_ofi_flush_issue(o, drained);
    if (o->ndirty) rv_ofi_credit_flush(o);
    if (--rv_ofi_depth == 0) pthread_mutex_unlock(&o->plock);
    return n;
}
