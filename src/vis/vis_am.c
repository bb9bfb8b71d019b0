/* SPDX-License-Identifier: BSD-3-Clause */
/* vis/vis_am.c: the AM mechanism (the reference, correct on every transport): chunks of the
 * transfer packed into Medium Requests with the remote side's metadata, unpacked by the target's
 * handler (Put) or answered with packed Medium Replies (Get); the operation object, its pool and
 * events; chunks refused under GEX_FLAG_IMMEDIATE resume from progress. */
#include "vis/vis_int.h"
#include "am/am_int.h"
#include "event/event.h"
#include "core/amargs.h"
#include "core/defer.h"
#include "core/pool.h"

#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(rv_vis_wire_t) == 48, "VIS wire header layout");
_Static_assert(sizeof(rv_vis_sdim_t) == 16 && sizeof(gex_Memvec_t) == 16 && sizeof(void *) == 8,
               "VIS wire metadata is 64-bit");

#define RV_VIS_OP_INLDIM 4 /* levels per side stored in the op itself */

typedef struct rv_vis_op {
    struct rv_op      root;
    struct rv_op      leaf;
    _Atomic int       pending;    /* chunks outstanding, +1 until injection ends */
    _Atomic int       lc_pending; /* 1 until every chunk of a Put is packed */
    rv_nbi_set_t     *nbi;        /* NBI op: the set to report to */
    uint8_t           is_get, has_leaf, nbi_lc;
    gex_Rank_t        jr;
    size_t            total, sent; /* bytes to move, bytes handed to the AM engine */
    rv_vis_side_t     local, remote;
    rv_vis_pos_t      lpos, rpos;  /* where the next chunk starts on each side */
    rv_vis_sdim_t     inl[2 * RV_VIS_OP_INLDIM];
    rv_vis_sdim_t    *big;         /* longer strided shapes; kept with the op for reuse */
    size_t            bigcap;
    rv_slink_t        link;        /* pool or deferred list */
} rv_vis_op_t;

/* ---- per-thread state: op free list and two staging buffers ------------------------------
 * Buffer 0 is where an initiating thread packs its chunk; buffer 1 is where a Get handler
 * packs its reply (a handler may run while buffer 0 waits for room to be sent). */
static _Thread_local char *rv_vis_buf[2];
static _Thread_local int rv_vis_packing; /* buffer 0 holds a chunk being sent */

static void rv_vis_thread_exit(void)
{
    free(rv_vis_buf[0]);
    free(rv_vis_buf[1]);
    rv_vis_buf[0] = rv_vis_buf[1] = NULL;
}

static void rv_vis_op_init(void *obj);
static rv_pool_t rv_vis_pool = RV_POOL_INIT(rv_vis_op_t, link, 32, "VIS operations",
                                            rv_vis_op_init, rv_vis_thread_exit);
static _Thread_local rv_pool_tls_t rv_vis_tls; /* the thread's op free list */

static char *rv_vis_stage(int which)
{
    if (__builtin_expect(!rv_vis_buf[which], 0)) {
        rv_pool_watch_thread(&rv_vis_pool, &rv_vis_tls); /* the buffers are freed at exit */
        rv_vis_buf[which] = malloc(rv_am_max_medium());
        if (!rv_vis_buf[which]) rv_fatal("out of memory for a VIS staging buffer");
    }
    return rv_vis_buf[which];
}

/* ---- events ---------------------------------------------------------------------------------- */

static inline int rv_vis_lc_done(rv_vis_op_t *op)
{
    return atomic_load_explicit(&op->lc_pending, memory_order_acquire) == 0;
}

static void rv_vis_op_free(rv_vis_op_t *op) { rv_pool_put(&rv_vis_tls, &op->link); }

static int rv_vis_root_test(struct rv_op *o)
{
    return atomic_load_explicit(&((rv_vis_op_t *)o)->pending, memory_order_acquire) == 0;
}

static void rv_vis_root_release(struct rv_op *o) { rv_vis_op_free((rv_vis_op_t *)o); }

static gex_Event_t rv_vis_root_leaf(struct rv_op *o, gex_EC_t ec)
{
    rv_vis_op_t *op = (rv_vis_op_t *)o;
    if (ec != GEX_EC_LC || !op->has_leaf || rv_vis_lc_done(op)) return GEX_EVENT_INVALID;
    return &op->leaf;
}

static int rv_vis_leaf_test(struct rv_op *o)
{
    return rv_vis_lc_done((rv_vis_op_t *)(void *)((char *)o - offsetof(rv_vis_op_t, leaf)));
}

static void rv_vis_leaf_release(struct rv_op *o) { (void)o; } /* recycled with its root */

static void rv_vis_op_init(void *obj)
{
    rv_vis_op_t *op = obj;
    op->root.test = rv_vis_root_test;
    op->root.release = rv_vis_root_release;
    op->root.leaf = rv_vis_root_leaf;
    op->leaf.test = rv_vis_leaf_test;
    op->leaf.release = rv_vis_leaf_release;
    op->leaf.leaf = NULL;
}

static inline rv_vis_op_t *rv_vis_op_alloc(void)
{
    return rv_container_of(rv_pool_get(&rv_vis_pool, &rv_vis_tls), rv_vis_op_t, link);
}

gex_Event_t rv_vis_op_event(struct rv_vis_op *op) { return &op->root; }

gex_Event_t rv_vis_op_leaf(struct rv_vis_op *op)
{
    return rv_vis_lc_done(op) ? GEX_EVENT_INVALID : &op->leaf;
}

/* One chunk acknowledged or answered; the last completes the operation. */
static void rv_vis_chunk_done(rv_vis_op_t *op)
{
    /* Read first: once the count is 0 an NB op may be synced and recycled by another thread. */
    rv_nbi_set_t *nbi = op->nbi;
    int ec = op->is_get ? RV_EC_GET : RV_EC_PUT;
    if (atomic_fetch_sub_explicit(&op->pending, 1, memory_order_acq_rel) != 1) return;
    if (nbi) {
        rv_vis_op_free(op);
        rv_nbi_done(nbi, ec);
    }
}

/* ---- initiator: chunking and injection ----------------------------------------------------- */

/* Describes the next chunk of the remote side, starting at p with 'rest' bytes left, in w and
 * the metadata after it, within a payload of C bytes (Put: metadata and data share it; Get: the
 * data travels back in a Reply of up to C bytes). Returns the chunk's data bytes. */
static size_t rv_vis_chunk(const rv_vis_side_t *r, rv_vis_pos_t p, size_t rest, size_t C,
                           int put, rv_vis_wire_t *w, size_t *meta_bytes, rv_vis_pos_t *next)
{
    char *meta = (char *)(w + 1);
    size_t room = C - sizeof *w;
    w->kind = r->kind;
    w->idx = 0;
    w->elemsz = 0;
    w->base = 0;
    if (r->kind == RV_VIS_K_STRIDED) {
        size_t mb = r->n * sizeof(rv_vis_sdim_t), es = r->len;
        memcpy(meta, r->dims, mb);
        size_t cap = put ? room - mb : C, len = rest < cap ? rest : cap;
        if (len < rest && !p.skip && es <= cap) len -= len % es; /* whole elements */
        w->n = (uint32_t)r->n;
        w->len = len;
        w->idx = p.idx;
        w->skip = p.skip;
        w->elemsz = es;
        w->base = r->base;
        *meta_bytes = mb;
        *next = rv_vis_pos_advance(r, p, len);
        return len;
    }
    int indexed = r->kind == RV_VIS_K_INDEXED;
    size_t esz = indexed ? sizeof(uint64_t) : sizeof(gex_Memvec_t), n = 0, len = 0;
    uint64_t *m = (uint64_t *)(void *)meta;
    w->skip = indexed ? p.skip : 0;
    w->elemsz = indexed ? r->len : 0;
    if (indexed && !p.skip && (put ? esz + r->len <= room : r->len <= C)) {
        /* whole entries: the metadata is a slice of the client's address list */
        size_t L = r->len, k = put ? room / (esz + L) : room / esz;
        if (!put && k > C / L) k = C / L;
        if (k > (rest + L - 1) / L) k = (rest + L - 1) / L;
        memcpy(m, r->addrs + p.idx, k * esz);
        len = k * L < rest ? k * L : rest;
        w->n = (uint32_t)k;
        w->len = len;
        *meta_bytes = k * esz;
        *next = rv_vis_pos_advance(r, p, len);
        return len;
    }
    while (len < rest) {
        size_t L = indexed ? r->len : r->vec[p.idx].gex_len, piece = L - p.skip;
        if (!piece) { /* an empty vector entry */
            p.idx++;
            p.skip = 0;
            continue;
        }
        size_t used = (n + 1) * esz, cap;
        if (put) {
            if (used + len >= room) break;
            cap = room - used - len;
        } else {
            if (used > room || len == C) break;
            cap = C - len;
        }
        size_t take = piece < cap ? piece : cap;
        if (take > rest - len) take = rest - len;
        if (indexed) {
            m[n] = (uint64_t)(uintptr_t)r->addrs[p.idx];
        } else {
            m[2 * n] = (uint64_t)(uintptr_t)r->vec[p.idx].gex_addr + p.skip;
            m[2 * n + 1] = take;
        }
        n++;
        len += take;
        if (take < piece) {
            p.skip += take;
            break;
        }
        p.idx++;
        p.skip = 0;
    }
    w->n = (uint32_t)n;
    w->len = len;
    *meta_bytes = n * esz;
    *next = p;
    return len;
}

/* Sends chunks from the op's positions on. Returns 1 when all are sent, 0 when the target had
 * no room (only under GEX_FLAG_IMMEDIATE; the positions then name the refused chunk). */
static int rv_vis_inject(rv_vis_op_t *op, gex_Flags_t flags)
{
    size_t C = rv_am_max_medium();
    char *buf = rv_vis_stage(0);
    gex_AM_Arg_t a[6];
    rv_args_set_ptr(a, op);
    int ok = 1;
    rv_vis_packing = 1;
    while (op->sent < op->total) {
        rv_vis_wire_t *w = (rv_vis_wire_t *)(void *)buf;
        size_t meta;
        rv_vis_pos_t rnext, lnext;
        size_t len = rv_vis_chunk(&op->remote, op->rpos, op->total - op->sent, C, !op->is_get, w,
                                  &meta, &rnext);
        int rc;
        atomic_fetch_add_explicit(&op->pending, 1, memory_order_relaxed);
        if (!op->is_get) {
            rv_vis_walk_t lw;
            rv_vis_walk_init(&lw, &op->local, op->lpos);
            rv_vis_walk_gather(&lw, buf + sizeof *w + meta, len); /* pack in place */
            lnext = rv_vis_walk_pos(&lw);
            rc = rv_am_send_internal(op->jr, RV_CHAN_REQ, RV_AM_MEDIUM, RV_AMI_VIS_PUT, a, 2, buf,
                                     sizeof *w + meta + len, NULL, flags);
        } else {
            rv_args_set_u64(a + 2, op->lpos.idx);
            rv_args_set_u64(a + 4, op->lpos.skip);
            lnext = rv_vis_pos_advance(&op->local, op->lpos, len);
            rc = rv_am_send_internal(op->jr, RV_CHAN_REQ, RV_AM_MEDIUM, RV_AMI_VIS_GET, a, 6, buf,
                                     sizeof *w + meta, NULL, flags);
        }
        if (rc) {
            atomic_fetch_sub_explicit(&op->pending, 1, memory_order_relaxed);
            ok = 0;
            break;
        }
        op->lpos = lnext;
        op->rpos = rnext;
        op->sent += len;
    }
    rv_vis_packing = 0;
    return ok;
}

/* Every chunk is handed off: a Put's source is locally complete. */
static void rv_vis_inject_done(rv_vis_op_t *op)
{
    atomic_store_explicit(&op->lc_pending, 0, memory_order_release);
    if (op->nbi_lc) rv_nbi_done(op->nbi, RV_EC_LC);
    rv_vis_chunk_done(op); /* drops the injection reference */
}

/* Operations whose remaining chunks wait for room (GEX_FLAG_IMMEDIATE only). */
static rv_defer_t rv_vis_deferred = RV_DEFER_INIT;

static int rv_vis_progress(void)
{
    if (!rv_defer_pending(&rv_vis_deferred)) return 0;
    if (rv_vis_packing) return 0; /* this thread's buffer 0 is waiting to be sent */
    if (!rv_defer_trylock(&rv_vis_deferred)) return 0;
    int n = 0;
    rv_slink_t *l;
    while ((l = rv_defer_head(&rv_vis_deferred)) &&
           rv_vis_inject(rv_container_of(l, rv_vis_op_t, link), GEX_FLAG_IMMEDIATE)) {
        rv_defer_pop(&rv_vis_deferred);
        rv_vis_inject_done(rv_container_of(l, rv_vis_op_t, link));
        n++;
    }
    rv_defer_unlock(&rv_vis_deferred);
    return n;
}

/* Strided sides point at the client's (or the stack's) dims: the op keeps its own copy. */
static void rv_vis_op_keep_dims(rv_vis_op_t *op)
{
    if (op->local.kind != RV_VIS_K_STRIDED) return;
    size_t n = op->local.n;
    rv_vis_sdim_t *d = op->inl;
    if (2 * n > 2 * RV_VIS_OP_INLDIM) {
        if (2 * n > op->bigcap) {
            rv_vis_sdim_t *p = realloc(op->big, 2 * n * sizeof *p);
            if (!p) rv_fatal("out of memory for the metadata of a %zu-level VIS operation", n);
            op->big = p;
            op->bigcap = 2 * n;
        }
        d = op->big;
    }
    memcpy(d, op->local.dims, n * sizeof *d);
    memcpy(d + n, op->remote.dims, n * sizeof *d);
    op->local.dims = d;
    op->remote.dims = d + n;
}

struct rv_vis_op *rv_vis_am_start(int is_get, gex_Rank_t jr, const rv_vis_side_t *local,
                                  const rv_vis_side_t *remote, size_t total, int is_nbi, int lc,
                                  gex_Flags_t flags)
{
    rv_vis_op_t *op = rv_vis_op_alloc();
    op->is_get = (uint8_t)is_get;
    op->has_leaf = lc == RV_VIS_LC_LEAF;
    op->jr = jr;
    op->total = total;
    op->sent = 0;
    op->local = *local;
    op->remote = *remote;
    op->local.delta = op->remote.delta = 0;
    op->lpos.idx = op->lpos.skip = op->rpos.idx = op->rpos.skip = 0;
    rv_vis_op_keep_dims(op);
    atomic_store_explicit(&op->pending, 1, memory_order_relaxed);
    atomic_store_explicit(&op->lc_pending, 1, memory_order_relaxed);
    /* NBI accounting starts before any chunk can complete (maybe on another thread). */
    op->nbi = is_nbi ? rv_nbi_current() : NULL;
    op->nbi_lc = (uint8_t)(is_nbi && lc == RV_VIS_LC_GROUP);
    int ec = is_get ? RV_EC_GET : RV_EC_PUT;
    if (op->nbi) {
        rv_nbi_add(op->nbi, ec);
        if (op->nbi_lc) rv_nbi_add(op->nbi, RV_EC_LC);
    }
    if (!rv_vis_inject(op, flags & GEX_FLAG_IMMEDIATE)) {
        if (op->sent == 0) { /* nothing sent: "no op" */
            if (op->nbi) {
                rv_nbi_done(op->nbi, ec);
                if (op->nbi_lc) rv_nbi_done(op->nbi, RV_EC_LC);
            }
            rv_vis_op_free(op);
            return RV_VIS_NO_OP;
        }
        rv_defer_push(&rv_vis_deferred, &op->link); /* the rest goes out from progress, still without blocking */
        return is_nbi ? NULL : op;
    }
    rv_vis_inject_done(op);
    return is_nbi ? NULL : op;
}

/* ---- target: never trust the wire ------------------------------------------------------------ */

/* Parses a chunk arriving from rank src into a side and position, checking that it is well
 * formed and touches only this rank's bound segment. Returns the data (Put) or NULL. */
static const char *rv_vis_wire_side(gex_Rank_t src, const char *what, void *buf, size_t nbytes,
                                    int with_data, rv_vis_side_t *s, rv_vis_pos_t *p, size_t *len)
{
    const rv_vis_wire_t *w = buf;
    const char *meta = (const char *)buf + sizeof *w;
    size_t avail = nbytes >= sizeof *w ? nbytes - sizeof *w : 0, esz = 0, es = 0;
    int bad = nbytes < sizeof *w;
    if (!bad) {
        esz = w->kind == RV_VIS_K_STRIDED ? sizeof(rv_vis_sdim_t)
            : w->kind == RV_VIS_K_VECTOR  ? sizeof(gex_Memvec_t)
            : w->kind == RV_VIS_K_INDEXED ? sizeof(uint64_t) : 0;
        es = (size_t)w->elemsz;
        bad = !esz || w->n > avail / esz;
    }
    if (!bad) {
        size_t mb = w->n * esz, want = mb + (with_data ? w->len : 0);
        bad = (with_data && w->len > avail) || want != avail ||
              (!with_data && w->len > rv_am_max_medium());
    }
    memset(s, 0, sizeof *s);
    p->idx = p->skip = 0;
    if (!bad) {
        s->kind = w->kind;
        s->n = w->n;
        *len = (size_t)w->len;
        if (w->kind == RV_VIS_K_STRIDED) {
            /* every count >= 1, and the chunk inside the shape's bytes */
            const rv_vis_sdim_t *d = (const void *)meta;
            size_t elems = 1, tot = 0, at = 0;
            for (size_t k = 0; k < s->n && !bad; k++)
                bad = !d[k].count || __builtin_mul_overflow(elems, d[k].count, &elems);
            bad = bad || !es || w->skip >= es || __builtin_mul_overflow(elems, es, &tot) ||
                  __builtin_mul_overflow((size_t)w->idx, es, &at) ||
                  __builtin_add_overflow(at, (size_t)w->skip, &at) || at > tot ||
                  *len > tot - at;
            s->len = es;
            s->base = (uintptr_t)w->base;
            s->dims = d;
            p->idx = (size_t)w->idx;
            p->skip = (size_t)w->skip;
        } else if (w->kind == RV_VIS_K_INDEXED) {
            bad = !es || (w->n && w->skip >= es);
            s->len = es;
            s->addrs = (void *const *)(const void *)meta;
            p->skip = (size_t)w->skip;
        } else {
            s->vec = (const gex_Memvec_t *)(const void *)meta;
        }
    }
    if (bad) rv_fatal("malformed VIS %s chunk from rank %u (%zu bytes)", what, src, nbytes);
    const struct rv_segment *seg = rv_client_g->ep0->seg;
    size_t bad_entry;
    uintptr_t lo = 0, hi = 0;
    if (!seg || !rv_vis_side_inside(s, *p, *len, (uintptr_t)seg->addr, seg->size, &bad_entry, &lo,
                                    &hi))
        rv_fatal("VIS %s from rank %u: [%p, %p) is outside the bound segment [%p, %p) of this "
                 "rank; nothing was %s", what, src, (void *)lo, (void *)hi,
                 seg ? seg->addr : NULL, seg ? (void *)((char *)seg->addr + seg->size) : NULL,
                 with_data ? "written" : "read");
    return with_data ? meta + s->n * esz : NULL;
}

static void rv_vis_put_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    rv_vis_side_t s;
    rv_vis_pos_t p;
    size_t len;
    if (nargs != 2) rv_fatal("malformed VIS Put chunk from rank %u", tok->src);
    const char *data = rv_vis_wire_side(tok->src, "Put", buf, nbytes, 1, &s, &p, &len);
    rv_vis_walk_t w;
    rv_vis_walk_init(&w, &s, p);
    rv_vis_walk_scatter(&w, data, len);
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_SHORT, RV_AMI_VIS_ACK, a, 2, NULL, 0, NULL, 0);
}

static void rv_vis_ack_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    (void)tok, (void)buf, (void)nbytes, (void)nargs;
    rv_vis_chunk_done(rv_args_ptr(a));
}

/* args: op(2), the requester's position for this chunk (idx 2, skip 2): echoed in the Reply. */
static void rv_vis_get_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                               unsigned nargs)
{
    rv_vis_side_t s;
    rv_vis_pos_t p;
    size_t len;
    if (nargs != 6) rv_fatal("malformed VIS Get chunk from rank %u", tok->src);
    rv_vis_wire_side(tok->src, "Get", buf, nbytes, 0, &s, &p, &len);
    rv_vis_walk_t w;
    rv_vis_walk_init(&w, &s, p);
    void *data = len ? rv_vis_walk_contig(&w, len) : NULL;
    if (!data && len) {
        data = rv_vis_stage(1);
        rv_vis_walk_gather(&w, data, len);
    }
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_MEDIUM, RV_AMI_VIS_GETR, a, 6, data, len,
                        NULL, 0);
}

static void rv_vis_getr_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                                unsigned nargs)
{
    (void)tok, (void)nargs;
    rv_vis_op_t *op = rv_args_ptr(a);
    rv_vis_pos_t p = { (size_t)rv_args_u64(a + 2), (size_t)rv_args_u64(a + 4) };
    rv_vis_walk_t w;
    rv_vis_walk_init(&w, &op->local, p);
    rv_vis_walk_scatter(&w, buf, nbytes);
    rv_vis_chunk_done(op);
}

/* Every process registers the handlers at load time: VIS calls are not collective, so a rank
 * must be able to serve them before it makes any VIS call itself. Only table writes here. */
__attribute__((constructor)) static void rv_vis_register(void)
{
    rv_am_register_internal(RV_AMI_VIS_PUT, rv_vis_put_handler);
    rv_am_register_internal(RV_AMI_VIS_ACK, rv_vis_ack_handler);
    rv_am_register_internal(RV_AMI_VIS_GET, rv_vis_get_handler);
    rv_am_register_internal(RV_AMI_VIS_GETR, rv_vis_getr_handler);
    rv_progress_register(rv_vis_progress, &rv_vis_deferred.n);
}
