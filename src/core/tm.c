/* SPDX-License-Identifier: BSD-3-Clause */
/* core/tm.c: the checks every layer makes on a team or TM-pair argument, and the allocator of
 * the team objects the inline Put/Get path reads (rv_hot_calloc). */
#include "core/core.h"

#include <stdlib.h>
#include <string.h>

gex_Rank_t rv_tm_check_rank(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    RV_CHECK_INIT(call);
    if (__builtin_expect(tm == GEX_TM_INVALID, 0)) rv_fatal("%s: tm is GEX_TM_INVALID", call);
    if (__builtin_expect(rank >= tm->size, 0))
        rv_fatal("%s: rank %u is out of range (team size %u)", call, rank, tm->size);
    return rv_tm_jobrank(tm, rank);
}

void rv_tm_pair_only_rma(const char *call, const char *what, const struct rv_tm *tm)
{
    if (tm->ep->index)
        rv_fatal("%s: tm is a TM-pair whose local endpoint (index %u) is not primordial; Rivet's "
                 "non-primordial endpoints have GEX_EP_CAPABILITY_RMA only, not %s", call,
                 tm->ep->index, what);
    rv_fatal("%s: tm is a TM-pair naming remote endpoint index %u, which is not primordial; "
             "Rivet's non-primordial endpoints have GEX_EP_CAPABILITY_RMA only, not %s", call,
             tm->pair_index, what);
}

/* 4 KiB: the period of L1 set indexing and of store-to-load address aliasing on x86, not
 * GASNET_PAGESIZE */
#define RV_HOT_PAGE ((size_t)4096)

void *rv_hot_calloc(size_t n, size_t size, const char *what)
{
    if (size && n > (SIZE_MAX - 2 * RV_HOT_PAGE) / size) rv_fatal("%s: out of memory", what);
    size_t bytes = (n * size + 63) & ~(size_t)63;
    if (!bytes) bytes = 64;
    size_t total = (bytes + RV_HOT_PAGE - 1) & ~(RV_HOT_PAGE - 1);
    char *base = aligned_alloc(RV_HOT_PAGE, total);
    if (!base) rv_fatal("%s: out of memory", what);
    memset(base, 0, total);
    /* ends at base + total: starts (total - bytes) < one page in, so rv_hot_free finds base */
    return base + (total - bytes);
}

void rv_hot_free(void *p)
{
    if (p) free((void *)((uintptr_t)p & ~(uintptr_t)(RV_HOT_PAGE - 1)));
}
