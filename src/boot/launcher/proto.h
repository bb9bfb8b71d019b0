/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/proto.h: the wire protocol between a rank and rivetrun's bootstrap server. */
#ifndef RV_BOOT_PROTO_H
#define RV_BOOT_PROTO_H

#include <stdint.h>

/* Environment rivetrun gives every rank. */
#define RV_BOOT_ENV_FD     "RIVET_BOOT_FD"     /* inherited AF_UNIX SOCK_SEQPACKET fd */
#define RV_BOOT_ENV_RANK   "RIVET_BOOT_RANK"   /* 0..size-1 */
#define RV_BOOT_ENV_SIZE   "RIVET_BOOT_SIZE"   /* number of ranks */
#define RV_BOOT_ENV_SECRET "RIVET_BOOT_SECRET" /* 32 lowercase hex digits */

/* The socket is SOCK_SEQPACKET, so every send is one indivisible record: a record
 * written by rv_boot_exit_job() from a signal handler or another thread can never
 * land inside a half-sent allgather. Each record is a header, then up to
 * RV_BOOT_CHUNK payload bytes (only DATA records carry payload). */
#define RV_BOOT_MAGIC   0x52564254u   /* "RVBT" */
#define RV_BOOT_VERSION 1u
#define RV_BOOT_CHUNK   (32u * 1024u) /* well under the default socket buffer */

enum rv_boot_msg {
    RV_BOOT_HELLO   = 1, /* rank -> server: arg = rank, len = RV_BOOT_VERSION */
    RV_BOOT_GATHER  = 2, /* rank -> server: start of my contribution, len = its bytes;
                          * followed by DATA records holding exactly len bytes */
    RV_BOOT_RESULT  = 3, /* server -> rank: len = size * contribution; DATA follows */
    RV_BOOT_DATA    = 4, /* payload bytes of the GATHER or RESULT in progress */
    RV_BOOT_EXIT    = 5, /* rank -> server: end the job, arg = exit code */
    RV_BOOT_FINI    = 6, /* rank -> server: normal end of this rank */
};

typedef struct rv_boot_hdr {
    uint32_t magic;
    uint16_t type;    /* enum rv_boot_msg */
    uint16_t pad;
    uint32_t arg;
    uint32_t seq;     /* collective number, for messages and sanity checks */
    uint64_t len;
} rv_boot_hdr_t;

_Static_assert(sizeof(rv_boot_hdr_t) == 24, "rv_boot_hdr_t is a wire format");

#endif /* RV_BOOT_PROTO_H */
