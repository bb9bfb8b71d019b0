/* SPDX-License-Identifier: BSD-3-Clause */
/* core/core.h: the core objects (client, endpoint, team, segment) and the process-wide state. */
#ifndef RV_CORE_H
#define RV_CORE_H

#include <stdatomic.h>
#include <stdint.h>
#include "gasnetex.h"
#include "core/job.h"
#include "core/config.h"
#include "core/error.h"
#include "core/progress.h"
#include "core/segmap.h"
#include "core/stats.h"

#define RV_AM_MAX_ARGS 16
#define RV_AM_MAX_MEDIUM 65536u

struct rv_segment {
    struct rv_client *client;
    void             *addr;
    uintptr_t         size;
    gex_Flags_t       flags;
    void             *cdata;
    void             *alloc;    /* gex_Segment_Create'd private memory Rivet allocated, else NULL */
    int               created;  /* made by gex_Segment_Create (gex_Segment_Destroy may free) */
    uint32_t          tag;      /* Rivet-allocated shared object "x<rank>.<tag>" (0: none) */
    uintptr_t         maplen;   /* its mapped length (a page multiple) */
    struct rv_ep     *ep;       /* the first endpoint it is bound to, or NULL */
    uint64_t          epmask;   /* bit i: bound to endpoint index i (a segment may serve several) */
    struct rv_segment *next;    /* live shared segments (unlinked at exit) */
};

struct rv_ep {
    struct rv_client  *client;
    gex_Flags_t        flags;
    gex_EP_Index_t     index;
    void              *cdata;
    gex_EP_Capabilities_t caps;       /* GEX_EP_CAPABILITY_ALL for the primordial endpoint */
    struct rv_segment *seg;           /* bound segment or NULL */
    uint64_t           seg_key;       /* its RDMA key for this index, when seg_rdma */
    int                seg_rdma;      /* seg registered with the transport for this index */
    struct rv_tm      *pairs[GASNET_MAXEPS]; /* gex_TM_Pair(this, i), made on first use */
    gex_AM_Entry_t     handlers[256]; /* client table; gex_fnptr == NULL: free slot */
};

struct rv_tm {
    /* The segment table of the endpoint this tm's ranks name (&rv_segmap, or a TM-pair's
     * &rv_epsegs[i]), or NULL: gasnetex.h's inline blocking Put/Get copy through it when
     * the target is mapped. NULL under RIVET_RMA=ref. gasnetex.h's struct _rivet_tm_head
     * mirrors the fields up to jobranks. */
    rv_segmap_t *const *rma_map;
    struct rv_client *client;
    struct rv_ep     *ep;
    gex_Flags_t       flags;
    /* size when rma_flat is the table placed in this struct (RV_TM_TABLE_OFF: the primordial
     * team's), else 0: the inline paths index that table with no load of rma_flat. Set with
     * release after rma_flat (rv_tm_flat_set). */
    gex_Rank_t        rma_n;
    void             *cdata;
    gex_Rank_t        rank, size;
    gex_Rank_t       *jobranks;   /* [size] team rank -> jobrank; NULL for the identity */
    /* *rma_map once that table exists, when jobranks is NULL (the inline paths index it by
     * team rank: one load less); NULL otherwise. Set by rv_tm_flat_set with release, read
     * with acquire (the table's entries are visible to whoever sees the pointer). */
    const rv_segmap_t *rma_flat;
    uint32_t          id;         /* job-wide team id (0 = primordial) */
    struct rv_coll_team *coll;    /* collective state (coll/); NULL for a TM-pair */
    int               is_pair;    /* gex_TM_Pair: point-to-point only */
    gex_EP_Index_t    pair_index; /* its remote EP index */
    struct rv_tm     *flat_next;  /* on the list of tms waiting for their table (core/state.c) */
};

struct rv_client {
    const char   *name;
    gex_Flags_t   flags;
    void         *cdata;
    struct rv_ep *ep0;
    struct rv_tm *tm0;
};

/* Process-wide state: one client per process (the spec's current limit). */
extern struct rv_client *rv_client_g;

/* Every rank's segment bound to its primordial endpoint as seen from here ([jobsize]); NULL
 * before attach, or before the first gex_EP_BindSegment / gex_EP_PublishBoundSegment. It and
 * rv_epsegs[i] are stored once, with release (rv_segtab_publish), after the table is filled
 * as far as it then is: gasnetex.h's inline paths load them with acquire. */
extern rv_segmap_t *rv_segmap;

/* This process's endpoints by index ([0]: the primordial one; NULL: a free index), and for
 * each index i > 0 every rank's segment bound to its endpoint i as published to this rank
 * ([jobsize], NULL before any was; [0] is unused: index 0 is rv_segmap). Defined in
 * core/state.c, managed by api/multiep.c. */
extern struct rv_ep *rv_eps[GASNET_MAXEPS];
extern rv_segmap_t  *rv_epsegs[GASNET_MAXEPS];

/* Stores a new segment table at *slot (&rv_segmap or &rv_epsegs[i]) so that a thread that
 * loads the pointer with acquire sees what was written to the table before. */
static inline void rv_segtab_publish(rv_segmap_t **slot, rv_segmap_t *tab)
{
    __atomic_store_n(slot, tab, __ATOMIC_RELEASE);
}

/* The segment table of endpoint index idx (< GASNET_MAXEPS), or NULL. */
static inline const rv_segmap_t *rv_epseg_table(gex_EP_Index_t idx) {
    return idx ? rv_epsegs[idx] : rv_segmap;
}

/* For a TM-pair naming a non-primordial endpoint (a local or remote index other than 0):
 * fatal, naming 'call' and 'what' (AM, VIS...), which non-primordial endpoints lack (core/tm.c). */
void rv_tm_pair_only_rma(const char *call, const char *what, const struct rv_tm *tm);

/* Team rank -> jobrank. */
static inline gex_Rank_t rv_tm_jobrank(const struct rv_tm *tm, gex_Rank_t rank) {
    return tm->jobranks ? tm->jobranks[rank] : rank;
}

/* Validates a (tm, rank) pair for call 'call'; fatal with a clear message otherwise.
 * Returns the jobrank (core/tm.c). */
gex_Rank_t rv_tm_check_rank(const char *call, gex_TM_t tm, gex_Rank_t rank);

/* ---- handler context (core/state.c) -------------------------------------
 * The AM handler running on this thread (the AM engine's token, opaque here), or NULL: the AM
 * engine sets it around every handler it runs; every layer may ask whether it is inside one. */
struct rv_token;
#define rv_am_cur_token _rivet_am_token /* exported: gasnetex.h's inline fast paths read it */
extern _Thread_local struct rv_token *rv_am_cur_token;
static inline int rv_am_in_handler(void) { return rv_am_cur_token != NULL; }

/* The primordial team (rv_client_g->tm0) is allocated with room for the primordial
 * endpoint's segment table (rv_job.size entries) at this offset (gasnetex.h's
 * _RIVET_TM_TABLE_OFF); rv_segmap, once made, is that room (api/segment.c, api/multiep.c). */
#define RV_TM_TABLE_OFF 128

/* Set by _rivet_client_init_seq and _rivet_gasnet_init_seq (gasnetex.h): a GASNET_SEQ or
 * GASNET_PARSYNC client runs at most one thread in the library or gasnetex.h's inline paths at
 * a time, and those paths test no thread-local handler context on the primordial team: while
 * a handler runs, its rma_n is 0, so a handler's Put/Get there goes to the library, which
 * refuses it with its message. rv_am_gate is that team once its table is in place (set with
 * rma_n; NULL for other clients): the AM engine calls rv_am_gate_close as a handler starts
 * and rv_am_gate_open when it returns (outer: the token that was current before it, NULL for
 * the outermost, which reopens). */
extern unsigned char rv_seq_client;
extern struct rv_tm *rv_am_gate;
static inline void rv_am_gate_close(void)
{
    struct rv_tm *g = __atomic_load_n(&rv_am_gate, __ATOMIC_RELAXED);
    if (g) __atomic_store_n(&g->rma_n, 0, __ATOMIC_RELAXED);
}
static inline void rv_am_gate_open(const struct rv_token *outer)
{
    struct rv_tm *g = __atomic_load_n(&rv_am_gate, __ATOMIC_RELAXED);
    if (g && !outer) __atomic_store_n(&g->rma_n, g->size, __ATOMIC_RELAXED);
}

/* tm->rma_n from tm->rma_flat (see struct rv_tm). */
static inline void rv_tm_rma_n_set(struct rv_tm *tm)
{
    const rv_segmap_t *flat = __atomic_load_n(&tm->rma_flat, __ATOMIC_ACQUIRE);
    int here = flat && (uintptr_t)flat == (uintptr_t)tm + RV_TM_TABLE_OFF;
    __atomic_store_n(&tm->rma_n, here ? tm->size : 0, __ATOMIC_RELEASE);
    if (here && rv_seq_client) __atomic_store_n(&rv_am_gate, tm, __ATOMIC_RELAXED);
}

/* Sets tm->rma_flat from tm->rma_map and tm->jobranks (see struct rv_tm). A segment table,
 * once made, stays where it is: rma_flat is set once, by rv_tm_flat_track when the tm is
 * made (or its rma_map set) if its table exists by then, else by the rv_tm_flat_refresh that
 * follows the table's creation. Call it through those (core/state.c): they hold the lock of the
 * list of tms still waiting for a table. */
static inline void rv_tm_flat_set(struct rv_tm *tm)
{
    const rv_segmap_t *flat =
        tm->rma_map && !tm->jobranks ? __atomic_load_n(tm->rma_map, __ATOMIC_ACQUIRE) : NULL;
    __atomic_store_n(&tm->rma_flat, flat, __ATOMIC_RELEASE);
    rv_tm_rma_n_set(tm);
}
/* rv_tm_flat_track: sets rma_flat now, or (a tm that follows a table not made yet: rma_map set,
 * jobranks NULL) lists the tm for the rv_tm_flat_refresh after the table appears; call it once
 * rma_map and jobranks are final, and rv_tm_flat_untrack before freeing the tm. Called after
 * rv_segtab_publish of a new table, rv_tm_flat_refresh gives every listed tm whose table that is
 * its rma_flat. One lock, taken by nothing else and taking nothing, guards the list. */
void rv_tm_flat_track(struct rv_tm *tm);
void rv_tm_flat_untrack(struct rv_tm *tm);
void rv_tm_flat_refresh(void);

/* The objects gasnetex.h's inline Put/Get read on every call (a team's struct rv_tm, whose
 * first 64 bytes are the inline head, and the segment tables rv_segmap / rv_epsegs[i]) are
 * placed so they end at a page boundary: their first bytes sit at high page offsets. Segments
 * are page aligned and clients copy most to and from their first bytes, so the lines those
 * copies use and these objects' lines rarely share an L1 set; lines that do share one can
 * evict each other on every call (measured on AMD Zen 5: a 512-byte Put twice as slow when
 * one segment table line shared the destination's L1 set). Zeroed; fatal naming 'what' when
 * out of memory. Free with rv_hot_free (core/tm.c). */
void *rv_hot_calloc(size_t n, size_t size, const char *what);

static inline rv_segmap_t *rv_tm0_table(struct rv_tm *tm0) {
    return (rv_segmap_t *)(void *)((char *)tm0 + RV_TM_TABLE_OFF);
}
void  rv_hot_free(void *p);

/* Progress (core/progress.c): core/progress.h. */

/* ---- exit (core/exit.c) -------------------------------------------------- */
void rv_exit_install(void);
/* For a transport that finds a peer gone (the peer exited or died): the launcher ends the
 * remaining ranks soon after, as SIGTERM that becomes this rank's SIGQUIT (the client's
 * handler runs, as GASNet promises). Waits up to 2 s for that, so the job's end is not
 * reported as this rank's failure; returns if nothing came (the caller then reports the
 * error). Error paths only. */
void rv_exit_await_end(void);

#endif /* RV_CORE_H */
