/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/client.c: a rank's connection to rivetrun: hello, allgather, exit, fini. */
#include "boot/launcher/launcher.h"
#include "boot/launcher/proto.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static int      rv_boot_fd = -1;
static pid_t    rv_boot_pid;      /* a forked child must not speak for the rank */
static uint32_t rv_boot_rank;
static uint32_t rv_boot_size;
static uint32_t rv_boot_seq;

/* The launcher is gone (its end of the socket closed): nothing can complete any
 * more, and rivetrun is not there to clean up, so leave at once. */
static void rv_boot_lost(const char *what, int err)
{
    fprintf(stderr, "rivet: rank %u: lost the bootstrap connection to rivetrun during %s (%s); "
            "the launcher has died, exiting\n",
            (unsigned)rv_boot_rank, what, err ? strerror(err) : "connection closed");
    _exit(1);
}

static int rv_boot_parse_u32(const char *name, uint32_t *out)
{
    const char *s = getenv(name);
    char *end;
    if (!s || !*s) {
        fprintf(stderr, "rivet: bootstrap: %s is not set although RIVET_BOOT_FD is; "
                "was this process started by rivetrun?\n", name);
        return -1;
    }
    errno = 0;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || *end || v > UINT32_MAX || s[0] == '-') {
        fprintf(stderr, "rivet: bootstrap: %s=%s is not a valid number\n", name, s);
        return -1;
    }
    *out = (uint32_t)v;
    return 0;
}

static void rv_boot_hdr(rv_boot_hdr_t *h, enum rv_boot_msg type, uint32_t arg, uint64_t len)
{
    memset(h, 0, sizeof *h);
    h->magic = RV_BOOT_MAGIC;
    h->type = (uint16_t)type;
    h->arg = arg;
    h->seq = rv_boot_seq;
    h->len = len;
}

/* Sends one record (header + optional payload); blocks until it is queued. */
static void rv_boot_send(const rv_boot_hdr_t *h, const void *payload, size_t plen, const char *what)
{
    struct iovec iov[2] = {{(void *)h, sizeof *h}, {(void *)payload, plen}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = plen ? 2 : 1};
    for (;;) {
        ssize_t n = sendmsg(rv_boot_fd, &m, MSG_NOSIGNAL);
        if (n >= 0) return;
        if (errno == EINTR) continue;
        rv_boot_lost(what, errno);
    }
}

/* Receives one record: header into *h, payload (at most cap bytes) into buf.
 * Returns the payload length, or -1 on a protocol error (already reported). */
static ssize_t rv_boot_recv(rv_boot_hdr_t *h, void *buf, size_t cap, const char *what)
{
    struct iovec iov[2] = {{h, sizeof *h}, {buf, cap}};
    struct msghdr m = {.msg_iov = iov, .msg_iovlen = cap ? 2 : 1};
    ssize_t n;
    do n = recvmsg(rv_boot_fd, &m, 0);
    while (n < 0 && errno == EINTR);
    if (n < 0) rv_boot_lost(what, errno);
    if (n == 0) rv_boot_lost(what, 0);
    if ((size_t)n < sizeof *h || (m.msg_flags & MSG_TRUNC) || h->magic != RV_BOOT_MAGIC) {
        fprintf(stderr, "rivet: rank %u: bootstrap protocol error during %s: malformed record "
                "from rivetrun (is rivetrun from the same Rivet version?)\n",
                (unsigned)rv_boot_rank, what);
        return -1;
    }
    return n - (ssize_t)sizeof *h;
}

int rv_boot_launcher_init(rv_boot_info_t *info)
{
    uint32_t fd;
    memset(info, 0, sizeof *info);
    if (rv_boot_parse_u32(RV_BOOT_ENV_FD, &fd) || rv_boot_parse_u32(RV_BOOT_ENV_RANK, &rv_boot_rank)
        || rv_boot_parse_u32(RV_BOOT_ENV_SIZE, &rv_boot_size))
        return -1;
    if (rv_boot_size == 0 || rv_boot_rank >= rv_boot_size) {
        fprintf(stderr, "rivet: bootstrap: rank %u is out of range for a job of %u ranks\n",
                (unsigned)rv_boot_rank, (unsigned)rv_boot_size);
        return -1;
    }
    const char *secret = getenv(RV_BOOT_ENV_SECRET);
    size_t sl = secret ? strlen(secret) : 0;
    int ok = (sl == 32);
    for (size_t i = 0; ok && i < sl; i++)
        ok = (secret[i] >= '0' && secret[i] <= '9') || (secret[i] >= 'a' && secret[i] <= 'f');
    if (!ok) {
        fprintf(stderr, "rivet: bootstrap: %s must be 32 lowercase hex digits\n", RV_BOOT_ENV_SECRET);
        return -1;
    }

    /* The fd must really be the seqpacket socket rivetrun gave us, not whatever a
     * stale RIVET_BOOT_FD happens to name in a process rivetrun did not start. */
    struct stat st;
    int type = 0;
    socklen_t tl = sizeof type;
    if (fd > INT_MAX || fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)
        || getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_SEQPACKET) {
        fprintf(stderr, "rivet: bootstrap: %s=%u is not the bootstrap socket from rivetrun; "
                "start multi-process jobs with rivetrun\n", RV_BOOT_ENV_FD, (unsigned)fd);
        return -1;
    }
    rv_boot_fd = (int)fd;
    rv_boot_pid = getpid();
    /* Programs this rank starts must not inherit the socket nor think they own it. */
    (void)fcntl(rv_boot_fd, F_SETFD, FD_CLOEXEC);
    unsetenv(RV_BOOT_ENV_FD);
    /* rivetrun started this rank without address-space randomisation (same addresses on
     * every rank of the host); the programs the rank starts get it back. Our own mappings
     * are made and stay where they are. */
    const char *norandom = getenv(RV_BOOT_ENV_NORANDOM);
    if (norandom && !strcmp(norandom, "1")) {
        int pers = personality(0xffffffff);
        if (pers != -1 && (pers & ADDR_NO_RANDOMIZE))
            (void)personality((unsigned long)pers & ~(unsigned long)ADDR_NO_RANDOMIZE);
        unsetenv(RV_BOOT_ENV_NORANDOM);
    }

    rv_boot_hdr_t h;
    rv_boot_hdr(&h, RV_BOOT_HELLO, rv_boot_rank, RV_BOOT_VERSION);
    rv_boot_send(&h, NULL, 0, "start-up");

    info->rank = rv_boot_rank;
    info->size = rv_boot_size;
    memcpy(info->secret, secret, 33);
    info->method = "launcher";
    return 0;
}

int rv_boot_launcher_allgather(const void *mine, size_t len, void *all)
{
    const char *what = len ? "a bootstrap allgather" : "a bootstrap barrier";
    if (rv_boot_fd < 0) {
        fprintf(stderr, "rivet: rank %u: %s after the bootstrap was finished\n",
                (unsigned)rv_boot_rank, what);
        return -1;
    }
    if (len > SIZE_MAX / rv_boot_size) {
        fprintf(stderr, "rivet: rank %u: bootstrap allgather of %zu bytes per rank is too large\n",
                (unsigned)rv_boot_rank, len);
        return -1;
    }
    rv_boot_seq++;
    rv_boot_hdr_t h;
    rv_boot_hdr(&h, RV_BOOT_GATHER, 0, len);
    rv_boot_send(&h, NULL, 0, what);
    for (size_t off = 0; off < len; off += RV_BOOT_CHUNK) {
        size_t n = len - off < RV_BOOT_CHUNK ? len - off : RV_BOOT_CHUNK;
        rv_boot_hdr(&h, RV_BOOT_DATA, 0, n);
        rv_boot_send(&h, (const char *)mine + off, n, what);
    }

    size_t total = len * rv_boot_size;
    if (rv_boot_recv(&h, NULL, 0, what) != 0) return -1;
    if (h.type != RV_BOOT_RESULT || h.seq != rv_boot_seq || h.len != total) {
        fprintf(stderr, "rivet: rank %u: bootstrap protocol error: expected the result of "
                "collective #%u (%zu bytes), got type %u #%u (%llu bytes)\n",
                (unsigned)rv_boot_rank, (unsigned)rv_boot_seq, total, (unsigned)h.type,
                (unsigned)h.seq, (unsigned long long)h.len);
        return -1;
    }
    for (size_t off = 0; off < total;) {
        size_t want = total - off < RV_BOOT_CHUNK ? total - off : RV_BOOT_CHUNK;
        ssize_t got = rv_boot_recv(&h, (char *)all + off, want, what);
        if (got < 0) return -1;
        if (h.type != RV_BOOT_DATA || (uint64_t)got != h.len || got == 0) {
            fprintf(stderr, "rivet: rank %u: bootstrap protocol error: bad data record in "
                    "collective #%u\n", (unsigned)rv_boot_rank, (unsigned)rv_boot_seq);
            return -1;
        }
        off += (size_t)got;
    }
    return 0;
}

/* One EXIT record on fd, built on the stack: no allocation, no locks, no stdio. */
static void rv_boot_send_exit(int fd, int code, unsigned flags)
{
    rv_boot_hdr_t h;
    rv_boot_hdr(&h, RV_BOOT_EXIT, (uint32_t)code, 0);
    h.flags = (uint16_t)flags;
    ssize_t n;
    do n = send(fd, &h, sizeof h, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
}

/* Called on fatal-error paths, possibly from a signal handler. */
void rv_boot_launcher_exit_job(int code, unsigned flags)
{
    int fd = rv_boot_fd;
    if (fd < 0 || getpid() != rv_boot_pid) return;
    rv_boot_send_exit(fd, code, flags);
}

/* A fatal error before rv_boot_launcher_init (e.g. an invalid setting, found while
 * the environment is read): when rivetrun started this process, its socket is still
 * named by RIVET_BOOT_FD; tell rivetrun through it why the rank stops. */
void rv_boot_launcher_fatal_early(int code)
{
    const char *s = getenv(RV_BOOT_ENV_FD);
    char *end;
    if (!s || !*s || *s == '-') return;
    errno = 0;
    unsigned long fd = strtoul(s, &end, 10);
    if (errno || *end || fd > INT_MAX) return;
    struct stat st;
    int type = 0;
    socklen_t tl = sizeof type;
    if (fstat((int)fd, &st) != 0 || !S_ISSOCK(st.st_mode)
        || getsockopt((int)fd, SOL_SOCKET, SO_TYPE, &type, &tl) != 0 || type != SOCK_SEQPACKET)
        return;
    rv_boot_send_exit((int)fd, code, RV_BOOT_EXIT_FATAL);
}

void rv_boot_launcher_fini(void)
{
    int fd = rv_boot_fd;
    if (fd < 0) return;
    rv_boot_fd = -1;
    if (getpid() == rv_boot_pid) {
        rv_boot_hdr_t h;
        rv_boot_hdr(&h, RV_BOOT_FINI, 0, 0);
        ssize_t n;
        do n = send(fd, &h, sizeof h, MSG_NOSIGNAL);  /* a dead launcher is no error here */
        while (n < 0 && errno == EINTR);
    }
    close(fd);
}
