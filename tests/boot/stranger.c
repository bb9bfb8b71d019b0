/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/stranger.c: a process that does not know the job secret, against rivetrun's
 * agent port (multi-host launch). It connects before the real agent does and returns once it is
 * in place; a child carries on until rivetrun stops listening (or 90 s pass):
 *   stranger hold N PORT      opens N connections and keeps each open, never answering
 *   stranger garbage N PORT   N connections at a time, each answering the challenge with bytes
 *                             that are not a valid answer (random, or well-formed with a wrong
 *                             proof), then reconnecting once refused
 * Prints what happened to its connections on stderr when it ends. */
#include "net.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static unsigned short port;

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* A blocking connect to 127.0.0.1:port. -1: refused (nobody listens any more). */
static int dial(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
        if (fd >= 0) close(fd);
        return -1;
    }
    return fd;
}

/* Reads the challenge and sends a bad answer (kind 0: random bytes, 1: right form, wrong proof). */
static int send_garbage(int fd, int kind)
{
    rv_net_challenge_t ch;
    size_t got = 0;
    while (got < sizeof ch) {
        ssize_t n = read(fd, (char *)&ch + got, sizeof ch - got);
        if (n <= 0) return -1;
        got += (size_t)n;
    }
    rv_net_answer_t ans;
    if (getrandom(&ans, sizeof ans, 0) != (ssize_t)sizeof ans) return -1;
    if (kind) {
        ans.magic = RV_NET_MAGIC_A;
        ans.version = RV_NET_VERSION;
        ans.host = 1;
    }
    return write(fd, &ans, sizeof ans) == (ssize_t)sizeof ans ? 0 : -1;
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[1], "hold") && strcmp(argv[1], "garbage"))) {
        fprintf(stderr, "usage: stranger hold|garbage N PORT\n");
        return 2;
    }
    int garbage = !strcmp(argv[1], "garbage");
    int n = atoi(argv[2]);
    port = (unsigned short)atoi(argv[3]);
    if (n < 1 || n > 900 || !port) return 2;
    int *fd = calloc((size_t)n, sizeof *fd);
    struct pollfd *p = calloc((size_t)n, sizeof *p);
    if (!fd || !p) return 2;
    unsigned sent = 0, closed = 0;
    for (int i = 0; i < n; i++) {
        if ((fd[i] = dial()) < 0) {
            fprintf(stderr, "stranger: cannot connect to port %u: %s\n", port, strerror(errno));
            free(fd);
            free(p);
            return 1;
        }
        if (garbage && send_garbage(fd[i], (int)(sent++ & 1)) != 0) sent--;
    }
    /* In place: the caller goes on (starts the real agent); a child keeps the connections. */
    fflush(stderr);
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid > 0) {   /* the child has the connections; ours close with us */
        free(fd);
        free(p);
        return 0;
    }
    long long end = now_ms() + 90000;
    int open_fds = n, refused = 0;
    while (open_fds > 0 && !refused && now_ms() < end) {
        for (int i = 0; i < n; i++) p[i] = (struct pollfd){fd[i], POLLIN, 0};
        int k = poll(p, (nfds_t)n, 1000);
        if (k < 0 && errno != EINTR) break;
        for (int i = 0; i < n && k > 0; i++) {
            if (fd[i] < 0 || !p[i].revents) continue;
            char b[256];
            if (read(fd[i], b, sizeof b) > 0) continue;   /* e.g. a challenge we ignore */
            close(fd[i]);
            fd[i] = -1;
            closed++;
            if (garbage) {   /* refused: try again, until nobody listens */
                if ((fd[i] = dial()) < 0) refused = 1;
                else if (send_garbage(fd[i], (int)(sent++ & 1)) != 0) sent--;
            }
            if (fd[i] < 0) open_fds--;
        }
    }
    fprintf(stderr, "stranger: %s: %u connection(s) closed by rivetrun, %u bad answers sent%s\n",
            argv[1], closed, sent, refused ? "; rivetrun stopped listening" : "");
    free(fd);
    free(p);
    return 0;
}
