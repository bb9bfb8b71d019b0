/* SPDX-License-Identifier: BSD-3-Clause */
/* core/progress.c: polling and the wait-loop step every blocking call uses. */
#include "core/core.h"

#include <sched.h>

#define RV_PROGRESS_HOOKS_MAX 8
static rv_progress_fn_t rv_hooks[RV_PROGRESS_HOOKS_MAX];
static int rv_nhooks;
rv_poller_t rv_poller;

void rv_progress_register(rv_progress_fn_t fn)
{
    if (rv_nhooks == RV_PROGRESS_HOOKS_MAX) rv_fatal("too many progress hooks");
    rv_hooks[rv_nhooks++] = fn;
}

int rv_poll(void)
{
    int n = rv_poller.poll(rv_poller.priv, RV_CHAN_MASK_ALL);
    for (int i = 0; i < rv_nhooks; i++) n += rv_hooks[i]();
    return n;
}

int rv_poll_replies(void)
{
    return rv_poller.poll(rv_poller.priv, RV_CHAN_MASK(RV_CHAN_REP));
}

/* Wait loops poll; when ranks outnumber cores an idle poll gives the core away,
 * so the rank we are waiting for gets to run, and a transport that can wait for traffic
 * (rv_poller.idle) may block for a while when nothing happens for long. */
void _rivet_progress_wait_step(void)
{
    RV_CHECK_INIT("GASNET_BLOCKUNTIL");
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("a wait loop (GASNET_BLOCKUNTIL, gex_Event_Wait, ...) ran inside an AM handler; "
                 "handlers may not poll or wait");
    if (rv_poll() == 0) {
        if (rv_job.oversubscribed) sched_yield();
        if (rv_poller.idle) rv_poller.idle(rv_poller.priv);
    }
}

int gasnet_AMPoll(void)
{
    RV_CHECK_INIT("gasnet_AMPoll");
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("gasnet_AMPoll called inside an AM handler; handlers may not poll");
    rv_poll();
    return GASNET_OK;
}
