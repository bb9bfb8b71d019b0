/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_seq.c: what a GASNET_SEQ client gets from gasnetex.h + gasnet_tools.h:
 * GASNETT_THREAD_SINGLE (not _SAFE), regular atomics that are plain loads and stores with the
 * exact values of the atomic ones (every operation, every fence flag, wrap-around, at all
 * three widths), strong atomics that are still hardware atomics, HSLs whose Lock/Unlock/
 * Trylock compile to nothing (the functions still callable through their addresses), and
 * one constant GASNET_GET_THREADINFO. No gex_Client_Init needed. */
#define GASNET_SEQ
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <inttypes.h>
#include <string.h>

#include "rv_check.h"

#if !defined(GASNETT_THREAD_SINGLE) || defined(GASNETT_THREAD_SAFE)
#error "a GASNET_SEQ client must get GASNETT_THREAD_SINGLE and not GASNETT_THREAD_SAFE"
#endif

static const int flag_sets[] = {
    0,
    GASNETT_ATOMIC_REL,
    GASNETT_ATOMIC_ACQ,
    GASNETT_ATOMIC_REL | GASNETT_ATOMIC_ACQ,
    GASNETT_ATOMIC_RMB_PRE,
    GASNETT_ATOMIC_MB_PRE,
    GASNETT_ATOMIC_WMB_POST,
    GASNETT_ATOMIC_MB_POST,
    GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST,
    GASNETT_ATOMIC_ACQ_IF_TRUE,
    GASNETT_ATOMIC_ACQ_IF_FALSE,
    GASNETT_ATOMIC_ACQ_IF_TRUE | GASNETT_ATOMIC_WMB_POST,
};
enum { NFLAGS = sizeof flag_sets / sizeof flag_sets[0] };

/* One value check per type: P operations, strong atomics SP of the same type as reference,
 * V value type, MAX the wrap point. Both sequences run side by side and must agree. */
#define SEQ_VALUES(P, SP, T, V, MAX)                                                         \
    for (int k = 0; k < NFLAGS; k++) {                                                      \
        int f = flag_sets[k];                                                               \
        T a, r;                                                                             \
        P##_set(&a, 10, f);                                                                 \
        SP##_set(&r, 10, f);                                                                \
        CHECK(P##_read(&a, f) == 10, #P " set/read, flags 0x%x", f);                        \
        CHECK(P##_add(&a, 5, f) == 15 && SP##_add(&r, 5, f) == 15, #P " add, flags 0x%x", f); \
        CHECK(P##_subtract(&a, 3, f) == 12, #P " subtract, flags 0x%x", f);                 \
        P##_increment(&a, f);                                                               \
        P##_decrement(&a, f);                                                               \
        P##_decrement(&a, f);                                                               \
        CHECK(P##_read(&a, 0) == 11, #P " inc/dec, flags 0x%x", f);                         \
        CHECK(!P##_compare_and_swap(&a, 10, 99, f) && P##_read(&a, 0) == 11,                \
              #P " failing CAS, flags 0x%x", f);                                            \
        CHECK(P##_compare_and_swap(&a, 11, 99, f) && P##_read(&a, 0) == 99,                 \
              #P " succeeding CAS, flags 0x%x", f);                                         \
        CHECK(P##_swap(&a, 5, f) == 99 && P##_read(&a, 0) == 5, #P " swap, flags 0x%x", f); \
        P##_set(&a, 2, f);                                                                  \
        CHECK(!P##_decrement_and_test(&a, f), #P " 2-1 tested zero, flags 0x%x", f);        \
        CHECK(P##_decrement_and_test(&a, f), #P " 1-1 not zero, flags 0x%x", f);            \
        P##_decrement(&a, f);                                                               \
        SP##_set(&r, 0, f);                                                                 \
        SP##_decrement(&r, f);                                                              \
        CHECK(P##_read(&a, f) == (V)(MAX) && SP##_read(&r, f) == (V)(MAX),                  \
              #P " 0-1 wraps to max, flags 0x%x", f);                                       \
        CHECK(P##_add(&a, 2, f) == 1 && SP##_add(&r, 2, f) == 1, #P " max+2 wraps to 1");   \
        CHECK(P##_subtract(&a, 3, f) == (V)(MAX) - 1, #P " 1-3 wraps, flags 0x%x", f);      \
        CHECK(P##_swap(&a, (V)(MAX), f) == (V)(MAX) - 1, #P " swap at max, flags 0x%x", f); \
        CHECK(P##_compare_and_swap(&a, (V)(MAX), 0, f) && P##_read(&a, 0) == 0,             \
              #P " CAS max->0, flags 0x%x", f);                                             \
        CHECK(P##_decrement_and_test(&a, f) == 0 && P##_read(&a, 0) == (V)(MAX),            \
              #P " 0-1 is not zero, flags 0x%x", f);                                        \
        /* many operations in a row accumulate exactly */                                   \
        P##_set(&a, 0, 0);                                                                  \
        for (int i = 0; i < 1000; i++) {                                                    \
            P##_increment(&a, f);                                                           \
            P##_add(&a, (V)i, f);                                                           \
        }                                                                                   \
        CHECK(P##_read(&a, 0) == 1000 + 999 * 1000 / 2, #P " 1000 increments and adds");    \
    }

int main(void)
{
    /* static initialisers */
    static gasnett_atomic_t s = gasnett_atomic_init(7);
    static gasnett_atomic32_t s32 = gasnett_atomic32_init(0xFFFFFFFFu);
    static gasnett_atomic64_t s64 = gasnett_atomic64_init(UINT64_MAX);
    CHECK(gasnett_atomic_read(&s, 0) == 7, "static init");
    CHECK(gasnett_atomic32_add(&s32, 1, 0) == 0, "atomic32 static max + 1");
    CHECK(gasnett_atomic64_add(&s64, 1, 0) == 0, "atomic64 static max + 1");

    SEQ_VALUES(gasnett_atomic, gasnett_strongatomic, gasnett_atomic_t, gasnett_atomic_val_t,
               GASNETT_ATOMIC_MAX)
    SEQ_VALUES(gasnett_atomic32, gasnett_strongatomic32, gasnett_atomic32_t, uint32_t,
               UINT32_MAX)
    SEQ_VALUES(gasnett_atomic64, gasnett_strongatomic64, gasnett_atomic64_t, uint64_t,
               UINT64_MAX)
    {
        gasnett_atomic_t a;
        gasnett_atomic_set(&a, (gasnett_atomic_val_t)GASNETT_ATOMIC_SIGNED_MIN, 0);
        CHECK(gasnett_atomic_signed(gasnett_atomic_subtract(&a, 1, 0)) ==
                  GASNETT_ATOMIC_SIGNED_MAX, "signed min - 1");
    }

    /* HSLs: no-ops in SEQ, the out-of-line functions still there and working */
    static gex_HSL_t hs = GEX_HSL_INITIALIZER;
    gex_HSL_t h;
    gex_HSL_Init(&h);
    for (int i = 0; i < 3; i++) {
        gex_HSL_Lock(&h);
        gex_HSL_Unlock(&h);
        gasnet_hsl_lock(&hs);
        gasnet_hsl_unlock(&hs);
    }
    CHECK(gex_HSL_Trylock(&h) == GASNET_OK, "SEQ trylock of a free HSL");
    gex_HSL_Unlock(&h);
    CHECK(gasnet_hsl_trylock(&hs) == GASNET_OK, "SEQ gasnet_hsl_trylock of a free HSL");
    gasnet_hsl_unlock(&hs);
    void (*lockfn)(gex_HSL_t *) = gex_HSL_Lock, (*unlockfn)(gex_HSL_t *) = gex_HSL_Unlock;
    int (*tryfn)(gex_HSL_t *) = gex_HSL_Trylock;
    lockfn(&h); /* the library's real lock: held, so its trylock must fail */
    CHECK(tryfn(&h) != GASNET_OK, "the library's trylock of a held HSL succeeded");
    unlockfn(&h);
    CHECK(tryfn(&h) == GASNET_OK, "the library's trylock of a free HSL failed");
    unlockfn(&h);
    gex_HSL_Destroy(&h);

    /* thread info: one constant, non-NULL pointer */
    gasnet_threadinfo_t t1 = GASNET_GET_THREADINFO(), t2 = GASNET_GET_THREADINFO();
    CHECK(t1 != NULL && t1 == t2, "SEQ thread info %p %p", t1, t2);
    GASNET_POST_THREADINFO(t1);
    GASNET_BEGIN_FUNCTION();

    printf("tools_seq: ok\n");
    return 0;
}
