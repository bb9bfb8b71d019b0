/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_limits.c: the AM limit queries. gex_AM_MaxArgs() >= 16; every
 * gex_AM_Max{Request,Reply}{Medium,Long} result is >= 512 for every peer, argument
 * count, lc_opt and flags, non-increasing in the argument count, symmetric between the
 * two ends (exchanged with AMs), and for GEX_RANK_INVALID the minimum over the peers
 * and the same on every rank; the gex_AM_LUB* values are >= 512 and exactly the least Max
 * (GASNet's testgasnet checks that), before and after gex_Segment_Attach, and may be asked
 * before gex_Client_Init (Realm does): the same Medium answer, a Long one no larger;
 * gex_Token_MaxReply* inside a Request handler equals gex_AM_MaxReply* for the sender. */
#include "rv_test.h"

enum { F_REQ_MED, F_REP_MED, F_REQ_LONG, F_REP_LONG, NF };
static const char *const fname[NF] = { "gex_AM_MaxRequestMedium", "gex_AM_MaxReplyMedium",
                                       "gex_AM_MaxRequestLong", "gex_AM_MaxReplyLong" };
#define NARGS 17
#define NLC 3
enum { H_ROW = 140, H_ASK, H_ANSWER };

static gex_Event_t some_event;

static const gex_Event_t *lc_of(int l, int f)
{
    /* NOW, a pointer, GROUP (Requests only: Replies may not use GROUP) */
    if (l == 0) return GEX_EVENT_NOW;
    if (l == 1 || f == F_REP_MED || f == F_REP_LONG) return &some_event;
    return GEX_EVENT_GROUP;
}

static size_t query(int f, gex_Rank_t r, const gex_Event_t *lc, gex_Flags_t fl, unsigned n)
{
    switch (f) {
    case F_REQ_MED: return gex_AM_MaxRequestMedium(rvt_tm, r, lc, fl, n);
    case F_REP_MED: return gex_AM_MaxReplyMedium(rvt_tm, r, lc, fl, n);
    case F_REQ_LONG: return gex_AM_MaxRequestLong(rvt_tm, r, lc, fl, n);
    default: return gex_AM_MaxReplyLong(rvt_tm, r, lc, fl, n);
    }
}

/* What one rank tells another: its results for the pair, and for GEX_RANK_INVALID. */
typedef struct {
    uint64_t pair[NF][NLC][NARGS];
    uint64_t any[NF][NLC][NARGS];
} row_t;

static row_t *mine;               /* [rank]: my results with that peer */
static row_t  my_any;
static volatile unsigned rows_in, answers;

static void h_row(gex_Token_t t, void *buf, size_t nb)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    gex_Rank_t src = info.gex_srcrank;
    RVT_CHECK(nb == sizeof(row_t), "row of %zu bytes", nb);
    row_t theirs;
    memcpy(&theirs, buf, sizeof theirs);
    for (int f = 0; f < NF; f++)
        for (int l = 0; l < NLC; l++)
            for (unsigned n = 0; n < NARGS; n++) {
                RVT_CHECK(theirs.pair[f][l][n] == mine[src].pair[f][l][n],
                          "%s not symmetric: rank %u -> %u gives %" PRIu64 ", %u -> %u gives %" PRIu64
                          " (lc %d, %u args)", fname[f], (unsigned)src, (unsigned)rvt_me,
                          theirs.pair[f][l][n], (unsigned)rvt_me, (unsigned)src,
                          mine[src].pair[f][l][n], l, n);
                RVT_CHECK(theirs.any[f][l][n] == my_any.any[f][l][n],
                          "%s(GEX_RANK_INVALID) differs: rank %u has %" PRIu64 ", rank %u has %" PRIu64,
                          fname[f], (unsigned)src, theirs.any[f][l][n], (unsigned)rvt_me,
                          my_any.any[f][l][n]);
            }
    rows_in++;
}

/* The token queries, in a Request handler, against the (tm, rank) queries. */
static void h_ask(gex_Token_t t)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    for (unsigned n = 0; n < NARGS; n++)
        for (int l = 0; l < 2; l++) {
            const gex_Event_t *lc = l ? &some_event : GEX_EVENT_NOW;
            size_t m = gex_Token_MaxReplyMedium(t, lc, 0, n);
            size_t g = gex_Token_MaxReplyLong(t, lc, 0, n);
            RVT_CHECK(m >= 512 && g >= 512, "token limits %zu, %zu below 512", m, g);
            RVT_CHECK(m == gex_AM_MaxReplyMedium(rvt_tm, info.gex_srcrank, lc, 0, n),
                      "gex_Token_MaxReplyMedium=%zu differs from gex_AM_MaxReplyMedium", m);
            RVT_CHECK(g == gex_AM_MaxReplyLong(rvt_tm, info.gex_srcrank, lc, 0, n),
                      "gex_Token_MaxReplyLong=%zu differs from gex_AM_MaxReplyLong", g);
        }
    gex_AM_ReplyShort(t, H_ANSWER, 0);
}

static void h_answer(gex_Token_t t) { (void)t; answers++; }

int main(int argc, char **argv)
{
    size_t early[NF] = { gex_AM_LUBRequestMedium(), gex_AM_LUBReplyMedium(),
                         gex_AM_LUBRequestLong(), gex_AM_LUBReplyLong() };
    rvt_init(&argc, &argv, 0);
    gex_AM_Entry_t table[] = {
        { H_ROW, (gex_AM_Fn_t)h_row, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 0, NULL, "row" },
        { H_ASK, (gex_AM_Fn_t)h_ask, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ask" },
        { H_ANSWER, (gex_AM_Fn_t)h_answer, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "answer" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 3));
    RVT_CHECK(gex_AM_MaxArgs() >= 16, "gex_AM_MaxArgs()=%u", gex_AM_MaxArgs());

    size_t lub[NF] = { gex_AM_LUBRequestMedium(), gex_AM_LUBReplyMedium(),
                       gex_AM_LUBRequestLong(), gex_AM_LUBReplyLong() };
    for (int f = 0; f < NF; f++) {
        RVT_CHECK(lub[f] >= 512, "LUB %d is %zu", f, lub[f]);
        RVT_CHECK(f >= F_REQ_LONG ? lub[f] >= early[f] : lub[f] == early[f],
                  "LUB %d is %zu, but %zu before gex_Client_Init", f, lub[f], early[f]);
    }

    static const gex_Flags_t flagsets[] = { 0, GEX_FLAG_IMMEDIATE, GEX_FLAG_AM_PREPARE_LEAST_CLIENT,
                                            GEX_FLAG_AM_PREPARE_LEAST_ALLOC };
    mine = calloc(rvt_n, sizeof *mine);
    RVT_CHECK(mine != NULL, "out of memory");
    size_t overall[NF] = { SIZE_MAX, SIZE_MAX, SIZE_MAX, SIZE_MAX };
    for (int f = 0; f < NF; f++)
        for (int l = 0; l < NLC; l++)
            for (size_t fs = 0; fs < sizeof flagsets / sizeof flagsets[0]; fs++) {
                gex_Flags_t fl = flagsets[fs];
                const gex_Event_t *lc = lc_of(l, f);
                for (unsigned n = 0; n < NARGS; n++) {
                    size_t any = query(f, GEX_RANK_INVALID, lc, fl, n), least = SIZE_MAX;
                    for (gex_Rank_t r = 0; r < rvt_n; r++) {
                        size_t v = query(f, r, lc, fl, n);
                        RVT_CHECK(v >= 512, "%s(rank %u, %u args) = %zu < 512", fname[f],
                                  (unsigned)r, n, v);
                        RVT_CHECK(v == query(f, r, lc, fl, n), "%s is not stable", fname[f]);
                        if (n) RVT_CHECK(v <= query(f, r, lc, fl, n - 1), "%s grows with numargs "
                                         "(%u args: %zu)", fname[f], n, v);
                        if (!(fl & (GEX_FLAG_AM_PREPARE_LEAST_CLIENT | GEX_FLAG_AM_PREPARE_LEAST_ALLOC)))
                            RVT_CHECK(lub[f] <= v, "LUB %zu above %s(rank %u, %u args)=%zu", lub[f],
                                      fname[f], (unsigned)r, n, v);
                        if (v < least) least = v;
                        if (v < overall[f] && !(fl & (GEX_FLAG_AM_PREPARE_LEAST_CLIENT |
                                                      GEX_FLAG_AM_PREPARE_LEAST_ALLOC)))
                            overall[f] = v;
                        if (fs == 0) mine[r].pair[f][l][n] = v;
                    }
                    RVT_CHECK(any == least, "%s(GEX_RANK_INVALID, %u args)=%zu, but the least over "
                              "the ranks is %zu", fname[f], n, any, least);
                    if (fs == 0) my_any.any[f][l][n] = any;
                }
            }
    for (int f = 0; f < NF; f++)
        RVT_CHECK(lub[f] == overall[f], "LUB %d is %zu, but the least %s is %zu", f, lub[f],
                  fname[f], overall[f]);
    rvt_barrier();

    /* Symmetry: send every rank (me included) my results for our pair. */
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        row_t row;
        memcpy(row.pair, mine[r].pair, sizeof row.pair);
        memcpy(row.any, my_any.any, sizeof row.any);
        RVT_OK(gex_AM_RequestMedium0(rvt_tm, r, H_ROW, &row, sizeof row, GEX_EVENT_NOW, 0));
    }
    GASNET_BLOCKUNTIL(rows_in == rvt_n);

    /* Token queries: ask every rank. */
    for (gex_Rank_t r = 0; r < rvt_n; r++) RVT_OK(gex_AM_RequestShort0(rvt_tm, r, H_ASK, 0));
    GASNET_BLOCKUNTIL(answers == rvt_n);

    /* After gex_Segment_Attach the Long LUB is still the least Max (and no smaller than
     * before: limits only grow, so an answer given earlier stays a bound). */
    rvt_barrier(); /* every Reply is in before anyone enters the attach */
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 1 << 20));
    for (int f = F_REQ_LONG; f <= F_REP_LONG; f++) {
        size_t after = f == F_REQ_LONG ? gex_AM_LUBRequestLong() : gex_AM_LUBReplyLong();
        size_t least = SIZE_MAX;
        for (gex_Rank_t r = 0; r < rvt_n; r++) {
            size_t v = query(f, r, GEX_EVENT_NOW, 0, NARGS - 1);
            if (v < least) least = v;
        }
        RVT_CHECK(after == least && after >= lub[f], "after attach the LUB of %s is %zu, the "
                  "least Max %zu, before attach %zu", fname[f], after, least, lub[f]);
    }
    return rvt_done("am_limits");
}
