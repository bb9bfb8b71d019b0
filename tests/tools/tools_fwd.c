/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_fwd.c: gasnet_fwd.h on its own (as every UPC++ source includes it): the
 * types and constants it promises, evaluable in #if, with the values gasnetex.h gives. It
 * is compiled as strict C11 here and as C++ by tools_fwd_cxx (the same file). */
#include <gasnet_fwd.h>

#include <stdio.h>

#if !defined(GEX_FLAG_IMMEDIATE) || GEX_FLAG_IMMEDIATE != 1 || GEX_DT_I32 == GEX_DT_U32 ||     \
    GEX_OP_TO_FETCHING(GEX_OP_ADD) != GEX_OP_FADD || GEX_EP_CAPABILITY_ALL != 0x1f ||          \
    (GEX_FLAG_AM_MEDLONG & GEX_FLAG_AM_SHORT) || GEX_FLAG_HINT_ACCEL_ALL != 3 || GEX_OP_CSWAP != GEX_OP_FCAS
#error "gasnet_fwd.h constants"
#endif
#ifdef GASNETEX_H
#error "gasnet_fwd.h must not pull in gasnetex.h"
#endif

/* the ops and types UPC++ takes from it */
static const gex_OP_t ops[] = { GEX_OP_GET,  GEX_OP_SET,  GEX_OP_FCAS, GEX_OP_ADD, GEX_OP_FADD,
                                GEX_OP_SUB,  GEX_OP_FSUB, GEX_OP_INC,  GEX_OP_FINC, GEX_OP_DEC,
                                GEX_OP_FDEC, GEX_OP_MULT, GEX_OP_FMULT, GEX_OP_MIN, GEX_OP_FMIN,
                                GEX_OP_MAX,  GEX_OP_FMAX, GEX_OP_AND, GEX_OP_FAND, GEX_OP_OR,
                                GEX_OP_FOR,  GEX_OP_XOR,  GEX_OP_FXOR };
static const gex_DT_t dts[] = { GEX_DT_I32, GEX_DT_U32, GEX_DT_I64, GEX_DT_U64, GEX_DT_FLT,
                                GEX_DT_DBL, GEX_DT_USER };
static const gex_Flags_t flags[] = { GEX_FLAG_AD_ACQ, GEX_FLAG_AD_REL, GEX_FLAG_AD_MY_RANK };

int main(void)
{
    gex_Rank_t r = GEX_RANK_INVALID;
    gex_EP_Location_t loc = { 0, 0 };
    gex_Event_t ev = GEX_EVENT_INVALID;
    gex_Event_t *now = GEX_EVENT_NOW;
    gex_Addr_t addr = (gex_Addr_t)0;
    unsigned all = 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
        if (all & ops[i]) {
            fprintf(stderr, "FAIL tools_fwd: op %zu shares a bit\n", i);
            return 1;
        }
        all |= ops[i];
    }
    for (size_t i = 1; i < sizeof dts / sizeof dts[0]; i++)
        if (dts[i] == dts[i - 1]) return 1;
    if (r != 0xFFFFFFFFu || loc.gex_rank || ev || now == NULL || addr || !(flags[0] & ~flags[1]) ||
        sizeof(gex_EP_Index_t) != 2) {
        fprintf(stderr, "FAIL tools_fwd: sentinel values\n");
        return 1;
    }
    printf("tools_fwd: ok\n");
    return 0;
}
