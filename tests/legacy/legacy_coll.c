/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_coll.c: the GASNet-1 collectives of gasnet_coll.h (GASNet's testcoll
 * and testcollperf use them): broadcast, scatter, gather, gather_all and exchange, for
 * every root, every IN_x/OUT_y sync flag pair, blocking and _nb (wait_sync, a try_sync loop,
 * several in flight with wait_sync_all / try_sync_some), data in the segment or not, two
 * sizes (the second takes the direct gather and, at 3+ ranks with RIVET_COLL_LARGE
 * small, the scatter + allgather broadcast). The sync flags are checked for what they
 * promise: under IN_ALLSYNC a rank's source is written by another rank (a put) just
 * before that rank calls; under OUT_ALLSYNC a rank reads another rank's result (a get)
 * as soon as its own call returns. Also the team barrier and the autotuning no-ops. */
#include <gasnet.h>
#include <gasnet_coll.h>
#include "rv_test.h"

#define MAXB 9216 /* bytes per block, at most */
#define K 3       /* collectives in flight at once (_nb forms) */
#define AREA ((size_t)4 * MAXB) /* src or dst of one collective: up to 4 blocks */
#define SEGSZ (2 * K * AREA + 65536)

enum { BCAST, SCATTER, GATHER, GATHER_ALL, EXCHANGE, NOPS };
static const char *const opname[NOPS] = { "broadcast", "scatter", "gather", "gather_all",
                                          "exchange" };
enum { BLOCKING, NB_WAIT, NB_TRY, NB_MANY, NFORMS };

static gasnet_node_t me, n, pred, succ;
static gasnet_seginfo_t *si;
static unsigned char *heap;

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

static uint8_t pat(unsigned seed, unsigned from, unsigned to, size_t i)
{
    return (uint8_t)(seed * 31u + from * 7u + to * 13u + i * 3u + 1u);
}

/* Bytes of src and dst on rank r. */
static size_t src_bytes(int op, gasnet_node_t r, gasnet_node_t root, size_t nb)
{
    switch (op) {
    case BCAST: return r == root ? nb : 0;
    case SCATTER: return r == root ? n * nb : 0;
    case EXCHANGE: return n * nb;
    default: return nb;
    }
}
static size_t dst_bytes(int op, gasnet_node_t r, gasnet_node_t root, size_t nb)
{
    switch (op) {
    case GATHER: return r == root ? n * nb : 0;
    case BCAST: case SCATTER: return nb;
    default: return n * nb;
    }
}

/* What rank r's src holds, and what its dst must hold afterwards. */
static void src_fill(unsigned char *b, int op, unsigned seed, gasnet_node_t r, gasnet_node_t root,
                     size_t nb)
{
    for (size_t i = 0; i < src_bytes(op, r, root, nb); i++) {
        size_t j = i / nb, o = i % nb;
        switch (op) {
        case BCAST: b[i] = pat(seed, root, 0, o); break;
        case SCATTER: b[i] = pat(seed, root, (unsigned)j, o); break;
        case GATHER: b[i] = pat(seed, r, root, o); break;
        case GATHER_ALL: b[i] = pat(seed, r, 0, o); break;
        case EXCHANGE: b[i] = pat(seed, r, (unsigned)j, o); break;
        }
    }
}
static uint8_t dst_want(int op, unsigned seed, gasnet_node_t r, gasnet_node_t root, size_t nb,
                        size_t i)
{
    size_t j = i / nb, o = i % nb;
    switch (op) {
    case BCAST: return pat(seed, root, 0, o);
    case SCATTER: return pat(seed, root, r, o);
    case GATHER: return pat(seed, (unsigned)j, root, o);
    case GATHER_ALL: return pat(seed, (unsigned)j, 0, o);
    default: return pat(seed, (unsigned)j, r, o);
    }
}

static void check_dst(const unsigned char *got, int op, unsigned seed, gasnet_node_t r,
                      gasnet_node_t root, size_t nb, const char *how, int flags)
{
    for (size_t i = 0; i < dst_bytes(op, r, root, nb); i++)
        RVT_CHECK(got[i] == dst_want(op, seed, r, root, nb, i),
                  "%s (%s, flags 0x%x, root %u, nbytes %zu): rank %u's dst byte %zu is 0x%02x, "
                  "expected 0x%02x", opname[op], how, (unsigned)flags, root, nb, r, i, got[i],
                  dst_want(op, seed, r, root, nb, i));
}

/* Where collective k keeps its src and dst on rank r (in the segment or in the heap). */
static unsigned char *src_at(int inseg, gasnet_node_t r, int k)
{
    return (inseg ? (unsigned char *)si[r].addr : heap) + (size_t)k * 2 * AREA;
}
static unsigned char *dst_at(int inseg, gasnet_node_t r, int k)
{
    return src_at(inseg, r, k) + AREA;
}

static gasnet_coll_handle_t start(int op, int k, int inseg, gasnet_node_t root, size_t nb, int flags)
{
    unsigned char *src = src_at(inseg, me, k), *dst = dst_at(inseg, me, k);
    switch (op) {
    case BCAST:
        return gasnet_coll_broadcast_nb(GASNET_TEAM_ALL, dst, root, me == root ? src : NULL, nb, flags);
    case SCATTER:
        return gasnet_coll_scatter_nb(GASNET_TEAM_ALL, dst, root, me == root ? src : NULL, nb, flags);
    case GATHER:
        return gasnet_coll_gather_nb(GASNET_TEAM_ALL, root, me == root ? dst : NULL, src, nb, flags);
    case GATHER_ALL: return gasnet_coll_gather_all_nb(GASNET_TEAM_ALL, dst, src, nb, flags);
    default: return gasnet_coll_exchange_nb(GASNET_TEAM_ALL, dst, src, nb, flags);
    }
}

static void blocking(int op, int inseg, gasnet_node_t root, size_t nb, int flags)
{
    unsigned char *src = src_at(inseg, me, 0), *dst = dst_at(inseg, me, 0);
    switch (op) {
    case BCAST:
        gasnet_coll_broadcast(GASNET_TEAM_ALL, dst, root, me == root ? src : NULL, nb, flags);
        break;
    case SCATTER:
        gasnet_coll_scatter(GASNET_TEAM_ALL, dst, root, me == root ? src : NULL, nb, flags);
        break;
    case GATHER:
        gasnet_coll_gather(GASNET_TEAM_ALL, root, me == root ? dst : NULL, src, nb, flags);
        break;
    case GATHER_ALL: gasnet_coll_gather_all(GASNET_TEAM_ALL, dst, src, nb, flags); break;
    default: gasnet_coll_exchange(GASNET_TEAM_ALL, dst, src, nb, flags); break;
    }
}

static unsigned long ncalls;

/* One round: set up, call (in 'form'), check, per the sync flags. */
static void round_(int op, int form, int in, int out, gasnet_node_t root, size_t nb, unsigned seed,
                   int addr)
{
    static const int ins[] = { GASNET_COLL_IN_NOSYNC, GASNET_COLL_IN_MYSYNC, GASNET_COLL_IN_ALLSYNC };
    static const int outs[] = { GASNET_COLL_OUT_NOSYNC, GASNET_COLL_OUT_MYSYNC,
                                GASNET_COLL_OUT_ALLSYNC };
    static const char *const forms[] = { "blocking", "_nb + wait_sync", "_nb + try_sync loop",
                                         "3 x _nb + wait_sync_all" };
    /* remote set-up and remote checks need the segment; otherwise alternate */
    int inseg = in == 2 || out == 2 || (seed & 1);
    int flags = ins[in] | outs[out] | addr |
                (inseg ? GASNET_COLL_SRC_IN_SEGMENT | GASNET_COLL_DST_IN_SEGMENT : 0);
    int nk = form == NB_MANY ? K : 1;
    static unsigned char tmp[AREA];
    for (int k = 0; k < nk; k++) {
        memset(dst_at(inseg, me, k), 0xee, AREA);
        if (in == 2) {
            /* my predecessor's source is mine to write, just before it calls */
            src_fill(tmp, op, seed + (unsigned)k, pred, root, nb);
            if (src_bytes(op, pred, root, nb))
                gasnet_put(pred, src_at(1, pred, k), tmp, src_bytes(op, pred, root, nb));
        } else {
            src_fill(src_at(inseg, me, k), op, seed + (unsigned)k, me, root, nb);
        }
    }
    /* NOSYNC: the client makes all data ready before anyone calls. ALLSYNC: no barrier, my
     * predecessor may call before my put: it must not read its source before I called. */
    if (in == 0) barrier();
    if (form == BLOCKING) {
        blocking(op, inseg, root, nb, flags);
    } else if (form == NB_WAIT) {
        gasnet_coll_wait_sync(start(op, 0, inseg, root, nb, flags));
    } else if (form == NB_TRY) {
        gasnet_coll_handle_t h = start(op, 0, inseg, root, nb, flags);
        while (gasnet_coll_try_sync(h) != GASNET_OK) continue;
    } else {
        gasnet_coll_handle_t h[K];
        for (int k = 0; k < K; k++) h[k] = start(op, k, inseg, root, nb, flags);
        if (seed & 2) {
            gasnet_coll_wait_sync_all(h, K);
        } else { /* try_sync_some until every handle is GASNET_COLL_INVALID_HANDLE */
            for (;;) {
                int left = 0;
                for (int k = 0; k < K; k++) left += h[k] != GASNET_COLL_INVALID_HANDLE;
                if (!left) break;
                (void)gasnet_coll_try_sync_some(h, K);
            }
        }
    }
    ncalls += (unsigned long)nk;
    if (out == 0) barrier(); /* NOSYNC: done everywhere only after a barrier */
    for (int k = 0; k < nk; k++) {
        if (out == 2) {
            /* OUT_ALLSYNC: every rank's result is complete, my predecessor's too */
            size_t db = dst_bytes(op, pred, root, nb);
            if (db) gasnet_get(tmp, pred, dst_at(1, pred, k), db);
            check_dst(tmp, op, seed + (unsigned)k, pred, root, nb, forms[form], flags);
        } else {
            check_dst(dst_at(inseg, me, k), op, seed + (unsigned)k, me, root, nb, forms[form], flags);
        }
    }
    barrier(); /* before the next round reuses the buffers */
}

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    n = gasnet_nodes();
    rvt_me = me;
    pred = (me + n - 1) % n;
    succ = (me + 1) % n;
    (void)succ;
    RVT_OK(gasnet_attach(NULL, 0, (SEGSZ + GASNET_PAGESIZE - 1) / GASNET_PAGESIZE * GASNET_PAGESIZE,
                         GASNET_PAGESIZE));
    si = calloc(n, sizeof *si);
    heap = malloc(2 * K * AREA);
    RVT_CHECK(si && heap, "out of memory");
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));

    /* GASNet-EX has no gasnet_coll_init: the collectives work without it */
    const size_t sizes[] = { 4, 9000 };
    unsigned seed = 1;
    for (int op = 0; op < NOPS; op++)
        for (int in = 0; in < 3; in++)
            for (int out = 0; out < 3; out++)
                for (gasnet_node_t root = 0; root < n; root++)
                    for (int form = 0; form < NFORMS; form++)
                        for (int s = 0; s < 2; s++) {
                            /* GASNET_COLL_SINGLE (older GASNet-1) now and then: same result */
                            int addr = (seed % 7 == 3) ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL;
                            round_(op, form, in, out, root, sizes[s], seed, addr);
                            seed += 5;
                        }

    /* zero bytes: only the synchronization */
    gasnet_coll_broadcast(GASNET_TEAM_ALL, NULL, 0, NULL, 0,
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
    gasnet_coll_exchange(GASNET_TEAM_ALL, NULL, NULL, 0,
                         GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);

    /* many in flight, IN_ALLSYNC and OUT_ALLSYNC mixed with MYSYNC, every root, completed in
     * reverse order (over shared memory the synchronizing ones use the sync lines, whose
     * OUT_ALLSYNC count must keep the order they were started in) */
    {
        enum { M = 96 };
        static int64_t bsrc[M], bdst[M];
        gasnet_coll_handle_t h[M];
        for (int rep = 0; rep < 3; rep++) {
            for (int i = 0; i < M; i++) {
                bsrc[i] = (int64_t)me * 1000 + i + rep;
                bdst[i] = -1;
                int fl = GASNET_COLL_LOCAL | (i % 2 ? GASNET_COLL_IN_ALLSYNC : GASNET_COLL_IN_MYSYNC) |
                         (i % 3 ? GASNET_COLL_OUT_ALLSYNC : GASNET_COLL_OUT_MYSYNC);
                h[i] = gasnet_coll_broadcast_nb(GASNET_TEAM_ALL, &bdst[i], (gasnet_image_t)(i % n),
                                                &bsrc[i], sizeof bsrc[i], fl);
            }
            for (int i = M - 1; i >= 0; i--) gasnet_coll_wait_sync(h[i]);
            for (int i = 0; i < M; i++)
                RVT_CHECK(bdst[i] == (int64_t)(i % n) * 1000 + i + rep, "broadcast_nb %d: %lld", i,
                          (long long)bdst[i]);
        }
    }

    /* GASNet-1's gasnet_coll_init is still accepted (once, collectively) */
    gasnet_coll_init(NULL, 0, NULL, 0, 0);

    /* the team barrier over GASNET_TEAM_ALL: named, anonymous, split and try forms */
    for (int i = 0; i < 4; i++) {
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 100 + i, 0);
        RVT_OK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, 100 + i, 0));
        int id = -1;
        RVT_OK(gasnet_coll_barrier_result(GASNET_TEAM_ALL, &id));
        RVT_CHECK(id == 100 + i, "gasnet_coll_barrier_result gave id %d, expected %d", id, 100 + i);
    }
    RVT_OK(gasnet_coll_barrier(GASNET_TEAM_ALL, 0, GASNET_BARRIERFLAG_UNNAMED));
    gasnet_coll_barrier_notify(GASNET_TEAM_ALL, 7, GASNET_BARRIERFLAG_ANONYMOUS);
    while (gasnet_coll_barrier_try(GASNET_TEAM_ALL, 7, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK)
        continue;
    /* a named barrier whose ids differ: GASNET_ERR_BARRIER_MISMATCH everywhere */
    if (n > 1) {
        gasnet_coll_barrier_notify(GASNET_TEAM_ALL, (int)me, 0);
        RVT_CHECK(gasnet_coll_barrier_wait(GASNET_TEAM_ALL, (int)me, 0) == GASNET_ERR_BARRIER_MISMATCH,
                  "gasnet_coll_barrier_wait with different ids did not report a mismatch");
    }

    /* autotuning: accepted, nothing to tune */
    gasnet_coll_dumpTuningState(NULL, GASNET_TEAM_ALL);
    gasnet_coll_dumpProfile(NULL, GASNET_TEAM_ALL);
    gasnet_coll_loadTuningState(NULL, GASNET_TEAM_ALL);
    gasnet_coll_set_tree_kind(GASNET_TEAM_ALL, 0, 2, GASNET_COLL_BROADCAST_OP);
    gasnet_coll_set_dissem_limit(GASNET_TEAM_ALL, 1024, GASNET_COLL_GATHER_OP);
    RVT_CHECK(gasnet_coll_get_num_tree_classes(GASNET_TEAM_ALL, GASNET_COLL_EXCHANGE_OP) == 1,
              "gasnet_coll_get_num_tree_classes did not answer 1");

    /* the flag values GASNet-EX 2025.8.0 gives clients */
    RVT_CHECK(GASNET_COLL_LOCAL == 0x80 && GASNET_COLL_DST_IN_SEGMENT == 0x400 &&
                  GASNET_COLL_SRC_IN_SEGMENT == 0x800 && GASNET_COLL_SYNC_FLAG_MASK == 0x3f &&
                  GASNET_COLL_OUT_ALLSYNC == 0x20,
              "GASNET_COLL_* values differ from GASNet-EX's");
    barrier();
    if (me == 0) printf("legacy_coll: PASS on %u nodes (%lu collectives checked)\n", n, ncalls);
    gasnet_exit(0);
    return 0;
}
