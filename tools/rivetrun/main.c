/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/main.c: rivetrun's command line, help texts and the job's life from start to exit. */
#include "rivetrun.h"
#include "boot/launcher/proto.h"
#include "boot/singleton/singleton.h"
#include "core/config.h"
#include "../common/tracemerge.h"

#include <gasnetex.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

int64_t rv_run_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rv_run_log(rv_run_job_t *job, const char *fmt, ...)
{
    if (!job->opt.verbose) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rivetrun%s: %s\n", job->where, msg);   /* an agent says where it runs */
}

static void rv_run_usage(FILE *f)
{
    fputs("usage: rivetrun [options] -n N program [args...]\n"
          "Try 'rivetrun --help' for more information.\n", f);
}

static void rv_run_help(void)
{
    printf(
"usage: rivetrun [options] -n N program [args...]\n"
"       rivetrun [options] [-n N] --hosts H1[:S1],H2[:S2],... program [args...]\n"
"\n"
"Starts N processes (ranks) of a Rivet (GASNet-EX) program on this host, or on the\n"
"hosts given, serves their bootstrap (allgather, barrier), and returns the job's\n"
"exit status.\n"
"\n"
"Options (they come before the program; everything after it is its arguments):\n"
"  -n N, -np N, --np N   number of ranks to start (required, 1 or more)\n"
"  --timeout SECONDS     kill the whole job when it runs longer than SECONDS\n"
"                        (may be fractional); rivetrun then exits 124\n"
"  --transport T         sets RIVET_TRANSPORT=T for every rank\n"
"  -v, --verbose         report spawns, exits and cleanup on stderr; twice:\n"
"                        also every bootstrap collective\n"
"  --help                this text\n"
"  --help-env            the environment variables Rivet reads, with defaults\n"
"  --help-env --markdown the same as a Markdown table\n"
"  --version             print the version\n"
"  --hosts H1,H2,...     run on these hosts, reached with the remote shell\n"
"                        $RIVET_SSH (default 'ssh -x'); H:S gives host H S slots\n"
"  --hostfile F          the hosts, one per line: 'host', 'host:S' or 'host slots=S'\n"
"                        ('#' starts a comment). Ranks go in blocks of consecutive\n"
"                        ranks: each host up to its slots (default 1) in order,\n"
"                        round after round; without -n, N is the sum of the slots\n"
"  --launcher L          how ranks are started: local (this host), ssh (--hosts),\n"
"                        slurm (srun, $RIVET_SRUN, inside an allocation; the ranks\n"
"                        use the PMIx bootstrap, or PMI2 with RIVET_SRUN=\"srun\n"
"                        --mpi=pmi2\"), auto (default: ssh with --hosts,\n"
"                        slurm when SLURM_JOB_ID is set, else local)\n"
"  -x NAME[=VALUE]       also give NAME to the ranks on the other hosts (RIVET_*,\n"
"                        GASNET_* and FI_* variables always go)\n"
"  --                    ends the options\n"
"\n"
"Environment given to every rank (the rest of rivetrun's environment is inherited):\n"
"  " RV_BOOT_ENV_FD "      number of an inherited socket to rivetrun (only this\n"
"                     rank's; the library marks it close-on-exec and unsets this)\n"
"  " RV_BOOT_ENV_RANK "    this rank, 0..N-1\n"
"  " RV_BOOT_ENV_SIZE "    N\n"
"  " RV_BOOT_ENV_SECRET "  the job secret: 32 random lowercase hex digits; the job's\n"
"                     shared-memory objects are /dev/shm/rivet-<secret>-*\n"
"  " RV_BOOT_ENV_NORANDOM " 1: started without address-space randomisation, so\n"
"                     every rank of a host has the same code addresses\n"
"                     (RIVET_UNIFORM_ADDRESSES=0: randomisation stays on)\n"
"\n"
"Ranks inherit rivetrun's stdin, stdout and stderr: their output is not buffered or\n"
"reordered by rivetrun. With --hosts, the output comes back through the remote\n"
"shell, stdin is /dev/null, and rivetrun listens on a TCP port (RIVET_LAUNCH_PORTS)\n"
"for the rivetrun agent each host starts; an agent must prove it knows the job\n"
"secret before anything else is accepted.\n"
"\n"
"The job ends when every rank has exited. If a rank exits non-zero or is killed by\n"
"a signal, the other ranks get SIGTERM and, %d ms later, SIGKILL. If a rank calls\n"
"gasnet_exit(code), the others first get %d ms to exit by themselves. At the end of\n"
"every job rivetrun removes any /dev/shm/rivet-<secret>-* objects that remain.\n"
"\n"
"Exit status:\n"
"  0        every rank exited 0\n"
"  code     a rank called gasnet_exit(code): the job ends with that code\n"
"  S        a rank exited with status S (the first failure is reported)\n"
"  128+sig  a rank was killed by signal sig, or rivetrun itself got SIGINT,\n"
"           SIGTERM, SIGHUP or SIGQUIT\n"
"  124      --timeout expired\n"
"  127      the program could not be started (not found, not executable)\n"
"  1        a rank stopped on a fatal error (its \"rivet: fatal:\" message says\n"
"           why), a bootstrap error (e.g. ranks passed different allgather\n"
"           lengths), or a host could not be reached or was lost\n"
"  2        bad command line\n"
"\n"
"Examples:\n"
"  rivetrun -n 4 ./hello\n"
"  rivetrun --timeout 60 -np 2 ./bench --iters 1000\n"
"  rivetrun -v -n 2 env            # shows what a rank is given\n"
"  rivetrun --hosts node1:4,node2:4 ./app   # 8 ranks: 0-3 on node1, 4-7 on node2\n"
"  salloc -N 2 -n 8; rivetrun -n 8 ./app    # srun -n 8 --mpi=pmix in the allocation\n"
"  rivetrun --help-env --markdown > env.md\n",
        RV_RUN_GRACE_MS, RV_RUN_EXIT_WINDOW_MS);
}

static int rv_run_parse_np(const char *s, uint32_t *out)
{
    char *end;
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (!*s || *end || errno || s[0] == '-' || v == 0 || v > 65536) {
        fprintf(stderr, "rivetrun: invalid number of ranks '%s' (expected 1..65536)\n", s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static int rv_run_parse_timeout(const char *s, rv_run_opts_t *o)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || v > 1e9) {
        fprintf(stderr, "rivetrun: invalid --timeout '%s' (expected a positive number of "
                "seconds)\n", s);
        return -1;
    }
    o->timeout = v;
    o->timeout_str = s;
    return 0;
}

/* Returns -1 to continue, or an exit status (help, version, errors). */
static int rv_run_parse(int argc, char **argv, rv_run_opts_t *o)
{
    int help_env = 0, markdown = 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        const char *val = NULL;
        if (strcmp(a, "--") == 0) { i++; break; }
        if (a[0] != '-' || a[1] == '\0') break;   /* the program */
        /* options that take a value: "-n N", "-nN", "--np=N", ... */
#define RV_RUN_VALUE(opt)                                                                  \
        (strcmp(a, opt) == 0 ? (i + 1 < argc ? (val = argv[++i]) : (val = NULL, a))        \
         : (strncmp(a, opt "=", sizeof opt) == 0 ? (val = a + sizeof opt) : NULL))
        if (RV_RUN_VALUE("-np") || RV_RUN_VALUE("--np") || RV_RUN_VALUE("-n")) {
            if (!val) goto missing;
            if (rv_run_parse_np(val, &o->np)) return RV_RUN_EXIT_USAGE;
        } else if (strncmp(a, "-n", 2) == 0 && a[2] >= '0' && a[2] <= '9') {
            if (rv_run_parse_np(a + 2, &o->np)) return RV_RUN_EXIT_USAGE;
        } else if (RV_RUN_VALUE("--timeout")) {
            if (!val) goto missing;
            if (rv_run_parse_timeout(val, o)) return RV_RUN_EXIT_USAGE;
        } else if (RV_RUN_VALUE("--transport")) {
            if (!val) goto missing;
            o->transport = val;
        } else if (RV_RUN_VALUE("--hosts") || RV_RUN_VALUE("--hostfile")) {
            if (!val) goto missing;
            int file = a[6] == 'f';
            if (o->hosts_from) {
                fprintf(stderr, "rivetrun: give the hosts once: --hosts or --hostfile\n");
                return RV_RUN_EXIT_USAGE;
            }
            o->hosts_from = file ? val : "--hosts";
            if (file ? rv_run_hosts_file(o, val) : rv_run_hosts_add(o, val, "--hosts"))
                return RV_RUN_EXIT_USAGE;
        } else if (RV_RUN_VALUE("--launcher")) {
            if (!val) goto missing;
            if (strcmp(val, "auto") && strcmp(val, "local") && strcmp(val, "ssh") &&
                strcmp(val, "slurm")) {
                fprintf(stderr, "rivetrun: --launcher=%s is not one of auto, local, ssh, slurm\n", val);
                return RV_RUN_EXIT_USAGE;
            }
            o->launcher = val;
        } else if (RV_RUN_VALUE("-x") || RV_RUN_VALUE("--export")) {
            if (!val) goto missing;
            char **x = realloc(o->exports, (o->nexports + 1) * sizeof *x);
            if (!x) return RV_RUN_EXIT_ERROR;
            o->exports = x;
            x[o->nexports++] = (char *)val;
        } else if (strcmp(a, "-v") == 0 || strcmp(a, "--verbose") == 0) {
            o->verbose++;
        } else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            rv_run_help();
            return 0;
        } else if (strcmp(a, "--help-env") == 0) {
            help_env = 1;
        } else if (strcmp(a, "--markdown") == 0) {
            markdown = 1;
        } else if (strcmp(a, "--version") == 0) {
            printf("rivetrun (Rivet) %d.%d.%d, GASNet-EX spec %d.%d\n", RIVET_VERSION_MAJOR,
                   RIVET_VERSION_MINOR, RIVET_VERSION_PATCH, GEX_SPEC_VERSION_MAJOR,
                   GEX_SPEC_VERSION_MINOR);
            return 0;
        } else {
            fprintf(stderr, "rivetrun: unknown option '%s'\n", a);
            rv_run_usage(stderr);
            return RV_RUN_EXIT_USAGE;
        }
#undef RV_RUN_VALUE
        continue;
    missing:
        fprintf(stderr, "rivetrun: option '%s' needs a value\n", a);
        rv_run_usage(stderr);
        return RV_RUN_EXIT_USAGE;
    }
    if (help_env) {
        rv_config_print(stdout, markdown);
        return fflush(stdout) == 0 ? 0 : RV_RUN_EXIT_ERROR;
    }
    if (markdown) {
        fprintf(stderr, "rivetrun: --markdown only goes with --help-env\n");
        return RV_RUN_EXIT_USAGE;
    }
    if (i >= argc) {
        fprintf(stderr, "rivetrun: no program given\n");
        rv_run_usage(stderr);
        return RV_RUN_EXIT_USAGE;
    }
    if (o->launcher && !strcmp(o->launcher, "ssh") && !o->nhosts) {
        fprintf(stderr, "rivetrun: --launcher=ssh needs the hosts (--hosts or --hostfile)\n");
        return RV_RUN_EXIT_USAGE;
    }
    if (o->launcher && !strcmp(o->launcher, "local") && o->nhosts) {
        fprintf(stderr, "rivetrun: --launcher=local runs every rank here: no --hosts or --hostfile\n");
        return RV_RUN_EXIT_USAGE;
    }
    if (o->np == 0 && !o->nhosts) {
        fprintf(stderr, "rivetrun: the number of ranks is required (-n N)\n");
        rv_run_usage(stderr);
        return RV_RUN_EXIT_USAGE;
    }
    o->argv = argv + i;
    return -1;
}

static void rv_run_opts_free(rv_run_opts_t *o)
{
    for (uint32_t h = 0; h < o->nhosts; h++) free(o->hosts[h].name);
    free(o->hosts);
    free(o->exports);
    o->hosts = NULL;
    o->nhosts = 0;
    o->exports = NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "--agent") == 0) return rv_run_agent_main(argc, argv);
    rv_run_job_t job;
    memset(&job, 0, sizeof job);
    job.sigfd = -1;
    job.where = "";
    int rc = rv_run_parse(argc, argv, &job.opt);
    if (rc >= 0) {
        rv_run_opts_free(&job.opt);
        return rc;
    }
    /* Every setting is checked here, before anything starts: the ranks inherit them. */
    char cfg_err[768];
    if (rv_config_try_load(cfg_err, sizeof cfg_err)) {
        fprintf(stderr, "rivetrun: %s; nothing was started\n", cfg_err);
        rv_run_opts_free(&job.opt);
        return RV_RUN_EXIT_USAGE;
    }
    if (!strcmp(rv_run_launcher_pick(&job.opt), "slurm")) {
        rv_run_stats_prepare();
        rc = rv_run_slurm(&job.opt);
        if (rv_cfg.TRACE[0]) rv_trace_merge(rv_cfg.TRACE, job.opt.np, 1, "rivetrun");
        rv_run_stats_finish(job.opt.np);
        rv_run_opts_free(&job.opt);
        return rc;
    }
    if (job.opt.nhosts) {
        uint32_t *first = calloc(job.opt.nhosts, sizeof *first);
        uint32_t *count = calloc(job.opt.nhosts, sizeof *count);
        rc = !first || !count || rv_run_hosts_place(&job.opt, first, count);
        free(first);
        free(count);
        if (rc) {
            rv_run_opts_free(&job.opt);
            return RV_RUN_EXIT_USAGE;
        }
    }
    job.size = job.opt.np;
    rv_run_stats_prepare();

    /* With stdin/out/err closed, our sockets could land on 0-2 and be clobbered. */
    for (int fd = 0; fd < 3; fd++)
        if (fcntl(fd, F_GETFD) < 0 && open("/dev/null", O_RDWR) != fd) return RV_RUN_EXIT_ERROR;

    /* Signals are read from a signalfd in the poll loop; block them before any
     * child exists so none is lost. The children get the original mask back. */
    sigset_t set;
    rv_boot_srv_sigset(&set);
    if (sigprocmask(SIG_BLOCK, &set, &job.orig_mask) != 0
        || (job.sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        fprintf(stderr, "rivetrun: cannot set up signal handling: %s\n", strerror(errno));
        return RV_RUN_EXIT_ERROR;
    }
    signal(SIGPIPE, SIG_IGN);   /* restored to default in the children */

    if (rv_boot_secret_new(job.secret) != 0) {
        fprintf(stderr, "rivetrun: getrandom() failed for the job secret: %s\n", strerror(errno));
        return RV_RUN_EXIT_ERROR;
    }
    job.rank = calloc(job.opt.np, sizeof *job.rank);
    if (!job.rank) {
        fprintf(stderr, "rivetrun: out of memory for %u ranks\n", (unsigned)job.opt.np);
        return RV_RUN_EXIT_ERROR;
    }
    for (uint32_t r = 0; r < job.opt.np; r++) {
        job.rank[r].fd = -1;
        job.rank[r].host = UINT32_MAX;
    }
    rv_run_srv_init(&job);
    if (job.opt.timeout > 0)
        job.timeout_at_ms = rv_run_now_ms() + (int64_t)(job.opt.timeout * 1000.0 + 0.5);
    rv_run_log(&job, "job secret %s, %u rank(s) of %s", job.secret, (unsigned)job.opt.np,
               job.opt.argv[0]);

    rc = job.opt.nhosts ? rv_run_remote_start(&job) : rv_run_spawn_all(&job);
    if (rc == 0) rc = rv_run_serve(&job);
    rv_run_remote_fini(&job);
    rv_run_reap_orphans(&job);
    rv_run_shm_cleanup(&job);
    rv_run_stats_finish(job.opt.np);
    rv_run_log(&job, "job done, exit status %d", rc);
    if (rv_cfg.TRACE[0]) rv_trace_merge(rv_cfg.TRACE, job.opt.np, 1, "rivetrun");
    free(job.rank);
    rv_run_opts_free(&job.opt);
    close(job.sigfd);
    return rc;
}
