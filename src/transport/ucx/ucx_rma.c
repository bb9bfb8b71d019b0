/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_rma.c: segments and RDMA for the ucx transport. A segment is mapped once
 * with ucp_mem_map and its packed remote key exchanged by allgather at attach; segments bound
 * later (gex_EP_BindSegment) publish their packed keys in a small registered directory that
 * peers read with a get when the core tells them about the segment. put/get are
 * ucp_put_nbx/ucp_get_nbx; a put's remote completion comes from flushing its endpoint, one
 * flush per peer in flight, issued from the poll for every put queued since the last one.
 * Ranks of one neighbourhood also map each other's segments (shared-memory objects) and copy
 * directly, as under ofi. */
#include "transport/ucx/ucx_int.h"
#include "core/core.h"
#include "core/shmobj.h"
#include "boot/boot.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>

/* A directory slot: generation, packed key length, packed key. */
typedef struct {
    uint32_t gen, len;
} rv_ucx_slot_t;

uintptr_t rv_ucx_seg_limit(const rv_job_t *job)
{
    struct statvfs v;
    if (job->nbrhd_size < 2 || statvfs("/dev/shm", &v) != 0) return 0;
    uintptr_t avail = (uintptr_t)v.f_bavail * v.f_frsize / job->host_size;
    avail &= ~(uintptr_t)(GASNET_PAGESIZE - 1);
    return avail ? avail : GASNET_PAGESIZE;
}

static int rv_ucx_all_ok(rv_ucx_t *u, int ok)
{
    uint8_t me = (uint8_t)ok, *st = calloc(u->size, 1);
    int all = st && rv_boot_allgather(&me, 1, st) == 0;
    for (uint32_t r = 0; all && r < u->size; r++) all = st[r] == 1;
    free(st);
    return all;
}

/* Maps [addr, addr+len) for remote access. */
static int rv_ucx_map(rv_ucx_t *u, void *addr, size_t len, ucp_mem_h *mh)
{
    ucp_mem_map_params_t mp = {
        .field_mask = UCP_MEM_MAP_PARAM_FIELD_ADDRESS | UCP_MEM_MAP_PARAM_FIELD_LENGTH,
        .address = addr,
        .length = len,
    };
    ucs_status_t st = ucp_mem_map(u->ctx, &mp, mh);
    RV_UCX_COUNT(u, mem_maps, 1);
    if (st != UCS_OK) {
        rv_warn("ucx: ucp_mem_map of %zu bytes failed: %s", len, ucs_status_string(st));
        *mh = NULL;
        return -1;
    }
    return 0;
}

/* Collective: every rank's packed key of mh (NULL: none) and base address. keys[r] receives
 * peer r's unpacked key (NULL when it has none). 0 or -1. */
static int rv_ucx_exchange(rv_ucx_t *u, ucp_mem_h mh, void *base, ucp_rkey_h *keys, size_t kstride,
                           uint64_t *bases)
{
    void *kb = NULL;
    size_t klen = 0;
    int ok = 1;
    if (mh && ucp_rkey_pack(u->ctx, mh, &kb, &klen) != UCS_OK) ok = 0;
    uint64_t mine[2] = { (uint64_t)(uintptr_t)base, ok ? klen : UINT64_MAX };
    uint64_t *all = calloc(u->size, sizeof mine);
    int rc = all && rv_boot_allgather(mine, sizeof mine, all) == 0 ? 0 : -1;
    uint64_t mx = 0;
    for (uint32_t r = 0; !rc && r < u->size; r++) {
        if (all[2 * r + 1] == UINT64_MAX) rc = -1;
        else if (all[2 * r + 1] > mx) mx = all[2 * r + 1];
    }
    unsigned char *me = NULL, *blobs = NULL;
    if (!rc && mx) {
        me = calloc(1, mx);
        blobs = calloc(u->size, mx);
        if (!me || !blobs) rc = -1;
        if (me && klen) memcpy(me, kb, klen);
        /* every rank takes part even if its allocation failed: the next step agrees */
        if (rv_boot_allgather(me ? me : blobs, mx, blobs ? blobs : me) != 0) rc = -1;
    }
    for (uint32_t r = 0; !rc && r < u->size; r++) {
        ucp_rkey_h *k = (ucp_rkey_h *)((char *)keys + r * kstride);
        bases[r] = all[2 * r];
        if (!all[2 * r + 1]) continue;
        ucs_status_t st = ucp_ep_rkey_unpack(u->peers[r].ep, blobs + r * mx, k);
        if (st != UCS_OK) {
            rv_warn("ucx: unpacking rank %u's remote key failed: %s", r, ucs_status_string(st));
            *k = NULL;
            rc = -1;
        }
    }
    if (kb) ucp_rkey_buffer_release(kb);
    free(me);
    free(blobs);
    free(all);
    return rc;
}

/* Collective at open: the directory of bound segments' keys. */
int rv_ucx_rma_open(rv_ucx_t *u)
{
    u->fdirty = calloc(u->size, sizeof *u->fdirty);
    size_t dlen = (size_t)GASNET_MAXEPS * RV_UCX_DIR_SLOT;
    u->dir = calloc(1, dlen);
    u->dirkey = calloc(u->size, sizeof *u->dirkey);
    u->dirbase = calloc(u->size, sizeof *u->dirbase);
    if (!u->fdirty || !u->dir || !u->dirkey || !u->dirbase) return -1;
    return rv_ucx_map(u, u->dir, dlen, &u->dirmh);
}

/* Collective part of open, once endpoints exist. */
int rv_ucx_rma_connect(rv_ucx_t *u)
{
    return rv_ucx_exchange(u, u->dirmh, u->dir, u->dirkey, sizeof *u->dirkey, u->dirbase);
}

void rv_ucx_rma_close(rv_ucx_t *u)
{
    for (uint32_t r = 0; u->peers && r < u->size; r++) {
        rv_ucx_peer_t *p = &u->peers[r];
        if (p->rkey) ucp_rkey_destroy(p->rkey);
        for (unsigned i = 1; i < GASNET_MAXEPS; i++)
            if (p->eprkey[i]) ucp_rkey_destroy(p->eprkey[i]);
        if (u->dirkey && u->dirkey[r]) ucp_rkey_destroy(u->dirkey[r]);
        if (u->nbrseg && u->nbrseg[r]) munmap(u->nbrseg[r], (size_t)u->nbrlen[r]);
    }
    for (unsigned i = 1; i < GASNET_MAXEPS; i++)
        if (u->epmh[i]) ucp_mem_unmap(u->ctx, u->epmh[i]);
    if (u->segmh) ucp_mem_unmap(u->ctx, u->segmh);
    if (u->dirmh) ucp_mem_unmap(u->ctx, u->dirmh);
    if (u->seg && !u->seg_client) munmap(u->seg, u->seglen);
    free(u->nbrseg);
    free(u->nbrlen);
    free(u->dirkey);
    free(u->dirbase);
    free(u->dir);
    for (unsigned i = 0; i < u->nrchunk; i++) free(u->rchunk[i]);
    u->nrchunk = 0;
    free(u->fdirty);
}

int rv_ucx_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_ucx_t *u = priv;
    const int shared = rv_job.nbrhd_size > 1;
    int ok;
    void *mine = rv_shmobj_segment("ucx", 'u', size, &ok);
    u->seg = mine;
    u->seglen = mine ? size : 0;
    if (mine && u->rma && rv_ucx_map(u, mine, size, &u->segmh) != 0) ok = 0;
    uint64_t *bases = calloc(u->size, sizeof *bases), me[2] = { size, (uint64_t)ok }, *sz;
    sz = calloc(u->size, sizeof me);
    int res = bases && sz && rv_boot_allgather(me, sizeof me, sz) == 0;
    for (uint32_t r = 0; res && r < u->size; r++) res = sz[2 * r + 1] == 1;
    if (res && u->rma)
        res = rv_ucx_exchange(u, u->segmh, mine, &u->peers[0].rkey, sizeof(rv_ucx_peer_t),
                              bases) == 0;
    for (uint32_t r = 0; res && r < u->size; r++) {
        if (!u->rma) bases[r] = 0;
        u->peers[r].base = bases[r];
        u->peers[r].size = sz[2 * r];
        map[r].owner_base = (void *)(uintptr_t)bases[r];
        map[r].size = (uintptr_t)sz[2 * r];
        map[r].local_base = r == u->me ? mine : NULL;
        map[r].flags = u->rma && r != u->me && sz[2 * r] ? RV_SEG_RDMA : 0;
    }
    /* without RMA the owner addresses still have to go around */
    if (res && !u->rma) {
        uint64_t b = (uint64_t)(uintptr_t)mine;
        res = rv_boot_allgather(&b, sizeof b, bases) == 0;
        for (uint32_t r = 0; res && r < u->size; r++)
            map[r].owner_base = (void *)(uintptr_t)(u->peers[r].base = bases[r]);
    }
    /* some neighbourhood shares memory (a job-wide fact): map the neighbours' objects, agree
     * that all did, then remove mine from /dev/shm */
    if (res && rv_job.nbrhd_count < rv_job.size) {
        int mapped = 1;
        if (shared) {
            u->nbrseg = calloc(u->size, sizeof *u->nbrseg);
            u->nbrlen = calloc(u->size, sizeof *u->nbrlen);
            mapped = u->nbrseg && u->nbrlen;
            for (uint32_t i = 0; mapped && i < rv_job.nbrhd_size; i++) {
                uint32_t r = rv_job.nbrhd_ranks[i];
                if (r == u->me || !sz[2 * r]) continue;
                char peer[96];
                rv_shmobj_name(peer, sizeof peer, rv_job.secret, 'u', r);
                map[r].local_base = u->nbrseg[r] = rv_shmobj_attach(peer, (size_t)sz[2 * r]);
                u->nbrlen[r] = sz[2 * r];
                mapped = u->nbrseg[r] != NULL;
            }
        }
        res = rv_ucx_all_ok(u, mapped);
    }
    if (size && shared) rv_shmobj_segment_unlink('u');
    free(bases);
    free(sz);
    if (!res)
        for (uint32_t r = 0; r < u->size; r++)
            if (r != u->me) map[r].local_base = NULL;
    return res ? 0 : -1;
}

/* A bound segment: mapped for remote access, its packed key put in directory slot 'seg' for
 * peers to read (seg_peer). *key = generation << 32 | packed length. */
int rv_ucx_seg_register(void *priv, unsigned seg, void *addr, uintptr_t size, uint64_t *key)
{
    rv_ucx_t *u = priv;
    *key = 0;
    if (seg >= GASNET_MAXEPS || (seg == 0 && u->seg)) return -1;
    if (seg == 0) {
        u->seg = addr;
        u->seglen = size;
        u->seg_client = 1;
    }
    if (!u->rma) return 0;
    ucp_mem_h *mh = seg ? &u->epmh[seg] : &u->segmh;
    if (*mh) ucp_mem_unmap(u->ctx, *mh);
    *mh = NULL;
    if (seg && !addr && !size) return 0;
    if (rv_ucx_map(u, addr, size, mh) != 0) return -1;
    void *kb;
    size_t klen;
    if (ucp_rkey_pack(u->ctx, *mh, &kb, &klen) != UCS_OK ||
        klen > RV_UCX_DIR_SLOT - sizeof(rv_ucx_slot_t)) {
        rv_warn("ucx: packing the key of endpoint index %u's segment failed", seg);
        return -1;
    }
    unsigned char *slot = u->dir + (size_t)seg * RV_UCX_DIR_SLOT;
    rv_ucx_slot_t s = { ++u->dirgen, (uint32_t)klen };
    memcpy(slot + sizeof s, kb, klen);
    atomic_thread_fence(memory_order_release);
    memcpy(slot, &s, sizeof s);
    /* native atomics reach this rank's own primordial segment through UCX too */
    if (!seg) {
        rv_ucx_peer_t *me = &u->peers[u->me];
        if (me->rkey) ucp_rkey_destroy(me->rkey);
        if (ucp_ep_rkey_unpack(me->ep, kb, &me->rkey) != UCS_OK) me->rkey = NULL;
        me->base = (uint64_t)(uintptr_t)addr;
    }
    ucp_rkey_buffer_release(kb);
    *key = (uint64_t)s.gen << 32 | klen;
    return 0;
}

static void rv_ucx_dir_read_done(void *req, ucs_status_t st, void *arg)
{
    (void)req;
    *(ucs_status_t *)arg = st;
}

unsigned rv_ucx_seg_peer(void *priv, unsigned seg, gex_Rank_t peer, uintptr_t base,
                         uintptr_t size, uint64_t key)
{
    rv_ucx_t *u = priv;
    if (!u->rma || peer == u->me || !size || !key || seg >= GASNET_MAXEPS) return 0;
    if (!u->dirkey[peer]) return 0;
    /* read the peer's slot: its progress serves the get (it is in the same publication) */
    unsigned char buf[RV_UCX_DIR_SLOT];
    size_t len = sizeof(rv_ucx_slot_t) + (uint32_t)key;
    if (len > sizeof buf) return 0;
    ucs_status_t st = UCS_INPROGRESS;
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                UCP_OP_ATTR_FIELD_USER_DATA,
                                .cb.send = rv_ucx_dir_read_done, .user_data = &st };
    ucs_status_ptr_t r = ucp_get_nbx(u->peers[peer].ep, buf, len,
                                     u->dirbase[peer] + (uint64_t)seg * RV_UCX_DIR_SLOT,
                                     u->dirkey[peer], &prm);
    if (UCS_PTR_IS_ERR(r)) rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "reading a segment key");
    if (r) {
        while (st == UCS_INPROGRESS) rv_ucx_progress(u);
        ucp_request_free(r);
        if (st != UCS_OK) rv_ucx_peer_lost(u, peer, st, "reading a segment key");
    }
    rv_ucx_slot_t s;
    memcpy(&s, buf, sizeof s);
    if (s.gen != (uint32_t)(key >> 32) || s.len != (uint32_t)key) {
        rv_warn("ucx: rank %u's key for endpoint index %u changed while being read", peer, seg);
        return 0;
    }
    rv_ucx_peer_t *p = &u->peers[peer];
    ucp_rkey_h *k = seg ? &p->eprkey[seg] : &p->rkey;
    if (*k) ucp_rkey_destroy(*k);
    *k = NULL;
    if (ucp_ep_rkey_unpack(p->ep, buf + sizeof s, k) != UCS_OK) {
        *k = NULL;
        return 0;
    }
    if (seg) p->epbase[seg] = base;
    else p->base = base;
    return RV_SEG_RDMA;
}

/* A slot: from the free list, else from a new chunk (up to RV_UCX_NROP_MAX slots). A put
 * holds its slot until the flush that completes it remotely, so a flood of small puts needs
 * as many slots as puts fit in a flush round trip: a fixed pool of 256 made every 256th put
 * wait for a round trip (8 B put bandwidth 5-8x below ucp_put_bw). */
rv_ucx_rop_t *rv_ucx_rop_take(rv_ucx_t *u)
{
    rv_slink_t *l = rv_flist_get(&u->rfree);
    if (__builtin_expect(l != NULL, 1)) return rv_container_of(l, rv_ucx_rop_t, link);
    rv_spin_lock(&u->glock);
    l = rv_flist_get(&u->rfree); /* another thread may have grown it */
    if (!l && u->nrchunk < RV_UCX_NROP_MAX / RV_UCX_ROP_CHUNK) {
        rv_ucx_rop_t *c = calloc(RV_UCX_ROP_CHUNK, sizeof *c);
        if (c) {
            u->rchunk[u->nrchunk++] = c;
            for (int i = RV_UCX_ROP_CHUNK - 1; i >= 0; i--) {
                c[i].u = u;
                if (i) rv_flist_put(&u->rfree, &c[i].link);
            }
            l = &c[0].link;
        }
    }
    rv_spin_unlock(&u->glock);
    return l ? rv_container_of(l, rv_ucx_rop_t, link) : NULL;
}

void rv_ucx_rop_give(rv_ucx_t *u, rv_ucx_rop_t *op) { rv_flist_put(&u->rfree, &op->link); }

static void rv_ucx_rop_done(rv_ucx_t *u, rv_ucx_rop_t *first, rv_ucx_rop_t *last);
void rv_ucx_rop_finish(rv_ucx_t *u, rv_ucx_rop_t *op)
{
    rv_ucx_rop_done(u, op, op);
}

static void rv_ucx_rop_done(rv_ucx_t *u, rv_ucx_rop_t *first, rv_ucx_rop_t *last)
{
    last->next = NULL;
    rv_spin_lock(&u->rlock);
    if (u->rdone_tail) u->rdone_tail->next = first;
    else __atomic_store_n(&u->rdone, first, __ATOMIC_RELEASE); /* peeked by rma_poll */
    u->rdone_tail = last;
    rv_spin_unlock(&u->rlock);
}

static void rv_ucx_flush_peer(rv_ucx_t *u, rv_ucx_peer_t *p, gex_Rank_t r);

static int rv_ucx_put_key(rv_ucx_t *u, gex_Rank_t peer, ucp_rkey_h rkey, uintptr_t remote,
                          const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags,
                          uint32_t imm)
{
    rv_ucx_peer_t *p = &u->peers[peer];
    if (__builtin_expect(p->dead != 0, 0)) rv_ucx_peer_lost(u, peer, p->dead, "put");
    rv_ucx_rop_t *op = rv_ucx_rop_take(u);
    if (!op) return RV_TP_AGAIN;
    ucp_request_param_t prm = { .op_attr_mask = 0 };
    ucs_status_ptr_t r = ucp_put_nbx(p->ep, local, nbytes, remote, rkey, &prm);
    if (UCS_PTR_IS_ERR(r)) {
        if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE) {
            op->c = NULL; /* events 0: the poll just returns it to the free list */
            op->events = 0;
            op->imm_chan = 0;
            op->is_get = 1;
            op->amo = NULL;
            rv_ucx_rop_done(u, op, op);
            return RV_TP_AGAIN;
        }
        rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "put");
    }
    int later = r != NULL;
    if (later) ucp_request_free(r); /* the endpoint's flush covers it */
    op->c = c;
    op->peer = peer;
    op->amo = NULL;
    op->is_get = 0;
    op->imm_chan = (flags & RV_TP_PUT_IMM_FLAG) ? (uint8_t)(1 + (flags & 1)) : 0;
    op->imm = imm;
    op->events = (uint8_t)((later ? RV_TP_EV_LOCAL : 0) | (op->imm_chan ? 0 : RV_TP_EV_REMOTE));
    RV_UCX_COUNT(u, puts, 1);
    op->next = NULL;
    rv_spin_lock(&u->flock);
    if (p->pend_tail) p->pend_tail->next = op;
    else p->pend = op;
    p->pend_tail = op;
    p->npend++;
    if (!p->listed) {
        p->listed = 1;
        u->fdirty[u->fndirty++] = peer;
    }
    /* a blocking put: its flush now, not at the end of the caller's next poll */
    if ((flags & RV_TP_PUT_WAITED) && !__atomic_load_n(&p->inflight, __ATOMIC_ACQUIRE))
        rv_ucx_flush_peer(u, p, peer);
    rv_spin_unlock(&u->flock);
    return later ? RV_TP_LC_LATER : 0;
}

int rv_ucx_put(void *priv, gex_Rank_t peer, uintptr_t remote, const void *local, size_t nbytes,
               rv_tp_cmpl_t *c, unsigned flags, uint32_t imm)
{
    rv_ucx_t *u = priv;
    return rv_ucx_put_key(u, peer, u->peers[peer].rkey, remote, local, nbytes, c, flags, imm);
}

int rv_ucx_put_seg(void *priv, gex_Rank_t peer, unsigned seg, uintptr_t remote,
                   const void *local, size_t nbytes, rv_tp_cmpl_t *c, unsigned flags)
{
    rv_ucx_t *u = priv;
    return rv_ucx_put_key(u, peer, u->peers[peer].eprkey[seg], remote, local, nbytes, c,
                          flags & ~RV_TP_PUT_IMM_FLAG, 0);
}

static void rv_ucx_get_cb(void *req, ucs_status_t st, void *arg)
{
    rv_ucx_rop_t *op = arg;
    op->status = st;
    ucp_request_free(req);
    rv_ucx_rop_done(op->u, op, op);
}

static int rv_ucx_get_key(rv_ucx_t *u, gex_Rank_t peer, ucp_rkey_h rkey, void *local,
                          uintptr_t remote, size_t nbytes, rv_tp_cmpl_t *c)
{
    rv_ucx_peer_t *p = &u->peers[peer];
    if (__builtin_expect(p->dead != 0, 0)) rv_ucx_peer_lost(u, peer, p->dead, "get");
    rv_ucx_rop_t *op = rv_ucx_rop_take(u);
    if (!op) return RV_TP_AGAIN;
    op->c = c;
    op->peer = peer;
    op->amo = NULL;
    op->is_get = 1;
    op->imm_chan = 0;
    op->events = RV_TP_EV_LOCAL | RV_TP_EV_REMOTE;
    op->status = UCS_OK;
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                UCP_OP_ATTR_FIELD_USER_DATA,
                                .cb.send = rv_ucx_get_cb, .user_data = op };
    ucs_status_ptr_t r = ucp_get_nbx(p->ep, local, nbytes, remote, rkey, &prm);
    if (UCS_PTR_IS_ERR(r)) {
        if (UCS_PTR_STATUS(r) == UCS_ERR_NO_RESOURCE) {
            op->events = 0;
            rv_ucx_rop_done(u, op, op);
            return RV_TP_AGAIN;
        }
        rv_ucx_peer_lost(u, peer, UCS_PTR_STATUS(r), "get");
    }
    RV_UCX_COUNT(u, gets, 1);
    if (!r) rv_ucx_rop_done(u, op, op); /* complete already: reported by the next poll */
    return 0;
}

int rv_ucx_get(void *priv, gex_Rank_t peer, void *local, uintptr_t remote, size_t nbytes,
               rv_tp_cmpl_t *c)
{
    rv_ucx_t *u = priv;
    return rv_ucx_get_key(u, peer, u->peers[peer].rkey, local, remote, nbytes, c);
}

int rv_ucx_get_seg(void *priv, gex_Rank_t peer, unsigned seg, void *local, uintptr_t remote,
                   size_t nbytes, rv_tp_cmpl_t *c)
{
    rv_ucx_t *u = priv;
    return rv_ucx_get_key(u, peer, u->peers[peer].eprkey[seg], local, remote, nbytes, c);
}

/* A flush completed (inside ucp_worker_progress): its puts are in place at the target. */
static void rv_ucx_flush_cb(void *req, ucs_status_t st, void *arg)
{
    rv_ucx_peer_t *p = arg;
    rv_ucx_t *u = p->covered ? p->covered->u : NULL;
    if (req) ucp_request_free(req);
    if (st != UCS_OK && u) rv_ucx_peer_lost(u, p->covered->peer, st, "flush");
    rv_ucx_rop_t *first = p->covered, *last = first;
    while (last && last->next) last = last->next;
    p->covered = NULL;
    __atomic_store_n(&p->inflight, 0, __ATOMIC_RELEASE);
    if (first) rv_ucx_rop_done(first->u, first, last);
}

/* Flushes peer r for all its pending puts (flock held, no flush in flight for it; the lock
 * is dropped around UCX's call and taken again). It stays listed: the next flush_issue drops
 * it if nothing was queued meanwhile. */
static void rv_ucx_flush_peer(rv_ucx_t *u, rv_ucx_peer_t *p, gex_Rank_t r)
{
    p->covered = p->pend;
    p->pend = p->pend_tail = NULL;
    p->npend = 0;
    __atomic_store_n(&p->inflight, 1, __ATOMIC_RELAXED);
    rv_spin_unlock(&u->flock);
    RV_UCX_COUNT(u, flushes, 1);
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK |
                                                UCP_OP_ATTR_FIELD_USER_DATA,
                                .cb.send = rv_ucx_flush_cb, .user_data = p };
    ucs_status_ptr_t q = ucp_ep_flush_nbx(p->ep, &prm);
    if (UCS_PTR_IS_ERR(q)) rv_ucx_peer_lost(u, r, UCS_PTR_STATUS(q), "flush");
    if (!q) rv_ucx_flush_cb(NULL, UCS_OK, p);
    rv_spin_lock(&u->flock);
}

/* Flushes every listed peer that has puts pending and no flush in flight (plock held). */
static void rv_ucx_flush_issue(rv_ucx_t *u)
{
    rv_spin_lock(&u->flock);
    uint32_t keep = 0;
    for (uint32_t i = 0; i < u->fndirty; i++) {
        gex_Rank_t r = u->fdirty[i];
        rv_ucx_peer_t *p = &u->peers[r];
        if (__atomic_load_n(&p->inflight, __ATOMIC_ACQUIRE)) {
            u->fdirty[keep++] = r;
            continue;
        }
        p->listed = 0;
        if (p->pend) rv_ucx_flush_peer(u, p, r);
    }
    u->fndirty = keep;
    rv_spin_unlock(&u->flock);
}

int rv_ucx_rma_poll(rv_ucx_t *u)
{
    int n = 0;
    if (u->fndirty) rv_ucx_flush_issue(u);
    if (!__atomic_load_n(&u->rdone, __ATOMIC_ACQUIRE)) return 0; /* nothing finished: no lock */
    rv_spin_lock(&u->rlock);
    rv_ucx_rop_t *op = u->rdone;
    __atomic_store_n(&u->rdone, NULL, __ATOMIC_RELAXED);
    u->rdone_tail = NULL;
    rv_spin_unlock(&u->rlock);
    while (op) {
        rv_ucx_rop_t *next = op->next;
        if (op->is_get && op->status != UCS_OK)
            rv_ucx_peer_lost(u, op->peer, op->status, op->amo ? "atomic" : "get");
        if (op->amo) { /* the slot goes back first: completing may free the record */
            rv_ucx_amo_complete(op);
            n++;
            op = next;
            continue;
        }
        if (op->imm_chan) {
            if (rv_ucx_send_imm(u, op->peer, op->imm_chan - 1u, op->imm) != 0) {
                /* no send buffer now: this and the rest wait for the next poll */
                rv_ucx_rop_t *last = op;
                while (last->next) last = last->next;
                rv_spin_lock(&u->rlock);
                last->next = u->rdone;
                if (!u->rdone) u->rdone_tail = last;
                __atomic_store_n(&u->rdone, op, __ATOMIC_RELEASE);
                rv_spin_unlock(&u->rlock);
                break;
            }
            op->imm_chan = 0;
        }
        if (op->events && op->c) {
            op->c->done(op->c, op->events);
            n++;
        }
        if (!op->is_get) RV_UCX_COUNT(u, flushed_puts, 1);
        rv_ucx_rop_give(u, op);
        op = next;
    }
    return n;
}
