/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_unit.c: GASNet-Tools (gasnet_tools.h) on its own, without
 * gex_Client_Init: atomics (values, wraparound, two threads with exact counts), timers
 * against clock_gettime, environment parsing, number formatting, system queries, thread
 * keys and locks. With an argument it runs one error case that must end the process. */
#include <gasnet_tools.h>

#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rv_check.h"

GASNETT_IDENT(tools_unit_ident, "$RivetToolsTest: tools_unit $");

GASNETT_INLINE(add3)
int add3(int x) { return x + 3; }

GASNETT_NEVER_INLINE(twice, static int twice(int x)) { return 2 * x; }

/* every enumerator is handled, so the default is never reached */
enum parity { EVEN, ODD };
static const char *parity_name(enum parity p)
{
    switch (p) {
    case EVEN: return "even";
    case ODD: return "odd";
    default: gasnett_unreachable();
    }
}

/* ---- atomics, one thread --------------------------------------------------------- */
static gasnett_atomic_t g_static = gasnett_atomic_init(7);
static gasnett_atomic32_t g_static32 = gasnett_atomic32_init(0xFFFFFFFFu);
static gasnett_atomic64_t g_static64 = gasnett_atomic64_init(UINT64_MAX);

static void test_atomic_values(void)
{
    CHECK(gasnett_atomic_read(&g_static, 0) == 7, "static init read %" PRIu64,
          (uint64_t)gasnett_atomic_read(&g_static, 0));
    gasnett_atomic_t a;
    gasnett_atomic_set(&a, 10, GASNETT_ATOMIC_REL);
    CHECK(gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ) == 10, "set/read");
    CHECK(gasnett_atomic_add(&a, 5, 0) == 15, "add returns the new value");
    CHECK(gasnett_atomic_subtract(&a, 3, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST) == 12,
          "subtract returns the new value");
    gasnett_atomic_increment(&a, GASNETT_ATOMIC_NONE);
    gasnett_atomic_decrement(&a, GASNETT_ATOMIC_NONE);
    gasnett_atomic_decrement(&a, GASNETT_ATOMIC_NONE);
    CHECK(gasnett_atomic_read(&a, 0) == 11, "inc/dec: %" PRIu64, (uint64_t)gasnett_atomic_read(&a, 0));
    CHECK(!gasnett_atomic_compare_and_swap(&a, 10, 99, GASNETT_ATOMIC_ACQ_IF_TRUE),
          "CAS with a wrong old value succeeded");
    CHECK(gasnett_atomic_read(&a, 0) == 11, "failed CAS changed the value");
    CHECK(gasnett_atomic_compare_and_swap(&a, 11, 99, GASNETT_ATOMIC_ACQ_IF_FALSE),
          "CAS with the right old value failed");
    CHECK(gasnett_atomic_read(&a, 0) == 99, "CAS stored %" PRIu64, (uint64_t)gasnett_atomic_read(&a, 0));
    CHECK(gasnett_atomic_swap(&a, 5, GASNETT_ATOMIC_REL | GASNETT_ATOMIC_ACQ) == 99,
          "swap returns the old value");
    CHECK(gasnett_atomic_read(&a, 0) == 5, "swap stored");
    gasnett_atomic_set(&a, 2, 0);
    CHECK(!gasnett_atomic_decrement_and_test(&a, 0), "2-1 tested zero");
    CHECK(gasnett_atomic_decrement_and_test(&a, 0), "1-1 did not test zero");
    /* wrap-around both ways at the width's limits, signed view */
    gasnett_atomic_decrement(&a, 0);
    CHECK(gasnett_atomic_read(&a, 0) == GASNETT_ATOMIC_MAX, "0-1 is %" PRIu64,
          (uint64_t)gasnett_atomic_read(&a, 0));
    CHECK(gasnett_atomic_signed(gasnett_atomic_read(&a, 0)) == -1, "signed(MAX) != -1");
    CHECK(gasnett_atomic_add(&a, 2, 0) == 1, "MAX+2 wraps to 1");
    gasnett_atomic_set(&a, (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MIN, 0);
    CHECK(gasnett_atomic_signed(gasnett_atomic_read(&a, 0)) == GASNETT_ATOMIC_SIGNED_MIN,
          "signed min");
    CHECK(gasnett_atomic_signed(gasnett_atomic_subtract(&a, 1, 0)) == GASNETT_ATOMIC_SIGNED_MAX,
          "signed min - 1 wraps to signed max");
    CHECK(gasnett_atomic_signed(gasnett_atomic_add(&a, 1, 0)) == GASNETT_ATOMIC_SIGNED_MIN,
          "signed max + 1 wraps to signed min");
    gasnett_atomic_set(&a, GASNETT_ATOMIC_MAX, 0);
    CHECK(gasnett_atomic_swap(&a, 0, 0) == GASNETT_ATOMIC_MAX, "swap returns MAX");
    CHECK(gasnett_atomic_subtract(&a, GASNETT_ATOMIC_MAX, 0) == 1, "0 - MAX wraps to 1");
    gasnett_atomic_set(&a, GASNETT_ATOMIC_MAX, 0);
    CHECK(gasnett_atomic_compare_and_swap(&a, GASNETT_ATOMIC_MAX, (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MIN, 0) &&
              gasnett_atomic_read(&a, 0) == (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MIN,
          "CAS from MAX to SIGNED_MIN");
    CHECK(GASNETT_HAVE_ATOMIC_CAS && GASNETT_HAVE_ATOMIC_ADD_SUB, "CAS/ADD_SUB availability");

    /* Widths as in GASNet: on every target with lock-free 32-bit atomics (all we build on),
     * gasnett_atomic_t is the 32-bit atomic, unsigned, with 32-bit limits; a GASNet client
     * compares its values with uint32_t ones (testtools: a gasnett_atomic32_t initialized to
     * GASNETT_ATOMIC_MAX and compared with it). */
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__) || defined(__powerpc64__) || \
    defined(__riscv)
    CHECK(sizeof(gasnett_atomic_t) == 4 && sizeof(gasnett_atomic_val_t) == 4 &&
              sizeof(gasnett_atomic_sval_t) == 4 && sizeof(gasnett_strongatomic_t) == 4,
          "gasnett_atomic_t is %zu bytes (val %zu, sval %zu), expected 4", sizeof(gasnett_atomic_t),
          sizeof(gasnett_atomic_val_t), sizeof(gasnett_atomic_sval_t));
    CHECK(GASNETT_ATOMIC_MAX == 0xFFFFFFFFu && GASNETT_ATOMIC_SIGNED_MIN == INT32_MIN &&
              GASNETT_ATOMIC_SIGNED_MAX == INT32_MAX,
          "limits %" PRIu64 " %" PRId64 " %" PRId64, (uint64_t)GASNETT_ATOMIC_MAX,
          (int64_t)GASNETT_ATOMIC_SIGNED_MIN, (int64_t)GASNETT_ATOMIC_SIGNED_MAX);
    {
        gasnett_atomic32_t m = gasnett_atomic32_init(GASNETT_ATOMIC_MAX);
        CHECK(gasnett_atomic32_swap(&m, 3, 0) == GASNETT_ATOMIC_MAX, "atomic32 holds ATOMIC_MAX");
        gasnett_atomic_t *as_general = &m; /* the same type, as in GASNet */
        CHECK(gasnett_atomic_read(as_general, 0) == 3, "atomic_t view of an atomic32_t");
    }
#endif
    CHECK((gasnett_atomic_val_t)-1 == GASNETT_ATOMIC_MAX && (gasnett_atomic_sval_t)-1 < 0 &&
              (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MAX + 1 ==
                  (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MIN &&
              sizeof(gasnett_atomic_val_t) == sizeof(gasnett_atomic_sval_t) &&
              sizeof(gasnett_atomic_t) == sizeof(gasnett_atomic_val_t),
          "value types are not an unsigned/signed pair of the counter's width");

    /* fixed width: natural storage, casts from plain integers and floating point */
    CHECK(sizeof(gasnett_atomic32_t) == 4 && sizeof(gasnett_atomic64_t) == 8, "sizes");
    gasnett_atomic32_increment(&g_static32, 0);
    CHECK(gasnett_atomic32_read(&g_static32, 0) == 0, "32-bit MAX+1 wraps to 0");
    CHECK(gasnett_atomic32_subtract(&g_static32, 1, 0) == 0xFFFFFFFFu, "32-bit 0-1");
    CHECK(gasnett_atomic64_add(&g_static64, 1, 0) == 0, "64-bit MAX+1 wraps to 0");
    CHECK(gasnett_atomic64_swap(&g_static64, 0x123456789ABCDEFull, 0) == 0, "64 swap old");
    CHECK(gasnett_atomic64_compare_and_swap(&g_static64, 0x123456789ABCDEFull, 1ull << 63, 0),
          "64 CAS");
    CHECK(gasnett_atomic64_decrement_and_test(&g_static64, 0) == 0, "64 dec_and_test");
    CHECK(gasnett_atomic64_read(&g_static64, 0) == (1ull << 63) - 1, "64 value %" PRIx64,
          gasnett_atomic64_read(&g_static64, 0));
    int32_t i32 = -5;
    gasnett_atomic32_add((gasnett_atomic32_t *)&i32, 7, 0);
    CHECK(i32 == 2, "atomic32 on an int32_t: %d", (int)i32);
    double d = 1.5;
    uint64_t bits;
    memcpy(&bits, &d, 8);
    CHECK(gasnett_atomic64_read((gasnett_atomic64_t *)&d, 0) == bits, "atomic64 read of a double");
    gasnett_atomic64_set((gasnett_atomic64_t *)&d, 0, 0);
    CHECK(d == 0.0, "atomic64 set of a double");

    gasnett_strongatomic_t s = gasnett_strongatomic_init(1);
    CHECK(gasnett_strongatomic_decrement_and_test(&s, 0), "strong dec_and_test");
    gasnett_strongatomic32_t s32 = gasnett_strongatomic32_init(3);
    CHECK(gasnett_strongatomic32_swap(&s32, 4, 0) == 3 && gasnett_strongatomic32_read(&s32, 0) == 4,
          "strong32 swap");
    gasnett_strongatomic64_t s64 = gasnett_strongatomic64_init(0);
    CHECK(gasnett_strongatomic64_subtract(&s64, 1, 0) == UINT64_MAX, "strong64 wrap");
}

/* ---- atomics, two threads ------------------------------------------------------------ */
enum { NITER = 200000 };
static gasnett_atomic_t t_count = gasnett_atomic_init(0);
static gasnett_atomic32_t t_count32 = gasnett_atomic32_init(0);
static gasnett_atomic64_t t_cas64 = gasnett_atomic64_init(0);
static gasnett_atomic_t t_lock = gasnett_atomic_init(0);
static gasnett_atomic_t t_down = gasnett_atomic_init(2 * NITER);
static gasnett_atomic_t t_zero_seen = gasnett_atomic_init(0);
static uint64_t t_plain;        /* protected by the CAS/swap lock t_lock */
static GASNETT_THREADKEY_DEFINE(t_key);

static void *atomic_worker(void *arg)
{
    uintptr_t id = (uintptr_t)arg;
    gasnett_threadkey_init(t_key);
    CHECK(gasnett_threadkey_get(t_key) == NULL, "thread key not NULL in a new thread");
    gasnett_threadkey_set(t_key, (void *)(id + 100));
    for (int i = 0; i < NITER; i++) {
        gasnett_atomic_increment(&t_count, 0);
        gasnett_atomic32_add(&t_count32, 3, GASNETT_ATOMIC_NONE);
        uint64_t old;
        do old = gasnett_atomic64_read(&t_cas64, 0);
        while (!gasnett_atomic64_compare_and_swap(&t_cas64, old, old + 5, 0));
        /* a spin lock: CAS to take it (acquire), swap to release it (release) */
        while (!gasnett_atomic_compare_and_swap(&t_lock, 0, 1, GASNETT_ATOMIC_ACQ_IF_TRUE))
            gasnett_spinloop_hint();
        t_plain += 1;
        CHECK(gasnett_atomic_swap(&t_lock, 0, GASNETT_ATOMIC_REL) == 1, "lock was not held");
        if (gasnett_atomic_decrement_and_test(&t_down, 0)) gasnett_atomic_increment(&t_zero_seen, 0);
    }
    CHECK(gasnett_threadkey_get_noinit(t_key) == (void *)(id + 100), "thread key lost its value");
    return NULL;
}

static void test_atomic_threads(void)
{
    pthread_t th[2];
    for (uintptr_t i = 0; i < 2; i++)
        CHECK(pthread_create(&th[i], NULL, atomic_worker, (void *)i) == 0, "pthread_create");
    for (int i = 0; i < 2; i++) pthread_join(th[i], NULL);
    CHECK(gasnett_atomic_read(&t_count, 0) == 2 * NITER, "counter %" PRIu64 ", expected %d",
          (uint64_t)gasnett_atomic_read(&t_count, 0), 2 * NITER);
    CHECK(gasnett_atomic32_read(&t_count32, 0) == 6u * NITER, "counter32 %u",
          (unsigned)gasnett_atomic32_read(&t_count32, 0));
    CHECK(gasnett_atomic64_read(&t_cas64, 0) == 10ull * NITER, "CAS counter %" PRIu64,
          gasnett_atomic64_read(&t_cas64, 0));
    CHECK(t_plain == 2 * NITER, "lock-protected counter %" PRIu64, t_plain);
    CHECK(gasnett_atomic_read(&t_down, 0) == 0 && gasnett_atomic_read(&t_zero_seen, 0) == 1,
          "decrement_and_test saw zero %" PRIu64 " times",
          (uint64_t)gasnett_atomic_read(&t_zero_seen, 0));
}

/* ---- timers ---------------------------------------------------------------------------- */
static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void test_timers(void)
{
    gasnett_tick_t prev = gasnett_ticks_now();
    for (int i = 0; i < 100000; i++) {
        gasnett_tick_t t = gasnett_ticks_now();
        CHECK(t >= prev, "ticks went backwards: %" PRIu64 " after %" PRIu64, t, prev);
        prev = t;
    }
    /* a busy interval of ~30 ms measured both ways */
    uint64_t c0 = mono_ns();
    gasnett_tick_t t0 = gasnett_ticks_now();
    while (mono_ns() - c0 < 30000000u) { }
    gasnett_tick_t t1 = gasnett_ticks_now();
    uint64_t c1 = mono_ns();
    uint64_t tns = gasnett_ticks_to_ns(t1 - t0), cns = c1 - c0;
    /* the tick interval lies inside the clock's, so it is not longer, up to the error of the
     * tick rate (measured once against CLOCK_MONOTONIC where ticks are TSC cycles): 20 ppm */
    CHECK(tns <= cns + cns / 50000u && tns + 1000000u >= cns,
          "ticks say %" PRIu64 " ns, clock_gettime %" PRIu64 " ns", tns, cns);
    CHECK(gasnett_ticks_to_us(t1 - t0) == tns / 1000, "ticks_to_us != ticks_to_ns/1000");
    CHECK(GASNETT_TICK_MIN < GASNETT_TICK_MAX && GASNETT_TICK_MAX >= t1, "tick limits");
    double g = gasnett_tick_granularityus(), o = gasnett_tick_overheadus();
    CHECK(g > 0.0 && g < 1000.0 && o > 0.0 && o < 1000.0, "granularity %g us, overhead %g us", g, o);
    uint64_t now_us = gasnett_gettimeofday_us(), t_s = (uint64_t)time(NULL);
    CHECK(now_us / 1000000u + 2 >= t_s && now_us / 1000000u <= t_s + 2,
          "gettimeofday_us %" PRIu64 " vs time() %" PRIu64, now_us, t_s);
}

/* ---- environment ----------------------------------------------------------------------- */
static int64_t env_int(const char *val, int64_t dflt, uint64_t mult)
{
    if (val) gasnett_setenv("RV_TOOLS_T", val);
    else gasnett_unsetenv("RV_TOOLS_T");
    return gasnett_getenv_int_withdefault("RV_TOOLS_T", dflt, mult);
}

static void test_env(void)
{
    static const struct { const char *s; uint64_t mult; int64_t want; } cases[] = {
        { "16", 0, 16 },          { "-42", 0, -42 },        { "0x1F", 0, 31 },
        { " 7 ", 0, 7 },          { "010", 0, 10 },         { "16", 1, 16 },
        { "3", 1024, 3072 },      { "4K", 1, 4096 },        { "4kb", 1, 4096 },
        { "2 MB", 1, 2097152 },   { "1.5MB", 1, 1572864 },  { "2g", 1, 2147483648LL },
        { "1TB", 1, 1099511627776LL }, { "100B", 1024, 100 }, { "0.5K", 1, 512 },
        { "3", 1048576, 3145728 }, { "0x10", 1, 16 },       { "9223372036854775807", 0, INT64_MAX },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int64_t got = env_int(cases[i].s, -1, cases[i].mult);
        CHECK(got == cases[i].want, "'%s' (multiplier %" PRIu64 ") parsed as %" PRId64 ", want %" PRId64,
              cases[i].s, cases[i].mult, got, cases[i].want);
        CHECK(gasnett_parse_int(cases[i].s, cases[i].mult) == cases[i].want, "parse_int '%s'",
              cases[i].s);
    }
    CHECK(env_int(NULL, 1234, 1) == 1234, "unset variable did not give the default");
    CHECK(env_int("", -7, 0) == -7, "empty variable did not give the default");

    static const struct { const char *s; int want; } yn[] = {
        { "yes", 1 }, { "Y", 1 }, { "1", 1 }, { "YES", 1 }, { "no", 0 }, { "n", 0 }, { "0", 0 }, { "NO", 0 },
    };
    for (size_t i = 0; i < sizeof yn / sizeof yn[0]; i++) {
        gasnett_setenv("RV_TOOLS_YN", yn[i].s);
        CHECK(gasnett_getenv_yesno_withdefault("RV_TOOLS_YN", !yn[i].want) == yn[i].want,
              "yes/no '%s'", yn[i].s);
    }
    gasnett_unsetenv("RV_TOOLS_YN");
    CHECK(gasnett_getenv_yesno_withdefault("RV_TOOLS_YN", 1) == 1 &&
          gasnett_getenv_yesno_withdefault("RV_TOOLS_YN", 0) == 0, "yes/no default");

    gasnett_setenv("RV_TOOLS_S", "hello");
    CHECK(!strcmp(gasnett_getenv("RV_TOOLS_S"), "hello"), "getenv");
    CHECK(!strcmp(gasnett_getenv_withdefault("RV_TOOLS_S", "x"), "hello"), "getenv_withdefault set");
    gasnett_unsetenv("RV_TOOLS_S");
    CHECK(gasnett_getenv("RV_TOOLS_S") == NULL, "unsetenv");
    CHECK(!strcmp(gasnett_getenv_withdefault("RV_TOOLS_S", "dflt"), "dflt"), "withdefault unset");
    gasnett_setenv("RV_TOOLS_D", "3/8");
    CHECK(gasnett_getenv_dbl_withdefault("RV_TOOLS_D", 0.0) == 0.375, "dbl fraction");
    gasnett_setenv("RV_TOOLS_D", "-1e4");
    CHECK(gasnett_getenv_dbl_withdefault("RV_TOOLS_D", 0.0) == -1e4, "dbl exponent");
    gasnett_unsetenv("RV_TOOLS_D");
    CHECK(gasnett_getenv_dbl_withdefault("RV_TOOLS_D", 2.5) == 2.5, "dbl default");
}

static void test_format(void)
{
    static const struct { int64_t v; int mem; const char *want; } cases[] = {
        { 1048576, 1, "1 MB" },      { 1536, 1, "1536 B" },      { 3LL << 30, 1, "3 GB" },
        { -2048, 1, "-2 KB" },       { 0, 1, "0 B" },            { 5LL << 40, 1, "5 TB" },
        { 1536LL << 20, 1, "1536 MB" }, { 12345, 0, "12345" },   { -7, 0, "-7" },
        { 1048576, 0, "1048576" },
    };
    char buf[64];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *r = gasnett_format_number(cases[i].v, buf, sizeof buf, cases[i].mem);
        CHECK(r == buf && !strcmp(buf, cases[i].want), "format_number(%" PRId64 ", mem %d) = '%s', want '%s'",
              cases[i].v, cases[i].mem, buf, cases[i].want);
        /* what is printed parses back to the same value */
        CHECK(gasnett_parse_int(buf, cases[i].mem ? 1 : 0) == cases[i].v, "round trip of '%s'", buf);
    }
    char tiny[4];
    gasnett_format_number(1234567, tiny, sizeof tiny, 0);
    CHECK(!strcmp(tiny, "123"), "truncated output '%s'", tiny);
}

/* ---- system, misc ------------------------------------------------------------------------ */
static volatile sig_atomic_t no_op_handler_hits;
static void no_op_handler(int sig) { (void)sig; no_op_handler_hits++; }

static void test_system(void)
{
    CHECK(gasnett_cpu_count() >= 1, "cpu_count %d", gasnett_cpu_count());
    CHECK(gasnett_cpu_count() == (int)sysconf(_SC_NPROCESSORS_ONLN), "cpu_count vs sysconf");
    uint64_t mem = gasnett_getPhysMemSz(1);
    CHECK(mem >= (64u << 20) && mem == (uint64_t)sysconf(_SC_PHYS_PAGES) * (uint64_t)sysconf(_SC_PAGESIZE),
          "physical memory %" PRIu64, mem);
    char host[256] = "";
    gethostname(host, sizeof host - 1);
    CHECK(!strcmp(gasnett_gethostname(), host), "hostname '%s' vs '%s'", gasnett_gethostname(), host);
    uint32_t one = 1;
    CHECK(gasnett_isLittleEndian() == (*(unsigned char *)&one == 1), "endianness");
    CHECK(GASNETT_PAGESIZE == 1 << GASNETT_PAGESHIFT && GASNETT_CACHE_LINE_BYTES >= 32, "page/cache");
    CHECK(strlen(GASNETT_SYSTEM_TUPLE) > 0 && GASNETT_SPEC_VERSION_MAJOR >= 1 &&
          GASNETT_RELEASE_VERSION_MAJOR >= 2024, "versions");

    cpu_set_t orig;
    if (sched_getaffinity(0, sizeof orig, &orig) == 0 && CPU_ISSET(0, &orig)) {
        CHECK(GASNETT_SET_AFFINITY_SUPPORT &&
              gasnett_set_affinity(gasnett_cpu_count()) == 0, /* rank modulo the CPU count */
              "set_affinity failed");
        cpu_set_t now;
        CHECK(sched_getaffinity(0, sizeof now, &now) == 0 && CPU_COUNT(&now) == 1 && CPU_ISSET(0, &now),
              "set_affinity did not pin to CPU 0");
        sched_setaffinity(0, sizeof orig, &orig);
    }
    gasnett_sched_yield();
    {
        gasnett_tick_t t0 = gasnett_ticks_now();
        gasnett_nsleep(2000000);
        uint64_t slept = gasnett_ticks_to_ns(gasnett_ticks_now() - t0);
        CHECK(slept >= 2000000, "gasnett_nsleep(2 ms) returned after %" PRIu64 " ns", slept);
        char fmt[32];
        snprintf(fmt, sizeof fmt, "%" PRIuSZ, (size_t)12345);
        CHECK(!strcmp(fmt, "12345"), "PRIuSZ printed '%s'", fmt);
    }
    gasnett_flush_streams();

    unsigned char blk[100];
    for (int i = 0; i < 100; i++) blk[i] = (unsigned char)(i % 10 ? i : 0);
    CHECK(gasnett_count0s(blk, 100) == 10, "count0s %zu", gasnett_count0s(blk, 100));
    unsigned char cpy[100];
    CHECK(gasnett_count0s_copy(cpy, blk, 100) == 10 && !memcmp(cpy, blk, 100), "count0s_copy");
    CHECK(gasnett_count0s_uint32_t(0x00FF0000u) == 3 && gasnett_count0s_uint64_t(1) == 7 &&
          gasnett_count0s_uintptr_t(0) == (int)sizeof(uintptr_t), "count0s of words");
    uint64_t c1 = gasnett_checksum(blk, 100);
    CHECK(c1 == gasnett_checksum(blk, 100), "checksum not deterministic");
    blk[57] ^= 1;
    CHECK(c1 != gasnett_checksum(blk, 100), "checksum missed a flipped bit");
    CHECK(gasnett_checksum(blk, 99) != gasnett_checksum(blk, 100), "checksum ignores length");

    gasnett_sighandlerfn_t old = gasnett_reghandler(SIGUSR1, no_op_handler);
    raise(SIGUSR1);
    CHECK(no_op_handler_hits == 1, "handler ran %d times", (int)no_op_handler_hits);
    CHECK(gasnett_reghandler(SIGUSR1, old) == no_op_handler, "reghandler returned the wrong old handler");
    CHECK(gasnett_maximize_rlimits() != 0, "maximize_rlimits failed");

    CHECK(add3(4) == 7 && twice(5) == 10, "inline helpers");
    CHECK(!strcmp(parity_name(ODD), "odd") && !strcmp(parity_name(EVEN), "even"),
          "a switch ending in gasnett_unreachable()");
    int taken = 0;
    if_pt(taken == 0) taken = 1;
    if_pf(taken == 0) taken = 5;
    CHECK(taken == 1 && GASNETT_PREDICT_TRUE(taken) && !GASNETT_PREDICT_FALSE(!taken), "predict");
    CHECK(!strcmp(GASNETT_CURRENT_FUNCTION, "test_system"), "current function '%s'", GASNETT_CURRENT_FUNCTION);
    char *loc = gasnett_current_loc;
    CHECK(loc && strstr(loc, "test_system") && strstr(loc, "tools_unit.c:"), "current_loc '%s'", loc);
    free(loc);
    CHECK(strstr(tools_unit_ident, "RivetToolsTest"), "ident");
    gasnett_compiler_fence();
    gasnett_local_wmb();
    gasnett_local_rmb();
    gasnett_local_mb();
    gasnett_weak_mb();
    int fds[2];
    CHECK(pipe(fds) == 0, "pipe");
    CHECK(gasnett_print_backtrace(fds[1]) == 0, "print_backtrace failed");
    close(fds[1]);
    char bt[8192];
    ssize_t btn = read(fds[0], bt, sizeof bt - 1);
    close(fds[0]);
    bt[btn > 0 ? btn : 0] = '\0';
    CHECK(strstr(bt, "backtrace of pid") && strstr(bt, "gasnett_print_backtrace"),
          "backtrace output: '%s'", bt);

    gasnett_mutex_t m = GASNETT_MUTEX_INITIALIZER;
    gasnett_mutex_lock(&m);
    CHECK(gasnett_mutex_trylock(&m) != 0, "trylock of a held mutex succeeded");
    gasnett_mutex_unlock(&m);
    CHECK(gasnett_mutex_trylock(&m) == 0, "trylock of a free mutex failed");
    gasnett_mutex_unlock(&m);
    gasnett_mutex_destroy(&m);
    gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;
    gasnett_rwlock_rdlock(&rw);
    CHECK(gasnett_rwlock_tryrdlock(&rw) == 0, "second read lock refused");
    CHECK(gasnett_rwlock_trywrlock(&rw) != 0, "write lock granted under readers");
    gasnett_rwlock_unlock(&rw);
    gasnett_rwlock_unlock(&rw);
    gasnett_rwlock_wrlock(&rw);
    gasnett_rwlock_unlock(&rw);
    gasnett_rwlock_destroy(&rw);
}

/* ---- error cases: each must end the process with a message naming the call -------------- */
static int error_case(const char *c)
{
    if (!strcmp(c, "bad_int")) {
        gasnett_setenv("RV_TOOLS_BAD", "12abc");
        gasnett_getenv_int_withdefault("RV_TOOLS_BAD", 0, 0);
    } else if (!strcmp(c, "bad_size")) {
        gasnett_setenv("RV_TOOLS_BAD", "3 XB");
        gasnett_getenv_int_withdefault("RV_TOOLS_BAD", 0, 1);
    } else if (!strcmp(c, "int_suffix")) {
        gasnett_setenv("RV_TOOLS_BAD", "4K");
        gasnett_getenv_int_withdefault("RV_TOOLS_BAD", 0, 0);
    } else if (!strcmp(c, "overflow")) {
        gasnett_setenv("RV_TOOLS_BAD", "9223372036854775808");
        gasnett_getenv_int_withdefault("RV_TOOLS_BAD", 0, 0);
    } else if (!strcmp(c, "bad_yesno")) {
        gasnett_setenv("RV_TOOLS_BAD", "maybe");
        gasnett_getenv_yesno_withdefault("RV_TOOLS_BAD", 0);
    } else if (!strcmp(c, "bad_dbl")) {
        gasnett_setenv("RV_TOOLS_BAD", "1/0");
        gasnett_getenv_dbl_withdefault("RV_TOOLS_BAD", 0.0);
    } else if (!strcmp(c, "parse_int")) {
        gasnett_parse_int("1.5", 0);
    } else if (!strcmp(c, "fatal")) {
        gasnett_fatalerror("tools_unit stopped on purpose (%d)", 42);
    } else if (!strcmp(c, "fatal_nopos")) {
        gasnett_fatalerror_nopos("tools_unit stopped on purpose, no position (%d)", 43);
    } else {
        fprintf(stderr, "tools_unit: unknown case %s\n", c);
        return 2;
    }
    fprintf(stderr, "tools_unit: case %s returned\n", c);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 1) return error_case(argv[1]);
    test_atomic_values();
    test_atomic_threads();
    test_timers();
    test_env();
    test_format();
    test_system();
    printf("tools_unit: ok\n");
    return 0;
}
