/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/tm_split.c: team construction and destruction (gex_TM_Split, gex_TM_Destroy,
 * gex_TM_Pair) and the job-wide team ids that route collective messages. */
#include "coll/coll_int.h"

#include <stdlib.h>
#include <string.h>

/* Scratch we advertise: our collectives run over AM and use none, but clients
 * (UPC++, GASNet's own tests) allocate and pass what we recommend. */
#define RV_TM_SCRATCH_SIZE 4096

/* A new team's id is (jobrank of its rank 0 + 1) << 16 | a counter private to
 * that process, which it contributed to the split: unique job-wide without any
 * extra agreement round. */
static uint32_t rv_tm_next_local = 1;

struct rv_split_ent {
    int        key;
    gex_Rank_t prank;
};

static int rv_split_cmp(const void *a, const void *b)
{
    const struct rv_split_ent *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return x->prank < y->prank ? -1 : x->prank > y->prank;
}

static struct rv_tm *rv_tm_new(struct rv_tm *parent, gex_Rank_t size, gex_Rank_t rank,
                               gex_Rank_t *jobranks, uint32_t id, void *scratch, size_t scratch_sz)
{
    struct rv_tm *tm = calloc(1, sizeof *tm);
    if (!tm) rv_fatal("out of memory creating a team");
    tm->client = parent->client;
    tm->ep = parent->ep;
    tm->rank = rank;
    tm->size = size;
    tm->jobranks = jobranks;
    tm->id = id;
    rv_coll_team_init(tm);
    tm->coll->scratch.gex_addr = scratch;
    tm->coll->scratch.gex_len = scratch_sz;
    return tm;
}

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent, int color, int key, void *scratch_addr,
                    size_t scratch_size, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_TM_Split");
    if (!parent) rv_fatal("gex_TM_Split: parent_tm is GEX_TM_INVALID");
    if (!parent->coll) rv_fatal("gex_TM_Split: parent_tm is a TM-pair");
    const gex_Flags_t query = GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if ((flags & query) == query)
        rv_fatal("gex_TM_Split: GEX_FLAG_TM_SCRATCH_SIZE_MIN and _RECOMMENDED are exclusive");
    if (flags & query) return new_tm_p ? RV_TM_SCRATCH_SIZE : 0; /* local query, not collective */

    /* Everyone learns everyone's (member?, colour, key, id counter) with one
     * all-reduce (OR over a vector where each rank fills only its own slot). */
    gex_Rank_t n = parent->size, me = parent->rank;
    uint32_t *mine = calloc((size_t)n * 4, sizeof *mine), *all = malloc((size_t)n * 4 * sizeof *all);
    if (!mine || !all) rv_fatal("gex_TM_Split: out of memory");
    mine[4 * me + 0] = new_tm_p ? 1 : 0;
    mine[4 * me + 1] = (uint32_t)color;
    mine[4 * me + 2] = (uint32_t)key;
    mine[4 * me + 3] = rv_tm_next_local;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(parent, all, mine, GEX_DT_U32, sizeof(uint32_t),
                                          (size_t)n * 4, GEX_OP_OR, NULL, NULL, 0));
    free(mine);
    if (!new_tm_p) {
        free(all);
        return 0;
    }

    struct rv_split_ent *ent = malloc((size_t)n * sizeof *ent);
    if (!ent) rv_fatal("gex_TM_Split: out of memory");
    gex_Rank_t cnt = 0;
    for (gex_Rank_t r = 0; r < n; r++)
        if (all[4 * r] && (int)all[4 * r + 1] == color)
            ent[cnt++] = (struct rv_split_ent){ (int)all[4 * r + 2], r };
    qsort(ent, cnt, sizeof *ent, rv_split_cmp);
    gex_Rank_t *jobranks = malloc((size_t)cnt * sizeof *jobranks), myrank = 0;
    if (!jobranks) rv_fatal("gex_TM_Split: out of memory");
    for (gex_Rank_t i = 0; i < cnt; i++) {
        jobranks[i] = rv_tm_jobrank(parent, ent[i].prank);
        if (ent[i].prank == me) myrank = i;
    }
    gex_Rank_t leader = ent[0].prank;
    uint32_t counter = all[4 * leader + 3];
    if (jobranks[0] >= 0xffff || counter > 0xffff)
        rv_fatal("gex_TM_Split: out of team ids (jobrank %u, team %u)", jobranks[0], counter);
    if (leader == me) rv_tm_next_local++;
    uint32_t id = ((jobranks[0] + 1) << 16) | counter;
    free(ent);
    free(all);
    struct rv_tm *tm = rv_tm_new(parent, cnt, myrank, jobranks, id,
                                 (flags & GEX_FLAG_TM_NO_SCRATCH) ? NULL : scratch_addr,
                                 (flags & GEX_FLAG_TM_NO_SCRATCH) ? 0 : scratch_size);
    *new_tm_p = tm;
    return tm->size;
}

/* Collective over parent; every caller passes the same member list 'args' (parent
 * ranks, or jobranks under GEX_FLAG_RANK_IS_JOBRANK); new team rank i is args[i].
 * Callers named in args get the team in new_tms[0]; the others pass num_new_tms 0. */
size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent, gex_EP_Location_t *args,
                     size_t numargs, gex_Addr_t *scratch_addrs, size_t scratch_size, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_TM_Create");
    if (!parent) rv_fatal("gex_TM_Create: parent_tm is GEX_TM_INVALID");
    if (!parent->coll) rv_fatal("gex_TM_Create: parent_tm is a TM-pair");
    const gex_Flags_t query = GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if ((flags & query) == query)
        rv_fatal("gex_TM_Create: GEX_FLAG_TM_SCRATCH_SIZE_MIN and _RECOMMENDED are exclusive");
    if (flags & query) return num_new_tms ? RV_TM_SCRATCH_SIZE : 0;
    if (!numargs || !args) rv_fatal("gex_TM_Create: empty member list");
    if (num_new_tms > 1) rv_fatal("gex_TM_Create: only one EP per process can be a member");

    gex_Rank_t *jobranks = malloc(numargs * sizeof *jobranks), myrank = GEX_RANK_INVALID;
    if (!jobranks) rv_fatal("gex_TM_Create: out of memory");
    for (size_t i = 0; i < numargs; i++) {
        gex_Rank_t r = args[i].gex_rank;
        if (args[i].gex_ep_index != 0)
            rv_fatal("gex_TM_Create: member %zu names EP index %u; only primordial EPs can be "
                     "members", i, args[i].gex_ep_index);
        if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
            if (r >= rv_job.size || gex_TM_TranslateJobrankToRank(parent, r) == GEX_RANK_INVALID)
                rv_fatal("gex_TM_Create: jobrank %u is not in the parent team", r);
            jobranks[i] = r;
        } else {
            jobranks[i] = rv_tm_check_rank("gex_TM_Create", parent, r);
        }
        if (jobranks[i] == rv_job.rank) myrank = (gex_Rank_t)i;
    }
    if ((myrank != GEX_RANK_INVALID) != (num_new_tms == 1))
        rv_fatal("gex_TM_Create: num_new_tms is %zu but this rank is %sin the member list",
                 num_new_tms, myrank == GEX_RANK_INVALID ? "not " : "");
    /* The id comes from the first member's counter, which it broadcasts over the parent. */
    gex_Rank_t leader = gex_TM_TranslateJobrankToRank(parent, jobranks[0]);
    uint32_t counter = rv_tm_next_local;
    gex_Event_Wait(gex_Coll_BroadcastNB(parent, leader, &counter, &counter, sizeof counter, 0));
    if (leader == parent->rank) rv_tm_next_local++;
    if (jobranks[0] >= 0xffff || counter > 0xffff)
        rv_fatal("gex_TM_Create: out of team ids (jobrank %u, team %u)", jobranks[0], counter);
    if (myrank == GEX_RANK_INVALID) {
        free(jobranks);
        return 0;
    }
    void *scratch = (flags & GEX_FLAG_TM_NO_SCRATCH) || !scratch_addrs ? NULL : scratch_addrs[0];
    new_tms[0] = rv_tm_new(parent, (gex_Rank_t)numargs, myrank, jobranks,
                           ((jobranks[0] + 1) << 16) | counter, scratch, scratch ? scratch_size : 0);
    return numargs;
}

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    RV_CHECK_INIT("gex_TM_Destroy");
    if (!tm) rv_fatal("gex_TM_Destroy: tm is GEX_TM_INVALID");
    if (!tm->coll) rv_fatal("gex_TM_Destroy: tm is a TM-pair");
    if (tm->id == 0) rv_fatal("gex_TM_Destroy: the primordial team cannot be destroyed");
    /* Unless the client promises quiet, make sure no member still sends for it. */
    if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED)) gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    int had = tm->coll->scratch.gex_addr != NULL;
    if (scratch_p && had) *scratch_p = tm->coll->scratch;
    rv_coll_team_fini(tm);
    free(tm->jobranks);
    free(tm);
    return had;
}

/* TM-pairs are cached: a client may ask for the same pair many times. */
static struct rv_tm   *rv_pairs[64];
static pthread_mutex_t rv_pairs_lock = PTHREAD_MUTEX_INITIALIZER;

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index)
{
    RV_CHECK_INIT("gex_TM_Pair");
    if (!local_ep) rv_fatal("gex_TM_Pair: local_ep is GEX_EP_INVALID");
    struct rv_tm *tm = NULL;
    pthread_mutex_lock(&rv_pairs_lock);
    unsigned i;
    for (i = 0; i < 64 && rv_pairs[i]; i++)
        if (rv_pairs[i]->ep == local_ep && rv_pairs[i]->pair_index == remote_ep_index) {
            tm = rv_pairs[i];
            break;
        }
    if (!tm) {
        tm = calloc(1, sizeof *tm);
        if (!tm) rv_fatal("gex_TM_Pair: out of memory");
        tm->client = local_ep->client;
        tm->ep = local_ep;
        tm->rank = rv_job.rank;
        tm->size = rv_job.size;
        tm->id = UINT32_MAX;
        tm->is_pair = 1;
        tm->pair_index = remote_ep_index;
        if (i < 64) rv_pairs[i] = tm;
    }
    pthread_mutex_unlock(&rv_pairs_lock);
    return tm;
}
