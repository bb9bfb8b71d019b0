/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_inject.c: injection overhead vs queue depth for AM Long and Put with
 * GEX_EVENT_GROUP local completion (the method of the AM Long seed's Figure 3). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

enum { H_INJ_LONG = GEX_AM_INDEX_BASE };

static _Atomic uint64_t received; /* AM Long requests seen by the target */

static void h_inj_long(gex_Token_t t, void *buf, size_t n)
{
    (void)t, (void)buf, (void)n;
    atomic_fetch_add_explicit(&received, 1, memory_order_release);
}

static gex_AM_Entry_t handlers[] = {
    { H_INJ_LONG, (gex_AM_Fn_t)h_inj_long, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 0, NULL,
      "inj_long" },
};

static const size_t sizes[] = { 8, 4096, 65536, 1048576 };

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_inject", handlers, 1);
    const bu_opts_t *o = &j.opt;
    gex_TM_t tm = j.tm;
    /* every rank must run the same sweep, so ask for the bound over all ranks */
    size_t max_long = gex_AM_MaxRequestLong(tm, GEX_RANK_INVALID, GEX_EVENT_GROUP, 0, 0);
    char *src = j.my_local_area, *dst = j.peer_remote_area;
    uint64_t expected = 0; /* target: requests it should have seen so far */
    double vals[BU_MAX_TRIALS];

    for (int am = 1; am >= 0; am--) {
        const char *variant = am ? "am_long" : "put";
        if (!bu_selected(o, "inject_overhead", variant)) continue;
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t size = sizes[si];
            if (size < o->min_size || size > o->max_size || (am && size > max_long)) continue;
            for (long depth = 1; depth <= 256; depth *= 2) {
                long reps = bu_iters(o, 200, (size_t)depth * size, 64.0 * 1024 * 1024, 2);
                for (int t = -1; t < o->trials; t++) { /* trial -1 is the warm-up */
                    double sum = 0;
                    for (long r = 0; r < reps; r++) {
                        bg_barrier(&j);
                        if (j.me == 0) {
                            double t0 = bu_now();
                            if (am) {
                                for (long i = 0; i < depth; i++)
                                    gex_AM_RequestLong0(tm, 1, H_INJ_LONG, src, size, dst,
                                                        GEX_EVENT_GROUP, 0);
                            } else {
                                for (long i = 0; i < depth; i++)
                                    gex_RMA_PutNBI(tm, 1, dst, src, size, GEX_EVENT_GROUP, 0);
                            }
                            sum += bu_now() - t0;
                            /* completion stays outside the timed region */
                            gex_NBI_Wait(am ? GEX_EC_AM : (GEX_EC_LC | GEX_EC_PUT), 0);
                        } else if (j.me == 1 && am) {
                            expected += (uint64_t)depth;
                            GASNET_BLOCKUNTIL(atomic_load_explicit(&received, memory_order_acquire)
                                              >= expected);
                        }
                        bg_barrier(&j);
                    }
                    if (t >= 0) vals[t] = 1e6 * sum / (double)reps / (double)depth;
                }
                if (j.me == 0) {
                    char extra[80];
                    snprintf(extra, sizeof extra, "\"depth\":%ld,\"iters\":%ld", depth, reps);
                    bu_report(o, "inject_overhead", variant, size, "overhead", "us", vals,
                              o->trials, extra);
                }
            }
        }
    }
    bg_finish(&j);
}
