/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/statsmerge.c: parses the per-rank RIVET_STATS records (core/stats.c writes them:
 * a flat object whose "counters" member maps names to unsigned integers) and merges them. */
#include "statsmerge.h"

#include "core/stats.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct {
    unsigned rank, size;
    uint64_t pid, elapsed_ns;
    char     host[64], reason[16], sig[16];
    uint64_t *val; /* [m->nkeys at the time; grown] */
    unsigned nval;
} rv_sm_rank_t;

struct rv_sm {
    char        **keys;
    unsigned      nkeys, capkeys;
    rv_sm_rank_t *ranks; /* indexed by rank */
    unsigned      capranks;
    unsigned      size;
};

rv_sm_t *rv_sm_new(void) { return calloc(1, sizeof(rv_sm_t)); }

void rv_sm_free(rv_sm_t *m)
{
    if (!m) return;
    for (unsigned i = 0; i < m->nkeys; i++) free(m->keys[i]);
    for (unsigned r = 0; r < m->capranks; r++) free(m->ranks[r].val);
    free(m->keys);
    free(m->ranks);
    free(m);
}

static int rv_sm_key(rv_sm_t *m, const char *k)
{
    for (unsigned i = 0; i < m->nkeys; i++)
        if (!strcmp(m->keys[i], k)) return (int)i;
    if (m->nkeys == m->capkeys) {
        unsigned c = m->capkeys ? 2 * m->capkeys : 64;
        char **p = realloc(m->keys, c * sizeof *p);
        if (!p) return -1;
        m->keys = p;
        m->capkeys = c;
    }
    if (!(m->keys[m->nkeys] = strdup(k))) return -1;
    return (int)m->nkeys++;
}

/* ---- a small scanner for the records' JSON ---- */
typedef struct {
    const char *p;
    const char *err;
} rv_sm_scan_t;

static void rv_sm_ws(rv_sm_scan_t *s)
{
    while (*s->p == ' ' || *s->p == '\t' || *s->p == '\r' || *s->p == '\n') s->p++;
}

static int rv_sm_str(rv_sm_scan_t *s, char *out, size_t n)
{
    rv_sm_ws(s);
    if (*s->p != '"') return s->err = "expected a string", -1;
    s->p++;
    size_t o = 0;
    while (*s->p && *s->p != '"') {
        if (*s->p == '\\' && s->p[1]) s->p++;
        if (o + 1 < n) out[o++] = *s->p;
        s->p++;
    }
    if (*s->p != '"') return s->err = "unterminated string", -1;
    s->p++;
    out[o] = 0;
    return 0;
}

static int rv_sm_num(rv_sm_scan_t *s, uint64_t *v)
{
    rv_sm_ws(s);
    if (*s->p < '0' || *s->p > '9') return s->err = "expected an unsigned number", -1;
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s->p, &end, 10);
    if (errno) return s->err = "number out of range", -1;
    s->p = end;
    *v = x;
    return 0;
}

static int rv_sm_lit(rv_sm_scan_t *s, char c)
{
    rv_sm_ws(s);
    if (*s->p != c) {
        static char msg[32];
        snprintf(msg, sizeof msg, "expected '%c'", c);
        return s->err = msg, -1;
    }
    s->p++;
    return 0;
}

/* One record starting at s->p. */
static int rv_sm_record(rv_sm_t *m, rv_sm_scan_t *s)
{
    rv_sm_rank_t r;
    memset(&r, 0, sizeof r);
    int have_rank = 0, is_stats = 0;
    char key[256];
    /* counters parsed before the rank is known: kept as (key index, value) pairs */
    unsigned npairs = 0, cap = 0;
    struct { int k; uint64_t v; } *pairs = NULL;
    if (rv_sm_lit(s, '{')) return -1;
    rv_sm_ws(s);
    while (*s->p != '}') {
        if (rv_sm_str(s, key, sizeof key) || rv_sm_lit(s, ':')) goto fail;
        rv_sm_ws(s);
        uint64_t v = 0;
        if (!strcmp(key, "counters")) {
            if (rv_sm_lit(s, '{')) goto fail;
            rv_sm_ws(s);
            while (*s->p != '}') {
                if (rv_sm_str(s, key, sizeof key) || rv_sm_lit(s, ':') || rv_sm_num(s, &v))
                    goto fail;
                int k = rv_sm_key(m, key);
                if (k < 0) return s->err = "out of memory", -1;
                if (npairs == cap) {
                    cap = cap ? 2 * cap : 128;
                    void *p = realloc(pairs, cap * sizeof *pairs);
                    if (!p) return s->err = "out of memory", -1;
                    pairs = p;
                }
                pairs[npairs].k = k;
                pairs[npairs++].v = v;
                rv_sm_ws(s);
                if (*s->p == ',') s->p++;
                rv_sm_ws(s);
            }
            s->p++;
        } else if (*s->p == '"') {
            char val[64];
            if (rv_sm_str(s, val, sizeof val)) goto fail;
            if (!strcmp(key, "host")) snprintf(r.host, sizeof r.host, "%s", val);
            else if (!strcmp(key, "reason")) snprintf(r.reason, sizeof r.reason, "%.15s", val);
            else if (!strcmp(key, "signal")) snprintf(r.sig, sizeof r.sig, "%.15s", val);
        } else {
            if (rv_sm_num(s, &v)) goto fail;
            if (!strcmp(key, "rank")) r.rank = (unsigned)v, have_rank = 1;
            else if (!strcmp(key, "size")) r.size = (unsigned)v;
            else if (!strcmp(key, "pid")) r.pid = v;
            else if (!strcmp(key, "elapsed_ns")) r.elapsed_ns = v;
            else if (!strcmp(key, "rivet_stats")) is_stats = 1;
        }
        rv_sm_ws(s);
        if (*s->p == ',') s->p++;
        rv_sm_ws(s);
    }
    s->p++;
    if (!is_stats || !have_rank || r.rank > 1u << 24) {
        s->err = "not a RIVET_STATS record (no \"rivet_stats\" or \"rank\")";
        goto fail;
    }
    if (r.rank >= m->capranks) {
        unsigned c = m->capranks ? m->capranks : 8;
        while (c <= r.rank) c *= 2;
        rv_sm_rank_t *p = realloc(m->ranks, c * sizeof *p);
        if (!p) return s->err = "out of memory", -1;
        memset(p + m->capranks, 0, (c - m->capranks) * sizeof *p);
        m->ranks = p;
        m->capranks = c;
    }
    rv_sm_rank_t *dst = &m->ranks[r.rank];
    free(dst->val);
    r.nval = m->nkeys;
    r.val = calloc(m->nkeys ? m->nkeys : 1, sizeof *r.val);
    if (!r.val) return s->err = "out of memory", -1;
    for (unsigned i = 0; i < npairs; i++) r.val[pairs[i].k] = pairs[i].v;
    free(pairs);
    if (!r.reason[0]) snprintf(r.reason, sizeof r.reason, "?");
    r.size = r.size ? r.size : r.rank + 1;
    *dst = r;
    dst->size = r.size;
    if (r.size > m->size) m->size = r.size;
    return 0;
fail:
    free(pairs);
    return -1;
}

int rv_sm_add_file(rv_sm_t *m, const char *path, char *err, size_t n)
{
    FILE *f = fopen(path, "r");
    char magic[8];
    if (f && fread(magic, 1, sizeof magic, f) == sizeof magic &&
        !memcmp(magic, RV_STATS_LIVE_MAGIC, sizeof magic)) {
        /* a live file a killed rank left (core/stats.h): its record */
        fclose(f);
        static char rec[65536];
        if (rv_sm_live_record(path, rec, sizeof rec, err, n) < 0) return -1;
        rv_sm_scan_t s = { rec, NULL };
        if (rv_sm_record(m, &s)) {
            snprintf(err, n, "%s: %s", path, s.err ? s.err : "malformed live file");
            return -1;
        }
        return 1;
    }
    if (f) rewind(f);
    if (!f) {
        snprintf(err, n, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *text = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len + 4096 + 1 > cap) {
            cap = cap ? 2 * cap : 65536;
            char *p = realloc(text, cap);
            if (!p) {
                free(text);
                fclose(f);
                snprintf(err, n, "%s: out of memory", path);
                return -1;
            }
            text = p;
        }
        size_t got = fread(text + len, 1, 4096, f);
        len += got;
        if (got < 4096) break;
    }
    fclose(f);
    text[len] = 0;
    rv_sm_scan_t s = { text, NULL };
    int nrec = 0;
    for (;;) {
        rv_sm_ws(&s);
        if (!*s.p) break;
        if (rv_sm_record(m, &s)) {
            unsigned line = 1;
            for (const char *q = text; q < s.p; q++) line += *q == '\n';
            snprintf(err, n, "%s:%u: %s", path, line, s.err ? s.err : "malformed record");
            free(text);
            return -1;
        }
        nrec++;
    }
    free(text);
    if (!nrec) {
        snprintf(err, n, "%s: no RIVET_STATS record in it", path);
        return len ? -1 : 0; /* empty: created, never written (a rank that left no record) */
    }
    return nrec;
}

/* ---- live files (core/stats.h): the counters of a rank that left no record ---- */

int rv_sm_live_record(const char *path, char *out, size_t n, char *err, size_t en)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(err, en, "%s: %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    size_t len = (size_t)st.st_size;
    unsigned char *b = malloc(len ? len : 1);
    size_t got = 0;
    while (b && got < len) {
        ssize_t r = read(fd, b + got, len - got);
        if (r <= 0) break;
        got += (size_t)r;
    }
    close(fd);
    rv_stats_live_t h;
    if (!b || got < sizeof h) {
        free(b);
        snprintf(err, en, "%s: %s", path, b ? "cut short" : "out of memory");
        return -1;
    }
    memcpy(&h, b, sizeof h);
    uint32_t nb = atomic_load_explicit(&h.nblocks, memory_order_relaxed);
    if (nb > h.nblocks_max) nb = h.nblocks_max;
    if (memcmp(h.magic, RV_STATS_LIVE_MAGIC, sizeof h.magic) || h.version != RV_STATS_LIVE_VERSION
        || h.ncounters == 0 || h.ncounters > 4096 || h.names_off >= got
        || h.stride < 8ull * h.ncounters || h.blocks_off + (uint64_t)nb * h.stride > got) {
        free(b);
        snprintf(err, en, "%s: not a RIVET_STATS live file of this version", path);
        return -1;
    }
    /* ticks -> ns as the rank would have: same host, same clock (rivetrun and its agents read
     * it where the rank ran); elapsed: from the rank's start to now (it died in between) */
    uint64_t el_ns = rv_stats_now() - h.t0_ns, el_t = rv_stats_ticks() - h.tick0;
    double ns_per_tick = el_t ? (double)el_ns / (double)el_t : 1.0;
    char host[sizeof h.host + 1];
    memcpy(host, h.host, sizeof h.host);
    host[sizeof h.host] = 0;
    size_t o = 0;
#define RV_SM_PUT(...)                                                                         \
    do {                                                                                       \
        int k_ = snprintf(out + o, o < n ? n - o : 0, __VA_ARGS__);                            \
        o += k_ > 0 ? (size_t)k_ : 0;                                                          \
    } while (0)
    RV_SM_PUT("{\"rivet_stats\":1,\"rank\":%u,\"size\":%u,\"pid\":%llu,\"host\":\"", h.rank, h.size,
              (unsigned long long)h.pid);
    for (const char *p = host; *p; p++)
        if (*p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) RV_SM_PUT("%c", *p);
    RV_SM_PUT("\",\"reason\":\"killed\",\"elapsed_ns\":%llu,\"counters\":{",
              (unsigned long long)el_ns);
    const char *name = (const char *)b + h.names_off;
    for (uint32_t i = 0; i < h.ncounters; i++) {
        size_t nl = strnlen(name, (size_t)((const char *)b + got - name));
        if (name + nl >= (const char *)b + got) break;
        uint64_t v = 0;
        for (uint32_t k = 0; k < nb; k++) {
            uint64_t x;
            memcpy(&x, b + h.blocks_off + (size_t)k * h.stride + 8u * i, sizeof x);
            v += x;
        }
        if (nl > 3 && !strcmp(name + nl - 3, "_ns")) v = (uint64_t)((double)v * ns_per_tick);
        RV_SM_PUT("%s\"%s\":%llu", i ? "," : "", name, (unsigned long long)v);
        name += nl + 1;
    }
    RV_SM_PUT("}}\n");
#undef RV_SM_PUT
    free(b);
    if (o >= n) {
        snprintf(err, en, "%s: the record does not fit", path);
        return -1;
    }
    return (int)o;
}

int rv_sm_live_settle(const char *live, const char *rec, int append, char *err, size_t en)
{
    if (access(live, F_OK)) return 0;
    static char buf[65536];
    int len = rv_sm_live_record(live, buf, sizeof buf, err, en);
    if (len < 0) return -1;
    int fd = open(rec, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
    if (fd < 0 || write(fd, buf, (size_t)len) != len) {
        snprintf(err, en, "%s: %s", rec, strerror(errno));
        if (fd >= 0) close(fd);
        return -1;
    }
    close(fd);
    unlink(live);
    return 1;
}

unsigned rv_sm_ranks(const rv_sm_t *m)
{
    unsigned c = 0;
    for (unsigned r = 0; r < m->capranks; r++) c += m->ranks[r].val != NULL;
    return c;
}

unsigned rv_sm_size(const rv_sm_t *m) { return m->size; }

static int rv_sm_is_max(const char *k)
{
    size_t l = strlen(k);
    return l >= 4 && !strcmp(k + l - 4, "_max");
}

static int rv_sm_get(const rv_sm_t *m, unsigned r, unsigned k, uint64_t *v)
{
    if (r >= m->capranks || !m->ranks[r].val) return 0;
    *v = k < m->ranks[r].nval ? m->ranks[r].val[k] : 0;
    return 1;
}

static uint64_t rv_sm_total(const rv_sm_t *m, unsigned k, uint64_t *lo, uint64_t *hi)
{
    uint64_t t = 0, v;
    int any = 0;
    *lo = *hi = 0;
    for (unsigned r = 0; r < m->capranks; r++) {
        if (!rv_sm_get(m, r, k, &v)) continue;
        if (!any || v < *lo) *lo = v;
        if (!any || v > *hi) *hi = v;
        any = 1;
        t = rv_sm_is_max(m->keys[k]) ? (v > t ? v : t) : t + v;
    }
    return t;
}

void rv_sm_table(const rv_sm_t *m, FILE *f)
{
    unsigned got = rv_sm_ranks(m), size = m->size;
    uint64_t el = 0;
    unsigned fatal = 0, sig = 0, crash = 0, killed = 0;
    for (unsigned r = 0; r < m->capranks; r++) {
        if (!m->ranks[r].val) continue;
        if (m->ranks[r].elapsed_ns > el) el = m->ranks[r].elapsed_ns;
        fatal += !strcmp(m->ranks[r].reason, "fatal");
        sig += !strcmp(m->ranks[r].reason, "signal");
        crash += !strcmp(m->ranks[r].reason, "crash");
        killed += !strcmp(m->ranks[r].reason, "killed");
    }
    fprintf(f, "rivet stats: %u of %u rank(s), longest %.3f s", got, size, (double)el / 1e9);
    if (fatal) fprintf(f, ", %u ended by a fatal error", fatal);
    if (sig) fprintf(f, ", %u ended by a signal (counts up to then)", sig);
    if (crash) fprintf(f, ", %u crashed (counts up to the crash)", crash);
    if (killed) fprintf(f, ", %u killed without a record (counts from its live file)", killed);
    fprintf(f, "\n");
    for (unsigned r = 0; r < m->capranks; r++) {
        const rv_sm_rank_t *x = &m->ranks[r];
        if (!x->val) continue;
        if (!strcmp(x->reason, "crash"))
            fprintf(f, "rivet stats: rank %u crashed (%s) on %s\n", r, x->sig[0] ? x->sig : "?",
                    x->host);
        else if (!strcmp(x->reason, "killed"))
            fprintf(f, "rivet stats: rank %u was killed on %s (SIGKILL or an uncaught signal); "
                       "its counters up to then, transport counters excluded\n", r, x->host);
    }
    if (got < size) {
        fprintf(f, "rivet stats: no record from rank(s)");
        for (unsigned r = 0; r < size; r++)
            if (r >= m->capranks || !m->ranks[r].val) fprintf(f, " %u", r);
        fprintf(f, "\n");
    }
    fprintf(f, "%-36s %16s %14s %14s\n", "counter", "job total", "rank min", "rank max");
    for (unsigned k = 0; k < m->nkeys; k++) {
        uint64_t lo, hi, t = rv_sm_total(m, k, &lo, &hi);
        if (!hi) continue;
        fprintf(f, "%-36s %16llu %14llu %14llu\n", m->keys[k], (unsigned long long)t,
                (unsigned long long)lo, (unsigned long long)hi);
    }
}

void rv_sm_json(const rv_sm_t *m, FILE *f)
{
    unsigned size = m->size;
    fprintf(f, "{\"rivet_stats_job\":1,\"size\":%u,\"ranks_found\":%u,\"counters\":{", size,
            rv_sm_ranks(m));
    for (unsigned k = 0; k < m->nkeys; k++) {
        uint64_t lo, hi, t = rv_sm_total(m, k, &lo, &hi);
        fprintf(f, "%s\"%s\":%llu", k ? "," : "", m->keys[k], (unsigned long long)t);
    }
    fprintf(f, "},\"per_rank\":{");
    for (unsigned k = 0; k < m->nkeys; k++) {
        fprintf(f, "%s\"%s\":[", k ? "," : "", m->keys[k]);
        for (unsigned r = 0; r < size; r++) {
            uint64_t v;
            if (rv_sm_get(m, r, k, &v)) fprintf(f, "%s%llu", r ? "," : "", (unsigned long long)v);
            else fprintf(f, "%snull", r ? "," : "");
        }
        fprintf(f, "]");
    }
    fprintf(f, "},\"ranks\":[");
    for (unsigned r = 0; r < size; r++) {
        const rv_sm_rank_t *x = r < m->capranks ? &m->ranks[r] : NULL;
        if (!x || !x->val) {
            fprintf(f, "%s{\"rank\":%u,\"reason\":null}", r ? "," : "", r);
            continue;
        }
        fprintf(f, "%s{\"rank\":%u,\"reason\":\"%s\",\"host\":\"%s\",\"pid\":%llu,"
                   "\"elapsed_ns\":%llu",
                r ? "," : "", r, x->reason, x->host, (unsigned long long)x->pid,
                (unsigned long long)x->elapsed_ns);
        if (x->sig[0]) fprintf(f, ",\"signal\":\"%s\"", x->sig);
        fprintf(f, "}");
    }
    fprintf(f, "]}\n");
}
