/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/ofi_raw.c: raw libfabric numbers for the same provider Rivet's ofi transport picks, as
 * the yardstick for Rivet-over-ofi: the blocking fi_write (FI_DELIVERY_COMPLETE, like a blocking
 * put), the fi_write ping-pong round trip, the fi_inject message ping-pong (the AM Short round
 * trip's counterpart), and windowed fi_write bandwidth. It starts its own
 * two processes (fork) and swaps endpoint names over a socketpair: no Rivet, no launcher. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define BUF (4u << 20)
#define WINDOW 64

/* Message ping-pong (the yardstick for an AM Short round trip): receive buffers posted
 * with fi_recv, each message sent with fi_inject (no send completion), like Rivet's small
 * AMs. */
#define NRECV 8
#define MSG_MAX 64
static struct fi_context rctx[NRECV];
static char rbufs[NRECV][MSG_MAX];
static long nrecv; /* receive completions seen */

static const char *const pref[] = {"cxi", "efa", "psm3", "verbs;ofi_rxm", "tcp;ofi_rxm",
                                   "udp;ofi_rxd", "shm", NULL};

typedef struct {
    int                me, sock;
    struct fi_info    *fi;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av     *av;
    struct fid_cq     *cq;
    struct fid_ep     *ep;
    struct fid_mr     *mr;
    fi_addr_t          peer;
    volatile uint8_t  *buf;      /* registered, BUF bytes */
    uint64_t           raddr, rkey;
    int                virt;
} raw_t;

#define TRY(call)                                                                       \
    do {                                                                                \
        int rc_ = (int)(call);                                                          \
        if (rc_) {                                                                      \
            fprintf(stderr, "ofi_raw: %s failed: %s\n", #call, fi_strerror(rc_ < 0 ? -rc_ : rc_)); \
            exit(1);                                                                    \
        }                                                                               \
    } while (0)

static void xfer(int fd, void *out, void *in, size_t n)
{
    if (write(fd, out, n) != (ssize_t)n) { perror("ofi_raw: write"); exit(1); }
    size_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, (char *)in + got, n - got);
        if (r <= 0) { perror("ofi_raw: read"); exit(1); }
        got += (size_t)r;
    }
}

static int rank_of(const char *p)
{
    for (int i = 0; pref[i]; i++)
        if (!strcmp(p, pref[i])) return i;
    return 100;
}

static void setup(raw_t *r)
{
    struct fi_info *h = fi_allocinfo(), *list;
    h->caps = FI_MSG | FI_RMA;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    const char *want = getenv("RIVET_OFI_PROVIDER");
    if (want && *want) h->fabric_attr->prov_name = strdup(want);
    TRY(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &list));
    int explicit = (want && *want) || getenv("FI_PROVIDER");
    struct fi_info *best = NULL;
    for (struct fi_info *i = list; i; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        if (!explicit && (!strcmp(p, "sockets") || rank_of(p) == 100)) continue;
        if (!best || rank_of(p) < rank_of(best->fabric_attr->prov_name)) best = i;
    }
    if (!best) { fprintf(stderr, "ofi_raw: no provider\n"); exit(1); }
    r->fi = fi_dupinfo(best);
    r->fi->tx_attr->op_flags = 0;
    fi_freeinfo(list);
    fi_freeinfo(h);
    TRY(fi_fabric(r->fi->fabric_attr, &r->fabric, NULL));
    TRY(fi_domain(r->fabric, r->fi, &r->domain, NULL));
    struct fi_av_attr av = { .type = FI_AV_TABLE, .count = 2 };
    TRY(fi_av_open(r->domain, &av, &r->av, NULL));
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE, .size = 1024 };
    TRY(fi_cq_open(r->domain, &cq, &r->cq, NULL));
    TRY(fi_endpoint(r->domain, r->fi, &r->ep, NULL));
    TRY(fi_ep_bind(r->ep, &r->av->fid, 0));
    TRY(fi_ep_bind(r->ep, &r->cq->fid, FI_TRANSMIT | FI_RECV));
    TRY(fi_enable(r->ep));
    for (int b = 0; b < NRECV; b++)
        TRY(fi_recv(r->ep, rbufs[b], MSG_MAX, NULL, FI_ADDR_UNSPEC, &rctx[b]));
    r->buf = bu_alloc(BUF);
    uint64_t mrm = r->fi->domain_attr->mr_mode;
    r->virt = (mrm & FI_MR_VIRT_ADDR) != 0;
    TRY(fi_mr_reg(r->domain, (void *)r->buf, BUF,
                  FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                  (mrm & FI_MR_PROV_KEY) ? 0 : 7, 0, &r->mr, NULL));
    struct { char name[256]; size_t len; uint64_t addr, key; } mine = {{0}, 256, 0, 0}, theirs;
    TRY(fi_getname(&r->ep->fid, mine.name, &mine.len));
    mine.addr = (uint64_t)(uintptr_t)r->buf;
    mine.key = fi_mr_key(r->mr);
    xfer(r->sock, &mine, &theirs, sizeof mine);
    if (fi_av_insert(r->av, theirs.name, 1, &r->peer, 0, NULL) != 1) {
        fprintf(stderr, "ofi_raw: fi_av_insert failed\n");
        exit(1);
    }
    r->raddr = r->virt ? theirs.addr : 0;
    r->rkey = theirs.key;
}

static struct fi_context ctxs[WINDOW];
static void progress(raw_t *r);


/* Posts one write of n bytes from buf+loff to the peer's buf+roff. */
static void post_write(raw_t *r, size_t loff, size_t roff, size_t n, uint64_t flags, void *ctx)
{
    void *desc = fi_mr_desc(r->mr);
    struct iovec iov = { (void *)(r->buf + loff), n };
    struct fi_rma_iov riov = { r->raddr + roff, n, r->rkey };
    struct fi_msg_rma m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1, .addr = r->peer,
                            .rma_iov = &riov, .rma_iov_count = 1, .context = ctx };
    ssize_t rc;
    while ((rc = fi_writemsg(r->ep, &m, flags | FI_COMPLETION)) == -FI_EAGAIN) progress(r);
    if (rc) { fprintf(stderr, "ofi_raw: fi_writemsg: %s\n", fi_strerror((int)-rc)); exit(1); }
}

/* Reads what completed (driving the provider's progress) into r's count. */
static long ncomp;
static void progress(raw_t *r)
{
    struct fi_cq_data_entry e[16];
    ssize_t k = fi_cq_read(r->cq, e, 16);
    if (k > 0) {
        for (ssize_t i = 0; i < k; i++) {
            if (!(e[i].flags & FI_RECV)) { ncomp++; continue; }
            nrecv++; /* post the buffer again at once */
            struct fi_context *c = e[i].op_context;
            int b = (int)(c - rctx);
            ssize_t rc;
            while ((rc = fi_recv(r->ep, rbufs[b], MSG_MAX, NULL, FI_ADDR_UNSPEC, c)) == -FI_EAGAIN) {}
            if (rc) { fprintf(stderr, "ofi_raw: fi_recv: %s\n", fi_strerror((int)-rc)); exit(1); }
        }
    } else if (k != -FI_EAGAIN) { fprintf(stderr, "ofi_raw: completion error\n"); exit(1); }
}

/* Waits for n more completions than were reaped so far. */
static long reaped;
static void reap(raw_t *r, int n)
{
    reaped += n;
    while (ncomp < reaped) progress(r);
}

/* Both ranks agree on a point in time (over the socketpair). */
static void sync2(raw_t *r)
{
    char a = 1, b;
    xfer(r->sock, &a, &b, 1);
}

/* Blocking write: post, wait for its delivery-complete completion (rank 0 only). */
static double blocking_write(raw_t *r, size_t n, long iters)
{
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        post_write(r, 0, BUF / 2, n, FI_DELIVERY_COMPLETE | (n <= r->fi->tx_attr->inject_size
                                                               ? FI_INJECT : 0), &ctxs[0]);
        reap(r, 1);
    }
    return bu_now() - t0;
}

/* Ping-pong: rank 0 writes a counter into rank 1's flag word, rank 1 sees it (polling memory
 * and the CQ, which drives progress) and writes it back. Returns seconds per round trip. */
static double pingpong(raw_t *r, size_t n, long iters)
{
    volatile uint64_t *flag = (volatile uint64_t *)(r->buf + BUF - 4096); /* last word of n */
    size_t off = BUF - 4096 - (n - 8);
    *flag = 0;
    sync2(r);
    double t0 = bu_now();
    for (uint64_t i = 1; i <= (uint64_t)iters; i++) {
        /* the message comes from the start of the buffer; its last word lands on the flag */
        if (r->me == 0) {
            memcpy((void *)(r->buf + n - 8), &i, 8);
            post_write(r, 0, off, n, n <= r->fi->tx_attr->inject_size ? FI_INJECT : 0, &ctxs[0]);
            while (*flag != i) progress(r);
            reap(r, 1);
        } else {
            while (*flag != i) progress(r);
            memcpy((void *)(r->buf + n - 8), &i, 8);
            post_write(r, 0, off, n, n <= r->fi->tx_attr->inject_size ? FI_INJECT : 0, &ctxs[0]);
            reap(r, 1);
        }
    }
    double t = bu_now() - t0;
    sync2(r);
    return t / (double)iters;
}

/* Message ping-pong: rank 0 injects n bytes, rank 1 answers each with n bytes; seconds per
 * round trip. */
static double msg_pingpong(raw_t *r, size_t n, long iters)
{
    char msg[MSG_MAX] = {0};
    sync2(r);
    long seen = nrecv;
    double t0 = bu_now();
    for (long i = 0; i < iters; i++) {
        if (r->me == 1) {
            while (nrecv == seen) progress(r);
            seen++;
        }
        ssize_t rc;
        while ((rc = fi_inject(r->ep, msg, n, r->peer)) == -FI_EAGAIN) progress(r);
        if (rc) { fprintf(stderr, "ofi_raw: fi_inject: %s\n", fi_strerror((int)-rc)); exit(1); }
        if (r->me == 0) {
            while (nrecv == seen) progress(r);
            seen++;
        }
    }
    double t = bu_now() - t0;
    sync2(r);
    return t / (double)iters;
}

/* Bandwidth: rank 0 keeps WINDOW delivery-complete writes in flight. */
static double bandwidth(raw_t *r, size_t n, long iters)
{
    double t0 = bu_now();
    long posted = 0, base = ncomp;
    while (ncomp - base < iters) {
        while (posted < iters && posted - (ncomp - base) < WINDOW) {
            post_write(r, 0, BUF / 2, n, FI_DELIVERY_COMPLETE, &ctxs[posted % WINDOW]);
            posted++;
        }
        progress(r);
    }
    reaped = ncomp;
    return bu_now() - t0;
}

/* Rank 1 only keeps progress going until rank 0 says stop over the socket. */
static void serve(raw_t *r)
{
    char c;
    for (;;) {
        progress(r);
        ssize_t k = recv(r->sock, &c, 1, MSG_DONTWAIT);
        if (k == 1) return;
    }
}

static void run(raw_t *r, bu_opts_t *o)
{
    double vals[BU_MAX_TRIALS];
    char prov[96]; /* every result names the provider it was measured on */
    snprintf(prov, sizeof prov, "\"provider\":\"%s\"", r->fi->fabric_attr->prov_name);
    size_t max = o->max_size < BUF / 4 ? o->max_size : BUF / 4;
    if (bu_selected(o, "put_latency", "fi_write_dc")) {
        for (size_t n = o->min_size ? o->min_size : 1; n <= max && n <= 64 * 1024; n *= 8) {
            long iters = bu_iters(o, 20000, n, 32.0 * 1024 * 1024, 4);
            for (int t = -1; t < o->trials; t++) { /* t = -1: untimed warm-up (connection set-up) */
                sync2(r);
                if (r->me == 0) {
                    long k = t < 0 ? iters / 4 + 1 : iters;
                    double v = 1e6 * blocking_write(r, n, k) / (double)k;
                    if (t >= 0) vals[t] = v;
                    char stop = 0;
                    if (write(r->sock, &stop, 1) != 1) exit(1);
                } else {
                    serve(r);
                }
            }
            if (r->me == 0) bu_report(o, "put_latency", "fi_write_dc", n, "latency", "us", vals,
                                      o->trials, prov);
        }
    }
    if (bu_selected(o, "put_rtt", "fi_write_pingpong")) {
        for (size_t n = 8; n <= max && n <= 64 * 1024; n *= 8) {
            long iters = bu_iters(o, 10000, n, 32.0 * 1024 * 1024, 4);
            pingpong(r, n, iters / 4 + 1); /* warm-up */
            for (int t = 0; t < o->trials; t++) vals[t] = 1e6 * pingpong(r, n, iters);
            if (r->me == 0) bu_report(o, "put_rtt", "fi_write_pingpong", n, "latency", "us", vals,
                                      o->trials, prov);
        }
    }
    if (bu_selected(o, "msg_rtt", "fi_inject_pingpong")) {
        /* 32 bytes: about what an AM Short Request carries on the wire (Rivet's ofi header
         * and AM header) */
        size_t n = 32;
        long iters = bu_iters(o, 10000, n, 32.0 * 1024 * 1024, 4);
        msg_pingpong(r, n, iters / 4 + 1); /* warm-up */
        for (int t = 0; t < o->trials; t++) vals[t] = 1e6 * msg_pingpong(r, n, iters);
        if (r->me == 0) bu_report(o, "msg_rtt", "fi_inject_pingpong", n, "latency", "us", vals,
                                  o->trials, prov);
    }
    if (bu_selected(o, "put_bw", "fi_write_dc")) {
        for (size_t n = 1024; n <= max; n *= 4) {
            long iters = bu_iters(o, 20000, n, 256.0 * 1024 * 1024, 16);
            for (int t = -1; t < o->trials; t++) { /* t = -1: untimed warm-up */
                sync2(r);
                if (r->me == 0) {
                    long k = t < 0 ? iters / 4 + 1 : iters;
                    double v = (double)n * (double)k / bandwidth(r, n, k) / 1e6;
                    if (t >= 0) vals[t] = v;
                    char stop = 0;
                    if (write(r->sock, &stop, 1) != 1) exit(1);
                } else {
                    serve(r);
                }
            }
            if (r->me == 0) bu_report(o, "put_bw", "fi_write_dc", n, "bandwidth", "MB/s", vals,
                                      o->trials, prov);
        }
    }
}

int main(int argc, char **argv)
{
    bu_opts_t o;
    if (bu_parse_args(&o, argc, argv, "libfabric-raw", NULL)) return 2;
    o.ranks = 2;
    if (o.max_size > (size_t)1 << 20) o.max_size = (size_t)1 << 20;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv)) { perror("ofi_raw: socketpair"); return 1; }
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) { perror("ofi_raw: fork"); return 1; }
    raw_t r = { .me = child == 0, .sock = child == 0 ? sv[1] : sv[0] };
    close(child == 0 ? sv[0] : sv[1]);
    setup(&r);
    run(&r, &o);
    sync2(&r);
    fi_close(&r.ep->fid);
    fi_close(&r.mr->fid);
    fi_close(&r.cq->fid);
    fi_close(&r.av->fid);
    fi_close(&r.domain->fid);
    fi_close(&r.fabric->fid);
    fi_freeinfo(r.fi);
    free((void *)r.buf);
    if (child == 0) _exit(0);
    int st = 0;
    waitpid(child, &st, 0);
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}
