/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_int.h: the libfabric transport's private state and its internal interfaces. */
#ifndef RV_OFI_INT_H
#define RV_OFI_INT_H

#include "transport/transport.h"
#include "core/slist.h"
#include "core/stats.h"
#include "transport/ofi/ofi_stats.h"

#include <pthread.h>
#include <stdatomic.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

/* libfabric is loaded with dlopen when the ofi transport is probed (ofi_dl.c), not linked:
 * its dependencies' constructors (PSM calibration loops, ...) cost every job, shared-memory
 * ones included, a tenth of a second at start-up. The few exported functions Rivet calls go
 * through this table (the inline fi_* wrappers call through the provider's own tables). */
struct rv_ofi_fns {
    __typeof__(fi_getinfo)  *getinfo;
    __typeof__(fi_freeinfo) *freeinfo;
    __typeof__(fi_dupinfo)  *dupinfo;
    __typeof__(fi_fabric)   *fabric;
    __typeof__(fi_strerror) *strerror;
    __typeof__(fi_version)  *version;
};
extern struct rv_ofi_fns rv_ofi_fn;
/* Loads libfabric once (every later call is cheap); 0, or -1 with the reason in *why. */
int rv_ofi_dl_load(const char **why);
#ifndef RV_OFI_DL_IMPL
#define fi_getinfo  (*rv_ofi_fn.getinfo)
#define fi_freeinfo (*rv_ofi_fn.freeinfo)
#define fi_dupinfo  (*rv_ofi_fn.dupinfo)
#define fi_fabric   (*rv_ofi_fn.fabric)
#define fi_strerror (*rv_ofi_fn.strerror)
#define fi_version  (*rv_ofi_fn.version)
#undef fi_allocinfo
#define fi_allocinfo() fi_dupinfo(NULL)
#endif

#define RV_OFI_NRECV   64  /* posted one-message receive buffers (without FI_MULTI_RECV) */
#define RV_OFI_MAX_MSG (65536u + 256u) /* largest hdrlen + paylen of one send() */
#define RV_OFI_NSEND   64  /* staged send buffers */
#define RV_OFI_NROP    256 /* RDMA operations in flight */
#define RV_OFI_NBOUNCE 64  /* bounce buffers for small RDMA */
#define RV_OFI_RC_SLOTS 64 /* registration cache entries */
#define RV_OFI_NAMO    256 /* native atomics in flight */
#define RV_OFI_AMO_NDT 6   /* GEX_DT_{I32,U32,I64,U64,FLT,DBL} */

/* Keys we pick when the provider does not (no FI_MR_PROV_KEY). */
enum { RV_OFI_KEY_SEND = 1, RV_OFI_KEY_RECV, RV_OFI_KEY_SEG, RV_OFI_KEY_BOUNCE, RV_OFI_KEY_ROP,
       RV_OFI_KEY_AMO, RV_OFI_KEY_FLUSH, RV_OFI_KEY_CACHE = 16 };
/* Requested keys of non-primordial endpoints' segments: RV_OFI_KEY_EPSEG + index (far above
 * the registration cache's keys, which count up from RV_OFI_KEY_CACHE). */
#define RV_OFI_KEY_EPSEG (1u << 30)

/* What a completion's op_context points at: every context starts with this. */
enum { RV_OFI_CTX_SEND = 1, RV_OFI_CTX_RECV, RV_OFI_CTX_RMA, RV_OFI_CTX_AMO, RV_OFI_CTX_FLUSH };
typedef struct rv_ofi_ctx {
    struct fi_context fc;
    uint8_t           kind;
} rv_ofi_ctx_t;

/* Every message starts with this; the AM header follows, 8-byte aligned. Credits for the
 * receiver's own Requests to the sender ride on Replies and on control messages. */
#define RV_OFI_CTRL 2u /* chan of a control message: credits (or hello) only, no AM */
typedef struct rv_ofi_hdr {
    uint32_t src;
    uint8_t  chan;    /* RV_CHAN_REQ, RV_CHAN_REP or RV_OFI_CTRL */
    uint8_t  pad;     /* padding bytes at the end (messages are 8-byte multiples) */
    uint16_t want;    /* Request: more credits the sender wished it had had */
    uint16_t credits; /* credits returned to the receiver (for its Requests to the sender) */
    uint16_t lent;    /* of which newly lent from the sender's reserve */
    uint32_t hello;   /* control: 1 at start-up (connection warm-up) */
} rv_ofi_hdr_t;

typedef struct rv_ofi_sbuf {
    rv_ofi_ctx_t         ctx;
    rv_slink_t           link;   /* o->sfree */
    unsigned char       *data;
} rv_ofi_sbuf_t;

/* A posted receive region: with FI_MULTI_RECV many messages packed back to back,
 * else one message. It is posted again once the provider released it, every message
 * carved from it has completed (messages from different connections may complete after
 * the release: README.md, Known problems) and every one has been handled (or copied to
 * the stash). */
typedef struct rv_ofi_region {
    rv_ofi_ctx_t      ctx;
    unsigned char    *buf;
    size_t            size;
    int               released; /* the provider filled it */
    unsigned          pending;  /* a handler is running on its message */
    size_t            done;     /* bytes of completed messages since it was posted */
    size_t            end;      /* end of the furthest completed message */
    size_t            extent;   /* bytes carved from it, known at the release */
} rv_ofi_region_t;

/* A Request (message, or a put's immediate data) that arrived while only replies
 * could run (inside a handler). */
typedef struct rv_ofi_stashed {
    void    *msg;   /* NULL: immediate data 'imm' */
    size_t   len;
    uint32_t src;
    uint32_t imm;
} rv_ofi_stashed_t;

/* A registration cache entry: a page-rounded range registered once. */
typedef struct rv_ofi_rce {
    uintptr_t      start, end;
    struct fid_mr *mr;
    unsigned       refs;   /* operations using it now */
    uint64_t       stamp;  /* last use, for LRU */
    uint8_t        live;   /* slot in use */
    uint8_t        stale;  /* superseded by a merged entry: deregister at refs 0 */
} rv_ofi_rce_t;

/* rv_ofi_rop_t.flush: a write's remote completion comes from FI_DELIVERY_COMPLETE (or the
 * op needs none), from a read of its own that follows it, or from the peer's next flush. */
enum { RV_OFI_FL_NONE, RV_OFI_FL_READ, RV_OFI_FL_PEER };

/* One RDMA operation in flight. */
typedef struct rv_ofi_rop {
    rv_ofi_ctx_t       ctx;
    uint8_t            is_get;
    uint8_t            events;  /* rv_tp events to report on completion */
    uint8_t            flush;   /* RV_OFI_FL_*: how the write's remote completion is learnt */
    gex_Rank_t         peer;
    rv_tp_cmpl_t      *c;
    unsigned char     *bounce;  /* bounce buffer to return (a get copies out of it) */
    void              *getdst;
    size_t             nbytes;
    uint64_t           raddr;   /* remote address as the provider wants it */
    uint64_t           rkey;    /* the target segment's key */
    rv_ofi_rce_t      *rce;     /* cache entry to release */
    union { /* an op is on the free list or on a flush list, never both */
        rv_slink_t         link;    /* o->rfree */
        struct rv_ofi_rop *next;    /* fpeer pend/covered */
    };
    uint64_t           scratch; /* target of the flush read */
} rv_ofi_rop_t;

/* Per-peer flush state (RIVET_OFI_PUT_COMPLETION=flush): writes whose transmit completion
 * arrived wait in 'pend' for the next flush, a small read from the peer that the provider
 * orders after them (FI_ORDER_RAW); its completion is their remote completion. At most one
 * flush per peer is in flight ('covered' lists its writes). Only the polling thread (plock)
 * touches this. */
typedef struct rv_ofi_fpeer {
    rv_ofi_ctx_t       ctx;      /* RV_OFI_CTX_FLUSH */
    uint8_t            inflight;
    uint8_t            listed;   /* in o->fdirty */
    uint8_t            age;      /* polls it has waited in o->fdirty */
    uint32_t           npend;
    rv_ofi_rop_t      *pend, *pend_tail, *covered;
    uint64_t           raddr;    /* a target address of the latest write: the flush reads it */
    uint64_t           rkey;     /* and its segment's key */
    uint64_t           scratch;  /* where the flush read lands */
} rv_ofi_fpeer_t;

/* One native atomic in flight: its operands and result live here (registered when local
 * buffers need descriptors). */
struct rv_amo_op;
typedef struct rv_ofi_amo {
    rv_ofi_ctx_t       ctx;
    uint8_t            size;    /* 4 or 8 */
    struct rv_amo_op  *op;      /* the ratomic record to complete */
    uint64_t           operand, compare, result;
    rv_slink_t         link;    /* o->afree */
} rv_ofi_amo_t;

typedef struct rv_ofi_rseg {
    uint64_t base; /* owner's segment address */
    uint64_t size;
    uint64_t key;
} rv_ofi_rseg_t;

typedef struct rv_ofi {
    uint32_t           me, size;
    struct fi_info    *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av     *av;
    struct fid_cq     *cq;
    struct fid_ep     *ep;
    fi_addr_t         *addr;      /* [size] */
    size_t             bufsz;     /* bytes of a send buffer (largest message + our header) */
    size_t             inject;    /* largest message sent with fi_inject */
    int                mr_local;  /* local buffers need descriptors (FI_MR_LOCAL, or forced) */
    int                prov_key;  /* FI_MR_PROV_KEY */
    int                virt_addr; /* FI_MR_VIRT_ADDR: remote addresses are virtual */
    int                rma;       /* RDMA usable (FI_RMA and a way to learn remote completion) */
    int                dc;        /* FI_DELIVERY_COMPLETE (else a follow-up read) */
    int                pflush;    /* puts complete by per-peer flushes: 1 auto, 2 every put */
    size_t             rma_inject;/* largest write sent with FI_INJECT */
    struct fid_mr     *smr, *rmr;
    unsigned char     *spool, *rpool;
    rv_ofi_sbuf_t      sbufs[RV_OFI_NSEND];
    rv_flist_t         sfree;
    rv_ofi_region_t   *regions;
    unsigned           nregions;
    size_t             rsize;     /* bytes per region */
    int                multi;     /* FI_MULTI_RECV regions */
    /* credits (ofi_credit.c) */
    struct rv_ofi_peer *peers;    /* [size] */
    uint32_t          *dirty;     /* peers owed credits, to flush at the end of a poll */
    uint32_t           ndirty;
    int32_t            reserve;   /* credits this rank can still lend */
    uint32_t           credits0;  /* initial grant per peer */
    uint32_t           hellos;    /* start-up control messages received */
    pthread_mutex_t    plock;     /* one polling thread at a time */
    rv_ofi_stashed_t  *stash;     /* ring of deferred Requests */
    size_t             stash_cap, stash_head, stash_n;
    /* segment */
    void              *seg;
    uintptr_t          seglen;
    struct fid_mr     *segmr;
    void              *segdesc;
    int                seg_client; /* seg is client memory (gex_EP_BindSegment): not ours to unmap */
    rv_ofi_rseg_t     *rseg;      /* [size] every peer's segment registration */
    rv_ofi_rseg_t     *eprseg[GASNET_MAXEPS]; /* [i][size]: endpoint index i > 0's */
    struct fid_mr     *epmr[GASNET_MAXEPS];   /* my endpoint index i > 0's registration */
    void             **nbrseg;    /* [size] neighbourhood peers' segments mapped here */
    /* RDMA */
    rv_ofi_rop_t      *rops;      /* [RV_OFI_NROP] */
    struct fid_mr     *ropmr;
    rv_flist_t         rfree;
    size_t             bsize;     /* bytes per bounce buffer (RIVET_OFI_BOUNCE) */
    unsigned char     *bpool;
    struct fid_mr     *bmr;
    void              *bfree[RV_OFI_NBOUNCE];
    unsigned           bnfree;
    rv_spin_t          block;
    /* per-peer flushes (pflush) */
    rv_ofi_fpeer_t    *fpeers;    /* [size] */
    struct fid_mr     *fpmr;
    uint32_t          *fdirty;    /* peers with writes waiting for a flush */
    uint32_t           fndirty;
    /* registration cache */
    pthread_mutex_t    rclock;
    rv_ofi_rce_t       rc[RV_OFI_RC_SLOTS];
    uint64_t           rcclock;
    size_t             rcbytes, rcmax;
    uint64_t           next_key;
    /* native atomics (ofi_amo.c) */
    int                amo_cap;   /* the provider was opened with FI_ATOMIC */
    int                amo_on;    /* native atomics offered (some op on some type) */
    gex_OP_t           amo_ops[RV_OFI_AMO_NDT]; /* ops native on every rank, per type */
    rv_ofi_amo_t      *amos;      /* [RV_OFI_NAMO] */
    rv_flist_t         afree;
    struct fid_mr     *amomr;
    char               amo_name[96];
    rv_ofi_stats_t     st;        /* counters (relaxed: tests read them at quiescence) */
} rv_ofi_t;

/* Per peer flow-control state. */
typedef struct rv_ofi_peer {
    _Atomic int32_t  avail;    /* sender: credits left for my Requests to this peer */
    _Atomic uint32_t want;     /* sender: stalled for credits since the last Request */
    /* target side, only under plock (the polling thread): */
    uint32_t         owed;     /* credits to give back to this peer */
    uint32_t         lent_now; /* of which new loans, to announce */
    uint32_t         loan;     /* credits it holds beyond the initial grant */
    uint8_t          dirty;    /* listed in o->dirty */
} rv_ofi_peer_t;

int  rv_ofi_credit_open(rv_ofi_t *o);
void rv_ofi_credit_close(rv_ofi_t *o);
/* Sender: takes a credit for a Request to peer (0: none left; the stall is noted). */
int  rv_ofi_credit_take(rv_ofi_t *o, uint32_t peer, rv_ofi_hdr_t *h);
void rv_ofi_credit_untake(rv_ofi_t *o, uint32_t peer, const rv_ofi_hdr_t *h);
/* Credits (and loans) that came back from peer. */
void rv_ofi_credit_returned(rv_ofi_t *o, uint32_t peer, unsigned credits, unsigned lent);
/* Target: a Request from peer is about to run; may lend from the reserve. */
void rv_ofi_credit_consume(rv_ofi_t *o, uint32_t peer, unsigned want);
/* Target: puts what peer is owed into a Reply's header (plock held), or takes it back. */
void rv_ofi_credit_attach(rv_ofi_t *o, uint32_t peer, rv_ofi_hdr_t *h);
void rv_ofi_credit_detach(rv_ofi_t *o, uint32_t peer, const rv_ofi_hdr_t *h);
/* Sends what is still owed as control messages (the implicit Replies). */
void rv_ofi_credit_flush(rv_ofi_t *o);
/* Collective start-up: every rank sends every other rank a hello and waits for all of them,
 * so connections exist before the first (maybe IMMEDIATE) message. */
int  rv_ofi_hello(rv_ofi_t *o);

/* Receive side and sends (ofi_msg.c). */
int  rv_ofi_recv_open(rv_ofi_t *o);      /* before fi_enable */
void rv_ofi_recv_post_all(rv_ofi_t *o);  /* after fi_enable */
void rv_ofi_recv_close(rv_ofi_t *o);
int  rv_ofi_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                 const void *payload, size_t paylen);
int  rv_ofi_poll(void *priv, unsigned chan_mask);
/* fi_inject of a complete small message; 0 or RV_TP_AGAIN. */
int  rv_ofi_inject(rv_ofi_t *o, uint32_t peer, const void *msg, size_t len);

int  rv_ofi_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map);
int  rv_ofi_seg_register(void *priv, unsigned seg, void *addr, uintptr_t size, uint64_t *key);
unsigned rv_ofi_seg_peer(void *priv, unsigned seg, gex_Rank_t peer, uintptr_t base,
                         uintptr_t size, uint64_t key);
void rv_ofi_seg_close(rv_ofi_t *o);
uintptr_t rv_ofi_seg_limit(const rv_job_t *job); /* bound on a shared segment (0: none) */

/* Registers [buf, buf+len) for 'access' with a key of our choice unless the provider
 * picks it; 0 or a negative fi_errno. */
int rv_ofi_mr_reg(rv_ofi_t *o, void *buf, size_t len, uint64_t access, uint64_t key,
                  struct fid_mr **mr);

/* RDMA (ofi_rma.c). */
int  rv_ofi_rma_open(rv_ofi_t *o);
void rv_ofi_rma_close(rv_ofi_t *o);
int  rv_ofi_put(void *priv, gex_Rank_t peer, uintptr_t remote, const void *local, size_t nbytes,
                rv_tp_cmpl_t *c, unsigned flags, uint32_t imm);
int  rv_ofi_get(void *priv, gex_Rank_t peer, void *local, uintptr_t remote, size_t nbytes,
                rv_tp_cmpl_t *c);
int  rv_ofi_put_seg(void *priv, gex_Rank_t peer, unsigned seg, uintptr_t remote,
                    const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags);
int  rv_ofi_get_seg(void *priv, gex_Rank_t peer, unsigned seg, void *local, uintptr_t remote,
                    size_t nbytes, rv_tp_cmpl_t *c);
/* A completion whose context is an RDMA op (poll holds plock). */
void rv_ofi_rma_complete(rv_ofi_t *o, rv_ofi_rop_t *op);
/* A flush read completed (poll holds plock). */
void rv_ofi_flush_complete(rv_ofi_t *o, rv_ofi_fpeer_t *f);
/* End of a poll pass (plock held): issues flushes to peers with waiting writes; 'drained':
 * the completion queue was empty, so no more transmit completions are about to arrive. */
void rv_ofi_flush_issue(rv_ofi_t *o, int drained);

/* Native atomics (ofi_amo.c). open is collective (every rank, after RDMA is agreed). */
int  rv_ofi_amo_open(rv_ofi_t *o);
void rv_ofi_amo_close(rv_ofi_t *o);
/* A completion whose context is an atomic (poll holds plock). */
void rv_ofi_amo_complete(rv_ofi_t *o, rv_ofi_amo_t *c);
/* rv_tp_desc_t.atomics. */
const struct rv_ratomic_native *rv_ofi_amo_native(void *priv, rv_tp_amo_done_t done);

/* Registration cache (ofi_regcache.c): a descriptor for [addr, addr+len). Returns 0
 * (*e to release later; NULL when nothing needs releasing) or RV_TP_AGAIN. */
int  rv_ofi_rc_acquire(rv_ofi_t *o, const void *addr, size_t len, rv_ofi_rce_t **e, void **desc);
void rv_ofi_rc_release(rv_ofi_t *o, rv_ofi_rce_t *e);
void rv_ofi_rc_close(rv_ofi_t *o);
void rv_ofi_rc_stats(rv_ofi_t *o, rv_ofi_stats_t *out);

/* Before reporting a failure with error code err: when err says the peer is unreachable
 * (its endpoint is gone: it exited or died), lets the job's end reach this rank first
 * (rv_exit_await_end). Error paths only. */
void rv_ofi_peer_failed(int err);

/* Counters may be bumped by several threads. */
#define RV_OFI_COUNT(o, field, n) __atomic_fetch_add(&(o)->st.field, (n), __ATOMIC_RELAXED)

/* Immediate data of a remote write: (src << 32) | (chan << 31) | imm (31 bits). */
#define RV_OFI_IMM(src, chan, imm) \
    ((uint64_t)(src) << 32 | (uint64_t)((chan) & 1) << 31 | ((imm) & 0x7fffffffu))

#endif /* RV_OFI_INT_H */
