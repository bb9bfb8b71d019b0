/* SPDX-License-Identifier: BSD-3-Clause */
/* event/event.h: the operation object behind a gex_Event_t, and NBI accounting, shared by every engine. */
#ifndef RV_EVENT_H
#define RV_EVENT_H

#include <stdatomic.h>
#include "gasnetex.h"

/* An outstanding operation; gex_Event_t points at one. 'test' advances the
 * operation without polling the network and returns non-zero once it is
 * complete; 'release' recycles it (and its leaves) after a successful
 * Test/Wait of the root; 'leaf' (may be NULL) answers gex_Event_QueryLeaf. */
struct rv_op {
    int         (*test)(struct rv_op *op);
    void        (*release)(struct rv_op *op);
    gex_Event_t (*leaf)(struct rv_op *op, gex_EC_t ec);
};

/* NBI accounting: outstanding implicit-event operations by category. */
enum { RV_EC_GET, RV_EC_PUT, RV_EC_AM, RV_EC_LC, RV_EC_RMW, RV_EC_N };
typedef struct rv_nbi_set {
    _Atomic long out[RV_EC_N];
} rv_nbi_set_t;

/* The set the calling thread's NBI operations count into right now: the open
 * access region's, else the thread's own. Every count (rv_nbi_add) must use a set it
 * returned on the counting thread: it clears that thread's _rivet_nbi_idle, which lets
 * gasnetex.h's inline gex_NBI_{Test,Wait} return at once. */
rv_nbi_set_t *rv_nbi_current(void);
/* Reads RIVET_HANDLER_SYNC (client start-up). */
void rv_nbi_init(void);
/* A sync (NBI or event test/wait) called inside an AM handler, which the spec forbids:
 * RIVET_HANDLER_SYNC=warn warns once per process and lets it complete (waits then poll only
 * replies and completions: rv_event_handler_wait_step), =fatal ends the job. 'name' names the
 * call. */
void rv_event_sync_in_handler(const char *name);
void rv_event_handler_wait_step(void);

static inline void rv_nbi_add(rv_nbi_set_t *s, int ec)
{
    atomic_fetch_add_explicit(&s->out[ec], 1, memory_order_relaxed);
}

/* Called on completion (possibly by another thread, from a handler). */
static inline void rv_nbi_done(rv_nbi_set_t *s, int ec)
{
    atomic_fetch_sub_explicit(&s->out[ec], 1, memory_order_release);
}

#endif /* RV_EVENT_H */
