/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/startup_prog.c: the smallest job (init, attach 1 MiB, one barrier, gasnet_exit(0)),
 * public API only, timed by startup_time.sh against references run the same way. */
#include <gasnetex.h>

#include <stdio.h>

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "startup", &argc, &argv, 0) != GASNET_OK) {
        fprintf(stderr, "startup_prog: gex_Client_Init failed\n");
        return 1;
    }
    if (gex_Segment_Attach(&seg, tm, 1 << 20) != GASNET_OK) {
        fprintf(stderr, "startup_prog: gex_Segment_Attach failed\n");
        return 2;
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    gasnet_exit(0);
    return 3;
}
