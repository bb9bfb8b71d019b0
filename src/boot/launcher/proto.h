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
/* Set (to 1) when the launcher turned address-space randomisation off for this rank
 * (personality ADDR_NO_RANDOMIZE, so every rank of a host has the same code addresses):
 * the library turns it back on for the programs the rank itself starts. */
#define RV_BOOT_ENV_NORANDOM "RIVET_BOOT_NORANDOM"

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
    RV_BOOT_EXIT    = 5, /* rank -> server: end the job, arg = exit code; flags:
                          * RV_BOOT_EXIT_FATAL when a fatal error (not gasnet_exit) ends it */
    RV_BOOT_FINI    = 6, /* rank -> server: normal end of this rank */
};

/* Flags of an EXIT record. Older senders wrote 0 here. */
#define RV_BOOT_EXIT_FATAL 1u  /* the rank stopped on a fatal error (its message is on its
                                * stderr); exit code as given */

typedef struct rv_boot_hdr {
    uint32_t magic;
    uint16_t type;    /* enum rv_boot_msg */
    uint16_t flags;   /* EXIT: RV_BOOT_EXIT_*; 0 in every other record */
    uint32_t arg;
    uint32_t seq;     /* collective number, for messages and sanity checks */
    uint64_t len;
} rv_boot_hdr_t;

_Static_assert(sizeof(rv_boot_hdr_t) == 24, "rv_boot_hdr_t is a wire format");

#endif /* RV_BOOT_PROTO_H */
