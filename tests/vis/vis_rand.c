/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_rand.c: VIS Puts and Gets of random shapes checked against a local reference
 * implementation of the spec's semantics. argv[1] picks the family:
 *   strided  up to 8 levels, elemsz 1..256, counts including 0 and 1, random signed strides
 *            (transposes and reflections; destinations never overlap, sources sometimes do),
 *            count-1 levels with junk strides, stridelevels 0, elemsz 0;
 *   vector   source and destination lists with different segmentation (empty entries too);
 *   indexed  different chunk lengths on the two sides (equal totals), count 0.
 * Every rank runs its own cases against random targets (itself included), each in its own slot
 * of the target's segment, so ranks never disturb each other. Every sync form is used: Blocking,
 * NB + Wait / Test / WaitAll, NB with GEX_FLAG_ENABLE_LEAF_LC (gex_Event_QueryLeaf; the source
 * is scribbled right after local completion), NBI + gex_NBI_Wait, NBI with ENABLE_LEAF_LC
 * (gex_NBI_Wait(GEX_EC_LC), then scribble), NBI inside an access region, and the IMMEDIATE forms
 * (retried on "no op"); several operations are in flight at once. Destination bytes the shape
 * does not name must keep their old values. Public API only. */
#include "rv_test.h"
#include <gasnet_vis.h>
#include "rv_rand.h"

#define SUB ((size_t)256 * 1024)   /* one operation's region on each side */
#define NSUB 3                     /* operations in flight at once, at most */
#define SLOT (NSUB * SUB)          /* rank r's slot in every target segment */
#define MAXLEV 8

static uint64_t rs;
static uint64_t rnd(void) { return rvt_rand(&rs); }
static size_t rr(size_t lo, size_t hi) { return lo + (size_t)(rnd() % (hi - lo + 1)); }

enum { K_STRIDED, K_VECTOR, K_INDEXED };
static const char *const kind_name[] = {"Strided", "Vector", "Indexed"};
static int kind;

enum { F_BLOCKING, F_NB_WAIT, F_NB_TEST, F_NB_WAITALL, F_NB_LEAF, F_NBI, F_NBI_LEAF, F_REGION,
       F_NB_IMM, F_NBI_IMM, F_BLOCKING_IMM, F_COUNT };
static const char *const form_name[] = {
    "Blocking", "NB+Wait", "NB+Test", "NB+WaitAll", "NB(LEAF_LC)+QueryLeaf", "NBI+NBI_Wait",
    "NBI(LEAF_LC)+NBI_Wait(LC)", "region{NBI}", "NB(IMMEDIATE)", "NBI(IMMEDIATE)",
    "Blocking(IMMEDIATE)"};

/* One operation: its arguments, the regions it touches and what the destination must hold. */
typedef struct {
    int        is_get;
    gex_Rank_t peer;
    /* strided */
    void      *dstaddr, *srcaddr;
    size_t     es, levels, count[MAXLEV];
    ptrdiff_t  dstr[MAXLEV], sstr[MAXLEV];
    /* lists */
    size_t     dn, sn, dlen, slen;
    gex_Memvec_t *dv, *sv;
    void     **di, **si;
    /* regions: [start, start + len) on each side; local one in 'lbuf', remote one at 'raddr' */
    uint8_t   *lbuf;       /* local region (in the segment or malloc'd) */
    uint8_t   *lmalloc;    /* non-NULL: lbuf was malloc'd */
    uint8_t   *raddr;      /* remote region, the peer's address */
    size_t     dlen_region, slen_region;
    uint8_t   *dst_start, *src_start;  /* region starts as the operation names them */
    uint8_t   *model;      /* expected destination region */
    uint8_t   *snap;       /* source region contents */
    size_t     total;
    char       desc[160];
} vop_t;

/* ---- layouts -------------------------------------------------------------------------------- */

/* Strides for count[] elements of es bytes: a padded dense array with its axes permuted and
 * some reflected (never overlapping), or with overlap allowed a repeated or zero stride.
 * Count-1 levels sometimes get junk strides (the spec ignores them). Returns the extent and
 * the offset of element 0 from the lowest byte. */
static size_t layout(size_t lev, const size_t *count, size_t es, ptrdiff_t *st, int overlap,
                     size_t *base_off)
{
    size_t perm[MAXLEV];
    for (size_t k = 0; k < lev; k++) perm[k] = k;
    for (size_t k = lev; k > 1; k--) {
        size_t j = rr(0, k - 1), t = perm[k - 1];
        perm[k - 1] = perm[j];
        perm[j] = t;
    }
    size_t step = es + (rnd() % 3 == 0 ? rr(1, 9) : 0);
    for (size_t k = 0; k < lev; k++) {
        size_t d = perm[k];
        if (count[d] == 1 && rnd() % 2) {
            st[d] = (ptrdiff_t)rr(0, 2000000) - 1000000;
            continue;
        }
        st[d] = rnd() % 3 == 0 ? -(ptrdiff_t)step : (ptrdiff_t)step;
        step *= count[d] + (rnd() % 4 == 0 ? rr(1, 2) : 0);
    }
    if (overlap && lev && rnd() % 5 == 0) st[rr(0, lev - 1)] = rnd() % 2 ? 0 : (ptrdiff_t)es / 2;
    ptrdiff_t lo = 0, hi = 0;
    for (size_t k = 0; k < lev; k++) {
        ptrdiff_t span = (ptrdiff_t)(count[k] - 1) * st[k];
        if (span < 0) lo += span;
        else hi += span;
    }
    *base_off = (size_t)-lo;
    return (size_t)(hi - lo) + es;
}

static void gen_strided(vop_t *o, size_t maxbytes)
{
    for (;;) {
        o->levels = rnd() % 10 == 0 ? 0 : rr(1, MAXLEV);
        size_t r = rnd() % 8;
        o->es = r < 3 ? ((size_t)1 << rr(0, 4)) : r < 6 ? rr(1, 24) : rr(1, 256);
        size_t elems = 1, cap = maxbytes / o->es ? maxbytes / o->es : 1;
        for (size_t k = 0; k < o->levels; k++) {
            o->count[k] = rnd() % 4 == 0 ? 1 : rr(1, 7);
            while (o->count[k] > 1 && elems * o->count[k] > cap) o->count[k]--;
            elems *= o->count[k];
        }
        size_t doff, soff;
        o->dlen_region = layout(o->levels, o->count, o->es, o->dstr, 0, &doff);
        o->slen_region = layout(o->levels, o->count, o->es, o->sstr, 1, &soff);
        if (o->dlen_region > SUB || o->slen_region > SUB) continue;
        o->total = elems * o->es;
        o->dstaddr = o->dst_start + doff;
        o->srcaddr = o->src_start + soff;
        if (rnd() % 25 == 0) { /* a zero count somewhere: nothing moves */
            o->count[rr(0, o->levels ? o->levels - 1 : 0)] = 0;
            if (!o->levels) o->es = 0;
            o->total = 0;
        } else if (rnd() % 40 == 0) { /* elemsz 0 */
            o->es = 0;
            o->total = 0;
        }
        snprintf(o->desc, sizeof o->desc, "elemsz %zu, %zu levels, %zu bytes", o->es, o->levels,
                 o->total);
        return;
    }
}

/* Cuts total into n lengths (some 0 when zeros). */
static void cut(size_t total, size_t n, size_t *len, int zeros)
{
    size_t left = total;
    for (size_t i = 0; i + 1 < n; i++) {
        size_t most = 2 * total / n + 1;
        len[i] = zeros && rnd() % 5 == 0 ? 0 : rr(0, left < most ? left : most);
        left -= len[i];
    }
    if (n) len[n - 1] = left;
}

static void shuffle_ptrs(void **p, size_t n)
{
    for (size_t k = n; k > 1; k--) {
        size_t j = rr(0, k - 1);
        void *t = p[k - 1];
        p[k - 1] = p[j];
        p[j] = t;
    }
}

static void gen_vector(vop_t *o, size_t maxbytes)
{
    size_t T = rnd() % 20 == 0 ? 0 : rr(1, maxbytes);
    o->dn = rnd() % 30 == 0 && !T ? 0 : rr(1, 64);
    o->sn = rnd() % 30 == 0 && !T ? 0 : rr(1, 64);
    if (T && !o->dn) o->dn = 1;
    if (T && !o->sn) o->sn = 1;
    o->dv = malloc((o->dn + 1) * sizeof *o->dv);
    o->sv = malloc((o->sn + 1) * sizeof *o->sv);
    size_t *len = malloc((o->dn + o->sn + 2) * sizeof *len);
    /* destination pieces in address order with gaps, then the list shuffled */
    cut(T, o->dn, len, 1);
    size_t gapmax = o->dn ? (SUB - T) / o->dn : 0, at = 0;
    if (gapmax > 64) gapmax = 64;
    void **order = malloc((o->dn + 1) * sizeof *order);
    for (size_t i = 0; i < o->dn; i++) {
        at += rr(0, gapmax);
        o->dv[i].gex_addr = o->dst_start + at;
        o->dv[i].gex_len = len[i];
        at += len[i];
        order[i] = &o->dv[i];
    }
    shuffle_ptrs(order, o->dn);
    gex_Memvec_t *sh = malloc((o->dn + 1) * sizeof *sh);
    for (size_t i = 0; i < o->dn; i++) sh[i] = *(gex_Memvec_t *)order[i];
    memcpy(o->dv, sh, o->dn * sizeof *sh);
    free(sh);
    free(order);
    o->dlen_region = at ? at : 1;
    /* source pieces anywhere in their region (overlap allowed) */
    cut(T, o->sn, len, 1);
    o->slen_region = 2 * T + 1024 < SUB ? 2 * T + 1024 : SUB;
    for (size_t i = 0; i < o->sn; i++) {
        o->sv[i].gex_addr = o->src_start + rr(0, o->slen_region - len[i]);
        o->sv[i].gex_len = len[i];
    }
    free(len);
    o->total = T;
    snprintf(o->desc, sizeof o->desc, "%zu bytes, %zu destination and %zu source entries", T,
             o->dn, o->sn);
}

static size_t gcd(size_t a, size_t b) { return b ? gcd(b, a % b) : a; }

static void gen_indexed(vop_t *o, size_t maxbytes)
{
    size_t a = rnd() % 4 == 0 ? 8 : rr(1, 64), b = rnd() % 3 == 0 ? a : rr(1, 64);
    if (rnd() % 8 == 0) a = b = rr(64, 2048);
    size_t l = a / gcd(a, b) * b, m = maxbytes / l ? rr(0, maxbytes / l) : 0;
    if (rnd() % 20 == 0) m = 0;
    size_t T = l * m;
    o->dlen = a;
    o->slen = b;
    o->dn = T / a;
    o->sn = T / b;
    if (!T && rnd() % 2) { /* count 0 on one side, a length on the other */
        o->dn = 0;
        o->sn = 0;
    }
    o->di = malloc((o->dn + 1) * sizeof *o->di);
    o->si = malloc((o->sn + 1) * sizeof *o->si);
    size_t gapmax = o->dn ? (SUB - T) / o->dn : 0, at = 0;
    if (gapmax > 32) gapmax = 32;
    for (size_t i = 0; i < o->dn; i++) {
        at += rr(0, gapmax);
        o->di[i] = o->dst_start + at;
        at += a;
    }
    shuffle_ptrs(o->di, o->dn);
    o->dlen_region = at ? at : 1;
    o->slen_region = 2 * T + 4096 < SUB ? 2 * T + 4096 : SUB;
    for (size_t i = 0; i < o->sn; i++) o->si[i] = o->src_start + rr(0, o->slen_region - b);
    o->total = T;
    snprintf(o->desc, sizeof o->desc, "%zu bytes: %zu x %zu destination, %zu x %zu source", T,
             o->dn, a, o->sn, b);
}

/* ---- the reference --------------------------------------------------------------------------- */

/* Applies the operation to o->model (destination region) from o->snap (source region). */
static void reference(vop_t *o)
{
    if (kind == K_STRIDED) {
        if (!o->es) return;
        for (size_t k = 0; k < o->levels; k++)
            if (!o->count[k]) return;
        size_t idx[MAXLEV] = {0};
        for (;;) {
            ptrdiff_t d = (uint8_t *)o->dstaddr - o->dst_start;
            ptrdiff_t s = (uint8_t *)o->srcaddr - o->src_start;
            for (size_t k = 0; k < o->levels; k++)
                if (o->count[k] > 1) {
                    d += (ptrdiff_t)idx[k] * o->dstr[k];
                    s += (ptrdiff_t)idx[k] * o->sstr[k];
                }
            memcpy(o->model + d, o->snap + s, o->es);
            size_t k = 0;
            for (; k < o->levels; k++) {
                if (++idx[k] < o->count[k]) break;
                idx[k] = 0;
            }
            if (k == o->levels) return;
        }
    }
    /* lists: the source stream, in list order, fills the destination entries in list order */
    uint8_t *stream = malloc(o->total + 1);
    size_t at = 0;
    for (size_t i = 0; i < o->sn; i++) {
        uint8_t *p = kind == K_VECTOR ? o->sv[i].gex_addr : o->si[i];
        size_t n = kind == K_VECTOR ? o->sv[i].gex_len : o->slen;
        memcpy(stream + at, o->snap + (p - o->src_start), n);
        at += n;
    }
    at = 0;
    for (size_t i = 0; i < o->dn; i++) {
        uint8_t *p = kind == K_VECTOR ? o->dv[i].gex_addr : o->di[i];
        size_t n = kind == K_VECTOR ? o->dv[i].gex_len : o->dlen;
        memcpy(o->model + (p - o->dst_start), stream + at, n);
        at += n;
    }
    free(stream);
}

/* ---- issuing --------------------------------------------------------------------------------- */

enum { M_BLOCKING, M_NB, M_NBI };

/* Starts o in mode m; NBI/Blocking results come back as GEX_EVENT_NO_OP or GEX_EVENT_INVALID. */
static gex_Event_t issue(vop_t *o, int m, gex_Flags_t fl)
{
    gex_TM_t tm = rvt_tm;
    gex_Rank_t pr = o->peer;
    int rc = 0;
    gex_Event_t ev = GEX_EVENT_INVALID;
/* The argument lists after (tm, rank) for a Put, and around the rank for a Get. */
#define SPUT o->dstaddr, o->dstr, o->srcaddr, o->sstr, o->es, o->count, o->levels, fl
#define SGET1 o->dstaddr, o->dstr
#define SGET2 o->srcaddr, o->sstr, o->es, o->count, o->levels, fl
#define VPUT o->dn, o->dv, o->sn, o->sv, fl
#define IPUT o->dn, o->di, o->dlen, o->sn, o->si, o->slen, fl
    if (kind == K_STRIDED && !o->is_get) {
        if (m == M_NB) ev = gex_VIS_StridedPutNB(tm, pr, SPUT);
        else if (m == M_NBI) rc = gex_VIS_StridedPutNBI(tm, pr, SPUT);
        else rc = gex_VIS_StridedPutBlocking(tm, pr, SPUT);
    } else if (kind == K_STRIDED) {
        if (m == M_NB) ev = gex_VIS_StridedGetNB(tm, SGET1, pr, SGET2);
        else if (m == M_NBI) rc = gex_VIS_StridedGetNBI(tm, SGET1, pr, SGET2);
        else rc = gex_VIS_StridedGetBlocking(tm, SGET1, pr, SGET2);
    } else if (kind == K_VECTOR && !o->is_get) {
        if (m == M_NB) ev = gex_VIS_VectorPutNB(tm, pr, VPUT);
        else if (m == M_NBI) rc = gex_VIS_VectorPutNBI(tm, pr, VPUT);
        else rc = gex_VIS_VectorPutBlocking(tm, pr, VPUT);
    } else if (kind == K_VECTOR) {
        if (m == M_NB) ev = gex_VIS_VectorGetNB(tm, o->dn, o->dv, pr, o->sn, o->sv, fl);
        else if (m == M_NBI) rc = gex_VIS_VectorGetNBI(tm, o->dn, o->dv, pr, o->sn, o->sv, fl);
        else rc = gex_VIS_VectorGetBlocking(tm, o->dn, o->dv, pr, o->sn, o->sv, fl);
    } else if (!o->is_get) {
        if (m == M_NB) ev = gex_VIS_IndexedPutNB(tm, pr, IPUT);
        else if (m == M_NBI) rc = gex_VIS_IndexedPutNBI(tm, pr, IPUT);
        else rc = gex_VIS_IndexedPutBlocking(tm, pr, IPUT);
    } else {
#define IGET1 o->dn, o->di, o->dlen
#define IGET2 o->sn, o->si, o->slen, fl
        if (m == M_NB) ev = gex_VIS_IndexedGetNB(tm, IGET1, pr, IGET2);
        else if (m == M_NBI) rc = gex_VIS_IndexedGetNBI(tm, IGET1, pr, IGET2);
        else rc = gex_VIS_IndexedGetBlocking(tm, IGET1, pr, IGET2);
    }
    if (m != M_NB) ev = rc ? GEX_EVENT_NO_OP : GEX_EVENT_INVALID;
    return ev;
}

/* Retries an IMMEDIATE start until it is accepted, polling in between. */
static gex_Event_t issue_imm(vop_t *o, int m)
{
    for (int tries = 0;; tries++) {
        gex_Event_t ev = issue(o, m, GEX_FLAG_IMMEDIATE);
        if (ev != GEX_EVENT_NO_OP) return ev;
        RVT_CHECK(tries < 10000000, "%s: IMMEDIATE refused forever", o->desc);
        gasnet_AMPoll();
    }
}

/* ---- one batch ------------------------------------------------------------------------------- */

static uint8_t *myseg;
static size_t local_off; /* start of my local area in my segment */

static void fill(uint8_t *p, size_t n)
{
    for (size_t k = 0; k < n; k += 8) {
        uint64_t v = rnd();
        memcpy(p + k, &v, n - k < 8 ? n - k : 8);
    }
}

static void setup(vop_t *o, int i)
{
    o->is_get = rnd() % 2;
    o->peer = (gex_Rank_t)rr(0, rvt_n - 1);
    o->raddr = (uint8_t *)rvt_seg_addr(o->peer, (size_t)rvt_me * SLOT + (size_t)i * SUB);
    if (rnd() % 3 == 0) {
        o->lmalloc = o->lbuf = malloc(SUB);
        RVT_CHECK(o->lbuf != NULL, "malloc");
    } else {
        o->lmalloc = NULL;
        o->lbuf = myseg + local_off + (size_t)i * SUB;
    }
    o->dst_start = o->is_get ? o->lbuf : o->raddr;
    o->src_start = o->is_get ? o->raddr : o->lbuf;
    size_t maxbytes = rnd() % 10 == 0 ? 150000 : 3000;
    if (kind == K_STRIDED) gen_strided(o, maxbytes);
    else if (kind == K_VECTOR) gen_vector(o, maxbytes);
    else gen_indexed(o, maxbytes);
    /* source contents and the destination's old bytes, then the expected result */
    o->snap = malloc(o->slen_region);
    o->model = malloc(o->dlen_region);
    fill(o->snap, o->slen_region);
    fill(o->model, o->dlen_region);
    if (o->is_get) {
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, o->peer, o->src_start, o->snap, o->slen_region, 0));
        memcpy(o->dst_start, o->model, o->dlen_region);
    } else {
        memcpy(o->src_start, o->snap, o->slen_region);
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, o->peer, o->dst_start, o->model, o->dlen_region, 0));
    }
    reference(o);
}

static void scribble_source(vop_t *o)
{
    if (!o->is_get) memset(o->src_start, 0xEE, o->slen_region);
}

static void verify(vop_t *o, int form, int c)
{
    uint8_t *got = o->dst_start;
    if (!o->is_get) {
        got = malloc(o->dlen_region);
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, got, o->peer, o->dst_start, o->dlen_region, 0));
    }
    if (memcmp(got, o->model, o->dlen_region)) {
        size_t k = 0;
        while (got[k] == o->model[k]) k++;
        const char *mode = getenv("RIVET_VIS") ? getenv("RIVET_VIS") : "auto";
        RVT_FAIL("case %d: %s%s%s with rank %u (%s, RIVET_VIS=%s, local %s): destination region "
                 "byte %zu of %zu is 0x%02x, expected 0x%02x", c, kind_name[kind],
                 o->is_get ? "Get" : "Put", form_name[form], (unsigned)o->peer, o->desc, mode,
                 o->lmalloc ? "malloc'd" : "in segment", k, o->dlen_region, got[k], o->model[k]);
    }
    if (!o->is_get) free(got);
}

static void release(vop_t *o)
{
    free(o->model);
    free(o->snap);
    free(o->lmalloc);
    if (kind == K_VECTOR) free(o->dv), free(o->sv);
    if (kind == K_INDEXED) free(o->di), free(o->si);
    memset(o, 0, sizeof *o);
}

static void run_batch(int c, int form)
{
    vop_t ops[NSUB];
    gex_Event_t ev[NSUB], leaf[NSUB];
    int n = form == F_BLOCKING || form == F_BLOCKING_IMM ? 1 : (int)rr(1, NSUB);
    memset(ops, 0, sizeof ops);
    for (int i = 0; i < n; i++) setup(&ops[i], i);
    /* a Get cannot ask for local completion: those forms run as their plain counterparts */
    int any_get = 0;
    for (int i = 0; i < n; i++) any_get |= ops[i].is_get;
    gex_Flags_t leaf_fl = any_get ? 0 : GEX_FLAG_ENABLE_LEAF_LC;
    gex_Event_t region;
    switch (form) {
    case F_BLOCKING:
        RVT_CHECK(issue(&ops[0], M_BLOCKING, 0) == GEX_EVENT_INVALID, "Blocking returned non-zero");
        break;
    case F_BLOCKING_IMM:
        RVT_CHECK(issue_imm(&ops[0], M_BLOCKING) == GEX_EVENT_INVALID,
                  "Blocking returned non-zero");
        break;
    case F_NB_WAIT:
    case F_NB_TEST:
    case F_NB_WAITALL:
    case F_NB_IMM:
        for (int i = 0; i < n; i++)
            ev[i] = form == F_NB_IMM ? issue_imm(&ops[i], M_NB) : issue(&ops[i], M_NB, 0);
        for (int i = 0; i < n; i++) RVT_CHECK(ev[i] != GEX_EVENT_NO_OP, "NB returned NO_OP");
        if (form == F_NB_WAITALL) {
            gex_Event_WaitAll(ev, (size_t)n, 0);
        } else {
            for (int i = 0; i < n; i++) {
                if (form == F_NB_TEST)
                    while (gex_Event_Test(ev[i]) != GASNET_OK) gasnet_AMPoll();
                else
                    gex_Event_Wait(ev[i]);
            }
        }
        break;
    case F_NB_LEAF:
        for (int i = 0; i < n; i++) {
            ev[i] = issue(&ops[i], M_NB, leaf_fl);
            leaf[i] = leaf_fl ? gex_Event_QueryLeaf(ev[i], GEX_EC_LC) : GEX_EVENT_INVALID;
        }
        for (int i = 0; i < n; i++) {
            if (leaf[i] != GEX_EVENT_INVALID) gex_Event_Wait(leaf[i]);
            if (leaf_fl) scribble_source(&ops[i]); /* locally complete: the source is free */
        }
        gex_Event_WaitAll(ev, (size_t)n, 0);
        break;
    case F_NBI:
    case F_NBI_IMM:
        for (int i = 0; i < n; i++)
            RVT_CHECK((form == F_NBI_IMM ? issue_imm(&ops[i], M_NBI) : issue(&ops[i], M_NBI, 0)) ==
                          GEX_EVENT_INVALID, "NBI returned non-zero");
        gex_NBI_Wait(GEX_EC_ALL, 0);
        break;
    case F_NBI_LEAF:
        for (int i = 0; i < n; i++)
            RVT_CHECK(issue(&ops[i], M_NBI, leaf_fl) == GEX_EVENT_INVALID, "NBI returned non-zero");
        gex_NBI_Wait(GEX_EC_LC, 0);
        if (leaf_fl)
            for (int i = 0; i < n; i++) scribble_source(&ops[i]);
        gex_NBI_Wait(GEX_EC_PUT | GEX_EC_GET, 0);
        break;
    case F_REGION:
        gex_NBI_BeginAccessRegion(0);
        for (int i = 0; i < n; i++)
            RVT_CHECK(issue(&ops[i], M_NBI, 0) == GEX_EVENT_INVALID, "NBI returned non-zero");
        region = gex_NBI_EndAccessRegion(0);
        RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK,
                  "operations in an access region counted in the thread's NBI set");
        gex_Event_Wait(region);
        break;
    }
    for (int i = 0; i < n; i++) verify(&ops[i], form, c);
    for (int i = 0; i < n; i++) release(&ops[i]);
}

/* The degenerate cases the spec lists, with arguments that must be ignored. */
static void degenerate(void)
{
    if (kind != K_STRIDED) return;
    size_t zero[3] = {4, 0, 2};
    /* elemsz 0: every other argument is ignored */
    RVT_CHECK(gex_VIS_StridedPutBlocking(GEX_TM_INVALID, 12345, NULL, NULL, NULL, NULL, 0, NULL,
                                         3, 0) == 0, "elemsz 0 Put");
    RVT_CHECK(gex_VIS_StridedGetNB(GEX_TM_INVALID, NULL, NULL, 12345, NULL, NULL, 0, NULL, 7, 0) ==
                  GEX_EVENT_INVALID, "elemsz 0 GetNB");
    /* a zero count: tm, rank and addresses are ignored */
    ptrdiff_t st[3] = {1, 2, 3};
    RVT_CHECK(gex_VIS_StridedPutNBI(GEX_TM_INVALID, 12345, NULL, st, NULL, st, 8, zero, 3, 0) == 0,
              "count 0 PutNBI");
    /* stridelevels 0: one contiguous copy of elemsz bytes; strides and count ignored */
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint8_t *dst = (uint8_t *)rvt_seg_addr(peer, (size_t)rvt_me * SLOT), src[100], back[100];
    for (int i = 0; i < 100; i++) src[i] = (uint8_t)(i * 3 + rvt_me);
    RVT_CHECK(gex_VIS_StridedPutBlocking(rvt_tm, peer, dst, NULL, src, NULL, 100, NULL, 0, 0) == 0,
              "stridelevels 0 Put");
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, dst, 100, 0));
    RVT_CHECK(!memcmp(back, src, 100), "stridelevels 0 Put did not copy elemsz bytes");
    memset(back, 0, sizeof back);
    gex_Event_Wait(gex_VIS_StridedGetNB(rvt_tm, back, NULL, peer, dst, NULL, 100, NULL, 0, 0));
    RVT_CHECK(!memcmp(back, src, 100), "stridelevels 0 Get did not copy elemsz bytes");
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    if (argc < 2 || (strcmp(argv[1], "strided") && strcmp(argv[1], "vector") &&
                     strcmp(argv[1], "indexed")))
        RVT_FAIL("usage: vis_rand strided|vector|indexed [cases]");
    kind = !strcmp(argv[1], "strided")  ? K_STRIDED
         : !strcmp(argv[1], "vector") ? K_VECTOR : K_INDEXED;
    int cases = argc > 2 ? atoi(argv[2]) : 100;
    local_off = (size_t)rvt_n * SLOT;
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, local_off + NSUB * SUB));
    myseg = (uint8_t *)rvt_seg_addr(rvt_me, 0);
    rs = 0x5EED0000ull + (uint64_t)rvt_me * 7919 + (uint64_t)kind * 104729;
    rvt_barrier();
    degenerate();
    for (int c = 0; c < cases; c++) run_batch(c, c % F_COUNT);
    char name[32];
    snprintf(name, sizeof name, "vis_rand %s", argv[1]);
    return rvt_done(name);
}
