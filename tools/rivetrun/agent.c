/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/agent.c: `rivetrun --agent HOST PORT ADDRS NAME`, started on each host of a
 * multi-host job by the remote shell: connects back to the launcher, proves it knows the
 * job secret (read from stdin), starts its block of ranks as the local launcher would,
 * relays their bootstrap records, and kills them if the launcher goes away. */
#include "rivetrun.h"
#include "net.h"
#include "boot/launcher/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#define RV_AGENT_CONNECT_MS  5000       /* per address */
#define RV_AGENT_HANDSHAKE_MS 10000
/* A launcher flooded by connections that are not agents reclaims the oldest handshake slots
 * for newer ones, ours among them: an agent whose connection was closed during the handshake
 * connects again, this many times in all. */
#define RV_AGENT_ATTEMPTS 5
#define RV_AGENT_FLUSH_MS    10000      /* final frames to the launcher */
#define RV_AGENT_BACKLOG     (16u << 20) /* stop reading ranks while this much waits to go up */

typedef struct rv_agent {
    rv_run_job_t  job;
    const char   *name;       /* this host, as the launcher calls it */
    uint32_t      host;
    rv_net_conn_t up;         /* to the launcher; fd -1 once lost */
    int           lost;       /* the launcher went away: ranks were killed */
    int           stopping;   /* we got a signal: ranks got SIGTERM */
    int64_t       kill_at;
} rv_agent_t;

static void rv_agent_err(rv_agent_t *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rv_agent_err(rv_agent_t *a, const char *fmt, ...)
{
    char msg[768];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rivetrun on host %s: %s\n", a->name, msg);
}

static int rv_agent_read_secret(rv_agent_t *a)
{
    char buf[40];
    size_t got = 0;
    int64_t deadline = rv_run_now_ms() + RV_AGENT_HANDSHAKE_MS;
    while (got < 33) {
        struct pollfd p = {0, POLLIN, 0};
        int64_t left = deadline - rv_run_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0) break;
        ssize_t n = read(0, buf + got, 33 - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        got += (size_t)n;
    }
    int ok = got == 33 && buf[32] == '\n';
    for (int i = 0; ok && i < 32; i++)
        ok = (buf[i] >= '0' && buf[i] <= '9') || (buf[i] >= 'a' && buf[i] <= 'f');
    if (!ok) {
        rv_agent_err(a, "no job secret on stdin (this mode is started by rivetrun --hosts, not "
                     "by hand)");
        return -1;
    }
    memcpy(a->job.secret, buf, 32);
    a->job.secret[32] = 0;
    /* The ranks must not read the rest of the remote shell's stdin. */
    int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        dup2(fd, 0);
        close(fd);
    }
    return 0;
}

/* Non-blocking connect with a time limit. Returns the fd or -1 (errno). */
static int rv_agent_connect_one(const struct addrinfo *ai)
{
    int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
    if (fd < 0) return -1;
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) != 0 && errno != EINPROGRESS) goto fail;
    struct pollfd p = {fd, POLLOUT, 0};
    int n;
    do n = poll(&p, 1, RV_AGENT_CONNECT_MS);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
        errno = ETIMEDOUT;
        goto fail;
    }
    int err = 0;
    socklen_t el = sizeof err;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) != 0) goto fail;
    if (err) {
        errno = err;
        goto fail;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
fail:;
    int e = errno;
    close(fd);
    errno = e;
    return -1;
}

/* The handshake of net.h. Returns 0; 1 if this peer is not our launcher (try the
 * next address); 2 if it closed the connection before its proof (a wrong secret, or our
 * handshake slot reclaimed under a flood: try again); -1 if no point in trying further. */
static int rv_agent_handshake(rv_agent_t *a, int fd, const char *where, char *why, size_t wn)
{
    int64_t deadline = rv_run_now_ms() + RV_AGENT_HANDSHAKE_MS;
    rv_net_challenge_t ch;
    if (rv_net_read_full(fd, &ch, sizeof ch, deadline) || ch.magic != RV_NET_MAGIC_L
        || ch.version != RV_NET_VERSION) {
        snprintf(why, wn, "%s is not a rivetrun launcher of this version", where);
        return 1;
    }
    rv_net_answer_t ans = {.magic = RV_NET_MAGIC_A, .version = RV_NET_VERSION, .host = a->host};
    if (getrandom(ans.nonce, sizeof ans.nonce, 0) != (ssize_t)sizeof ans.nonce) {
        snprintf(why, wn, "getrandom failed: %s", strerror(errno));
        return -1;
    }
    rv_net_mac(a->job.secret, "rivetrun-agent", ch.nonce, ans.nonce, a->host, ans.mac);
    rv_net_proof_t proof;
    if (rv_net_write_full(fd, &ans, sizeof ans, deadline)
        || rv_net_read_full(fd, &proof, sizeof proof, deadline)) {
        int closed = errno != ETIMEDOUT;
        snprintf(why, wn, "the launcher at %s refused this agent (%s): not this job's secret, or "
                 "the host is not expected any more", where,
                 closed ? "connection closed" : "no answer");
        return closed ? 2 : -1;
    }
    unsigned char want[RV_SHA256_LEN];
    rv_net_mac(a->job.secret, "rivetrun-launcher", ans.nonce, ch.nonce, a->host, want);
    if (!rv_auth_equal(want, proof.mac, sizeof want)) {
        snprintf(why, wn, "%s does not know the job secret: not this job's launcher", where);
        return 1;
    }
    return 0;
}

static int rv_agent_connect(rv_agent_t *a, const char *addrs, const char *port)
{
    char *list = strdup(addrs), *save = NULL;
    char why[512] = "no address to connect to";
    if (!list) return -1;
    for (char *h = strtok_r(list, ",", &save); h; h = strtok_r(NULL, ",", &save)) {
        struct addrinfo hints = {.ai_socktype = SOCK_STREAM, .ai_flags = AI_NUMERICSERV};
        struct addrinfo *res = NULL;
        int gr = getaddrinfo(h, port, &hints, &res);
        if (gr) {
            snprintf(why, sizeof why, "%s: %s", h, gai_strerror(gr));
            continue;
        }
        for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
            char where[300];
            snprintf(where, sizeof where, "%s port %s", h, port);
            int fd = -1, rc = 2;
            for (int k = 0; rc == 2 && k < RV_AGENT_ATTEMPTS; k++) {
                if (fd >= 0) close(fd);
                if ((fd = rv_agent_connect_one(ai)) < 0) break;
                rc = rv_agent_handshake(a, fd, where, why, sizeof why);
            }
            if (fd < 0) {
                snprintf(why, sizeof why, "cannot connect to %s: %s", where, strerror(errno));
                continue;
            }
            if (rc == 2) rc = -1; /* closed every time: refused */
            if (rc == 0) {
                freeaddrinfo(res);
                free(list);
                rv_net_conn_init(&a->up, fd);
                return 0;
            }
            close(fd);
            if (rc < 0) {
                freeaddrinfo(res);
                free(list);
                rv_agent_err(a, "%s", why);
                return -1;
            }
        }
        freeaddrinfo(res);
    }
    free(list);
    rv_agent_err(a, "cannot reach the launcher (tried %s, TCP port %s); last error: %s. Set "
                 "RIVET_LAUNCH_ADDR to an address of the launching host that this host can "
                 "reach, and open RIVET_LAUNCH_PORTS in the firewall", addrs, port, why);
    return -1;
}

/* Reads the SPEC frame and sets up the job: environment, directory, program. */
static int rv_agent_spec(rv_agent_t *a)
{
    int64_t deadline = rv_run_now_ms() + RV_AGENT_HANDSHAKE_MS;
    rv_net_frame_t f;
    if (rv_net_read_full(a->up.fd, &f, sizeof f, deadline) || f.magic != RV_NET_MAGIC_F
        || f.type != RV_NET_SPEC || f.len < 24 || f.len > (64u << 20)) {
        rv_agent_err(a, "did not receive what to run from the launcher");
        return -1;
    }
    char *b = malloc((size_t)f.len + 1);
    if (!b || rv_net_read_full(a->up.fd, b, (size_t)f.len, deadline)) {
        rv_agent_err(a, "did not receive what to run from the launcher");
        free(b);
        return -1;
    }
    b[f.len] = 0;   /* the last string is terminated even in a damaged spec */
    uint32_t head[6];
    memcpy(head, b, sizeof head);
    uint32_t first = head[0], count = head[1], size = head[2];
    uint32_t nenv = head[3], nargv = head[4];
    a->job.opt.verbose = (int)head[5];
    char *p = b + sizeof head, *end = b + f.len;
    char **argv = calloc((size_t)nargv + 1, sizeof *argv);
    if (!argv || count == 0 || nargv == 0 || first + (uint64_t)count > size) goto bad;
    const char *cwd = p;
    p += strlen(p) + 1;
    for (uint32_t i = 0; i < nenv; i++) {
        if (p >= end || !strchr(p, '=')) goto bad;
        putenv(p);   /* the spec buffer lives as long as the agent */
        p += strlen(p) + 1;
    }
    for (uint32_t i = 0; i < nargv; i++) {
        if (p >= end) goto bad;
        argv[i] = p;
        p += strlen(p) + 1;
    }
    if (chdir(cwd) != 0)
        rv_agent_err(a, "cannot change to the launcher's directory %s (%s); the ranks start in %s",
                     cwd, strerror(errno), getenv("HOME") ? getenv("HOME") : "/");
    a->job.opt.np = count;
    a->job.opt.argv = argv;
    a->job.rank_base = first;
    a->job.size = size;
    return 0;
bad:
    rv_agent_err(a, "the launcher sent a malformed description of the job");
    free(argv);
    free(b);
    return -1;
}

static void rv_agent_up(rv_agent_t *a, uint16_t type, uint16_t flags, uint32_t r, uint32_t arg,
                        const void *payload, size_t len)
{
    if (a->up.fd < 0) return;
    if (rv_net_queue(&a->up, type, flags, a->job.rank_base + r, arg, payload, len)) {
        rv_agent_err(a, "out of memory");
        _exit(RV_RUN_EXIT_ERROR);   /* our ranks die with us (parent-death signal) */
    }
}

/* A chunk of rank r's stats or trace file (rv_run_obs_agent_collect). */
static uint32_t rv_agent_files_rank;
static void rv_agent_file_up(void *ctx, unsigned kind, int first, const void *p, size_t n)
{
    rv_agent_t *a = ctx;
    rv_agent_up(a, RV_NET_FILE, first ? 1 : 0, rv_agent_files_rank, kind, p, n);
}

static void rv_agent_kill_all(rv_agent_t *a, int sig)
{
    for (uint32_t r = 0; r < a->job.nspawned; r++)
        if (!a->job.rank[r].reaped) kill(a->job.rank[r].pid, sig);
}

static void rv_agent_lost(rv_agent_t *a, const char *why)
{
    if (a->up.fd >= 0) rv_net_conn_close(&a->up);
    if (a->lost) return;
    a->lost = 1;
    int alive = 0;
    for (uint32_t r = 0; r < a->job.nspawned; r++) alive |= !a->job.rank[r].reaped;
    if (!alive) return;
    rv_agent_err(a, "lost the connection to the launcher (%s); killing the ranks", why);
    rv_agent_kill_all(a, SIGKILL);
}

/* Forwards every record rank r has queued. */
static void rv_agent_drain(rv_agent_t *a, uint32_t r)
{
    static unsigned char buf[sizeof(rv_boot_hdr_t) + RV_BOOT_CHUNK];
    rv_run_rank_t *rk = &a->job.rank[r];
    while (rk->fd >= 0) {
        struct iovec iov = {buf, sizeof buf};
        struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
        ssize_t n = recvmsg(rk->fd, &m, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return;
            rv_run_close_rank(&a->job, rk);
            return;
        }
        if (n == 0) {
            rv_run_close_rank(&a->job, rk);
            return;
        }
        rv_agent_up(a, RV_NET_RECORD, (m.msg_flags & MSG_TRUNC) ? 1 : 0, r, 0, buf, (size_t)n);
    }
}

static void rv_agent_frames(rv_agent_t *a)
{
    int rc = rv_net_read(&a->up);
    rv_net_frame_t f;
    const unsigned char *payload;
    int got;
    while (a->up.fd >= 0 && (got = rv_net_next(&a->up, (uint64_t)1 << 40, &f, &payload)) != 0) {
        if (got < 0) {
            rv_agent_lost(a, "protocol error");
            return;
        }
        if (f.type == RV_NET_RESULT) {
            rv_run_result_t *res = calloc(1, sizeof *res);
            unsigned char *bytes = malloc(f.len ? (size_t)f.len : 1);
            if (!res || !bytes) {
                rv_agent_err(a, "out of memory for a %llu-byte bootstrap result",
                             (unsigned long long)f.len);
                _exit(RV_RUN_EXIT_ERROR);
            }
            memcpy(bytes, payload, (size_t)f.len);
            res->refs = 1;
            res->seq = f.arg;
            res->len = (size_t)f.len;
            res->bytes = bytes;
            for (uint32_t r = 0; r < a->job.opt.np; r++) {
                rv_run_rank_t *rk = &a->job.rank[r];
                if (rk->fd < 0 || rk->out) continue;   /* gone, or (impossible) busy */
                res->refs++;
                rk->out = res;
                rk->out_hdr = 0;
                rk->out_off = 0;
                rv_run_flush(&a->job, rk);
            }
            rv_run_result_put(res);
        } else if (f.type == RV_NET_SIGNAL) {
            if (f.rank == RV_NET_ALL) {
                rv_agent_kill_all(a, (int)f.arg);
            } else {
                uint32_t r = f.rank - a->job.rank_base;
                if (r < a->job.nspawned && !a->job.rank[r].reaped) kill(a->job.rank[r].pid, (int)f.arg);
            }
        } else {
            rv_agent_lost(a, "protocol error");
            return;
        }
        rv_net_consume(&a->up, &f);
    }
    if (rc < 0 && a->up.fd >= 0) rv_agent_lost(a, errno ? strerror(errno) : "it closed the connection");
}

static void rv_agent_signals(rv_agent_t *a)
{
    struct signalfd_siginfo si;
    while (read(a->job.sigfd, &si, sizeof si) == (ssize_t)sizeof si) {
        int sig = (int)si.ssi_signo;
        if (sig == SIGCHLD) continue;
        char sb[16];
        if (a->lost) {   /* already on the way out, the ranks got SIGKILL */
            rv_agent_kill_all(a, SIGKILL);
        } else if (!a->stopping) {
            rv_agent_err(a, "received %s; terminating the ranks", rv_boot_signame(sig, sb));
            a->stopping = 1;
            rv_agent_kill_all(a, SIGTERM);
            a->kill_at = rv_run_now_ms() + RV_RUN_GRACE_MS;
        } else {
            rv_agent_kill_all(a, SIGKILL);
        }
    }
    for (;;) {
        int status;
        pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid <= 0) break;
        for (uint32_t r = 0; r < a->job.nspawned; r++) {
            rv_run_rank_t *rk = &a->job.rank[r];
            if (rk->pid != pid || rk->reaped) continue;
            rk->reaped = 1;
            rk->status = status;
            rv_agent_drain(a, r);   /* records sent just before it died go first */
            rv_run_close_rank(&a->job, rk);
            rv_agent_files_rank = r;   /* its stats and trace, before its end */
            rv_run_obs_agent_collect(a->job.rank_base + r, rv_agent_file_up, a);
            rv_agent_up(a, RV_NET_EXITED, 0, r, (uint32_t)status, NULL, 0);
            break;
        }
    }
}

static int rv_agent_serve(rv_agent_t *a)
{
    rv_run_job_t *job = &a->job;
    uint32_t n = job->opt.np;
    struct pollfd *pfd = calloc(n + 2, sizeof *pfd);
    if (!pfd) {
        rv_agent_err(a, "out of memory");
        return RV_RUN_EXIT_ERROR;
    }
    for (;;) {
        int alive = 0;
        for (uint32_t r = 0; r < n; r++) alive |= !job->rank[r].reaped;
        if (!alive) break;
        int64_t now = rv_run_now_ms();
        if (a->kill_at && now >= a->kill_at) {
            rv_agent_kill_all(a, SIGKILL);
            a->kill_at = 0;
        }
        int wait_ms = a->kill_at ? (int)(a->kill_at - now) : -1;
        int backlog = a->up.out_len - a->up.out_off > RV_AGENT_BACKLOG;
        pfd[0].fd = job->sigfd;
        pfd[0].events = POLLIN;
        pfd[1].fd = a->up.fd;
        pfd[1].events = POLLIN | (rv_net_pending(&a->up) ? POLLOUT : 0);
        for (uint32_t r = 0; r < n; r++) {
            pfd[r + 2].fd = job->rank[r].fd;
            pfd[r + 2].events = (backlog ? 0 : POLLIN) | (job->rank[r].out ? POLLOUT : 0);
            pfd[r + 2].revents = 0;
        }
        int k = poll(pfd, n + 2, wait_ms);
        if (k < 0) {
            if (errno == EINTR) continue;
            rv_agent_err(a, "poll failed: %s", strerror(errno));
            rv_agent_kill_all(a, SIGKILL);
            free(pfd);
            return RV_RUN_EXIT_ERROR;
        }
        for (uint32_t r = 0; r < n; r++) {
            short re = pfd[r + 2].revents;
            if (!re || job->rank[r].fd < 0) continue;
            if (re & (POLLIN | POLLHUP | POLLERR)) rv_agent_drain(a, r);
            if (job->rank[r].out) rv_run_flush(job, &job->rank[r]);
        }
        if (pfd[1].revents & (POLLIN | POLLHUP | POLLERR)) rv_agent_frames(a);
        if (a->up.fd >= 0 && rv_net_pending(&a->up) && rv_net_flush(&a->up) < 0)
            rv_agent_lost(a, strerror(errno));
        if (pfd[0].revents) rv_agent_signals(a);
    }
    free(pfd);
    /* Every rank is gone: the last EXITED frames go out before we close. */
    int64_t deadline = rv_run_now_ms() + RV_AGENT_FLUSH_MS;
    while (a->up.fd >= 0 && rv_net_pending(&a->up)) {
        if (rv_net_flush(&a->up) < 0) break;
        if (!rv_net_pending(&a->up)) break;
        struct pollfd p = {a->up.fd, POLLOUT, 0};
        int64_t left = deadline - rv_run_now_ms();
        if (left <= 0 || poll(&p, 1, (int)left) == 0) break;
    }
    return a->lost ? RV_RUN_EXIT_ERROR : 0;
}

int rv_run_agent_main(int argc, char **argv)
{
    static rv_agent_t agent;
    rv_agent_t *a = &agent;
    a->name = argc > 5 ? argv[5] : "?";
    char *end;
    unsigned long host = argc == 6 ? strtoul(argv[2], &end, 10) : 0;
    if (argc != 6 || *end) {
        fprintf(stderr, "rivetrun: --agent is started by rivetrun --hosts on each host; usage: "
                "rivetrun --agent HOSTINDEX PORT ADDRESSES NAME (job secret on stdin)\n");
        return RV_RUN_EXIT_USAGE;
    }
    a->host = (uint32_t)host;
    rv_run_job_t *job = &a->job;
    job->sigfd = -1;
    job->srv.coll_seq = 1;
    char where[300];
    snprintf(where, sizeof where, " on host %s", a->name);
    job->where = where;
    rv_net_conn_init(&a->up, -1);

    sigset_t set;
    rv_boot_srv_sigset(&set);
    if (sigprocmask(SIG_BLOCK, &set, &job->orig_mask) != 0
        || (job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        rv_agent_err(a, "cannot set up signal handling: %s", strerror(errno));
        return RV_RUN_EXIT_ERROR;
    }
    signal(SIGPIPE, SIG_IGN);

    if (rv_agent_read_secret(a) || rv_agent_connect(a, argv[4], argv[3]) || rv_agent_spec(a))
        return RV_RUN_EXIT_ERROR;
    rv_run_obs_agent_prepare();
    job->rank = calloc(job->opt.np, sizeof *job->rank);
    if (!job->rank) {
        rv_agent_err(a, "out of memory for %u ranks", (unsigned)job->opt.np);
        return RV_RUN_EXIT_ERROR;
    }
    for (uint32_t r = 0; r < job->opt.np; r++) {
        job->rank[r].fd = -1;
        job->rank[r].host = UINT32_MAX;
    }

    int rc = rv_run_spawn_all(job);
    if (rc) {   /* it said why on our stderr, which the remote shell carries to the launcher */
        rv_agent_up(a, RV_NET_NOSTART, 0, 0, (uint32_t)rc, NULL, 0);
    } else {
        for (uint32_t r = 0; r < job->opt.np; r++)
            rv_agent_up(a, RV_NET_STARTED, 0, r, (uint32_t)job->rank[r].pid, NULL, 0);
        rv_net_flush(&a->up);
        rc = rv_agent_serve(a);
    }
    if (rc && a->up.fd >= 0) {   /* NOSTART must reach the launcher */
        int64_t deadline = rv_run_now_ms() + RV_AGENT_FLUSH_MS;
        while (rv_net_pending(&a->up) && rv_net_flush(&a->up) == 0 && rv_run_now_ms() < deadline) {
            struct pollfd p = {a->up.fd, POLLOUT, 0};
            poll(&p, 1, 100);
        }
    }
    rv_run_reap_orphans(job);
    rv_run_shm_cleanup(job);
    rv_run_obs_agent_fini();
    rv_net_conn_close(&a->up);
    close(job->sigfd);
    return rc;
}
