/* SPDX-License-Identifier: BSD-3-Clause */
/* rivet.h: Rivet's extensions to the GASNet-EX API (rivet_* names). Include it after, or
 * instead of, gasnetex.h; every extension has a RIVET_HAVE_* macro to test for it. */
#ifndef _RIVET_H
#define _RIVET_H
#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* ---- collectives beyond GASNet-EX (docs/collectives.md) ----------------------
 * Same conventions as gex_Coll_*NB (gasnet_coll.h): collective over 'tm' (not a
 * TM-pair), non-blocking, the returned event completes when this rank's 'dst' is ready
 * and its 'src' may be reused; 'root' and 'nbytes' are single-valued; 'flags' must be 0.
 * Blocks are in team-rank order. Mismatched calls across ranks stop the job with a
 * message naming the call, both ranks and the differing values. */
#define RIVET_HAVE_COLL_GATHER 1

/* Every rank's 'nbytes' at 'src' arrive at the root's 'dst' (size * nbytes bytes;
 * rank r's block at r * nbytes). 'dst' is ignored elsewhere. On the root 'src' may be
 * its own block of 'dst' (in place). */
extern gex_Event_t rivet_Coll_GatherNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                       size_t nbytes, gex_Flags_t flags);
/* As Gather, with the result on every rank. 'src' may be this rank's block of 'dst'. */
extern gex_Event_t rivet_Coll_AllgatherNB(gex_TM_t tm, void *dst, const void *src, size_t nbytes,
                                          gex_Flags_t flags);
/* 'src' holds size blocks of 'nbytes', block j for rank j; 'dst' receives size blocks,
 * block i from rank i. 'src' and 'dst' must not overlap. */
extern gex_Event_t rivet_Coll_AlltoallNB(gex_TM_t tm, void *dst, const void *src, size_t nbytes,
                                         gex_Flags_t flags);

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif
#endif /* _RIVET_H */
