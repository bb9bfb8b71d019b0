/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_tools.h: Rivet's GASNet-Tools (gasnett_* / GASNETT_*): atomics, fences, timers,
 * environment queries, system properties and debugging helpers, usable with or without
 * gex_Client_Init. Valid C11 and C++; the out-of-line parts live in librivet (src/tools/).
 * See docs/tools.md for what is provided and where Rivet differs from GASNet. */
#ifndef GASNET_TOOLS_H
#define GASNET_TOOLS_H

#include <stddef.h>
#include <stdint.h>
#include <inttypes.h> /* PRIu64 and friends, which GASNet clients expect from this header */
#ifndef PRIuSZ /* printf format of a size_t */
#define PRIuSZ "zu"
#endif
#include <pthread.h>

/* ---- versions ---------------------------------------------------------------------
 * gasnet_config.h has GASNET_RELEASE_VERSION_*, GEX_SPEC_VERSION_* and GASNETT_SPEC_VERSION_*;
 * the tools' release is the library's. */
#include <gasnet_config.h>
#define GASNETT_RELEASE_VERSION_MAJOR GASNET_RELEASE_VERSION_MAJOR
#define GASNETT_RELEASE_VERSION_MINOR GASNET_RELEASE_VERSION_MINOR
#define GASNETT_RELEASE_VERSION_PATCH GASNET_RELEASE_VERSION_PATCH

/* Thread safety, decided as GASNet decides it for its clients: a GASNET_SEQ client (one
 * thread calls GASNet, and Rivet runs AM handlers only inside that thread's GASNet calls,
 * never from threads or signals of its own) or a tools client that defines
 * GASNETT_THREAD_SINGLE gets GASNETT_THREAD_SINGLE: its gasnett_atomic*_t operations are
 * ordinary loads and stores (see "atomics" below). Everyone else (PAR, PARSYNC, tools
 * clients) gets GASNETT_THREAD_SAFE; so does a SEQ client that defines GASNETT_THREAD_SAFE.
 * librivet itself is thread-safe in every mode. */
#if defined(GASNETT_THREAD_SAFE) && defined(GASNETT_THREAD_SINGLE)
#error "define at most one of GASNETT_THREAD_SAFE and GASNETT_THREAD_SINGLE"
#endif
#if !defined(GASNETT_THREAD_SAFE) && (defined(GASNET_SEQ) || defined(GASNETT_THREAD_SINGLE))
#undef GASNETT_THREAD_SINGLE
#define GASNETT_THREAD_SINGLE 1
#define GASNETT_THREAD_MODEL SEQ
#else
#undef GASNETT_THREAD_SAFE
#define GASNETT_THREAD_SAFE 1
#define GASNETT_THREAD_MODEL PAR
#endif

#ifdef __cplusplus
#define GASNETT_BEGIN_EXTERNC extern "C" {
#define GASNETT_END_EXTERNC }
#else
#define GASNETT_BEGIN_EXTERNC
#define GASNETT_END_EXTERNC
#endif

GASNETT_BEGIN_EXTERNC
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

/* ---- compiler annotations (gcc and clang spellings; both compilers are supported) --- */
#define GASNETT_INLINE(fnname) static inline __attribute__((__always_inline__))
#define GASNETT_PLEASE_INLINE(fnname) static inline
#define GASNETT_NEVER_INLINE(fnname, definition) __attribute__((__noinline__)) definition
#define GASNETT_RESTRICT __restrict__
#define GASNETT_FORMAT_PRINTF(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_FORMAT_PRINTF_FUNCPTR(fnname, fmtarg, firstvararg, declarator) \
    __attribute__((__format__(__printf__, fmtarg, firstvararg))) declarator
#define GASNETT_NORETURN __attribute__((__noreturn__))
#define GASNETT_NORETURNP(fnname)
#define GASNETT_MALLOC __attribute__((__malloc__))
#define GASNETT_MALLOCP(fnname)
#define GASNETT_PURE __attribute__((__pure__))
#define GASNETT_PUREP(fnname)
#define GASNETT_CONST __attribute__((__const__))
#define GASNETT_CONSTP(fnname)
#define GASNETT_HOT __attribute__((__hot__))
#define GASNETT_COLD __attribute__((__cold__))
#define GASNETT_DEPRECATED __attribute__((__deprecated__))
#define GASNETT_WARN_UNUSED_RESULT __attribute__((__warn_unused_result__))
#define GASNETT_USED __attribute__((__used__))
#define GASNETT_UNUSED __attribute__((__unused__))
#define GASNETT_PREDICT_TRUE(expr) __builtin_expect(!!(expr), 1)
#define GASNETT_PREDICT_FALSE(expr) __builtin_expect(!!(expr), 0)
#define if_pt(cond) if (GASNETT_PREDICT_TRUE(cond))
#define if_pf(cond) if (GASNETT_PREDICT_FALSE(cond))
#define gasnett_constant_p(expr) __builtin_constant_p(expr)
/* tells the compiler this point is never reached (undefined behaviour if it is) */
#define gasnett_unreachable() __builtin_unreachable()
#define GASNETT_CURRENT_FUNCTION __func__
/* tells the compiler cond holds here (undefined behaviour if it does not) */
#define gasnett_assume(cond) (__builtin_expect(!!(cond), 1) ? (void)0 : __builtin_unreachable())
/* Marks a deliberate fall-through to the next case label; it ends the statement itself (write
 * it without a semicolon), as GASNet's does. */
#if defined(__cplusplus) && __cplusplus >= 201703L
#define GASNETT_FALLTHROUGH [[fallthrough]];
#elif defined(__has_attribute)
#if __has_attribute(__fallthrough__)
#define GASNETT_FALLTHROUGH __attribute__((__fallthrough__));
#endif
#endif
#ifndef GASNETT_FALLTHROUGH
#define GASNETT_FALLTHROUGH
#endif
/* Discard 1..8 macro arguments without unused-value warnings (an expression of type void). */
#define GASNETT_UNUSED_ARGS1(a1) ((void)(a1))
#define GASNETT_UNUSED_ARGS2(a1, a2) ((void)(a1), (void)(a2))
#define GASNETT_UNUSED_ARGS3(a1, a2, a3) ((void)(a1), (void)(a2), (void)(a3))
#define GASNETT_UNUSED_ARGS4(a1, a2, a3, a4) \
    ((void)(a1), (void)(a2), (void)(a3), (void)(a4))
#define GASNETT_UNUSED_ARGS5(a1, a2, a3, a4, a5) \
    ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5))
#define GASNETT_UNUSED_ARGS6(a1, a2, a3, a4, a5, a6) \
    ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6))
#define GASNETT_UNUSED_ARGS7(a1, a2, a3, a4, a5, a6, a7) \
    ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6), (void)(a7))
#define GASNETT_UNUSED_ARGS8(a1, a2, a3, a4, a5, a6, a7, a8) \
    ((void)(a1), (void)(a2), (void)(a3), (void)(a4), (void)(a5), (void)(a6), (void)(a7), \
     (void)(a8))

#ifdef __cplusplus
#define GASNETT_EXTERNC extern "C"
#else
#define GASNETT_EXTERNC extern
#endif
/* Token pasting/stringizing helpers GASNet clients use on the *_NAME/_VERSION tokens. */
#ifndef _STRINGIFY
#define _STRINGIFY_HELPER(x) #x
#define _STRINGIFY(x) _STRINGIFY_HELPER(x)
#endif
#ifndef _CONCAT
#define _CONCAT_HELPER(a, b) a##b
#define _CONCAT(a, b) _CONCAT_HELPER(a, b)
#endif

/* Embeds identText in the executable (found by `ident` / `strings`). */
#define GASNETT_IDENT(identName, identText)            \
    extern const char identName[];                     \
    __attribute__((__used__)) const char identName[] = identText

/* ---- system properties (compile time) ---------------------------------------------- */
#if defined(__x86_64__)
#define GASNETT_SYSTEM_TUPLE "x86_64-pc-linux-gnu"
#define GASNETT_CACHE_LINE_BYTES 64
#elif defined(__aarch64__)
#define GASNETT_SYSTEM_TUPLE "aarch64-unknown-linux-gnu"
#define GASNETT_CACHE_LINE_BYTES 128
#elif defined(__powerpc64__)
#define GASNETT_SYSTEM_TUPLE "powerpc64-unknown-linux-gnu"
#define GASNETT_CACHE_LINE_BYTES 128
#else
#define GASNETT_SYSTEM_TUPLE "unknown-unknown-linux-gnu"
#define GASNETT_CACHE_LINE_BYTES 128
#endif
#define GASNETT_PAGESIZE 4096
#define GASNETT_PAGESHIFT 12

/* ---- platform identification: the PLATFORM_* names (gasnet_portable_platform.h) ------ */
#include <gasnet_portable_platform.h>

/* Build configuration as GASNet tools clients print it; Rivet has one (PAR, no debug,
 * tracing or statistics), so the performance warning is always empty. */
#define GASNETT_CONFIG_STRING                                                           \
    "RELEASE=" _STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "." _STRINGIFY(                    \
        GASNET_RELEASE_VERSION_MINOR) "." _STRINGIFY(GASNET_RELEASE_VERSION_PATCH)         \
    ",SPEC=" _STRINGIFY(GASNETT_SPEC_VERSION_MAJOR) "." _STRINGIFY(                        \
        GASNETT_SPEC_VERSION_MINOR) ",PTR=" _STRINGIFY(__SIZEOF_POINTER__) "x8,nodebug,notrace,nostats"
#define GASNETT_MAX_THREADS 256 /* = gex_System_QueryMaxThreads() of a PAR client */
#define gasnett_performance_warning_str() ""

/* ---- memory fences ------------------------------------------------------------------ */
/* ThreadSanitizer does not model standalone fences (gcc refuses them under -Werror): there
 * every fence is a sequentially consistent read-modify-write of one process-wide word, which
 * orders at least as strongly and which TSan understands. */
#if defined(__SANITIZE_THREAD__)
#define RV_TOOLS_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RV_TOOLS_TSAN 1
#endif
#endif
#ifdef RV_TOOLS_TSAN
extern int _rivet_tools_fence_word;
#define RV_TOOLS_FENCE(order) \
    ((void)(order), (void)__atomic_fetch_add(&_rivet_tools_fence_word, 0, __ATOMIC_SEQ_CST))
#else
#define RV_TOOLS_FENCE(order) __atomic_thread_fence(order)
#endif
/* wmb orders earlier stores before later stores (release fence), rmb earlier loads before
 * later loads (acquire fence), mb everything (sequentially consistent fence). */
#define gasnett_compiler_fence() __atomic_signal_fence(__ATOMIC_SEQ_CST)
#define gasnett_local_mb() RV_TOOLS_FENCE(__ATOMIC_SEQ_CST)
#define gasnett_local_wmb() RV_TOOLS_FENCE(__ATOMIC_RELEASE)
#define gasnett_local_rmb() RV_TOOLS_FENCE(__ATOMIC_ACQUIRE)
#define gasnett_weak_mb() gasnett_local_mb()
#define gasnett_weak_wmb() gasnett_local_wmb()
#define gasnett_weak_rmb() gasnett_local_rmb()
#if defined(__x86_64__) || defined(__i386__)
#define gasnett_spinloop_hint() __builtin_ia32_pause()
#elif defined(__aarch64__)
#define gasnett_spinloop_hint() __asm__ __volatile__("yield" ::: "memory")
#else
#define gasnett_spinloop_hint() gasnett_compiler_fence()
#endif

/* ---- atomics ------------------------------------------------------------------------ */
/* Fence flags for every atomic operation; they may be OR'd. MB = RMB | WMB. */
#define GASNETT_ATOMIC_NONE 0
#define GASNETT_ATOMIC_RMB_PRE 0x01
#define GASNETT_ATOMIC_WMB_PRE 0x02
#define GASNETT_ATOMIC_MB_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define GASNETT_ATOMIC_RMB_POST 0x04
#define GASNETT_ATOMIC_WMB_POST 0x08
#define GASNETT_ATOMIC_MB_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST)
#define GASNETT_ATOMIC_RMB_POST_IF_TRUE 0x10
#define GASNETT_ATOMIC_RMB_POST_IF_FALSE 0x20
#define GASNETT_ATOMIC_REL GASNETT_ATOMIC_WMB_PRE
#define GASNETT_ATOMIC_ACQ GASNETT_ATOMIC_RMB_POST
#define GASNETT_ATOMIC_ACQ_IF_TRUE GASNETT_ATOMIC_RMB_POST_IF_TRUE
#define GASNETT_ATOMIC_ACQ_IF_FALSE GASNETT_ATOMIC_RMB_POST_IF_FALSE

#define GASNETT_HAVE_ATOMIC_ADD_SUB 1
#define GASNETT_HAVE_ATOMIC_CAS 1

/* How the flags become C11 memory orders (the flags are constants in practice, so all of
 * this folds away): PRE bits make a read-modify-write a release, POST bits an acquire;
 * a full MB before or after adds a sequentially consistent fence. Loads cannot release
 * and stores cannot acquire, so those get a fence instead. Stronger than asked is allowed. */
#define RV_TOOLS_PRE (GASNETT_ATOMIC_RMB_PRE | GASNETT_ATOMIC_WMB_PRE)
#define RV_TOOLS_POST (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_WMB_POST | \
                       GASNETT_ATOMIC_RMB_POST_IF_TRUE | GASNETT_ATOMIC_RMB_POST_IF_FALSE)

static inline __attribute__((__always_inline__)) int rv_tools_rmw_order(int f)
{
    return (f & RV_TOOLS_PRE) ? ((f & RV_TOOLS_POST) ? __ATOMIC_ACQ_REL : __ATOMIC_RELEASE)
                              : ((f & RV_TOOLS_POST) ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED);
}
static inline __attribute__((__always_inline__)) void rv_tools_pre(int f)
{
    if ((f & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE) RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
}
static inline __attribute__((__always_inline__)) void rv_tools_post(int f)
{
    if ((f & GASNETT_ATOMIC_MB_POST) == GASNETT_ATOMIC_MB_POST) RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
}
/* before a load: a write barrier must order earlier stores against the load (full fence) */
static inline __attribute__((__always_inline__)) void rv_tools_load_pre(int f)
{
    if (f & GASNETT_ATOMIC_WMB_PRE) RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
    else if (f & GASNETT_ATOMIC_RMB_PRE) RV_TOOLS_FENCE(__ATOMIC_ACQUIRE);
}
/* after a store: a read barrier must order the store against later loads (full fence) */
static inline __attribute__((__always_inline__)) void rv_tools_store_post(int f)
{
    if (f & (GASNETT_ATOMIC_RMB_POST | GASNETT_ATOMIC_RMB_POST_IF_TRUE |
             GASNETT_ATOMIC_RMB_POST_IF_FALSE))
        RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
    else if (f & GASNETT_ATOMIC_WMB_POST) RV_TOOLS_FENCE(__ATOMIC_RELEASE);
}

/* set and read are the same in every mode (one untorn access with the flags' fences);
 * increment and decrement are add and subtract of 1 */
#define RV_TOOLS_SET_READ(P, T, V)                                                         \
    static inline __attribute__((__always_inline__)) void P##_set(T *p, V v, int f)      \
    {                                                                                     \
        rv_tools_pre(f);                                                                  \
        __atomic_store_n(&p->ctr, v, (f & RV_TOOLS_PRE) ? __ATOMIC_RELEASE : __ATOMIC_RELAXED); \
        rv_tools_store_post(f);                                                           \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) V P##_read(T *p, int f)             \
    {                                                                                     \
        rv_tools_load_pre(f);                                                             \
        V v = __atomic_load_n(&p->ctr, (f & RV_TOOLS_POST) ? __ATOMIC_ACQUIRE : __ATOMIC_RELAXED); \
        rv_tools_post(f);                                                                 \
        return v;                                                                         \
    }
#define RV_TOOLS_INC_DEC(P, T)                                                             \
    static inline __attribute__((__always_inline__)) void P##_increment(T *p, int f)     \
    {                                                                                     \
        (void)P##_add(p, 1, f);                                                           \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) void P##_decrement(T *p, int f)     \
    {                                                                                     \
        (void)P##_subtract(p, 1, f);                                                      \
    }

/* One set of operations per atomic type (P: name prefix, T: type, V: value type). */
#define RV_TOOLS_ATOMIC_OPS(P, T, V)                                                       \
    RV_TOOLS_SET_READ(P, T, V)                                                            \
    static inline __attribute__((__always_inline__)) V P##_add(T *p, V v, int f)         \
    {                                                                                     \
        rv_tools_pre(f);                                                                  \
        V r = __atomic_add_fetch(&p->ctr, v, rv_tools_rmw_order(f));                     \
        rv_tools_post(f);                                                                 \
        return r;                                                                         \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) V P##_subtract(T *p, V v, int f)    \
    {                                                                                     \
        rv_tools_pre(f);                                                                  \
        V r = __atomic_sub_fetch(&p->ctr, v, rv_tools_rmw_order(f));                     \
        rv_tools_post(f);                                                                 \
        return r;                                                                         \
    }                                                                                     \
    RV_TOOLS_INC_DEC(P, T)                                                                \
    static inline __attribute__((__always_inline__)) int P##_decrement_and_test(T *p, int f) \
    {                                                                                     \
        return P##_subtract(p, 1, f) == 0;                                                \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) int P##_compare_and_swap(            \
        T *p, V oldval, V newval, int f)                                                  \
    {                                                                                     \
        rv_tools_pre(f);                                                                  \
        int o = rv_tools_rmw_order(f);                                                    \
        int ok = __atomic_compare_exchange_n(&p->ctr, &oldval, newval, 0, o,              \
                                             o == __ATOMIC_ACQ_REL ? __ATOMIC_ACQUIRE     \
                                             : o == __ATOMIC_RELEASE ? __ATOMIC_RELAXED : o); \
        rv_tools_post(f);                                                                 \
        return ok;                                                                        \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) V P##_swap(T *p, V newval, int f)   \
    {                                                                                     \
        rv_tools_pre(f);                                                                  \
        V r = __atomic_exchange_n(&p->ctr, newval, rv_tools_rmw_order(f));               \
        rv_tools_post(f);                                                                 \
        return r;                                                                         \
    }

/* The single-threaded forms (GASNETT_THREAD_SINGLE): the read-modify-writes are a load and
 * a store, each a single untorn access (relaxed atomic, no lock prefix), so they are atomic
 * with respect to nothing but program order, which is all a single-threaded client can
 * observe; README-tools promises no more (the regular atomics are architecturally atomic
 * only in thread-safe mode, never signal-safe, never across processes). The fence flags keep
 * their meaning: PRE bits fence before the load, POST bits after the store (on x86-64 the
 * read and write fences are compiler barriers; a full MB is a real fence). */
static inline __attribute__((__always_inline__)) void rv_tools_st_pre(int f)
{
    if ((f & GASNETT_ATOMIC_MB_PRE) == GASNETT_ATOMIC_MB_PRE) RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
    else if (f & GASNETT_ATOMIC_WMB_PRE) RV_TOOLS_FENCE(__ATOMIC_RELEASE);
    else if (f & GASNETT_ATOMIC_RMB_PRE) RV_TOOLS_FENCE(__ATOMIC_ACQUIRE);
}
static inline __attribute__((__always_inline__)) void rv_tools_st_post(int f, int result)
{
    int acq = (f & GASNETT_ATOMIC_RMB_POST) || ((f & GASNETT_ATOMIC_RMB_POST_IF_TRUE) && result) ||
              ((f & GASNETT_ATOMIC_RMB_POST_IF_FALSE) && !result);
    int rel = (f & GASNETT_ATOMIC_WMB_POST) != 0;
    if (acq && rel) RV_TOOLS_FENCE(__ATOMIC_SEQ_CST);
    else if (acq) RV_TOOLS_FENCE(__ATOMIC_ACQUIRE);
    else if (rel) RV_TOOLS_FENCE(__ATOMIC_RELEASE);
}
#define RV_TOOLS_ST_LD(p) __atomic_load_n(&(p)->ctr, __ATOMIC_RELAXED)
#define RV_TOOLS_ST_ST(p, v) __atomic_store_n(&(p)->ctr, (v), __ATOMIC_RELAXED)
#define RV_TOOLS_ST_ATOMIC_OPS(P, T, V)                                                    \
    RV_TOOLS_SET_READ(P, T, V)                                                            \
    static inline __attribute__((__always_inline__)) V P##_add(T *p, V v, int f)         \
    {                                                                                     \
        rv_tools_st_pre(f);                                                               \
        V r = (V)(RV_TOOLS_ST_LD(p) + v);                                                 \
        RV_TOOLS_ST_ST(p, r);                                                             \
        rv_tools_st_post(f, 0);                                                           \
        return r;                                                                         \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) V P##_subtract(T *p, V v, int f)    \
    {                                                                                     \
        rv_tools_st_pre(f);                                                               \
        V r = (V)(RV_TOOLS_ST_LD(p) - v);                                                 \
        RV_TOOLS_ST_ST(p, r);                                                             \
        rv_tools_st_post(f, 0);                                                           \
        return r;                                                                         \
    }                                                                                     \
    RV_TOOLS_INC_DEC(P, T)                                                                \
    static inline __attribute__((__always_inline__)) int P##_decrement_and_test(T *p, int f) \
    {                                                                                     \
        rv_tools_st_pre(f);                                                               \
        V r = (V)(RV_TOOLS_ST_LD(p) - 1u);                                                \
        RV_TOOLS_ST_ST(p, r);                                                             \
        rv_tools_st_post(f, r == 0);                                                      \
        return r == 0;                                                                    \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) int P##_compare_and_swap(            \
        T *p, V oldval, V newval, int f)                                                  \
    {                                                                                     \
        rv_tools_st_pre(f);                                                               \
        int ok = RV_TOOLS_ST_LD(p) == oldval;                                             \
        if (ok) RV_TOOLS_ST_ST(p, newval);                                                \
        rv_tools_st_post(f, ok);                                                          \
        return ok;                                                                        \
    }                                                                                     \
    static inline __attribute__((__always_inline__)) V P##_swap(T *p, V newval, int f)   \
    {                                                                                     \
        rv_tools_st_pre(f);                                                               \
        V r = RV_TOOLS_ST_LD(p);                                                          \
        RV_TOOLS_ST_ST(p, newval);                                                        \
        rv_tools_st_post(f, 0);                                                           \
        return r;                                                                         \
    }
/* the regular atomics' operations: single-threaded forms in a GASNETT_THREAD_SINGLE client,
 * hardware atomics otherwise (strong atomics are hardware atomics always) */
#ifdef GASNETT_THREAD_SINGLE
#define RV_TOOLS_REGULAR_OPS RV_TOOLS_ST_ATOMIC_OPS
#else
#define RV_TOOLS_REGULAR_OPS RV_TOOLS_ATOMIC_OPS
#endif

/* Fixed-width atomics: exactly the natural storage of uint32_t / uint64_t. */
typedef struct { uint32_t ctr; } gasnett_atomic32_t;
typedef struct { uint64_t ctr; } gasnett_atomic64_t;
#define gasnett_atomic32_init(v) { (uint32_t)(v) }
#define gasnett_atomic64_init(v) { (uint64_t)(v) }
RV_TOOLS_REGULAR_OPS(gasnett_atomic32, gasnett_atomic32_t, uint32_t)
RV_TOOLS_REGULAR_OPS(gasnett_atomic64, gasnett_atomic64_t, uint64_t)

/* gasnett_atomic_t: the general counter, of the width GASNet gives it: 32 bits wherever
 * 32-bit atomics are lock-free hardware operations (x86-64, AArch64, POWER, RISC-V, ...),
 * else 64 bits. Clients test wrap-around at GASNETT_ATOMIC_MAX and compare read values with
 * 32-bit ones, so the width is part of the interface. It is the same type as the fixed-width
 * atomic of its size. Values are unsigned and wrap modulo 2^width; gasnett_atomic_signed()
 * reads one as the two's complement gasnett_atomic_sval_t. The limits are typed constants
 * (casts), as in GASNet, so they cannot be used in #if. */
#if (defined(__GCC_ATOMIC_INT_LOCK_FREE) && __GCC_ATOMIC_INT_LOCK_FREE == 2) || \
    !(defined(__GCC_ATOMIC_LLONG_LOCK_FREE) && __GCC_ATOMIC_LLONG_LOCK_FREE == 2)
#define RV_TOOLS_ATOMIC_BITS 32
typedef uint32_t gasnett_atomic_val_t;
typedef int32_t gasnett_atomic_sval_t;
typedef gasnett_atomic32_t gasnett_atomic_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)0xFFFFFFFFu)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)(-0x7FFFFFFF - 1))
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)0x7FFFFFFF)
#else
#define RV_TOOLS_ATOMIC_BITS 64
typedef uint64_t gasnett_atomic_val_t;
typedef int64_t gasnett_atomic_sval_t;
typedef gasnett_atomic64_t gasnett_atomic_t;
#define GASNETT_ATOMIC_MAX ((gasnett_atomic_val_t)0xFFFFFFFFFFFFFFFFull)
#define GASNETT_ATOMIC_SIGNED_MIN ((gasnett_atomic_sval_t)(-0x7FFFFFFFFFFFFFFFll - 1))
#define GASNETT_ATOMIC_SIGNED_MAX ((gasnett_atomic_sval_t)0x7FFFFFFFFFFFFFFFll)
#endif
#define gasnett_atomic_init(v) { (gasnett_atomic_val_t)(v) }
#define gasnett_atomic_signed(v) ((gasnett_atomic_sval_t)(gasnett_atomic_val_t)(v))
RV_TOOLS_REGULAR_OPS(gasnett_atomic, gasnett_atomic_t, gasnett_atomic_val_t)

/* Strong atomics: lock-free hardware atomics in every mode, atomic in single-threaded
 * programs and safe in signal handlers too. */
typedef gasnett_atomic_t gasnett_strongatomic_t;
typedef gasnett_atomic_val_t gasnett_strongatomic_val_t;
typedef gasnett_atomic_sval_t gasnett_strongatomic_sval_t;
typedef gasnett_atomic32_t gasnett_strongatomic32_t;
typedef gasnett_atomic64_t gasnett_strongatomic64_t;
#define gasnett_strongatomic_init(v) gasnett_atomic_init(v)
#define gasnett_strongatomic32_init(v) gasnett_atomic32_init(v)
#define gasnett_strongatomic64_init(v) gasnett_atomic64_init(v)
#define gasnett_strongatomic_signed(v) gasnett_atomic_signed(v)
#define GASNETT_STRONGATOMIC_MAX GASNETT_ATOMIC_MAX
#define GASNETT_STRONGATOMIC_SIGNED_MIN GASNETT_ATOMIC_SIGNED_MIN
#define GASNETT_STRONGATOMIC_SIGNED_MAX GASNETT_ATOMIC_SIGNED_MAX
RV_TOOLS_ATOMIC_OPS(gasnett_strongatomic, gasnett_strongatomic_t, gasnett_atomic_val_t)
RV_TOOLS_ATOMIC_OPS(gasnett_strongatomic32, gasnett_strongatomic32_t, uint32_t)
RV_TOOLS_ATOMIC_OPS(gasnett_strongatomic64, gasnett_strongatomic64_t, uint64_t)

/* ---- timers --------------------------------------------------------------------------- */
/* Ticks are per process, not synchronized across hosts. On x86-64 with an invariant TSC
 * (CPUID says so; decided once, when the library loads) a tick is one TSC cycle, read inline
 * (rdtsc; a compiler barrier, not an instruction fence); ticks_to_ns multiplies by a rate
 * measured once against CLOCK_MONOTONIC (at the first conversion, over at least 2 ms since
 * the library loaded: only a conversion that early waits out the rest). Elsewhere, or without
 * an invariant TSC, a tick is one nanosecond of CLOCK_MONOTONIC. */
typedef uint64_t gasnett_tick_t;
#define GASNETT_TICK_MIN ((gasnett_tick_t)0)
#define GASNETT_TICK_MAX ((gasnett_tick_t)UINT64_MAX)
extern gasnett_tick_t _rivet_tools_ticks_now(void); /* a reading, deciding the source once */
extern uint64_t _rivet_tools_ticks_calibrate(void);  /* the rate, measuring it once */
/* 1: ticks are TSC cycles; -1: CLOCK_MONOTONIC ns; 0: not decided yet */
extern int _rivet_tools_tick_tsc;
/* nanoseconds per tick in 32.32 fixed point; 0 until measured */
extern uint64_t _rivet_tools_tick_mult;
#if defined(__x86_64__)
static inline __attribute__((__always_inline__)) gasnett_tick_t _rivet_tools_ticks_inline(void)
{
    if (__builtin_expect(__atomic_load_n(&_rivet_tools_tick_tsc, __ATOMIC_RELAXED) > 0, 1)) {
        uint32_t lo, hi;
        __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi) : : "memory");
        return ((uint64_t)hi << 32) | lo;
    }
    return _rivet_tools_ticks_now();
}
#define gasnett_ticks_now() _rivet_tools_ticks_inline()
#else
#define gasnett_ticks_now() _rivet_tools_ticks_now()
#endif
static inline __attribute__((__always_inline__)) uint64_t _rivet_tools_ticks_to_ns(gasnett_tick_t t)
{
    uint64_t m = __atomic_load_n(&_rivet_tools_tick_mult, __ATOMIC_RELAXED);
    if (__builtin_expect(m == 0, 0)) m = _rivet_tools_ticks_calibrate();
    __extension__ typedef unsigned __int128 rv_u128;
    return (uint64_t)(((rv_u128)t * m) >> 32);
}
#define gasnett_ticks_to_ns(ticks) _rivet_tools_ticks_to_ns((gasnett_tick_t)(ticks))
#define gasnett_ticks_to_us(ticks) (gasnett_ticks_to_ns(ticks) / 1000u)
extern double gasnett_tick_granularityus(void);
extern double gasnett_tick_overheadus(void);
extern uint64_t gasnett_gettimeofday_us(void);
/* sleeps at least ns nanoseconds (resumes after signals); returns 0 */
extern int gasnett_nsleep(uint64_t ns);

/* ---- mutexes, condition variables, reader/writer locks (pthread wrappers) -------------- */
typedef pthread_mutex_t gasnett_mutex_t;
#define GASNETT_MUTEX_INITIALIZER PTHREAD_MUTEX_INITIALIZER
extern void gasnett_mutex_init(gasnett_mutex_t *pl);
extern void gasnett_mutex_destroy(gasnett_mutex_t *pl);
extern int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *pl);
extern void gasnett_mutex_lock(gasnett_mutex_t *pl);
extern void gasnett_mutex_unlock(gasnett_mutex_t *pl);
extern int gasnett_mutex_trylock(gasnett_mutex_t *pl);
#define gasnett_mutex_assertlocked(pl) ((void)(pl))
#define gasnett_mutex_assertunlocked(pl) ((void)(pl))

typedef pthread_cond_t gasnett_cond_t;
#define GASNETT_COND_INITIALIZER PTHREAD_COND_INITIALIZER
extern void gasnett_cond_init(gasnett_cond_t *pc);
extern void gasnett_cond_destroy(gasnett_cond_t *pc);
extern void gasnett_cond_signal(gasnett_cond_t *pc);
extern void gasnett_cond_broadcast(gasnett_cond_t *pc);
extern void gasnett_cond_wait(gasnett_cond_t *pc, gasnett_mutex_t *pl);

/* POSIX reader/writer locks exist unless a strict ISO C compile hid them (glibc); there
 * they compile down to mutexes, as the specification allows for systems without them. */
#if defined(__USE_XOPEN2K) || defined(__USE_UNIX98) || !defined(__GLIBC__)
typedef pthread_rwlock_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER PTHREAD_RWLOCK_INITIALIZER
extern void gasnett_rwlock_init(gasnett_rwlock_t *pl);
extern void gasnett_rwlock_destroy(gasnett_rwlock_t *pl);
extern void gasnett_rwlock_rdlock(gasnett_rwlock_t *pl);
extern void gasnett_rwlock_wrlock(gasnett_rwlock_t *pl);
extern void gasnett_rwlock_unlock(gasnett_rwlock_t *pl);
extern int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *pl);
extern int gasnett_rwlock_trywrlock(gasnett_rwlock_t *pl);
#else
typedef gasnett_mutex_t gasnett_rwlock_t;
#define GASNETT_RWLOCK_INITIALIZER GASNETT_MUTEX_INITIALIZER
#define gasnett_rwlock_init(pl) gasnett_mutex_init(pl)
#define gasnett_rwlock_destroy(pl) gasnett_mutex_destroy(pl)
#define gasnett_rwlock_rdlock(pl) gasnett_mutex_lock(pl)
#define gasnett_rwlock_wrlock(pl) gasnett_mutex_lock(pl)
#define gasnett_rwlock_unlock(pl) gasnett_mutex_unlock(pl)
#define gasnett_rwlock_tryrdlock(pl) gasnett_mutex_trylock(pl)
#define gasnett_rwlock_trywrlock(pl) gasnett_mutex_trylock(pl)
#endif
#define gasnett_rwlock_assertrdlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertwrlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertlocked(pl) ((void)(pl))
#define gasnett_rwlock_assertunlocked(pl) ((void)(pl))

/* ---- thread-specific data: one void* per thread and key, zero until set ---------------- */
#define GASNETT_THREADKEY_DEFINE(key) __thread void *rv_tools_tkey_##key
#define GASNETT_THREADKEY_DECLARE(key) extern __thread void *rv_tools_tkey_##key
/* Keys are __thread variables, so initialising one has nothing to do. The function has
 * GASNet's name because clients (Realm) take its address to silence unused warnings. */
static inline void _gasneti_threadkey_init(void **key) { (void)key; }
#define gasnett_threadkey_init(key) _gasneti_threadkey_init(&rv_tools_tkey_##key)
#define gasnett_threadkey_get(key) (rv_tools_tkey_##key)
#define gasnett_threadkey_set(key, val) ((void)(rv_tools_tkey_##key = (void *)(val)))
#define gasnett_threadkey_get_noinit(key) gasnett_threadkey_get(key)
#define gasnett_threadkey_set_noinit(key, val) gasnett_threadkey_set(key, val)

/* ---- environment ----------------------------------------------------------------------- */
extern char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size);
extern int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier);
extern void gasnett_setenv(const char *key, const char *value);
extern void gasnett_unsetenv(const char *key);
extern char *gasnett_getenv(const char *keyname);
extern char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval);
extern int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval);
extern int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                              uint64_t mem_size_multiplier);
extern double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval);
extern int gasnett_verboseenv(void);
extern void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size);
extern void gasnett_envstr_display(const char *key, const char *val, int is_dflt);
extern void gasnett_envdbl_display(const char *key, double val, int is_dflt);

/* ---- tracing and statistics: Rivet has no tracing/statistics build, so these are the
 * documented no-op forms (TRACE_PRINTF still checks its format) ------------------------- */
/* It has GASNet's name because clients (Realm) take its address. */
static inline __attribute__((__format__(__printf__, 1, 2)))
void _gasnett_trace_printf_noop(const char *format, ...) { (void)format; }
#define GASNETT_TRACE_ENABLED 0
#define GASNETT_STATS_ENABLED 0
#define GASNETT_TRACE_PRINTF _gasnett_trace_printf_noop
#define GASNETT_TRACE_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_STATS_PRINTF _gasnett_trace_printf_noop
#define GASNETT_STATS_PRINTF_FORCE _gasnett_trace_printf_noop
#define GASNETT_TRACE_SETSOURCELINE(file, line) ((void)(file), (void)(line))
#define GASNETT_TRACE_GETSOURCELINE(pfile, pline) ((void)(*(pfile) = 0, *(pline) = 0))
#define GASNETT_TRACE_FREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_UNFREEZESOURCELINE() ((void)0)
#define GASNETT_TRACE_GETMASK() ""
#define GASNETT_TRACE_SETMASK(mask) ((void)(mask))
#define GASNETT_STATS_GETMASK() ""
#define GASNETT_STATS_SETMASK(mask) ((void)(mask))
#define GASNETT_TRACE_GET_TRACELOCAL() 0
#define GASNETT_TRACE_SET_TRACELOCAL(val) ((void)(val))
/* No statistics are collected: registering a callback reports 0 (not enabled, the callback is
 * never called) and dumping does nothing. */
#define GASNETT_STATS_INIT(callbackfn) 0
#define GASNETT_STATS_DUMP(reset) ((void)0)

/* ---- backtraces, freezing, fatal errors -------------------------------------------------- */
extern void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname);
extern void gasnett_freezeForDebuggerErr(void);
/* A client-supplied backtrace mechanism: define a global
 *   gasnett_backtrace_type_t gasnett_backtrace_user = { "USER", my_fn, 1 };
 * and gasnett_print_backtrace calls my_fn(fd) first; a nonzero return means it failed and
 * Rivet's own (glibc) backtrace follows. */
typedef struct {
    const char *name;
    int (*fnp)(int fd);   /* writes a backtrace to fd; returns 0 on success */
    int threadsupport;    /* nonzero if fnp may run in any thread */
} gasnett_backtrace_type_t;
extern gasnett_backtrace_type_t gasnett_backtrace_user; /* optional: the client defines it */
extern void gasnett_backtrace_init(const char *exename);
extern int gasnett_print_backtrace(int fd);
extern int (*gasnett_print_backtrace_ifenabled)(int fd);
extern void gasnett_fatalerror(const char *msg, ...)
    __attribute__((__format__(__printf__, 1, 2))) __attribute__((__noreturn__));
extern void gasnett_fatalerror_nopos(const char *msg, ...) /* same: neither prints a position */
    __attribute__((__format__(__printf__, 1, 2))) __attribute__((__noreturn__));
extern void gasnett_killmyprocess(int exitcode) __attribute__((__noreturn__));
extern char *_rivet_tools_current_loc(const char *file, int line, const char *func);
#define gasnett_current_loc _rivet_tools_current_loc(__FILE__, __LINE__, __func__)

/* ---- system properties (run time) and miscellany ----------------------------------------- */
extern const char *gasnett_gethostname(void);
extern int gasnett_cpu_count(void);
extern uint64_t gasnett_getPhysMemSz(int failureIsFatal);
#define gasnett_isLittleEndian() (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__)
/* binds the calling thread to CPU rank % gasnett_cpu_count(); 0 on success */
extern int gasnett_set_affinity(int rank);
#define GASNETT_SET_AFFINITY_SUPPORT 1
extern void gasnett_sched_yield(void);
extern void gasnett_flush_streams(void);
extern void gasnett_close_streams(void);
typedef void (*gasnett_sighandlerfn_t)(int);
extern gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp);
extern uint64_t gasnett_checksum(const void *p, int numbytes);
extern int gasnett_count0s_uint32_t(uint32_t x);
extern int gasnett_count0s_uint64_t(uint64_t x);
extern int gasnett_count0s_uintptr_t(uintptr_t x);
/* the word forms inline (the functions remain, for their addresses): a byte of x is zero
 * iff the high bit of its byte in ~(((x & 0x7f..) + 0x7f..) | x | 0x7f..) is set (the add
 * never carries across bytes); a multiply sums those bits */
static inline __attribute__((__always_inline__)) int _rivet_count0s_u64(uint64_t x)
{
    uint64_t t = ~(((x & 0x7F7F7F7F7F7F7F7Full) + 0x7F7F7F7F7F7F7F7Full) | x |
                   0x7F7F7F7F7F7F7F7Full);
    return (int)(((t >> 7) * 0x0101010101010101ull) >> 56);
}
#define gasnett_count0s_uint64_t(x) _rivet_count0s_u64((uint64_t)(x))
#define gasnett_count0s_uint32_t(x) \
    _rivet_count0s_u64((uint64_t)(uint32_t)(x) | 0xFFFFFFFF00000000ull)
#if UINTPTR_MAX > 0xFFFFFFFFu
#define gasnett_count0s_uintptr_t(x) _rivet_count0s_u64((uint64_t)(uintptr_t)(x))
#else
#define gasnett_count0s_uintptr_t(x) gasnett_count0s_uint32_t((uint32_t)(uintptr_t)(x))
#endif
extern size_t gasnett_count0s(const void *p, size_t numbytes);
extern size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                                   size_t numbytes);
extern int gasnett_maximize_rlimits(void);
extern int gasnett_maximize_rlimit(int res, const char *lim_desc);
/* the absolute path of the running executable ("" if it cannot be found) */
extern const char *gasnett_exe_name(void);
/* the name of signal sigval ("SIGSEGV"), NULL if it is not a signal this system knows */
extern const char *gasnett_signame_fromval(int sigval);
/* the release of the library this program runs with: "2025.8.0", and as
 * major * 1000000 + minor * 10000 + patch */
extern const char *gasnett_release_version_str(void);
extern uint64_t gasnett_release_version(void);
/* segsize bytes of fresh zeroed memory, page aligned (mmap); a failure is fatal */
extern void *gasnett_mmap(uintptr_t segsize);
/* Set by gasnett_freezeForDebuggerNow/Err while the process waits for a debugger: clear it
 * from the debugger to continue. */
extern volatile int gasnet_frozen;

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
GASNETT_END_EXTERNC

#endif /* GASNET_TOOLS_H */
