/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_mk.h: the spec's memory kinds: gex_MK_Class_t, gex_MK_Create_args_t, gex_MK_Create,
 * gex_MK_Destroy and the gex_MK_Query and CData calls. gex_MK_t, GEX_MK_INVALID,
 * GEX_MK_HOST and GASNET_HAVE_MK_CLASS_HOST come from gasnetex.h. Rivet has host memory
 * only: GEX_MK_CLASS_HOST works (it yields GEX_MK_HOST), every device class returns
 * GASNET_ERR_BAD_ARG, and no device GASNET_HAVE_MK_CLASS_* macro is defined. */
#ifndef _GASNET_MK_H
#define _GASNET_MK_H

#include <gasnetex.h>

#ifdef __cplusplus
extern "C" {
#endif
#ifdef RV_BUILDING_LIBRIVET /* librivet hides its symbols, except those declared here */
#pragma GCC visibility push(default)
#endif

typedef enum {
    GEX_MK_CLASS_HOST,      /* ordinary host memory (GEX_MK_HOST) */
    GEX_MK_CLASS_CUDA_UVA,  /* CUDA device memory with unified virtual addressing */
    GEX_MK_CLASS_HIP,       /* HIP (ROCm) device memory */
    GEX_MK_CLASS_ZE,        /* oneAPI Level Zero device memory */
    _GEX_MK_CLASS_COUNT
} gex_MK_Class_t;

typedef struct {
    uint64_t       gex_flags;   /* reserved: must be 0 */
    gex_MK_Class_t gex_class;
    union {
        struct { int gex_CUdevice; } gex_class_cuda_uva;
        struct { int gex_hipDevice; } gex_class_hip;
        struct {
            void    *gex_zeDevice;
            void    *gex_zeContext;
            uint32_t gex_zeMemoryOrdinal;
        } gex_class_ze;
    } gex_args;
} gex_MK_Create_args_t;

/* flags must be 0. GASNET_OK with *memkind_p set, or GASNET_ERR_BAD_ARG for a class this
 * build cannot serve (every device class) or malformed arguments. */
extern int gex_MK_Create(gex_MK_t *memkind_p, gex_Client_t client,
                         const gex_MK_Create_args_t *args, gex_Flags_t flags);
/* flags must be 0. Destroying GEX_MK_HOST (what GEX_MK_CLASS_HOST yields) does nothing. */
extern void gex_MK_Destroy(gex_MK_t memkind, gex_Flags_t flags);

/* Queries of a memory kind (GEX_MK_HOST, the only one Rivet has; any other value is
 * fatal): its class (GEX_MK_CLASS_HOST), the client (the one from gex_Client_Init), its
 * flags (0), and the client data slot of the kind (starts NULL). */
extern gex_MK_Class_t gex_MK_QueryClass(gex_MK_t memkind);
extern gex_Client_t   gex_MK_QueryClient(gex_MK_t memkind);
extern gex_Flags_t    gex_MK_QueryFlags(gex_MK_t memkind);
extern void          *gex_MK_QueryCData(gex_MK_t memkind);
extern void           gex_MK_SetCData(gex_MK_t memkind, const void *val);

#ifdef RV_BUILDING_LIBRIVET
#pragma GCC visibility pop
#endif
#ifdef __cplusplus
}
#endif

#endif /* _GASNET_MK_H */
