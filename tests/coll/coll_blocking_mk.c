/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_blocking_mk.c: gex_Coll_BarrierBlocking (on the primordial team, on a
 * split team, with other collectives in flight) orders RMA like the barrier it is; and
 * the memory-kind queries of gasnet_mk.h on GEX_MK_HOST (class, client, flags, CData)
 * with GASNET_HAVE_MK_CLASS_HOST. */
#include "rv_test.h"
#include <gasnet_coll.h>
#include <gasnet_mk.h>

#if !defined(GASNET_HAVE_MK_CLASS_HOST) || GASNET_HAVE_MK_CLASS_HOST != 1
#error "GASNET_HAVE_MK_CLASS_HOST must be 1"
#endif
#if defined(GASNET_HAVE_MK_CLASS_CUDA_UVA) || defined(GASNET_HAVE_MK_CLASS_HIP) || \
    defined(GASNET_HAVE_MK_CLASS_ZE)
#error "no device memory kind is supported"
#endif

#define ITERS 200

/* Round i: every rank writes i into its successor's slot, then the barrier; afterwards
 * its own slot must hold i from its predecessor (the barrier completes only after every
 * rank has entered, i.e. after every put). */
static void ring(gex_TM_t tm, const char *what)
{
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    gex_Rank_t succ = (me + 1) % n;
    gex_Rank_t jsucc = gex_TM_TranslateRankToJobrank(tm, succ);
    uint64_t *mine = rvt_seg_addr(rvt_me, 0);
    for (uint64_t i = 1; i <= ITERS; i++) {
        uint64_t v = i * 1000 + n;
        RVT_OK(gex_RMA_PutBlocking(rvt_tm, jsucc, rvt_seg_addr(jsucc, 0), &v, sizeof v, 0));
        gex_Coll_BarrierBlocking(tm, 0);
        RVT_CHECK(*(volatile uint64_t *)mine == v, "%s round %llu: slot holds %llu, expected %llu",
                  what, (unsigned long long)i, (unsigned long long)*mine, (unsigned long long)v);
        gex_Coll_BarrierBlocking(tm, 0); /* nobody overwrites before everyone checked */
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 65536);
    ring(rvt_tm, "primordial team");

    /* a split team: the even and the odd ranks */
    gex_TM_t half;
    gex_TM_Split(&half, rvt_tm, (int)(rvt_me % 2), (int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    ring(half, "split team");

    /* with a broadcast in flight: the blocking barrier serves it while it waits */
    static uint64_t b[64];
    for (int i = 0; i < 64; i++) b[i] = rvt_me == 0 ? (uint64_t)i * 7 : 0;
    gex_Event_t ev = gex_Coll_BroadcastNB(rvt_tm, 0, b, b, sizeof b, 0);
    gex_Coll_BarrierBlocking(rvt_tm, 0);
    gex_Event_Wait(ev);
    for (int i = 0; i < 64; i++) RVT_CHECK(b[i] == (uint64_t)i * 7, "broadcast word %d is wrong", i);
    gex_TM_Destroy(half, NULL, 0);

    /* memory kinds: GEX_MK_HOST answers for host memory */
    gex_MK_Create_args_t args;
    memset(&args, 0, sizeof args);
    args.gex_class = GEX_MK_CLASS_HOST;
    gex_MK_t mk = GEX_MK_INVALID;
    RVT_OK(gex_MK_Create(&mk, rvt_client, &args, 0));
    RVT_CHECK(gex_MK_QueryClass(mk) == GEX_MK_CLASS_HOST, "gex_MK_QueryClass is not HOST");
    RVT_CHECK(gex_MK_QueryClass(GEX_MK_HOST) == GEX_MK_CLASS_HOST, "QueryClass(GEX_MK_HOST)");
    RVT_CHECK(gex_MK_QueryClient(GEX_MK_HOST) == rvt_client, "gex_MK_QueryClient is not the client");
    RVT_CHECK(gex_MK_QueryFlags(GEX_MK_HOST) == 0, "gex_MK_QueryFlags is not 0");
    RVT_CHECK(gex_MK_QueryCData(GEX_MK_HOST) == NULL, "gex_MK_QueryCData does not start NULL");
    static int cd;
    gex_MK_SetCData(GEX_MK_HOST, &cd);
    RVT_CHECK(gex_MK_QueryCData(mk) == &cd, "gex_MK_SetCData/QueryCData do not round-trip");
    gex_MK_SetCData(mk, NULL);
    RVT_CHECK(gex_MK_QueryCData(GEX_MK_HOST) == NULL, "gex_MK_SetCData(NULL) did not clear");
    /* device classes: not supported, as in a GASNet built without them */
    args.gex_class = GEX_MK_CLASS_CUDA_UVA;
    gex_MK_t d = GEX_MK_INVALID;
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_MK_Create(&d, rvt_client, &args, 0) == GASNET_ERR_BAD_ARG && d == GEX_MK_INVALID,
              "gex_MK_Create(GEX_MK_CLASS_CUDA_UVA) did not return GASNET_ERR_BAD_ARG");
    gex_MK_Destroy(mk, 0);

    gex_Coll_BarrierBlocking(rvt_tm, 0);
    return rvt_done("coll_blocking_mk");
}
