/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_errors.c: AM calls the spec calls erroneous end the job with a message naming the
 * call and the mistake: lc_opt values an AM does not take, bad limit-query arguments, token
 * queries outside their Request handler, and negotiated-payload misuse. argv[1] names the case;
 * rank 0 makes the bad call (AMs go to itself), the other ranks poll until the job ends. */
#include "rv_test.h"

#include <string.h>

enum { H_REQ = 200, H_REP, H_KEEP, H_REP_GROUP, H_NP_REP_GROUP, H_TOKMAX_IN_REPLY, H_MED };

static volatile int kept_set;
static gex_Token_t kept;
static char buf[64];

static void h_req(gex_Token_t t) { gex_AM_ReplyShort0(t, H_REP, 0); }
static void h_rep(gex_Token_t t) { (void)t; }
static void h_keep(gex_Token_t t) { kept = t; kept_set = 1; }
static void h_rep_group(gex_Token_t t)
{
    gex_AM_ReplyMedium0(t, H_REP, buf, 8, GEX_EVENT_GROUP, 0);
}
static void h_np_rep_group(gex_Token_t t)
{
    (void)gex_AM_PrepareReplyMedium(t, buf, 8, 8, GEX_EVENT_GROUP, 0, 0);
}
static void h_tokmax_in_reply(gex_Token_t t)
{
    (void)gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 0);
}
static void h_ask_reply(gex_Token_t t) { gex_AM_ReplyShort0(t, H_TOKMAX_IN_REPLY, 0); }
static void h_med(gex_Token_t t, void *p, size_t n) { (void)t; (void)p; (void)n; }

static gex_AM_Entry_t handlers[] = {
    { H_REQ, (gex_AM_Fn_t)h_req, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "req" },
    { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 0, NULL, "rep" },
    { H_KEEP, (gex_AM_Fn_t)h_keep, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "keep" },
    { H_REP_GROUP, (gex_AM_Fn_t)h_rep_group, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL,
      "rep_group" },
    { H_NP_REP_GROUP, (gex_AM_Fn_t)h_np_rep_group, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0,
      NULL, "np_rep_group" },
    { H_TOKMAX_IN_REPLY, (gex_AM_Fn_t)h_tokmax_in_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0,
      NULL, "tokmax_in_reply" },
    { 0, (gex_AM_Fn_t)h_ask_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ask_reply" },
    { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "med" },
};

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 20);
    RVT_CHECK(argc == 2, "usage: am_errors <case>");
    const char *c = argv[1];
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, handlers, sizeof handlers / sizeof handlers[0]));
    gex_AM_Index_t h_ask = handlers[6].gex_index;
    rvt_barrier();
    if (rvt_me != 0)
        for (;;) gasnet_AMPoll();
    gex_TM_t tm = rvt_tm;
    char *seg = rvt_seg_addr(0, 0);
    size_t maxmed = gex_AM_MaxRequestMedium(tm, 0, GEX_EVENT_NOW, 0, 0);
    gex_AM_SrcDesc_t sd;

    if (!strcmp(c, "request_defer"))
        gex_AM_RequestMedium0(tm, 0, H_REP, buf, 8, GEX_EVENT_DEFER, 0);
    else if (!strcmp(c, "long_defer"))
        gex_AM_RequestLong0(tm, 0, H_REP, buf, 8, seg, GEX_EVENT_DEFER, 0);
    else if (!strcmp(c, "reply_group"))
        gex_AM_RequestShort0(tm, 0, H_REP_GROUP, 0);
    else if (!strcmp(c, "max_defer"))
        (void)gex_AM_MaxRequestMedium(tm, 0, GEX_EVENT_DEFER, 0, 0);
    else if (!strcmp(c, "max_reply_group"))
        (void)gex_AM_MaxReplyLong(tm, GEX_RANK_INVALID, GEX_EVENT_GROUP, 0, 0);
    else if (!strcmp(c, "max_least_both"))
        (void)gex_AM_MaxRequestLong(tm, 0, NULL, GEX_FLAG_AM_PREPARE_LEAST_CLIENT |
                                    GEX_FLAG_AM_PREPARE_LEAST_ALLOC, 0);
    else if (!strcmp(c, "max_nargs"))
        (void)gex_AM_MaxReplyMedium(tm, 0, GEX_EVENT_NOW, 0, gex_AM_MaxArgs() + 1);
    else if (!strcmp(c, "max_rank"))
        (void)gex_AM_MaxRequestMedium(tm, rvt_n, GEX_EVENT_NOW, 0, 0);
    else if (!strcmp(c, "token_max_outside")) {
        gex_AM_RequestShort0(tm, 0, H_KEEP, 0);
        GASNET_BLOCKUNTIL(kept_set);
        (void)gex_Token_MaxReplyLong(kept, GEX_EVENT_NOW, 0, 0);
    } else if (!strcmp(c, "token_max_in_reply"))
        gex_AM_RequestShort0(tm, 0, h_ask, 0);
    else if (!strcmp(c, "np_least_most"))
        (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 100, 50, NULL, 0, 0);
    else if (!strcmp(c, "np_least_max"))
        (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, maxmed + 1, maxmed + 1, NULL, 0, 0);
    else if (!strcmp(c, "np_commit_size")) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, buf, 64, 64, GEX_EVENT_NOW, 0, 0);
        gex_AM_CommitRequestMedium0(sd, H_REP, 65);
    } else if (!strcmp(c, "np_commit_nargs")) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 2);
        gex_AM_CommitRequestMedium1(sd, H_REP, 8, 7);
    } else if (!strcmp(c, "np_twice")) {
        (void)gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
        (void)gex_AM_PrepareRequestLong(tm, 0, NULL, 8, 8, seg, NULL, 0, 0);
    } else if (!strcmp(c, "np_after_commit")) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
        gex_AM_CommitRequestMedium0(sd, H_MED, 8); /* to myself: runs at once */
        (void)gex_AM_SrcDescAddr(sd);
    } else if (!strcmp(c, "np_noop_size"))
        (void)gex_AM_SrcDescSize(GEX_AM_SRCDESC_NO_OP);
    else if (!strcmp(c, "np_dest")) {
        sd = gex_AM_PrepareRequestLong(tm, 0, NULL, 8, 8, seg, NULL, 0, 0);
        gex_AM_CommitRequestLong0(sd, H_REP, 8, seg + 64);
    } else if (!strcmp(c, "np_cancel_kind")) {
        sd = gex_AM_PrepareRequestMedium(tm, 0, NULL, 8, 8, NULL, 0, 0);
        (void)gex_AM_CancelRequestLong(sd, 0);
    } else if (!strcmp(c, "np_reply_group"))
        gex_AM_RequestShort0(tm, 0, H_NP_REP_GROUP, 0);
    else if (!strcmp(c, "np_request_defer"))
        (void)gex_AM_PrepareRequestLong(tm, 0, buf, 8, 8, seg, GEX_EVENT_DEFER, 0, 0);
    else
        RVT_FAIL("unknown case %s", c);
    /* cases whose mistake happens in a handler: poll until it ends the job */
    for (;;) gasnet_AMPoll();
}
