/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_run.h: running a client AM handler: entry checks, the call by arity, and the handler
 * context (token, no event readiness); shared by delivery (am_deliver.c) and loopback
 * (am_inject.c), which inlines it with its category known. */
#ifndef RV_AM_RUN_H
#define RV_AM_RUN_H

#include "am/am_int.h"

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

static inline gex_Flags_t rv_kind_flag(unsigned kind)
{
    return kind == RV_AM_SHORT ? GEX_FLAG_AM_SHORT
         : kind == RV_AM_MEDIUM ? GEX_FLAG_AM_MEDIUM : GEX_FLAG_AM_LONG;
}

/* Fatal: a client AM names no usable entry (the first reason that applies). */
__attribute__((noinline, noreturn)) void rv_am_entry_bad(const gex_AM_Entry_t *e,
                                                         unsigned handler, unsigned kind,
                                                         int is_req, unsigned nargs,
                                                         gex_Rank_t src);

/* The client entry an AM of 'kind' (Request or Reply, nargs arguments) names: registered, for
 * this category and direction, and for this many arguments (or a legacy any-arity entry). */
static inline __attribute__((always_inline)) const gex_AM_Entry_t *
rv_am_entry(struct rv_ep *ep, unsigned handler, unsigned kind, int is_req, unsigned nargs,
            gex_Rank_t src)
{
    const gex_AM_Entry_t *e = &ep->handlers[handler];
    /* A free slot has no flags; a registered entry has a handler and names a category and a
     * direction (am_handlers.c), so one test of both bits covers the three checks. */
    gex_Flags_t need = rv_kind_flag(kind) | (is_req ? GEX_FLAG_AM_REQUEST : GEX_FLAG_AM_REPLY);
    if (__builtin_expect((e->gex_flags & need) != need ||
                             (e->gex_nargs != nargs && e->gex_nargs != RV_AM_NARGS_ANY),
                         0))
        rv_am_entry_bad(e, handler, kind, is_req, nargs, src);
    return e;
}

/* RIVET_STATS and RIVET_TRACE: runs a handler (internal: ifn; client: e), counted and traced
 * as each is on (am_deliver.c). */
void rv_am_run_observed(struct rv_token *tok, rv_am_ifn_t ifn, const gex_AM_Entry_t *e,
                        unsigned kind, int is_req, void *buf, size_t nb, unsigned handler,
                        const gex_AM_Arg_t *args, unsigned nargs);

/* Runs a client AM from this rank to itself (loopback) as rv_am_deliver runs one that arrived:
 * the same entry checks, token and handler context, without a message. buf is the Medium
 * payload's private copy or the Long destination, already written. */
static inline __attribute__((always_inline)) void
rv_am_run_local(unsigned chan, unsigned kind, unsigned handler, void *buf, size_t nb,
                const gex_AM_Arg_t *args, unsigned nargs)
{
    int is_req = chan == RV_CHAN_REQ;
    gex_Rank_t me = rv_job.rank;
    struct rv_ep *ep = rv_client_g->ep0;
    const gex_AM_Entry_t *e = rv_am_entry(ep, handler, kind, is_req, nargs, me);
    struct rv_token tok = { me, (uint8_t)is_req, (uint8_t)(kind == RV_AM_LONG), 0, 0, e, ep };

    struct rv_token *outer = rv_am_cur_token;
    unsigned char ev_ready = _rivet_ev_ready; /* 0 while a handler runs (gasnetex.h) */
    rv_am_cur_token = &tok;
    _rivet_ev_ready = 0;
    rv_am_gate_close();
    if (RV_OBS_ON(RV_OBS_TRACE | RV_OBS_STATS))
        rv_am_run_observed(&tok, NULL, e, kind, is_req, buf, nb, handler, args, nargs);
    else
        rv_am_call(e->gex_fnptr, kind == RV_AM_SHORT, &tok, buf, nb, args, nargs);
    _rivet_ev_ready = ev_ready;
    rv_am_cur_token = outer;
    rv_am_gate_open(outer);
}

#endif /* RV_AM_RUN_H */
