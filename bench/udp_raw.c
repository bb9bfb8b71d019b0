/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/udp_raw.c: raw kernel UDP numbers, the yardstick for Rivet's udp transport: a datagram
 * ping-pong round trip (udp_rtt) and a one-way datagram stream (udp_stream), both busy-polling
 * non-blocking sockets on 127.0.0.1 like the transport's poll. The stream is windowed as the
 * transport's is: at most 64 datagrams unacknowledged (fewer when they would not fit the
 * socket's receive buffer), the receiver returning a credit datagram
 * every 16, so the socket buffers never overflow and the number is what a reliable sender could
 * reach. Two processes (fork), ports swapped over a socketpair: no Rivet, no launcher. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define WINDOW 64 /* datagrams in flight in the stream (the transport's RIVET_UDP_WINDOW) */
#define CREDIT 16 /* the receiver returns a credit every this many datagrams */
#define DMAX   65000

typedef struct {
    int me, sock, fd;
    long win; /* stream window: 64 datagrams, fewer when that would overflow the buffer */
    struct sockaddr_in peer;
    unsigned char *buf;
} raw_t;

static void xfer(int fd, void *out, void *in, size_t n)
{
    if (write(fd, out, n) != (ssize_t)n) { perror("udp_raw: write"); exit(1); }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)in + got, n - got);
        if (r <= 0) { perror("udp_raw: read"); exit(1); }
        got += (size_t)r;
    }
}

static void sync2(raw_t *r)
{
    char a = 1, b;
    xfer(r->sock, &a, &b, 1);
}

static void setup(raw_t *r)
{
    r->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr = { htonl(INADDR_LOOPBACK) } };
    socklen_t sl = sizeof a;
    int big = 8 << 20;
    setsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
    setsockopt(r->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
    if (r->fd < 0 || bind(r->fd, (struct sockaddr *)&a, sizeof a) ||
        getsockname(r->fd, (struct sockaddr *)&a, &sl)) {
        perror("udp_raw: socket");
        exit(1);
    }
    xfer(r->sock, &a, &r->peer, sizeof a);
    r->buf = bu_alloc(DMAX + 64);
}

static void snd(raw_t *r, size_t n)
{
    while (sendto(r->fd, r->buf, n, 0, (struct sockaddr *)&r->peer, sizeof r->peer) < 0) {}
}

/* Busy-polls until a datagram arrives; returns its length. */
static size_t rcv(raw_t *r)
{
    ssize_t k;
    while ((k = recv(r->fd, r->buf, DMAX, MSG_DONTWAIT)) < 0) {}
    return (size_t)k;
}

/* Seconds per round trip of an n-byte datagram. */
static double pingpong(raw_t *r, size_t n, long iters)
{
    sync2(r);
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        if (r->me == 0) {
            snd(r, n);
            rcv(r);
        } else {
            rcv(r);
            snd(r, n);
        }
    }
    double t = bu_now() - t0;
    sync2(r);
    return t / (double)iters;
}

/* A stream of 'iters' n-byte datagrams from rank 0 to rank 1, at most r->win unacknowledged,
 * each tagged (trial, index) so that nothing of an earlier trial is counted. Returns MB/s as
 * rank 1 received them. A lost datagram (not expected: the window fits the receive buffer)
 * stalls the sender 50 ms, which then goes on, and shows as a slower trial. */
static double stream(raw_t *r, size_t n, long iters)
{
    static int64_t trial;
    trial++;
    sync2(r);
    double t0 = bu_now(), t = 0;
    int64_t *tag = (int64_t *)(void *)r->buf;
    long got = 0;
    if (r->me == 0) {
        long sent = 0, credited = 0;
        double stall = 0;
        while (credited < iters) {
            while (sent < iters && sent - credited < r->win) {
                tag[0] = trial;
                tag[1] = sent++;
                snd(r, n);
            }
            ssize_t k = recv(r->fd, r->buf, DMAX, MSG_DONTWAIT);
            if (k == 16 && tag[0] == trial) {
                if (tag[1] > credited) credited = (long)tag[1];
                stall = 0;
            } else if (stall == 0) {
                stall = bu_now();
            } else if (bu_now() - stall > 0.05) { /* a datagram or credit was lost: go on */
                credited = sent;
                stall = 0;
            }
        }
        char done = 1;
        if (write(r->sock, &done, 1) != 1) exit(1);
    } else {
        int done = 0;
        while (got < iters && !done) {
            ssize_t k = recv(r->fd, r->buf, DMAX, MSG_DONTWAIT);
            if (k < 0) {
                char c;
                done = recv(r->sock, &c, 1, MSG_DONTWAIT) == 1; /* the sender gave up */
                continue;
            }
            if ((size_t)k != n || tag[0] != trial) continue;
            got++;
            t = bu_now() - t0;
            if (got % CREDIT == 0 || got == iters) {
                int64_t c[2] = { trial, got };
                sendto(r->fd, c, sizeof c, 0, (struct sockaddr *)&r->peer, sizeof r->peer);
            }
        }
        char c;
        if (!done && read(r->sock, &c, 1) != 1) exit(1);
    }
    double res[2] = { t, (double)got }, peer[2];
    xfer(r->sock, res, peer, sizeof res); /* rank 0 reports what rank 1 received */
    if (r->me == 0) {
        t = peer[0];
        got = (long)peer[1];
    }
    return t > 0 ? (double)n * (double)got / t / 1e6 : 0;
}

static void run(raw_t *r, bu_opts_t *o)
{
    double vals[BU_MAX_TRIALS];
    const char *extra = "\"transport\":\"kernel UDP, 127.0.0.1, busy-polling\"";
    if (bu_selected(o, "udp_rtt", "pingpong")) {
        for (size_t n = o->min_size > 8 ? o->min_size : 8; n <= o->max_size && n <= 8192; n *= 8) {
            long iters = bu_iters(o, 20000, n, 32.0 * 1024 * 1024, 4);
            pingpong(r, n, iters / 4 + 1); /* warm-up */
            for (int t = 0; t < o->trials; t++) vals[t] = 1e6 * pingpong(r, n, iters);
            if (r->me == 0) bu_report(o, "udp_rtt", "pingpong", n, "latency", "us", vals,
                                      o->trials, extra);
        }
    }
    if (bu_selected(o, "udp_stream", "window64")) {
        static const size_t sz[] = { 1472, 8192, 65000 };
        for (size_t i = 0; i < sizeof sz / sizeof sz[0]; i++) {
            size_t n = sz[i];
            if (n > o->max_size && i > 0) break;
            int rb = 0;
            socklen_t rl = sizeof rb;
            getsockopt(r->fd, SOL_SOCKET, SO_RCVBUF, &rb, &rl);
            r->win = rb / (long)(3 * n) < WINDOW ? rb / (long)(3 * n) : WINDOW;
            if (r->win < 4) r->win = 4;
            long iters = bu_iters(o, 20000, n, 256.0 * 1024 * 1024, 64);
            stream(r, n, iters / 4 + 1);
            for (int t = 0; t < o->trials; t++) vals[t] = stream(r, n, iters);
            if (r->me == 0) bu_report(o, "udp_stream", "window64", n, "bandwidth", "MB/s", vals,
                                      o->trials, extra);
        }
    }
}

int main(int argc, char **argv)
{
    bu_opts_t o;
    if (bu_parse_args(&o, argc, argv, "udp-raw", NULL)) return 2;
    o.ranks = 2;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) { perror("udp_raw: socketpair"); return 1; }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) { perror("udp_raw: fork"); return 1; }
    raw_t r = { .me = child == 0, .sock = child == 0 ? sv[1] : sv[0] };
    close(child == 0 ? sv[0] : sv[1]);
    setup(&r);
    run(&r, &o);
    sync2(&r);
    close(r.fd);
    free(r.buf);
    if (child == 0) _exit(0);
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
