/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_barrier.c: latency of gex_Coll_BarrierNB + gex_Event_Wait over the whole team. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

int main(int argc, char **argv)
{
    bg_job_t j;
    bg_init(&j, &argc, &argv, "bench_barrier", NULL, 0);
    bu_barrier_bench(&j.opt, (int)j.me, bg_sync, bg_sync, &j, NULL);
    bg_finish(&j);
}
