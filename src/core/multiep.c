/* SPDX-License-Identifier: BSD-3-Clause */
/* core/multiep.c: the multi-endpoint and memory-kinds calls (gex_EP_Create,
 * gex_EP_BindSegment, gex_EP_PublishBoundSegment, gex_Segment_Create/Destroy,
 * gex_MK_Create/Destroy). Rivet has one endpoint per process (GASNET_MAXEPS == 1) and host
 * memory only: segments can be created and destroyed, but only gex_Segment_Attach binds
 * the primordial endpoint's segment. See docs/spec-coverage.md. */
#include "core/core.h"
#include "am/am_int.h"
#include "gasnet_mk.h"

#include <stdlib.h>

int gex_EP_Create(gex_EP_t *ep_p, gex_Client_t client, gex_EP_Capabilities_t capabilities,
                  gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_EP_Create");
    if (!ep_p) return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: ep_p is NULL");
    if (client != rv_client_g)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: client %p is not the client "
                               "from gex_Client_Init", (void *)client);
    if (!capabilities || (capabilities & ~GEX_EP_CAPABILITY_ALL))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: capabilities=0x%x is not a "
                               "non-empty OR of GEX_EP_CAPABILITY_*", (unsigned)capabilities);
    if (flags & ~GEX_FLAG_HINT_ACCEL_ALL)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_Create: flags=0x%x has bits other "
                               "than GEX_FLAG_HINT_ACCEL_*", (unsigned)flags);
    return rv_error_return(GASNET_ERR_RESOURCE, "gex_EP_Create: GASNET_MAXEPS is %d: this "
                           "process already has its primordial endpoint", GASNET_MAXEPS);
}

int gex_EP_BindSegment(gex_EP_t ep, gex_Segment_t segment, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_EP_BindSegment");
    if (flags) rv_fatal("gex_EP_BindSegment: flags=0x%x must be 0", (unsigned)flags);
    if (ep != rv_client_g->ep0)
        rv_fatal("gex_EP_BindSegment: ep %p is not an endpoint of this client", (void *)ep);
    if (segment == GEX_SEGMENT_INVALID)
        rv_fatal("gex_EP_BindSegment: segment is GEX_SEGMENT_INVALID");
    if (ep->seg == segment) return GASNET_OK; /* already bound (by gex_Segment_Attach) */
    rv_fatal("gex_EP_BindSegment: only gex_Segment_Attach can bind a segment to the "
             "primordial endpoint, and Rivet has no other (GASNET_MAXEPS is %d)", GASNET_MAXEPS);
}

/* Every endpoint that can exist here is primordial, and gex_Segment_Attach already
 * published its segment to every process: nothing is left to exchange. */
int gex_EP_PublishBoundSegment(gex_TM_t tm, gex_EP_t *eps, size_t num_eps, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_EP_PublishBoundSegment");
    if (rv_am_in_handler()) rv_fatal("gex_EP_PublishBoundSegment called inside an AM handler");
    if (!tm || tm->client != rv_client_g)
        rv_fatal("gex_EP_PublishBoundSegment: tm %p is not a team of this client", (void *)tm);
    if (tm->is_pair)
        rv_fatal("gex_EP_PublishBoundSegment: tm is a TM-pair; this call is collective over a team");
    if (flags) rv_fatal("gex_EP_PublishBoundSegment: flags=0x%x must be 0", (unsigned)flags);
    if (num_eps && !eps) rv_fatal("gex_EP_PublishBoundSegment: eps is NULL with num_eps=%zu", num_eps);
    for (size_t i = 0; i < num_eps; i++) {
        if (eps[i] != rv_client_g->ep0)
            rv_fatal("gex_EP_PublishBoundSegment: eps[%zu]=%p is not an endpoint of this client",
                     i, (void *)eps[i]);
        for (size_t j = 0; j < i; j++)
            if (eps[j] == eps[i])
                rv_fatal("gex_EP_PublishBoundSegment: eps[%zu] and eps[%zu] name the same "
                         "endpoint", j, i);
    }
    return GASNET_OK;
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
        uintptr_t rounded = (length + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
        if (rounded < length || posix_memalign(&seg->alloc, GASNET_PAGESIZE, rounded)) {
            free(seg);
            return rv_error_return(GASNET_ERR_RESOURCE, "gex_Segment_Create: cannot allocate "
                                   "%" PRIuPTR " bytes", length);
        }
        address = seg->alloc;
    }
    seg->client = rv_client_g;
    seg->addr = address;
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
    if (seg == rv_client_g->ep0->seg || !seg->created)
        rv_fatal("gex_Segment_Destroy: seg %p is the segment bound by gex_Segment_Attach; "
                 "it lives until the job ends", (void *)seg);
    free(seg->alloc);
    free(seg);
}

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
