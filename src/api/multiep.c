/* SPDX-License-Identifier: BSD-3-Clause */
/* api/multiep.c: endpoints beyond the primordial one and segments beyond the attached one:
 * gex_EP_Create/Destroy, gex_Segment_Create/Destroy, gex_EP_BindSegment,
 * gex_EP_PublishBoundSegment (the per-index segment tables), and the memory kind calls
 * (gex_MK_Create/Destroy, Query*, Set/QueryCData).
 * Non-primordial endpoints are RMA-only; memory is host memory only. See
 * docs/spec-coverage.md and docs/architecture.md ("Segments and endpoints"). */
#include "core/core.h"
#include "transport/transport.h"
#include "am/am_int.h"
#include "coll/coll_int.h"
#include "core/shmobj.h"
#include "gasnet_mk.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Endpoint creation and destruction, and the live shared segments. */
static pthread_mutex_t rv_mep_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rv_segment *rv_shared_segs;
static uint32_t rv_seg_tags;

static uintptr_t rv_page_round(uintptr_t n)
{
    return (n + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
}

/* "/rivet-<secret>-x<rank>.<tag>": a Rivet-allocated segment neighbours may map. */
static void rv_seg_shm_name(char *buf, size_t len, gex_Rank_t owner, uint32_t tag)
{
    char base[80];
    rv_shmobj_name(base, sizeof base, rv_job.secret, 'x', owner);
    snprintf(buf, len, "%s.%u", base, tag);
}

/* Fatal unless ep is a live endpoint of this process. */
static void rv_ep_check(const char *call, const char *arg, gex_EP_t ep)
{
    if (ep)
        for (unsigned i = 0; i < GASNET_MAXEPS; i++)
            if (rv_eps[i] == ep) return;
    rv_fatal("%s: %s %p is not a live endpoint of this process", call, arg, (void *)ep);
}

/* ---- endpoints ------------------------------------------------------------------------- */

int (gex_EP_Create)(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                    gex_Flags_t flags)
{
    return _rivet_ep_create_max(ep_p, client, capabilities, flags, GASNET_MAXEPS);
}

int _rivet_ep_create_max(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                         gex_Flags_t flags, unsigned max_eps)
{
    if (max_eps > GASNET_MAXEPS) max_eps = GASNET_MAXEPS;
    RV_CHECK_INIT("gex_EP_Create");
    if (!ep_p) return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: ep_p is NULL");
    if (client != rv_client_g)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: client %p is not the client "
                               "from gex_Client_Init", (void *)client);
    if (!capabilities || (capabilities & ~GEX_EP_CAPABILITY_ALL))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: capabilities=0x%x is not a "
                               "non-empty OR of GEX_EP_CAPABILITY_*", (unsigned)capabilities);
    if (capabilities & ~GEX_EP_CAPABILITY_RMA)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: capabilities=0x%x: Rivet's "
                               "non-primordial endpoints support only GEX_EP_CAPABILITY_RMA",
                               (unsigned)capabilities);
    if (flags & ~GEX_FLAG_HINT_ACCEL_ALL)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: flags=0x%x has bits other "
                               "than GEX_FLAG_HINT_ACCEL_*", (unsigned)flags);
    struct rv_ep *ep = calloc(1, sizeof *ep);
    if (!ep) return rv_error_return(GASNET_ERR_RESOURCE, "gex_EP_Create: out of memory");
    pthread_mutex_lock(&rv_mep_lock);
    unsigned i = 1;
    while (i < max_eps && rv_eps[i]) i++;
    if (i < max_eps) {
        ep->client = client;
        ep->flags = flags;
        ep->index = i;
        ep->caps = capabilities;
        rv_eps[i] = ep;
    }
    pthread_mutex_unlock(&rv_mep_lock);
    if (i >= max_eps) {
        free(ep);
        return rv_error_return(GASNET_ERR_RESOURCE, "gex_EP_Create: this process already has "
                               "GASNET_MAXEPS (%u, as the client was compiled) endpoints",
                               max_eps);
    }
    *ep_p = ep;
    return GASNET_OK;
}

/* Unbinds seg from the non-primordial endpoint ep: forgets this rank's own entry for that
 * index and the transport's registration. Called with rv_mep_lock held. */
static void rv_seg_unbind(struct rv_segment *seg, struct rv_ep *ep)
{
    rv_segmap_t *tab = rv_epsegs[ep->index];
    if (tab) tab[rv_job.rank] = (rv_segmap_t){ 0 };
    if (ep->seg_rdma) {
        uint64_t none;
        rv_tp.desc->seg_register(rv_tp.priv, ep->index, NULL, 0, &none);
    }
    ep->seg_rdma = 0;
    ep->seg_key = 0;
    ep->seg = NULL;
    seg->epmask &= ~(UINT64_C(1) << ep->index);
    if (seg->ep == ep) seg->ep = NULL;
    for (unsigned i = 0; !seg->ep && i < GASNET_MAXEPS; i++)
        if (seg->epmask & (UINT64_C(1) << i)) seg->ep = rv_eps[i];
}

void gex_EP_Destroy(gex_EP_t ep, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_EP_Destroy");
    if (flags) rv_fatal("gex_EP_Destroy: flags=0x%x must be 0", (unsigned)flags);
    rv_ep_check("gex_EP_Destroy", "ep", ep);
    if (ep->index == 0) rv_fatal("gex_EP_Destroy: ep is the primordial endpoint; it lives as "
                                 "long as its client");
    if (rv_am_in_handler()) rv_fatal("gex_EP_Destroy called inside an AM handler");
    pthread_mutex_lock(&rv_mep_lock);
    if (ep->seg) rv_seg_unbind(ep->seg, ep);
    rv_eps[ep->index] = NULL;
    pthread_mutex_unlock(&rv_mep_lock);
    for (unsigned i = 0; i < GASNET_MAXEPS; i++)
        if (ep->pairs[i]) {
            rv_tm_flat_untrack(ep->pairs[i]);
            rv_hot_free(ep->pairs[i]);
        }
    free(ep);
}

/* ---- segments -------------------------------------------------------------------------- */

/* At exit: removes the names of live shared segments (mappings stay valid). */
static void rv_seg_unlink_all(void)
{
    for (struct rv_segment *s = rv_shared_segs; s; s = s->next) {
        char name[128];
        rv_seg_shm_name(name, sizeof name, rv_job.rank, s->tag);
        shm_unlink(name);
    }
}

/* Rivet's memory for a segment: a shared object the neighbourhood can map when it has other
 * ranks (seg->tag set), else (or if that fails) private page-aligned memory. */
static int rv_seg_alloc(struct rv_segment *seg, uintptr_t length)
{
    uintptr_t rounded = rv_page_round(length);
    if (rounded < length) return -1;
    if (rv_job.nbrhd_size > 1) {
        pthread_mutex_lock(&rv_mep_lock);
        uint32_t tag = ++rv_seg_tags;
        pthread_mutex_unlock(&rv_mep_lock);
        char name[128];
        rv_seg_shm_name(name, sizeof name, rv_job.rank, tag);
        void *p = rv_shmobj_create(name, rounded, 0);
        if (p) {
            seg->addr = p;
            seg->tag = tag;
            seg->maplen = rounded;
            static int unlink_at_exit;
            pthread_mutex_lock(&rv_mep_lock);
            if (!unlink_at_exit++) atexit(rv_seg_unlink_all);
            seg->next = rv_shared_segs;
            rv_shared_segs = seg;
            pthread_mutex_unlock(&rv_mep_lock);
            return 0;
        }
        rv_verbose(1, "gex_Segment_Create: no shared object of %" PRIuPTR " bytes; private "
                   "memory instead (neighbours reach it by AM)", rounded);
    }
    if (posix_memalign(&seg->alloc, GASNET_PAGESIZE, rounded)) return -1;
    seg->addr = seg->alloc;
    return 0;
}

int gex_Segment_Create(gex_Segment_t *segment_p, gex_Client_t client, gex_Addr_t address,
                       uintptr_t length, gex_MK_t kind, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_Segment_Create");
    if (!segment_p) return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create: segment_p is NULL");
    if (client != rv_client_g)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create: client %p is not the "
                               "client from gex_Client_Init", (void *)client);
    if (kind != GEX_MK_HOST)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create: kind %p is not GEX_MK_HOST "
                               "(the only memory kind this build has)", (void *)kind);
    if (flags)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create: flags=0x%x must be 0",
                               (unsigned)flags);
    if (length == 0)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Segment_Create: length is 0");
    struct rv_segment *seg = calloc(1, sizeof *seg);
    if (!seg) return rv_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create: out of memory");
    if (!address) {
        if (rv_seg_alloc(seg, length)) {
            free(seg);
            return rv_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create: cannot allocate "
                                   "%" PRIuPTR " bytes", length);
        }
    } else {
        seg->addr = address;
    }
    seg->client = rv_client_g;
    seg->size = length;
    seg->flags = flags;
    seg->created = 1;
    *segment_p = seg;
    return GASNET_OK;
}

void gex_Segment_Destroy(gex_Segment_t seg, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_Segment_Destroy");
    if (flags) rv_fatal("gex_Segment_Destroy: flags=0x%x must be 0", (unsigned)flags);
    if (seg == GEX_SEGMENT_INVALID) rv_fatal("gex_Segment_Destroy: seg is GEX_SEGMENT_INVALID");
    if (!seg->created)
        rv_fatal("gex_Segment_Destroy: seg %p is the segment bound by gex_Segment_Attach; "
                 "it lives until the job ends", (void *)seg);
    if (seg->epmask & 1)
        rv_fatal("gex_Segment_Destroy: seg %p is bound to the primordial endpoint; it lives "
                 "until the job ends", (void *)seg);
    pthread_mutex_lock(&rv_mep_lock);
    while (seg->ep) rv_seg_unbind(seg, seg->ep); /* non-primordial endpoints': now unbound */
    if (seg->tag)
        for (struct rv_segment **pp = &rv_shared_segs; *pp; pp = &(*pp)->next)
            if (*pp == seg) {
                *pp = seg->next;
                break;
            }
    pthread_mutex_unlock(&rv_mep_lock);
    if (seg->tag) {
        char name[128];
        rv_seg_shm_name(name, sizeof name, rv_job.rank, seg->tag);
        shm_unlink(name);
        munmap(seg->addr, seg->maplen);
    }
    free(seg->alloc);
    free(seg);
}

/* The table of endpoint index idx, made on first use. */
static rv_segmap_t *rv_epseg_table_get(gex_EP_Index_t idx)
{
    rv_segmap_t **tp = idx ? &rv_epsegs[idx] : &rv_segmap;
    if (!*tp) {
        rv_segmap_t *tab = idx ? rv_hot_calloc(rv_job.size, sizeof *tab, "segment tables")
                               : rv_tm0_table(rv_client_g->tm0);
        rv_segtab_publish(tp, tab);
        rv_tm_flat_refresh();
    }
    return *tp;
}

/* Does the transport register bound segments of endpoint index idx for RDMA? The primordial
 * endpoint's with seg_register/seg_peer, others' also needs ops.put_seg/get_seg. */
static int rv_tp_has_segreg(gex_EP_Index_t idx)
{
    const rv_tp_desc_t *d = rv_tp.desc;
    return d->size >= offsetof(rv_tp_desc_t, seg_peer) + sizeof d->seg_peer && d->seg_register &&
           d->seg_peer && (idx == 0 || (rv_tp.ops.put_seg && rv_tp.ops.get_seg));
}

/* What gex_EP_PublishBoundSegment sends for one bound segment. */
typedef struct rv_pubrec {
    uint64_t base, size, key;
    uint32_t index; /* endpoint index */
    uint32_t tag;   /* shared object to map (0: none) */
    uint32_t rdma;  /* key is valid (the transport registered the segment) */
    uint32_t pad;
} rv_pubrec_t;

/* Bad arguments GASNet-EX also diagnoses (GEX_EP_INVALID, GEX_SEGMENT_INVALID, flags, an
 * endpoint that already has another segment) return GASNET_ERR_BAD_ARG (re-binding the same
 * segment is a no-op, where GASNet refuses it); a pointer that is not a live
 * endpoint, and calls from a handler, are fatal. One segment may be bound to several
 * endpoints (each index gets its own entry and, with RDMA, its own registration). */
int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags)
{
    static const char call[] = "gex_EP_BindSegment";
    RV_CHECK_INIT(call);
    if (ep == GEX_EP_INVALID)
        return rv_error_return(GASNET_ERR_BAD_ARG, "%s: ep is GEX_EP_INVALID", call);
    if (segment == GEX_SEGMENT_INVALID)
        return rv_error_return(GASNET_ERR_BAD_ARG, "%s: segment is GEX_SEGMENT_INVALID", call);
    if (flags)
        return rv_error_return(GASNET_ERR_BAD_ARG, "%s: flags=0x%x must be 0", call,
                               (unsigned)flags);
    rv_ep_check(call, "ep", ep);
    if (segment->client != ep->client)
        rv_fatal("%s: segment %p belongs to client %p, not to ep's client %p", call,
                 (void *)segment, (void *)segment->client, (void *)ep->client);
    if (ep->seg == segment) return GASNET_OK; /* already bound (e.g. by gex_Segment_Attach) */
    if (ep->seg)
        return rv_error_return(GASNET_ERR_BAD_ARG, "%s: endpoint index %u already has a bound "
                               "segment (%p); an endpoint's segment is bound once", call,
                               ep->index, (void *)ep->seg);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    if (rv_tp_has_segreg(ep->index)) {
        if (rv_tp.desc->seg_register(rv_tp.priv, ep->index, segment->addr, segment->size,
                                     &ep->seg_key))
            rv_fatal("%s: transport %s could not register the %" PRIuPTR "-byte segment at %p "
                     "for RDMA", call, rv_tp.desc->name, segment->size, segment->addr);
        ep->seg_rdma = 1;
    }
    pthread_mutex_lock(&rv_mep_lock);
    rv_segmap_t *self = &rv_epseg_table_get(ep->index)[rv_job.rank];
    *self = (rv_segmap_t){ segment->addr, segment->addr, segment->size,
                           segment->tag ? RV_SEG_SHARED : 0u, 0 };
    if (!segment->ep) segment->ep = ep;
    segment->epmask |= UINT64_C(1) << ep->index;
    ep->seg = segment;
    pthread_mutex_unlock(&rv_mep_lock);
    return GASNET_OK;
}

/* Records what jobrank jr published: maps a shared segment of a neighbour (again if it
 * changed), and hands a registered segment's key to the transport. */
static void rv_epseg_install(const char *call, gex_Rank_t jr, const rv_pubrec_t *p)
{
    if (p->index >= GASNET_MAXEPS)
        rv_fatal("%s: rank %u published endpoint index %u (GASNET_MAXEPS is %d)", call, jr,
                 p->index, GASNET_MAXEPS);
    if (jr == rv_job.rank) return; /* gex_EP_BindSegment filled our own entry */
    rv_segmap_t *e = &rv_epseg_table_get(p->index)[jr];
    uintptr_t base = (uintptr_t)p->base, size = (uintptr_t)p->size;
    if (e->tag && (e->tag != p->tag || (uintptr_t)e->owner_base != base)) {
        munmap(e->local_base, rv_page_round(e->size));
        e->local_base = NULL;
        e->tag = 0;
    }
    if (p->tag && !e->tag && rv_job_in_nbrhd(jr)) {
        char name[128];
        rv_seg_shm_name(name, sizeof name, jr, p->tag);
        void *m = rv_shmobj_attach(name, rv_page_round(size));
        if (!m)
            rv_fatal("%s: cannot map the %" PRIuPTR "-byte segment of endpoint index %u of "
                     "neighbour rank %u (%s)", call, size, p->index, jr, name);
        e->local_base = m;
        e->tag = p->tag;
    }
    if (!e->tag) {
        /* not a shared object: mapped here only if it lies in jr's attached segment (the
         * segment of gex_Segment_Attach bound to another endpoint too) */
        const rv_segmap_t *a = rv_segmap ? &rv_segmap[jr] : NULL;
        uintptr_t ab = a ? (uintptr_t)a->owner_base : 0;
        e->local_base = a && a->local_base && base >= ab && size <= a->size &&
                                base - ab <= a->size - size
                            ? (char *)a->local_base + (base - ab)
                            : NULL;
    }
    e->owner_base = (void *)base;
    e->size = size;
    e->flags = p->rdma && rv_tp_has_segreg(p->index)
                   ? rv_tp.desc->seg_peer(rv_tp.priv, p->index, jr, base, size, p->key) &
                         RV_SEG_RDMA
                   : 0u;
}

/* Collective over tm: every member's listed endpoints' bound segments reach every member
 * (two allgathers: how many, then the records). Endpoints without a bound segment, and
 * the primordial endpoint's attached segment (already published to everyone), add nothing. */
int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags)
{
    static const char call[] = "gex_EP_PublishBoundSegment";
    RV_CHECK_INIT(call);
    if (rv_am_in_handler()) rv_fatal("%s called inside an AM handler", call);
    if (!tm || tm->client != rv_client_g)
        rv_fatal("%s: tm %p is not a team of this client", call, (void *)tm);
    if (tm->is_pair) rv_fatal("%s: tm is a TM-pair; this call is collective over a team", call);
    if (flags) rv_fatal("%s: flags=0x%x must be 0", call, (unsigned)flags);
    if (num_eps && !eps) rv_fatal("%s: eps is NULL with num_eps=%zu", call, num_eps);
    if (num_eps > GASNET_MAXEPS)
        rv_fatal("%s: num_eps=%zu exceeds GASNET_MAXEPS (%d)", call, num_eps, GASNET_MAXEPS);
    rv_pubrec_t mine[GASNET_MAXEPS];
    uint32_t n = 0;
    for (size_t i = 0; i < num_eps; i++) {
        char arg[32];
        snprintf(arg, sizeof arg, "eps[%zu]", i);
        rv_ep_check(call, arg, eps[i]);
        for (size_t j = 0; j < i; j++)
            if (eps[j] == eps[i])
                rv_fatal("%s: eps[%zu] and eps[%zu] name the same endpoint", call, j, i);
        const struct rv_segment *s = eps[i]->seg;
        if (!s || (!s->created && eps[i]->index == 0)) continue;
        mine[n++] = (rv_pubrec_t){ (uint64_t)(uintptr_t)s->addr, s->size, eps[i]->seg_key,
                                   eps[i]->index, s->tag, (uint32_t)eps[i]->seg_rdma, 0 };
    }
    uint32_t *counts = malloc(tm->size * sizeof *counts);
    if (!counts) rv_fatal("%s: out of memory", call);
    rv_coll_allgather_run(call, tm, RV_COLL_EP_PUBLISH, counts, &n, sizeof n);
    uint32_t max = 0;
    for (gex_Rank_t r = 0; r < tm->size; r++)
        if (counts[r] > max) max = counts[r];
    if (max) {
        rv_pubrec_t *all = calloc((size_t)tm->size * max, sizeof *all);
        rv_pubrec_t *pad = calloc(max, sizeof *pad);
        if (!all || !pad) rv_fatal("%s: out of memory", call);
        memcpy(pad, mine, n * sizeof *mine);
        rv_coll_allgather_run(call, tm, RV_COLL_EP_PUBLISH, all, pad, max * sizeof *pad);
        pthread_mutex_lock(&rv_mep_lock);
        for (gex_Rank_t r = 0; r < tm->size; r++)
            for (uint32_t k = 0; k < counts[r] && k < max; k++)
                rv_epseg_install(call, rv_tm_jobrank(tm, r), &all[(size_t)r * max + k]);
        pthread_mutex_unlock(&rv_mep_lock);
        free(all);
        free(pad);
    }
    free(counts);
    return GASNET_OK;
}

/* ---- memory kinds ---------------------------------------------------------------------- */

int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client, const gex_MK_Create_args_t *args,
                  gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_MK_Create");
    if (!memkind_p || !args)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create: %s is NULL",
                               !memkind_p ? "memkind_p" : "args");
    if (client != rv_client_g)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create: client %p is not the client "
                               "from gex_Client_Init", (void *)client);
    if (flags || args->gex_flags)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create: %s must be 0",
                               flags ? "flags" : "args->gex_flags");
    switch (args->gex_class) {
    case GEX_MK_CLASS_HOST:
        *memkind_p = GEX_MK_HOST;
        return GASNET_OK;
    case GEX_MK_CLASS_CUDA_UVA:
    case GEX_MK_CLASS_HIP:
    case GEX_MK_CLASS_ZE:
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create: memory kind class %d is a "
                               "device class; this build has no device memory support",
                               (int)args->gex_class);
    case _GEX_MK_CLASS_COUNT:
        break;
    }
    return rv_error_return(GASNET_ERR_BAD_ARG, "gex_MK_Create: args->gex_class=%d is not a "
                           "GEX_MK_CLASS_* value", (int)args->gex_class);
}

void gex_MK_Destroy(gex_MK_t memkind, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_MK_Destroy");
    if (flags) rv_fatal("gex_MK_Destroy: flags=0x%x must be 0", (unsigned)flags);
    if (memkind != GEX_MK_HOST)
        rv_fatal("gex_MK_Destroy: memkind %p was not made by gex_MK_Create", (void *)memkind);
}

/* GEX_MK_HOST is the only kind; its queries answer for host memory. */
static void *_Atomic rv_mk_host_cdata;

static void rv_mk_check(const char *call, gex_MK_t memkind)
{
    RV_CHECK_INIT(call);
    if (memkind != GEX_MK_HOST)
        rv_fatal("%s: memkind %p is not a memory kind (GEX_MK_HOST is the only one here)", call,
                 (void *)memkind);
}

gex_MK_Class_t gex_MK_QueryClass(gex_MK_t memkind)
{
    rv_mk_check("gex_MK_QueryClass", memkind);
    return GEX_MK_CLASS_HOST;
}

gex_Client_t gex_MK_QueryClient(gex_MK_t memkind)
{
    rv_mk_check("gex_MK_QueryClient", memkind);
    return rv_client_g;
}

gex_Flags_t gex_MK_QueryFlags(gex_MK_t memkind)
{
    rv_mk_check("gex_MK_QueryFlags", memkind);
    return 0;
}

void *gex_MK_QueryCData(gex_MK_t memkind)
{
    rv_mk_check("gex_MK_QueryCData", memkind);
    return atomic_load(&rv_mk_host_cdata);
}

void gex_MK_SetCData(gex_MK_t memkind, const void *val)
{
    rv_mk_check("gex_MK_SetCData", memkind);
    atomic_store(&rv_mk_host_cdata, (void *)(uintptr_t)val);
}
