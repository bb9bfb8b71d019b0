/* SPDX-License-Identifier: BSD-3-Clause */
/* ratomic/ratomic_int.h: the atomic-domain object, the CPU atomics, the operation record shared by
 * the AM reference and a transport's native atomics (whose table is transport/transport.h's). */
#ifndef RV_RATOMIC_INT_H
#define RV_RATOMIC_INT_H

#include "core/core.h"
#include "transport/transport.h"
#include "event/event.h"
#include "gasnet_ratomic.h"

/* How a domain performs its operations: chosen once, in gex_AD_Create, and never mixed. */
typedef enum {
    RV_AD_CPU,    /* CPU atomics on mapped (neighbourhood) segments, AM reference for other peers */
    RV_AD_REF,    /* AM reference for every peer, self included (RIVET_RATOMIC=ref) */
    RV_AD_NATIVE, /* the transport's own atomics for every peer, self included */
    RV_AD_CPU_COUNTED, /* RV_AD_CPU under RIVET_STATS: off the CPU fast path, so it is counted */
} rv_ad_impl_t;

/* One CPU atomic on the target word p (4 or 8 bytes; values travel as the low bits of a
 * uint64_t). Returns the value found at p before the operation. */
typedef uint64_t (*rv_amo_fn_t)(void *p, gex_OP_t op, uint64_t a, uint64_t b);

/* The function for type dt: 'strong' (GEX_FLAG_AD_ACQ/REL given) is sequentially consistent,
 * otherwise relaxed (atomicity only, which is all the spec promises without those flags). */
rv_amo_fn_t rv_ratomic_cpu_fn(gex_DT_t dt, int strong);

/* One relaxed CPU atomic, the op fixed (no switch): table[log2 op] for type dt, NULL where the
 * op is not valid for dt. What gasnet_ratomic.h's inline path calls for an opcode it does not
 * do itself (its _rivet_amo_fn_t). */
typedef uint64_t (*rv_amo_op_fn_t)(void *p, uint64_t a, uint64_t b);
const rv_amo_op_fn_t *rv_ratomic_cpu_tab(gex_DT_t dt);

/* One operation in flight (AM reference or native). Records come from a per-thread free list
 * refilled in batches: no allocation per operation once warm. */
typedef struct rv_amo_op {
    struct rv_op      root;     /* first: gex_Event_t points here (NB) */
    _Atomic int       done;
    uint8_t           size;     /* 4 or 8: bytes written to result_p */
    uint8_t           ec;       /* RV_EC_PUT / _GET / _RMW */
    void             *result_p; /* NULL: not fetching */
    rv_nbi_set_t     *nbi;      /* NBI: the set to report to; the record then frees itself */
    struct rv_amo_op *next;     /* free list */
} rv_amo_op_t;

rv_amo_op_t *rv_amo_op_get(void);
void rv_amo_op_put(rv_amo_op_t *o);

/* Completes o with the fetched value 'old': stores the result, then signals the event or the
 * NBI set. Called from the AM reply handler, or, as the rv_tp_amo_done_t this engine registers,
 * by a transport when its native atomic is done (any thread). o must not be touched afterwards. */
void rv_ratomic_complete(rv_amo_op_t *o, uint64_t old);

/* The AM reference (ratomic_ref.c). init registers its handlers (once). issue sends op to
 * jobrank jr; returns 1 only under GEX_FLAG_IMMEDIATE when there was no room. */
void rv_ratomic_ref_init(void);
int rv_ratomic_ref_issue(gex_Rank_t jr, uintptr_t tgt, gex_DT_t dt, gex_OP_t op, uint64_t a,
                         uint64_t b, gex_Flags_t flags, rv_amo_op_t *o);

struct rv_ad {
    /* first: what gasnet_ratomic.h's inline fast path reads (struct _rivet_ad_head) */
    /* rv_segmap once it exists (set once, never moved): at create, or by the first operation
     * through the library after it (rv_ad_op_body) */
    const rv_segmap_t *_Atomic seg;
    const gex_Rank_t *jobranks; /* tm->jobranks, or the identity (rv_ratomic_identity) */
    const rv_amo_op_fn_t *fast_fn; /* rv_ratomic_cpu_tab(dt) */
    gex_OP_t     fast[6];    /* [log2 dt]: ops when impl is RV_AD_CPU, else 0; other slots 0 */
    _Atomic gex_Rank_t tm_size; /* tm->size once seg is set (stored after it), else 0 */
    /* the rest: the library's only */
    gex_TM_t     tm;
    gex_DT_t     dt;
    gex_OP_t     ops;
    gex_Flags_t  flags;      /* as given to gex_AD_Create, returned unchanged by QueryFlags */
    void        *cdata;
    rv_ad_impl_t impl;
    unsigned     size;       /* bytes of dt */
    rv_amo_fn_t  cpu[2];     /* [strong]: see rv_ratomic_cpu_fn */
    const rv_ratomic_native_t *native; /* RV_AD_NATIVE only */
    const uint8_t *member;   /* [jobsize] 1 for team members (GEX_FLAG_RANK_IS_JOBRANK); NULL
                              * when the team's jobranks are 0..size-1 */
};

/* rivet-info: the implementation gex_AD_Create would pick for (tm, dt, ops, flags), in words;
 * NULL if (dt, ops) is not a valid domain (ratomic.c). */
const char *rv_ratomic_query(gex_TM_t tm, gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags);

#endif /* RV_RATOMIC_INT_H */
