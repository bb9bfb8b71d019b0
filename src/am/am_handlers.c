/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_handlers.c: gex_EP_RegisterHandlers (fixed indices, index 0 = highest free) and internal handlers. */
#include "am/am_int.h"

#include <string.h>

rv_am_ifn_t rv_am_internal[RV_AMI_COUNT];

void rv_am_register_internal(unsigned index, rv_am_ifn_t fn)
{
    rv_am_internal[index] = fn;
}

static int rv_am_flags_ok(gex_Flags_t f)
{
    gex_Flags_t cat = f & (GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG);
    gex_Flags_t rr = f & GEX_FLAG_AM_REQREP;
    if (f == (RV_AM_FLAG_LEGACY | GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP))
        return 1; /* gasnet_attach entry */
    if (f & ~(GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG | GEX_FLAG_AM_REQREP)) return 0;
    if (cat != GEX_FLAG_AM_SHORT && cat != GEX_FLAG_AM_MEDIUM && cat != GEX_FLAG_AM_LONG &&
        cat != GEX_FLAG_AM_MEDLONG)
        return 0;
    return rr != 0;
}

int gex_EP_RegisterHandlers(gex_EP_t ep, gex_AM_Entry_t *table, size_t numentries)
{
    RV_CHECK_INIT("gex_EP_RegisterHandlers");
    if (!ep) rv_fatal("gex_EP_RegisterHandlers: ep is GEX_EP_INVALID");
    if (numentries && !table) rv_fatal("gex_EP_RegisterHandlers: table is NULL");
    if (!(ep->caps & GEX_EP_CAPABILITY_AM))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: endpoint index %u "
                               "was created without GEX_EP_CAPABILITY_AM", ep->index);

    /* Validate everything first so an error registers nothing. */
    uint8_t taken[256];
    for (int i = 0; i < 256; i++) taken[i] = ep->handlers[i].gex_fnptr != NULL;
    size_t nfree = 0;
    for (int i = GEX_AM_INDEX_BASE; i < 256; i++) nfree += !taken[i];
    for (size_t k = 0; k < numentries; k++) {
        const gex_AM_Entry_t *e = &table[k];
        const char *nm = e->gex_name ? e->gex_name : "(unnamed)";
        if (!e->gex_fnptr)
            return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: entry %zu (%s) "
                                   "has a NULL gex_fnptr", k, nm);
        if (e->gex_nargs > RV_AM_MAX_ARGS &&
            !((e->gex_flags & RV_AM_FLAG_LEGACY) && e->gex_nargs == RV_AM_NARGS_ANY))
            return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: entry %zu (%s) "
                                   "has gex_nargs=%u > gex_AM_MaxArgs()=%u", k, nm, e->gex_nargs,
                                   RV_AM_MAX_ARGS);
        if (!rv_am_flags_ok(e->gex_flags))
            return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: entry %zu (%s) "
                                   "gex_flags=0x%x must name one of GEX_FLAG_AM_{SHORT,MEDIUM,LONG,"
                                   "MEDLONG} and one of GEX_FLAG_AM_{REQUEST,REPLY,REQREP}", k, nm,
                                   (unsigned)e->gex_flags);
        unsigned idx = e->gex_index;
        if (idx == 0) continue;
        if (idx < GEX_AM_INDEX_BASE)
            return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: entry %zu (%s) "
                                   "gex_index=%u is below GEX_AM_INDEX_BASE (%d); use 0 to have "
                                   "one assigned", k, nm, idx, GEX_AM_INDEX_BASE);
        if (taken[idx])
            return rv_error_return(GASNET_ERR_BAD_ARG, "gex_EP_RegisterHandlers: entry %zu (%s) "
                                   "gex_index=%u is already registered", k, nm, idx);
        taken[idx] = 1;
        nfree--;
    }
    size_t nzero = 0;
    for (size_t k = 0; k < numentries; k++) nzero += table[k].gex_index == 0;
    if (nzero > nfree)
        return rv_error_return(GASNET_ERR_RESOURCE, "gex_EP_RegisterHandlers: %zu handlers with "
                               "gex_index=0 but only %zu free indices", nzero, nfree);

    /* Fixed indices first, then index 0 entries in table order, highest free first. */
    for (size_t k = 0; k < numentries; k++)
        if (table[k].gex_index) ep->handlers[table[k].gex_index] = table[k];
    int next = 255;
    for (size_t k = 0; k < numentries; k++) {
        if (table[k].gex_index) continue;
        while (taken[next]) next--;
        taken[next] = 1;
        table[k].gex_index = (gex_AM_Index_t)next;
        ep->handlers[next] = table[k];
    }
    return GASNET_OK;
}
