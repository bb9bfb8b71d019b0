/* SPDX-License-Identifier: BSD-3-Clause */
/* ratomic/ratomic_ref.c: the AM reference for remote atomics (a Short request carries the op, the
 * target applies the CPU atomic to its segment and replies with the old value), the pool of
 * operation records, and their completion (shared with a transport's native atomics). */
#include "ratomic/ratomic_int.h"
#include "am/am_int.h"
#include "core/amargs.h"

#include <stdlib.h>

/* ---- operation records ----------------------------------------------------------------
 * Each thread takes records from, and returns them to, its own list: no atomics, no lock.
 * A record may be returned by another thread than the one that took it (the thread that
 * polled the reply, or synced the event), so lists can drift apart: a thread that has
 * returned RV_AMO_KEEP more records than it took gives RV_AMO_KEEP/2 of them to a shared
 * stack, and an empty list takes the whole shared stack before it allocates a new batch. The
 * shared stack is only ever pushed (a whole chain, compare-and-swap) or emptied (exchange),
 * which is free of the ABA problem. Single-threaded, only the two lines of get/put run. */
#define RV_AMO_BATCH 64
#define RV_AMO_KEEP 256

typedef struct {
    rv_amo_op_t *head;
    unsigned     surplus; /* returned minus taken since the list was last empty; <= length */
} rv_amo_list_t;

static _Thread_local rv_amo_list_t rv_amo_mine;
static _Atomic(rv_amo_op_t *) rv_amo_shared;

/* Every batch, so that the memory stays reachable (and is never returned to malloc). */
typedef struct rv_amo_batch {
    struct rv_amo_batch *next;
    rv_amo_op_t          ops[RV_AMO_BATCH];
} rv_amo_batch_t;
static _Atomic(rv_amo_batch_t *) rv_amo_batches;

static int rv_amo_test(struct rv_op *o)
{
    return atomic_load_explicit(&((rv_amo_op_t *)o)->done, memory_order_acquire);
}

static void rv_amo_release(struct rv_op *o) { rv_amo_op_put((rv_amo_op_t *)o); }

static __attribute__((noinline)) void rv_amo_refill(rv_amo_list_t *l)
{
    rv_amo_op_t *got = atomic_exchange_explicit(&rv_amo_shared, NULL, memory_order_acquire);
    if (got) {
        l->head = got;
        return;
    }
    rv_amo_batch_t *b = calloc(1, sizeof *b);
    if (!b) rv_fatal("remote atomics: out of memory for operation records");
    for (int i = 0; i < RV_AMO_BATCH; i++) {
        b->ops[i].root.test = rv_amo_test;
        b->ops[i].root.release = rv_amo_release;
        b->ops[i].root.leaf = NULL;
        b->ops[i].next = i + 1 < RV_AMO_BATCH ? &b->ops[i + 1] : NULL;
    }
    b->next = atomic_load_explicit(&rv_amo_batches, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&rv_amo_batches, &b->next, b,
                                                  memory_order_release, memory_order_relaxed))
        ;
    l->head = b->ops;
}

/* Pushes the first RV_AMO_KEEP/2 records (they exist: surplus <= length) in one step. */
static __attribute__((noinline)) void rv_amo_spill(rv_amo_list_t *l)
{
    rv_amo_op_t *first = l->head, *tail = first;
    for (unsigned i = 1; i < RV_AMO_KEEP / 2; i++) tail = tail->next;
    l->head = tail->next;
    l->surplus -= RV_AMO_KEEP / 2;
    tail->next = atomic_load_explicit(&rv_amo_shared, memory_order_relaxed);
    while (!atomic_compare_exchange_weak_explicit(&rv_amo_shared, &tail->next, first,
                                                  memory_order_release, memory_order_relaxed))
        ;
}

rv_amo_op_t *rv_amo_op_get(void)
{
    rv_amo_list_t *l = &rv_amo_mine;
    if (__builtin_expect(!l->head, 0)) rv_amo_refill(l);
    rv_amo_op_t *o = l->head;
    l->head = o->next;
    if (l->surplus) l->surplus--;
    return o;
}

void rv_amo_op_put(rv_amo_op_t *o)
{
    rv_amo_list_t *l = &rv_amo_mine;
    o->next = l->head;
    l->head = o;
    if (__builtin_expect(++l->surplus > RV_AMO_KEEP, 0)) rv_amo_spill(l);
}

void rv_ratomic_complete(rv_amo_op_t *o, uint64_t old)
{
    if (o->result_p) {
        if (o->size == 4) *(uint32_t *)o->result_p = (uint32_t)old;
        else *(uint64_t *)o->result_p = old;
    }
    rv_nbi_set_t *nbi = o->nbi;
    if (nbi) {
        int ec = o->ec;
        rv_amo_op_put(o);
        rv_nbi_done(nbi, ec);
    } else {
        atomic_store_explicit(&o->done, 1, memory_order_release);
    }
}

/* ---- the wire protocol ----------------------------------------------------------------- */

/* Request args: record(2), target address(2), opcode, dt | strong << 8, operand1(2),
 * operand2(2). Reply args: record(2), old value(2). */
#define RV_AMO_REQ_NARGS 10
#define RV_AMO_REP_NARGS 4

int rv_ratomic_ref_issue(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a,
                         uint64_t b, gex_Flags_t flags, rv_amo_op_t *o)
{
    gex_AM_Arg_t args[RV_AMO_REQ_NARGS];
    rv_args_set_ptr(args, o);
    rv_args_set_u64(args + 2, (uint64_t)tgt);
    args[4] = (gex_AM_Arg_t)op;
    args[5] = (gex_AM_Arg_t)(dt | ((flags & (GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL)) ? 0x100u : 0u));
    rv_args_set_u64(args + 6, a);
    rv_args_set_u64(args + 8, b);
    return rv_am_send_internal(jr, RV_CHAN_REQ, RV_AM_SHORT, RV_AMI_AMO, args, RV_AMO_REQ_NARGS,
                               NULL, 0, NULL, flags & GEX_FLAG_IMMEDIATE);
}

/* At the target: never trust the wire. */
static void rv_amo_handler(gex_Token_t tok, void *buf, size_t nbytes, const gex_AM_Arg_t *a,
                           unsigned nargs)
{
    (void)buf, (void)nbytes;
    if (nargs != RV_AMO_REQ_NARGS)
        rv_fatal("reference atomic from rank %u: %u arguments, expected %d", tok->src, nargs,
                 RV_AMO_REQ_NARGS);
    gex_DT_t dt = (gex_DT_t)(a[5] & 0xff);
    gex_OP_t op = (gex_OP_t)a[4];
    int strong = (a[5] & 0x100u) != 0;
    rv_amo_fn_t fn = rv_ratomic_cpu_fn(dt, strong);
    if (!fn || !op || (op & (op - 1)) || !(op & rv_ratomic_valid_ops(dt)))
        rv_fatal("reference atomic from rank %u: bad type 0x%x or opcode 0x%x", tok->src,
                 (unsigned)dt, (unsigned)op);
    const struct rv_segment *seg = rv_client_g->ep0->seg;
    uintptr_t t = (uintptr_t)rv_args_u64(a + 2), base = seg ? (uintptr_t)seg->addr : 0;
    size_t n = rv_ratomic_size(dt);
    if (!seg || t < base || n > seg->size || t - base > seg->size - n || (t & (n - 1)))
        rv_fatal("reference atomic from rank %u: target [%p, +%zu) is not an aligned word in the "
                 "bound segment of this rank", tok->src, (void *)t, n);
    uint64_t old = fn((void *)t, op, rv_args_u64(a + 6), rv_args_u64(a + 8));
    gex_AM_Arg_t r[RV_AMO_REP_NARGS] = {a[0], a[1], 0, 0};
    rv_args_set_u64(r + 2, old);
    rv_am_send_internal(tok->src, RV_CHAN_REP, RV_AM_SHORT, RV_AMI_AMO_REPLY, r, RV_AMO_REP_NARGS,
                        NULL, 0, NULL, 0);
}

static void rv_amo_reply_handler(gex_Token_t tok, void *buf, size_t nbytes,
                                 const gex_AM_Arg_t *a, unsigned nargs)
{
    (void)buf, (void)nbytes;
    if (nargs != RV_AMO_REP_NARGS)
        rv_fatal("reference atomic reply from rank %u: %u arguments, expected %d", tok->src,
                 nargs, RV_AMO_REP_NARGS);
    rv_ratomic_complete(rv_args_ptr(a), rv_args_u64(a + 2));
}

void rv_ratomic_ref_init(void)
{
    rv_am_register_internal(RV_AMI_AMO, rv_amo_handler);
    rv_am_register_internal(RV_AMI_AMO_REPLY, rv_amo_reply_handler);
}
