/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/slurm.c: --launcher=slurm: the ranks are started by Slurm's srun (inside an
 * allocation) and find each other through the PMIx bootstrap; rivetrun stays as srun's parent
 * for --timeout, signal forwarding and its exit status. */
#include "rivetrun.h"
#include "core/config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

const char *rv_run_launcher_pick(const rv_run_opts_t *o)
{
    if (o->launcher && strcmp(o->launcher, "auto") != 0) return o->launcher;
    if (o->nhosts) return "ssh";
    const char *job = getenv("SLURM_JOB_ID");
    return job && *job ? "slurm" : "local";
}

/* Waits for srun until the deadline (0: none); forwards SIGINT, SIGTERM, SIGHUP, SIGQUIT. */
static int rv_run_slurm_wait(pid_t child, const sigset_t *set, int64_t deadline, const char *to)
{
    int killed = 0;
    int64_t kill_at = 0;
    for (;;) {
        int status;
        pid_t p = waitpid(child, &status, WNOHANG);
        if (p == child) {
            if (killed) return RV_RUN_EXIT_TIMEOUT;
            if (WIFEXITED(status)) return WEXITSTATUS(status);
            if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
            return RV_RUN_EXIT_ERROR;
        }
        int64_t now = rv_run_now_ms(), next = 1000;
        if (deadline && !killed && now >= deadline) {
            fprintf(stderr, "rivetrun: --timeout %s expired: ending the srun job step\n", to);
            kill(child, SIGTERM);
            killed = 1;
            kill_at = now + RV_RUN_GRACE_MS * 5;   /* srun needs a moment to end the step */
        }
        if (killed && kill_at && now >= kill_at) {
            kill(child, SIGKILL);
            kill_at = 0;
        }
        if (deadline && !killed && deadline - now < next) next = deadline - now;
        if (killed && kill_at && kill_at - now < next) next = kill_at - now;
        struct timespec ts = { next / 1000, (next % 1000) * 1000000 };
        int sig = sigtimedwait(set, NULL, &ts);
        if (sig == SIGINT || sig == SIGTERM || sig == SIGHUP || sig == SIGQUIT) kill(child, sig);
    }
}

int rv_run_slurm(rv_run_opts_t *o)
{
    if (o->nhosts) {
        fprintf(stderr, "rivetrun: --launcher=slurm takes its hosts from the Slurm allocation: "
                "no --hosts or --hostfile\n");
        return RV_RUN_EXIT_USAGE;
    }
    if (o->np == 0) {
        fprintf(stderr, "rivetrun: the number of ranks is required (-n N)\n");
        return RV_RUN_EXIT_USAGE;
    }
    /* RIVET_SRUN split at blanks, then -n N --mpi=pmix --kill-on-bad-exit=1 program args
     * (no --mpi of ours when RIVET_SRUN has one, e.g. "srun --mpi=pmi2": the PMI2 bootstrap) */
    size_t nargs = 0;
    while (o->argv[nargs]) nargs++;
    char *copy = strdup(rv_cfg.SRUN);
    char **argv = calloc(strlen(rv_cfg.SRUN) / 2 + nargs + 8, sizeof *argv);
    if (!copy || !argv) return RV_RUN_EXIT_ERROR;
    size_t n = 0;
    int has_mpi = 0;
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (!strncmp(w, "--mpi", 5)) has_mpi = 1;
        argv[n++] = w;
    }
    if (!n) {
        fprintf(stderr, "rivetrun: RIVET_SRUN is empty: it must name the command (default 'srun')\n");
        return RV_RUN_EXIT_USAGE;
    }
    char np[32];
    snprintf(np, sizeof np, "--ntasks=%u", (unsigned)o->np);
    argv[n++] = np;
    if (!has_mpi) argv[n++] = "--mpi=pmix"; /* the ranks' bootstrap: boot/pmix/ */
    argv[n++] = "--kill-on-bad-exit=1"; /* a failed or killed rank ends the step */
    for (size_t i = 0; i < nargs; i++) argv[n++] = o->argv[i];
    argv[n] = NULL;
    if (o->transport) setenv("RIVET_TRANSPORT", o->transport, 1);
    if (o->verbose) {
        fprintf(stderr, "rivetrun: launcher slurm (SLURM_JOB_ID=%s):",
                getenv("SLURM_JOB_ID") ? getenv("SLURM_JOB_ID") : "");
        for (size_t i = 0; argv[i]; i++) fprintf(stderr, " %s", argv[i]);
        fprintf(stderr, "\n");
    }

    sigset_t set, orig;
    rv_boot_srv_sigset(&set);
    sigprocmask(SIG_BLOCK, &set, &orig);
    int64_t deadline = o->timeout > 0 ? rv_run_now_ms() + (int64_t)(o->timeout * 1000.0 + 0.5) : 0;
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "rivetrun: fork failed: %s\n", strerror(errno));
        return RV_RUN_EXIT_ERROR;
    }
    if (child == 0) {
        sigprocmask(SIG_SETMASK, &orig, NULL);
        execvp(argv[0], argv);
        fprintf(stderr, "rivetrun: cannot run %s (RIVET_SRUN; --launcher=slurm): %s\n", argv[0],
                strerror(errno));
        _exit(RV_RUN_EXIT_NOEXEC);
    }
    int rc = rv_run_slurm_wait(child, &set, deadline, o->timeout_str);
    free(argv);
    free(copy);
    return rc;
}
