/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_progress.c: blocking GASNet-1 RMA calls make progress. One thread loops
 * on a blocking call (put, get, put_val, get_val, memset, putv_bulk) to its shared-memory
 * neighbour until an AM handler counts one more hit; the main thread of the previous rank sent
 * that AM, and every main thread then joins its looping thread without polling. Only polling
 * inside the blocking calls can run the handler (GASNet's testcontend relies on it); without
 * it the job hangs and the timeout fails it. On one rank the AM goes to the own rank and runs
 * inside the Request call (loopback), before the call returns. */
#include <gasnet.h>
#include <gasnet_vis.h>
#include <pthread.h>
#include "rv_test.h"

#define H_DONE 200

static volatile int hits; /* AMs handled so far: round k waits for k + 1 */
static gasnet_node_t me, peer;
static void *peerseg;
static int which;

static void done_handler(gasnet_token_t t)
{
    (void)t;
    hits++;
}

static void *looper(void *arg)
{
    (void)arg;
    uint64_t x = 7;
    unsigned long calls = 0;
    while (hits <= which) {
        switch (which) {
        case 0: gasnet_put(peer, peerseg, &x, sizeof x); break;
        case 1: gasnet_get(&x, peer, peerseg, sizeof x); break;
        case 2: gasnet_put_val(peer, peerseg, 5, sizeof x); break;
        case 3: x = gasnet_get_val(peer, peerseg, sizeof x); break;
        case 4: gasnet_memset(peer, peerseg, 3, sizeof x); break;
        default: {
            gasnet_memvec_t d = {peerseg, sizeof x}, s = {&x, sizeof x};
            gasnet_putv_bulk(peer, 1, &d, 1, &s);
        }
        }
        calls++;
    }
    return (void *)calls;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t tab[] = {{H_DONE, (void (*)())done_handler}};
    RVT_OK(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    rvt_me = me;
    peer = (me + 1) % gasnet_nodes();
    RVT_OK(gasnet_attach(tab, 1, GASNET_PAGESIZE, GASNET_PAGESIZE));
    gasnet_seginfo_t *si = calloc(gasnet_nodes(), sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)gasnet_nodes()));
    peerseg = si[peer].addr;
    gasnet_node_t prev = (me + gasnet_nodes() - 1) % gasnet_nodes();
    for (which = 0; which < 6; which++) {
        pthread_t t;
        void *calls;
        if (prev != me) RVT_CHECK(pthread_create(&t, NULL, looper, NULL) == 0, "pthread_create");
        RVT_OK(gasnet_AMRequestShort0(peer, H_DONE));
        if (prev == me) {
            RVT_CHECK(hits == which + 1, "call %d: the AM to myself had not run when the "
                      "Request returned", which);
            continue;
        }
        RVT_CHECK(pthread_join(t, &calls) == 0, "pthread_join");
        /* (the AM may also have run in the previous round's barrier, which polls) */
        (void)calls;
        RVT_CHECK(hits == which + 1, "call %d: the looping thread ended without the AM (%d "
                  "handled)", which, hits);
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
        RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    }
    if (me == 0) printf("legacy_progress: PASS on %u nodes\n", (unsigned)gasnet_nodes());
    gasnet_exit(0);
    return 0;
}
