/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx.c: the UCX transport over UCP: the probe (is there an RDMA device?), one
 * context and worker per process, the worker address exchange, endpoints with peer error
 * handling, tear-down and the descriptor. Messages are in ucx_msg.c, segments and RDMA in
 * ucx_rma.c. See README.md in this folder for the design and its limits. */
#include "transport/ucx/ucx_int.h"
#include "core/core.h"
#include "core/fabric.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static rv_ucx_t *rv_ucx_g; /* the open instance: the endpoint error callback, rv_ucx_stats */

/* The first RDMA device UCX's InfiniBand component lists (mlx5_0, ...), into dev; "" if none.
 * Asking UCT for its components and their memory domains is cheap (no context, no worker). */
static void rv_ucx_find_rdma(char *dev, size_t n)
{
    dev[0] = '\0';
    uct_component_h *comps;
    unsigned ncomp;
    if (uct_query_components(&comps, &ncomp) != UCS_OK) return;
    for (unsigned i = 0; i < ncomp && !dev[0]; i++) {
        uct_component_attr_t a = { .field_mask = UCT_COMPONENT_ATTR_FIELD_NAME |
                                                 UCT_COMPONENT_ATTR_FIELD_MD_RESOURCE_COUNT };
        if (uct_component_query(comps[i], &a) != UCS_OK || !a.md_resource_count) continue;
        if (strcmp(a.name, "ib") && strcmp(a.name, "ugni")) continue; /* network RDMA only */
        uct_md_resource_desc_t *mds = calloc(a.md_resource_count, sizeof *mds);
        if (!mds) break;
        a.field_mask = UCT_COMPONENT_ATTR_FIELD_MD_RESOURCES;
        a.md_resources = mds;
        if (uct_component_query(comps[i], &a) == UCS_OK)
            snprintf(dev, n, "%s", mds[0].md_name);
        free(mds);
    }
    uct_release_component_list(comps);
}

/* Accepts any job when UCX finds an RDMA device (then it comes before ofi), or when
 * RIVET_TRANSPORT=ucx asks for it; otherwise it declines so that ofi serves network jobs. */
static int rv_ucx_probe(const rv_job_t *job)
{
    (void)job;
    int forced = !strcmp(rv_cfg.TRANSPORT, "ucx");
    /* Without a device node loading UCX to ask it is wasted start-up time (tens of ms) */
    /* UCX's RDMA devices are verbs ones (or a Gemini/Aries NIC): other fabrics (cxi, hfi1)
     * are libfabric's, and loading UCX only to hear it has none costs tens of ms */
    char node[64];
    int rdma = rv_fabric_device(node, sizeof node) &&
               (!strncmp(node, "infiniband/", 11) || !strcmp(node, "/dev/kgni0"));
    if (!forced && !rdma) {
        rv_verbose(1, "ucx: declines: no RDMA device (/sys/class/infiniband is empty); "
                   "RIVET_TRANSPORT=ucx uses it anyway");
        return -1;
    }
    const char *why;
    if (rv_ucx_dl_load(&why) != 0) {
        rv_verbose(1, "ucx: declines: %s", why);
        return -1;
    }
    char dev[64];
    rv_ucx_find_rdma(dev, sizeof dev);
    if (dev[0]) {
        rv_verbose(1, "ucx: UCX finds RDMA device %s: preferred over ofi", dev);
        return 0;
    }
    if (forced) {
        rv_verbose(1, "ucx: no RDMA device, but RIVET_TRANSPORT=ucx asks for it (UCX_TLS=%s)",
                   getenv("UCX_TLS") ? getenv("UCX_TLS") : "(UCX's default)");
        return 0;
    }
    rv_verbose(1, "ucx: declines: UCX finds no RDMA device (InfiniBand, RoCE); "
               "RIVET_TRANSPORT=ucx uses it anyway");
    return -1;
}

_Noreturn void rv_ucx_peer_lost(rv_ucx_t *u, gex_Rank_t peer, ucs_status_t st, const char *what)
{
    (void)u;
    /* the peer may simply have ended the job (gasnet_exit): let the launcher end ours first */
    rv_exit_await_end();
    rv_fatal("ucx: %s: rank %u is unreachable (%s): it exited or died", what, peer,
             ucs_status_string(st));
}

/* UCX reports a failed endpoint (the peer's process is gone, or its connection broke). A peer
 * that finished normally closes its connections too, so this only records it: the next
 * operation to that peer ends the job (rv_ucx_peer_lost), and a peer that died makes the
 * launcher end the job anyway. */
static void rv_ucx_ep_error(void *arg, ucp_ep_h ep, ucs_status_t st)
{
    (void)ep;
    rv_ucx_t *u = rv_ucx_g;
    gex_Rank_t r = (gex_Rank_t)(uintptr_t)arg;
    if (!u || r >= u->size) return;
    u->peers[r].dead = (int)st;
    rv_verbose(2, "ucx: endpoint to rank %u failed: %s", r, ucs_status_string(st));
}

void rv_ucx_progress(rv_ucx_t *u)
{
    ucp_worker_progress(u->worker);
}

/* Context and worker; 0 or -1 (reason printed). */
static int rv_ucx_setup(rv_ucx_t *u)
{
    ucp_config_t *cfg;
    ucs_status_t st = ucp_config_read(NULL, NULL, &cfg);
    if (st != UCS_OK) {
        rv_warn("ucx: ucp_config_read failed: %s", ucs_status_string(st));
        return -1;
    }
    ucp_params_t p = {
        .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_ESTIMATED_NUM_EPS |
                      UCP_PARAM_FIELD_MT_WORKERS_SHARED,
        .features = UCP_FEATURE_AM | (rv_cfg.UCX_RDMA ? UCP_FEATURE_RMA : 0) |
                    (rv_cfg.UCX_RDMA && !strcmp(rv_cfg.RATOMIC, "auto")
                         ? UCP_FEATURE_AMO32 | UCP_FEATURE_AMO64 : 0),
        .estimated_num_eps = u->size,
        .mt_workers_shared = 0,
    };
    st = ucp_init(&p, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK) {
        u->ctx = NULL;
        rv_warn("ucx: ucp_init failed: %s", ucs_status_string(st));
        return -1;
    }
    /* several client threads may send while one polls: UCX serializes them */
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_MULTI };
    st = ucp_worker_create(u->ctx, &wp, &u->worker);
    if (st != UCS_OK) {
        u->worker = NULL;
        rv_warn("ucx: ucp_worker_create failed: %s", ucs_status_string(st));
        return -1;
    }
    ucp_worker_attr_t wa = { .field_mask = UCP_WORKER_ATTR_FIELD_THREAD_MODE };
    if (ucp_worker_query(u->worker, &wa) == UCS_OK && wa.thread_mode != UCS_THREAD_MODE_MULTI) {
        rv_warn("ucx: this UCX has no thread-safe workers (built without multi-threading)");
        return -1;
    }
    u->rma = rv_cfg.UCX_RDMA;
    u->amo = u->rma && (p.features & UCP_FEATURE_AMO64) != 0;
    return 0;
}

/* Collective: worker addresses go around by two allgathers (lengths, then the addresses
 * padded to the longest), then one endpoint per rank (this one too: RMA to itself). */
static int rv_ucx_connect(rv_ucx_t *u, int ok)
{
    ucp_address_t *addr = NULL;
    size_t alen = 0;
    if (ok && ucp_worker_get_address(u->worker, &addr, &alen) != UCS_OK) ok = 0;
    uint64_t mine = ok ? alen : 0, *lens = calloc(u->size, sizeof *lens);
    if (!lens || rv_boot_allgather(&mine, sizeof mine, lens) != 0) {
        free(lens);
        return -1;
    }
    uint64_t mx = 0;
    for (uint32_t r = 0; r < u->size; r++) {
        if (!lens[r]) ok = 0;
        if (lens[r] > mx) mx = lens[r];
    }
    if (!ok) { /* every rank sees the same: all fail together */
        if (addr) ucp_worker_release_address(u->worker, addr);
        free(lens);
        return -1;
    }
    unsigned char *me = calloc(1, mx), *all = calloc(u->size, mx);
    int rc = me && all ? 0 : -1;
    if (!rc) {
        memcpy(me, addr, alen);
        rc = rv_boot_allgather(me, mx, all);
    }
    ucp_worker_release_address(u->worker, addr);
    for (uint32_t r = 0; !rc && r < u->size; r++) {
        ucp_ep_params_t ep = {
            .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                          UCP_EP_PARAM_FIELD_ERR_HANDLER,
            .address = (const ucp_address_t *)(all + r * mx),
            .err_mode = UCP_ERR_HANDLING_MODE_PEER,
            .err_handler = { .cb = rv_ucx_ep_error, .arg = (void *)(uintptr_t)r },
        };
        ucs_status_t st = ucp_ep_create(u->worker, &ep, &u->peers[r].ep);
        if (st == UCS_ERR_UNREACHABLE) {
            /* UCX's transports to this peer cannot detect its failure (UCX_TLS=sm: shared
             * memory has no peer failure handler): connect without, the launcher still ends
             * the job when a rank dies */
            ep.err_mode = UCP_ERR_HANDLING_MODE_NONE;
            ep.field_mask &= ~(uint64_t)UCP_EP_PARAM_FIELD_ERR_HANDLER;
            st = ucp_ep_create(u->worker, &ep, &u->peers[r].ep);
            if (st == UCS_OK) u->no_err_mode++;
        }
        if (st != UCS_OK) {
            u->peers[r].ep = NULL;
            rv_warn("ucx: ucp_ep_create to rank %u failed: %s", r, ucs_status_string(st));
            rc = -1;
        }
    }
    free(me);
    free(all);
    free(lens);
    return rc;
}

/* Every rank agrees that every rank is ready (1 = ok); 0 if any failed. */
static int rv_ucx_all_ok(rv_ucx_t *u, int ok)
{
    uint8_t me = (uint8_t)ok, *st = calloc(u->size, 1);
    int all = st && rv_boot_allgather(&me, 1, st) == 0;
    for (uint32_t r = 0; all && r < u->size; r++) all = st[r] == 1;
    free(st);
    return all;
}

static void rv_ucx_stats_emit(rv_stats_emit_t emit, void *ctx);

static int rv_ucx_open(void *priv, const rv_job_t *job, rv_tp_limits_t *lim)
{
    rv_ucx_t *u = priv;
    u->me = job->rank;
    u->size = job->size;
    rv_ucx_g = u;
    if (RV_STAT_ON()) rv_stats_source("tp.ucx", rv_ucx_stats_emit);
    pthread_mutex_init(&u->plock, NULL);
    const char *why;
    if (rv_ucx_dl_load(&why) != 0) {
        rv_warn("ucx: %s", why);
        return -1;
    }
    rv_ucx_find_rdma(u->rdma_dev, sizeof u->rdma_dev);
    u->peers = calloc(u->size, sizeof *u->peers);
    int ok = u->peers && rv_ucx_setup(u) == 0 && rv_ucx_msg_open(u) == 0 &&
             (!u->rma || rv_ucx_rma_open(u) == 0);
    if (rv_ucx_connect(u, ok) != 0) ok = 0;
    /* every rank must agree on RMA; the directory exchange is collective */
    if (!rv_ucx_all_ok(u, ok) || (u->rma && rv_ucx_rma_connect(u) != 0)) return -1;
    if (!rv_ucx_all_ok(u, ok)) return -1;
    unsigned maj, min, rel;
    ucp_get_version(&maj, &min, &rel);
    rv_verbose(1, "ucx: UCX %u.%u.%u, RDMA device %s, UCX_TLS=%s, RMA %s, %u send buffers, "
               "peer failure detection %s, native atomics %s", maj, min, rel, u->rdma_dev[0] ? u->rdma_dev : "none",
               getenv("UCX_TLS") ? getenv("UCX_TLS") : "(default)",
               u->rma ? "on (ucp_put_nbx/ucp_get_nbx, remote completion by endpoint flush)" : "off",
               RV_UCX_NSEND, u->no_err_mode ? "off for some peers (their UCX transports have none)"
                                            : "on",
               u->amo ? "on (integer ADD/AND/OR/XOR/SWAP/CSWAP, bit-pattern ops on floats)"
                      : "off");
    lim->max_msg = RV_UCX_MAX_MSG;
    lim->max_seg_local = rv_ucx_seg_limit(job);
    if (u->rma) {
        lim->max_rdma = (size_t)1 << 30;
        lim->imm_bits = 31; /* a small AM after the put's flush carries it (ucx_rma.c) */
    }
    return 0;
}

static void rv_ucx_close(void *priv)
{
    rv_ucx_t *u = priv;
    if (u->worker) {
        /* force-close: peers may be gone already, and nothing is owed to them now */
        void **reqs = calloc(u->size, sizeof *reqs);
        for (uint32_t r = 0; u->peers && r < u->size; r++) {
            if (!u->peers[r].ep) continue;
            ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                        .flags = UCP_EP_CLOSE_FLAG_FORCE };
            void *req = ucp_ep_close_nbx(u->peers[r].ep, &prm);
            if (reqs && UCS_PTR_IS_PTR(req)) reqs[r] = req;
            u->peers[r].ep = NULL;
        }
        for (uint32_t r = 0; reqs && r < u->size; r++) {
            for (int i = 0; reqs[r] && i < 100000 &&
                            ucp_request_check_status(reqs[r]) == UCS_INPROGRESS; i++)
                ucp_worker_progress(u->worker);
            if (reqs[r]) ucp_request_free(reqs[r]);
        }
        free(reqs);
    }
    rv_ucx_rma_close(u);
    rv_ucx_msg_close(u);
    if (u->worker) ucp_worker_destroy(u->worker);
    if (u->ctx) ucp_cleanup(u->ctx);
    free(u->peers);
    pthread_mutex_destroy(&u->plock);
    if (rv_ucx_g == u) rv_ucx_g = NULL;
    memset(u, 0, sizeof *u);
}

static const rv_tp_ops_t rv_ucx_ops = {
    .size = sizeof(rv_tp_ops_t),
    .send = rv_ucx_send,
    .poll = rv_ucx_poll,
    .put = rv_ucx_put,
    .get = rv_ucx_get,
    .put_seg = rv_ucx_put_seg,
    .get_seg = rv_ucx_get_seg,
    .reserve = rv_ucx_reserve,
    .commit = rv_ucx_commit,
    .unreserve = rv_ucx_unreserve,
};

const rv_tp_desc_t rv_tp_ucx_desc = {
    .size = sizeof(rv_tp_desc_t),
    .name = "ucx",
    .abi = RV_TP_ABI,
    .priv_size = sizeof(rv_ucx_t),
    .probe = rv_ucx_probe,
    .open = rv_ucx_open,
    .seg_attach = rv_ucx_seg_attach,
    .close = rv_ucx_close,
    .ops = &rv_ucx_ops,
    .atomics = rv_ucx_amo_native,
    .seg_register = rv_ucx_seg_register,
    .seg_peer = rv_ucx_seg_peer,
};

/* RIVET_STATS: the counters above, folded into the rank's record as tp.ucx.* (relaxed reads,
 * no lock: this may run from a fatal-error or signal path). */
static void rv_ucx_stats_emit(rv_stats_emit_t emit, void *ctx)
{
    rv_ucx_t *u = rv_ucx_g;
    if (!u) return;
#define RV_UCX_EMIT(f) emit(#f, __atomic_load_n(&u->st.f, __ATOMIC_RELAXED), ctx)
    RV_UCX_EMIT(sends_imm);
    RV_UCX_EMIT(sends_buf);
    RV_UCX_EMIT(sends_np);
    RV_UCX_EMIT(send_again);
    RV_UCX_EMIT(recv_held);
    RV_UCX_EMIT(recv_copied);
    RV_UCX_EMIT(puts);
    RV_UCX_EMIT(gets);
    RV_UCX_EMIT(flushes);
    RV_UCX_EMIT(flushed_puts);
    RV_UCX_EMIT(imm_sent);
    RV_UCX_EMIT(amos);
    RV_UCX_EMIT(mem_maps);
    RV_UCX_EMIT(credit_stalls);
    RV_UCX_EMIT(credit_msgs);
    RV_UCX_EMIT(reqq_max);
#undef RV_UCX_EMIT
}

int rv_ucx_stats(rv_ucx_stats_t *out)
{
    rv_ucx_t *u = rv_ucx_g;
    if (!u) return -1;
    memcpy(out, &u->st, sizeof *out);
    return 0;
}
