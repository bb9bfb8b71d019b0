/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_regcache.c: the registration cache for large out-of-segment RDMA buffers
 * (the Firehose idea): page-rounded registrations kept after use, found again by range, merged
 * with adjacent or overlapping ones, evicted least-recently-used to keep the total bounded. */
#include "transport/ofi/ofi_int.h"
#include "core/core.h"

#include <string.h>
#include <unistd.h>

static void rv_ofi_rc_drop(rv_ofi_t *o, rv_ofi_rce_t *e)
{
    fi_close(&e->mr->fid);
    o->rcbytes -= e->end - e->start;
    memset(e, 0, sizeof *e);
}

/* The least recently used entry nobody uses, or NULL. */
static rv_ofi_rce_t *rv_ofi_rc_victim(rv_ofi_t *o)
{
    rv_ofi_rce_t *v = NULL;
    for (int i = 0; i < RV_OFI_RC_SLOTS; i++) {
        rv_ofi_rce_t *e = &o->rc[i];
        if (e->live && !e->refs && (!v || e->stamp < v->stamp)) v = e;
    }
    return v;
}

int rv_ofi_rc_acquire(rv_ofi_t *o, const void *addr, size_t len, rv_ofi_rce_t **ep, void **desc)
{
    static uintptr_t pg;
    if (!pg) pg = (uintptr_t)sysconf(_SC_PAGESIZE);
    uintptr_t a = (uintptr_t)addr & ~(pg - 1);
    uintptr_t b = ((uintptr_t)addr + len + pg - 1) & ~(pg - 1);
    pthread_mutex_lock(&o->rclock);
    uint64_t now = ++o->rcclock;
    for (int i = 0; i < RV_OFI_RC_SLOTS; i++) {
        rv_ofi_rce_t *e = &o->rc[i];
        if (e->live && !e->stale && e->start <= a && b <= e->end) {
            e->refs++;
            e->stamp = now;
            o->st.rc_hits++;
            pthread_mutex_unlock(&o->rclock);
            *ep = e;
            *desc = fi_mr_desc(e->mr);
            return 0;
        }
    }
    /* Miss: grow the range over every entry it overlaps or touches, as long as the
     * union stays within half the bound, so neighbouring buffers share one registration. */
    uintptr_t ua = a, ub = b;
    for (int grown = 1; grown;) {
        grown = 0;
        for (int i = 0; i < RV_OFI_RC_SLOTS; i++) {
            rv_ofi_rce_t *e = &o->rc[i];
            if (!e->live || e->stale || e->start > ub || e->end < ua) continue;
            uintptr_t na = e->start < ua ? e->start : ua, nb = e->end > ub ? e->end : ub;
            if ((na != ua || nb != ub) && nb - na <= o->rcmax / 2) {
                ua = na;
                ub = nb;
                grown = 1;
            }
        }
    }
    /* Entries inside the union are replaced by it: dropped now, or when their last
     * user finishes. */
    for (int i = 0; i < RV_OFI_RC_SLOTS; i++) {
        rv_ofi_rce_t *e = &o->rc[i];
        if (!e->live || e->stale || e->start < ua || e->end > ub) continue;
        o->st.rc_merged++;
        if (e->refs) e->stale = 1;
        else rv_ofi_rc_drop(o, e);
    }
    size_t need = ub - ua;
    rv_ofi_rce_t *slot = NULL;
    for (;;) {
        slot = NULL;
        for (int i = 0; i < RV_OFI_RC_SLOTS && !slot; i++)
            if (!o->rc[i].live) slot = &o->rc[i];
        if (slot && o->rcbytes + need <= o->rcmax) break;
        rv_ofi_rce_t *v = rv_ofi_rc_victim(o);
        if (!v) { /* everything is in use: wait for operations to finish */
            pthread_mutex_unlock(&o->rclock);
            return RV_TP_AGAIN;
        }
        o->st.rc_evicted++;
        rv_ofi_rc_drop(o, v);
    }
    struct fid_mr *mr;
    int rc = rv_ofi_mr_reg(o, (void *)ua, need, FI_READ | FI_WRITE, o->next_key++, &mr);
    if (rc) {
        pthread_mutex_unlock(&o->rclock);
        rv_fatal("ofi: registering %zu bytes at %p for RDMA failed: %s", need, (void *)ua,
                 fi_strerror(-rc));
    }
    slot->start = ua;
    slot->end = ub;
    slot->mr = mr;
    slot->refs = 1;
    slot->stamp = now;
    slot->live = 1;
    slot->stale = 0;
    o->rcbytes += need;
    if (o->rcbytes > o->st.rc_bytes_max) o->st.rc_bytes_max = o->rcbytes;
    o->st.rc_misses++;
    pthread_mutex_unlock(&o->rclock);
    *ep = slot;
    *desc = fi_mr_desc(mr);
    return 0;
}

void rv_ofi_rc_release(rv_ofi_t *o, rv_ofi_rce_t *e)
{
    pthread_mutex_lock(&o->rclock);
    if (--e->refs == 0 && e->stale) rv_ofi_rc_drop(o, e);
    pthread_mutex_unlock(&o->rclock);
}

void rv_ofi_rc_close(rv_ofi_t *o)
{
    for (int i = 0; i < RV_OFI_RC_SLOTS; i++)
        if (o->rc[i].live) rv_ofi_rc_drop(o, &o->rc[i]);
}

void rv_ofi_rc_stats(rv_ofi_t *o, rv_ofi_stats_t *out)
{
    pthread_mutex_lock(&o->rclock);
    /* every field is a uint64_t that other threads bump atomically */
    const uint64_t *in = (const uint64_t *)&o->st;
    uint64_t *to = (uint64_t *)out;
    for (size_t i = 0; i < sizeof *out / sizeof(uint64_t); i++)
        to[i] = __atomic_load_n(&in[i], __ATOMIC_RELAXED);
    out->rc_bytes = o->rcbytes;
    out->rc_entries = 0;
    for (int i = 0; i < RV_OFI_RC_SLOTS; i++) out->rc_entries += o->rc[i].live;
    out->credits_init = o->credits0;
    out->multi_recv = (uint64_t)o->multi;
    out->reserve_now = o->reserve > 0 ? (uint64_t)o->reserve : 0;
    pthread_mutex_unlock(&o->rclock);
}
