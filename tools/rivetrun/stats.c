/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/stats.c: RIVET_STATS for a job rivetrun starts: a job directory the ranks write
 * their records into (unless RIVET_STATS_FILE / GASNET_STATSFILE names the files), and after
 * the ranks end the merged summary: a table on stderr, JSON in RIVET_STATS_JSON. */
#include "rivetrun.h"
#include "core/config.h"
#include "core/trace.h"
#include "../common/statsmerge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

/* The file of rank r (each '%' is the rank; "" if it does not fit). */
static void rv_run_stats_path(unsigned r, char *out, size_t n)
{
    if (rv_obs_rank_subst(rv_run_stats_name, r, out, n)) out[0] = 0;
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

/* ---- multi-host: the agents' files (rivetrun.h) ---- */

static char rv_run_obs_dir[3900];   /* the agent's directory, or "" */
static int  rv_run_obs_stats, rv_run_obs_trace;

static const char *rv_run_obs_env(const char *name, const char *alias)
{
    const char *v = getenv(name);
    if (!v && alias) v = getenv(alias);
    return v && v[0] ? v : NULL;
}

void rv_run_obs_agent_prepare(void)
{
    const char *sf = rv_run_obs_env("RIVET_STATS_FILE", "GASNET_STATSFILE");
    const char *st = rv_run_obs_env("RIVET_STATS", NULL);
    const char *tr = rv_run_obs_env("RIVET_TRACE", "GASNET_TRACEFILE");
    if (sf && (!strcmp(sf, "stdout") || !strcmp(sf, "stderr") || !strcmp(sf, "-"))) {
        sf = NULL; /* no files */
        st = NULL;
    }
    if (!sf && !st && !tr) return;
    const char *tmp = getenv("TMPDIR");
    snprintf(rv_run_obs_dir, sizeof rv_run_obs_dir, "%.3800s/rivet-agent-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(rv_run_obs_dir)) {
        fprintf(stderr, "rivetrun: cannot make a directory %s for the ranks' stats and trace: "
                "%m; their files go where the launcher said\n", rv_run_obs_dir);
        rv_run_obs_dir[0] = 0;
        return;
    }
    /* the launcher's paths (its job directory, say) need not exist here: ours instead, the
     * launcher checked the settings already */
    char v[4096];
    if (tr) {
        snprintf(v, sizeof v, "%s/trace-%%.json", rv_run_obs_dir);
        setenv("RIVET_TRACE", v, 1);
        rv_run_obs_trace = 1;
    }
    snprintf(v, sizeof v, "%s/stats-%%.json", rv_run_obs_dir);
    if (sf) {
        setenv("RIVET_STATS_FILE", v, 1);
        rv_run_obs_stats = 1;
    } else if (st) {
        char err[768];
        rv_run_obs_stats = rv_config_try_load(err, sizeof err) == 0 && rv_cfg.STATS;
        if (rv_run_obs_stats) setenv("RIVET_STATS_FILE", v, 1);
    }
}

static void rv_run_obs_send(const char *path, unsigned kind,
                            void (*send)(void *, unsigned, int, const void *, size_t), void *ctx)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return; /* the rank wrote none */
    static char buf[RV_RUN_OBS_CHUNK];
    int first = 1;
    for (;;) {
        size_t got = 0;
        while (got < sizeof buf) {
            ssize_t n = read(fd, buf + got, sizeof buf - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) break;
            got += (size_t)n;
        }
        if (got || first) send(ctx, kind, first, buf, got);
        first = 0;
        if (got < sizeof buf) break;
    }
    close(fd);
    unlink(path);
}

void rv_run_obs_agent_collect(uint32_t jobrank,
                              void (*send)(void *ctx, unsigned kind, int first, const void *p,
                                           size_t n),
                              void *ctx)
{
    if (!rv_run_obs_dir[0]) return;
    char path[4200], live[4300], err[512];
    if (rv_run_obs_stats) {
        snprintf(path, sizeof path, "%s/stats-%u.json", rv_run_obs_dir, (unsigned)jobrank);
        snprintf(live, sizeof live, "%s.live", path);
        /* killed without a record: its record from its live file, here, where its clock is */
        if (rv_sm_live_settle(live, path, 0, err, sizeof err) < 0) {
            fprintf(stderr, "rivetrun: RIVET_STATS: %s\n", err);
            unlink(live);
        }
        rv_run_obs_send(path, RV_RUN_OBS_STATS, send, ctx);
    }
    if (rv_run_obs_trace) {
        snprintf(live, sizeof live, "%s/trace-%%.json", rv_run_obs_dir);
        if (rv_trace_rank_path(live, jobrank, path, sizeof path) == 0)
            rv_run_obs_send(path, RV_RUN_OBS_TRACE, send, ctx);
    }
}

void rv_run_obs_agent_fini(void)
{
    if (!rv_run_obs_dir[0]) return;
    /* files of ranks that never started, or that the agent could not send: gone with it */
    DIR *d = opendir(rv_run_obs_dir);
    struct dirent *e;
    char path[4200];
    while (d && (e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.') continue;
        snprintf(path, sizeof path, "%s/%s", rv_run_obs_dir, e->d_name);
        unlink(path);
    }
    if (d) closedir(d);
    rmdir(rv_run_obs_dir);
    rv_run_obs_dir[0] = 0;
}

void rv_run_obs_file(uint32_t r, unsigned kind, int first, const void *p, size_t n)
{
    char path[4200];
    int append;
    if (kind == RV_RUN_OBS_STATS) {
        if (!rv_run_stats_on) return;
        rv_run_stats_path(r, path, sizeof path);
        /* one shared file: emptied by the first record (with --hosts, every rank's comes from
         * an agent; its rank 0 emptied a file of its own), the others appended */
        static int shared_begun;
        append = strchr(rv_run_stats_name, '%') ? !first : shared_begun++ > 0;
    } else if (kind == RV_RUN_OBS_TRACE) {
        if (!rv_cfg.TRACE[0] || rv_trace_rank_path(rv_cfg.TRACE, r, path, sizeof path)) return;
        append = !first;
    } else {
        return;
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | (append ? O_APPEND : O_TRUNC), 0644);
    size_t off = 0;
    while (fd >= 0 && off < n) {
        ssize_t w = write(fd, (const char *)p + off, n - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
        off += (size_t)w;
    }
    if (fd < 0 || off < n)
        fprintf(stderr, "rivetrun: cannot write %s of rank %u from its host to %s: %s\n",
                kind == RV_RUN_OBS_STATS ? "the stats" : "the trace", (unsigned)r, path,
                strerror(errno));
    if (fd >= 0) close(fd);
}
