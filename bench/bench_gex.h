/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_gex.h: job setup shared by the GASNet-EX benchmark drivers (public API only). */
#ifndef BENCH_GEX_H
#define BENCH_GEX_H

#include <gasnetex.h>
#include "bench_util.h"

#ifdef GASNET_CONDUIT_RIVET
#define BG_DEFAULT_SYSTEM "rivet-shm"
#else
#define BG_DEFAULT_SYSTEM "gasnet-ex"
#endif

/* One job: rank 0 is the initiator, rank 1 the target; other ranks only join barriers.
 * Each rank's segment is laid out as [remote-access area | local area], both 'area' bytes. */
typedef struct {
    gex_Client_t  client;
    gex_EP_t      ep;
    gex_TM_t      tm;
    gex_Segment_t seg;
    gex_Rank_t    me, n, peer;     /* peer: 1 for rank 0, 0 for rank 1, else none */
    int           active;          /* 1 on ranks 0 and 1 */
    size_t        area;            /* bytes in each of the two segment areas */
    char         *my_remote_area;  /* where the peer writes into me */
    char         *my_local_area;   /* my in-segment sources and get destinations */
    char         *peer_remote_area;/* the peer's remote-access area (its address) */
    char         *heap;            /* 'area' bytes outside the segment */
    bu_opts_t     opt;
} bg_job_t;

/* Initialises the client, attaches a segment big enough for --max-size (clamping it to what
 * the implementation allows), registers 'handlers' and parses the common options.
 * Exits the job on a bad option. Requires at least 2 ranks (rank 0 prints why, exits 0). */
void bg_init(bg_job_t *j, int *argc, char ***argv, const char *name, gex_AM_Entry_t *handlers,
             size_t nhandlers);

/* Blocking barrier over the whole team (polls while waiting). */
void bg_barrier(bg_job_t *j);

/* bg_barrier as a bu_sync_fn (ctx: the bg_job_t). */
void bg_sync(void *job);

/* Final barrier and exit with status 0. */
void bg_finish(bg_job_t *j) __attribute__((noreturn));

/* Next size of the usual sweep: 0 -> 1 -> 2 -> 4 ... (0 only when the sweep starts there). */
static inline size_t bg_next_size(size_t s) { return s ? 2 * s : 1; }

#endif /* BENCH_GEX_H */
