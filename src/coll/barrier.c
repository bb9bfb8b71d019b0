/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/barrier.c: gex_Coll_BarrierNB as a dissemination barrier on any team. */
#include "coll/coll_int.h"

/* Round k: tell rank+2^k, wait for rank-2^k. */
static int rv_barrier_advance(struct rv_coll_op *o)
{
    struct rv_tm *tm = o->ct->tm;
    while (o->k < o->ct->rounds) {
        if (o->state == 0) {
            rv_coll_queue(o, (gex_Rank_t)((tm->rank + (1u << o->k)) % tm->size), o->k, NULL, 0);
            o->state = 1;
        }
        if (!rv_coll_pump(o)) return 0;
        if (!rv_coll_recv(o, o->k, NULL, 0)) return 0;
        o->k++;
        o->state = 0;
    }
    return 1;
}

gex_Event_t gex_Coll_BarrierNB(gex_TM_t tm, gex_Flags_t flags)
{
    (void)flags;
    struct rv_coll_op *o = rv_coll_op_new("gex_Coll_BarrierNB", tm, rv_barrier_advance);
    return rv_coll_op_start(o);
}
