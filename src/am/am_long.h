/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_long.h: AM Long payloads by RDMA (put-sync-send and target-side reassembly). */
#ifndef RV_AM_LONG_H
#define RV_AM_LONG_H

#include "am/am_int.h"

/* Long payloads above this travel by RDMA to peers with RV_SEG_RDMA (RIVET_AMLONG_PACKED). */
extern size_t rv_am_long_packed;

/* Long payloads copied into a peer's mapped segment from this size up to (not including)
 * RV_AM_COPY_END take the string copy (rv_am_copy_long in am_inject.c); 0 when off
 * (RIVET_AMLONG_COPY=0, not x86-64, no fast strings, or a sanitizer build). */
extern size_t rv_am_long_copy_min;
#define RV_AM_COPY_END 4096u /* glibc takes the string copy itself from about here */

/* Reads RIVET_AMLONG*, after the transport is open. */
void rv_am_long_init(void);

/* Sender: the payload by RDMA, then (or with) the header h (hl bytes, h->dest set).
 * Returns 0, or 1 under GEX_FLAG_IMMEDIATE when nothing could be started. */
int rv_am_long_rdma(gex_Rank_t jr, unsigned chan, rv_am_hdr_t *h, size_t hl, const void *src,
                    size_t nbytes, gex_Flags_t flags);

/* Target: a reassembly header (RV_AM_F_RDMA) arrived, already validated. Returns 1 when
 * its payload is in place (run the handler now), 0 when it was stored until then. */
int rv_am_long_header(gex_Rank_t src, unsigned chan, const void *msg, size_t len,
                      const void *payload, size_t paylen);

/* Counters for tests. */
typedef struct rv_am_long_stats {
    uint64_t rdma_sync, rdma_reasm; /* Longs sent by each protocol */
    uint64_t header_first;          /* headers that had to wait for their payload */
    uint64_t payload_first;         /* payloads that were in place before their header */
} rv_am_long_stats_t;
void rv_am_long_get_stats(rv_am_long_stats_t *out);

#endif /* RV_AM_LONG_H */
