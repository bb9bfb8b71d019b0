/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_progthr.c: gex_System_QueryProgressThreads. "defer": a client that passed
 * GEX_FLAG_DEFER_THREADS gets count 0 (Rivet has no progress threads). "nodefer": without the
 * flag the query is erroneous and returns GASNET_ERR_RESOURCE (GASNet's testgasnet checks
 * this); NULL outputs or non-zero flags return GASNET_ERR_BAD_ARG, in both modes, and with
 * verbose errors off nothing is printed. */
#include "rv_test.h"

int main(int argc, char **argv)
{
    int defer = argc > 1 && !strcmp(argv[1], "defer");
    gex_Flags_t f = defer ? GEX_FLAG_DEFER_THREADS : 0;
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "progthr", &argc, &argv, f));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    RVT_CHECK(gex_Client_QueryFlags(rvt_client) == f, "client flags 0x%x",
              (unsigned)gex_Client_QueryFlags(rvt_client));

    unsigned cnt = 99;
    const gex_ProgressThreadInfo_t *info = (const gex_ProgressThreadInfo_t *)&cnt;
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_System_QueryProgressThreads(rvt_client, NULL, &info, 0) == GASNET_ERR_BAD_ARG,
              "NULL count_p");
    RVT_CHECK(gex_System_QueryProgressThreads(rvt_client, &cnt, NULL, 0) == GASNET_ERR_BAD_ARG,
              "NULL info_p");
    RVT_CHECK(gex_System_QueryProgressThreads(rvt_client, &cnt, &info, 1) == GASNET_ERR_BAD_ARG,
              "flags 1");
    if (defer) {
        gex_System_SetVerboseErrors(1);
        RVT_OK(gex_System_QueryProgressThreads(rvt_client, &cnt, &info, 0));
        RVT_CHECK(cnt == 0, "deferred progress threads: %u", cnt);
    } else {
        int rc = gex_System_QueryProgressThreads(rvt_client, &cnt, &info, 0);
        RVT_CHECK(rc == GASNET_ERR_RESOURCE, "without GEX_FLAG_DEFER_THREADS: %d (%s)", rc,
                  gasnet_ErrorName(rc));
        gex_System_SetVerboseErrors(1);
    }
    rvt_barrier();
    if (rvt_me == 0) printf("core_progthr %s: ok\n", defer ? "defer" : "nodefer");
    gasnet_exit(0);
    return 0;
}
