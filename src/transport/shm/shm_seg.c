/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/shm/shm_seg.c: segments in shared memory, cross-mapped into every rank of the host. */
#include "transport/shm/shm_int.h"
#include "core/core.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <sys/mman.h>

typedef struct {
    uint64_t base, size;
} rv_shm_segdesc_t;

/* Collective: creates my segment, publishes (address, size), maps every peer's,
 * then unlinks mine. The owner's mapping is its segment address. */
int rv_shm_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_shm_t *s = priv;
    char name[96];
    rv_shmobj_name(name, sizeof name, s->secret, 's', s->me);
    void *mine = NULL;
    int ok = 1;
    if (size) ok = (mine = rv_shmobj_create(name, size, 0)) != NULL;
    s->segs[s->me] = mine;
    s->seglen[s->me] = mine ? size : 0;

    rv_shm_segdesc_t d = {(uint64_t)(uintptr_t)mine, mine ? size : 0};
    rv_shm_segdesc_t *all = calloc(s->size, sizeof *all);
    if (!all) ok = 0;
    int gathered = all && rv_boot_allgather(&d, sizeof d, all) == 0;
    if (!rv_job_all_ok(ok && gathered)) goto fail;

    for (uint32_t r = 0; r < s->size && ok; r++) {
        map[r].owner_base = (void *)(uintptr_t)all[r].base;
        map[r].size = (uintptr_t)all[r].size;
        map[r].local_base = NULL;
        if (r == s->me) {
            map[r].local_base = mine;
        } else if (all[r].size) {
            char peer[96];
            rv_shmobj_name(peer, sizeof peer, s->secret, 's', r);
            map[r].local_base = s->segs[r] = rv_shmobj_attach(peer, (size_t)all[r].size);
            s->seglen[r] = s->segs[r] ? (uintptr_t)all[r].size : 0;
            ok = s->segs[r] != NULL;
        }
    }
    if (!rv_job_all_ok(ok)) goto fail;
    if (size) shm_unlink(name);
    free(all);
    return 0;
fail:
    if (size) shm_unlink(name);
    free(all);
    rv_shm_seg_close(s);
    return -1;
}

void rv_shm_seg_close(rv_shm_t *s)
{
    if (!s->segs) return;
    for (uint32_t r = 0; r < s->size; r++)
        if (s->segs[r]) munmap(s->segs[r], s->seglen[r]);
    free(s->segs);
    free(s->seglen);
    s->segs = NULL;
    s->seglen = NULL;
}
