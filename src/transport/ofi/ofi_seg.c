/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_seg.c: segments for the ofi transport, registered once for remote
 * read/write, with (address, size, key) exchanged by allgather. When a neighbourhood has
 * more than one rank, each segment is a shared-memory object (named like the shm
 * transport's, so rivetrun's clean-up of the job's /dev/shm objects covers it) and every
 * same-neighbourhood peer's segment is mapped here (local_base set); otherwise it is
 * private memory. Every peer is also marked RV_SEG_RDMA when RDMA works: the engines take
 * the mapped path first, and ranks in other neighbourhoods are reached by ops.put/get. */
#include "transport/ofi/ofi_int.h"
#include "core/shmobj.h"
#include "core/core.h"
#include "boot/boot.h"

#include <stdlib.h>
#include <sys/mman.h>
#include <sys/statvfs.h>

typedef struct {
    uint64_t base, size, key, ok;
} rv_ofi_segdesc_t;

/* Shared segments live in /dev/shm: a rank's share of its free space bounds one segment
 * (a page beyond it would raise SIGBUS). 0 (no bound) for private segments. */
uintptr_t rv_ofi_seg_limit(const rv_job_t *job)
{
    struct statvfs v;
    if (job->nbrhd_size < 2 || statvfs("/dev/shm", &v) != 0) return 0;
    uintptr_t avail = (uintptr_t)v.f_bavail * v.f_frsize / job->host_size;
    avail &= ~(uintptr_t)(GASNET_PAGESIZE - 1);
    return avail ? avail : GASNET_PAGESIZE;
}

/* Maps the segments of my neighbourhood's other ranks. Returns 0 if one failed. */
static int rv_ofi_seg_map_nbrs(rv_ofi_t *o, rv_segmap_t *map)
{
    int ok = (o->nbrseg = calloc(o->size, sizeof *o->nbrseg)) != NULL;
    for (uint32_t i = 0; ok && i < rv_job.nbrhd_size; i++) {
        uint32_t r = rv_job.nbrhd_ranks[i];
        if (r == o->me || !o->rseg[r].size) continue;
        char peer[96];
        rv_shmobj_name(peer, sizeof peer, rv_job.secret, 'o', r);
        map[r].local_base = o->nbrseg[r] = rv_shmobj_attach(peer, (size_t)o->rseg[r].size);
        ok = o->nbrseg[r] != NULL;
    }
    return ok;
}

int rv_ofi_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_ofi_t *o = priv;
    const int shared = rv_job.nbrhd_size > 1;
    int ok;
    void *mine = rv_shmobj_segment("ofi", 'o', size, &ok);
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
    /* Some neighbourhood shares memory (a job-wide fact, so every rank takes part):
     * map the peers' objects, agree that all did, then remove mine from /dev/shm. */
    if (res && rv_job.nbrhd_count < rv_job.size) {
        int mapped = !shared || rv_ofi_seg_map_nbrs(o, map);
        res = rv_job_all_ok(mapped);
    }
    if (size && shared) rv_shmobj_segment_unlink('o');
    if (!res) {
        for (uint32_t r = 0; r < o->size; r++)
            if (r != o->me) map[r].local_base = NULL;
        rv_ofi_seg_close(o);
    }
    return res ? 0 : -1;
}

/* A segment the client bound with gex_EP_BindSegment, registered for remote read/write: the
 * primordial endpoint's (instead of an attached one; the core maps neighbours' segments
 * then) or endpoint index seg's (replacing or, given no memory, releasing an earlier
 * registration of that index). */
int rv_ofi_seg_register(void *priv, unsigned seg, void *addr, uintptr_t size, uint64_t *key)
{
    rv_ofi_t *o = priv;
    *key = 0;
    if (seg >= GASNET_MAXEPS || (seg == 0 && o->seg)) return -1;
    if (seg == 0) {
        o->seg = addr;
        o->seglen = size;
        o->seg_client = 1;
    }
    if (!o->rma) return 0;
    struct fid_mr **mr = seg ? &o->epmr[seg] : &o->segmr;
    if (*mr) fi_close(&(*mr)->fid);
    *mr = NULL;
    if (seg && !addr && !size) return 0; /* released */
    int rc = rv_ofi_mr_reg(o, addr, size, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE,
                           seg ? RV_OFI_KEY_EPSEG + seg : RV_OFI_KEY_SEG, mr);
    if (rc) {
        rv_warn("ofi: registering the %zu-byte segment of endpoint index %u failed: %s",
                (size_t)size, seg, fi_strerror(-rc));
        *mr = NULL;
        return -1;
    }
    *key = fi_mr_key(*mr);
    if (*key == FI_KEY_NOTAVAIL) {
        rv_warn("ofi: the provider gave the segment of endpoint index %u no usable key", seg);
        return -1;
    }
    if (seg) return 0;
    o->segdesc = fi_mr_desc(o->segmr);
    /* native atomics address this rank's own segment through the provider too */
    if (!o->rseg && !(o->rseg = calloc(o->size, sizeof *o->rseg))) return -1;
    o->rseg[o->me] = (rv_ofi_rseg_t){ (uint64_t)(uintptr_t)addr, size, *key };
    return 0;
}

/* A peer's published segment of endpoint index seg: reached by RDMA from now on. */
unsigned rv_ofi_seg_peer(void *priv, unsigned seg, gex_Rank_t peer, uintptr_t base,
                         uintptr_t size, uint64_t key)
{
    rv_ofi_t *o = priv;
    if (!o->rma || peer == o->me || !size || seg >= GASNET_MAXEPS) return 0;
    rv_ofi_rseg_t **tab = seg ? &o->eprseg[seg] : &o->rseg;
    if (!*tab && !(*tab = calloc(o->size, sizeof **tab))) return 0;
    (*tab)[peer] = (rv_ofi_rseg_t){ base, size, key };
    return RV_SEG_RDMA;
}

void rv_ofi_seg_close(rv_ofi_t *o)
{
    for (unsigned i = 1; i < GASNET_MAXEPS; i++) {
        if (o->epmr[i]) fi_close(&o->epmr[i]->fid);
        free(o->eprseg[i]);
        o->epmr[i] = NULL;
        o->eprseg[i] = NULL;
    }
    if (o->segmr) fi_close(&o->segmr->fid);
    if (o->seg && !o->seg_client) munmap(o->seg, o->seglen);
    if (o->nbrseg && o->rseg)
        for (uint32_t r = 0; r < o->size; r++)
            if (o->nbrseg[r]) munmap(o->nbrseg[r], (size_t)o->rseg[r].size);
    free(o->nbrseg);
    free(o->rseg);
    o->segmr = NULL;
    o->segdesc = NULL;
    o->nbrseg = NULL;
    o->rseg = NULL;
    o->seg = NULL;
    o->seglen = 0;
}
