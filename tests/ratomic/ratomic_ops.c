/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_ops.c: every op on every type, against a reference computed locally:
 * wraparound, signed MIN/MAX, float ops, CAS success and failure, FCAS's old value; fetching
 * and non-fetching forms; NB and NBI; domain queries. Each rank works on a word in the
 * segment of the next rank (only it touches that word). */
#include "rv_test.h"
#include <gasnet_ratomic.h>
#include <float.h>

#define INT_OPS                                                                               \
    X(ADD) X(FADD) X(SUB) X(FSUB) X(MULT) X(FMULT) X(MIN) X(FMIN) X(MAX) X(FMAX) X(INC)       \
    X(FINC) X(DEC) X(FDEC) X(AND) X(FAND) X(OR) X(FOR) X(XOR) X(FXOR) X(SET) X(GET) X(SWAP)  \
    X(CAS) X(FCAS)
#define FP_OPS                                                                                \
    X(ADD) X(FADD) X(SUB) X(FSUB) X(MULT) X(FMULT) X(MIN) X(FMIN) X(MAX) X(FMAX) X(INC)       \
    X(FINC) X(DEC) X(FDEC) X(SET) X(GET) X(SWAP) X(CAS) X(FCAS)

static const gex_OP_t fetching = GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN |
                                 GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FAND |
                                 GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_GET;

static long nchecks;
static int quick; /* argument "quick": the first 5 values only (slow transports) */

/* The reference: new value at the target after op, computed on the unsigned type (UT) so
 * integer wraparound is defined; comparisons on the client type T. */
#define REF_COMMON(T, UT)                                                                     \
    case GEX_OP_ADD: case GEX_OP_FADD: return (T)((UT)old + (UT)a);                           \
    case GEX_OP_SUB: case GEX_OP_FSUB: return (T)((UT)old - (UT)a);                           \
    case GEX_OP_MULT: case GEX_OP_FMULT: return (T)((UT)old * (UT)a);                         \
    case GEX_OP_MIN: case GEX_OP_FMIN: return a < old ? a : old;                              \
    case GEX_OP_MAX: case GEX_OP_FMAX: return a > old ? a : old;                              \
    case GEX_OP_INC: case GEX_OP_FINC: return (T)((UT)old + (UT)1);                           \
    case GEX_OP_DEC: case GEX_OP_FDEC: return (T)((UT)old - (UT)1);                           \
    case GEX_OP_SET: case GEX_OP_SWAP: return a;                                              \
    case GEX_OP_GET: return old;                                                              \
    case GEX_OP_CAS: case GEX_OP_FCAS: return !memcmp(&old, &a, sizeof old) ? b : old;

#define X(o) GEX_OP_##o,
static const gex_OP_t int_ops[] = {INT_OPS 0};
static const gex_OP_t fp_ops[] = {FP_OPS 0};
#undef X
#define X(o) #o,
static const char *const int_names[] = {INT_OPS NULL};
static const char *const fp_names[] = {FP_OPS NULL};
#undef X

static size_t nops(const gex_OP_t *ops)
{
    size_t n = 0;
    while (ops[n]) n++;
    return n;
}

#define DEFINE_TYPE(DT, T, UT, OPSA, NAMESA, REF_EXTRA, FMT, CONV, ...)                                 \
    static T ref_##DT(gex_OP_t op, T old, T a, T b)                                           \
    {                                                                                         \
        switch (op) {                                                                         \
            REF_COMMON(T, UT)                                                                 \
            REF_EXTRA                                                                         \
        default: RVT_FAIL("no reference for op 0x%x", (unsigned)op);                          \
        }                                                                                     \
    }                                                                                         \
    static void test_##DT(void)                                                               \
    {                                                                                         \
        static const T vals[] = {__VA_ARGS__};                                                \
        const size_t nv = quick ? 5 : sizeof vals / sizeof vals[0];                                       \
        const gex_OP_t *ops = OPSA;                                                                    \
        const char *const *names = NAMESA;                                                    \
        gex_OP_t all = 0;                                                                     \
        for (size_t i = 0; i < nops(ops); i++) all |= ops[i];               \
        gex_AD_t ad;                                                                          \
        gex_AD_Create(&ad, rvt_tm, GEX_DT_##DT, all, 0);                                      \
        RVT_CHECK(gex_AD_QueryDT(ad) == GEX_DT_##DT, "QueryDT");                             \
        RVT_CHECK(gex_AD_QueryOps(ad) == all, "QueryOps");                                    \
        RVT_CHECK(gex_AD_QueryTM(ad) == rvt_tm, "QueryTM");                                   \
        RVT_CHECK(gex_AD_QueryFlags(ad) == 0, "QueryFlags");                                  \
        RVT_CHECK(gex_AD_QueryCData(ad) == NULL, "QueryCData before Set");                    \
        gex_AD_SetCData(ad, &nchecks);                                                        \
        RVT_CHECK(gex_AD_QueryCData(ad) == &nchecks, "QueryCData");                           \
        gex_Rank_t peer = (rvt_me + 1) % rvt_n;                                               \
        T *tgt = (T *)rvt_seg_addr(peer, 64);                                                 \
        unsigned k = 0;                                                                       \
        for (size_t oi = 0; oi < nops(ops); oi++) {                          \
            gex_OP_t op = ops[oi];                                                            \
            for (size_t i = 0; i < nv; i++)                                                   \
                for (size_t j = 0; j < nv; j++, k++) {                                        \
                    T init = vals[i], a = vals[j], b = vals[(i + j + 1) % nv], res, got;      \
                    /* CAS: half the time a matching compare value (success) */               \
                    if ((op == GEX_OP_CAS || op == GEX_OP_FCAS) && (k & 1)) a = init;         \
                    T want = ref_##DT(op, init, a, b);                                        \
                    gex_Event_Wait(gex_AD_OpNB_##DT(ad, NULL, peer, tgt, GEX_OP_SET, init,    \
                                                    (T)0, 0));                                \
                    memset(&res, 0xa5, sizeof res);                                           \
                    T *rp = (op & fetching) ? &res : NULL;                                    \
                    gex_Flags_t fl = (k & 4) ? GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL : 0;         \
                    if (k & 2) {                                                              \
                        RVT_CHECK(gex_AD_OpNBI_##DT(ad, rp, peer, tgt, op, a, b, fl) == 0,   \
                                  "NBI returned non-zero");                                   \
                        gex_NBI_Wait(GEX_EC_ALL, 0);                                          \
                    } else {                                                                  \
                        gex_Event_Wait(gex_AD_OpNB_##DT(ad, rp, peer, tgt, op, a, b, fl));    \
                    }                                                                         \
                    if (rp)                                                                   \
                        RVT_CHECK(!memcmp(&res, &init, sizeof res),                           \
                                  "%s %s: fetched " FMT " but the old value was " FMT,        \
                                  #DT, names[oi], CONV(res), CONV(init));                     \
                    gex_AD_OpNBI_##DT(ad, &got, peer, tgt, GEX_OP_GET, (T)0, (T)0, 0);        \
                    gex_NBI_Wait(GEX_EC_GET, 0);                                              \
                    RVT_CHECK(!memcmp(&got, &want, sizeof got),                               \
                              "%s %s(old " FMT ", op1 " FMT ", op2 " FMT "): got " FMT        \
                              ", expected " FMT, #DT, names[oi], CONV(init), CONV(a),         \
                              CONV(b), CONV(got), CONV(want));                                \
                    nchecks++;                                                                \
                }                                                                             \
        }                                                                                     \
        gex_AD_Destroy(ad);                                                                   \
    }

#define REF_BITS                                                                              \
    case GEX_OP_AND: case GEX_OP_FAND: return old & a;                                        \
    case GEX_OP_OR: case GEX_OP_FOR: return old | a;                                          \
    case GEX_OP_XOR: case GEX_OP_FXOR: return old ^ a;

#define LL(x) ((long long)(x))
#define ULL(x) ((unsigned long long)(x))
#define DBLV(x) ((double)(x))

DEFINE_TYPE(I32, int32_t, uint32_t, int_ops, int_names, REF_BITS, "%lld", LL,
            0, 1, -1, INT32_MIN, INT32_MAX, 12345, -77, 0x5a5a5a5a)
DEFINE_TYPE(U32, uint32_t, uint32_t, int_ops, int_names, REF_BITS, "%llu", ULL,
            0, 1, UINT32_MAX, 0x80000000u, 0x7fffffffu, 12345, 0xdeadbeefu)
DEFINE_TYPE(I64, int64_t, uint64_t, int_ops, int_names, REF_BITS, "%lld", LL,
            0, 1, -1, INT64_MIN, INT64_MAX, 1234567890123ll, -77, 0x5a5a5a5a5a5a5a5all)
DEFINE_TYPE(U64, uint64_t, uint64_t, int_ops, int_names, REF_BITS, "%llu", ULL,
            0, 1, UINT64_MAX, 0x8000000000000000ull, 0x7fffffffffffffffull, 12345,
            0xdeadbeefcafef00dull)
DEFINE_TYPE(FLT, float, float, fp_ops, fp_names, , "%g", DBLV,
            0.0f, 1.0f, -1.5f, 3.25f, -1e30f, FLT_MAX, 0.125f)
DEFINE_TYPE(DBL, double, double, fp_ops, fp_names, , "%g", DBLV,
            0.0, 1.0, -1.5, 3.25, -1e300, DBL_MAX, 0.125)

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    quick = argc > 1 && !strcmp(argv[1], "quick");
    test_I32();
    test_U32();
    test_I64();
    test_U64();
    test_FLT();
    test_DBL();
    if (rvt_me == 0) printf("ratomic_ops: %ld checks on rank 0\n", nchecks);
    return rvt_done("ratomic_ops");
}
