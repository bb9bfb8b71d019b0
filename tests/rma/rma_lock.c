/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_lock.c: a lock handed round-robin with value puts guards an accumulator (the
 * pattern of GASNet's testacc). The lock word at rank 0's segment base holds (turn number,
 * owner); the owner reads the accumulator at the last rank's segment with gex_RMA_GetBlockingVal,
 * checks that it equals the turn number, writes it back incremented with
 * gex_RMA_PutBlockingVal, and passes the lock on with a value put of (turn + 1, next rank).
 * One pass per lock/accumulator width: 2, 4 and 8 bytes.
 *
 * A value put of an aligned word must store it once: two overlapping stores of the same bytes
 * (libc's small-size memcpy) let a peer's hand-off that lands between them be undone, and the
 * previous owner takes a second turn (the accumulator then lags the turn number); a halfword
 * written as a halfword and then a byte can be read torn. Ranks leave when the turn number
 * reaches the total, so a lost hand-off shows as a failure, not a hang. */
#include "rma_test.h"

#include <sched.h>
#include <unistd.h>

static uint64_t turns_wide = 10000; /* 4- and 8-byte passes (argv[1] sets it) */
#define TURNS_HALF 2000             /* 2-byte pass: 12-bit turn numbers */

static int polite;
static unsigned long errors;

static unsigned owner_bits(size_t w) { return w == 2 ? 4 : w == 4 ? 8 : 32; }

static void pass(size_t w)
{
    const unsigned ob = owner_bits(w);
    const uint64_t omask = ((uint64_t)1 << ob) - 1;
    const uint64_t wmask = w == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * w)) - 1;
    const uint64_t turns = w == 2 ? TURNS_HALF : turns_wide;
    const gex_Rank_t data_rank = rvt_n - 1, next = (rvt_me + 1) % rvt_n;
    uint8_t *lock = rvt_seg_addr(0, 0);
    uint8_t *data = (uint8_t *)rvt_seg_addr(data_rank, 0) + (data_rank == 0 ? 8 : 0);

    if (rvt_me == 0) memset(lock, 0, 8);
    if (rvt_me == data_rank) memset(data, 0, 8);
    rvt_barrier();
    unsigned long mine = 0;
    for (;;) {
        uint64_t v = gex_RMA_GetBlockingVal(rvt_tm, 0, lock, w, 0);
        uint64_t turn = v >> ob;
        if (turn >= turns) break;
        if ((v & omask) != rvt_me) {
            if (polite) sched_yield();
            continue;
        }
        uint64_t acc = gex_RMA_GetBlockingVal(rvt_tm, data_rank, data, w, 0);
        gex_RMA_PutBlockingVal(rvt_tm, data_rank, data, (acc + 1) & wmask, w, 0);
        gex_RMA_PutBlockingVal(rvt_tm, 0, lock, ((turn + 1) << ob) | next, w, 0);
        if ((acc & (wmask >> ob)) != turn && errors++ < 5)
            fprintf(stderr, "rma_lock: rank %u: %zu-byte pass, turn %llu (my %lu.): the "
                    "accumulator reads %llu, not %llu: a hand-off was lost or a value torn\n",
                    (unsigned)rvt_me, w, (unsigned long long)turn, mine,
                    (unsigned long long)acc, (unsigned long long)turn);
        mine++;
    }
    rvt_barrier();
    /* Every turn went round in order: rank r had the turns r, r + n, ... */
    unsigned long want = (unsigned long)(turns / rvt_n + (rvt_me < turns % rvt_n));
    RVT_CHECK(mine == want, "%zu-byte pass: rank %u had %lu turns, not %lu (a second turn after "
              "passing the lock)", w, (unsigned)rvt_me, mine, want);
    if (rvt_me == data_rank) {
        uint64_t got = 0;
        memcpy(&got, data, w);
        RVT_CHECK(got == (turns & wmask), "%zu-byte pass: the accumulator ends at %llu, not %llu",
                  w, (unsigned long long)got, (unsigned long long)turns);
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 64 * RMAT_KIB);
    if (argc > 1) turns_wide = strtoull(argv[1], NULL, 10);
    RVT_CHECK(turns_wide >= 1 && turns_wide < ((uint64_t)1 << 24), "turns %llu",
              (unsigned long long)turns_wide);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    polite = cpus > 0 && (long)rvt_n > cpus;
    pass(4);
    pass(8);
    pass(2);
    RVT_CHECK(errors == 0, "%lu accumulator reads were wrong", errors);
    return rvt_done("rma_lock");
}
