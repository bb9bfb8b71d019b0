/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/udp/udp_cc.c: the udp transport's congestion control and tail-loss probes.
 *
 * Congestion control is NewReno counted in datagrams, one window per peer over both channels:
 * slow start (+1 per datagram acknowledged) up to ssthresh, then additive increase (+1 per
 * window acknowledged); a loss seen through selective acknowledgements (a fast
 * retransmission, or a hole a tail-loss probe found) cuts it to 0.7x once per window of data
 * (recovery lasts until everything sent before the loss is acknowledged); a retransmission
 * timeout sets it to the smallest window (4). It never grows beyond both channels' flow-control windows
 * (cc_max): on a loopback without loss it reaches that within a few round trips and then limits
 * nothing. rv_udp_cc_room (udp_int.h) is the check rv_udp_send makes.
 *
 * A tail-loss probe: when the newest datagrams of a burst are lost, no later datagram makes
 * the receiver report the hole, and only the retransmission timeout would resend them. Once a
 * stream has had data unacknowledged for two smoothed round trips plus the receiver's ack
 * delay (and that is shorter than the timeout), the timer resends the holes below the newest
 * datagram the peer acknowledged selectively (they are lost: later ones arrived) or, with no
 * such hole, the newest datagram not acknowledged: its acknowledgement then shows the holes.
 * When the probe's acknowledgement shows holes below it, they are resent at once (RACK's
 * use of a probe, RFC 8985). One probe per stream until an acknowledgement arrives; a probe
 * does not back the timeout off. Everything here runs under the transport's lock. */
#include "transport/udp/udp_int.h"
#include "core/config.h"

#define RV_UDP_CC_INIT 10 /* initial window, datagrams (as TCP's initial window, RFC 6928) */
/* smallest window: with fewer datagrams in flight than this, a loss is never repaired by a
 * fast retransmission (it needs RV_UDP_DUPTHRESH later ones), only by a probe or the timeout */
#define RV_UDP_CC_MIN (RV_UDP_DUPTHRESH + 1)
/* a loss leaves this many tenths of the window (CUBIC's 0.7, RFC 9438, rather than NewReno's
 * 0.5: random loss, which the loss tests make at 10%, costs less) */
#define RV_UDP_CC_BETA 7

#define RV_UDP_SEQ_LT(a, b) ((int32_t)((a) - (b)) < 0)

void rv_udp_cc_open(rv_udp_t *u)
{
    u->cc_on = (uint8_t)(rv_cfg.UDP_CC != 0);
    u->tlp_on = (uint8_t)(rv_cfg.UDP_TLP != 0);
    u->cc_max = 2 * u->win;
    for (uint32_t r = 0; r < u->size; r++) {
        rv_udp_cc_t *cc = &u->peers[r].cc;
        cc->cwnd = RV_UDP_CC_INIT < u->cc_max ? RV_UDP_CC_INIT : u->cc_max;
        cc->ssthresh = u->cc_max;
    }
}

/* n more datagrams acknowledged: the window grows (not while recovering from a loss). */
static void rv_udp_cc_grow(rv_udp_t *u, rv_udp_cc_t *cc, uint32_t n)
{
    if (cc->recovering || !n) return;
    if (cc->cwnd < cc->ssthresh) {
        cc->cwnd += n; /* slow start */
        if (cc->cwnd > cc->ssthresh) cc->cwnd = cc->ssthresh;
    } else {
        cc->acc += n; /* additive increase: one per window acknowledged */
        while (cc->acc >= cc->cwnd) {
            cc->acc -= cc->cwnd;
            cc->cwnd++;
        }
    }
    if (cc->cwnd > u->cc_max) cc->cwnd = u->cc_max;
}


/* The peer's ack_rcv on chan moves from tx.rcv up to rcv (called before tx.rcv changes), 'sacked'
 * of those datagrams acknowledged selectively before (the caller counted them): the others count
 * as acknowledged now. */
void rv_udp_cc_cum(rv_udp_t *u, rv_udp_peer_t *p, unsigned chan, uint32_t rcv, uint32_t sacked)
{
    rv_udp_tx_t *tx = &p->tx[chan];
    rv_udp_cc_t *cc = &p->cc;
    cc->sacked -= sacked;
    cc->tlp[chan] = 0; /* answered */
    uint32_t n = (rcv - tx->rcv) - sacked;
    /* recovery ends once everything sent before the loss is acknowledged */
    if (cc->recovering && !RV_UDP_SEQ_LT(rcv, cc->recover[chan]) &&
        !RV_UDP_SEQ_LT(p->tx[chan ^ 1].rcv, cc->recover[chan ^ 1]))
        cc->recovering = 0;
    rv_udp_cc_grow(u, cc, n);
}

/* Resends the holes of tx below the newest datagram the peer acknowledged selectively (later
 * ones arrived: they are lost), those sent once only (the timeout takes the others). */
static int rv_udp_tlp_holes(rv_udp_t *u, gex_Rank_t peer, rv_udp_tx_t *tx, uint64_t now)
{
    uint32_t hi = rv_udp_newest_sacked(u, tx, tx->rcv);
    int n = 0;
    for (uint32_t s = tx->rcv; s != hi; s++) {
        uint8_t st = tx->st[s % u->win];
        if ((st & RV_UDP_SACKED) || (st & RV_UDP_TRIES) != 1) continue;
        rv_udp_resend(u, peer, tx, s, now);
        n++;
    }
    return n;
}

/* n datagrams of chan newly acknowledged selectively. If a tail-loss probe was out, this is its
 * answer: the holes it shows below what arrived are lost, resent now (not a probe later). */
void rv_udp_cc_sacked(rv_udp_t *u, gex_Rank_t peer, unsigned chan, uint32_t n, uint64_t now)
{
    rv_udp_peer_t *p = &u->peers[peer];
    p->cc.sacked += n;
    rv_udp_cc_grow(u, &p->cc, n);
    if (!p->cc.tlp[chan]) return;
    p->cc.tlp[chan] = 0;
    int k = rv_udp_tlp_holes(u, peer, &p->tx[chan], now);
    if (k) {
        rv_udp_cc_loss(u, p);
        u->st.tlp += (uint64_t)k;
    }
}

/* A loss or a timeout: ssthresh to 0.7x what was in flight (at most the window), recovery
 * until everything sent so far is acknowledged (the callers set cwnd). */
static void rv_udp_cc_cut(rv_udp_t *u, rv_udp_peer_t *p)
{
    rv_udp_cc_t *cc = &p->cc;
    uint32_t pipe = rv_udp_cc_pipe(p);
    uint32_t cut = (pipe > cc->cwnd ? cc->cwnd : pipe) * RV_UDP_CC_BETA / 10;
    cc->ssthresh = cut < RV_UDP_CC_MIN ? RV_UDP_CC_MIN : cut;
    cc->acc = 0;
    cc->recovering = 1;
    cc->recover[0] = p->tx[0].next;
    cc->recover[1] = p->tx[1].next;
    u->st.cc_cuts += u->cc_on;
}

/* A loss seen through selective acknowledgements: the window to 0.7x, once per window of data. */
void rv_udp_cc_loss(rv_udp_t *u, rv_udp_peer_t *p)
{
    rv_udp_cc_t *cc = &p->cc;
    if (cc->recovering) return;
    rv_udp_cc_cut(u, p);
    cc->cwnd = cc->ssthresh;
}

/* The retransmission timeout fired for p's data: back to the smallest window, slow start. */
void rv_udp_cc_timeout(rv_udp_t *u, rv_udp_peer_t *p)
{
    rv_udp_cc_cut(u, p);
    p->cc.cwnd = RV_UDP_CC_MIN;
}

/* The tail-loss probe of (peer, chan), from the timers (after the timeout's own
 * retransmissions, which come first when due). Returns the datagrams resent. */
int rv_udp_tlp(rv_udp_t *u, gex_Rank_t peer, unsigned chan, uint64_t now)
{
    rv_udp_peer_t *p = &u->peers[peer];
    rv_udp_tx_t *tx = &p->tx[chan];
    if (!u->tlp_on || !p->srtt || tx->rcv == tx->next || p->cc.tlp[chan]) return 0;
    uint64_t pto = 2 * p->srtt + u->ack_ns; /* 2 round trips (RFC 8985) + the ack delay */
    if (pto < u->tick_ns) pto = u->tick_ns;
    if (pto >= p->rto) return 0; /* the timeout comes first anyway */
    uint32_t newest = tx->next - 1;
    uint64_t last = tx->sent[newest % u->win];
    if ((int64_t)(tx->progress - last) > 0) last = tx->progress;
    if ((int64_t)(now - last) < (int64_t)pto) return 0;
    int n = rv_udp_tlp_holes(u, peer, tx, now);
    if (n) {
        rv_udp_cc_loss(u, p);
    } else {
        /* no known hole: the newest datagram not acknowledged, to draw an acknowledgement */
        for (uint32_t s = tx->next; s != tx->rcv;) {
            s--;
            if (!(tx->st[s % u->win] & RV_UDP_SACKED)) {
                rv_udp_resend(u, peer, tx, s, now);
                n = 1;
                break;
            }
        }
    }
    p->cc.tlp[chan] = now;
    u->st.tlp += (uint64_t)n;
    return n;
}
