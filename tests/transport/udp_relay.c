/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/udp_relay.c: a bad network between the ranks of a udp job, for the tests.
 *
 *   udp_relay --ranks N [--drop P] [--dup P] [--reorder P] [--delay-us D] [--jitter-us J]
 *             [--reorder-us R] [--fuzz P] [--cut RANK:AFTER] [--tail-drop P] [--tail-us T]
 *             [--seed S] -- command...
 *
 * binds N consecutive UDP ports BASE..BASE+N-1 on 127.0.0.1 and runs the command (rivetrun and
 * a job) with RIVET_UDP_RELAY=127.0.0.1:BASE: every rank then sends its datagrams for rank r to
 * BASE+r, and registers its real address at BASE+its rank (udp.c, rv_udp_relay). A datagram
 * arriving at BASE+r from rank s's real address is forwarded to rank r's real address from port
 * BASE+s, which is the address rank r knows for rank s: the job's address check and token still
 * authenticate every datagram. On the way, per thousand datagrams (P, independently): P are
 * dropped, P duplicated, P held back R us (default 1000) so later ones overtake them; every one
 * is delayed D us plus up to J us more (jitter reorders too).
 *
 * --fuzz P: for P of every 1000 forwarded datagrams, the destination also gets garbage: from a
 * socket outside the job, random bytes of random lengths and mutated copies of the datagram
 * (the job's token with a wrong rank, sequence number, length or flags, truncated headers,
 * flipped bytes); from the sender's own stand-in port, copies with a wrong token or a header
 * cut short. None of it may reach a handler: the job's own data checks must pass.
 *
 * --cut RANK:AFTER: after AFTER datagrams were forwarded, everything to and from RANK is dropped
 * (a host that disappears): the job must end with a message, not hang.
 *
 * --tail-drop P: P of every 1000 tails of bursts are dropped: a data datagram after which its
 * sender sends the same rank nothing for T us (--tail-us, default 300) is a tail (every data
 * datagram waits up to T us to be told apart). Only a datagram's first passage is dropped (by
 * stream and sequence number), so its retransmission goes through: recovery is then as fast as
 * the sender notices the tail is missing (without a tail-loss probe: its retransmission
 * timeout).
 *
 * The relay exits with the command's status; it fails a job that succeeded without sending a
 * single datagram through it (RIVET_UDP_RELAY ignored). Counts go to stderr at the end. */
#include "transport/udp/udp_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "rv_rand.h"

#define MAXR      256
#define DGRAM_MAX 65536
#define QMAX      200000
#define RELAY_MAGIC 0x79616c65725f7672ull /* "rv_relay", as udp.c's registration */

typedef struct {
    uint64_t due;
    uint32_t from, to, len;
    unsigned char *d;
} item_t;

static int nr, fd[MAXR], stranger = -1;
static struct sockaddr_in real[MAXR];
static int known[MAXR];
static unsigned p_drop, p_dup, p_reorder, p_fuzz;
static uint64_t delay_ns, jitter_ns, reorder_ns = 1000000;
static int cut_rank = -1;
static unsigned p_tail;
static uint64_t tail_ns = 300000;
/* --tail-drop: per (sender, destination), the last data datagram, held until it is known
 * whether another follows; the streams' sequence numbers already dropped (never twice) */
static struct held { unsigned char *d; uint32_t len; uint64_t at; } *tailq;
#define TAIL_SEEN 65536
static uint64_t tail_seen[TAIL_SEEN]; /* open addressing; key + 1, 0: empty */
static size_t ntail_seen;
static uint64_t cut_after;
static uint64_t rng = 0x243f6a8885a308d3ull;
static item_t *q;
static size_t nq;
static struct {
    uint64_t in, fwd, drop, dup, reorder, qfull, unknown, fuzz, cut, reg, sendfail, tails, tail_drop;
} st;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t rnd(void) { return rvt_rand(&rng); }

static int chance(unsigned permille) { return permille && rnd() % 1000 < permille; }

static void out(int sfd, const void *d, size_t len, const struct sockaddr_in *to)
{
    if (sendto(sfd, d, len, 0, (const struct sockaddr *)to, sizeof *to) < 0) st.sendfail++;
}

/* ---- the delay queue: a binary heap on due time ------------------------------------------ */
static void q_push(uint64_t due, uint32_t from, uint32_t to, const void *d, uint32_t len)
{
    if (nq == QMAX) {
        st.qfull++;
        return;
    }
    unsigned char *c = malloc(len ? len : 1);
    if (!c) {
        st.qfull++;
        return;
    }
    memcpy(c, d, len);
    size_t i = nq++;
    while (i && q[(i - 1) / 2].due > due) {
        q[i] = q[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    q[i] = (item_t){ due, from, to, len, c };
}

static void q_pop(void)
{
    item_t last = q[--nq];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= nq) break;
        if (c + 1 < nq && q[c + 1].due < q[c].due) c++;
        if (q[c].due >= last.due) break;
        q[i] = q[c];
        i = c;
    }
    if (nq) q[i] = last;
}

static void q_run(uint64_t now)
{
    while (nq && q[0].due <= now) {
        item_t it = q[0];
        q_pop();
        out(fd[it.from], it.d, it.len, &real[it.to]);
        free(it.d);
    }
}

/* ---- fuzz: garbage to rank 'to' next to a real datagram from 'from' ------------------------ */
static void fuzz(uint32_t from, uint32_t to, const unsigned char *d, size_t len)
{
    static unsigned char m[DGRAM_MAX];
    const struct sockaddr_in *dst = &real[to];
    rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)m;
    size_t n = len;
    memcpy(m, d, len);
    unsigned kind = (unsigned)(rnd() % 10);
    int sfd = stranger; /* outside the job */
    switch (kind) {
    case 0: /* random bytes, random length */
        n = (size_t)(rnd() % 9100);
        for (size_t i = 0; i < n; i++) m[i] = (unsigned char)rnd();
        break;
    case 1: /* the job's token, another rank's number */
        if (len >= sizeof *h) h->src = (uint32_t)(rnd() % (uint64_t)(nr + 2));
        break;
    case 2: /* bogus sequence number (near the real one or anywhere) */
        if (len >= sizeof *h) h->seq += rnd() & 1 ? (uint32_t)(rnd() % 64) - 32 : (uint32_t)rnd();
        break;
    case 3: /* bogus message length, flags, channel, kind */
        if (len >= sizeof *h) {
            h->msglen = (uint32_t)rnd();
            h->flags = (uint8_t)rnd();
            h->chan = (uint8_t)rnd();
            h->kind = (uint8_t)rnd();
        }
        break;
    case 4: /* truncated, anywhere from nothing to one byte short of the header */
        n = (size_t)(rnd() % sizeof *h);
        break;
    case 5: /* flipped bytes anywhere, and a length that disagrees with the header */
        for (int i = 0; i < 8 && len; i++) m[rnd() % len] ^= (unsigned char)(1u + rnd() % 255);
        n = (size_t)(rnd() % (len + 64));
        break;
    case 6: /* bogus acknowledgements and the rest of the header: random bytes behind the
             * token and rank (no field names: the header may grow) */
        for (size_t i = offsetof(rv_udp_hdr_t, src) + sizeof h->src; i < sizeof *h && i < len; i++)
            m[i] = (unsigned char)rnd();
        break;
    case 7: /* from the sender's own stand-in port: a wrong token, the rest intact */
    case 8:
        sfd = fd[from];
        if (len >= 8) h->token ^= 1ull << (rnd() % 64);
        if (kind == 8) { /* ... and bogus fields too */
            if (len >= sizeof *h) {
                h->seq = (uint32_t)rnd();
                h->msglen = (uint32_t)rnd();
            }
        }
        break;
    default: /* from the sender's stand-in port: the header cut short (token intact) */
        sfd = fd[from];
        n = (size_t)(rnd() % sizeof *h);
        if (n > len) n = len;
        break;
    }
    out(sfd, m, n, dst);
    st.fuzz++;
}

/* ---- one datagram that arrived at rank 'to's stand-in port --------------------------------- */
static void forward(uint32_t from, uint32_t to, const unsigned char *d, size_t len);
static void tail_next(uint32_t from, uint32_t to, const unsigned char *d, size_t len);

static void arrive(uint32_t to, const unsigned char *d, size_t len, const struct sockaddr_in *src)
{
    uint64_t magic;
    if (len == 16 && (memcpy(&magic, d, 8), magic == RELAY_MAGIC)) {
        real[to] = *src; /* the rank's registration at its own stand-in port */
        known[to] = 1;
        st.reg++;
        return;
    }
    int from = -1;
    for (int r = 0; r < nr && from < 0; r++)
        if (known[r] && real[r].sin_addr.s_addr == src->sin_addr.s_addr &&
            real[r].sin_port == src->sin_port)
            from = r;
    if (from < 0 || !known[to]) {
        st.unknown++; /* not (yet) a registered rank's: lost, retransmission recovers */
        return;
    }
    st.in++;
    if (p_tail) {
        tail_next((uint32_t)from, to, d, len);
        return;
    }
    forward((uint32_t)from, to, d, len);
}

/* ---- a datagram from rank 'from' to rank 'to' on the bad network ------------------------- */
static void forward(uint32_t from, uint32_t to, const unsigned char *d, size_t len)
{
    if (cut_rank >= 0 && st.in > cut_after && ((int)from == cut_rank || (int)to == cut_rank)) {
        st.cut++;
        return;
    }
    if (p_fuzz && chance(p_fuzz)) fuzz(from, to, d, len);
    if (chance(p_drop)) {
        st.drop++;
        return;
    }
    int copies = 1 + chance(p_dup);
    st.dup += (uint64_t)(copies - 1);
    uint64_t now = now_ns();
    for (int c = 0; c < copies; c++) {
        uint64_t delay = delay_ns + (jitter_ns ? rnd() % jitter_ns : 0);
        if (chance(p_reorder)) {
            delay += reorder_ns;
            st.reorder++;
        }
        st.fwd++;
        if (!delay) out(fd[from], d, len, &real[to]);
        else q_push(now + delay, from, to, d, (uint32_t)len);
    }
}

/* --tail-drop: was (from, to, chan, seq) dropped as a tail before? Marks it if not. */
static int tail_dropped_before(uint32_t from, uint32_t to, const rv_udp_hdr_t *h)
{
    uint64_t key = (((uint64_t)from * MAXR + to) * 2 + (h->chan & 1)) << 32 | h->seq;
    if (ntail_seen > TAIL_SEEN / 2) return 1; /* full: drop no more */
    size_t i = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 48) % TAIL_SEEN;
    while (tail_seen[i]) {
        if (tail_seen[i] == key + 1) return 1;
        i = (i + 1) % TAIL_SEEN;
    }
    tail_seen[i] = key + 1;
    ntail_seen++;
    return 0;
}

/* The held datagram from 'from' to 'to' goes on: 'tail' if nothing followed it in time. */
static void tail_release(uint32_t from, uint32_t to, int tail)
{
    struct held *hd = &tailq[from * MAXR + to];
    if (!hd->d) return;
    const rv_udp_hdr_t *h = (const rv_udp_hdr_t *)(void *)hd->d;
    if (tail) st.tails++;
    if (tail && chance(p_tail) && !tail_dropped_before(from, to, h)) st.tail_drop++;
    else forward(from, to, hd->d, hd->len);
    free(hd->d);
    hd->d = NULL;
}

/* Another datagram from 'from' to 'to': the held one was no tail; a data datagram is held. */
static void tail_next(uint32_t from, uint32_t to, const unsigned char *d, size_t len)
{
    tail_release(from, to, 0);
    const rv_udp_hdr_t *h = (const rv_udp_hdr_t *)(const void *)d;
    struct held *hd = &tailq[from * MAXR + to];
    if (len < sizeof *h || h->kind != RV_UDP_DATA || !(hd->d = malloc(len))) {
        forward(from, to, d, len);
        return;
    }
    memcpy(hd->d, d, len);
    hd->len = (uint32_t)len;
    hd->at = now_ns();
}

/* Held datagrams nothing followed for tail_ns are tails. Returns the earliest pending time. */
static uint64_t tail_run(uint64_t now)
{
    uint64_t next = UINT64_MAX;
    for (uint32_t f = 0; f < (uint32_t)nr; f++)
        for (uint32_t t = 0; t < (uint32_t)nr; t++) {
            struct held *hd = &tailq[f * MAXR + t];
            if (!hd->d) continue;
            if (now - hd->at >= tail_ns) tail_release(f, t, 1);
            else if (hd->at + tail_ns < next) next = hd->at + tail_ns;
        }
    return next;
}

/* ---- set-up -------------------------------------------------------------------------------- */
static int bind_ports(void)
{
    srand((unsigned)getpid() ^ (unsigned)now_ns());
    for (int attempt = 0; attempt < 200; attempt++) {
        int base = 20000 + rand() % (40000 - nr);
        int r;
        for (r = 0; r < nr; r++) {
            fd[r] = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
            struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)(base + r)),
                                     .sin_addr = { htonl(INADDR_LOOPBACK) } };
            if (fd[r] < 0 || bind(fd[r], (struct sockaddr *)&a, sizeof a) != 0) break;
            int big = 8 << 20;
            setsockopt(fd[r], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
            setsockopt(fd[r], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        }
        if (r == nr) return base;
        for (int k = 0; k <= r && k < nr; k++)
            if (fd[k] >= 0) close(fd[k]);
    }
    return -1;
}

static unsigned permille(const char *s)
{
    char *e;
    unsigned long v = strtoul(s, &e, 10);
    if (*e || v > 1000) {
        fprintf(stderr, "udp_relay: %s is not a rate per thousand (0..1000)\n", s);
        exit(2);
    }
    return (unsigned)v;
}

static void usage(void)
{
    fprintf(stderr, "usage: udp_relay --ranks N [--drop P] [--dup P] [--reorder P] [--delay-us D] "
                    "[--jitter-us J] [--reorder-us R] [--fuzz P] [--cut RANK:AFTER] [--tail-drop P] "
                    "[--tail-us T] [--seed S] -- command...\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int i;
    for (i = 1; i < argc && strcmp(argv[i], "--"); i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v) usage();
        i++;
        if (!strcmp(o, "--ranks")) nr = atoi(v);
        else if (!strcmp(o, "--drop")) p_drop = permille(v);
        else if (!strcmp(o, "--dup")) p_dup = permille(v);
        else if (!strcmp(o, "--reorder")) p_reorder = permille(v);
        else if (!strcmp(o, "--fuzz")) p_fuzz = permille(v);
        else if (!strcmp(o, "--delay-us")) delay_ns = strtoull(v, NULL, 10) * 1000u;
        else if (!strcmp(o, "--jitter-us")) jitter_ns = strtoull(v, NULL, 10) * 1000u;
        else if (!strcmp(o, "--reorder-us")) reorder_ns = strtoull(v, NULL, 10) * 1000u;
        else if (!strcmp(o, "--tail-drop")) p_tail = permille(v);
        else if (!strcmp(o, "--tail-us")) tail_ns = strtoull(v, NULL, 10) * 1000u;
        else if (!strcmp(o, "--seed")) rng = strtoull(v, NULL, 0) | 1;
        else if (!strcmp(o, "--cut")) {
            char *e;
            cut_rank = (int)strtol(v, &e, 10);
            if (*e != ':') usage();
            cut_after = strtoull(e + 1, NULL, 10);
        } else usage();
    }
    if (i >= argc - 1 || nr < 1 || nr > MAXR) usage();
    char **cmd = argv + i + 1;
    q = calloc(QMAX, sizeof *q);
    tailq = calloc((size_t)MAXR * MAXR, sizeof *tailq);
    int base = bind_ports();
    stranger = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (!q || !tailq || base < 0 || stranger < 0) {
        fprintf(stderr, "udp_relay: cannot bind %d consecutive ports on 127.0.0.1\n", nr);
        return 1;
    }
    char env[64];
    snprintf(env, sizeof env, "127.0.0.1:%d", base);
    setenv("RIVET_UDP_RELAY", env, 1);
    fprintf(stderr, "udp_relay: ranks 0..%d at 127.0.0.1:%d..%d; drop %u dup %u reorder %u "
            "(per 1000), delay %llu+%llu us, fuzz %u, cut %d after %llu\n", nr - 1, base,
            base + nr - 1, p_drop, p_dup, p_reorder, (unsigned long long)(delay_ns / 1000),
            (unsigned long long)(jitter_ns / 1000), p_fuzz, cut_rank,
            (unsigned long long)cut_after);
    pid_t child = fork();
    if (child < 0) return 1;
    if (child == 0) {
        execvp(cmd[0], cmd);
        fprintf(stderr, "udp_relay: cannot run %s: %s\n", cmd[0], strerror(errno));
        _exit(127);
    }
    signal(SIGINT, SIG_IGN); /* the child ends the job; we follow it */
    struct pollfd pf[MAXR];
    for (int r = 0; r < nr; r++) pf[r] = (struct pollfd){ .fd = fd[r], .events = POLLIN };
    static unsigned char buf[DGRAM_MAX];
    int status = 0;
    for (;;) {
        pid_t w = waitpid(child, &status, WNOHANG);
        if (w == child) break;
        uint64_t now = now_ns();
        q_run(now);
        uint64_t due = p_tail ? tail_run(now) : UINT64_MAX;
        if (nq && q[0].due < due) due = q[0].due;
        uint64_t wait = due == UINT64_MAX ? 20000000u : due > now ? due - now : 0;
        if (wait > 20000000u) wait = 20000000u;
        struct timespec ts = { 0, (long)wait };
        if (ppoll(pf, (nfds_t)nr, &ts, NULL) <= 0) continue;
        for (int r = 0; r < nr; r++) {
            if (!(pf[r].revents & POLLIN)) continue;
            for (int k = 0; k < 256; k++) {
                struct sockaddr_in src;
                socklen_t sl = sizeof src;
                ssize_t n = recvfrom(fd[r], buf, sizeof buf, MSG_DONTWAIT, (struct sockaddr *)&src, &sl);
                if (n < 0) break;
                arrive((uint32_t)r, buf, (size_t)n, &src);
            }
        }
    }
    fprintf(stderr, "udp_relay: %llu datagrams in, %llu forwarded (%llu duplicates, %llu held "
            "back), %llu dropped, %llu cut, %llu fuzz sent, %llu from outside the job or before "
            "registration, %llu queue full, %llu send failures, %llu registrations, %llu burst "
            "tails (%llu dropped)\n",
            (unsigned long long)st.in, (unsigned long long)st.fwd, (unsigned long long)st.dup,
            (unsigned long long)st.reorder, (unsigned long long)st.drop,
            (unsigned long long)st.cut, (unsigned long long)st.fuzz,
            (unsigned long long)st.unknown, (unsigned long long)st.qfull,
            (unsigned long long)st.sendfail, (unsigned long long)st.reg,
            (unsigned long long)st.tails, (unsigned long long)st.tail_drop);
    int rc = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
    if (rc == 0 && st.fwd == 0) {
        fprintf(stderr, "udp_relay: FAIL: the job sent nothing through the relay "
                        "(is RIVET_UDP_RELAY honoured?)\n");
        return 1;
    }
    int nknown = 0;
    for (int r = 0; r < nr; r++) nknown += known[r];
    if (rc == 0 && nknown < nr) {
        fprintf(stderr, "udp_relay: FAIL: only %d of %d ranks registered\n", nknown, nr);
        return 1;
    }
    if (rc == 0 && p_tail && !st.tail_drop) {
        fprintf(stderr, "udp_relay: FAIL: --tail-drop %u dropped nothing\n", p_tail);
        return 1;
    }
    if (rc == 0 && p_fuzz && !st.fuzz) {
        fprintf(stderr, "udp_relay: FAIL: --fuzz %u sent nothing\n", p_fuzz);
        return 1;
    }
    return rc;
}
