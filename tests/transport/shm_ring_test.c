/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/shm_ring_test.c: the shm byte ring between two processes: a forked
 * producer pushes messages of every size class through many wrap-arounds (ring
 * full most of the time), the consumer checks length, sequence and every byte.
 * A second round has two producer threads in the child sharing the ring. Rounds three and
 * four mix in reservations (the transport's reserve/commit/unreserve ops): a third of the
 * messages are written in place into a reservation sized above their length (commit
 * shrinks it) and must come out 16-byte aligned, another third are first reserved and
 * dropped (unreserve), then pushed. Every payload of RV_SHM_ALIGN_MIN bytes or more, pushed
 * or reserved, must start on a 64-byte line. */
#include "transport/shm/shm_ring.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP (64u * 1024u)
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define MSGS 20000u /* sanitizers slow every byte check down */
#else
#define MSGS 100000u
#endif

static unsigned char pat(uint32_t seq, size_t i) { return (unsigned char)(seq * 131u + i * 7u + (i >> 8)); }

/* size of message seq: mostly small, sometimes up to the ring's maximum */
static size_t msg_len(uint32_t seq)
{
    uint32_t x = seq * 2654435761u;
    switch (x >> 29) {
    case 0: return rv_shm_ring_max_msg(CAP) - (x & 63);
    case 1: return 8 + (x & 4095);
    default: return 8 + (x & 63); /* at least the 8-byte test header */
    }
}

/* Wait a little: spin briefly, then give the CPU away. Three busy threads (two producers,
 * one consumer) share 2 cores in CI, often next to other jobs; pure spinning there makes
 * every wait last a whole time slice and the test takes minutes instead of seconds. */
static void backoff(unsigned *spins)
{
    if (++*spins < 64) {
        rv_cpu_relax();
    } else {
        *spins = 0;
        sched_yield();
    }
}

static void fail(const char *what, uint32_t seq, size_t at)
{
    fprintf(stderr, "FAIL shm_ring_test: %s (message %u, byte %zu)\n", what, seq, at);
    exit(1);
}

typedef struct { rv_shm_ring_t *r; uint32_t first, step, rsv; } prod_arg_t;

/* Reservation size for message seq: its length plus some slack, within the ring maximum. */
static size_t rsv_max(uint32_t seq, size_t len)
{
    size_t m = len - 8 + (seq * 40503u) % 300u, lim = rv_shm_ring_max_msg(CAP) - 8;
    return m < lim ? m : lim;
}

static void *producer(void *p)
{
    prod_arg_t *a = p;
    static _Thread_local unsigned char buf[CAP];
    unsigned spins = 0;
    for (uint32_t seq = a->first; seq < MSGS; seq += a->step) {
        size_t len = msg_len(seq);
        uint32_t hdr[2] = {seq, (uint32_t)len};
        unsigned how = a->rsv ? seq % 3 : 0;
        if (how) {
            unsigned char *p;
            while (!(p = rv_shm_ring_reserve(a->r, CAP, sizeof hdr, rsv_max(seq, len))))
                backoff(&spins);
            if ((uintptr_t)p % 16) fail("reserved payload not 16-byte aligned", seq, 0);
            if (how == 1) {
                for (size_t i = 0; i < len - 8; i++) p[i] = pat(seq, i);
                memset(p + len - 8, 0xee, rsv_max(seq, len) - (len - 8)); /* beyond: dropped */
                rv_shm_ring_commit(a->r, CAP, hdr, sizeof hdr, len - 8);
                continue;
            }
            memset(p, 0xdd, rsv_max(seq, len)); /* written, then dropped: never delivered */
            rv_shm_ring_unreserve(a->r);
        }
        for (size_t i = 0; i < len - 8; i++) buf[i] = pat(seq, i);
        while (rv_shm_ring_push(a->r, CAP, hdr, sizeof hdr, buf, len - 8)) backoff(&spins);
    }
    return NULL;
}

/* Consumes MSGS messages; with 'threads' producers the sequence is increasing per
 * producer (seq % threads), each checked in order. */
static void consume(rv_shm_ring_t *r, uint32_t threads)
{
    uint64_t head = 0;
    uint32_t next[2] = {0, 1};
    unsigned spins = 0;
    for (uint32_t got = 0; got < MSGS;) {
        size_t len;
        uint32_t *m = rv_shm_ring_next(r, CAP, &head, &len);
        if (!m) { backoff(&spins); continue; }
        if ((uintptr_t)m % 8) fail("message not 8-byte aligned", got, 0);
        uint32_t seq = m[0], lane = seq % threads;
        if (seq != next[lane]) fail("out of order or lost", seq, next[lane]);
        if (len != msg_len(seq) || m[1] != len) fail("wrong length", seq, len);
        const unsigned char *b = (const unsigned char *)(m + 2);
        if (len - 8 >= RV_SHM_ALIGN_MIN && (uintptr_t)b % 64)
            fail("large payload not 64-byte aligned", seq, (uintptr_t)b % 64);
        for (size_t i = 0; i < len - 8; i++)
            if (b[i] != pat(seq, i)) fail("payload corrupted", seq, i);
        rv_shm_ring_release(r, &head, len);
        next[lane] += threads;
        got++;
    }
}

static void round_trip(uint32_t threads, uint32_t rsv)
{
    rv_shm_ring_t *r = mmap(NULL, RV_SHM_RING_BYTES(CAP), PROT_READ | PROT_WRITE,
                            MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (r == MAP_FAILED) fail("mmap", 0, 0);
    pid_t pid = fork();
    if (pid < 0) fail("fork", 0, 0);
    if (pid == 0) {
        pthread_t t[2];
        prod_arg_t a[2];
        for (uint32_t i = 0; i < threads; i++) {
            a[i] = (prod_arg_t){r, i, threads, rsv};
            pthread_create(&t[i], NULL, producer, &a[i]);
        }
        for (uint32_t i = 0; i < threads; i++) pthread_join(t[i], NULL);
        _exit(0);
    }
    consume(r, threads);
    size_t len;
    uint64_t head = r->head;
    if (rv_shm_ring_next(r, CAP, &head, &len)) fail("extra message after the last", MSGS, 0);
    int st;
    if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
        fail("producer process failed", 0, 0);
    if (r->tail != r->head) fail("tail and head disagree at the end", 0, 0);
    munmap(r, RV_SHM_RING_BYTES(CAP));
}

int main(void)
{
    if (msg_len(0) > rv_shm_ring_max_msg(CAP)) fail("test sizes exceed ring max", 0, 0);
    round_trip(1, 0);
    round_trip(2, 0);
    round_trip(1, 1);
    round_trip(2, 1);
    printf("shm_ring_test: PASS (%u messages x 4 rounds through a %u-byte ring)\n", MSGS, CAP);
    return 0;
}
