/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_stats.h: the ucx transport's counters, for tests (no UCX types here, so a
 * test can include it without UCX's headers). */
#ifndef RV_UCX_STATS_H
#define RV_UCX_STATS_H

#include <stdint.h>

typedef struct rv_ucx_stats {
    uint64_t sends_imm;    /* messages UCX sent at once from the caller's memory */
    uint64_t sends_buf;    /* messages copied into a send buffer */
    uint64_t sends_np;     /* negotiated-payload messages sent from their reservation */
    uint64_t send_again;   /* sends refused: no send buffer free (RV_TP_AGAIN) */
    uint64_t recv_held;    /* received messages delivered in place (UCX's buffer, held) */
    uint64_t recv_copied;  /* received messages copied (misaligned, or not UCX's to keep) */
    uint64_t puts, gets;   /* RDMA operations started */
    uint64_t flushes;      /* endpoint flushes issued (remote completion of puts) */
    uint64_t flushed_puts; /* RDMA operations reported complete */
    uint64_t imm_sent;     /* immediate values sent after a put's flush (AM Long reassembly) */
    uint64_t amos;         /* native atomics issued */
    uint64_t mem_maps;     /* ucp_mem_map calls (segments, the key directory) */
    uint64_t credit_stalls;/* Requests refused: no credit left for their target (RV_TP_AGAIN) */
    uint64_t credit_msgs;  /* credit returns sent as their own message (not on a Reply) */
    uint64_t reqq_max;     /* most Requests ever waiting in the receive queue (bounded by
                            * the credits of all senders) */
} rv_ucx_stats_t;

/* Copies the counters; -1 when ucx is not the job's transport. */
int rv_ucx_stats(rv_ucx_stats_t *out);

#endif /* RV_UCX_STATS_H */
