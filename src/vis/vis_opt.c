/* SPDX-License-Identifier: BSD-3-Clause */
/* vis/vis_opt.c: the strided metadata optimizer: loads the spec's (elemsz, count[], strides[])
 * into a shape and rewrites it into the fewest, most regular loops that move the same bytes.
 * Pure: no communication, no allocation, no global state (unit-tested on its own). */
#include "vis/vis_int.h"

#include <string.h>

int rv_vis_strided_load(rv_vis_strided_t *s, const void *laddr, const ptrdiff_t lstrides[],
                        const void *raddr, const ptrdiff_t rstrides[], size_t elemsz,
                        const size_t count[], size_t stridelevels, int drop_null,
                        size_t *total_bytes)
{
    if (elemsz == 0) return RV_VIS_LOAD_EMPTY;
    for (size_t k = 0; k < stridelevels; k++)
        if (count[k] == 0) return RV_VIS_LOAD_EMPTY;
    s->lbase = (uintptr_t)laddr;
    s->rbase = (uintptr_t)raddr;
    s->elemsz = elemsz;
    s->ndim = 0;
    /* Up to RV_VIS_MAXDIM levels may load as given, so the optimizer can be switched off and
     * the caller's loop nest measured; beyond that count-1 levels must go to fit. */
    drop_null |= stridelevels > RV_VIS_MAXDIM;
    size_t elems = 1;
    for (size_t k = 0; k < stridelevels; k++) {
        if (__builtin_mul_overflow(elems, count[k], &elems)) return RV_VIS_LOAD_OVERFLOW;
        if (drop_null && count[k] == 1) continue;
        if (s->ndim == RV_VIS_MAXDIM) return RV_VIS_LOAD_OVERFLOW; /* >= 2^65 elements */
        rv_vis_dim_t *d = &s->dim[s->ndim++];
        d->count = count[k];
        d->lstride = lstrides[k];
        d->rstride = rstrides[k];
    }
    if (__builtin_mul_overflow(elems, elemsz, total_bytes)) return RV_VIS_LOAD_OVERFLOW;
    return RV_VIS_LOAD_OK;
}

void rv_vis_opt_drop_null(rv_vis_strided_t *s)
{
    size_t n = 0;
    for (size_t k = 0; k < s->ndim; k++)
        if (s->dim[k].count != 1) s->dim[n++] = s->dim[k];
    s->ndim = n;
}

/* Address arithmetic is done unsigned: wrap-around is defined there, and any shape that
 * passes the segment checks never wraps. */
static inline ptrdiff_t rv_vis_neg(ptrdiff_t x) { return (ptrdiff_t)(0 - (uintptr_t)x); }

void rv_vis_opt_invert(rv_vis_strided_t *s)
{
    for (size_t k = 0; k < s->ndim; k++) {
        rv_vis_dim_t *d = &s->dim[k];
        if (d->rstride > 0 || (d->rstride == 0 && d->lstride >= 0)) continue;
        /* Run this level from its last index down: both sides start where they used to end. */
        uintptr_t last = (uintptr_t)(d->count - 1);
        s->rbase += last * (uintptr_t)d->rstride;
        s->lbase += last * (uintptr_t)d->lstride;
        d->rstride = rv_vis_neg(d->rstride);
        d->lstride = rv_vis_neg(d->lstride);
    }
}

static inline size_t rv_vis_abs(ptrdiff_t x)
{
    return x < 0 ? (size_t)0 - (size_t)x : (size_t)x;
}

static inline int rv_vis_dim_before(const rv_vis_dim_t *a, const rv_vis_dim_t *b)
{
    if (a->rstride != b->rstride) return a->rstride < b->rstride;
    return rv_vis_abs(a->lstride) < rv_vis_abs(b->lstride);
}

void rv_vis_opt_sort(rv_vis_strided_t *s)
{
    /* Insertion sort: stable, and the level count is small. */
    for (size_t i = 1; i < s->ndim; i++) {
        rv_vis_dim_t d = s->dim[i];
        size_t j = i;
        while (j > 0 && rv_vis_dim_before(&d, &s->dim[j - 1])) {
            s->dim[j] = s->dim[j - 1];
            j--;
        }
        s->dim[j] = d;
    }
}

static void rv_vis_remove(rv_vis_strided_t *s, size_t k)
{
    memmove(&s->dim[k], &s->dim[k + 1], (s->ndim - k - 1) * sizeof s->dim[0]);
    s->ndim--;
}

/* Level b continues level a on one side: b's step is a's whole run. */
static inline int rv_vis_continues(ptrdiff_t a_stride, size_t a_count, ptrdiff_t b_stride)
{
    return (uintptr_t)a_stride * (uintptr_t)a_count == (uintptr_t)b_stride;
}

void rv_vis_opt_fold(rv_vis_strided_t *s)
{
    for (int changed = 1; changed;) {
        changed = 0;
        /* The innermost level is contiguous on both sides: its elements are one element. */
        while (s->ndim && s->dim[0].lstride == (ptrdiff_t)s->elemsz &&
               s->dim[0].rstride == (ptrdiff_t)s->elemsz) {
            s->elemsz *= s->dim[0].count;
            rv_vis_remove(s, 0);
            changed = 1;
        }
        /* Two adjacent loops are one longer loop. */
        for (size_t i = 0; i + 1 < s->ndim;) {
            rv_vis_dim_t *a = &s->dim[i], *b = &s->dim[i + 1];
            if (rv_vis_continues(a->lstride, a->count, b->lstride) &&
                rv_vis_continues(a->rstride, a->count, b->rstride)) {
                a->count *= b->count;
                rv_vis_remove(s, i + 1);
                changed = 1;
            } else {
                i++;
            }
        }
    }
}

void rv_vis_optimize(rv_vis_strided_t *s)
{
    rv_vis_opt_drop_null(s);
    rv_vis_opt_invert(s);
    rv_vis_opt_sort(s);
    rv_vis_opt_fold(s);
}
