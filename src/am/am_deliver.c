/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_deliver.c: validates each arriving AM and runs its handler (the transport's upcall). */
#include "am/am_int.h"
#include "am/am_long.h"
#include "core/trace.h"

#include <string.h>

extern rv_am_ifn_t rv_am_internal[RV_AMI_COUNT];

/* Argument lists for handler calls with 0..16 arguments. */
#define RV_T0
#define RV_T1 RV_T0, gex_AM_Arg_t
#define RV_T2 RV_T1, gex_AM_Arg_t
#define RV_T3 RV_T2, gex_AM_Arg_t
#define RV_T4 RV_T3, gex_AM_Arg_t
#define RV_T5 RV_T4, gex_AM_Arg_t
#define RV_T6 RV_T5, gex_AM_Arg_t
#define RV_T7 RV_T6, gex_AM_Arg_t
#define RV_T8 RV_T7, gex_AM_Arg_t
#define RV_T9 RV_T8, gex_AM_Arg_t
#define RV_T10 RV_T9, gex_AM_Arg_t
#define RV_T11 RV_T10, gex_AM_Arg_t
#define RV_T12 RV_T11, gex_AM_Arg_t
#define RV_T13 RV_T12, gex_AM_Arg_t
#define RV_T14 RV_T13, gex_AM_Arg_t
#define RV_T15 RV_T14, gex_AM_Arg_t
#define RV_T16 RV_T15, gex_AM_Arg_t
#define RV_V0
#define RV_V1 RV_V0, a[0]
#define RV_V2 RV_V1, a[1]
#define RV_V3 RV_V2, a[2]
#define RV_V4 RV_V3, a[3]
#define RV_V5 RV_V4, a[4]
#define RV_V6 RV_V5, a[5]
#define RV_V7 RV_V6, a[6]
#define RV_V8 RV_V7, a[7]
#define RV_V9 RV_V8, a[8]
#define RV_V10 RV_V9, a[9]
#define RV_V11 RV_V10, a[10]
#define RV_V12 RV_V11, a[11]
#define RV_V13 RV_V12, a[12]
#define RV_V14 RV_V13, a[13]
#define RV_V15 RV_V14, a[14]
#define RV_V16 RV_V15, a[15]
#define RV_SHORT_CASE(n) \
    case n: ((void (*)(gex_Token_t RV_T##n))fn)(tok RV_V##n); break;
#define RV_MEDLONG_CASE(n) \
    case n: ((void (*)(gex_Token_t, void *, size_t RV_T##n))fn)(tok, buf, nb RV_V##n); break;
#define RV_ALL_CASES(X) \
    X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16)

static inline __attribute__((always_inline)) void rv_am_call(gex_AM_Fn_t fn, int is_short,
                                                            gex_Token_t tok, void *buf, size_t nb,
                       const gex_AM_Arg_t *a, unsigned nargs)
{
    if (is_short) {
        switch (nargs) { RV_ALL_CASES(RV_SHORT_CASE) }
    } else {
        switch (nargs) { RV_ALL_CASES(RV_MEDLONG_CASE) }
    }
}

static const char *const rv_kind_name[] = { "?", "Short", "Medium", "Long" };

static gex_Flags_t rv_kind_flag(unsigned kind)
{
    return kind == RV_AM_SHORT ? GEX_FLAG_AM_SHORT
         : kind == RV_AM_MEDIUM ? GEX_FLAG_AM_MEDIUM : GEX_FLAG_AM_LONG;
}

static void rv_entry_desc(const gex_AM_Entry_t *e, char *buf, size_t n)
{
    gex_Flags_t f = e->gex_flags;
    const char *cat = (f & GEX_FLAG_AM_MEDLONG) == GEX_FLAG_AM_MEDLONG ? "Medium/Long"
                    : (f & GEX_FLAG_AM_SHORT) ? "Short"
                    : (f & GEX_FLAG_AM_MEDIUM) ? "Medium" : "Long";
    const char *rr = (f & GEX_FLAG_AM_REQREP) == GEX_FLAG_AM_REQREP ? "Request/Reply"
                   : (f & GEX_FLAG_AM_REQUEST) ? "Request" : "Reply";
    snprintf(buf, n, "%s %s", cat, rr);
}

const char *rv_am_internal_name(unsigned index, int is_req)
{
    static const char *const names[RV_AMI_COUNT] = {
        [RV_AMI_BARRIER] = "rivet barrier AM",       [RV_AMI_PUT] = "rivet Put chunk AM",
        [RV_AMI_PUT_ACK] = "rivet Put ack AM",       [RV_AMI_GET] = "rivet Get request AM",
        [RV_AMI_GET_REPLY] = "rivet Get data AM",    [RV_AMI_AMO] = "rivet atomic AM",
        [RV_AMI_AMO_REPLY] = "rivet atomic reply AM", [RV_AMI_COLL] = "rivet collective AM",
        [RV_AMI_VIS_PUT] = "rivet VIS Put AM",       [RV_AMI_VIS_ACK] = "rivet VIS ack AM",
        [RV_AMI_VIS_GET] = "rivet VIS Get AM",       [RV_AMI_VIS_GETR] = "rivet VIS Get data AM",
        [RV_AMI_PUT_EP] = "rivet Put chunk AM (endpoint)",
    };
    const char *s = index < RV_AMI_COUNT ? names[index] : NULL;
    return s ? s : is_req ? "rivet internal AM request" : "rivet internal AM reply";
}

/* RIVET_STATS and RIVET_TRACE: runs the handler as rv_am_deliver would, counted (calls and
 * time by category) and traced (one event, named by the handler's registered name, with the
 * sender, payload size and handler index), as each is on. */
static __attribute__((noinline)) void rv_am_run_observed(struct rv_token *tok, rv_am_ifn_t ifn,
                                                         const gex_AM_Entry_t *e, unsigned kind,
                                                         int is_req, void *buf, size_t nb,
                                                         const rv_am_hdr_t *h)
{
    int trace = RV_OBS_ON(RV_OBS_TRACE), stats = RV_STAT_ON();
    unsigned id = ifn ? RV_TR_AMI_HANDLER : RV_TR_AM_HANDLER;
    uint64_t t0 = trace ? rv_trace_begin(id) : 0;
    uint64_t s0 = stats ? rv_stats_ticks() : 0;
    if (ifn)
        ifn(tok, buf, nb, h->args, h->nargs);
    else
        rv_am_call(e->gex_fnptr, kind == RV_AM_SHORT, tok, buf, nb, h->args, h->nargs);
    if (stats) {
        uint64_t dt = rv_stats_ticks() - s0;
        if (ifn) {
            rv_stats_add(RV_ST_AM_INT_RECV, 1);
            rv_stats_add(RV_ST_AM_INT_NS, dt);
        } else {
            rv_stats_add((rv_stat_t)(RV_ST_AM_RECV_SHORT_REQ + 2 * (kind - RV_AM_SHORT) + !is_req),
                         1);
            rv_stats_add(RV_ST_AM_HANDLER_NS, dt);
        }
    }
    if (trace) {
        const char *label = ifn ? rv_am_internal_name(h->handler, tok->is_req) : e->gex_name;
        rv_trace_end(id, t0, label, tok->src, kind == RV_AM_SHORT ? 0 : nb, h->handler);
    }
}

void rv_am_deliver(gex_Rank_t src, unsigned chan, void *msg, size_t len)
{
    rv_am_hdr_t *h = msg;
    int is_req = chan == RV_CHAN_REQ;
#define what (is_req ? "Request" : "Reply") /* for the messages only: not computed otherwise */
    /* Never trust the wire: check lengths before touching anything. */
    if (__builtin_expect(len < sizeof *h || h->nargs > RV_AM_MAX_ARGS ||
                         RV_AM_HDR_BYTES(h->nargs) > len, 0))
        rv_fatal("malformed AM %s from rank %u (%zu bytes)", what, src, len);
    unsigned kind = h->kind & RV_AM_KIND_MASK;
    size_t hl = RV_AM_HDR_BYTES(h->nargs);
    void *payload = (char *)msg + hl;
    size_t paylen = len - hl;
    size_t nb = h->nbytes;
    if (__builtin_expect(kind < RV_AM_SHORT || kind > RV_AM_LONG, 0))
        rv_fatal("malformed AM %s from rank %u (kind %u)", what, src, kind);

    struct rv_token tok = { src, (uint8_t)is_req, (uint8_t)(kind == RV_AM_LONG), 0, 0, NULL,
                            rv_client_g->ep0 };
    struct rv_ep *ep = tok.ep;
    int internal = (h->kind & RV_AM_F_INTERNAL) != 0;
    const gex_AM_Entry_t *e = NULL;
    rv_am_ifn_t ifn = NULL;

    if (internal) {
        ifn = h->handler < RV_AMI_COUNT ? rv_am_internal[h->handler] : NULL;
        if (!ifn) rv_fatal("internal AM handler %u is not known (from rank %u)", h->handler, src);
        tok.internal = 1;
    } else {
        e = &ep->handlers[h->handler];
        if (__builtin_expect(!e->gex_fnptr, 0))
            rv_fatal("AM handler index %u is not registered (received an AM %s %s with %u args "
                     "from rank %u)", h->handler, rv_kind_name[kind], what, h->nargs, src);
        if (__builtin_expect(!(e->gex_flags & rv_kind_flag(kind)) ||
                             !(e->gex_flags & (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY)),
                             0)) {
            char d[64];
            rv_entry_desc(e, d, sizeof d);
            rv_fatal("AM handler %u (%s) is registered for %s, but an AM %s %s arrived from rank %u",
                     h->handler, e->gex_name ? e->gex_name : "unnamed", d, rv_kind_name[kind], what,
                     src);
        }
        if (__builtin_expect(e->gex_nargs != h->nargs, 0) && e->gex_nargs != RV_AM_NARGS_ANY)
            rv_fatal("AM handler %u (%s) is registered with %u arguments, but an AM %s %s with %u "
                     "arguments arrived from rank %u", h->handler,
                     e->gex_name ? e->gex_name : "unnamed", e->gex_nargs, rv_kind_name[kind], what,
                     h->nargs, src);
        tok.entry = e;
    }

    void *buf = NULL;
    if (kind == RV_AM_MEDIUM) {
        if (__builtin_expect(nb != paylen, 0))
            rv_fatal("malformed AM Medium %s from rank %u (%zu of %zu payload bytes)", what, src,
                     paylen, nb);
        buf = payload;
    } else if (kind == RV_AM_LONG) {
        buf = (void *)(uintptr_t)h->dest;
        if (nb) {
            const struct rv_segment *seg = ep->seg;
            uintptr_t d = (uintptr_t)h->dest, base = seg ? (uintptr_t)seg->addr : 0;
            if (!seg || d < base || nb > seg->size || d - base > seg->size - nb)
                rv_fatal("AM Long %s from rank %u: destination [%p, %p) is outside the bound "
                         "segment [%p, %p) of this rank; nothing was written", what, src, buf,
                         (void *)(d + nb), seg ? seg->addr : NULL,
                         seg ? (void *)(base + seg->size) : NULL);
            if (h->kind & RV_AM_F_INLINE) {
                if (__builtin_expect(nb != paylen, 0))
                    rv_fatal("malformed AM Long %s from rank %u", what, src);
                memcpy(buf, payload, nb);
            } else if (h->kind & RV_AM_F_RDMA) {
                /* reassembly: runs now only if the payload is already in place */
                if (!rv_am_long_header(src, chan, msg, len, payload, paylen)) return;
            }
        }
    }

    struct rv_token *outer = rv_am_cur_token;
    unsigned char ev_ready = _rivet_ev_ready; /* 0 while a handler runs (gasnetex.h) */
    rv_am_cur_token = &tok;
    _rivet_ev_ready = 0;
    if (RV_OBS_ON(RV_OBS_TRACE | RV_OBS_STATS))
        rv_am_run_observed(&tok, ifn, e, kind, is_req, buf, nb, h);
    else if (internal)
        ifn(&tok, buf, nb, h->args, h->nargs);
    else
        rv_am_call(e->gex_fnptr, kind == RV_AM_SHORT, &tok, buf, nb, h->args, h->nargs);
    _rivet_ev_ready = ev_ready;
    rv_am_cur_token = outer;
#undef what
}
