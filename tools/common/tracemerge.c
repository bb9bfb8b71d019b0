/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/tracemerge.c: merges the ranks' RIVET_TRACE files into one job trace (one
 * timeline: pid = rank, times from the job's first event); rivetrun runs it after a job,
 * rivet-info --merge-trace on demand. Reads the shape core/trace.c writes: one event a line. */
#include "tracemerge.h"
#include "core/trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The "ts" of an event line in ns; *at: where ',"ts":' starts, *end: just past the number. */
static int rv_tm_ts(const char *line, uint64_t *ns, const char **at, const char **end)
{
    const char *p = strstr(line, ",\"ts\":");
    if (!p) return -1;
    const char *q = p + 6;
    uint64_t us = 0, frac = 0;
    int nd = 0;
    if (*q < '0' || *q > '9') return -1;
    while (*q >= '0' && *q <= '9') us = us * 10 + (uint64_t)(*q++ - '0');
    if (*q == '.') {
        q++;
        while (*q >= '0' && *q <= '9') {
            if (nd < 3) frac = frac * 10 + (uint64_t)(*q - '0'), nd++;
            q++;
        }
    }
    while (nd < 3) frac *= 10, nd++;
    *ns = us * 1000 + frac;
    *at = p;
    *end = q;
    return 0;
}

static uint64_t rv_tm_field(const char *line, const char *key)
{
    const char *p = strstr(line, key);
    return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int rv_trace_merge(const char *spec, unsigned np, int remove_parts, const char *who)
{
    char path[4200], out[4200], tmp[4300];
    if (rv_trace_job_path(spec, out, sizeof out)) return -1;
    snprintf(tmp, sizeof tmp, "%s.tmp", out);
    uint64_t base = UINT64_MAX, dropped = 0;
    unsigned have = 0, truncated = 0;
    char *line = NULL;
    size_t cap = 0;
    unsigned char *ok = calloc(np ? np : 1, 1);
    if (!ok) return -1;
    /* pass 1: which ranks left a file, and the job's first time */
    for (unsigned r = 0; r < np; r++) {
        if (rv_trace_rank_path(spec, r, path, sizeof path)) continue;
        FILE *f = fopen(path, "r");
        if (!f) continue;
        int complete = 0;
        while (getline(&line, &cap, f) > 0) {
            uint64_t ns;
            const char *a, *e;
            if (!strncmp(line, "{\"name\":", 8) && !rv_tm_ts(line, &ns, &a, &e) && ns < base)
                base = ns;
            else if (!strncmp(line, "\"otherData\":", 12)) {
                complete = 1;
                dropped += rv_tm_field(line, "\"dropped\":");
            }
        }
        fclose(f);
        ok[r] = 1;
        have++;
        if (!complete) truncated++;
    }
    if (!have) {
        fprintf(stderr, "%s: RIVET_TRACE=%s: no rank left a trace file (the first would be ", who,
                spec);
        if (!rv_trace_rank_path(spec, 0, path, sizeof path)) fprintf(stderr, "%s", path);
        fprintf(stderr, ")\n");
        free(ok);
        free(line);
        return -1;
    }
    if (base == UINT64_MAX) base = 0;
    FILE *o = fopen(tmp, "w");
    if (!o) {
        fprintf(stderr, "%s: cannot create %s: %s\n", who, tmp, strerror(errno));
        free(ok);
        free(line);
        return -1;
    }
    fputs("{\"traceEvents\":[\n", o);
    int first = 1;
    uint64_t events = 0;
    /* pass 2: every event line, its time from the job's first event */
    for (unsigned r = 0; r < np; r++) {
        if (!ok[r] || rv_trace_rank_path(spec, r, path, sizeof path)) continue;
        FILE *f = fopen(path, "r");
        if (!f) continue;
        ssize_t len;
        while ((len = getline(&line, &cap, f)) > 0) {
            if (strncmp(line, "{\"name\":", 8)) continue;
            while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == ',')) line[--len] = 0;
            if (len == 0 || line[len - 1] != '}') continue; /* cut short by a crash */
            if (!first) fputs(",\n", o);
            first = 0;
            uint64_t ns;
            const char *a, *e;
            if (!rv_tm_ts(line, &ns, &a, &e)) {
                uint64_t rel = ns - base;
                fprintf(o, "%.*s,\"ts\":%" PRIu64 ".%03u%s", (int)(a - line), line, rel / 1000,
                        (unsigned)(rel % 1000), e);
                events++;
            } else {
                fputs(line, o);
            }
        }
        fclose(f);
    }
    fprintf(o, "\n],\n\"displayTimeUnit\":\"ns\",\n\"otherData\":{\"rivet_ranks\":%u,"
               "\"rank_files\":%u,\"events\":%" PRIu64 ",\"dropped\":%" PRIu64 ",\"clock\":"
               "\"CLOCK_REALTIME\",\"t0_unix_ns\":%" PRIu64 ",\"missing\":[",
            np, have, events, dropped, base);
    const char *sep = "";
    for (unsigned r = 0; r < np; r++)
        if (!ok[r]) {
            fprintf(o, "%s%u", sep, r);
            sep = ",";
        }
    fputs("]}}\n", o);
    int bad = fclose(o) != 0;
    if (bad || rename(tmp, out)) {
        fprintf(stderr, "%s: writing %s failed: %s\n", who, out, strerror(errno));
        unlink(tmp);
        free(ok);
        free(line);
        return -1;
    }
    if (remove_parts)
        for (unsigned r = 0; r < np; r++)
            if (ok[r] && !rv_trace_rank_path(spec, r, path, sizeof path)) unlink(path);
    fprintf(stderr, "%s: trace of %u rank(s), %" PRIu64 " events, written to %s", who, have,
            events, out);
    if (have < np) {
        fprintf(stderr, "; no file from rank(s)");
        for (unsigned r = 0, k = 0; r < np && k < 16; r++)
            if (!ok[r]) fprintf(stderr, " %u", r), k++;
        if (np - have > 16) fprintf(stderr, " ...");
        fprintf(stderr, " (another host's files stay there)");
    }
    if (truncated) fprintf(stderr, "; %u file(s) cut short (a rank ended abruptly)", truncated);
    if (dropped) fprintf(stderr, "; %" PRIu64 " event(s) dropped at RIVET_TRACE_MAX", dropped);
    fputc('\n', stderr);
    free(ok);
    free(line);
    return 0;
}
