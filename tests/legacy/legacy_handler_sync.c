/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_handler_sync.c: a Request handler that syncs NBI puts and NB handles
 * (osss-gasnet's global-exit handler calls gasnet_wait_syncnbi_puts, then waits for its NB
 * handles). The spec forbids it; by default Rivet warns once and completes the sync. Each
 * rank starts NBI and NB puts to the next rank, then asks the previous rank to sync its own
 * puts from a handler (twice, plus the try forms); the
 * handler's sync must return with every put complete, the warning must appear exactly once
 * on each rank's stderr, and the data must be there. With RIVET_HANDLER_SYNC=fatal the same
 * program ends with the spec's fatal error (ctest checks the message). */
#include <gasnet.h>
#include "rv_test.h"

#include <unistd.h>

#define H_SYNC 201
#define N      64
#define WORDS  512

#define NB     8     /* the last NB blocks are NB puts, their handles synced in the handler */

static volatile int synced;
static uint64_t *src;
static void *nextseg;
static gasnet_handle_t handles[NB];

static void sync_handler(gasnet_token_t t)
{
    (void)t;
    gasnet_wait_syncnbi_puts();
    gasnet_wait_syncnbi_puts();
    RVT_CHECK(gasnet_try_syncnbi_puts() == GASNET_OK, "puts still pending after the sync");
    gasnet_wait_syncnb_all(handles, NB);   /* completed entries become invalid handles */
    for (int k = 0; k < NB; k++)
        RVT_CHECK(handles[k] == GASNET_INVALID_HANDLE, "NB handle %d still live after the wait", k);
    RVT_CHECK(gasnet_try_syncnb_all(handles, NB) == GASNET_OK, "NB puts pending after the wait");
    synced++;
}

int main(int argc, char **argv)
{
    gasnet_handlerentry_t tab[] = { { H_SYNC, (void (*)())sync_handler } };
    RVT_OK(gasnet_init(&argc, &argv));
    gasnet_node_t me = gasnet_mynode(), n = gasnet_nodes();
    rvt_me = me;
    gasnet_node_t next = (me + 1) % n, prev = (me + n - 1) % n;
    RVT_OK(gasnet_attach(tab, 1, (uintptr_t)N * WORDS * 8, 0));
    gasnet_seginfo_t *si = calloc(n, sizeof *si);
    RVT_CHECK(si != NULL, "calloc");
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    nextseg = si[next].addr;
    src = malloc((size_t)N * WORDS * 8);
    RVT_CHECK(src != NULL, "malloc");
    for (size_t i = 0; i < (size_t)N * WORDS; i++) src[i] = ((uint64_t)me << 32) ^ (i * 2654435761u);

    /* this rank's stderr goes to a file while the handler runs here (not when the sync is to
     * be fatal: the message must reach the launcher) */
    int capture = !getenv("RIVET_HANDLER_SYNC") && !getenv("LHS_NO_CAPTURE");
    char path[] = "/tmp/rivet-handler-sync-XXXXXX";
    int fd = -1, saved = -1;
    if (capture) {
        fd = mkstemp(path);
        RVT_CHECK(fd >= 0, "mkstemp");
        unlink(path);
        fflush(stderr);
        saved = dup(2);
        RVT_CHECK(saved >= 0 && dup2(fd, 2) == 2, "redirecting stderr");
    }

    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    for (int k = 0; k < N - NB; k++)
        gasnet_put_nbi_bulk(next, (char *)nextseg + (size_t)k * WORDS * 8, src + (size_t)k * WORDS,
                            WORDS * 8);
    for (int k = N - NB; k < N; k++)
        handles[k - (N - NB)] = gasnet_put_nb_bulk(next, (char *)nextseg + (size_t)k * WORDS * 8,
                                                   src + (size_t)k * WORDS, WORDS * 8);
    RVT_OK(gasnet_AMRequestShort0(me, H_SYNC));  /* runs here, inside the call */
    RVT_CHECK(synced >= 1, "the handler's sync did not return"); /* (+1 if prev's came) */
    RVT_OK(gasnet_AMRequestShort0(prev, H_SYNC)); /* prev syncs from a handler, while polling */
    GASNET_BLOCKUNTIL(synced == 2);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));

    if (capture) {
        fflush(stderr);
        RVT_CHECK(dup2(saved, 2) == 2, "restoring stderr");
        char buf[4096];
        ssize_t got = pread(fd, buf, sizeof buf - 1, 0);
        RVT_CHECK(got >= 0, "reading the captured stderr");
        buf[got] = 0;
        fputs(buf, stderr);
        const char *want = "rivet: warning: gex_NBI_Wait(0x2) (gasnet_wait_syncnbi_puts) called "
                           "inside an AM handler: the GASNet-EX specification forbids syncs in "
                           "handlers; Rivet completes it";
        char *w = strstr(buf, want);
        RVT_CHECK(w != NULL, "rank %u: no warning \"%s...\" on stderr", (unsigned)me, want);
        RVT_CHECK(strstr(w + 1, "rivet: warning:") == NULL, "rank %u: more than one warning",
                  (unsigned)me);
    }

    /* prev's puts landed here */
    uint64_t *mine = si[me].addr;
    for (size_t i = 0; i < (size_t)N * WORDS; i++)
        RVT_CHECK(mine[i] == (((uint64_t)prev << 32) ^ (i * 2654435761u)),
                  "word %zu from rank %u is %#" PRIx64, i, (unsigned)prev, mine[i]);
    if (me == 0) printf("legacy_handler_sync: PASS on %u nodes\n", (unsigned)n);
    gasnet_exit(0);
    return 0;
}
