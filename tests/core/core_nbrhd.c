/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_nbrhd.c: several neighbourhoods on one host (GASNET_SUPERNODE_MAXSIZE=M,
 * M given as argv[1]): every rank checks gex_System_QueryNbrhdInfo, QueryHostInfo and
 * QueryMyPosition against the layout the variable asks for (consecutive ranks, at most M
 * per neighbourhood, one host), then a barrier and a sum over the job check that the job
 * (served by the ofi transport, since shm declines) runs. */
#include "rv_test.h"

#include <gasnet_coll.h>

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(argc == 2 && atoi(argv[1]) > 0, "usage: core_nbrhd M (GASNET_SUPERNODE_MAXSIZE)");
    gex_Rank_t m = (gex_Rank_t)atoi(argv[1]), me = rvt_me, n = rvt_n;

    gex_RankInfo_t *nb, *host;
    gex_Rank_t nb_count, nb_me, host_count, host_me;
    gex_System_QueryNbrhdInfo(&nb, &nb_count, &nb_me);
    gex_System_QueryHostInfo(&host, &host_count, &host_me);
    gex_Rank_t first = me / m * m, want = n - first < m ? n - first : m;
    RVT_CHECK(nb_count == want, "NbrhdInfo: %u members, expected %u (ranks %u..%u)", (unsigned)nb_count,
              (unsigned)want, (unsigned)first, (unsigned)(first + want - 1));
    RVT_CHECK(nb_me == me - first, "NbrhdInfo: my index is %u, expected %u", (unsigned)nb_me,
              (unsigned)(me - first));
    for (gex_Rank_t i = 0; i < nb_count; i++)
        RVT_CHECK(nb[i].gex_jobrank == first + i, "NbrhdInfo[%u] is rank %u, expected %u", (unsigned)i,
                  (unsigned)nb[i].gex_jobrank, (unsigned)(first + i));
    RVT_CHECK(host_count == n && host_me == me, "HostInfo: %u members, I am %u (expected %u, %u)",
              (unsigned)host_count, (unsigned)host_me, (unsigned)n, (unsigned)me);
    for (gex_Rank_t i = 0; i < host_count; i++)
        RVT_CHECK(host[i].gex_jobrank == i, "HostInfo[%u] is rank %u", (unsigned)i,
                  (unsigned)host[i].gex_jobrank);

    gex_Rank_t nss, nsr, hss, hsr;
    gex_System_QueryMyPosition(&nss, &nsr, &hss, &hsr);
    RVT_CHECK(nss == (n + m - 1) / m && nsr == me / m, "QueryMyPosition: neighbourhood %u of %u, "
              "expected %u of %u", (unsigned)nsr, (unsigned)nss, (unsigned)(me / m),
              (unsigned)((n + m - 1) / m));
    RVT_CHECK(hss == 1 && hsr == 0, "QueryMyPosition: host %u of %u, expected 0 of 1", (unsigned)hsr,
              (unsigned)hss);

    rvt_barrier();
    uint64_t mine = 1000 + me, sum = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, &sum, &mine, GEX_DT_U64, 8, 1, GEX_OP_ADD, NULL,
                                          NULL, 0));
    uint64_t expect = 1000ull * n + (uint64_t)n * (n - 1) / 2;
    RVT_CHECK(sum == expect, "sum over the job is %" PRIu64 ", expected %" PRIu64, sum, expect);
    rvt_barrier();
    gasnet_exit(0);
    return 0;
}
