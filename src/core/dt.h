/* SPDX-License-Identifier: BSD-3-Clause */
/* core/dt.h: facts about the atomic types (gex_DT_t) and operations (gex_OP_t) that the atomics
 * engine (ratomic/) and a transport's native atomics both need: sizes, names, valid ops. */
#ifndef RV_DT_H
#define RV_DT_H

#include "gasnet_fwd.h"

#define RV_OPS_ARITH                                                                          \
    (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT | GEX_OP_FMULT |       \
     GEX_OP_MIN | GEX_OP_FMIN | GEX_OP_MAX | GEX_OP_FMAX | GEX_OP_INC | GEX_OP_FINC |         \
     GEX_OP_DEC | GEX_OP_FDEC)
#define RV_OPS_BIT (GEX_OP_AND | GEX_OP_FAND | GEX_OP_OR | GEX_OP_FOR | GEX_OP_XOR | GEX_OP_FXOR)
#define RV_OPS_ACCESS (GEX_OP_SET | GEX_OP_GET | GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS)
/* The operations that return the value found at the target. */
#define RV_OPS_FETCHING                                                                       \
    (GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN | GEX_OP_FMAX | GEX_OP_FINC |     \
     GEX_OP_FDEC | GEX_OP_FAND | GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS |        \
     GEX_OP_GET)

/* The ops valid for dt (0: not an atomic type). */
static inline gex_OP_t rv_ratomic_valid_ops(gex_DT_t dt)
{
    switch (dt) {
    case GEX_DT_I32: case GEX_DT_U32: case GEX_DT_I64: case GEX_DT_U64:
        return RV_OPS_ARITH | RV_OPS_ACCESS | RV_OPS_BIT;
    case GEX_DT_FLT: case GEX_DT_DBL:
        return RV_OPS_ARITH | RV_OPS_ACCESS;
    default:
        return 0;
    }
}

/* Bytes of dt (4 or 8). */
static inline unsigned rv_ratomic_size(gex_DT_t dt)
{
    return (dt == GEX_DT_I32 || dt == GEX_DT_U32 || dt == GEX_DT_FLT) ? 4 : 8;
}

/* dt's printable name. */
static inline const char *rv_ratomic_dt_name(gex_DT_t dt)
{
    switch (dt) {
    case GEX_DT_I32: return "GEX_DT_I32";
    case GEX_DT_U32: return "GEX_DT_U32";
    case GEX_DT_I64: return "GEX_DT_I64";
    case GEX_DT_U64: return "GEX_DT_U64";
    case GEX_DT_FLT: return "GEX_DT_FLT";
    case GEX_DT_DBL: return "GEX_DT_DBL";
    default: return "an unknown gex_DT_t";
    }
}

#endif /* RV_DT_H */
