/* SPDX-License-Identifier: BSD-3-Clause */
/* core/amargs.h: a 64-bit value (an address, an offset, an operand) carried in two consecutive
 * 32-bit AM arguments, low half first. */
#ifndef RV_AMARGS_H
#define RV_AMARGS_H

#include <stdint.h>
#include "gasnetex.h"

static inline void rv_args_set_u64(gex_AM_Arg_t *a, uint64_t v)
{
    a[0] = (gex_AM_Arg_t)(uint32_t)v;
    a[1] = (gex_AM_Arg_t)(uint32_t)(v >> 32);
}

static inline uint64_t rv_args_u64(const gex_AM_Arg_t *a)
{
    return (uint64_t)(uint32_t)a[0] | (uint64_t)(uint32_t)a[1] << 32;
}

static inline void rv_args_set_ptr(gex_AM_Arg_t *a, const void *p)
{
    rv_args_set_u64(a, (uint64_t)(uintptr_t)p);
}

static inline void *rv_args_ptr(const gex_AM_Arg_t *a) { return (void *)(uintptr_t)rv_args_u64(a); }

#endif /* RV_AMARGS_H */
