/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_errors.c: each documented VIS error ends the job with a message naming the call
 * and the bad argument. argv[1] names the case; rank 0 makes the bad call, the others wait in a
 * barrier (the fatal error ends them too). CMakeLists.txt holds the expected messages. */
#include "rv_test.h"
#include <gasnet_vis.h>

static void handler(gex_Token_t t)
{
    (void)t;
    ptrdiff_t st[1] = {8};
    size_t cnt[1] = {2};
    char buf[16] = {0};
    gex_VIS_StridedPutNB(rvt_tm, 0, buf, st, buf, st, 8, cnt, 1, 0);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 1 << 20);
    const char *c = argc > 1 ? argv[1] : "";
    gex_AM_Entry_t h = {0, (gex_AM_Fn_t)handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL,
                        "vis_errors"};
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &h, 1));
    rvt_barrier();
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint8_t *seg = rvt_seg_addr(peer, 0), local[4096];
    uintptr_t segsize = 1 << 20;
    ptrdiff_t st[3] = {16, 160, 1600};
    size_t cnt[3] = {4, 10, 3};
    gex_Memvec_t dv[3] = {{seg, 4}, {seg + 8, 4}, {seg + segsize - 2, 4}};
    gex_Memvec_t sv[3] = {{local, 6}, {local + 100, 6}, {local, 0}};
    void *di[3] = {seg, seg + 64, seg + segsize}, *si[5] = {local, local, local, local, local};
    if (rvt_me == 0) {
        printf("vis_errors: case %s, peer %u, its segment [%p, %p)\n", c, (unsigned)peer,
               (void *)seg, (void *)(seg + segsize));
        fflush(stdout);
        /* a valid call first: gasnet_vis.h's inline path is on for the bad calls (not for
         * "env", whose message this call gives) */
        memset(local, 0, sizeof local);
        if (strcmp(c, "env"))
            RVT_OK(gex_VIS_StridedPutBlocking(rvt_tm, peer, seg, st, local, st, 8, cnt, 1, 0));
        if (!strcmp(c, "strided_outside")) /* the extent ends 2 bytes past the segment */
            gex_VIS_StridedPutBlocking(rvt_tm, peer, seg + segsize - 2 * 1600 - 9 * 160 - 3 * 16 - 10,
                                       st, local, st, 12, cnt, 3, 0);
        else if (!strcmp(c, "strided_reflected")) /* a negative stride reaches below the base */
            gex_VIS_StridedGetNB(rvt_tm, local, st, peer, seg + 100,
                                 (ptrdiff_t[]){16, -160, 1600}, 8, cnt, 3, 0);
        else if (!strcmp(c, "vector_outside"))
            gex_VIS_VectorPutNBI(rvt_tm, peer, 3, dv, 3, sv, 0);
        else if (!strcmp(c, "one_chunk")) /* one chunk (gasnet_vis.h's inline path's shape) */
            gex_VIS_StridedPutNBI(rvt_tm, peer, seg + segsize - 4, st, local, st, 8,
                                  (size_t[]){1, 1, 1}, 3, 0);
        else if (!strcmp(c, "strided_run")) /* one run of 64 bytes, its last 4 outside */
            gex_VIS_StridedPutNBI(rvt_tm, peer, seg + segsize - 60, (ptrdiff_t[]){8, 32}, local,
                                  (ptrdiff_t[]){8, 32}, 8, (size_t[]){4, 2}, 2, 0);
        else if (!strcmp(c, "strided_two")) /* 2 levels, reflected: below the base */
            gex_VIS_StridedGetNB(rvt_tm, local, (ptrdiff_t[]){16, 160}, peer, seg + 100,
                                 (ptrdiff_t[]){16, -160}, 8, (size_t[]){4, 3}, 2, 0);
        else if (!strcmp(c, "vector_run")) /* one run on each side, its last 2 bytes outside */
            gex_VIS_VectorPutNB(rvt_tm, peer, 2, (gex_Memvec_t[]){{seg + segsize - 10, 4},
                                {seg + segsize - 6, 8}}, 1, (gex_Memvec_t[]){{local, 12}}, 0);
        else if (!strcmp(c, "vector_paired")) /* entries pair up: the fast path's shape */
            gex_VIS_VectorGetNBI(rvt_tm, 3, (gex_Memvec_t[]){{local, 4}, {local + 8, 4},
                                 {local + 16, 4}}, peer, 3, dv, 0);
        else if (!strcmp(c, "indexed_outside"))
            gex_VIS_IndexedGetBlocking(rvt_tm, 3, (void *const *)si, 8, peer, 3, di, 8, 0);
        else if (!strcmp(c, "vector_total"))
            gex_VIS_VectorGetNB(rvt_tm, 2, sv, peer, 2, dv, 0);
        else if (!strcmp(c, "indexed_total"))
            gex_VIS_IndexedPutBlocking(rvt_tm, peer, 3, di, 8, 5, si, 4, 0);
        else if (!strcmp(c, "leaf_get"))
            gex_VIS_StridedGetNB(rvt_tm, local, st, peer, seg, st, 8, cnt, 3,
                                 GEX_FLAG_ENABLE_LEAF_LC);
        else if (!strcmp(c, "leaf_blocking"))
            gex_VIS_VectorPutBlocking(rvt_tm, peer, 2, dv, 2, sv, GEX_FLAG_ENABLE_LEAF_LC);
        else if (!strcmp(c, "flags"))
            gex_VIS_IndexedPutNB(rvt_tm, peer, 1, di, 8, 1, si, 8, GEX_FLAG_IMMEDIATE | 0x100000);
        else if (!strcmp(c, "rank"))
            gex_VIS_StridedPutNBI(rvt_tm, rvt_n + 3, seg, st, local, st, 8, cnt, 3, 0);
        else if (!strcmp(c, "overflow"))
            gex_VIS_StridedGetBlocking(rvt_tm, local, st, peer, seg, st, 8,
                                       (size_t[]){SIZE_MAX / 4, 2, 3}, 3, 0);
        else if (!strcmp(c, "null_list"))
            gex_VIS_VectorPutNBI(rvt_tm, peer, 3, NULL, 3, sv, 0);
        else if (!strcmp(c, "null_count"))
            gex_VIS_StridedPutNB(rvt_tm, peer, seg, st, local, st, 8, NULL, 2, 0);
        else if (!strcmp(c, "null_strides"))
            gex_VIS_StridedGetNBI(rvt_tm, local, st, peer, seg, NULL, 8, cnt, 3, 0);
        else if (!strcmp(c, "null_addrs"))
            gex_VIS_IndexedGetNB(rvt_tm, 3, NULL, 8, peer, 3, di, 8, 0);
        else if (!strcmp(c, "pc_immediate")) {
            gex_VIS_SetPeerCompletionHandler(h.gex_index, NULL, 0, 0);
            gex_VIS_VectorPutNB(rvt_tm, peer, 2, dv, 2, sv, GEX_FLAG_IMMEDIATE);
        } else if (!strcmp(c, "pc_null_src"))
            gex_VIS_SetPeerCompletionHandler(h.gex_index, NULL, 8, 0);
        else if (!strcmp(c, "pc_flags"))
            gex_VIS_SetPeerCompletionHandler(h.gex_index, NULL, 0, 1);
        else if (!strcmp(c, "in_handler"))
            gex_AM_RequestShort0(rvt_tm, rvt_me, h.gex_index, 0);
        else if (!strcmp(c, "env"))
            gex_VIS_StridedPutBlocking(rvt_tm, peer, seg, st, local, st, 8, cnt, 3, 0);
        else
            RVT_FAIL("unknown case '%s'", c);
        for (;;) gasnet_AMPoll(); /* the handler case fails on delivery */
    }
    rvt_barrier();
    RVT_FAIL("case %s: the job should have ended on rank 0's error", c);
}
