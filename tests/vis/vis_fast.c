/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_fast.c: the shapes the mapped-peer fast path takes (docs/vis.md), checked byte by
 * byte against a local reference: vector lists whose entries pair up with equal lengths (0 to
 * 200 bytes: every piece size of the inline copy and its edges; lists without gaps, one run
 * on each side, also against a one-entry list), indexed lists with equal entry
 * sizes, strided shapes of 0 to 4 levels (contiguous levels that fold, gaps, reflected levels,
 * count-1 levels with junk strides). Every rank targets its own slot in its neighbour's segment
 * and in its own; Put and Get; NBI + gex_NBI_Wait, NB + gex_Event_Wait and Blocking. Bytes the
 * shape does not name must keep their old values, on both sides. Public API only. */
#include "rv_test.h"
#include <gasnet_vis.h>
#include "rv_rand.h"

#define R ((size_t)64 * 1024) /* a rank's region: local buffer, slot in each target */
#define MAXE 24

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd(void) { return rvt_rand(&rs); }
static size_t pick(const size_t *a, size_t n) { return a[rnd() % n]; }

/* the reference: runs of (local offset, remote offset, bytes) */
typedef struct { size_t l, r, n; } run_t;
static run_t runs[4096];
static size_t nruns;
static void add_run(size_t l, size_t r, size_t n)
{
    RVT_CHECK(nruns < 4096 && l + n <= R && r + n <= R, "test bug: run %zu %zu %zu", l, r, n);
    runs[nruns++] = (run_t){l, r, n};
}

static const size_t lens[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 12, 15, 16, 17, 24, 31, 32, 33, 40,
                              63, 64, 65, 100, 128, 200};
#define NLENS (sizeof lens / sizeof lens[0])

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, R * 8);
    RVT_CHECK(rvt_n <= 8, "at most 8 ranks");
    rs ^= rvt_me * 0x9E3779B97F4A7C15ull;
    uint8_t *loc = malloc(R), *chk = malloc(R), *exp = malloc(R);
    RVT_CHECK(loc && chk && exp, "malloc");
    gex_Memvec_t dv[MAXE], sv[MAXE];
    void *di[MAXE], *si[MAXE];
    long cases = 0;
    for (int iter = 0; iter < 600; iter++) {
        gex_Rank_t tgt = (iter & 1) ? rvt_me : (gex_Rank_t)((rvt_me + 1) % rvt_n);
        uint8_t *rslot = rvt_seg_addr(tgt, rvt_me * R); /* owner address */
        int is_get = (iter >> 1) & 1, form = (iter >> 2) % 3, fam = (iter / 12) % 3;
        uint64_t seed = (uint64_t)iter * 1000 + rvt_me;
        rvt_fill(loc, R, seed + 1);
        rvt_fill(chk, R, seed + 2);
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, tgt, rslot, chk, R, 0));
        nruns = 0;
        size_t lo = 0, ro = 0;
        int rc = 0;
        gex_Event_t ev = GEX_EVENT_INVALID;
        if (fam == 0) { /* vector, paired lengths */
            size_t n = 1 + rnd() % MAXE, dn = n, sn = n;
            /* gaps: random, none on one side, none on both (one run each: gasnet_vis.h's
             * inline path; then also as one entry on one side) */
            int gaps = (int)(rnd() % 4), lgap = gaps == 0 || gaps == 1, rgap = gaps == 0;
            for (size_t i = 0; i < n; i++) {
                size_t L = pick(lens, NLENS);
                lo += lgap ? rnd() % 24 : 0;
                ro += rgap ? rnd() % 24 : 0;
                gex_Memvec_t a = {loc + lo, L}, b = {rslot + ro, L};
                if (is_get) dv[i] = a, sv[i] = b;
                else dv[i] = b, sv[i] = a;
                add_run(lo, ro, L);
                lo += L, ro += L;
            }
            if (gaps == 3 && rnd() % 2) { /* the same runs, one side as one entry */
                gex_Memvec_t *one = rnd() % 2 ? dv : sv;
                size_t tot = 0;
                for (size_t i = 0; i < n; i++) tot += one[i].gex_len;
                one[0].gex_len = tot;
                if (one == dv) dn = 1;
                else sn = 1;
            }
            if (is_get) {
                if (form == 0) rc = gex_VIS_VectorGetNBI(rvt_tm, dn, dv, tgt, sn, sv, 0);
                else if (form == 1) ev = gex_VIS_VectorGetNB(rvt_tm, dn, dv, tgt, sn, sv, 0);
                else rc = gex_VIS_VectorGetBlocking(rvt_tm, dn, dv, tgt, sn, sv, 0);
            } else {
                if (form == 0) rc = gex_VIS_VectorPutNBI(rvt_tm, tgt, dn, dv, sn, sv, 0);
                else if (form == 1) ev = gex_VIS_VectorPutNB(rvt_tm, tgt, dn, dv, sn, sv, 0);
                else rc = gex_VIS_VectorPutBlocking(rvt_tm, tgt, dn, dv, sn, sv, 0);
            }
        } else if (fam == 1) { /* indexed, equal entry sizes */
            size_t n = 1 + rnd() % MAXE, L = pick(lens + 1, NLENS - 1);
            for (size_t i = 0; i < n; i++) {
                lo += rnd() % 24;
                ro += rnd() % 24;
                void *a = loc + lo, *b = rslot + ro;
                if (is_get) di[i] = a, si[i] = b;
                else di[i] = b, si[i] = a;
                add_run(lo, ro, L);
                lo += L, ro += L;
            }
            if (is_get) {
                if (form == 0) rc = gex_VIS_IndexedGetNBI(rvt_tm, n, di, L, tgt, n, si, L, 0);
                else if (form == 1) ev = gex_VIS_IndexedGetNB(rvt_tm, n, di, L, tgt, n, si, L, 0);
                else rc = gex_VIS_IndexedGetBlocking(rvt_tm, n, di, L, tgt, n, si, L, 0);
            } else {
                if (form == 0) rc = gex_VIS_IndexedPutNBI(rvt_tm, tgt, n, di, L, n, si, L, 0);
                else if (form == 1) ev = gex_VIS_IndexedPutNB(rvt_tm, tgt, n, di, L, n, si, L, 0);
                else rc = gex_VIS_IndexedPutBlocking(rvt_tm, tgt, n, di, L, n, si, L, 0);
            }
        } else { /* strided, 0..4 levels */
            static const size_t ess[] = {1, 3, 4, 8, 16, 40};
            size_t lev = rnd() % 5, es = pick(ess, 6), cnt[4];
            ptrdiff_t lst[4], rst[4];
            size_t lspan = es, rspan = es; /* bytes one step of the next level covers */
            int lrev[4], rrev[4];
            for (size_t k = 0; k < lev; k++) {
                cnt[k] = 1 + rnd() % 5;
                size_t lg = rnd() % 3 ? 0 : rnd() % 20, rg = rnd() % 3 ? 0 : rnd() % 20;
                lst[k] = (ptrdiff_t)(lspan + lg);
                rst[k] = (ptrdiff_t)(rspan + rg);
                lspan = cnt[k] * (lspan + lg);
                rspan = cnt[k] * (rspan + rg);
                lrev[k] = rnd() % 5 == 0;
                rrev[k] = rnd() % 5 == 0;
                if (cnt[k] == 1 && rnd() % 2) /* junk (2^50: past the 2-level path's bound) */
                    lst[k] = -77, rst[k] = rnd() % 2 ? 12345 : (ptrdiff_t)1 << 50;
            }
            RVT_CHECK(lspan <= R && rspan <= R, "test bug: spans");
            /* the element (i_0..) at sum i_k*|stride_k| (or (cnt-1-i_k) for a reflected level) */
            size_t lbase = 0, rbase = 0;
            for (size_t k = 0; k < lev; k++) {
                if (lrev[k]) lbase += (cnt[k] - 1) * (size_t)lst[k], lst[k] = -lst[k];
                if (rrev[k]) rbase += (cnt[k] - 1) * (size_t)rst[k], rst[k] = -rst[k];
            }
            size_t tot = 1;
            for (size_t k = 0; k < lev; k++) tot *= cnt[k];
            for (size_t e = 0; e < tot; e++) {
                size_t x = e, lo_ = lbase, ro_ = rbase;
                for (size_t k = 0; k < lev; k++) {
                    size_t i = x % cnt[k];
                    x /= cnt[k];
                    lo_ += (size_t)((ptrdiff_t)i * lst[k]);
                    ro_ += (size_t)((ptrdiff_t)i * rst[k]);
                }
                add_run(lo_, ro_, es);
            }
            uint8_t *la = loc + lbase, *ra = rslot + rbase;
            if (is_get) {
                if (form == 0)
                    rc = gex_VIS_StridedGetNBI(rvt_tm, la, lst, tgt, ra, rst, es, cnt, lev, 0);
                else if (form == 1)
                    ev = gex_VIS_StridedGetNB(rvt_tm, la, lst, tgt, ra, rst, es, cnt, lev, 0);
                else rc = gex_VIS_StridedGetBlocking(rvt_tm, la, lst, tgt, ra, rst, es, cnt, lev, 0);
            } else {
                if (form == 0)
                    rc = gex_VIS_StridedPutNBI(rvt_tm, tgt, ra, rst, la, lst, es, cnt, lev, 0);
                else if (form == 1)
                    ev = gex_VIS_StridedPutNB(rvt_tm, tgt, ra, rst, la, lst, es, cnt, lev, 0);
                else rc = gex_VIS_StridedPutBlocking(rvt_tm, tgt, ra, rst, la, lst, es, cnt, lev, 0);
            }
        }
        RVT_CHECK(rc == 0, "iter %d: rc %d", iter, rc);
        if (form == 0) gex_NBI_Wait(GEX_EC_ALL, 0);
        if (form == 1) gex_Event_Wait(ev);
        /* expected: the target side's old bytes with the runs applied from the other side */
        if (is_get) {
            rvt_fill(exp, R, seed + 1);
            rvt_fill(chk, R, seed + 2);
            for (size_t i = 0; i < nruns; i++) memcpy(exp + runs[i].l, chk + runs[i].r, runs[i].n);
            RVT_CHECK(!memcmp(loc, exp, R), "iter %d (get fam %d form %d): local buffer wrong",
                      iter, fam, form);
        } else {
            rvt_fill(exp, R, seed + 2);
            for (size_t i = 0; i < nruns; i++) memcpy(exp + runs[i].r, loc + runs[i].l, runs[i].n);
            RVT_VERIFY(loc, R, seed + 1, "the Put's source changed");
            RVT_OK(gex_RMA_GetBlocking(rvt_tm, chk, tgt, rslot, R, 0));
            RVT_CHECK(!memcmp(chk, exp, R), "iter %d (put fam %d form %d): target slot wrong",
                      iter, fam, form);
        }
        cases++;
    }
    RVT_CHECK(cases == 600, "cases");
    /* no-ops once the inline path is on: elemsz 0 (nothing else looked at), a count 0
     * (addresses ignored), empty vector lists; nothing may be touched */
    {
        gex_Rank_t tgt = (gex_Rank_t)((rvt_me + 1) % rvt_n);
        size_t zc[2] = {3, 0};
        ptrdiff_t js[2] = {8, 24};
        void *bad = (void *)(uintptr_t)8;
        gex_Memvec_t e1[2] = {{loc, 0}, {loc, 0}};
        RVT_OK(gex_VIS_StridedPutBlocking(rvt_tm, tgt, bad, js, bad, js, 0, NULL, 2, 0));
        RVT_OK(gex_VIS_StridedGetNBI(rvt_tm, bad, js, tgt, bad, js, 8, zc, 2, 0));
        RVT_OK(gex_VIS_StridedPutNBI(rvt_tm, tgt, bad, js, bad, js, 8, zc, 2, 0));
        RVT_OK(gex_VIS_VectorGetNBI(rvt_tm, 2, e1, tgt, 0, NULL, 0));
        gex_NBI_Wait(GEX_EC_ALL, 0);
    }
    free(loc), free(chk), free(exp);
    return rvt_done("vis_fast");
}
