/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_diag.c: gasnett_run_diagnostics, a collective self-test of the library on a live
 * job (tools under threads, locks, timers, RMA and Active Messages to a peer, formatters), and
 * the AM handlers it uses (gasnett_diagnostic_gethandlers). Only public calls are used, so it
 * checks what clients see. */
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define RV_DIAG_BYTES 4096 /* the part of each segment area the RMA section uses */
#define RV_DIAG_MAX_THREADS 64

static int rv_diag_errors;

#define RV_DIAG_CHECK(sec, cond, ...)                                                   \
    do {                                                                                \
        if (!(cond)) {                                                                  \
            fprintf(stderr, "gasnett_run_diagnostics: section %c (rank %u): ", (sec),   \
                    (unsigned)gex_System_QueryJobRank());                               \
            fprintf(stderr, __VA_ARGS__);                                               \
            fputc('\n', stderr);                                                        \
            rv_diag_errors++;                                                           \
        }                                                                               \
    } while (0)

/* ---- the Active Message handlers (section E) -------------------------------------- */
static gasnett_atomic_t rv_diag_pongs = gasnett_atomic_init(0);
static gasnett_atomic_t rv_diag_pong_sum = gasnett_atomic_init(0);
static void rv_diag_ping(gex_Token_t token, gex_AM_Arg_t arg);
static void rv_diag_pong(gex_Token_t token, gex_AM_Arg_t arg);

/* indices 0: assigned at registration (written back here) */
static gex_AM_Entry_t rv_diag_handlers[] = {
    { 0, (gex_AM_Fn_t)rv_diag_ping, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL,
      "gasnett_diagnostic_ping" },
    { 0, (gex_AM_Fn_t)rv_diag_pong, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 1, NULL,
      "gasnett_diagnostic_pong" },
};

static void rv_diag_ping(gex_Token_t token, gex_AM_Arg_t arg)
{
    gex_AM_ReplyShort1(token, rv_diag_handlers[1].gex_index, 0, arg + 1);
}

static void rv_diag_pong(gex_Token_t token, gex_AM_Arg_t arg)
{
    (void)token;
    gasnett_atomic_add(&rv_diag_pong_sum, (gasnett_atomic_val_t)arg, 0);
    gasnett_atomic_increment(&rv_diag_pongs, GASNETT_ATOMIC_REL);
}

void gasnett_diagnostic_gethandlers(gex_AM_Entry_t **htable, int *htable_cnt)
{
    *htable = rv_diag_handlers;
    *htable_cnt = (int)(sizeof rv_diag_handlers / sizeof rv_diag_handlers[0]);
}

/* ---- sections A and B: tools under threads ------------------------------------------ */
typedef struct {
    int iters;
    gasnett_atomic_t counter;
    gasnett_atomic64_t cas_counter;
    gasnett_mutex_t mutex;
    gex_HSL_t hsl;
    uint64_t under_mutex, under_hsl;
} rv_diag_shared_t;

static void *rv_diag_atomics_thread(void *arg)
{
    rv_diag_shared_t *s = (rv_diag_shared_t *)arg;
    for (int i = 0; i < s->iters; i++) {
        gasnett_atomic_increment(&s->counter, 0);
        uint64_t old;
        do {
            old = gasnett_atomic64_read(&s->cas_counter, 0);
        } while (!gasnett_atomic64_compare_and_swap(&s->cas_counter, old, old + 2, 0));
    }
    return NULL;
}

static void *rv_diag_locks_thread(void *arg)
{
    rv_diag_shared_t *s = (rv_diag_shared_t *)arg;
    for (int i = 0; i < s->iters; i++) {
        gasnett_mutex_lock(&s->mutex);
        s->under_mutex++;
        gasnett_mutex_unlock(&s->mutex);
        gex_HSL_Lock(&s->hsl);
        s->under_hsl++;
        gex_HSL_Unlock(&s->hsl);
    }
    return NULL;
}

/* runs fn on threads threads; returns how many ran */
static int rv_diag_threads(char sec, void *(*fn)(void *), rv_diag_shared_t *s, int threads)
{
    pthread_t tid[RV_DIAG_MAX_THREADS];
    int started = 0;
    for (; started < threads; started++)
        if (pthread_create(&tid[started], NULL, fn, s)) break;
    RV_DIAG_CHECK(sec, started == threads, "started %d of %d threads", started, threads);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    return started;
}

static void rv_diag_section_ab(char sec, int iters, int threads)
{
    rv_diag_shared_t s;
    memset(&s, 0, sizeof s);
    s.iters = iters;
    gasnett_mutex_init(&s.mutex);
    gex_HSL_Init(&s.hsl);
    if (sec == 'A') {
        int ran = rv_diag_threads(sec, rv_diag_atomics_thread, &s, threads);
        uint64_t want = (uint64_t)ran * (uint64_t)iters;
        RV_DIAG_CHECK(sec, gasnett_atomic_read(&s.counter, 0) == want,
                      "atomic increments: %" PRIu64 ", expected %" PRIu64,
                      (uint64_t)gasnett_atomic_read(&s.counter, 0), want);
        RV_DIAG_CHECK(sec, gasnett_atomic64_read(&s.cas_counter, 0) == 2 * want,
                      "compare-and-swap additions: %" PRIu64 ", expected %" PRIu64,
                      gasnett_atomic64_read(&s.cas_counter, 0), 2 * want);
    } else {
        int ran = rv_diag_threads(sec, rv_diag_locks_thread, &s, threads);
        uint64_t want = (uint64_t)ran * (uint64_t)iters;
        RV_DIAG_CHECK(sec, s.under_mutex == want, "mutex-protected count %" PRIu64
                      ", expected %" PRIu64, s.under_mutex, want);
        RV_DIAG_CHECK(sec, s.under_hsl == want, "HSL-protected count %" PRIu64
                      ", expected %" PRIu64, s.under_hsl, want);
    }
    gex_HSL_Destroy(&s.hsl);
    gasnett_mutex_destroy(&s.mutex);
}

/* ---- section C: timers -------------------------------------------------------------- */
static void rv_diag_section_c(int iters)
{
    gasnett_tick_t prev = gasnett_ticks_now();
    for (int i = 0; i < iters; i++) {
        gasnett_tick_t now = gasnett_ticks_now();
        RV_DIAG_CHECK('C', now >= prev, "ticks went backwards");
        prev = now;
    }
    gasnett_tick_t start = gasnett_ticks_now();
    RV_DIAG_CHECK('C', gasnett_nsleep(1000000) == 0, "gasnett_nsleep returned non-zero");
    uint64_t ns = gasnett_ticks_to_ns(gasnett_ticks_now() - start);
    RV_DIAG_CHECK('C', ns >= 1000000, "gasnett_nsleep(1 ms) returned after %" PRIu64 " ns", ns);
    RV_DIAG_CHECK('C', gasnett_tick_granularityus() > 0 && gasnett_tick_overheadus() > 0,
                  "timer granularity or overhead is not positive");
}

/* ---- section D: RMA to the peer ------------------------------------------------------ */
static void rv_diag_section_d(int iters, gex_TM_t tm, gex_Rank_t peer, void *peerseg,
                              unsigned int seed)
{
    static uint8_t out[RV_DIAG_BYTES], back[RV_DIAG_BYTES];
    int rounds = iters / 100 + 1;
    for (int r = 0; r < rounds; r++) {
        size_t len = 1 + (size_t)(((unsigned)r * 977u + seed) % RV_DIAG_BYTES);
        size_t off = (size_t)(((unsigned)r * 131u + seed) % (RV_DIAG_BYTES - len + 1));
        for (size_t i = 0; i < len; i++) out[i] = (uint8_t)(seed + (unsigned)r * 7u + i);
        uint8_t *dst = (uint8_t *)peerseg + off;
        if (r % 2) {
            gex_RMA_PutBlocking(tm, peer, dst, out, len, 0);
        } else {
            gex_Event_Wait(gex_RMA_PutNB(tm, peer, dst, out, len, GEX_EVENT_DEFER, 0));
        }
        memset(back, 0, len);
        gex_RMA_GetBlocking(tm, back, peer, dst, len, 0);
        RV_DIAG_CHECK('D', !memcmp(out, back, len),
                      "round %d: %zu bytes put to rank %u and read back differ", r, len,
                      (unsigned)peer);
    }
    uint64_t v = 0x0123456789abcdefull ^ seed;
    gex_RMA_PutBlockingVal(tm, peer, peerseg, v, sizeof v, 0);
    RV_DIAG_CHECK('D', gex_RMA_GetBlockingVal(tm, peer, peerseg, sizeof v, 0) == v,
                  "value put and read back differ");
}

/* ---- section E: Active Messages to the peer ------------------------------------------ */
static void rv_diag_section_e(int iters, gex_TM_t tm, gex_Rank_t peer)
{
    if (!rv_diag_handlers[0].gex_index || !rv_diag_handlers[1].gex_index) {
        RV_DIAG_CHECK('E', 0, "the handlers of gasnett_diagnostic_gethandlers are not "
                              "registered (gex_EP_RegisterHandlers)");
        return;
    }
    int n = iters < 10000 ? iters : 10000;
    gasnett_atomic_set(&rv_diag_pongs, 0, 0);
    gasnett_atomic_set(&rv_diag_pong_sum, 0, 0);
    uint64_t want_sum = 0;
    for (int i = 0; i < n; i++) {
        gex_AM_RequestShort1(tm, peer, rv_diag_handlers[0].gex_index, 0, (gex_AM_Arg_t)i);
        want_sum += (uint64_t)i + 1;
    }
    GASNET_BLOCKUNTIL(gasnett_atomic_read(&rv_diag_pongs, GASNETT_ATOMIC_ACQ) ==
                      (gasnett_atomic_val_t)n);
    RV_DIAG_CHECK('E', gasnett_atomic_read(&rv_diag_pong_sum, 0) == want_sum,
                  "replies carried %" PRIu64 ", expected %" PRIu64,
                  (uint64_t)gasnett_atomic_read(&rv_diag_pong_sum, 0), want_sum);
}

/* ---- section F: formatters ------------------------------------------------------------ */
static void rv_diag_section_f(void)
{
    char buf[128];
    const char *want = "GEX_DT_I32|GEX_DT_DBL";
    size_t need = gasnett_format_dt(NULL, GEX_DT_I32 | GEX_DT_DBL);
    RV_DIAG_CHECK('F', need == strlen(want) + 1 && gasnett_format_dt(buf, GEX_DT_I32 | GEX_DT_DBL) ==
                           need && !strcmp(buf, want), "gasnett_format_dt gave '%s'", buf);
    gasnett_format_op(buf, GEX_OP_FCAS);
    RV_DIAG_CHECK('F', !strcmp(buf, "GEX_OP_FCAS"), "gasnett_format_op gave '%s'", buf);
    gasnett_format_ti(buf, 0);
    RV_DIAG_CHECK('F', !strcmp(buf, "(empty)"), "gasnett_format_ti(0) gave '%s'", buf);
}

static int rv_diag_wanted(const char *sections, char sec)
{
    if (!sections || !*sections) return 1;
    for (const char *p = sections; *p; p++)
        if (toupper((unsigned char)*p) == sec) return 1;
    return 0;
}

static void rv_diag_barrier(gex_TM_t tm)
{
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
}

int gasnett_run_diagnostics(int iters, int threadcnt, const char *testsections,
                            gex_TM_t myteam, void *myseg, gex_Rank_t peer, void *peerseg,
                            unsigned int seed)
{
    (void)myseg; /* the peer's calls write it; this rank reads nothing from it directly */
    rv_diag_errors = 0;
    if (iters < 1) iters = 1;
    if (threadcnt < 1) threadcnt = 1;
    if (threadcnt > RV_DIAG_MAX_THREADS) threadcnt = RV_DIAG_MAX_THREADS;
    rv_diag_barrier(myteam);
    if (rv_diag_wanted(testsections, 'A')) rv_diag_section_ab('A', iters, threadcnt);
    if (rv_diag_wanted(testsections, 'B')) rv_diag_section_ab('B', iters, threadcnt);
    if (rv_diag_wanted(testsections, 'C')) rv_diag_section_c(iters);
    rv_diag_barrier(myteam);
    if (rv_diag_wanted(testsections, 'D')) rv_diag_section_d(iters, myteam, peer, peerseg, seed);
    rv_diag_barrier(myteam);
    if (rv_diag_wanted(testsections, 'E')) rv_diag_section_e(iters, myteam, peer);
    rv_diag_barrier(myteam);
    if (rv_diag_wanted(testsections, 'F')) rv_diag_section_f();
    rv_diag_barrier(myteam);
    return rv_diag_errors;
}
