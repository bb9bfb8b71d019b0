/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/udp/udp_msg.c: the udp transport's messages: send (fragment into datagrams of a
 * (peer, channel) stream's window; sendmmsg batches), poll (recvmmsg, cumulative and selective
 * acknowledgements, in-order delivery, retransmission timers from the measured round trip),
 * idle (a blocking wait when a wait loop has nothing to do). One lock guards the state; it is released around each delivery, and a
 * stream being delivered is marked busy so it stays in order when a handler polls again or
 * another thread polls. */
#include "transport/udp/udp_int.h"
#include "core/config.h"
#include "core/error.h"

#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <unistd.h>
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

/* ---- the out queue: datagrams leave in batches (sendmmsg) --------------------------------- */
/* The send socket connected to peer p (under the lock), made at the first datagram sent to it
 * alone: bound to the port every datagram of ours leaves from (SO_REUSEADDR), so the peer's
 * check of the source holds. -1 when there is none (through the relay, beyond
 * RV_UDP_CONN_MAX peers, or it failed): the unconnected socket sends then. */
static int rv_udp_conn(rv_udp_t *u, rv_udp_peer_t *p)
{
    if (p->cfd != -1) return p->cfd;
    p->cfd = -2;
    if (u->sfd == u->fd || u->nconn >= RV_UDP_CONN_MAX) return -1;
    int one = 1, big = 8 << 20;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
        bind(fd, (const struct sockaddr *)&u->sbind, sizeof u->sbind) != 0 ||
        connect(fd, (const struct sockaddr *)&p->addr, sizeof p->addr) != 0) {
        close(fd);
        return -1;
    }
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    u->nconn++;
    return p->cfd = fd;
}

/* Sends what is queued (under the lock). EAGAIN (socket buffer full) and other errors: the
 * datagrams count as lost, retransmission recovers them. */
static void rv_udp_flush_out(rv_udp_t *u)
{
    uint32_t off = 0;
    if (u->noq == 1) { /* one datagram (a reply, an ack): send on the peer's connected socket
                        * (or sendto) costs less than sendmmsg */
        const struct msghdr *m = &u->oq[0].msg_hdr;
        rv_udp_peer_t *p = (rv_udp_peer_t *)(void *)((char *)m->msg_name -
                                                     offsetof(rv_udp_peer_t, addr));
        int cfd = rv_udp_conn(u, p);
        ssize_t r;
        if (m->msg_iovlen == 1) {
            do r = cfd >= 0 ? send(cfd, m->msg_iov->iov_base, m->msg_iov->iov_len, 0)
                            : sendto(u->sfd, m->msg_iov->iov_base, m->msg_iov->iov_len, 0,
                                     (const struct sockaddr *)m->msg_name, m->msg_namelen);
            while (r < 0 && errno == EINTR);
        } else { /* a payload by reference: header and payload gathered */
            struct msghdr mh = *m;
            if (cfd >= 0) {
                mh.msg_name = NULL;
                mh.msg_namelen = 0;
            }
            do r = sendmsg(cfd >= 0 ? cfd : u->sfd, &mh, 0);
            while (r < 0 && errno == EINTR);
        }
        u->st.sendmmsg++;
        if (r < 0 && (errno == EAGAIN || errno == ENOBUFS)) u->st.send_full++;
        off = 1;
    }
    while (off < u->noq) {
        int n = sendmmsg(u->sfd, u->oq + off, u->noq - off, 0);
        u->st.sendmmsg++;
        if (n > 0) {
            off += (uint32_t)n;
        } else if (n < 0 && errno == EINTR) {
            continue;
        } else if (n < 0 && (errno == EAGAIN || errno == ENOBUFS)) {
            u->st.send_full += u->noq - off;
            break;
        } else {
            off++; /* this one failed (e.g. an unreachable address): skip it */
        }
    }
    u->noq = 0;
    u->nack_buf = 0;
    u->held_queued = 0;
}

/* Queues a datagram: len bytes at d, then extlen at ext (a payload by reference; NULL: none). */
static void rv_udp_push(rv_udp_t *u, const void *d, size_t len, const void *ext, size_t extlen,
                        gex_Rank_t to)
{
    uint32_t i = u->noq++;
    struct iovec *v = &u->oiov[2 * i];
    v[0] = (struct iovec){ (void *)(uintptr_t)d, len };
    v[1] = (struct iovec){ (void *)(uintptr_t)ext, extlen };
    u->oq[i].msg_hdr = (struct msghdr){ .msg_name = &u->peers[to].addr,
                                        .msg_namelen = sizeof u->peers[to].addr,
                                        .msg_iov = v, .msg_iovlen = ext ? 2 : 1 };
}

/* Room for one rv_udp_out (which may queue three: the datagram, a duplicate, a held one). */
static void rv_udp_room(rv_udp_t *u)
{
    if (u->noq + 3 > RV_UDP_OQ || u->nack_buf == RV_UDP_OQ) rv_udp_flush_out(u);
}

/* ---- the test aids: deterministic loss, duplication and reordering --------------------- */
static unsigned rv_udp_rand(rv_udp_t *u)
{
    u->rng = u->rng * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(u->rng >> 33) % 1000u;
}

/* Queues one datagram, len bytes at d and extlen at ext (NULL: none) (under the lock; both
 * stay valid until the queue is flushed), through the test aids when they are on. Never
 * flushes after rv_udp_room. */
static void rv_udp_out(rv_udp_t *u, const void *d, size_t len, const void *ext, size_t extlen,
                       gex_Rank_t to)
{
    rv_udp_room(u);
    if (!(u->drop | u->dup | u->reorder)) {
        rv_udp_push(u, d, len, ext, extlen, to);
        return;
    }
    if (u->drop && rv_udp_rand(u) < u->drop) {
        u->st.aid_dropped++;
        return;
    }
    if (u->reorder && !u->held_len && !u->held_queued && rv_udp_rand(u) < u->reorder) {
        memcpy(u->held, d, len);
        if (ext) memcpy(u->held + len, ext, extlen);
        u->held_len = len + extlen;
        u->held_to = to;
        return;
    }
    rv_udp_push(u, d, len, ext, extlen, to);
    if (u->dup && rv_udp_rand(u) < u->dup) rv_udp_push(u, d, len, ext, extlen, to);
    if (u->held_len) {
        rv_udp_push(u, u->held, u->held_len, NULL, 0, u->held_to);
        u->held_len = 0;
        u->held_queued = 1;
    }
}

/* ---- bookkeeping ---------------------------------------------------------------------- */
/* The selective acknowledgement of rx: bit i = contig + 1 + i has arrived. */
static uint64_t rv_udp_sack(const rv_udp_t *u, const rv_udp_rx_t *rx)
{
    if (rx->high == rx->contig) return 0; /* no hole */
    uint32_t n = rx->high - rx->contig - 1;
    if (n > RV_UDP_SACK_BITS) n = RV_UDP_SACK_BITS;
    uint64_t m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (rx->len[(rx->contig + 1 + i) % u->win]) m |= 1ull << i;
    return m;
}

static void rv_udp_fill_acks(rv_udp_t *u, gex_Rank_t peer, rv_udp_hdr_t *h)
{
    rv_udp_peer_t *p = &u->peers[peer];
    for (int c = 0; c < 2; c++) {
        h->ack_rcv[c] = p->rx[c].contig;
        h->ack_free[c] = p->rx[c].cons;
        h->sack[c] = rv_udp_sack(u, &p->rx[c]);
    }
}

/* Data from peer wants acknowledging: a standalone ack follows unless a datagram of ours
 * carries it first (ack_due 1: wanted, 2: carried, still on the list); 'urgent': this poll. */
static void rv_udp_ack_due(rv_udp_t *u, gex_Rank_t peer, uint64_t now, int urgent)
{
    rv_udp_peer_t *p = &u->peers[peer];
    if (!p->ack_due) u->acks[u->nacks++] = peer;
    if (p->ack_due != 1) {
        p->ack_since = now;
        p->ack_count = 0;
        p->ack_ripe = 0;
    }
    p->ack_due = 1;
    p->ack_count++;
    p->ack_now |= (uint8_t)urgent;
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

static int rv_udp_alloc_tx(rv_udp_t *u, rv_udp_tx_t *tx)
{
    /* (aligned_alloc wants a multiple of the alignment: win x dgram need not be one) */
    tx->buf = aligned_alloc(64, ((size_t)u->win * u->dgram + 63) & ~(size_t)63);
    tx->len = calloc(u->win, sizeof *tx->len);
    tx->sent = calloc(u->win, sizeof *tx->sent);
    tx->st = calloc(u->win, 1);
    tx->ext = calloc(u->win, sizeof *tx->ext);
    tx->extlen = calloc(u->win, sizeof *tx->extlen);
    return tx->buf && tx->len && tx->sent && tx->st && tx->ext && tx->extlen ? 0 : -1;
}

/* One datagram buffer (64-byte aligned; the payload after the 40-byte header stays 8-aligned). */
static unsigned char *rv_udp_dbuf(const rv_udp_t *u)
{
    return aligned_alloc(64, (u->dgram + 63) & ~(size_t)63);
}

/* A receive window: win slot buffers, each its own allocation (they trade places with the
 * receive batch's buffers: rv_udp_arrive). */
static int rv_udp_alloc_rx(rv_udp_t *u, rv_udp_rx_t *rx)
{
    rx->buf = calloc(u->win, sizeof *rx->buf);
    rx->len = calloc(u->win, sizeof *rx->len);
    if (!rx->buf || !rx->len) return -1;
    for (uint32_t i = 0; i < u->win; i++)
        if (!(rx->buf[i] = rv_udp_dbuf(u))) return -1;
    return 0;
}

/* Sends datagram 'seq' of tx again (under the lock). */
void rv_udp_resend(rv_udp_t *u, gex_Rank_t peer, rv_udp_tx_t *tx, uint32_t seq, uint64_t now)
{
    uint32_t slot = seq % u->win;
    rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)(tx->buf + (size_t)slot * u->dgram);
    rv_udp_fill_acks(u, peer, h);
    rv_udp_out(u, h, tx->len[slot], tx->ext[slot], tx->extlen[slot], peer);
    tx->sent[slot] = now;
    if ((tx->st[slot] & RV_UDP_TRIES) != RV_UDP_TRIES) tx->st[slot]++;
}

/* Sends are queued, not sent, while this thread delivers (a handler's replies leave together
 * at the end of the poll). */
static __thread int rv_udp_delivering;
/* Since when this thread's wait loops found nothing (rv_udp_idle; 0: they did). */
static __thread uint64_t rv_udp_idle_since;

/* ---- send ------------------------------------------------------------------------------ */
static inline __attribute__((always_inline)) int
rv_udp_send_msg(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen, int ref)
{
    rv_udp_t *u = priv;
    size_t total = hdrlen + paylen;
    if (total > RV_UDP_MAX_MSG) rv_fatal("udp: a %zu-byte message is above max_msg", total);
    uint32_t nfrag = total ? (uint32_t)((total + u->frag - 1) / u->frag) : 1;
    rv_udp_peer_t *p = &u->peers[peer];
    rv_udp_tx_t *tx = &p->tx[chan];
    pthread_mutex_lock(&u->lock);
    if (!tx->buf && rv_udp_alloc_tx(u, tx) != 0)
        rv_fatal("udp: out of memory for the send window to rank %u", (unsigned)peer);
    if ((uint32_t)(tx->next + nfrag - tx->freed) > u->win) {
        pthread_mutex_unlock(&u->lock);
        return RV_TP_AGAIN;
    }
    if (!rv_udp_cc_room(u, p, nfrag)) { /* the congestion window (udp_cc.c) */
        u->st.cc_waits++;
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
        tx->ext[slot] = NULL;
        tx->extlen[slot] = 0;
        if (ref && nfrag == 1 && left >= RV_UDP_REF_MIN) {
            /* the payload by reference, read by sendmsg (send_ref's contract) */
            tx->ext[slot] = (const unsigned char *)payload;
            tx->extlen[slot] = (uint32_t)left;
            n -= left;
            u->st.ref_out++;
        } else if (left) {
            memcpy(dst, (const unsigned char *)payload + (o - hdrlen), left);
        }
        tx->len[slot] = (uint32_t)(sizeof *h + n);
        tx->sent[slot] = now;
        tx->st[slot] = 1;
        rv_udp_out(u, d, tx->len[slot], tx->ext[slot], tx->extlen[slot], peer);
        off += n + tx->extlen[slot];
    }
    u->st.data_out += nfrag;
    if (p->ack_due) { /* these datagrams carried the acknowledgements */
        p->ack_due = 2;
        p->ack_now = 0;
    }
    rv_udp_activate(u, peer);
    /* A handler's send waits for the end of the poll (several replies leave together), unless
     * it is the only datagram queued: it leaves now, a round trip's latency (nothing queued
     * before it, so the stream's order holds) */
    if (!rv_udp_delivering || u->noq == 1) rv_udp_flush_out(u);
    pthread_mutex_unlock(&u->lock);
    rv_udp_idle_since = 0; /* this thread is busy: its next wait spins first */
    return 0;
}

int rv_udp_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen)
{
    return rv_udp_send_msg(priv, peer, chan, hdr, hdrlen, payload, paylen, 0);
}

/* As rv_udp_send, but a payload of one datagram (of at least RV_UDP_REF_MIN bytes) is not
 * copied: the datagram's slot holds the headers, sendmsg gathers the payload from the
 * caller's memory, and so do retransmissions. transport.h's contract: the caller keeps it
 * valid until something the peer sent after the message's delivery is delivered here. Why
 * that suffices: every datagram of the peer carries its cumulative acknowledgement, filled in
 * when it is sent, and this one was delivered (so acknowledged cumulatively) before the
 * answer was sent; rv_udp_arrive takes a datagram's acknowledgements before it is stored and
 * delivered, and nothing resends a datagram below tx->rcv (the timers, fast retransmission
 * and tail-loss probes resend from tx->rcv on; the window probe, which resends the newest
 * datagram after all arrived, sends its header only). The out queue is flushed before the
 * lock is released, so no queued retransmission outlives that either. */
int rv_udp_send_ref(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                    const void *payload, size_t paylen)
{
    return rv_udp_send_msg(priv, peer, chan, hdr, hdrlen, payload, paylen, 1);
}

/* ---- receive --------------------------------------------------------------------------- */
/* A round trip measured (ns): the smoothed round trip and its variation (Jacobson/Karels), and
 * the timeout from them, bounded; a new measurement also ends a backoff. */
static void rv_udp_rtt(rv_udp_t *u, rv_udp_peer_t *p, uint64_t r)
{
    if (!p->srtt) {
        p->srtt = r;
        p->rttvar = r / 2;
    } else {
        uint64_t d = p->srtt > r ? p->srtt - r : r - p->srtt;
        p->rttvar = (3 * p->rttvar + d) / 4;
        p->srtt = (7 * p->srtt + r) / 8;
    }
    uint64_t rto = p->srtt + 4 * p->rttvar;
    p->rto = rto < u->rto_min_ns ? u->rto_min_ns : rto > u->rto_max_ns ? u->rto_max_ns : rto;
    u->st.rtt_samples++;
}

/* The peer acknowledged (cumulatively, selectively) our streams to it. Round trips are measured
 * only on datagrams sent once (Karn); a hole with RV_UDP_DUPTHRESH later datagrams arrived is
 * retransmitted at once (once: after that only the timeout resends it). */
static void rv_udp_take_acks(rv_udp_t *u, gex_Rank_t peer, const rv_udp_hdr_t *h, uint64_t now)
{
    rv_udp_peer_t *p = &u->peers[peer];
    uint64_t sample = 0;
    for (int c = 0; c < 2; c++) {
        rv_udp_tx_t *tx = &p->tx[c];
        uint32_t r = h->ack_rcv[c], f = h->ack_free[c];
        if (!tx->buf || RV_UDP_SEQ_LT(tx->next, r)) continue; /* beyond what we sent: ignore */
        if (RV_UDP_SEQ_LT(tx->rcv, r)) {
            /* a sample from the newest it acknowledges, unless a resent one filled a hole
             * before it (it then waited for that) or it was acknowledged selectively before;
             * the same walk counts those acknowledged selectively (congestion control) */
            int clean = 1;
            uint32_t sacked = 0;
            for (uint32_t s = tx->rcv; s != r; s++) {
                uint8_t st = tx->st[s % u->win];
                clean &= (st & RV_UDP_TRIES) == 1;
                sacked += (st & RV_UDP_SACKED) != 0;
            }
            uint8_t st = tx->st[(r - 1) % u->win];
            if (clean && !(st & RV_UDP_SACKED)) sample = now - tx->sent[(r - 1) % u->win];
            rv_udp_cc_cum(u, p, (unsigned)c, r, sacked);
            tx->rcv = r;
            tx->progress = now;
        }
        if (RV_UDP_SEQ_LT(tx->freed, f) && !RV_UDP_SEQ_LT(r, f)) {
            tx->freed = f;
            tx->progress = now;
        }
        uint64_t m = h->sack[c];
        if (!m) continue;
        uint32_t fresh = 0;
        for (uint32_t i = 0; m && i < RV_UDP_SACK_BITS; i++, m >>= 1) {
            uint32_t s = r + 1 + i;
            if (!RV_UDP_SEQ_LT(s, tx->next)) break;
            if (!(m & 1) || RV_UDP_SEQ_LT(s, tx->rcv)) continue;
            uint8_t *st = &tx->st[s % u->win];
            if (*st & RV_UDP_SACKED) continue;
            if ((*st & RV_UDP_TRIES) == 1 && !sample) sample = now - tx->sent[s % u->win];
            *st |= RV_UDP_SACKED;
            fresh++;
        }
        if (!fresh) continue;
        rv_udp_cc_sacked(u, peer, (unsigned)c, fresh, now);
        uint32_t above = 0; /* datagrams above s the peer has */
        for (uint32_t s = tx->next; s != tx->rcv;) {
            s--;
            uint8_t st = tx->st[s % u->win];
            if (st & RV_UDP_SACKED) {
                above++;
            } else if (above >= RV_UDP_DUPTHRESH && (st & RV_UDP_TRIES) == 1) {
                rv_udp_resend(u, peer, tx, s, now);
                u->st.retx_fast++;
                rv_udp_cc_loss(u, p);
            }
        }
        tx->progress = now;
    }
    if (sample) rv_udp_rtt(u, p, sample);
}

/* One datagram arrived from 'from' in the receive buffer *db: checks it, takes its
 * acknowledgements, stores its data. Storing copies nothing: the buffer takes the place of its
 * slot's (empty) one in the receive window, and that one becomes the receive buffer *db. */
static void rv_udp_arrive(rv_udp_t *u, void **db, size_t len, const struct sockaddr_in *from,
                          uint64_t now)
{
    const rv_udp_hdr_t *h = (const rv_udp_hdr_t *)*db;
    if (len < sizeof *h || h->token != u->token || h->src >= u->size) return;
    rv_udp_peer_t *p = &u->peers[h->src];
    if (from->sin_addr.s_addr != p->addr.sin_addr.s_addr || from->sin_port != p->sport)
        return;
    rv_udp_take_acks(u, h->src, h, now);
    if (h->kind != RV_UDP_DATA) return;
    if (h->chan > 1 || h->msglen > RV_UDP_MAX_MSG || len > u->dgram) return;
    rv_udp_rx_t *rx = &p->rx[h->chan];
    uint32_t seq = h->seq;
    if (RV_UDP_SEQ_LT(seq, rx->cons) || !RV_UDP_SEQ_LT(seq, rx->cons + u->win)) {
        /* a duplicate, or beyond the window (a confused sender): acknowledge again, now */
        u->st.dups_in++;
        rv_udp_ack_due(u, h->src, now, 1);
        return;
    }
    if (!rx->buf && rv_udp_alloc_rx(u, rx) != 0)
        rv_fatal("udp: out of memory for the receive window from rank %u", (unsigned)h->src);
    uint32_t slot = seq % u->win;
    if (rx->len[slot]) { /* a duplicate */
        u->st.dups_in++;
        rv_udp_ack_due(u, h->src, now, 1);
        return;
    }
    /* out of order (a hole before it, or it fills one): the sender learns at once */
    rv_udp_ack_due(u, h->src, now, seq != rx->contig || rx->high != rx->contig);
    unsigned char *empty = rx->buf[slot];
    rx->buf[slot] = *db;
    *db = empty;
    rx->len[slot] = (uint32_t)len;
    if (!RV_UDP_SEQ_LT(seq, rx->high)) rx->high = seq + 1;
    while (RV_UDP_SEQ_LT(rx->contig, rx->high) && rx->len[rx->contig % u->win]) rx->contig++;
    if (rx->len[rx->cons % u->win]) rv_udp_ready(u, h->src, h->chan);
}

/* Receives what the socket holds, one batch. Returns the number of datagrams. Until two
 * receives in a row found datagrams (a wait, a ping-pong) it takes one datagram with recvfrom:
 * cheaper than recvmmsg, which after the first datagram tries again for the next (923 against
 * 568 ns for one waiting datagram, 266 against 184 ns for none: best of 40 on the 2-core VM),
 * and the message is delivered at once. A ping-pong's receive after the one that found its
 * message finds nothing: by recvfrom, not recvmmsg. After two that found some, a batch with
 * recvmmsg (a flood). The recvmmsg headers are built once; only what the kernel wrote into the
 * last batch's is reset. */
static int rv_udp_recv_batch(rv_udp_t *u, uint64_t now)
{
    if (u->rlast < 2) {
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        /* MSG_TRUNC: the datagram's real length, so one longer than the buffer is seen */
        ssize_t n = recvfrom(u->fd, u->riov[0].iov_base, u->dgram, MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &fl);
        if (n < 0) {
            u->rlast = 0;
            return 0;
        }
        u->rlast++;
        u->st.dgrams_in++;
        if ((size_t)n <= u->dgram && fl == sizeof from)
            rv_udp_arrive(u, &u->riov[0].iov_base, (size_t)n, &from, now);
        return 1;
    }
    struct mmsghdr *mm = u->rmm;
    for (int i = 0; i < u->rused; i++) {
        mm[i].msg_hdr.msg_namelen = sizeof u->rfrom[i];
        mm[i].msg_hdr.msg_flags = 0;
    }
    u->rused = 0;
    int n = recvmmsg(u->fd, mm, RV_UDP_BATCH, MSG_DONTWAIT, NULL);
    if (n <= 0) {
        u->rlast = 0;
        return 0;
    }
    u->rused = n;
    u->st.dgrams_in += (uint64_t)n;
    for (int i = 0; i < n; i++)
        if (!(mm[i].msg_hdr.msg_flags & MSG_TRUNC) &&
            mm[i].msg_hdr.msg_namelen == sizeof u->rfrom[i])
            rv_udp_arrive(u, &u->riov[i].iov_base, mm[i].msg_len, &u->rfrom[i], now);
    return n;
}

/* ---- delivery -------------------------------------------------------------------------- */
/* The message at rx->cons, if it is complete: its bytes and length, and how many datagrams it
 * spans. Fragments are copied into the stream's reassembly buffer. */
static void *rv_udp_take_msg(rv_udp_t *u, rv_udp_rx_t *rx, size_t *len, uint32_t *nfrag)
{
    uint32_t slot = rx->cons % u->win;
    if (!rx->buf || !rx->len[slot]) return NULL;
    unsigned char *d = rx->buf[slot];
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
            (const rv_udp_hdr_t *)(void *)rx->buf[(rx->cons + i) % u->win];
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
        memcpy(rx->asm_buf + off, rx->buf[s] + sizeof *h, n);
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
            rv_udp_delivering++;
            rv_am_deliver(peer, c, m, len);
            rv_udp_delivering--;
            pthread_mutex_lock(&u->lock);
            for (uint32_t i = 0; i < nfrag; i++) rx->len[(rx->cons + i) % u->win] = 0;
            rx->cons += nfrag;
            rv_udp_ack_due(u, peer, now, 0);
            delivered++;
        }
        rx->busy = 0;
        if (rx->buf && rx->len[rx->cons % u->win]) rv_udp_ready(u, peer, c);
    }
    return delivered;
}

/* ---- acknowledgements and timers --------------------------------------------------------- */
/* Standalone acknowledgements to peers whose data no datagram of ours has acknowledged yet,
 * once the ack delay has passed, at once after data out of order ('all': every one now), and
 * one poll after a quarter window of datagrams (counted as they arrive and as they are
 * delivered) came: a flood's sender, between two polls, sends data that carries them (testsmall
 * 10000 8 D: 24 500 standalone acks from rank 0 for 140 000 replies without that poll's grace,
 * 9 500 with it). */
static void rv_udp_flush_acks(rv_udp_t *u, uint64_t now, int all)
{
    for (uint32_t i = 0; i < u->nacks;) {
        gex_Rank_t peer = u->acks[i];
        rv_udp_peer_t *p = &u->peers[peer];
        if (p->ack_due == 1 && !all && !p->ack_now &&
            (int64_t)(now - p->ack_since) < (int64_t)u->ack_ns &&
            (p->ack_count < u->win / 4 || !p->ack_ripe++)) {
            i++;
            continue;
        }
        if (p->ack_due == 1) {
            rv_udp_room(u);
            rv_udp_hdr_t *h = &u->oack[u->nack_buf++];
            *h = (rv_udp_hdr_t){ .token = u->token, .src = u->me, .kind = RV_UDP_ACK };
            rv_udp_fill_acks(u, peer, h);
            rv_udp_out(u, h, sizeof *h, NULL, 0, peer);
            u->st.acks_out++;
        }
        p->ack_due = 0;
        p->ack_now = 0;
        p->ack_ripe = 0;
        u->acks[i] = u->acks[--u->nacks];
    }
}

/* Retransmits what timed out (holes only, not what the peer acknowledged selectively), probes
 * windows a peer keeps closed, doubles a peer's timeout when it did either (up to the maximum), ends the
 * job when a peer stopped answering. */
static void rv_udp_timers(rv_udp_t *u, uint64_t now)
{
    if (u->held_len && !u->held_queued) {
        rv_udp_room(u);
        rv_udp_push(u, u->held, u->held_len, NULL, 0, u->held_to);
        u->held_len = 0;
        u->held_queued = 1;
    }
    for (uint32_t i = 0; i < u->nactive;) {
        gex_Rank_t peer = u->active[i];
        rv_udp_peer_t *p = &u->peers[peer];
        int busy = 0, backoff = 0, lost = 0;
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
            /* what timed out among the holes the peer's selective acknowledgements show
             * (below the newest it has), or else the oldest only: a round trip that merely
             * took long (a descheduled peer) costs one datagram, not a window */
            uint32_t hi = rv_udp_newest_sacked(u, tx, tx->rcv + 1);
            int resent = 0;
            for (uint32_t s = tx->rcv; s != hi && s != tx->next; s++) {
                uint32_t slot = s % u->win;
                if ((tx->st[slot] & RV_UDP_SACKED) ||
                    (int64_t)(now - tx->sent[slot]) < (int64_t)p->rto)
                    continue;
                rv_udp_resend(u, peer, tx, s, now);
                u->st.retx_timeout++;
                resent = 1;
            }
            lost |= resent;
            if (!resent) rv_udp_tlp(u, peer, (unsigned)c, now); /* udp_cc.c; no backoff */
            /* all arrived but not all freed: probe, so a lost window update is sent again */
            if (!resent && tx->rcv == tx->next && (int64_t)(now - tx->probe) > (int64_t)p->rto) {
                uint32_t slot = (tx->next - 1) % u->win;
                rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)(tx->buf + (size_t)slot * u->dgram);
                rv_udp_fill_acks(u, peer, h);
                /* (it arrived: the peer drops it as a duplicate and acknowledges. A payload
                 * by reference may be gone already, its reply delivered: the header only) */
                rv_udp_out(u, h, tx->ext[slot] ? sizeof *h : tx->len[slot], NULL, 0, peer);
                tx->probe = now;
                u->st.probes++;
                resent = 1;
            }
            backoff |= resent;
        }
        if (backoff) p->rto = 2 * p->rto < u->rto_max_ns ? 2 * p->rto : u->rto_max_ns;
        if (lost) rv_udp_cc_timeout(u, p);
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
    int got = 0;
    for (int i = 0; i < 4; i++) {
        int k = rv_udp_recv_batch(u, now);
        got += k;
        if (k < RV_UDP_BATCH) break;
    }
    if (got) rv_udp_idle_since = 0;
    /* fast retransmissions leave before the lock is first released (the out queue invariant) */
    if (u->noq) rv_udp_flush_out(u);
    int n = 0;
    for (unsigned c = 0; c < 2; c++)
        if (chan_mask & RV_CHAN_MASK(c)) n += rv_udp_deliver(u, c, now);
    if (n) now = rv_udp_now(); /* handlers (or other threads while the lock was released)
                                * sent meanwhile: no times in the future */
    if (now - u->last_timer > u->tick_ns) {
        rv_udp_timers(u, now);
        u->last_timer = now;
    }
    rv_udp_flush_acks(u, now, 0);
    if (u->noq) rv_udp_flush_out(u);
    pthread_mutex_unlock(&u->lock);
    return n;
}

/* A wait loop found nothing to do (core/progress.c): once this thread has busy-polled for
 * idle_spin_ns without a datagram arriving, block in ppoll until one comes, for at most idle_ns,
 * or until the next timer tick when datagrams are in flight or acknowledgements pending.
 * Busy-polling stays the fast path. The threshold is time, not a count of polls, and long:
 * on a loaded machine a blocked rank waits a scheduler slice (milliseconds) to run again once
 * woken, and a short threshold made every round trip pay that (5 ms instead of 20 us). */
void rv_udp_idle(void *priv)
{
    rv_udp_t *u = priv;
    if (!u->idle_spin_ns) return;
    uint64_t now = rv_udp_now();
    if (!rv_udp_idle_since) {
        rv_udp_idle_since = now;
        return;
    }
    if (now - rv_udp_idle_since < u->idle_spin_ns) return;
    if (pthread_mutex_trylock(&u->lock) != 0) return;
    uint64_t wait = u->idle_ns;
    if ((u->nactive || u->nacks || u->held_len) && wait > u->tick_ns) wait = u->tick_ns;
    u->st.idle_waits++;
    pthread_mutex_unlock(&u->lock);
    struct pollfd pfd = { .fd = u->fd, .events = POLLIN };
    struct timespec ts = { (time_t)(wait / 1000000000u), (long)(wait % 1000000000u) };
    (void)ppoll(&pfd, 1, &ts, NULL);
}

/* Before the socket closes (at close, or at process exit: the last messages, e.g. a final
 * barrier's, must not be lost with the process): until every datagram sent has arrived (or
 * 3 s passed), take acknowledgements, retransmit, and acknowledge what arrives (delivering
 * nothing). */
static rv_udp_t *rv_udp_open_one; /* the open transport, for the exit handler */

static void rv_udp_linger(rv_udp_t *u)
{
    if (!u->peers || !u->riov || u->lingered) return;
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
        if (now - u->last_timer > u->tick_ns) {
            u->dead_ns = ~0ull >> 1; /* a peer gone already is no error now */
            rv_udp_timers(u, now);
            u->last_timer = now;
        }
        rv_udp_flush_acks(u, now, 1);
        rv_udp_flush_out(u);
        struct timespec ts = { 0, 50000 };
        nanosleep(&ts, NULL);
    }
    rv_udp_flush_acks(u, rv_udp_now(), 1);
    rv_udp_flush_out(u);
    pthread_mutex_unlock(&u->lock);
    const rv_udp_stats_t *st = &u->st;
    rv_verbose(2, "udp: rank %u: data %llu, resent %llu on timeout, %llu fast, probes %llu, "
               "acks %llu, in %llu (%llu duplicates), %llu round trips measured (srtt of rank "
               "%u: %llu us), sendmmsg %llu, idle waits %llu, test aid dropped %llu, "
               "not sent (socket buffer full) %llu, tail-loss probes %llu, congestion window "
               "cuts %llu, sends it held %llu, by reference %llu",
               u->me, (unsigned long long)st->data_out, (unsigned long long)st->retx_timeout,
               (unsigned long long)st->retx_fast, (unsigned long long)st->probes,
               (unsigned long long)st->acks_out, (unsigned long long)st->dgrams_in,
               (unsigned long long)st->dups_in, (unsigned long long)st->rtt_samples,
               (u->me + 1) % u->size, (unsigned long long)u->peers[(u->me + 1) % u->size].srtt / 1000,
               (unsigned long long)st->sendmmsg, (unsigned long long)st->idle_waits,
               (unsigned long long)st->aid_dropped, (unsigned long long)st->send_full,
               (unsigned long long)st->tlp, (unsigned long long)st->cc_cuts,
               (unsigned long long)st->cc_waits, (unsigned long long)st->ref_out);
}

/* ---- set-up ------------------------------------------------------------------------------ */
static void rv_udp_atexit(void)
{
    if (rv_udp_open_one) rv_udp_linger(rv_udp_open_one);
}

/* How many datagrams of dgram bytes one channel may have in flight so that both channels of a
 * peer fit the job's smallest socket buffer (u->buf; 0: unknown, no limit). The kernel charges a
 * datagram its truesize, not its length (loopback, measured: 832 bytes for 48, 2304 for 1472,
 * 16640 for 8192, 65832 for 65000), estimated here a little above. */
static uint32_t rv_udp_buf_fit(const rv_udp_t *u, size_t dgram)
{
    if (!u->buf) return UINT32_MAX;
    size_t ts = dgram + 400 <= 32768 ? 512 : dgram + 800;
    while (ts < dgram + 400) ts *= 2;
    ts += 512;
    return (uint32_t)(u->buf / (RV_UDP_FIT_CHANS * ts));
}

static uint32_t rv_udp_max_frags(size_t dgram)
{
    size_t frag = dgram - sizeof(rv_udp_hdr_t);
    return (uint32_t)((RV_UDP_MAX_MSG + frag - 1) / frag);
}

int rv_udp_msg_open(rv_udp_t *u)
{
    static int registered;
    if (!registered++) atexit(rv_udp_atexit);
    rv_udp_open_one = u;
    /* u->dgram: udp.c chose it (RIVET_UDP_DGRAM, else the interface's MTU, the job's smallest).
     * The window: RIVET_UDP_WINDOW datagrams, else RV_UDP_WIN_BYTES of them, 16 to 64 (64 of
     * 8 KiB or less, 16 of 64 KiB: memory per peer stays bounded as datagrams grow); always at
     * least 2 messages' worth of fragments. A datagram size chosen from the MTU is halved
     * (not below RV_UDP_DGRAM_MIN_AUTO) while the socket buffers cannot hold two messages'
     * fragments (a stock net.core.rmem_max of 208 KiB holds three 64 KiB datagrams): every rank
     * computes the same from the job's smallest buffer and datagram size. It stays a multiple
     * of 8 (udp.c: the headers in the window's slots stay aligned). */
    size_t dg0 = u->dgram;
    while (!rv_cfg.UDP_DGRAM && u->dgram / 2 >= RV_UDP_DGRAM_MIN_AUTO &&
           rv_udp_buf_fit(u, u->dgram) < 2 * rv_udp_max_frags(u->dgram))
        u->dgram = (u->dgram / 2) & ~(size_t)7;
    if (u->dgram != dg0)
        rv_verbose(1, "udp: datagrams of %zu bytes, not %zu: the %u KiB socket buffers hold too "
                   "few of those (raise net.core.rmem_max and wmem_max)", u->dgram, dg0,
                   (unsigned)(u->buf >> 10));
    u->frag = u->dgram - sizeof(rv_udp_hdr_t);
    uint32_t nfrag = rv_udp_max_frags(u->dgram);
    u->win = (uint32_t)rv_cfg.UDP_WINDOW;
    if (!u->win) {
        u->win = (uint32_t)(RV_UDP_WIN_BYTES / u->dgram);
        if (u->win < RV_UDP_WIN_MIN_AUTO) u->win = RV_UDP_WIN_MIN_AUTO;
        if (u->win > RV_UDP_WIN_MAX_AUTO) u->win = RV_UDP_WIN_MAX_AUTO;
    }
    if (u->win < 8) u->win = 8;
    if (u->win < 2 * nfrag) u->win = 2 * nfrag;
    /* Fitted to the socket buffers the kernel granted (the job's smallest): both channels of
     * one peer sending a full window must not overflow the receiver's buffer (or the sender's),
     * else datagrams are dropped and wait for the timeout. An explicit RIVET_UDP_WINDOW is
     * kept (with a note under RIVET_VERBOSE); the automatic one shrinks, down to two messages'
     * fragments. */
    uint32_t fit = rv_udp_buf_fit(u, u->dgram);
    if (u->win > fit) {
        if (rv_cfg.UDP_WINDOW)
            rv_verbose(1, "udp: RIVET_UDP_WINDOW=%u datagrams of %zu bytes per channel may "
                       "overflow the %u KiB socket buffer (room for %u per channel)", u->win,
                       u->dgram, (unsigned)(u->buf >> 10), fit);
        else
            u->win = fit > 2 * nfrag ? fit : 2 * nfrag;
        if (u->win > fit)
            rv_warn("udp: the socket buffer (%u KiB granted: net.core.rmem_max/wmem_max) holds "
                    "%u datagrams of %zu bytes per channel, fewer than the window's %u: raise "
                    "net.core.rmem_max and wmem_max or lower RIVET_UDP_DGRAM", (unsigned)(u->buf >> 10),
                    fit, u->dgram, u->win);
    }
    u->rto_min_ns = (uint64_t)rv_cfg.UDP_RTO_MIN_US * 1000u;
    u->rto_max_ns = (uint64_t)rv_cfg.UDP_RTO_MAX_US * 1000u;
    if (u->rto_max_ns < u->rto_min_ns) u->rto_max_ns = u->rto_min_ns;
    u->rto_ns = (uint64_t)rv_cfg.UDP_RTO_US * 1000u;
    if (u->rto_ns < u->rto_min_ns) u->rto_ns = u->rto_min_ns;
    if (u->rto_ns > u->rto_max_ns) u->rto_ns = u->rto_max_ns;
    u->dead_ns = (uint64_t)rv_cfg.UDP_PEER_TIMEOUT * 1000000000ull;
    u->tick_ns = u->rto_min_ns / 4;
    u->ack_ns = u->rto_min_ns / 4;
    u->idle_spin_ns = (uint64_t)rv_cfg.UDP_IDLE_SPIN_US * 1000u;
    u->idle_ns = (uint64_t)rv_cfg.UDP_IDLE_US * 1000u;
    for (uint32_t r = 0; r < u->size; r++) u->peers[r].rto = u->rto_ns;
    rv_udp_cc_open(u);
    u->drop = (unsigned)rv_cfg.UDP_DROP_PERMILLE;
    u->dup = (unsigned)rv_cfg.UDP_DUP_PERMILLE;
    u->reorder = (unsigned)rv_cfg.UDP_REORDER_PERMILLE;
    u->rng = 0x9e3779b97f4a7c15ull * (u->me + 1);
    u->ready[0] = calloc(u->size, sizeof(uint32_t));
    u->ready[1] = calloc(u->size, sizeof(uint32_t));
    u->acks = calloc(u->size, sizeof(uint32_t));
    u->active = calloc(u->size, sizeof(uint32_t));
    u->is_active = calloc(u->size, 1);
    u->held = malloc(u->dgram);
    u->rmm = calloc(RV_UDP_BATCH, sizeof *u->rmm);
    u->riov = calloc(RV_UDP_BATCH, sizeof *u->riov);
    u->rfrom = calloc(RV_UDP_BATCH, sizeof *u->rfrom);
    int rbufs = u->rmm && u->riov && u->rfrom;
    for (int i = 0; rbufs && i < RV_UDP_BATCH; i++) {
        u->riov[i] = (struct iovec){ rv_udp_dbuf(u), u->dgram };
        if (!u->riov[i].iov_base) rbufs = 0;
        u->rmm[i].msg_hdr = (struct msghdr){ .msg_name = &u->rfrom[i],
                                             .msg_namelen = sizeof u->rfrom[i],
                                             .msg_iov = &u->riov[i], .msg_iovlen = 1 };
    }
    u->oq = calloc(RV_UDP_OQ, sizeof *u->oq);
    u->oiov = calloc(2 * RV_UDP_OQ, sizeof *u->oiov);
    u->oack = calloc(RV_UDP_OQ, sizeof *u->oack);
    pthread_mutex_init(&u->lock, NULL);
    /* memory, allocated per (peer, channel) at first use: a send and a receive window of win
     * datagrams (+ 25 bytes of bookkeeping per send slot, 12 per receive slot: 19 each on
     * average), and a reassembly buffer once a fragmented message arrives */
    size_t ring = (size_t)u->win * (u->dgram + 19);
    rv_verbose(1, "udp: at most %zu KiB per peer talked to (2 channels x (send + receive window "
               "of %u x %zu bytes + %u KiB reassembly)); retransmission timeout %llu us at "
               "first, %llu..%llu us", (2 * (2 * ring + RV_UDP_MAX_MSG)) >> 10, u->win, u->dgram,
               (unsigned)(RV_UDP_MAX_MSG >> 10), (unsigned long long)u->rto_ns / 1000,
               (unsigned long long)u->rto_min_ns / 1000, (unsigned long long)u->rto_max_ns / 1000);
    return u->ready[0] && u->ready[1] && u->acks && u->active && u->is_active && rbufs &&
           u->held && u->oq && u->oiov && u->oack && u->rmm && u->riov && u->rfrom ? 0 : -1;
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
                free(p->tx[c].st);
                free(p->tx[c].ext);
                free(p->tx[c].extlen);
                for (uint32_t i = 0; p->rx[c].buf && i < u->win; i++) free(p->rx[c].buf[i]);
                free(p->rx[c].buf);
                free(p->rx[c].len);
                free(p->rx[c].asm_buf);
                if (c == 0 && p->cfd >= 0) close(p->cfd);
                p->cfd = -1;
            }
    u->nconn = 0;
    free(u->ready[0]);
    free(u->ready[1]);
    free(u->acks);
    free(u->active);
    free(u->is_active);
    for (int i = 0; u->riov && i < RV_UDP_BATCH; i++) free(u->riov[i].iov_base);
    free(u->held);
    free(u->oq);
    free(u->oiov);
    free(u->rmm);
    free(u->riov);
    free(u->rfrom);
    u->rmm = NULL;
    u->riov = NULL;
    u->rfrom = NULL;
    free(u->oack);
    u->oq = NULL;
    u->oiov = NULL;
    u->oack = NULL;
    u->ready[0] = u->ready[1] = u->acks = u->active = NULL;
    u->is_active = NULL;
    u->held = NULL;
}
