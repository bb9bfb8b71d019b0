/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_amo.c: the ucx transport's native remote atomics (ucp_atomic_op_nbx on the
 * peer's mapped segment): which (type, op) pairs UCP performs exactly, their issue and their
 * completion. ratomic/ uses them through the rv_ratomic_native_t this file returns
 * (rv_tp_desc_t.atomics); a domain whose set has one op that is not native uses the AM
 * reference instead. */
#include "transport/ucx/ucx_int.h"
#include "core/core.h"
#include "core/dt.h"

#include <stdatomic.h>
#include <string.h>

static rv_ucx_t *rv_ucx_amo_u;
/* The engine's completion (rv_tp_desc_t.atomics' 'done'), set before the table is handed out. */
static rv_tp_amo_done_t rv_ucx_amo_done;

/* How a GEX op is posted: the UCP op and how operand1 becomes its operand. Every op is posted
 * with a reply buffer (fetching), so that its completion means it was performed at the target. */
enum { RV_ARG_A, RV_ARG_NEG_A, RV_ARG_ONE, RV_ARG_MINUS_ONE, RV_ARG_ZERO };
typedef struct {
    ucp_atomic_op_t uop;
    int             arg;
    int             cas;
} rv_ucx_amo_map_t;

/* UCP has ADD, AND, OR, XOR, SWAP and CSWAP on 32 and 64-bit words. Integers: ADD/SUB/INC/DEC
 * as ADD (two's complement makes SUB exact for unsigned too), the bit ops, SET/SWAP as SWAP,
 * GET as ADD 0, CAS/FCAS as CSWAP. Floats: only the bit-pattern ops (SET, GET, SWAP, CAS,
 * FCAS), as docs/atomics.md promises. MULT, MIN, MAX: never native. */
static int rv_ucx_amo_map(gex_DT_t dt, gex_OP_t op, rv_ucx_amo_map_t *m)
{
    int fp = dt == GEX_DT_FLT || dt == GEX_DT_DBL;
    if (dt != GEX_DT_I32 && dt != GEX_DT_U32 && dt != GEX_DT_I64 && dt != GEX_DT_U64 && !fp)
        return 0;
    m->arg = RV_ARG_A;
    m->cas = 0;
    switch (op) {
    case GEX_OP_SET: case GEX_OP_SWAP: m->uop = UCP_ATOMIC_OP_SWAP; return 1;
    case GEX_OP_GET: m->uop = UCP_ATOMIC_OP_ADD; m->arg = RV_ARG_ZERO; return 1;
    case GEX_OP_CAS: case GEX_OP_FCAS: m->uop = UCP_ATOMIC_OP_CSWAP; m->cas = 1; return 1;
    default: break;
    }
    if (fp) return 0;
    switch (op) {
    case GEX_OP_ADD: case GEX_OP_FADD: m->uop = UCP_ATOMIC_OP_ADD; return 1;
    case GEX_OP_SUB: case GEX_OP_FSUB: m->uop = UCP_ATOMIC_OP_ADD; m->arg = RV_ARG_NEG_A; return 1;
    case GEX_OP_INC: case GEX_OP_FINC: m->uop = UCP_ATOMIC_OP_ADD; m->arg = RV_ARG_ONE; return 1;
    case GEX_OP_DEC: case GEX_OP_FDEC:
        m->uop = UCP_ATOMIC_OP_ADD;
        m->arg = RV_ARG_MINUS_ONE;
        return 1;
    case GEX_OP_AND: case GEX_OP_FAND: m->uop = UCP_ATOMIC_OP_AND; return 1;
    case GEX_OP_OR: case GEX_OP_FOR: m->uop = UCP_ATOMIC_OP_OR; return 1;
    case GEX_OP_XOR: case GEX_OP_FXOR: m->uop = UCP_ATOMIC_OP_XOR; return 1;
    default: return 0;
    }
}

static int rv_ucx_amo_supports(gex_DT_t dt, gex_OP_t op)
{
    rv_ucx_amo_map_t m;
    return rv_ucx_amo_map(dt, op, &m);
}

static void rv_ucx_amo_cb(void *req, ucs_status_t st, void *arg)
{
    rv_ucx_rop_t *op = arg;
    op->status = st;
    ucp_request_free(req);
    rv_ucx_rop_finish(op->u, op);
}

static int rv_ucx_amo_issue(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a,
                            uint64_t b, gex_Flags_t flags, struct rv_amo_op *ao)
{
    rv_ucx_t *u = rv_ucx_amo_u;
    rv_ucx_amo_map_t m;
    if (__builtin_expect(!u || !rv_ucx_amo_map(dt, op, &m), 0))
        rv_fatal("ucx: native atomic opcode 0x%x on %s is not supported", (unsigned)op,
                 rv_ratomic_dt_name(dt));
    rv_ucx_peer_t *p = &u->peers[jr];
    if (__builtin_expect(p->dead != 0, 0)) rv_ucx_peer_lost(u, jr, p->dead, "atomic");
    const int immediate = (flags & GEX_FLAG_IMMEDIATE) != 0;
    rv_ucx_rop_t *c;
    int waiting = 0; /* counted among the process's waiting threads (core/progress.h) */
    while (!(c = rv_ucx_rop_take(u))) { /* every slot in flight: completions free them */
        if (immediate) {
            if (waiting) _rivet_wait_end();
            return 1;
        }
        _rivet_wait_step(&waiting);
    }
    if (waiting) _rivet_wait_end();
    unsigned size = rv_ratomic_size(dt);
    uint64_t opd = a, res = 0;
    switch (m.arg) {
    case RV_ARG_NEG_A: opd = (uint64_t)0 - a; break;
    case RV_ARG_ONE: opd = 1; break;
    case RV_ARG_MINUS_ONE: opd = ~(uint64_t)0; break;
    case RV_ARG_ZERO: opd = 0; break;
    default: break;
    }
    if (m.cas) res = b; /* CSWAP: compare with the operand, store what the reply buffer holds */
    c->amo = ao;
    c->amo_size = (uint8_t)size;
    c->c = NULL;
    c->events = 0;
    c->imm_chan = 0;
    c->is_get = 1;
    c->peer = jr;
    c->status = UCS_OK;
    if (size == 4) {
        uint32_t o4 = (uint32_t)opd, r4 = (uint32_t)res;
        memcpy(&c->operand, &o4, 4);
        memcpy(&c->result, &r4, 4);
    } else {
        c->operand = opd;
        c->result = res;
    }
    if (flags & GEX_FLAG_AD_REL) atomic_thread_fence(memory_order_seq_cst);
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA |
                        UCP_OP_ATTR_FIELD_DATATYPE | UCP_OP_ATTR_FIELD_REPLY_BUFFER,
        .cb.send = rv_ucx_amo_cb,
        .user_data = c,
        .datatype = ucp_dt_make_contig(size),
        .reply_buffer = &c->result,
    };
    ucs_status_ptr_t r = ucp_atomic_op_nbx(p->ep, m.uop, &c->operand, 1, (uint64_t)tgt, p->rkey,
                                           &prm);
    if (UCS_PTR_IS_ERR(r)) rv_ucx_peer_lost(u, jr, UCS_PTR_STATUS(r), "atomic");
    if (!r) rv_ucx_rop_finish(u, c); /* done already: completed by the next poll */
    RV_UCX_COUNT(u, amos, 1);
    return 0;
}

void rv_ucx_amo_complete(rv_ucx_rop_t *op)
{
    rv_ucx_t *u = op->u;
    uint64_t old = op->result;
    if (op->amo_size == 4) {
        uint32_t v;
        memcpy(&v, &op->result, 4);
        old = v;
    }
    struct rv_amo_op *ao = op->amo;
    op->amo = NULL;
    rv_ucx_rop_give(u, op);
    rv_ucx_amo_done(ao, old);
}

static const rv_ratomic_native_t rv_ucx_amo_tab = {
    .size = sizeof(rv_ratomic_native_t),
    .name = "UCX ucp_atomic_op_nbx",
    .supports = rv_ucx_amo_supports,
    .issue = rv_ucx_amo_issue,
};

const struct rv_ratomic_native *rv_ucx_amo_native(void *priv, rv_tp_amo_done_t done)
{
    rv_ucx_t *u = priv;
    if (!u || !u->amo || !done) return NULL;
    rv_ucx_amo_u = u;
    rv_ucx_amo_done = done;
    return &rv_ucx_amo_tab;
}
