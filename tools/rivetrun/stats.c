/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/stats.c: RIVET_STATS for a job rivetrun starts: a job directory the ranks write
 * their records into (unless RIVET_STATS_FILE / GASNET_STATSFILE names the files), and after
 * the ranks end the merged summary: a table on stderr, JSON in RIVET_STATS_JSON. */
#include "rivetrun.h"
#include "core/config.h"
#include "../common/statsmerge.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int  rv_run_stats_on;
static char rv_run_stats_dir[3900]; /* the job directory we made, or "" */
static char rv_run_stats_name[4096];

void rv_run_stats_prepare(void)
{
    const char *f = rv_cfg.STATS_FILE;
    if (!rv_cfg.STATS && !f[0]) return;
    if (!strcmp(f, "stdout") || !strcmp(f, "stderr") || !strcmp(f, "-")) return; /* no files */
    rv_run_stats_on = 1;
    if (f[0]) {
        snprintf(rv_run_stats_name, sizeof rv_run_stats_name, "%s", f);
        return;
    }
    const char *tmp = getenv("TMPDIR");
    snprintf(rv_run_stats_dir, sizeof rv_run_stats_dir, "%.3800s/rivet-stats-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(rv_run_stats_dir)) {
        fprintf(stderr, "rivetrun: RIVET_STATS: cannot make a job directory %s: %m; no stats\n",
                rv_run_stats_dir);
        rv_run_stats_on = 0;
        rv_run_stats_dir[0] = 0;
        return;
    }
    snprintf(rv_run_stats_name, sizeof rv_run_stats_name, "%s/rank-%%.json", rv_run_stats_dir);
    setenv("RIVET_STATS_FILE", rv_run_stats_name, 1);
}

/* The file of rank r (GASNet's convention: each '%' is the rank). */
static void rv_run_stats_path(unsigned r, char *out, size_t n)
{
    size_t o = 0;
    for (const char *p = rv_run_stats_name; *p && o + 12 < n; p++) {
        if (*p == '%') o += (size_t)snprintf(out + o, n - o, "%u", r);
        else out[o++] = *p;
    }
    out[o] = 0;
}

void rv_run_stats_finish(uint32_t np)
{
    if (!rv_run_stats_on) return;
    rv_sm_t *m = rv_sm_new();
    if (!m) return;
    char path[4200], err[512];
    int per_rank = strchr(rv_run_stats_name, '%') != NULL;
    /* ranks killed without writing their record (SIGKILL) left a live file: their record from
     * it, into the rank's file like the record they would have written */
    for (unsigned r = 0; r < np; r++) {
        char live[4300];
        rv_run_stats_path(r, path, sizeof path);
        if (per_rank) snprintf(live, sizeof live, "%s.live", path);
        else snprintf(live, sizeof live, "%s.%u.live", path, r);
        if (rv_sm_live_settle(live, path, !per_rank, err, sizeof err) < 0) {
            fprintf(stderr, "rivetrun: RIVET_STATS: %s\n", err);
            unlink(live);
        }
    }
    for (unsigned r = 0; r < (per_rank ? np : 1); r++) {
        rv_run_stats_path(r, path, sizeof path);
        if (access(path, F_OK)) continue; /* that rank wrote none: the table names it */
        if (rv_sm_add_file(m, path, err, sizeof err) < 0)
            fprintf(stderr, "rivetrun: RIVET_STATS: %s\n", err);
        if (rv_run_stats_dir[0]) unlink(path);
    }
    if (rv_run_stats_dir[0]) rmdir(rv_run_stats_dir);
    if (!rv_sm_ranks(m)) {
        fprintf(stderr, "rivetrun: RIVET_STATS: no rank wrote its stats\n");
        rv_sm_free(m);
        return;
    }
    rv_sm_table(m, stderr);
    const char *out = rv_cfg.STATS_JSON;
    if (out[0]) {
        FILE *f = fopen(out, "w");
        if (!f) {
            fprintf(stderr, "rivetrun: RIVET_STATS: cannot write %s: %m\n", out);
        } else {
            rv_sm_json(m, f);
            if (fclose(f)) fprintf(stderr, "rivetrun: RIVET_STATS: writing %s failed: %m\n", out);
            else fprintf(stderr, "rivet stats: job summary in %s\n", out);
        }
    }
    rv_sm_free(m);
}
