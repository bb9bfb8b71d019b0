/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/shm/shm_int.h: the shm transport's private state and its shared-object helpers. */
#ifndef RV_SHM_INT_H
#define RV_SHM_INT_H

#include "transport/transport.h"
#include "transport/shm/shm_ring.h"
#include "core/shmobj.h"

/* Per-process state (allocated zeroed by the core, priv_size bytes). */
typedef struct rv_shm {
    uint32_t        me, size;
    size_t          cap;     /* data bytes per ring (power of two) */
    size_t          stride;  /* bytes per ring including its control lines */
    size_t          qlen;    /* bytes of one queue object: size * 2 rings */
    void          **qmap;    /* [size] every rank's queue object, mapped here */
    rv_shm_ring_t **out;     /* [size * 2] my rings in each receiver's queue */
    rv_shm_ring_t **in;      /* [size * 2] the rings of my queue, per sender */
    uint64_t       *ihead;   /* [size * 2] consumer heads of my rings */
    void          **segs;    /* [size] peers' segments mapped here (munmap at close) */
    uintptr_t      *seglen;  /* [size] */
    const char     *secret;
    /* The poll's first look: the rings peers write (not mine to myself), scanned without
     * calls; my own two rings only once this process has sent itself something. */
    uint64_t      **peek;    /* [nscan] the word at each one's consumer head (relaxed atomic;
                              * the drain moves it): an idle look is two loads per ring */
    uint32_t        nscan;   /* two per peer: its request ring, then its reply ring */
    int             self_used; /* sticky; relaxed atomic */
    rv_poll_hint_t  hint;      /* the same first look, for the core (rv_shm_poll_hint) */
} rv_shm_t;

int  rv_shm_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map);
void rv_shm_seg_close(rv_shm_t *s);

#endif /* RV_SHM_INT_H */
