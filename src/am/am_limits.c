/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_limits.c: AM payload limits (Max*, LUB*, Token_MaxReply*) and gex_Token_Info. */
#include "am/am_int.h"
#include "am/am_long.h"

#include <string.h>

size_t rv_medium_max; /* rv_am_max_medium() (am_int.h) */
static size_t rv_long_max_mapped, rv_long_max_rdma;
static int rv_lub_early; /* a LUB query was answered before gex_Client_Init */

/* RIVET_STATS: am_long.c's counters (Longs by RDMA), folded in as am.long.*. */
static void rv_am_long_stats_emit(rv_stats_emit_t emit, void *ctx)
{
    rv_am_long_stats_t s;
    rv_am_long_get_stats(&s);
    emit("rdma_sync", s.rdma_sync, ctx);
    emit("rdma_reassembly", s.rdma_reasm, ctx);
    emit("header_first", s.header_first, ctx);
    emit("payload_first", s.payload_first, ctx);
}

void rv_am_init(void)
{
    size_t m = RV_AM_MAX_MEDIUM;
    if (rv_tp.lim.max_msg < m + RV_AM_HDR_MAX) m = rv_tp.lim.max_msg - RV_AM_HDR_MAX;
    if (m < 512) rv_fatal("transport %s carries only %zu-byte messages; AMs need 512 + %zu",
                          rv_tp.desc->name, rv_tp.lim.max_msg, (size_t)RV_AM_HDR_MAX);
    if (m < RV_AM_MAX_MEDIUM && rv_lub_early)
        rv_fatal("gex_AM_LUB* said %u before gex_Client_Init, but transport %s carries only %zu",
                 RV_AM_MAX_MEDIUM, rv_tp.desc->name, m);
    rv_medium_max = m;
    uint64_t l = rv_cfg.AM_MAX_LONG;
    if (l > UINT32_MAX) l = UINT32_MAX;
    if (l < 512) l = 512;
    rv_long_max_mapped = (size_t)l;
    rv_long_max_rdma = rv_tp.lim.max_rdma < rv_long_max_mapped ? rv_tp.lim.max_rdma
                                                                : rv_long_max_mapped;
    rv_am_long_init();
    if (RV_STAT_ON() && rv_tp.ops.put) rv_stats_source("am.long", rv_am_long_stats_emit);
    rv_am_lb_queue = !strcmp(rv_cfg.AM_LOOPBACK, "queue");   /* run|queue, checked at start-up */
}

/* Long payloads to a peer whose segment we map are copied directly; to one the
 * transport reaches by RDMA they go by put (am_long.c); to others they travel inline
 * in one message. The limit is symmetric: a neighbour gets the mapped one only if each maps
 * the other's segment (before any segment is bound, neighbours are assumed to: attached
 * segments are always cross-mapped), and RDMA reaches both ways or neither. */
size_t rv_am_max_long(gex_Rank_t jobrank)
{
    if (rv_job_in_nbrhd(jobrank) &&
        (!rv_segmap || (rv_segmap[jobrank].local_base &&
                        (jobrank == rv_job.rank ||
                         (rv_segmap[rv_job.rank].flags & RV_SEG_SHARED)))))
        return rv_long_max_mapped;
    if (rv_segmap && (rv_segmap[jobrank].flags & RV_SEG_RDMA) && rv_long_max_rdma > rv_medium_max)
        return rv_long_max_rdma;
    return rv_medium_max;
}

static size_t rv_am_team_max_long(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    if (rank != GEX_RANK_INVALID) return rv_am_max_long(rv_tm_check_rank(call, tm, rank));
    RV_CHECK_INIT(call);
    size_t m = rv_long_max_mapped;
    for (gex_Rank_t r = 0; r < tm->size; r++) {
        size_t v = rv_am_max_long(rv_tm_jobrank(tm, r));
        if (v < m) m = v;
    }
    return m;
}

/* numargs in range; lc_opt one an AM of this kind accepts (never GEX_EVENT_DEFER, no
 * GEX_EVENT_GROUP for a Reply); at most one of GEX_FLAG_AM_PREPARE_LEAST_{CLIENT,ALLOC}; and
 * tm names AM-capable endpoints (not a TM-pair to or from a non-primordial one). */
static void rv_am_check_query(const char *call, gex_TM_t tm, const gex_Event_t *lc, int is_reply,
                              gex_Flags_t flags, unsigned numargs)
{
    if (numargs > RV_AM_MAX_ARGS)
        rv_fatal("%s: numargs=%u exceeds gex_AM_MaxArgs()=%u", call, numargs, RV_AM_MAX_ARGS);
    if (lc == GEX_EVENT_DEFER)
        rv_fatal("%s: GEX_EVENT_DEFER is not allowed as lc_opt of an AM", call);
    if (is_reply && lc == GEX_EVENT_GROUP)
        rv_fatal("%s: GEX_EVENT_GROUP is not allowed as lc_opt of a Reply", call);
    if ((flags & GEX_FLAG_AM_PREPARE_LEAST_CLIENT) && (flags & GEX_FLAG_AM_PREPARE_LEAST_ALLOC))
        rv_fatal("%s: GEX_FLAG_AM_PREPARE_LEAST_CLIENT and GEX_FLAG_AM_PREPARE_LEAST_ALLOC are "
                 "mutually exclusive", call);
    if (tm && tm->is_pair && (tm->pair_index || tm->ep->index))
        rv_tm_pair_only_rma(call, "GEX_EP_CAPABILITY_AM", tm);
}

/* The token queries belong inside the Request handler the token was given to. */
static struct rv_token *rv_am_check_token(const char *call, gex_Token_t token)
{
    if (!token) rv_fatal("%s: token is NULL", call);
    if (token != rv_am_cur_token)
        rv_fatal("%s: the token is not that of the AM handler running on this thread; the query "
                 "is only allowed inside its Request handler", call);
    if (!token->is_req) rv_fatal("%s: called from a Reply handler; it is only allowed in Request "
                                 "handlers", call);
    return token;
}

unsigned int gex_AM_MaxArgs(void) { return RV_AM_MAX_ARGS; }

size_t gex_AM_MaxRequestLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    rv_am_check_query("gex_AM_MaxRequestLong", tm, lc_opt, 0, flags, numargs);
    return rv_am_team_max_long("gex_AM_MaxRequestLong", tm, other_rank);
}

size_t gex_AM_MaxReplyLong(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                           gex_Flags_t flags, unsigned int numargs)
{
    rv_am_check_query("gex_AM_MaxReplyLong", tm, lc_opt, 1, flags, numargs);
    return rv_am_team_max_long("gex_AM_MaxReplyLong", tm, other_rank);
}

size_t gex_AM_MaxRequestMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                               gex_Flags_t flags, unsigned int numargs)
{
    rv_am_check_query("gex_AM_MaxRequestMedium", tm, lc_opt, 0, flags, numargs);
    if (other_rank != GEX_RANK_INVALID) rv_tm_check_rank("gex_AM_MaxRequestMedium", tm, other_rank);
    RV_CHECK_INIT("gex_AM_MaxRequestMedium");
    return rv_medium_max;
}

size_t gex_AM_MaxReplyMedium(gex_TM_t tm, gex_Rank_t other_rank, const gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs)
{
    rv_am_check_query("gex_AM_MaxReplyMedium", tm, lc_opt, 1, flags, numargs);
    if (other_rank != GEX_RANK_INVALID) rv_tm_check_rank("gex_AM_MaxReplyMedium", tm, other_rank);
    RV_CHECK_INIT("gex_AM_MaxReplyMedium");
    return rv_medium_max;
}

size_t gex_Token_MaxReplyLong(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                              unsigned int numargs)
{
    static const char call[] = "gex_Token_MaxReplyLong";
    rv_am_check_query(call, NULL, lc_opt, 1, flags, numargs);
    return rv_am_max_long(rv_am_check_token(call, token)->src);
}

size_t gex_Token_MaxReplyMedium(gex_Token_t token, const gex_Event_t *lc_opt, gex_Flags_t flags,
                                unsigned int numargs)
{
    static const char call[] = "gex_Token_MaxReplyMedium";
    rv_am_check_query(call, NULL, lc_opt, 1, flags, numargs);
    rv_am_check_token(call, token);
    return rv_medium_max;
}

/* The least upper bounds. They may be asked before gex_Client_Init (GASNet defines them as
 * constants, and Realm reads one before it initialises): every transport carries
 * RV_AM_MAX_MEDIUM then (shm rings are at least 256 KiB, ofi sends 64 KiB + headers), so
 * that is the answer for all four, and rv_am_init stops the job if a transport ever gave
 * less after one was given out. After it, the Medium ones are the Medium limit, and the Long
 * ones the least Long limit from this rank to any rank of the job as things stand now (a
 * team's GEX_RANK_INVALID query does the same over its members): exactly the least Max, as
 * GASNet's testgasnet checks, the mapped limit when every rank is a neighbour. Long limits
 * only grow (segments become reachable by RDMA when attached or published), so no answer
 * given earlier ever exceeds a limit. O(job size), like a GEX_RANK_INVALID Max query. */
static size_t rv_am_lub(void)
{
    if (rv_client_g) return rv_medium_max;
    rv_lub_early = 1;
    return RV_AM_MAX_MEDIUM;
}

static size_t rv_am_lub_long(void)
{
    if (!rv_client_g) return rv_am_lub();
    size_t m = rv_long_max_mapped;
    for (gex_Rank_t r = 0; r < rv_job.size; r++) {
        size_t v = rv_am_max_long(r);
        if (v < m) m = v;
    }
    return m;
}

size_t gex_AM_LUBRequestLong(void) { return rv_am_lub_long(); }
size_t gex_AM_LUBReplyLong(void) { return rv_am_lub_long(); }
size_t gex_AM_LUBRequestMedium(void) { return rv_am_lub(); }
size_t gex_AM_LUBReplyMedium(void) { return rv_am_lub(); }

gex_TI_t gex_Token_Info(gex_Token_t token, gex_Token_Info_t *info, gex_TI_t mask)
{
    (void)mask;
    if (!token || !info) rv_fatal("gex_Token_Info: token and info must not be NULL");
    info->gex_srcrank = token->src;
    info->gex_ep = token->ep;
    info->gex_entry = token->entry;
    info->gex_is_req = token->is_req;
    info->gex_is_long = token->is_long;
    return token->internal ? (GEX_TI_SRCRANK | GEX_TI_EP | GEX_TI_IS_REQ | GEX_TI_IS_LONG)
                           : GEX_TI_ALL;
}
