/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/pmix_prog.c: a Rivet job started by a PMIx launcher (mpirun, srun --mpi=pmix), or
 * with RIVET_TEST_BOOT=pmi2 by srun --mpi=pmi2: checks that the bootstrap was that one and that
 * rank and size match the launcher's, prints the job secret (for the driver's /dev/shm check),
 * then does what its mode says:
 *   ok               a barrier, an AM ring and a put to the next rank, checked; returns 0
 *   exit R C         rank R calls gasnet_exit(C) while the others wait in a barrier
 *   exitboot R C [barrier]  the same while the others are in a bootstrap allgather (or
 *                    barrier): the job still ends with C
 *   allexit C        every rank prints a line (left in its stdio buffer) and calls gasnet_exit(C)
 *   allexit_late C   the same, rank r 300*r ms (at most 1.5 s) after rank 0 (every line must still arrive)
 *   kill R           rank R dies by SIGKILL while the others wait in a barrier */
#include "rv_test.h"
#include "boot/boot.h"
#include "core/core.h"

#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static volatile int got;
static void ping(gex_Token_t t, gex_AM_Arg_t a)
{
    (void)t;
    got = (int)a;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    rvt_init(&argc, &argv, 1 << 20);
    rv_boot_info_t bi;
    rv_boot_init(&bi);
    /* RIVET_TEST_BOOT=pmi2: started by srun --mpi=pmi2, whose rank is in PMI_RANK */
    const char *boot = getenv("RIVET_TEST_BOOT") ? getenv("RIVET_TEST_BOOT") : "pmix";
    const char *rank_env = strcmp(boot, "pmi2") ? "PMIX_RANK" : "PMI_RANK";
    RVT_CHECK(!strcmp(bi.method, boot), "bootstrap is %s, not %s", bi.method, boot);
    const char *er = getenv(rank_env);
    RVT_CHECK(er && (gex_Rank_t)atoi(er) == rvt_me, "rank %u but %s=%s", rvt_me, rank_env, er);
    const char *es = getenv("OMPI_COMM_WORLD_SIZE") ? getenv("OMPI_COMM_WORLD_SIZE")
                                                   : getenv("SLURM_STEP_NUM_TASKS");
    if (es) RVT_CHECK((gex_Rank_t)atoi(es) == rvt_n, "size %u but the launcher says %s", rvt_n, es);
    printf("pmix_prog: rank %u of %u secret %s\n", rvt_me, rvt_n, rv_job.secret);
    fflush(stdout);
    rvt_barrier();

    if (!strcmp(mode, "ok")) {
        gex_AM_Entry_t e = { 0, (gex_AM_Fn_t)ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1,
                             NULL, "ping" };
        RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &e, 1));
        rvt_barrier();
        gex_Rank_t next = (rvt_me + 1) % rvt_n;
        RVT_OK(gex_AM_RequestShort1(rvt_tm, next, e.gex_index, 0, (gex_AM_Arg_t)(1000 + rvt_me)));
        uint64_t v = 0xabc000 + rvt_me;
        gex_RMA_PutBlocking(rvt_tm, next, rvt_seg_addr(next, 8 * rvt_me), &v, sizeof v, 0);
        GASNET_BLOCKUNTIL(got != 0);
        rvt_barrier();
        gex_Rank_t prev = (rvt_me + rvt_n - 1) % rvt_n;
        RVT_CHECK(got == (int)(1000 + prev), "AM from rank %u carried %d", prev, got);
        uint64_t w = *(uint64_t *)rvt_seg_addr(rvt_me, 8 * prev);
        RVT_CHECK(w == 0xabc000 + prev, "put from rank %u wrote %llx", prev, (unsigned long long)w);
        rvt_barrier();
        if (rvt_me == 0) printf("pmix_prog: PASS on %u ranks\n", rvt_n);
        return 0;                             /* the normal end: PMIx_Finalize */
    }
    if (!strcmp(mode, "exit") && argc > 3) {
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) gasnet_exit(atoi(argv[3]));
        rvt_barrier();                        /* never completes */
        RVT_FAIL("rank %u passed a barrier that rank %s left", rvt_me, argv[2]);
    }
    if (!strcmp(mode, "exitboot") && argc > 3) {
        /* rank R's gasnet_exit(C) meets the others inside a bootstrap collective: an
         * allgather (with a 4th argument "barrier": a bootstrap barrier) */
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) gasnet_exit(atoi(argv[3]));
        uint64_t mine = rvt_me, *all = calloc(rvt_n, sizeof *all);
        RVT_CHECK(all != NULL, "out of memory");
        int rc = argc > 4 && !strcmp(argv[4], "barrier") ? rv_boot_barrier()
                                                          : rv_boot_allgather(&mine, sizeof mine, all);
        RVT_FAIL("rank %u left a bootstrap collective (%d) that rank %s met with gasnet_exit",
                 rvt_me, rc, argv[2]);
    }
    if (!strcmp(mode, "allexit") && argc > 2) {
        printf("pmix_prog: bye from rank %u\n", rvt_me);
        gasnet_exit(atoi(argv[2]));
    }
    if (!strcmp(mode, "allexit_late") && argc > 2) {
        /* rank r reaches gasnet_exit r * 300 ms after rank 0: the first one's exit must not
         * end the others before they print */
        long ms = 300L * (rvt_me < 5 ? rvt_me : 5);
        struct timespec d = { ms / 1000, ms % 1000 * 1000 * 1000 };
        while (nanosleep(&d, &d) != 0) {}
        printf("pmix_prog: late bye from rank %u\n", rvt_me);
        gasnet_exit(atoi(argv[2]));
    }
    if (!strcmp(mode, "kill") && argc > 2) {
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) raise(SIGKILL);
        rvt_barrier();                        /* never completes */
        RVT_FAIL("rank %u passed a barrier that a killed rank left", rvt_me);
    }
    RVT_FAIL("bad mode %s", mode);
    return 1;
}
