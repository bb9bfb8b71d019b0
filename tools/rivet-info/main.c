/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivet-info/main.c: rivet-info's command line; starts a client (singleton, or a job under
 * rivetrun) and prints the sections asked for from rank 0. */
#include "info.h"
#include "core/core.h"
#include "core/trace.h"
#include "../common/statsmerge.h"
#include "../common/tracemerge.h"

#include <gasnet_coll.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { S_VERSION = 1, S_JOB = 2, S_TRANSPORTS = 4, S_LIMITS = 8, S_ENV = 16, S_ATOMICS = 32 };

static void rv_info_usage(FILE *f)
{
    fputs(
"usage: rivet-info [options]\n"
"       rivetrun [rivetrun options] -n N rivet-info [options]\n"
"\n"
"Prints what Rivet would do for this job: version and transports built, the job's\n"
"layout, the transport chosen and why, limits, the configuration in effect, and the\n"
"implementation of atomic domains. Run alone it describes a one-process job; under\n"
"rivetrun (with --hosts, RIVET_PSHM=0, RIVET_TRANSPORT=...) the job it is part of.\n"
"Rank 0 prints. Without section options every section is printed.\n"
"\n"
"Sections:\n"
"  --version              version and the transports built into the library\n"
"  --job                  ranks, hosts, neighbourhoods\n"
"  --transports           each transport: priority, accepts/declines this job; the\n"
"                         one selected and why\n"
"  --limits               AM argument and payload limits (LUB, to self, to a\n"
"                         neighbourhood peer, to another neighbourhood), segment sizes\n"
"  --env                  every RIVET_* setting in effect and where it came from\n"
"  --atomics T:OPS[:FLAGS]  the implementation gex_AD_Create picks for type T and the\n"
"                         op set OPS (e.g. U64:FADD,CAS  DBL:ALL  I32:SET,GET:FAVOR_REMOTE);\n"
"                         may be repeated\n"
"Other:\n"
"  --shape N[/H]          also: the transport a job of N ranks on H hosts (default 1)\n"
"                         would get here, with this environment; needs no such job;\n"
"                         may be repeated\n"
"  --merge-trace PATH [N] merge the per-rank files of RIVET_TRACE=PATH (ranks 0..N-1;\n"
"                         default: as many as exist from rank 0) into one job trace,\n"
"                         as rivetrun does after a job (for jobs started by srun,\n"
"                         mpirun, ...); the rank files stay; starts no client\n"
"  --help                 this text\n"
"\n"
"       rivet-info --stats [--json OUT] FILE...\n"
"Merges RIVET_STATS records (RIVET_STATS_FILE / GASNET_STATSFILE, e.g. of a job that\n"
"srun or mpirun started) into one job summary: a table on stdout and, with --json,\n"
"the JSON rivetrun writes (OUT '-': stdout instead of the table). Starts no client.\n", f);
}

/* --stats: merge the files named, print the summary. */
static int rv_info_stats(int argc, char **argv)
{
    const char *json = NULL;
    int nfiles = 0, bad = 0;
    rv_sm_t *m = rv_sm_new();
    if (!m) return 1;
    for (int i = 2; i < argc; i++) {
        if (!strcmp(argv[i], "--json")) {
            if (++i == argc) {
                fprintf(stderr, "rivet-info: --json needs a file name (or -)\n");
                rv_sm_free(m);
                return 2;
            }
            json = argv[i];
            continue;
        }
        char err[512];
        if (rv_sm_add_file(m, argv[i], err, sizeof err) < 0) {
            fprintf(stderr, "rivet-info: --stats: %s\n", err);
            bad = 1;
        }
        nfiles++;
    }
    if (!nfiles) {
        fprintf(stderr, "rivet-info: --stats needs at least one stats file\n");
        rv_sm_free(m);
        return 2;
    }
    if (!rv_sm_ranks(m)) {
        rv_sm_free(m);
        return 1;
    }
    if (!json || strcmp(json, "-")) rv_sm_table(m, stdout);
    if (json) {
        FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
        if (!f) {
            fprintf(stderr, "rivet-info: --json %s: %s\n", json, strerror(errno));
            bad = 1;
        } else {
            rv_sm_json(m, f);
            if (f != stdout && fclose(f)) bad = 1;
        }
    }
    rv_sm_free(m);
    return bad || fflush(stdout) ? 1 : 0;
}

static int rv_info_parse_shape(const char *s, uint32_t *n, uint32_t *h)
{
    char *end;
    errno = 0;
    unsigned long a = strtoul(s, &end, 10), b = 1;
    if (*end == '/') b = strtoul(end + 1, &end, 10);
    if (errno || *end || s[0] == '-' || a == 0 || a > 65536 || b == 0 || b > a) {
        fprintf(stderr, "rivet-info: --shape %s: expected N or N/H (1 <= H <= N <= 65536)\n", s);
        return -1;
    }
    *n = (uint32_t)a;
    *h = (uint32_t)b;
    return 0;
}

static int rv_info_merge_trace(int argc, char **argv)
{
    if (argc < 3 || argc > 4 || !argv[2][0]) {
        fprintf(stderr, "rivet-info: usage: rivet-info --merge-trace PATH [NRANKS]\n");
        return 2;
    }
    const char *spec = argv[2];
    unsigned long np = 0;
    if (argc == 4) {
        char *end;
        errno = 0;
        np = strtoul(argv[3], &end, 10);
        if (errno || *end || np < 1 || np > 1u << 24) {
            fprintf(stderr, "rivet-info: --merge-trace: NRANKS '%s' is not a number of ranks\n",
                    argv[3]);
            return 2;
        }
    } else {
        char path[4200];
        while (np < 1u << 24 && !rv_trace_rank_path(spec, (unsigned)np, path, sizeof path) &&
               access(path, R_OK) == 0)
            np++;
        if (!np) {
            rv_trace_rank_path(spec, 0, path, sizeof path);
            fprintf(stderr, "rivet-info: --merge-trace %s: no rank file (the first would be %s)\n",
                    spec, path);
            return 1;
        }
    }
    return rv_trace_merge(spec, (unsigned)np, 0, "rivet-info") ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "--stats")) return rv_info_stats(argc, argv);
    unsigned sections = 0;
    rv_info_amo_t amo[16];
    int namo = 0;
    uint32_t shape_n[8], shape_h[8];
    int nshape = 0;
    if (argc > 1 && !strcmp(argv[1], "--merge-trace")) return rv_info_merge_trace(argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            rv_info_usage(stdout);
            return 0;
        } else if (!strcmp(a, "--version")) sections |= S_VERSION;
        else if (!strcmp(a, "--job")) sections |= S_JOB;
        else if (!strcmp(a, "--transports")) sections |= S_TRANSPORTS;
        else if (!strcmp(a, "--limits")) sections |= S_LIMITS;
        else if (!strcmp(a, "--env")) sections |= S_ENV;
        else if (!strcmp(a, "--atomics") || !strcmp(a, "--shape")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "rivet-info: %s needs a value\n", a);
                return 2;
            }
            const char *v = argv[++i];
            if (a[2] == 's') {
                if (nshape == 8) {
                    fprintf(stderr, "rivet-info: at most 8 --shape\n");
                    return 2;
                }
                if (rv_info_parse_shape(v, &shape_n[nshape], &shape_h[nshape])) return 2;
                nshape++;
                continue;
            }
            if (namo == (int)(sizeof amo / sizeof amo[0])) {
                fprintf(stderr, "rivet-info: at most %d --atomics\n", namo);
                return 2;
            }
            if (rv_info_amo_parse(v, &amo[namo])) return 2;
            namo++;
            sections |= S_ATOMICS;
        } else {
            fprintf(stderr, "rivet-info: unknown option '%s'\n", a);
            rv_info_usage(stderr);
            return 2;
        }
    }
    if (!sections && !nshape) sections = ~0u;
    if (!namo) {   /* examples: a counter, a lock word, a floating-point accumulator */
        static const char *const dflt[] = {"U64:FADD", "U64:SET,GET,CAS,FADD", "DBL:ADD"};
        for (int k = 0; k < 3; k++) rv_info_amo_parse(dflt[k], &amo[namo++]);
    }

    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    if (gex_Client_Init(&client, &ep, &tm, "rivet-info", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "rivet-info: gex_Client_Init failed\n");
        return 1;
    }
    /* A small segment: limits to peers reached by RDMA depend on it. */
    gex_Segment_t seg;
    if (gex_Segment_Attach(&seg, tm, 1 << 20) != GASNET_OK) {
        fprintf(stderr, "rivet-info: gex_Segment_Attach of 1 MiB failed\n");
        return 1;
    }
    if (gex_TM_QueryRank(tm) == 0) {
        FILE *f = stdout;
        if (sections & S_VERSION) rv_info_version(f);
        if (sections & S_JOB) rv_info_job(f);
        if (sections & S_TRANSPORTS) {
            fprintf(f, "transports for this job:\n");
            rv_info_transports(f, &rv_job, "  ");
            fprintf(f, "  in use: %s\n", rv_tp.desc->name);
        }
        for (int k = 0; k < nshape; k++) {
            rv_job_t fake;
            if (rv_info_fake_job(&fake, shape_n[k], shape_h[k])) {
                fprintf(stderr, "rivet-info: out of memory for --shape\n");
                return 1;
            }
            fprintf(f, "transports for a job of %u rank(s) on %u host(s), %u neighbourhood(s):\n",
                    shape_n[k], shape_h[k], fake.nbrhd_count);
            rv_info_transports(f, &fake, "  ");
            free(fake.host_of);
            free(fake.nbrhd_of);
            free(fake.host_ranks);
            free(fake.nbrhd_ranks);
        }
        if (sections & S_LIMITS) rv_info_limits(f, tm);
        if (sections & S_ATOMICS) rv_info_atomics(f, tm, amo, namo);
        if (sections & S_ENV) rv_info_config(f);
        fflush(f);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    return 0;
}
