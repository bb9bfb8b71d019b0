/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/peers/shmem_bench.c: the OpenSHMEM peer: putmem/getmem latency (+quiet), NBI flood
 * bandwidth, flag ping-pong and barrier; same options and JSON. Built by scripts/bench.sh. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <shmem.h>

#include "../bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int me, np;
static bu_opts_t o;
static char *sym, *heap;   /* symmetric area (remote target) and a private source buffer */
static long *flag;         /* symmetric ping-pong flag */

/* 0 put+quiet each, 1 get each, 2 nbi puts then quiet, 3 nbi gets then quiet. */
static double rma(void *ctx, size_t size, long iters)
{
    int kind = *(const int *)ctx;
    double t0 = bu_now();
    switch (kind) {
    case 0:
        for (long i = 0; i < iters; i++) { shmem_putmem(sym, heap, size, 1); shmem_quiet(); }
        break;
    case 1:
        for (long i = 0; i < iters; i++) shmem_getmem(heap, sym, size, 1);
        break;
    case 2:
        for (long i = 0; i < iters; i++) shmem_putmem_nbi(sym, heap, size, 1);
        shmem_quiet();
        break;
    default:
        for (long i = 0; i < iters; i++) shmem_getmem_nbi(heap, sym, size, 1);
        shmem_quiet();
        break;
    }
    double t = bu_now() - t0;
    BU_CLOBBER();
    return t;
}

static void barrier_all(void *ctx) { (void)ctx; shmem_barrier_all(); }

/* Flag ping-pong: each side writes the other's flag with shmem_long_p and waits for its own. */
static void pingpong(void)
{
    if (!bu_selected(&o, "am_short_rtt", NULL)) return;
    double vals[BU_MAX_TRIALS];
    long iters = bu_iters(&o, 20000, 0, 0, 8);
    long v = 0;
    for (int t = -1; t < o.trials; t++) {
        long n = t < 0 ? iters / 4 + 1 : iters;
        shmem_barrier_all();
        double t0 = bu_now();
        for (long i = 0; i < n; i++) {
            v++;
            if (me == 0) {
                shmem_long_p(flag, v, 1);
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
            } else if (me == 1) {
                shmem_long_wait_until(flag, SHMEM_CMP_EQ, v);
                shmem_long_p(flag, v, 0);
            }
        }
        if (t >= 0) vals[t] = 1e6 * (bu_now() - t0) / (double)n;
        shmem_barrier_all();
    }
    bu_report_iters(&o, me, "am_short_rtt", "put_flag", 0, "latency", "us", vals, iters);
}

int main(int argc, char **argv)
{
    shmem_init();
    me = shmem_my_pe();
    np = shmem_n_pes();
    if (bu_parse_args(&o, argc, argv, "oshmem", NULL)) shmem_global_exit(2);
    o.ranks = np;
    if (np < 2) {
        if (me == 0) fprintf(stderr, "shmem_bench: needs at least 2 PEs\n");
        shmem_finalize();
        return 0;
    }
    size_t area = o.max_size < 4096 ? 4096 : o.max_size;
    sym = shmem_malloc(area);
    flag = shmem_malloc(sizeof *flag);
    if (!sym || !flag) {
        fprintf(stderr, "shmem_bench: shmem_malloc(%zu) failed\n", area);
        shmem_global_exit(1);
    }
    memset(sym, 1, area);
    *flag = 0;
    heap = bu_alloc(area);
    shmem_barrier_all();
    int kind;
    bu_pair_t rp = { rma, barrier_all, &kind, me };
    bu_rma_sweeps(&o, &rp);
    pingpong();
    bu_barrier_bench(&o, me, barrier_all, barrier_all, NULL, NULL);
    /* Results are complete here; Debian's oshmem may crash inside shmem_finalize. */
    fprintf(stderr, "shmem_bench: results complete\n");
    fflush(stdout);
    shmem_barrier_all();
    shmem_free(flag);
    shmem_free(sym);
    free(heap);
    shmem_finalize();
    return 0;
}
