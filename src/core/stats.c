/* SPDX-License-Identifier: BSD-3-Clause */
/* core/stats.c: RIVET_STATS: per-thread counter blocks, the sources modules fold in, and the
 * per-rank JSON record written once at exit, on a fatal error or a terminating signal. */
#include "core/stats.h"
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static const char *const rv_st_names[RV_ST_COUNT] = {
#define RV_STAT(id, name, doc) name,
#include "core/stats.def"
#undef RV_STAT
};

/* One thread's counters. Only its thread writes them (relaxed load + store, no locked
 * instruction); the writer of the record reads them with relaxed loads. Blocks live until the
 * process ends, so a thread that ended still counts. */
typedef struct rv_st_blk {
    uint64_t          v[RV_ST_COUNT];
    struct rv_st_blk *next;
} rv_st_blk_t;

static rv_st_blk_t *_Atomic rv_st_blocks;
static _Thread_local rv_st_blk_t *rv_st_mine;

/* The live file (RV_STATS_LIVE_* in core/stats.h): the threads' blocks live in a MAP_SHARED
 * mapping of it, so that a rank killed by SIGKILL leaves its counters behind; removed once the
 * record is written. Threads beyond its slots get private blocks (not seen after a SIGKILL). */
static rv_stats_live_t *rv_st_live;
static char rv_st_live_path[4200];

/* Counters a module keeps elsewhere that also feed a core counter (tp.retransmits). */
#define RV_ST_EXTRAS 4
static struct {
    rv_stat_t id;
    uint64_t (*get)(void);
} rv_st_extra[RV_ST_EXTRAS];
static int rv_st_nextra;

#define RV_ST_SOURCES 8
static struct {
    const char *prefix;
    void (*fn)(rv_stats_emit_t emit, void *ctx);
} rv_st_src[RV_ST_SOURCES];
static int rv_st_nsrc;

static char rv_st_path[4096]; /* the expanded file name; "" with stats off */
static int rv_st_fd_std;      /* 1 or 2: stdout / stderr instead of a file */
static int rv_st_append;      /* several ranks share the one file: each appends its line */
static uint64_t rv_st_t0, rv_st_tick0;
static atomic_int rv_st_done;

uint64_t rv_stats_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static __attribute__((noinline)) rv_st_blk_t *rv_st_new(void)
{
    rv_st_blk_t *b = NULL;
    if (rv_st_live) {
        uint32_t i = atomic_fetch_add_explicit(&rv_st_live->nblocks, 1, memory_order_relaxed);
        if (i < rv_st_live->nblocks_max)
            b = (rv_st_blk_t *)(void *)((char *)rv_st_live + rv_st_live->blocks_off +
                                        (size_t)i * rv_st_live->stride);
        else
            atomic_store_explicit(&rv_st_live->nblocks, rv_st_live->nblocks_max,
                                  memory_order_relaxed);
    }
    if (!b) b = calloc(1, sizeof *b);
    if (!b) rv_fatal("RIVET_STATS: out of memory for a thread's counters");
    b->next = atomic_load_explicit(&rv_st_blocks, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&rv_st_blocks, &b->next, b,
                                                  memory_order_release, memory_order_relaxed)) {
    }
    return rv_st_mine = b;
}

void rv_stats_add(rv_stat_t id, uint64_t n)
{
    rv_st_blk_t *b = rv_st_mine;
    if (__builtin_expect(!b, 0)) b = rv_st_new();
    __atomic_store_n(&b->v[id], __atomic_load_n(&b->v[id], __ATOMIC_RELAXED) + n,
                     __ATOMIC_RELAXED);
}

void rv_stats_source(const char *prefix, void (*fn)(rv_stats_emit_t emit, void *ctx))
{
    for (int i = 0; i < rv_st_nsrc; i++)
        if (rv_st_src[i].fn == fn) return;
    if (rv_st_nsrc == RV_ST_SOURCES) rv_fatal("RIVET_STATS: too many counter sources");
    rv_st_src[rv_st_nsrc].prefix = prefix;
    rv_st_src[rv_st_nsrc].fn = fn;
    rv_st_nsrc++;
}

void rv_stats_extra(rv_stat_t id, uint64_t (*get)(void))
{
    for (int i = 0; i < rv_st_nextra; i++)
        if (rv_st_extra[i].get == get) return;
    if (rv_st_nextra == RV_ST_EXTRAS) rv_fatal("RIVET_STATS: too many extra counters");
    rv_st_extra[rv_st_nextra].id = id;
    rv_st_extra[rv_st_nextra].get = get;
    rv_st_nextra++;
}

/* Creates the live file next to the record; no live file (counters in private memory) if that
 * fails: a SIGKILL then leaves nothing, everything else works as before. */
static void rv_st_live_open(int per_rank)
{
    if (per_rank) snprintf(rv_st_live_path, sizeof rv_st_live_path, "%s.live", rv_st_path);
    else
        snprintf(rv_st_live_path, sizeof rv_st_live_path, "%s.%u.live", rv_st_path,
                 (unsigned)rv_job.rank);
    size_t names = 0;
    for (int i = 0; i < RV_ST_COUNT; i++) names += strlen(rv_st_names[i]) + 1;
    size_t stride = (sizeof(rv_st_blk_t) + 63) & ~(size_t)63;
    size_t blocks_off = (sizeof(rv_stats_live_t) + names + 63) & ~(size_t)63;
    size_t len = blocks_off + RV_STATS_LIVE_BLOCKS * stride;
    int fd = open(rv_st_live_path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    void *m = MAP_FAILED;
    if (fd >= 0 && ftruncate(fd, (off_t)len) == 0)
        m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (fd >= 0) close(fd);
    if (m == MAP_FAILED) {
        rv_verbose(1, "RIVET_STATS: no live file %s (%s): a rank killed by SIGKILL leaves no "
                      "counters", rv_st_live_path, strerror(errno));
        if (fd >= 0) unlink(rv_st_live_path);
        rv_st_live_path[0] = 0;
        return;
    }
    rv_stats_live_t *h = m;
    h->version = RV_STATS_LIVE_VERSION;
    h->rank = rv_job.rank;
    h->size = rv_job.size;
    h->ncounters = RV_ST_COUNT;
    h->stride = (uint32_t)stride;
    h->nblocks_max = RV_STATS_LIVE_BLOCKS;
    h->names_off = (uint32_t)sizeof *h;
    h->blocks_off = (uint32_t)blocks_off;
    h->pid = (uint64_t)getpid();
    h->t0_ns = rv_st_t0;
    h->tick0 = rv_st_tick0;
    snprintf(h->host, sizeof h->host, "%s", rv_job.hostname);
    char *p = (char *)m + h->names_off;
    for (int i = 0; i < RV_ST_COUNT; i++) {
        size_t l = strlen(rv_st_names[i]) + 1;
        memcpy(p, rv_st_names[i], l);
        p += l;
    }
    /* complete: readers may trust it once the magic's first byte is there (a release store:
     * everything above is visible first) */
    memcpy(h->magic + 1, &RV_STATS_LIVE_MAGIC[1], sizeof h->magic - 1);
    __atomic_store_n(&h->magic[0], RV_STATS_LIVE_MAGIC[0], __ATOMIC_RELEASE);
    rv_st_live = h;
}

/* A client's fork() child is not the rank: it leaves the rank's live file alone and counts
 * (if it does) in private blocks. */
static void rv_st_atfork_child(void)
{
    rv_st_live = NULL;
    rv_st_live_path[0] = 0;
    rv_st_mine = NULL;
}

void rv_stats_init(void)
{
    const char *f = rv_cfg.STATS_FILE;
    if (!rv_cfg.STATS && !f[0]) return;
    if (!f[0]) f = "rivet-stats-%.json";
    if (!strcmp(f, "stdout")) rv_st_fd_std = 1;
    else if (!strcmp(f, "stderr") || !strcmp(f, "-")) rv_st_fd_std = 2;
    int per_rank = strchr(f, '%') != NULL;
    if (rv_obs_rank_subst(f, (unsigned)rv_job.rank, rv_st_path, sizeof rv_st_path))
        rv_fatal("environment: RIVET_STATS_FILE=%s is too long once expanded", f);
    rv_st_append = !per_rank && rv_job.size > 1;
    if (!rv_st_fd_std && (!rv_st_append || rv_job.rank == 0)) {
        /* a fresh file now, so a job that writes nothing leaves no stale record from an
         * earlier one (a shared file: rank 0 empties it before the start-up barrier) */
        int fd = open(rv_st_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd < 0)
            rv_fatal("RIVET_STATS: cannot create the stats file %s: %s", rv_st_path,
                     strerror(errno));
        close(fd);
    }
    rv_st_t0 = rv_stats_now();
    rv_st_tick0 = rv_stats_ticks();
    if (!rv_st_fd_std) {
        rv_st_live_open(per_rank);
        if (rv_st_live) pthread_atfork(NULL, NULL, rv_st_atfork_child);
    }
    rv_obs_mask |= RV_OBS_STATS;
}

/* ---- the record: built in a static buffer with no allocation, written with one write() ---- */

typedef struct {
    char  *buf;
    size_t n, cap;
    int    first;
} rv_st_out_t;

static void rv_st_puts(rv_st_out_t *o, const char *s)
{
    while (*s && o->n + 1 < o->cap) o->buf[o->n++] = *s++;
}

static void rv_st_putu(rv_st_out_t *o, uint64_t v)
{
    char d[24];
    int i = 0;
    do d[i++] = (char)('0' + v % 10); while ((v /= 10) && i < 24);
    while (i && o->n + 1 < o->cap) o->buf[o->n++] = d[--i];
}

static void rv_st_putkey(rv_st_out_t *o, const char *prefix, const char *name)
{
    rv_st_puts(o, o->first ? "\"" : ",\"");
    o->first = 0;
    if (prefix) {
        rv_st_puts(o, prefix);
        rv_st_puts(o, ".");
    }
    for (const char *p = name; *p && o->n + 1 < o->cap; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) o->buf[o->n++] = *p;
    rv_st_puts(o, "\":");
}

static const char *rv_st_cur_prefix;
static void rv_st_emit(const char *name, uint64_t value, void *ctx)
{
    rv_st_out_t *o = ctx;
    rv_st_putkey(o, rv_st_cur_prefix, name);
    rv_st_putu(o, value);
}

void rv_stats_dump(const char *reason) { rv_stats_dump_sig(reason, NULL); }

void rv_stats_dump_sig(const char *reason, const char *signame)
{
    if (!(rv_obs_mask & RV_OBS_STATS) || atomic_exchange(&rv_st_done, 1)) return;
    static char buf[32768];
    rv_st_out_t o = { buf, 0, sizeof buf, 1 };
    uint64_t sum[RV_ST_COUNT];
    memset(sum, 0, sizeof sum);
    for (rv_st_blk_t *b = atomic_load_explicit(&rv_st_blocks, memory_order_acquire); b;
         b = b->next)
        for (int i = 0; i < RV_ST_COUNT; i++) sum[i] += __atomic_load_n(&b->v[i], __ATOMIC_RELAXED);
    for (int i = 0; i < rv_st_nextra; i++) sum[rv_st_extra[i].id] += rv_st_extra[i].get();

    /* ticks -> nanoseconds for the timed counters (names ending in "_ns") */
    uint64_t el_ns = rv_stats_now() - rv_st_t0, el_ticks = rv_stats_ticks() - rv_st_tick0;
    double ns_per_tick = el_ticks ? (double)el_ns / (double)el_ticks : 1.0;
    for (int i = 0; i < RV_ST_COUNT; i++) {
        size_t l = strlen(rv_st_names[i]);
        if (l > 3 && !strcmp(rv_st_names[i] + l - 3, "_ns"))
            sum[i] = (uint64_t)((double)sum[i] * ns_per_tick);
    }

    rv_st_puts(&o, "{\"rivet_stats\":1,\"rank\":");
    rv_st_putu(&o, rv_job.rank);
    rv_st_puts(&o, ",\"size\":");
    rv_st_putu(&o, rv_job.size);
    rv_st_puts(&o, ",\"pid\":");
    rv_st_putu(&o, (uint64_t)getpid());
    rv_st_puts(&o, ",\"host\":\"");
    for (const char *p = rv_job.hostname; *p && o.n + 1 < o.cap; p++)
        if (*p != '"' && *p != '\\') o.buf[o.n++] = *p;
    rv_st_puts(&o, "\",\"reason\":\"");
    rv_st_puts(&o, reason);
    if (signame) {
        rv_st_puts(&o, "\",\"signal\":\"");
        rv_st_puts(&o, signame);
    }
    rv_st_puts(&o, "\",\"elapsed_ns\":");
    rv_st_putu(&o, el_ns);
    rv_st_puts(&o, ",\"counters\":{");
    for (int i = 0; i < RV_ST_COUNT; i++) rv_st_emit(rv_st_names[i], sum[i], &o);
    for (int s = 0; s < rv_st_nsrc; s++) {
        rv_st_cur_prefix = rv_st_src[s].prefix;
        rv_st_src[s].fn(rv_st_emit, &o);
    }
    rv_st_cur_prefix = NULL;
    rv_st_puts(&o, "}}\n");

    int fd = rv_st_fd_std;
    if (!fd) {
        fd = open(rv_st_path,
                  O_WRONLY | O_CREAT | O_CLOEXEC | (rv_st_append ? O_APPEND : O_TRUNC), 0644);
        if (fd < 0) {
            char m[256];
            int l = snprintf(m, sizeof m, "rivet: RIVET_STATS: cannot write %s\n", rv_st_path);
            if (write(2, m, (size_t)l) < 0) return;
            return;
        }
    }
    size_t off = 0;
    while (off < o.n) {
        ssize_t w = write(fd, buf + off, o.n - off);
        if (w <= 0 && errno != EINTR) break;
        if (w > 0) off += (size_t)w;
    }
    if (fd > 2) close(fd);
    /* the record is out: the live file has nothing more to tell (kept if the write failed) */
    if (off == o.n && rv_st_live_path[0]) unlink(rv_st_live_path);
}
