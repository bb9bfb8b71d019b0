/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_int.h: the UCX (UCP) transport's private state, shared by its files. */
#ifndef RV_UCX_INT_H
#define RV_UCX_INT_H

#include "transport/transport.h"
#include "transport/ucx/ucx_stats.h"
#include "core/stats.h"
#include "core/slist.h"
#include "core/spin.h"

#include <pthread.h>
#include <stdint.h>
#include <ucp/api/ucp.h>
#include "transport/ucx/ucx_dl.h" /* UCX calls through rv_ucx_fn (loaded on first use) */

#define RV_UCX_MAX_MSG   (64 * 1024 + 256) /* largest hdrlen + paylen of one send() */
#define RV_UCX_AM_ID     7u                /* the one UCP AM id Rivet registers */
#define RV_UCX_NSEND     64                /* send buffers (messages UCX has not sent yet) */
#define RV_UCX_SMALL     512               /* messages up to this try an immediate send first */
#define RV_UCX_ROP_CHUNK 256               /* operation slots allocated at a time */
#define RV_UCX_NROP_MAX  8192              /* RDMA operations in flight or awaiting a flush */

/* The UCP AM header of every message: who sent it and on which channel. The AM header and
 * payload (rv_am_deliver's message) are the UCP data. RV_UCX_IMM: no data, 'imm' carries a
 * put's immediate value (AM Long reassembly). RV_UCX_CREDIT: no data, 'imm' is a number of
 * Request credits given back; a Reply's 'imm' gives credits back too. */
#define RV_UCX_IMM    2u
#define RV_UCX_CREDIT 4u
typedef struct rv_ucx_hdr {
    uint32_t src;
    uint8_t  chan; /* RV_CHAN_REQ, RV_CHAN_REP, | RV_UCX_IMM; or RV_UCX_CREDIT */
    uint8_t  pad[3];
    uint32_t imm;
    uint32_t pad2;
} rv_ucx_hdr_t;

/* A send buffer: a message UCX has taken but not yet sent. */
typedef struct rv_ucx_sbuf {
    rv_slink_t          link;   /* on u->sfree while free */
    struct rv_ucx      *u;
    unsigned char      *data;
} rv_ucx_sbuf_t;

/* A message received, waiting for a poll that may deliver its channel. 'data' is UCX's
 * (held with UCS_INPROGRESS, released after delivery) or our copy ('copied'). */
typedef struct rv_ucx_msg {
    void    *data;
    size_t   len;
    uint32_t src;
    uint32_t imm;
    uint8_t  copied;
    uint8_t  is_imm;
} rv_ucx_msg_t;

/* A FIFO of received messages of one channel (grows when full; the polling thread only). */
typedef struct rv_ucx_q {
    rv_ucx_msg_t *m;
    size_t        cap, head, n;
} rv_ucx_q_t;

/* One RDMA operation in flight, or finished and waiting for the poll to report it. */
typedef struct rv_ucx_rop {
    rv_slink_t         link;    /* on u->rfree while free */
    struct rv_ucx_rop *next;    /* a peer's pending puts, or the finished list */
    struct rv_ucx     *u;
    rv_tp_cmpl_t      *c;
    gex_Rank_t         peer;
    uint8_t            events;  /* to report when done */
    uint8_t            is_get;
    uint8_t            imm_chan;/* put with immediate data: 1 + channel (0: none) */
    uint32_t           imm;
    ucs_status_t       status;
    struct rv_amo_op  *amo;     /* a native atomic: the ratomic record to complete */
    uint64_t           operand; /* its operand and result (UCX reads and writes them) */
    uint64_t           result;
    uint8_t            amo_size;
} rv_ucx_rop_t;

/* Per peer: endpoint, remote segments, and puts waiting for their remote completion (a
 * flush of the endpoint: every put queued before it is then complete at the target). */
typedef struct rv_ucx_peer {
    ucp_ep_h       ep;
    ucp_rkey_h     rkey;          /* its primordial segment's */
    uint64_t       base, size;
    ucp_rkey_h     eprkey[GASNET_MAXEPS]; /* its endpoint index i > 0's */
    uint64_t       epbase[GASNET_MAXEPS];
    volatile int   dead;          /* the endpoint failed: its status */
    /* AM flow control: a Request costs its sender one of the target's credits; the target
     * gives them back once it delivered them (on a Reply, or in a credit message) */
    int32_t        avail;         /* credits left for Requests to this peer (atomic) */
    uint32_t       owed;          /* Requests from this peer delivered, not given back (atomic) */
    uint8_t        retry;         /* its credit message could not be sent: on u->cretry */
    /* flush state (lock u->flock) */
    rv_ucx_rop_t  *pend, *pend_tail; /* puts locally done or in flight, not yet flushed */
    rv_ucx_rop_t  *covered;       /* the puts the flush in flight completes */
    unsigned       npend;
    uint8_t        listed, inflight, urgent;
} rv_ucx_peer_t;

typedef struct rv_ucx {
    uint32_t        me, size;
    ucp_context_h   ctx;
    ucp_worker_h    worker;
    rv_ucx_peer_t  *peers;        /* [size] */
    int             rma;          /* put/get by UCP RMA */
    int             amo;          /* native atomics offered (UCP_FEATURE_AMO32/64) */
    unsigned        no_err_mode;  /* endpoints without peer failure detection */
    char            rdma_dev[64]; /* the RDMA device UCX found (empty: none) */
    /* sends */
    unsigned char  *spool;
    rv_ucx_sbuf_t   sbufs[RV_UCX_NSEND];
    rv_flist_t      sfree;
    /* receive queues, per channel: UCX's callback pushes (in the polling thread, or in a
     * sender's for its own rank over UCX's self transport), the polling thread pops */
    rv_ucx_q_t      q[2];
    uint32_t        credits0;     /* RIVET_UCX_CREDITS: each peer's initial credits */
    uint32_t       *cretry;       /* peers owed a credit message that found no room (poller) */
    uint32_t        ncretry;
    rv_spin_t       qlock;
    pthread_mutex_t plock;
    /* RDMA */
    rv_ucx_rop_t   *rchunk[RV_UCX_NROP_MAX / RV_UCX_ROP_CHUNK]; /* slots, allocated on demand */
    unsigned        nrchunk;
    rv_spin_t       glock;        /* growing the slots */
    rv_flist_t      rfree;        /* free operation slots */
    rv_ucx_rop_t   *rdone, *rdone_tail; /* finished, to report from poll */
    rv_spin_t       rlock;        /* rdone */
    rv_spin_t       flock;        /* per-peer pending puts, fdirty */
    uint32_t       *fdirty;       /* peers with pending puts */
    uint32_t        fndirty;
    /* segment */
    void           *seg;
    uintptr_t       seglen;
    int             seg_client;
    ucp_mem_h       segmh;
    ucp_mem_h       epmh[GASNET_MAXEPS];
    void          **nbrseg;       /* [size] neighbourhood peers' segments mapped here */
    uint64_t       *nbrlen;
    /* directory: packed rkeys of bound segments, read by peers (ucx_rma.c) */
    unsigned char  *dir;
    ucp_mem_h       dirmh;
    ucp_rkey_h     *dirkey;       /* [size] */
    uint64_t       *dirbase;      /* [size] */
    uint32_t        dirgen;
    rv_ucx_stats_t  st;
} rv_ucx_t;

#define RV_UCX_COUNT(u, f, n) __atomic_fetch_add(&(u)->st.f, (n), __ATOMIC_RELAXED)
#define RV_UCX_DIR_SLOT 1024 /* bytes per directory slot (a packed rkey) */

/* ucx.c */
/* A peer's endpoint failed (or an operation to it): ends the job naming the peer, after
 * giving the launcher the chance to end it first when the peer simply exited. */
_Noreturn void rv_ucx_peer_lost(rv_ucx_t *u, gex_Rank_t peer, ucs_status_t st, const char *what);
/* Progresses the worker once (no delivery): for blocking waits inside the transport. */
void rv_ucx_progress(rv_ucx_t *u);

/* ucx_amo.c: native atomics (ucp_atomic_op_nbx). */
const struct rv_ratomic_native *rv_ucx_amo_native(void *priv, rv_tp_amo_done_t done);
void rv_ucx_amo_complete(rv_ucx_rop_t *op); /* from poll */
rv_ucx_rop_t *rv_ucx_rop_take(rv_ucx_t *u);  /* an operation slot, or NULL */
void rv_ucx_rop_give(rv_ucx_t *u, rv_ucx_rop_t *op); /* back to the free slots */
void rv_ucx_rop_finish(rv_ucx_t *u, rv_ucx_rop_t *op); /* queue for the next poll */

/* ucx_msg.c */
int  rv_ucx_msg_open(rv_ucx_t *u);
void rv_ucx_msg_close(rv_ucx_t *u);
int  rv_ucx_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                 const void *payload, size_t paylen);
int  rv_ucx_poll(void *priv, unsigned chan_mask);
/* Negotiated payload in place (transport.h): a send buffer, sent by commit without a copy. */
void *rv_ucx_reserve(void *priv, gex_Rank_t peer, unsigned chan, size_t hdrlen, size_t maxlen);
void rv_ucx_commit(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                   size_t paylen);
void rv_ucx_unreserve(void *priv, gex_Rank_t peer, unsigned chan);
/* Sends a put's immediate value to peer (from poll, after the put's flush). 0 or -1. */
int  rv_ucx_send_imm(rv_ucx_t *u, gex_Rank_t peer, unsigned chan, uint32_t imm);

/* ucx_rma.c */
int  rv_ucx_rma_open(rv_ucx_t *u);
int  rv_ucx_rma_connect(rv_ucx_t *u); /* collective, after the endpoints exist */
void rv_ucx_rma_close(rv_ucx_t *u);
uintptr_t rv_ucx_seg_limit(const rv_job_t *job); /* bound on a shared segment (0: none) */
int  rv_ucx_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map);
int  rv_ucx_seg_register(void *priv, unsigned seg, void *addr, uintptr_t size, uint64_t *key);
unsigned rv_ucx_seg_peer(void *priv, unsigned seg, gex_Rank_t peer, uintptr_t base,
                         uintptr_t size, uint64_t key);
int  rv_ucx_put(void *priv, gex_Rank_t peer, uintptr_t remote, const void *local, size_t nbytes,
                rv_tp_cmpl_t *c, unsigned flags, uint32_t imm);
int  rv_ucx_get(void *priv, gex_Rank_t peer, void *local, uintptr_t remote, size_t nbytes,
                rv_tp_cmpl_t *c);
int  rv_ucx_put_seg(void *priv, gex_Rank_t peer, unsigned seg, uintptr_t remote,
                    const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags);
int  rv_ucx_get_seg(void *priv, gex_Rank_t peer, unsigned seg, void *local, uintptr_t remote,
                    size_t nbytes, rv_tp_cmpl_t *c);
/* From poll (plock held): reports finished operations and issues due flushes. */
int  rv_ucx_rma_poll(rv_ucx_t *u);

#endif /* RV_UCX_INT_H */
