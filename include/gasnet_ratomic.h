/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_ratomic.h: the spec's remote atomics: atomic domains (gex_AD_*) and the typed
 * gex_AD_OpNB_<DT> / gex_AD_OpNBI_<DT> calls. gex_DT_t, gex_OP_t, GEX_DT_*, GEX_OP_* and
 * the GEX_FLAG_AD_* flags come from gasnetex.h. See docs/atomics.md. */
#ifndef _GASNET_RATOMIC_H
#define _GASNET_RATOMIC_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

typedef struct rv_ad *gex_AD_t;
#define GEX_AD_INVALID ((gex_AD_t)0)

/* Collective over tm. dt: one of GEX_DT_{I32,U32,I64,U64,FLT,DBL}; ops: the set of
 * GEX_OP_* the domain will be used with (bitwise ops only for integer types). */
extern void gex_AD_Create(gex_AD_t *ad_p, gex_TM_t tm, gex_DT_t dt, gex_OP_t ops,
                          gex_Flags_t flags);
/* Collective; every operation on the domain must be complete. */
extern void gex_AD_Destroy(gex_AD_t ad);

extern gex_Flags_t gex_AD_QueryFlags(gex_AD_t ad);
extern gex_TM_t    gex_AD_QueryTM(gex_AD_t ad);
extern gex_DT_t    gex_AD_QueryDT(gex_AD_t ad);
extern gex_OP_t    gex_AD_QueryOps(gex_AD_t ad);
extern void        gex_AD_SetCData(gex_AD_t ad, const void *val);
extern void       *gex_AD_QueryCData(gex_AD_t ad);

/* (ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags). result_p receives
 * the fetched value for fetching ops (GEX_OP_F*, SWAP, FCAS, GET) and is ignored otherwise.
 * NB returns an event (GEX_EVENT_INVALID when already complete, GEX_EVENT_NO_OP when
 * GEX_FLAG_IMMEDIATE found no resources); NBI returns 0, or 1 for the latter. */
#define RV_AD_DECL(DT, T)                                                                     \
    extern gex_Event_t gex_AD_OpNB_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,       \
                                        void *tgt_addr, gex_OP_t opcode, T operand1,          \
                                        T operand2, gex_Flags_t flags);                       \
    extern int gex_AD_OpNBI_##DT(gex_AD_t ad, T *result_p, gex_Rank_t tgt_rank,              \
                                 void *tgt_addr, gex_OP_t opcode, T operand1, T operand2,     \
                                 gex_Flags_t flags);
RV_AD_DECL(I32, int32_t)
RV_AD_DECL(U32, uint32_t)
RV_AD_DECL(I64, int64_t)
RV_AD_DECL(U64, uint64_t)
RV_AD_DECL(FLT, float)
RV_AD_DECL(DBL, double)
#undef RV_AD_DECL

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _GASNET_RATOMIC_H */
