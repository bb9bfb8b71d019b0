/* SPDX-License-Identifier: BSD-3-Clause */
/* core/progress.h: the message channels and progress: polling the transport in use (through the
 * poll entry its open left in rv_poller) and the engines' registered progress hooks. */
#ifndef RV_PROGRESS_H
#define RV_PROGRESS_H

#include <stdatomic.h>

/* Message channels. Requests and replies travel separately so that a reply can
 * always be drained without running request handlers (deadlock freedom). */
enum { RV_CHAN_REQ = 0, RV_CHAN_REP = 1 };
#define RV_CHAN_MASK(c)  (1u << (c))
#define RV_CHAN_MASK_ALL (RV_CHAN_MASK(RV_CHAN_REQ) | RV_CHAN_MASK(RV_CHAN_REP))

/* The transport's poll (rv_tp_ops_t.poll, transport/transport.h) and its private state, set
 * when the transport opens (api/client.c): the core polls without knowing the transport, with
 * the one indirect call the ops table costs anyway. */
typedef struct rv_poller {
    int  (*poll)(void *priv, unsigned chan_mask);
    void *priv;
    void (*idle)(void *priv); /* rv_tp_ops_t.idle: may block a wait loop briefly; or NULL */
} rv_poller_t;
extern rv_poller_t rv_poller;

/* Polls the transport once (all channels). Returns messages handled. */
int rv_poll(void);
/* One step of a wait loop: poll, and when that found nothing, yield the CPU if
 * rv_job.idle_yield and let the transport block briefly (rv_poller.idle) if it wants. */
void _rivet_progress_wait_step(void);
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
