/* SPDX-License-Identifier: BSD-3-Clause */
/* api/segment.c: segment size limits, gex_Segment_Attach and the segment queries. */
#include "core/core.h"
#include "api/segment_int.h"
#include "transport/transport.h"
#include "am/am_int.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uintptr_t rv_max_local, rv_max_global;

/* GASNET_MAX_SEGSIZE (GASNet's syntax, core/config.c): bytes per rank, /H shared among the
 * ranks of this host. */
static uintptr_t rv_parse_max_segsize(const char *s)
{
    const char *var = getenv("RIVET_MAX_SEGSIZE") ? "RIVET_MAX_SEGSIZE"
                      : getenv("GASNET_MAX_SEGSIZE") ? "GASNET_MAX_SEGSIZE" : "default of RIVET_MAX_SEGSIZE";
    char err[768];
    uint64_t v;
    if (rv_config_segsize_bytes(var, s, rv_job.host_size, &v, err, sizeof err)) rv_fatal("%s", err);
    return v > UINTPTR_MAX ? UINTPTR_MAX : (uintptr_t)v;
}

void rv_segment_init_limits(void)
{
    /* Without GASNET_MAX_SEGSIZE in the environment, the client's compiled-in default
     * applies (api/segdefault.c): the string first, then the deprecated per-rank bytes. */
    const char *spec = rv_cfg.MAX_SEGSIZE;
    char bytes_per_rank[32];
    if (!getenv("RIVET_MAX_SEGSIZE") && !getenv("GASNET_MAX_SEGSIZE")) {
        if (gasnet_max_segsize_str) {
            spec = gasnet_max_segsize_str;
        } else if (gasnet_max_segsize) {
            snprintf(bytes_per_rank, sizeof bytes_per_rank, "%" PRIu64 "/P", gasnet_max_segsize);
            spec = bytes_per_rank;
        }
    }
    uintptr_t v = rv_parse_max_segsize(spec);
    if (rv_tp.lim.max_seg_local && rv_tp.lim.max_seg_local < v) v = rv_tp.lim.max_seg_local;
    v &= ~(uintptr_t)(GASNET_PAGESIZE - 1);
    rv_max_local = v;
    uintptr_t *all = malloc(rv_job.size * sizeof *all);
    if (!all || rv_boot_allgather(&v, sizeof v, all)) rv_fatal("segment limits: allgather failed");
    rv_max_global = v;
    for (uint32_t r = 0; r < rv_job.size; r++)
        if (all[r] < rv_max_global) rv_max_global = all[r];
    free(all);
}

uintptr_t gasnet_getMaxLocalSegmentSize(void)
{
    RV_CHECK_INIT("gasnet_getMaxLocalSegmentSize");
    return rv_max_local;
}

uintptr_t gasnet_getMaxGlobalSegmentSize(void)
{
    RV_CHECK_INIT("gasnet_getMaxGlobalSegmentSize");
    return rv_max_global;
}

void (*gasnet_client_attach_hook)(void *segbase, uintptr_t segsize);

int gex_Segment_Attach(gex_Segment_t *segment_p, gex_TM_t tm, uintptr_t size)
{
    RV_CHECK_INIT("gex_Segment_Attach");
    if (!segment_p) rv_fatal("gex_Segment_Attach: segment_p is NULL");
    if (tm != rv_client_g->tm0)
        rv_fatal("gex_Segment_Attach: tm must be the primordial team from gex_Client_Init");
    if (rv_segmap)
        rv_fatal("gex_Segment_Attach: the primordial endpoint already has a segment (attached, or "
                 "bound or published by gex_EP_BindSegment / gex_EP_PublishBoundSegment)");
    if (size == 0 || size % GASNET_PAGESIZE)
        rv_fatal("gex_Segment_Attach: size=%" PRIuPTR " must be a non-zero multiple of "
                 "GASNET_PAGESIZE (%d)", size, GASNET_PAGESIZE);
    if (size > rv_max_local)
        rv_fatal("gex_Segment_Attach: size=%" PRIuPTR " exceeds gasnet_getMaxLocalSegmentSize()="
                 "%" PRIuPTR " (raise GASNET_MAX_SEGSIZE or free /dev/shm space)", size, rv_max_local);
    if (rv_am_in_handler()) rv_fatal("gex_Segment_Attach called inside an AM handler");

    rv_segmap_t *map = rv_tm0_table(rv_client_g->tm0);
    struct rv_segment *seg = calloc(1, sizeof *seg);
    if (!seg) rv_fatal("gex_Segment_Attach: out of memory");
    if (rv_tp.desc->seg_attach(rv_tp.priv, size, map) != 0)
        rv_fatal("gex_Segment_Attach: transport %s could not create a %" PRIuPTR "-byte segment",
                 rv_tp.desc->name, size);
    seg->client = rv_client_g;
    seg->addr = map[rv_job.rank].owner_base;
    seg->size = size;
    seg->ep = tm->ep;
    seg->epmask = 1;
    if (rv_job.nbrhd_size > 1) map[rv_job.rank].flags |= RV_SEG_SHARED;
    tm->ep->seg = seg;
    rv_segtab_publish(&rv_segmap, map);
    rv_tm_flat_refresh();
    rv_verbose(1, "segment of %" PRIuPTR " bytes at %p", size, seg->addr);
    if (gasnet_client_attach_hook) gasnet_client_attach_hook(seg->addr, size);
    if (rv_boot_barrier()) rv_fatal("gex_Segment_Attach: bootstrap barrier failed");
    *segment_p = seg;
    return GASNET_OK;
}

gex_Client_t gex_Segment_QueryClient(gex_Segment_t seg) { return seg->client; }
gex_Flags_t gex_Segment_QueryFlags(gex_Segment_t seg) { return seg->flags; }
void *gex_Segment_QueryAddr(gex_Segment_t seg) { return seg->addr; }
uintptr_t gex_Segment_QuerySize(gex_Segment_t seg) { return seg->size; }
void gex_Segment_SetCData(gex_Segment_t seg, const void *val) { seg->cdata = (void *)val; }
void *gex_Segment_QueryCData(gex_Segment_t seg) { return seg->cdata; }

/* The (tm, rank) endpoint's entry in its segment table: a TM-pair names endpoint
 * pair_index of a jobrank, any other team primordial endpoints. NULL: none known here. */
static const rv_segmap_t *rv_seg_bound(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    gex_Rank_t jr = rv_tm_check_rank(call, tm, rank);
    const rv_segmap_t *tab = rv_epseg_table(tm->pair_index);
    return tab && tab[jr].size ? &tab[jr] : NULL;
}

int gex_Segment_QueryBound(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p, void **localaddr_p,
                           uintptr_t *size_p)
{
    RV_CHECK_INIT("gex_Segment_QueryBound");
    const rv_segmap_t *m = rv_seg_bound("gex_Segment_QueryBound", tm, rank);
    if (!m) return GASNET_ERR_RESOURCE;
    if (owneraddr_p) *owneraddr_p = m->owner_base;
    if (localaddr_p) *localaddr_p = m->local_base;
    if (size_p) *size_p = m->size;
    return GASNET_OK;
}

gex_Event_t gex_EP_QueryBoundSegmentNB(gex_TM_t tm, gex_Rank_t rank, void **owneraddr_p,
                                       void **localaddr_p, uintptr_t *size_p, gex_Flags_t flags)
{
    (void)flags;
    RV_CHECK_INIT("gex_EP_QueryBoundSegmentNB");
    const rv_segmap_t *m = rv_seg_bound("gex_EP_QueryBoundSegmentNB", tm, rank);
    /* Every answer is known here (attach and publish fill the tables), so the query never
     * communicates and its event is always GEX_EVENT_INVALID, with GEX_FLAG_IMMEDIATE too.
     * No bound segment (none yet, or one not published to this rank) is an "unsuccessful"
     * query, not an error: size 0, and the other outputs are left as they were. */
    if (!m) {
        if (size_p) *size_p = 0;
        return GEX_EVENT_INVALID;
    }
    if (owneraddr_p) *owneraddr_p = m->owner_base;
    if (localaddr_p) *localaddr_p = m->local_base;
    if (size_p) *size_p = m->size;
    return GEX_EVENT_INVALID;
}
