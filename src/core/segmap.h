/* SPDX-License-Identifier: BSD-3-Clause */
/* core/segmap.h: the segment table, one entry per jobrank, that the transport fills and the
 * engines read (rv_segmap, rv_epsegs in core/core.h). */
#ifndef RV_SEGMAP_H
#define RV_SEGMAP_H

#include <stdint.h>

/* One entry per jobrank, filled by the transport's seg_attach() (transport/transport.h). */
typedef struct rv_segmap {
    void     *owner_base; /* segment base in the owner's address space (NULL: none) */
    void     *local_base; /* same memory mapped in this process, or NULL if not mapped */
    uintptr_t size;       /* segment length in bytes (0: none) */
    unsigned  flags;      /* RV_SEG_* (0 unless the transport sets some) */
    uint32_t  tag;        /* the core's: the shared object local_base maps (0: none) */
} rv_segmap_t;

/* rv_segmap_t.flags: ops.put/ops.get reach this peer's segment by RDMA (engines still copy
 * directly when local_base is set). */
#define RV_SEG_RDMA 1u
/* This rank's own entry only: the neighbourhood's other ranks map this segment too. */
#define RV_SEG_SHARED 2u

#endif /* RV_SEGMAP_H */
