/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_opt_test.c: unit tests of the pure VIS modules (no job): the strided optimizer
 * (what each pass does, that a 3-, 8- or 32-level description of a 1-D stride folds to one loop,
 * and that on random shapes the optimized shape moves exactly the same (local byte, remote byte)
 * pairs), the loader's degenerate cases, and the walkers' gather/scatter/copy/bounds checks
 * against a reference enumeration. */
#include "vis/vis_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rv_rand.h"

static int failures;
#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: check '%s' failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            if (++failures > 20) exit(1);                                     \
        }                                                                     \
    } while (0)

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void) { return rvt_rand(&rng); }
static size_t rr(size_t lo, size_t hi) { return lo + (size_t)(rnd() % (hi - lo + 1)); }

/* ---- reference enumeration ------------------------------------------------------------------ */

typedef struct { uintptr_t l, r; } pair_t;

static int pair_cmp(const void *a, const void *b)
{
    const pair_t *x = a, *y = b;
    if (x->l != y->l) return x->l < y->l ? -1 : 1;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    return 0;
}

/* Every (local byte, remote byte) pair the shape moves, in its loop order; returns how many. */
static size_t enumerate(const rv_vis_strided_t *s, pair_t *out, size_t cap)
{
    size_t idx[RV_VIS_MAXDIM] = {0}, n = 0;
    for (;;) {
        uintptr_t l = s->lbase, r = s->rbase;
        for (size_t k = 0; k < s->ndim; k++) {
            l += (uintptr_t)idx[k] * (uintptr_t)s->dim[k].lstride;
            r += (uintptr_t)idx[k] * (uintptr_t)s->dim[k].rstride;
        }
        for (size_t b = 0; b < s->elemsz; b++) {
            if (n == cap) return n + 1;
            out[n].l = l + b;
            out[n].r = r + b;
            n++;
        }
        size_t k = 0;
        for (; k < s->ndim; k++) {
            if (++idx[k] < s->dim[k].count) break;
            idx[k] = 0;
        }
        if (k == s->ndim) return n;
    }
}

static void describe(const char *what, const rv_vis_strided_t *s)
{
    fprintf(stderr, "  %s: elemsz %zu, %zu levels:", what, s->elemsz, s->ndim);
    for (size_t k = 0; k < s->ndim; k++)
        fprintf(stderr, " (%zu x l%td r%td)", s->dim[k].count, s->dim[k].lstride,
                s->dim[k].rstride);
    fprintf(stderr, "\n");
}

/* ---- fixed cases ------------------------------------------------------------------------------- */

/* A 1-D stride of 'elems' 8-byte elements 32 bytes apart (25% density), described with 'dims'
 * levels whose counts spread the factors of two over as many levels as possible. */
static void one_d_as(size_t dims, size_t elems, rv_vis_strided_t *s, size_t count[],
                     ptrdiff_t strides[])
{
    for (size_t k = 0; k < dims; k++) count[k] = 1;
    for (size_t k = 0, e = elems; e > 1; k = (k + 1) % dims, e /= 2) count[k] *= 2;
    ptrdiff_t st = 32;
    for (size_t k = 0; k < dims; k++) {
        strides[k] = st;
        st *= (ptrdiff_t)count[k];
    }
    size_t total;
    int rc = rv_vis_strided_load(s, (void *)(uintptr_t)0x100000, strides,
                                 (void *)(uintptr_t)0x900000, strides, 8, count, dims, 0, &total);
    CHECK(rc == RV_VIS_LOAD_OK && total == 8 * elems, "load of %zu-d: rc %d total %zu", dims, rc,
          total);
}

static void test_fold_1d(void)
{
    static const size_t dims[] = {1, 3, 8, 32};
    for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++) {
        for (size_t elems = 2; elems <= ((size_t)1 << 20); elems *= 8) {
            rv_vis_strided_t s;
            size_t count[32];
            ptrdiff_t strides[32];
            one_d_as(dims[i], elems, &s, count, strides);
            CHECK(s.ndim == dims[i], "loaded %zu levels, expected %zu", s.ndim, dims[i]);
            rv_vis_optimize(&s);
            CHECK(s.ndim == 1 && s.dim[0].count == elems && s.dim[0].lstride == 32 &&
                      s.dim[0].rstride == 32 && s.elemsz == 8 && s.lbase == 0x100000 &&
                      s.rbase == 0x900000,
                  "%zu-d description of %zu elements did not fold to one loop", dims[i], elems);
            if (s.ndim != 1) describe("got", &s);
        }
    }
}

static void test_contiguous(void)
{
    /* a dense 4-d block (both sides row-major) is one element */
    size_t count[4] = {3, 5, 7, 2};
    ptrdiff_t st[4] = {4, 12, 60, 420};
    rv_vis_strided_t s;
    size_t total;
    CHECK(rv_vis_strided_load(&s, (void *)0x1000, st, (void *)0x2000, st, 4, count, 4, 0, &total) ==
              RV_VIS_LOAD_OK, "load");
    rv_vis_optimize(&s);
    CHECK(s.ndim == 0 && s.elemsz == 4 * 3 * 5 * 7 * 2, "dense block: %zu levels, elemsz %zu",
          s.ndim, s.elemsz);
    /* contiguous on one side only: the innermost run folds, the rest stays one loop */
    ptrdiff_t st2[4] = {4, 12, 64, 448};
    CHECK(rv_vis_strided_load(&s, (void *)0x1000, st, (void *)0x2000, st2, 4, count, 4, 0, &total) ==
              RV_VIS_LOAD_OK, "load");
    rv_vis_optimize(&s);
    CHECK(s.ndim == 1 && s.elemsz == 60 && s.dim[0].count == 14 && s.dim[0].lstride == 60 &&
              s.dim[0].rstride == 64, "padded remote rows: %zu levels", s.ndim);
    if (s.ndim != 1) describe("got", &s);
}

static void test_passes(void)
{
    /* null removal keeps the other levels in order */
    size_t count[5] = {4, 1, 3, 1, 2};
    ptrdiff_t ls[5] = {8, 999, -64, 7, 1000}, rs[5] = {16, -5, 64, 0, 256};
    rv_vis_strided_t s;
    size_t total;
    CHECK(rv_vis_strided_load(&s, (void *)0x10000, ls, (void *)0x20000, rs, 8, count, 5, 0, &total) ==
              RV_VIS_LOAD_OK && total == 8 * 24, "load");
    rv_vis_opt_drop_null(&s);
    CHECK(s.ndim == 3 && s.dim[0].count == 4 && s.dim[1].count == 3 && s.dim[2].count == 2 &&
              s.dim[1].lstride == -64, "null removal");
    /* inversion: a reflected remote level runs backwards on both sides */
    ptrdiff_t ls2[2] = {8, 80}, rs2[2] = {-8, 100};
    size_t c2[2] = {10, 3};
    CHECK(rv_vis_strided_load(&s, (void *)0x10000, ls2, (void *)0x20000, rs2, 8, c2, 2, 0, &total) ==
              RV_VIS_LOAD_OK, "load");
    rv_vis_opt_invert(&s);
    CHECK(s.dim[0].rstride == 8 && s.dim[0].lstride == -8 && s.rbase == 0x20000 - 72 &&
              s.lbase == 0x10000 + 72, "inversion: r%td l%td rbase %#" PRIxPTR " lbase %#" PRIxPTR,
          s.dim[0].rstride, s.dim[0].lstride, s.rbase, s.lbase);
    /* sort: remote strides non-decreasing; a transpose keeps both levels */
    ptrdiff_t lt[2] = {8, 80}, rt[2] = {120, 8};
    size_t ct[2] = {10, 15};
    CHECK(rv_vis_strided_load(&s, (void *)0x10000, lt, (void *)0x20000, rt, 8, ct, 2, 0, &total) ==
              RV_VIS_LOAD_OK, "load");
    rv_vis_optimize(&s);
    CHECK(s.ndim == 2 && s.dim[0].rstride == 8 && s.dim[0].count == 15 && s.dim[0].lstride == 80 &&
              s.dim[1].rstride == 120 && s.dim[1].lstride == 8, "transpose");
    if (s.ndim != 2) describe("got", &s);
    /* docs/vis.md's worked example: A[3][4] to B[4][3] transposed and reflected */
    ptrdiff_t la[2] = {8, 32}, rb[2] = {24, -8};
    size_t cab[2] = {4, 3};
    CHECK(rv_vis_strided_load(&s, (void *)0x10000, la, (void *)(0x20000 + 16), rb, 8, cab, 2, 1,
                              &total) == RV_VIS_LOAD_OK, "load");
    rv_vis_optimize(&s);
    CHECK(s.ndim == 2 && s.dim[0].count == 3 && s.dim[0].lstride == -32 && s.dim[0].rstride == 8 &&
              s.dim[1].count == 4 && s.dim[1].lstride == 8 && s.dim[1].rstride == 24 &&
              s.lbase == 0x10000 + 64 && s.rbase == 0x20000 && s.elemsz == 8,
          "the documented transpose example");
    if (s.ndim != 2) describe("got", &s);
    /* a reflection of a contiguous row folds back into one element */
    ptrdiff_t lr[1] = {4}, rr_[1] = {-4};
    size_t cr[1] = {100};
    CHECK(rv_vis_strided_load(&s, (void *)0x10000, lr, (void *)0x20000, rr_, 4, cr, 1, 0, &total) ==
              RV_VIS_LOAD_OK, "load");
    rv_vis_optimize(&s);
    CHECK(s.ndim == 1 && s.dim[0].rstride == 4 && s.dim[0].lstride == -4 &&
              s.rbase == 0x20000 - 396, "reflected row: %zu levels", s.ndim);
}

static void test_load(void)
{
    rv_vis_strided_t s;
    size_t total = 7, c0[3] = {2, 0, 3}, c1[2] = {SIZE_MAX / 2, 3};
    ptrdiff_t st[3] = {8, 16, 32};
    CHECK(rv_vis_strided_load(&s, 0, st, 0, st, 0, c0, 3, 0, &total) == RV_VIS_LOAD_EMPTY, "elemsz 0");
    CHECK(rv_vis_strided_load(&s, 0, st, 0, st, 8, c0, 3, 0, &total) == RV_VIS_LOAD_EMPTY, "count 0");
    CHECK(rv_vis_strided_load(&s, 0, st, 0, st, 8, c1, 2, 0, &total) == RV_VIS_LOAD_OVERFLOW,
          "overflow");
    CHECK(rv_vis_strided_load(&s, (void *)0x40, NULL, (void *)0x80, NULL, 24, NULL, 0, 0, &total) ==
              RV_VIS_LOAD_OK && s.ndim == 0 && total == 24, "stridelevels 0");
    /* null-dimension removal while loading */
    size_t c3[3] = {1, 5, 1};
    CHECK(rv_vis_strided_load(&s, 0, st, 0, st, 8, c3, 3, 1, &total) == RV_VIS_LOAD_OK &&
              s.ndim == 1 && s.dim[0].count == 5 && s.dim[0].lstride == 16,
          "drop_null load: %zu levels", s.ndim);
    /* more levels than fit: the count-1 levels go, the others stay in order */
    size_t many[100];
    ptrdiff_t ms[100];
    for (int k = 0; k < 100; k++) {
        many[k] = k % 10 == 3 ? 2 : 1;
        ms[k] = k % 10 == 3 ? (ptrdiff_t)(k + 1) * 1000 : -12345;
    }
    CHECK(rv_vis_strided_load(&s, 0, ms, 0, ms, 8, many, 100, 0, &total) == RV_VIS_LOAD_OK &&
              s.ndim == 10 && total == 8 * 1024 && s.dim[9].lstride == 94000,
          "100 levels: %zu kept", s.ndim);
}

/* ---- random shapes ----------------------------------------------------------------------------- */

/* Strides of a (possibly padded, permuted, reflected) dense layout of count[] elements, or,
 * sometimes, arbitrary small strides (overlaps are fine for the optimizer). */
static void layout(size_t nd, const size_t *count, size_t es, ptrdiff_t *st)
{
    if (rnd() % 5 == 0) {
        for (size_t k = 0; k < nd; k++) st[k] = (ptrdiff_t)rr(0, 64) - 32;
        return;
    }
    size_t perm[8];
    for (size_t k = 0; k < nd; k++) perm[k] = k;
    if (rnd() % 2)
        for (size_t k = nd; k > 1; k--) {
            size_t j = rr(0, k - 1), t = perm[k - 1];
            perm[k - 1] = perm[j];
            perm[j] = t;
        }
    ptrdiff_t step = (ptrdiff_t)(es + (rnd() % 3 == 0 ? rr(1, 8) : 0));
    for (size_t k = 0; k < nd; k++) {
        size_t d = perm[k];
        st[d] = rnd() % 4 == 0 ? -step : step;
        step *= (ptrdiff_t)(count[d] + (rnd() % 4 == 0 ? rr(1, 2) : 0));
    }
}

static void test_random(void)
{
    enum { CAP = 1 << 14 };
    pair_t *a = malloc(CAP * sizeof *a), *b = malloc(CAP * sizeof *b);
    uint8_t *mem = malloc(1 << 20), *buf = malloc(CAP), *ref = malloc(CAP);
    size_t folded = 0, walked = 0;
    for (size_t i = 0; i < (1 << 20); i++) mem[i] = (uint8_t)(i * 7 + (i >> 8));
    for (int t = 0; t < 600; t++) {
        size_t nd = rr(0, 8), es = rnd() % 3 == 0 ? rr(1, 16) : (size_t)1 << rr(0, 3);
        size_t count[8], elems = 1;
        for (size_t k = 0; k < nd; k++) {
            count[k] = rnd() % 4 == 0 ? 1 : rr(1, 5);
            if (elems * count[k] * es > CAP / 2) count[k] = 1;
            elems *= count[k];
        }
        ptrdiff_t ls[8], rs[8];
        layout(nd, count, es, ls);
        layout(nd, count, es, rs);
        rv_vis_strided_t raw, opt;
        size_t total;
        int rc = rv_vis_strided_load(&raw, (void *)(uintptr_t)0x4000000, ls,
                                     (void *)(uintptr_t)0x8000000, rs, es, count, nd, 0, &total);
        CHECK(rc == RV_VIS_LOAD_OK && total == elems * es, "case %d: load rc %d", t, rc);
        opt = raw;
        rv_vis_optimize(&opt);
        size_t na = enumerate(&raw, a, CAP), nb = enumerate(&opt, b, CAP);
        CHECK(na == total && nb == total, "case %d: %zu and %zu pairs for %zu bytes", t, na, nb,
              total);
        qsort(a, na, sizeof *a, pair_cmp);
        qsort(b, nb, sizeof *b, pair_cmp);
        if (na != nb || memcmp(a, b, na * sizeof *a)) {
            CHECK(0, "case %d: the optimized shape moves different bytes", t);
            describe("raw", &raw);
            describe("optimized", &opt);
        }
        /* what the passes promise */
        for (size_t k = 0; k < opt.ndim; k++) {
            CHECK(opt.dim[k].count > 1, "case %d: null level left", t);
            CHECK(opt.dim[k].rstride >= 0, "case %d: negative remote stride left", t);
            if (k) CHECK(opt.dim[k].rstride >= opt.dim[k - 1].rstride, "case %d: not sorted", t);
        }
        if (opt.ndim < raw.ndim) folded++;

        /* the walkers against the enumeration (only shapes in a 1 MiB window, with the remote
         * side non-overlapping so scatter order does not matter) */
        rv_vis_strided_t win = opt;
        rv_vis_sdim_t ld[RV_VIS_MAXDIM];
        for (size_t k = 0; k < win.ndim; k++) {
            ld[k].count = win.dim[k].count;
            ld[k].stride = win.dim[k].lstride;
        }
        rv_vis_side_t side;
        memset(&side, 0, sizeof side);
        side.kind = RV_VIS_K_STRIDED;
        side.n = win.ndim;
        side.len = win.elemsz;
        side.dims = ld;
        side.base = win.lbase;
        size_t e;
        uintptr_t lo, hi;
        rv_vis_pos_t p0 = {0, 0};
        if (!rv_vis_side_inside(&side, p0, total, 0x4000000 - (1 << 19), 1 << 20, &e, &lo, &hi))
            continue;
        side.delta = (uintptr_t)mem + (1 << 19) - 0x4000000;
        walked++;
        /* gather in pieces from random positions: must equal the stream in loop order */
        enumerate(&opt, b, CAP);
        for (size_t i = 0; i < nb; i++) ref[i] = mem[b[i].l - 0x4000000 + (1 << 19)];
        size_t at = 0;
        while (at < total) {
            size_t n = rr(1, total - at < 100 ? total - at : 100);
            rv_vis_walk_t w;
            rv_vis_pos_t p = rv_vis_pos_advance(&side, p0, at);
            rv_vis_walk_init(&w, &side, p);
            rv_vis_walk_gather(&w, buf + at, n);
            rv_vis_pos_t q = rv_vis_walk_pos(&w), q2 = rv_vis_pos_advance(&side, p, n);
            CHECK(q.idx == q2.idx && q.skip == q2.skip, "case %d: walker and pos_advance disagree",
                  t);
            at += n;
        }
        CHECK(!memcmp(buf, ref, total), "case %d: gathered stream differs", t);
    }
    CHECK(folded > 100, "only %zu of 600 random shapes lost a level", folded);
    CHECK(walked > 300, "only %zu of 600 random shapes were walked", walked);
    printf("vis_opt_test: %zu of 600 random shapes folded, %zu walked\n", folded, walked);
    free(a), free(b), free(mem), free(buf), free(ref);
}

/* Lists: mismatched segmentation copies, bounds, positions. */
static void test_lists(void)
{
    uint8_t src[1000], dst[1000], want[1000];
    for (int i = 0; i < 1000; i++) src[i] = (uint8_t)(i * 13 + 1);
    for (int t = 0; t < 300; t++) {
        /* source: vector pieces of random lengths (some empty) over src; destination: indexed
         * entries of a length that divides the total, placed in reverse order */
        gex_Memvec_t v[64];
        size_t nv = 0, total = 0;
        while (nv < 64 && total < 600) {
            size_t len = rnd() % 5 == 0 ? 0 : rr(1, 40);
            v[nv].gex_addr = src + rr(0, 1000 - 40);
            v[nv].gex_len = len;
            total += len;
            nv++;
        }
        size_t L = 1;
        for (size_t c = 2; c <= 16; c++)
            if (total % c == 0 && rnd() % 2) L = c;
        size_t ni = total / L;
        void *ix[1000];
        for (size_t i = 0; i < ni; i++) ix[i] = dst + (ni - 1 - i) * L;
        memset(dst, 0, sizeof dst);
        memset(want, 0, sizeof want);
        size_t k = 0;
        for (size_t i = 0; i < nv; i++)
            for (size_t j = 0; j < v[i].gex_len; j++, k++)
                want[(ni - 1 - k / L) * L + k % L] = ((uint8_t *)v[i].gex_addr)[j];
        rv_vis_side_t s, d;
        memset(&s, 0, sizeof s);
        memset(&d, 0, sizeof d);
        s.kind = RV_VIS_K_VECTOR;
        s.n = nv;
        s.vec = v;
        d.kind = RV_VIS_K_INDEXED;
        d.n = ni;
        d.len = L;
        d.addrs = ix;
        rv_vis_pos_t p0 = {0, 0};
        rv_vis_walk_t dw, sw;
        rv_vis_walk_init(&dw, &d, p0);
        rv_vis_walk_init(&sw, &s, p0);
        rv_vis_walk_copy(&dw, &sw, total);
        CHECK(!memcmp(dst, want, sizeof dst), "list case %d: copy differs (%zu bytes, L %zu)", t,
              total, L);
        /* the same through a packed buffer, in random pieces */
        uint8_t packed[1000];
        memset(dst, 0, sizeof dst);
        for (size_t at = 0; at < total;) {
            size_t n = rr(1, total - at), e2;
            rv_vis_pos_t ps = rv_vis_pos_advance(&s, p0, at), pd = rv_vis_pos_advance(&d, p0, at);
            uintptr_t lo, hi;
            CHECK(rv_vis_side_inside(&d, pd, n, (uintptr_t)dst, sizeof dst, &e2, &lo, &hi),
                  "list case %d: inside", t);
            rv_vis_walk_init(&sw, &s, ps);
            rv_vis_walk_gather(&sw, packed, n);
            rv_vis_walk_init(&dw, &d, pd);
            rv_vis_walk_scatter(&dw, packed, n);
            at += n;
        }
        CHECK(!memcmp(dst, want, sizeof dst), "list case %d: packed copy differs", t);
        /* bounds: an entry moved just outside is named */
        size_t e;
        uintptr_t lo, hi;
        if (ni > 2) {
            void *saved = ix[ni / 2];
            ix[ni / 2] = dst + sizeof dst - L + 1;
            CHECK(!rv_vis_side_inside(&d, p0, total, (uintptr_t)dst, sizeof dst, &e, &lo, &hi) &&
                      e == ni / 2 && lo == (uintptr_t)ix[ni / 2] && hi == lo + L,
                  "list case %d: out-of-bounds entry not reported", t);
            ix[ni / 2] = saved;
        }
    }
    /* strided extent with a reflection */
    rv_vis_sdim_t dims[2] = {{10, -8}, {3, 100}};
    rv_vis_side_t s;
    memset(&s, 0, sizeof s);
    s.kind = RV_VIS_K_STRIDED;
    s.n = 2;
    s.len = 8;
    s.base = 1000;
    s.dims = dims;
    size_t e;
    uintptr_t lo, hi;
    rv_vis_pos_t p0 = {0, 0};
    CHECK(rv_vis_side_inside(&s, p0, 240, 928, 280, &e, &lo, &hi), "extent [928, 1208) inside");
    CHECK(!rv_vis_side_inside(&s, p0, 240, 929, 280, &e, &lo, &hi) && e == SIZE_MAX && lo == 928 &&
              hi == 1208, "extent below the segment not reported");
}

int main(void)
{
    test_load();
    test_passes();
    test_contiguous();
    test_fold_1d();
    test_random();
    test_lists();
    if (failures) {
        fprintf(stderr, "vis_opt_test: %d failures\n", failures);
        return 1;
    }
    printf("vis_opt_test: PASS\n");
    return 0;
}
