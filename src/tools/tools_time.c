/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_time.c: the GASNet-Tools timers: ticks (CLOCK_MONOTONIC nanoseconds), their
 * measured granularity and overhead, wall-clock microseconds, and gasnett_nsleep. */
#include "tools/tools_int.h"

#include <pthread.h>
#include <time.h>

gasnett_tick_t _rivet_tools_ticks_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (gasnett_tick_t)ts.tv_sec * 1000000000u + (gasnett_tick_t)ts.tv_nsec;
}

uint64_t gasnett_gettimeofday_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static pthread_once_t rv_tools_timer_once = PTHREAD_ONCE_INIT;
static double rv_tools_granularity_us, rv_tools_overhead_us;

/* Measured once: granularity is the smallest non-zero step seen between two consecutive
 * readings, overhead the mean cost of one reading. */
static void rv_tools_timer_measure(void)
{
    enum { N = 2000 };
    gasnett_tick_t min_step = GASNETT_TICK_MAX;
    gasnett_tick_t start = gasnett_ticks_now(), prev = start;
    for (int i = 0; i < N; i++) {
        gasnett_tick_t t = gasnett_ticks_now();
        if (t > prev && t - prev < min_step) min_step = t - prev;
        prev = t;
    }
    if (min_step == GASNETT_TICK_MAX) min_step = 1;
    double overhead = (double)gasnett_ticks_to_ns(prev - start) / N / 1000.0;
    rv_tools_granularity_us = (double)gasnett_ticks_to_ns(min_step) / 1000.0;
    /* a reading costs at least one tick's worth of resolution, never reported as 0 */
    rv_tools_overhead_us = overhead > 0.0 ? overhead : 0.001;
}

double gasnett_tick_granularityus(void)
{
    pthread_once(&rv_tools_timer_once, rv_tools_timer_measure);
    return rv_tools_granularity_us;
}

double gasnett_tick_overheadus(void)
{
    pthread_once(&rv_tools_timer_once, rv_tools_timer_measure);
    return rv_tools_overhead_us;
}

int gasnett_nsleep(uint64_t ns)
{
    struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };
    while (nanosleep(&t, &t) != 0) {} /* EINTR: sleep the rest */
    return 0;
}
