/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_vis.h: the spec's non-contiguous RMA ("VIS"): Vector, Indexed and Strided Puts and Gets
 * in Blocking, NB and NBI forms. gex_Memvec_t, GEX_FLAG_IMMEDIATE and GEX_FLAG_ENABLE_LEAF_LC
 * come from gasnetex.h. Metadata formats and the implementation: docs/vis.md. */
#ifndef _GASNET_VIS_H
#define _GASNET_VIS_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* Common rules (docs/vis.md):
 * - NB forms return a root event; Blocking and NBI forms return 0, or non-zero only when
 *   GEX_FLAG_IMMEDIATE was given and nothing was started ("no op"; NB: GEX_EVENT_NO_OP).
 * - flags: 0 or an OR of GEX_FLAG_IMMEDIATE and (Put NB/NBI only) GEX_FLAG_ENABLE_LEAF_LC.
 *   With ENABLE_LEAF_LC, a PutNB's local completion is gex_Event_QueryLeaf(root, GEX_EC_LC);
 *   a PutNBI's is tracked as GEX_EVENT_GROUP (gex_NBI_{Test,Wait}(GEX_EC_LC)). Without it,
 *   local completion comes with operation completion.
 * - Payload buffers and the Vector/Indexed lists must stay valid until completion; the Strided
 *   metadata (strides, count) is consumed before the call returns.
 * - Remote locations must lie in the peer's bound segment; destinations must not overlap each
 *   other or a source (sources may overlap each other). */

/* ---- Vector: lists of (address, length) on each side; equal totals, any segmentation ---- */
extern gex_Event_t gex_VIS_VectorGetNB(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                       gex_Rank_t srcrank, size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorGetNBI(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                gex_Rank_t srcrank, size_t srccount, gex_Memvec_t const srclist[],
                                gex_Flags_t flags);
extern int gex_VIS_VectorGetBlocking(gex_TM_t tm, size_t dstcount, gex_Memvec_t const dstlist[],
                                     gex_Rank_t srcrank, size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);
extern gex_Event_t gex_VIS_VectorPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                       gex_Memvec_t const dstlist[], size_t srccount,
                                       gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                gex_Memvec_t const dstlist[], size_t srccount,
                                gex_Memvec_t const srclist[], gex_Flags_t flags);
extern int gex_VIS_VectorPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                     gex_Memvec_t const dstlist[], size_t srccount,
                                     gex_Memvec_t const srclist[], gex_Flags_t flags);

/* ---- Indexed: lists of addresses with one chunk length per side; equal totals ---------- */
extern gex_Event_t gex_VIS_IndexedGetNB(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                        size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetNBI(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedGetBlocking(gex_TM_t tm, size_t dstcount, void *const dstlist[],
                                      size_t dstlen, gex_Rank_t srcrank, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);
extern gex_Event_t gex_VIS_IndexedPutNB(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                        void *const dstlist[], size_t dstlen, size_t srccount,
                                        void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                 void *const dstlist[], size_t dstlen, size_t srccount,
                                 void *const srclist[], size_t srclen, gex_Flags_t flags);
extern int gex_VIS_IndexedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, size_t dstcount,
                                      void *const dstlist[], size_t dstlen, size_t srccount,
                                      void *const srclist[], size_t srclen, gex_Flags_t flags);

/* ---- Strided: elemsz-byte elements, count[stridelevels] extents, signed byte strides ----
 * Element (i_0, ..., i_{L-1}) is at addr + sum_k i_k * strides[k] on each side; different
 * stride orders transpose, negative strides reflect. elemsz == 0 or any count[k] == 0: no-op
 * (nothing else is looked at); stridelevels == 0: one contiguous elemsz-byte copy. */
extern gex_Event_t gex_VIS_StridedGetNB(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                        gex_Rank_t srcrank, void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedGetNBI(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                 gex_Rank_t srcrank, void *srcaddr, const ptrdiff_t srcstrides[],
                                 size_t elemsz, const size_t count[], size_t stridelevels,
                                 gex_Flags_t flags);
extern int gex_VIS_StridedGetBlocking(gex_TM_t tm, void *dstaddr, const ptrdiff_t dststrides[],
                                      gex_Rank_t srcrank, void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);
extern gex_Event_t gex_VIS_StridedPutNB(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                        const ptrdiff_t dststrides[], void *srcaddr,
                                        const ptrdiff_t srcstrides[], size_t elemsz,
                                        const size_t count[], size_t stridelevels,
                                        gex_Flags_t flags);
extern int gex_VIS_StridedPutNBI(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                 const ptrdiff_t dststrides[], void *srcaddr,
                                 const ptrdiff_t srcstrides[], size_t elemsz,
                                 const size_t count[], size_t stridelevels, gex_Flags_t flags);
extern int gex_VIS_StridedPutBlocking(gex_TM_t tm, gex_Rank_t dstrank, void *dstaddr,
                                      const ptrdiff_t dststrides[], void *srcaddr,
                                      const ptrdiff_t srcstrides[], size_t elemsz,
                                      const size_t count[], size_t stridelevels,
                                      gex_Flags_t flags);

/* ---- Peer completion [EXPERIMENTAL in the spec] ------------------------------------------
 * Arms a notification for the next VIS Put this thread starts: once that Put's data is at the
 * target, 'handler' (registered there as GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY with 0
 * arguments) runs at the target with the nbytes at source_addr (nbytes <=
 * GEX_VIS_MAX_PEERCOMPLETION) as its payload. handler == 0 disarms; flags must be 0; the armed
 * Put may not pass GEX_FLAG_IMMEDIATE, and an armed Get is an error. Rivet completes an armed
 * Put inside its initiation call (its NB form returns GEX_EVENT_INVALID). */
#define GEX_VIS_MAX_PEERCOMPLETION ((size_t)512)
extern void gex_VIS_SetPeerCompletionHandler(gex_AM_Index_t handler, const void *source_addr,
                                             size_t nbytes, gex_Flags_t flags);

/* ---- GASNet-1 VIS (legacy; docs/legacy.md) ----------------------------------------------
 * The GASNet-1 Vector/Indexed/Strided calls, on the primordial team of a GASNet-1 client
 * (gasnet_init, or gex_Client_Init with GEX_FLAG_USES_GASNET1). Only _bulk forms exist, as in
 * GASNet-1. Strided: strides[k] (k < stridelevels) are byte strides; count[0] is the byte
 * length of a contiguous chunk and count[1..stridelevels] the counts of each higher
 * dimension. gasnet_memvec_t has the layout of gex_Memvec_t. */
#ifndef RV_GASNET_MEMVEC_T
#define RV_GASNET_MEMVEC_T /* also defined by gasnet.h */
typedef struct {
    void  *addr;
    size_t len;
} gasnet_memvec_t;
#endif

extern void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount,
                             gasnet_memvec_t const dstlist[], size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           gasnet_memvec_t const dstlist[], size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount,
                                 gasnet_memvec_t const dstlist[], size_t srccount,
                                 gasnet_memvec_t const srclist[]);
extern void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                             gasnet_node_t srcnode, size_t srccount,
                             gasnet_memvec_t const srclist[]);
extern gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                           gasnet_node_t srcnode, size_t srccount,
                                           gasnet_memvec_t const srclist[]);
extern void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                 gasnet_node_t srcnode, size_t srccount,
                                 gasnet_memvec_t const srclist[]);

extern void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                             size_t dstlen, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                           void *const dstlist[], size_t dstlen,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                 size_t dstlen, size_t srccount, void *const srclist[],
                                 size_t srclen);
extern void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                             gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                             size_t srclen);
extern gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[],
                                           size_t dstlen, gasnet_node_t srcnode,
                                           size_t srccount, void *const srclist[],
                                           size_t srclen);
extern void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                 gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                                 size_t srclen);

extern void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                           const size_t dststrides[], void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);
extern void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                             void *srcaddr, const size_t srcstrides[], const size_t count[],
                             size_t stridelevels);
extern gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                           gasnet_node_t srcnode, void *srcaddr,
                                           const size_t srcstrides[], const size_t count[],
                                           size_t stridelevels);
extern void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                                 void *srcaddr, const size_t srcstrides[], const size_t count[],
                                 size_t stridelevels);

/* The GASNet-Tools VIS formatters (gasnett_format_memveclist, _putsgets, ...) are declared in
 * gasnetex.h. */

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _GASNET_VIS_H */
