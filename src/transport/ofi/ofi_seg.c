/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_seg.c: segments for the ofi transport: private memory, addresses
 * and sizes exchanged by allgather. Peers' segments are not mapped here (local_base
 * NULL): RMA and AM Long to them go over messages. */
#include "transport/ofi/ofi_int.h"
#include "core/core.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <sys/mman.h>

int rv_ofi_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_ofi_t *o = priv;
    void *mine = NULL;
    if (size) {
        mine = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
        if (mine == MAP_FAILED) {
            rv_warn("ofi: cannot allocate a %zu-byte segment", (size_t)size);
            mine = NULL;
        }
    }
    o->seg = mine;
    o->seglen = mine ? size : 0;
    uint64_t mine3[3] = {(uint64_t)(uintptr_t)mine, mine ? size : 0, mine || !size};
    uint64_t *all = calloc(o->size, 3 * sizeof(uint64_t));
    int res = all && rv_boot_allgather(mine3, sizeof mine3, all) == 0;
    for (uint32_t r = 0; res && r < o->size; r++) {
        if (!all[3 * r + 2]) res = 0;
        map[r].owner_base = (void *)(uintptr_t)all[3 * r];
        map[r].size = (uintptr_t)all[3 * r + 1];
        map[r].local_base = r == o->me ? mine : NULL;
    }
    free(all);
    if (!res) rv_ofi_seg_close(o);
    return res ? 0 : -1;
}

void rv_ofi_seg_close(rv_ofi_t *o)
{
    if (o->seg) munmap(o->seg, o->seglen);
    o->seg = NULL;
    o->seglen = 0;
}
