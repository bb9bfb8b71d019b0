/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_barrier.c: the GASNet-1 split-phase barrier: named and anonymous
 * phases, gasnet_barrier_try (looped without polling: it makes progress itself),
 * gasnet_barrier, GASNET_BARRIERFLAG_UNNAMED, gasnet_barrier_result, wait flags that differ
 * from the notify's (allowed since GASNet 1.20), and every mismatch (ids differing across
 * nodes, the MISMATCH flag, a named wait that is not the agreed value), each returning
 * GASNET_ERR_BARRIER_MISMATCH instead of hanging; later phases still work. */
#include <gasnet.h>
#include "rv_test.h"

#define ANON GASNET_BARRIERFLAG_ANONYMOUS
#define MISM GASNET_BARRIERFLAG_MISMATCH

static gasnet_node_t me, n;

static int phase(int nid, int nflags, int wid, int wflags, int use_try)
{
    gasnet_barrier_notify(nid, nflags);
    if (!use_try) return gasnet_barrier_wait(wid, wflags);
    int rc;
    while ((rc = gasnet_barrier_try(wid, wflags)) == GASNET_ERR_NOT_READY) {}
    return rc;
}

#define EXPECT_RC(call, want)                                                             \
    do {                                                                                  \
        int rc_ = (call);                                                                 \
        RVT_CHECK(rc_ == (want), "%s returned %s, expected %s", #call, gasnet_ErrorName(rc_), \
                  gasnet_ErrorName(want));                                                \
    } while (0)

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    n = gasnet_nodes();
    rvt_me = me;
    RVT_OK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
    int id;

    for (int use_try = 0; use_try < 2; use_try++) {
        /* named, all equal */
        EXPECT_RC(phase(42, 0, 42, 0, use_try), GASNET_OK);
        RVT_CHECK(gasnet_barrier_result(&id) == 0 && id == 42, "result after named 42: id %d", id);
        /* all anonymous */
        EXPECT_RC(phase(me, ANON, me, ANON, use_try), GASNET_OK);
        RVT_CHECK(gasnet_barrier_result(&id) == ANON, "result after anonymous phase not ANON");
        /* node 0 named, the others anonymous: matches, and the id is node 0's */
        if (me == 0)
            EXPECT_RC(phase(-5, 0, -5, 0, use_try), GASNET_OK);
        else
            EXPECT_RC(phase(99, ANON, 99, ANON, use_try), GASNET_OK);
        RVT_CHECK(gasnet_barrier_result(&id) == 0 && id == -5, "result: id %d, expected -5", id);
        /* ids differing across nodes: every node sees the mismatch */
        if (n > 1) EXPECT_RC(phase(1000 + (int)me, 0, 1000 + (int)me, 0, use_try),
                             GASNET_ERR_BARRIER_MISMATCH);
        /* the last node forces a mismatch with the flag */
        EXPECT_RC(phase(7, me == n - 1 ? MISM : 0, 7, me == n - 1 ? MISM : 0, use_try),
                  GASNET_ERR_BARRIER_MISMATCH);
        /* wait with another id than this node's notify: a mismatch here only */
        EXPECT_RC(phase(8, 0, me == 0 ? 9 : 8, 0, use_try),
                  me == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK);
        /* wait flags may differ from the notify's: a named notify with an anonymous wait */
        EXPECT_RC(phase(8, 0, 8, me == 0 ? ANON : 0, use_try), GASNET_OK);
        RVT_CHECK(gasnet_barrier_result(&id) == 0 && id == 8, "result after 8/anon wait: %d", id);
        /* an anonymous notify with a named wait: fine in an anonymous phase */
        EXPECT_RC(phase(5, ANON, 6, 0, use_try), GASNET_OK);
        RVT_CHECK(gasnet_barrier_result(&id) == ANON, "anonymous phase with named waits");
        /* ... and in a named phase if it names the agreed value, else a mismatch there only */
        if (n > 1) {
            if (me == 0) {
                EXPECT_RC(phase(12345, ANON, 77, 0, use_try), GASNET_OK);
                EXPECT_RC(phase(12345, ANON, 12345, 0, use_try), GASNET_ERR_BARRIER_MISMATCH);
            } else {
                EXPECT_RC(phase(77, 0, 77, 0, use_try), GASNET_OK);
                (void)phase(77, 0, 77, 0, use_try); /* the spec allows either outcome here */
            }
        }
        /* a MISMATCH flag on the wait alone is this node's mismatch */
        EXPECT_RC(phase(9, 0, 9, me == 0 ? MISM : 0, use_try),
                  me == 0 ? GASNET_ERR_BARRIER_MISMATCH : GASNET_OK);
        /* after all that, an ordinary phase still matches */
        EXPECT_RC(phase(-1, 0, -1, 0, use_try), GASNET_OK);
    }

    /* gasnet_barrier: named, mixed with anonymous and UNNAMED, and a forced mismatch */
    EXPECT_RC(gasnet_barrier(31, 0), GASNET_OK);
    EXPECT_RC(gasnet_barrier(31, me == 0 ? 0 : ANON), GASNET_OK);
    RVT_CHECK(gasnet_barrier_result(&id) == 0 && id == 31, "gasnet_barrier result id %d", id);
    EXPECT_RC(gasnet_barrier(0, GASNET_BARRIERFLAG_UNNAMED), GASNET_OK);
    RVT_CHECK(gasnet_barrier_result(&id) == ANON, "UNNAMED phase is anonymous");
    RVT_CHECK((GASNET_BARRIERFLAG_UNNAMED & ANON) && !(GASNET_BARRIERFLAG_UNNAMED & MISM),
              "GASNET_BARRIERFLAG_UNNAMED must include ANONYMOUS only");
    EXPECT_RC(gasnet_barrier(2, me == n - 1 ? MISM : 0), GASNET_ERR_BARRIER_MISMATCH);

    /* split phase: communication between notify and wait */
    gasnet_seginfo_t *si = calloc(n, sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    gasnet_node_t right = (me + 1) % n, left = (me + n - 1) % n;
    gasnet_barrier_notify(3, 0);
    gasnet_put_val(right, si[right].addr, 0xAB00u + me, 4);
    EXPECT_RC(gasnet_barrier_wait(3, 0), GASNET_OK);
    gasnet_barrier_notify(4, 0);
    EXPECT_RC(gasnet_barrier_wait(4, 0), GASNET_OK);
    uint32_t got = *(volatile uint32_t *)si[me].addr;
    RVT_CHECK(got == 0xAB00u + left, "value from node %u: 0x%x", left, got);
    free(si);

    printf("legacy_barrier: rank %u of %u: named, anonymous, try and mismatch phases OK\n", me,
           n);
    gasnet_exit(0);
    return 0;
}
