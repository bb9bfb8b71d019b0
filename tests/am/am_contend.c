/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_contend.c: progress under thread contention (the pattern of GASNet's
 * testcontend). Per round, on every rank, thread 0 does a burst of blocking puts/gets to the
 * next rank, then sends a Request that ends the round and waits in a thread barrier without
 * polling; the other threads loop on gex_RMA_PutBlocking / GetBlocking (a direct copy when the
 * next rank is a shared-memory neighbour) until a handler has counted the round's end.
 * The ending Request goes to the own rank and must run inside the call (loopback): the
 * workers' blocking RMA, a plain copy to a shared-memory neighbour, does not poll (as in
 * GASNet-EX, docs/completion.md "Progress"), so nothing else would run the handler. Each
 * worker writes tagged words into its own slot at the next rank and reads each one back;
 * every slot is checked again after the round. Without the rule the job hangs and the ctest
 * timeout fails it. */
#include "rv_test.h"

#include <pthread.h>
#include <stdatomic.h>

#define NTHREADS 4
#define ROUNDS   6
#define H_END    200

static _Atomic unsigned long ends; /* round-ending Requests handled here (any thread) */
static gex_Rank_t next, prev;
static uint64_t *nextseg, *myseg; /* slot [t] of each rank: written by thread t of prev */
static pthread_barrier_t tbar;
static int round_no;
static unsigned long worker_iters[NTHREADS];
static unsigned long burst = 200; /* thread 0's puts/gets per round (argv[1]) */

static void h_end(gex_Token_t t, gex_AM_Arg_t r)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    RVT_CHECK(r == round_no, "round %d: ending Request of round %d", round_no, (int)r);
    RVT_CHECK(info.gex_srcrank == rvt_me, "round %d: the ending Request came from rank %u, "
              "not from this rank", (int)r, (unsigned)info.gex_srcrank);
    ends++;
}

static uint64_t tag(gex_Rank_t r, int t, int round, unsigned long i)
{
    return ((uint64_t)r << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)round << 32) ^ i;
}

static void put_get(int t, unsigned long i)
{
    uint64_t v = tag(rvt_me, t, round_no, i), back = 0;
    RVT_OK(gex_RMA_PutBlocking(rvt_tm, next, &nextseg[t], &v, sizeof v, 0));
    if (i & 1) {
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, &back, next, &nextseg[t], sizeof back, 0));
    } else {
        back = gex_RMA_GetBlockingVal(rvt_tm, next, &nextseg[t], sizeof back, 0);
    }
    RVT_CHECK(back == v, "thread %d: read back %#" PRIx64 " after putting %#" PRIx64, t, back, v);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    unsigned long target = (unsigned long)round_no + 1, i = 0;
    pthread_barrier_wait(&tbar);
    if (t == 0) {
        for (; i < burst; i++) put_get(t, i);
        RVT_OK(gex_AM_RequestShort1(rvt_tm, rvt_me, H_END, 0, (gex_AM_Arg_t)round_no));
        RVT_CHECK(ends == target, "round %d: the Request to myself returned before its "
                  "handler ran", round_no);
    } else {
        while (ends < target) put_get(t, i++);
    }
    worker_iters[t] = i;
    pthread_barrier_wait(&tbar); /* thread 0 waits here without polling */
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, GASNET_PAGESIZE);
    if (argc > 1) burst = strtoul(argv[1], NULL, 10);
    gex_AM_Entry_t tab[] = {
        { H_END, (gex_AM_Fn_t)h_end, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "end" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 1));
    next = (rvt_me + 1) % rvt_n;
    prev = (rvt_me + rvt_n - 1) % rvt_n;
    nextseg = rvt_seg_addr(next, 0);
    myseg = gex_Segment_QueryAddr(rvt_seg);
    RVT_CHECK(pthread_barrier_init(&tbar, NULL, NTHREADS) == 0, "pthread_barrier_init");
    rvt_barrier();
    for (round_no = 0; round_no < ROUNDS; round_no++) {
        pthread_t th[NTHREADS];
        for (int t = 0; t < NTHREADS; t++)
            RVT_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
                      "pthread_create");
        for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
        RVT_CHECK(ends == (unsigned long)round_no + 1, "round %d: %lu ending Requests handled",
                  round_no, ends);
        /* every worker's last word reached the next rank; check what prev wrote here */
        uint64_t iters[NTHREADS];
        for (int t = 0; t < NTHREADS; t++) iters[t] = worker_iters[t];
        rvt_barrier();
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, next, (char *)nextseg + GASNET_PAGESIZE / 2, iters,
                                   sizeof iters, 0));
        rvt_barrier();
        const uint64_t *n_prev = (const uint64_t *)((char *)myseg + GASNET_PAGESIZE / 2);
        for (int t = 0; t < NTHREADS; t++) {
            if (!n_prev[t]) continue;
            uint64_t want = tag(prev, t, round_no, n_prev[t] - 1);
            RVT_CHECK(myseg[t] == want, "round %d: slot %d holds %#" PRIx64 ", not the last word "
                      "%#" PRIx64 " of rank %u's thread", round_no, t, myseg[t], want,
                      (unsigned)prev);
        }
        rvt_barrier();
    }
    pthread_barrier_destroy(&tbar);
    return rvt_done("am_contend");
}
