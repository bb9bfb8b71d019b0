/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_bigmsg.c: largest AM Mediums into a receiver that is not polling, over
 * ofi. Every other rank sends rank 0 NMSG Medium Requests of gex_AM_MaxRequestMedium() bytes
 * while rank 0 computes without polling for a while, so messages pile up beyond the posted
 * receive regions and arrive unexpected; the handler checks every payload byte. Guards the
 * ofi_rxm settings Rivet picks (every message eager, small bounce buffers) and the re-posting
 * of a receive region only after its late messages completed (ofi README, Known problems).
 * Argument: the number of rounds (default 1). */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#include <time.h>

enum { H_REQ = GEX_AM_INDEX_BASE };
#define NMSG 120

static volatile unsigned long got;
static size_t maxmed;

static void req(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seq)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    RVT_CHECK(nbytes == maxmed, "Medium of %zu bytes from rank %u, expected %zu", nbytes,
              (unsigned)ti.gex_srcrank, maxmed);
    char what[64];
    snprintf(what, sizeof what, "Medium %d from rank %u", (int)seq, (unsigned)ti.gex_srcrank);
    RVT_VERIFY(buf, nbytes, 1000u * ti.gex_srcrank + (unsigned)seq, what);
    got++;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    gex_AM_Entry_t table[] = {{H_REQ, (gex_AM_Fn_t)req, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1,
                               NULL, "req"}};
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 1));
    maxmed = gex_AM_MaxRequestMedium(rvt_tm, 0, GEX_EVENT_NOW, 0, 1);
    uint8_t *buf = malloc(maxmed);
    RVT_CHECK(buf != NULL, "malloc(%zu) failed", maxmed);
    int rounds = argc > 1 ? atoi(argv[1]) : 1;
    RVT_CHECK(rounds >= 1, "rounds: %s", argv[1]);
    for (int r = 0; r < rounds; r++) {
        rvt_barrier();
        if (rvt_me == 0) {
            /* not polling: the senders' messages wait in the provider and the kernel */
            double end = now_s() + 0.3;
            volatile unsigned long spin = 0;
            while (now_s() < end) spin++;
            unsigned long want = (unsigned long)NMSG * (rvt_n - 1) * (unsigned)(r + 1);
            while (got < want) gasnet_AMPoll();
        } else {
            for (int i = 0; i < NMSG; i++) {
                rvt_fill(buf, maxmed, 1000u * rvt_me + (unsigned)i);
                RVT_OK(gex_AM_RequestMedium1(rvt_tm, 0, H_REQ, buf, maxmed, GEX_EVENT_NOW, 0, i));
            }
        }
    }
    if (rvt_me == 0) {
        rv_ofi_stats_t st;
        RVT_CHECK(rv_ofi_stats(&st) == 0, "the ofi transport is not in use");
        printf("ofi_bigmsg: %d rounds, %llu region re-posts, %llu messages completed after "
               "their region's release\n", rounds, (unsigned long long)st.multi_recv_reposts,
               (unsigned long long)st.multi_recv_late);
    }
    free(buf);
    return rvt_done("ofi_bigmsg");
}
