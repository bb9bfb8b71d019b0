/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_native.c: the ofi transport's native atomics (src/transport/ofi/ofi_amo.c).
 * Argument 'native': gex_AD_Create picks them for every domain whose ops are all native (asked
 * through rv_ratomic_query, as rivet-info does) and the ops really went through libfabric (the
 * transport's counter); 'none': they are not chosen (RIVET_RATOMIC=cpu, or one neighbourhood)
 * and no native atomic is started. Either way: FLT/DBL ops with exact values (SUB as the sum of
 * the negated operand, signed zeros, CAS on bit patterns, a NaN matching itself), to the next
 * rank and to the calling rank itself; a floating-point hot spot on rank 0 with an exact total;
 * GEX_FLAG_IMMEDIATE refused once every native context is in flight (native) and nothing done
 * then; more operations in flight than contexts without IMMEDIATE; GEX_FLAG_AD_ACQ|REL. */
#include "rv_test.h"
#include "ratomic/ratomic_int.h"
#include "transport/ofi/ofi_stats.h"
#include <gasnet_ratomic.h>
#include <math.h>

#define HOT_ITERS 800

static int native;

static int is_native(gex_DT_t dt, gex_OP_t ops, gex_Flags_t flags)
{
    const char *impl = rv_ratomic_query(rvt_tm, dt, ops, flags);
    RVT_CHECK(impl != NULL, "rv_ratomic_query(%s, 0x%x) says not a valid domain",
              rv_ratomic_dt_name(dt), (unsigned)ops);
    return strstr(impl, "fi_atomic") != NULL;
}

static uint64_t amos_started(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use");
    return s.amos;
}

#define FP_SET (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_FSUB | GEX_OP_MULT | GEX_OP_FMULT | \
                GEX_OP_INC | GEX_OP_FINC | GEX_OP_DEC | GEX_OP_FDEC | GEX_OP_SET | GEX_OP_GET |    \
                GEX_OP_SWAP | GEX_OP_CAS | GEX_OP_FCAS)

/* One op on the word at (rank, p), waited for; returns the fetched value (or 0). */
#define FP_TEST(DT, T, UT)                                                                     \
    static T op_##DT(gex_AD_t ad, gex_Rank_t r, T *p, gex_OP_t op, T a, T b)                   \
    {                                                                                          \
        T res = (T)0;                                                                          \
        gex_Event_Wait(gex_AD_OpNB_##DT(ad, &res, r, p, op, a, b, 0));                         \
        return res;                                                                            \
    }                                                                                          \
    static UT bits_##DT(T v)                                                                   \
    {                                                                                          \
        UT u;                                                                                  \
        memcpy(&u, &v, sizeof u);                                                              \
        return u;                                                                              \
    }                                                                                          \
    /* target value (bits) must equal 'want' (bits), and the fetched 'got' 'wold' */           \
    static void want_##DT(const char *what, gex_AD_t ad, gex_Rank_t r, T *p, T want)           \
    {                                                                                          \
        T now = op_##DT(ad, r, p, GEX_OP_GET, 0, 0);                                           \
        RVT_CHECK(bits_##DT(now) == bits_##DT(want), #DT " %s at rank %u: %a, expected %a",    \
                  what, (unsigned)r, (double)now, (double)want);                               \
    }                                                                                          \
    static void fetched_##DT(const char *what, T got, T wold)                                  \
    {                                                                                          \
        RVT_CHECK(bits_##DT(got) == bits_##DT(wold), #DT " %s fetched %a, expected %a", what,  \
                  (double)got, (double)wold);                                                  \
    }                                                                                          \
    static void fp_##DT(gex_Rank_t r, T *p)                                                    \
    {                                                                                          \
        gex_AD_t ad;                                                                           \
        gex_AD_Create(&ad, rvt_tm, GEX_DT_##DT, FP_SET, 0);                                    \
        volatile T x = (T)1.5, y = (T)2.25, z = (T)0.75, m = (T)-2; /* computed at run time */ \
        T v = x;                                                                               \
        op_##DT(ad, r, p, GEX_OP_SET, v, 0);                                                   \
        fetched_##DT("FADD", op_##DT(ad, r, p, GEX_OP_FADD, y, 0), v);                         \
        v = v + y;                                                                             \
        fetched_##DT("FSUB", op_##DT(ad, r, p, GEX_OP_FSUB, z, 0), v);                         \
        v = v - z;                                                                             \
        fetched_##DT("FMULT", op_##DT(ad, r, p, GEX_OP_FMULT, m, 0), v);                       \
        v = v * m;                                                                             \
        fetched_##DT("FINC", op_##DT(ad, r, p, GEX_OP_FINC, 0, 0), v);                         \
        v = v + (T)1;                                                                          \
        fetched_##DT("FDEC", op_##DT(ad, r, p, GEX_OP_FDEC, 0, 0), v);                         \
        v = v - (T)1;                                                                          \
        op_##DT(ad, r, p, GEX_OP_ADD, z, 0);                                                   \
        op_##DT(ad, r, p, GEX_OP_SUB, y, 0);                                                   \
        op_##DT(ad, r, p, GEX_OP_MULT, m, 0);                                                  \
        op_##DT(ad, r, p, GEX_OP_INC, 0, 0);                                                   \
        op_##DT(ad, r, p, GEX_OP_DEC, 0, 0);                                                   \
        op_##DT(ad, r, p, GEX_OP_DEC, 0, 0);                                                   \
        v = (((v + z) - y) * m + (T)1) - (T)1 - (T)1;                                          \
        want_##DT("ADD SUB MULT INC DEC", ad, r, p, v);                                        \
        fetched_##DT("SWAP", op_##DT(ad, r, p, GEX_OP_SWAP, (T)7, 0), v);                      \
        fetched_##DT("FCAS hit", op_##DT(ad, r, p, GEX_OP_FCAS, (T)7, (T)8), (T)7);            \
        op_##DT(ad, r, p, GEX_OP_CAS, (T)7, (T)9); /* misses: 8 stays */                      \
        want_##DT("CAS miss", ad, r, p, (T)8);                                                 \
        /* signed zeros: SUB must be exactly x - y, CAS compares bits */                       \
        volatile T pz = (T)0, nz = -pz;                                                        \
        op_##DT(ad, r, p, GEX_OP_SET, nz, 0);                                                  \
        fetched_##DT("FSUB -0 - +0", op_##DT(ad, r, p, GEX_OP_FSUB, pz, 0), nz);               \
        want_##DT("-0 - +0", ad, r, p, nz - pz);                                               \
        op_##DT(ad, r, p, GEX_OP_SUB, nz, 0);                                                  \
        want_##DT("-0 - -0", ad, r, p, (nz - pz) - nz);                                        \
        op_##DT(ad, r, p, GEX_OP_SET, nz, 0);                                                  \
        fetched_##DT("FCAS +0 vs -0", op_##DT(ad, r, p, GEX_OP_FCAS, pz, (T)1), nz);           \
        want_##DT("FCAS +0 vs -0 (no match)", ad, r, p, nz);                                   \
        T nan = (T)NAN;                                                                        \
        op_##DT(ad, r, p, GEX_OP_SET, nan, 0);                                                 \
        fetched_##DT("FCAS NaN", op_##DT(ad, r, p, GEX_OP_FCAS, nan, (T)2), nan);              \
        want_##DT("FCAS NaN (same bits match)", ad, r, p, (T)2);                               \
        gex_AD_Destroy(ad);                                                                    \
    }
FP_TEST(FLT, float, uint32_t)
FP_TEST(DBL, double, uint64_t)

/* Every rank, rank 0 included, adds 1.0 and subtracts 0.5 HOT_ITERS times on rank 0's word. */
static void hot_spot(double *w)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_DBL, GEX_OP_FADD | GEX_OP_SUB | GEX_OP_SET | GEX_OP_GET, 0);
    if (rvt_me == 0) gex_Event_Wait(gex_AD_OpNB_DBL(ad, NULL, 0, w, GEX_OP_SET, 0.0, 0, 0));
    rvt_barrier();
    for (int i = 0; i < HOT_ITERS; i++) {
        double old = -1;
        gex_AD_OpNBI_DBL(ad, NULL, 0, w, GEX_OP_SUB, 0.5, 0, 0);
        gex_Event_Wait(gex_AD_OpNB_DBL(ad, &old, 0, w, GEX_OP_FADD, 1.0, 0, 0));
        RVT_CHECK(old >= -0.5 * HOT_ITERS * rvt_n && old * 2 == (double)(int64_t)(old * 2),
                  "hot spot: FADD fetched %g (not a multiple of 0.5 in range)", old);
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    rvt_barrier();
    double want = 0.5 * HOT_ITERS * rvt_n, got = 0;
    gex_Event_Wait(gex_AD_OpNB_DBL(ad, &got, 0, w, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(got == want, "hot spot total %.17g, expected %.17g", got, want);
    rvt_barrier();
    gex_AD_Destroy(ad);
}

/* IMMEDIATE: operations to the calling rank itself with no progress in between fill every
 * native context; the next one is refused and does nothing. Then more than that many in flight
 * without IMMEDIATE (the library makes progress to free contexts). */
static void immediate(uint64_t *w)
{
    gex_AD_t ad;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SET | GEX_OP_GET, 0);
    gex_Event_Wait(gex_AD_OpNB_U64(ad, NULL, rvt_me, w, GEX_OP_SET, 0, 0, 0));
    uint64_t accepted = 0;
    int refused_nbi = 0, refused_nb = 0;
    for (int i = 0; i < 2000 && !refused_nbi; i++) {
        if (gex_AD_OpNBI_U64(ad, NULL, rvt_me, w, GEX_OP_ADD, 1, 0, GEX_FLAG_IMMEDIATE))
            refused_nbi = 1;
        else
            accepted++;
    }
    gex_NBI_Wait(GEX_EC_ALL, 0);
    static uint64_t res[2000];
    gex_Event_t ev[2000];
    int nev = 0;
    for (int i = 0; i < 2000 && !refused_nb; i++) {
        gex_Event_t e =
            gex_AD_OpNB_U64(ad, &res[i], rvt_me, w, GEX_OP_FADD, 1, 0, GEX_FLAG_IMMEDIATE);
        if (e == GEX_EVENT_NO_OP) refused_nb = 1;
        else {
            ev[nev++] = e;
            accepted++;
        }
    }
    gex_Event_WaitAll(ev, (size_t)nev, 0);
    if (native)
        RVT_CHECK(refused_nbi && refused_nb, "IMMEDIATE never refused (NBI %d, NB %d) with every "
                  "native context in flight", refused_nbi, refused_nb);
    uint64_t got = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, rvt_me, w, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(got == accepted, "IMMEDIATE: %" PRIu64 " ADDs accepted but the word holds %" PRIu64
              " (a refused op did something, or an accepted one was lost)", accepted, got);
    for (int i = 0; i < 1000; i++) gex_AD_OpNBI_U64(ad, NULL, rvt_me, w, GEX_OP_ADD, 3, 0, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &got, rvt_me, w, GEX_OP_GET, 0, 0, 0));
    RVT_CHECK(got == accepted + 3000, "1000 NBI ADDs in flight: %" PRIu64 ", expected %" PRIu64,
              got, accepted + 3000);
    /* ACQ|REL to the next rank (done with its own word): the result is there by completion */
    rvt_barrier();
    uint64_t old = 1;
    gex_Rank_t next = (rvt_me + 1) % rvt_n;
    uintptr_t off = (uintptr_t)((char *)w - (char *)rvt_seg_addr(rvt_me, 0));
    uint64_t *nw = (uint64_t *)rvt_seg_addr(next, off);
    gex_Event_t e = gex_AD_OpNB_U64(ad, &old, next, nw, GEX_OP_FADD, 0, 0,
                                    GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL);
    gex_Event_Wait(e);
    RVT_CHECK(old >= 3000 && old <= 3000 + 4000, "GEX_FLAG_AD_ACQ|REL FADD 0 at rank %u "
              "fetched %" PRIu64 ", expected 3000 + that rank's accepted IMMEDIATE ADDs",
              (unsigned)next, old);
    rvt_barrier();
    gex_AD_Destroy(ad);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    RVT_CHECK(argc == 2 && (!strcmp(argv[1], "native") || !strcmp(argv[1], "none")),
              "usage: ratomic_native native|none");
    native = !strcmp(argv[1], "native");
    RVT_CHECK(rvt_n >= 2, "needs at least 2 ranks");

    /* the choice (the same rule rivet-info reports) */
    RVT_CHECK(is_native(GEX_DT_U64, GEX_OP_FADD, 0) == native, "U64 {FADD}: native %d, expected %d",
              !native, native);
    RVT_CHECK(is_native(GEX_DT_I32, rv_ratomic_valid_ops(GEX_DT_I32), 0) == native,
              "I32 {every op}: native is not %d", native);
    RVT_CHECK(is_native(GEX_DT_DBL, FP_SET, GEX_FLAG_AD_FAVOR_REMOTE) == native,
              "DBL {ADD..FCAS} FAVOR_REMOTE: native is not %d", native);
    RVT_CHECK(!is_native(GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_MY_RANK),
              "FAVOR_MY_RANK must not choose native atomics");
    RVT_CHECK(!is_native(GEX_DT_U64, GEX_OP_FADD, GEX_FLAG_AD_FAVOR_MY_NBRHD),
              "FAVOR_MY_NBRHD must not choose native atomics");
    RVT_CHECK(!is_native(GEX_DT_DBL, GEX_OP_ADD | GEX_OP_MIN, 0),
              "DBL {ADD, MIN}: MIN on floats is not native, so the domain must not be");
    uint64_t before = amos_started();

    gex_Rank_t next = (rvt_me + 1) % rvt_n;
    char *mine = rvt_seg_addr(rvt_me, 0), *theirs = rvt_seg_addr(next, 0);
    /* words: [0,64) this rank's own (targets of itself), [64+8*me) ones the previous rank owns */
    fp_FLT(next, (float *)(theirs + 64));
    fp_DBL(next, (double *)(theirs + 128));
    fp_FLT(rvt_me, (float *)(mine + 0));
    fp_DBL(rvt_me, (double *)(mine + 8));
    rvt_barrier();
    hot_spot((double *)((char *)rvt_seg_addr(0, 0) + 256));
    immediate((uint64_t *)(mine + 512));

    uint64_t n = amos_started() - before;
    RVT_CHECK(native ? n > 0 : n == 0, "%" PRIu64 " native atomics started (expected %s)", n,
              native ? "some" : "none");
    return rvt_done("ratomic_native");
}
