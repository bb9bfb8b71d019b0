/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/hier.c: two-level (neighbourhood-aware) barrier, broadcast and reductions on teams
 * that span several neighbourhoods: the members of a neighbourhood meet at its leader (its
 * lowest team rank), the usual algorithm runs over the leaders only, and each leader hands
 * the result back to its members. RIVET_COLL_HIER chooses (docs/collectives.md). */
#include "coll/coll_int.h"

#include <stdlib.h>
#include <string.h>

struct rv_coll_hier *rv_coll_hier_new(const struct rv_tm *tm)
{
    gex_Rank_t n = tm->size;
    struct rv_coll_hier *h = calloc(1, sizeof *h);
    gex_Rank_t *idx = malloc(rv_job.nbrhd_count * sizeof *idx); /* neighbourhood -> leader */
    if (!h || !idx || !(h->leaders = malloc(n * sizeof *h->leaders)) ||
        !(h->lof = malloc(n * sizeof *h->lof)))
        rv_fatal("out of memory creating team state");
    for (uint32_t b = 0; b < rv_job.nbrhd_count; b++) idx[b] = GEX_RANK_INVALID;
    const uint32_t mine = rv_job.nbrhd_of[rv_job.rank];
    h->contig = 1;
    for (gex_Rank_t r = 0; r < n; r++) {
        uint32_t b = rv_job.nbrhd_of[rv_tm_jobrank(tm, r)];
        if (idx[b] == GEX_RANK_INVALID) {
            idx[b] = h->nl;
            h->leaders[h->nl++] = r;
        } else if (h->lof[r - 1] != idx[b]) {
            h->contig = 0; /* the neighbourhood's members are not consecutive */
        }
        h->lof[r] = idx[b];
        h->nm += b == mine;
    }
    free(idx);
    if (!(h->members = malloc(h->nm * sizeof *h->members)))
        rv_fatal("out of memory creating team state");
    gex_Rank_t k = 0;
    for (gex_Rank_t r = 0; r < n; r++) {
        if (rv_job.nbrhd_of[rv_tm_jobrank(tm, r)] != mine) continue;
        if (r == tm->rank) h->mi = k;
        h->members[k++] = r;
    }
    while ((1ull << h->lrounds) < h->nl) h->lrounds++;
    h->usable = h->nl > 1 && h->nl < n;
    h->hosts = 0;
    for (gex_Rank_t r = 1; r < n && !h->hosts; r++)
        h->hosts = rv_job.host_of[rv_tm_jobrank(tm, r)] != rv_job.host_of[rv_tm_jobrank(tm, 0)];
    return h;
}

void rv_coll_hier_free(struct rv_coll_hier *h)
{
    if (!h) return;
    free(h->leaders);
    free(h->lof);
    free(h->members);
    free(h);
}

/* RIVET_COLL_HIER: 1 always (where the team allows it), 0 never, -1 auto: when the team
 * spans several hosts (one host split by GASNET_SUPERNODE_MAXSIZE has no cheaper inner level). */
static int rv_coll_hier_mode = -1;

void rv_coll_hier_config(void)
{
    const char *m = rv_cfg.COLL_HIER;
    if (!strcmp(m, "1")) rv_coll_hier_mode = 1;
    else if (!strcmp(m, "0")) rv_coll_hier_mode = 0;
    else if (!strcmp(m, "auto")) rv_coll_hier_mode = -1;
    else rv_fatal("environment: RIVET_COLL_HIER=%s: expected auto, 0 or 1", m);
}

static int rv_coll_hier_wanted(const struct rv_coll_hier *h)
{
    return rv_coll_hier_mode < 0 ? h->hosts : rv_coll_hier_mode;
}

static atomic_uint rv_coll_hier_said[RV_COLL_KINDS];

int rv_coll_hier_begin(struct rv_coll_op *o)
{
    const struct rv_coll_hier *h = o->ct->hier;
    if (!h || !h->usable || !rv_coll_hier_wanted(h)) return 0;
    /* GEX_OP_USER_NC: combining inside neighbourhoods first keeps the rank order only if
     * each neighbourhood's members are consecutive team ranks */
    if (o->sig.op == GEX_OP_USER_NC && !h->contig) return 0;
    o->me = h->mi == 0 ? h->lof[o->tm->rank] : GEX_RANK_INVALID;
    o->n = h->nl;
    o->rounds = h->lrounds;
    o->map = h->leaders;
    unsigned kind = o->sig.kind;
    if (kind < RV_COLL_KINDS && !atomic_exchange(&rv_coll_hier_said[kind], 1))
        rv_verbose(1, "coll: %s on team 0x%x runs in two levels: %u neighbourhoods, %u member(s) "
                   "in mine%s", rv_coll_kind_name(kind), o->tid, h->nl, h->nm,
                   h->mi ? "" : ", which this rank leads");
    return 1;
}

/* Bytes each member contributes or receives. */
static size_t rv_hier_bytes(const struct rv_coll_op *o)
{
    return o->sig.kind == RV_COLL_BCAST || o->sig.kind == RV_COLL_REDUCE_ONE ||
                   o->sig.kind == RV_COLL_REDUCE_ALL
               ? o->nbytes
               : 0;
}

static int rv_hier_is_reduce(const struct rv_coll_op *o)
{
    return o->sig.kind == RV_COLL_REDUCE_ONE || o->sig.kind == RV_COLL_REDUCE_ALL;
}

/* Leader, before the algorithm over the leaders: collect the neighbourhood. */
static int rv_hier_gather(struct rv_coll_op *o, const struct rv_coll_hier *h)
{
    gex_Rank_t me = o->tm->rank, root = o->sig.root;
    size_t nb = rv_hier_bytes(o);
    if (o->sig.kind == RV_COLL_BCAST) {
        /* a root that does not lead sends the payload to its leader */
        if (root != me && h->lof[root] == h->lof[me])
            return rv_coll_recv(o, RV_STEP_NB_ROOT, o->dst, nb, nb, 1);
        return 1;
    }
    if (h->nm == 1) return 1;
    if (!rv_hier_is_reduce(o)) return rv_coll_recv(o, RV_STEP_NB_IN, NULL, 0, 0, h->nm - 1);
    /* member i's contribution lands in slot i - 1; combined in rank order */
    unsigned char *slots = o->mem[2];
    if (!rv_coll_recv(o, RV_STEP_NB_IN, slots, (h->nm - 1) * nb, (h->nm - 1) * nb, h->nm - 1))
        return 0;
    unsigned char *cur = o->acc;
    for (gex_Rank_t i = 1; i < h->nm; i++) {
        unsigned char *slot = slots + (size_t)(i - 1) * nb;
        rv_coll_combine(o, cur, slot, o->dt_cnt);
        cur = slot;
    }
    memcpy(o->acc, cur, nb);
    return 1;
}

/* Leader, after the algorithm over the leaders: hand the result to the members. */
static int rv_hier_scatter(struct rv_coll_op *o, const struct rv_coll_hier *h)
{
    gex_Rank_t me = o->tm->rank, root = o->sig.root;
    size_t nb = rv_hier_bytes(o);
    if (o->sig.kind == RV_COLL_REDUCE_ONE) {
        if (!o->hk && root != me && h->lof[root] == h->lof[me])
            rv_coll_queue_tm(o, root, RV_STEP_NB_OUT, o->dst, nb, 0);
        o->hk = h->nm;
        return rv_coll_pump(o);
    }
    if (!o->hk) o->hk = 1;
    for (;;) {
        if (!rv_coll_pump(o)) return 0;
        if (o->hk >= h->nm) return 1;
        for (; o->hk < h->nm && o->nsend < RV_COLL_MAXSEND; o->hk++)
            if (o->sig.kind != RV_COLL_BCAST || h->members[o->hk] != root)
                rv_coll_queue_tm(o, h->members[o->hk], RV_STEP_NB_OUT, o->dst, nb, 0);
    }
}

static int rv_hier_advance(struct rv_coll_op *o)
{
    const struct rv_coll_hier *h = o->ct->hier;
    gex_Rank_t me = o->tm->rank, root = o->sig.root;
    size_t nb = rv_hier_bytes(o);
    for (;;) {
        switch (o->hstate) {
        case 0:
            if (h->mi) { /* a member: to the leader */
                if (o->sig.kind == RV_COLL_BCAST) {
                    if (me == root) rv_coll_queue_tm(o, h->members[0], RV_STEP_NB_ROOT, o->dst, nb, 0);
                } else {
                    rv_coll_queue_tm(o, h->members[0], RV_STEP_NB_IN, rv_hier_is_reduce(o) ? o->acc : NULL,
                                     nb, (uint64_t)(h->mi - 1) * nb);
                }
                o->hstate = 10;
                break;
            }
            if (!rv_hier_gather(o, h)) return 0;
            o->hstate = 1;
            break;
        case 1: /* the algorithm over the leaders */
            if (!o->inner(o)) return 0;
            o->hstate = 2;
            break;
        case 2:
            return rv_hier_scatter(o, h);
        case 10: /* member: sent, then wait for the result */
            if (!rv_coll_pump(o)) return 0;
            o->hstate = 11;
            break;
        default:
            if (o->sig.kind == RV_COLL_BCAST && me == root) return 1;
            if (o->sig.kind == RV_COLL_REDUCE_ONE && me != root) return 1;
            return rv_coll_recv(o, RV_STEP_NB_OUT, nb ? o->dst : NULL, nb, nb, 1);
        }
    }
}

void rv_coll_hier_wrap(struct rv_coll_op *o)
{
    const struct rv_coll_hier *h = o->ct->hier;
    o->inner = o->advance;
    o->advance = rv_hier_advance;
    if (!h->mi && h->nm > 1 && rv_hier_is_reduce(o))
        o->mem[2] = rv_coll_mem_get((size_t)(h->nm - 1) * o->nbytes);
}
