/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_fwd.h: the light part of gasnetex.h that a client may include anywhere: ranks,
 * endpoint locations, events, addresses, data types, operations, flags and endpoint
 * capabilities. Only typedefs and preprocessor constants (no functions); gasnetex.h includes
 * it, so nothing here is defined twice.
 *
 * Every constant below is a plain integer expression with the type of its typedef's
 * underlying integer (unsigned int for the uint32_t ones), so that it also works in #if. */
#ifndef _GEX_FWD_H
#define _GEX_FWD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- ranks and endpoint locations ------------------------------------------------- */
typedef uint32_t gex_Rank_t;
#define GEX_RANK_INVALID ((gex_Rank_t)0xFFFFFFFFu)

typedef uint16_t gex_EP_Index_t; /* 16 bits, as in GASNet: clients check sizeof */
typedef struct {
    gex_Rank_t     gex_rank;
    gex_EP_Index_t gex_ep_index;
} gex_EP_Location_t;

/* ---- events ------------------------------------------------------------------------ */
typedef struct rv_op *gex_Event_t;
#define GEX_EVENT_INVALID ((gex_Event_t)(uintptr_t)0)
#define GEX_EVENT_NO_OP   ((gex_Event_t)(uintptr_t)1)
#define GEX_EVENT_NOW     ((gex_Event_t *)(uintptr_t)1)
#define GEX_EVENT_DEFER   ((gex_Event_t *)(uintptr_t)2)
#define GEX_EVENT_GROUP   ((gex_Event_t *)(uintptr_t)3)

/* ---- addresses ----------------------------------------------------------------------- */
typedef void *gex_Addr_t;

/* ---- data types (atomics and reductions): one bit each ------------------------------- */
typedef uint32_t gex_DT_t;
#define GEX_DT_I32  0x01u
#define GEX_DT_U32  0x02u
#define GEX_DT_I64  0x04u
#define GEX_DT_U64  0x08u
#define GEX_DT_FLT  0x10u
#define GEX_DT_DBL  0x20u
#define GEX_DT_USER 0x40u

/* ---- operations (atomics and reductions): one bit each -------------------------------
 * Non-fetching ops use odd bit positions from bit 3 (GEX_OP_ADD is 1<<3, the value GASNet
 * uses and clients such as Realm's GASNet-EX wrapper check), their fetching forms the next
 * bit up, so GEX_OP_TO_FETCHING is a shift. */
typedef uint32_t gex_OP_t;
#define GEX_OP_ADD     0x00000008u
#define GEX_OP_FADD    0x00000010u
#define GEX_OP_SUB     0x00000020u
#define GEX_OP_FSUB    0x00000040u
#define GEX_OP_MULT    0x00000080u
#define GEX_OP_FMULT   0x00000100u
#define GEX_OP_MIN     0x00000200u
#define GEX_OP_FMIN    0x00000400u
#define GEX_OP_MAX     0x00000800u
#define GEX_OP_FMAX    0x00001000u
#define GEX_OP_INC     0x00002000u
#define GEX_OP_FINC    0x00004000u
#define GEX_OP_DEC     0x00008000u
#define GEX_OP_FDEC    0x00010000u
#define GEX_OP_AND     0x00020000u
#define GEX_OP_FAND    0x00040000u
#define GEX_OP_OR      0x00080000u
#define GEX_OP_FOR     0x00100000u
#define GEX_OP_XOR     0x00200000u
#define GEX_OP_FXOR    0x00400000u
#define GEX_OP_SET     0x00800000u
#define GEX_OP_SWAP    0x01000000u
#define GEX_OP_CAS     0x02000000u
#define GEX_OP_FCAS    0x04000000u
/* GET is a fetching op without a non-fetching form: the odd bit below it stays unused,
 * so GEX_OP_TO_NONFETCHING(GEX_OP_GET) names no real op (clients rely on that). */
#define GEX_OP_GET     0x10000000u
#define GEX_OP_USER    0x20000000u
#define GEX_OP_USER_NC 0x40000000u
#define GEX_OP_CSWAP   GEX_OP_FCAS /* deprecated alias */
#define GEX_OP_TO_FETCHING(op)    ((op) << 1)
#define GEX_OP_TO_NONFETCHING(op) ((op) >> 1)

/* ---- flags ----------------------------------------------------------------------------
 * Point-to-point communication flags share one bit space so that a flag passed to the
 * wrong call can be recognised; other families reuse bits freely. GEX_FLAG_PEER_NEVER_SELF
 * and GEX_FLAG_PEER_NEVER_NBRHD come with gasnetex.h, as in GASNet. */
typedef uint32_t gex_Flags_t;
#define GEX_FLAG_IMMEDIATE                (1u << 0)
#define GEX_FLAG_LC_COPY_YES              (1u << 1)
#define GEX_FLAG_LC_COPY_NO               (1u << 2)
#define GEX_FLAG_AD_MY_RANK               (1u << 3)
#define GEX_FLAG_AD_MY_NBRHD              (1u << 4)
#define GEX_FLAG_AD_ACQ                   (1u << 5)
#define GEX_FLAG_AD_REL                   (1u << 6)
#define GEX_FLAG_RANK_IS_JOBRANK          (1u << 7)
#define GEX_FLAG_SELF_SEG_SOME            (1u << 8)
#define GEX_FLAG_SELF_SEG_BOUND           (1u << 9)
#define GEX_FLAG_SELF_SEG_UNKNOWN         (1u << 10)
#define GEX_FLAG_AM_PREPARE_LEAST_CLIENT  (1u << 11) /* GASNet's values: */
#define GEX_FLAG_AM_PREPARE_LEAST_ALLOC   (1u << 12) /* Realm checks them */
#define GEX_FLAG_SELF_SEG_OFFSET          (1u << 13)
#define GEX_FLAG_PEER_SEG_UNKNOWN         (1u << 14)
#define GEX_FLAG_PEER_SEG_SOME            (1u << 15)
#define GEX_FLAG_PEER_SEG_BOUND           (1u << 16)
#define GEX_FLAG_PEER_SEG_OFFSET          (1u << 17)
#define GEX_FLAG_ENABLE_LEAF_LC           (1u << 18)
/* bits 19 and 20: GEX_FLAG_PEER_NEVER_SELF and GEX_FLAG_PEER_NEVER_NBRHD (gasnetex.h) */
#define GEX_FLAG_AD_FAVOR_MY_RANK         (1u << 21)
#define GEX_FLAG_AD_FAVOR_MY_NBRHD        (1u << 22)
#define GEX_FLAG_AD_FAVOR_REMOTE          (1u << 23)

/* gex_Client_Init flags */
#define GEX_FLAG_USES_GASNET1             (1u << 0)
#define GEX_FLAG_DEFER_THREADS            (1u << 1)

/* team construction flags */
#define GEX_FLAG_TM_GLOBAL_SCRATCH           (1u << 0)
#define GEX_FLAG_TM_LOCAL_SCRATCH            (1u << 1)
#define GEX_FLAG_TM_SYMMETRIC_SCRATCH        (1u << 2)
#define GEX_FLAG_TM_NO_SCRATCH               (1u << 3)
#define GEX_FLAG_TM_SCRATCH_SIZE_MIN         (1u << 4)
#define GEX_FLAG_TM_SCRATCH_SIZE_RECOMMENDED (1u << 5)
#define GEX_FLAG_SCRATCH_SEG_OFFSET          (1u << 6)
#define GEX_FLAG_GLOBALLY_QUIESCED           (1u << 8)

/* AM handler registration flags (gex_AM_Entry_t.gex_flags) */
#define GEX_FLAG_AM_SHORT   (1u << 0)
#define GEX_FLAG_AM_MEDIUM  (1u << 1)
#define GEX_FLAG_AM_LONG    (1u << 2)
#define GEX_FLAG_AM_MEDLONG (GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_LONG)
#define GEX_FLAG_AM_REQUEST (1u << 3)
#define GEX_FLAG_AM_REPLY   (1u << 4)
#define GEX_FLAG_AM_REQREP  (GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_REPLY)

/* gex_EP_Create flags: hints, accepted and ignored */
#define GEX_FLAG_HINT_ACCEL_AD   (1u << 0)
#define GEX_FLAG_HINT_ACCEL_COLL (1u << 1)
#define GEX_FLAG_HINT_ACCEL_ALL  (GEX_FLAG_HINT_ACCEL_AD | GEX_FLAG_HINT_ACCEL_COLL)

/* ---- endpoint capabilities ---------------------------------------------------------- */
typedef uint32_t gex_EP_Capabilities_t;
#define GEX_EP_CAPABILITY_RMA  (1u << 0)
#define GEX_EP_CAPABILITY_AM   (1u << 1)
#define GEX_EP_CAPABILITY_VIS  (1u << 2)
#define GEX_EP_CAPABILITY_COLL (1u << 3)
#define GEX_EP_CAPABILITY_AD   (1u << 4)
#define GEX_EP_CAPABILITY_ALL  0x1fu

#ifdef __cplusplus
}
#endif

#endif /* _GEX_FWD_H */
