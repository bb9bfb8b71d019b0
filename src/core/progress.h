/* SPDX-License-Identifier: BSD-3-Clause */
/* core/progress.h: the message channels and progress: polling the transport in use (through the
 * poll entry its open left in rv_poller) and the engines' registered progress hooks. */
#ifndef RV_PROGRESS_H
#define RV_PROGRESS_H

#include <sched.h>
#include <stdatomic.h>
#include "core/job.h"

/* Message channels. Requests and replies travel separately so that a reply can
 * always be drained without running request handlers (deadlock freedom). */
enum { RV_CHAN_REQ = 0, RV_CHAN_REP = 1 };
#define RV_CHAN_MASK(c)  (1u << (c))
#define RV_CHAN_MASK_ALL (RV_CHAN_MASK(RV_CHAN_REQ) | RV_CHAN_MASK(RV_CHAN_REP))

/* A transport's idle hint (rv_tp_ops_t.poll_hint): a poll of all channels would deliver and do
 * nothing while *busy is 0 and each words[i] (i < n) points to a 0 word (relaxed loads: a hint,
 * as the transport's own first look is). The core's idle polls then read those words instead
 * of calling the transport (no call through the ops table for a poll that finds nothing). */
typedef struct rv_poll_hint {
    uint64_t *const *words; /* [n]; the pointers may move (relaxed atomic), the array does not */
    const int       *busy;
    unsigned         n;
} rv_poll_hint_t;

/* The transport's poll (rv_tp_ops_t.poll, transport/transport.h) and its private state, set
 * when the transport opens (api/client.c): the core polls without knowing the transport, with
 * the one indirect call the ops table costs anyway. */
typedef struct rv_poller {
    int  (*poll)(void *priv, unsigned chan_mask);
    void *priv;
    void (*idle)(void *priv); /* rv_tp_ops_t.idle: may block a wait loop briefly; or NULL */
    const rv_poll_hint_t *hint; /* rv_tp_ops_t.poll_hint's, or NULL */
} rv_poller_t;
extern rv_poller_t rv_poller;

/* Polls the transport once (all channels). Returns messages handled. */
int rv_poll(void);
/* One step of a wait loop: poll, and when that found nothing, yield the CPU if
 * rv_idle_should_yield() and let the transport block briefly (rv_poller.idle) if it wants.
 * _rivet_wait_step counts the calling thread in rv_waiters at its first idle poll (*waiting
 * 0 -> 1); the loop that passed it calls _rivet_wait_end() after the wait if *waiting is set
 * (GASNET_BLOCKUNTIL, gasnetex.h; RV_WAIT_UNTIL; the ofi/ucx atomic retry loops).
 * _rivet_progress_wait_step counts nobody (programs built against an older gasnetex.h). */
void _rivet_progress_wait_step(void);
void _rivet_wait_step(int *waiting);
void _rivet_wait_end(void);
#define RV_WAIT_UNTIL(cond) GASNET_BLOCKUNTIL(cond) /* the same loop, inside the library */
/* Threads of this process inside a wait loop that found nothing to do. When they outnumber
 * the cores this process may count on (rv_job.wait_cap: cores / ranks on this host), idle
 * polls yield: client threads spinning on 2 cores (each retrying the transport's lock) would
 * otherwise starve the one thread that makes progress for whole scheduler slices. */
extern atomic_int rv_waiters;
static inline int rv_wait_crowded(void)
{
    return atomic_load_explicit(&rv_waiters, memory_order_relaxed) > rv_job.wait_cap;
}
static inline int rv_idle_should_yield(void)
{
    return rv_job.idle_yield || rv_wait_crowded();
}
/* For the library's own wait loops (e.g. a send waiting for room): after a poll that found
 * nothing, count the thread as waiting (once; *waiting 0 -> 1) and yield if
 * rv_idle_should_yield(); rv_wait_uncount(waiting) when the loop ends. */
static inline void rv_wait_idle(int *waiting)
{
    if (!*waiting) {
        *waiting = 1;
        atomic_fetch_add_explicit(&rv_waiters, 1, memory_order_relaxed);
    }
    if (rv_idle_should_yield()) sched_yield();
}
static inline void rv_wait_uncount(int waiting)
{
    if (waiting) atomic_fetch_sub_explicit(&rv_waiters, 1, memory_order_relaxed);
}
/* Engines with deferred work (e.g. sends refused for lack of room) register a
 * hook that rv_poll() runs; it must not block, poll or run handlers, and returns
 * how much work it did. Register at init only. */
typedef int (*rv_progress_fn_t)(void);
/* The hook runs only while *pending is not 0 (a count of the engine's deferred work, read
 * relaxed: a hook that runs late runs at the next poll); NULL: at every poll. Whoever changes
 * *pending changes rv_progress_pending by the same amount (rv_progress_note). */
void rv_progress_register(rv_progress_fn_t fn, const atomic_int *pending);
/* The sum of every hook's *pending (a NULL pending counts 1 for good): the one word an idle
 * poll reads instead of each hook's, so that polling with no deferred work stays a few loads
 * however many engines registered hooks. */
extern atomic_int rv_progress_pending;
static inline void rv_progress_note(int delta)
{
    atomic_fetch_add_explicit(&rv_progress_pending, delta, memory_order_relaxed);
}
/* Polls only replies: used while a reply handler context waits for send space. */
int rv_poll_replies(void);

#endif /* RV_PROGRESS_H */
