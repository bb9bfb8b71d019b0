/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_seg.c: segments for the ofi transport: private memory registered once for
 * remote read/write, with (address, size, key) exchanged by allgather. Peers' segments are not
 * mapped here (local_base NULL); with RDMA they are marked RV_SEG_RDMA for ops.put/get. */
#include "transport/ofi/ofi_int.h"
#include "core/core.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <sys/mman.h>

typedef struct {
    uint64_t base, size, key, ok;
} rv_ofi_segdesc_t;

int rv_ofi_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_ofi_t *o = priv;
    void *mine = NULL;
    int ok = 1;
    if (size) {
        mine = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
        if (mine == MAP_FAILED) {
            rv_warn("ofi: cannot allocate a %zu-byte segment", (size_t)size);
            mine = NULL;
            ok = 0;
        }
    }
    o->seg = mine;
    o->seglen = mine ? size : 0;
    uint64_t key = 0;
    if (mine && o->rma) {
        int rc = rv_ofi_mr_reg(o, mine, size,
                               FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                               RV_OFI_KEY_SEG, &o->segmr);
        if (rc) {
            rv_warn("ofi: registering the %zu-byte segment failed: %s", (size_t)size,
                    fi_strerror(-rc));
            o->segmr = NULL;
            ok = 0;
        } else {
            o->segdesc = fi_mr_desc(o->segmr);
            key = fi_mr_key(o->segmr);
            if (key == FI_KEY_NOTAVAIL) {
                rv_warn("ofi: the provider gave the segment no usable key");
                ok = 0;
            }
        }
    }
    rv_ofi_segdesc_t d = { (uint64_t)(uintptr_t)mine, mine ? size : 0, key, (uint64_t)ok };
    rv_ofi_segdesc_t *all = calloc(o->size, sizeof *all);
    o->rseg = calloc(o->size, sizeof *o->rseg);
    int res = all && o->rseg && rv_boot_allgather(&d, sizeof d, all) == 0;
    for (uint32_t r = 0; res && r < o->size; r++) {
        if (!all[r].ok) res = 0;
        o->rseg[r] = (rv_ofi_rseg_t){ all[r].base, all[r].size, all[r].key };
        map[r].owner_base = (void *)(uintptr_t)all[r].base;
        map[r].size = (uintptr_t)all[r].size;
        map[r].local_base = r == o->me ? mine : NULL;
        map[r].flags = o->rma && r != o->me && all[r].size ? RV_SEG_RDMA : 0;
    }
    free(all);
    if (!res) rv_ofi_seg_close(o);
    return res ? 0 : -1;
}

void rv_ofi_seg_close(rv_ofi_t *o)
{
    if (o->segmr) fi_close(&o->segmr->fid);
    if (o->seg) munmap(o->seg, o->seglen);
    free(o->rseg);
    o->segmr = NULL;
    o->segdesc = NULL;
    o->rseg = NULL;
    o->seg = NULL;
    o->seglen = 0;
}
