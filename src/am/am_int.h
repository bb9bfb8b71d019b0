/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_int.h: the AM engine's wire header, tokens, handler context and internal-handler API. */
#ifndef RV_AM_INT_H
#define RV_AM_INT_H

#include "core/core.h"
#include <string.h>
#include "transport/transport.h"

/* Message kinds (low bits) and flags of rv_am_hdr_t.kind. */
enum {
    RV_AM_SHORT = 1,
    RV_AM_MEDIUM = 2,
    RV_AM_LONG = 3,
    RV_AM_KIND_MASK = 0x0f,
    RV_AM_F_INTERNAL = 0x10, /* handler index names an internal (library) handler */
    RV_AM_F_INLINE = 0x20,   /* Long payload travels in the message (target copies it) */
    RV_AM_F_RDMA = 0x40,     /* Long payload comes by RDMA; the message carries its nonce (am_long.c) */
};

/* The header every AM carries, followed by nargs gex_AM_Arg_t, padded to 8 bytes,
 * then the payload (Medium, inline Long). */
typedef struct rv_am_hdr {
    uint8_t  kind;
    uint8_t  handler;
    uint8_t  nargs;
    uint8_t  pad;
    uint32_t nbytes;
    uint64_t dest; /* Long: destination address in the target's address space */
    gex_AM_Arg_t args[];
} rv_am_hdr_t;

#define RV_AM_HDR_BYTES(nargs) \
    ((sizeof(rv_am_hdr_t) + (size_t)(nargs) * sizeof(gex_AM_Arg_t) + 7) & ~(size_t)7)
#define RV_AM_HDR_MAX RV_AM_HDR_BYTES(RV_AM_MAX_ARGS)

/* A token names the message being handled; it lives on the delivering stack. */
struct rv_token {
    gex_Rank_t            src;      /* sender's jobrank */
    uint8_t               is_req;
    uint8_t               is_long;
    uint8_t               replied;
    uint8_t               internal;
    const gex_AM_Entry_t *entry;
    struct rv_ep         *ep;
};

/* Entries registered by gasnet_attach (legacy/): GASNet-1 tables carry no category or
 * arity, so such an entry accepts every category, Request and Reply, and any nargs. */
#define RV_AM_FLAG_LEGACY ((gex_Flags_t)(1u << 31))
/* rv_am_send_internal flag: an inline payload may go by reference (rv_tp.ops.send_ref, when
 * the transport has it): the caller keeps it valid and unchanged until the target's reply to
 * this message is delivered here. */
#define RV_AM_FLAG_PAYLOAD_REF ((gex_Flags_t)(1u << 30))
#define RV_AM_NARGS_ANY 0xFFu

/* The innermost token this thread is running a handler for (NULL: not in a handler). */

/* Internal handlers: library protocols (barrier, RMA reference, ...). They get
 * the arguments as an array; 'buf' as a client handler would (Medium payload,
 * or the Long destination already written). */
typedef void (*rv_am_ifn_t)(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *args,
                            unsigned nargs);
enum {
    RV_AMI_BARRIER = 1,
    RV_AMI_PUT,       /* reference Put chunk (Long request) */
    RV_AMI_PUT_ACK,   /* its remote completion (Short reply) */
    RV_AMI_GET,       /* reference Get chunk request (Short) */
    RV_AMI_GET_REPLY, /* its data (Medium reply) */
    RV_AMI_AMO,       /* reference remote atomic (Short request, ratomic/) */
    RV_AMI_AMO_REPLY, /* its fetched value (Short reply) */
    RV_AMI_COLL,      /* collective data (Medium request): coll/coll.c */
    RV_AMI_VIS_PUT,   /* VIS Put chunk: metadata + data (Medium request): vis/vis_am.c */
    RV_AMI_VIS_ACK,   /* its remote completion (Short reply) */
    RV_AMI_VIS_GET,   /* VIS Get chunk: metadata (Medium request) */
    RV_AMI_VIS_GETR,  /* its data (Medium reply) */
    RV_AMI_PUT_EP,    /* reference Put chunk to a non-primordial endpoint (Medium request) */
    RV_AMI_COUNT = 64
};
void rv_am_register_internal(unsigned index, rv_am_ifn_t fn);
/* The protocol an internal handler index serves, for traces (am_deliver.c). */
const char *rv_am_internal_name(unsigned index, int is_req);

/* Sends an internal Request (chan RV_CHAN_REQ) or Reply (RV_CHAN_REP) of 'kind'
 * (RV_AM_SHORT, _MEDIUM, _LONG with 'dest' in the target's segment) to a jobrank.
 * Returns 0, or 1 only under GEX_FLAG_IMMEDIATE when the peer has no room (then
 * nothing was written anywhere). */
int rv_am_send_internal(gex_Rank_t jobrank, unsigned chan, unsigned kind, unsigned index,
                        const gex_AM_Arg_t *args, unsigned nargs, const void *payload,
                        size_t nbytes, void *dest, gex_Flags_t flags);

/* Fills a header of nargs arguments (the odd one's padding word zeroed); returns its length.
 * 'h' must have room for RV_AM_HDR_BYTES(nargs). */
static inline size_t rv_am_hdr_fill(rv_am_hdr_t *h, unsigned kind, gex_AM_Index_t handler,
                                    size_t nbytes, void *dest, unsigned nargs,
                                    const gex_AM_Arg_t *args)
{
    h->kind = (uint8_t)kind;
    h->handler = handler;
    h->nargs = (uint8_t)nargs;
    h->pad = 0;
    h->nbytes = (uint32_t)nbytes;
    h->dest = (uint64_t)(uintptr_t)dest;
    if (args != h->args) memcpy(h->args, args, nargs * sizeof *args); /* else in place */
    if (nargs & 1) h->args[nargs] = 0;
    return RV_AM_HDR_BYTES(nargs);
}

/* Makes progress while a send on 'chan' waits for room (a Reply only drains replies). */
int rv_am_xmit_poll(unsigned chan);

/* RIVET_STATS: counts one AM sent (rc 0) or refused under IMMEDIATE (stats on only). */
void rv_am_stat_sent(unsigned chan, unsigned kind, size_t nbytes, int rc);
/* Builds the header and sends (am_inject.c). For Long, the payload goes straight
 * into the target's segment when it is mapped here; otherwise it travels inline.
 * Returns 1 only under GEX_FLAG_IMMEDIATE when there was no room. */
int rv_am_send(const char *call, gex_Rank_t jr, unsigned chan, unsigned kind,
               gex_AM_Index_t handler, const void *src, size_t nbytes, void *dest,
               gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args);
/* Entry checks shared by the fixed- and negotiated-payload calls: a Request may
 * not come from a handler (returns the target's jobrank); a Reply needs a
 * Request handler's token that has not replied yet (marks it replied). */
gex_Rank_t rv_am_req_check(const char *call, gex_TM_t tm, gex_Rank_t rank);
struct rv_token *rv_am_rep_check(const char *call, gex_Token_t tok);
/* Validates lc_opt for an AM and marks pointer events complete. */
void rv_am_lc(const char *call, gex_Event_t *lc, int is_reply);

/* RIVET_AM_LOOPBACK=queue: client AMs to the own rank go through the transport (am_inject.c). */
extern int rv_am_lb_queue;

/* Engine start-up (registers nothing client-visible). */
void rv_am_init(void);

/* Limits (am_limits.c). */
extern size_t rv_medium_max; /* set at start-up (am_limits.c) */
static inline size_t rv_am_max_medium(void) { return rv_medium_max; }
size_t rv_am_max_long(gex_Rank_t jobrank);

#endif /* RV_AM_INT_H */
