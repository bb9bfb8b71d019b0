/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_err.c: client mistakes that must end the whole job with a clear
 * message (checked by the ctest driver against a regex) instead of corrupting
 * memory or hanging. One case per run: core_err <case>. Rank 0 makes the mistake
 * (or rank N-1, for the exit cases); the others wait in a barrier or a wait loop
 * that only the job's end can interrupt. */
#include "rv_test.h"

#include <signal.h>
#include <unistd.h>

enum { H_SHORT2 = 140, H_MEDIUM0, H_LONG0, H_REPLY_ONLY, H_TWO_REPLIES, H_REPLY_FROM_REPLY,
       H_REPLY_THEN_REPLY, H_REQUEST_FROM_REPLY, H_REPLY_THEN_REQUEST, H_REQUEST_FROM_REQUEST,
       H_POLL, H_BIG_REPLY, H_KEEP_TOKEN, H_NOOP_REPLY, H_EXIT };

static volatile int never;
static gex_Token_t kept;
static volatile int kept_set;

static void h_short2(gex_Token_t t, gex_AM_Arg_t a, gex_AM_Arg_t b) { (void)t, (void)a, (void)b; }
static void h_medium0(gex_Token_t t, void *buf, size_t nb) { (void)t, (void)buf, (void)nb; }
static void h_noop_reply(gex_Token_t t) { (void)t; }
static void h_two_replies(gex_Token_t t)
{
    gex_AM_ReplyShort0(t, H_NOOP_REPLY, 0);
    gex_AM_ReplyShort0(t, H_NOOP_REPLY, 0);
}
static void h_reply_from_reply(gex_Token_t t) { gex_AM_ReplyShort0(t, H_NOOP_REPLY, 0); }
static void h_reply_then_reply(gex_Token_t t) { gex_AM_ReplyShort0(t, H_REPLY_FROM_REPLY, 0); }
static void h_request_from_reply(gex_Token_t t)
{
    (void)t;
    gex_AM_RequestShort0(rvt_tm, rvt_me, H_NOOP_REPLY, 0);
}
static void h_reply_then_request(gex_Token_t t) { gex_AM_ReplyShort0(t, H_REQUEST_FROM_REPLY, 0); }
static void h_request_from_request(gex_Token_t t)
{
    (void)t;
    gex_AM_RequestShort2(rvt_tm, rvt_me, H_SHORT2, 0, 1, 2);
}
static void h_poll(gex_Token_t t) { (void)t; gasnet_AMPoll(); }
static void h_big_reply(gex_Token_t t)
{
    static char buf[1 << 20];
    size_t max = gex_Token_MaxReplyMedium(t, GEX_EVENT_NOW, 0, 0);
    gex_AM_ReplyMedium0(t, H_MEDIUM0, buf, max + 1, GEX_EVENT_NOW, 0);
}
static void h_keep_token(gex_Token_t t) { kept = t; kept_set = 1; }
static void h_exit(gex_Token_t t, gex_AM_Arg_t code) { (void)t; gasnet_exit(code); }

/* The client's SIGQUIT handler (cases quit_*): says so, then ends the job with code 4. */
static char quit_msg[64];
static void on_sigquit(int sig)
{
    (void)sig;
    ssize_t w = write(1, quit_msg, strlen(quit_msg));
    (void)w;
    gasnet_exit(4);
}

static void usage(void)
{
    fprintf(stderr, "usage: core_err <case>\n");
    exit(2);
}

int main(int argc, char **argv)
{
    if (argc < 2) usage();
    const char *c = argv[1];

    /* Calls before gex_Client_Init. */
    if (!strcmp(c, "before_init_poll")) gasnet_AMPoll();
    if (!strcmp(c, "before_init_am")) gex_AM_RequestShort0(GEX_TM_INVALID, 0, H_SHORT2, 0);
    if (!strcmp(c, "before_init_query")) (void)gex_System_QueryJobRank();
    if (!strcmp(c, "before_init_max"))
        (void)gex_AM_MaxRequestMedium(GEX_TM_INVALID, GEX_RANK_INVALID, GEX_EVENT_NOW, 0, 2);

    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "CORE_ERR", &argc, &argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    if (!strcmp(c, "attach_size")) {
        if (rvt_me == 0) RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, GASNET_PAGESIZE + 1));
        else RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, GASNET_PAGESIZE));
        RVT_FAIL("attach of an odd size succeeded");
    }
    if (!strcmp(c, "attach_null")) gex_Segment_Attach(NULL, rvt_tm, GASNET_PAGESIZE);
    if (!strcmp(c, "attach_too_big"))
        gex_Segment_Attach(&rvt_seg, rvt_tm, gasnet_getMaxLocalSegmentSize() + GASNET_PAGESIZE);
    if (!strcmp(c, "attach_team")) {
        gex_TM_t t;
        gex_TM_Split(&t, rvt_tm, 0, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
        gex_Segment_Attach(&rvt_seg, t, GASNET_PAGESIZE);
    }
    if (!strcmp(c, "attach_twice")) {
        RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, GASNET_PAGESIZE));
        gex_Segment_Attach(&rvt_seg, rvt_tm, GASNET_PAGESIZE);
    }
    if (!strcmp(c, "translate_jobrank")) gex_TM_TranslateJobrankToRank(rvt_tm, rvt_n);
    if (!strcmp(c, "translate_rank")) gex_TM_TranslateRankToJobrank(rvt_tm, rvt_n + 1);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 16 * GASNET_PAGESIZE));
    gex_AM_Entry_t table[] = {
        { H_SHORT2, (gex_AM_Fn_t)h_short2, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 2, NULL, "short2" },
        { H_MEDIUM0, (gex_AM_Fn_t)h_medium0, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQREP, 0, NULL, "medium0" },
        { H_LONG0, (gex_AM_Fn_t)h_medium0, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 0, NULL, "long0" },
        { H_REPLY_ONLY, (gex_AM_Fn_t)h_noop_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "reply_only" },
        { H_TWO_REPLIES, (gex_AM_Fn_t)h_two_replies, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_REPLY_FROM_REPLY, (gex_AM_Fn_t)h_reply_from_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, NULL },
        { H_REPLY_THEN_REPLY, (gex_AM_Fn_t)h_reply_then_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_REQUEST_FROM_REPLY, (gex_AM_Fn_t)h_request_from_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, NULL },
        { H_REPLY_THEN_REQUEST, (gex_AM_Fn_t)h_reply_then_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_REQUEST_FROM_REQUEST, (gex_AM_Fn_t)h_request_from_request, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_POLL, (gex_AM_Fn_t)h_poll, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_BIG_REPLY, (gex_AM_Fn_t)h_big_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_KEEP_TOKEN, (gex_AM_Fn_t)h_keep_token, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, NULL },
        { H_NOOP_REPLY, (gex_AM_Fn_t)h_noop_reply, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQREP, 0, NULL, NULL },
        { H_EXIT, (gex_AM_Fn_t)h_exit, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, NULL },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, sizeof table / sizeof table[0]));
    rvt_barrier();

    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    static char buf[8 << 20];
    if (!strcmp(c, "return0")) {
        /* Every rank returns from main without a final barrier, after some traffic. */
        for (int i = 0; i < 100; i++) RVT_OK(gex_AM_RequestShort(rvt_tm, peer, H_NOOP_REPLY, 0));
        return 0;
    }
    if (!strcmp(c, "crash")) {
        /* A crash is reported as one (no library catches SIGSEGV and exits 1 instead). */
        rvt_barrier();
        if (rvt_me == 0) raise(SIGSEGV);
        GASNET_BLOCKUNTIL(never);
        return 0;
    }
    if (!strncmp(c, "quit_", 5)) {
        /* The last rank gets a SIGINT: the library turns it into a SIGQUIT, which the
         * client's handler (quit_handler) catches and ends the job with 4; the others get
         * the job's end as a SIGQUIT too. quit_default: no handler, the rank dies of the
         * SIGINT as it would without Rivet (job status 130). */
        snprintf(quit_msg, sizeof quit_msg, "core_err: rank %u: SIGQUIT handler\n",
                 (unsigned)rvt_me);
        if (!strcmp(c, "quit_handler")) signal(SIGQUIT, on_sigquit);
        rvt_barrier();
        if (rvt_me == rvt_n - 1) kill(getpid(), SIGINT);
        GASNET_BLOCKUNTIL(never);
        return 0;
    }
    if (!strcmp(c, "exit_busy")) {
        /* Rank 0 ends the job with code 3 while every other rank is in the middle of RMA
         * with it: their next operations find rank 0 gone, and each must still end by
         * its SIGQUIT handler (the job's end reaching it), not by a transport error. */
        snprintf(quit_msg, sizeof quit_msg, "core_err: rank %u: SIGQUIT handler\n",
                 (unsigned)rvt_me);
        signal(SIGQUIT, on_sigquit);
        void *seg0 = NULL;
        RVT_OK(gex_Segment_QueryBound(rvt_tm, 0, &seg0, NULL, NULL));
        rvt_barrier();
        if (rvt_me == 0) gasnet_exit(3);
        for (;;) {
            gex_RMA_GetBlocking(rvt_tm, buf, 0, seg0, 8 * GASNET_PAGESIZE, 0);
            gex_RMA_PutBlocking(rvt_tm, 0, (char *)seg0 + 8 * GASNET_PAGESIZE, buf,
                                8 * GASNET_PAGESIZE, 0);
        }
    }
    if (!strcmp(c, "exit3") || !strcmp(c, "exit_handler")) {
        /* The last rank ends the job with code 3 (itself, or through a handler on
         * rank 0); everybody else waits forever. */
        if (rvt_me == rvt_n - 1) {
            if (!strcmp(c, "exit3")) gasnet_exit(3);
            RVT_OK(gex_AM_RequestShort(rvt_tm, 0, H_EXIT, 0, 3));
        }
        GASNET_BLOCKUNTIL(never);
        return 0;
    }

    if (rvt_me == 0) {
        void *pseg = NULL;
        uintptr_t psize = 0;
        RVT_OK(gex_Segment_QueryBound(rvt_tm, peer, &pseg, NULL, &psize));
        char *pend = (char *)pseg + psize;
        size_t maxmed = gex_AM_MaxRequestMedium(rvt_tm, peer, GEX_EVENT_NOW, 0, 0);
        if (!strcmp(c, "unregistered")) gex_AM_RequestShort0(rvt_tm, peer, 200, 0);
        else if (!strcmp(c, "unregistered_medium"))
            gex_AM_RequestMedium0(rvt_tm, peer, 201, buf, 10, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "category")) gex_AM_RequestMedium0(rvt_tm, peer, H_SHORT2, buf, 8, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "category_long"))
            gex_AM_RequestLong0(rvt_tm, peer, H_MEDIUM0, buf, 8, pseg, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "reply_as_request")) gex_AM_RequestShort0(rvt_tm, peer, H_REPLY_ONLY, 0);
        else if (!strcmp(c, "nargs")) gex_AM_RequestShort3(rvt_tm, peer, H_SHORT2, 0, 1, 2, 3);
        else if (!strcmp(c, "nargs_zero")) gex_AM_RequestShort0(rvt_tm, peer, H_SHORT2, 0);
        else if (!strcmp(c, "medium_max"))
            gex_AM_RequestMedium0(rvt_tm, peer, H_MEDIUM0, buf, maxmed + 1, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "reply_max")) gex_AM_RequestShort0(rvt_tm, peer, H_BIG_REPLY, 0);
        else if (!strcmp(c, "long_max")) {
            size_t maxlong = gex_AM_MaxRequestLong(rvt_tm, peer, GEX_EVENT_NOW, 0, 0);
            RVT_CHECK(maxlong < sizeof buf, "max Long %zu is larger than the test buffer", maxlong);
            gex_AM_RequestLong0(rvt_tm, peer, H_LONG0, buf, maxlong + 1, pseg, GEX_EVENT_NOW, 0);
        } else if (!strcmp(c, "long_outside"))
            gex_AM_RequestLong0(rvt_tm, peer, H_LONG0, buf, 64, pend - 8, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "long_below"))
            gex_AM_RequestLong0(rvt_tm, peer, H_LONG0, buf, 64, (char *)pseg - 1, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "long_private"))
            gex_AM_RequestLong0(rvt_tm, peer, H_LONG0, buf, 64, buf, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "rank_range")) gex_AM_RequestShort0(rvt_tm, rvt_n, H_NOOP_REPLY, 0);
        else if (!strcmp(c, "rank_range_medium"))
            gex_AM_RequestMedium0(rvt_tm, rvt_n + 5, H_MEDIUM0, buf, 8, GEX_EVENT_NOW, 0);
        else if (!strcmp(c, "rank_range_query")) gex_Segment_QueryBound(rvt_tm, rvt_n, NULL, NULL, NULL);
        else if (!strcmp(c, "two_replies")) gex_AM_RequestShort0(rvt_tm, peer, H_TWO_REPLIES, 0);
        else if (!strcmp(c, "reply_from_reply")) gex_AM_RequestShort0(rvt_tm, peer, H_REPLY_THEN_REPLY, 0);
        else if (!strcmp(c, "request_from_reply"))
            gex_AM_RequestShort0(rvt_tm, peer, H_REPLY_THEN_REQUEST, 0);
        else if (!strcmp(c, "request_from_request"))
            gex_AM_RequestShort0(rvt_tm, peer, H_REQUEST_FROM_REQUEST, 0);
        else if (!strcmp(c, "poll_in_handler")) gex_AM_RequestShort0(rvt_tm, peer, H_POLL, 0);
        else if (!strcmp(c, "reply_outside_handler")) {
            gex_AM_RequestShort0(rvt_tm, rvt_me, H_KEEP_TOKEN, 0);
            GASNET_BLOCKUNTIL(kept_set);
            gex_AM_ReplyShort0(kept, H_NOOP_REPLY, 0);
        } else usage();
    }
    /* The mistake ends the job; nobody gets past this. */
    GASNET_BLOCKUNTIL(never);
    return 0;
}
