/* SPDX-License-Identifier: BSD-3-Clause */
/* coll/bcast.c: gex_Coll_BroadcastNB: a binomial tree for small payloads, binomial
 * scatter + Bruck allgather for large ones (RIVET_COLL_LARGE), a flat tree on hosts with
 * more ranks than cores (RIVET_COLL_BCAST), and inside one neighbourhood ranks that copy
 * the payload from the root's mapped segment (RIVET_COLL_BCAST_DIRECT). */
#include "coll/coll_int.h"

#include <string.h>

static gex_Rank_t rv_bcast_team_rank(const struct rv_coll_op *o, uint64_t v)
{
    return (gex_Rank_t)((v + o->root) % o->n);
}

/* Virtual rank vr (relative to the root) receives from vr - lowbit(vr) and sends to
 * vr + m for every power of two m below lowbit(vr), largest subtree first. Flat: the
 * root sends to everyone itself (one hop each). */
static int rv_bcast_small(struct rv_coll_op *o)
{
    uint64_t n = o->n, vr = o->vr;
    if (o->state == 0) {
        if (vr && !rv_coll_recv(o, RV_STEP_MAIN, o->dst, o->nbytes, o->nbytes, 1)) return 0;
        if (o->large == 2) { /* flat */
            o->k = 1;
            o->state = 2;
        } else {
            uint64_t low = vr ? (vr & -vr) : (1ull << o->rounds);
            for (uint64_t m = low >> 1; m; m >>= 1)
                if (vr + m < n)
                    rv_coll_queue(o, rv_bcast_team_rank(o, vr + m), RV_STEP_MAIN, o->dst, o->nbytes, 0);
            o->state = 1;
        }
    }
    if (o->state == 2 && !vr) {
        for (;;) {
            if (!rv_coll_pump(o)) return 0;
            if (o->k >= n) return 1;
            for (; o->k < n && o->nsend < RV_COLL_MAXSEND; o->k++)
                rv_coll_queue(o, rv_bcast_team_rank(o, o->k), RV_STEP_MAIN, o->dst, o->nbytes, 0);
        }
    }
    return rv_coll_pump(o);
}

/* The same tree, but each edge carries only the blocks of the child's subtree (block v
 * belongs to virtual rank v); then every rank gathers the other blocks (Bruck). The
 * root sends about nbytes instead of nbytes * log2(size), and no rank forwards a whole
 * payload before its children can start. */
static int rv_bcast_large(struct rv_coll_op *o)
{
    const struct rv_coll_blocks *b = &o->blk;
    uint64_t n = b->n, vr = o->vr;
    unsigned char *dst = o->dst;
    if (o->state == 0) {
        if (vr) {
            uint64_t low = vr & -vr, cnt = low < n - vr ? low : n - vr;
            if (!rv_coll_recv(o, RV_STEP_SCATTER, dst, b->total, rv_coll_blk_bytes(b, vr, cnt), 1))
                return 0;
        }
        uint64_t low = vr ? (vr & -vr) : (1ull << o->rounds);
        for (uint64_t m = low >> 1; m; m >>= 1)
            if (vr + m < n)
                rv_coll_blk_send(o, rv_bcast_team_rank(o, vr + m), RV_STEP_SCATTER, dst, b, vr + m,
                                 m < n - vr - m ? m : n - vr - m);
        o->state = 1;
    }
    if (o->state == 1) {
        if (!rv_coll_pump(o)) return 0;
        o->state = 2;
    }
    return rv_coll_bruck(o, dst, o->root);
}

/* Direct (one neighbourhood, from RIVET_COLL_BCAST_DIRECT bytes): the root sends every
 * rank a 16-byte descriptor {mode, address}; mode 1: the payload is at 'address' in the
 * root's segment, which every neighbour maps, and each rank copies it straight from there
 * (in parallel, one copy), then reports {0} to the root at 8 x its rank of a buffer there;
 * a rank that cannot read the root's segment (not mapped here: a segment bound but not yet
 * published) reports {1} and gets the payload in messages. Mode 0 (payload outside the
 * root's segment): the payload goes down the binomial tree (o->bstate), or from the root to
 * everyone (flat) on a host with more ranks than cores, as auto picks below. The root completes
 * when every report has arrived, so its buffer is read only while the operation runs. */
enum { RV_STEP_DDESC = RV_STEP_MAIN, RV_STEP_DDATA = RV_STEP_MAIN + 1, RV_STEP_DACK = RV_STEP_MAIN + 2 };

/* Mode 0 over the tree: virtual rank vr's children (as rv_bcast_small's). */
static void rv_bcast_children(struct rv_coll_op *o, uint64_t vr)
{
    uint64_t low = vr ? (vr & -vr) : (1ull << o->rounds);
    for (uint64_t m = low >> 1; m; m >>= 1)
        if (vr + m < o->n)
            rv_coll_queue(o, rv_bcast_team_rank(o, vr + m), RV_STEP_DDATA, o->dst, o->nbytes, 0);
}

static const unsigned char *rv_bcast_peer_addr(gex_Rank_t jr, uint64_t addr, size_t nbytes)
{
    const rv_segmap_t *map = __atomic_load_n(&rv_segmap, __ATOMIC_ACQUIRE);
    if (!map) return NULL;
    const rv_segmap_t *m = &map[jr];
    uintptr_t base = (uintptr_t)m->owner_base;
    if (!m->local_base || addr < base || addr - base > m->size || m->size - (addr - base) < nbytes)
        return NULL;
    return (const unsigned char *)m->local_base + (addr - base);
}

/* The root's payload is in its own segment, which the neighbourhood maps. */
static int rv_bcast_mine(const void *p, size_t nbytes)
{
    const rv_segmap_t *map = __atomic_load_n(&rv_segmap, __ATOMIC_ACQUIRE);
    if (!map || !(map[rv_job.rank].flags & RV_SEG_SHARED)) return 0;
    const rv_segmap_t *m = &map[rv_job.rank];
    uintptr_t a = (uintptr_t)p, base = (uintptr_t)m->owner_base;
    return m->local_base && a >= base && a - base <= m->size && m->size - (a - base) >= nbytes;
}

static int rv_bcast_direct(struct rv_coll_op *o)
{
    uint64_t n = o->n;
    uint64_t *desc = o->los; /* {mode, address}: received (others), sent (the root) */
    if (o->vr) {
        if (o->state == 0) {
            if (!rv_coll_recv(o, RV_STEP_DDESC, desc, 16, 16, 1)) return 0;
            const unsigned char *p =
                desc[0] ? rv_bcast_peer_addr(rv_tm_jobrank(o->tm, o->root), desc[1], o->nbytes) : NULL;
            if (p) memcpy(o->dst, p, o->nbytes);
            desc[2] = !p;
            if (desc[0]) rv_coll_queue(o, o->root, RV_STEP_DACK, &desc[2], 8, 8 * o->me);
            o->state = p ? 2 : 1;
        }
        if (o->state == 1) {
            if (!rv_coll_pump(o)) return 0;
            if (!rv_coll_recv(o, RV_STEP_DDATA, o->dst, o->nbytes, o->nbytes, 1)) return 0;
            if (!desc[0] && o->bstate) rv_bcast_children(o, o->vr);
            o->state = 2;
        }
        return rv_coll_pump(o);
    }
    /* the root: descriptors (k counts the ranks queued), then reports or payloads */
    if (o->state == 0) {
        const void *p = rv_bcast_mine(o->src, o->nbytes) ? o->src
                        : rv_bcast_mine(o->dst, o->nbytes) ? o->dst : NULL;
        desc[0] = p != NULL;
        desc[1] = (uintptr_t)p;
        o->k = 1;
        o->state = 1;
    }
    if (o->state == 1) {
        for (;;) {
            if (!rv_coll_pump(o)) return 0;
            if (o->k >= n) break;
            for (; o->k < n && o->nsend < RV_COLL_MAXSEND; o->k++)
                rv_coll_queue(o, rv_bcast_team_rank(o, o->k), RV_STEP_DDESC, desc, 16, 0);
        }
        o->k = 1;
        if (desc[0]) {
            o->mem[0] = rv_coll_mem_get(8 * n);
            o->state = 2;
        } else if (o->bstate) {
            rv_bcast_children(o, 0);
            o->state = 4;
        } else {
            o->state = 3;
        }
    }
    if (o->state == 4) return rv_coll_pump(o); /* mode 0 down the tree */
    if (o->state == 2) {
        if (!rv_coll_recv(o, RV_STEP_DACK, o->mem[0], 8 * n, 8 * (n - 1), 0)) return 0;
        o->state = 3;
    }
    /* payloads: to everyone (mode 0) or to the ranks that asked */
    const uint64_t *ask = o->mem[0];
    for (;;) {
        if (!rv_coll_pump(o)) return 0;
        if (o->k >= n) return 1;
        for (; o->k < n && o->nsend < RV_COLL_MAXSEND; o->k++) {
            gex_Rank_t r = rv_bcast_team_rank(o, o->k);
            if (!desc[0] || ask[r]) rv_coll_queue(o, r, RV_STEP_DDATA, o->dst, o->nbytes, 0);
        }
    }
}

/* Which algorithm (RIVET_COLL_BCAST): 0 binomial tree, 1 scatter + allgather, 2 flat, 3 direct.
 * Scatter + allgather moves about twice the bytes of the tree in total, in return for a
 * shallower critical path: that pays across neighbourhoods, or when every rank has a core
 * of its own. On a host with more ranks than cores every copy competes for the same cores
 * and every hop of a tree may wait for a descheduled rank, so there the root sends to
 * everyone itself (docs/collectives.md has the numbers). */
static int rv_bcast_alg(const struct rv_coll_op *o, size_t nbytes)
{
    const char *m = rv_cfg.COLL_BCAST;
    int large = o->n > 2 && nbytes >= rv_coll_large();
    if (!strcmp(m, "scatter")) return large;
    if (!strcmp(m, "tree")) return 0;
    if (!strcmp(m, "flat")) return 2;
    int direct = o->ct->one_nbrhd && o->n > 1 && nbytes;
    if (!strcmp(m, "direct")) return direct ? 3 : 0;
    if (strcmp(m, "auto"))
        rv_fatal("RIVET_COLL_BCAST=%s: expected auto, tree, scatter, flat or direct", m);
    /* Direct makes the root wait for every rank's report: on a host with more ranks than
     * cores that costs a round of context switches, which pays from 16 KiB at 4 ranks on
     * 2 cores (docs/collectives.md): twice the threshold there */
    uint64_t dmin = rv_cfg.COLL_BCAST_DIRECT;
    if (rv_job.oversubscribed && dmin) dmin = dmin > UINT64_MAX / 2 ? UINT64_MAX : dmin * 2;
    if (direct && dmin && nbytes >= dmin) return 3;
    if (o->ct->one_nbrhd && rv_job.oversubscribed) return o->n > 2 ? 2 : 0;
    return large;
}

/* The root's payload into its own dst (when the data may be read). */
static void rv_bcast_prep(struct rv_coll_op *o)
{
    if (o->tm->rank == o->sig.root && o->dst != o->src && o->nbytes)
        memmove(o->dst, o->src, o->nbytes);
}

struct rv_coll_op *rv_coll_bcast_new(const char *call, gex_TM_t tm, gex_Rank_t root, void *dst,
                                     const void *src, size_t nbytes, uint32_t sigop)
{
    struct rv_coll_sig sig = { .kind = RV_COLL_BCAST, .root = root, .nbytes = nbytes, .op = sigop };
    struct rv_coll_op *o = rv_coll_data_op_new(call, tm, &sig, dst, src, rv_bcast_small);
    if (nbytes && !dst) rv_fatal("%s: dst is NULL", call);
    if (nbytes && tm->rank == root && !src) rv_fatal("%s: src is NULL on the root", call);
    o->prep = rv_bcast_prep;
    /* two levels: the algorithm runs over the leaders, from the root's leader */
    int hier = rv_coll_hier_begin(o);
    if (hier) o->root = o->ct->hier->lof[root];
    gex_Rank_t n = o->n;
    o->vr = hier && o->me == GEX_RANK_INVALID ? 0 : (o->me + n - o->root) % n;
    o->large = rv_bcast_alg(o, nbytes);
    if (o->large == 1) {
        /* blocks of whole cache lines, one per rank (the last ones may be short or empty) */
        uint64_t bs = (nbytes + n - 1) / n;
        o->blk = (struct rv_coll_blocks){ .bs = (bs + 63) & ~(uint64_t)63, .total = nbytes, .n = n };
        o->advance = rv_bcast_large;
    } else if (o->large == 3) {
        o->advance = rv_bcast_direct;
        o->bstate = !rv_job.oversubscribed; /* mode 0 down the tree, else flat */
    }
    if (hier) rv_coll_hier_wrap(o);
    return o;
}

gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                 size_t nbytes, gex_Flags_t flags)
{
    (void)flags; /* none defined */
    return rv_coll_op_start(rv_coll_bcast_new("gex_Coll_BroadcastNB", tm, root, dst, src, nbytes, 0));
}
