/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_deliver.c: validates each arriving AM and runs its handler (the transport's upcall). */
#include "am/am_int.h"
#include "am/am_long.h"
#include "am/am_run.h"
#include "core/trace.h"

#include <string.h>

extern rv_am_ifn_t rv_am_internal[RV_AMI_COUNT];

static const char *const rv_kind_name[] = { "?", "Short", "Medium", "Long" };

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

void rv_am_entry_bad(const gex_AM_Entry_t *e, unsigned handler, unsigned kind, int is_req,
                     unsigned nargs, gex_Rank_t src)
{
    const char *what = is_req ? "Request" : "Reply";
    if (!e->gex_fnptr)
        rv_fatal("AM handler index %u is not registered (received an AM %s %s with %u args "
                 "from rank %u)", handler, rv_kind_name[kind], what, nargs, src);
    if (!(e->gex_flags & rv_kind_flag(kind)) ||
        !(e->gex_flags & (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY))) {
        char d[64];
        rv_entry_desc(e, d, sizeof d);
        rv_fatal("AM handler %u (%s) is registered for %s, but an AM %s %s arrived from rank %u",
                 handler, e->gex_name ? e->gex_name : "unnamed", d, rv_kind_name[kind], what, src);
    }
    rv_fatal("AM handler %u (%s) is registered with %u arguments, but an AM %s %s with %u "
             "arguments arrived from rank %u", handler, e->gex_name ? e->gex_name : "unnamed",
             e->gex_nargs, rv_kind_name[kind], what, nargs, src);
}

/* RIVET_STATS and RIVET_TRACE: runs the handler as rv_am_deliver would, counted (calls and
 * time by category) and traced (one event, named by the handler's registered name, with the
 * sender, payload size and handler index), as each is on. */
__attribute__((noinline)) void rv_am_run_observed(struct rv_token *tok, rv_am_ifn_t ifn,
                                                  const gex_AM_Entry_t *e, unsigned kind,
                                                  int is_req, void *buf, size_t nb,
                                                  unsigned handler, const gex_AM_Arg_t *args,
                                                  unsigned nargs)
{
    int trace = RV_OBS_ON(RV_OBS_TRACE), stats = RV_STAT_ON();
    unsigned id = ifn ? RV_TR_AMI_HANDLER : RV_TR_AM_HANDLER;
    uint64_t t0 = trace ? rv_trace_begin(id) : 0;
    uint64_t s0 = stats ? rv_stats_ticks() : 0;
    if (ifn)
        ifn(tok, buf, nb, args, nargs);
    else
        rv_am_call(e->gex_fnptr, kind == RV_AM_SHORT, tok, buf, nb, args, nargs);
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
        const char *label = ifn ? rv_am_internal_name(handler, tok->is_req) : e->gex_name;
        rv_trace_end(id, t0, label, tok->src, kind == RV_AM_SHORT ? 0 : nb, handler);
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
        e = rv_am_entry(ep, h->handler, kind, is_req, h->nargs, src);
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
    rv_am_gate_close();
    if (RV_OBS_ON(RV_OBS_TRACE | RV_OBS_STATS))
        rv_am_run_observed(&tok, ifn, e, kind, is_req, buf, nb, h->handler, h->args, h->nargs);
    else if (internal)
        ifn(&tok, buf, nb, h->args, h->nargs);
    else
        rv_am_call(e->gex_fnptr, kind == RV_AM_SHORT, &tok, buf, nb, h->args, h->nargs);
    _rivet_ev_ready = ev_ready;
    rv_am_cur_token = outer;
    rv_am_gate_open(outer);
#undef what
}
