/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_thread_wait.c: many client threads waiting at once (argv[1], default 32, per
 * rank; argv[2] rounds each, default 200). Every thread of every rank, per round, sends an AM
 * Request to the next rank and waits for its Reply in GASNET_BLOCKUNTIL, then puts a tagged
 * word into its slot at the next rank and gets it back, each waited for with gex_Event_Wait.
 * With more waiting threads than cores the wait loops must yield (core/progress.c
 * rv_waiters): threads spinning on 2 cores (over udp each retrying the transport's lock) keep
 * the one thread that could make progress off the CPU for whole scheduler slices, and the
 * ctest timeout fails the job. Asserts every Reply's value and every word read back. */
#include "rv_test.h"

#include <pthread.h>
#include <stdatomic.h>

#define MAXTHREADS 256
#define H_REQ      200
#define H_REP      201

static int nthreads = 32;
static unsigned rounds = 200;
static gex_Rank_t next;
static uint64_t *nextseg;
static struct {
    _Atomic unsigned done; /* Replies received by thread t */
    gex_AM_Arg_t     val;  /* the last one's value */
    char pad[56];
} slot[MAXTHREADS];
static pthread_barrier_t tbar;

static gex_AM_Arg_t answer(gex_Rank_t at, gex_AM_Arg_t t, gex_AM_Arg_t i)
{
    return (gex_AM_Arg_t)(((uint32_t)at * 0x9e3779b1u) ^ ((uint32_t)t << 20) ^ (uint32_t)i);
}

static void h_req(gex_Token_t tok, gex_AM_Arg_t t, gex_AM_Arg_t i)
{
    RVT_OK(gex_AM_ReplyShort2(tok, H_REP, 0, t, answer(rvt_me, t, i)));
}

static void h_rep(gex_Token_t tok, gex_AM_Arg_t t, gex_AM_Arg_t v)
{
    (void)tok;
    RVT_CHECK(t >= 0 && t < nthreads, "a Reply for thread %d", (int)t);
    slot[t].val = v;
    atomic_fetch_add_explicit(&slot[t].done, 1, memory_order_release);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    pthread_barrier_wait(&tbar);
    for (unsigned i = 0; i < rounds; i++) {
        RVT_OK(gex_AM_RequestShort2(rvt_tm, next, H_REQ, 0, (gex_AM_Arg_t)t, (gex_AM_Arg_t)i));
        GASNET_BLOCKUNTIL(atomic_load_explicit(&slot[t].done, memory_order_acquire) == i + 1);
        gex_AM_Arg_t want = answer(next, t, (gex_AM_Arg_t)i);
        RVT_CHECK(slot[t].val == want, "thread %d round %u: Reply value %#x, not %#x", t, i,
                  (unsigned)slot[t].val, (unsigned)want);
        uint64_t v = ((uint64_t)rvt_me << 48) ^ ((uint64_t)t << 32) ^ i, back = 0;
        gex_Event_Wait(gex_RMA_PutNB(rvt_tm, next, &nextseg[t], &v, sizeof v,
                                     GEX_EVENT_DEFER, 0));
        gex_Event_Wait(gex_RMA_GetNB(rvt_tm, &back, next, &nextseg[t], sizeof back, 0));
        RVT_CHECK(back == v, "thread %d round %u: read back %#" PRIx64 " after putting %#" PRIx64,
                  t, i, back, v);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, GASNET_PAGESIZE);
    if (argc > 1) nthreads = atoi(argv[1]);
    if (argc > 2) rounds = (unsigned)strtoul(argv[2], NULL, 10);
    RVT_CHECK(nthreads > 0 && nthreads <= MAXTHREADS, "threads: %d", nthreads);
    gex_AM_Entry_t tab[] = {
        { H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "req" },
        { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rep" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 2));
    next = (rvt_me + 1) % rvt_n;
    nextseg = rvt_seg_addr(next, 0);
    RVT_CHECK(pthread_barrier_init(&tbar, NULL, (unsigned)nthreads) == 0, "pthread_barrier_init");
    rvt_barrier();
    pthread_t th[MAXTHREADS];
    for (int t = 0; t < nthreads; t++)
        RVT_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0,
                  "pthread_create");
    for (int t = 0; t < nthreads; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < nthreads; t++)
        RVT_CHECK(slot[t].done == rounds, "thread %d: %u Replies, not %u", t, slot[t].done, rounds);
    rvt_barrier();
    const uint64_t *mine = gex_Segment_QueryAddr(rvt_seg);
    gex_Rank_t prev = (rvt_me + rvt_n - 1) % rvt_n;
    for (int t = 0; t < nthreads; t++) {
        uint64_t want = ((uint64_t)prev << 48) ^ ((uint64_t)t << 32) ^ (rounds - 1);
        RVT_CHECK(mine[t] == want, "slot %d holds %#" PRIx64 ", not %#" PRIx64, t, mine[t], want);
    }
    pthread_barrier_destroy(&tbar);
    return rvt_done("am_thread_wait");
}
