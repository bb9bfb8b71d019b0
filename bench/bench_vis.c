/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_vis.c: non-contiguous Put flood bandwidth, the seed's testvisperf method: elements
 * spread uniformly at 25% density (8 B of data, 24 B skipped; or 64 B and 192 B) on both sides,
 * the same data motion described as an Indexed list or as Strided metadata of 3, 8 or 32 levels
 * that all fold to one 1-D stride (counts spread over as many levels as the element count
 * allows). NB operations back to back, then one WaitAll; bandwidth = payload bytes / time.
 * Run it twice, with RIVET_VIS_OPT=1 and 0, to see what the stride optimizer buys; the regions
 * span 4x the payload, so the largest payload is a quarter of the --max-size area (at most 2 MiB).
 * Public API only. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"
#include <gasnet_vis.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *bench, *variant;
    size_t      elemsz; /* contiguous bytes; the pitch is 4x */
    size_t      dims;   /* strided levels; 0: Indexed */
    size_t      min_payload;
} pattern_t;

static const pattern_t patterns[] = {
    { "vis_indexed_put_bw", "e8",     8,  0,  16 },
    { "vis_strided_put_bw", "e8_d3",  8,  3,  16 },
    { "vis_strided_put_bw", "e8_d8",  8,  8,  16 },
    { "vis_strided_put_bw", "e8_d32", 8,  32, 16 },
    { "vis_strided_put_bw", "e64_d3", 64, 3,  128 },
};

#define MAX_EVENTS 65536
#define MAX_PAYLOAD ((size_t)2 << 20)
static gex_Event_t events[MAX_EVENTS];
static void **dlist, **slist; /* Indexed lists for the largest payload */

/* The 1-D stride of n elements (n a power of two) as 'dims' levels: the factors of two go round
 * the levels, so no level is a null dimension while the count allows it. */
static void shape(size_t n, size_t es, size_t dims, size_t *count, ptrdiff_t *strides)
{
    for (size_t k = 0; k < dims; k++) count[k] = 1;
    for (size_t k = 0; n > 1; k = (k + 1) % dims, n /= 2) count[k] *= 2;
    ptrdiff_t st = (ptrdiff_t)(4 * es);
    for (size_t k = 0; k < dims; k++) {
        strides[k] = st;
        st *= (ptrdiff_t)count[k];
    }
}

/* 'iters' operations of pattern p with 'payload' bytes each, completed; returns seconds. */
static double run(bg_job_t *j, const pattern_t *p, size_t payload, long iters)
{
    size_t n = payload / p->elemsz, count[32];
    ptrdiff_t strides[32];
    char *local = j->my_local_area, *remote = j->peer_remote_area;
    if (p->dims) shape(n, p->elemsz, p->dims, count, strides);
    double t0 = bu_now();
    if (!p->dims) {
        for (long i = 0; i < iters; i++)
            events[i] = gex_VIS_IndexedPutNB(j->tm, j->peer, n, dlist, p->elemsz, n, slist,
                                             p->elemsz, 0);
    } else {
        for (long i = 0; i < iters; i++)
            events[i] = gex_VIS_StridedPutNB(j->tm, j->peer, remote, strides, local, strides,
                                             p->elemsz, count, p->dims, 0);
    }
    gex_Event_WaitAll(events, (size_t)iters, 0);
    double t = bu_now() - t0;
    BU_CLOBBER();
    return t;
}

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_vis", NULL, 0);
    const bu_opts_t *o = &j.opt;
    size_t maxp = j.area / 4 < MAX_PAYLOAD ? j.area / 4 : MAX_PAYLOAD;
    if (j.me == 0) {
        size_t nmax = maxp / 8 + 1;
        dlist = malloc(nmax * sizeof *dlist);
        slist = malloc(nmax * sizeof *slist);
        if (!dlist || !slist) {
            fprintf(stderr, "bench_vis: out of memory for the Indexed lists\n");
            gasnet_exit(1);
        }
        for (size_t i = 0; i < nmax; i++) {
            dlist[i] = j.peer_remote_area + 32 * i;
            slist[i] = j.my_local_area + 32 * i;
        }
    }
    double vals[BU_MAX_TRIALS];
    for (size_t pi = 0; pi < sizeof patterns / sizeof patterns[0]; pi++) {
        const pattern_t *p = &patterns[pi];
        if (!bu_selected(o, p->bench, p->variant)) continue;
        size_t first = p->min_payload;
        while (first < o->min_size) first *= 2;
        for (size_t size = first; size <= maxp; size *= 2) {
            long iters = bu_iters(o, 20000, size, 96.0 * 1024 * 1024, 4);
            if (iters > MAX_EVENTS) iters = MAX_EVENTS;
            if (j.me == 0) run(&j, p, size, iters / 4 + 1); /* warm-up */
            for (int t = 0; t < o->trials; t++) {
                bg_barrier(&j);
                if (j.me == 0)
                    vals[t] = (double)size * (double)iters / run(&j, p, size, iters) / 1e6;
                bg_barrier(&j);
            }
            if (j.me == 0) {
                char extra[96];
                snprintf(extra, sizeof extra, "\"dims\":%zu,\"elemsz\":%zu,\"iters\":%ld", p->dims,
                         p->elemsz, iters);
                bu_report(o, p->bench, p->variant, size, "bandwidth", "MB/s", vals, o->trials,
                          extra);
            }
        }
    }
    bg_finish(&j);
}
