/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/server.c: the bootstrap server: one poll() loop over rank sockets, signals and deadlines. */
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

/* SIGTERM to every running rank that is not already on its way out. */
static void rv_run_term(rv_run_job_t *job, int only_blocked)
{
    for (uint32_t r = 0; r < job->nspawned; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        if (rk->reaped || rk->exiting || rk->termed) continue;
        /* Blocked: it contributed to a collective that can no longer complete. */
        if (only_blocked && !(job->coll_has_len && rk->ncoll == job->coll_seq)) continue;
        rv_run_kill_rank(job, r, SIGTERM);
        rk->termed = 1;
    }
}

void rv_run_end(rv_run_job_t *job, int code, int window_ms)
{
    if (job->ending) return;
    job->ending = 1;
    job->exit_code = code;
    job->timeout_at_ms = 0;
    int64_t now = rv_run_now_ms();
    if (window_ms > 0) {
        rv_run_term(job, 1);
        job->term_at_ms = now + window_ms;
    } else {
        rv_run_term(job, 0);
    }
    job->kill_at_ms = now + window_ms + RV_RUN_GRACE_MS;
}

/* A failure: say so and end the job at once. */
void rv_run_end_failed(rv_run_job_t *job, int code)
{
    int alive = 0;
    for (uint32_t r = 0; r < job->nspawned; r++) alive |= !job->rank[r].reaped;
    if (alive) fprintf(stderr, "rivetrun: terminating the job\n");
    rv_run_end(job, code, 0);
}

/* A fatal problem of the bootstrap itself (not of one rank's exit). */
void rv_run_fail(rv_run_job_t *job, const char *fmt, ...)
{
    if (job->ending) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rivetrun: %s\n", msg);
    rv_run_end_failed(job, RV_RUN_EXIT_ERROR);
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
    while (res && rk->fd >= 0) {
        rv_boot_hdr_t h = {.magic = RV_BOOT_MAGIC, .seq = res->seq};
        struct iovec iov[2] = {{&h, sizeof h}, {NULL, 0}};
        if (!rk->out_hdr) {
            h.type = RV_BOOT_RESULT;
            h.len = res->len;
        } else {
            size_t n = res->len - rk->out_off;
            if (n > RV_BOOT_CHUNK) n = RV_BOOT_CHUNK;
            h.type = RV_BOOT_DATA;
            h.len = n;
            iov[1].iov_base = res->bytes + rk->out_off;
            iov[1].iov_len = n;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = iov[1].iov_len ? 2 : 1};
        ssize_t n = sendmsg(rk->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;   /* POLLOUT later */
            /* The rank is gone; its exit status will tell the story. */
            rv_run_close_rank(job, rk);
            return;
        }
        if (!rk->out_hdr) rk->out_hdr = 1;
        else rk->out_off += iov[1].iov_len;
        if (rk->out_off == res->len) {
            rk->out = NULL;
            rv_run_result_put(res);
            res = NULL;
        }
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

/* A rank that exited 0 can never join a collective it has not started: the
 * others would wait forever, so say so and end the job. */
static void rv_run_check_deadlock(rv_run_job_t *job)
{
    if (job->ending || !job->coll_has_len) return;
    for (uint32_t r = 0; r < job->opt.np; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        if (rk->reaped && rk->ncoll < job->coll_seq) {
            char wb[160];
            rv_run_fail(job, "rank %u (%s) exited with status 0 without joining bootstrap "
                        "collective #%u, which rank %u already waits in (a rank returned from "
                        "main while the others are still in start-up or a barrier?)",
                        (unsigned)r, rv_run_rank_where(job, r, wb, sizeof wb),
                        (unsigned)job->coll_seq, (unsigned)job->coll_first);
            return;
        }
    }
}

static void rv_run_coll_complete(rv_run_job_t *job)
{
    rv_run_result_t *res = calloc(1, sizeof *res);
    if (!res) {
        rv_run_fail(job, "out of memory");
        return;
    }
    res->refs = 1;   /* ours, dropped below */
    res->seq = job->coll_seq;
    res->len = (size_t)job->coll_len * job->opt.np;
    res->bytes = job->coll_buf;
    if (job->opt.verbose >= 2)
        rv_run_log(job, "bootstrap collective #%u complete (%llu bytes per rank)",
                   (unsigned)job->coll_seq, (unsigned long long)job->coll_len);
    job->coll_buf = NULL;
    job->coll_has_len = 0;
    job->coll_len = 0;
    job->coll_done = 0;
    job->coll_seq++;
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

static void rv_run_contrib_done(rv_run_job_t *job, rv_run_rank_t *rk)
{
    rk->in_gather = 0;
    if (++job->coll_done == job->opt.np) rv_run_coll_complete(job);
}

/* Handles one record from rank r; payload (plen bytes) is already where it belongs. */
static void rv_run_record(rv_run_job_t *job, uint32_t r, const rv_boot_hdr_t *h, size_t plen)
{
    rv_run_rank_t *rk = &job->rank[r];
    switch (h->type) {
    case RV_BOOT_HELLO:
        if (h->arg != r || h->len != RV_BOOT_VERSION || plen) {
            rv_run_fail(job, "rank %u sent a bad hello (rank %u, protocol %llu; expected "
                        "protocol %u): is the program linked with the same Rivet version?",
                        (unsigned)r, (unsigned)h->arg, (unsigned long long)h->len,
                        RV_BOOT_VERSION);
            return;
        }
        rk->hello = 1;
        return;
    case RV_BOOT_GATHER:
        if (rk->in_gather || plen || h->seq != rk->ncoll + 1 || h->seq != job->coll_seq) {
            rv_run_fail(job, "protocol error: rank %u started bootstrap collective #%u while "
                        "the job is at #%u", (unsigned)r, (unsigned)h->seq,
                        (unsigned)job->coll_seq);
            return;
        }
        if (!job->coll_has_len) {
            if (h->len > SIZE_MAX / job->opt.np
                || !(job->coll_buf = malloc(h->len ? (size_t)h->len * job->opt.np : 1))) {
                rv_run_fail(job, "cannot allocate %llu bytes for bootstrap allgather #%u "
                            "(%llu bytes from each of %u ranks)",
                            (unsigned long long)h->len * job->opt.np, (unsigned)h->seq,
                            (unsigned long long)h->len, (unsigned)job->opt.np);
                return;
            }
            job->coll_has_len = 1;
            job->coll_len = h->len;
            job->coll_first = r;
        } else if (h->len != job->coll_len) {
            rv_run_fail(job, "bootstrap allgather #%u: rank %u contributed %llu bytes but rank "
                        "%u contributed %llu; every rank must pass the same length",
                        (unsigned)h->seq, (unsigned)job->coll_first,
                        (unsigned long long)job->coll_len, (unsigned)r,
                        (unsigned long long)h->len);
            return;
        }
        rk->ncoll++;
        rk->in_gather = 1;
        rk->in_got = 0;
        if (h->len == 0) rv_run_contrib_done(job, rk);
        rv_run_check_deadlock(job);
        return;
    case RV_BOOT_DATA:
        if (!rk->in_gather || plen == 0 || plen != h->len) {
            rv_run_fail(job, "protocol error: unexpected data record from rank %u", (unsigned)r);
            return;
        }
        rk->in_got += plen;
        if (rk->in_got == job->coll_len) rv_run_contrib_done(job, rk);
        return;
    case RV_BOOT_EXIT: {
        int code = (int)h->arg & 0xff;
        char wb[160];
        rk->exiting = 1;
        if (job->ending) return;
        if (h->flags & RV_BOOT_EXIT_FATAL) {
            /* Not a gasnet_exit: the library stopped the rank (an invalid setting, a
             * misuse of the API, ...) after printing why on the rank's stderr. */
            fprintf(stderr, "rivetrun: rank %u (%s) stopped on a fatal error (see its \"rivet: "
                    "fatal:\" message)\n", (unsigned)r, rv_run_rank_where(job, r, wb, sizeof wb));
            rv_run_end_failed(job, code ? code : RV_RUN_EXIT_ERROR);
            return;
        }
        if (code)
            fprintf(stderr, "rivetrun: rank %u (%s) called gasnet_exit(%d); terminating "
                    "the job\n", (unsigned)r, rv_run_rank_where(job, r, wb, sizeof wb), code);
        else
            rv_run_log(job, "rank %u (%s) called gasnet_exit(0); ending the job",
                       (unsigned)r, rv_run_rank_where(job, r, wb, sizeof wb));
        rv_run_end(job, code, RV_RUN_EXIT_WINDOW_MS);
        return;
    }
    case RV_BOOT_FINI:
        rk->fini = 1;
        rk->exiting = 1;
        return;
    default:
        rv_run_fail(job, "protocol error: unknown record type %u from rank %u",
                    (unsigned)h->type, (unsigned)r);
    }
}

/* Reads every record rank r has queued. */
static void rv_run_drain(rv_run_job_t *job, uint32_t r)
{
    static unsigned char scratch[RV_BOOT_CHUNK];
    rv_run_rank_t *rk = &job->rank[r];
    while (rk->fd >= 0) {
        rv_boot_hdr_t h;
        struct iovec iov[2] = {{&h, sizeof h}, {scratch, sizeof scratch}};
        /* Contribution bytes go straight to their place in the gather buffer. */
        if (rk->in_gather && !job->ending) {
            uint64_t left = job->coll_len - rk->in_got;
            iov[1].iov_base = job->coll_buf + (size_t)job->coll_len * r + rk->in_got;
            iov[1].iov_len = left < RV_BOOT_CHUNK ? (size_t)left : RV_BOOT_CHUNK;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t n = recvmsg(rk->fd, &m, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            rv_run_close_rank(job, rk);   /* ECONNRESET: treated as the end of the rank */
            return;
        }
        if (n == 0) {   /* the rank closed its end (exit, crash, or fini) */
            rv_run_log(job, "rank %u closed its bootstrap connection%s", (unsigned)r,
                       rk->fini ? "" : " (without fini)");
            rv_run_close_rank(job, rk);
            return;
        }
        if ((size_t)n < sizeof h || h.magic != RV_BOOT_MAGIC || (m.msg_flags & MSG_TRUNC)) {
            rv_run_fail(job, "protocol error: malformed record from rank %u (is it linked with "
                        "the same Rivet version as rivetrun?)", (unsigned)r);
            continue;
        }
        /* While the job ends, only "I am on my way out" still matters. */
        if (!job->ending || h.type == RV_BOOT_EXIT || h.type == RV_BOOT_FINI)
            rv_run_record(job, r, &h, (size_t)n - sizeof h);
    }
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
    if (job->ending && h.type != RV_BOOT_EXIT && h.type != RV_BOOT_FINI) return;
    /* Contribution bytes go to their place in the gather buffer, as rv_run_drain's
     * receive does for a local rank: never more than the contribution has left. */
    if (h.type == RV_BOOT_DATA && rk->in_gather) {
        if (plen > job->coll_len - rk->in_got) {
            rv_run_fail(job, "protocol error: rank %u sent more data than its contribution "
                        "to bootstrap collective #%u", (unsigned)r, (unsigned)job->coll_seq);
            return;
        }
        memcpy(job->coll_buf + (size_t)job->coll_len * r + rk->in_got,
               (const unsigned char *)rec + sizeof h, plen);
    }
    rv_run_record(job, r, &h, plen);
}

void rv_run_reaped(rv_run_job_t *job, uint32_t r, int status)
{
    rv_run_rank_t *rk = &job->rank[r];
    rk->reaped = 1;
    rk->status = status;
    rv_run_drain(job, r);   /* e.g. an EXIT record sent just before dying */
    rv_run_close_rank(job, rk);
    if (job->ending) return;
    char sb[16], wb[160];
    rv_run_rank_where(job, r, wb, sizeof wb);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rv_run_log(job, "rank %u (%s) exited with status 0", (unsigned)r, wb);
        rv_run_check_deadlock(job);
    } else if (WIFEXITED(status)) {
        fprintf(stderr, "rivetrun: rank %u (%s) exited with status %d\n", (unsigned)r, wb,
                WEXITSTATUS(status));
        rv_run_end_failed(job, WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "rivetrun: rank %u (%s) was killed by signal %s%s\n", (unsigned)r, wb,
                rv_run_signame(WTERMSIG(status), sb), WCOREDUMP(status) ? " (core dumped)" : "");
        rv_run_end_failed(job, 128 + WTERMSIG(status));
    }
}

static void rv_run_signals(rv_run_job_t *job)
{
    struct signalfd_siginfo si;
    while (read(job->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) continue;   /* reaped below, whatever the siginfo says */
        char sb[16];
        if (!job->ending) {
            fprintf(stderr, "rivetrun: received %s\n", rv_run_signame(sig, sb));
            rv_run_end_failed(job, 128 + sig);
        } else {
            /* A second interrupt: no more grace. */
            rv_run_signal_all(job, SIGKILL, UINT32_MAX);
        }
    }
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
            job->timeout_at_ms = job->term_at_ms = job->kill_at_ms = job->giveup_at_ms = 0;

        int64_t now = rv_run_now_ms();
        int64_t rnext = job->remote ? rv_run_remote_tick(job, now) : 0;
        if (job->timeout_at_ms && now >= job->timeout_at_ms) {
            fprintf(stderr, "rivetrun: job timed out after %s s; killed\n", job->opt.timeout_str);
            rv_run_end(job, RV_RUN_EXIT_TIMEOUT, 0);
        }
        if (job->term_at_ms && now >= job->term_at_ms) {
            rv_run_term(job, 0);
            job->term_at_ms = 0;
        }
        if (job->kill_at_ms && now >= job->kill_at_ms) {
            rv_run_log(job, "grace period over: SIGKILL to the remaining ranks");
            rv_run_signal_all(job, SIGKILL, UINT32_MAX);
            job->kill_at_ms = 0;
            job->giveup_at_ms = now + RV_RUN_REAP_MS;
        }
        if (alive && job->giveup_at_ms && now >= job->giveup_at_ms) {
            fprintf(stderr, "rivetrun: %u rank(s) did not die after SIGKILL; giving up on them\n",
                    (unsigned)alive);
            break;
        }
        int64_t next = job->timeout_at_ms;
        if (rnext && (!next || rnext < next)) next = rnext;
        if (job->term_at_ms && (!next || job->term_at_ms < next)) next = job->term_at_ms;
        if (job->kill_at_ms && (!next || job->kill_at_ms < next)) next = job->kill_at_ms;
        if (job->giveup_at_ms && (!next || job->giveup_at_ms < next)) next = job->giveup_at_ms;
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
            if (re & (POLLIN | POLLHUP | POLLERR)) rv_run_drain(job, r);
            if (job->rank[r].out) rv_run_flush(job, &job->rank[r]);
        }
        if (nremote) rv_run_remote_events(job, pfd + np + 1);
        if (pfd[0].revents) rv_run_signals(job);
    }
    free(pfd);
    free(job->coll_buf);
    job->coll_buf = NULL;
    for (uint32_t r = 0; r < np; r++) rv_run_close_rank(job, &job->rank[r]);
    return job->ending ? job->exit_code : 0;
}
