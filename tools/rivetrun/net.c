/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/net.c: framing, buffering and the handshake MAC of the launcher <-> agent
 * TCP connections (protocol in net.h). */
#include "net.h"
#include "rivetrun.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

void rv_net_mac(const char secret[33], const char *who, const unsigned char *n1,
                const unsigned char *n2, uint32_t host, unsigned char out[RV_SHA256_LEN])
{
    rv_iov_t parts[4] = {
        {who, strlen(who) + 1}, {n1, RV_NET_NONCE}, {n2, RV_NET_NONCE}, {&host, sizeof host},
    };
    rv_hmac_sha256(secret, 32, parts, 4, out);
}

void rv_net_conn_init(rv_net_conn_t *c, int fd)
{
    memset(c, 0, sizeof *c);
    c->fd = fd;
}

void rv_net_conn_close(rv_net_conn_t *c)
{
    if (c->fd >= 0) close(c->fd);
    c->fd = -1;
    free(c->out);
    free(c->in);
    c->out = c->in = NULL;
    c->out_len = c->out_off = c->out_cap = 0;
    c->in_len = c->in_off = c->in_cap = 0;
}

static int rv_net_reserve(unsigned char **buf, size_t *cap, size_t need)
{
    if (need <= *cap) return 0;
    size_t n = *cap ? *cap : 4096;
    while (n < need) n *= 2;
    unsigned char *p = realloc(*buf, n);
    if (!p) return -1;
    *buf = p;
    *cap = n;
    return 0;
}

int rv_net_queue(rv_net_conn_t *c, uint16_t type, uint16_t flags, uint32_t rank, uint32_t arg,
                 const void *payload, size_t len)
{
    if (c->out_off && c->out_off == c->out_len) c->out_off = c->out_len = 0;
    if (rv_net_reserve(&c->out, &c->out_cap, c->out_len + sizeof(rv_net_frame_t) + len)) return -1;
    rv_net_frame_t f = {.magic = RV_NET_MAGIC_F, .type = type, .flags = flags, .rank = rank,
                        .arg = arg, .len = len};
    memcpy(c->out + c->out_len, &f, sizeof f);
    if (len) memcpy(c->out + c->out_len + sizeof f, payload, len);
    c->out_len += sizeof f + len;
    return 0;
}

int rv_net_flush(rv_net_conn_t *c)
{
    if (c->fd < 0) return -1;
    for (;;) {
        struct iovec iov[2];
        int n = 0;
        int from_res = 0;
        if (c->res && c->res_off > 0) {
            from_res = 1;   /* a frame in progress is finished first */
        } else if (c->out_off < c->out_len) {
            iov[n].iov_base = c->out + c->out_off;
            iov[n++].iov_len = c->out_len - c->out_off;
        } else if (c->res) {
            from_res = 1;
        } else {
            return 0;
        }
        if (from_res) {
            size_t hl = sizeof c->res_hdr;
            if (c->res_off < hl) {
                iov[n].iov_base = (unsigned char *)&c->res_hdr + c->res_off;
                iov[n++].iov_len = hl - c->res_off;
                iov[n].iov_base = (void *)c->res_bytes;
                iov[n++].iov_len = c->res_total - hl;
            } else {
                iov[n].iov_base = (void *)(c->res_bytes + (c->res_off - hl));
                iov[n++].iov_len = c->res_total - c->res_off;
            }
        }
        struct msghdr m = {.msg_iov = iov, .msg_iovlen = (size_t)n};
        ssize_t sent = sendmsg(c->fd, &m, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (sent < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
            return -1;
        }
        if (from_res) {
            c->res_off += (size_t)sent;
            if (c->res_off == c->res_total) {
                c->res = NULL;   /* the owner, who kept the handle, drops its reference */
                c->res_off = 0;
            }
        } else {
            c->out_off += (size_t)sent;
            if (c->out_off == c->out_len) c->out_off = c->out_len = 0;
        }
    }
}

int rv_net_read(rv_net_conn_t *c)
{
    int got = 0;
    for (;;) {
        if (c->in_off) {   /* compact: consumed bytes go */
            memmove(c->in, c->in + c->in_off, c->in_len - c->in_off);
            c->in_len -= c->in_off;
            c->in_off = 0;
        }
        size_t want = 64 * 1024;
        if (c->in_len >= sizeof(rv_net_frame_t)) {   /* room for the whole frame at once */
            rv_net_frame_t f;
            memcpy(&f, c->in, sizeof f);
            if (f.magic == RV_NET_MAGIC_F && f.len < ((uint64_t)1 << 40)
                && sizeof f + f.len > c->in_len + want)
                want = sizeof f + (size_t)f.len - c->in_len;
        }
        if (rv_net_reserve(&c->in, &c->in_cap, c->in_len + want)) {
            errno = ENOMEM;
            return -1;
        }
        ssize_t n = recv(c->fd, c->in + c->in_len, c->in_cap - c->in_len, MSG_DONTWAIT);
        if (n < 0) {
            if (errno == EINTR) continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK) return got;
            return -1;
        }
        if (n == 0) {
            errno = 0;
            return -1;
        }
        c->in_len += (size_t)n;
        got = 1;
        if (c->in_len < c->in_cap) return got;   /* the socket is probably empty now */
    }
}

int rv_net_next(rv_net_conn_t *c, uint64_t max_len, rv_net_frame_t *f,
                const unsigned char **payload)
{
    size_t avail = c->in_len - c->in_off;
    if (avail < sizeof *f) return 0;
    memcpy(f, c->in + c->in_off, sizeof *f);   /* frames sit at any alignment */
    if (f->magic != RV_NET_MAGIC_F || f->len > max_len) return -1;
    if (avail < sizeof *f + f->len) return 0;
    *payload = c->in + c->in_off + sizeof *f;
    return 1;
}

void rv_net_consume(rv_net_conn_t *c, const rv_net_frame_t *f)
{
    c->in_off += sizeof *f + (size_t)f->len;
    if (c->in_off == c->in_len) c->in_off = c->in_len = 0;
}

static int rv_net_wait(int fd, short ev, int64_t deadline_ms)
{
    for (;;) {
        int64_t left = deadline_ms - rv_run_now_ms();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd p = {fd, ev, 0};
        int n = poll(&p, 1, left > 1000000 ? 1000000 : (int)left);
        if (n > 0) return 0;
        if (n < 0 && errno != EINTR) return -1;
    }
}

int rv_net_read_full(int fd, void *buf, size_t n, int64_t deadline_ms)
{
    size_t got = 0;
    while (got < n) {
        if (rv_net_wait(fd, POLLIN, deadline_ms)) return -1;
        ssize_t r = recv(fd, (char *)buf + got, n - got, MSG_DONTWAIT);
        if (r == 0) {
            errno = 0;
            return -1;
        }
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return -1;
        }
        got += (size_t)r;
    }
    return 0;
}

int rv_net_write_full(int fd, const void *buf, size_t n, int64_t deadline_ms)
{
    size_t done = 0;
    while (done < n) {
        if (rv_net_wait(fd, POLLOUT, deadline_ms)) return -1;
        ssize_t r = send(fd, (const char *)buf + done, n - done, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (r < 0) {
            if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK) continue;
            return -1;
        }
        done += (size_t)r;
    }
    return 0;
}
