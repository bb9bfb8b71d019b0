/* SPDX-License-Identifier: BSD-3-Clause */
/* vis/vis_walk.c: the copy loops every mechanism runs: a side (strided, vector, indexed) walked
 * as a byte stream for packing and unpacking, the direct strided loop nest, list-to-list copies,
 * and the segment-bounds check of a side. */
#include "vis/vis_int.h"
#include "gasnet_vis.h" /* _rivet_vis_copy2 */

#include <string.h>

/* Addresses are uintptr_t (RV_VIS_P makes them pointers): walking a reflected or transposed
 * shape may step before its start between two elements, which unsigned arithmetic allows. */

/* m elements of es bytes: d += ds, s += ss after each. Common element sizes copy with a
 * fixed-size memcpy (a few moves); a contiguous run is one memcpy. */
#define RV_VIS_RUN(N)                                              \
    for (size_t i_ = 0; i_ < m; i_++, d += ds, s += ss)            \
        memcpy(RV_VIS_P(d), RV_VIS_P(s), N)
static inline void rv_vis_run(uintptr_t d, ptrdiff_t ds, uintptr_t s, ptrdiff_t ss, size_t m,
                              size_t es)
{
    if (ds == (ptrdiff_t)es && ss == (ptrdiff_t)es) {
        memcpy(RV_VIS_P(d), RV_VIS_P(s), m * es);
        return;
    }
    switch (es) {
    case 1: RV_VIS_RUN(1); break;
    case 2: RV_VIS_RUN(2); break;
    case 4: RV_VIS_RUN(4); break;
    case 8: RV_VIS_RUN(8); break;
    case 16: RV_VIS_RUN(16); break;
    case 32: RV_VIS_RUN(32); break;
    case 64: RV_VIS_RUN(64); break;
    default: RV_VIS_RUN(es); break;
    }
}

/* Indexed entries of L bytes: entry addresses a[0..m) (plus delta) to/from a packed buffer. */
#define RV_VIS_IDX(N)                                                              \
    for (size_t i_ = 0; i_ < m; i_++)                                              \
        if (scatter) memcpy(RV_VIS_P((uintptr_t)a[i_] + delta), buf + i_ * (N), N); \
        else memcpy(buf + i_ * (N), RV_VIS_P((uintptr_t)a[i_] + delta), N)
static inline void rv_vis_idx_run(void *const *a, uintptr_t delta, char *buf, size_t m, size_t L,
                                  int scatter)
{
    switch (L) {
    case 4: RV_VIS_IDX(4); break;
    case 8: RV_VIS_IDX(8); break;
    case 16: RV_VIS_IDX(16); break;
    default: RV_VIS_IDX(L); break;
    }
}

void rv_vis_walk_init(rv_vis_walk_t *w, const rv_vis_side_t *s, rv_vis_pos_t p)
{
    w->s = s;
    w->idx = p.idx;
    w->skip = p.skip;
    if (s->kind != RV_VIS_K_STRIDED) return;
    size_t i = p.idx;
    uintptr_t cur = s->base + s->delta;
    for (size_t k = 0; k < s->n; k++) {
        size_t c = s->dims[k].count, x = i % c;
        i /= c;
        w->coord[k] = x;
        cur += (uintptr_t)x * (uintptr_t)s->dims[k].stride;
    }
    w->cur = cur;
}

/* Strided: moves m elements on along the loop nest (m never passes the end of level 0). */
static inline void rv_vis_sw_step(rv_vis_walk_t *w, size_t m)
{
    const rv_vis_side_t *s = w->s;
    w->idx += m;
    if (!s->n) return;
    const rv_vis_sdim_t *d = s->dims;
    w->cur += (uintptr_t)m * (uintptr_t)d[0].stride;
    if ((w->coord[0] += m) < d[0].count) return;
    w->cur -= (uintptr_t)d[0].count * (uintptr_t)d[0].stride;
    w->coord[0] = 0;
    for (size_t k = 1; k < s->n; k++) {
        w->cur += (uintptr_t)d[k].stride;
        if (++w->coord[k] < d[k].count) return;
        w->cur -= (uintptr_t)d[k].count * (uintptr_t)d[k].stride;
        w->coord[k] = 0;
    }
}

static void rv_vis_sw_xfer(rv_vis_walk_t *w, char *buf, size_t n, int scatter)
{
    const rv_vis_side_t *s = w->s;
    size_t es = s->len;
    ptrdiff_t st0 = s->n ? s->dims[0].stride : 0;
    while (n) {
        if (w->skip || n < es) { /* part of one element */
            size_t k = es - w->skip;
            if (k > n) k = n;
            void *p = RV_VIS_P(w->cur + w->skip);
            if (scatter) memcpy(p, buf, k);
            else memcpy(buf, p, k);
            buf += k;
            n -= k;
            if ((w->skip += k) == es) {
                w->skip = 0;
                rv_vis_sw_step(w, 1);
            }
            continue;
        }
        /* whole elements along the innermost level */
        size_t m = s->n ? s->dims[0].count - w->coord[0] : 1;
        if (m > n / es) m = n / es;
        if (scatter) rv_vis_run(w->cur, st0, (uintptr_t)buf, (ptrdiff_t)es, m, es);
        else rv_vis_run((uintptr_t)buf, (ptrdiff_t)es, w->cur, st0, m, es);
        buf += m * es;
        n -= m * es;
        rv_vis_sw_step(w, m);
    }
}

/* Lists: the contiguous bytes at the walker (moving past empty vector entries first). */
static inline size_t rv_vis_lw_run(rv_vis_walk_t *w, uintptr_t *addr)
{
    const rv_vis_side_t *s = w->s;
    if (s->kind == RV_VIS_K_INDEXED) {
        *addr = (uintptr_t)s->addrs[w->idx] + s->delta + w->skip;
        return s->len - w->skip;
    }
    while (s->vec[w->idx].gex_len == w->skip) { /* only empty entries: the stream has more */
        w->idx++;
        w->skip = 0;
    }
    *addr = (uintptr_t)s->vec[w->idx].gex_addr + s->delta + w->skip;
    return s->vec[w->idx].gex_len - w->skip;
}

static inline void rv_vis_lw_adv(rv_vis_walk_t *w, size_t k, size_t run)
{
    if (k == run) {
        w->idx++;
        w->skip = 0;
    } else {
        w->skip += k;
    }
}

static void rv_vis_lw_xfer(rv_vis_walk_t *w, char *buf, size_t n, int scatter)
{
    const rv_vis_side_t *s = w->s;
    while (n) {
        if (s->kind == RV_VIS_K_INDEXED && !w->skip && n >= s->len) {
            size_t m = n / s->len;
            rv_vis_idx_run(s->addrs + w->idx, s->delta, buf, m, s->len, scatter);
            w->idx += m;
            buf += m * s->len;
            n -= m * s->len;
            continue;
        }
        uintptr_t a;
        size_t run = rv_vis_lw_run(w, &a), k = run < n ? run : n;
        if (scatter) memcpy(RV_VIS_P(a), buf, k);
        else memcpy(buf, RV_VIS_P(a), k);
        buf += k;
        n -= k;
        rv_vis_lw_adv(w, k, run);
    }
}

void rv_vis_walk_gather(rv_vis_walk_t *w, void *buf, size_t n)
{
    if (w->s->kind == RV_VIS_K_STRIDED) rv_vis_sw_xfer(w, buf, n, 0);
    else rv_vis_lw_xfer(w, buf, n, 0);
}

void rv_vis_walk_scatter(rv_vis_walk_t *w, const void *buf, size_t n)
{
    if (w->s->kind == RV_VIS_K_STRIDED) rv_vis_sw_xfer(w, (char *)(uintptr_t)buf, n, 1);
    else rv_vis_lw_xfer(w, (char *)(uintptr_t)buf, n, 1);
}

/* Contiguous bytes at any walker. */
static inline size_t rv_vis_w_run(rv_vis_walk_t *w, uintptr_t *addr)
{
    if (w->s->kind != RV_VIS_K_STRIDED) return rv_vis_lw_run(w, addr);
    *addr = w->cur + w->skip;
    return w->s->len - w->skip;
}

static inline void rv_vis_w_adv(rv_vis_walk_t *w, size_t k, size_t run)
{
    if (w->s->kind != RV_VIS_K_STRIDED) {
        rv_vis_lw_adv(w, k, run);
    } else if (k == run) {
        w->skip = 0;
        rv_vis_sw_step(w, 1);
    } else {
        w->skip += k;
    }
}

void rv_vis_walk_copy(rv_vis_walk_t *dst, rv_vis_walk_t *src, size_t n)
{
    const rv_vis_side_t *ds = dst->s, *ss = src->s;
    if (ds->kind == RV_VIS_K_INDEXED && ss->kind == RV_VIS_K_INDEXED && ds->len == ss->len &&
        !dst->skip && !src->skip && n % ds->len == 0) {
        /* same chunking on both sides: one copy per entry */
        size_t m = n / ds->len, L = ds->len;
        void *const *da = ds->addrs + dst->idx, *const *sa = ss->addrs + src->idx;
        uintptr_t dd = ds->delta, sd = ss->delta;
        switch (L) {
        case 8:
            for (size_t i = 0; i < m; i++)
                memcpy(RV_VIS_P((uintptr_t)da[i] + dd), RV_VIS_P((uintptr_t)sa[i] + sd), 8);
            break;
        default:
            for (size_t i = 0; i < m; i++)
                memcpy(RV_VIS_P((uintptr_t)da[i] + dd), RV_VIS_P((uintptr_t)sa[i] + sd), L);
            break;
        }
        dst->idx += m;
        src->idx += m;
        return;
    }
    while (n) {
        uintptr_t da, sa;
        size_t dr = rv_vis_w_run(dst, &da), sr = rv_vis_w_run(src, &sa);
        size_t k = dr < sr ? dr : sr;
        if (k > n) k = n;
        memcpy(RV_VIS_P(da), RV_VIS_P(sa), k);
        rv_vis_w_adv(dst, k, dr);
        rv_vis_w_adv(src, k, sr);
        n -= k;
    }
}

void *rv_vis_walk_contig(const rv_vis_walk_t *w, size_t n)
{
    if (w->s->kind == RV_VIS_K_STRIDED)
        return w->s->len - w->skip >= n ? RV_VIS_P(w->cur + w->skip) : NULL;
    rv_vis_walk_t t; /* a list walker is only (s, idx, skip) */
    t.s = w->s;
    t.idx = w->idx;
    t.skip = w->skip;
    uintptr_t a;
    return rv_vis_lw_run(&t, &a) >= n ? RV_VIS_P(a) : NULL;
}

rv_vis_pos_t rv_vis_pos_advance(const rv_vis_side_t *s, rv_vis_pos_t p, size_t n)
{
    if (s->kind != RV_VIS_K_VECTOR) {
        size_t L = s->len, b = p.skip + n;
        p.idx += b / L;
        p.skip = b % L;
        return p;
    }
    while (n) {
        size_t run = s->vec[p.idx].gex_len - p.skip;
        if (n < run) {
            p.skip += n;
            return p;
        }
        n -= run;
        p.idx++;
        p.skip = 0;
    }
    return p;
}

/* ---- mapped-peer list copies (vis_api.c's fast path: shapes already checked) ------------ */

/* One contiguous piece of n bytes: up to 32 bytes as two overlapping 1/2/4/8/16-byte pieces
 * (loads before stores), as libc's memcpy moves them, without its call; longer: memcpy. */
typedef long long rv_vis_v16 __attribute__((vector_size(16), aligned(1), may_alias));
static inline void rv_vis_piece(uintptr_t d, uintptr_t s, size_t n)
{
#define RV_VIS_TWO(T)                                                  \
    do {                                                               \
        T a_, b_;                                                      \
        memcpy(&a_, RV_VIS_P(s), sizeof a_);                           \
        memcpy(&b_, RV_VIS_P(s + n - sizeof b_), sizeof b_);           \
        memcpy(RV_VIS_P(d), &a_, sizeof a_);                           \
        memcpy(RV_VIS_P(d + n - sizeof b_), &b_, sizeof b_);           \
    } while (0)
    if (n > 32) memcpy(RV_VIS_P(d), RV_VIS_P(s), n);
    else if (n >= 16) RV_VIS_TWO(rv_vis_v16);
    else if (n >= 8) RV_VIS_TWO(uint64_t);
    else if (n >= 4) RV_VIS_TWO(uint32_t);
    else if (n >= 2) RV_VIS_TWO(uint16_t);
    else if (n) memcpy(RV_VIS_P(d), RV_VIS_P(s), 1);
#undef RV_VIS_TWO
}

void rv_vis_vec_copy(const gex_Memvec_t *d, uintptr_t dd, const gex_Memvec_t *s, uintptr_t sd,
                     size_t n)
{
    for (size_t i = 0; i < n; i++)
        rv_vis_piece((uintptr_t)d[i].gex_addr + dd, (uintptr_t)s[i].gex_addr + sd, s[i].gex_len);
}

/* LOOP(N, COPY) once per element size: the common sizes as constants (a fixed-size memcpy is
 * a few moves), any other with rv_vis_piece; the switch sits outside the caller's loops. */
#define RV_VIS_MEMCPY(d_, s_, n_) memcpy(RV_VIS_P(d_), RV_VIS_P(s_), n_)
#define RV_VIS_BY_SIZE(len, LOOP)                                                           \
    switch (len) {                                                                          \
    case 1: LOOP(1, RV_VIS_MEMCPY); break;                                                  \
    case 2: LOOP(2, RV_VIS_MEMCPY); break;                                                  \
    case 4: LOOP(4, RV_VIS_MEMCPY); break;                                                  \
    case 8: LOOP(8, RV_VIS_MEMCPY); break;                                                  \
    case 16: LOOP(16, RV_VIS_MEMCPY); break;                                                \
    case 32: LOOP(32, RV_VIS_MEMCPY); break;                                                \
    case 64: LOOP(64, RV_VIS_MEMCPY); break;                                                \
    default: LOOP(len, rv_vis_piece); break;                                                \
    }

#define RV_VIS_VECU(N, COPY)                                                                \
    for (size_t i_ = 0; i_ < n; i_++)                                                       \
        COPY((uintptr_t)d[i_].gex_addr + dd, (uintptr_t)s[i_].gex_addr + sd, N)
void rv_vis_vec_copy_uni(const gex_Memvec_t *d, uintptr_t dd, const gex_Memvec_t *s,
                         uintptr_t sd, size_t n, size_t len)
{
    RV_VIS_BY_SIZE(len, RV_VIS_VECU)
}

#define RV_VIS_IDXC(N, COPY)                                                                \
    for (size_t i_ = 0; i_ < n; i_++) COPY((uintptr_t)d[i_] + dd, (uintptr_t)s[i_] + sd, N)
void rv_vis_idx_copy(void *const *d, uintptr_t dd, void *const *s, uintptr_t sd, size_t n,
                     size_t len)
{
    RV_VIS_BY_SIZE(len, RV_VIS_IDXC)
}

/* ---- the direct loop nest ------------------------------------------------------------------ */

void rv_vis_strided_copy(const rv_vis_strided_t *s, uintptr_t rdelta, int is_put)
{
    rv_vis_nest_copy(s->lbase, s->rbase + rdelta, s->elemsz, s->dim, s->ndim, is_put);
}

void rv_vis_nest_copy(uintptr_t l, uintptr_t r, size_t es, const rv_vis_dim_t *d, size_t nd,
                      int is_put)
{
    if (nd == 0) {
        if (is_put) memcpy(RV_VIS_P(r), RV_VIS_P(l), es);
        else memcpy(RV_VIS_P(l), RV_VIS_P(r), es);
        return;
    }
    size_t c0 = d[0].count;
    ptrdiff_t l0 = d[0].lstride, r0 = d[0].rstride;
    size_t coord[RV_VIS_MAXDIM];
    for (size_t k = 1; k < nd; k++) coord[k] = 0;
    for (;;) {
        if (is_put) rv_vis_run(r, r0, l, l0, c0, es);
        else rv_vis_run(l, l0, r, r0, c0, es);
        size_t k = 1;
        for (; k < nd; k++) {
            l += (uintptr_t)d[k].lstride;
            r += (uintptr_t)d[k].rstride;
            if (++coord[k] < d[k].count) break;
            l -= (uintptr_t)d[k].count * (uintptr_t)d[k].lstride;
            r -= (uintptr_t)d[k].count * (uintptr_t)d[k].rstride;
            coord[k] = 0;
        }
        if (k == nd) return;
    }
}

/* c1 runs of c0 N-byte elements: d0/s0 between elements, d1/s1 between runs */
#define RV_VIS_C2(N, COPY)                                                                  \
    for (size_t i1_ = 0; i1_ < c1; i1_++, d += (uintptr_t)d1, s += (uintptr_t)s1) {        \
        uintptr_t dd_ = d, ss_ = s;                                                         \
        for (size_t i0_ = 0; i0_ < c0; i0_++, dd_ += (uintptr_t)d0, ss_ += (uintptr_t)s0)  \
            COPY(dd_, ss_, N);                                                              \
    }
/* The two-level shapes of the mapped-peer fast path and of gasnet_vis.h's inline path (c0, c1
 * >= 1, the remote side checked; seg: its element 0, mapped here): level 0 joins the element
 * where it is contiguous on both sides (then level 1 too where it continues it), or level 1
 * joins level 0 where it continues it; then one fixed-size move per element. */
void _rivet_vis_copy2(void *seg, void *loc, size_t es, size_t c0, ptrdiff_t r0, ptrdiff_t l0,
                      size_t c1, ptrdiff_t r1, ptrdiff_t l1, int to_seg)
{
    if (l0 == (ptrdiff_t)es && r0 == (ptrdiff_t)es) { /* level 0 joins the element */
        es *= c0;
        c0 = c1, l0 = l1, r0 = r1, c1 = 1;
        if (l0 == (ptrdiff_t)es && r0 == (ptrdiff_t)es) es *= c0, c0 = 1;
    } else if (c1 > 1 && (uintptr_t)l1 == c0 * (uintptr_t)l0 &&
               (uintptr_t)r1 == c0 * (uintptr_t)r0) { /* level 1 continues level 0 */
        c0 *= c1, c1 = 1;
    }
    uintptr_t d = (uintptr_t)(to_seg ? seg : loc), s = (uintptr_t)(to_seg ? loc : seg);
    ptrdiff_t d0 = to_seg ? r0 : l0, s0 = to_seg ? l0 : r0;
    ptrdiff_t d1 = to_seg ? r1 : l1, s1 = to_seg ? l1 : r1;
    RV_VIS_BY_SIZE(es, RV_VIS_C2) /* outside both loops */
}

/* ---- bounds ------------------------------------------------------------------------------- */

static inline int rv_vis_range_in(uintptr_t a, size_t n, uintptr_t lo, uintptr_t size)
{
    return a >= lo && a - lo <= size && n <= size - (a - lo);
}

int rv_vis_side_inside(const rv_vis_side_t *s, rv_vis_pos_t p, size_t n, uintptr_t lo,
                       uintptr_t size, size_t *bad_entry, uintptr_t *bad_lo, uintptr_t *bad_hi)
{
    if (s->kind == RV_VIS_K_STRIDED) {
        /* The whole shape's extent, from its lowest to past its highest byte. */
        ptrdiff_t neg = 0, pos = 0;
        int ovf = 0;
        for (size_t k = 0; k < s->n; k++) {
            ptrdiff_t span;
            ovf |= s->dims[k].count - 1 > (size_t)PTRDIFF_MAX;
            ovf |= __builtin_mul_overflow((ptrdiff_t)(s->dims[k].count - 1), s->dims[k].stride,
                                          &span);
            if (span < 0) ovf |= __builtin_add_overflow(neg, span, &neg);
            else ovf |= __builtin_add_overflow(pos, span, &pos);
        }
        uintptr_t a = s->base - ((uintptr_t)0 - (uintptr_t)neg), end = 0;
        ovf |= a > s->base;
        ovf |= __builtin_add_overflow(s->base, (uintptr_t)pos, &end);
        ovf |= __builtin_add_overflow(end, s->len, &end);
        if (!ovf && rv_vis_range_in(a, end - a, lo, size)) return 1;
        *bad_entry = SIZE_MAX;
        *bad_lo = a;
        *bad_hi = ovf ? 0 : end;
        return 0;
    }
    while (n) {
        if (p.idx >= s->n) { /* the list ends before the bytes do */
            *bad_entry = p.idx;
            *bad_lo = *bad_hi = 0;
            return 0;
        }
        size_t L = s->kind == RV_VIS_K_INDEXED ? s->len : s->vec[p.idx].gex_len;
        uintptr_t a = s->kind == RV_VIS_K_INDEXED ? (uintptr_t)s->addrs[p.idx]
                                                   : (uintptr_t)s->vec[p.idx].gex_addr;
        size_t run = L - p.skip, k = run < n ? run : n;
        if (k && (p.skip > L || !rv_vis_range_in(a + p.skip, k, lo, size))) {
            *bad_entry = p.idx;
            *bad_lo = a + p.skip;
            *bad_hi = a + p.skip + k;
            return 0;
        }
        n -= k;
        p.idx++;
        p.skip = 0;
    }
    return 1;
}
