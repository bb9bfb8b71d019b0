/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_diag.c: gasnett_run_diagnostics as GASNet's testinternal drives it: the
 * handlers of gasnett_diagnostic_gethandlers fetched before gex_Client_Init (called with
 * NULL argc/argv, GASNET_NULL_ARGV_OK) and registered, then every section on every rank
 * with the next rank as peer; it must report 0 errors. A run with the handlers unregistered
 * must report the AM section's error. */
#include <gasnetex.h>
#include <gasnet_tools.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RV_CHECK_EXIT gasnet_exit
#include "rv_check.h"

int main(int argc, char **argv)
{
    gex_AM_Entry_t *htable;
    int htable_cnt;
    gasnett_diagnostic_gethandlers(&htable, &htable_cnt);
    CHECK(htable && htable_cnt > 0, "gasnett_diagnostic_gethandlers gave %d handlers", htable_cnt);
    int unregistered = argc > 1 && !strcmp(argv[1], "unregistered");

    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    CHECK(gex_Client_Init(&client, &ep, &tm, "core_diag", NULL, NULL, 0) == GASNET_OK,
          "gex_Client_Init with NULL argc/argv");
    CHECK(gex_Segment_Attach(&seg, tm, 4 * GASNET_PAGESIZE) == GASNET_OK, "attach");
    if (!unregistered)
        CHECK(gex_EP_RegisterHandlers(ep, htable, (size_t)htable_cnt) == GASNET_OK, "register");
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm), peer = (me + 1) % n;
    void *myseg, *peerseg;
    CHECK(gex_Segment_QueryBound(tm, me, &myseg, NULL, NULL) == GASNET_OK, "own segment");
    CHECK(gex_Segment_QueryBound(tm, peer, &peerseg, NULL, NULL) == GASNET_OK, "peer segment");
    if (unregistered) {
        int errs = gasnett_run_diagnostics(10, 1, "E", tm, myseg, peer, peerseg, 7);
        CHECK(errs == 1, "the AM section without its handlers reported %d errors", errs);
    } else {
        int errs = gasnett_run_diagnostics(500, 4, NULL, tm, myseg, peer, peerseg, 1234);
        CHECK(errs == 0, "gasnett_run_diagnostics reported %d errors", errs);
        errs = gasnett_run_diagnostics(50, 2, "af", tm, myseg, peer, peerseg, 99);
        CHECK(errs == 0, "sections a and f reported %d errors", errs);
    }
    printf("core_diag: rank %u ok\n", (unsigned)me);
    gasnet_exit(0);
    return 0;
}
