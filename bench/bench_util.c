/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_util.c: timing, statistics, options and JSON output for the benchmark drivers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

double bu_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static size_t parse_size(const char *s)
{
    char *end = NULL;
    double v = strtod(s, &end);
    if (end && (*end == 'k' || *end == 'K')) v *= 1024;
    else if (end && (*end == 'm' || *end == 'M')) v *= 1024 * 1024;
    else if (end && (*end == 'g' || *end == 'G')) v *= 1024.0 * 1024 * 1024;
    return (size_t)v;
}

int bu_parse_args(bu_opts_t *o, int argc, char **argv, const char *default_system,
                  const char *usage_extra)
{
    memset(o, 0, sizeof *o);
    o->trials = 5;
    o->scale = 1.0;
    o->min_size = 8;
    o->max_size = (size_t)4 << 20;
    o->config = NULL;
    const char *env = getenv("RIVET_BENCH_SYSTEM");
    o->system = (env && *env) ? env : default_system;
    int trials_set = 0, max_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
        if (!strcmp(a, "--json")) o->json = 1;
        else if (!strcmp(a, "--smoke")) o->smoke = 1;
        else if (!strcmp(a, "--trials") && v) { o->trials = atoi(v); trials_set = 1; i++; }
        else if (!strcmp(a, "--scale") && v) { o->scale = atof(v); i++; }
        else if (!strcmp(a, "--min-size") && v) { o->min_size = parse_size(v); i++; }
        else if (!strcmp(a, "--max-size") && v) { o->max_size = parse_size(v); max_set = 1; i++; }
        else if (!strcmp(a, "--system") && v) { o->system = v; i++; }
        else if (!strcmp(a, "--config") && v) { o->config = v; i++; }
        else if (!strcmp(a, "--only") && v) { o->only = v; i++; }
        else {
            fprintf(stderr,
                    "usage: %s [--json] [--smoke] [--trials N] [--scale F] [--min-size B]\n"
                    "          [--max-size B] [--system NAME] [--config NAME] [--only LIST]%s\n"
                    "  sizes take K/M suffixes; LIST is benchmark[:variant],...\n",
                    argv[0], usage_extra ? usage_extra : "");
            return -1;
        }
    }
    if (o->smoke) {
        if (!trials_set) o->trials = 2;
        if (!max_set) o->max_size = 64 << 10;
        o->scale *= 0.01;
    }
    if (o->trials < 1) o->trials = 1;
    if (o->trials > BU_MAX_TRIALS) o->trials = BU_MAX_TRIALS;
    if (o->min_size < 1) o->min_size = 1;
    return 0;
}

/* Matches 'want' (benchmark or benchmark:variant) against one entry of --only. */
static int match_entry(const char *e, size_t len, const char *name, const char *variant)
{
    size_t nl = strlen(name);
    if (len < nl || strncmp(e, name, nl)) return 0;
    if (len == nl) return 1;
    if (e[nl] != ':' || !variant) return 0;
    return len - nl - 1 == strlen(variant) && !strncmp(e + nl + 1, variant, len - nl - 1);
}

int bu_selected(const bu_opts_t *o, const char *name, const char *variant)
{
    if (!o->only || !*o->only) return 1;
    const char *p = o->only;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (match_entry(p, len, name, variant)) return 1;
        /* a bare "name" entry with a variant request, or "name:var" with variant NULL */
        if (!variant && len > strlen(name) && !strncmp(p, name, strlen(name)) &&
            p[strlen(name)] == ':')
            return 1;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

long bu_iters(const bu_opts_t *o, long base, size_t size, double bytes_budget, long floor)
{
    double n = (double)base;
    if (size > 0 && bytes_budget / (double)size < n) n = bytes_budget / (double)size;
    n *= o->scale;
    if (n < (double)floor) n = (double)floor;
    return (long)n;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bu_report(const bu_opts_t *o, const char *benchmark, const char *variant, size_t size,
               const char *metric, const char *unit, const double *vals, int n,
               const char *extra)
{
    double s[BU_MAX_TRIALS];
    if (n > BU_MAX_TRIALS) n = BU_MAX_TRIALS;
    if (n < 1) return;
    memcpy(s, vals, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, cmp_double);
    double med = (n & 1) ? s[n / 2] : 0.5 * (s[n / 2 - 1] + s[n / 2]);
    int lower_better = !strcmp(unit, "us");
    double best = lower_better ? s[0] : s[n - 1];
    if (o->json) {
        printf("{\"benchmark\":\"%s\",\"system\":\"%s\",\"ranks\":%d,\"size\":%zu,"
               "\"metric\":\"%s\",\"value\":%.6g,\"unit\":\"%s\",\"trials\":%d",
               benchmark, o->system, o->ranks, size, metric, med, unit, n);
        if (variant) printf(",\"variant\":\"%s\"", variant);
        if (o->config) printf(",\"config\":\"%s\"", o->config);
        printf(",\"median\":%.6g,\"min\":%.6g,\"max\":%.6g,\"best\":%.6g", med, s[0], s[n - 1],
               best);
        if (extra && *extra) printf(",%s", extra);
        printf(",\"samples\":[");
        for (int i = 0; i < n; i++) printf("%s%.6g", i ? "," : "", vals[i]);
        printf("]}\n");
    } else {
        printf("%-18s %-26s %9zu %-10s median %12.4f  best %12.4f %-6s %s\n", benchmark,
               variant ? variant : "-", size, metric, med, best, unit, extra ? extra : "");
    }
    fflush(stdout);
}

void bu_report_iters(const bu_opts_t *o, int me, const char *benchmark, const char *variant,
                     size_t size, const char *metric, const char *unit, const double *vals,
                     long iters)
{
    if (me != 0) return;
    char extra[64];
    snprintf(extra, sizeof extra, "\"iters\":%ld", iters);
    bu_report(o, benchmark, variant, size, metric, unit, vals, o->trials, extra);
}

void bu_pair_trials(const bu_opts_t *o, const bu_pair_t *p, size_t size, long iters, int lat,
                    double per_op, double *vals)
{
    if (p->me == 0) p->run(p->ctx, size, iters / 4 + 1); /* warm-up */
    for (int t = 0; t < o->trials; t++) {
        p->sync(p->ctx);
        if (p->me == 0) {
            double s = p->run(p->ctx, size, iters);
            vals[t] = lat ? 1e6 * s / (double)iters : per_op * (double)iters / s / 1e6;
        }
        p->sync(p->ctx);
    }
}

void bu_pair_sweep(const bu_opts_t *o, const bu_pair_t *p, const char *bench,
                   const char *variant, int lat)
{
    if (!bu_selected(o, bench, variant)) return;
    double vals[BU_MAX_TRIALS];
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long iters = bu_iters(o, 20000, size, (lat ? 32.0 : 64.0) * 1024 * 1024, 4);
        bu_pair_trials(o, p, size, iters, lat, (double)size, vals);
        bu_report_iters(o, p->me, bench, variant, size, lat ? "latency" : "bandwidth",
                        lat ? "us" : "MB/s", vals, iters);
    }
}

void bu_rma_sweeps(const bu_opts_t *o, bu_pair_t *p)
{
    static const char *const sweep[4][2] = {
        {"put_latency", "blocking"}, {"get_latency", "blocking"}, {"put_bw", "nbi"}, {"get_bw", "nbi"}};
    int *kind = p->ctx;
    for (*kind = 0; *kind < 4; (*kind)++)
        bu_pair_sweep(o, p, sweep[*kind][0], sweep[*kind][1], *kind < 2);
}

void bu_barrier_bench(const bu_opts_t *o, int me, bu_sync_fn sync, bu_sync_fn timed, void *ctx,
                      double (*combine)(void *ctx, double us))
{
    if (!bu_selected(o, "barrier", NULL)) return;
    double vals[BU_MAX_TRIALS];
    long iters = bu_iters(o, 20000, 0, 0, 10);
    for (long i = 0; i < iters / 4 + 1; i++) sync(ctx); /* warm-up */
    for (int t = 0; t < o->trials; t++) {
        sync(ctx);
        double t0 = bu_now();
        for (long i = 0; i < iters; i++) timed(ctx);
        double us = 1e6 * (bu_now() - t0) / (double)iters;
        vals[t] = combine ? combine(ctx, us) : us;
    }
    bu_report_iters(o, me, "barrier", NULL, 0, "latency", "us", vals, iters);
}

void *bu_alloc(size_t bytes)
{
    void *p = NULL;
    size_t len = (bytes + 4095) & ~(size_t)4095;
    if (len == 0) len = 4096;
    if (posix_memalign(&p, 4096, len) || !p) {
        fprintf(stderr, "bench: out of memory (%zu bytes)\n", bytes);
        exit(2);
    }
    memset(p, 0x5a, len);
    return p;
}
