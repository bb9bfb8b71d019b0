/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_inflight.c: many collectives in flight at once on the primordial
 * team and on a sub-team, completed in reverse order of initiation (progress from
 * any wait), plus gex_Event_Test polling. */
#include "rv_test.h"
#include <gasnet_coll.h>

#define K 24

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    gex_TM_t sub;
    gex_TM_Split(&sub, rvt_tm, (int)(rvt_me % 2), 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    gex_Rank_t sn = gex_TM_QuerySize(sub);
    for (int iter = 0; iter < 20; iter++) {
        gex_Event_t ev[3 * K];
        int64_t in[K], out[K], sin[K], sout[K];
        static unsigned char big[K][3000];
        for (int i = 0; i < K; i++) {
            in[i] = rvt_me + i + iter;
            sin[i] = 1;
            if (rvt_me == (gex_Rank_t)(i % rvt_n)) rvt_fill(big[i], sizeof big[i], iter * 100 + i);
            ev[3 * i] = gex_Coll_ReduceToAllNB(rvt_tm, &out[i], &in[i], GEX_DT_I64, 8, 1, GEX_OP_ADD,
                                               NULL, NULL, 0);
            ev[3 * i + 1] = gex_Coll_BroadcastNB(rvt_tm, (gex_Rank_t)(i % rvt_n), big[i], big[i],
                                                 sizeof big[i], 0);
            ev[3 * i + 2] = (i % 3 == 0) ? gex_Coll_BarrierNB(sub, 0)
                                         : gex_Coll_ReduceToAllNB(sub, &sout[i], &sin[i], GEX_DT_I64,
                                                                  8, 1, GEX_OP_ADD, NULL, NULL, 0);
        }
        if (iter % 2) {
            for (int i = 3 * K - 1; i >= 0; i--) gex_Event_Wait(ev[i]);
        } else {
            while (gex_Event_TestAll(ev, 3 * K, 0) != GASNET_OK) gasnet_AMPoll();
        }
        for (int i = 0; i < K; i++) {
            int64_t e = 0;
            for (gex_Rank_t r = 0; r < rvt_n; r++) e += r + i + iter;
            RVT_CHECK(out[i] == e, "allreduce %d: %lld want %lld", i, (long long)out[i], (long long)e);
            RVT_VERIFY(big[i], sizeof big[i], (uint64_t)(iter * 100 + i), "broadcast in flight");
            if (i % 3) RVT_CHECK(sout[i] == (int64_t)sn, "sub-team allreduce %d", i);
        }
    }
    gex_TM_Destroy(sub, NULL, 0);
    return rvt_done("coll_inflight");
}
