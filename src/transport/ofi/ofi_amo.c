/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_amo.c: the ofi transport's native remote atomics (fi_atomic, fi_fetch_atomic,
 * fi_compare_atomic on the peer's registered segment): the table of what the provider does, agreed
 * by every rank at open, the operation contexts, and their completions. ratomic/ uses them through
 * the rv_ratomic_native_t this file returns (rv_tp_desc_t.atomics). */
#include "transport/ofi/ofi_int.h"
#include "core/core.h"
#include "core/spin.h"
#include "boot/boot.h"

#include <rdma/fi_atomic.h>
#include <stdlib.h>
#include <string.h>

/* The six types, in the order of the support table. */
static const gex_DT_t rv_ofi_amo_dts[RV_OFI_AMO_NDT] = {
    GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT, GEX_DT_DBL,
};

static int rv_ofi_amo_dti(gex_DT_t dt)
{
    for (int i = 0; i < RV_OFI_AMO_NDT; i++)
        if (rv_ofi_amo_dts[i] == dt) return i;
    return -1;
}

/* How one GEX op is posted: libfabric datatype and op, the form, and how operand1 becomes the
 * libfabric operand. */
enum { RV_AMO_PLAIN, RV_AMO_FETCH, RV_AMO_COMPARE };
enum { RV_ARG_A, RV_ARG_NEG_A, RV_ARG_ONE, RV_ARG_MINUS_ONE, RV_ARG_NONE };
typedef struct {
    enum fi_datatype fdt;
    enum fi_op       fop;
    int              form;
    int              arg;
} rv_ofi_amo_map_t;

/* Maps (dt, op) to its libfabric form; 0 if there is no exact one. 'dc': the provider reports a
 * plain atomic's completion only once it is done at the target (FI_DELIVERY_COMPLETE); without
 * it a non-fetching op is posted in its fetching form and the result dropped, so that its
 * completion still means "performed".
 *  - SUB is SUM of the negated operand: exact for integers (two's complement, also unsigned:
 *    x - a == x + (2^n - a) mod 2^n) and for IEEE floats (x - y is defined as x + (-y); only a
 *    NaN operand may come back with the other sign bit). INC/DEC are SUM of 1/-1.
 *  - SET/GET/SWAP/CAS/FCAS on FLT/DBL use the unsigned integer of the same size: they move or
 *    compare bit patterns, as atomics.md promises (libfabric compares floats as floats).
 *  - MIN/MAX on FLT/DBL: not native. atomics.md defines the NaN and signed-zero cases by the
 *    spec's C expression; libfabric does not say which operand a provider keeps then. */
static int rv_ofi_amo_map(gex_DT_t dt, gex_OP_t op, int dc, rv_ofi_amo_map_t *m)
{
    int fp = dt == GEX_DT_FLT || dt == GEX_DT_DBL, wide = rv_ratomic_size(dt) == 8;
    enum fi_datatype bits = wide ? FI_UINT64 : FI_UINT32;
    switch (dt) {
    case GEX_DT_I32: m->fdt = FI_INT32; break;
    case GEX_DT_U32: m->fdt = FI_UINT32; break;
    case GEX_DT_I64: m->fdt = FI_INT64; break;
    case GEX_DT_U64: m->fdt = FI_UINT64; break;
    case GEX_DT_FLT: m->fdt = FI_FLOAT; break;
    case GEX_DT_DBL: m->fdt = FI_DOUBLE; break;
    default: return 0;
    }
    int fetching = (op & RV_OPS_FETCHING) != 0;
    gex_OP_t base = fetching && op != GEX_OP_SWAP && op != GEX_OP_FCAS && op != GEX_OP_GET
                        ? GEX_OP_TO_NONFETCHING(op) : op;
    m->form = fetching || !dc ? RV_AMO_FETCH : RV_AMO_PLAIN;
    m->arg = RV_ARG_A;
    switch (base) {
    case GEX_OP_ADD: m->fop = FI_SUM; break;
    case GEX_OP_SUB: m->fop = FI_SUM; m->arg = RV_ARG_NEG_A; break;
    case GEX_OP_INC: m->fop = FI_SUM; m->arg = RV_ARG_ONE; break;
    case GEX_OP_DEC: m->fop = FI_SUM; m->arg = RV_ARG_MINUS_ONE; break;
    case GEX_OP_MULT: m->fop = FI_PROD; break;
    case GEX_OP_MIN: case GEX_OP_MAX:
        if (fp) return 0;
        m->fop = base == GEX_OP_MIN ? FI_MIN : FI_MAX;
        break;
    case GEX_OP_AND: m->fop = FI_BAND; break;
    case GEX_OP_OR: m->fop = FI_BOR; break;
    case GEX_OP_XOR: m->fop = FI_BXOR; break;
    case GEX_OP_SET: case GEX_OP_SWAP:
        m->fop = FI_ATOMIC_WRITE;
        if (fp) m->fdt = bits;
        break;
    case GEX_OP_GET:
        m->fop = FI_ATOMIC_READ;
        m->arg = RV_ARG_NONE;
        m->form = RV_AMO_FETCH;
        if (fp) m->fdt = bits;
        break;
    case GEX_OP_CAS: case GEX_OP_FCAS:
        m->fop = FI_CSWAP;
        m->form = RV_AMO_COMPARE;
        if (fp) m->fdt = bits;
        break;
    default: return 0;
    }
    return 1;
}

/* The libfabric operand for operand1 'a' of type dt (low bits of the result). */
static inline uint64_t rv_ofi_amo_arg(gex_DT_t dt, int arg, uint64_t a)
{
    if (arg == RV_ARG_A || arg == RV_ARG_NONE) return a;
    if (dt == GEX_DT_FLT) {
        float f;
        uint32_t u = (uint32_t)a;
        if (arg == RV_ARG_NEG_A) return u ^ 0x80000000u; /* exact negation: the sign bit */
        f = arg == RV_ARG_ONE ? 1.0f : -1.0f;
        memcpy(&u, &f, 4);
        return u;
    }
    if (dt == GEX_DT_DBL) {
        double d;
        uint64_t u = a;
        if (arg == RV_ARG_NEG_A) return u ^ 0x8000000000000000ull;
        d = arg == RV_ARG_ONE ? 1.0 : -1.0;
        memcpy(&u, &d, 8);
        return u;
    }
    if (arg == RV_ARG_NEG_A) return (uint64_t)0 - a; /* two's complement; the low bits count */
    return arg == RV_ARG_ONE ? 1 : ~(uint64_t)0;
}

/* ---- the support table, agreed by every rank ---------------------------------------------- */

/* The transport state whose atomics the table serves, and the table (with the provider's name);
 * both set once at open, before any domain exists. */
static rv_ofi_t *rv_ofi_amo_o;
/* The engine's completion (rv_tp_desc_t.atomics' 'done'), set before the table is first handed
 * out and never changed after (the engine always passes the same one). */
static rv_tp_amo_done_t rv_ofi_amo_done;
static int rv_ofi_amo_supports(gex_DT_t dt, gex_OP_t op);
static int rv_ofi_amo_issue(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a,
                            uint64_t b, gex_Flags_t flags, struct rv_amo_op *ao);
static rv_ratomic_native_t rv_ofi_amo_tab = {
    .size = sizeof(rv_ratomic_native_t),
    .name = "libfabric fi_atomic for every peer",
    .supports = rv_ofi_amo_supports,
    .issue = rv_ofi_amo_issue,
};

static int rv_ofi_amo_query(rv_ofi_t *o, const rv_ofi_amo_map_t *m)
{
    struct fi_atomic_attr attr;
    uint64_t fl = m->form == RV_AMO_FETCH ? FI_FETCH_ATOMIC
                : m->form == RV_AMO_COMPARE ? FI_COMPARE_ATOMIC : 0;
    return fi_query_atomic(o->domain, m->fdt, m->fop, &attr, fl) == 0 && attr.count >= 1;
}

/* Providers whose atomics are not used although fi_query_atomic offers them: udp;ofi_rxd
 * (libfabric 1.17) crashes in its progress (SIGSEGV inside fi_cq_read at the target) after a
 * few thousand atomics to one rank; see README.md, Known problems. */
static const char *const rv_ofi_amo_deny[] = { "ofi_rxd", NULL };

/* Collective (every rank calls it, in rv_ofi_open, whatever its provider offers). */
int rv_ofi_amo_open(rv_ofi_t *o)
{
    uint32_t mine[RV_OFI_AMO_NDT] = {0};
    int want = o->amo_cap && o->rma && !strcmp(rv_cfg.RATOMIC, "auto");
    for (int i = 0; want && rv_ofi_amo_deny[i]; i++)
        if (strstr(o->info->fabric_attr->prov_name, rv_ofi_amo_deny[i])) {
            rv_verbose(1, "ofi: native atomics of %s are not used (known to fail)",
                       o->info->fabric_attr->prov_name);
            want = 0;
        }
    for (int i = 0; want && i < RV_OFI_AMO_NDT; i++) {
        gex_OP_t valid = rv_ratomic_valid_ops(rv_ofi_amo_dts[i]);
        for (gex_OP_t rest = valid; rest; rest &= rest - 1) {
            gex_OP_t op = rest & -rest;
            rv_ofi_amo_map_t m;
            if (rv_ofi_amo_map(rv_ofi_amo_dts[i], op, o->dc, &m) && rv_ofi_amo_query(o, &m))
                mine[i] |= op;
        }
    }
    int any = 0;
    for (int i = 0; i < RV_OFI_AMO_NDT; i++) any |= mine[i] != 0;
    /* the contexts first: a rank that cannot have them offers nothing, before the agreement */
    if (any) {
        o->amos = calloc(RV_OFI_NAMO, sizeof *o->amos);
        int rc = o->amos ? 0 : -FI_ENOMEM;
        for (int i = RV_OFI_NAMO - 1; !rc && i >= 0; i--) {
            o->amos[i].ctx.kind = RV_OFI_CTX_AMO;
            rv_flist_put(&o->afree, &o->amos[i].link);
        }
        if (!rc && o->mr_local) /* operands and results live in the contexts */
            rc = rv_ofi_mr_reg(o, o->amos, RV_OFI_NAMO * sizeof *o->amos, FI_READ | FI_WRITE,
                               RV_OFI_KEY_AMO, &o->amomr);
        if (rc) {
            rv_warn("ofi: no native atomics: their operation contexts: %s", fi_strerror(-rc));
            memset(mine, 0, sizeof mine);
        }
    }
    uint32_t *all = calloc(o->size, sizeof mine);
    if (!all || rv_boot_allgather(mine, sizeof mine, all) != 0) {
        free(all);
        rv_warn("ofi: exchanging the atomics each rank supports failed");
        return -1;
    }
    any = 0;
    for (int i = 0; i < RV_OFI_AMO_NDT; i++) {
        uint32_t v = ~(uint32_t)0;
        for (uint32_t r = 0; r < o->size; r++) v &= all[(size_t)r * RV_OFI_AMO_NDT + i];
        o->amo_ops[i] = (gex_OP_t)v;
        any |= v != 0;
    }
    free(all);
    if (!any) { /* some rank has none: nobody uses them */
        rv_ofi_amo_close(o);
        return 0;
    }
    snprintf(o->amo_name, sizeof o->amo_name, "libfabric fi_atomic (%s) for every peer",
             o->info->fabric_attr->prov_name);
    rv_ofi_amo_tab.name = o->amo_name;
    rv_ofi_amo_o = o;
    o->amo_on = 1;
    rv_verbose(1, "ofi: native atomics: I32 0x%x U32 0x%x I64 0x%x U64 0x%x FLT 0x%x DBL 0x%x",
               (unsigned)o->amo_ops[0], (unsigned)o->amo_ops[1], (unsigned)o->amo_ops[2],
               (unsigned)o->amo_ops[3], (unsigned)o->amo_ops[4], (unsigned)o->amo_ops[5]);
    return 0;
}

void rv_ofi_amo_close(rv_ofi_t *o)
{
    if (o->amomr) fi_close(&o->amomr->fid);
    free(o->amos);
    o->amomr = NULL;
    o->amos = NULL;
    o->afree.head = NULL;
    o->amo_on = 0;
    if (rv_ofi_amo_o == o) rv_ofi_amo_o = NULL;
}

/* ---- operations ----------------------------------------------------------------------------- */

static int rv_ofi_amo_supports(gex_DT_t dt, gex_OP_t op)
{
    rv_ofi_t *o = rv_ofi_amo_o;
    int i = rv_ofi_amo_dti(dt);
    return o && i >= 0 && (o->amo_ops[i] & op) == op;
}

static inline rv_ofi_amo_t *rv_ofi_amo_get(rv_ofi_t *o)
{
    rv_slink_t *l = rv_flist_get(&o->afree);
    return l ? rv_container_of(l, rv_ofi_amo_t, link) : NULL;
}

static inline void rv_ofi_amo_put(rv_ofi_t *o, rv_ofi_amo_t *c)
{
    rv_flist_put(&o->afree, &c->link);
}

/* Posts c; 0, or -FI_EAGAIN (nothing happened), or fatal. */
static ssize_t rv_ofi_amo_post(rv_ofi_t *o, rv_ofi_amo_t *c, const rv_ofi_amo_map_t *m,
                               gex_Rank_t jr, uintptr_t tgt, uint64_t fl)
{
    const rv_ofi_rseg_t *rs = &o->rseg[jr];
    void *desc = o->amomr ? fi_mr_desc(o->amomr) : NULL;
    void *rdesc = desc, *cdesc = desc;
    struct fi_ioc iov = { &c->operand, 1 };
    struct fi_rma_ioc riov = { o->virt_addr ? (uint64_t)tgt : (uint64_t)tgt - rs->base, 1,
                               rs->key };
    struct fi_msg_atomic msg = { .msg_iov = &iov, .desc = &desc, .iov_count = 1,
                                 .addr = o->addr[jr], .rma_iov = &riov, .rma_iov_count = 1,
                                 .datatype = m->fdt, .op = m->fop, .context = &c->ctx };
    struct fi_ioc res = { &c->result, 1 }, cmp = { &c->compare, 1 };
    switch (m->form) {
    case RV_AMO_PLAIN: return fi_atomicmsg(o->ep, &msg, fl | FI_DELIVERY_COMPLETE);
    case RV_AMO_FETCH: return fi_fetch_atomicmsg(o->ep, &msg, &res, &rdesc, 1, fl);
    default: return fi_compare_atomicmsg(o->ep, &msg, &cmp, &cdesc, 1, &res, &rdesc, 1, fl);
    }
}

/* Ends a wait counted by _rivet_wait_step (if it counted one); returns rc. */
static inline int rv_ofi_amo_wait_end(int waiting, int rc)
{
    if (waiting) _rivet_wait_end();
    return rc;
}

/* Starts op on the word at owner address tgt of jobrank jr (every peer, the caller included,
 * goes through the provider: NIC and CPU atomics never mix on a domain's data).
 * Ordering: GEX_FLAG_AD_REL issues a full fence before posting, so the calling thread's earlier
 * loads and stores (and the completions it has seen) come before the atomic. GEX_FLAG_AD_ACQ
 * needs nothing here: the client learns of completion through the event or NBI set, whose
 * test reads the completion with acquire order, and what it does after that comes after the
 * atomic (as in the spec's own tests: an ACQ op, then a wait, then the dependent accesses).
 * Without them the operation is atomic only. */
static int rv_ofi_amo_issue(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a,
                            uint64_t b, gex_Flags_t flags, struct rv_amo_op *ao)
{
    rv_ofi_t *o = rv_ofi_amo_o;
    rv_ofi_amo_map_t m;
    if (__builtin_expect(!o || !rv_ofi_amo_map(dt, op, o->dc, &m), 0))
        rv_fatal("ofi: native atomic opcode 0x%x on %s is not supported", (unsigned)op,
                 rv_ratomic_dt_name(dt));
    const int immediate = (flags & GEX_FLAG_IMMEDIATE) != 0;
    rv_ofi_amo_t *c;
    int waiting = 0; /* counted among the process's waiting threads (core/progress.h) */
    while (!(c = rv_ofi_amo_get(o))) { /* every context in flight: completions free them */
        if (immediate) return rv_ofi_amo_wait_end(waiting, 1);
        _rivet_wait_step(&waiting);
    }
    c->op = ao;
    c->size = (uint8_t)rv_ratomic_size(dt);
    c->result = 0;
    uint64_t cmp = a, opd = b; /* CAS/FCAS: compare with operand1, store operand2 */
    if (m.form != RV_AMO_COMPARE) opd = rv_ofi_amo_arg(dt, m.arg, a);
    if (c->size == 4) { /* the provider reads 4 bytes at the start of each field */
        uint32_t c4 = (uint32_t)cmp, o4 = (uint32_t)opd;
        memcpy(&c->compare, &c4, 4);
        memcpy(&c->operand, &o4, 4);
    } else {
        c->compare = cmp;
        c->operand = opd;
    }
    if (flags & GEX_FLAG_AD_REL) atomic_thread_fence(memory_order_seq_cst);
    ssize_t rc;
    while ((rc = rv_ofi_amo_post(o, c, &m, jr, tgt, FI_COMPLETION)) == -FI_EAGAIN) {
        if (immediate) {
            rv_ofi_amo_put(o, c);
            return rv_ofi_amo_wait_end(waiting, 1);
        }
        RV_OFI_COUNT(o, amo_again, 1);
        _rivet_wait_step(&waiting);
    }
    rv_ofi_amo_wait_end(waiting, 0);
    if (__builtin_expect(rc != 0, 0)) {
        rv_ofi_peer_failed((int)-rc);
        rv_fatal("ofi: native atomic (opcode 0x%x on %s) to rank %u failed: %s", (unsigned)op,
                 rv_ratomic_dt_name(dt), jr, fi_strerror((int)-rc));
    }
    RV_OFI_COUNT(o, amos, 1);
    return 0;
}

/* A completion whose context is an atomic (from rv_ofi_poll). The context goes back before the
 * operation completes: the engine's completion may free (NBI) or release (NB) the record. */
void rv_ofi_amo_complete(rv_ofi_t *o, rv_ofi_amo_t *c)
{
    uint64_t old = c->result;
    if (c->size == 4) { /* the provider wrote 4 bytes at the start of 'result' */
        uint32_t v;
        memcpy(&v, &c->result, 4);
        old = v;
    }
    struct rv_amo_op *ao = c->op;
    rv_ofi_amo_put(o, c);
    rv_ofi_amo_done(ao, old);
}

/* rv_tp_desc_t.atomics: the table when this provider has native atomics, else NULL. */
const struct rv_ratomic_native *rv_ofi_amo_native(void *priv, rv_tp_amo_done_t done)
{
    rv_ofi_t *o = priv;
    if (!o || !o->amo_on || o != rv_ofi_amo_o || !done) return NULL;
    if (rv_ofi_amo_done != done) rv_ofi_amo_done = done;
    return &rv_ofi_amo_tab;
}
