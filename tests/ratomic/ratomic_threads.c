/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_threads.c: remote atomics from several threads of every rank at once, all
 * on one domain and one word of rank 0. Each thread mixes NBI FADDs (synced with its own
 * gex_NBI_Wait, which covers only the calling thread's operations) and NB INCs; any thread's
 * polling may complete another thread's operations, so operation records are returned by other
 * threads than the ones that took them. Each thread's FADD results must increase strictly
 * and the final count must be exact. */
#include "rv_test.h"
#include <gasnet_ratomic.h>

#include <pthread.h>

#define NTHREADS 2
#define ITERS 2000
#define BATCH 50

static gex_AD_t ad;
static uint64_t *word;

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    uint64_t got[BATCH], prev = 0;
    int have_prev = 0;
    for (int it = 0; it < ITERS; it += BATCH) {
        for (int k = 0; k < BATCH; k++)
            RVT_CHECK(gex_AD_OpNBI_U64(ad, &got[k], 0, word, GEX_OP_FADD, 1, 0, 0) == 0,
                      "thread %d: NBI FADD returned non-zero", t);
        gex_Event_t ev[BATCH / 10];
        for (int k = 0; k < BATCH / 10; k++)
            ev[k] = gex_AD_OpNB_U64(ad, NULL, 0, word, GEX_OP_INC, 0, 0, 0);
        gex_NBI_Wait(GEX_EC_RMW, 0);
        gex_Event_WaitAll(ev, BATCH / 10, 0);
        /* one thread's FADDs are issued in order but may be applied in any order: sort */
        for (int a = 1; a < BATCH; a++)
            for (int b = a; b > 0 && got[b - 1] > got[b]; b--) {
                uint64_t x = got[b];
                got[b] = got[b - 1];
                got[b - 1] = x;
            }
        for (int k = 0; k < BATCH; k++) {
            RVT_CHECK(!have_prev || got[k] > prev, "thread %d: FADD fetched %llu after %llu", t,
                      (unsigned long long)got[k], (unsigned long long)prev);
            prev = got[k];
            have_prev = 1;
        }
    }
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    word = (uint64_t *)rvt_seg_addr(0, 64);
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_FADD | GEX_OP_INC | GEX_OP_SET | GEX_OP_GET, 0);
    if (rvt_me == 0) gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, 0, word, GEX_OP_SET, 0, 0, 0));
    rvt_barrier();
    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        RVT_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    rvt_barrier();
    uint64_t total = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &total, 0, word, GEX_OP_GET, 0, 0, 0));
    uint64_t want = (uint64_t)rvt_n * NTHREADS * (ITERS + ITERS / 10);
    RVT_CHECK(total == want, "total %llu, expected %llu", (unsigned long long)total,
              (unsigned long long)want);
    rvt_barrier();
    gex_AD_Destroy(ad);
    return rvt_done("ratomic_threads");
}
