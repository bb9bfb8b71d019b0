/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_args.c: AM Short, Medium and Long Requests and Replies with every argument
 * count 0..16, in the numbered (gex_AM_RequestShort3) and the count-inferring
 * (gex_AM_RequestShort) forms, with payloads of 0, 1, 7, 8, 4095 and the maximum bytes.
 * Every rank sends each case to the next rank on the ring, one at a time; the target
 * checks every argument, every payload byte, gex_Token_Info, Medium alignment and the
 * Long destination, then Replies with the same category and argument count, which the
 * requester checks the same way. Long payloads go to unaligned destinations. */
#include "rv_test.h"
#include "am_macros.h"

enum { CAT_SHORT, CAT_MEDIUM, CAT_LONG, NCAT };
enum { RR_REQ, RR_REP };
static const char *const cat_name[NCAT] = { "Short", "Medium", "Long" };

/* Payload sizes: these, then the maximum for the call (size index NFIXED). */
#define NFIXED 5
static const size_t fixed_size[NFIXED] = { 0, 1, 7, 8, 4095 };

typedef struct {
    uint8_t cat, n, sz;
} amcase_t;
#define NCASES (17 + 2 * 17 * (NFIXED + 1))
static amcase_t cases[NCASES];
static unsigned ncases;

/* Handlers, by category, Request/Reply and argument count. */
static gex_AM_Index_t hidx[NCAT][2][17];
static gex_AM_Fn_t    hfn[NCAT][2][17];
static gex_Flags_t    hflags[NCAT][2][17];
static char           hname[NCAT][2][17][24];
static int            hcdata[NCAT][2][17];

static char     **segbase;   /* every rank's segment, as its owner sees it */
static uintptr_t  region;    /* [0, region): Long Requests; [region, 2*region): Long Replies */
static gex_Rank_t peer, prev;
static uint32_t  *rq_count;  /* Requests handled, per source */
static uint8_t   *repbuf;    /* Reply payload source */

/* What the Reply to the case in flight must look like (set before the Request). */
static volatile int rep_done;
static struct {
    unsigned cat, n;
    uint32_t seed;
    size_t   nbytes;
    void    *dest;
} rexp;

/* Replies sent with an lc_opt pointer: their event and private source buffer,
 * released in main() (a handler may not wait). */
typedef struct {
    gex_Event_t ev;
    void       *buf;
} pending_t;
static pending_t pend[NCASES];
static unsigned  npend;

static gex_Event_t dummy_ev;

/* ---- per-case parameters, derived from the case number alone ---------------- */
static uint32_t case_seed(gex_Rank_t src, unsigned k) { return src * 1000003u + k * 7919u + 1; }
static int case_inferred(unsigned k) { return k & 1; }
static int req_lc_mode(unsigned k) { return (k >> 1) % 3; } /* NOW, pointer, GROUP */
static gex_Event_t *req_lc(unsigned k, gex_Event_t *ev)
{
    int m = req_lc_mode(k);
    return m == 0 ? GEX_EVENT_NOW : m == 1 ? ev : GEX_EVENT_GROUP;
}
static int rep_lc_ptr(unsigned k) { return ((k >> 2) & 1) && cases[k].sz < NFIXED; }
static gex_Flags_t req_flags(unsigned k)
{
    return (k % 4 == 3 && cases[k].sz < NFIXED) ? GEX_FLAG_IMMEDIATE : 0;
}
static uintptr_t req_off(unsigned k) { return 1 + (k * 7) % 63; }
static uintptr_t rep_off(unsigned k) { return region + 3 + (k * 11) % 61; }

static size_t case_size(const amcase_t *c, int rr, gex_Rank_t other, const gex_Event_t *lc,
                        gex_Flags_t flags)
{
    if (c->cat == CAT_SHORT) return 0;
    if (c->sz < NFIXED) return fixed_size[c->sz];
    if (c->cat == CAT_MEDIUM)
        return rr == RR_REQ ? gex_AM_MaxRequestMedium(rvt_tm, other, lc, flags, c->n)
                            : gex_AM_MaxReplyMedium(rvt_tm, other, lc, flags, c->n);
    return rr == RR_REQ ? gex_AM_MaxRequestLong(rvt_tm, other, lc, flags, c->n)
                        : gex_AM_MaxReplyLong(rvt_tm, other, lc, flags, c->n);
}

/* ---- sending: every form of every call -------------------------------------- */
#define RQ_SHORT(n)                                                                   \
    case n:                                                                           \
        return inferred ? gex_AM_RequestShort(rvt_tm, to, h, flags AMT_V##n)          \
                        : AMT_APPLY(gex_AM_RequestShort##n, rvt_tm, to, h, flags AMT_V##n);
#define RQ_MEDIUM(n)                                                                        \
    case n:                                                                                 \
        return inferred ? gex_AM_RequestMedium(rvt_tm, to, h, src, nb, lc, flags AMT_V##n)  \
                        : AMT_APPLY(gex_AM_RequestMedium##n, rvt_tm, to, h, src, nb, lc, flags AMT_V##n);
#define RQ_LONG(n)                                                                             \
    case n:                                                                                    \
        return inferred ? gex_AM_RequestLong(rvt_tm, to, h, src, nb, dest, lc, flags AMT_V##n) \
                        : AMT_APPLY(gex_AM_RequestLong##n, rvt_tm, to, h, src, nb, dest, lc, flags AMT_V##n);
#define RP_SHORT(n)                                                         \
    case n:                                                                 \
        return inferred ? gex_AM_ReplyShort(t, h, flags AMT_V##n)           \
                        : AMT_APPLY(gex_AM_ReplyShort##n, t, h, flags AMT_V##n);
#define RP_MEDIUM(n)                                                                 \
    case n:                                                                          \
        return inferred ? gex_AM_ReplyMedium(t, h, src, nb, lc, flags AMT_V##n)      \
                        : AMT_APPLY(gex_AM_ReplyMedium##n, t, h, src, nb, lc, flags AMT_V##n);
#define RP_LONG(n)                                                                      \
    case n:                                                                             \
        return inferred ? gex_AM_ReplyLong(t, h, src, nb, dest, lc, flags AMT_V##n)     \
                        : AMT_APPLY(gex_AM_ReplyLong##n, t, h, src, nb, dest, lc, flags AMT_V##n);

/* Sends a Request (t == NULL) to rank 'to' or a Reply on token t. */
static int amt_send(gex_Token_t t, gex_Rank_t to, int cat, unsigned n, gex_AM_Index_t h,
                    const void *src, size_t nb, void *dest, gex_Event_t *lc, gex_Flags_t flags,
                    int inferred, const gex_AM_Arg_t *v)
{
    (void)v;
    if (!t) {
        if (cat == CAT_SHORT) switch (n) { AMT_ALL(RQ_SHORT) }
        else if (cat == CAT_MEDIUM) switch (n) { AMT_ALL(RQ_MEDIUM) }
        else switch (n) { AMT_ALL(RQ_LONG) }
    } else {
        if (cat == CAT_SHORT) switch (n) { AMT_ALL(RP_SHORT) }
        else if (cat == CAT_MEDIUM) switch (n) { AMT_ALL(RP_MEDIUM) }
        else switch (n) { AMT_ALL(RP_LONG) }
    }
    RVT_FAIL("bad argument count %u", n);
    return -1;
}

/* ---- receiving --------------------------------------------------------------- */
static void check_args(const char *what, const gex_AM_Arg_t *args, unsigned n, uint32_t seed)
{
    for (unsigned i = 0; i < n; i++)
        RVT_CHECK(args[i] == amt_arg(seed, i), "%s: argument %u of %u is %" PRId32 ", expected %" PRId32,
                  what, i, n, args[i], amt_arg(seed, i));
}

static void check_payload(const char *what, int cat, void *buf, size_t nb, size_t want,
                          uint32_t seed, void *dest)
{
    if (cat == CAT_SHORT) return;
    RVT_CHECK(nb == want, "%s: nbytes %zu, expected %zu", what, nb, want);
    if (cat == CAT_MEDIUM) {
        RVT_CHECK(nb == 0 || ((uintptr_t)buf & 7) == 0, "%s: Medium payload at %p is not 8-byte "
                  "aligned", what, buf);
    } else {
        RVT_CHECK(buf == dest, "%s: Long handler got buf %p, destination was %p", what, buf, dest);
    }
    if (nb) AMT_VERIFY(buf, nb, seed, what);
}

static void on_am(gex_Token_t t, int cat, int rr, unsigned n, void *buf, size_t nb,
                  const gex_AM_Arg_t *args)
{
    char what[96];
    gex_Token_Info_t info;
    gex_TI_t ti = gex_Token_Info(t, &info, GEX_TI_ALL);
    RVT_CHECK((ti & (GEX_TI_SRCRANK | GEX_TI_EP)) == (GEX_TI_SRCRANK | GEX_TI_EP),
              "gex_Token_Info returned 0x%x without the required SRCRANK and EP", (unsigned)ti);
    RVT_CHECK(info.gex_ep == rvt_ep, "gex_Token_Info: gex_ep is not this rank's endpoint");
    gex_Rank_t src = info.gex_srcrank;
    snprintf(what, sizeof what, "AM %s %s with %u args from rank %u", cat_name[cat],
             rr == RR_REQ ? "Request" : "Reply", n, (unsigned)src);
    if (ti & GEX_TI_ENTRY) {
        const gex_AM_Entry_t *e = info.gex_entry;
        RVT_CHECK(e != NULL, "%s: gex_entry is NULL", what);
        RVT_CHECK(e->gex_index == hidx[cat][rr][n], "%s: entry index %u, registered %u", what,
                  e->gex_index, hidx[cat][rr][n]);
        RVT_CHECK(e->gex_fnptr == hfn[cat][rr][n], "%s: entry names another function", what);
        RVT_CHECK(e->gex_nargs == n, "%s: entry nargs %u", what, e->gex_nargs);
        RVT_CHECK(e->gex_flags == hflags[cat][rr][n], "%s: entry flags 0x%x, registered 0x%x",
                  what, (unsigned)e->gex_flags, (unsigned)hflags[cat][rr][n]);
        RVT_CHECK(e->gex_cdata == &hcdata[cat][rr][n], "%s: entry cdata differs", what);
        RVT_CHECK(e->gex_name && !strcmp(e->gex_name, hname[cat][rr][n]), "%s: entry name '%s'",
                  what, e->gex_name ? e->gex_name : "(null)");
    }
    if (ti & GEX_TI_IS_REQ)
        RVT_CHECK(info.gex_is_req == (rr == RR_REQ), "%s: gex_is_req %d", what, (int)info.gex_is_req);
    if (ti & GEX_TI_IS_LONG)
        RVT_CHECK(info.gex_is_long == (cat == CAT_LONG), "%s: gex_is_long %d", what,
                  (int)info.gex_is_long);

    if (rr == RR_REP) {
        RVT_CHECK(src == peer, "%s: Replies come from rank %u only", what, (unsigned)peer);
        RVT_CHECK(!rep_done && cat == (int)rexp.cat && n == rexp.n,
                  "%s: unexpected (waiting for a %s Reply with %u args%s)", what,
                  cat_name[rexp.cat], rexp.n, rep_done ? ", already received" : "");
        check_args(what, args, n, rexp.seed);
        check_payload(what, cat, buf, nb, rexp.nbytes, rexp.seed, rexp.dest);
        rep_done = 1;
        return;
    }

    /* A Request: only the ring predecessor sends to me, one case at a time, in order. */
    RVT_CHECK(src == prev, "%s: Requests come from rank %u only", what, (unsigned)prev);
    unsigned k = rq_count[src];
    RVT_CHECK(k < ncases, "%s: more Requests than cases", what);
    const amcase_t *c = &cases[k];
    RVT_CHECK(c->cat == cat && c->n == n, "%s: case %u is a %s Request with %u args", what, k,
              cat_name[c->cat], c->n);
    uint32_t seed = case_seed(src, k);
    gex_Event_t ev_any;
    size_t want = case_size(c, RR_REQ, src, req_lc(k, &ev_any), req_flags(k) & ~GEX_FLAG_IMMEDIATE);
    check_args(what, args, n, seed);
    check_payload(what, cat, buf, nb, want, seed, segbase[rvt_me] + req_off(k));

    /* Reply with the same category and count; its size limit through the token. */
    uint32_t rseed = seed ^ 0x9E3779B9u;
    gex_AM_Arg_t v[AMT_MAXARGS];
    for (unsigned i = 0; i < n; i++) v[i] = amt_arg(rseed, i);
    int lcp = rep_lc_ptr(k);
    size_t rn = 0;
    void *rsrc = repbuf + (k % 8);
    gex_Event_t *rlc = GEX_EVENT_NOW;
    if (cat != CAT_SHORT) {
        rn = c->sz < NFIXED ? fixed_size[c->sz]
           : cat == CAT_MEDIUM ? gex_Token_MaxReplyMedium(t, lcp ? &ev_any : GEX_EVENT_NOW, 0, n)
                               : gex_Token_MaxReplyLong(t, lcp ? &ev_any : GEX_EVENT_NOW, 0, n);
        if (c->sz == NFIXED) {
            size_t q = case_size(c, RR_REP, src, GEX_EVENT_NOW, 0);
            RVT_CHECK(rn == q, "%s: gex_Token_MaxReply%s()=%zu but gex_AM_MaxReply%s(rank %u)=%zu",
                      what, cat_name[cat], rn, cat_name[cat], (unsigned)src, q);
        }
        if (lcp) {
            RVT_CHECK(npend < NCASES, "too many pending replies");
            rsrc = malloc(rn + 8);
            RVT_CHECK(rsrc != NULL, "malloc");
            pend[npend].buf = rsrc;
            rlc = &pend[npend].ev;
            npend++;
        }
        amt_fill(rsrc, rn, rseed);
    }
    int rc = amt_send(t, 0, cat, n, hidx[cat][RR_REP][n], rsrc, rn, segbase[src] + rep_off(k), rlc,
                      0, !case_inferred(k), v);
    RVT_CHECK(rc == 0, "%s: Reply returned %d", what, rc);
    rq_count[src] = k + 1;
}

/* The 102 handlers: each passes its arguments on as an array. */
#define DEF_HANDLERS(n)                                                                          \
    static void rq_s##n(gex_Token_t t AMT_P##n)                                                  \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_SHORT, RR_REQ, n, NULL, 0, a + 1); }       \
    static void rp_s##n(gex_Token_t t AMT_P##n)                                                  \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_SHORT, RR_REP, n, NULL, 0, a + 1); }       \
    static void rq_m##n(gex_Token_t t, void *buf, size_t nb AMT_P##n)                            \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_MEDIUM, RR_REQ, n, buf, nb, a + 1); }      \
    static void rp_m##n(gex_Token_t t, void *buf, size_t nb AMT_P##n)                            \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_MEDIUM, RR_REP, n, buf, nb, a + 1); }      \
    static void rq_l##n(gex_Token_t t, void *buf, size_t nb AMT_P##n)                            \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_LONG, RR_REQ, n, buf, nb, a + 1); }        \
    static void rp_l##n(gex_Token_t t, void *buf, size_t nb AMT_P##n)                            \
    { gex_AM_Arg_t a[] = { 0 AMT_A##n }; on_am(t, CAT_LONG, RR_REP, n, buf, nb, a + 1); }
AMT_ALL(DEF_HANDLERS)

#define FN_ROW(n)                                                       \
    hfn[CAT_SHORT][RR_REQ][n] = (gex_AM_Fn_t)rq_s##n;                   \
    hfn[CAT_SHORT][RR_REP][n] = (gex_AM_Fn_t)rp_s##n;                   \
    hfn[CAT_MEDIUM][RR_REQ][n] = (gex_AM_Fn_t)rq_m##n;                  \
    hfn[CAT_MEDIUM][RR_REP][n] = (gex_AM_Fn_t)rp_m##n;                  \
    hfn[CAT_LONG][RR_REQ][n] = (gex_AM_Fn_t)rq_l##n;                    \
    hfn[CAT_LONG][RR_REP][n] = (gex_AM_Fn_t)rp_l##n;

/* Registers all handlers with gex_index 0, varying the flag spellings
 * (MEDLONG, REQREP) that still allow each handler's use. */
static void register_all(void)
{
    static const gex_Flags_t catf[NCAT] = { GEX_FLAG_AM_SHORT, GEX_FLAG_AM_MEDIUM, GEX_FLAG_AM_LONG };
    static const gex_Flags_t rrf[2] = { GEX_FLAG_AM_REQUEST, GEX_FLAG_AM_REPLY };
    AMT_ALL(FN_ROW)
    gex_AM_Entry_t table[NCAT * 2 * 17];
    size_t k = 0;
    for (int cat = 0; cat < NCAT; cat++)
        for (int rr = 0; rr < 2; rr++)
            for (unsigned n = 0; n <= 16; n++, k++) {
                gex_Flags_t f = catf[cat];
                if (cat != CAT_SHORT && n % 3 == 2) f = GEX_FLAG_AM_MEDLONG;
                f |= n % 4 == 3 ? GEX_FLAG_AM_REQREP : rrf[rr];
                hflags[cat][rr][n] = f;
                snprintf(hname[cat][rr][n], sizeof hname[cat][rr][n], "%s_%s_%u", cat_name[cat],
                         rr ? "rep" : "req", n);
                table[k] = (gex_AM_Entry_t){ 0, hfn[cat][rr][n], f, n, &hcdata[cat][rr][n],
                                             hname[cat][rr][n] };
            }
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, k));
    /* Index 0 entries get the highest free index, in table order. */
    k = 0;
    for (int cat = 0; cat < NCAT; cat++)
        for (int rr = 0; rr < 2; rr++)
            for (unsigned n = 0; n <= 16; n++, k++) {
                RVT_CHECK(table[k].gex_index == 255 - k, "entry %zu got index %u, expected %zu", k,
                          table[k].gex_index, 255 - k);
                hidx[cat][rr][n] = table[k].gex_index;
            }
}

/* Long with nbytes == 0: dest_addr reaches the handler exactly as given, even an
 * address outside any segment, and nothing is written. */
enum { H_LONG0_REQ = 130, H_LONG0_REP };
static volatile int long0_done;
static void long0_req(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a)
{
    RVT_CHECK(nb == 0 && buf == (void *)(uintptr_t)0x1230 && a == 7, "Long 0: buf %p nbytes %zu", buf, nb);
    RVT_OK(gex_AM_ReplyLong1(t, H_LONG0_REP, NULL, 0, NULL, GEX_EVENT_NOW, 0, 8));
}
static void long0_rep(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t a)
{
    (void)t;
    RVT_CHECK(nb == 0 && buf == NULL && a == 8, "Long 0 Reply: buf %p nbytes %zu", buf, nb);
    long0_done = 1;
}

int main(int argc, char **argv)
{
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "AMARGS", &argc, &argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    peer = (rvt_me + 1) % rvt_n;
    prev = (rvt_me + rvt_n - 1) % rvt_n;

    /* The cases: Short, then Medium and Long, by argument count, then size. */
    for (unsigned n = 0; n <= 16; n++) cases[ncases++] = (amcase_t){ CAT_SHORT, (uint8_t)n, 0 };
    for (int cat = CAT_MEDIUM; cat <= CAT_LONG; cat++)
        for (unsigned n = 0; n <= 16; n++)
            for (unsigned s = 0; s <= NFIXED; s++)
                cases[ncases++] = (amcase_t){ (uint8_t)cat, (uint8_t)n, (uint8_t)s };

    /* The segment holds the largest Long Request and the largest Long Reply. */
    size_t maxlong = 0, maxmed = 0;
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        size_t a = gex_AM_MaxRequestLong(rvt_tm, r, GEX_EVENT_NOW, 0, 0);
        size_t b = gex_AM_MaxReplyLong(rvt_tm, r, GEX_EVENT_NOW, 0, 0);
        size_t c = gex_AM_MaxRequestLong(rvt_tm, r, &dummy_ev, 0, 0);
        size_t m = gex_AM_MaxReplyMedium(rvt_tm, r, GEX_EVENT_NOW, 0, 0);
        size_t mr = gex_AM_MaxRequestMedium(rvt_tm, r, GEX_EVENT_NOW, 0, 0);
        if (a > maxlong) maxlong = a;
        if (b > maxlong) maxlong = b;
        if (c > maxlong) maxlong = c;
        if (m > maxmed) maxmed = m;
        if (mr > maxmed) maxmed = mr;
    }
    region = (maxlong + 128 + GASNET_PAGESIZE - 1) & ~(uintptr_t)(GASNET_PAGESIZE - 1);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 2 * region));
    segbase = calloc(rvt_n, sizeof *segbase);
    rq_count = calloc(rvt_n, sizeof *rq_count);
    size_t bufmax = maxlong > maxmed ? maxlong : maxmed;
    uint8_t *sendbuf = malloc(bufmax + 8);
    repbuf = malloc(bufmax + 8);
    RVT_CHECK(segbase && rq_count && sendbuf && repbuf, "out of memory");
    for (gex_Rank_t r = 0; r < rvt_n; r++) segbase[r] = rvt_seg_addr(r, 0);
    register_all();
    rvt_barrier();

    for (unsigned k = 0; k < ncases; k++) {
        const amcase_t *c = &cases[k];
        uint32_t seed = case_seed(rvt_me, k);
        gex_AM_Arg_t v[AMT_MAXARGS];
        for (unsigned i = 0; i < c->n; i++) v[i] = amt_arg(seed, i);
        gex_Event_t ev = GEX_EVENT_INVALID;
        gex_Event_t *lc = req_lc(k, &ev);
        gex_Flags_t flags = req_flags(k);
        size_t nb = case_size(c, RR_REQ, peer, lc, flags & ~GEX_FLAG_IMMEDIATE);

        rexp.cat = c->cat;
        rexp.n = c->n;
        rexp.seed = seed ^ 0x9E3779B9u;
        rexp.nbytes = case_size(c, RR_REP, peer, rep_lc_ptr(k) ? &dummy_ev : GEX_EVENT_NOW, 0);
        rexp.dest = segbase[rvt_me] + rep_off(k);
        rep_done = 0;

        uint8_t *src = sendbuf + (k % 8);
        amt_fill(src, nb, seed);
        void *dest = segbase[peer] + req_off(k);
        gex_AM_Index_t h = hidx[c->cat][RR_REQ][c->n];
        int rc;
        if (flags & GEX_FLAG_IMMEDIATE) {
            /* A refused IMMEDIATE send must have sent nothing: the target counts. */
            while ((rc = amt_send(NULL, peer, c->cat, c->n, h, src, nb, dest, lc, flags,
                                  case_inferred(k), v)) != 0)
                gasnet_AMPoll();
        } else {
            rc = amt_send(NULL, peer, c->cat, c->n, h, src, nb, dest, lc, flags, case_inferred(k), v);
            RVT_CHECK(rc == 0, "case %u: Request returned %d", k, rc);
        }
        if (c->cat != CAT_SHORT) {
            if (req_lc_mode(k) == 1) gex_Event_Wait(ev);
            else if (req_lc_mode(k) == 2) gex_NBI_Wait(GEX_EC_AM, 0);
            memset(src, 0xEE, nb); /* locally complete: the source is ours again */
        }
        GASNET_BLOCKUNTIL(rep_done);
    }
    GASNET_BLOCKUNTIL(rq_count[prev] == ncases);

    gex_AM_Entry_t l0[] = {
        { H_LONG0_REQ, (gex_AM_Fn_t)long0_req, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long0_req" },
        { H_LONG0_REP, (gex_AM_Fn_t)long0_rep, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 1, NULL, "long0_rep" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, l0, 2));
    rvt_barrier();
    RVT_OK(gex_AM_RequestLong1(rvt_tm, peer, H_LONG0_REQ, NULL, 0, (void *)(uintptr_t)0x1230,
                               GEX_EVENT_NOW, 0, 7));
    GASNET_BLOCKUNTIL(long0_done);
    for (unsigned i = 0; i < npend; i++) {
        gex_Event_Wait(pend[i].ev);
        free(pend[i].buf);
    }
    free(sendbuf);
    return rvt_done("am_args");
}
