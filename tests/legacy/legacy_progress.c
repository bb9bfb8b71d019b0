/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_progress.c: blocking GASNet-1 RMA calls make progress. One thread loops
 * on a blocking call (put, get, put_val, get_val, memset, putv_bulk) until an AM handler sets
 * a flag; the main thread sends that AM to itself and then joins the looping thread without
 * polling. Only polling inside the blocking calls can run the handler (GASNet's testcontend
 * relies on it); without it the job hangs and the timeout fails it. */
#include <gasnet.h>
#include <gasnet_vis.h>
#include <pthread.h>
#include "rv_test.h"

#define H_DONE 200

static volatile int done;
static gasnet_node_t me, peer;
static void *peerseg;
static int which;

static void done_handler(gasnet_token_t t)
{
    (void)t;
    done = 1;
}

static void *looper(void *arg)
{
    (void)arg;
    uint64_t x = 7;
    unsigned long calls = 0;
    while (!done) {
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
    for (which = 0; which < 6; which++) {
        pthread_t t;
        void *calls;
        done = 0;
        RVT_CHECK(pthread_create(&t, NULL, looper, NULL) == 0, "pthread_create");
        RVT_OK(gasnet_AMRequestShort0(me, H_DONE));
        RVT_CHECK(pthread_join(t, &calls) == 0, "pthread_join");
        RVT_CHECK(done && calls, "call %d: the looping thread ended without the flag", which);
        gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
        RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    }
    if (me == 0) printf("legacy_progress: PASS on %u nodes\n", (unsigned)gasnet_nodes());
    gasnet_exit(0);
    return 0;
}
