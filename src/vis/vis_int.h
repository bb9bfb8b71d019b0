/* SPDX-License-Identifier: BSD-3-Clause */
/* vis/vis_int.h: the VIS engine's internal types: strided shapes and their optimizer, side
 * descriptions with byte-stream walkers, the AM wire format and the AM operation object. */
#ifndef RV_VIS_INT_H
#define RV_VIS_INT_H

#include <stddef.h>
#include <stdint.h>
#include "gasnetex.h"

/* Loop levels a strided shape holds. Every dimension with count >= 2 at least doubles the
 * element count, so no transfer that fits in memory has more than 64 of them; longer
 * descriptions keep this bound by dropping their count-1 dimensions when loaded. */
#define RV_VIS_MAXDIM 64

/* ---- strided shapes and the optimizer (vis_opt.c: pure, no communication) ---------------- */

/* One loop level: 'count' iterations moving 'lstride' bytes on the local side and 'rstride'
 * on the remote (peer) side. */
typedef struct rv_vis_dim {
    size_t    count;
    ptrdiff_t lstride, rstride;
} rv_vis_dim_t;

/* A strided transfer: elemsz-byte elements, dim[0] the innermost loop. Element
 * (i_0..i_{n-1}) is at lbase + sum i_k*lstride_k locally, rbase + sum i_k*rstride_k remotely. */
typedef struct rv_vis_strided {
    uintptr_t    lbase, rbase;
    size_t       elemsz;
    size_t       ndim;
    rv_vis_dim_t dim[RV_VIS_MAXDIM];
} rv_vis_strided_t;

enum { RV_VIS_LOAD_OK, RV_VIS_LOAD_EMPTY, RV_VIS_LOAD_OVERFLOW };

/* Fills s from the spec's metadata (count[k] with lstrides[k], rstrides[k]). Returns
 * RV_VIS_LOAD_EMPTY when there is nothing to move (elemsz 0 or a count 0),
 * RV_VIS_LOAD_OVERFLOW when the byte total does not fit in size_t, else RV_VIS_LOAD_OK with
 * *total_bytes set. stridelevels 0 loads as one element. Count-1 levels are left out when
 * drop_null is set (null-dimension removal while loading) or there are more than
 * RV_VIS_MAXDIM levels. */
int rv_vis_strided_load(rv_vis_strided_t *s, const void *laddr, const ptrdiff_t lstrides[],
                        const void *raddr, const ptrdiff_t rstrides[], size_t elemsz,
                        const size_t count[], size_t stridelevels, int drop_null,
                        size_t *total_bytes);

/* The optimizer's passes; each keeps the set of (local byte, remote byte) pairs moved.
 * Null-dimension removal: drops count-1 levels. */
void rv_vis_opt_drop_null(rv_vis_strided_t *s);
/* Stride inversion: every remote stride becomes >= 0 by running that level backwards on both
 * sides (a level with remote stride 0 is turned so its local stride is >= 0). */
void rv_vis_opt_invert(rv_vis_strided_t *s);
/* Dimensional sort: remote strides non-decreasing from the innermost level (ties: smaller
 * |local stride| first). */
void rv_vis_opt_sort(rv_vis_strided_t *s);
/* Dimensional folding: levels contiguous on both sides merge into the element, and adjacent
 * levels where the outer one continues the inner one on both sides merge into one loop. */
void rv_vis_opt_fold(rv_vis_strided_t *s);
/* All four, in that order. */
void rv_vis_optimize(rv_vis_strided_t *s);

/* ---- sides and walkers (vis_walk.c) -------------------------------------------------------- */

/* One level of one side (also the wire format of strided metadata). */
typedef struct rv_vis_sdim {
    size_t    count;
    ptrdiff_t stride;
} rv_vis_sdim_t;

enum { RV_VIS_K_STRIDED = 1, RV_VIS_K_VECTOR = 2, RV_VIS_K_INDEXED = 3 };

/* One side of a transfer seen as a byte stream: strided (its elements in loop order), vector
 * (the entries' bytes in list order) or indexed (n entries of 'len' bytes each). */
typedef struct rv_vis_side {
    unsigned             kind;
    size_t               n;     /* strided: levels; lists: entries */
    size_t               len;   /* strided: element bytes; indexed: entry bytes */
    uintptr_t            base;  /* strided: address of element 0 */
    const rv_vis_sdim_t *dims;  /* strided: [n] */
    const gex_Memvec_t  *vec;   /* vector: [n] */
    void *const         *addrs; /* indexed: [n] */
    uintptr_t            delta; /* added to every address: a peer segment mapped here */
} rv_vis_side_t;

/* A position in a side's stream: element (strided) or entry (lists) index, byte within it. */
typedef struct rv_vis_pos {
    size_t idx, skip;
} rv_vis_pos_t;

typedef struct rv_vis_walk {
    const rv_vis_side_t *s;
    size_t               idx, skip;
    uintptr_t            cur;                 /* strided: address of element idx */
    size_t               coord[RV_VIS_MAXDIM]; /* strided: idx as coordinates */
} rv_vis_walk_t;

void rv_vis_walk_init(rv_vis_walk_t *w, const rv_vis_side_t *s, rv_vis_pos_t p);
static inline rv_vis_pos_t rv_vis_walk_pos(const rv_vis_walk_t *w)
{
    rv_vis_pos_t p = { w->idx, w->skip };
    return p;
}
/* Copy n bytes out of the side into buf / from buf into the side, advancing the walker. */
void rv_vis_walk_gather(rv_vis_walk_t *w, void *buf, size_t n);
void rv_vis_walk_scatter(rv_vis_walk_t *w, const void *buf, size_t n);
/* Copies n bytes from one side to the other (the direct mechanism for lists). */
void rv_vis_walk_copy(rv_vis_walk_t *dst, rv_vis_walk_t *src, size_t n);
/* If the walker's next n bytes are contiguous, their address; else NULL. */
void *rv_vis_walk_contig(const rv_vis_walk_t *w, size_t n);
/* The position n bytes after p. */
rv_vis_pos_t rv_vis_pos_advance(const rv_vis_side_t *s, rv_vis_pos_t p, size_t n);

/* The direct mechanism for strided shapes: copies every element between lbase and
 * rbase + rdelta (put: local to remote; get: remote to local). */
void rv_vis_strided_copy(const rv_vis_strided_t *s, uintptr_t rdelta, int is_put);

/* The same loop nest from its parts: nd levels d[] (d[0] innermost) of es-byte elements
 * between l (local) and r (remote, already mapped here). */
void rv_vis_nest_copy(uintptr_t l, uintptr_t r, size_t es, const rv_vis_dim_t *d, size_t nd,
                      int is_put);

/* Two loops (the mapped-peer fast path's shapes of at most two levels, from the library and
 * from gasnet_vis.h): _rivet_vis_copy2, declared in gasnet_vis.h. */
#define RV_VIS_P(a) ((void *)(uintptr_t)(a))

/* The mapped-peer fast path's list copies (every entry already checked; one side's addresses
 * get their delta): vector lists whose entries pair up with equal lengths, and indexed lists
 * of n entries of len bytes on both sides. */
void rv_vis_vec_copy(const gex_Memvec_t *d, uintptr_t dd, const gex_Memvec_t *s, uintptr_t sd,
                     size_t n);
/* vector lists whose entries are all len bytes */
void rv_vis_vec_copy_uni(const gex_Memvec_t *d, uintptr_t dd, const gex_Memvec_t *s,
                         uintptr_t sd, size_t n, size_t len);
void rv_vis_idx_copy(void *const *d, uintptr_t dd, void *const *s, uintptr_t sd, size_t n,
                     size_t len);

/* Checks that the bytes [p, p + n) of side s (addresses as given, without delta) lie in
 * [lo, lo + size). Returns 1 if so; else 0 with *bad_entry (SIZE_MAX for a strided extent)
 * and the offending range [*bad_lo, *bad_hi) (bad_hi 0: the range overflows). */
int rv_vis_side_inside(const rv_vis_side_t *s, rv_vis_pos_t p, size_t n, uintptr_t lo,
                       uintptr_t size, size_t *bad_entry, uintptr_t *bad_lo, uintptr_t *bad_hi);

/* ---- the AM mechanism (vis_am.c) ------------------------------------------------------------ */

/* Every chunk's Medium payload starts with this header; then the remote side's metadata for
 * the chunk (strided: n rv_vis_sdim_t; vector: n gex_Memvec_t pieces; indexed: n addresses),
 * then (Put) the chunk's len data bytes. Everything is 8-byte aligned. */
typedef struct rv_vis_wire {
    uint32_t kind;   /* RV_VIS_K_* of the remote side */
    uint32_t n;      /* metadata entries */
    uint64_t len;    /* data bytes of this chunk */
    uint64_t idx;    /* strided: first element (linear index) */
    uint64_t skip;   /* strided and indexed: byte offset into the first element/entry */
    uint64_t elemsz; /* strided: element bytes; indexed: entry bytes */
    uint64_t base;   /* strided: address of element 0 */
} rv_vis_wire_t;

/* Local completion request of a Put. */
enum { RV_VIS_LC_DEFER, RV_VIS_LC_LEAF, RV_VIS_LC_GROUP };

/* Starts a VIS operation over AM. Strided sides' dims are copied (the spec lets the client
 * reuse them at once); list sides are referenced (they stay valid until completion).
 * Returns the op (NB), NULL (NBI: counted in the current NBI set), or RV_VIS_NO_OP when
 * GEX_FLAG_IMMEDIATE found no room for the first chunk (then nothing was sent). */
struct rv_vis_op;
#define RV_VIS_NO_OP ((struct rv_vis_op *)1)
struct rv_vis_op *rv_vis_am_start(int is_get, gex_Rank_t jr, const rv_vis_side_t *local,
                                  const rv_vis_side_t *remote, size_t total, int is_nbi, int lc,
                                  gex_Flags_t flags);
gex_Event_t rv_vis_op_event(struct rv_vis_op *op);
/* The op's local-completion leaf, or GEX_EVENT_INVALID once locally complete. */
gex_Event_t rv_vis_op_leaf(struct rv_vis_op *op);

#endif /* RV_VIS_INT_H */
