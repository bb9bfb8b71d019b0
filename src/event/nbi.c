/* SPDX-License-Identifier: BSD-3-Clause */
/* event/nbi.c: per-thread implicit-event (NBI) tracking, gex_NBI_{Test,Wait} and access regions. */
#include "event/event.h"
#include "core/core.h"
#include "am/am_int.h"

#include <sched.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An access region: NBI operations started inside it count here instead of in
 * the thread's set, and its root event completes when they all have. Its one leaf
 * is the local completion of its GEX_EVENT_GROUP Puts (gex_Event_QueryLeaf, GEX_EC_LC). */
typedef struct rv_region_op {
    struct rv_op op;
    struct rv_op lc;
    rv_nbi_set_t set;
} rv_region_op_t;

static _Thread_local rv_nbi_set_t rv_nbi_thread;
static _Thread_local rv_region_op_t *rv_nbi_region;

/* gasnetex.h's inline gex_NBI_{Test,Wait} return at once while this is set: a sync here found
 * the thread's set empty (every category) with no region open, and nothing was counted since.
 * Only this thread adds to its set (other threads and handlers only take away), so cleared
 * here before every add it stays true. */
_Thread_local unsigned char _rivet_nbi_idle;

/* Every caller is about to count an operation into the set returned. */
rv_nbi_set_t *rv_nbi_current(void)
{
    _rivet_nbi_idle = 0;
    return rv_nbi_region ? &rv_nbi_region->set : &rv_nbi_thread;
}

static const gex_EC_t rv_ec_bits[RV_EC_N] = { GEX_EC_GET, GEX_EC_PUT, GEX_EC_AM, GEX_EC_LC,
                                              GEX_EC_RMW };

static int rv_nbi_idle(rv_nbi_set_t *s, gex_EC_t mask)
{
    for (int i = 0; i < RV_EC_N; i++)
        if ((mask & rv_ec_bits[i]) && atomic_load_explicit(&s->out[i], memory_order_acquire))
            return 0;
    return 1;
}

/* ---- syncs inside a handler -----------------------------------------------------------
 * The specification forbids them, but release GASNet lets them pass and clients depend on it
 * (osss-gasnet's global-exit handler calls gasnet_wait_syncnbi_puts). RIVET_HANDLER_SYNC=warn
 * (default): one warning per process, then the sync completes, polling only replies and
 * transport completions (reply handlers never send, so this cannot recurse into Request
 * handlers); =fatal: the spec's rule, a fatal error. docs/legacy.md explains the choice. */
static int rv_nbi_handler_fatal;

void rv_nbi_init(void)
{
    rv_nbi_handler_fatal = !strcmp(rv_cfg.HANDLER_SYNC, "fatal");   /* warn|fatal, checked at start-up */
}

static const char *rv_nbi_legacy_name(int wait, gex_EC_t mask)
{
    if (mask == GEX_EC_PUT) return wait ? "gasnet_wait_syncnbi_puts" : "gasnet_try_syncnbi_puts";
    if (mask == GEX_EC_GET) return wait ? "gasnet_wait_syncnbi_gets" : "gasnet_try_syncnbi_gets";
    if (mask == GEX_EC_ALL) return wait ? "gasnet_wait_syncnbi_all" : "gasnet_try_syncnbi_all";
    return NULL;
}

static __attribute__((noinline)) void rv_nbi_in_handler(const char *call, int wait, gex_EC_t mask)
{
    const char *legacy = rv_nbi_legacy_name(wait, mask);
    char name[96];
    snprintf(name, sizeof name, "%s(0x%x)%s%s%s", call, (unsigned)mask, legacy ? " (" : "",
             legacy ? legacy : "", legacy ? ")" : "");
    rv_event_sync_in_handler(name);
}

void rv_event_handler_wait_step(void)
{
    if (rv_poll_replies() == 0 && rv_idle_should_yield()) sched_yield();
}

__attribute__((noinline)) void rv_event_sync_in_handler(const char *name)
{
    if (rv_nbi_handler_fatal)
        rv_fatal("%s called inside an AM handler; handlers may not sync (RIVET_HANDLER_SYNC=fatal)",
                 name);
    static atomic_int warned;
    if (!atomic_exchange(&warned, 1))
        rv_warn("%s called inside an AM handler: the GASNet-EX specification forbids syncs in "
                "handlers; Rivet completes it, polling only for replies and completions "
                "(warned once; RIVET_HANDLER_SYNC=fatal makes it an error)", name);
}

static void rv_nbi_check(const char *call, gex_EC_t mask, gex_Flags_t flags)
{
    RV_CHECK_INIT(call);
    if (mask & ~GEX_EC_ALL) rv_fatal("%s: event_mask 0x%x has bits that name no GEX_EC_*", call,
                                     (unsigned)mask);
    if (flags) rv_fatal("%s: flags must be 0", call);
    /* Operations started in a region belong to its event, not to the thread. */
    if (rv_nbi_region)
        rv_fatal("%s called inside an NBI access region; end the region and sync its event "
                 "instead", call);
}

/* After a sync that passed its checks (no region is open): note an empty set. */
static inline void rv_nbi_note_idle(void)
{
    if (rv_nbi_idle(&rv_nbi_thread, GEX_EC_ALL)) _rivet_nbi_idle = 1;
}

int gex_NBI_Test(gex_EC_t event_mask, gex_Flags_t flags)
{
    rv_nbi_check("gex_NBI_Test", event_mask, flags);
    if (__builtin_expect(rv_am_in_handler(), 0)) rv_nbi_in_handler("gex_NBI_Test", 0, event_mask);
    if (!rv_nbi_idle(&rv_nbi_thread, event_mask)) return GASNET_ERR_NOT_READY;
    rv_nbi_note_idle();
    return GASNET_OK;
}

void gex_NBI_Wait(gex_EC_t event_mask, gex_Flags_t flags)
{
    rv_nbi_check("gex_NBI_Wait", event_mask, flags);
    if (__builtin_expect(rv_am_in_handler(), 0)) {
        rv_nbi_in_handler("gex_NBI_Wait", 1, event_mask);
        while (!rv_nbi_idle(&rv_nbi_thread, event_mask)) rv_event_handler_wait_step();
    } else {
        RV_WAIT_UNTIL(rv_nbi_idle(&rv_nbi_thread, event_mask));
    }
    rv_nbi_note_idle();
}

static int rv_region_test(struct rv_op *o)
{
    return rv_nbi_idle(&((rv_region_op_t *)o)->set, GEX_EC_ALL);
}

static void rv_region_release(struct rv_op *o) { free(o); }

static int rv_region_lc_test(struct rv_op *o)
{
    rv_region_op_t *r = (rv_region_op_t *)(void *)((char *)o - offsetof(rv_region_op_t, lc));
    return rv_nbi_idle(&r->set, GEX_EC_LC);
}

/* A synced leaf is recycled with its region. */
static void rv_region_lc_release(struct rv_op *o) { (void)o; }

static gex_Event_t rv_region_leaf(struct rv_op *o, gex_EC_t ec)
{
    rv_region_op_t *r = (rv_region_op_t *)o;
    if (ec != GEX_EC_LC || rv_nbi_idle(&r->set, GEX_EC_LC)) return GEX_EVENT_INVALID;
    return &r->lc;
}

void gex_NBI_BeginAccessRegion(gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_NBI_BeginAccessRegion");
    if (flags) rv_fatal("gex_NBI_BeginAccessRegion: flags must be 0");
    if (rv_nbi_region) rv_fatal("gex_NBI_BeginAccessRegion: an access region is already open on "
                                "this thread (regions do not nest)");
    rv_region_op_t *r = calloc(1, sizeof *r);
    if (!r) rv_fatal("gex_NBI_BeginAccessRegion: out of memory");
    r->op.test = rv_region_test;
    r->op.release = rv_region_release;
    r->op.leaf = rv_region_leaf;
    r->lc.test = rv_region_lc_test;
    r->lc.release = rv_region_lc_release;
    r->lc.leaf = NULL;
    rv_nbi_region = r;
    _rivet_nbi_idle = 0; /* a sync inside the region is the library's error */
}

gex_Event_t gex_NBI_EndAccessRegion(gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_NBI_EndAccessRegion");
    if (flags) rv_fatal("gex_NBI_EndAccessRegion: flags must be 0");
    rv_region_op_t *r = rv_nbi_region;
    if (!r) rv_fatal("gex_NBI_EndAccessRegion: no access region is open on this thread");
    rv_nbi_region = NULL;
    return &r->op;
}
