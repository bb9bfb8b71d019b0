/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_vis.c: the GASNet-1 Vector/Indexed/Strided calls (gasnet_putv_bulk and kin)
 * over gex_VIS_* on the primordial team (the formatters are in tools/tools_format.c).
 * The blocking forms make progress as the other blocking GASNet-1 calls do (gasnet.h). */
#include "legacy/legacy_int.h"
#include "gasnet_vis.h"

#include <stddef.h>
#include <stdio.h>

/* gasnet_memvec_t is passed to the EX engine as gex_Memvec_t: same layout. */
_Static_assert(sizeof(gasnet_memvec_t) == sizeof(gex_Memvec_t) &&
                   offsetof(gasnet_memvec_t, addr) == offsetof(gex_Memvec_t, gex_addr) &&
                   offsetof(gasnet_memvec_t, len) == offsetof(gex_Memvec_t, gex_len),
               "gasnet_memvec_t must match gex_Memvec_t");
/* GASNet-1 strides are size_t, EX strides ptrdiff_t: the same object representation. */
_Static_assert(sizeof(size_t) == sizeof(ptrdiff_t), "size_t and ptrdiff_t differ in size");

#define RV_MV(list) ((gex_Memvec_t const *)(const void *)(list))
#define RV_STRIDES(s) ((const ptrdiff_t *)(const void *)(s))

/* ---- Vector ------------------------------------------------------------------ */
void gasnet_putv_bulk(gasnet_node_t dstnode, size_t dstcount, gasnet_memvec_t const dstlist[],
                      size_t srccount, gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorPutBlocking(rv_legacy_tm_get("gasnet_putv_bulk"), dstnode, dstcount,
                                    RV_MV(dstlist), srccount, RV_MV(srclist), 0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_putv_nb_bulk(gasnet_node_t dstnode, size_t dstcount,
                                    gasnet_memvec_t const dstlist[], size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    return gex_VIS_VectorPutNB(rv_legacy_tm_get("gasnet_putv_nb_bulk"), dstnode, dstcount,
                               RV_MV(dstlist), srccount, RV_MV(srclist), 0);
}

void gasnet_putv_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, gasnet_memvec_t const dstlist[],
                          size_t srccount, gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorPutNBI(rv_legacy_tm_get("gasnet_putv_nbi_bulk"), dstnode, dstcount,
                               RV_MV(dstlist), srccount, RV_MV(srclist), 0);
}

void gasnet_getv_bulk(size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t srcnode,
                      size_t srccount, gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorGetBlocking(rv_legacy_tm_get("gasnet_getv_bulk"), dstcount,
                                    RV_MV(dstlist), srcnode, srccount, RV_MV(srclist), 0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_getv_nb_bulk(size_t dstcount, gasnet_memvec_t const dstlist[],
                                    gasnet_node_t srcnode, size_t srccount,
                                    gasnet_memvec_t const srclist[])
{
    return gex_VIS_VectorGetNB(rv_legacy_tm_get("gasnet_getv_nb_bulk"), dstcount,
                               RV_MV(dstlist), srcnode, srccount, RV_MV(srclist), 0);
}

void gasnet_getv_nbi_bulk(size_t dstcount, gasnet_memvec_t const dstlist[], gasnet_node_t srcnode,
                          size_t srccount, gasnet_memvec_t const srclist[])
{
    (void)gex_VIS_VectorGetNBI(rv_legacy_tm_get("gasnet_getv_nbi_bulk"), dstcount,
                               RV_MV(dstlist), srcnode, srccount, RV_MV(srclist), 0);
}

/* ---- Indexed ----------------------------------------------------------------- */
void gasnet_puti_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                      size_t dstlen, size_t srccount, void *const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedPutBlocking(rv_legacy_tm_get("gasnet_puti_bulk"), dstnode, dstcount,
                                     dstlist, dstlen, srccount, srclist, srclen, 0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_puti_nb_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                                    size_t dstlen, size_t srccount, void *const srclist[],
                                    size_t srclen)
{
    return gex_VIS_IndexedPutNB(rv_legacy_tm_get("gasnet_puti_nb_bulk"), dstnode, dstcount,
                                dstlist, dstlen, srccount, srclist, srclen, 0);
}

void gasnet_puti_nbi_bulk(gasnet_node_t dstnode, size_t dstcount, void *const dstlist[],
                          size_t dstlen, size_t srccount, void *const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedPutNBI(rv_legacy_tm_get("gasnet_puti_nbi_bulk"), dstnode, dstcount,
                                dstlist, dstlen, srccount, srclist, srclen, 0);
}

void gasnet_geti_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                      gasnet_node_t srcnode, size_t srccount, void *const srclist[], size_t srclen)
{
    (void)gex_VIS_IndexedGetBlocking(rv_legacy_tm_get("gasnet_geti_bulk"), dstcount, dstlist,
                                     dstlen, srcnode, srccount, srclist, srclen, 0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_geti_nb_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                                    gasnet_node_t srcnode, size_t srccount,
                                    void *const srclist[], size_t srclen)
{
    return gex_VIS_IndexedGetNB(rv_legacy_tm_get("gasnet_geti_nb_bulk"), dstcount, dstlist,
                                dstlen, srcnode, srccount, srclist, srclen, 0);
}

void gasnet_geti_nbi_bulk(size_t dstcount, void *const dstlist[], size_t dstlen,
                          gasnet_node_t srcnode, size_t srccount, void *const srclist[],
                          size_t srclen)
{
    (void)gex_VIS_IndexedGetNBI(rv_legacy_tm_get("gasnet_geti_nbi_bulk"), dstcount, dstlist,
                                dstlen, srcnode, srccount, srclist, srclen, 0);
}

/* ---- Strided: GASNet-1 count[0] is the chunk's byte length (EX elemsz) and count[1..L]
 * the dimension counts (EX count[0..L-1]); the byte strides carry over unchanged. ---- */
void gasnet_puts_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                      void *srcaddr, const size_t srcstrides[], const size_t count[],
                      size_t stridelevels)
{
    (void)gex_VIS_StridedPutBlocking(rv_legacy_tm_get("gasnet_puts_bulk"), dstnode, dstaddr,
                                     RV_STRIDES(dststrides), srcaddr, RV_STRIDES(srcstrides),
                                     count[0], count + 1, stridelevels, 0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_puts_nb_bulk(gasnet_node_t dstnode, void *dstaddr,
                                    const size_t dststrides[], void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    return gex_VIS_StridedPutNB(rv_legacy_tm_get("gasnet_puts_nb_bulk"), dstnode, dstaddr,
                                RV_STRIDES(dststrides), srcaddr, RV_STRIDES(srcstrides),
                                count[0], count + 1, stridelevels, 0);
}

void gasnet_puts_nbi_bulk(gasnet_node_t dstnode, void *dstaddr, const size_t dststrides[],
                          void *srcaddr, const size_t srcstrides[], const size_t count[],
                          size_t stridelevels)
{
    (void)gex_VIS_StridedPutNBI(rv_legacy_tm_get("gasnet_puts_nbi_bulk"), dstnode, dstaddr,
                                RV_STRIDES(dststrides), srcaddr, RV_STRIDES(srcstrides),
                                count[0], count + 1, stridelevels, 0);
}

void gasnet_gets_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                      void *srcaddr, const size_t srcstrides[], const size_t count[],
                      size_t stridelevels)
{
    (void)gex_VIS_StridedGetBlocking(rv_legacy_tm_get("gasnet_gets_bulk"), dstaddr,
                                     RV_STRIDES(dststrides), srcnode, srcaddr,
                                     RV_STRIDES(srcstrides), count[0], count + 1, stridelevels,
                                     0);
    rv_legacy_blocking_progress();
}

gasnet_handle_t gasnet_gets_nb_bulk(void *dstaddr, const size_t dststrides[],
                                    gasnet_node_t srcnode, void *srcaddr,
                                    const size_t srcstrides[], const size_t count[],
                                    size_t stridelevels)
{
    return gex_VIS_StridedGetNB(rv_legacy_tm_get("gasnet_gets_nb_bulk"), dstaddr,
                                RV_STRIDES(dststrides), srcnode, srcaddr, RV_STRIDES(srcstrides),
                                count[0], count + 1, stridelevels, 0);
}

void gasnet_gets_nbi_bulk(void *dstaddr, const size_t dststrides[], gasnet_node_t srcnode,
                          void *srcaddr, const size_t srcstrides[], const size_t count[],
                          size_t stridelevels)
{
    (void)gex_VIS_StridedGetNBI(rv_legacy_tm_get("gasnet_gets_nbi_bulk"), dstaddr,
                                RV_STRIDES(dststrides), srcnode, srcaddr, RV_STRIDES(srcstrides),
                                count[0], count + 1, stridelevels, 0);
}
