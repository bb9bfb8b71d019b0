/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_barrier.c: the GASNet-1 split-phase named barrier (notify/wait/try/result,
 * gasnet_barrier), one max-reduction over the primordial team per phase that also detects
 * id mismatches; and the progress the GASNet-1 try and blocking calls make. */
#include "legacy/legacy_int.h"
#include "am/am_int.h"
#include "coll/coll_int.h"

#include <sched.h>

/* Each rank contributes three values, combined with MAX:
 *   [0] named ? 2^32 | id : 0           -> the largest named id (0: all anonymous)
 *   [1] named ? 2^32 | ~id : 0          -> the smallest named id, complemented
 *   [2] flags has MISMATCH ? 1 : 0      -> someone forced a mismatch
 * Ids differ somewhere iff the largest and smallest named id differ. */
#define RV_NAMED (UINT64_C(1) << 32)

static struct {
    int         phase;   /* 0: idle, 1: notified */
    int         id;
    uint64_t    in[3], out[3];
    gex_Event_t ev;
    int         res_anon; /* result of the last completed phase */
    int         res_id;
} rv_bar;

#define RV_BAR_FLAGS \
    (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH | GASNET_BARRIERFLAG_UNNAMED)

static void rv_bar_flags_check(const char *call, int flags)
{
    if (flags & ~RV_BAR_FLAGS)
        rv_fatal("%s: flags=0x%x has bits other than GASNET_BARRIERFLAG_ANONYMOUS, "
                 "GASNET_BARRIERFLAG_MISMATCH and GASNET_BARRIERFLAG_UNNAMED", call,
                 (unsigned)flags);
}

/* Blocking GASNet-1 RMA calls of this thread, for rv_legacy_blocking_progress (gasnet.h). */
__thread unsigned _rivet_legacy_blocking_calls;

/* The GASNet-1 try calls poll, unlike gex_*_Test: a loop over them alone must finish.
 * Inside a handler (which may not poll) they only test. */
void _rivet_legacy_try_poll(void)
{
    RV_CHECK_INIT("gasnet_try_syncnb");
    if (rv_am_in_handler()) return;
    if (rv_poll() == 0 && rv_idle_should_yield()) sched_yield();
}

void gasnet_barrier_notify(int id, int flags)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_barrier_notify");
    if (rv_am_in_handler()) rv_fatal("gasnet_barrier_notify called inside an AM handler");
    rv_bar_flags_check("gasnet_barrier_notify", flags);
    if (rv_bar.phase)
        rv_fatal("gasnet_barrier_notify: called twice without gasnet_barrier_wait/try completing "
                 "the barrier notified with id=%d", rv_bar.id);
    int named = !(flags & (GASNET_BARRIERFLAG_ANONYMOUS | GASNET_BARRIERFLAG_MISMATCH));
    uint32_t u = (uint32_t)id;
    rv_bar.in[0] = named ? RV_NAMED | u : 0;
    rv_bar.in[1] = named ? RV_NAMED | (uint32_t)~u : 0;
    rv_bar.in[2] = (flags & GASNET_BARRIERFLAG_MISMATCH) ? 1 : 0;
    rv_bar.id = id;
    rv_bar.phase = 1;
    /* an all-local primordial team: the MAX travels in shared flags, not messages (coll/) */
    if (!rv_coll_g1_barrier_max3("gasnet_barrier_notify", tm, rv_bar.in, rv_bar.out, &rv_bar.ev))
        rv_bar.ev = gex_Coll_ReduceToAllNB(tm, rv_bar.out, rv_bar.in, GEX_DT_U64, sizeof(uint64_t),
                                           3, GEX_OP_MAX, NULL, NULL, 0);
}

static void rv_bar_check(const char *call, int flags)
{
    (void)rv_legacy_tm_get(call);
    rv_bar_flags_check(call, flags);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    if (!rv_bar.phase)
        rv_fatal("%s: no gasnet_barrier_notify precedes it (or that barrier already completed)",
                 call);
}

/* Ends the phase and reports its outcome for this caller's id/flags. The wait's flags may
 * differ from the notify's (GASNet 1.20 and later): a named wait must name the value the
 * phase agreed on, if it agreed on one (an anonymous phase matches any wait). */
static int rv_bar_finish(int id, int flags)
{
    rv_bar.phase = 0;
    uint64_t hi = rv_bar.out[0], lo = rv_bar.out[1];
    int any_named = hi != 0;
    uint32_t max_id = (uint32_t)hi, min_id = (uint32_t)~(uint32_t)lo;
    rv_bar.res_anon = !any_named;
    rv_bar.res_id = any_named ? (int)max_id : 0;
    if (rv_bar.out[2] || (flags & GASNET_BARRIERFLAG_MISMATCH)) return GASNET_ERR_BARRIER_MISMATCH;
    if (any_named && max_id != min_id) return GASNET_ERR_BARRIER_MISMATCH;
    if (!(flags & GASNET_BARRIERFLAG_ANONYMOUS) && any_named && (uint32_t)id != max_id)
        return GASNET_ERR_BARRIER_MISMATCH;
    return GASNET_OK;
}

int gasnet_barrier_wait(int id, int flags)
{
    rv_bar_check("gasnet_barrier_wait", flags);
    gex_Event_Wait(rv_bar.ev);
    return rv_bar_finish(id, flags);
}

int gasnet_barrier_try(int id, int flags)
{
    rv_bar_check("gasnet_barrier_try", flags);
    _rivet_legacy_try_poll();
    if (gex_Event_Test(rv_bar.ev) != GASNET_OK) return GASNET_ERR_NOT_READY;
    return rv_bar_finish(id, flags);
}

int gasnet_barrier(int id, int flags)
{
    gasnet_barrier_notify(id, flags);
    return gasnet_barrier_wait(id, flags);
}

int gasnet_barrier_result(int *id)
{
    (void)rv_legacy_tm_get("gasnet_barrier_result");
    if (!id) rv_fatal("gasnet_barrier_result: id is NULL");
    *id = rv_bar.res_id;
    return rv_bar.res_anon ? GASNET_BARRIERFLAG_ANONYMOUS : 0;
}
