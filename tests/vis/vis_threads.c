/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_threads.c: VIS from several threads of every rank at once (the operation pool,
 * the staging buffers and the handlers run on whichever thread polls). Each thread puts a
 * transposed 2-d block into its own area of the next rank's segment with a Strided NB or NBI
 * Put, reads it back with an Indexed Get whose chunks differ from the Put's rows, and checks
 * every byte; sizes cross the AM chunk size. Public API only. */
#include "rv_test.h"
#include <gasnet_vis.h>
#include <pthread.h>

#define NTHREADS 3
#define ROUNDS 14
#define AREA ((size_t)512 * 1024)

static gex_Rank_t peer;

static void *worker(void *arg)
{
    size_t t = (size_t)arg;
    uint8_t *remote = (uint8_t *)rvt_seg_addr(peer, t * AREA);
    size_t rows_max = 300, cols_max = 200; /* 8-byte elements: up to 480 KiB */
    uint64_t *src = malloc(rows_max * cols_max * 8), *back = malloc(rows_max * cols_max * 8);
    void **dl = malloc(rows_max * cols_max * sizeof *dl);
    void **sl = malloc(rows_max * cols_max * sizeof *sl);
    RVT_CHECK(src && back && dl && sl, "malloc");
    for (int r = 0; r < ROUNDS; r++) {
        size_t rows = 1 + (size_t)(r * 37 + t * 11) % rows_max;
        size_t cols = 1 + (size_t)(r * 53 + t) % cols_max;
        for (size_t i = 0; i < rows * cols; i++)
            src[i] = ((uint64_t)rvt_me << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)r << 32) ^ i;
        /* src is rows x cols row-major; the remote gets cols x rows row-major (transposed) */
        size_t count[2] = {cols, rows};
        ptrdiff_t ss[2] = {8, (ptrdiff_t)(8 * cols)}, ds[2] = {(ptrdiff_t)(8 * rows), 8};
        if (r % 2) {
            gex_Event_Wait(gex_VIS_StridedPutNB(rvt_tm, peer, remote, ds, src, ss, 8, count, 2, 0));
        } else {
            RVT_OK(gex_VIS_StridedPutNBI(rvt_tm, peer, remote, ds, src, ss, 8, count, 2, 0));
            gex_NBI_Wait(GEX_EC_PUT, 0);
        }
        /* read back element (j, i) of the transposed block into back[i*cols + j], 16-byte
         * destination chunks when the element count is even, else 8-byte ones */
        size_t n = rows * cols, dlen = n % 2 ? 8 : 16;
        for (size_t i = 0; i < rows; i++)
            for (size_t j = 0; j < cols; j++) sl[i * cols + j] = remote + 8 * (j * rows + i);
        for (size_t k = 0; k < n * 8 / dlen; k++) dl[k] = (uint8_t *)back + k * dlen;
        memset(back, 0, n * 8);
        RVT_OK(gex_VIS_IndexedGetBlocking(rvt_tm, n * 8 / dlen, dl, dlen, peer, n, sl, 8, 0));
        for (size_t i = 0; i < n; i++)
            RVT_CHECK(back[i] == src[i], "thread %zu round %d (%zu x %zu): element %zu is "
                      "%#" PRIx64 ", expected %#" PRIx64, t, r, rows, cols, i, back[i], src[i]);
    }
    free(src), free(back), free(dl), free(sl);
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, NTHREADS * AREA);
    peer = (rvt_me + 1) % rvt_n;
    rvt_barrier();
    pthread_t th[NTHREADS];
    for (size_t t = 0; t < NTHREADS; t++)
        RVT_CHECK(!pthread_create(&th[t], NULL, worker, (void *)t), "pthread_create");
    for (size_t t = 0; t < NTHREADS; t++) pthread_join(th[t], NULL);
    return rvt_done("vis_threads");
}
