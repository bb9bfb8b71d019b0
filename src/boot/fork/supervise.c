/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/fork/supervise.c: the supervisor of forked ranks: bootstrap collectives, the job's end, clean-up. */
#include "boot/fork/fork_int.h"
#include "boot/launcher/proto.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t rv_fork_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static const char *rv_fork_signame(int sig, char buf[16])
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},   {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"}, {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"}, {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"}, {SIGTERM, "SIGTERM"}, {SIGXCPU, "SIGXCPU"},
        {SIGXFSZ, "SIGXFSZ"}, {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    snprintf(buf, 16, "%d", sig);
    return buf;
}

/* SIGTERM to every running rank not already on its way out (only_blocked: only those
 * waiting in a collective that can no longer complete). */
static void rv_fork_term(rv_fork_job_t *job, int only_blocked)
{
    for (uint32_t r = 0; r < job->n; r++) {
        rv_fork_rank_t *rk = &job->rank[r];
        if (rk->reaped || rk->exiting || rk->termed) continue;
        if (only_blocked && !(job->coll_has_len && rk->ncoll == job->coll_seq)) continue;
        kill(rk->pid, SIGTERM);
        rk->termed = 1;
    }
}

static void rv_fork_end(rv_fork_job_t *job, int code, int window_ms)
{
    if (job->ending) return;
    job->ending = 1;
    job->exit_code = code;
    int64_t now = rv_fork_now_ms();
    if (window_ms > 0) {
        rv_fork_term(job, 1);
        job->term_at_ms = now + window_ms;
    } else {
        rv_fork_term(job, 0);
    }
    job->kill_at_ms = now + window_ms + RV_FORK_GRACE_MS;
}

/* A failure (reason printed): end the job at once. */
static void rv_fork_end_failed(rv_fork_job_t *job, int code)
{
    int alive = 0;
    for (uint32_t r = 0; r < job->n; r++) alive |= !job->rank[r].reaped;
    if (alive) fprintf(stderr, "rivet: terminating the job\n");
    rv_fork_end(job, code, 0);
}

static void rv_fork_fail(rv_fork_job_t *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void rv_fork_fail(rv_fork_job_t *job, const char *fmt, ...)
{
    if (job->ending) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rivet: bootstrap: %s\n", msg);
    rv_fork_end_failed(job, 1);
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
    while (rk->out && rk->fd >= 0) {
        rv_boot_hdr_t h = {.magic = RV_BOOT_MAGIC, .seq = job->res_seq};
        struct iovec iov[2] = {{&h, sizeof h}, {NULL, 0}};
        if (!rk->out_hdr) {
            h.type = RV_BOOT_RESULT;
            h.len = job->res_len;
        } else {
            size_t n = job->res_len - rk->out_off;
            if (n > RV_BOOT_CHUNK) n = RV_BOOT_CHUNK;
            h.type = RV_BOOT_DATA;
            h.len = n;
            iov[1].iov_base = job->res_buf + rk->out_off;
            iov[1].iov_len = n;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = iov[1].iov_len ? 2 : 1};
        ssize_t n = sendmsg(rk->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            rv_fork_close(rk);   /* the rank is gone: its exit status tells the story */
            return;
        }
        if (!rk->out_hdr) rk->out_hdr = 1;
        else rk->out_off += iov[1].iov_len;
        if (rk->out_off == job->res_len) rk->out = 0;
    }
}

/* A rank that exited 0 can never join a collective the others already wait in. */
static void rv_fork_check_deadlock(rv_fork_job_t *job)
{
    if (job->ending || !job->coll_has_len) return;
    for (uint32_t r = 0; r < job->n; r++) {
        rv_fork_rank_t *rk = &job->rank[r];
        if (rk->reaped && rk->ncoll < job->coll_seq) {
            rv_fork_fail(job, "rank %u (pid %ld) exited with status 0 without joining bootstrap "
                         "collective #%u, which rank %u already waits in (a rank returned from "
                         "main while the others are still in start-up or a barrier?)",
                         (unsigned)r, (long)rk->pid, (unsigned)job->coll_seq,
                         (unsigned)job->coll_first);
            return;
        }
    }
}

static void rv_fork_coll_complete(rv_fork_job_t *job)
{
    for (uint32_t r = 0; r < job->n; r++)
        if (job->rank[r].out) {   /* impossible with sequential collectives */
            rv_fork_fail(job, "rank %u started a bootstrap collective before reading the result "
                         "of the previous one", (unsigned)r);
            return;
        }
    free(job->res_buf);
    job->res_buf = job->coll_buf;
    job->res_len = (size_t)job->coll_len * job->n;
    job->res_seq = job->coll_seq;
    job->coll_buf = NULL;
    job->coll_has_len = 0;
    job->coll_len = 0;
    job->coll_done = 0;
    job->coll_seq++;
    for (uint32_t r = 0; r < job->n; r++) {
        rv_fork_rank_t *rk = &job->rank[r];
        if (rk->fd < 0) continue;
        rk->out = 1;
        rk->out_hdr = 0;
        rk->out_off = 0;
        rv_fork_flush(job, rk);
    }
}

static void rv_fork_contrib_done(rv_fork_job_t *job, rv_fork_rank_t *rk)
{
    rk->in_gather = 0;
    if (++job->coll_done == job->n) rv_fork_coll_complete(job);
}

static void rv_fork_record(rv_fork_job_t *job, uint32_t r, const rv_boot_hdr_t *h, size_t plen)
{
    rv_fork_rank_t *rk = &job->rank[r];
    switch (h->type) {
    case RV_BOOT_HELLO:
        if (h->arg != r || h->len != RV_BOOT_VERSION || plen)
            rv_fork_fail(job, "rank %u sent a bad hello", (unsigned)r);
        return;
    case RV_BOOT_GATHER:
        if (rk->in_gather || plen || h->seq != rk->ncoll + 1 || h->seq != job->coll_seq) {
            rv_fork_fail(job, "protocol error: rank %u started bootstrap collective #%u while "
                         "the job is at #%u", (unsigned)r, (unsigned)h->seq,
                         (unsigned)job->coll_seq);
            return;
        }
        if (!job->coll_has_len) {
            if (h->len > SIZE_MAX / job->n
                || !(job->coll_buf = malloc(h->len ? (size_t)h->len * job->n : 1))) {
                rv_fork_fail(job, "cannot allocate bootstrap allgather #%u (%llu bytes from "
                             "each of %u ranks)", (unsigned)h->seq, (unsigned long long)h->len,
                             (unsigned)job->n);
                return;
            }
            job->coll_has_len = 1;
            job->coll_len = h->len;
            job->coll_first = r;
        } else if (h->len != job->coll_len) {
            rv_fork_fail(job, "bootstrap allgather #%u: rank %u contributed %llu bytes but rank "
                         "%u contributed %llu; every rank must pass the same length",
                         (unsigned)h->seq, (unsigned)job->coll_first,
                         (unsigned long long)job->coll_len, (unsigned)r,
                         (unsigned long long)h->len);
            return;
        }
        rk->ncoll++;
        rk->in_gather = 1;
        rk->in_got = 0;
        if (h->len == 0) rv_fork_contrib_done(job, rk);
        rv_fork_check_deadlock(job);
        return;
    case RV_BOOT_DATA:
        if (!rk->in_gather || plen == 0 || plen != h->len) {
            rv_fork_fail(job, "protocol error: unexpected data record from rank %u", (unsigned)r);
            return;
        }
        rk->in_got += plen;
        if (rk->in_got == job->coll_len) rv_fork_contrib_done(job, rk);
        return;
    case RV_BOOT_EXIT: {
        int code = (int)h->arg & 0xff;
        rk->exiting = 1;
        if (job->ending) return;
        if (h->flags & RV_BOOT_EXIT_FATAL) {
            fprintf(stderr, "rivet: rank %u (pid %ld) stopped on a fatal error (see its "
                    "\"rivet: fatal:\" message)\n", (unsigned)r, (long)rk->pid);
            rv_fork_end_failed(job, code ? code : 1);
            return;
        }
        if (code)
            fprintf(stderr, "rivet: rank %u (pid %ld) called gasnet_exit(%d); terminating the "
                    "job\n", (unsigned)r, (long)rk->pid, code);
        rv_fork_end(job, code, RV_FORK_EXIT_WINDOW_MS);
        return;
    }
    case RV_BOOT_FINI:
        rk->exiting = 1;
        return;
    default:
        rv_fork_fail(job, "protocol error: unknown record type %u from rank %u",
                     (unsigned)h->type, (unsigned)r);
    }
}

/* Reads every record rank r has queued. */
static void rv_fork_drain(rv_fork_job_t *job, uint32_t r)
{
    static unsigned char scratch[RV_BOOT_CHUNK];
    rv_fork_rank_t *rk = &job->rank[r];
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
            rv_fork_close(rk);
            return;
        }
        if (n == 0) {   /* the rank closed its end (exit, crash, or fini) */
            rv_fork_close(rk);
            return;
        }
        if ((size_t)n < sizeof h || h.magic != RV_BOOT_MAGIC || (m.msg_flags & MSG_TRUNC)) {
            rv_fork_fail(job, "protocol error: malformed record from rank %u", (unsigned)r);
            continue;
        }
        if (!job->ending || h.type == RV_BOOT_EXIT || h.type == RV_BOOT_FINI)
            rv_fork_record(job, r, &h, (size_t)n - sizeof h);
    }
}

static void rv_fork_reaped(rv_fork_job_t *job, uint32_t r, int status)
{
    rv_fork_rank_t *rk = &job->rank[r];
    rk->reaped = 1;
    rk->status = status;
    rv_fork_drain(job, r);   /* e.g. an EXIT record sent just before dying */
    rv_fork_close(rk);
    if (job->ending) return;
    char sb[16];
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rv_fork_check_deadlock(job);
    } else if (WIFEXITED(status)) {
        fprintf(stderr, "rivet: rank %u (pid %ld) exited with status %d\n", (unsigned)r,
                (long)rk->pid, WEXITSTATUS(status));
        rv_fork_end_failed(job, WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "rivet: rank %u (pid %ld) was killed by signal %s%s\n", (unsigned)r,
                (long)rk->pid, rv_fork_signame(WTERMSIG(status), sb),
                WCOREDUMP(status) ? " (core dumped)" : "");
        rv_fork_end_failed(job, 128 + WTERMSIG(status));
    }
}

static void rv_fork_signals(rv_fork_job_t *job)
{
    struct signalfd_siginfo si;
    while (read(job->sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) continue;   /* reaped below */
        char sb[16];
        if (!job->ending) {
            fprintf(stderr, "rivet: the job's supervisor (pid %ld) received %s\n", (long)getpid(),
                    rv_fork_signame(sig, sb));
            rv_fork_end_failed(job, 128 + sig);
        } else {
            for (uint32_t r = 0; r < job->n; r++)   /* a second interrupt: no more grace */
                if (!job->rank[r].reaped) kill(job->rank[r].pid, SIGKILL);
        }
    }
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

/* SIGKILLs our children that are not ranks (orphans re-parented to us); returns how many. */
static int rv_fork_kill_orphans(void)
{
    DIR *d = opendir("/proc");
    if (!d) return 0;
    pid_t self = getpid();
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!isdigit((unsigned char)e->d_name[0])) continue;
        char path[300], buf[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "re");
        if (!f) continue;
        size_t len = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[len] = 0;
        const char *rp = strrchr(buf, ')');   /* the name may contain anything */
        char state;
        long ppid;
        if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)self) {
            kill((pid_t)atol(e->d_name), SIGKILL);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void rv_fork_cleanup(rv_fork_job_t *job)
{
    for (uint32_t r = 0; r < job->n; r++)
        if (!job->rank[r].reaped) return;   /* gave up on an unkillable rank: don't block */
    for (int round = 0; round < 16 && rv_fork_kill_orphans(); round++) {
        int status;
        while (waitpid(-1, &status, 0) > 0 || errno == EINTR) {}
    }
    char prefix[64];
    int pl = snprintf(prefix, sizeof prefix, "rivet-%s-", job->secret);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, (size_t)pl) != 0) continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        if (shm_unlink(name) != 0 && errno != ENOENT)
            fprintf(stderr, "rivet: cannot remove /dev/shm%s: %s\n", name, strerror(errno));
    }
    closedir(d);
}

_Noreturn void rv_fork_supervise(rv_fork_job_t *job)
{
    uint32_t n = job->n;
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
        if (job->term_at_ms && now >= job->term_at_ms) {
            rv_fork_term(job, 0);
            job->term_at_ms = 0;
        }
        if (job->kill_at_ms && now >= job->kill_at_ms) {
            for (uint32_t r = 0; r < n; r++)
                if (!job->rank[r].reaped) kill(job->rank[r].pid, SIGKILL);
            job->kill_at_ms = 0;
            job->giveup_at_ms = now + RV_FORK_REAP_MS;
        }
        if (job->giveup_at_ms && now >= job->giveup_at_ms) {
            fprintf(stderr, "rivet: %u rank(s) did not die after SIGKILL; giving up on them\n",
                    (unsigned)alive);
            break;
        }
        int64_t next = job->term_at_ms;
        if (job->kill_at_ms && (!next || job->kill_at_ms < next)) next = job->kill_at_ms;
        if (job->giveup_at_ms && (!next || job->giveup_at_ms < next)) next = job->giveup_at_ms;
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
            if (re & (POLLIN | POLLHUP | POLLERR)) rv_fork_drain(job, r);
            if (job->rank[r].out) rv_fork_flush(job, &job->rank[r]);
        }
        if (pfd[0].revents) rv_fork_signals(job);
    }
    rv_fork_cleanup(job);
    /* Not exit(): the program's atexit handlers and destructors belong to the ranks. */
    _exit(job->ending ? job->exit_code : 0);
}
