/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/net.h: the TCP protocol between rivetrun (the launcher) and its agents
 * on other hosts, and the buffered, non-blocking connection both sides use.
 *
 * An agent is `rivetrun --agent ...` started on a host by the remote shell; it
 * connects back to the launcher, proves it knows the job secret, receives what to
 * run, starts its ranks exactly as the local launcher does (socketpair each), and
 * relays their bootstrap records. Handshake, before anything else is accepted:
 *   launcher -> agent  rv_net_challenge_t   (random nonce Nl)
 *   agent -> launcher  rv_net_answer_t      (host index, random nonce Na,
 *                                            HMAC(secret, "rivetrun-agent" Nl Na host))
 *   launcher -> agent  rv_net_proof_t       (HMAC(secret, "rivetrun-launcher" Na Nl host))
 * then frames (rv_net_frame_t + len payload bytes) both ways. A connection whose
 * answer does not verify is closed without another byte. All hosts of a job must
 * share the byte order (the magic numbers catch a mismatch). */
#ifndef RV_RUN_NET_H
#define RV_RUN_NET_H

#include "auth.h"

#include <stddef.h>
#include <stdint.h>

#define RV_NET_MAGIC_L   0x4c4e5652u  /* "RVNL": launcher's challenge */
#define RV_NET_MAGIC_A   0x414e5652u  /* "RVNA": agent's answer */
#define RV_NET_MAGIC_F   0x464e5652u  /* "RVNF": a frame */
#define RV_NET_VERSION   1u
#define RV_NET_NONCE     16
#define RV_NET_ALL       UINT32_MAX   /* SIGNAL to every rank of the agent */
#define RV_NET_MAX_UP    (64u * 1024u) /* largest agent -> launcher payload */

typedef struct rv_net_challenge {
    uint32_t      magic, version;
    unsigned char nonce[RV_NET_NONCE];
} rv_net_challenge_t;

typedef struct rv_net_answer {
    uint32_t      magic, version;
    uint32_t      host, pad;
    unsigned char nonce[RV_NET_NONCE];
    unsigned char mac[RV_SHA256_LEN];
} rv_net_answer_t;

typedef struct rv_net_proof {
    unsigned char mac[RV_SHA256_LEN];
} rv_net_proof_t;

enum rv_net_type {
    /* launcher -> agent */
    RV_NET_SPEC     = 1, /* what to run: see rv_run_spec_*() in remote.c / agent.c */
    RV_NET_RESULT   = 2, /* arg = collective number; payload = the result for every rank */
    RV_NET_SIGNAL   = 3, /* rank (or RV_NET_ALL), arg = signal number */
    /* agent -> launcher */
    RV_NET_STARTED  = 10, /* rank, arg = its pid on the agent's host */
    RV_NET_NOSTART  = 11, /* arg = exit status: the agent could not start its ranks (it said why) */
    RV_NET_RECORD   = 12, /* rank; payload = one bootstrap record (boot/launcher/proto.h);
                           * flags & 1: the record was longer than a record may be */
    RV_NET_EXITED   = 13, /* rank, arg = wait status */
    RV_NET_FILE     = 14, /* rank, arg = RV_RUN_OBS_STATS or _TRACE, flags & 1: the first chunk;
                           * payload = a chunk of that rank's file (sent before its EXITED) */
};

typedef struct rv_net_frame {
    uint32_t magic;
    uint16_t type;   /* enum rv_net_type */
    uint16_t flags;
    uint32_t rank;
    uint32_t arg;
    uint64_t len;    /* payload bytes that follow */
} rv_net_frame_t;

_Static_assert(sizeof(rv_net_frame_t) == 24, "rv_net_frame_t is a wire format");
_Static_assert(sizeof(rv_net_answer_t) == 64, "rv_net_answer_t is a wire format");

/* Computes the MAC of the handshake ('who' is "rivetrun-agent" or "rivetrun-launcher";
 * n1 is the nonce of the side that proves, n2 the other's). */
void rv_net_mac(const char secret[33], const char *who, const unsigned char *n1,
                const unsigned char *n2, uint32_t host, unsigned char out[RV_SHA256_LEN]);

/* A non-blocking stream connection: whole frames queued in 'out', received bytes
 * accumulated in 'in' until a frame is complete. */
typedef struct rv_net_conn {
    int            fd;
    unsigned char *out;
    size_t         out_len, out_off, out_cap;
    unsigned char *in;
    size_t         in_len, in_off, in_cap;   /* bytes [in_off, in_len) not yet consumed */
    /* a large payload streamed from a shared buffer after the queued bytes (launcher
     * results): header in res_hdr, res_total = header + payload bytes */
    void          *res;        /* owner's handle, NULL if none */
    const unsigned char *res_bytes;
    rv_net_frame_t res_hdr;
    size_t         res_total, res_off;
} rv_net_conn_t;

void rv_net_conn_init(rv_net_conn_t *c, int fd);
/* Frees the buffers and closes fd. */
void rv_net_conn_close(rv_net_conn_t *c);
/* Queues one frame (copies the payload). Returns 0 or -1 (out of memory). */
int  rv_net_queue(rv_net_conn_t *c, uint16_t type, uint16_t flags, uint32_t rank, uint32_t arg,
                  const void *payload, size_t len);
/* Sends what the socket takes now. Returns 0, or -1 when the connection is broken.
 * Sets res to NULL once the streamed payload is all sent (its owner keeps the handle). */
int  rv_net_flush(rv_net_conn_t *c);
/* Anything left to send? */
static inline int rv_net_pending(const rv_net_conn_t *c) {
    return c->out_len > c->out_off || c->res != NULL;
}
/* Reads what is there. Returns 1 if data came, 0 if none (EAGAIN), -1 on EOF or error
 * (errno 0 for EOF). */
int  rv_net_read(rv_net_conn_t *c);
/* The next complete frame in 'in': copies its header to *f, points *payload into
 * the buffer (any alignment; valid until the next rv_net_read). Returns 1, 0 if no
 * complete frame is there yet, -1 if the data is not a frame or longer than
 * max_len. Call rv_net_consume() once done with it. */
int  rv_net_next(rv_net_conn_t *c, uint64_t max_len, rv_net_frame_t *f,
                 const unsigned char **payload);
void rv_net_consume(rv_net_conn_t *c, const rv_net_frame_t *f);

/* Blocking helpers for the handshake: full read/write of n bytes within deadline_ms
 * (absolute, rv_run_now_ms clock). 0, or -1 (errno ETIMEDOUT, or 0 for EOF). */
int  rv_net_read_full(int fd, void *buf, size_t n, int64_t deadline_ms);
int  rv_net_write_full(int fd, const void *buf, size_t n, int64_t deadline_ms);

#endif /* RV_RUN_NET_H */
