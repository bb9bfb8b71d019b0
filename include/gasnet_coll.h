/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_coll.h: the spec's collectives header. gex_Coll_BarrierNB is declared in
 * gasnetex.h (clients expect it there); broadcast and reductions are declared here. */
#ifndef _GASNET_COLL_H
#define _GASNET_COLL_H
#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif

/* User reduction operator: arg2_and_out[i] = arg1[i] OP arg2_and_out[i], i < count.
 * For GEX_OP_USER_NC, arg1 holds the contributions of the lower-numbered ranks. */
typedef void (*gex_Coll_ReduceFn_t)(const void *arg1, void *arg2_and_out, size_t count,
                                    const void *cdata);

extern gex_Event_t gex_Coll_BroadcastNB(gex_TM_t tm, gex_Rank_t root, void *dst, const void *src,
                                        size_t nbytes, gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToOneNB(gex_TM_t tm, gex_Rank_t root, void *dst,
                                          const void *src, gex_DT_t dt, size_t dt_sz,
                                          size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);
extern gex_Event_t gex_Coll_ReduceToAllNB(gex_TM_t tm, void *dst, const void *src, gex_DT_t dt,
                                          size_t dt_sz, size_t dt_cnt, gex_OP_t op,
                                          gex_Coll_ReduceFn_t user_op, void *user_cdata,
                                          gex_Flags_t flags);

#ifdef __cplusplus
}
#endif
#endif /* _GASNET_COLL_H */
