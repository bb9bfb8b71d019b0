/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/barrier.c: gex_Coll_BarrierNB and gex_Coll_BarrierBlocking as a dissemination
 * barrier on any team (over the neighbourhood leaders when it runs in two levels, hier.c). */
#include "coll/coll_int.h"

/* Round k: tell rank + 2^k, wait for rank - 2^k. */
static int rv_barrier_advance(struct rv_coll_op *o)
{
    while (o->k < o->rounds) {
        if (!o->bstate) {
            rv_coll_queue(o, (gex_Rank_t)((o->me + (1ull << o->k)) % o->n), o->k, NULL, 0, 0);
            o->bstate = 1;
        }
        if (!rv_coll_xchg(o, o->k, NULL, 0, 0)) return 0;
        o->k++;
        o->bstate = 0;
    }
    return 1;
}

gex_Event_t rv_coll_barrier_kind(const char *call, gex_TM_t tm, unsigned kind)
{
    struct rv_coll_sig sig = { .kind = kind, .root = GEX_RANK_INVALID };
    struct rv_coll_op *o = rv_coll_op_new(call, tm, &sig, rv_barrier_advance);
    if (rv_coll_hier_begin(o)) rv_coll_hier_wrap(o);
    return rv_coll_op_start(o);
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_barrier_kind("gex_Coll_BarrierNB", tm, RV_COLL_BARRIER);
}

void gex_Coll_BarrierBlocking(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    gex_Event_Wait(rv_coll_barrier_kind("gex_Coll_BarrierBlocking", tm, RV_COLL_BARRIER));
}
