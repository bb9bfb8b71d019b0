/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_msg.c: Active Messages over UCP AM: sends (an immediate eager send for
 * small messages, else from a pre-allocated buffer UCX sends in the background), the receive
 * callback (which only queues: handlers never run inside UCX's progress) and the poll that
 * progresses the worker and delivers the queued messages of the channels it may run. */
#include "transport/ucx/ucx_int.h"
#include "core/core.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* UCP header, up to 8 bytes of padding (a reservation's payload is 16-byte aligned), message */
#define RV_UCX_SBUF_SZ ((sizeof(rv_ucx_hdr_t) + 8 + RV_UCX_MAX_MSG + 63) & ~(size_t)63)

static _Thread_local int rv_ucx_depth; /* polls this thread is inside (nested from handlers) */

static rv_ucx_sbuf_t *rv_ucx_sbuf_get(rv_ucx_t *u)
{
    rv_slink_t *l = rv_flist_get(&u->sfree);
    return l ? rv_container_of(l, rv_ucx_sbuf_t, link) : NULL;
}

static void rv_ucx_sbuf_put(rv_ucx_t *u, rv_ucx_sbuf_t *b) { rv_flist_put(&u->sfree, &b->link); }

/* A buffered send completed (inside ucp_worker_progress). */
static void rv_ucx_sent(void *req, ucs_status_t st, void *arg)
{
    rv_ucx_sbuf_t *b = arg;
    rv_ucx_t *u = b->u;
    rv_ucx_hdr_t h;
    memcpy(&h, b->data, sizeof h);
    uint32_t peer = h.pad2;
    rv_ucx_sbuf_put(u, b);
    ucp_request_free(req);
    if (st != UCS_OK && st != UCS_ERR_CANCELED) rv_ucx_peer_lost(u, peer, st, "AM send");
}

/* An eager AM send that UCX completes at once or refuses (no request is kept): 1 sent, 0 no
 * room now; any other failure ends the job, naming the peer. */
static int rv_ucx_send_now(rv_ucx_t *u, gex_Rank_t peer, const void *uh, const void *d, size_t len)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL,
        .flags = UCP_AM_SEND_FLAG_EAGER,
    };
    ucs_status_ptr_t r =
        ucp_am_send_nbx(u->peers[peer].ep, RV_UCX_AM_ID, uh, sizeof(rv_ucx_hdr_t), d, len, &prm);
    if (r == NULL) return 1;
    if (UCS_PTR_IS_ERR(r) && UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE)
        rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "AM send");
    if (UCS_PTR_IS_PTR(r)) ucp_request_free(r); /* not expected with FORCE_IMM_CMPL */
    return 0;
}

/* The AM in send buffer b (UCP header at b->data, the message at d): UCS_PTR_IS_PTR, queued in
 * UCX (the buffer returns in rv_ucx_sent); NULL, sent (the buffer is the caller's again); or
 * an error status. */
static ucs_status_ptr_t rv_ucx_send_sbuf(rv_ucx_t *u, gex_Rank_t peer, rv_ucx_sbuf_t *b,
                                         const void *d, size_t len)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS | UCP_OP_ATTR_FIELD_CALLBACK |
                        UCP_OP_ATTR_FIELD_USER_DATA,
        .flags = UCP_AM_SEND_FLAG_EAGER,
        .cb.send = rv_ucx_sent,
        .user_data = b,
    };
    return ucp_am_send_nbx(u->peers[peer].ep, RV_UCX_AM_ID, b->data, sizeof(rv_ucx_hdr_t), d, len,
                           &prm);
}

/* Sends the UCP AM (header uh, data of len bytes) to peer: immediately from the caller's
 * memory when small (UCX completes it at once or refuses), else copied into a send buffer.
 * 0 or RV_TP_AGAIN. */
static int rv_ucx_am(rv_ucx_t *u, gex_Rank_t peer, rv_ucx_hdr_t *uh, const void *hdr,
                     size_t hdrlen, const void *payload, size_t paylen)
{
    rv_ucx_peer_t *p = &u->peers[peer];
    if (__builtin_expect(p->dead != 0, 0)) rv_ucx_peer_lost(u, peer, p->dead, "AM send");
    size_t len = hdrlen + paylen;
    if (len <= RV_UCX_SMALL) {
        uint64_t tmp[RV_UCX_SMALL / 8];
        unsigned char *d = (unsigned char *)tmp;
        if (hdrlen) memcpy(d, hdr, hdrlen);
        if (paylen) memcpy(d + hdrlen, payload, paylen);
        if (rv_ucx_send_now(u, peer, uh, d, len)) {
            RV_UCX_COUNT(u, sends_imm, 1);
            return 0;
        }
        /* no room for an immediate send now: a buffered one queues inside UCX */
    }
    rv_ucx_sbuf_t *b = rv_ucx_sbuf_get(u);
    if (!b) {
        RV_UCX_COUNT(u, send_again, 1);
        return RV_TP_AGAIN;
    }
    uh->pad2 = peer; /* for the completion's error message */
    memcpy(b->data, uh, sizeof *uh);
    unsigned char *d = b->data + sizeof *uh;
    if (hdrlen) memcpy(d, hdr, hdrlen);
    if (paylen) memcpy(d + hdrlen, payload, paylen);
    ucs_status_ptr_t r = rv_ucx_send_sbuf(u, peer, b, d, len);
    if (UCS_PTR_IS_PTR(r)) {
        RV_UCX_COUNT(u, sends_buf, 1);
        return 0; /* the buffer returns in rv_ucx_sent */
    }
    rv_ucx_sbuf_put(u, b);
    if (UCS_PTR_IS_ERR(r)) {
        if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE) return RV_TP_AGAIN;
        rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "AM send");
    }
    RV_UCX_COUNT(u, sends_buf, 1);
    return 0;
}

/* Takes one Request credit for peer: 1, or 0 when none is left (the peer is behind). */
static int rv_ucx_credit_take(rv_ucx_t *u, rv_ucx_peer_t *p)
{
    int32_t a = __atomic_load_n(&p->avail, __ATOMIC_RELAXED);
    do {
        if (a <= 0) return 0;
    } while (!__atomic_compare_exchange_n(&p->avail, &a, a - 1, 1, __ATOMIC_ACQUIRE,
                                          __ATOMIC_RELAXED));
    (void)u;
    return 1;
}

int rv_ucx_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen)
{
    rv_ucx_t *u = priv;
    rv_ucx_peer_t *p = &u->peers[peer];
    rv_ucx_hdr_t uh = { .src = u->me, .chan = (uint8_t)chan };
    if (chan == RV_CHAN_REQ) {
        if (!rv_ucx_credit_take(u, p)) {
            RV_UCX_COUNT(u, credit_stalls, 1);
            return RV_TP_AGAIN; /* the engine polls (credits come back), or IMMEDIATE: not sent */
        }
        int rc = rv_ucx_am(u, peer, &uh, hdr, hdrlen, payload, paylen);
        if (rc) __atomic_fetch_add(&p->avail, 1, __ATOMIC_RELAXED);
        return rc;
    }
    /* a Reply carries the credits of the Requests delivered from its target */
    uh.imm = __atomic_exchange_n(&p->owed, 0, __ATOMIC_RELAXED);
    int rc = rv_ucx_am(u, peer, &uh, hdr, hdrlen, payload, paylen);
    if (rc && uh.imm) __atomic_fetch_add(&p->owed, uh.imm, __ATOMIC_RELAXED);
    return rc;
}

/* ---- negotiated payload in place: a send buffer handed out by reserve(), sent by commit() */

/* This thread's reservation (the engine holds at most one per thread until commit/unreserve)
 * and where its message starts in the buffer (after the UCP header and padding). */
static _Thread_local rv_ucx_sbuf_t *rv_ucx_resv;
static _Thread_local size_t rv_ucx_resv_off;

void *rv_ucx_reserve(void *priv, gex_Rank_t peer, unsigned chan, size_t hdrlen, size_t maxlen)
{
    rv_ucx_t *u = priv;
    rv_ucx_peer_t *p = &u->peers[peer];
    if (__builtin_expect(p->dead != 0, 0)) rv_ucx_peer_lost(u, peer, p->dead, "AM send");
    if (hdrlen + maxlen > RV_UCX_MAX_MSG) return NULL;
    if (chan == RV_CHAN_REQ && !rv_ucx_credit_take(u, p)) {
        RV_UCX_COUNT(u, credit_stalls, 1);
        return NULL;
    }
    rv_ucx_sbuf_t *b = rv_ucx_sbuf_get(u);
    if (!b) {
        if (chan == RV_CHAN_REQ) __atomic_fetch_add(&p->avail, 1, __ATOMIC_RELAXED);
        RV_UCX_COUNT(u, send_again, 1);
        return NULL;
    }
    /* b->data is 64-byte aligned: pad so that header + hdrlen ends on 16 bytes */
    rv_ucx_resv = b;
    rv_ucx_resv_off = sizeof(rv_ucx_hdr_t) + (16 - hdrlen % 16) % 16;
    return b->data + rv_ucx_resv_off + hdrlen;
}

void rv_ucx_commit(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                   size_t paylen)
{
    rv_ucx_t *u = priv;
    rv_ucx_peer_t *p = &u->peers[peer];
    rv_ucx_sbuf_t *b = rv_ucx_resv;
    unsigned char *d = b->data + rv_ucx_resv_off;
    rv_ucx_resv = NULL;
    rv_ucx_hdr_t uh = { .src = u->me, .chan = (uint8_t)chan, .pad2 = peer };
    if (chan == RV_CHAN_REP) uh.imm = __atomic_exchange_n(&p->owed, 0, __ATOMIC_RELAXED);
    memcpy(b->data, &uh, sizeof uh);
    memcpy(d, hdr, hdrlen);
    size_t len = hdrlen + paylen;
    RV_UCX_COUNT(u, sends_np, 1);
    /* small: UCX sends it now (or refuses), and the buffer is free again */
    if (len <= RV_UCX_SMALL && rv_ucx_send_now(u, peer, b->data, d, len)) {
        rv_ucx_sbuf_put(u, b);
        return;
    }
    for (;;) { /* a commit is never refused: without room in UCX, progress until there is */
        ucs_status_ptr_t r = rv_ucx_send_sbuf(u, peer, b, d, len);
        if (UCS_PTR_IS_PTR(r)) return; /* the buffer returns in rv_ucx_sent */
        if (r == NULL) {
            rv_ucx_sbuf_put(u, b);
            return;
        }
        if (UCS_PTR_STATUS(r) != UCS_ERR_NO_RESOURCE)
            rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "AM send");
        rv_ucx_progress(u);
    }
}

void rv_ucx_unreserve(void *priv, gex_Rank_t peer, unsigned chan)
{
    rv_ucx_t *u = priv;
    rv_ucx_sbuf_put(u, rv_ucx_resv);
    rv_ucx_resv = NULL;
    if (chan == RV_CHAN_REQ) __atomic_fetch_add(&u->peers[peer].avail, 1, __ATOMIC_RELAXED);
}

/* Gives peer its delivered Requests' credits back in a message of their own (the poller, when
 * they reach half the window, or from the retry list). 0, or -1: no room now (kept owed). */
static int rv_ucx_credit_send(rv_ucx_t *u, gex_Rank_t peer)
{
    rv_ucx_peer_t *p = &u->peers[peer];
    uint32_t n = __atomic_exchange_n(&p->owed, 0, __ATOMIC_RELAXED);
    if (!n) return 0;
    rv_ucx_hdr_t uh = { .src = u->me, .chan = RV_UCX_CREDIT, .imm = n };
    if (rv_ucx_am(u, peer, &uh, NULL, 0, NULL, 0) != 0) {
        __atomic_fetch_add(&p->owed, n, __ATOMIC_RELAXED);
        return -1;
    }
    RV_UCX_COUNT(u, credit_msgs, 1);
    return 0;
}

/* A Request from src was delivered: its credit is owed; given back at half the window (sooner
 * on a Reply). A credit message with no room goes on the retry list for the next polls. */
static void rv_ucx_credit_owe(rv_ucx_t *u, uint32_t src)
{
    rv_ucx_peer_t *p = &u->peers[src];
    if (__atomic_add_fetch(&p->owed, 1, __ATOMIC_RELAXED) < u->credits0 / 2 || p->retry) return;
    if (rv_ucx_credit_send(u, src) != 0) {
        p->retry = 1;
        u->cretry[u->ncretry++] = src;
    }
}

static void rv_ucx_credit_retry(rv_ucx_t *u)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < u->ncretry; i++) {
        uint32_t r = u->cretry[i];
        if (rv_ucx_credit_send(u, r) == 0) u->peers[r].retry = 0;
        else u->cretry[k++] = r;
    }
    u->ncretry = k;
}

int rv_ucx_send_imm(rv_ucx_t *u, gex_Rank_t peer, unsigned chan, uint32_t imm)
{
    rv_ucx_hdr_t uh = { .src = u->me, .chan = (uint8_t)(chan | RV_UCX_IMM), .imm = imm };
    int rc = rv_ucx_am(u, peer, &uh, NULL, 0, NULL, 0);
    if (!rc) RV_UCX_COUNT(u, imm_sent, 1);
    return rc;
}

static int rv_ucx_q_push(rv_ucx_q_t *q, const rv_ucx_msg_t *m)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        rv_ucx_msg_t *n = malloc(cap * sizeof *n);
        if (!n) return -1;
        for (size_t i = 0; i < q->n; i++) n[i] = q->m[(q->head + i) % q->cap];
        free(q->m);
        q->m = n;
        q->cap = cap;
        q->head = 0;
    }
    q->m[(q->head + q->n) % q->cap] = *m;
    __atomic_store_n(&q->n, q->n + 1, __ATOMIC_RELAXED); /* read without the lock by deliver */
    return 0;
}

/* UCX hands over one message (inside ucp_worker_progress, on the polling thread). It is
 * queued on its channel: its data kept where UCX put it when that is 8-byte aligned (released
 * after delivery), else copied. */
static ucs_status_t rv_ucx_am_recv(void *arg, const void *header, size_t hlen, void *data,
                                   size_t len, const ucp_am_recv_param_t *param)
{
    rv_ucx_t *u = arg;
    rv_ucx_hdr_t h;
    if (hlen != sizeof h) rv_fatal("ucx: a message arrived with a %zu-byte header", hlen);
    memcpy(&h, header, sizeof h);
    if (h.src >= u->size || ((h.chan & ~RV_UCX_IMM) > RV_CHAN_REP && h.chan != RV_UCX_CREDIT))
        rv_fatal("ucx: a message claims rank %u of %u, channel %u", h.src, u->size, h.chan);
    if (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)
        rv_fatal("ucx: a %zu-byte message from rank %u arrived by rendezvous (Rivet sends eager "
                 "only)", len, h.src);
    if (len > RV_UCX_MAX_MSG) rv_fatal("ucx: a %zu-byte message from rank %u", len, h.src);
    if (h.chan == RV_CHAN_REP && h.imm) /* credits back on a Reply (it is queued below) */
        __atomic_fetch_add(&u->peers[h.src].avail, (int32_t)h.imm, __ATOMIC_RELAXED);
    if (h.chan == RV_UCX_CREDIT) {
        __atomic_fetch_add(&u->peers[h.src].avail, (int32_t)h.imm, __ATOMIC_RELAXED);
        return UCS_OK;
    }
    rv_ucx_msg_t m = { .src = h.src, .len = len, .imm = h.imm,
                       .is_imm = (h.chan & RV_UCX_IMM) != 0 };
    ucs_status_t ret = UCS_OK;
    if (m.is_imm) {
        /* nothing to keep */
    } else if ((param->recv_attr & UCP_AM_RECV_ATTR_FLAG_DATA) && !((uintptr_t)data & 7)) {
        m.data = data;
        ret = UCS_INPROGRESS;
        RV_UCX_COUNT(u, recv_held, 1);
    } else {
        m.data = malloc(len ? len : 8);
        if (!m.data) rv_fatal("ucx: out of memory receiving a %zu-byte message", len);
        memcpy(m.data, data, len);
        m.copied = 1;
        RV_UCX_COUNT(u, recv_copied, 1);
    }
    rv_spin_lock(&u->qlock);
    rv_ucx_q_t *q = &u->q[h.chan & 1];
    int qrc = rv_ucx_q_push(q, &m);
    size_t depth = q->n;
    rv_spin_unlock(&u->qlock);
    if ((h.chan & 1) == RV_CHAN_REQ && depth > u->st.reqq_max) u->st.reqq_max = depth;
    if (qrc != 0) rv_fatal("ucx: out of memory queueing a message");
    return ret;
}

int rv_ucx_msg_open(rv_ucx_t *u)
{
    size_t slen = RV_UCX_SBUF_SZ * RV_UCX_NSEND;
    u->spool = mmap(NULL, slen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (u->spool == MAP_FAILED) {
        u->spool = NULL;
        rv_warn("ucx: cannot allocate %zu bytes of send buffers", slen);
        return -1;
    }
    for (int i = RV_UCX_NSEND - 1; i >= 0; i--) {
        u->sbufs[i].u = u;
        u->sbufs[i].data = u->spool + (size_t)i * RV_UCX_SBUF_SZ;
        rv_flist_put(&u->sfree, &u->sbufs[i].link);
    }
    u->credits0 = (uint32_t)rv_cfg.UCX_CREDITS;
    u->cretry = calloc(u->size, sizeof *u->cretry);
    if (!u->cretry) return -1;
    for (uint32_t r = 0; r < u->size; r++) u->peers[r].avail = (int32_t)u->credits0;
    ucp_am_handler_param_t hp = {
        .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_CB |
                      UCP_AM_HANDLER_PARAM_FIELD_ARG | UCP_AM_HANDLER_PARAM_FIELD_FLAGS,
        .id = RV_UCX_AM_ID,
        .flags = UCP_AM_FLAG_PERSISTENT_DATA,
        .cb = rv_ucx_am_recv,
        .arg = u,
    };
    ucs_status_t st = ucp_worker_set_am_recv_handler(u->worker, &hp);
    if (st != UCS_OK) {
        rv_warn("ucx: ucp_worker_set_am_recv_handler failed: %s", ucs_status_string(st));
        return -1;
    }
    return 0;
}

static void rv_ucx_msg_release(rv_ucx_t *u, rv_ucx_msg_t *m)
{
    if (m->copied) free(m->data);
    else if (m->data) ucp_am_data_release(u->worker, m->data);
}

void rv_ucx_msg_close(rv_ucx_t *u)
{
    for (int c = 0; c < 2; c++) {
        rv_ucx_q_t *q = &u->q[c];
        for (size_t i = 0; i < q->n; i++) {
            rv_ucx_msg_t *m = &q->m[(q->head + i) % q->cap];
            if (m->copied) free(m->data); /* UCX's own go with the worker */
        }
        free(q->m);
        memset(q, 0, sizeof *q);
    }
    free(u->cretry);
    u->cretry = NULL;
    u->ncretry = 0;
    if (u->spool) munmap(u->spool, RV_UCX_SBUF_SZ * RV_UCX_NSEND);
    u->spool = NULL;
}

/* Delivers up to 'budget' queued messages of channel c; returns how many. */
static int rv_ucx_deliver(rv_ucx_t *u, unsigned c, int budget)
{
    rv_ucx_q_t *q = &u->q[c];
    int n = 0;
    /* nothing queued (the common idle poll): no lock; a message queued meanwhile by another
     * thread is delivered by the next poll */
    if (!__atomic_load_n(&q->n, __ATOMIC_RELAXED)) return 0;
    while (n < budget) {
        rv_spin_lock(&u->qlock);
        if (!q->n) {
            rv_spin_unlock(&u->qlock);
            break;
        }
        rv_ucx_msg_t m = q->m[q->head]; /* popped before the handler runs: it may poll */
        q->head = (q->head + 1) % q->cap;
        __atomic_store_n(&q->n, q->n - 1, __ATOMIC_RELAXED);
        rv_spin_unlock(&u->qlock);
        if (m.is_imm) rv_am_imm_deliver(m.src, c, m.imm);
        else rv_am_deliver(m.src, c, m.data, m.len);
        rv_ucx_msg_release(u, &m);
        if (c == RV_CHAN_REQ && !m.is_imm) rv_ucx_credit_owe(u, m.src);
        n++;
    }
    return n;
}

int rv_ucx_poll(void *priv, unsigned chan_mask)
{
    rv_ucx_t *u = priv;
    if (rv_ucx_depth == 0 && pthread_mutex_trylock(&u->plock)) return 0; /* another thread polls */
    rv_ucx_depth++;
    for (int i = 0; i < 4 && ucp_worker_progress(u->worker); i++) {}
    int n = 0;
    if (__builtin_expect(u->ncretry != 0, 0)) rv_ucx_credit_retry(u);
    if (u->rma) n += rv_ucx_rma_poll(u);
    n += rv_ucx_deliver(u, RV_CHAN_REP, 64);
    if (chan_mask & RV_CHAN_MASK(RV_CHAN_REQ)) n += rv_ucx_deliver(u, RV_CHAN_REQ, 64);
    if (--rv_ucx_depth == 0) pthread_mutex_unlock(&u->plock);
    return n;
}
