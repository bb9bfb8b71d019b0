/* SPDX-License-Identifier: BSD-3-Clause */
/* event/event.c: gex_Event_{Test,Wait}{,Some,All}, gex_Event_QueryLeaf and gex_NBI_{Test,Wait}. */
#include "event/event.h"
#include "core/core.h"
#include "am/am_int.h"

/* Set once this thread has passed the checks of an event call after init (outside a
 * handler), and 0 while a handler runs on it (rv_am_deliver): gasnetex.h's inline
 * gex_Event_{Test,Wait}{,Some,All} then complete at once for GEX_EVENT_INVALID outside a
 * handler (as these functions would). */
_Thread_local unsigned char _rivet_ev_ready;

static inline int rv_event_done(const char *call, gex_Event_t ev)
{
    if (ev == GEX_EVENT_INVALID) return 1;
    if (__builtin_expect(ev == GEX_EVENT_NO_OP, 0))
        rv_fatal("%s: GEX_EVENT_NO_OP is not an event (the operation was not started)", call);
    if (!ev->test(ev)) return 0;
    ev->release(ev);
    return 1;
}

/* Returns non-zero inside an AM handler, where the spec forbids tests and waits: release
 * GASNet lets them pass and clients rely on it (osss-gasnet's global-exit handler waits for
 * its NB handles), so RIVET_HANDLER_SYNC decides (event/nbi.c). */
static inline int rv_event_check_ctx(const char *call)
{
    RV_CHECK_INIT(call);
    if (__builtin_expect(rv_am_in_handler(), 0)) {
        rv_event_sync_in_handler(call);
        return 1;
    }
    _rivet_ev_ready = 1;
    return 0;
}

/* One step of a wait: inside a handler only replies and completions are polled. *waiting:
 * the thread is counted in rv_waiters (core/progress.h); the wait ends with rv_event_wait_end. */
static inline void rv_event_wait_step(int in_handler, int *waiting)
{
    if (__builtin_expect(in_handler, 0)) rv_event_handler_wait_step();
    else _rivet_wait_step(waiting);
}
static inline void rv_event_wait_end(int waiting)
{
    if (waiting) _rivet_wait_end();
}

/* The array forms: flags are reserved and must be 0. */
static inline int rv_event_check_array(const char *call, gex_Flags_t flags)
{
    int in_handler = rv_event_check_ctx(call);
    if (__builtin_expect(flags != 0, 0)) rv_fatal("%s: flags must be 0", call);
    return in_handler;
}

int gex_Event_Test(gex_Event_t event)
{
    rv_event_check_ctx("gex_Event_Test");
    return rv_event_done("gex_Event_Test", event) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_Wait(gex_Event_t event)
{
    int in_handler = rv_event_check_ctx("gex_Event_Wait"), waiting = 0;
    while (!rv_event_done("gex_Event_Wait", event)) rv_event_wait_step(in_handler, &waiting);
    rv_event_wait_end(waiting);
}

/* One pass over the array: completed entries become GEX_EVENT_INVALID.
 * Reports how many were live on entry and how many completed now. */
static void rv_event_scan(const char *call, gex_Event_t *pev, size_t n, size_t *live, size_t *done)
{
    *live = *done = 0;
    for (size_t i = 0; i < n; i++) {
        if (pev[i] == GEX_EVENT_INVALID) continue;
        (*live)++;
        if (rv_event_done(call, pev[i])) {
            pev[i] = GEX_EVENT_INVALID;
            (*done)++;
        }
    }
}

int gex_Event_TestSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t live, done;
    rv_event_check_array("gex_Event_TestSome", flags);
    rv_event_scan("gex_Event_TestSome", pevent, numevents, &live, &done);
    return (done || !live) ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitSome(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t live, done;
    int in_handler = rv_event_check_array("gex_Event_WaitSome", flags), waiting = 0;
    for (;;) {
        rv_event_scan("gex_Event_WaitSome", pevent, numevents, &live, &done);
        if (done || !live) break;
        rv_event_wait_step(in_handler, &waiting);
    }
    rv_event_wait_end(waiting);
}

int gex_Event_TestAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t live, done;
    rv_event_check_array("gex_Event_TestAll", flags);
    rv_event_scan("gex_Event_TestAll", pevent, numevents, &live, &done);
    return done == live ? GASNET_OK : GASNET_ERR_NOT_READY;
}

void gex_Event_WaitAll(gex_Event_t *pevent, size_t numevents, gex_Flags_t flags)
{
    size_t live, done;
    int in_handler = rv_event_check_array("gex_Event_WaitAll", flags), waiting = 0;
    for (;;) {
        rv_event_scan("gex_Event_WaitAll", pevent, numevents, &live, &done);
        if (done == live) break;
        rv_event_wait_step(in_handler, &waiting);
    }
    rv_event_wait_end(waiting);
}

gex_Event_t gex_Event_QueryLeaf(gex_Event_t root, gex_EC_t event_category)
{
    RV_CHECK_INIT("gex_Event_QueryLeaf");
    if (root == GEX_EVENT_NO_OP) rv_fatal("gex_Event_QueryLeaf: root is GEX_EVENT_NO_OP");
    /* exactly one category: not GEX_EC_ALL, not an OR of several */
    gex_EC_t ec = event_category;
    if (!ec || (ec & (ec - 1)) || (ec & ~GEX_EC_ALL))
        rv_fatal("gex_Event_QueryLeaf: event_category 0x%x is not a single GEX_EC_* category",
                 (unsigned)event_category);
    if (root == GEX_EVENT_INVALID || !root->leaf) return GEX_EVENT_INVALID;
    return root->leaf(root, event_category);
}
