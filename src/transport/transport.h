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
} rv_tp_limits_t;

/* One entry per jobrank, filled by seg_attach(). */
typedef struct rv_segmap {
    void     *owner_base; /* segment base in the owner's address space (NULL: none) */
    void     *local_base; /* same memory mapped in this process, or NULL if not mapped */
    uintptr_t size;       /* segment length in bytes (0: none) */
} rv_segmap_t;

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
} rv_tp_ops_t;

/* A transport's description, registered in transport.c's list. */
typedef struct rv_tp_desc {
    size_t      size;
    const char *name;
    unsigned    abi;        /* RV_TP_ABI */
    int         priority;   /* higher wins when several probe successfully */
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
} rv_tp_desc_t;

/* Upcall: a transport hands each received message to the AM engine here.
 * 'msg' is 8-byte aligned and stays valid until this returns. */
void rv_am_deliver(gex_Rank_t src, unsigned chan, void *msg, size_t len);

/* The transports built into this library (transport.c). */
extern const rv_tp_desc_t *const rv_tp_builtin[];

#endif /* RV_TRANSPORT_H */
