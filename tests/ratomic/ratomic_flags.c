/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_flags.c: the rest of the remote-atomics contract: GEX_OP_TO_FETCHING /
 * _NONFETCHING and the CSWAP alias; gex_AD_Create keeps its flags as given; a domain over a
 * reordered sub-team, addressed by team rank and by jobrank (GEX_FLAG_RANK_IS_JOBRANK);
 * GEX_FLAG_PEER_SEG_OFFSET / SELF_SEG_OFFSET; GEX_FLAG_AD_MY_RANK / _MY_NBRHD on targets that
 * satisfy them; NBI completion by category (an operation still in flight is seen by
 * gex_NBI_Test of its own category only); access regions; NB events tested to completion. */
#include "rv_test.h"
#include <gasnet_ratomic.h>

static int ref_mode; /* RIVET_RATOMIC=ref: every op is an AM round trip */

static void check_opcodes(void)
{
    static const gex_OP_t pairs[][2] = {
        {GEX_OP_ADD, GEX_OP_FADD}, {GEX_OP_SUB, GEX_OP_FSUB}, {GEX_OP_MULT, GEX_OP_FMULT},
        {GEX_OP_MIN, GEX_OP_FMIN}, {GEX_OP_MAX, GEX_OP_FMAX}, {GEX_OP_INC, GEX_OP_FINC},
        {GEX_OP_DEC, GEX_OP_FDEC}, {GEX_OP_AND, GEX_OP_FAND}, {GEX_OP_OR, GEX_OP_FOR},
        {GEX_OP_XOR, GEX_OP_FXOR}, {GEX_OP_SET, GEX_OP_SWAP}, {GEX_OP_CAS, GEX_OP_FCAS},
    };
    gex_OP_t seen = 0;
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        RVT_CHECK(GEX_OP_TO_FETCHING(pairs[i][0]) == pairs[i][1], "TO_FETCHING(0x%x) = 0x%x",
                  (unsigned)pairs[i][0], (unsigned)GEX_OP_TO_FETCHING(pairs[i][0]));
        RVT_CHECK(GEX_OP_TO_NONFETCHING(pairs[i][1]) == pairs[i][0], "TO_NONFETCHING(0x%x)",
                  (unsigned)pairs[i][1]);
        RVT_CHECK(!(seen & (pairs[i][0] | pairs[i][1])), "opcodes share bits");
        seen |= pairs[i][0] | pairs[i][1];
    }
    RVT_CHECK(!(seen & GEX_OP_GET), "GEX_OP_GET shares a bit");
    RVT_CHECK(GEX_OP_CSWAP == GEX_OP_FCAS, "GEX_OP_CSWAP is not an alias of GEX_OP_FCAS");
}

/* testgasnet's check: flags given to gex_AD_Create come back unchanged. */
static void check_create_flags(void)
{
    gex_AD_t ad;
    gex_Flags_t fl = GEX_FLAG_PEER_SEG_OFFSET;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_FADD | GEX_OP_SWAP, fl);
    RVT_CHECK(gex_AD_QueryFlags(ad) == fl, "QueryFlags 0x%x, created with 0x%x",
              (unsigned)gex_AD_QueryFlags(ad), (unsigned)fl);
    RVT_CHECK(gex_AD_QueryOps(ad) == (GEX_OP_FADD | GEX_OP_SWAP), "QueryOps");
    gex_AD_Destroy(ad);
    gex_AD_Create(&ad, rvt_tm, GEX_DT_DBL, 0, GEX_FLAG_AD_FAVOR_REMOTE);
    RVT_CHECK(gex_AD_QueryFlags(ad) == GEX_FLAG_AD_FAVOR_REMOTE, "QueryFlags (FAVOR_REMOTE)");
    gex_AD_Destroy(ad);
}

/* A team in reverse order: team rank r is jobrank n-1-r. Every member adds (me+1) to a word
 * of team rank 0 (jobrank n-1) twice, by team rank and by jobrank. */
static void check_subteam(void)
{
    gex_TM_t rev;
    gex_TM_Split(&rev, rvt_tm, 0, -(int)rvt_me, NULL, 0, GEX_FLAG_TM_NO_SCRATCH);
    RVT_CHECK(gex_TM_QueryRank(rev) == rvt_n - 1 - rvt_me, "reversed team rank");
    gex_AD_t ad;
    gex_AD_Create(&ad, rev, GEX_DT_I64, GEX_OP_ADD | GEX_OP_SET | GEX_OP_GET, 0);
    gex_Rank_t last = rvt_n - 1;
    int64_t *w = (int64_t *)rvt_seg_addr(last, 256);
    if (rvt_me == last)
        gex_Event_Wait(gex_AD_OpNB_I64(ad, NULL, 0, w, GEX_OP_SET, 0, 0, GEX_FLAG_AD_MY_RANK));
    rvt_barrier();
    gex_AD_OpNBI_I64(ad, NULL, 0, w, GEX_OP_ADD, (int64_t)rvt_me + 1, 0, 0);
    gex_AD_OpNBI_I64(ad, NULL, last, w, GEX_OP_ADD, (int64_t)rvt_me + 1, 0,
                     GEX_FLAG_RANK_IS_JOBRANK);
    gex_NBI_Wait(GEX_EC_RMW, 0);
    rvt_barrier();
    int64_t total = -1;
    gex_Event_Wait(gex_AD_OpNB_I64(ad, &total, last, w, GEX_OP_GET, 0, 0,
                                   GEX_FLAG_RANK_IS_JOBRANK));
    int64_t want = (int64_t)rvt_n * (rvt_n + 1);
    RVT_CHECK(total == want, "sub-team total %lld, expected %lld", (long long)total,
              (long long)want);
    rvt_barrier();
    gex_AD_Destroy(ad);
    gex_TM_Destroy(rev, NULL, 0);
}

/* Offsets instead of addresses, for the target and for the result. */
static void check_offsets(void)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U32, GEX_OP_SET | GEX_OP_FADD | GEX_OP_GET, 0);
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint32_t *w = (uint32_t *)rvt_seg_addr(peer, 512);
    uint32_t *mine = (uint32_t *)rvt_seg_addr(rvt_me, 640); /* my own segment */
    gex_Event_Wait(gex_AD_OpNB_U32(ad, NULL, peer, (void *)(uintptr_t)512, GEX_OP_SET, 40, 0,
                                   GEX_FLAG_PEER_SEG_OFFSET));
    uint32_t old = 0;
    gex_Event_Wait(gex_AD_OpNB_U32(ad, &old, peer, w, GEX_OP_FADD, 2, 0, 0));
    RVT_CHECK(old == 40, "PEER_SEG_OFFSET SET: fetched %u, expected 40", old);
    *mine = 0;
    gex_Event_Wait(gex_AD_OpNB_U32(ad, (uint32_t *)(uintptr_t)640, peer, (void *)(uintptr_t)512,
                                   GEX_OP_FADD, 1, 0,
                                   GEX_FLAG_PEER_SEG_OFFSET | GEX_FLAG_SELF_SEG_OFFSET));
    RVT_CHECK(*mine == 42, "SELF_SEG_OFFSET result %u, expected 42", *mine);
    gex_Event_Wait(gex_AD_OpNB_U32(ad, &old, peer, w, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(old == 43, "after offsets: %u, expected 43", old);
    rvt_barrier();
    gex_AD_Destroy(ad);
}

/* Locality assertions that hold: MY_RANK on myself, MY_NBRHD on every neighbourhood member. */
static void check_locality(void)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_INC | GEX_OP_GET | GEX_OP_SET,
                  GEX_FLAG_AD_FAVOR_MY_NBRHD);
    uint64_t *w = (uint64_t *)rvt_seg_addr(rvt_me, 768);
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, rvt_me, w, GEX_OP_SET, 0, 0, GEX_FLAG_AD_MY_RANK));
    rvt_barrier();
    gex_RankInfo_t *nb;
    gex_Rank_t nn, myi;
    gex_System_QueryNbrhdInfo(&nb, &nn, &myi);
    for (gex_Rank_t i = 0; i < nn; i++) {
        gex_Rank_t jr = nb[i].gex_jobrank;
        gex_AD_OpNBI_U64(ad, NULL, jr, rvt_seg_addr(jr, 768), GEX_OP_INC, 0, 0,
                         GEX_FLAG_AD_MY_NBRHD | GEX_FLAG_RANK_IS_JOBRANK | GEX_FLAG_AD_REL);
    }
    gex_NBI_Wait(GEX_EC_RMW, 0);
    rvt_barrier();
    uint64_t v = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &v, rvt_me, w, GEX_OP_GET, 0, 0,
                                   GEX_FLAG_AD_MY_RANK | GEX_FLAG_AD_ACQ));
    RVT_CHECK(v == nn, "MY_NBRHD increments: %llu, expected %u", (unsigned long long)v,
              (unsigned)nn);
    rvt_barrier();
    gex_AD_Destroy(ad);
}

/* 1 if an op on (me -> peer) completes asynchronously here (AM reference): its completion is
 * only seen after this thread polls. Otherwise (CPU atomics) it is complete on return. */
static int async_to(gex_Rank_t peer)
{
    if (ref_mode) return 1;
    gex_RankInfo_t *nb;
    gex_Rank_t nn, myi;
    gex_System_QueryNbrhdInfo(&nb, &nn, &myi);
    for (gex_Rank_t i = 0; i < nn; i++)
        if (nb[i].gex_jobrank == peer) return 0;
    return 1;
}

static void expect_nbi(gex_EC_t busy, const char *what)
{
    static const gex_EC_t cats[] = {GEX_EC_PUT, GEX_EC_GET, GEX_EC_RMW};
    for (int i = 0; i < 3; i++) {
        int rc = gex_NBI_Test(cats[i], 0);
        RVT_CHECK(rc == (cats[i] == busy ? GASNET_ERR_NOT_READY : GASNET_OK),
                  "%s: gex_NBI_Test(0x%x) returned %d; only category 0x%x should be in flight", what,
                  (unsigned)cats[i], rc, (unsigned)busy);
    }
}

static void check_completion(void)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_SET | GEX_OP_GET | GEX_OP_FADD, 0);
    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint64_t *w = (uint64_t *)rvt_seg_addr(peer, 1024);
    int async = async_to(peer);
    uint64_t r = 0;

    /* NBI by category: SET counts as PUT, GET as GET, FADD as RMW */
    gex_AD_OpNBI_U64(ad, NULL, peer, w, GEX_OP_SET, 100, 0, 0);
    if (async) expect_nbi(GEX_EC_PUT, "NBI SET");
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_AD_OpNBI_U64(ad, &r, peer, w, GEX_OP_FADD, 5, 0, 0);
    if (async) expect_nbi(GEX_EC_RMW, "NBI FADD");
    gex_NBI_Wait(GEX_EC_RMW, 0);
    RVT_CHECK(r == 100, "NBI FADD fetched %llu, expected 100", (unsigned long long)r);
    gex_AD_OpNBI_U64(ad, &r, peer, w, GEX_OP_GET, 0, 0, 0);
    if (async) expect_nbi(GEX_EC_GET, "NBI GET");
    gex_NBI_Wait(GEX_EC_GET, 0);
    RVT_CHECK(r == 105, "NBI GET fetched %llu, expected 105", (unsigned long long)r);
    RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK, "NBI idle at the end");

    /* NB: an event while in flight (GEX_EVENT_INVALID when done on return), tested to
     * completion while polling */
    gex_Event_t ev = gex_AD_OpNB_U64(ad, &r, peer, w, GEX_OP_FADD, 1, 0, 0);
    RVT_CHECK(async ? ev != GEX_EVENT_INVALID : ev == GEX_EVENT_INVALID,
              "NB event %p on the %s path", (void *)ev, async ? "reference" : "CPU");
    while (gex_Event_Test(ev) != GASNET_OK) gasnet_AMPoll();
    RVT_CHECK(r == 105, "NB FADD fetched %llu, expected 105", (unsigned long long)r);

    /* an access region gathers NBI ops of every category under one event */
    uint64_t f[3] = {0, 0, 0};
    gex_NBI_BeginAccessRegion(0);
    gex_AD_OpNBI_U64(ad, &f[0], peer, w, GEX_OP_FADD, 10, 0, 0);
    gex_AD_OpNBI_U64(ad, &f[1], peer, w, GEX_OP_FADD, 10, 0, 0);
    gex_Event_t reg = gex_NBI_EndAccessRegion(0);
    RVT_CHECK(gex_NBI_Test(GEX_EC_ALL, 0) == GASNET_OK, "region ops counted outside the region");
    gex_Event_Wait(reg);
    RVT_CHECK(f[0] + f[1] == 106 + 116 && (f[0] == 106 || f[0] == 116),
              "region FADDs fetched %llu and %llu", (unsigned long long)f[0],
              (unsigned long long)f[1]);
    gex_AD_OpNBI_U64(ad, &f[2], peer, w, GEX_OP_GET, 0, 0, 0);
    gex_NBI_Wait(GEX_EC_GET, 0);
    RVT_CHECK(f[2] == 126, "after the region: %llu, expected 126", (unsigned long long)f[2]);
    rvt_barrier();
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    const char *m = getenv("RIVET_RATOMIC");
    ref_mode = m && !strcmp(m, "ref");
    check_opcodes();
    check_create_flags();
    check_subteam();
    check_offsets();
    check_locality();
    check_completion();
    return rvt_done("ratomic_flags");
}
