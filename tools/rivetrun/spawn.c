/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/spawn.c: fork/exec of the ranks, each with its own bootstrap socket. */
#include "rivetrun.h"
#include "boot/launcher/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* Uniform addresses: the ranks of one host run without address-space randomisation
 * (personality ADDR_NO_RANDOMIZE across exec), so the same program and libraries load
 * at the same addresses in every rank, as in GASNet's forked smp ranks. -1: leave the
 * personality alone; else the persona each rank execs with. */
static long rv_run_persona = -1;
static int  rv_run_norandom_env;   /* we turned randomisation off: tell the rank (proto.h) */

static void rv_run_uniform_setup(rv_run_job_t *job)
{
    const char *v = getenv("RIVET_UNIFORM_ADDRESSES");
    if (v && (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false")
              || !strcasecmp(v, "off"))) {
        rv_run_log(job, "RIVET_UNIFORM_ADDRESSES=%s: ranks keep address-space randomisation", v);
        return;
    }
    int cur = personality(0xffffffff);
    if (cur == -1) return;
    if (cur & ADDR_NO_RANDOMIZE) return;   /* already off (setarch -R): nothing to do or undo */
    /* Try it here first (personality only affects what we exec later), then put ours back. */
    if (personality((unsigned long)cur | ADDR_NO_RANDOMIZE) == -1) {
        fprintf(stderr, "rivetrun: warning: cannot turn off address-space randomisation for the "
                "ranks (personality: %s): they may load code at different addresses, which "
                "clients such as UPC++ assume identical; set RIVET_UNIFORM_ADDRESSES=0 to accept "
                "that\n", strerror(errno));
        return;
    }
    (void)personality((unsigned long)cur);
    rv_run_persona = (long)((unsigned long)cur | ADDR_NO_RANDOMIZE);
    rv_run_norandom_env = 1;
}

/* In the child, between fork and exec: only async-signal-safe-ish work on our
 * private copy of the (single-threaded) parent. Never returns. */
static void rv_run_child(rv_run_job_t *job, uint32_t r, int sock, int errfd, pid_t parent)
{
    int err;
    /* Die with rivetrun; if it already died before prctl, we were re-parented. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent) _exit(RV_RUN_EXIT_ERROR);
    signal(SIGPIPE, SIG_DFL);
    sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);

    /* Every other descriptor rivetrun holds is close-on-exec; this one survives. */
    if (fcntl(sock, F_SETFD, 0) != 0) goto fail;
    char num[32];
    snprintf(num, sizeof num, "%d", sock);
    if (setenv(RV_BOOT_ENV_FD, num, 1)) goto fail;
    snprintf(num, sizeof num, "%u", (unsigned)(job->rank_base + r));
    if (setenv(RV_BOOT_ENV_RANK, num, 1)) goto fail;
    snprintf(num, sizeof num, "%u", (unsigned)job->size);
    if (setenv(RV_BOOT_ENV_SIZE, num, 1)) goto fail;
    if (setenv(RV_BOOT_ENV_SECRET, job->secret, 1)) goto fail;
    if (job->opt.transport && setenv("RIVET_TRANSPORT", job->opt.transport, 1)) goto fail;
    if (rv_run_norandom_env && setenv(RV_BOOT_ENV_NORANDOM, "1", 1)) goto fail;
    if (rv_run_persona != -1 && personality((unsigned long)rv_run_persona) == -1) goto fail;

    execvp(job->opt.argv[0], job->opt.argv);
fail:
    err = errno;
    /* The parent reads this to tell "exec failed" from "exec worked" (EOF). */
    while (write(errfd, &err, sizeof err) < 0 && errno == EINTR) {}
    _exit(RV_RUN_EXIT_NOEXEC);
}

/* Kills and reaps whatever was started; used when the job cannot even start. */
static void rv_run_abort_spawn(rv_run_job_t *job)
{
    for (uint32_t r = 0; r < job->nspawned; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        if (rk->reaped) continue;
        kill(rk->pid, SIGKILL);
        while (waitpid(rk->pid, &rk->status, 0) < 0 && errno == EINTR) {}
        rk->reaped = 1;
    }
}

int rv_run_spawn_all(rv_run_job_t *job)
{
    pid_t self = getpid();
    rv_run_uniform_setup(job);
    /* Orphans of the ranks come to us, so the job leaves no process behind. */
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
    for (uint32_t r = 0; r < job->opt.np; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        int sv[2], ep[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
            fprintf(stderr, "rivetrun: socketpair for rank %u failed: %s\n", (unsigned)r,
                    strerror(errno));
            rv_run_abort_spawn(job);
            return RV_RUN_EXIT_ERROR;
        }
        if (pipe2(ep, O_CLOEXEC) != 0) {
            fprintf(stderr, "rivetrun: pipe failed: %s\n", strerror(errno));
            close(sv[0]);
            close(sv[1]);
            rv_run_abort_spawn(job);
            return RV_RUN_EXIT_ERROR;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(ep[0]);
            close(sv[0]);
            rv_run_child(job, r, sv[1], ep[1], self);
        }
        int fork_err = errno;
        close(sv[1]);
        close(ep[1]);
        if (pid < 0) {
            fprintf(stderr, "rivetrun: fork for rank %u failed: %s\n", (unsigned)r,
                    strerror(fork_err));
            close(sv[0]);
            close(ep[0]);
            rv_run_abort_spawn(job);
            return RV_RUN_EXIT_ERROR;
        }
        rk->pid = pid;
        rk->host = UINT32_MAX;
        rk->fd = sv[0];
        job->nspawned = r + 1;
        (void)fcntl(rk->fd, F_SETFL, fcntl(rk->fd, F_GETFL) | O_NONBLOCK);

        /* Blocks until the child execs (EOF) or reports why it could not. */
        int err = 0;
        ssize_t n;
        do n = read(ep[0], &err, sizeof err);
        while (n < 0 && errno == EINTR);
        close(ep[0]);
        if (n > 0) {
            const char *prog = job->opt.argv[0];
            fprintf(stderr, "rivetrun: cannot run '%s'%s: %s%s\n", prog, job->where,
                    strerror(err), err == ENOENT && !strchr(prog, '/') ? " (not found in PATH)" : "");
            rv_run_abort_spawn(job);
            return RV_RUN_EXIT_NOEXEC;
        }
        rv_run_log(job, "rank %u: pid %ld", (unsigned)(job->rank_base + r), (long)pid);
    }
    return 0;
}

void rv_run_kill_rank(rv_run_job_t *job, uint32_t r, int sig)
{
    rv_run_rank_t *rk = &job->rank[r];
    if (rk->reaped) return;
    if (rk->host == UINT32_MAX) kill(rk->pid, sig);   /* unreaped: the pid is still ours */
    else rv_run_remote_signal(job, r, sig);
}

void rv_run_signal_all(rv_run_job_t *job, int sig, uint32_t except)
{
    for (uint32_t r = 0; r < job->nspawned; r++)
        if (r != except) rv_run_kill_rank(job, r, sig);
}

void rv_run_reap_orphans(rv_run_job_t *job)
{
    for (uint32_t r = 0; r < job->nspawned; r++)
        if (!job->rank[r].reaped) return;   /* gave up on an unkillable rank: don't block */
    /* Processes a rank started and left behind, re-parented to us because rivetrun
     * is a child subreaper. */
    int total = rv_boot_srv_kill_orphans();
    if (total) rv_run_log(job, "killed %d leftover process(es) started by the ranks", total);
}
