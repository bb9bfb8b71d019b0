/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/harness/rv_count.h: counting interposers, for tests that check an inline fast path of
 * the public headers never reached the library. RVT_COUNT(entry, counter) defines the library
 * entry point 'entry' in the test program: each call adds one to 'counter' (a long of the
 * program's) and is handed on to the library's own definition (dlsym RTLD_NEXT), so a call the
 * inline path completes leaves the counter alone. This header owns the signatures of the entry
 * points the tests count (one RVT_COUNT_<entry> each); add one here to count another. The
 * program defines _GNU_SOURCE before its first #include and links ${CMAKE_DL_LIBS}. */
#ifndef RV_COUNT_H
#define RV_COUNT_H

#include "rv_test.h"

#include <dlfcn.h>

#ifndef RTLD_NEXT
#error "rv_count.h needs RTLD_NEXT: define _GNU_SOURCE before the first #include"
#endif

/* The definition of 'name' that follows the program's own: the library's. */
static inline void *rvt_next(const char *name)
{
    void *fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        const char *why = dlerror();
        RVT_FAIL("dlsym(RTLD_NEXT, \"%s\"): %s", name, why ? why : "not found");
    }
    return fn;
}

/* Defines entry point 'name' with parameters 'params' (parenthesized, named) passing on 'args'
 * (the names, parenthesized); the _VOID form for one that returns nothing. The parentheses
 * round 'name' keep the header's function-like macro of that name from expanding. */
#define RVT_COUNTED(ret, name, counter, params, args)      \
    ret(name) params                                       \
    {                                                      \
        (counter)++;                                       \
        return ((ret(*) params)rvt_next(#name)) args;      \
    }
#define RVT_COUNTED_VOID(name, counter, params, args)      \
    void(name) params                                      \
    {                                                      \
        (counter)++;                                       \
        ((void(*) params)rvt_next(#name)) args;            \
    }

#define RVT_COUNT(entry, counter) RVT_COUNT_##entry(counter)

/* Put/Get */
#define RVT_COUNT_gex_RMA_PutBlocking(c)                                                      \
    RVT_COUNTED(int, gex_RMA_PutBlocking, c,                                                  \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,    \
                 gex_Flags_t flags),                                                          \
                (tm, rank, dest, src, nbytes, flags))
#define RVT_COUNT_gex_RMA_GetBlocking(c)                                                      \
    RVT_COUNTED(int, gex_RMA_GetBlocking, c,                                                  \
                (gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,          \
                 gex_Flags_t flags),                                                          \
                (tm, dest, rank, src, nbytes, flags))
#define RVT_COUNT_gex_RMA_PutNB(c)                                                            \
    RVT_COUNTED(gex_Event_t, gex_RMA_PutNB, c,                                                \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,    \
                 gex_Event_t *lc_opt, gex_Flags_t flags),                                     \
                (tm, rank, dest, src, nbytes, lc_opt, flags))
#define RVT_COUNT_gex_RMA_GetNB(c)                                                            \
    RVT_COUNTED(gex_Event_t, gex_RMA_GetNB, c,                                                \
                (gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,          \
                 gex_Flags_t flags),                                                          \
                (tm, dest, rank, src, nbytes, flags))
#define RVT_COUNT_gex_RMA_PutNBI(c)                                                           \
    RVT_COUNTED(int, gex_RMA_PutNBI, c,                                                       \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, const void *src, size_t nbytes,    \
                 gex_Event_t *lc_opt, gex_Flags_t flags),                                     \
                (tm, rank, dest, src, nbytes, lc_opt, flags))
#define RVT_COUNT_gex_RMA_GetNBI(c)                                                           \
    RVT_COUNTED(int, gex_RMA_GetNBI, c,                                                       \
                (gex_TM_t tm, void *dest, gex_Rank_t rank, void *src, size_t nbytes,          \
                 gex_Flags_t flags),                                                          \
                (tm, dest, rank, src, nbytes, flags))
/* Val forms */
#define RVT_COUNT_gex_RMA_GetBlockingVal(c)                                                   \
    RVT_COUNTED(gex_RMA_Value_t, gex_RMA_GetBlockingVal, c,                                   \
                (gex_TM_t tm, gex_Rank_t rank, void *src, size_t nbytes, gex_Flags_t flags),  \
                (tm, rank, src, nbytes, flags))
#define RVT_COUNT_gex_RMA_PutBlockingVal(c)                                                   \
    RVT_COUNTED(int, gex_RMA_PutBlockingVal, c,                                               \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,             \
                 size_t nbytes, gex_Flags_t flags),                                           \
                (tm, rank, dest, value, nbytes, flags))
#define RVT_COUNT_gex_RMA_PutNBVal(c)                                                         \
    RVT_COUNTED(gex_Event_t, gex_RMA_PutNBVal, c,                                             \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,             \
                 size_t nbytes, gex_Flags_t flags),                                           \
                (tm, rank, dest, value, nbytes, flags))
#define RVT_COUNT_gex_RMA_PutNBIVal(c)                                                        \
    RVT_COUNTED(int, gex_RMA_PutNBIVal, c,                                                    \
                (gex_TM_t tm, gex_Rank_t rank, void *dest, gex_RMA_Value_t value,             \
                 size_t nbytes, gex_Flags_t flags),                                           \
                (tm, rank, dest, value, nbytes, flags))

/* Remote atomics (gasnet_ratomic.h): gex_AD_Op<form>_<DT> on operands of type T */
#define RVT_COUNT_AD_(ret, form, DT, T, c)                                                    \
    RVT_COUNTED(ret, gex_AD_##form##_##DT, c,                                                 \
                (gex_AD_t ad, T * result_p, gex_Rank_t tgt_rank, void *tgt_addr,              \
                 gex_OP_t opcode, T operand1, T operand2, gex_Flags_t flags),                 \
                (ad, result_p, tgt_rank, tgt_addr, opcode, operand1, operand2, flags))
#define RVT_COUNT_gex_AD_OpNB_U64(c) RVT_COUNT_AD_(gex_Event_t, OpNB, U64, uint64_t, c)
#define RVT_COUNT_gex_AD_OpNBI_U64(c) RVT_COUNT_AD_(int, OpNBI, U64, uint64_t, c)
#define RVT_COUNT_gex_AD_OpNB_DBL(c) RVT_COUNT_AD_(gex_Event_t, OpNB, DBL, double, c)
#define RVT_COUNT_gex_AD_OpNBI_DBL(c) RVT_COUNT_AD_(int, OpNBI, DBL, double, c)
#define RVT_COUNT_gex_AD_OpNBI_I32(c) RVT_COUNT_AD_(int, OpNBI, I32, int32_t, c)

/* Event and NBI syncs */
#define RVT_COUNT_gex_Event_Wait(c) RVT_COUNTED_VOID(gex_Event_Wait, c, (gex_Event_t ev), (ev))
#define RVT_COUNT_gex_Event_Test(c) RVT_COUNTED(int, gex_Event_Test, c, (gex_Event_t ev), (ev))
#define RVT_COUNT_EVENTS_(ret, name, c)                                                       \
    RVT_COUNTED(ret, name, c, (gex_Event_t * pevent, size_t numevents, gex_Flags_t flags),   \
                (pevent, numevents, flags))
#define RVT_COUNT_EVENTS_VOID_(name, c)                                                       \
    RVT_COUNTED_VOID(name, c, (gex_Event_t * pevent, size_t numevents, gex_Flags_t flags),    \
                     (pevent, numevents, flags))
#define RVT_COUNT_gex_Event_WaitAll(c) RVT_COUNT_EVENTS_VOID_(gex_Event_WaitAll, c)
#define RVT_COUNT_gex_Event_WaitSome(c) RVT_COUNT_EVENTS_VOID_(gex_Event_WaitSome, c)
#define RVT_COUNT_gex_Event_TestAll(c) RVT_COUNT_EVENTS_(int, gex_Event_TestAll, c)
#define RVT_COUNT_gex_Event_TestSome(c) RVT_COUNT_EVENTS_(int, gex_Event_TestSome, c)
#define RVT_COUNT_gex_NBI_Wait(c)                                                             \
    RVT_COUNTED_VOID(gex_NBI_Wait, c, (gex_EC_t event_mask, gex_Flags_t flags),               \
                     (event_mask, flags))
#define RVT_COUNT_gex_NBI_Test(c)                                                             \
    RVT_COUNTED(int, gex_NBI_Test, c, (gex_EC_t event_mask, gex_Flags_t flags),               \
                (event_mask, flags))

#endif /* RV_COUNT_H */
