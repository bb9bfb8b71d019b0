/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/gather.c: Rivet's data-movement collectives beyond GASNet-EX (rivet.h):
 * rivet_Coll_GatherNB, rivet_Coll_AllgatherNB, rivet_Coll_AlltoallNB, the scatter of the
 * GASNet-1 collectives, and the blocking allgather team construction uses. */
#include "coll/coll_int.h"

#include <string.h>

/* Per-rank contributions at least this large go straight to the root: forwarding them
 * up a tree would copy them again at every level for no gain in latency. */
#define RV_GATHER_DIRECT 8192

static void rv_gather_check(const char *call, gex_TM_t tm, const void *dst, const void *src,
                            size_t nbytes, int need_dst)
{
    if (!nbytes) return;
    if (!src) rv_fatal("%s: src is NULL", call);
    if (need_dst && !dst) rv_fatal("%s: dst is NULL", call);
    if (tm->size && nbytes > SIZE_MAX / tm->size) rv_fatal("%s: size * nbytes overflows", call);
}

/* ---- gather -------------------------------------------------------------------- */

/* Every rank sends its block to the root, which receives them all in one step. */
static int rv_gather_direct(struct rv_coll_op *o)
{
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    size_t nb = o->nbytes;
    if (me != o->root) {
        if (!o->state) {
            rv_coll_queue(o, o->root, RV_STEP_DIRECT, o->src, nb, (uint64_t)me * nb);
            o->state = 1;
        }
        return rv_coll_pump(o);
    }
    return rv_coll_recv(o, RV_STEP_DIRECT, o->dst, (uint64_t)n * nb, (uint64_t)(n - 1) * nb, n - 1);
}

/* Binomial tree over virtual ranks vr = rank - root: vr collects the blocks of its
 * subtree [vr, vr + min(lowbit(vr), size - vr)) in acc, in virtual-rank order, and sends
 * them to vr - lowbit(vr) in one piece. The root finally rotates them into rank order. */
static int rv_gather_tree(struct rv_coll_op *o)
{
    uint64_t n = o->tm->size, vr = o->vr, nb = o->nbytes;
    uint64_t sub = vr ? ((vr & -vr) < n - vr ? (vr & -vr) : n - vr) : n;
    while (o->k < o->ct->rounds) {
        uint64_t m = 1ull << o->k;
        if (vr & m) {
            if (!o->bstate) {
                rv_coll_queue(o, (gex_Rank_t)((vr - m + o->root) % n), RV_STEP_MAIN + o->k, o->acc,
                              (size_t)(sub * nb), m * nb);
                o->bstate = 1;
            }
            return rv_coll_pump(o);
        }
        if (vr + m < n) {
            uint64_t cnt = m < n - vr - m ? m : n - vr - m;
            if (!rv_coll_recv(o, RV_STEP_MAIN + o->k, o->acc, sub * nb, cnt * nb, 1)) return 0;
        }
        o->k++;
    }
    /* the root: virtual rank v is rank (v + root) % n */
    if (o->acc != (unsigned char *)o->dst) {
        uint64_t head = (n - o->root) * nb;
        memcpy((unsigned char *)o->dst + o->root * nb, o->acc, (size_t)head);
        memcpy(o->dst, o->acc + head, (size_t)(o->root * nb));
    }
    return 1;
}

/* This rank's block where the algorithm starts from (when the data may be read). */
static void rv_gather_prep(struct rv_coll_op *o)
{
    gex_Rank_t me = o->tm->rank;
    size_t nb = o->nbytes;
    if (!nb) return;
    if (o->large) { /* direct */
        unsigned char *mine = (unsigned char *)o->dst + (size_t)me * nb;
        if (me == o->root && (const unsigned char *)o->src != mine) memmove(mine, o->src, nb);
    } else if (o->acc != o->src) {
        memmove(o->acc, o->src, nb);
    }
}

struct rv_coll_op *rv_coll_gather_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                      const void *src, size_t nbytes, uint32_t sigop)
{
    struct rv_coll_sig sig = { .kind = RV_COLL_GATHER, .root = root, .nbytes = nbytes, .op = sigop };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, rv_gather_tree);
    gex_Rank_t n = tm->size, me = tm->rank;
    rv_gather_check(call, tm, dst, src, nbytes, me == root);
    o->vr = (me + n - root) % n;
    o->prep = rv_gather_prep;
    /* straight to the root also on a host with more ranks than cores, where every hop of a
     * tree may wait for a descheduled rank (as broadcasts do, bcast.c) */
    if (nbytes >= RV_GATHER_DIRECT || (n > 2 && o->ct->one_nbrhd && rv_job.oversubscribed)) {
        o->advance = rv_gather_direct;
        o->large = 1;
    } else {
        uint64_t vr = o->vr, sub = vr ? ((vr & -vr) < n - vr ? (vr & -vr) : n - vr) : n;
        if (me == root && root == 0) o->acc = dst;
        else if (sub == 1) o->acc = (unsigned char *)(uintptr_t)src; /* a leaf sends src itself */
        else o->acc = o->mem[0] = rv_coll_mem_get((size_t)(sub * nbytes));
    }
    return o;
}

gex_Event_t rivet_Coll_GatherNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                size_t nbytes, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_op_start(rv_coll_gather_new("rivet_Coll_GatherNB", tm, root, dst, src, nbytes, 0));
}

/* ---- scatter (GASNet-1 gasnet_coll_scatter) ----------------------------------------- */

/* The root sends every rank its block straight (one step; the root's own block was
 * copied by prep); everyone else receives one block. */
static int rv_scatter_advance(struct rv_coll_op *o)
{
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    size_t nb = o->nbytes;
    if (me != o->root) return rv_coll_recv(o, RV_STEP_DIRECT, o->dst, nb, nb, 1);
    for (;;) {
        if (!rv_coll_pump(o)) return 0;
        if (o->k >= n) return 1;
        while (o->k < n && o->nsend < RV_COLL_MAXSEND) {
            gex_Rank_t to = (gex_Rank_t)(((uint64_t)me + o->k) % n);
            rv_coll_queue(o, to, RV_STEP_DIRECT, (const unsigned char *)o->src + (size_t)to * nb, nb, 0);
            o->k++;
        }
    }
}

static void rv_scatter_prep(struct rv_coll_op *o)
{
    gex_Rank_t me = o->tm->rank;
    const unsigned char *mine = (const unsigned char *)o->src + (size_t)me * o->nbytes;
    if (me == o->root && o->nbytes && mine != (unsigned char *)o->dst)
        memmove(o->dst, mine, o->nbytes);
}

struct rv_coll_op *rv_coll_scatter_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                       const void *src, size_t nbytes, uint32_t sigop)
{
    struct rv_coll_sig sig = { .kind = RV_COLL_SCATTER, .root = root, .nbytes = nbytes, .op = sigop };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, rv_scatter_advance);
    /* the root's src is read, everyone's dst written */
    if (nbytes && !dst) rv_fatal("%s: dst is NULL", call);
    if (nbytes && tm->rank == root && !src) rv_fatal("%s: src is NULL on the root", call);
    if (nbytes > SIZE_MAX / tm->size) rv_fatal("%s: size * nbytes overflows", call);
    o->k = 1;
    o->prep = rv_scatter_prep;
    return o;
}

/* ---- allgather ------------------------------------------------------------------ */

static int rv_allgather_advance(struct rv_coll_op *o) { return rv_coll_bruck(o, o->dst, 0); }

static void rv_allgather_prep(struct rv_coll_op *o)
{
    unsigned char *mine = (unsigned char *)o->dst + (size_t)o->tm->rank * o->nbytes;
    if (o->nbytes && (const unsigned char *)o->src != mine) memmove(mine, o->src, o->nbytes);
}

struct rv_coll_op *rv_coll_allgather_new(const char *call, gex_TM_t tm, unsigned kind, void *dst,
                                         const void *src, size_t nbytes, uint32_t sigop)
{
    struct rv_coll_sig sig = { .kind = kind, .root = GEX_RANK_INVALID, .nbytes = nbytes, .op = sigop };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, rv_allgather_advance);
    rv_gather_check(call, tm, dst, src, nbytes, 1);
    gex_Rank_t n = tm->size, me = tm->rank;
    o->vr = me;
    o->blk = (struct rv_coll_blocks){ .bs = nbytes, .total = (uint64_t)n * nbytes, .n = n };
    o->prep = rv_allgather_prep;
    return o;
}

gex_Event_t rivet_Coll_AllgatherNB(gex_TM_t tm, void *dst, const void *src, size_t nbytes,
                                   gex_Flags_t flags)
{
    (void)flags; /* none defined */
    RV_CHECK_INIT("rivet_Coll_AllgatherNB");
    return rv_coll_op_start(
        rv_coll_allgather_new("rivet_Coll_AllgatherNB", tm, RV_COLL_ALLGATHER, dst, src, nbytes, 0));
}

void rv_coll_allgather_run(const char *call, gex_TM_t tm, unsigned kind, void *dst, const void *src,
                           size_t nbytes)
{
    rv_coll_op_run(rv_coll_allgather_new(call, tm, kind, dst, src, nbytes, 0));
}

/* ---- all-to-all ------------------------------------------------------------------- */

/* One step: rank me sends block j to rank j = me + 1, me + 2, ... (staggered so that not
 * everyone targets the same rank at once) and receives size - 1 blocks. */
static int rv_alltoall_advance(struct rv_coll_op *o)
{
    gex_Rank_t n = o->tm->size, me = o->tm->rank;
    size_t nb = o->nbytes;
    if (!o->got)
        o->got = rv_coll_recv(o, RV_STEP_DIRECT, o->dst, (uint64_t)n * nb, (uint64_t)(n - 1) * nb,
                              n - 1);
    for (;;) {
        if (!rv_coll_pump(o)) return 0;
        if (o->k >= n) break;
        while (o->k < n && o->nsend < RV_COLL_MAXSEND) {
            gex_Rank_t to = (gex_Rank_t)(((uint64_t)me + o->k) % n);
            rv_coll_queue(o, to, RV_STEP_DIRECT, (const unsigned char *)o->src + (size_t)to * nb, nb,
                          (uint64_t)me * nb);
            o->k++;
        }
    }
    return o->got;
}

static void rv_alltoall_prep(struct rv_coll_op *o)
{
    size_t me = o->tm->rank, nb = o->nbytes;
    if (nb) memmove((unsigned char *)o->dst + me * nb, (const unsigned char *)o->src + me * nb, nb);
}

struct rv_coll_op *rv_coll_alltoall_new(const char *call, gex_TM_t tm, void *dst, const void *src,
                                        size_t nbytes, uint32_t sigop)
{
    struct rv_coll_sig sig = { .kind = RV_COLL_ALLTOALL, .root = GEX_RANK_INVALID, .nbytes = nbytes,
                               .op = sigop };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, rv_alltoall_advance);
    rv_gather_check(call, tm, dst, src, nbytes, 1);
    o->k = 1;
    o->prep = rv_alltoall_prep;
    return o;
}

gex_Event_t rivet_Coll_AlltoallNB(gex_TM_t tm, void *dst, const void *src, size_t nbytes,
                                  gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_op_start(rv_coll_alltoall_new("rivet_Coll_AlltoallNB", tm, dst, src, nbytes, 0));
}
