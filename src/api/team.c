/* SPDX-License-Identifier: BSD-3-Clause */
/* api/team.c: team and endpoint queries and rank translation (validation: core/tm.c). */
#include "core/core.h"

gex_Client_t gex_TM_QueryClient(gex_TM_t tm) { return tm->client; }
gex_EP_t gex_TM_QueryEP(gex_TM_t tm) { return tm->ep; }
gex_Flags_t gex_TM_QueryFlags(gex_TM_t tm) { return tm->flags; }
gex_Rank_t gex_TM_QueryRank(gex_TM_t tm) { return tm->rank; }
gex_Rank_t gex_TM_QuerySize(gex_TM_t tm) { return tm->size; }
void gex_TM_SetCData(gex_TM_t tm, const void *val) { tm->cdata = (void *)val; }
void *gex_TM_QueryCData(gex_TM_t tm) { return tm->cdata; }

gex_Rank_t gex_TM_TranslateRankToJobrank(gex_TM_t tm, gex_Rank_t rank)
{
    return rv_tm_check_rank("gex_TM_TranslateRankToJobrank", tm, rank);
}

gex_Rank_t gex_TM_TranslateJobrankToRank(gex_TM_t tm, gex_Rank_t jobrank)
{
    RV_CHECK_INIT("gex_TM_TranslateJobrankToRank");
    if (jobrank >= rv_job.size)
        rv_fatal("gex_TM_TranslateJobrankToRank: jobrank %u is out of range (job size %u)", jobrank,
                 rv_job.size);
    if (!tm->jobranks) return jobrank < tm->size ? jobrank : GEX_RANK_INVALID;
    for (gex_Rank_t r = 0; r < tm->size; r++)
        if (tm->jobranks[r] == jobrank) return r;
    return GEX_RANK_INVALID;
}

gex_EP_Location_t gex_TM_TranslateRankToEP(gex_TM_t tm, gex_Rank_t rank, gex_Flags_t flags)
{
    (void)flags;
    gex_EP_Location_t loc;
    loc.gex_rank = rv_tm_check_rank("gex_TM_TranslateRankToEP", tm, rank);
    loc.gex_ep_index = tm->is_pair ? tm->pair_index : 0;
    return loc;
}

gex_Client_t gex_EP_QueryClient(gex_EP_t ep) { return ep->client; }
gex_Flags_t gex_EP_QueryFlags(gex_EP_t ep) { return ep->flags; }
gex_Segment_t gex_EP_QuerySegment(gex_EP_t ep) { return ep->seg; }
gex_EP_Index_t gex_EP_QueryIndex(gex_EP_t ep) { return ep->index; }
void gex_EP_SetCData(gex_EP_t ep, const void *val) { ep->cdata = (void *)val; }
void *gex_EP_QueryCData(gex_EP_t ep) { return ep->cdata; }
