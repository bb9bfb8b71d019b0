/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_gex.c: client/segment setup and barriers for the GASNet-EX benchmark drivers. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_gex.h"

#include <stdio.h>
#include <stdlib.h>

void bg_barrier(bg_job_t *j)
{
    gex_Event_Wait(gex_Coll_BarrierNB(j->tm, 0));
}

void bg_sync(void *job) { bg_barrier(job); }

void bg_finish(bg_job_t *j)
{
    fflush(stdout);
    bg_barrier(j);
    gasnet_exit(0);
}

void bg_init(bg_job_t *j, int *argc, char ***argv, const char *name, gex_AM_Entry_t *handlers,
             size_t nhandlers)
{
    if (gex_Client_Init(&j->client, &j->ep, &j->tm, name, argc, argv, 0) != GASNET_OK) {
        fprintf(stderr, "%s: gex_Client_Init failed\n", name);
        exit(1);
    }
    j->me = gex_TM_QueryRank(j->tm);
    j->n = gex_TM_QuerySize(j->tm);
    if (bu_parse_args(&j->opt, *argc, *argv, BG_DEFAULT_SYSTEM, NULL)) gasnet_exit(2);
    j->opt.ranks = (int)j->n;
    if (j->n < 2) {
        if (j->me == 0) fprintf(stderr, "%s: needs at least 2 ranks; nothing measured\n", name);
        gasnet_exit(0);
    }
    j->active = j->me < 2;
    j->peer = j->me == 0 ? 1 : (j->me == 1 ? 0 : GEX_RANK_INVALID);

    /* Two areas of max_size each, plus a page; shrink the sweep if the segment can't hold it. */
    uintptr_t maxseg = gasnet_getMaxLocalSegmentSize();
    size_t area = j->opt.max_size < 4096 ? 4096 : j->opt.max_size;
    area = (area + 4095) & ~(size_t)4095;
    while (area > 4096 && 2 * area + 4096 > maxseg) area /= 2;
    if (area < j->opt.max_size) j->opt.max_size = area;
    j->area = area;
    if (gex_Segment_Attach(&j->seg, j->tm, 2 * area + 4096) != GASNET_OK) {
        fprintf(stderr, "%s: gex_Segment_Attach(%zu) failed\n", name, 2 * area + 4096);
        gasnet_exit(1);
    }
    char *base = gex_Segment_QueryAddr(j->seg);
    j->my_remote_area = base;
    j->my_local_area = base + area;
    for (size_t i = 0; i < 2 * area; i += 4096) base[i] = 1; /* pre-touch */
    j->heap = bu_alloc(area);
    j->peer_remote_area = NULL;
    bg_barrier(j); /* every segment is attached before anyone asks where */
    if (j->active) {
        void *owner = NULL;
        uintptr_t sz = 0;
        if (gex_Segment_QueryBound(j->tm, j->peer, &owner, NULL, &sz) != GASNET_OK || !owner) {
            fprintf(stderr, "%s: gex_Segment_QueryBound(%u) failed\n", name, (unsigned)j->peer);
            gasnet_exit(1);
        }
        j->peer_remote_area = owner;
    }
    if (nhandlers && gex_EP_RegisterHandlers(j->ep, handlers, nhandlers) != GASNET_OK) {
        fprintf(stderr, "%s: gex_EP_RegisterHandlers failed\n", name);
        gasnet_exit(1);
    }
    bg_barrier(j);
}
