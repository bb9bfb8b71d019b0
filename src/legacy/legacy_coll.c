/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_coll.c: the GASNet-1 collectives GASNet-1 clients use to share a value:
 * gasnet_coll_init and a blocking gasnet_coll_broadcast over gex_Coll_BroadcastNB. */
#include "legacy/legacy_int.h"

struct rv_legacy_team {
    int unused;
};
struct rv_legacy_team rv_legacy_team_all;

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

static int rv_one_of(int flags, int a, int b, int c)
{
    int n = !!(flags & a) + !!(flags & b) + !!(flags & c);
    return n == 1;
}

void gasnet_coll_broadcast(gasnet_team_handle_t team, void *dst, gasnet_image_t srcimage,
                           void *src, size_t nbytes, int flags)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_coll_broadcast");
    const int known = GASNET_COLL_IN_NOSYNC | GASNET_COLL_IN_MYSYNC | GASNET_COLL_IN_ALLSYNC |
                      GASNET_COLL_OUT_NOSYNC | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC |
                      GASNET_COLL_SINGLE | GASNET_COLL_LOCAL | GASNET_COLL_DST_IN_SEGMENT |
                      GASNET_COLL_SRC_IN_SEGMENT;
    if (!rv_coll_inited) rv_fatal("gasnet_coll_broadcast called before gasnet_coll_init");
    if (team != GASNET_TEAM_ALL)
        rv_fatal("gasnet_coll_broadcast: team must be GASNET_TEAM_ALL");
    if (flags & ~known) rv_fatal("gasnet_coll_broadcast: unknown flags 0x%x", (unsigned)flags);
    if (!rv_one_of(flags, GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC) ||
        !rv_one_of(flags, GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                   GASNET_COLL_OUT_ALLSYNC) ||
        !rv_one_of(flags, GASNET_COLL_SINGLE, GASNET_COLL_LOCAL, 0))
        rv_fatal("gasnet_coll_broadcast: flags 0x%x must name exactly one IN_*SYNC, one "
                 "OUT_*SYNC and one of SINGLE/LOCAL", (unsigned)flags);
    if (srcimage >= gex_TM_QuerySize(tm))
        rv_fatal("gasnet_coll_broadcast: srcimage %u is not a node (%u nodes)",
                 (unsigned)srcimage, (unsigned)gex_TM_QuerySize(tm));
    /* A node's dst is written only after it called (EX broadcast): that is IN_MYSYNC, which
     * also serves IN_NOSYNC. IN_ALLSYNC: nobody's data moves before everyone arrived. */
    if (flags & GASNET_COLL_IN_ALLSYNC) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gex_Event_Wait(gex_Coll_BroadcastNB(tm, srcimage, dst, src, nbytes, 0));
    if (flags & GASNET_COLL_OUT_ALLSYNC) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
}
