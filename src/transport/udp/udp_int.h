/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/udp/udp_int.h: the udp transport's private state and datagram format, shared by its
 * files. Every (peer, channel) pair is one reliable stream: sequence numbers, a send window and
 * a receive window of the same size, cumulative and selective acknowledgements, a
 * retransmission timeout per peer from the measured round trip. README.md has the design. */
#ifndef RV_UDP_INT_H
#define RV_UDP_INT_H

#include "transport/transport.h"

#include <netinet/in.h>
#include <sys/socket.h>
#include <pthread.h>
#include <stdint.h>

#define RV_UDP_MAX_MSG (64 * 1024 + 256) /* largest hdrlen + paylen of one send() */
#define RV_UDP_DGRAM_MAX 65000         /* largest datagram (RIVET_UDP_DGRAM's upper bound) */
#define RV_UDP_DGRAM_MIN_AUTO 8192     /* smallest datagram chosen from the MTU */
#define RV_UDP_WIN_BYTES (512 * 1024)  /* default window: this many bytes of datagrams, */
#define RV_UDP_WIN_MIN_AUTO 16         /* but at least this many datagrams */
#define RV_UDP_WIN_MAX_AUTO 64         /* and at most this many */
#define RV_UDP_BATCH   32                /* datagrams one recvmmsg takes */
#define RV_UDP_OQ      64                /* datagrams one sendmmsg sends (the out queue) */
#define RV_UDP_SACK_BITS 64              /* sequence numbers a header's SACK bitmap covers */
#define RV_UDP_CONN_MAX 64               /* peers with a connected send socket (file descriptors) */
#define RV_UDP_DUPTHRESH 3               /* later datagrams arrived: a hole is retransmitted */
#define RV_UDP_REF_MIN 2048            /* send_ref: smaller payloads are copied all the same */
#define RV_UDP_FIT_CHANS 2               /* the window is fitted to the socket buffers for both
                                          * channels of one peer at once */

/* Datagram kinds and flags. */
enum { RV_UDP_DATA = 1, RV_UDP_ACK = 2 };
#define RV_UDP_FIRST 1u /* first fragment of a message (msglen valid) */
#define RV_UDP_LAST  2u /* last fragment of a message */

/* The header of every datagram (a multiple of 8, so a payload behind it stays aligned). The
 * acknowledgements are of the streams from the receiver to the sender, both channels:
 * ack_rcv[c] = every sequence number below it has arrived (stop retransmitting them),
 * ack_free[c] = every one below it was delivered and its buffer is free (the window),
 * sack[c] bit i = sequence number ack_rcv[c] + 1 + i has arrived too (selective). */
typedef struct rv_udp_hdr {
    uint64_t token;      /* the job's, from its secret: others' datagrams are dropped */
    uint32_t src;        /* sender's jobrank (its address must match too) */
    uint8_t  kind;       /* RV_UDP_DATA, RV_UDP_ACK */
    uint8_t  chan;       /* DATA: the stream's channel */
    uint8_t  flags;      /* DATA: RV_UDP_FIRST, RV_UDP_LAST */
    uint8_t  pad;
    uint32_t seq;        /* DATA: sequence number in the (sender, chan) stream */
    uint32_t msglen;     /* DATA with RV_UDP_FIRST: the whole message's length */
    uint32_t ack_rcv[2];
    uint32_t ack_free[2];
    uint64_t sack[2];
} rv_udp_hdr_t;

/* Sending half of a stream (towards one peer on one channel). Slot seq % win holds datagram
 * seq until the peer frees it (ack_free). */
#define RV_UDP_SACKED 0x80u  /* st[]: the peer has it (a selective acknowledgement said so) */
#define RV_UDP_TRIES  0x7fu  /* st[]: how many times it was sent (saturating) */
typedef struct rv_udp_tx {
    unsigned char *buf;      /* [win][dgram], allocated at first use */
    uint32_t      *len;      /* [win] datagram lengths */
    uint64_t      *sent;     /* [win] when last sent (ns) */
    uint8_t       *st;       /* [win] RV_UDP_SACKED | times sent */
    const unsigned char **ext; /* [win] the payload, by reference (send_ref), after the slot's
                                * len bytes; NULL: all of the datagram is in the slot */
    uint32_t      *extlen;   /* [win] its length */
    uint32_t       next;     /* next sequence number to use */
    uint32_t       rcv;      /* peer's ack_rcv */
    uint32_t       freed;    /* peer's ack_free */
    uint64_t       progress; /* last time the peer acknowledged something (or we started) */
    uint64_t       probe;    /* last window probe */
} rv_udp_tx_t;

/* Receiving half of a stream (from one peer on one channel). */
typedef struct rv_udp_rx {
    unsigned char **buf;     /* [win] buffers of dgram bytes, each its own allocation: a
                              * datagram received into a batch buffer is stored by swapping
                              * that buffer with its (empty) slot's, not copied (rv_udp_arrive) */
    uint32_t      *len;      /* [win] 0: empty */
    unsigned char *asm_buf;  /* a fragmented message reassembled here (RV_UDP_MAX_MSG) */
    uint32_t       cons;     /* next sequence number to deliver */
    uint32_t       contig;   /* every sequence number below it has arrived */
    uint32_t       high;     /* one past the highest sequence number stored */
    uint8_t        busy;     /* being delivered (by some poll, maybe on another thread) */
    uint8_t        listed;   /* on the ready list of its channel */
} rv_udp_rx_t;

/* Congestion control and tail-loss probes of one peer (udp_cc.c; README.md, "Congestion").
 * Counts are datagrams, over both channels: the peer may have cwnd of ours in flight (sent,
 * neither acknowledged cumulatively nor selectively). */
typedef struct rv_udp_cc {
    uint32_t cwnd;        /* congestion window */
    uint32_t ssthresh;    /* slow start below it, additive increase above */
    uint32_t acc;         /* additive increase: datagrams acknowledged towards the next +1 */
    uint32_t sacked;      /* datagrams above ack_rcv acknowledged selectively */
    uint32_t recover[2];  /* in recovery until ack_rcv reaches these (tx.next at the loss) */
    uint8_t  recovering;
    uint64_t tlp[2];      /* per channel: when a tail-loss probe went out, unanswered (0: none) */
} rv_udp_cc_t;

typedef struct rv_udp_peer {
    struct sockaddr_in addr;      /* where its datagrams go (its receiving socket) */
    uint16_t           sport;     /* network order: the port they come from (addr's address) */
    int                cfd;       /* a send socket connected to addr (-1: none yet, -2: none) */
    rv_udp_cc_t        cc;
    rv_udp_tx_t        tx[2];
    rv_udp_rx_t        rx[2];
    uint8_t            ack_due;   /* on the ack list (1: it sent data we have not acknowledged) */
    uint8_t            ack_now;   /* out of order or duplicate data came: acknowledge this poll */
    uint8_t            ack_ripe;  /* a quarter window came: acknowledge next poll unless carried */
    uint32_t           ack_count; /* datagrams since the last acknowledgement */
    uint64_t           ack_since; /* when the first of them arrived */
    /* round trip (Jacobson/Karels), ns; rto: the retransmission timeout, backed off */
    uint64_t           srtt, rttvar, rto;
} rv_udp_peer_t;

/* Counters (never reset; read by tests, printed at exit with RIVET_VERBOSE=2). */
typedef struct rv_udp_stats {
    uint64_t data_out;     /* data datagrams sent the first time */
    uint64_t retx_timeout; /* data datagrams sent again after the timeout */
    uint64_t retx_fast;    /* ... sent again because later ones arrived (SACK) */
    uint64_t probes;       /* window probes */
    uint64_t acks_out;     /* standalone acknowledgements */
    uint64_t dgrams_in;    /* datagrams received (any, before checks) */
    uint64_t dups_in;      /* data datagrams that had arrived already */
    uint64_t rtt_samples;  /* round trip measurements taken */
    uint64_t sendmmsg;     /* send system calls (sendmmsg, or sendto for one datagram) */
    uint64_t idle_waits;   /* blocking waits when idle */
    uint64_t aid_dropped;  /* datagrams the loss test aid dropped */
    uint64_t send_full;    /* datagrams sendmmsg refused (socket buffer full): resent later */
    uint64_t tlp;          /* data datagrams resent by a tail-loss probe (before the timeout) */
    uint64_t cc_cuts;      /* congestion window decreases (loss seen by SACK, or a timeout) */
    uint64_t cc_waits;     /* sends refused because the congestion window was full */
    uint64_t ref_out;      /* data datagrams whose payload went by reference (send_ref) */
} rv_udp_stats_t;

typedef struct rv_udp {
    uint32_t        me, size;
    int             fd;        /* receives (and sends through the relay) */
    int             sfd;       /* sends, unconnected, bound to sport (fd when none) */
    uint16_t        sport;     /* network order: the port datagrams leave from */
    struct sockaddr_in sbind;  /* sfd's address (the connected send sockets bind it too) */
    uint32_t        nconn;     /* connected send sockets (at most RV_UDP_CONN_MAX) */
    uint64_t        token;
    size_t          dgram;     /* largest datagram (the smallest any rank chose: udp.c) */
    unsigned        mtu;       /* the bound interface's (0: unknown) */
    int             rcvbuf;    /* the socket's receive buffer as the kernel granted it */
    int             sndbuf;    /* ... and its send buffer */
    uint32_t        buf;       /* the smallest of both over the job (bounds the window) */
    size_t          frag;      /* payload bytes per datagram (dgram - header) */
    uint32_t        win;
    uint8_t         cc_on;     /* RIVET_UDP_CC: congestion windows limit sends */
    uint8_t         tlp_on;    /* RIVET_UDP_TLP: tail-loss probes */
    uint32_t        cc_max;    /* largest congestion window (2 x win: both channels' windows) */
    uint64_t        rto_ns, rto_min_ns, rto_max_ns; /* initial, bounds */
    uint64_t        dead_ns, ack_ns, tick_ns;       /* tick: how often timers run */
    uint64_t        idle_ns;   /* longest blocking wait when idle */
    uint64_t        idle_spin_ns; /* busy-polling with nothing arriving before blocking (0: never) */
    rv_udp_peer_t  *peers;     /* [size] */
    pthread_mutex_t lock;      /* everything below and the peers' streams */
    uint32_t       *ready[2];  /* per channel: peers whose rx may have a message to deliver */
    uint32_t        nready[2];
    uint32_t       *acks;      /* peers with ack_due */
    uint32_t        nacks;
    uint32_t       *active;    /* peers with data in flight (timer checks) */
    uint8_t        *is_active;
    uint32_t        nactive;
    uint64_t        last_timer;
    int             lingered;  /* rv_udp_linger ran */
    struct mmsghdr *rmm;       /* [RV_UDP_BATCH] recvmmsg's headers, built once */
    struct iovec   *riov;      /* [RV_UDP_BATCH] its buffers (dgram bytes each; they change
                                * places with receive window slots' buffers) */
    struct sockaddr_in *rfrom; /* [RV_UDP_BATCH] */
    int             rused;     /* headers the last recvmmsg filled (to reset) */
    int             rlast;     /* receives in a row that found datagrams: recvmmsg at 2 */
    /* the out queue: datagrams (in send windows, or acks in oack) for one sendmmsg. It holds
     * retransmissions only while the lock stays held (a freed slot is never sent stale) */
    struct mmsghdr *oq;        /* [RV_UDP_OQ] */
    struct iovec   *oiov;      /* [2 * RV_UDP_OQ]: a datagram's slot bytes, its payload by
                                * reference (send_ref) */
    uint32_t        noq, nack_buf;
    rv_udp_hdr_t   *oack;      /* [RV_UDP_OQ] standalone acknowledgements queued */
    rv_udp_stats_t  st;
    /* test aids: loss, duplication, reordering of outgoing datagrams */
    unsigned        drop, dup, reorder;
    uint64_t        rng;
    unsigned char  *held;      /* one held-back datagram (reorder) */
    size_t          held_len;
    gex_Rank_t      held_to;
    int             held_queued; /* the out queue still points at held */
    /* segment */
    void           *seg;
    uintptr_t       seglen;
    uint64_t       *segsize;   /* [size] */
    void          **nbrseg;    /* [size] neighbourhood peers' segments mapped here */
} rv_udp_t;

/* udp_msg.c */
int  rv_udp_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                 const void *payload, size_t paylen);
int  rv_udp_send_ref(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                     const void *payload, size_t paylen);
int  rv_udp_poll(void *priv, unsigned chan_mask);
void rv_udp_idle(void *priv);
int  rv_udp_msg_open(rv_udp_t *u);
void rv_udp_msg_close(rv_udp_t *u);
uint64_t rv_udp_now(void);
void rv_udp_resend(rv_udp_t *u, gex_Rank_t peer, rv_udp_tx_t *tx, uint32_t seq, uint64_t now);

/* udp_cc.c: congestion control (NewReno on datagrams) and tail-loss probes */
void rv_udp_cc_open(rv_udp_t *u);
void rv_udp_cc_cum(rv_udp_t *u, rv_udp_peer_t *p, unsigned chan, uint32_t rcv, uint32_t sacked);
void rv_udp_cc_sacked(rv_udp_t *u, gex_Rank_t peer, unsigned chan, uint32_t n, uint64_t now);
void rv_udp_cc_loss(rv_udp_t *u, rv_udp_peer_t *p);
void rv_udp_cc_timeout(rv_udp_t *u, rv_udp_peer_t *p);
int  rv_udp_tlp(rv_udp_t *u, gex_Rank_t peer, unsigned chan, uint64_t now);

/* The newest sequence number of tx the peer acknowledged selectively (the ones below it that
 * it lacks are lost: later ones arrived), or 'none' when there is none. */
static inline uint32_t rv_udp_newest_sacked(const rv_udp_t *u, const rv_udp_tx_t *tx,
                                            uint32_t none)
{
    for (uint32_t s = tx->next; s != tx->rcv;) {
        s--;
        if (tx->st[s % u->win] & RV_UDP_SACKED) return s;
    }
    return none;
}

/* Datagrams in flight to p: sent, not acknowledged cumulatively or selectively. */
static inline uint32_t rv_udp_cc_pipe(const rv_udp_peer_t *p)
{
    return (p->tx[0].next - p->tx[0].rcv) + (p->tx[1].next - p->tx[1].rcv) - p->cc.sacked;
}

/* May nfrag more datagrams leave for p? Always when none is in flight (a message larger than
 * the window still goes, alone). */
static inline int rv_udp_cc_room(const rv_udp_t *u, const rv_udp_peer_t *p, uint32_t nfrag)
{
    if (!u->cc_on) return 1;
    uint32_t pipe = rv_udp_cc_pipe(p);
    return pipe == 0 || pipe + nfrag <= p->cc.cwnd;
}

#endif /* RV_UDP_INT_H */
