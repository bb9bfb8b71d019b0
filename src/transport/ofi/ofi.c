/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi.c: the libfabric transport: provider choice, endpoint set-up,
 * send from staged buffers, posted receive buffers and the completion-queue poll.
 * See README.md in this folder for the design and its limits. */
#include "transport/ofi/ofi_int.h"
#include "transport/shm/shm_ring.h" /* rv_shm_lock/unlock: a tiny spinlock */
#include "core/core.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RV_OFI_MAX_MSG (65536u + 256u)
#define RV_OFI_NAME_MAX 256

/* Providers in order of preference when neither RIVET_OFI_PROVIDER nor FI_PROVIDER
 * says. 'sockets' is never picked by default: its progress thread eats a core. */
static const char *const rv_ofi_pref[] = {
    "cxi", "efa", "psm3", "verbs;ofi_rxm", "tcp;ofi_rxm", "udp;ofi_rxd", "shm", NULL,
};

static struct fi_info *rv_ofi_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->caps = FI_MSG;
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (rv_cfg.OFI_PROVIDER[0]) h->fabric_attr->prov_name = strdup(rv_cfg.OFI_PROVIDER);
    return h;
}

static int rv_ofi_rank(const char *prov)
{
    for (int i = 0; rv_ofi_pref[i]; i++)
        if (!strcmp(prov, rv_ofi_pref[i])) return i;
    return 100;
}

/* The provider to use, or NULL (reason in *why). Caller frees the whole list via *list. */
static struct fi_info *rv_ofi_choose(struct fi_info **list, const char **why)
{
    struct fi_info *h = rv_ofi_hints();
    *list = NULL;
    if (!h) { *why = "out of memory"; return NULL; }
    int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, list);
    fi_freeinfo(h);
    if (rc || !*list) { *why = rc ? fi_strerror(-rc) : "no provider"; return NULL; }
    int explicit = rv_cfg.OFI_PROVIDER[0] || getenv("FI_PROVIDER");
    struct fi_info *best = NULL;
    for (struct fi_info *i = *list; i; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        if (!explicit && (!strcmp(p, "sockets") || rv_ofi_rank(p) == 100)) continue;
        if (i->ep_attr->max_msg_size < RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t)) continue;
        if (!best || rv_ofi_rank(p) < rv_ofi_rank(best->fabric_attr->prov_name)) best = i;
    }
    if (!best) *why = "no provider that is not 'sockets' carries 64 KiB messages";
    return best;
}

static int rv_ofi_probe(const rv_job_t *job)
{
    (void)job;
    struct fi_info *list;
    const char *why;
    struct fi_info *i = rv_ofi_choose(&list, &why);
    if (!i) rv_verbose(1, "ofi: not usable: %s", why);
    if (list) fi_freeinfo(list);
    return i ? 0 : -1;
}

#define RV_OFI_TRY(call)                                                                  \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        if (rc_) {                                                                        \
            rv_warn("ofi: %s failed: %s", #call, fi_strerror(rc_ < 0 ? -rc_ : rc_));      \
            return -1;                                                                    \
        }                                                                                 \
    } while (0)

static int rv_ofi_post(rv_ofi_t *o, rv_ofi_region_t *r)
{
    struct iovec iov = { r->buf, r->size };
    void *desc = o->rmr ? fi_mr_desc(o->rmr) : NULL;
    struct fi_msg m = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                        .addr = FI_ADDR_UNSPEC, .context = &r->ctx };
    r->released = 0;
    ssize_t rc;
    while ((rc = fi_recvmsg(o->ep, &m, 0)) == -FI_EAGAIN)
        fi_cq_read(o->cq, NULL, 0); /* the receive queue is momentarily full: progress */
    if (rc) rv_fatal("ofi: posting a %zu-byte receive region failed: %s", r->size,
                     fi_strerror((int)-rc));
    return 0;
}

static int rv_ofi_setup(rv_ofi_t *o, struct fi_info *fi)
{
    o->info = fi_dupinfo(fi);
    RV_OFI_TRY(fi_fabric(fi->fabric_attr, &o->fabric, NULL));
    RV_OFI_TRY(fi_domain(o->fabric, fi, &o->domain, NULL));
    struct fi_av_attr av = { .type = FI_AV_TABLE, .count = o->size };
    RV_OFI_TRY(fi_av_open(o->domain, &av, &o->av, NULL));
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE,
                             .size = 4 * RV_OFI_NSEND + 64 };
    RV_OFI_TRY(fi_cq_open(o->domain, &cq, &o->cq, NULL));
    RV_OFI_TRY(fi_endpoint(o->domain, fi, &o->ep, NULL));
    RV_OFI_TRY(fi_ep_bind(o->ep, &o->av->fid, 0));
    RV_OFI_TRY(fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV));
    RV_OFI_TRY(fi_enable(o->ep));

    o->bufsz = (RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t) + 63) & ~(size_t)63;
    o->inject = fi->tx_attr->inject_size;
    o->mr_local = (fi->domain_attr->mr_mode & FI_MR_LOCAL) != 0;
    size_t slen = o->bufsz * RV_OFI_NSEND, rlen = o->bufsz * RV_OFI_NRECV;
    o->spool = mmap(NULL, slen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    o->rpool = mmap(NULL, rlen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o->spool == MAP_FAILED || o->rpool == MAP_FAILED) {
        o->spool = o->rpool = NULL;
        rv_warn("ofi: cannot allocate %zu bytes of message buffers", slen + rlen);
        return -1;
    }
    if (o->mr_local) {
        RV_OFI_TRY(fi_mr_reg(o->domain, o->spool, slen, FI_SEND, 0, 1, 0, &o->smr, NULL));
        RV_OFI_TRY(fi_mr_reg(o->domain, o->rpool, rlen, FI_RECV, 0, 2, 0, &o->rmr, NULL));
    }
    for (int i = RV_OFI_NSEND - 1; i >= 0; i--) {
        o->sbufs[i].data = o->spool + (size_t)i * o->bufsz;
        o->sbufs[i].next = o->sfree;
        o->sfree = &o->sbufs[i];
    }
    for (int i = 0; i < RV_OFI_NRECV; i++) {
        o->regions[i].buf = o->rpool + (size_t)i * o->bufsz;
        o->regions[i].size = o->bufsz;
        rv_ofi_post(o, &o->regions[i]);
    }
    return 0;
}

/* Collective: endpoint names go around by a bootstrap allgather into the AV. */
static int rv_ofi_open(void *priv, const rv_job_t *job, rv_tp_limits_t *lim)
{
    rv_ofi_t *o = priv;
    o->me = job->rank;
    o->size = job->size;
    pthread_mutex_init(&o->plock, NULL);
    struct fi_info *list;
    const char *why = "";
    struct fi_info *fi = rv_ofi_choose(&list, &why);
    int ok = fi && rv_ofi_setup(o, fi) == 0;
    if (!fi) rv_warn("ofi: no usable libfabric provider: %s", why);
    else rv_verbose(1, "ofi: provider %s, fabric %s, inject %zu", fi->fabric_attr->prov_name,
                    fi->fabric_attr->name, o->inject);
    if (list) fi_freeinfo(list);

    struct { uint64_t len; unsigned char name[RV_OFI_NAME_MAX]; } mine = {0, {0}};
    size_t nl = sizeof mine.name;
    if (ok && fi_getname(&o->ep->fid, mine.name, &nl) != 0) ok = 0;
    mine.len = ok ? nl : 0;
    void *all = calloc(o->size, sizeof mine);
    o->addr = calloc(o->size, sizeof *o->addr);
    int gathered = all && o->addr && rv_boot_allgather(&mine, sizeof mine, all) == 0;
    for (uint32_t r = 0; ok && gathered && r < o->size; r++) {
        const unsigned char *e = (const unsigned char *)all + r * sizeof mine;
        uint64_t len;
        memcpy(&len, e, sizeof len);
        if (!len || fi_av_insert(o->av, e + sizeof len, 1, &o->addr[r], 0, NULL) != 1) ok = 0;
    }
    free(all);
    /* everyone must agree before any message flows */
    uint8_t *st = calloc(o->size, 1), me_ok = (uint8_t)(ok && gathered);
    int all_ok = st && rv_boot_allgather(&me_ok, 1, st) == 0;
    for (uint32_t r = 0; all_ok && r < o->size; r++) all_ok = st[r];
    free(st);
    if (!all_ok) return -1;
    lim->max_msg = RV_OFI_MAX_MSG;
    lim->max_seg_local = 0;
    return 0;
}

static void rv_ofi_close(void *priv)
{
    rv_ofi_t *o = priv;
    rv_ofi_seg_close(o);
    if (o->ep) fi_close(&o->ep->fid);
    if (o->smr) fi_close(&o->smr->fid);
    if (o->rmr) fi_close(&o->rmr->fid);
    if (o->cq) fi_close(&o->cq->fid);
    if (o->av) fi_close(&o->av->fid);
    if (o->domain) fi_close(&o->domain->fid);
    if (o->fabric) fi_close(&o->fabric->fid);
    if (o->info) fi_freeinfo(o->info);
    if (o->spool) munmap(o->spool, o->bufsz * RV_OFI_NSEND);
    if (o->rpool) munmap(o->rpool, o->bufsz * RV_OFI_NRECV);
    free(o->addr);
    for (size_t i = 0; i < o->stash_n; i++) free(o->stash[(o->stash_head + i) % o->stash_cap].msg);
    free(o->stash);
    memset(o, 0, sizeof *o);
}

static int rv_ofi_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                       const void *payload, size_t paylen)
{
    rv_ofi_t *o = priv;
    size_t len = sizeof(rv_ofi_hdr_t) + hdrlen + paylen;
    size_t padded = (len + 7) & ~(size_t)7; /* keeps messages packed in a region aligned */
    rv_ofi_hdr_t oh = { o->me, chan | (uint32_t)(padded - len) << 8 };
    if (padded <= o->inject && padded <= 512) {
        uint64_t tmp[64];
        unsigned char *p = (unsigned char *)tmp;
        memcpy(p, &oh, sizeof oh);
        memcpy(p + sizeof oh, hdr, hdrlen);
        if (paylen) memcpy(p + sizeof oh + hdrlen, payload, paylen);
        ssize_t rc = fi_inject(o->ep, p, padded, o->addr[peer]);
        if (rc == 0) return 0;
        if (rc != -FI_EAGAIN) rv_fatal("ofi: fi_inject to rank %u failed: %s", peer,
                                       fi_strerror((int)-rc));
        return RV_TP_AGAIN;
    }
    rv_shm_lock(&o->slock);
    rv_ofi_sbuf_t *b = o->sfree;
    if (b) o->sfree = b->next;
    rv_shm_unlock(&o->slock);
    if (!b) return RV_TP_AGAIN;
    memcpy(b->data, &oh, sizeof oh);
    memcpy(b->data + sizeof oh, hdr, hdrlen);
    if (paylen) memcpy(b->data + sizeof oh + hdrlen, payload, paylen);
    ssize_t rc = fi_send(o->ep, b->data, padded, o->smr ? fi_mr_desc(o->smr) : NULL,
                         o->addr[peer], &b->ctx);
    if (rc == 0) return 0;
    rv_shm_lock(&o->slock);
    b->next = o->sfree;
    o->sfree = b;
    rv_shm_unlock(&o->slock);
    if (rc != -FI_EAGAIN) rv_fatal("ofi: fi_send to rank %u failed: %s", peer,
                                   fi_strerror((int)-rc));
    return RV_TP_AGAIN;
}

/* ---- receive side ---------------------------------------------------------------- */

static void rv_ofi_region_check(rv_ofi_t *o, rv_ofi_region_t *r)
{
    if (r->released && r->pending == 0) rv_ofi_post(o, r);
}

/* Keeps a copy of a Request that cannot run now, so its receive buffer goes back to
 * the provider at once: replies must always find a posted buffer, or two ranks each
 * waiting to send a Reply would wait for each other forever. */
static void rv_ofi_stash_push(rv_ofi_t *o, const void *msg, size_t len, uint32_t src)
{
    if (o->stash_n == o->stash_cap) { /* rare: grow, keeping order */
        size_t cap = o->stash_cap ? 2 * o->stash_cap : 256;
        rv_ofi_stashed_t *s = malloc(cap * sizeof *s);
        if (!s) rv_fatal("ofi: out of memory deferring %zu requests", o->stash_n);
        for (size_t i = 0; i < o->stash_n; i++) s[i] = o->stash[(o->stash_head + i) % o->stash_cap];
        free(o->stash);
        o->stash = s;
        o->stash_cap = cap;
        o->stash_head = 0;
    }
    void *copy = malloc(len ? len : 1);
    if (!copy) rv_fatal("ofi: out of memory deferring a %zu-byte request", len);
    memcpy(copy, msg, len);
    o->stash[(o->stash_head + o->stash_n++) % o->stash_cap] = (rv_ofi_stashed_t){copy, len, src};
}

static _Thread_local int rv_ofi_depth;

static void rv_ofi_deliver(void *msg, size_t len, uint32_t *srcp, unsigned *chanp, void **bodyp,
                           size_t *blenp)
{
    rv_ofi_hdr_t h;
    if (len < sizeof h) rv_fatal("ofi: runt message of %zu bytes", len);
    memcpy(&h, msg, sizeof h);
    size_t pad = h.chan >> 8;
    if (len < sizeof h + pad) rv_fatal("ofi: malformed message of %zu bytes", len);
    *srcp = h.src;
    *chanp = h.chan & 0xff;
    *bodyp = (char *)msg + sizeof h;
    *blenp = len - sizeof h - pad;
}

static int rv_ofi_poll(void *priv, unsigned chan_mask)
{
    rv_ofi_t *o = priv;
    if (rv_ofi_depth == 0) {
        if (pthread_mutex_trylock(&o->plock)) return 0; /* another thread polls */
    }
    rv_ofi_depth++;
    int reqs_ok = (chan_mask & RV_CHAN_MASK(RV_CHAN_REQ)) != 0;
    int n = 0;
    for (int budget = 0; budget < 64; budget++) {
        if (reqs_ok && o->stash_n) { /* deferred Requests first, in arrival order */
            rv_ofi_stashed_t s = o->stash[o->stash_head];
            o->stash_head = (o->stash_head + 1) % o->stash_cap;
            o->stash_n--;
            uint32_t src; unsigned chan; void *body; size_t blen;
            rv_ofi_deliver(s.msg, s.len, &src, &chan, &body, &blen);
            rv_am_deliver(src, chan, body, blen);
            free(s.msg);
            n++;
            continue;
        }
        struct fi_cq_data_entry e;
        ssize_t rc = fi_cq_read(o->cq, &e, 1);
        if (rc == -FI_EAGAIN) break;
        if (rc < 0) {
            struct fi_cq_err_entry err = {0};
            if (rc == -FI_EAVAIL && fi_cq_readerr(o->cq, &err, 0) == 1)
                rv_fatal("ofi: completion error: %s (provider: %s)", fi_strerror(err.err),
                         fi_cq_strerror(o->cq, err.prov_errno, err.err_data, NULL, 0));
            rv_fatal("ofi: fi_cq_read failed: %s", fi_strerror((int)-rc));
        }
        if (e.flags & FI_SEND) {
            rv_ofi_sbuf_t *b = e.op_context;
            rv_shm_lock(&o->slock);
            b->next = o->sfree;
            o->sfree = b;
            rv_shm_unlock(&o->slock);
            continue;
        }
        if (!(e.flags & FI_RECV)) continue;
        rv_ofi_region_t *r = e.op_context;
        r->released = 1;
        if (e.len) {
            void *msg = e.buf;
            uint32_t src; unsigned chan; void *body; size_t blen;
            rv_ofi_deliver(msg, e.len, &src, &chan, &body, &blen);
            if (chan == RV_CHAN_REQ && (!reqs_ok || o->stash_n)) {
                rv_ofi_stash_push(o, msg, e.len, src);
            } else {
                r->pending++;
                rv_am_deliver(src, chan, body, blen);
                r->pending--;
                n++;
            }
        }
        rv_ofi_region_check(o, r);
    }
    if (--rv_ofi_depth == 0) pthread_mutex_unlock(&o->plock);
    return n;
}

static const rv_tp_ops_t rv_ofi_ops = {
    .size = sizeof(rv_tp_ops_t),
    .send = rv_ofi_send,
    .poll = rv_ofi_poll,
};

const rv_tp_desc_t rv_tp_ofi_desc = {
    .size = sizeof(rv_tp_desc_t),
    .name = "ofi",
    .abi = RV_TP_ABI,
    .priority = 50,
    .priv_size = sizeof(rv_ofi_t),
    .probe = rv_ofi_probe,
    .open = rv_ofi_open,
    .seg_attach = rv_ofi_seg_attach,
    .close = rv_ofi_close,
    .ops = &rv_ofi_ops,
};
