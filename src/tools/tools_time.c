/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_time.c: the GASNet-Tools timers: ticks (invariant-TSC cycles on x86-64, else
 * CLOCK_MONOTONIC nanoseconds) and their rate, measured granularity and overhead, wall-clock
 * microseconds, and gasnett_nsleep. */
#include "tools/tools_int.h"

#include <pthread.h>
#include <sched.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

int _rivet_tools_tick_tsc;
uint64_t _rivet_tools_tick_mult;

static uint64_t rv_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#if defined(__x86_64__)
static inline uint64_t rv_rdtsc(void) /* the calibration's: fenced, so the pairs are tight */
{
    uint32_t lo, hi;
    __asm__ __volatile__("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi) : : "memory");
    return ((uint64_t)hi << 32) | lo;
}

/* A (TSC, CLOCK_MONOTONIC) pair: the clock reading between two TSC readings, their midpoint
 * as its TSC value; the narrowest of a few tries. */
static void rv_tsc_pair(uint64_t *tsc, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 8; i++) {
        uint64_t a = rv_rdtsc(), n = rv_mono_ns(), b = rv_rdtsc();
        if (b - a < best) {
            best = b - a;
            *tsc = a + (b - a) / 2;
            *ns = n;
        }
    }
}
#endif

static pthread_once_t rv_tick_decide_once = PTHREAD_ONCE_INIT;
static uint64_t rv_tick_anchor_tsc, rv_tick_anchor_ns; /* the first pair, set when deciding */

/* The TSC is used when CPUID reports it invariant (constant rate, running in every C-state,
 * which is also what lets Linux keep it as its clock source). */
static void rv_tick_decide(void)
{
    int tsc = -1;
#if defined(__x86_64__)
    unsigned a, b, c, d;
    if (__get_cpuid(0x80000000u, &a, &b, &c, &d) && a >= 0x80000007u &&
        __get_cpuid(0x80000007u, &a, &b, &c, &d) && (d & (1u << 8)))
        tsc = 1;
    if (tsc > 0) rv_tsc_pair(&rv_tick_anchor_tsc, &rv_tick_anchor_ns);
#endif
    if (tsc < 0) __atomic_store_n(&_rivet_tools_tick_mult, (uint64_t)1 << 32, __ATOMIC_RELEASE);
    __atomic_store_n(&_rivet_tools_tick_tsc, tsc, __ATOMIC_RELEASE);
}

gasnett_tick_t _rivet_tools_ticks_now(void)
{
    if (__atomic_load_n(&_rivet_tools_tick_tsc, __ATOMIC_ACQUIRE) == 0)
        pthread_once(&rv_tick_decide_once, rv_tick_decide);
#if defined(__x86_64__)
    if (_rivet_tools_tick_tsc > 0) return _rivet_tools_ticks_inline();
#endif
    return rv_mono_ns();
}

/* The first pair is taken when the library loads, not at the first reading: a client's first
 * conversion (GASNet's tests: start = TIME(), which reads and converts at once) then finds a
 * baseline as long as its start-up and does not wait; waiting there put the wait inside the
 * client's timed interval (testbarrier's 20000 barriers 0.002 -> 0.012 s). */
__attribute__((constructor)) static void rv_tick_anchor_at_load(void)
{
    pthread_once(&rv_tick_decide_once, rv_tick_decide);
}

static pthread_once_t rv_tick_rate_once = PTHREAD_ONCE_INIT;

/* The rate: CLOCK_MONOTONIC ns over TSC cycles between the first pair (at load) and one taken
 * now, at least 2 ms apart (waiting out the rest, once, only if converting that early; each
 * pair is within ~10 ns, so the rate is good to ~10 ppm), in 32.32 fixed point. */
static void rv_tick_rate(void)
{
    pthread_once(&rv_tick_decide_once, rv_tick_decide);
    if (_rivet_tools_tick_tsc < 0) return; /* the mult is already 1.0 */
#if defined(__x86_64__)
    enum { MIN_NS = 2000000 };
    while (rv_mono_ns() - rv_tick_anchor_ns < MIN_NS) sched_yield();
    uint64_t tsc = 0, ns = 0;
    rv_tsc_pair(&tsc, &ns);
    double rate = (double)(ns - rv_tick_anchor_ns) / (double)(tsc - rv_tick_anchor_tsc);
    uint64_t mult = (uint64_t)(rate * 4294967296.0 + 0.5);
    if (!mult) mult = 1;
    __atomic_store_n(&_rivet_tools_tick_mult, mult, __ATOMIC_RELEASE);
#endif
}

uint64_t _rivet_tools_ticks_calibrate(void)
{
    pthread_once(&rv_tick_rate_once, rv_tick_rate);
    return __atomic_load_n(&_rivet_tools_tick_mult, __ATOMIC_ACQUIRE);
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
    /* in double: a TSC step can be well under a nanosecond */
    double ns_per_tick = (double)_rivet_tools_ticks_calibrate() / 4294967296.0;
    rv_tools_granularity_us = (double)min_step * ns_per_tick / 1000.0;
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
