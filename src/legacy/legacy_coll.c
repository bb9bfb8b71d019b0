/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_coll.c: the GASNet-1 collectives of gasnet_coll.h over the collective
 * engine (coll/): broadcast, scatter, gather, gather_all, exchange (blocking and _nb) with
 * their IN_/OUT_ sync flags, the team barrier over GASNET_TEAM_ALL, the autotuning no-ops
 * and GASNet-1's optional gasnet_coll_init. */
#include "legacy/legacy_int.h"
#include "coll/coll_int.h"

struct rv_legacy_team {
    int unused;
};
struct rv_legacy_team _rivet_legacy_team_all;

static _Atomic int rv_coll_inited;

void gasnet_coll_init(gasnet_image_t *images, gasnet_image_t my_image,
                      gasnet_coll_fn_entry_t *fn_tbl, size_t fn_count, int init_flags)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_coll_init");
    (void)my_image; /* meaningful only with an images table */
    if (images)
        rv_fatal("gasnet_coll_init: images must be NULL (Rivet runs one image per node)");
    if (fn_tbl || fn_count)
        rv_fatal("gasnet_coll_init: a function table is for the GASNet-1 reductions, "
                 "which Rivet does not provide (use gex_Coll_ReduceToAllNB)");
    if (init_flags) rv_fatal("gasnet_coll_init: unknown init_flags 0x%x", (unsigned)init_flags);
    if (rv_coll_inited) rv_fatal("gasnet_coll_init called twice");
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); /* collective, as in GASNet-1 */
    rv_coll_inited = 1;
}

/* ---- checks ---------------------------------------------------------------------- */

#define RV_COLL_KNOWN                                                                       \
    (GASNET_COLL_SYNC_FLAG_MASK | GASNET_COLL_SINGLE | GASNET_COLL_LOCAL |                  \
     GASNET_COLL_FIXED_THREADS_PER_NODE | GASNET_COLL_DST_IN_SEGMENT |                      \
     GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DISABLE_AUTOTUNE | GASNET_COLL_NO_IMAGES)

static int rv_popcount(unsigned v)
{
    int n = 0;
    for (; v; v &= v - 1) n++;
    return n;
}

static void rv_team_check(const char *call, gasnet_team_handle_t team)
{
    if (team != GASNET_TEAM_ALL)
        rv_fatal("%s: team %p is not GASNET_TEAM_ALL (the only GASNet-1 team)", call, (void *)team);
}

/* Validates the flags and returns the RV_SYNC_* barriers they ask for. */
static unsigned rv_coll_flags(const char *call, int flags)
{
    const unsigned f = (unsigned)flags;
    const unsigned in = GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC;
    const unsigned out = GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC;
    if (f & ~(unsigned)RV_COLL_KNOWN)
        rv_fatal("%s: flags 0x%x have unknown bits 0x%x", call, f, f & ~(unsigned)RV_COLL_KNOWN);
    if (rv_popcount(f & in) != 1 || rv_popcount(f & out) != 1)
        rv_fatal("%s: flags 0x%x must name exactly one GASNET_COLL_IN_*SYNC and one "
                 "GASNET_COLL_OUT_*SYNC", call, f);
    if (!(f & (GASNET_COLL_LOCAL | GASNET_COLL_SINGLE)))
        rv_fatal("%s: flags 0x%x lack GASNET_COLL_LOCAL (addresses are each rank's own)", call, f);
    return (f & GASNET_COLL_IN_ALLSYNC ? RV_SYNC_PRE : 0u) |
           (f & GASNET_COLL_OUT_ALLSYNC ? RV_SYNC_POST : 0u);
}

static gex_TM_t rv_coll_begin(const char *call, gasnet_team_handle_t team, int flags,
                              unsigned *sync)
{
    gex_TM_t tm = rv_legacy_tm_get(call);
    rv_team_check(call, team);
    *sync = rv_coll_flags(call, flags);
    return tm;
}

static void rv_image_check(const char *call, const char *what, gasnet_image_t image, gex_TM_t tm)
{
    if (image >= gex_TM_QuerySize(tm))
        rv_fatal("%s: %s %u is not an image (there are %u, one per rank)", call, what,
                 (unsigned)image, (unsigned)gex_TM_QuerySize(tm));
}

/* Starts o with the barriers the flags ask for. The sync flags travel in the signature
 * every message carries, so ranks passing different ones stop with a message instead of
 * hanging. */
static gex_Event_t rv_coll_go(struct rv_coll_op *o, unsigned sync)
{
    rv_coll_sync_wrap(o, sync);
    return rv_coll_op_start(o);
}

#define RV_SIGOP(flags) ((uint32_t)(flags) & GASNET_COLL_SYNC_FLAG_MASK)

/* A rooted data collective (broadcast, scatter, gather): its root image 'what' checked. */
typedef struct rv_coll_op *(*rv_rooted_new_t)(const char *call, gex_TM_t tm, gex_Rank_t root,
                                              void *dst, const void *src, size_t nbytes,
                                              uint32_t sigop);
static gex_Event_t rv_coll_rooted(const char *call, rv_rooted_new_t make, const char *what,
                                  gasnet_team_handle_t team, gasnet_image_t image, void *dst,
                                  const void *src, size_t nbytes, int flags)
{
    unsigned sync;
    gex_TM_t tm = rv_coll_begin(call, team, flags, &sync);
    rv_image_check(call, what, image, tm);
    return rv_coll_go(make(call, tm, image, dst, src, nbytes, RV_SIGOP(flags)), sync);
}

/* ---- the data collectives ------------------------------------------------------------ */

gex_Event_t gasnet_coll_broadcast_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                     void *src, size_t nbytes, int flags)
{
    return rv_coll_rooted("gasnet_coll_broadcast", rv_coll_bcast_new, "srcimage", team, srcimage,
                          dst, src, nbytes, flags);
}

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_broadcast_nb(team, dst, srcimage, src, nbytes, flags));
}

gex_Event_t gasnet_coll_scatter_nb(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                                   void *src, size_t nbytes, int flags)
{
    return rv_coll_rooted("gasnet_coll_scatter", rv_coll_scatter_new, "srcimage", team, srcimage,
                          dst, src, nbytes, flags);
}

void gasnet_coll_scatter(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage, void *src,
                         size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_scatter_nb(team, dst, srcimage, src, nbytes, flags));
}

gex_Event_t gasnet_coll_gather_nb(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst,
                                  void *src, size_t nbytes, int flags)
{
    return rv_coll_rooted("gasnet_coll_gather", rv_coll_gather_new, "dstimage", team, dstimage,
                          dst, src, nbytes, flags);
}

void gasnet_coll_gather(gasnet_team_handle_t team, gasnet_image_t dstimage, void *dst, void *src,
                        size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_gather_nb(team, dstimage, dst, src, nbytes, flags));
}

gex_Event_t gasnet_coll_gather_all_nb(gasnet_team_handle_t team, void *dst, void *src,
                                      size_t nbytes, int flags)
{
    static const char call[] = "gasnet_coll_gather_all";
    unsigned sync;
    gex_TM_t tm = rv_coll_begin(call, team, flags, &sync);
    return rv_coll_go(rv_coll_allgather_new(call, tm, RV_COLL_ALLGATHER, dst, src, nbytes,
                                            RV_SIGOP(flags)),
                      sync);
}

void gasnet_coll_gather_all(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                            int flags)
{
    gex_Event_Wait(gasnet_coll_gather_all_nb(team, dst, src, nbytes, flags));
}

gex_Event_t gasnet_coll_exchange_nb(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes,
                                    int flags)
{
    static const char call[] = "gasnet_coll_exchange";
    unsigned sync;
    gex_TM_t tm = rv_coll_begin(call, team, flags, &sync);
    return rv_coll_go(rv_coll_alltoall_new(call, tm, dst, src, nbytes, RV_SIGOP(flags)), sync);
}

void gasnet_coll_exchange(gasnet_team_handle_t team, void *dst, void *src, size_t nbytes, int flags)
{
    gex_Event_Wait(gasnet_coll_exchange_nb(team, dst, src, nbytes, flags));
}

/* ---- team barrier ------------------------------------------------------------------- */

void gasnet_coll_barrier_notify(gasnet_team_handle_t team, int id, int flags)
{
    rv_team_check("gasnet_coll_barrier_notify", team);
    gasnet_barrier_notify(id, flags);
}

int gasnet_coll_barrier_try(gasnet_team_handle_t team, int id, int flags)
{
    rv_team_check("gasnet_coll_barrier_try", team);
    return gasnet_barrier_try(id, flags);
}

int gasnet_coll_barrier_wait(gasnet_team_handle_t team, int id, int flags)
{
    rv_team_check("gasnet_coll_barrier_wait", team);
    return gasnet_barrier_wait(id, flags);
}

int gasnet_coll_barrier(gasnet_team_handle_t team, int id, int flags)
{
    rv_team_check("gasnet_coll_barrier", team);
    return gasnet_barrier(id, flags);
}

int gasnet_coll_barrier_result(gasnet_team_handle_t team, int *id)
{
    rv_team_check("gasnet_coll_barrier_result", team);
    return gasnet_barrier_result(id);
}

/* ---- autotuning: nothing to tune ------------------------------------------------------ */

void gasnet_coll_loadTuningState(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    rv_team_check("gasnet_coll_loadTuningState", team);
}

void gasnet_coll_dumpTuningState(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    rv_team_check("gasnet_coll_dumpTuningState", team);
}

void gasnet_coll_dumpProfile(char *filename, gasnet_team_handle_t team)
{
    (void)filename;
    rv_team_check("gasnet_coll_dumpProfile", team);
}

int gasnet_coll_get_num_tree_classes(gasnet_team_handle_t team, gasnet_coll_optype_t optype)
{
    (void)optype;
    rv_team_check("gasnet_coll_get_num_tree_classes", team);
    return 1;
}

void gasnet_coll_set_tree_kind(gasnet_team_handle_t team, int tree_type, int fanout,
                               gasnet_coll_optype_t optype)
{
    (void)tree_type, (void)fanout, (void)optype;
    rv_team_check("gasnet_coll_set_tree_kind", team);
}

void gasnet_coll_set_dissem_limit(gasnet_team_handle_t team, size_t dissemlimit,
                                  gasnet_coll_optype_t optype)
{
    (void)dissemlimit, (void)optype;
    rv_team_check("gasnet_coll_set_dissem_limit", team);
}
