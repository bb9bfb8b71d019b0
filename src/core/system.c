/* SPDX-License-Identifier: BSD-3-Clause */
/* core/system.c: the gex_System_* job queries and their GASNet-1 names. */
#include "core/core.h"

gex_Rank_t gex_System_QueryJobRank(void)
{
    RV_CHECK_INIT("gex_System_QueryJobRank");
    return rv_job.rank;
}

gex_Rank_t gex_System_QueryJobSize(void)
{
    RV_CHECK_INIT("gex_System_QueryJobSize");
    return rv_job.size;
}

gex_Rank_t gasnet_mynode(void) { return gex_System_QueryJobRank(); }
gex_Rank_t gasnet_nodes(void) { return gex_System_QueryJobSize(); }

/* gex_RankInfo_t is a const struct holding only the jobrank, so our sorted
 * uint32_t member arrays are handed out as they are. */
_Static_assert(sizeof(struct gex_RankInfo_s) == sizeof(uint32_t), "gex_RankInfo_t layout");

void gex_System_QueryNbrhdInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                               gex_Rank_t *my_info_index_p)
{
    RV_CHECK_INIT("gex_System_QueryNbrhdInfo");
    if (info_p) *info_p = (gex_RankInfo_t *)rv_job.nbrhd_ranks;
    if (info_count_p) *info_count_p = rv_job.nbrhd_size;
    if (my_info_index_p) *my_info_index_p = rv_job.nbrhd_index;
}

void gex_System_QueryHostInfo(gex_RankInfo_t **info_p, gex_Rank_t *info_count_p,
                              gex_Rank_t *my_info_index_p)
{
    RV_CHECK_INIT("gex_System_QueryHostInfo");
    if (info_p) *info_p = (gex_RankInfo_t *)rv_job.host_ranks;
    if (info_count_p) *info_count_p = rv_job.host_size;
    if (my_info_index_p) *my_info_index_p = rv_job.host_index;
}

void gex_System_QueryMyPosition(gex_Rank_t *nbrhd_set_size, gex_Rank_t *nbrhd_set_rank,
                                gex_Rank_t *host_set_size, gex_Rank_t *host_set_rank)
{
    RV_CHECK_INIT("gex_System_QueryMyPosition");
    if (nbrhd_set_size) *nbrhd_set_size = rv_job.nbrhd_count;
    if (nbrhd_set_rank) *nbrhd_set_rank = rv_job.nbrhd_of[rv_job.rank];
    if (host_set_size) *host_set_size = rv_job.host_count;
    if (host_set_rank) *host_set_rank = rv_job.host_of[rv_job.rank];
}

uint64_t gex_System_QueryMaxThreads(void) { return 256; }

int gex_System_QueryHiddenAMConcurrencyLevel(void) { return GASNET_HIDDEN_AM_CONCURRENCY_LEVEL; }

/* Rivet has no progress threads to hand over: a client that deferred them (it must ask
 * once) gets count 0. Asking without GEX_FLAG_DEFER_THREADS is erroneous and, as the spec
 * says, returns GASNET_ERR_RESOURCE; bad arguments return GASNET_ERR_BAD_ARG. */
int gex_System_QueryProgressThreads(gex_Client_t client, unsigned int *count_p,
                                    const gex_ProgressThreadInfo_t **info_p, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_System_QueryProgressThreads");
    if (client != rv_client_g)
        rv_fatal("gex_System_QueryProgressThreads: client %p is not the client from "
                 "gex_Client_Init", (void *)client);
    if (flags)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_System_QueryProgressThreads: flags=0x%x "
                               "must be 0", (unsigned)flags);
    if (!count_p || !info_p)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_System_QueryProgressThreads: count_p and "
                               "info_p must not be NULL");
    if (!(client->flags & GEX_FLAG_DEFER_THREADS))
        return rv_error_return(GASNET_ERR_RESOURCE, "gex_System_QueryProgressThreads: the client "
                               "did not pass GEX_FLAG_DEFER_THREADS to gex_Client_Init");
    *count_p = 0;
    *info_p = NULL;
    return GASNET_OK;
}
