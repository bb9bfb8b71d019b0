/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/serve.c: the server side of the launcher protocol (collectives, exits, clean-up), for rivetrun and the fork supervisor. */
#include "boot/launcher/serve.h"
#include "boot/boot.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static void rv_boot_srv_fail(rv_boot_srv_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void rv_boot_srv_fail(rv_boot_srv_t *s, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->ops->fail(s->ctx, msg);
}

static void rv_boot_srv_log(rv_boot_srv_t *s, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void rv_boot_srv_log(rv_boot_srv_t *s, const char *fmt, ...)
{
    if (!s->ops->log) return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    s->ops->log(s->ctx, msg);
}

void rv_boot_srv_term(rv_boot_srv_t *s, uint32_t n, int only_blocked)
{
    for (uint32_t r = 0; r < n; r++) {
        rv_boot_srv_rank_t *rk = s->ops->rank(s->ctx, r);
        if (s->ops->reaped(s->ctx, r) || rk->exiting || rk->termed) continue;
        /* Blocked: it contributed to a collective that can no longer complete. */
        if (only_blocked && !(s->coll_has_len && rk->ncoll == s->coll_seq)) continue;
        s->ops->signal(s->ctx, r, SIGTERM);
        rk->termed = 1;
    }
}

int rv_boot_srv_end(rv_boot_srv_t *s, uint32_t n, int code, int window_ms, int grace_ms,
                    int64_t now)
{
    rv_boot_end_t *e = &s->end;
    if (e->ending) return 0;
    e->ending = 1;
    e->exit_code = code;
    if (window_ms > 0) {
        rv_boot_srv_term(s, n, 1);
        e->term_at_ms = now + window_ms;
    } else {
        rv_boot_srv_term(s, n, 0);
    }
    e->kill_at_ms = now + window_ms + grace_ms;
    return 1;
}

void rv_boot_srv_end_failed(rv_boot_srv_t *s, uint32_t n, int code)
{
    int alive = 0;
    for (uint32_t r = 0; r < n; r++) alive |= !s->ops->reaped(s->ctx, r);
    if (alive) fprintf(stderr, "%s: terminating the job\n", s->ops->prefix);
    s->ops->end(s->ctx, code, 0);
}

void rv_boot_srv_vfail(rv_boot_srv_t *s, uint32_t n, int code, const char *tag, const char *fmt,
                       va_list ap)
{
    if (s->end.ending) return;
    char msg[512];
    vsnprintf(msg, sizeof msg, fmt, ap);
    fprintf(stderr, "%s: %s%s\n", s->ops->prefix, tag, msg);
    rv_boot_srv_end_failed(s, n, code);
}

void rv_boot_srv_reaped(rv_boot_srv_t *s, uint32_t r, int status, int *fd)
{
    rv_boot_srv_drain(s, r, fd);   /* e.g. an EXIT record sent just before dying */
    s->ops->close(s->ctx, r);
    if (s->end.ending) return;
    char sb[16], wb[160];
    s->ops->where(s->ctx, r, wb, sizeof wb);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        rv_boot_srv_log(s, "rank %u (%s) exited with status 0", (unsigned)r, wb);
        rv_boot_srv_check_deadlock(s);
    } else if (WIFEXITED(status)) {
        fprintf(stderr, "%s: rank %u (%s) exited with status %d\n", s->ops->prefix, (unsigned)r,
                wb, WEXITSTATUS(status));
        s->ops->end_failed(s->ctx, WEXITSTATUS(status));
    } else if (WIFSIGNALED(status)) {
        fprintf(stderr, "%s: rank %u (%s) was killed by signal %s%s\n", s->ops->prefix,
                (unsigned)r, wb, rv_boot_signame(WTERMSIG(status), sb),
                WCOREDUMP(status) ? " (core dumped)" : "");
        s->ops->end_failed(s->ctx, 128 + WTERMSIG(status));
    }
}

void rv_boot_srv_signals(rv_boot_srv_t *s, int sigfd, uint32_t n, const char *who)
{
    struct signalfd_siginfo si;
    while (read(sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) continue;   /* the caller reaps, whatever the siginfo says */
        char sb[16];
        if (!s->end.ending) {
            fprintf(stderr, "%s: %sreceived %s\n", s->ops->prefix, who, rv_boot_signame(sig, sb));
            s->ops->end_failed(s->ctx, 128 + sig);
        } else {
            for (uint32_t r = 0; r < n; r++) s->ops->signal(s->ctx, r, SIGKILL);
        }
    }
}

int64_t rv_boot_srv_deadlines(rv_boot_srv_t *s, uint32_t n, int64_t now, int reap_ms)
{
    rv_boot_end_t *e = &s->end;
    if (e->term_at_ms && now >= e->term_at_ms) {
        rv_boot_srv_term(s, n, 0);
        e->term_at_ms = 0;
    }
    if (e->kill_at_ms && now >= e->kill_at_ms) {
        rv_boot_srv_log(s, "grace period over: SIGKILL to the remaining ranks");
        for (uint32_t r = 0; r < n; r++) s->ops->signal(s->ctx, r, SIGKILL);
        e->kill_at_ms = 0;
        e->giveup_at_ms = now + reap_ms;
    }
    int64_t next = e->term_at_ms;
    if (e->kill_at_ms && (!next || e->kill_at_ms < next)) next = e->kill_at_ms;
    if (e->giveup_at_ms && (!next || e->giveup_at_ms < next)) next = e->giveup_at_ms;
    return next;
}

/* A rank that exited 0 can never join a collective it has not started: the
 * others would wait forever, so say so and end the job. */
void rv_boot_srv_check_deadlock(rv_boot_srv_t *s)
{
    if (s->end.ending || !s->coll_has_len) return;
    for (uint32_t r = 0; r < s->n; r++) {
        if (s->ops->reaped(s->ctx, r) && s->ops->rank(s->ctx, r)->ncoll < s->coll_seq) {
            char wb[160];
            rv_boot_srv_fail(s, "rank %u (%s) exited with status 0 without joining bootstrap "
                             "collective #%u, which rank %u already waits in (a rank returned "
                             "from main while the others are still in start-up or a barrier?)",
                             (unsigned)r, s->ops->where(s->ctx, r, wb, sizeof wb),
                             (unsigned)s->coll_seq, (unsigned)s->coll_first);
            return;
        }
    }
}

unsigned char *rv_boot_srv_take(rv_boot_srv_t *s)
{
    unsigned char *buf = s->coll_buf;
    s->coll_buf = NULL;
    s->coll_has_len = 0;
    s->coll_len = 0;
    s->coll_done = 0;
    s->coll_seq++;
    return buf;
}

static void rv_boot_srv_contrib_done(rv_boot_srv_t *s, rv_boot_srv_rank_t *rk)
{
    rk->in_gather = 0;
    if (++s->coll_done == s->n) s->ops->complete(s->ctx);
}

static void rv_boot_srv_gather(rv_boot_srv_t *s, uint32_t r, const rv_boot_hdr_t *h, size_t plen)
{
    rv_boot_srv_rank_t *rk = s->ops->rank(s->ctx, r);
    if (rk->in_gather || plen || h->seq != rk->ncoll + 1 || h->seq != s->coll_seq) {
        rv_boot_srv_fail(s, "protocol error: rank %u started bootstrap collective #%u while "
                         "the job is at #%u", (unsigned)r, (unsigned)h->seq,
                         (unsigned)s->coll_seq);
        return;
    }
    if (!s->coll_has_len) {
        if (h->len > SIZE_MAX / s->n
            || !(s->coll_buf = malloc(h->len ? (size_t)h->len * s->n : 1))) {
            if (s->ops->detail)
                rv_boot_srv_fail(s, "cannot allocate %llu bytes for bootstrap allgather #%u "
                                 "(%llu bytes from each of %u ranks)",
                                 (unsigned long long)h->len * s->n, (unsigned)h->seq,
                                 (unsigned long long)h->len, (unsigned)s->n);
            else
                rv_boot_srv_fail(s, "cannot allocate bootstrap allgather #%u (%llu bytes from "
                                 "each of %u ranks)", (unsigned)h->seq,
                                 (unsigned long long)h->len, (unsigned)s->n);
            return;
        }
        s->coll_has_len = 1;
        s->coll_len = h->len;
        s->coll_first = r;
    } else if (h->len != s->coll_len) {
        rv_boot_srv_fail(s, "bootstrap allgather #%u: rank %u contributed %llu bytes but rank "
                         "%u contributed %llu; every rank must pass the same length",
                         (unsigned)h->seq, (unsigned)s->coll_first,
                         (unsigned long long)s->coll_len, (unsigned)r,
                         (unsigned long long)h->len);
        return;
    }
    rk->ncoll++;
    rk->in_gather = 1;
    rk->in_got = 0;
    if (h->len == 0) rv_boot_srv_contrib_done(s, rk);
    rv_boot_srv_check_deadlock(s);
}

static void rv_boot_srv_exit(rv_boot_srv_t *s, uint32_t r, const rv_boot_hdr_t *h)
{
    const rv_boot_srv_ops_t *o = s->ops;
    int code = (int)h->arg & 0xff;
    char wb[160];
    o->rank(s->ctx, r)->exiting = 1;
    if (s->end.ending) return;
    if (h->flags & RV_BOOT_EXIT_FATAL) {
        /* Not a gasnet_exit: the library stopped the rank (an invalid setting, a
         * misuse of the API, ...) after printing why on the rank's stderr. */
        fprintf(stderr, "%s: rank %u (%s) stopped on a fatal error (see its \"rivet: fatal:\" "
                "message)\n", o->prefix, (unsigned)r, o->where(s->ctx, r, wb, sizeof wb));
        o->end_failed(s->ctx, code ? code : o->fatal_code);
        return;
    }
    if (code)
        fprintf(stderr, "%s: rank %u (%s) called gasnet_exit(%d); terminating the job\n",
                o->prefix, (unsigned)r, o->where(s->ctx, r, wb, sizeof wb), code);
    else
        rv_boot_srv_log(s, "rank %u (%s) called gasnet_exit(0); ending the job", (unsigned)r,
                        o->where(s->ctx, r, wb, sizeof wb));
    o->end(s->ctx, code, o->exit_window_ms);
}

void rv_boot_srv_record(rv_boot_srv_t *s, uint32_t r, const rv_boot_hdr_t *h, size_t plen)
{
    rv_boot_srv_rank_t *rk = s->ops->rank(s->ctx, r);
    switch (h->type) {
    case RV_BOOT_HELLO:
        if (h->arg == r && h->len == RV_BOOT_VERSION && !plen) rk->hello = 1;
        else if (s->ops->detail)
            rv_boot_srv_fail(s, "rank %u sent a bad hello (rank %u, protocol %llu; expected "
                             "protocol %u): is the program linked with the same Rivet version?",
                             (unsigned)r, (unsigned)h->arg, (unsigned long long)h->len,
                             RV_BOOT_VERSION);
        else
            rv_boot_srv_fail(s, "rank %u sent a bad hello", (unsigned)r);
        return;
    case RV_BOOT_FINI:
        rk->fini = 1;
        rk->exiting = 1;
        return;
    case RV_BOOT_GATHER:
        rv_boot_srv_gather(s, r, h, plen);
        return;
    case RV_BOOT_DATA:
        if (!rk->in_gather || plen == 0 || plen != h->len) {
            rv_boot_srv_fail(s, "protocol error: unexpected data record from rank %u",
                             (unsigned)r);
            return;
        }
        rk->in_got += plen;
        if (rk->in_got == s->coll_len) rv_boot_srv_contrib_done(s, rk);
        return;
    case RV_BOOT_EXIT:
        rv_boot_srv_exit(s, r, h);
        return;
    default:
        rv_boot_srv_fail(s, "protocol error: unknown record type %u from rank %u",
                         (unsigned)h->type, (unsigned)r);
    }
}

/* Receives one record of rank r from fd. Returns 1 (a well-formed record in *h, payload
 * size in *plen), 0 (nothing more now), -1 (connection error), -2 (end of file) or -3
 * (malformed record). */
static int rv_boot_srv_recv(rv_boot_srv_t *s, uint32_t r, int fd, rv_boot_hdr_t *h,
                            size_t *plen)
{
    static unsigned char scratch[RV_BOOT_CHUNK];
    rv_boot_srv_rank_t *rk = s->ops->rank(s->ctx, r);
    for (;;) {
        struct iovec iov[2] = {{h, sizeof *h}, {scratch, sizeof scratch}};
        /* Contribution bytes go straight to their place in the gather buffer. */
        if (rk->in_gather && !s->end.ending) {
            uint64_t left = s->coll_len - rk->in_got;
            iov[1].iov_base = s->coll_buf + (size_t)s->coll_len * r + rk->in_got;
            iov[1].iov_len = left < RV_BOOT_CHUNK ? (size_t)left : RV_BOOT_CHUNK;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = 2};
        ssize_t n = recvmsg(fd, &m, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;   /* ECONNRESET: treated as the end of the rank */
        }
        if (n == 0) return -2;   /* the rank closed its end (exit, crash, or fini) */
        if ((size_t)n < sizeof *h || h->magic != RV_BOOT_MAGIC || (m.msg_flags & MSG_TRUNC))
            return -3;
        *plen = (size_t)n - sizeof *h;
        return 1;
    }
}

void rv_boot_srv_drain(rv_boot_srv_t *s, uint32_t r, const int *fd)
{
    rv_boot_srv_rank_t *rk = s->ops->rank(s->ctx, r);
    while (*fd >= 0) {
        rv_boot_hdr_t h;
        size_t plen;
        int got = rv_boot_srv_recv(s, r, *fd, &h, &plen);
        if (got == 0) return;
        if (got == -3) {
            rv_boot_srv_fail(s, "protocol error: malformed record from rank %u%s", (unsigned)r,
                             s->ops->detail ? " (is it linked with the same Rivet version as "
                                              "rivetrun?)" : "");
            continue;
        }
        if (got < 0) {   /* ECONNRESET too: treated as the end of the rank */
            if (got == -2)
                rv_boot_srv_log(s, "rank %u closed its bootstrap connection%s", (unsigned)r,
                                rk->fini ? "" : " (without fini)");
            s->ops->close(s->ctx, r);
            return;
        }
        /* While the job ends, only "I am on my way out" still matters. */
        if (!s->end.ending || h.type == RV_BOOT_EXIT || h.type == RV_BOOT_FINI)
            rv_boot_srv_record(s, r, &h, plen);
    }
}

int rv_boot_srv_send(int fd, uint32_t seq, const unsigned char *bytes, size_t len,
                     int *hdr_sent, size_t *off)
{
    for (;;) {
        rv_boot_hdr_t h = {.magic = RV_BOOT_MAGIC, .seq = seq};
        struct iovec iov[2] = {{&h, sizeof h}, {NULL, 0}};
        if (!*hdr_sent) {
            h.type = RV_BOOT_RESULT;
            h.len = len;
        } else {
            size_t n = len - *off;
            if (n > RV_BOOT_CHUNK) n = RV_BOOT_CHUNK;
            h.type = RV_BOOT_DATA;
            h.len = n;
            iov[1].iov_base = (void *)(bytes + *off);
            iov[1].iov_len = n;
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = iov[1].iov_len ? 2 : 1};
        ssize_t n = sendmsg(fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;   /* POLLOUT later */
            return -1;   /* the rank is gone: its exit status tells the story */
        }
        if (!*hdr_sent) *hdr_sent = 1;
        else *off += iov[1].iov_len;
        if (*off == len) return 1;
    }
}

void rv_boot_srv_sigset(sigset_t *set)
{
    sigemptyset(set);
    sigaddset(set, SIGCHLD);
    sigaddset(set, SIGINT);
    sigaddset(set, SIGTERM);
    sigaddset(set, SIGHUP);
    sigaddset(set, SIGQUIT);
}

/* One round: SIGKILL to every child of ours; returns how many. */
static int rv_boot_srv_kill_children(void)
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

int rv_boot_srv_kill_orphans(void)
{
    int total = 0;
    for (int round = 0; round < 16; round++) {   /* killing one may orphan its children */
        int n = rv_boot_srv_kill_children();
        if (!n) break;
        total += n;
        int status;
        while (waitpid(-1, &status, 0) > 0 || errno == EINTR) {}
    }
    return total;
}

void rv_boot_srv_shm_cleanup(const char *secret, const char *prefix,
                             void (*removed)(void *ctx, const char *name), void *ctx)
{
    char pre[64];
    int pl = snprintf(pre, sizeof pre, "rivet-%s-", secret);
    DIR *d = opendir("/dev/shm");
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, pre, (size_t)pl) != 0) continue;
        char name[300];
        snprintf(name, sizeof name, "/%s", e->d_name);
        if (shm_unlink(name) == 0) {
            if (removed) removed(ctx, name);
        } else if (errno != ENOENT) {
            fprintf(stderr, "%s: cannot remove /dev/shm%s: %s\n", prefix, name, strerror(errno));
        }
    }
    closedir(d);
}
