/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_threads.c: RMA from several threads of each rank at once (the library is
 * thread-safe). Each thread runs its own stream of PutNB, GetNB, PutNBI and GetNBI to its own
 * peer and syncs them with gex_Event_WaitAll and gex_NBI_Wait, which only covers the calling
 * thread's implicit operations; any thread's polling may complete another thread's operations.
 * Gets are checked every iteration, the last Puts of every stream at the end.
 *
 * Segment: [0, n * NTHREADS * REG) landing regions, one per (source rank, thread), each cut in
 * 2 * NSLOT slots reused round-robin; then the get source. */
#include "rma_test.h"

#include <pthread.h>

#define NTHREADS 2
#define ITERS 2000
#define NSLOT 4
#define SLOT ((size_t)8 * RMAT_KIB)
#define REG (2 * NSLOT * SLOT)
#define GSRC_BYTES (512 * RMAT_KIB)
#define SEG_BYTES (4 * RMAT_MIB)

static uint8_t *myseg;
static size_t off_gsrc;

static gex_Rank_t target_of(gex_Rank_t src, int t) { return (gex_Rank_t)((src + 1 + (gex_Rank_t)t) % rvt_n); }
static size_t region_of(gex_Rank_t src, int t) { return ((size_t)src * NTHREADS + (size_t)t) * REG; }
static size_t op_size(gex_Rank_t src, int t, int it, int k)
{
    return 1 + (size_t)(rmat_mix(src, (uint64_t)t, (uint64_t)it, (uint64_t)k) % (SLOT - 16));
}
static size_t op_start(gex_Rank_t src, int t, int it, int k)
{
    return (size_t)(rmat_mix(src, (uint64_t)t, (uint64_t)it, (uint64_t)k + 10) % (GSRC_BYTES - SLOT));
}
static size_t gsrc_start(gex_Rank_t owner) { return (size_t)owner * 131; }

static void *stream(void *arg)
{
    int t = (int)(intptr_t)arg;
    gex_Rank_t tgt = target_of(rvt_me, t);
    uint8_t *rreg = (uint8_t *)rvt_seg_addr(tgt, region_of(rvt_me, t));
    uint8_t *rgsrc = (uint8_t *)rvt_seg_addr(tgt, off_gsrc);
    uint8_t *buf = rmat_xmalloc(2 * SLOT);
    for (int it = 0; it < ITERS; it++) {
        size_t slot = (size_t)(it % NSLOT) * 2 * SLOT;
        size_t n0 = op_size(rvt_me, t, it, 0), n1 = op_size(rvt_me, t, it, 1);
        size_t g0 = op_start(rvt_me, t, it, 2), g1 = op_start(rvt_me, t, it, 3);
        size_t gn0 = op_size(rvt_me, t, it, 2), gn1 = op_size(rvt_me, t, it, 3);
        memset(buf, 0, 2 * SLOT);
        gex_Event_t ev[2];
        ev[0] = gex_RMA_PutNB(rvt_tm, tgt, rreg + slot, rmat_pat(op_start(rvt_me, t, it, 0), n0),
                              n0, GEX_EVENT_DEFER, 0);
        ev[1] = gex_RMA_GetNB(rvt_tm, buf, tgt, rgsrc + g0, gn0, 0);
        RVT_CHECK(gex_RMA_PutNBI(rvt_tm, tgt, rreg + slot + SLOT,
                                 rmat_pat(op_start(rvt_me, t, it, 1), n1), n1, GEX_EVENT_GROUP, 0) == 0,
                  "thread %d: PutNBI failed", t);
        RVT_CHECK(gex_RMA_GetNBI(rvt_tm, buf + SLOT, tgt, rgsrc + g1, gn1, 0) == 0,
                  "thread %d: GetNBI failed", t);
        gex_Event_WaitAll(ev, 2, 0);
        gex_NBI_Wait(GEX_EC_ALL, 0);
        RVT_CHECK(memcmp(buf, rmat_pat(gsrc_start(tgt) + g0, gn0), gn0) == 0,
                  "thread %d iteration %d: GetNB of %zu bytes from rank %u fetched wrong data", t,
                  it, gn0, (unsigned)tgt);
        RVT_CHECK(memcmp(buf + SLOT, rmat_pat(gsrc_start(tgt) + g1, gn1), gn1) == 0,
                  "thread %d iteration %d: GetNBI of %zu bytes from rank %u fetched wrong data", t,
                  it, gn1, (unsigned)tgt);
    }
    free(buf);
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    off_gsrc = ((size_t)rvt_n * NTHREADS * REG + 4095) & ~(size_t)4095;
    RVT_CHECK(off_gsrc + GSRC_BYTES <= SEG_BYTES, "too many ranks (%u) for this test", (unsigned)rvt_n);
    rmat_master_init(2 * GSRC_BYTES);
    myseg = rmat_my_seg();
    memcpy(myseg + off_gsrc, rmat_pat(gsrc_start(rvt_me), GSRC_BYTES), GSRC_BYTES);
    rvt_barrier();

    pthread_t th[NTHREADS];
    for (int t = 0; t < NTHREADS; t++)
        RVT_CHECK(pthread_create(&th[t], NULL, stream, (void *)(intptr_t)t) == 0, "pthread_create failed");
    for (int t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    rvt_barrier();

    /* Each slot holds the last iteration that used it. */
    for (gex_Rank_t s = 0; s < rvt_n; s++) {
        for (int t = 0; t < NTHREADS; t++) {
            if (target_of(s, t) != rvt_me) continue;
            for (int k = 0; k < NSLOT; k++) {
                int it = ((ITERS - 1 - k) / NSLOT) * NSLOT + k;
                uint8_t *slot = myseg + region_of(s, t) + (size_t)k * 2 * SLOT;
                for (int which = 0; which < 2; which++) {
                    size_t n = op_size(s, t, it, which);
                    rmat_set_ctx("%s from rank %u thread %d iteration %d, %zu bytes",
                                 which ? "PutNBI" : "PutNB", (unsigned)s, t, it, n);
                    rmat_expect_bytes(slot + (size_t)which * SLOT, rmat_pat(op_start(s, t, it, which), n),
                                      n, "data that arrived");
                }
            }
        }
    }
    return rvt_done("rma_threads");
}
