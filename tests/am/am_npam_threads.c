/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_npam_threads.c: negotiated-payload Requests in GASNet-provided buffers from
 * short-lived threads. Each thread Prepares (client_buf NULL) and Commits Mediums of up to
 * the largest size to the next rank, then exits. The handler checks the payload and Replies
 * the same way (a Prepare in GASNet's buffer, nested inside the sender's Commit when that
 * polls for room: the ENV run with the smallest rings makes it likely). The library's
 * per-thread payload buffer must go away with its thread: the heap in use may not grow by
 * anything near one buffer per thread (glibc's mallinfo2; sanitizer builds leave that to
 * LeakSanitizer, which reports the leak at exit). */
#include "rv_test.h"

#include <malloc.h>
#include <pthread.h>

enum { H_MED = 150, H_REP };

#define ROUNDS 8
#define THREADS 4
#define PER_THREAD 3

static size_t msz;
static volatile unsigned got, reps;
static gex_HSL_t lock = GEX_HSL_INITIALIZER;

static void h_med(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed)
{
    RVT_CHECK(nbytes == msz, "Medium of %zu bytes, expected %zu", nbytes, msz);
    RVT_VERIFY(buf, nbytes, (uint64_t)(uint32_t)seed, "NPAM Medium from a short-lived thread");
    gex_HSL_Lock(&lock);
    got++;
    gex_HSL_Unlock(&lock);
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, msz, msz, NULL, 0, 1);
    RVT_CHECK(gex_AM_SrcDescSize(sd) == msz, "PrepareReply gave %zu bytes", gex_AM_SrcDescSize(sd));
    rvt_fill(gex_AM_SrcDescAddr(sd), msz, (uint64_t)(uint32_t)seed + 7);
    gex_AM_CommitReplyMedium1(sd, H_REP, msz, seed);
}

static void h_rep(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t seed)
{
    (void)t;
    RVT_CHECK(nbytes == msz, "Reply Medium of %zu bytes, expected %zu", nbytes, msz);
    RVT_VERIFY(buf, nbytes, (uint64_t)(uint32_t)seed + 7, "NPAM Reply Medium");
    gex_HSL_Lock(&lock);
    reps++;
    gex_HSL_Unlock(&lock);
}

static void *sender(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    for (unsigned k = 0; k < PER_THREAD; k++) {
        uint32_t seed = rvt_me * 100000u + id * 10u + k;
        gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(rvt_tm, (rvt_me + 1) % rvt_n, NULL, msz, msz, NULL, 0, 1);
        RVT_CHECK(gex_AM_SrcDescSize(sd) == msz, "Prepare gave %zu bytes", gex_AM_SrcDescSize(sd));
        rvt_fill(gex_AM_SrcDescAddr(sd), msz, seed);
        gex_AM_CommitRequestMedium1(sd, H_MED, msz, (gex_AM_Arg_t)seed);
    }
    return NULL;
}

static size_t heap_in_use(void) { return mallinfo2().uordblks; }

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, 0);
    gex_AM_Entry_t e[] = { { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "med" },
                           { H_REP, (gex_AM_Fn_t)h_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "rep" } };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, e, 2));
    msz = gex_AM_LUBRequestMedium() < gex_AM_LUBReplyMedium() ? gex_AM_LUBRequestMedium() : gex_AM_LUBReplyMedium();
    size_t before = 0;
    for (unsigned r = 0; r < ROUNDS; r++) {
        pthread_t th[THREADS];
        for (unsigned i = 0; i < THREADS; i++)
            RVT_CHECK(pthread_create(&th[i], NULL, sender, (void *)(uintptr_t)(r * THREADS + i)) == 0,
                      "pthread_create");
        for (unsigned i = 0; i < THREADS; i++) pthread_join(th[i], NULL);
        GASNET_BLOCKUNTIL(got >= (r + 1) * THREADS * PER_THREAD && reps == (r + 1) * THREADS * PER_THREAD);
        if (r == 0) before = heap_in_use(); /* after the first round: caches are warm */
    }
    size_t after = heap_in_use(), leak_if_any = (size_t)(ROUNDS - 1) * THREADS * msz;
    RVT_CHECK(after < before + leak_if_any / 2, "heap in use grew from %zu to %zu bytes over %u "
              "threads: their %zu-byte NPAM payload buffers were not freed", before, after,
              (ROUNDS - 1) * THREADS, msz);
    rvt_barrier(); /* nobody exits while Replies to it may still be in flight */
    return rvt_done("am_npam_threads");
}
