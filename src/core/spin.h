/* SPDX-License-Identifier: BSD-3-Clause */
/* core/spin.h: a one-word spinlock (test-and-test-and-set) and the CPU's spin-wait hint, for
 * short critical sections on hot paths that a mutex would slow down (transports' rings,
 * free lists and credit counters). The lock word may live in memory shared between processes. */
#ifndef RV_SPIN_H
#define RV_SPIN_H

#include <stdint.h>

typedef uint32_t rv_spin_t;

static inline void rv_cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline void rv_spin_lock(rv_spin_t *l)
{
    while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
        while (__atomic_load_n(l, __ATOMIC_RELAXED)) rv_cpu_relax();
}

static inline int rv_spin_trylock(rv_spin_t *l)
{
    return __atomic_load_n(l, __ATOMIC_RELAXED) == 0 &&
           __atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE) == 0;
}

static inline void rv_spin_unlock(rv_spin_t *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }

#endif /* RV_SPIN_H */
