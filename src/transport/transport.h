/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/transport.h: the contract between the engines and every transport ("conduit"). */
#ifndef RV_TRANSPORT_H
#define RV_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "gasnetex.h"
#include "core/job.h"
#include "core/progress.h"
#include "core/segmap.h"
#include "core/dt.h"

#define RV_TP_ABI 1

/* send() result when the peer's receive space is full right now. */
#define RV_TP_AGAIN 1

/* Limits a transport reports at open. */
typedef struct rv_tp_limits {
    size_t    max_msg;       /* largest hdrlen + paylen one send() accepts (>= 64 KiB + 256) */
    uintptr_t max_seg_local; /* largest segment seg_attach() can provide per rank */
    /* Optional RDMA (ops.put/get); both 0 when the transport has none. */
    size_t    max_rdma;      /* largest nbytes one put()/get() accepts */
    unsigned  imm_bits;      /* bits of 'imm' a put() can carry to the target (0: none) */
    /* 0, or: a message of at most this many bytes (hdrlen + paylen) travels as one packet,
     * a larger one is cut into several; an engine cutting a long transfer into messages
     * (rma's reference Put) keeps them within it (udp: one datagram). */
    size_t    pref_msg;
} rv_tp_limits_t;

/* ---- optional RDMA ------------------------------------------------------------------
 * An engine's completion object for one put()/get(). The transport calls done() from
 * poll() only (never from inside put/get), once per event or with several events
 * together; the object must stay valid until the last event it is owed. */
typedef struct rv_tp_cmpl rv_tp_cmpl_t;
struct rv_tp_cmpl {
    void (*done)(rv_tp_cmpl_t *c, unsigned events);
};
#define RV_TP_EV_LOCAL  1u /* put: the source may be reused; get: the data is in place */
#define RV_TP_EV_REMOTE 2u /* the data is in the target's memory, visible to anyone */
/* put() returns 0 (accepted; the source is already reusable), RV_TP_AGAIN (nothing
 * happened) or RV_TP_LC_LATER (accepted; a LOCAL event follows). */
#define RV_TP_LC_LATER 2
/* put() flags: deliver 'imm' (limits.imm_bits wide) to the target's rv_am_imm_deliver()
 * on channel 'chan' once the data is in place; no REMOTE event is owed then. */
#define RV_TP_PUT_IMM(chan) (4u | (unsigned)(chan))
#define RV_TP_PUT_IMM_FLAG  4u
/* put() flag, a hint: the caller waits for this put's REMOTE event right away, alone
 * (a blocking put), so a transport may prefer latency over batching. */
#define RV_TP_PUT_WAITED    8u

/* Hot-path operations. 'size' first; the table only grows at the end. */
typedef struct rv_tp_ops {
    size_t size;
    /* Copies one message, hdr then payload, into peer's receive space for 'chan'.
     * The receiver sees them as one contiguous message of hdrlen + paylen bytes,
     * starting 8-byte aligned; hdrlen is a multiple of 8 so the payload is too.
     * Returns 0, or RV_TP_AGAIN if there is no room now (nothing was written).
     * Never blocks and never polls. Safe to call from several threads. */
    int (*send)(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                const void *payload, size_t paylen);
    /* Delivers pending messages of the channels in chan_mask by calling
     * rv_am_deliver() once per message, in order per (sender, channel).
     * Returns the number delivered. May be called recursively from inside a
     * delivered handler with a narrower mask (replies only). */
    int (*poll)(void *priv, unsigned chan_mask);
    /* Optional (NULL, or only for peers whose rv_segmap_t has RV_SEG_RDMA): writes
     * nbytes (<= limits.max_rdma) from 'local' (any memory) to 'remote', an address in
     * the owner's segment. One REMOTE event follows (none with RV_TP_PUT_IMM), and one
     * LOCAL event if RV_TP_LC_LATER was returned. Never blocks, never polls. */
    int (*put)(void *priv, gex_Rank_t peer, uintptr_t remote, const void *local, size_t nbytes,
               rv_tp_cmpl_t *c, unsigned flags, uint32_t imm);
    /* Reads nbytes from 'remote' in peer's segment into 'local' (any memory).
     * Returns 0 (one LOCAL|REMOTE event follows once the data is in place) or RV_TP_AGAIN. */
    int (*get)(void *priv, gex_Rank_t peer, void *local, uintptr_t remote, size_t nbytes,
               rv_tp_cmpl_t *c);
    /* Optional (NULL: only the primordial endpoints' segments are reached by RDMA): put() and
     * get() into the segment of endpoint index 'seg' (> 0) of peer, for peers whose entry in
     * that index's table has RV_SEG_RDMA (seg_peer said so). No RV_TP_PUT_IMM. */
    int (*put_seg)(void *priv, gex_Rank_t peer, unsigned seg, uintptr_t remote,
                   const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags);
    int (*get_seg)(void *priv, gex_Rank_t peer, unsigned seg, void *local, uintptr_t remote,
                   size_t nbytes, rv_tp_cmpl_t *c);
    /* Optional (all three or none): a send whose payload the caller writes in place, in the
     * peer's receive space (negotiated-payload AMs without a copy). reserve() holds room for
     * one message of hdrlen (a multiple of 8) + up to maxlen bytes on (peer, chan) and returns
     * where its payload goes, 16-byte aligned; or NULL when there is no room now (nothing
     * held; never blocks, never polls). Until the same thread's commit() or unreserve() for
     * that (peer, chan), other sends of this process to it wait, so the caller writes its
     * payload and commits without calling into the transport in between. commit() publishes
     * the message: hdr (hdrlen bytes, as reserved), then the first paylen (<= maxlen) bytes
     * written at the reserved address; the receiver sees it as send() would have made it.
     * unreserve() drops the reservation: nothing is sent. */
    void *(*reserve)(void *priv, gex_Rank_t peer, unsigned chan, size_t hdrlen, size_t maxlen);
    void (*commit)(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                   size_t paylen);
    void (*unreserve)(void *priv, gex_Rank_t peer, unsigned chan);
    /* Optional (NULL, or NULL returned: none): a 64-byte line of jobrank 'rank' (8 words), zero
     * at open, in memory every rank of the job maps; each rank writes only its own line, any
     * rank reads any line (plain loads and stores, C11 atomics). For flags that need no message:
     * the primordial team's barrier (coll/barrier.c). */
    uint64_t *(*sync_line)(void *priv, gex_Rank_t rank);
    /* Optional (NULL: the wait loop keeps busy-polling): a wait loop's poll found nothing to
     * do. The transport may block the calling thread briefly until traffic arrives (it decides
     * when: e.g. after many such calls in a row) and returns; never delivers, never sends. */
    void (*idle)(void *priv);
    /* Optional (NULL: send() only): send() without copying the payload, which the transport
     * may read (e.g. to retransmit it) until the peer has received the message. The caller
     * keeps the payload valid and unchanged until a message the peer sent after this one was
     * delivered there has been delivered here (rv_am_deliver), e.g. the acknowledgement of a
     * Put chunk: the transport has taken the message as received by then. The rest as send();
     * a transport may copy the payload all the same (small ones, messages of several packets). */
    int (*send_ref)(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                    const void *payload, size_t paylen);
    /* Optional (NULL, or NULL returned: none): words that tell, without a call, that poll() of
     * all channels would find nothing (rv_poll_hint_t, core/progress.h). Asked once, after
     * open; the hint lives until close. */
    const rv_poll_hint_t *(*poll_hint)(void *priv);
} rv_tp_ops_t;

/* ---- optional native atomics ------------------------------------------------------------
 * An engine's record of one atomic operation: opaque to the transport, which hands it back. */
struct rv_amo_op;
/* The engine's completion of one native atomic, registered through desc->atomics(): the
 * transport calls it exactly once per issued operation, with the value it found at the target
 * (4-byte types in the low bits), from poll() on any thread; the record is not touched after. */
typedef void (*rv_tp_amo_done_t)(struct rv_amo_op *o, uint64_t old);

/* A transport's native (NIC) atomics. A domain uses them only when supports() accepts every
 * op of its set for its type; then every operation of that domain, to any peer including the
 * caller itself, goes through issue(), so NIC and CPU atomics never mix on the same data.
 * The types, their sizes, names and valid ops are core/dt.h's. */
typedef struct rv_ratomic_native {
    size_t      size;  /* sizeof(rv_ratomic_native_t): the table only grows at the end */
    const char *name;  /* e.g. "libfabric fi_atomic (verbs)" */
    /* 1 if 'op' on 'dt' is performed natively for every peer of the job. */
    int (*supports)(gex_DT_t dt, gex_OP_t op);
    /* Starts op on the word at owner address tgt of jobrank jr. Later calls the registered
     * done(o, old) exactly once. Returns 0, or 1 only under GEX_FLAG_IMMEDIATE when there is
     * no room now (then nothing was started). */
    int (*issue)(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a, uint64_t b,
                 gex_Flags_t flags, struct rv_amo_op *o);
} rv_ratomic_native_t;

/* A transport's description: rv_tp_<name>_desc, named by its line in registry.def (which also
 * holds its priority). */
typedef struct rv_tp_desc {
    size_t      size;
    const char *name;
    unsigned    abi;        /* RV_TP_ABI */
    size_t      priv_size;  /* the core allocates this much zeroed private state */
    /* Can this transport serve every peer of this job? 0 = yes. */
    int  (*probe)(const rv_job_t *job);
    /* Collective over the job (may use rv_boot_*). Fills *lim. 0 or -1. */
    int  (*open)(void *priv, const rv_job_t *job, rv_tp_limits_t *lim);
    /* Collective: creates this rank's segment of 'size' bytes (page multiple, may
     * be 0 for "none") and fills map[0..job->size-1] for every rank. 0 or -1. */
    int  (*seg_attach)(void *priv, uintptr_t size, rv_segmap_t *map);
    /* Releases everything open() and seg_attach() made. Not collective. */
    void (*close)(void *priv);
    const rv_tp_ops_t *ops;
    /* Optional (NULL: none): the transport's native remote atomics for this job (below), or
     * NULL when its provider has none. Called after open, by ratomic/, which passes its
     * completion 'done' (always the same function). */
    const struct rv_ratomic_native *(*atomics)(void *priv, rv_tp_amo_done_t done);
    /* Optional (NULL: RDMA reaches only segments seg_attach made). For a segment the client
     * binds with gex_EP_BindSegment to endpoint index 'seg' (0: the primordial one, instead
     * of attaching; > 0 only with ops.put_seg/get_seg): seg_register() makes
     * [addr, addr + size) this rank's segment of that index for RDMA, replacing an earlier one
     * of the same index > 0 (not collective; 0, or -1 with the reason printed; *key receives
     * what peers need; addr NULL and size 0 for an index > 0: release its registration, the
     * segment is going away), and seg_peer() records a peer's published (base, size, key) and
     * returns the rv_segmap_t flags for it (RV_SEG_RDMA when RDMA reaches it). */
    int      (*seg_register)(void *priv, unsigned seg, void *addr, uintptr_t size,
                             uint64_t *key);
    unsigned (*seg_peer)(void *priv, unsigned seg, gex_Rank_t peer, uintptr_t base,
                         uintptr_t size, uint64_t key);
} rv_tp_desc_t;

/* Upcall: a transport hands each received message to the AM engine here.
 * 'msg' is 8-byte aligned and stays valid until this returns. */
void rv_am_deliver(gex_Rank_t src, unsigned chan, void *msg, size_t len);
/* Upcall: the data of a put() with RV_TP_PUT_IMM from 'src' is in place here. Requests'
 * (chan RV_CHAN_REQ) follow the same rules as rv_am_deliver(): not from a replies-only poll. */
void rv_am_imm_deliver(gex_Rank_t src, unsigned chan, uint32_t imm);

/* The transport in use, its private state, hot-path ops and limits (transport/inuse.c; opened
 * by api/client.c). For the engines and the api: a transport uses its own priv, never this. */
typedef struct rv_tp_state {
    const rv_tp_desc_t *desc;
    void               *priv;
    rv_tp_ops_t         ops;  /* copied by value: one indirection on the hot path */
    rv_tp_limits_t      lim;
} rv_tp_state_t;
extern rv_tp_state_t rv_tp;

/* ---- the registry (registry.def) and the choice, in transport.c ------------------------- */
typedef struct rv_tp_entry {
    const char         *name;
    int                 priority; /* higher wins when several accept the job */
    const char         *option;   /* the CMake option that builds it ("-": always built) */
    const char         *needs;    /* the pkg-config module it needs ("-": nothing) */
    const char         *note;     /* what it serves, in a few words */
    const rv_tp_desc_t *desc;     /* NULL: not built into this library */
} rv_tp_entry_t;

/* Every transport registry.def lists, in its order, built or not; ends with name NULL. */
extern const rv_tp_entry_t rv_tp_registry[];

/* The built entry named 'name', or NULL. */
const rv_tp_entry_t *rv_tp_find(const char *name);

/* Picks the transport for 'job', the rule gex_Client_Init and rivet-info share:
 * RIVET_TRANSPORT when set, else the highest-priority built transport whose probe accepts the
 * job (one that cannot beat the best accepted so far is not probed: a network probe costs
 * milliseconds). Returns the entry with why it was chosen in why[n], or NULL with the error
 * (naming the setting and the job) in why[n]. */
const rv_tp_entry_t *rv_tp_select(const rv_job_t *job, char *why, size_t n);

#endif /* RV_TRANSPORT_H */
