/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/coll/coll_reduce.c: ReduceToOne (every root) and ReduceToAll for every
 * GEX_DT_* and every allowed GEX_OP_*, checked against a local computation;
 * GEX_OP_USER on GEX_DT_USER and a non-commutative GEX_OP_USER_NC (whose result
 * must be exactly x0 OP x1 OP ... in rank order, also through the large algorithm). */
#include "rv_test.h"
#include "coll_aff.h"
#include <gasnet_coll.h>

#define CNT_MAX 12000 /* 48 KB of I32, 96 KB of doubles: above RIVET_COLL_LARGE, several chunks */

/* Each rank's value for element i: small, so sums and products stay exact. */
static int64_t val(gex_Rank_t r, size_t i) { return (int64_t)((r * 7 + i * 3) % 5) - 1 + (i % 2 ? 0 : 3) * (int64_t)(r % 2); }

#define CHECK_TYPE(T, DT, ISINT)                                                            \
    do {                                                                                    \
        static const gex_OP_t iops[] = { GEX_OP_ADD, GEX_OP_MULT, GEX_OP_MIN, GEX_OP_MAX,     \
                                         GEX_OP_AND, GEX_OP_OR, GEX_OP_XOR };               \
        T *src = malloc(CNT_MAX * sizeof(T)), *dst = malloc(CNT_MAX * sizeof(T));           \
        size_t nops = (ISINT) ? 7 : 4;                                                      \
        for (size_t oi = 0; oi < nops; oi++) {                                              \
            gex_OP_t op = iops[oi];                                                         \
            for (size_t ci = 0; ci < 3; ci++) {                                             \
                size_t cnt = ci == 0 ? 1 : ci == 1 ? 7 : CNT_MAX;                           \
                for (size_t i = 0; i < cnt; i++) src[i] = (T)val(rvt_me, i);                \
                for (int mode = 0; mode <= (int)rvt_n; mode++) { /* n: all; else root */     \
                    memset(dst, 0, cnt * sizeof(T));                                        \
                    if (mode == (int)rvt_n)                                                 \
                        gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, dst, src, DT, sizeof(T), \
                                                              cnt, op, NULL, NULL, 0));     \
                    else                                                                    \
                        gex_Event_Wait(gex_Coll_ReduceToOneNB(rvt_tm, (gex_Rank_t)mode, dst, src, \
                                                              DT, sizeof(T), cnt, op, NULL, \
                                                              NULL, 0));                    \
                    if (mode != (int)rvt_n && (gex_Rank_t)mode != rvt_me) continue;         \
                    for (size_t i = 0; i < cnt; i++) {                                      \
                        T e = (T)val(0, i);                                                 \
                        for (gex_Rank_t r = 1; r < rvt_n; r++) {                            \
                            T v = (T)val(r, i);                                             \
                            e = RED(T, op, e, v);                                           \
                        }                                                                   \
                        RVT_CHECK(dst[i] == e, "%s op 0x%x cnt %zu mode %d elem %zu: got %g want %g", \
                                  #DT, (unsigned)op, cnt, mode, i, (double)dst[i], (double)e); \
                    }                                                                       \
                }                                                                           \
            }                                                                               \
        }                                                                                   \
        free(src);                                                                          \
        free(dst);                                                                          \
    } while (0)

#define RED(T, op, a, b)                                                                    \
    ((op) == GEX_OP_ADD ? (T)((a) + (b)) : (op) == GEX_OP_MULT ? (T)((a) * (b))             \
     : (op) == GEX_OP_MIN ? ((a) < (b) ? (a) : (b)) : (op) == GEX_OP_MAX ? ((a) > (b) ? (a) : (b)) \
     : BITOP(T, op, a, b))

#define BITOP(T, op, a, b) bitop_##T(op, a, b)
#define DEFBIT(T)                                                                           \
    static T bitop_##T(gex_OP_t op, T a, T b)                                               \
    {                                                                                       \
        return op == GEX_OP_AND ? (a & b) : op == GEX_OP_OR ? (a | b) : (a ^ b);            \
    }
DEFBIT(int32_t)
DEFBIT(uint32_t)
DEFBIT(int64_t)
DEFBIT(uint64_t)
static float bitop_float(gex_OP_t op, float a, float b) { (void)op, (void)b; return a; }
static double bitop_double(gex_OP_t op, double a, double b) { (void)op, (void)b; return a; }

/* GEX_DT_USER, commutative: a 24-byte struct, summed field by field (cdata: scale check). */
typedef struct { int64_t a; double b; int32_t c, pad; } trio_t;
static int user_calls;
static void trio_sum(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    const trio_t *x = arg1;
    trio_t *y = arg2_and_out;
    if (*(const int *)cdata != 42) abort();
    for (size_t i = 0; i < count; i++) {
        y[i].a += x[i].a;
        y[i].b += x[i].b;
        y[i].c = x[i].c > y[i].c ? x[i].c : y[i].c;
    }
    user_calls++;
}

/* Non-commutative but associative: aff_compose (coll_aff.h). */
static aff_t aff_of(gex_Rank_t r, size_t i) { return (aff_t){ 3 + 2 * r + i, 11 * r + i + 5 }; }

static void dbl_max(const void *arg1, void *arg2_and_out, size_t count, const void *cdata)
{
    (void)cdata;
    const double *x = arg1;
    double *y = arg2_and_out;
    for (size_t i = 0; i < count; i++) if (x[i] > y[i]) y[i] = x[i];
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    CHECK_TYPE(int32_t, GEX_DT_I32, 1);
    CHECK_TYPE(uint32_t, GEX_DT_U32, 1);
    CHECK_TYPE(int64_t, GEX_DT_I64, 1);
    CHECK_TYPE(uint64_t, GEX_DT_U64, 1);
    CHECK_TYPE(float, GEX_DT_FLT, 0);
    CHECK_TYPE(double, GEX_DT_DBL, 0);

    /* GEX_OP_USER on GEX_DT_USER */
    int cd = 42;
    for (size_t cnt = 1; cnt <= 3000; cnt *= 50) {
        trio_t *s = malloc(cnt * sizeof *s), *d = calloc(cnt, sizeof *d);
        for (size_t i = 0; i < cnt; i++) s[i] = (trio_t){ (int64_t)(rvt_me + i), 0.5 * rvt_me, (int32_t)(rvt_me ^ i), 0 };
        for (gex_Rank_t root = 0; root <= rvt_n; root++) {
            memset(d, 0, cnt * sizeof *d);
            if (root == rvt_n)
                gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, d, s, GEX_DT_USER, sizeof(trio_t), cnt,
                                                      GEX_OP_USER, trio_sum, &cd, 0));
            else
                gex_Event_Wait(gex_Coll_ReduceToOneNB(rvt_tm, root, d, s, GEX_DT_USER, sizeof(trio_t),
                                                      cnt, GEX_OP_USER, trio_sum, &cd, 0));
            if (root != rvt_n && root != rvt_me) continue;
            for (size_t i = 0; i < cnt; i++) {
                int64_t ea = 0; double eb = 0; int32_t ec = 0;
                for (gex_Rank_t r = 0; r < rvt_n; r++) {
                    ea += (int64_t)(r + i); eb += 0.5 * r;
                    if ((int32_t)(r ^ i) > ec) ec = (int32_t)(r ^ i);
                }
                RVT_CHECK(d[i].a == ea && d[i].b == eb && d[i].c == ec, "user op elem %zu", i);
            }
        }
        free(s);
        free(d);
    }
    RVT_CHECK(rvt_n == 1 || rvt_me != 0 || user_calls > 0, "user op never called");

    /* GEX_OP_USER_NC: order matters */
    for (size_t cnt = 1; cnt <= 8000; cnt *= 20) { /* up to 128 KB: the large algorithm too */
        aff_t *s = malloc(cnt * sizeof *s), *d = calloc(cnt, sizeof *d);
        for (size_t i = 0; i < cnt; i++) s[i] = aff_of(rvt_me, i);
        for (gex_Rank_t root = 0; root <= rvt_n; root++) {
            if (root == rvt_n)
                gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, d, s, GEX_DT_USER, sizeof(aff_t), cnt,
                                                      GEX_OP_USER_NC, aff_compose, NULL, 0));
            else
                gex_Event_Wait(gex_Coll_ReduceToOneNB(rvt_tm, root, d, s, GEX_DT_USER, sizeof(aff_t),
                                                      cnt, GEX_OP_USER_NC, aff_compose, NULL, 0));
            if (root != rvt_n && root != rvt_me) continue;
            for (size_t i = 0; i < cnt; i++) {
                aff_t e = aff_of(0, i);
                for (gex_Rank_t r = 1; r < rvt_n; r++) {
                    aff_t y = aff_of(r, i);
                    aff_compose(&e, &y, 1, NULL);
                    e = y;
                }
                RVT_CHECK(d[i].m == e.m && d[i].c == e.c, "USER_NC elem %zu root %u", i, root);
            }
        }
        free(s);
        free(d);
    }
    /* in place: src == dst on every rank (ReduceToAll) or on the root (ReduceToOne) */
    for (size_t cnt = 3; cnt <= CNT_MAX; cnt *= 4000) {
        int64_t *v = malloc(cnt * sizeof *v);
        for (gex_Rank_t root = 0; root <= rvt_n; root++) {
            for (size_t i = 0; i < cnt; i++) v[i] = (int64_t)(rvt_me * 3 + i);
            if (root == rvt_n)
                gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, v, v, GEX_DT_I64, 8, cnt, GEX_OP_ADD,
                                                      NULL, NULL, 0));
            else
                gex_Event_Wait(gex_Coll_ReduceToOneNB(rvt_tm, root, rvt_me == root ? v : NULL, v,
                                                      GEX_DT_I64, 8, cnt, GEX_OP_ADD, NULL, NULL, 0));
            if (root != rvt_n && root != rvt_me) continue;
            for (size_t i = 0; i < cnt; i++) {
                int64_t e = 0;
                for (gex_Rank_t r = 0; r < rvt_n; r++) e += (int64_t)(r * 3 + i);
                RVT_CHECK(v[i] == e, "in-place cnt %zu root %u elem %zu: %lld want %lld", cnt, root,
                          i, (long long)v[i], (long long)e);
            }
        }
        free(v);
    }
    /* built-in type with a user op */
    {
        double s = rvt_me + 1.0, d = 0;
        gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, &d, &s, GEX_DT_DBL, sizeof(double), 1,
                                              GEX_OP_USER, dbl_max, NULL, 0));
        RVT_CHECK(d == (double)rvt_n, "user max on DBL: %g", d);
    }
    return rvt_done("coll_reduce");
}
