/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_init.c: GASNet-1 start-up (gasnet_init, gasnet_attach), the legacy binding
 * behind the gasnet.h wrappers, segment info, gasnet_QueryGexObjects and small queries. */
#include "legacy/legacy_int.h"
#include "am/am_int.h"
#include "core/job.h"

#include <stdlib.h>
#include <string.h>

gex_TM_t _rivet_legacy_tm;

static int rv_legacy_inited;  /* gasnet_init succeeded */
static int rv_legacy_attached; /* gasnet_attach succeeded */

gex_TM_t _rivet_legacy_tm_slow(const char *call)
{
    if (!rv_client_g)
        rv_fatal("%s called before gasnet_init() (or gex_Client_Init)", call);
    /* A client initialized without GEX_FLAG_USES_GASNET1 may still make GASNet-1 calls
     * (GASNet-EX programs commonly end with the legacy barrier): they act on the
     * primordial team, as for a flagged client. */
    if (rv_legacy_inited && !rv_legacy_attached)
        rv_fatal("%s called between gasnet_init() and gasnet_attach(); only gasnet_mynode, "
                 "gasnet_nodes, gasnet_getenv, gasnet_exit, gasnet_getNodeInfo and "
                 "gasnet_getMax*SegmentSize are allowed there", call);
    gex_TM_t tm = rv_client_g->tm0;
    __atomic_store_n(&_rivet_legacy_tm, tm, __ATOMIC_RELEASE);
    return tm;
}

int gasnet_init(int *argc, char ***argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    if (rv_client_g)
        return rv_error_return(GASNET_ERR_RESOURCE, "gasnet_init: GASNet is already initialized "
                               "(gasnet_init may be called only once per process)");
    int rc = gex_Client_Init(&client, &ep, &tm, "LEGACY", argc, argv, GEX_FLAG_USES_GASNET1);
    if (rc == GASNET_OK) rv_legacy_inited = 1;
    return rc;
}

/* Registers a GASNet-1 handler table through gex_EP_RegisterHandlers: the entries carry
 * no category or arity, so they are registered to accept any (RV_AM_FLAG_LEGACY). */
static int rv_legacy_register(gex_EP_t ep, gasnet_handlerentry_t *table, int numentries)
{
    if (numentries == 0) return GASNET_OK;
    for (int k = 0; k < numentries; k++) {
        if (!table[k].fnptr)
            return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_attach: handler table entry %d "
                                   "has a NULL fnptr", k);
        if (table[k].index != 0 && table[k].index < GEX_AM_INDEX_BASE)
            return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_attach: handler table entry %d has "
                                   "index %u; indices 1..%d are reserved for GASNet (use 0 or "
                                   "%d..255)", k, (unsigned)table[k].index,
                                   GEX_AM_INDEX_BASE - 1, GEX_AM_INDEX_BASE);
    }
    gex_AM_Entry_t *ex = calloc((size_t)numentries, sizeof *ex);
    if (!ex) rv_fatal("gasnet_attach: out of memory for %d handler entries", numentries);
    for (int k = 0; k < numentries; k++) {
        ex[k].gex_index = table[k].index;
        ex[k].gex_fnptr = (gex_AM_Fn_t)table[k].fnptr;
        ex[k].gex_flags = RV_AM_FLAG_LEGACY | GEX_FLAG_AM_SHORT | GEX_FLAG_AM_MEDLONG |
                          GEX_FLAG_AM_REQREP;
        ex[k].gex_nargs = RV_AM_NARGS_ANY;
        ex[k].gex_name = "gasnet_attach handler";
    }
    int rc = gex_EP_RegisterHandlers(ep, ex, (size_t)numentries);
    if (rc == GASNET_OK)
        for (int k = 0; k < numentries; k++) table[k].index = ex[k].gex_index;
    free(ex);
    return rc;
}

int gasnet_attach(gasnet_handlerentry_t *table, int numentries, uintptr_t segsize,
                  uintptr_t minheapoffset)
{
    (void)minheapoffset; /* segments are mapped apart from the heap */
    if (!rv_legacy_inited)
        return rv_error_return(GASNET_ERR_NOT_INIT, "gasnet_attach: call gasnet_init() first "
                               "(a gex_Client_Init client attaches with gex_Segment_Attach)");
    if (rv_legacy_attached)
        return rv_error_return(GASNET_ERR_RESOURCE, "gasnet_attach: already attached (it may be "
                               "called only once per process)");
    if (numentries < 0 || (numentries > 0 && !table))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_attach: numentries=%d with table=%p",
                               numentries, (void *)table);
    if (segsize % GASNET_PAGESIZE)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_attach: segsize=%" PRIuPTR " is not a "
                               "multiple of GASNET_PAGESIZE (%d)", segsize, GASNET_PAGESIZE);
    struct rv_tm *tm = rv_client_g->tm0;
    int rc = rv_legacy_register(tm->ep, table, numentries);
    if (rc != GASNET_OK) return rc;

    /* The spec lets the segment come out smaller than asked; Rivet's segment attach is
     * collective, so a rank asking for none still gets one page. */
    uintptr_t max = gasnet_getMaxLocalSegmentSize();
    uintptr_t size = segsize > max ? max : segsize;
    if (size < GASNET_PAGESIZE) size = GASNET_PAGESIZE;
    gex_Segment_t seg;
    rc = gex_Segment_Attach(&seg, tm, size);
    if (rc != GASNET_OK) return rc;
    /* attach is a barrier: every rank's handlers are registered when it returns */
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    rv_legacy_attached = 1;
    __atomic_store_n(&_rivet_legacy_tm, tm, __ATOMIC_RELEASE);
    return GASNET_OK;
}

int gasnet_getSegmentInfo(gasnet_seginfo_t *seginfo_table, int numentries)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_getSegmentInfo");
    if (numentries < 0 || (numentries > 0 && !seginfo_table))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_getSegmentInfo: numentries=%d with "
                               "seginfo_table=%p", numentries, (void *)seginfo_table);
    if (!rv_segmap)
        return rv_error_return(GASNET_ERR_NOT_INIT, "gasnet_getSegmentInfo: no segment is "
                               "attached yet");
    gex_Rank_t n = tm->size < (gex_Rank_t)numentries ? tm->size : (gex_Rank_t)numentries;
    for (gex_Rank_t r = 0; r < n; r++) {
        seginfo_table[r].addr = rv_segmap[r].owner_base;
        seginfo_table[r].size = rv_segmap[r].size;
    }
    return GASNET_OK;
}

/* Allowed between gasnet_init and gasnet_attach too (clients size their threads and
 * shared-memory use by it before they attach). */
int gasnet_getNodeInfo(gasnet_nodeinfo_t *nodeinfo_table, int numentries)
{
    if (!rv_client_g) rv_fatal("gasnet_getNodeInfo called before gasnet_init() (or gex_Client_Init)");
    if (numentries < 0 || (numentries > 0 && !nodeinfo_table))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gasnet_getNodeInfo: numentries=%d with "
                               "nodeinfo_table=%p", numentries, (void *)nodeinfo_table);
    uint32_t n = rv_job.size < (uint32_t)numentries ? rv_job.size : (uint32_t)numentries;
    for (uint32_t r = 0; r < n; r++) {
        nodeinfo_table[r].host = rv_job.host_of[r];
        nodeinfo_table[r].supernode = rv_job.nbrhd_of[r];
        uintptr_t off = 0;
        if (rv_segmap && rv_job_in_nbrhd(r) && rv_segmap[r].local_base && rv_segmap[r].owner_base)
            off = (uintptr_t)rv_segmap[r].local_base - (uintptr_t)rv_segmap[r].owner_base;
        nodeinfo_table[r].offset = off;
    }
    return GASNET_OK;
}

void gasnet_QueryGexObjects(gex_Client_t *client_p, gex_EP_t *endpoint_p, gex_TM_t *tm_p,
                            gex_Segment_t *segment_p)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_QueryGexObjects");
    if (client_p) *client_p = tm->client;
    if (endpoint_p) *endpoint_p = tm->ep;
    if (tm_p) *tm_p = tm;
    if (segment_p) *segment_p = tm->ep->seg;
}

char *gasnet_getenv(const char *name)
{
    if (!name) rv_fatal("gasnet_getenv: name is NULL");
    return getenv(name); /* rivetrun starts every rank with the launching environment */
}

/* GASNET_GET_THREADINFO: one byte per thread, whose address names the thread. */
gasnet_threadinfo_t _rivet_threadinfo_get(void)
{
    static _Thread_local char rv_threadinfo;
    return &rv_threadinfo;
}
/* ... and a GASNET_SEQ client's one thread's (gasnetex.h takes its address) */
char _rivet_threadinfo_seq;

int gasnet_set_waitmode(int wait_mode)
{
    if (wait_mode != GASNET_WAIT_SPIN && wait_mode != GASNET_WAIT_BLOCK &&
        wait_mode != GASNET_WAIT_SPINBLOCK)
        rv_fatal("gasnet_set_waitmode: wait_mode=%d is not GASNET_WAIT_SPIN, GASNET_WAIT_BLOCK "
                 "or GASNET_WAIT_SPINBLOCK", wait_mode);
    (void)rv_legacy_tm_get("gasnet_set_waitmode");
    return GASNET_OK; /* a hint: waits always poll, yielding when ranks outnumber cores */
}

int gasnet_AMGetMsgSource(gasnet_token_t token, gasnet_node_t *srcindex)
{
    if (!token) rv_fatal("gasnet_AMGetMsgSource: token is NULL");
    if (!srcindex) rv_fatal("gasnet_AMGetMsgSource: srcindex is NULL");
    gex_Token_Info_t info;
    gex_Token_Info(token, &info, GEX_TI_SRCRANK);
    *srcindex = info.gex_srcrank;
    return GASNET_OK;
}

/* gasnet_init of a GASNET_SEQ or GASNET_PARSYNC client (gasnet.h; rv_am_gate_close) */
int _rivet_gasnet_init_seq(int *argc, char ***argv)
{
    rv_seq_client = 1;
    return gasnet_init(argc, argv);
}
