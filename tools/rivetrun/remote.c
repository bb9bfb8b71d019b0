/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/remote.c: the launcher side of a multi-host job once the remote shells
 * run (launch.c): the agents' handshake and frames (protocol in net.h), the poll loop's
 * hooks, signals and results for remote ranks, and what happens when a host is lost. */
#include "remote_int.h"
#include "boot/launcher/proto.h"
#include "core/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------ */

void rv_run_range(const rv_run_host_t *h, char *buf, size_t n)
{
    if (h->count == 1) snprintf(buf, n, "rank %u", (unsigned)h->first);
    else snprintf(buf, n, "ranks %u-%u", (unsigned)h->first, (unsigned)(h->first + h->count - 1));
}

static void rv_run_peer_name(const struct sockaddr_storage *ss, char *buf, size_t n)
{
    char a[INET6_ADDRSTRLEN] = "?";
    unsigned port = 0;
    if (ss->ss_family == AF_INET) {
        const struct sockaddr_in *s = (const void *)ss;
        inet_ntop(AF_INET, &s->sin_addr, a, sizeof a);
        port = ntohs(s->sin_port);
    } else if (ss->ss_family == AF_INET6) {
        const struct sockaddr_in6 *s = (const void *)ss;
        inet_ntop(AF_INET6, &s->sin6_addr, a, sizeof a);
        port = ntohs(s->sin6_port);
        if (!strncmp(a, "::ffff:", 7)) memmove(a, a + 7, strlen(a + 7) + 1);
    }
    snprintf(buf, n, "%s port %u", a, port);
}


void rv_run_forget_ranks(rv_run_job_t *job, rv_run_host_t *h)
{
    for (uint32_t r = h->first; r < h->first + h->count; r++) {
        rv_run_rank_t *rk = &job->rank[r];
        if (rk->reaped) continue;
        rk->reaped = 1;
        rk->status = 1 << 8;   /* as if it exited 1: it never ran, or its host is lost */
    }
}

static void rv_run_host_close(rv_run_job_t *job, rv_run_host_t *h)
{
    (void)job;
    rv_net_conn_close(&h->conn);
    h->conn.res = NULL;
    rv_run_result_put(h->res);
    h->res = NULL;
    h->state = RV_HOST_CLOSED;
}

static int rv_run_host_all_gone(rv_run_job_t *job, const rv_run_host_t *h)
{
    for (uint32_t r = h->first; r < h->first + h->count; r++)
        if (!job->rank[r].reaped) return 0;
    return 1;
}

/* The agent's connection broke or misbehaved. */
static void rv_run_host_lost(rv_run_job_t *job, rv_run_host_t *h, const char *why)
{
    rv_run_host_close(job, h);
    if (rv_run_host_all_gone(job, h)) return;   /* a normal end: the agent finished */
    char rb[64];
    rv_run_range(h, rb, sizeof rb);
    rv_run_fail(job, "lost the connection to the agent on host %s (%s): %s", h->name, rb, why);
    rv_run_forget_ranks(job, h);
}

static void rv_run_host_flush(rv_run_job_t *job, rv_run_host_t *h)
{
    if (h->state != RV_HOST_UP) return;
    if (rv_net_flush(&h->conn) < 0) {
        rv_run_host_lost(job, h, strerror(errno));
        return;
    }
    if (h->res && !h->conn.res) {   /* the result went out */
        rv_run_result_put(h->res);
        h->res = NULL;
    }
}

/* ---- handshake ---------------------------------------------------------- */

static void rv_run_pending_close(rv_run_pending_t *p)
{
    if (p->fd >= 0) close(p->fd);
    p->fd = -1;
}

void rv_run_strangers(const rv_run_remote_t *rm, char *buf, size_t n)
{
    buf[0] = 0;
    if (!rm->n_refused && !rm->n_timedout && !rm->n_reclaimed) return;
    snprintf(buf, n, "%u connection(s) to TCP port %u failed authentication, %u timed out in the "
             "handshake and %u were dropped to make room for newer ones (something other than "
             "this job's agents is connecting to that port)",
             rm->n_refused, rm->port, rm->n_timedout, rm->n_reclaimed);
}

/* Reports a connection that was not let in: the first few one by one, then only counted. */
static void rv_run_refuse_note(rv_run_remote_t *rm, const char *peer, const char *why)
{
    unsigned seen = rm->n_refused + rm->n_timedout + rm->n_reclaimed;
    if (seen < RV_RUN_REFUSALS_SHOWN)
        fprintf(stderr, "rivetrun: refused a connection from %s: %s\n", peer, why);
    else if (seen == RV_RUN_REFUSALS_SHOWN)
        fprintf(stderr, "rivetrun: refusing more connections that are not this job's agents; "
                "counting them from now on\n");
}

/* A free handshake slot; when none is free, the oldest one is reclaimed: one that sent
 * nothing yet if there is such, else any. */
static rv_run_pending_t *rv_run_slot(rv_run_job_t *job, rv_run_remote_t *rm)
{
    rv_run_pending_t *old_silent = NULL, *old_any = NULL;
    for (int i = 0; i < RV_RUN_PENDING; i++) {
        rv_run_pending_t *p = &rm->pending[i];
        if (p->fd < 0) return p;
        if (!p->got && (!old_silent || p->since < old_silent->since)) old_silent = p;
        if (!old_any || p->since < old_any->since) old_any = p;
    }
    rv_run_pending_t *p = old_silent ? old_silent : old_any;
    rv_run_refuse_note(rm, p->peer, "reclaimed its handshake slot for a newer connection");
    rm->n_reclaimed++;
    rv_run_log(job, "reclaimed the handshake slot of %s", p->peer);
    rv_run_pending_close(p);
    return p;
}

static void rv_run_accept(rv_run_job_t *job, rv_run_remote_t *rm)
{
    for (;;) {
        struct sockaddr_storage ss;
        socklen_t sl = sizeof ss;
        int fd = accept4(rm->listen_fd, (struct sockaddr *)&ss, &sl, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (fd < 0) return;   /* EAGAIN, or a connection that vanished */
        char peer[80];
        rv_run_peer_name(&ss, peer, sizeof peer);
        rv_net_challenge_t ch = {.magic = RV_NET_MAGIC_L, .version = RV_NET_VERSION};
        if (getrandom(ch.nonce, sizeof ch.nonce, GRND_NONBLOCK) != (ssize_t)sizeof ch.nonce
            || send(fd, &ch, sizeof ch, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof ch) {
            rv_run_log(job, "closed a connection from %s: cannot send the challenge", peer);
            close(fd);
            continue;
        }
        rv_run_pending_t *p = rv_run_slot(job, rm);
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        memset(p, 0, sizeof *p);
        p->fd = fd;
        p->since = rv_run_now_ms();
        p->deadline = p->since + RV_RUN_AUTH_MS;
        memcpy(p->nonce, ch.nonce, sizeof p->nonce);
        snprintf(p->peer, sizeof p->peer, "%s", peer);
        rv_run_log(job, "connection from %s: handshake", peer);
    }
}

static void rv_run_refuse(rv_run_remote_t *rm, rv_run_pending_t *p, const char *why)
{
    rv_run_refuse_note(rm, p->peer, why);
    rm->n_refused++;
    rv_run_pending_close(p);
}

/* The agent's answer is complete: verify it and, if good, make it its host's connection. */
static void rv_run_answer(rv_run_job_t *job, rv_run_remote_t *rm, rv_run_pending_t *p)
{
    const rv_net_answer_t *a = &p->ans;
    if (a->magic != RV_NET_MAGIC_A || a->version != RV_NET_VERSION) {
        rv_run_refuse(rm, p, "not a rivetrun agent of this version");
        return;
    }
    unsigned char mac[RV_SHA256_LEN];
    rv_net_mac(job->secret, "rivetrun-agent", p->nonce, a->nonce, a->host, mac);
    if (!rv_auth_equal(mac, a->mac, sizeof mac)) {
        rv_run_refuse(rm, p, "it did not prove that it knows the job secret");
        return;
    }
    if (a->host >= rm->nhosts || rm->host[a->host].state != RV_HOST_LAUNCHING) {
        rv_run_refuse(rm, p, "an agent for a host that is not waiting for one");
        return;
    }
    rv_run_host_t *h = &rm->host[a->host];
    if (job->srv.end.ending) {   /* too late: the agent sees the connection close and leaves */
        rv_run_log(job, "host %s connected while the job ends; sent it away", h->name);
        rv_run_pending_close(p);
        h->state = RV_HOST_CLOSED;
        rv_run_forget_ranks(job, h);
        return;
    }
    rv_net_proof_t proof;
    rv_net_mac(job->secret, "rivetrun-launcher", a->nonce, p->nonce, a->host, proof.mac);
    if (send(p->fd, &proof, sizeof proof, MSG_DONTWAIT | MSG_NOSIGNAL) != (ssize_t)sizeof proof) {
        rv_run_refuse(rm, p, "the connection broke during the handshake");
        return;
    }
    rv_net_conn_init(&h->conn, p->fd);
    snprintf(h->peer, sizeof h->peer, "%s", p->peer);
    p->fd = -1;
    h->state = RV_HOST_UP;
    rv_run_log(job, "host %s: agent connected from %s", h->name, h->peer);
    uint32_t head[3] = {h->first, h->count, job->size};
    size_t len = sizeof head + rm->spec_len;
    unsigned char *spec = malloc(len);
    int rc = -1;
    if (spec) {
        memcpy(spec, head, sizeof head);
        memcpy(spec + sizeof head, rm->spec, rm->spec_len);
        rc = rv_net_queue(&h->conn, RV_NET_SPEC, 0, 0, 0, spec, len);
        free(spec);
    }
    if (rc) {
        rv_run_host_lost(job, h, "out of memory");
        return;
    }
    rv_run_host_flush(job, h);
}

static void rv_run_pending_read(rv_run_job_t *job, rv_run_remote_t *rm, rv_run_pending_t *p)
{
    for (;;) {
        ssize_t n = recv(p->fd, (char *)&p->ans + p->got, sizeof p->ans - p->got, MSG_DONTWAIT);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return;
        if (n <= 0) {
            rv_run_log(job, "connection from %s closed during the handshake", p->peer);
            rv_run_refuse(rm, p, "it closed the connection without answering the challenge");
            return;
        }
        p->got += (size_t)n;
        if (p->got == sizeof p->ans) {
            rv_run_answer(job, rm, p);
            return;
        }
    }
}

/* ---- frames from the agents --------------------------------------------- */

static int rv_run_frame(rv_run_job_t *job, rv_run_host_t *h, const rv_net_frame_t *f,
                        const unsigned char *payload)
{
    uint32_t r = f->rank;
    int ranked = f->type == RV_NET_STARTED || f->type == RV_NET_RECORD || f->type == RV_NET_EXITED
                 || f->type == RV_NET_FILE;
    if (ranked && (r < h->first || r - h->first >= h->count)) return -1;
    switch (f->type) {
    case RV_NET_STARTED:
        if (job->rank[r].pid) return -1;
        job->rank[r].pid = (pid_t)f->arg;   /* the agent logged it (-v) */
        return 0;
    case RV_NET_NOSTART:   /* the agent printed why; its output comes through the shell */
        if (!job->srv.end.ending) {
            fprintf(stderr, "rivetrun: host %s could not start its ranks\n", h->name);
            rv_run_end_failed(job, (int)f->arg ? (int)f->arg : RV_RUN_EXIT_ERROR);
        }
        rv_run_forget_ranks(job, h);
        return 0;
    case RV_NET_RECORD:
        rv_run_remote_record(job, r, payload, (size_t)f->len, f->flags & 1);
        return 0;
    case RV_NET_EXITED:
        if (!job->rank[r].reaped) rv_run_reaped(job, r, (int)f->arg);
        return 0;
    case RV_NET_FILE:
        rv_run_obs_file(r, f->arg, f->flags & 1, payload, (size_t)f->len);
        return 0;
    default:
        return -1;
    }
}

static void rv_run_host_read(rv_run_job_t *job, rv_run_host_t *h)
{
    int rc = rv_net_read(&h->conn);
    /* Frames already received count, even when the connection then closed. */
    rv_net_frame_t f;
    const unsigned char *payload;
    int got;
    while (h->state == RV_HOST_UP
           && (got = rv_net_next(&h->conn, RV_NET_MAX_UP, &f, &payload)) != 0) {
        if (got < 0 || rv_run_frame(job, h, &f, payload) != 0) {
            rv_run_host_lost(job, h, "protocol error (is it the same rivetrun version?)");
            return;
        }
        if (h->state == RV_HOST_UP) rv_net_consume(&h->conn, &f);
    }
    if (rc < 0 && h->state == RV_HOST_UP)
        rv_run_host_lost(job, h, errno ? strerror(errno) : "the agent closed it");
}

/* ---- the poll loop's hooks ------------------------------------------------ */

int rv_run_remote_npoll(rv_run_job_t *job)
{
    return 1 + (int)job->remote->nhosts + RV_RUN_PENDING;
}

void rv_run_remote_fill(rv_run_job_t *job, struct pollfd *p)
{
    rv_run_remote_t *rm = job->remote;
    p[0].fd = rm->listen_fd;
    p[0].events = POLLIN;
    p[0].revents = 0;
    for (uint32_t h = 0; h < rm->nhosts; h++) {
        rv_run_host_t *ho = &rm->host[h];
        p[1 + h].fd = ho->state == RV_HOST_UP ? ho->conn.fd : -1;
        p[1 + h].events = POLLIN | (rv_net_pending(&ho->conn) ? POLLOUT : 0);
        p[1 + h].revents = 0;
    }
    for (int i = 0; i < RV_RUN_PENDING; i++) {
        p[1 + rm->nhosts + (uint32_t)i].fd = rm->pending[i].fd;
        p[1 + rm->nhosts + (uint32_t)i].events = POLLIN;
        p[1 + rm->nhosts + (uint32_t)i].revents = 0;
    }
}

void rv_run_remote_events(rv_run_job_t *job, const struct pollfd *p)
{
    rv_run_remote_t *rm = job->remote;
    for (uint32_t h = 0; h < rm->nhosts; h++) {
        rv_run_host_t *ho = &rm->host[h];
        short re = p[1 + h].revents;
        if (!re || ho->state != RV_HOST_UP) continue;
        if (re & (POLLIN | POLLHUP | POLLERR)) rv_run_host_read(job, ho);
        if (re & POLLOUT) rv_run_host_flush(job, ho);
    }
    for (int i = 0; i < RV_RUN_PENDING; i++)
        if (p[1 + rm->nhosts + (uint32_t)i].revents && rm->pending[i].fd >= 0)
            rv_run_pending_read(job, rm, &rm->pending[i]);
    if (p[0].revents && rm->listen_fd >= 0) rv_run_accept(job, rm);
}

int64_t rv_run_remote_tick(rv_run_job_t *job, int64_t now)
{
    rv_run_remote_t *rm = job->remote;
    int64_t next = 0;
#define RV_NEXT(t) do { if ((t) && (!next || (t) < next)) next = (t); } while (0)
    int launching = 0;
    for (uint32_t h = 0; h < rm->nhosts; h++) launching |= rm->host[h].state == RV_HOST_LAUNCHING;
    if (!launching && rm->listen_fd >= 0) {   /* every agent is in: nobody else may come */
        close(rm->listen_fd);
        rm->listen_fd = -1;
        for (int i = 0; i < RV_RUN_PENDING; i++) rv_run_pending_close(&rm->pending[i]);
        char sb[512];
        rv_run_strangers(rm, sb, sizeof sb);
        if (sb[0]) fprintf(stderr, "rivetrun: while the agents connected, %s\n", sb);
    }
    if (launching && rm->launch_deadline) {
        if (now >= rm->launch_deadline) {
            rm->launch_deadline = 0;
            char sb[512];
            rv_run_strangers(rm, sb, sizeof sb);
            if (sb[0] && !job->srv.end.ending)
                fprintf(stderr, "rivetrun: while waiting for the agents, %s\n", sb);
            for (uint32_t h = 0; h < rm->nhosts; h++) {
                rv_run_host_t *ho = &rm->host[h];
                if (ho->state != RV_HOST_LAUNCHING || job->srv.end.ending) continue;
                char rb[64];
                rv_run_range(ho, rb, sizeof rb);
                fprintf(stderr, "rivetrun: host %s (%s) did not connect back within %llu s "
                        "(RIVET_LAUNCH_TIMEOUT): check that '%s %s true' works without a "
                        "password, that %s exists there, and that %s can reach this host at %s "
                        "TCP port %u (firewall? RIVET_LAUNCH_ADDR, RIVET_LAUNCH_PORTS)\n",
                        ho->name, rb, (unsigned long long)rv_cfg.LAUNCH_TIMEOUT, rv_cfg.SSH,
                        ho->name, rm->agent, ho->name, rm->addrs, rm->port);
            }
            rv_run_end_failed(job, RV_RUN_EXIT_ERROR);
        } else {
            RV_NEXT(rm->launch_deadline);
        }
    }
    for (int i = 0; i < RV_RUN_PENDING; i++) {
        rv_run_pending_t *p = &rm->pending[i];
        if (p->fd < 0) continue;
        if (now >= p->deadline) {
            rv_run_refuse_note(rm, p->peer, "no handshake within 10 s");
            rm->n_timedout++;
            rv_run_pending_close(p);
        }
        else RV_NEXT(p->deadline);
    }
    /* Every rank is gone: the agents finish by themselves; shells that stay get ended. */
    int ranks_alive = 0, shells = 0;
    for (uint32_t r = 0; r < job->opt.np && !ranks_alive; r++) ranks_alive = !job->rank[r].reaped;
    for (uint32_t h = 0; h < rm->nhosts; h++) shells += rm->host[h].shell && !rm->host[h].shell_done;
    if (!ranks_alive && shells && !rm->abandoned) {
        if (!rm->linger_term) rm->linger_term = now + RV_RUN_LINGER_MS;
        if (rm->linger_term > 0 && now >= rm->linger_term) {
            rv_run_log(job, "%d remote shell(s) still running after the job: SIGTERM", shells);
            for (uint32_t h = 0; h < rm->nhosts; h++)
                if (rm->host[h].shell && !rm->host[h].shell_done) kill(rm->host[h].shell, SIGTERM);
            rm->linger_term = -1;
            rm->linger_kill = now + RV_RUN_GRACE_MS;
        }
        if (rm->linger_kill && now >= rm->linger_kill) {
            for (uint32_t h = 0; h < rm->nhosts; h++)
                if (rm->host[h].shell && !rm->host[h].shell_done) kill(rm->host[h].shell, SIGKILL);
            rm->linger_kill = 0;
            rm->linger_giveup = now + RV_RUN_REAP_MS;
        }
        if (rm->linger_giveup && now >= rm->linger_giveup) {
            fprintf(stderr, "rivetrun: %d remote shell(s) did not exit; giving up on them\n", shells);
            rm->abandoned = 1;
        }
        if (rm->linger_term > 0) RV_NEXT(rm->linger_term);
        RV_NEXT(rm->linger_kill);
        RV_NEXT(rm->linger_giveup);
    }
#undef RV_NEXT
    return next;
}

int rv_run_remote_child(rv_run_job_t *job, pid_t pid, int status)
{
    rv_run_remote_t *rm = job->remote;
    for (uint32_t hi = 0; hi < rm->nhosts; hi++) {
        rv_run_host_t *h = &rm->host[hi];
        if (h->shell != pid || h->shell_done) continue;
        h->shell_done = 1;
        h->shell_status = status;
        char sb[16], st[48];
        if (WIFEXITED(status)) snprintf(st, sizeof st, "status %d", WEXITSTATUS(status));
        else snprintf(st, sizeof st, "signal %s", rv_boot_signame(WTERMSIG(status), sb));
        if (h->state == RV_HOST_LAUNCHING) {
            h->state = RV_HOST_CLOSED;
            if (!job->srv.end.ending) {
                char rb[64];
                rv_run_range(h, rb, sizeof rb);
                char sb[512];
                rv_run_strangers(job->remote, sb, sizeof sb);
                if (sb[0]) fprintf(stderr, "rivetrun: while waiting for the agents, %s\n", sb);
                fprintf(stderr, "rivetrun: cannot start %s on host %s: the remote shell '%s %s "
                        "...' exited with %s before the agent connected back (is the host name "
                        "right? does '%s %s true' work without a password? is %s there?)\n",
                        rb, h->name, rv_cfg.SSH, h->name, st, rv_cfg.SSH, h->name, job->remote->agent);
                rv_run_end_failed(job, RV_RUN_EXIT_ERROR);
            }
            rv_run_forget_ranks(job, h);
        } else if (!job->srv.end.ending && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
            /* the agent failed after all, or the shell died under it: its output may be lost */
            fprintf(stderr, "rivetrun: warning: the remote shell of host %s exited with %s\n",
                    h->name, st);
        } else {
            rv_run_log(job, "host %s: remote shell exited with %s", h->name, st);
        }
        return 1;
    }
    return 0;
}

int rv_run_remote_busy(rv_run_job_t *job)
{
    rv_run_remote_t *rm = job->remote;
    if (rm->abandoned) return 0;
    for (uint32_t h = 0; h < rm->nhosts; h++)
        if (rm->host[h].shell && !rm->host[h].shell_done) return 1;
    return 0;
}

void rv_run_remote_result(rv_run_job_t *job, rv_run_result_t *res)
{
    rv_run_remote_t *rm = job->remote;
    for (uint32_t hi = 0; hi < rm->nhosts; hi++) {
        rv_run_host_t *h = &rm->host[hi];
        if (h->state != RV_HOST_UP || rv_run_host_all_gone(job, h)) continue;
        if (h->res) {   /* impossible with sequential collectives */
            rv_run_fail(job, "host %s started a bootstrap collective before receiving the "
                        "result of the previous one", h->name);
            return;
        }
        res->refs++;
        h->res = res;
        rv_net_conn_t *c = &h->conn;
        c->res = res;
        c->res_bytes = res->bytes;
        memset(&c->res_hdr, 0, sizeof c->res_hdr);
        c->res_hdr.magic = RV_NET_MAGIC_F;
        c->res_hdr.type = RV_NET_RESULT;
        c->res_hdr.arg = res->seq;
        c->res_hdr.len = res->len;
        c->res_total = sizeof c->res_hdr + res->len;
        c->res_off = 0;
        rv_run_host_flush(job, h);
    }
}

void rv_run_remote_signal(rv_run_job_t *job, uint32_t r, int sig)
{
    rv_run_remote_t *rm = job->remote;
    rv_run_host_t *h = &rm->host[job->rank[r].host];
    if (h->state == RV_HOST_UP) {
        if (rv_net_queue(&h->conn, RV_NET_SIGNAL, 0, r, (uint32_t)sig, NULL, 0))
            rv_run_host_lost(job, h, "out of memory");
        else
            rv_run_host_flush(job, h);
    } else if (h->state == RV_HOST_LAUNCHING && h->shell && !h->shell_done && r == h->first) {
        kill(h->shell, sig);   /* not started yet: end the launch itself */
    }
}

void rv_run_remote_where(rv_run_job_t *job, uint32_t r, char *buf, size_t n)
{
    rv_run_host_t *h = &job->remote->host[job->rank[r].host];
    if (job->rank[r].pid) snprintf(buf, n, "pid %ld on host %s", (long)job->rank[r].pid, h->name);
    else snprintf(buf, n, "on host %s", h->name);
}

void rv_run_remote_fini(rv_run_job_t *job)
{
    rv_run_remote_t *rm = job->remote;
    if (!rm) return;
    if (rm->listen_fd >= 0) close(rm->listen_fd);
    for (int i = 0; i < RV_RUN_PENDING; i++) rv_run_pending_close(&rm->pending[i]);
    /* Agents whose connection closes kill their ranks: nothing outlives the job. */
    for (uint32_t h = 0; h < rm->nhosts; h++) {
        rv_run_host_t *ho = &rm->host[h];
        if (ho->state == RV_HOST_UP) rv_run_host_flush(job, ho);
        rv_run_host_close(job, ho);
        if (ho->shell && !ho->shell_done && !rm->abandoned) {
            kill(ho->shell, SIGKILL);
            int st;
            while (waitpid(ho->shell, &st, 0) < 0 && errno == EINTR) {}
            ho->shell_done = 1;
        }
    }
    free(rm->host);
    if (rm->shell) free(rm->shell[0]);
    free(rm->shell);
    free(rm->spec);
    free(rm);
    job->remote = NULL;
}
