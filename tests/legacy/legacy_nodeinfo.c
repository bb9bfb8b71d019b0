/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_nodeinfo.c: what GASNet's own test programs (tests/test.h) need from
 * gasnet.h beyond the calls: gasnet_getNodeInfo before and after gasnet_attach (host and
 * supernode ids agree with gex_System_Query{Host,Nbrhd}Info; a supernode peer's segment
 * is reachable at its address + offset, checked by a store through that mapping read back
 * with gasnet_get), and the GASNET_CORE_* / PLATFORM_* tokens a client stringifies. */
#include <gasnet.h>
#include "rv_test.h"

#define SEGSZ (64 * 1024)

static void check_ids(const gasnet_nodeinfo_t *ni, gasnet_node_t n, int attached)
{
    gex_RankInfo_t *nb, *host;
    gex_Rank_t nnb, nhost, inb, ihost;
    gex_System_QueryNbrhdInfo(&nb, &nnb, &inb);
    gex_System_QueryHostInfo(&host, &nhost, &ihost);
    gasnet_node_t nsame_super = 0, nsame_host = 0;
    for (gasnet_node_t r = 0; r < n; r++) {
        int in_nb = 0, in_host = 0;
        for (gex_Rank_t i = 0; i < nnb; i++) in_nb |= nb[i].gex_jobrank == r;
        for (gex_Rank_t i = 0; i < nhost; i++) in_host |= host[i].gex_jobrank == r;
        RVT_CHECK((ni[r].supernode == ni[rvt_me].supernode) == in_nb,
                  "node %u: supernode %u vs mine %u, but in my neighbourhood: %d", r,
                  ni[r].supernode, ni[rvt_me].supernode, in_nb);
        RVT_CHECK((ni[r].host == ni[rvt_me].host) == in_host,
                  "node %u: host %u vs mine %u, but on my host: %d", r, ni[r].host,
                  ni[rvt_me].host, in_host);
        RVT_CHECK(ni[r].supernode < n && ni[r].host < n, "node %u: ids %u/%u not below %u", r,
                  ni[r].supernode, ni[r].host, n);
        if (!attached || r == rvt_me)
            RVT_CHECK(ni[r].offset == 0, "node %u: offset %#lx, expected 0", r,
                      (unsigned long)ni[r].offset);
        nsame_super += in_nb;
        nsame_host += in_host;
    }
    RVT_CHECK(nsame_super == nnb && nsame_host == nhost, "counted %u/%u, expected %u/%u",
              nsame_super, nsame_host, nnb, nhost);
}

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    rvt_me = gasnet_mynode();
    gasnet_node_t n = gasnet_nodes();
    gasnet_nodeinfo_t *ni = calloc(n + 1, sizeof *ni);
    RVT_CHECK(ni != NULL, "calloc");

    /* allowed between gasnet_init and gasnet_attach (test.h's test_init_early does this) */
    RVT_OK(gasnet_getNodeInfo(ni, (int)n));
    check_ids(ni, n, 0);

    RVT_OK(gasnet_attach(NULL, 0, SEGSZ, 0));
    gasnet_seginfo_t *si = calloc(n, sizeof *si);
    RVT_CHECK(si != NULL, "calloc");
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    ni[n].host = 12345; /* numentries bounds what is written */
    RVT_OK(gasnet_getNodeInfo(ni, (int)n + 1));
    RVT_CHECK(ni[n].host == 12345, "entry past gasnet_nodes() was written");
    RVT_OK(gasnet_getNodeInfo(ni, 0));
    check_ids(ni, n, 1);

    /* every supernode peer: store through addr+offset, read back remotely */
    gasnet_node_t peer = (rvt_me + 1) % n;
    if (ni[peer].supernode == ni[rvt_me].supernode) {
        uint64_t *mine = (uint64_t *)((uintptr_t)si[peer].addr + ni[peer].offset) + rvt_me;
        *mine = 0xC0DE000000000000ull | rvt_me;
    }
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    if (ni[peer].supernode == ni[rvt_me].supernode) {
        uint64_t got = 0;
        gasnet_get(&got, peer, (uint64_t *)si[peer].addr + rvt_me, sizeof got);
        RVT_CHECK(got == (0xC0DE000000000000ull | rvt_me),
                  "store through node %u's mapping (offset %#lx) read back %#llx", peer,
                  (unsigned long)ni[peer].offset, (unsigned long long)got);
    }

    /* the tokens clients print with _STRINGIFY */
    RVT_CHECK(!strcmp(_STRINGIFY(GASNET_CORE_NAME), GASNET_CORE_NAME_STR) &&
              !strcmp(_STRINGIFY(GASNET_CORE_VERSION), GASNET_CORE_VERSION_STR) &&
              !strcmp(_STRINGIFY(GASNET_EXTENDED_NAME), GASNET_EXTENDED_NAME_STR),
              "GASNET_CORE_* tokens and strings disagree");
    RVT_CHECK(strstr(GASNET_CONFIG_STRING, "CONDUIT=RIVET") != NULL, "GASNET_CONFIG_STRING");

    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    if (rvt_me == 0) printf("legacy_nodeinfo: %u nodes OK\n", (unsigned)n);
    free(si);
    free(ni);
    gasnet_exit(0);
    return 0;
}
