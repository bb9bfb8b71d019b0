/* SPDX-License-Identifier: BSD-3-Clause */
/* core/trace.c: RIVET_TRACE event recording: per-thread record buffers, the rank's JSON file
 * (written when a buffer fills and at exit), the category mask and the size cap. */
#include "core/trace.h"
#include "core/core.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* One recorded event: 48 bytes, written by its thread only. */
typedef struct rv_tr_ev {
    uint64_t    t0, t1;  /* ns, CLOCK_REALTIME; t1 unused by instant and async events */
    uint64_t    bytes;   /* async events: their key */
    const char *label;   /* NULL: the id's name */
    uint32_t    peer, arg;
    uint16_t    id;
    char        ph;      /* 'X' complete, 'b'/'e' async begin/end, 'i' instant */
} rv_tr_ev_t;

typedef struct rv_tr_buf {
    struct rv_tr_buf *next;  /* every thread's buffer, for the final flush */
    unsigned          tid;   /* 0: the thread that called gex_Client_Init */
    long              ostid; /* the kernel's thread id, for the thread's name */
    _Atomic size_t    n;     /* records filled (released after each record) */
    size_t            cap;
    rv_tr_ev_t        ev[];
} rv_tr_buf_t;

static const char rv_tr_cat[RV_TR_COUNT] = {
#define RV_TRACE_CAT_(id, cat, name) cat,
    RV_TRACE_EVENTS(RV_TRACE_CAT_)
#undef RV_TRACE_CAT_
};
static const char *const rv_tr_name[RV_TR_COUNT] = {
#define RV_TRACE_NAME_(id, cat, name) name,
    RV_TRACE_EVENTS(RV_TRACE_NAME_)
#undef RV_TRACE_NAME_
};

static _Thread_local rv_tr_buf_t *rv_tr_mine;
static pthread_mutex_t rv_tr_lock = PTHREAD_MUTEX_INITIALIZER; /* the file, the buffer list */
static rv_tr_buf_t    *rv_tr_bufs;
static FILE           *rv_tr_file;
static char            rv_tr_path[4096];
static _Atomic int     rv_tr_stopped = 1;   /* until rv_trace_init; again after rv_trace_fini */
static _Atomic uint64_t rv_tr_count;        /* events taken (those past the cap: dropped) */
static _Atomic unsigned rv_tr_next_tid;
static _Atomic uint64_t rv_tr_t_exit;
static uint64_t        rv_tr_max;
static uint32_t        rv_tr_mask;          /* bit c - 'A': category letter c is on */
static size_t          rv_tr_cap;           /* records per thread buffer */
static const char     *rv_tr_maskstr;
static int             rv_tr_in_signal;     /* rv_trace_fini_signal: no allocation, no fclose */

uint64_t rv_trace_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static inline int rv_tr_on(unsigned id)
{
    return !atomic_load_explicit(&rv_tr_stopped, memory_order_relaxed) &&
           (rv_tr_mask >> (rv_tr_cat[id] - 'A') & 1u);
}

/* ---- names ---------------------------------------------------------------------------- */

int rv_trace_mask_parse(const char *s, uint32_t *mask, char *bad)
{
    uint32_t m = 0;
    if (!s || !*s) {
        for (unsigned i = 0; i < RV_TR_COUNT; i++) m |= 1u << (rv_tr_cat[i] - 'A');
        *mask = m;
        return 0;
    }
    for (const char *p = s; *p; p++) {
        if (!strchr(RV_TRACE_LETTERS, *p) || *p < 'A' || *p > 'Z') {
            *bad = *p;
            return -1;
        }
        m |= 1u << (*p - 'A');
    }
    *mask = m;
    return 0;
}

int rv_trace_rank_path(const char *spec, unsigned rank, char *out, size_t n)
{
    if (strchr(spec, '%')) return rv_obs_rank_subst(spec, rank, out, n);
    size_t l = strlen(spec);
    int w = l > 5 && !strcmp(spec + l - 5, ".json")
                ? snprintf(out, n, "%.*s.%u.json", (int)(l - 5), spec, rank)
                : snprintf(out, n, "%s.%u", spec, rank);
    return w < 0 || (size_t)w >= n ? -1 : 0;
}

int rv_trace_job_path(const char *spec, char *out, size_t n)
{
    return rv_obs_subst(spec, "all", out, n);
}

/* ---- writing -------------------------------------------------------------------------- */

/* The event line is built in a char buffer, then written with one fwrite: formatting is most
 * of what tracing costs. The buffer fits the longest line (a 200-character label escaped to
 * 6 characters each, and fixed parts of under 300), so the appenders check nothing. */
#define RV_TR_LABEL_MAX 200
#define RV_TR_LINE_MAX (6 * RV_TR_LABEL_MAX + 400)
#define RV_TR_LIT(p, lit) (memcpy((p), (lit), sizeof(lit) - 1), (p) + sizeof(lit) - 1)

static char *rv_tr_str(char *p, const char *s)
{
    size_t n = strlen(s);
    memcpy(p, s, n);
    return p + n;
}

static const char rv_tr_d2[] = "00010203040506070809101112131415161718192021222324252627282930313233"
                               "34353637383940414243444546474849505152535455565758596061626364656667"
                               "6869707172737475767778798081828384858687888990919293949596979899";

static char *rv_tr_u(char *p, uint64_t v)
{
    char d[24], *q = d + sizeof d;
    while (v >= 100) {
        unsigned r = (unsigned)(v % 100);
        v /= 100;
        q -= 2;
        memcpy(q, rv_tr_d2 + 2 * r, 2);
    }
    if (v >= 10) {
        q -= 2;
        memcpy(q, rv_tr_d2 + 2 * v, 2);
    } else {
        *--q = (char)('0' + v);
    }
    size_t n = (size_t)(d + sizeof d - q);
    memcpy(p, q, n);
    return p + n;
}

/* ns as microseconds with three decimals (the format's unit), exactly. */
static char *rv_tr_us(char *p, uint64_t ns)
{
    unsigned f = (unsigned)(ns % 1000);
    p = rv_tr_u(p, ns / 1000);
    p[0] = '.';
    p[1] = (char)('0' + f / 100);
    memcpy(p + 2, rv_tr_d2 + 2 * (f % 100), 2);
    return p + 4;
}

/* s as the inside of a JSON string (at most RV_TR_LABEL_MAX characters of it). */
static char *rv_tr_js(char *p, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; *s && i < RV_TR_LABEL_MAX; s++, i++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *p++ = '\\';
            *p++ = (char)c;
        } else if (c < 0x20) {
            p = RV_TR_LIT(p, "\\u00");
            *p++ = hex[c >> 4];
            *p++ = hex[c & 15];
        } else {
            *p++ = (char)c;
        }
    }
    return p;
}

static void rv_tr_puts_json(FILE *f, const char *s)
{
    char buf[RV_TR_LINE_MAX];
    fwrite(buf, 1, (size_t)(rv_tr_js(buf, s) - buf), f);
}

static const char *rv_tr_argname(unsigned id)
{
    switch (id) {
    case RV_TR_AM_SEND: case RV_TR_AM_HANDLER: case RV_TR_AMI_SEND: case RV_TR_AMI_HANDLER:
        return "handler";
    case RV_TR_AMO: return "op";
    case RV_TR_COLL: case RV_TR_BARRIER: return "team";
    default: return "arg";
    }
}

/* One event: one line, starting {"name": and ending "},\n" (tools/rivetrun/trace_merge.c
 * relies on this shape). */
static void rv_tr_write_ev(FILE *f, unsigned tid, const rv_tr_ev_t *e)
{
    char buf[RV_TR_LINE_MAX];
    char *p = RV_TR_LIT(buf, "{\"name\":\"");
    p = rv_tr_js(p, e->label ? e->label : rv_tr_name[e->id]);
    p = RV_TR_LIT(p, "\",\"cat\":\"");
    *p++ = rv_tr_cat[e->id];
    p = RV_TR_LIT(p, "\",\"ph\":\"");
    *p++ = e->ph;
    p = RV_TR_LIT(p, "\",\"ts\":");
    p = rv_tr_us(p, e->t0);
    if (e->ph == 'X') {
        p = RV_TR_LIT(p, ",\"dur\":");
        p = rv_tr_us(p, e->t1 > e->t0 ? e->t1 - e->t0 : 0);
    }
    p = RV_TR_LIT(p, ",\"pid\":");
    p = rv_tr_u(p, rv_job.rank);
    p = RV_TR_LIT(p, ",\"tid\":");
    p = rv_tr_u(p, tid);
    if (e->ph == 'i') {
        p = RV_TR_LIT(p, ",\"s\":\"p\"");
    } else if (e->ph == 'b' || e->ph == 'e') {
        static const char hex[] = "0123456789abcdef";
        char id[20];
        int n = 0;
        uint64_t k = e->bytes;
        do id[n++] = hex[k & 15]; while ((k >>= 4));
        p = RV_TR_LIT(p, ",\"id\":\"0x");
        while (n) *p++ = id[--n];
        *p++ = '"';
        if (e->ph == 'b' && e->arg != ~0u) {
            p = RV_TR_LIT(p, ",\"args\":{\"");
            p = rv_tr_str(p, rv_tr_argname(e->id));
            p = RV_TR_LIT(p, "\":");
            p = rv_tr_u(p, e->arg);
            *p++ = '}';
        }
    } else {
        int sep = 0;
        p = RV_TR_LIT(p, ",\"args\":{");
        if (e->peer != RV_TR_NOPEER) {
            p = RV_TR_LIT(p, "\"peer\":");
            p = rv_tr_u(p, e->peer);
            sep = 1;
        }
        if (e->id != RV_TR_PHASE) {
            if (sep) *p++ = ',';
            p = RV_TR_LIT(p, "\"bytes\":");
            p = rv_tr_u(p, e->bytes);
            sep = 1;
        }
        if (e->arg != ~0u) {
            if (sep) *p++ = ',';
            *p++ = '"';
            p = rv_tr_str(p, rv_tr_argname(e->id));
            p = RV_TR_LIT(p, "\":");
            p = rv_tr_u(p, e->arg);
        }
        *p++ = '}';
    }
    p = RV_TR_LIT(p, "},\n");
    fwrite(buf, 1, (size_t)(p - buf), f);
}

/* Writes b's records and empties it. Under rv_tr_lock. */
static void rv_tr_drain(rv_tr_buf_t *b)
{
    size_t n = atomic_load_explicit(&b->n, memory_order_acquire);
    if (rv_tr_file)
        for (size_t i = 0; i < n; i++) rv_tr_write_ev(rv_tr_file, b->tid, &b->ev[i]);
    atomic_store_explicit(&b->n, 0, memory_order_release);
}

static __attribute__((noinline)) rv_tr_buf_t *rv_tr_newbuf(void)
{
    rv_tr_buf_t *b = malloc(sizeof *b + rv_tr_cap * sizeof b->ev[0]);
    if (!b) return NULL;
    b->tid = atomic_fetch_add_explicit(&rv_tr_next_tid, 1, memory_order_relaxed);
    b->ostid = (long)syscall(SYS_gettid);
    atomic_init(&b->n, 0);
    b->cap = rv_tr_cap;
    pthread_mutex_lock(&rv_tr_lock);
    b->next = rv_tr_bufs;
    rv_tr_bufs = b;
    pthread_mutex_unlock(&rv_tr_lock);
    return rv_tr_mine = b;
}

static void rv_tr_append(unsigned id, char ph, uint64_t t0, uint64_t t1, const char *label,
                         uint32_t peer, uint64_t bytes, uint32_t arg)
{
    rv_tr_buf_t *b = rv_tr_mine;
    if (__builtin_expect(!b, 0) && (rv_tr_in_signal || !(b = rv_tr_newbuf()))) return;
    size_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
    if (__builtin_expect(n == b->cap, 0)) {
        pthread_mutex_lock(&rv_tr_lock);
        rv_tr_drain(b);
        pthread_mutex_unlock(&rv_tr_lock);
        n = 0;
    }
    rv_tr_ev_t *e = &b->ev[n];
    e->t0 = t0;
    e->t1 = t1;
    e->bytes = bytes;
    e->label = label;
    e->peer = peer;
    e->arg = arg;
    e->id = (uint16_t)id;
    e->ph = ph;
    atomic_store_explicit(&b->n, n + 1, memory_order_release);
}

/* Counts the event against RIVET_TRACE_MAX and records it; the first one past the cap records
 * a note instead, and recording stops. */
static void rv_tr_record(unsigned id, char ph, uint64_t t0, uint64_t t1, const char *label,
                         uint32_t peer, uint64_t bytes, uint32_t arg)
{
    uint64_t k = atomic_fetch_add_explicit(&rv_tr_count, 1, memory_order_relaxed);
    if (__builtin_expect(k >= rv_tr_max, 0)) {
        if (k == rv_tr_max)
            rv_tr_append(RV_TR_NOTE, 'i', t0, t0, "trace truncated: RIVET_TRACE_MAX reached",
                         RV_TR_NOPEER, 0, ~0u);
        return;
    }
    rv_tr_append(id, ph, t0, t1, label, peer, bytes, arg);
}

/* ---- hooks ---------------------------------------------------------------------------- */

uint64_t rv_trace_begin(unsigned id)
{
    if (!rv_tr_on(id)) return 0;
    uint64_t t = rv_trace_clock();
    return t ? t : 1;
}

void rv_trace_end(unsigned id, uint64_t t0, const char *label, uint32_t peer, uint64_t bytes,
                  uint32_t arg)
{
    if (!t0 || atomic_load_explicit(&rv_tr_stopped, memory_order_relaxed)) return;
    rv_tr_record(id, 'X', t0, rv_trace_clock(), label, peer, bytes, arg);
}

void rv_trace_async(unsigned id, int begin, const char *label, uint64_t key, uint64_t bytes,
                    uint32_t arg)
{
    (void)bytes;
    if (!rv_tr_on(id)) return;
    uint64_t t = rv_trace_clock();
    rv_tr_record(id, begin ? 'b' : 'e', t, t, label, RV_TR_NOPEER, key, arg);
}

void rv_trace_phase(const char *label, uint64_t t0)
{
    if (!RV_OBS_ON(RV_OBS_TRACE) || !rv_tr_on(RV_TR_PHASE) || !t0) return;
    rv_tr_record(RV_TR_PHASE, 'X', t0, rv_trace_clock(), label, RV_TR_NOPEER, 0, ~0u);
}

void rv_trace_exit_begin(void)
{
    uint64_t zero = 0;
    if (RV_OBS_ON(RV_OBS_TRACE))
        atomic_compare_exchange_strong(&rv_tr_t_exit, &zero, rv_trace_clock());
}

/* ---- life cycle ----------------------------------------------------------------------- */

void rv_trace_init(uint64_t t_start, uint64_t t_boot)
{
    const char *spec = rv_cfg.TRACE;
    if (!spec || !spec[0]) return;
    char bad = 0;
    if (rv_trace_mask_parse(rv_cfg.TRACE_MASK, &rv_tr_mask, &bad))
        rv_fatal("environment: RIVET_TRACE_MASK=%s: '%c' is not a trace category (letters of "
                 "%s; docs/observability.md)", rv_cfg.TRACE_MASK, bad, RV_TRACE_LETTERS);
    rv_tr_maskstr = rv_cfg.TRACE_MASK;
    rv_tr_max = rv_cfg.TRACE_MAX;
    rv_tr_cap = rv_cfg.TRACE_BUF / sizeof(rv_tr_ev_t);
    if (rv_tr_cap < 16) rv_tr_cap = 16;
    if (rv_trace_rank_path(spec, rv_job.rank, rv_tr_path, sizeof rv_tr_path))
        rv_fatal("environment: RIVET_TRACE=%s: the file name of rank %u is too long", spec,
                 rv_job.rank);
    if (!(rv_tr_file = fopen(rv_tr_path, "w")))
        rv_fatal("environment: RIVET_TRACE=%s: cannot create the trace file %s of rank %u: %s",
                 spec, rv_tr_path, rv_job.rank, strerror(errno));
    setvbuf(rv_tr_file, NULL, _IOFBF, 1 << 16);
    FILE *f = rv_tr_file;
    fputs("{\"traceEvents\":[\n", f);
    fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":{\"name\":"
               "\"rank %u (", rv_job.rank, rv_job.rank);
    rv_tr_puts_json(f, rv_job.hostname);
    fputs(")\"}},\n", f);
    fprintf(f, "{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":"
               "{\"sort_index\":%u}},\n", rv_job.rank, rv_job.rank);
    if (!rv_tr_newbuf()) rv_fatal("RIVET_TRACE: out of memory for a %zu-record buffer", rv_tr_cap);
    atomic_store(&rv_tr_stopped, 0);
    rv_obs_mask |= RV_OBS_TRACE;
    if (rv_tr_on(RV_TR_PHASE)) {
        rv_tr_record(RV_TR_PHASE, 'X', t_start, t_boot, "bootstrap", RV_TR_NOPEER, 0, ~0u);
    }
}

void rv_trace_fini(void)
{
    if (!RV_OBS_ON(RV_OBS_TRACE) || atomic_load(&rv_tr_stopped)) return;
    uint64_t t0 = atomic_load(&rv_tr_t_exit);
    if (rv_tr_on(RV_TR_PHASE))
        rv_tr_record(RV_TR_PHASE, 'X', t0 ? t0 : rv_trace_clock(), rv_trace_clock(), "exit",
                     RV_TR_NOPEER, 0, ~0u);
    if (atomic_exchange(&rv_tr_stopped, 1)) return;
    pthread_mutex_lock(&rv_tr_lock);
    FILE *f = rv_tr_file;
    if (!f) {
        pthread_mutex_unlock(&rv_tr_lock);
        return;
    }
    for (rv_tr_buf_t *b = rv_tr_bufs; b; b = b->next) {
        rv_tr_drain(b);
        fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,\"args\":"
                   "{\"name\":\"%s (tid %ld)\"}},\n", rv_job.rank, b->tid,
                b->tid ? "thread" : "main", b->ostid);
    }
    uint64_t n = atomic_load(&rv_tr_count);
    uint64_t dropped = n > rv_tr_max ? n - rv_tr_max : 0;
    /* the last element: no comma after it */
    fprintf(f, "{\"name\":\"process_labels\",\"ph\":\"M\",\"pid\":%u,\"tid\":0,\"args\":"
               "{\"labels\":\"%s\"}}\n", rv_job.rank, dropped ? "trace truncated" : "rivet");
    fprintf(f, "],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"rivet_rank\":%u,"
               "\"rivet_size\":%u,\"clock\":\"CLOCK_REALTIME\",\"events\":%llu,\"dropped\":%llu,"
               "\"max\":%llu,\"mask\":\"", rv_job.rank, rv_job.size,
            (unsigned long long)(n - dropped), (unsigned long long)dropped,
            (unsigned long long)rv_tr_max);
    rv_tr_puts_json(f, rv_tr_maskstr ? rv_tr_maskstr : "");
    fputs("\"}}\n", f);
    if (rv_tr_in_signal ? fflush(f) : fclose(f))
        fprintf(stderr, "rivet: rank %u: writing the trace file %s failed: %s\n", rv_job.rank,
                rv_tr_path, strerror(errno));
    rv_tr_file = NULL;
    pthread_mutex_unlock(&rv_tr_lock);
}

void rv_trace_fini_signal(void)
{
    if (!RV_OBS_ON(RV_OBS_TRACE) || atomic_load(&rv_tr_stopped)) return;
    /* busy: maybe this very thread was interrupted holding it (the file mid-write) */
    if (pthread_mutex_trylock(&rv_tr_lock)) return;
    pthread_mutex_unlock(&rv_tr_lock);
    rv_tr_in_signal = 1;
    rv_trace_fini();
}
