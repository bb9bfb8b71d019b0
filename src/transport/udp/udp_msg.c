/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/udp/udp_msg.c: the udp transport's messages: send (fragment into datagrams of a
 * (peer, channel) stream's window), poll (recvmmsg, acknowledgements, in-order delivery,
 * retransmission timers). One lock guards the state; it is released around each delivery, and a
 * stream being delivered is marked busy so it stays in order when a handler polls again or
 * another thread polls. */
#include "transport/udp/udp_int.h"
#include "core/config.h"
#include "core/error.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#define RV_UDP_SEQ_LT(a, b) ((int32_t)((a) - (b)) < 0)
#define RV_UDP_DELIVER_BUDGET 16 /* messages per stream per poll: fairness between senders */

uint64_t rv_udp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---- the test aids: deterministic loss, duplication and reordering --------------------- */
static unsigned rv_udp_rand(rv_udp_t *u)
{
    u->rng = u->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(u->rng >> 33) % 1000u;
}

static void rv_udp_raw_send(rv_udp_t *u, const void *d, size_t len, const struct sockaddr_in *to)
{
    /* EAGAIN (socket buffer full) and other errors: the datagram counts as lost, retransmission
     * recovers it */
    (void)sendto(u->fd, d, len, 0, (const struct sockaddr *)to, sizeof *to);
}

/* Sends one datagram (under the lock), through the test aids when they are on. */
static void rv_udp_out(rv_udp_t *u, const void *d, size_t len, const struct sockaddr_in *to)
{
    if (!(u->drop | u->dup | u->reorder)) {
        rv_udp_raw_send(u, d, len, to);
        return;
    }
    if (u->drop && rv_udp_rand(u) < u->drop) return;
    if (u->reorder && !u->held_len && rv_udp_rand(u) < u->reorder) {
        memcpy(u->held, d, len);
        u->held_len = len;
        u->held_to = *to;
        return;
    }
    rv_udp_raw_send(u, d, len, to);
    if (u->dup && rv_udp_rand(u) < u->dup) rv_udp_raw_send(u, d, len, to);
    if (u->held_len) {
        rv_udp_raw_send(u, u->held, u->held_len, &u->held_to);
        u->held_len = 0;
    }
}

/* ---- bookkeeping ---------------------------------------------------------------------- */
static void rv_udp_fill_acks(rv_udp_t *u, gex_Rank_t peer, rv_udp_hdr_t *h)
{
    rv_udp_peer_t *p = &u->peers[peer];
    for (int c = 0; c < 2; c++) {
        h->ack_rcv[c] = p->rx[c].contig;
        h->ack_free[c] = p->rx[c].cons;
    }
}

/* Data from peer wants acknowledging: a standalone ack follows unless a datagram of ours
 * carries it first (ack_due 1: wanted, 2: carried, still on the list). */
static void rv_udp_ack_due(rv_udp_t *u, gex_Rank_t peer, uint64_t now)
{
    rv_udp_peer_t *p = &u->peers[peer];
    if (!p->ack_due) u->acks[u->nacks++] = peer;
    if (p->ack_due != 1) {
        p->ack_since = now;
        p->ack_count = 0;
    }
    p->ack_due = 1;
    p->ack_count++;
}

static void rv_udp_ready(rv_udp_t *u, gex_Rank_t peer, unsigned chan)
{
    rv_udp_rx_t *rx = &u->peers[peer].rx[chan];
    if (rx->listed || rx->busy) return;
    rx->listed = 1;
    u->ready[chan][u->nready[chan]++] = peer;
}

static void rv_udp_activate(rv_udp_t *u, gex_Rank_t peer)
{
    if (u->is_active[peer]) return;
    u->is_active[peer] = 1;
    u->active[u->nactive++] = peer;
}

static int rv_udp_alloc_ring(rv_udp_t *u, unsigned char **buf, uint32_t **len, uint64_t **sent)
{
    *buf = aligned_alloc(64, (size_t)u->win * u->dgram);
    *len = calloc(u->win, sizeof **len);
    if (sent) *sent = calloc(u->win, sizeof **sent);
    return *buf && *len && (!sent || *sent) ? 0 : -1;
}

/* ---- send ------------------------------------------------------------------------------ */
int rv_udp_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen)
{
    rv_udp_t *u = priv;
    size_t total = hdrlen + paylen;
    if (total > RV_UDP_MAX_MSG) rv_fatal("udp: a %zu-byte message is above max_msg", total);
    uint32_t nfrag = total ? (uint32_t)((total + u->frag - 1) / u->frag) : 1;
    rv_udp_peer_t *p = &u->peers[peer];
    rv_udp_tx_t *tx = &p->tx[chan];
    pthread_mutex_lock(&u->lock);
    if (!tx->buf && rv_udp_alloc_ring(u, &tx->buf, &tx->len, &tx->sent) != 0)
        rv_fatal("udp: out of memory for the send window to rank %u", (unsigned)peer);
    if ((uint32_t)(tx->next + nfrag - tx->freed) > u->win) {
        pthread_mutex_unlock(&u->lock);
        return RV_TP_AGAIN;
    }
    uint64_t now = rv_udp_now();
    if (tx->next == tx->freed) tx->progress = now; /* the stream was idle */
    size_t off = 0;
    for (uint32_t f = 0; f < nfrag; f++) {
        uint32_t seq = tx->next++;
        uint32_t slot = seq % u->win;
        unsigned char *d = tx->buf + (size_t)slot * u->dgram;
        rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)d;
        size_t n = total - off < u->frag ? total - off : u->frag;
        *h = (rv_udp_hdr_t){ .token = u->token, .src = u->me, .kind = RV_UDP_DATA,
                             .chan = (uint8_t)chan, .seq = seq, .msglen = (uint32_t)total };
        h->flags = (uint8_t)((f == 0 ? RV_UDP_FIRST : 0) | (f == nfrag - 1 ? RV_UDP_LAST : 0));
        rv_udp_fill_acks(u, peer, h);
        /* copy [off, off + n) of hdr ++ payload */
        unsigned char *dst = d + sizeof *h;
        size_t o = off, left = n;
        if (o < hdrlen) {
            size_t k = hdrlen - o < left ? hdrlen - o : left;
            memcpy(dst, (const unsigned char *)hdr + o, k);
            dst += k;
            o += k;
            left -= k;
        }
        if (left) memcpy(dst, (const unsigned char *)payload + (o - hdrlen), left);
        tx->len[slot] = (uint32_t)(sizeof *h + n);
        tx->sent[slot] = now;
        rv_udp_out(u, d, tx->len[slot], &p->addr);
        off += n;
    }
    if (p->ack_due) p->ack_due = 2; /* these datagrams carried the acknowledgements */
    rv_udp_activate(u, peer);
    pthread_mutex_unlock(&u->lock);
    return 0;
}

/* ---- receive --------------------------------------------------------------------------- */
/* The peer acknowledged our stream to it on channel c. */
static void rv_udp_take_acks(rv_udp_peer_t *p, const rv_udp_hdr_t *h, uint64_t now)
{
    for (int c = 0; c < 2; c++) {
        rv_udp_tx_t *tx = &p->tx[c];
        uint32_t r = h->ack_rcv[c], f = h->ack_free[c];
        /* ignore what is stale or beyond what we sent */
        if (RV_UDP_SEQ_LT(tx->rcv, r) && !RV_UDP_SEQ_LT(tx->next, r)) {
            tx->rcv = r;
            tx->progress = now;
        }
        if (RV_UDP_SEQ_LT(tx->freed, f) && !RV_UDP_SEQ_LT(tx->next, f)) {
            tx->freed = f;
            tx->progress = now;
        }
    }
}

/* One datagram arrived from 'from': checks it, takes its acknowledgements, stores its data. */
static void rv_udp_arrive(rv_udp_t *u, unsigned char *d, size_t len, const struct sockaddr_in *from,
                          uint64_t now)
{
    const rv_udp_hdr_t *h = (const rv_udp_hdr_t *)(void *)d;
    if (len < sizeof *h || h->token != u->token || h->src >= u->size) return;
    rv_udp_peer_t *p = &u->peers[h->src];
    if (from->sin_addr.s_addr != p->addr.sin_addr.s_addr || from->sin_port != p->addr.sin_port)
        return;
    rv_udp_take_acks(p, h, now);
    if (h->kind != RV_UDP_DATA) return;
    if (h->chan > 1 || h->msglen > RV_UDP_MAX_MSG || len > u->dgram) return;
    rv_udp_rx_t *rx = &p->rx[h->chan];
    uint32_t seq = h->seq;
    rv_udp_ack_due(u, h->src, now);
    if (RV_UDP_SEQ_LT(seq, rx->cons) || !RV_UDP_SEQ_LT(seq, rx->cons + u->win))
        return; /* a duplicate, or beyond the window (a confused sender): acknowledge again */
    if (!rx->buf && rv_udp_alloc_ring(u, &rx->buf, &rx->len, NULL) != 0)
        rv_fatal("udp: out of memory for the receive window from rank %u", (unsigned)h->src);
    uint32_t slot = seq % u->win;
    if (rx->len[slot]) return; /* a duplicate */
    memcpy(rx->buf + (size_t)slot * u->dgram, d, len);
    rx->len[slot] = (uint32_t)len;
    while (RV_UDP_SEQ_LT(rx->contig, rx->cons + u->win) && rx->len[rx->contig % u->win])
        rx->contig++;
    if (rx->len[rx->cons % u->win]) rv_udp_ready(u, h->src, h->chan);
}

/* Receives what the socket holds, one batch. Returns the number of datagrams. */
static int rv_udp_recv_batch(rv_udp_t *u, uint64_t now)
{
    struct mmsghdr mm[RV_UDP_BATCH];
    struct iovec iov[RV_UDP_BATCH];
    struct sockaddr_in from[RV_UDP_BATCH];
    for (int i = 0; i < RV_UDP_BATCH; i++) {
        iov[i] = (struct iovec){ u->rbuf + (size_t)i * u->dgram, u->dgram };
        mm[i].msg_hdr = (struct msghdr){ .msg_name = &from[i], .msg_namelen = sizeof from[i],
                                         .msg_iov = &iov[i], .msg_iovlen = 1 };
        mm[i].msg_len = 0;
    }
    int n = recvmmsg(u->fd, mm, RV_UDP_BATCH, MSG_DONTWAIT, NULL);
    if (n <= 0) return 0;
    for (int i = 0; i < n; i++)
        if (!(mm[i].msg_hdr.msg_flags & MSG_TRUNC) && mm[i].msg_hdr.msg_namelen == sizeof from[i])
            rv_udp_arrive(u, iov[i].iov_base, mm[i].msg_len, &from[i], now);
    return n;
}

/* ---- delivery -------------------------------------------------------------------------- */
/* The message at rx->cons, if it is complete: its bytes and length, and how many datagrams it
 * spans. Fragments are copied into the stream's reassembly buffer. */
static void *rv_udp_take_msg(rv_udp_t *u, rv_udp_rx_t *rx, size_t *len, uint32_t *nfrag)
{
    uint32_t slot = rx->cons % u->win;
    if (!rx->buf || !rx->len[slot]) return NULL;
    unsigned char *d = rx->buf + (size_t)slot * u->dgram;
    const rv_udp_hdr_t *h = (const rv_udp_hdr_t *)(void *)d;
    if ((h->flags & (RV_UDP_FIRST | RV_UDP_LAST)) == (RV_UDP_FIRST | RV_UDP_LAST)) {
        *len = rx->len[slot] - sizeof *h;
        *nfrag = 1;
        return d + sizeof *h;
    }
    if (!(h->flags & RV_UDP_FIRST)) rv_fatal("udp: a stream is out of step (no first fragment)");
    uint32_t k = 0, have = rx->contig - rx->cons;
    for (uint32_t i = 1; i < have && !k; i++) {
        const rv_udp_hdr_t *f =
            (const rv_udp_hdr_t *)(void *)(rx->buf + (size_t)((rx->cons + i) % u->win) * u->dgram);
        if (f->flags & RV_UDP_LAST) k = i + 1;
    }
    if (!k) return NULL; /* not all here yet */
    if (!rx->asm_buf && !(rx->asm_buf = aligned_alloc(64, RV_UDP_MAX_MSG + 64)))
        rv_fatal("udp: out of memory for reassembly");
    size_t off = 0;
    for (uint32_t i = 0; i < k; i++) {
        uint32_t s = (rx->cons + i) % u->win;
        size_t n = rx->len[s] - sizeof *h;
        if (off + n > RV_UDP_MAX_MSG) rv_fatal("udp: a malformed fragmented message");
        memcpy(rx->asm_buf + off, rx->buf + (size_t)s * u->dgram + sizeof *h, n);
        off += n;
    }
    *len = off;
    *nfrag = k;
    return rx->asm_buf;
}

/* Delivers ready messages of channel c, at most a budget per stream. Called and returns with the
 * lock held; releases it around each rv_am_deliver. */
static int rv_udp_deliver(rv_udp_t *u, unsigned c, uint64_t now)
{
    int delivered = 0;
    uint32_t rounds = u->nready[c];
    while (rounds-- && u->nready[c]) {
        gex_Rank_t peer = u->ready[c][0];
        u->ready[c][0] = u->ready[c][--u->nready[c]];
        rv_udp_rx_t *rx = &u->peers[peer].rx[c];
        rx->listed = 0;
        if (rx->busy) continue;
        rx->busy = 1;
        for (int b = 0; b < RV_UDP_DELIVER_BUDGET; b++) {
            size_t len;
            uint32_t nfrag;
            void *m = rv_udp_take_msg(u, rx, &len, &nfrag);
            if (!m) break;
            pthread_mutex_unlock(&u->lock);
            rv_am_deliver(peer, c, m, len);
            pthread_mutex_lock(&u->lock);
            for (uint32_t i = 0; i < nfrag; i++) rx->len[(rx->cons + i) % u->win] = 0;
            rx->cons += nfrag;
            rv_udp_ack_due(u, peer, now);
            delivered++;
        }
        rx->busy = 0;
        if (rx->buf && rx->len[rx->cons % u->win]) rv_udp_ready(u, peer, c);
    }
    return delivered;
}

/* ---- acknowledgements and timers --------------------------------------------------------- */
/* Standalone acknowledgements to peers whose data no datagram of ours has acknowledged yet,
 * once a quarter window of datagrams or the ack delay has passed ('all': every one now). */
static void rv_udp_flush_acks(rv_udp_t *u, uint64_t now, int all)
{
    for (uint32_t i = 0; i < u->nacks;) {
        gex_Rank_t peer = u->acks[i];
        rv_udp_peer_t *p = &u->peers[peer];
        if (p->ack_due == 1 && !all && p->ack_count < u->win / 4 &&
            (int64_t)(now - p->ack_since) < (int64_t)u->ack_ns) {
            i++;
            continue;
        }
        if (p->ack_due == 1) {
            rv_udp_hdr_t h = { .token = u->token, .src = u->me, .kind = RV_UDP_ACK };
            rv_udp_fill_acks(u, peer, &h);
            rv_udp_out(u, &h, sizeof h, &p->addr);
        }
        p->ack_due = 0;
        u->acks[i] = u->acks[--u->nacks];
    }
}

/* Retransmits what timed out, probes windows a peer keeps closed, ends the job when a peer
 * stopped answering. */
static void rv_udp_timers(rv_udp_t *u, uint64_t now)
{
    if (u->held_len) {
        rv_udp_raw_send(u, u->held, u->held_len, &u->held_to);
        u->held_len = 0;
    }
    for (uint32_t i = 0; i < u->nactive;) {
        gex_Rank_t peer = u->active[i];
        rv_udp_peer_t *p = &u->peers[peer];
        int busy = 0;
        for (int c = 0; c < 2; c++) {
            rv_udp_tx_t *tx = &p->tx[c];
            if (tx->next == tx->freed) continue;
            busy = 1;
            if ((int64_t)(now - tx->progress) > (int64_t)u->dead_ns) {
                for (int cc = 0; cc < 2; cc++)
                    rv_warn("udp: to rank %u chan %d: next %u acknowledged %u freed %u; from it: "
                            "delivered %u arrived %u", (unsigned)peer, cc, p->tx[cc].next,
                            p->tx[cc].rcv, p->tx[cc].freed, p->rx[cc].cons, p->rx[cc].contig);
                rv_fatal("udp: rank %u unreachable: no acknowledgement for %u s "
                         "(RIVET_UDP_PEER_TIMEOUT)", (unsigned)peer,
                         (unsigned)rv_cfg.UDP_PEER_TIMEOUT);
            }
            int resent = 0;
            for (uint32_t s = tx->rcv; s != tx->next; s++) {
                uint32_t slot = s % u->win;
                if ((int64_t)(now - tx->sent[slot]) < (int64_t)u->rto_ns) continue;
                rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)(tx->buf + (size_t)slot * u->dgram);
                rv_udp_fill_acks(u, peer, h);
                rv_udp_out(u, h, tx->len[slot], &p->addr);
                tx->sent[slot] = now;
                resent = 1;
            }
            /* all arrived but not all freed: probe, so a lost window update is sent again */
            if (!resent && tx->rcv == tx->next && (int64_t)(now - tx->probe) > (int64_t)u->rto_ns) {
                uint32_t slot = (tx->next - 1) % u->win;
                rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)(tx->buf + (size_t)slot * u->dgram);
                rv_udp_fill_acks(u, peer, h);
                rv_udp_out(u, h, tx->len[slot], &p->addr);
                tx->probe = now;
            }
        }
        if (!busy) {
            u->is_active[peer] = 0;
            u->active[i] = u->active[--u->nactive];
        } else {
            i++;
        }
    }
}

int rv_udp_poll(void *priv, unsigned chan_mask)
{
    rv_udp_t *u = priv;
    if (pthread_mutex_trylock(&u->lock) != 0) return 0; /* another thread polls */
    uint64_t now = rv_udp_now();
    for (int i = 0; i < 4 && rv_udp_recv_batch(u, now) == RV_UDP_BATCH; i++) {}
    int n = 0;
    for (unsigned c = 0; c < 2; c++)
        if (chan_mask & RV_CHAN_MASK(c)) n += rv_udp_deliver(u, c, now);
    now = rv_udp_now(); /* handlers (or other threads) sent meanwhile: no times in the future */
    if (now - u->last_timer > u->rto_ns / 4) {
        rv_udp_timers(u, now);
        u->last_timer = now;
    }
    rv_udp_flush_acks(u, now, 0);
    pthread_mutex_unlock(&u->lock);
    return n;
}

/* Before the socket closes (at close, or at process exit: the last messages, e.g. a final
 * barrier's, must not be lost with the process): until every datagram sent has arrived (or
 * 3 s passed), take acknowledgements, retransmit, and acknowledge what arrives (delivering
 * nothing). */
static rv_udp_t *rv_udp_open_one; /* the open transport, for the exit handler */

static void rv_udp_linger(rv_udp_t *u)
{
    if (!u->peers || !u->rbuf || u->lingered) return;
    u->lingered = 1;
    uint64_t start = rv_udp_now();
    pthread_mutex_lock(&u->lock);
    for (;;) {
        int pending = 0;
        for (uint32_t i = 0; i < u->nactive && !pending; i++)
            for (int c = 0; c < 2; c++) {
                rv_udp_tx_t *tx = &u->peers[u->active[i]].tx[c];
                if (tx->rcv != tx->next) pending = 1;
            }
        uint64_t now = rv_udp_now();
        if (!pending || now - start > 3000000000ull) break;
        while (rv_udp_recv_batch(u, now) == RV_UDP_BATCH) {}
        if (now - u->last_timer > u->rto_ns / 4) {
            u->dead_ns = ~0ull >> 1; /* a peer gone already is no error now */
            rv_udp_timers(u, now);
            u->last_timer = now;
        }
        rv_udp_flush_acks(u, now, 1);
        struct timespec ts = { 0, 50000 };
        nanosleep(&ts, NULL);
    }
    rv_udp_flush_acks(u, rv_udp_now(), 1);
    pthread_mutex_unlock(&u->lock);
}

/* ---- set-up ------------------------------------------------------------------------------ */
static void rv_udp_atexit(void)
{
    if (rv_udp_open_one) rv_udp_linger(rv_udp_open_one);
}

int rv_udp_msg_open(rv_udp_t *u)
{
    static int registered;
    if (!registered++) atexit(rv_udp_atexit);
    rv_udp_open_one = u;
    u->dgram = ((size_t)rv_cfg.UDP_DGRAM) & ~(size_t)7;
    u->frag = u->dgram - sizeof(rv_udp_hdr_t);
    uint32_t nfrag = (uint32_t)((RV_UDP_MAX_MSG + u->frag - 1) / u->frag);
    u->win = (uint32_t)rv_cfg.UDP_WINDOW;
    if (u->win < 2 * nfrag) u->win = 2 * nfrag;
    u->rto_ns = (uint64_t)rv_cfg.UDP_RTO_US * 1000u;
    u->dead_ns = (uint64_t)rv_cfg.UDP_PEER_TIMEOUT * 1000000000ull;
    u->ack_ns = u->rto_ns / 10;
    u->drop = (unsigned)rv_cfg.UDP_DROP_PERMILLE;
    u->dup = (unsigned)rv_cfg.UDP_DUP_PERMILLE;
    u->reorder = (unsigned)rv_cfg.UDP_REORDER_PERMILLE;
    u->rng = 0x9e3779b97f4a7c15ull * (u->me + 1);
    u->ready[0] = calloc(u->size, sizeof(uint32_t));
    u->ready[1] = calloc(u->size, sizeof(uint32_t));
    u->acks = calloc(u->size, sizeof(uint32_t));
    u->active = calloc(u->size, sizeof(uint32_t));
    u->is_active = calloc(u->size, 1);
    u->rbuf = aligned_alloc(64, (size_t)RV_UDP_BATCH * u->dgram);
    u->held = malloc(u->dgram);
    pthread_mutex_init(&u->lock, NULL);
    return u->ready[0] && u->ready[1] && u->acks && u->active && u->is_active && u->rbuf &&
           u->held ? 0 : -1;
}

void rv_udp_msg_close(rv_udp_t *u)
{
    if (u->fd >= 0) rv_udp_linger(u);
    if (rv_udp_open_one == u) rv_udp_open_one = NULL;
    if (u->peers)
        for (uint32_t r = 0; r < u->size; r++)
            for (int c = 0; c < 2; c++) {
                rv_udp_peer_t *p = &u->peers[r];
                free(p->tx[c].buf);
                free(p->tx[c].len);
                free(p->tx[c].sent);
                free(p->rx[c].buf);
                free(p->rx[c].len);
                free(p->rx[c].asm_buf);
            }
    free(u->ready[0]);
    free(u->ready[1]);
    free(u->acks);
    free(u->active);
    free(u->is_active);
    free(u->rbuf);
    free(u->held);
    u->ready[0] = u->ready[1] = u->acks = u->active = NULL;
    u->is_active = NULL;
    u->rbuf = u->held = NULL;
}
