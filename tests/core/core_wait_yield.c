/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_wait_yield.c: a long wait gives the core away. Rank 0 waits about 100 ms for
 * the others (they sleep first), in a barrier (gex_Event_Wait) and in GASNET_BLOCKUNTIL on a
 * flag they put. Under RIVET_WAIT_MODE=auto both waits must yield (once they have lasted a
 * millisecond, core/progress.c); under spin neither may. sched_yield is counted by defining it here:
 * the library's calls bind to this definition. The data must arrive either way. */
#include "rv_test.h"

#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long yields;

int sched_yield(void)
{
    yields++;
    return (int)syscall(SYS_sched_yield);
}

static void nap_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0) {}
}

int main(int argc, char **argv)
{
    RVT_CHECK(argc > 1 && (!strcmp(argv[1], "auto") || !strcmp(argv[1], "spin")),
              "usage: core_wait_yield auto|spin (matching RIVET_WAIT_MODE)");
    int expect_yield = !strcmp(argv[1], "auto");
    rvt_init(&argc, &argv, 4096);
    RVT_CHECK(rvt_n >= 2, "needs 2 or more ranks");
    volatile uint64_t *flag = gex_Segment_QueryAddr(rvt_seg);
    *flag = 0;
    rvt_barrier();

    /* 1: a barrier the others reach 100 ms late */
    if (rvt_me) nap_ms(100);
    long before = yields;
    rvt_barrier();
    long in_barrier = yields - before;

    /* 2: GASNET_BLOCKUNTIL on a flag rank 1 puts 100 ms later */
    long in_block = 0;
    if (rvt_me == 1) {
        nap_ms(100);
        uint64_t one = 1;
        gex_RMA_PutBlocking(rvt_tm, 0, rvt_seg_addr(0, 0), &one, sizeof one, 0);
    } else if (rvt_me == 0) {
        before = yields;
        GASNET_BLOCKUNTIL(*flag == 1);
        in_block = yields - before;
        RVT_CHECK(*flag == 1, "flag %" PRIu64, *flag);
    }
    rvt_barrier();

    if (rvt_me == 0) {
        if (expect_yield)
            RVT_CHECK(in_barrier > 0 && in_block > 0,
                      "RIVET_WAIT_MODE=auto: 100 ms waits did not yield (barrier %ld, "
                      "GASNET_BLOCKUNTIL %ld sched_yield calls)", in_barrier, in_block);
        else
            RVT_CHECK(in_barrier == 0 && in_block == 0,
                      "RIVET_WAIT_MODE=spin: waits yielded (barrier %ld, GASNET_BLOCKUNTIL %ld)",
                      in_barrier, in_block);
        printf("core_wait_yield %s: barrier %ld, GASNET_BLOCKUNTIL %ld sched_yield calls\n",
               argv[1], in_barrier, in_block);
    }
    rvt_barrier();
    gasnet_exit(0);
    return 0;
}
