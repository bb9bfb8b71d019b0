/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi.c: the libfabric transport: provider choice, endpoint set-up and tear-down,
 * the address exchange, and the descriptor. Messages are in ofi_msg.c, flow control in
 * ofi_credit.c, RDMA in ofi_rma.c. See README.md in this folder for the design and its limits. */
#include "transport/ofi/ofi_int.h"
#include "core/spin.h"
#include "core/core.h"
#include "core/fabric.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define RV_OFI_NAME_MAX 256
#define RV_OFI_TXQ 512 /* transmit queue entries asked for */
#define RV_OFI_RXQ 128 /* receive queue entries asked for */

/* Providers in order of preference when neither RIVET_OFI_PROVIDER nor FI_PROVIDER
 * says. 'sockets' is never picked by default: its progress thread eats a core. */
static const char *const rv_ofi_pref[] = {
    "cxi", "efa", "psm3", "verbs;ofi_rxm", "tcp;ofi_rxm", "udp;ofi_rxd", "shm", NULL,
};

/* Hint levels, best first: RDMA with delivery-complete writes; RDMA whose remote
 * completion needs a follow-up read; messages only. */
enum { RV_OFI_LVL_DC, RV_OFI_LVL_RMA, RV_OFI_LVL_MSG, RV_OFI_NLVL };

static struct fi_info *rv_ofi_hints(int level, int multi, int amo)
{
    struct fi_info *h = fi_allocinfo();
    if (!h) return NULL;
    h->caps = FI_MSG | (level < RV_OFI_LVL_MSG ? FI_RMA : 0) | (multi ? FI_MULTI_RECV : 0) |
              (amo ? FI_ATOMIC : 0);
    h->mode = FI_CONTEXT;
    h->ep_attr->type = FI_EP_RDM;
    h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY;
    h->domain_attr->threading = FI_THREAD_SAFE;
    h->domain_attr->data_progress = FI_PROGRESS_MANUAL;
    if (level == RV_OFI_LVL_DC) h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    if (level == RV_OFI_LVL_RMA) h->tx_attr->msg_order = FI_ORDER_RAW; /* read after write */
    if (rv_cfg.OFI_PROVIDER[0]) h->fabric_attr->prov_name = strdup(rv_cfg.OFI_PROVIDER);
    return h;
}

static int rv_ofi_rank(const char *prov)
{
    for (int i = 0; rv_ofi_pref[i]; i++)
        if (!strcmp(prov, rv_ofi_pref[i])) return i;
    return 100;
}

static struct fi_info *rv_ofi_best(struct fi_info *list)
{
    int explicit = rv_cfg.OFI_PROVIDER[0] || getenv("FI_PROVIDER");
    struct fi_info *best = NULL;
    for (struct fi_info *i = list; i; i = i->next) {
        const char *p = i->fabric_attr->prov_name;
        if (!explicit && (!strcmp(p, "sockets") || rv_ofi_rank(p) == 100)) continue;
        if (i->ep_attr->max_msg_size < RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t)) continue;
        if (!best || rv_ofi_rank(p) < rv_ofi_rank(best->fabric_attr->prov_name)) best = i;
    }
    return best;
}

/* The same provider, fabric and domain as 'best' (from *list, hints level/multi) asked for
 * FI_ATOMIC too: that entry (*list then holds its list, *amo = 1), or 'best' unchanged if the
 * provider cannot add atomics. Asking afterwards, for the chosen provider only, means that
 * wanting atomics never changes which provider is chosen; fi_getinfo is cheap by now. */
static int rv_ofi_put_completion(void);

/* The provider orders RMA reads after earlier writes (needed for flush-based put completion). */
static int rv_ofi_raw(const struct fi_info *i)
{
    return (i->tx_attr->msg_order & FI_ORDER_RAW) && (i->rx_attr->msg_order & FI_ORDER_RAW);
}

static struct fi_info *rv_ofi_with_atomics(struct fi_info **list, struct fi_info *best, int level,
                                           int multi, int *amo)
{
    /* ofi_rxm stops ordering reads after writes once it carries atomics: with
     * RIVET_OFI_PUT_COMPLETION=flush the flush ordering wins over native atomics */
    int keep_raw = rv_ofi_raw(best) && rv_ofi_put_completion() == 1;
    struct fi_info *h = rv_ofi_hints(level, multi, 1), *l2 = NULL;
    if (!h) return best;
    free(h->fabric_attr->prov_name);
    h->fabric_attr->prov_name = strdup(best->fabric_attr->prov_name);
    int rc = h->fabric_attr->prov_name ? fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, &l2) : -1;
    fi_freeinfo(h);
    for (struct fi_info *i = rc ? NULL : l2; i; i = i->next) {
        if (!(i->caps & FI_ATOMIC) ||
            strcmp(i->fabric_attr->prov_name, best->fabric_attr->prov_name) ||
            strcmp(i->fabric_attr->name, best->fabric_attr->name) ||
            strcmp(i->domain_attr->name, best->domain_attr->name) ||
            i->ep_attr->max_msg_size < RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t) ||
            (keep_raw && !rv_ofi_raw(i)))
            continue;
        fi_freeinfo(*list);
        *list = l2;
        *amo = 1;
        return i;
    }
    if (l2) fi_freeinfo(l2);
    return best;
}

/* The provider to use, or NULL (reason in *why); *level says what it can do, *multi whether
 * it offers FI_MULTI_RECV, *amo whether it was asked for FI_ATOMIC. The caller frees the whole
 * list via *list. RIVET_OFI_RDMA=0 skips the RDMA levels, RIVET_OFI_DC=0 the delivery-complete
 * one (to test the follow-up read). Each RDMA level is first tried with FI_ATOMIC (native
 * atomics, ofi_amo.c) unless RIVET_RATOMIC forbids them, then without. */
static struct fi_info *rv_ofi_choose(struct fi_info **list, const char **why, int *level,
                                     int *multi, int *amo)
{
    *list = NULL;
    *why = "no provider";
    int first = !rv_cfg.OFI_RDMA ? RV_OFI_LVL_MSG : !rv_cfg.OFI_DC ? RV_OFI_LVL_RMA : RV_OFI_LVL_DC;
    int want_amo = !strcmp(rv_cfg.RATOMIC, "auto"); /* cpu, ref: never native */
    for (int m = rv_cfg.OFI_MULTI_RECV ? 1 : 0; m >= 0; m--) {
        for (int l = first; l < RV_OFI_NLVL; l++) {
            struct fi_info *h = rv_ofi_hints(l, m, 0);
            if (!h) { *why = "out of memory"; return NULL; }
            int rc = fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, h, list);
            fi_freeinfo(h);
            if (rc || !*list) {
                if (rc) *why = fi_strerror(-rc);
                *list = NULL;
                continue;
            }
            struct fi_info *best = rv_ofi_best(*list);
            if (best) {
                *level = l;
                *multi = m;
                *amo = 0;
                /* atomics need RDMA's segment keys */
                return want_amo && l < RV_OFI_LVL_MSG ? rv_ofi_with_atomics(list, best, l, m, amo)
                                                      : best;
            }
            *why = "no provider that is not 'sockets' carries 64 KiB messages";
            fi_freeinfo(*list);
            *list = NULL;
        }
    }
    return NULL;
}

/* rxm's bounce-buffer size on a host with no fabric device, where rxm can only sit on tcp */
#define RV_OFI_RXM_TCP_BUFFER 4096

/* ofi_rxm sends messages above its eager limit by segmentation, and those overlap later
 * messages in an FI_MULTI_RECV region (seen with libfabric 1.17; README.md). With every message
 * eager, regions are packed exactly. The eager limit (FI_OFI_RXM_EAGER_LIMIT) is by default
 * the bounce-buffer size (FI_OFI_RXM_BUFFER_SIZE, 16 KiB). rxm allocates and clears its bounce
 * buffers 1024 at a time, at fi_enable and again at the first send: 2 x 67 MB at 64 KiB, 38%
 * of the smallest job's CPU (docs/benchmarks.md). Over verbs the two sizes must be equal;
 * over tcp the buffers may be smaller, and larger eager messages go between the user's buffers
 * and the socket directly. So on a host with no fabric device (rxm over tcp only) Rivet asks
 * for 4 KiB buffers and an eager limit of the largest message, elsewhere for buffers of the
 * largest message; each only where the user set neither variable. Set before the first
 * fi_getinfo (rxm reads them when libfabric initialises). Returns 0 if the user's smaller
 * eager limit rules FI_MULTI_RECV out. */
static int rv_ofi_rxm_env(void)
{
    static const size_t need = RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t) + 64;
    const char *b = getenv("FI_OFI_RXM_BUFFER_SIZE"), *e = getenv("FI_OFI_RXM_EAGER_LIMIT");
    int user_b = b && *b, user_e = e && *e;
    char dev[64], buf[32];
    /* small bounce buffers need rxm's own eager limit (FI_OFI_RXM_EAGER_LIMIT, separate from
     * the buffer size in the libfabric this was measured with, 1.17; older ones tie the two) */
    uint32_t v = fi_version();
    int small_bufs = !rv_fabric_device(dev, sizeof dev) &&
                   (FI_MAJOR(v) > 1 || (FI_MAJOR(v) == 1 && FI_MINOR(v) >= 17));
    snprintf(buf, sizeof buf, "%zu", need);
    if (!user_b && !user_e) { /* (unset or empty: an empty value is replaced, not kept) */
        if (small_bufs) {
            setenv("FI_OFI_RXM_EAGER_LIMIT", buf, 1);
            snprintf(buf, sizeof buf, "%u", (unsigned)RV_OFI_RXM_TCP_BUFFER);
        }
        setenv("FI_OFI_RXM_BUFFER_SIZE", buf, 1);
        /* each connection pre-posts (and clears) this many bounce buffers: 128 by default,
         * 8 MiB per peer at 64 KiB; 16 keep start-up fast and still stream */
        setenv("FI_OFI_RXM_MSG_RX_SIZE", "16", 0);
        return 1;
    }
    const char *lim = user_e ? e : b; /* the eager limit defaults to the buffer size */
    return strtoull(lim, NULL, 0) >= need;
}

/* Accepts any job a usable provider serves, but on a host with no fabric device (Ethernet
 * only) declines unless RIVET_TRANSPORT=ofi asks: libfabric would offer only its tcp provider
 * there, and the udp transport starts ~30x faster and has the shorter round trip
 * (docs/benchmarks.md, "Start-up and exit"). */
static int rv_ofi_probe(const rv_job_t *job)
{
    (void)job;
    char dev[64];
    if (strcmp(rv_cfg.TRANSPORT, "ofi") && !rv_fabric_device(dev, sizeof dev)) {
        rv_verbose(1, "ofi: declines: no fabric device (/sys/class/infiniband, /sys/class/cxi "
                   "are empty), so udp serves; RIVET_TRANSPORT=ofi uses libfabric's tcp anyway");
        return -1;
    }
    const char *why;
    if (rv_ofi_dl_load(&why) != 0) {
        rv_verbose(1, "ofi: not usable: %s", why);
        return -1;
    }
    rv_ofi_rxm_env();
    struct fi_info *list;
    int level, multi, amo;
    struct fi_info *i = rv_ofi_choose(&list, &why, &level, &multi, &amo);
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

/* RIVET_OFI_PUT_COMPLETION: 1 flush, 0 delivery, -1 auto (fatal if malformed). */
static int rv_ofi_put_completion(void)
{
    const char *m = rv_cfg.OFI_PUT_COMPLETION;
    if (!strcmp(m, "auto")) return -1;
    if (!strcmp(m, "flush")) return 1;
    if (!strcmp(m, "delivery")) return 0;
    rv_fatal("environment: RIVET_OFI_PUT_COMPLETION=%s: expected auto, flush or delivery", m);
}

int rv_ofi_mr_reg(rv_ofi_t *o, void *buf, size_t len, uint64_t access, uint64_t key,
                  struct fid_mr **mr)
{
    return fi_mr_reg(o->domain, buf, len, access, 0, o->prov_key ? 0 : key, 0, mr, NULL);
}

static int rv_ofi_setup(rv_ofi_t *o, struct fi_info *fi, int level, int multi, int amo)
{
    o->info = fi_dupinfo(fi);
    if (!o->info) return -1;
    /* Delivery-complete only where we ask for it (RDMA writes): sends keep the cheaper
     * default, so their buffers come back sooner. */
    o->info->tx_attr->op_flags &= ~(uint64_t)FI_DELIVERY_COMPLETE;
    /* Queue depths: rxm allocates (and clears) a bounce buffer of its eager size per entry,
     * so its default 2048 x 64 KiB would cost a quarter GiB and seconds at start-up. */
    if (o->info->tx_attr->size > RV_OFI_TXQ) o->info->tx_attr->size = RV_OFI_TXQ;
    if (o->info->rx_attr->size > RV_OFI_RXQ) o->info->rx_attr->size = RV_OFI_RXQ;
    uint64_t mrm = fi->domain_attr->mr_mode;
    o->bufsz = (RV_OFI_MAX_MSG + sizeof(rv_ofi_hdr_t) + 63) & ~(size_t)63;
    o->inject = fi->tx_attr->inject_size;
    o->mr_local = (mrm & FI_MR_LOCAL) != 0 || rv_cfg.OFI_MR_LOCAL;
    o->prov_key = (mrm & FI_MR_PROV_KEY) != 0;
    o->virt_addr = (mrm & FI_MR_VIRT_ADDR) != 0;
    o->rma = level != RV_OFI_LVL_MSG && fi->domain_attr->mr_key_size <= 8;
    o->dc = level == RV_OFI_LVL_DC;
    /* puts complete remotely by per-peer flushes only if a read is ordered after the
     * writes before it, at the initiator and at the target */
    int raw = rv_ofi_raw(fi);
    int want_flush = rv_ofi_put_completion();
    o->pflush = !o->rma || !raw || want_flush == 0 ? 0 : want_flush == 1 ? 2 : 1;
    if (o->rma && !raw && want_flush == 1)
        rv_verbose(1, "ofi: RIVET_OFI_PUT_COMPLETION=flush, but %s does not order reads after "
                   "writes: each write's own remote completion instead",
                   fi->fabric_attr->prov_name);
    o->st.put_flush = (uint64_t)o->pflush;
    o->rma_inject = fi->tx_attr->inject_size;
    o->multi = multi;
    o->amo_cap = amo && (fi->caps & FI_ATOMIC) != 0;
    /* rxm packs FI_MULTI_RECV regions exactly only if every message is eager */
    if (multi && strstr(fi->fabric_attr->prov_name, "ofi_rxm") && !rv_ofi_rxm_env()) {
        rv_verbose(1, "ofi: rxm's eager limit (FI_OFI_RXM_EAGER_LIMIT, else "
                   "FI_OFI_RXM_BUFFER_SIZE) is below %zu: one message per receive buffer "
                   "instead of FI_MULTI_RECV regions", o->bufsz);
        o->multi = 0;
    }
    RV_OFI_TRY(fi_fabric(fi->fabric_attr, &o->fabric, NULL));
    RV_OFI_TRY(fi_domain(o->fabric, o->info, &o->domain, NULL));
    struct fi_av_attr av = { .type = FI_AV_TABLE, .count = o->size };
    RV_OFI_TRY(fi_av_open(o->domain, &av, &o->av, NULL));
    struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_DATA, .wait_obj = FI_WAIT_NONE,
                             .size = 4 * (RV_OFI_NSEND + RV_OFI_NROP + RV_OFI_NAMO) + 1024 };
    RV_OFI_TRY(fi_cq_open(o->domain, &cq, &o->cq, NULL));
    RV_OFI_TRY(fi_endpoint(o->domain, o->info, &o->ep, NULL));
    RV_OFI_TRY(fi_ep_bind(o->ep, &o->av->fid, 0));
    RV_OFI_TRY(fi_ep_bind(o->ep, &o->cq->fid, FI_TRANSMIT | FI_RECV));
    if (rv_ofi_recv_open(o) != 0) return -1;
    RV_OFI_TRY(fi_enable(o->ep));

    size_t slen = o->bufsz * RV_OFI_NSEND;
    o->spool = mmap(NULL, slen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (o->spool == MAP_FAILED) {
        o->spool = NULL;
        rv_warn("ofi: cannot allocate %zu bytes of send buffers", slen);
        return -1;
    }
    if (o->mr_local)
        RV_OFI_TRY(rv_ofi_mr_reg(o, o->spool, slen, FI_SEND, RV_OFI_KEY_SEND, &o->smr));
    for (int i = RV_OFI_NSEND - 1; i >= 0; i--) {
        o->sbufs[i].ctx.kind = RV_OFI_CTX_SEND;
        o->sbufs[i].data = o->spool + (size_t)i * o->bufsz;
        rv_flist_put(&o->sfree, &o->sbufs[i].link);
    }
    rv_ofi_recv_post_all(o);
    if (rv_ofi_credit_open(o) != 0) return -1;
    if (o->rma && rv_ofi_rma_open(o) != 0) return -1;
    return 0;
}

/* The open instance (for rv_ofi_stats), or NULL. */
static rv_ofi_t *rv_ofi_inuse;

static void rv_ofi_stats_emit(rv_stats_emit_t emit, void *ctx);

/* Collective: endpoint names go around by a bootstrap allgather into the AV. */
static int rv_ofi_open(void *priv, const rv_job_t *job, rv_tp_limits_t *lim)
{
    rv_ofi_t *o = priv;
    rv_ofi_inuse = o;
    if (RV_STAT_ON()) rv_stats_source("tp.ofi", rv_ofi_stats_emit);
    o->me = job->rank;
    o->size = job->size;
    pthread_mutex_init(&o->plock, NULL);
    pthread_mutex_init(&o->rclock, NULL);
    const char *why = "";
    if (rv_ofi_dl_load(&why) != 0) {
        rv_warn("ofi: %s", why);
        return -1;
    }
    rv_ofi_rxm_env();
    struct fi_info *list;
    int level = RV_OFI_LVL_MSG, multi = 0, amo = 0;
    struct fi_info *fi = rv_ofi_choose(&list, &why, &level, &multi, &amo);
    int ok = fi && rv_ofi_setup(o, fi, level, multi, amo) == 0;
    if (!fi) rv_warn("ofi: no usable libfabric provider: %s", why);
    else rv_verbose(1, "ofi: provider %s, fabric %s, inject %zu, RDMA %s, mr_mode%s%s%s%s, "
                    "receive: %u %s of %zu bytes, %u credits per peer, %d to lend",
                    fi->fabric_attr->prov_name, fi->fabric_attr->name, o->inject,
                    !o->rma     ? "off"
                    : o->pflush ? "on (puts: transmit-complete writes, one flush read per peer)"
                    : o->dc     ? "on (FI_DELIVERY_COMPLETE)"
                                : "on (remote completion by a follow-up read)",
                    o->mr_local ? " local" : "", o->virt_addr ? " virt_addr" : "",
                    o->prov_key ? " prov_key" : "",
                    (o->mr_local || o->virt_addr || o->prov_key) ? "" : " none", o->nregions,
                    o->multi ? "FI_MULTI_RECV regions" : "buffers", o->rsize, o->credits0,
                    o->reserve);
    if (fi && strstr(fi->fabric_attr->prov_name, "ofi_rxm")) {
        const char *b = getenv("FI_OFI_RXM_BUFFER_SIZE"), *e = getenv("FI_OFI_RXM_EAGER_LIMIT");
        int has_e = e && *e;
        rv_verbose(1, "ofi: rxm bounce buffers of %s bytes, eager limit %s%s",
                   b && *b ? b : "16384 (rxm's default)", has_e ? e : "the buffer size",
                   has_e ? " bytes" : "");
    }
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
    /* everyone must agree before any message flows, and on whether RDMA is used */
    uint8_t *st = calloc(o->size, 1), me_ok = (uint8_t)((ok && gathered) | (o->rma ? 2 : 0));
    int all_ok = st && rv_boot_allgather(&me_ok, 1, st) == 0;
    int all_rma = 1;
    for (uint32_t r = 0; all_ok && r < o->size; r++) {
        all_ok = st[r] & 1;
        all_rma &= (st[r] & 2) != 0;
    }
    free(st);
    if (!all_ok) return -1;
    /* An idle poll here is already a system call or two (rxm/tcp progress: poll, epoll_wait);
     * a sched_yield after it costs little more, and on a machine busy with other work it lets
     * the peer that has to answer run at once instead of after our time slice: an AM Short
     * round trip at load 17-30 took 50-56 us instead of 209-581 us (docs/benchmarks.md). */
    if (!strcmp(rv_cfg.WAIT_MODE, "auto")) rv_job.idle_yield = 1;
    if (rv_ofi_hello(o) != 0) return -1;
    if (o->rma && !all_rma) {
        rv_verbose(1, "ofi: RDMA off: not every rank's provider offers it");
        rv_ofi_rma_close(o);
        o->rma = 0;
    }
    if (rv_ofi_amo_open(o) != 0) return -1; /* collective: after RDMA is agreed */
    lim->max_msg = RV_OFI_MAX_MSG;
    lim->max_seg_local = rv_ofi_seg_limit(job);
    if (o->rma) {
        size_t mx = o->info->ep_attr->max_msg_size;
        if (mx > ((size_t)1 << 30)) mx = (size_t)1 << 30;
        /* a registration must fit in the cache with room to spare */
        if (o->mr_local && mx > o->rcmax / 4) mx = o->rcmax / 4;
        lim->max_rdma = mx & ~(size_t)4095;
        lim->imm_bits = o->info->domain_attr->cq_data_size >= 8 ? 31 : 0;
    }
    return 0;
}

static void rv_ofi_close(void *priv)
{
    rv_ofi_t *o = priv;
    if (rv_ofi_inuse == o) rv_ofi_inuse = NULL;
    /* the endpoint goes first: nothing may complete into memory we free below */
    if (o->ep) fi_close(&o->ep->fid);
    o->ep = NULL;
    rv_ofi_seg_close(o);
    rv_ofi_amo_close(o);
    rv_ofi_rma_close(o);
    rv_ofi_recv_close(o);
    rv_ofi_credit_close(o);
    if (o->smr) fi_close(&o->smr->fid);
    if (o->cq) fi_close(&o->cq->fid);
    if (o->av) fi_close(&o->av->fid);
    if (o->domain) fi_close(&o->domain->fid);
    if (o->fabric) fi_close(&o->fabric->fid);
    if (o->info) fi_freeinfo(o->info);
    if (o->spool) munmap(o->spool, o->bufsz * RV_OFI_NSEND);
    free(o->addr);
    pthread_mutex_destroy(&o->plock);
    pthread_mutex_destroy(&o->rclock);
    memset(o, 0, sizeof *o);
}

static const rv_tp_ops_t rv_ofi_ops = {
    .size = sizeof(rv_tp_ops_t),
    .send = rv_ofi_send,
    .poll = rv_ofi_poll,
    .put = rv_ofi_put,
    .get = rv_ofi_get,
    .put_seg = rv_ofi_put_seg,
    .get_seg = rv_ofi_get_seg,
};

const rv_tp_desc_t rv_tp_ofi_desc = {
    .size = sizeof(rv_tp_desc_t),
    .name = "ofi",
    .abi = RV_TP_ABI,
    .priv_size = sizeof(rv_ofi_t),
    .probe = rv_ofi_probe,
    .open = rv_ofi_open,
    .seg_attach = rv_ofi_seg_attach,
    .close = rv_ofi_close,
    .ops = &rv_ofi_ops,
    .atomics = rv_ofi_amo_native,
    .seg_register = rv_ofi_seg_register,
    .seg_peer = rv_ofi_seg_peer,
};

/* RIVET_STATS: the counters of ofi_stats.h (not the settings and gauges), folded into the
 * rank's record as tp.ofi.* (relaxed reads, no lock: this may run from a fatal-error or signal
 * path). */
static void rv_ofi_stats_emit(rv_stats_emit_t emit, void *ctx)
{
    rv_ofi_t *o = rv_ofi_inuse;
    if (!o) return;
#define RV_OFI_EMIT(f) emit(#f, __atomic_load_n(&o->st.f, __ATOMIC_RELAXED), ctx)
    RV_OFI_EMIT(rc_hits);
    RV_OFI_EMIT(rc_misses);
    RV_OFI_EMIT(rc_merged);
    RV_OFI_EMIT(rc_evicted);
    RV_OFI_EMIT(rc_bytes_max);
    RV_OFI_EMIT(puts);
    RV_OFI_EMIT(gets);
    RV_OFI_EMIT(bounce_puts);
    RV_OFI_EMIT(bounce_gets);
    RV_OFI_EMIT(flush_reads);
    RV_OFI_EMIT(peer_flushes);
    RV_OFI_EMIT(flushed_puts);
    RV_OFI_EMIT(imm_recv);
    RV_OFI_EMIT(credit_stalls);
    RV_OFI_EMIT(loans_granted);
    RV_OFI_EMIT(loans_received);
    RV_OFI_EMIT(loans_reclaimed);
    RV_OFI_EMIT(implicit_replies);
    RV_OFI_EMIT(stashed);
    RV_OFI_EMIT(multi_recv_reposts);
    RV_OFI_EMIT(multi_recv_late);
    RV_OFI_EMIT(amos);
    RV_OFI_EMIT(amo_again);
#undef RV_OFI_EMIT
}

int rv_ofi_stats(rv_ofi_stats_t *out)
{
    rv_ofi_t *o = rv_ofi_inuse;
    if (!o) return -1;
    rv_ofi_rc_stats(o, out);
    return 0;
}
