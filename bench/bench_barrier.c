/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_barrier.c: latency of gex_Coll_BarrierNB + gex_Event_Wait over the whole team. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdio.h>

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_barrier", NULL, 0);
    const bu_opts_t *o = &j.opt;
    double vals[BU_MAX_TRIALS];
    if (bu_selected(o, "barrier", NULL)) {
        long iters = bu_iters(o, 20000, 0, 0, 10);
        for (long i = 0; i < iters / 4 + 1; i++) bg_barrier(&j); /* warm-up */
        for (int t = 0; t < o->trials; t++) {
            bg_barrier(&j);
            double t0 = bu_now();
            for (long i = 0; i < iters; i++) gex_Event_Wait(gex_Coll_BarrierNB(j.tm, 0));
            vals[t] = 1e6 * (bu_now() - t0) / (double)iters;
        }
        if (j.me == 0) {
            char extra[64];
            snprintf(extra, sizeof extra, "\"iters\":%ld", iters);
            bu_report(o, "barrier", NULL, 0, "latency", "us", vals, o->trials, extra);
        }
    }
    bg_finish(&j);
}
