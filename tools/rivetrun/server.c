/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/server.c: the bootstrap server: one poll() loop over rank sockets, signals and deadlines (records: boot/launcher/serve.c). */
#include "rivetrun.h"
#include "boot/launcher/proto.h"

#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

const char *rv_run_rank_where(rv_run_job_t *job, uint32_t r, char *buf, size_t n)
{
    rv_run_rank_t *rk = &job->rank[r];
    if (rk->host == UINT32_MAX) snprintf(buf, n, "pid %ld", (long)rk->pid);
    else rv_run_remote_where(job, r, buf, n);
    return buf;
}

void rv_run_end(rv_run_job_t *job, int code, int window_ms)
{
    if (rv_boot_srv_end(&job->srv, job->nspawned, code, window_ms, RV_RUN_GRACE_MS,
                        rv_run_now_ms()))
        job->timeout_at_ms = 0;
}

/* A failure: say so and end the job at once. */
void rv_run_end_failed(rv_run_job_t *job, int code)
{
    rv_boot_srv_end_failed(&job->srv, job->nspawned, code);
}

/* A fatal problem of the bootstrap itself (not of one rank's exit). */
void rv_run_fail(rv_run_job_t *job, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_boot_srv_vfail(&job->srv, job->nspawned, RV_RUN_EXIT_ERROR, "", fmt, ap);
    va_end(ap);
}

void rv_run_result_put(rv_run_result_t *res)
{
    if (res && --res->refs == 0) {
        free(res->bytes);
        free(res);
    }
}

/* Pushes as much of the pending result to rank r as its socket takes now. */
void rv_run_flush(rv_run_job_t *job, rv_run_rank_t *rk)
{
    rv_run_result_t *res = rk->out;
    if (!res || rk->fd < 0) return;
    int done = rv_boot_srv_send(rk->fd, res->seq, res->bytes, res->len, &rk->out_hdr,
                                &rk->out_off);
    if (done < 0) {
        /* The rank is gone; its exit status will tell the story. */
        rv_run_close_rank(job, rk);
    } else if (done) {
        rk->out = NULL;
        rv_run_result_put(res);
    }
}

void rv_run_close_rank(rv_run_job_t *job, rv_run_rank_t *rk)
{
    (void)job;
    if (rk->fd >= 0) close(rk->fd);
    rk->fd = -1;
    rv_run_result_put(rk->out);
    rk->out = NULL;
}

static void rv_run_coll_complete(void *ctx)
{
    rv_run_job_t *job = ctx;
    rv_run_result_t *res = calloc(1, sizeof *res);
    if (!res) {
        rv_run_fail(job, "out of memory");
        return;
    }
    res->refs = 1;   /* ours, dropped below */
    res->seq = job->srv.coll_seq;
    res->len = (size_t)job->srv.coll_len * job->opt.np;
    if (job->opt.verbose >= 2)
        rv_run_log(job, "bootstrap collective #%u complete (%llu bytes per rank)",
                   (unsigned)job->srv.coll_seq, (unsigned long long)job->srv.coll_len);
    res->bytes = rv_boot_srv_take(&job->srv);
    for (uint32_t r = 0; r < job->opt.np; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        if (rk->fd < 0) continue;
        if (rk->out) {   /* impossible with sequential collectives */
            rv_run_fail(job, "rank %u started a bootstrap collective before reading the result "
                        "of the previous one", (unsigned)r);
            break;
        }
        res->refs++;
        rk->out = res;
        rk->out_hdr = 0;
        rk->out_off = 0;
        rv_run_flush(job, rk);
    }
    if (job->remote) rv_run_remote_result(job, res);
    rv_run_result_put(res);
}

/* The bootstrap server's view of rivetrun's job (boot/launcher/serve.h). */
static rv_boot_srv_rank_t *rv_run_srv_rank(void *ctx, uint32_t r)
{
    return &((rv_run_job_t *)ctx)->rank[r].srv;
}

static int rv_run_srv_reaped(void *ctx, uint32_t r)
{
    return ((rv_run_job_t *)ctx)->rank[r].reaped;
}

static const char *rv_run_srv_where(void *ctx, uint32_t r, char *buf, size_t n)
{
    return rv_run_rank_where(ctx, r, buf, n);
}

static void rv_run_srv_fail(void *ctx, const char *msg)
{
    rv_run_fail(ctx, "%s", msg);
}

static void rv_run_srv_close(void *ctx, uint32_t r)
{
    rv_run_close_rank(ctx, &((rv_run_job_t *)ctx)->rank[r]);
}

static void rv_run_srv_end(void *ctx, int code, int window_ms)
{
    rv_run_end(ctx, code, window_ms);
}

static void rv_run_srv_end_failed(void *ctx, int code)
{
    rv_run_end_failed(ctx, code);
}

static void rv_run_srv_log(void *ctx, const char *msg)
{
    rv_run_log(ctx, "%s", msg);
}

static void rv_run_srv_signal(void *ctx, uint32_t r, int sig)
{
    rv_run_kill_rank(ctx, r, sig);
}

static const rv_boot_srv_ops_t rv_run_srv_ops = {
    .prefix = "rivetrun",
    .detail = 1,
    .fatal_code = RV_RUN_EXIT_ERROR,
    .exit_window_ms = RV_RUN_EXIT_WINDOW_MS,
    .rank = rv_run_srv_rank,
    .reaped = rv_run_srv_reaped,
    .where = rv_run_srv_where,
    .fail = rv_run_srv_fail,
    .close = rv_run_srv_close,
    .end = rv_run_srv_end,
    .end_failed = rv_run_srv_end_failed,
    .complete = rv_run_coll_complete,
    .log = rv_run_srv_log,
    .signal = rv_run_srv_signal,
};

void rv_run_srv_init(rv_run_job_t *job)
{
    job->srv.ops = &rv_run_srv_ops;
    job->srv.ctx = job;
    job->srv.n = job->opt.np;
    job->srv.coll_seq = 1;
}

void rv_run_remote_record(rv_run_job_t *job, uint32_t r, const void *rec, size_t len, int trunc)
{
    rv_run_rank_t *rk = &job->rank[r];
    rv_boot_hdr_t h;
    if (rk->reaped) return;
    if (len < sizeof h || trunc || (memcpy(&h, rec, sizeof h), h.magic != RV_BOOT_MAGIC)) {
        rv_run_fail(job, "protocol error: malformed record from rank %u (is it linked with "
                    "the same Rivet version as rivetrun?)", (unsigned)r);
        return;
    }
    size_t plen = len - sizeof h;
    if (job->srv.end.ending && h.type != RV_BOOT_EXIT && h.type != RV_BOOT_FINI) return;
    /* Contribution bytes go to their place in the gather buffer, as rv_boot_srv_drain's
     * receive does for a local rank: never more than the contribution has left. */
    if (h.type == RV_BOOT_DATA && rk->srv.in_gather) {
        if (plen > job->srv.coll_len - rk->srv.in_got) {
            rv_run_fail(job, "protocol error: rank %u sent more data than its contribution "
                        "to bootstrap collective #%u", (unsigned)r, (unsigned)job->srv.coll_seq);
            return;
        }
        memcpy(job->srv.coll_buf + (size_t)job->srv.coll_len * r + rk->srv.in_got,
               (const unsigned char *)rec + sizeof h, plen);
    }
    rv_boot_srv_record(&job->srv, r, &h, plen);
}

void rv_run_reaped(rv_run_job_t *job, uint32_t r, int status)
{
    rv_run_rank_t *rk = &job->rank[r];
    rk->reaped = 1;
    rk->status = status;
    rv_boot_srv_reaped(&job->srv, r, status, &rk->fd);
}

static void rv_run_signals(rv_run_job_t *job)
{
    rv_boot_srv_signals(&job->srv, job->sigfd, job->nspawned, "");
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) break;
        if (job->remote && rv_run_remote_child(job, pid, status)) continue;
        for (uint32_t r = 0; r < job->nspawned; r++)
            if (job->rank[r].pid == pid && !job->rank[r].reaped && job->rank[r].host == UINT32_MAX) {
                rv_run_reaped(job, r, status);
                break;
            }
    }
}

int rv_run_serve(rv_run_job_t *job)
{
    uint32_t np = job->opt.np;
    int nremote = job->remote ? rv_run_remote_npoll(job) : 0;
    struct pollfd *pfd = calloc(np + 1 + (size_t)nremote, sizeof *pfd);
    if (!pfd) {
        fprintf(stderr, "rivetrun: out of memory\n");
        rv_run_signal_all(job, SIGKILL, UINT32_MAX);
        return RV_RUN_EXIT_ERROR;
    }
    for (;;) {
        uint32_t alive = 0;
        for (uint32_t r = 0; r < np; r++) alive += !job->rank[r].reaped;
        if (!alive && !(job->remote && rv_run_remote_busy(job))) break;
        if (!alive)   /* only remote shells and agents are finishing: their own deadlines */
            job->timeout_at_ms = job->srv.end.term_at_ms = job->srv.end.kill_at_ms =
                job->srv.end.giveup_at_ms = 0;

        int64_t now = rv_run_now_ms();
        int64_t rnext = job->remote ? rv_run_remote_tick(job, now) : 0;
        if (job->timeout_at_ms && now >= job->timeout_at_ms) {
            fprintf(stderr, "rivetrun: job timed out after %s s; killed\n", job->opt.timeout_str);
            rv_run_end(job, RV_RUN_EXIT_TIMEOUT, 0);
        }
        int64_t enext = rv_boot_srv_deadlines(&job->srv, job->nspawned, now, RV_RUN_REAP_MS);
        if (alive && job->srv.end.giveup_at_ms && now >= job->srv.end.giveup_at_ms) {
            fprintf(stderr, "rivetrun: %u rank(s) did not die after SIGKILL; giving up on them\n",
                    (unsigned)alive);
            break;
        }
        int64_t next = job->timeout_at_ms;
        if (rnext && (!next || rnext < next)) next = rnext;
        if (enext && (!next || enext < next)) next = enext;
        int wait_ms = -1;
        if (next) wait_ms = next - now > 1000000 ? 1000000 : next <= now ? 0 : (int)(next - now);

        pfd[0].fd = job->sigfd;
        pfd[0].events = POLLIN;
        for (uint32_t r = 0; r < np; r++) {
            pfd[r + 1].fd = job->rank[r].fd;
            pfd[r + 1].events = POLLIN | (job->rank[r].out ? POLLOUT : 0);
            pfd[r + 1].revents = 0;
        }
        if (nremote) rv_run_remote_fill(job, pfd + np + 1);
        int n = poll(pfd, np + 1 + (nfds_t)nremote, wait_ms);
        if (n < 0) {
            if (errno == EINTR) continue;
            fprintf(stderr, "rivetrun: poll failed: %s\n", strerror(errno));
            rv_run_signal_all(job, SIGKILL, UINT32_MAX);
            free(pfd);
            return RV_RUN_EXIT_ERROR;
        }
        /* Sockets first: a record sent just before a rank died counts before its exit. */
        for (uint32_t r = 0; r < np; r++) {
            short re = pfd[r + 1].revents;
            if (!re || job->rank[r].fd < 0) continue;
            if (re & (POLLIN | POLLHUP | POLLERR))
                rv_boot_srv_drain(&job->srv, r, &job->rank[r].fd);
            if (job->rank[r].out) rv_run_flush(job, &job->rank[r]);
        }
        if (nremote) rv_run_remote_events(job, pfd + np + 1);
        if (pfd[0].revents) rv_run_signals(job);
    }
    free(pfd);
    free(job->srv.coll_buf);
    job->srv.coll_buf = NULL;
    for (uint32_t r = 0; r < np; r++) rv_run_close_rank(job, &job->rank[r]);
    return job->srv.end.ending ? job->srv.end.exit_code : 0;
}
