/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clients/client_tasks.c: a Chapel-style runtime on the legacy GASNet-1 API, as a
 * client program using only gasnet.h. gasnet_init / gasnet_attach with a handler table,
 * gasnet_getSegmentInfo for every rank's segment. Remote task spawn ("on" statements): an
 * AM Medium carries a task descriptor, the handler queues it (under an HSL) and Replies
 * with gasnet_AMReplyShort2; the main loop runs queued tasks, which answer with a Short
 * Request (and some first gasnet_put their result into the spawner's segment). Split-phase
 * barriers are polled with gasnet_barrier_try in a loop that also runs tasks; waits use
 * GASNET_BLOCKUNTIL. Put and get between out-of-segment (malloc'd) buffers are emulated with
 * AM Medium chunks; a segment region is fetched by gasnet_AMReplyLong2 chunks. Every result
 * is checked. */
#include <gasnet.h>
#include "rv_test.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static gasnet_node_t me, nranks;

/* the harness check, phrased as the condition that fails */
#define FAIL_IF(cond, ...) RVT_CHECK(!(cond), __VA_ARGS__)

enum { H_SPAWN = 201, H_SPAWN_ACK, H_DONE, H_PUT_CHUNK, H_PUT_ACK, H_GET_REQ, H_GET_REP, H_FETCH_REQ, H_FETCH_REP };

#define NTASKS 96              /* tasks each rank spawns */
#define MAXDATA 64             /* uint64 data words per task descriptor */
#define QCAP (NTASKS * 2 + 16)  /* queue slots: more than the tasks sent to one rank */
#define SLICE 40000            /* bytes of out-of-segment put per source rank (not chunk-aligned) */
#define SRC_BYTES 50000        /* bytes of out-of-segment get source */
#define SEGSIZE (64 * 1024)
#define FETCH_SRC 4096         /* segment offsets of the Reply Long fetch: source, destination */
#define FETCH_DST 32768
#define FETCH_BYTES 20000

struct task {
    uint32_t origin, id, kind, n;
    uint64_t data[MAXDATA];
};

static gasnet_seginfo_t *seginfo;
static gasnet_hsl_t qlock = GASNET_HSL_INITIALIZER;
static struct task queue[QCAP];
static unsigned qhead, qtail, ran;
static volatile unsigned acks, dones, put_acks, get_chunks, fetch_chunks;
static int64_t results[NTASKS];
static uint8_t *heap_in, *heap_src, *get_dst;

static uint64_t mixv(uint64_t x)
{
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
static uint8_t pat(uint64_t seed, size_t i) { return (uint8_t)mixv(seed * 1000003u + i); }
static unsigned ndata(uint32_t origin, uint32_t id) { return 1 + (unsigned)(mixv(origin * 977u + id) % MAXDATA); }
static int64_t expected_result(const struct task *t)
{
    uint64_t s = t->kind;
    for (unsigned i = 0; i < t->n; i++) s = s * 3 + (t->data[i] & 0xffff);
    return (int64_t)(s & 0x7fffffff);
}
static void *ptr_of(gasnet_handlerarg_t hi, gasnet_handlerarg_t lo)
{
    return (void *)(uintptr_t)(((uint64_t)(uint32_t)hi << 32) | (uint32_t)lo);
}
#define HI(p) ((gasnet_handlerarg_t)(uint32_t)((uint64_t)(uintptr_t)(p) >> 32))
#define LO(p) ((gasnet_handlerarg_t)(uint32_t)(uintptr_t)(p))

static gasnet_node_t source_of(gasnet_token_t t)
{
    gasnet_node_t src;
    FAIL_IF(gasnet_AMGetMsgSource(t, &src) != GASNET_OK || src >= nranks, "gasnet_AMGetMsgSource");
    return src;
}

/* ---- task spawn ---- */
static void h_spawn(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t id, gasnet_handlerarg_t kind)
{
    gasnet_node_t src = source_of(t);
    struct task *d = buf;
    FAIL_IF(nbytes < offsetof(struct task, data) || nbytes != offsetof(struct task, data) + d->n * 8 ||
            d->origin != src || d->id != (uint32_t)id || d->kind != (uint32_t)kind ||
            d->n != ndata(src, d->id),
            "task descriptor from %u: %zu bytes, origin %u id %u/%d kind %u/%d n %u", (unsigned)src,
            nbytes, (unsigned)d->origin, (unsigned)d->id, id, (unsigned)d->kind, kind, (unsigned)d->n);
    gasnet_hsl_lock(&qlock);
    FAIL_IF(qtail - qhead >= QCAP, "task queue full");
    memcpy(&queue[qtail % QCAP], d, nbytes);
    qtail++;
    unsigned depth = qtail - qhead;
    gasnet_hsl_unlock(&qlock);
    gasnet_AMReplyShort2(t, H_SPAWN_ACK, id, (gasnet_handlerarg_t)depth);
}

static void h_spawn_ack(gasnet_token_t t, gasnet_handlerarg_t id, gasnet_handlerarg_t depth)
{
    (void)t;
    FAIL_IF(id < 0 || id >= NTASKS || depth < 1 || depth > QCAP, "spawn ack: id %d depth %d", id, depth);
    acks++;
}

static void h_done(gasnet_token_t t, gasnet_handlerarg_t id, gasnet_handlerarg_t result)
{
    gasnet_node_t src = source_of(t);
    FAIL_IF(id < 0 || id >= NTASKS || results[id] != -1 || src != (gasnet_node_t)(id % nranks),
            "task done: id %d from %u, result already %" PRId64, id, (unsigned)src,
            id >= 0 && id < NTASKS ? results[id] : 0);
    results[id] = result;
    dones++;
}

/* Runs the queued tasks; returns how many. Called from the main loop only. */
static unsigned run_tasks(void)
{
    unsigned n = 0;
    for (;;) {
        struct task tk;
        gasnet_hsl_lock(&qlock);
        int have = qhead != qtail;
        if (have) tk = queue[qhead++ % QCAP];
        gasnet_hsl_unlock(&qlock);
        if (!have) return n;
        int64_t r = expected_result(&tk);
        if (tk.kind == 2) { /* leave the result in the spawner's segment first */
            uint64_t v = (uint64_t)r ^ 0xabcdef00ull;
            gasnet_put(tk.origin, (uint64_t *)seginfo[tk.origin].addr + 1 + tk.id, &v, sizeof v);
        }
        gasnet_AMRequestShort2(tk.origin, H_DONE, (gasnet_handlerarg_t)tk.id, (gasnet_handlerarg_t)r);
        ran++;
        n++;
    }
}

/* A split-phase barrier polled with try, running tasks meanwhile (Chapel's barrier). */
static void task_barrier(int id, int flags)
{
    gasnet_barrier_notify(id, flags);
    int rc;
    while ((rc = gasnet_barrier_try(id, flags)) == GASNET_ERR_NOT_READY) {
        run_tasks();
        gasnet_AMPoll();
    }
    FAIL_IF(rc != GASNET_OK, "gasnet_barrier_try(%d, %d) returned %d (%s)", id, flags, rc, gasnet_ErrorName(rc));
}

/* ---- out-of-segment put / get by AM Medium chunks ---- */
static void h_put_chunk(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t hi,
                        gasnet_handlerarg_t lo, gasnet_handlerarg_t off)
{
    gasnet_node_t src = source_of(t);
    uint8_t *dst = ptr_of(hi, lo);
    FAIL_IF(dst != heap_in + (size_t)src * SLICE + (size_t)off || (size_t)off + nbytes > SLICE,
            "put chunk from %u: address %p offset %d, %zu bytes", (unsigned)src, (void *)dst, off, nbytes);
    memcpy(dst, buf, nbytes);
    gasnet_AMReplyShort1(t, H_PUT_ACK, off);
}

static void h_put_ack(gasnet_token_t t, gasnet_handlerarg_t off)
{
    (void)t;
    FAIL_IF(off < 0 || off >= SLICE, "put ack offset %d", off);
    put_acks++;
}

static void h_get_req(gasnet_token_t t, gasnet_handlerarg_t hi, gasnet_handlerarg_t lo,
                      gasnet_handlerarg_t len, gasnet_handlerarg_t off)
{
    uint8_t *src = ptr_of(hi, lo);
    FAIL_IF(src != heap_src + off || (size_t)off + (size_t)len > SRC_BYTES || (size_t)len > gasnet_AMMaxMedium(),
            "get request: %p offset %d length %d", (void *)src, off, len);
    gasnet_AMReplyMedium2(t, H_GET_REP, src, (size_t)len, off, len);
}

static void h_get_rep(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t off, gasnet_handlerarg_t len)
{
    (void)t;
    FAIL_IF(nbytes != (size_t)len || (size_t)off + nbytes > SRC_BYTES, "get reply: %zu bytes, offset %d length %d",
            nbytes, off, len);
    memcpy(get_dst + off, buf, nbytes);
    get_chunks++;
}

/* ---- in-segment fetch answered by gasnet_AMReplyLong2 into the requester's segment ---- */
static void h_fetch_req(gasnet_token_t t, gasnet_handlerarg_t off, gasnet_handlerarg_t len)
{
    gasnet_node_t src = source_of(t);
    FAIL_IF(off < 0 || len <= 0 || (size_t)off + (size_t)len > FETCH_BYTES || (size_t)len > gasnet_AMMaxLongReply(),
            "fetch request from %u: offset %d length %d", (unsigned)src, off, len);
    gasnet_AMReplyLong2(t, H_FETCH_REP, (uint8_t *)seginfo[me].addr + FETCH_SRC + off, (size_t)len,
                        (uint8_t *)seginfo[src].addr + FETCH_DST + off, off, len);
}

static void h_fetch_rep(gasnet_token_t t, void *buf, size_t nbytes, gasnet_handlerarg_t off, gasnet_handlerarg_t len)
{
    (void)t;
    FAIL_IF(buf != (uint8_t *)seginfo[me].addr + FETCH_DST + off || nbytes != (size_t)len,
            "fetch reply: %zu bytes at %p, expected %d at %p", nbytes, buf, len,
            (void *)((uint8_t *)seginfo[me].addr + FETCH_DST + off));
    fetch_chunks++;
}

int main(int argc, char **argv)
{
    FAIL_IF(gasnet_init(&argc, &argv) != GASNET_OK, "gasnet_init");
    me = rvt_me = gasnet_mynode();
    nranks = gasnet_nodes();
    gasnet_handlerentry_t table[] = {
        { H_SPAWN, (void (*)())h_spawn },       { H_SPAWN_ACK, (void (*)())h_spawn_ack },
        { H_DONE, (void (*)())h_done },         { H_PUT_CHUNK, (void (*)())h_put_chunk },
        { H_PUT_ACK, (void (*)())h_put_ack },   { H_GET_REQ, (void (*)())h_get_req },
        { H_GET_REP, (void (*)())h_get_rep },   { H_FETCH_REQ, (void (*)())h_fetch_req },
        { H_FETCH_REP, (void (*)())h_fetch_rep },
    };
    int rc = gasnet_attach(table, (int)(sizeof table / sizeof table[0]), SEGSIZE, 0);
    FAIL_IF(rc != GASNET_OK, "gasnet_attach returned %d", rc);
    seginfo = calloc(nranks, sizeof *seginfo);
    heap_in = calloc(nranks, SLICE);
    heap_src = malloc(SRC_BYTES);
    get_dst = calloc(1, SRC_BYTES);
    FAIL_IF(!seginfo || !heap_in || !heap_src || !get_dst, "out of memory");
    FAIL_IF(gasnet_getSegmentInfo(seginfo, (int)nranks) != GASNET_OK, "gasnet_getSegmentInfo");
    for (gasnet_node_t r = 0; r < nranks; r++)
        FAIL_IF(!seginfo[r].addr || seginfo[r].size < SEGSIZE, "segment of rank %u: %p, %" PRIuPTR " bytes",
                (unsigned)r, seginfo[r].addr, seginfo[r].size);
    for (size_t i = 0; i < SRC_BYTES; i++) heap_src[i] = pat(me + 500, i);
    for (unsigned i = 0; i < NTASKS; i++) results[i] = -1;
    /* publish my out-of-segment buffers: word 0 of my segment, slot words after it */
    uint64_t *myseg = seginfo[me].addr;
    memset(myseg, 0, (1 + NTASKS) * 8);
    myseg[0] = (uint64_t)(uintptr_t)heap_in;
    myseg[NTASKS + 1] = (uint64_t)(uintptr_t)heap_src;
    for (size_t i = 0; i < FETCH_BYTES; i++) ((uint8_t *)myseg)[FETCH_SRC + i] = pat(me + 700, i);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    FAIL_IF(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS) != GASNET_OK, "first barrier");

    /* ---- spawn NTASKS tasks round-robin over all ranks (self included) ---- */
    struct task d;
    for (unsigned id = 0; id < NTASKS; id++) {
        gasnet_node_t dst = (gasnet_node_t)(id % nranks);
        d.origin = me;
        d.id = id;
        d.kind = id % 3;
        d.n = ndata(me, id);
        for (unsigned i = 0; i < d.n; i++) d.data[i] = mixv((uint64_t)me << 40 | (uint64_t)id << 16 | i);
        gasnet_AMRequestMedium2(dst, H_SPAWN, &d, offsetof(struct task, data) + d.n * 8,
                                (gasnet_handlerarg_t)id, (gasnet_handlerarg_t)d.kind);
        if (id % 8 == 7) run_tasks(); /* keep my own queue short */
    }
    task_barrier(5, 0); /* named; tasks keep running while it completes */
    while (dones < NTASKS) { /* like Chapel's polling task */
        run_tasks();
        gasnet_AMPoll();
    }
    task_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS); /* all tasks everywhere have run */
    GASNET_BLOCKUNTIL(acks == NTASKS); /* Replies sent before the dones may still be in flight */
    FAIL_IF(acks != NTASKS || qhead != qtail, "%u spawn acks, %u tasks still queued", acks, qtail - qhead);
    unsigned expect_ran = 0;
    for (unsigned id = 0; id < NTASKS * nranks; id++)
        if (id % NTASKS % nranks == me) expect_ran++;
    FAIL_IF(ran != expect_ran, "ran %u tasks, expected %u", ran, expect_ran);
    for (unsigned id = 0; id < NTASKS; id++) {
        d.origin = me;
        d.id = id;
        d.kind = id % 3;
        d.n = ndata(me, id);
        for (unsigned i = 0; i < d.n; i++) d.data[i] = mixv((uint64_t)me << 40 | (uint64_t)id << 16 | i);
        int64_t want = expected_result(&d);
        FAIL_IF(results[id] != want, "task %u on rank %u: result %" PRId64 ", expected %" PRId64, id,
                (unsigned)(id % nranks), results[id], want);
        if (d.kind == 2)
            FAIL_IF(myseg[1 + id] != ((uint64_t)want ^ 0xabcdef00ull), "task %u put 0x%" PRIx64 " in my segment, "
                    "expected 0x%" PRIx64, id, myseg[1 + id], (uint64_t)((uint64_t)want ^ 0xabcdef00ull));
        else
            FAIL_IF(myseg[1 + id] != 0, "task %u (kind %u) wrote my segment", id, d.kind);
    }

    /* ---- out-of-segment put: my SLICE into the next rank's heap buffer, by AM chunks ---- */
    gasnet_node_t peer = (gasnet_node_t)((me + 1) % nranks), prev = (gasnet_node_t)((me + nranks - 1) % nranks);
    uint64_t remote[2];
    gasnet_get(remote, peer, seginfo[peer].addr, 8);
    gasnet_get(remote + 1, peer, (uint64_t *)seginfo[peer].addr + NTASKS + 1, 8);
    uint8_t *out = malloc(SLICE);
    FAIL_IF(!out, "out of memory");
    for (size_t i = 0; i < SLICE; i++) out[i] = pat(me + 100, i);
    size_t chunk = gasnet_AMMaxMedium();
    FAIL_IF(chunk < 512, "gasnet_AMMaxMedium() is %zu", chunk);
    chunk -= 40; /* chunks that do not divide the slice */
    unsigned nchunks = 0;
    uint8_t *dst = (uint8_t *)(uintptr_t)remote[0] + (size_t)me * SLICE;
    for (size_t off = 0; off < SLICE; off += chunk, nchunks++) {
        size_t len = SLICE - off < chunk ? SLICE - off : chunk;
        gasnet_AMRequestMedium3(peer, H_PUT_CHUNK, out + off, len, HI(dst + off), LO(dst + off),
                                (gasnet_handlerarg_t)off);
    }
    GASNET_BLOCKUNTIL(put_acks == nchunks);

    /* ---- out-of-segment get: the next rank's source buffer, by AM chunks ---- */
    uint8_t *gsrc = (uint8_t *)(uintptr_t)remote[1];
    nchunks = 0;
    for (size_t off = 0; off < SRC_BYTES; off += chunk, nchunks++) {
        size_t len = SRC_BYTES - off < chunk ? SRC_BYTES - off : chunk;
        gasnet_AMRequestShort4(peer, H_GET_REQ, HI(gsrc + off), LO(gsrc + off), (gasnet_handlerarg_t)len,
                               (gasnet_handlerarg_t)off);
    }
    GASNET_BLOCKUNTIL(get_chunks == nchunks);
    for (size_t i = 0; i < SRC_BYTES; i++)
        FAIL_IF(get_dst[i] != pat(peer + 500, i), "out-of-segment get from %u: byte %zu is 0x%02x, expected 0x%02x",
                (unsigned)peer, i, get_dst[i], pat(peer + 500, i));
    /* ---- fetch the next rank's segment region into mine, by Reply Long chunks ---- */
    size_t lchunk = gasnet_AMMaxLongReply() < 3000 ? gasnet_AMMaxLongReply() : 3000;
    nchunks = 0;
    for (size_t off = 0; off < FETCH_BYTES; off += lchunk, nchunks++) {
        size_t len = FETCH_BYTES - off < lchunk ? FETCH_BYTES - off : lchunk;
        gasnet_AMRequestShort2(peer, H_FETCH_REQ, (gasnet_handlerarg_t)off, (gasnet_handlerarg_t)len);
    }
    GASNET_BLOCKUNTIL(fetch_chunks == nchunks);
    for (size_t i = 0; i < FETCH_BYTES; i++)
        FAIL_IF(((uint8_t *)myseg)[FETCH_DST + i] != pat(peer + 700, i),
                "Reply Long fetch from %u: byte %zu is 0x%02x, expected 0x%02x", (unsigned)peer, i,
                ((uint8_t *)myseg)[FETCH_DST + i], pat(peer + 700, i));
    task_barrier(9, 0);
    for (size_t i = 0; i < SLICE; i++)
        FAIL_IF(heap_in[(size_t)prev * SLICE + i] != pat(prev + 100, i),
                "out-of-segment put from %u: byte %zu is 0x%02x, expected 0x%02x", (unsigned)prev, i,
                heap_in[(size_t)prev * SLICE + i], pat(prev + 100, i));

    /* ---- a mismatched named barrier must be reported, not hang ---- */
    if (nranks > 1) {
        gasnet_barrier_notify(me == 0 ? 11 : 12, 0);
        rc = gasnet_barrier_wait(me == 0 ? 11 : 12, 0);
        FAIL_IF(rc != GASNET_ERR_BARRIER_MISMATCH, "mismatched barrier ids: wait returned %d (%s)", rc,
                gasnet_ErrorName(rc));
    }
    task_barrier(0, GASNET_BARRIERFLAG_ANONYMOUS);
    free(out);
    if (me == 0) printf("client_tasks: PASS on %u ranks\n", (unsigned)nranks);
    fflush(stdout);
    gasnet_exit(0);
    return 0;
}
