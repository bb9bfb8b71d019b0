/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_job.c: GASNet-Tools inside a GASNet-EX job. Every rank sends K AM
 * Requests to every rank; the handler counts them with gasnett_atomic_* while a helper
 * thread hammers another counter; each rank waits (polling) for its exact totals, timed
 * with gasnett_ticks. Environment set for the job (RV_TOOLS_JOB_SIZE, GASNET_VERBOSEENV)
 * reaches every rank through gasnett_getenv*. */
#include <gasnetex.h>
#include <gasnet_tools.h>
#include "rv_test.h"

#include <pthread.h>
#include <time.h>

enum { K = 500, HELPER_ITERS = 100000, H_COUNT = GEX_AM_INDEX_BASE };

static gasnett_atomic_t am_count = gasnett_atomic_init(0);
static gasnett_atomic64_t am_sum = gasnett_atomic64_init(0);
static gasnett_atomic32_t helper_count = gasnett_atomic32_init(0);

static void count_handler(gex_Token_t token, gex_AM_Arg_t from)
{
    (void)token;
    gasnett_atomic64_add(&am_sum, (uint64_t)from + 1, 0);
    gasnett_atomic_increment(&am_count, GASNETT_ATOMIC_REL);
}

static void *helper(void *arg)
{
    (void)arg;
    for (int i = 0; i < HELPER_ITERS; i++) gasnett_atomic32_increment(&helper_count, 0);
    return NULL;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    /* the first tick conversion, right after the first reading (a test's start = TIME()),
     * does not wait for the tick rate to be measured (it was 10 ms, inside the timed
     * interval, so a regression takes 10 ms or more); at most the 2 ms a conversion right at
     * load would wait, with 6 ms of room for a loaded machine */
    struct timespec w0, w1;
    clock_gettime(CLOCK_MONOTONIC, &w0);
    (void)gasnett_ticks_to_ns(gasnett_ticks_now());
    clock_gettime(CLOCK_MONOTONIC, &w1);
    double first_ms = (double)(w1.tv_sec - w0.tv_sec) * 1e3 + (double)(w1.tv_nsec - w0.tv_nsec) / 1e6;
    RVT_CHECK(first_ms < 8.0, "the first gasnett_ticks_to_ns took %.2f ms", first_ms);
    gex_AM_Entry_t table[] = {
        { H_COUNT, (gex_AM_Fn_t)count_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "count" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 1));

    /* environment given to rivetrun reaches every rank */
    int64_t sz = gasnett_getenv_int_withdefault("RV_TOOLS_JOB_SIZE", 0, 1);
    RVT_CHECK(sz == 3 * 1048576 / 2, "RV_TOOLS_JOB_SIZE parsed as %" PRId64, sz);
    RVT_CHECK(gasnett_verboseenv() == (rvt_me == 0), "verboseenv %d on rank %u",
              gasnett_verboseenv(), (unsigned)rvt_me);
    RVT_CHECK(gasnett_cpu_count() >= 1, "cpu_count %d", gasnett_cpu_count());
    RVT_CHECK(gasnett_gethostname()[0] != '\0', "empty host name");

    pthread_t th;
    RVT_CHECK(pthread_create(&th, NULL, helper, NULL) == 0, "pthread_create");
    rvt_barrier();
    gasnett_tick_t t0 = gasnett_ticks_now();
    for (int i = 0; i < K; i++)
        for (gex_Rank_t r = 0; r < rvt_n; r++)
            RVT_OK(gex_AM_RequestShort1(rvt_tm, r, H_COUNT, 0, (gex_AM_Arg_t)rvt_me));
    uint64_t want = (uint64_t)K * rvt_n;
    while (gasnett_atomic_read(&am_count, GASNETT_ATOMIC_ACQ) < want) {
        gasnet_AMPoll();
        gasnett_spinloop_hint();
    }
    gasnett_tick_t t1 = gasnett_ticks_now();
    RVT_CHECK(pthread_join(th, NULL) == 0, "pthread_join");
    rvt_barrier();

    uint64_t want_sum = 0;
    for (gex_Rank_t r = 0; r < rvt_n; r++) want_sum += (uint64_t)K * (r + 1);
    RVT_CHECK(gasnett_atomic_read(&am_count, 0) == want, "received %" PRIu64 " AMs, expected %" PRIu64,
              (uint64_t)gasnett_atomic_read(&am_count, 0), want);
    RVT_CHECK(gasnett_atomic64_read(&am_sum, 0) == want_sum, "argument sum %" PRIu64 ", expected %" PRIu64,
              gasnett_atomic64_read(&am_sum, 0), want_sum);
    RVT_CHECK(gasnett_atomic32_read(&helper_count, 0) == HELPER_ITERS, "helper counted %u",
              (unsigned)gasnett_atomic32_read(&helper_count, 0));
    RVT_CHECK(t1 >= t0, "ticks went backwards");
    printf("tools_job: rank %u of %u on %s: %" PRIu64 " AMs in %.1f us\n", (unsigned)rvt_me,
           (unsigned)rvt_n, gasnett_gethostname(), want, gasnett_ticks_to_ns(t1 - t0) / 1000.0);
    gasnett_flush_streams();
    rvt_barrier();
    gasnet_exit(0);
    return 0;
}
