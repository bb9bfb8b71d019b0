/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/transport.h: the contract between the engines and every transport ("conduit"). */
#ifndef RV_TRANSPORT_H
#define RV_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include "gasnetex.h"
#include "core/job.h"

#define RV_TP_ABI 1

/* Message channels. Requests and replies travel separately so that a reply can
 * always be drained without running request handlers (deadlock freedom). */
enum { RV_CHAN_REQ = 0, RV_CHAN_REP = 1 };
#define RV_CHAN_MASK(c)  (1u << (c))
#define RV_CHAN_MASK_ALL (RV_CHAN_MASK(RV_CHAN_REQ) | RV_CHAN_MASK(RV_CHAN_REP))

/* send() result when the peer's receive space is full right now. */
#define RV_TP_AGAIN 1

/* Limits a transport reports at open. */
typedef struct rv_tp_limits {
    size_t    max_msg;       /* largest hdrlen + paylen one send() accepts (>= 64 KiB + 256) */
    uintptr_t max_seg_local; /* largest segment seg_attach() can provide per rank */
    /* Optional RDMA (ops.put/get); both 0 when the transport has none. */
    size_t    max_rdma;      /* largest nbytes one put()/get() accepts */
    unsigned  imm_bits;      /* bits of 'imm' a put() can carry to the target (0: none) */
} rv_tp_limits_t;

/* One entry per jobrank, filled by seg_attach(). */
typedef struct rv_segmap {
    void     *owner_base; /* segment base in the owner's address space (NULL: none) */
    void     *local_base; /* same memory mapped in this process, or NULL if not mapped */
    uintptr_t size;       /* segment length in bytes (0: none) */
    unsigned  flags;      /* RV_SEG_* (0 unless the transport sets some) */
    uint32_t  tag;        /* the core's: the shared object local_base maps (0: none) */
} rv_segmap_t;

/* rv_segmap_t.flags: ops.put/ops.get reach this peer's segment by RDMA (engines still copy
 * directly when local_base is set). */
#define RV_SEG_RDMA 1u
/* This rank's own entry only: the neighbourhood's other ranks map this segment too. */
#define RV_SEG_SHARED 2u

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
} rv_tp_ops_t;

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
    /* Optional (NULL: none): the transport's native remote atomics for this job, or NULL when
     * its provider has none (see ratomic/ratomic_int.h). Called after open, by ratomic/. */
    const struct rv_ratomic_native *(*atomics)(void *priv);
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
