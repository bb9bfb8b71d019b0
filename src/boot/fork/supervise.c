/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/fork/supervise.c: the supervisor of forked ranks: the job's end, serving the bootstrap (records: boot/launcher/serve.c), clean-up. */
#include "boot/fork/fork_int.h"
#include "boot/launcher/proto.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t rv_fork_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void rv_fork_end(rv_fork_job_t *job, int code, int window_ms)
{
    rv_boot_srv_end(&job->srv, job->n, code, window_ms, RV_FORK_GRACE_MS, rv_fork_now_ms());
}

/* A failure (reason printed): end the job at once. */
static void rv_fork_end_failed(rv_fork_job_t *job, int code)
{
    rv_boot_srv_end_failed(&job->srv, job->n, code);
}

static void rv_fork_fail(rv_fork_job_t *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void rv_fork_fail(rv_fork_job_t *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_boot_srv_vfail(&job->srv, job->n, 1, "bootstrap: ", fmt, ap);
    va_end(ap);
}

static void rv_fork_close(rv_fork_rank_t *rk)
{
    if (rk->fd >= 0) close(rk->fd);
    rk->fd = -1;
    rk->out = 0;
}

/* Pushes as much of the current result to the rank as its socket takes now. */
static void rv_fork_flush(rv_fork_job_t *job, rv_fork_rank_t *rk)
{
    if (!rk->out || rk->fd < 0) return;
    int done = rv_boot_srv_send(rk->fd, job->res_seq, job->res_buf, job->res_len, &rk->out_hdr,
                                &rk->out_off);
    if (done < 0) rv_fork_close(rk);   /* the rank is gone: its exit status tells the story */
    else if (done) rk->out = 0;
}

static void rv_fork_coll_complete(void *ctx)
{
    rv_fork_job_t *job = ctx;
    for (uint32_t r = 0; r < job->n; r++)
        if (job->rank[r].out) {   /* impossible with sequential collectives */
            rv_fork_fail(job, "rank %u started a bootstrap collective before reading the result "
                         "of the previous one", (unsigned)r);
            return;
        }
    free(job->res_buf);
    job->res_len = (size_t)job->srv.coll_len * job->n;
    job->res_seq = job->srv.coll_seq;
    job->res_buf = rv_boot_srv_take(&job->srv);
    for (uint32_t r = 0; r < job->n; r++) {
        rv_fork_rank_t *rk = &job->rank[r];
        if (rk->fd < 0) continue;
        rk->out = 1;
        rk->out_hdr = 0;
        rk->out_off = 0;
        rv_fork_flush(job, rk);
    }
}

/* The bootstrap server's view of the forked job (boot/launcher/serve.h). */
static rv_boot_srv_rank_t *rv_fork_srv_rank(void *ctx, uint32_t r)
{
    return &((rv_fork_job_t *)ctx)->rank[r].srv;
}

static int rv_fork_srv_reaped(void *ctx, uint32_t r)
{
    return ((rv_fork_job_t *)ctx)->rank[r].reaped;
}

static const char *rv_fork_srv_where(void *ctx, uint32_t r, char *buf, size_t n)
{
    snprintf(buf, n, "pid %ld", (long)((rv_fork_job_t *)ctx)->rank[r].pid);
    return buf;
}

static void rv_fork_srv_fail(void *ctx, const char *msg)
{
    rv_fork_fail(ctx, "%s", msg);
}

static void rv_fork_srv_close(void *ctx, uint32_t r)
{
    rv_fork_close(&((rv_fork_job_t *)ctx)->rank[r]);
}

static void rv_fork_srv_end(void *ctx, int code, int window_ms)
{
    rv_fork_end(ctx, code, window_ms);
}

static void rv_fork_srv_end_failed(void *ctx, int code)
{
    rv_fork_end_failed(ctx, code);
}

static void rv_fork_srv_signal(void *ctx, uint32_t r, int sig)
{
    rv_fork_rank_t *rk = &((rv_fork_job_t *)ctx)->rank[r];
    if (!rk->reaped) kill(rk->pid, sig);
}

static const rv_boot_srv_ops_t rv_fork_srv_ops = {
    .prefix = "rivet",
    .detail = 0,
    .fatal_code = 1,
    .exit_window_ms = RV_FORK_EXIT_WINDOW_MS,
    .rank = rv_fork_srv_rank,
    .reaped = rv_fork_srv_reaped,
    .where = rv_fork_srv_where,
    .fail = rv_fork_srv_fail,
    .close = rv_fork_srv_close,
    .end = rv_fork_srv_end,
    .end_failed = rv_fork_srv_end_failed,
    .complete = rv_fork_coll_complete,
    .log = NULL,
    .signal = rv_fork_srv_signal,
};

static void rv_fork_reaped(rv_fork_job_t *job, uint32_t r, int status)
{
    rv_fork_rank_t *rk = &job->rank[r];
    rk->reaped = 1;
    rk->status = status;
    rv_boot_srv_reaped(&job->srv, r, status, &rk->fd);
}

static void rv_fork_signals(rv_fork_job_t *job)
{
    char who[64];
    snprintf(who, sizeof who, "the job's supervisor (pid %ld) ", (long)getpid());
    rv_boot_srv_signals(&job->srv, job->sigfd, job->n, who);
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) break;
        for (uint32_t r = 0; r < job->n; r++)   /* others: orphans of the ranks */
            if (job->rank[r].pid == pid && !job->rank[r].reaped) {
                rv_fork_reaped(job, r, status);
                break;
            }
    }
}

static void rv_fork_cleanup(rv_fork_job_t *job)
{
    for (uint32_t r = 0; r < job->n; r++)
        if (!job->rank[r].reaped) return;   /* gave up on an unkillable rank: don't block */
    rv_boot_srv_kill_orphans();   /* children of ours that are not ranks */
    rv_boot_srv_shm_cleanup(job->secret, "rivet", NULL, NULL);
}

_Noreturn void rv_fork_supervise(rv_fork_job_t *job)
{
    uint32_t n = job->n;
    job->srv.ops = &rv_fork_srv_ops;
    job->srv.ctx = job;
    job->srv.n = n;
    job->srv.coll_seq = 1;
    /* A timer the program armed before the fork would end the supervisor, not a rank. */
    alarm(0);
    struct pollfd *pfd = calloc(n + 1, sizeof *pfd);
    if (!pfd) {
        fprintf(stderr, "rivet: bootstrap: out of memory in the job's supervisor\n");
        for (uint32_t r = 0; r < n; r++) kill(job->rank[r].pid, SIGKILL);
        _exit(1);
    }
    for (;;) {
        uint32_t alive = 0;
        for (uint32_t r = 0; r < n; r++) alive += !job->rank[r].reaped;
        if (!alive) break;
        int64_t now = rv_fork_now_ms();
        int64_t next = rv_boot_srv_deadlines(&job->srv, n, now, RV_FORK_REAP_MS);
        if (job->srv.end.giveup_at_ms && now >= job->srv.end.giveup_at_ms) {
            fprintf(stderr, "rivet: %u rank(s) did not die after SIGKILL; giving up on them\n",
                    (unsigned)alive);
            break;
        }
        int wait_ms = next ? (next <= now ? 0 : (int)(next - now)) : -1;

        pfd[0].fd = job->sigfd;
        pfd[0].events = POLLIN;
        for (uint32_t r = 0; r < n; r++) {
            pfd[r + 1].fd = job->rank[r].fd;
            pfd[r + 1].events = POLLIN | (job->rank[r].out ? POLLOUT : 0);
            pfd[r + 1].revents = 0;
        }
        int got = poll(pfd, n + 1, wait_ms);
        if (got < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "rivet: bootstrap: poll failed in the job's supervisor: %s\n",
                    strerror(errno));
            for (uint32_t r = 0; r < n; r++)
                if (!job->rank[r].reaped) kill(job->rank[r].pid, SIGKILL);
            _exit(1);
        }
        /* Sockets first: a record sent just before a rank died counts before its exit. */
        for (uint32_t r = 0; r < n; r++) {
            short re = pfd[r + 1].revents;
            if (!re || job->rank[r].fd < 0) continue;
            if (re & (POLLIN | POLLHUP | POLLERR))
                rv_boot_srv_drain(&job->srv, r, &job->rank[r].fd);
            if (job->rank[r].out) rv_fork_flush(job, &job->rank[r]);
        }
        if (pfd[0].revents) rv_fork_signals(job);
    }
    rv_fork_cleanup(job);
    /* Not exit(): the program's atexit handlers and destructors belong to the ranks. */
    _exit(job->srv.end.ending ? job->srv.end.exit_code : 0);
}
