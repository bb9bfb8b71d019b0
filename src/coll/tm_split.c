/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/tm_split.c: team construction and destruction (gex_TM_Split, gex_TM_Create,
 * gex_TM_Destroy, gex_TM_Pair): argument and scratch checks, the exchanges over the
 * parent team, and the job-wide team ids that route collective messages. */
#include "coll/coll_int.h"

#include <stdlib.h>
#include <string.h>

/* Rivet's collectives do not use the scratch space (docs/collectives.md says why), so
 * the recommendation is one page: the spec requires a non-zero size. */
#define RV_TM_SCRATCH_RECOMMENDED 4096

/* ---- team ids ----------------------------------------------------------------
 * A team's id is (jobrank of its rank 0 + 1) << 16 | a counter private to that process,
 * which it contributed to the construction's exchange: unique job-wide with no extra
 * agreement. Counters of destroyed teams are reused. Each construction reserves one
 * counter up front and gives it back unless this process turns out to lead the team. */
static uint32_t        rv_tm_next = 1;
static uint32_t       *rv_tm_pool;
static size_t          rv_tm_npool, rv_tm_cap;
static pthread_mutex_t rv_tm_lock = PTHREAD_MUTEX_INITIALIZER;

static uint32_t rv_tm_counter_get(void)
{
    pthread_mutex_lock(&rv_tm_lock);
    uint32_t c = rv_tm_npool ? rv_tm_pool[--rv_tm_npool] : rv_tm_next++;
    pthread_mutex_unlock(&rv_tm_lock);
    return c;
}

static void rv_tm_counter_put(uint32_t c)
{
    pthread_mutex_lock(&rv_tm_lock);
    if (rv_tm_npool == rv_tm_cap) {
        size_t cap = rv_tm_cap ? 2 * rv_tm_cap : 16;
        uint32_t *p = realloc(rv_tm_pool, cap * sizeof *p);
        if (!p) rv_fatal("out of memory recycling a team id");
        rv_tm_pool = p;
        rv_tm_cap = cap;
    }
    rv_tm_pool[rv_tm_npool++] = c;
    pthread_mutex_unlock(&rv_tm_lock);
}

static uint32_t rv_tm_id(const char *call, gex_Rank_t leader_jobrank, uint32_t counter)
{
    if (leader_jobrank >= 0xffff || counter > 0xffff)
        rv_fatal("%s: out of team ids (jobrank %u leads %u teams; at most 65535 live teams per "
                 "leader and 65534 leading jobranks)", call, leader_jobrank, counter);
    return (leader_jobrank + 1) << 16 | counter;
}

/* ---- common checks --------------------------------------------------------------- */

static void rv_tm_check_parent(const char *call, gex_TM_t parent)
{
    RV_CHECK_INIT(call);
    if (!parent) rv_fatal("%s: parent_tm is GEX_TM_INVALID", call);
    if (!parent->coll) rv_fatal("%s: parent_tm is a TM-pair; teams are built from teams", call);
}

/* Handles the scratch-size query flags; returns 1 (and *size) when this is a query. */
static int rv_tm_query(const char *call, gex_TM_t parent, gex_Flags_t flags, int member, size_t *size)
{
    const gex_Flags_t q = GEX_FLAG_TM_SCRATCH_SIZE_MIN | GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED;
    if ((flags & q) == q)
        rv_fatal("%s: GEX_FLAG_TM_SCRATCH_SIZE_MIN and GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED are "
                 "mutually exclusive", call);
    if (flags & GEX_FLAG_TM_SCRATCH_SIZE_MIN) {
        static atomic_int warned;
        if (parent->rank == 0 && !atomic_exchange(&warned, 1))
            rv_warn("%s: GEX_FLAG_TM_SCRATCH_SIZE_MIN is deprecated (spec 0.11); use "
                    "GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED", call);
    }
    if (!(flags & q)) return 0;
    *size = member ? RV_TM_SCRATCH_RECOMMENDED : 0;
    return 1;
}

/* The scratch space must lie in the bound segment of the parent's endpoint ('addr' is an
 * offset into it under GEX_FLAG_SCRATCH_SEG_OFFSET). */
static void rv_tm_check_scratch(const char *call, gex_TM_t parent, void *addr, size_t size,
                                gex_Flags_t flags)
{
    if (!size)
        rv_fatal("%s: scratch_size is 0; pass GEX_FLAG_TM_NO_SCRATCH to create a team without "
                 "scratch space", call);
    const struct rv_segment *seg = parent->ep->seg;
    if (!seg)
        rv_fatal("%s: scratch space needs a bound segment (or pass GEX_FLAG_TM_NO_SCRATCH)", call);
    uintptr_t a = (uintptr_t)addr, base = (uintptr_t)seg->addr;
    if (flags & GEX_FLAG_SCRATCH_SEG_OFFSET) a += base;
    if (a < base || size > seg->size || a - base > seg->size - size)
        rv_fatal("%s: scratch space [%p, %p) is not inside the bound segment [%p, %p)", call,
                 (void *)a, (void *)(a + size), seg->addr, (void *)(base + seg->size));
}

static struct rv_tm *rv_tm_new(struct rv_tm *parent, gex_Rank_t size, gex_Rank_t rank,
                               gex_Rank_t *jobranks, uint32_t id, gex_Flags_t flags, void *scratch,
                               size_t scratch_sz)
{
    struct rv_tm *tm = rv_hot_calloc(1, sizeof *tm, "creating a team");
    /* ranks 0..size-1 of the job in order: no map (the identity), so the inline Put/Get
     * index the segment table directly (rma_flat) */
    gex_Rank_t r = 0;
    while (r < size && jobranks[r] == r) r++;
    if (r == size) {
        free(jobranks);
        jobranks = NULL;
    }
    tm->rma_map = parent->client->tm0->rma_map; /* inline Put/Get: rank 0's table */
    tm->client = parent->client;
    tm->ep = parent->ep;
    tm->flags = flags;
    tm->rank = rank;
    tm->size = size;
    tm->jobranks = jobranks;
    rv_tm_flat_track(tm); /* now, or when the table appears (attach, bind/publish) */
    tm->id = id;
    rv_coll_team_init(tm);
    if (scratch_sz) {
        tm->coll->has_scratch = 1;
        tm->coll->scratch.gex_addr = scratch;
        tm->coll->scratch.gex_len = scratch_sz;
    }
    return tm;
}

/* ---- gex_TM_Split --------------------------------------------------------------- */

struct rv_split_info { /* one per parent rank, exchanged by an allgather */
    uint32_t member, color, key, counter;
    uint32_t noscratch, pad;
    uint64_t scratch_size;
};

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

size_t gex_TM_Split(gex_TM_t *new_tm_p, gex_TM_t parent, int color, int key, void *scratch_addr,
                    size_t scratch_size, gex_Flags_t flags)
{
    static const char call[] = "gex_TM_Split";
    rv_tm_check_parent(call, parent);
    size_t qsize;
    if (rv_tm_query(call, parent, flags, new_tm_p != NULL, &qsize)) return qsize;
    if (flags & (GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_SYMMETRIC_SCRATCH))
        rv_fatal("%s: GEX_FLAG_TM_GLOBAL_SCRATCH and GEX_FLAG_TM_SYMMETRIC_SCRATCH are for "
                 "gex_TM_Create only", call);
    if ((flags & GEX_FLAG_TM_LOCAL_SCRATCH) && (flags & GEX_FLAG_TM_NO_SCRATCH))
        rv_fatal("%s: GEX_FLAG_TM_LOCAL_SCRATCH and GEX_FLAG_TM_NO_SCRATCH are mutually exclusive",
                 call);
    const int noscratch = (flags & GEX_FLAG_TM_NO_SCRATCH) != 0;
    if (new_tm_p) {
        if (color < 0) rv_fatal("%s: color %d is negative", call, color);
        if (!noscratch) rv_tm_check_scratch(call, parent, scratch_addr, scratch_size, flags);
    }

    /* everyone learns everyone's (member?, colour, key, id counter, scratch) */
    gex_Rank_t n = parent->size, me = parent->rank;
    struct rv_split_info mine = {
        .member = new_tm_p != NULL,
        .color = (uint32_t)color,
        .key = (uint32_t)key,
        .counter = rv_tm_counter_get(),
        .noscratch = (uint32_t)noscratch,
        .scratch_size = noscratch ? 0 : scratch_size,
    };
    struct rv_split_info *all = malloc((size_t)n * sizeof *all);
    struct rv_split_ent *ent = malloc((size_t)n * sizeof *ent);
    if (!all || !ent) rv_fatal("%s: out of memory", call);
    rv_coll_allgather_run(call, parent, RV_COLL_TM_SPLIT, all, &mine, sizeof mine);
    gex_Rank_t cnt = 0;
    if (new_tm_p)
        for (gex_Rank_t r = 0; r < n; r++)
            if (all[r].member && all[r].color == (uint32_t)color)
                ent[cnt++] = (struct rv_split_ent){ (int)all[r].key, r };
    if (!cnt) {
        rv_tm_counter_put(mine.counter);
        free(all);
        free(ent);
        return 0;
    }
    qsort(ent, cnt, sizeof *ent, rv_split_cmp);
    gex_Rank_t *jobranks = malloc((size_t)cnt * sizeof *jobranks), myrank = 0;
    if (!jobranks) rv_fatal("%s: out of memory", call);
    for (gex_Rank_t i = 0; i < cnt; i++) {
        const struct rv_split_info *x = &all[ent[i].prank];
        jobranks[i] = rv_tm_jobrank(parent, ent[i].prank);
        if (ent[i].prank == me) myrank = i;
        if (x->noscratch != mine.noscratch || x->scratch_size != mine.scratch_size)
            rv_fatal("%s: members of the new team (color %d) disagree: parent rank %u passed %s "
                     "scratch_size=%llu, parent rank %u passed %s scratch_size=%llu", call, color, me,
                     noscratch ? "GEX_FLAG_TM_NO_SCRATCH," : "", (unsigned long long)mine.scratch_size,
                     ent[i].prank, x->noscratch ? "GEX_FLAG_TM_NO_SCRATCH," : "",
                     (unsigned long long)x->scratch_size);
    }
    gex_Rank_t leader = ent[0].prank;
    uint32_t id = rv_tm_id(call, jobranks[0], all[leader].counter);
    if (leader != me) rv_tm_counter_put(mine.counter);
    free(ent);
    free(all);
    struct rv_tm *tm = rv_tm_new(parent, cnt, myrank, jobranks, id, flags,
                                 noscratch ? NULL : scratch_addr, noscratch ? 0 : scratch_size);
    tm->coll->led = leader == me;
    tm->coll->counter = mine.counter;
    *new_tm_p = tm;
    return tm->size; /* the spec leaves it undefined; the new team's size is handy */
}

/* ---- gex_TM_Create ---------------------------------------------------------------- */

struct rv_create_info { /* one per parent rank */
    uint32_t counter, member;
    uint64_t numargs, hash, scratch_size;
};

size_t gex_TM_Create(gex_TM_t *new_tms, size_t num_new_tms, gex_TM_t parent, gex_EP_Location_t *args,
                     size_t numargs, gex_Addr_t *scratch_addrs, size_t scratch_size, gex_Flags_t flags)
{
    static const char call[] = "gex_TM_Create";
    rv_tm_check_parent(call, parent);
    size_t qsize;
    if (rv_tm_query(call, parent, flags, numargs != 0, &qsize)) return qsize;
    const gex_Flags_t modes = GEX_FLAG_TM_GLOBAL_SCRATCH | GEX_FLAG_TM_LOCAL_SCRATCH |
                              GEX_FLAG_TM_SYMMETRIC_SCRATCH | GEX_FLAG_TM_NO_SCRATCH;
    gex_Flags_t mode = flags & modes;
    if (mode & (mode - 1))
        rv_fatal("%s: flags 0x%x name more than one of GEX_FLAG_TM_{GLOBAL,LOCAL,SYMMETRIC,NO}_SCRATCH",
                 call, (unsigned)flags);
    if (!mode) mode = GEX_FLAG_TM_LOCAL_SCRATCH; /* as for gex_TM_Split */
    if (numargs && !args) rv_fatal("%s: args is NULL with numargs=%zu", call, numargs);
    if (numargs > rv_job.size)
        rv_fatal("%s: numargs=%zu exceeds the job size %u (each process has one endpoint)", call,
                 numargs, rv_job.size);

    /* the member list, as jobranks; am I in it? */
    gex_Rank_t *jobranks = NULL, myrank = GEX_RANK_INVALID;
    uint64_t hash = 1469598103934665603ull ^ numargs;
    if (numargs) {
        jobranks = malloc(numargs * sizeof *jobranks);
        unsigned char *seen = calloc(rv_job.size, 1);
        if (!jobranks || !seen) rv_fatal("%s: out of memory", call);
        for (size_t i = 0; i < numargs; i++) {
            gex_Rank_t r = args[i].gex_rank;
            if (args[i].gex_ep_index != 0)
                rv_fatal("%s: args[%zu] names EP index %u; only primordial endpoints (index 0) can "
                         "be team members", call, i, (unsigned)args[i].gex_ep_index);
            if (flags & GEX_FLAG_RANK_IS_JOBRANK) {
                if (r >= rv_job.size) rv_fatal("%s: args[%zu]: jobrank %u is out of range", call, i, r);
                if (gex_TM_TranslateJobrankToRank(parent, r) == GEX_RANK_INVALID)
                    rv_fatal("%s: args[%zu]: jobrank %u is not a member of parent_tm", call, i, r);
                jobranks[i] = r;
            } else {
                jobranks[i] = rv_tm_check_rank(call, parent, r);
            }
            if (seen[jobranks[i]]++)
                rv_fatal("%s: args[%zu]: jobrank %u appears twice in the member list", call, i,
                         jobranks[i]);
            if (jobranks[i] == rv_job.rank) myrank = (gex_Rank_t)i;
            hash = (hash ^ jobranks[i]) * 1099511628211ull;
        }
        free(seen);
    }
    const int member = myrank != GEX_RANK_INVALID;
    void *scratch = NULL;
    if (member) {
        if (!num_new_tms || !new_tms)
            rv_fatal("%s: this rank is in the member list but num_new_tms is %zu (new_tms %p)", call,
                     num_new_tms, (void *)new_tms);
        if (mode != GEX_FLAG_TM_NO_SCRATCH) {
            if (!scratch_addrs) rv_fatal("%s: scratch_addrs is NULL (or pass GEX_FLAG_TM_NO_SCRATCH)", call);
            scratch = scratch_addrs[mode == GEX_FLAG_TM_GLOBAL_SCRATCH ? myrank : 0];
            rv_tm_check_scratch(call, parent, scratch, scratch_size, flags);
        }
    }

    /* one exchange over the parent: every member learns the leader's id counter and
     * checks that the other members passed the same list and scratch size */
    gex_Rank_t n = parent->size;
    struct rv_create_info mine = {
        .counter = rv_tm_counter_get(),
        .member = (uint32_t)member,
        .numargs = numargs,
        .hash = hash,
        .scratch_size = mode == GEX_FLAG_TM_NO_SCRATCH ? 0 : scratch_size,
    };
    struct rv_create_info *all = malloc((size_t)n * sizeof *all);
    if (!all) rv_fatal("%s: out of memory", call);
    rv_coll_allgather_run(call, parent, RV_COLL_TM_CREATE, all, &mine, sizeof mine);
    if (!member) {
        rv_tm_counter_put(mine.counter);
        free(all);
        free(jobranks);
        return 0;
    }
    for (size_t i = 0; i < numargs; i++) {
        const struct rv_create_info *x = &all[gex_TM_TranslateJobrankToRank(parent, jobranks[i])];
        if (!x->member)
            rv_fatal("%s: jobrank %u is in the member list passed by jobrank %u but did not pass a "
                     "list naming itself (it passed numargs=%llu)", call, jobranks[i], rv_job.rank,
                     (unsigned long long)x->numargs);
        if (x->numargs != numargs || x->hash != hash)
            rv_fatal("%s: members disagree on the member list: jobrank %u passed numargs=%zu, "
                     "jobrank %u passed numargs=%llu%s", call, rv_job.rank, numargs, jobranks[i],
                     (unsigned long long)x->numargs, x->numargs == numargs ? " with other members" : "");
        if (x->scratch_size != mine.scratch_size)
            rv_fatal("%s: members disagree on scratch_size: jobrank %u passed %llu, jobrank %u "
                     "passed %llu", call, rv_job.rank, (unsigned long long)mine.scratch_size,
                     jobranks[i], (unsigned long long)x->scratch_size);
    }
    gex_Rank_t leader = gex_TM_TranslateJobrankToRank(parent, jobranks[0]);
    uint32_t id = rv_tm_id(call, jobranks[0], all[leader].counter);
    int led = leader == parent->rank;
    if (!led) rv_tm_counter_put(mine.counter);
    free(all);
    struct rv_tm *tm = rv_tm_new(parent, (gex_Rank_t)numargs, myrank, jobranks, id, flags, scratch,
                                 mode == GEX_FLAG_TM_NO_SCRATCH ? 0 : scratch_size);
    tm->coll->led = led;
    tm->coll->counter = mine.counter;
    new_tms[0] = tm;
    return numargs; /* the spec leaves it undefined; the new team's size is handy */
}

/* ---- gex_TM_Destroy --------------------------------------------------------------- */

int gex_TM_Destroy(gex_TM_t tm, gex_Memvec_t *scratch_p, gex_Flags_t flags)
{
    static const char call[] = "gex_TM_Destroy";
    RV_CHECK_INIT(call);
    if (!tm) rv_fatal("%s: tm is GEX_TM_INVALID", call);
    if (!tm->coll) rv_fatal("%s: tm is a TM-pair", call);
    if (tm->id == 0) rv_fatal("%s: the primordial team cannot be destroyed", call);
    if (flags & ~GEX_FLAG_GLOBALLY_QUIESCED)
        rv_fatal("%s: flags 0x%x: only GEX_FLAG_GLOBALLY_QUIESCED is valid", call, (unsigned)flags);
    struct rv_coll_team *ct = tm->coll;
    unsigned active = rv_coll_team_active(ct);
    if (active)
        rv_fatal("%s: %u collective(s) on this team are not complete here; wait for them first",
                 call, active);
    /* Unless the client promises that nothing is in flight, make sure no member still
     * sends for this team before its id can be reused. */
    if (!(flags & GEX_FLAG_GLOBALLY_QUIESCED))
        gex_Event_Wait(rv_coll_barrier_kind(call, tm, RV_COLL_TM_DESTROY));
    int ret = 0;
    if (scratch_p && ct->has_scratch) {
        *scratch_p = ct->scratch;
        ret = 1;
    }
    if (ct->led) rv_tm_counter_put(ct->counter);
    rv_coll_team_fini(tm);
    rv_tm_flat_untrack(tm);
    free(tm->jobranks);
    rv_hot_free(tm);
    return ret;
}

/* ---- gex_TM_Pair ------------------------------------------------------------------ */

/* TM-pairs are cached per local endpoint (a client may ask for the same pair many times) and
 * freed with it (gex_EP_Destroy). */
static pthread_mutex_t rv_pairs_lock = PTHREAD_MUTEX_INITIALIZER;

gex_TM_t gex_TM_Pair(gex_EP_t local_ep, gex_EP_Index_t remote_ep_index)
{
    RV_CHECK_INIT("gex_TM_Pair");
    if (!local_ep) rv_fatal("gex_TM_Pair: local_ep is GEX_EP_INVALID");
    if (local_ep->index >= GASNET_MAXEPS || rv_eps[local_ep->index] != local_ep)
        rv_fatal("gex_TM_Pair: local_ep %p is not a live endpoint of this process",
                 (void *)local_ep);
    if (remote_ep_index >= GASNET_MAXEPS)
        rv_fatal("gex_TM_Pair: remote_ep_index=%u is not below GASNET_MAXEPS (%d)",
                 remote_ep_index, GASNET_MAXEPS);
    pthread_mutex_lock(&rv_pairs_lock);
    struct rv_tm *tm = local_ep->pairs[remote_ep_index];
    if (!tm) {
        tm = rv_hot_calloc(1, sizeof *tm, "gex_TM_Pair");
        /* inline Put/Get copy through the remote index's table (unless RIVET_RMA=ref) */
        if (local_ep->client->tm0->rma_map)
            tm->rma_map = remote_ep_index ? &rv_epsegs[remote_ep_index] : &rv_segmap;
        tm->client = local_ep->client;
        tm->ep = local_ep;
        tm->rank = rv_job.rank;
        tm->size = rv_job.size;
        tm->id = UINT32_MAX;
        tm->is_pair = 1;
        tm->pair_index = remote_ep_index;
        rv_tm_flat_track(tm);
        local_ep->pairs[remote_ep_index] = tm;
    }
    pthread_mutex_unlock(&rv_pairs_lock);
    return tm;
}
