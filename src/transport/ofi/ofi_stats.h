/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_stats.h: the ofi transport's counters, for tests and rivet-info (no libfabric
 * types here, so a test can include it without libfabric's headers). */
#ifndef RV_OFI_STATS_H
#define RV_OFI_STATS_H

#include <stdint.h>

typedef struct rv_ofi_stats {
    /* registration cache */
    uint64_t rc_hits;      /* lookups served by an existing registration */
    uint64_t rc_misses;    /* lookups that registered */
    uint64_t rc_merged;    /* entries absorbed into a coalesced registration */
    uint64_t rc_evicted;   /* unused entries deregistered to respect the bound */
    uint64_t rc_bytes;     /* bytes registered now */
    uint64_t rc_bytes_max; /* the most ever registered at once */
    uint64_t rc_entries;   /* live entries now */
    uint64_t rc_limit;     /* the bound (RIVET_OFI_REGCACHE_MAX) */
    /* RDMA */
    uint64_t puts, gets;   /* operations started */
    uint64_t bounce_puts;  /* puts sent from a bounce buffer */
    uint64_t bounce_gets;  /* gets read into a bounce buffer */
    uint64_t flush_reads;  /* follow-up reads issued for remote completion */
    uint64_t peer_flushes; /* per-peer flush reads issued (RIVET_OFI_PUT_COMPLETION=flush) */
    uint64_t flushed_puts; /* writes whose remote completion came from a per-peer flush */
    uint64_t put_flush;    /* puts complete by per-peer flushes: 0 no, 1 auto (not the waited-for
                            * ones), 2 every put (RIVET_OFI_PUT_COMPLETION=flush) */
    uint64_t imm_recv;     /* immediate data received */
    /* flow control */
    uint64_t credit_stalls;  /* Request sends refused for lack of credits */
    uint64_t loans_granted;  /* credits lent from this rank's reserve */
    uint64_t loans_received; /* credits borrowed from peers */
    uint64_t loans_reclaimed; /* lent credits kept back from peers that stopped asking */
    uint64_t implicit_replies; /* credit returns sent for Requests without a Reply */
    uint64_t stashed;      /* Requests deferred from a replies-only poll */
    uint64_t multi_recv_reposts; /* receive regions posted again */
    uint64_t multi_recv_late; /* messages that completed after their region's release (the
                               * region waited for them before it was posted again) */
    uint64_t credits_init; /* initial credits per peer (RIVET_OFI_CREDITS) */
    uint64_t reserve_now;  /* credits this rank can still lend */
    uint64_t multi_recv;   /* 1: FI_MULTI_RECV regions, 0: one message per buffer */
    /* native atomics (ofi_amo.c) */
    uint64_t amos;         /* native atomics started */
    uint64_t amo_again;    /* posts refused with FI_EAGAIN (then retried after progress) */
} rv_ofi_stats_t;

/* Copies the counters; returns -1 when the ofi transport is not the one in use. */
int rv_ofi_stats(rv_ofi_stats_t *out);

#endif /* RV_OFI_STATS_H */
