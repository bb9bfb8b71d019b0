/* SPDX-License-Identifier: BSD-3-Clause */
/* core/progress.c: polling and the wait-loop step every blocking call uses. */
#include "core/core.h"

#include <sched.h>
#include <stdatomic.h>

#define RV_PROGRESS_HOOKS_MAX 8
static struct {
    rv_progress_fn_t  fn;
    const atomic_int *pending;
} rv_hooks[RV_PROGRESS_HOOKS_MAX];
static int rv_nhooks;
static const atomic_int rv_always = 1;
atomic_int rv_progress_pending;
rv_poller_t rv_poller;

void rv_progress_register(rv_progress_fn_t fn, const atomic_int *pending)
{
    if (rv_nhooks == RV_PROGRESS_HOOKS_MAX) rv_fatal("too many progress hooks");
    rv_hooks[rv_nhooks].fn = fn;
    rv_hooks[rv_nhooks].pending = pending ? pending : &rv_always;
    rv_nhooks++;
    if (!pending) rv_progress_note(1);
}

/* The hooks with work pending. An idle hook costs one load, not a call: a poll that finds
 * nothing stays a few loads. Out of line: the idle poll below keeps no registers for it. */
static __attribute__((noinline)) int rv_poll_hooks(void)
{
    int n = 0;
    for (int i = 0; i < rv_nhooks; i++)
        if (atomic_load_explicit(rv_hooks[i].pending, memory_order_relaxed)) n += rv_hooks[i].fn();
    return n;
}

/* Whether any hook may have work pending: one load (rv_progress_pending, read relaxed as the
 * hooks' own counts are: work noted late is done at the next poll). */
static inline int rv_hooks_pending(void)
{
    return atomic_load_explicit(&rv_progress_pending, memory_order_relaxed) != 0;
}

/* RIVET_STATS: the same, timed and counted. A poll inside a poll (a handler's send that waits
 * for window or credits polls again) is counted but not timed: the outer one holds its time. */
static __thread unsigned rv_poll_depth;
static __attribute__((noinline)) int rv_poll_counted(unsigned mask)
{
    uint64_t t0 = rv_stats_ticks();
    rv_poll_depth++;
    int n = rv_poller.poll(rv_poller.priv, mask);
    if (mask == RV_CHAN_MASK_ALL) n += rv_poll_hooks();
    if (--rv_poll_depth == 0) rv_stats_add(RV_ST_POLL_NS, rv_stats_ticks() - t0);
    rv_stats_add(RV_ST_POLL_CALLS, 1);
    rv_stats_add(n ? RV_ST_POLL_MSGS : RV_ST_POLL_IDLE, n ? (uint64_t)n : 1);
    return n;
}

/* Whether the transport's hint says a poll of all channels would find nothing. */
static inline int rv_poll_hint_idle(void)
{
    const rv_poll_hint_t *h = rv_poller.hint;
    if (!h || __atomic_load_n(h->busy, __ATOMIC_RELAXED)) return 0;
    uint64_t *const *w = h->words;
    for (unsigned i = 0, k = h->n; i < k; i++)
        if (__atomic_load_n(__atomic_load_n(&w[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED)) return 0;
    return 1;
}

static inline __attribute__((always_inline)) int rv_poll_i(void)
{
    if (RV_STAT_ON()) return rv_poll_counted(RV_CHAN_MASK_ALL);
    int n = rv_poll_hint_idle() ? 0 : rv_poller.poll(rv_poller.priv, RV_CHAN_MASK_ALL);
    if (__builtin_expect(rv_hooks_pending(), 0)) n += rv_poll_hooks();
    return n;
}

int rv_poll(void) { return rv_poll_i(); }

int rv_poll_replies(void)
{
    if (RV_STAT_ON()) return rv_poll_counted(RV_CHAN_MASK(RV_CHAN_REP));
    return rv_poller.poll(rv_poller.priv, RV_CHAN_MASK(RV_CHAN_REP));
}

/* Wait loops poll; when ranks outnumber cores, or waiting threads do (rv_wait_crowded), or the
 * transport asked for it (rv_job_t idle_yield), an idle poll gives the core away, so the rank
 * or thread we are waiting for gets to run, and a transport that can wait for traffic
 * (rv_poller.idle) may block for a while when nothing happens for long. The count costs a
 * single-threaded wait two uncontended atomics, and only once its first poll found nothing. */
atomic_int rv_waiters;

/* RIVET_WAIT_MODE=auto: a wait that has found nothing to do for a millisecond waits for a
 * rank that is not running: the host's cores are busy with other work. From then on its idle
 * polls yield too, so the core goes to whoever can end the wait instead of to a spin that lasts
 * until the scheduler's next tick (GASNet's testbarrierlate, 2 ranks on 2 loaded cores: 200
 * barriers 0.13-1.9 s spinning, 2 ms yielding). The clock is read once per RV_WAIT_CHECK idle
 * polls, the first time after that many: a shorter wait reads none. A threshold counted in
 * polls alone (1024, a few microseconds over shm) made every loaded ping-pong yield: testam's
 * round trips 0.5 -> 7-10 us. */
enum { RV_WAIT_CHECK = 4096 };
#define RV_WAIT_LONG_NS 1000000u
static _Thread_local uint64_t rv_wait_t0;

/* *waiting: 0 before the wait's first idle poll (not counted in rv_waiters), then the count of
 * its idle polls (under auto; 1 otherwise), -1 once it yields for being long (non-zero:
 * counted; gasnetex.h's GASNET_BLOCKUNTIL only tests it for non-zero). */
static inline void rv_wait_step(int *waiting)
{
    RV_CHECK_INIT("GASNET_BLOCKUNTIL");
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("a wait loop (GASNET_BLOCKUNTIL, gex_Event_Wait, ...) ran inside an AM handler; "
                 "handlers may not poll or wait");
    if (rv_poll() == 0) {
        int w = *waiting;
        if (!w) {
            w = 1;
            atomic_fetch_add_explicit(&rv_waiters, 1, memory_order_relaxed);
        } else if (w > 0 && rv_job.long_wait_yield && ++w % RV_WAIT_CHECK == 0) {
            uint64_t now = rv_stats_now();
            if (w == RV_WAIT_CHECK) rv_wait_t0 = now;
            else if (now - rv_wait_t0 >= RV_WAIT_LONG_NS) w = -1;
        }
        *waiting = w;
        if (w < 0 || rv_idle_should_yield()) sched_yield();
        if (rv_poller.idle) rv_poller.idle(rv_poller.priv);
    }
}

void _rivet_wait_step(int *waiting) { rv_wait_step(waiting); }

void _rivet_wait_end(void)
{
    atomic_fetch_sub_explicit(&rv_waiters, 1, memory_order_relaxed);
}

void _rivet_progress_wait_step(void)
{
    int counted = 1; /* an old caller never says when its wait ends: not counted */
    rv_wait_step(&counted);
}

int gasnet_AMPoll(void)
{
    RV_CHECK_INIT("gasnet_AMPoll");
    if (__builtin_expect(rv_am_in_handler(), 0))
        rv_fatal("gasnet_AMPoll called inside an AM handler; handlers may not poll");
    rv_poll_i();
    return GASNET_OK;
}
