/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_burst.c: bursts of hundreds of non-blocking collectives in flight at once
 * (more than the engine keeps for reuse), as GASNet's testcollperf issues them: reductions to
 * one (every root) and to all (in place and not, built-in and GEX_OP_USER_NC), broadcasts,
 * gathers and barriers, on the full team and on a team of one; completed in order (WaitAll),
 * in reverse, and by WaitSome, with every result checked. Exercises the run queue (ops idle
 * until a message completes their receive), the op and buffer pools, and the small reductions
 * that read src in place and build the result in dst. */
#include "rv_test.h"
#include <gasnet_coll.h>
#include <rivet.h>
#include <stdlib.h>
#include <string.h>

#define B 1200  /* collectives per burst */
#define CNT 5   /* elements per reduction */

/* A non-commutative associative op: 2x2 integer matrix product (row-major, 4 x int64 per
 * element), so any change of operand order shows. */
static void matmul(const void *a1, void *a2_out, size_t count, const void *cdata)
{
    (void)cdata;
    const int64_t *a = a1;
    int64_t *b = a2_out;
    for (size_t i = 0; i < count; i++, a += 4, b += 4) {
        int64_t r0 = a[0] * b[0] + a[1] * b[2], r1 = a[0] * b[1] + a[1] * b[3];
        int64_t r2 = a[2] * b[0] + a[3] * b[2], r3 = a[2] * b[1] + a[3] * b[3];
        b[0] = r0, b[1] = r1, b[2] = r2, b[3] = r3;
    }
}
static void mat_of(int64_t m[4], gex_Rank_t r, int i)
{
    m[0] = 1, m[1] = (int64_t)r + i % 3, m[2] = 0, m[3] = 1 + (r % 2); /* upper triangular */
}

struct slot {
    int     kind;
    int64_t in[CNT], out[CNT];
    int64_t m[4], mo[4];
    unsigned char g[8 * 16];
};

static void expect_sum(const int64_t *v, gex_Rank_t n, int i, const char *what)
{
    for (int j = 0; j < CNT; j++) {
        int64_t e = 0;
        for (gex_Rank_t r = 0; r < n; r++) e += (int64_t)r * 1000 + i * CNT + j;
        RVT_CHECK(v[j] == e, "%s %d[%d]: %lld want %lld", what, i, j, (long long)v[j], (long long)e);
    }
}

static void burst(gex_TM_t tm, struct slot *s, gex_Event_t *ev, int round)
{
    gex_Rank_t me = gex_TM_QueryRank(tm), n = gex_TM_QuerySize(tm);
    for (int i = 0; i < B; i++) {
        struct slot *x = &s[i];
        x->kind = (i + round) % 7;
        for (int j = 0; j < CNT; j++) x->in[j] = (int64_t)me * 1000 + i * CNT + j;
        memset(x->out, 0xee, sizeof x->out);
        gex_Rank_t root = (gex_Rank_t)(i % n);
        switch (x->kind) {
        case 0: /* to one, every root */
            ev[i] = gex_Coll_ReduceToOneNB(tm, root, x->out, x->in, GEX_DT_I64, 8, CNT, GEX_OP_ADD,
                                           NULL, NULL, 0);
            break;
        case 1: /* to all */
            ev[i] = gex_Coll_ReduceToAllNB(tm, x->out, x->in, GEX_DT_I64, 8, CNT, GEX_OP_ADD, NULL,
                                           NULL, 0);
            break;
        case 2: /* to all, in place */
            ev[i] = gex_Coll_ReduceToAllNB(tm, x->in, x->in, GEX_DT_I64, 8, CNT, GEX_OP_ADD, NULL,
                                           NULL, 0);
            break;
        case 3: /* non-commutative, to one (in place on the root) and to all */
            mat_of(x->m, me, i);
            if (i % 2)
                ev[i] = gex_Coll_ReduceToOneNB(tm, root, x->m, x->m, GEX_DT_USER, 32, 1, GEX_OP_USER_NC,
                                               matmul, NULL, 0);
            else
                ev[i] = gex_Coll_ReduceToAllNB(tm, x->mo, x->m, GEX_DT_USER, 32, 1, GEX_OP_USER_NC,
                                               matmul, NULL, 0);
            break;
        case 4:
            if (me == root) rvt_fill(x->g, 16, (uint64_t)(round * B + i));
            ev[i] = gex_Coll_BroadcastNB(tm, root, x->g, x->g, 16, 0);
            break;
        case 5:
            rvt_fill(x->in, 8, (uint64_t)(round * B + i) * 64 + me);
            ev[i] = rivet_Coll_GatherNB(tm, root, x->g, x->in, 8, 0);
            break;
        default:
            ev[i] = gex_Coll_BarrierNB(tm, 0);
            break;
        }
    }
    switch (round % 3) {
    case 0: gex_Event_WaitAll(ev, B, 0); break;
    case 1:
        for (int i = B - 1; i >= 0; i--) gex_Event_Wait(ev[i]);
        break;
    default:
        for (int live = B; live;) {
            gex_Event_WaitSome(ev, B, 0);
            live = 0;
            for (int i = 0; i < B; i++) live += ev[i] != GEX_EVENT_INVALID;
        }
    }
    for (int i = 0; i < B; i++) {
        struct slot *x = &s[i];
        gex_Rank_t root = (gex_Rank_t)(i % n);
        switch (x->kind) {
        case 0:
            if (me == root) expect_sum(x->out, n, i, "ReduceToOne");
            break;
        case 1: expect_sum(x->out, n, i, "ReduceToAll"); break;
        case 2: expect_sum(x->in, n, i, "ReduceToAll in place"); break;
        case 3: {
            if ((i % 2) && me != root) break;
            int64_t e[4];
            mat_of(e, 0, i);
            for (gex_Rank_t r = 1; r < n; r++) {
                int64_t m[4];
                mat_of(m, r, i);
                matmul(e, m, 1, NULL); /* m = e x m: ranks in order */
                memcpy(e, m, sizeof e);
            }
            const int64_t *got = (i % 2) ? x->m : x->mo;
            RVT_CHECK(!memcmp(got, e, sizeof e), "USER_NC %d: [%lld %lld %lld %lld]", i,
                      (long long)got[0], (long long)got[1], (long long)got[2], (long long)got[3]);
            break;
        }
        case 4: RVT_VERIFY(x->g, 16, (uint64_t)(round * B + i), "broadcast"); break;
        case 5:
            if (me == root)
                for (gex_Rank_t r = 0; r < n; r++)
                    RVT_VERIFY(x->g + 8 * r, 8, (uint64_t)(round * B + i) * 64 + r, "gather");
            break;
        default: break;
        }
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(rvt_n <= 16, "at most 16 ranks (gather buffer)");
    gex_TM_t solo;
    gex_TM_Split(&solo, rvt_tm, (int)rvt_me, 0, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    RVT_CHECK(gex_TM_QuerySize(solo) == 1, "team of one");
    struct slot *s = calloc(B, sizeof *s);
    gex_Event_t *ev = calloc(B, sizeof *ev);
    RVT_CHECK(s && ev, "out of memory");
    for (int round = 0; round < 3; round++) {
        burst(rvt_tm, s, ev, round);
        burst(solo, s, ev, round);
    }
    /* a barrier on a team of one completes at once */
    for (int i = 0; i < 100; i++)
        RVT_CHECK(gex_Coll_BarrierNB(solo, 0) == GEX_EVENT_INVALID, "solo barrier is complete");
    gex_TM_Destroy(solo, NULL, 0);
    free(s);
    free(ev);
    return rvt_done("coll_burst");
}
