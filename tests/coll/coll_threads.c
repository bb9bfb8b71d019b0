/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_threads.c: two threads per rank, each running collectives on its own
 * team (two splits of the whole job) at the same time: handlers and progress run on
 * whichever thread polls, so the engine's locking is exercised (run it under TSan). */
#include "rv_test.h"
#include <gasnet_coll.h>
#include <pthread.h>

#define ITERS 300
static gex_TM_t teams[2];

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    gex_TM_t tm = teams[t];
    gex_Rank_t n = gex_TM_QuerySize(tm), me = gex_TM_QueryRank(tm);
    static unsigned char big[2][5000];
    for (int i = 0; i < ITERS; i++) {
        int64_t v = (int64_t)(me + i + t), s = 0, e = 0;
        for (gex_Rank_t r = 0; r < n; r++) e += (int64_t)(r + i + t);
        gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &s, &v, GEX_DT_I64, 8, 1, GEX_OP_ADD, NULL, NULL, 0));
        RVT_CHECK(s == e, "thread %d iter %d: allreduce %lld want %lld", t, i, (long long)s, (long long)e);
        gex_Rank_t root = (gex_Rank_t)(i % n);
        if (me == root) rvt_fill(big[t], sizeof big[t], (uint64_t)(i * 2 + t));
        gex_Event_Wait(gex_Coll_BroadcastNB(tm, root, big[t], big[t], sizeof big[t], 0));
        RVT_VERIFY(big[t], sizeof big[t], (uint64_t)(i * 2 + t), "threaded broadcast");
        if (i % 16 == 0) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    for (int t = 0; t < 2; t++)
        gex_TM_Split(&teams[t], rvt_tm, 0, t ? -(int)rvt_me : (int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    pthread_t th[2];
    for (int t = 0; t < 2; t++) RVT_CHECK(!pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t), "thread");
    for (int t = 0; t < 2; t++) pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++) gex_TM_Destroy(teams[t], NULL, 0);
    return rvt_done("coll_threads");
}
