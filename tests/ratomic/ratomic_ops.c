/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/ratomic/ratomic_ops.c: every op on every type, against a reference computed locally:
 * wraparound, signed MIN/MAX, float ops (signed zeros, NaN), CAS success and failure, FCAS's
 * old value; fetching and non-fetching forms (result_p left alone); NB and NBI, many in flight,
 * each synced by its own completion category (SET as PUT, GET as GET, the rest as RMW); ACQ/REL
 * and IMMEDIATE; domain queries. The opcode comes as a run-time value, or (every other group
 * of 16 words) as a literal at the call, which gasnet_ratomic.h's inline path turns into its
 * own code per op. Each rank works on words in the segment of the next rank (only it touches
 * them). */
#include "rv_test.h"
#include <gasnet_ratomic.h>
#include <float.h>
#include <math.h>

#define INT_OPS(X, D)                                                                         \
    X(D, ADD) X(D, FADD) X(D, SUB) X(D, FSUB) X(D, MULT) X(D, FMULT) X(D, MIN) X(D, FMIN)     \
    X(D, MAX) X(D, FMAX) X(D, INC) X(D, FINC) X(D, DEC) X(D, FDEC) X(D, AND) X(D, FAND)       \
    X(D, OR) X(D, FOR) X(D, XOR) X(D, FXOR) X(D, SET) X(D, GET) X(D, SWAP) X(D, CAS)          \
    X(D, FCAS)
#define FP_OPS(X, D)                                                                          \
    X(D, ADD) X(D, FADD) X(D, SUB) X(D, FSUB) X(D, MULT) X(D, FMULT) X(D, MIN) X(D, FMIN)     \
    X(D, MAX) X(D, FMAX) X(D, INC) X(D, FINC) X(D, DEC) X(D, FDEC) X(D, SET) X(D, GET)        \
    X(D, SWAP) X(D, CAS) X(D, FCAS)

static const gex_OP_t fetching = GEX_OP_FADD | GEX_OP_FSUB | GEX_OP_FMULT | GEX_OP_FMIN |
                                 GEX_OP_FMAX | GEX_OP_FINC | GEX_OP_FDEC | GEX_OP_FAND |
                                 GEX_OP_FOR | GEX_OP_FXOR | GEX_OP_SWAP | GEX_OP_FCAS | GEX_OP_GET;

static long nchecks;

/* The reference: new value at the target after op, computed on the unsigned type (UT) so
 * integer wraparound is defined; comparisons on the client type T. */
#define REF_COMMON(T, UT)                                                                     \
    case GEX_OP_ADD: case GEX_OP_FADD: return (T)((UT)old + (UT)a);                           \
    case GEX_OP_SUB: case GEX_OP_FSUB: return (T)((UT)old - (UT)a);                           \
    case GEX_OP_MULT: case GEX_OP_FMULT: return (T)((UT)old * (UT)a);                         \
    case GEX_OP_MIN: case GEX_OP_FMIN: return old < a ? old : a; /* the spec's expressions */ \
    case GEX_OP_MAX: case GEX_OP_FMAX: return old > a ? old : a;                              \
    case GEX_OP_INC: case GEX_OP_FINC: return (T)((UT)old + (UT)1);                           \
    case GEX_OP_DEC: case GEX_OP_FDEC: return (T)((UT)old - (UT)1);                           \
    case GEX_OP_SET: case GEX_OP_SWAP: return a;                                              \
    case GEX_OP_GET: return old;                                                              \
    case GEX_OP_CAS: case GEX_OP_FCAS: return !memcmp(&old, &a, sizeof old) ? b : old;

#define X(D, o) GEX_OP_##o,
static const gex_OP_t int_ops[] = {INT_OPS(X, _) 0};
static const gex_OP_t fp_ops[] = {FP_OPS(X, _) 0};
#undef X
#define X(D, o) #o,
static const char *const int_names[] = {INT_OPS(X, _) NULL};
static const char *const fp_names[] = {FP_OPS(X, _) NULL};
#undef X

/* One case of opc_<DT>: the call with the opcode as a literal. */
#define OPC_CASE(DT, o)                                                                       \
    case GEX_OP_##o:                                                                          \
        if (!nbi) return gex_AD_OpNB_##DT(ad, rp, peer, p, GEX_OP_##o, a, b, fl);             \
        return gex_AD_OpNBI_##DT(ad, rp, peer, p, GEX_OP_##o, a, b, fl) ? GEX_EVENT_NO_OP     \
                                                                        : GEX_EVENT_INVALID;

static size_t nops(const gex_OP_t *ops)
{
    size_t n = 0;
    while (ops[n]) n++;
    return n;
}

static gex_EC_t ec_of(gex_OP_t op)
{
    return op == GEX_OP_SET ? GEX_EC_PUT : op == GEX_OP_GET ? GEX_EC_GET : GEX_EC_RMW;
}

#define NK 64 /* words per op: every (initial value, operand) pair, all in flight at once */

/* For one op: SET every word to its initial value (NBI, synced with GEX_EC_PUT), apply op to
 * every word at once (a mix of NB and NBI, synced with the op's own category and WaitAll),
 * GET every word back (NBI, GEX_EC_GET), and compare with the local reference. */
#define DEFINE_TYPE(DT, T, UT, OPSX, OPSA, NAMESA, REF_EXTRA, FMT, CONV, ...)                 \
    /* op as a literal at the call; NBI's non-zero (no room) as GEX_EVENT_NO_OP */             \
    static gex_Event_t opc_##DT(int nbi, gex_AD_t ad, T *rp, gex_Rank_t peer, T *p,           \
                                gex_OP_t op, T a, T b, gex_Flags_t fl)                        \
    {                                                                                         \
        switch (op) {                                                                         \
            OPSX(OPC_CASE, DT)                                                                \
        default: RVT_FAIL("no literal call for op 0x%x", (unsigned)op);                       \
        }                                                                                     \
    }                                                                                         \
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
        const size_t nv = sizeof vals / sizeof vals[0];                                       \
        static T init[NK], op1[NK], op2[NK], res[NK], got[NK], want[NK];                      \
        static gex_Event_t ev[NK];                                                            \
        T junk;                                                                               \
        memset(&junk, 0xa5, sizeof junk);                                                     \
        const gex_OP_t *ops = OPSA;                                                           \
        const char *const *names = NAMESA;                                                    \
        gex_OP_t all = 0;                                                                     \
        for (size_t i = 0; i < nops(ops); i++) all |= ops[i];                                 \
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
        size_t nk = nv * nv < NK ? nv * nv : NK;                                              \
        for (size_t oi = 0; oi < nops(ops); oi++) {                                           \
            gex_OP_t op = ops[oi];                                                            \
            int fetch = (op & fetching) != 0;                                                 \
            for (size_t k = 0; k < nk; k++) {                                                 \
                size_t i = k / nv, j = k % nv;                                                \
                init[k] = vals[i];                                                            \
                op1[k] = vals[j];                                                             \
                op2[k] = vals[(i + j + 1) % nv];                                              \
                /* CAS: half the time a matching compare value (success) */                   \
                if ((op == GEX_OP_CAS || op == GEX_OP_FCAS) && (k & 1)) op1[k] = init[k];     \
                want[k] = ref_##DT(op, init[k], op1[k], op2[k]);                              \
                memset(&res[k], 0xa5, sizeof res[k]);                                         \
                RVT_CHECK(gex_AD_OpNBI_##DT(ad, NULL, peer, &tgt[k], GEX_OP_SET, init[k],     \
                                            (T)0, 0) == 0, "NBI SET returned non-zero");      \
            }                                                                                 \
            gex_NBI_Wait(GEX_EC_PUT, 0);                                                      \
            for (size_t k = 0; k < nk; k++) {                                                 \
                /* non-fetching: result_p is ignored (NULL, or a location left alone) */      \
                T *rp = (fetch || (k & 8)) ? &res[k] : NULL;                                  \
                gex_Flags_t fl = (k & 4) ? GEX_FLAG_AD_ACQ | GEX_FLAG_AD_REL : 0;             \
                if (k % 5 == 0) fl |= GEX_FLAG_IMMEDIATE; /* retried until accepted */        \
                ev[k] = GEX_EVENT_INVALID;                                                    \
                if (k & 16) { /* literal opcode */                                            \
                    gex_Event_t e;                                                            \
                    while ((e = opc_##DT((k & 2) != 0, ad, rp, peer, &tgt[k], op, op1[k],     \
                                         op2[k], fl)) == GEX_EVENT_NO_OP) {                   \
                        RVT_CHECK(fl & GEX_FLAG_IMMEDIATE, "literal op: no room");            \
                        gasnet_AMPoll();                                                      \
                    }                                                                         \
                    if (!(k & 2)) ev[k] = e;                                                  \
                } else if (k & 2) {                                                           \
                    while (gex_AD_OpNBI_##DT(ad, rp, peer, &tgt[k], op, op1[k], op2[k], fl)) { \
                        RVT_CHECK(fl & GEX_FLAG_IMMEDIATE, "NBI returned non-zero");          \
                        gasnet_AMPoll();                                                      \
                    }                                                                         \
                } else {                                                                      \
                    while ((ev[k] = gex_AD_OpNB_##DT(ad, rp, peer, &tgt[k], op, op1[k],       \
                                                     op2[k], fl)) == GEX_EVENT_NO_OP) {       \
                        RVT_CHECK(fl & GEX_FLAG_IMMEDIATE, "NB returned GEX_EVENT_NO_OP");    \
                        gasnet_AMPoll();                                                      \
                    }                                                                         \
                }                                                                             \
            }                                                                                 \
            gex_NBI_Wait(ec_of(op), 0);                                                       \
            gex_Event_WaitAll(ev, nk, 0);                                                     \
            for (size_t k = 0; k < nk; k++)                                                   \
                gex_AD_OpNBI_##DT(ad, &got[k], peer, &tgt[k], GEX_OP_GET, (T)0, (T)0, 0);     \
            gex_NBI_Wait(GEX_EC_GET, 0);                                                      \
            for (size_t k = 0; k < nk; k++) {                                                 \
                if (fetch)                                                                    \
                    RVT_CHECK(!memcmp(&res[k], &init[k], sizeof res[k]),                      \
                              "%s %s: fetched " FMT " but the old value was " FMT, #DT,       \
                              names[oi], CONV(res[k]), CONV(init[k]));                        \
                else                                                                          \
                    RVT_CHECK(!memcmp(&res[k], &junk, sizeof res[k]),                         \
                              "%s %s: non-fetching op wrote to result_p", #DT, names[oi]);    \
                RVT_CHECK(!memcmp(&got[k], &want[k], sizeof got[k]),                          \
                          "%s %s(old " FMT ", op1 " FMT ", op2 " FMT "): got " FMT            \
                          ", expected " FMT, #DT, names[oi], CONV(init[k]), CONV(op1[k]),     \
                          CONV(op2[k]), CONV(got[k]), CONV(want[k]));                         \
                nchecks++;                                                                    \
            }                                                                                 \
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

DEFINE_TYPE(I32, int32_t, uint32_t, INT_OPS, int_ops, int_names, REF_BITS, "%lld", LL,
            0, 1, -1, INT32_MIN, INT32_MAX, 12345, -77, 0x5a5a5a5a)
DEFINE_TYPE(U32, uint32_t, uint32_t, INT_OPS, int_ops, int_names, REF_BITS, "%llu", ULL,
            0, 1, UINT32_MAX, 0x80000000u, 0x7fffffffu, 12345, 0xdeadbeefu)
DEFINE_TYPE(I64, int64_t, uint64_t, INT_OPS, int_ops, int_names, REF_BITS, "%lld", LL,
            0, 1, -1, INT64_MIN, INT64_MAX, 1234567890123ll, -77, 0x5a5a5a5a5a5a5a5all)
DEFINE_TYPE(U64, uint64_t, uint64_t, INT_OPS, int_ops, int_names, REF_BITS, "%llu", ULL,
            0, 1, UINT64_MAX, 0x8000000000000000ull, 0x7fffffffffffffffull, 12345,
            0xdeadbeefcafef00dull)
/* floats: signed zeros and a quiet NaN too; results compare bit for bit */
DEFINE_TYPE(FLT, float, float, FP_OPS, fp_ops, fp_names, , "%g", DBLV,
            0.0f, 1.0f, -1.5f, 3.25f, -1e30f, FLT_MAX, -0.0f, NAN)
DEFINE_TYPE(DBL, double, double, FP_OPS, fp_ops, fp_names, , "%g", DBLV,
            0.0, 1.0, -1.5, 3.25, -1e300, DBL_MAX, -0.0, NAN)

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 4096);
    test_I32();
    test_U32();
    test_I64();
    test_U64();
    test_FLT();
    test_DBL();
    if (rvt_me == 0) printf("ratomic_ops: %ld checks on rank 0\n", nchecks);
    return rvt_done("ratomic_ops");
}
