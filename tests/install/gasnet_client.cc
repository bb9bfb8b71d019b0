// SPDX-License-Identifier: BSD-3-Clause
// tests/install/gasnet_client.cc: a C++ client built with the fragment's GASNET_CXX flags: reports its threading mode and checks an allreduce and AM replies.
#include <gasnetex.h>
#include <gasnet_coll.h>
#include <cstdio>
#include <vector>

#include "gasnet_client_build.h"

namespace {
const gex_AM_Index_t H_PING = 210, H_PONG = 211;
volatile int pongs;
void ping(gex_Token_t tok, gex_AM_Arg_t x) { gex_AM_ReplyShort1(tok, H_PONG, 0, x + 1); }
void pong(gex_Token_t, gex_AM_Arg_t x) { pongs += x; }
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "gasnet_client_cxx", &argc, &argv, 0) != GASNET_OK ||
        gex_Segment_Attach(&seg, tm, 1 << 16) != GASNET_OK)
        return 1;
    std::vector<gex_AM_Entry_t> handlers = {
        {H_PING, reinterpret_cast<gex_AM_Fn_t>(ping), GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 1,
         nullptr, "ping"},
        {H_PONG, reinterpret_cast<gex_AM_Fn_t>(pong), GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1,
         nullptr, "pong"},
    };
    if (gex_EP_RegisterHandlers(ep, handlers.data(), handlers.size()) != GASNET_OK) return 1;
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    for (gex_Rank_t r = 0; r < n; r++) gex_AM_RequestShort1(tm, r, H_PING, 0, gex_AM_Arg_t(r));
    int want = 0;
    for (gex_Rank_t r = 0; r < n; r++) want += int(r) + 1;
    GASNET_BLOCKUNTIL(pongs == want);
    int64_t mine = int64_t(me) + 1, sum = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(tm, &sum, &mine, GEX_DT_I64, sizeof mine, 1, GEX_OP_ADD,
                                          nullptr, nullptr, 0));
    if (sum != int64_t(n) * (n + 1) / 2) {
        std::fprintf(stderr, "gasnet_client_cxx: rank %u: allreduce gave %lld\n", me, (long long)sum);
        gasnet_exit(1);
    }
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    std::printf("gasnet_client C++: rank %u of %u, GASNET_%s, conduit %s (%s), data ok\n", me, n, MODE, CONDUIT,
                CONDUIT_NAME);
    return 0;
}
