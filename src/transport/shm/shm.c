/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/shm/shm.c: the shared-memory transport: descriptor, queue set-up, send and poll.
 * Every rank owns one queue object holding a request ring and a reply ring per sender;
 * see shm_ring.h for the ring protocol and README.md for the design. */
#include "transport/shm/shm_int.h"
#include "core/core.h"
#include "boot/boot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* ThreadSanitizer sees only this process: a message's causality runs through the
 * peer process and back, invisible to it. Tell it: every send happens before every
 * later delivery in this process. */
#if defined(__SANITIZE_THREAD__)
#define RV_SHM_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define RV_SHM_TSAN 1
#endif
#endif
#ifdef RV_SHM_TSAN
#include <sanitizer/tsan_interface.h>
static char rv_shm_tsan_sync;
#define RV_SHM_TSAN_SEND() __tsan_release(&rv_shm_tsan_sync)
#define RV_SHM_TSAN_RECV() __tsan_acquire(&rv_shm_tsan_sync)
#else
#define RV_SHM_TSAN_SEND() ((void)0)
#define RV_SHM_TSAN_RECV() ((void)0)
#endif

#define RV_SHM_MIN_RING (256u * 1024u) /* holds two largest messages (64 KiB + header) */
#define RV_SHM_SYNC_BYTES 64u           /* the sync line (transport.h) after a queue's rings */
#define RV_SHM_POLL_BUDGET 32          /* messages per ring per poll: fairness between senders */

static size_t rv_shm_pow2(size_t v)
{
    size_t p = RV_SHM_MIN_RING;
    while (p < v) p <<= 1;
    return p;
}

/* Segments live in /dev/shm: a rank's share of its free space bounds one segment,
 * since touching a page beyond it would kill the process with SIGBUS. */
static uintptr_t rv_shm_seg_limit(const rv_job_t *job)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0) return 0;
    uintptr_t avail = (uintptr_t)v.f_bavail * v.f_frsize / job->host_size;
    return avail & ~(uintptr_t)(GASNET_PAGESIZE - 1);
}

/* Every rank of the job must share this host's memory. */
static int rv_shm_probe(const rv_job_t *job)
{
    return job->nbrhd_size == job->size ? 0 : -1;
}

static void rv_shm_close(void *priv)
{
    rv_shm_t *s = priv;
    rv_shm_seg_close(s);
    if (s->qmap) {
        for (uint32_t r = 0; r < s->size; r++)
            if (s->qmap[r]) munmap(s->qmap[r], s->qlen);
    }
    free(s->qmap);
    free(s->out);
    free(s->in);
    free(s->ihead);
    free(s->peek);
    s->peek = NULL;
    s->qmap = NULL;
    s->out = s->in = NULL;
    s->ihead = NULL;
}

/* Collective: creates my queue, maps everyone's, then unlinks mine so nothing
 * is left in /dev/shm whatever happens later. */
static int rv_shm_open(void *priv, const rv_job_t *job, rv_tp_limits_t *lim)
{
    rv_shm_t *s = priv;
    s->me = job->rank;
    s->size = job->size;
    s->secret = job->secret;
    s->cap = rv_shm_pow2((size_t)rv_cfg.SHM_RING_SIZE);
    s->stride = RV_SHM_RING_BYTES(s->cap);
    s->qlen = (size_t)s->size * 2 * s->stride + RV_SHM_SYNC_BYTES; /* rings, then sync line */
    /* Every rank of this host makes one queue file: they must fit in /dev/shm (a page touched
     * beyond its free space would kill the process with SIGBUS). */
    struct statvfs fs;
    if (statvfs("/dev/shm", &fs) == 0) {
        double need = (double)s->qlen * job->host_size, avail = (double)fs.f_bavail * fs.f_frsize;
        if (need > avail)
            rv_fatal("environment: RIVET_SHM_RING_SIZE=%s: the AM rings of the %u ranks on this "
                     "host need %.0f MiB of /dev/shm, but only %.0f MiB are free (lower "
                     "RIVET_SHM_RING_SIZE, run fewer ranks per host, or free /dev/shm space)",
                     getenv("RIVET_SHM_RING_SIZE") ? getenv("RIVET_SHM_RING_SIZE") : "(default)",
                     job->host_size, need / 1048576.0, avail / 1048576.0);
    }
    s->qmap = calloc(s->size, sizeof *s->qmap);
    s->out = calloc((size_t)s->size * 2, sizeof *s->out);
    s->in = calloc((size_t)s->size * 2, sizeof *s->in);
    s->ihead = calloc((size_t)s->size * 2, sizeof *s->ihead);
    s->segs = calloc(s->size, sizeof *s->segs);
    s->seglen = calloc(s->size, sizeof *s->seglen);
    s->peek = calloc((size_t)s->size * 2, sizeof *s->peek);
    int ok = s->qmap && s->out && s->in && s->ihead && s->segs && s->seglen && s->peek;

    char name[96];
    rv_shmobj_name(name, sizeof name, s->secret, 'q', s->me);
    if (ok) ok = (s->qmap[s->me] = rv_shmobj_create(name, s->qlen, 1)) != NULL;
    if (!rv_job_all_ok(ok)) goto fail;
    for (uint32_t r = 0; r < s->size && ok; r++) {
        if (r == s->me) continue;
        char peer[96];
        rv_shmobj_name(peer, sizeof peer, s->secret, 'q', r);
        ok = (s->qmap[r] = rv_shmobj_attach(peer, s->qlen)) != NULL;
    }
    if (!rv_job_all_ok(ok)) goto fail;
    shm_unlink(name);

    for (uint32_t r = 0; r < s->size; r++) {
        for (unsigned c = 0; c < 2; c++) {
            /* ring (sender, chan) of receiver q is at (sender * 2 + chan) * stride */
            size_t mine_in_r = ((size_t)s->me * 2 + c) * s->stride;
            size_t r_in_mine = ((size_t)r * 2 + c) * s->stride;
            s->out[r * 2 + c] = (rv_shm_ring_t *)(void *)((char *)s->qmap[r] + mine_in_r);
            s->in[r * 2 + c] = (rv_shm_ring_t *)(void *)((char *)s->qmap[s->me] + r_in_mine);
        }
    }
    s->nscan = 0;
    for (uint32_t r = 0; r < s->size; r++)
        if (r != s->me)
            for (unsigned c = 0; c < 2; c++)
                s->peek[s->nscan++] = (uint64_t *)(void *)s->in[r * 2 + c]->data;
    lim->max_msg = rv_shm_ring_max_msg(s->cap);
    lim->max_seg_local = rv_shm_seg_limit(job);
    rv_verbose(1, "shm: %u rings of %zu bytes per rank (%zu bytes mapped per queue)",
               s->size * 2, s->cap, s->qlen);
    return 0;
fail:
    shm_unlink(name);
    rv_shm_close(s);
    return -1;
}

/* Before the first message to myself: from now on the poll looks at my own rings too. */
static inline void rv_shm_self_used(rv_shm_t *s)
{
    if (!__atomic_load_n(&s->self_used, __ATOMIC_RELAXED))
        __atomic_store_n(&s->self_used, 1, __ATOMIC_RELAXED);
}

/* A message with a payload: out of line, so that a header alone (AM Short) is pushed by a
 * function that calls nothing (its frame stays small). */
static __attribute__((noinline)) int rv_shm_push_pl(rv_shm_ring_t *r, size_t cap, const void *hdr,
                                                    size_t hdrlen, const void *payload,
                                                    size_t paylen)
{
    return rv_shm_ring_push(r, cap, hdr, hdrlen, payload, paylen);
}

static int rv_shm_send(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr, size_t hdrlen,
                       const void *payload, size_t paylen)
{
    rv_shm_t *s = priv;
    RV_SHM_TSAN_SEND();
    if (__builtin_expect(peer == s->me, 0)) rv_shm_self_used(s);
    rv_shm_ring_t *r = s->out[peer * 2 + chan];
    if (paylen) return rv_shm_push_pl(r, s->cap, hdr, hdrlen, payload, paylen) ? RV_TP_AGAIN : 0;
    return rv_shm_ring_push(r, s->cap, hdr, hdrlen, NULL, 0) ? RV_TP_AGAIN : 0;
}

/* Negotiated-payload sends in place (transport.h: reserve/commit/unreserve). */
static void *rv_shm_reserve(void *priv, gex_Rank_t peer, unsigned chan, size_t hdrlen,
                            size_t maxlen)
{
    rv_shm_t *s = priv;
    if (__builtin_expect(peer == s->me, 0)) rv_shm_self_used(s);
    return rv_shm_ring_reserve(s->out[peer * 2 + chan], s->cap, hdrlen, maxlen);
}

static void rv_shm_commit(void *priv, gex_Rank_t peer, unsigned chan, const void *hdr,
                          size_t hdrlen, size_t paylen)
{
    rv_shm_t *s = priv;
    RV_SHM_TSAN_SEND();
    rv_shm_ring_commit(s->out[peer * 2 + chan], s->cap, hdr, hdrlen, paylen);
}

static void rv_shm_unreserve(void *priv, gex_Rank_t peer, unsigned chan)
{
    rv_shm_t *s = priv;
    rv_shm_ring_unreserve(s->out[peer * 2 + chan]);
}

/* Drains one ring that looked ready: messages are handled in place, then their space
 * is released. Out of line, so that polling empty rings stays a few loads. */
static __attribute__((noinline)) int rv_shm_drain(rv_shm_t *s, uint32_t src, unsigned chan)
{
    rv_shm_ring_t *r = s->in[src * 2 + chan];
    if (!rv_spin_trylock(&r->clock)) return 0;
    uint64_t *head = &s->ihead[src * 2 + chan];
    int n = 0;
    size_t len;
    void *msg;
    while (n < RV_SHM_POLL_BUDGET && (msg = rv_shm_ring_next(r, s->cap, head, &len)) != NULL) {
        RV_SHM_TSAN_RECV();
        rv_am_deliver(src, chan, msg, len);
        rv_shm_ring_release(r, head, len);
        n++;
    }
    if (src != s->me) /* the idle poll's next look: the word at the new head */
        __atomic_store_n(&s->peek[(src - (src > s->me)) * 2 + chan],
                         rv_shm_word(r, s->cap - 1, *head), __ATOMIC_RELAXED);
    rv_spin_unlock(&r->clock);
    return n;
}

/* One pass over the rings of channel 'chan' (in[] holds them at r * 2 + chan). */
static inline int rv_shm_poll_chan(rv_shm_t *s, unsigned chan)
{
    int n = 0;
    rv_shm_ring_t **in = s->in + chan;
    const size_t cap = s->cap;
    for (uint32_t r = 0, size = s->size; r < size; r++)
        if (__builtin_expect(rv_shm_ring_ready(in[2 * r], cap), 0)) n += rv_shm_drain(s, r, chan);
    return n;
}

static __attribute__((noinline)) int rv_shm_poll_all(rv_shm_t *s, unsigned chan_mask)
{
    /* replies first: they complete operations and free the senders' resources */
    int n = (chan_mask & RV_CHAN_MASK(RV_CHAN_REP)) ? rv_shm_poll_chan(s, RV_CHAN_REP) : 0;
    if (chan_mask & RV_CHAN_MASK(RV_CHAN_REQ)) n += rv_shm_poll_chan(s, RV_CHAN_REQ);
    return n;
}

/* Whether the word at a ring's consumer head (peek[]) is set: a hint, as rv_shm_ring_ready's. */
static inline int rv_shm_peek_ready(uint64_t *const *peek, uint32_t i)
{
#ifdef RV_SHM_TSAN
    (void)peek, (void)i;
    return 1;
#else
    return __atomic_load_n(__atomic_load_n(&peek[i], __ATOMIC_RELAXED), __ATOMIC_RELAXED) != 0;
#endif
}

/* A poll that finds nothing (most of them, in a wait loop) is one call-free pass over the
 * peers' rings: two loads each (the head word's address, kept by the drain, and the word), one
 * test per peer (its request and reply rings are neighbours in peek[]). */
static int rv_shm_poll(void *priv, unsigned chan_mask)
{
    rv_shm_t *s = priv;
    if (__builtin_expect(chan_mask != RV_CHAN_MASK_ALL ||
                         __atomic_load_n(&s->self_used, __ATOMIC_RELAXED), 0))
        return rv_shm_poll_all(s, chan_mask);
    uint64_t *const *peek = s->peek;
    for (uint32_t i = 0, k = s->nscan; i < k; i += 2)
        if (rv_shm_peek_ready(peek, i) | rv_shm_peek_ready(peek, i + 1))
            return rv_shm_poll_all(s, chan_mask);
    return 0;
}

/* The idle poll's first look, for the core to read without calling rv_shm_poll: the same
 * words (peek[]) and the same escape (self_used). Not under TSan, whose build always drains. */
static const rv_poll_hint_t *rv_shm_poll_hint(void *priv)
{
#ifdef RV_SHM_TSAN
    (void)priv;
    return NULL;
#else
    rv_shm_t *s = priv;
    s->hint.words = s->peek;
    s->hint.busy = &s->self_used;
    s->hint.n = s->nscan;
    return &s->hint;
#endif
}

/* Each rank's sync line sits after the rings of its queue object, which every rank maps. */
static uint64_t *rv_shm_sync_line(void *priv, gex_Rank_t rank)
{
    rv_shm_t *s = priv;
    return (uint64_t *)(void *)((char *)s->qmap[rank] + (size_t)s->size * 2 * s->stride);
}

static const rv_tp_ops_t rv_shm_ops = {
    .size = sizeof(rv_tp_ops_t),
    .send = rv_shm_send,
    .poll = rv_shm_poll,
    .reserve = rv_shm_reserve,
    .commit = rv_shm_commit,
    .unreserve = rv_shm_unreserve,
    .sync_line = rv_shm_sync_line,
    .poll_hint = rv_shm_poll_hint,
};

const rv_tp_desc_t rv_tp_shm_desc = {
    .size = sizeof(rv_tp_desc_t),
    .name = "shm",
    .abi = RV_TP_ABI,
    .priv_size = sizeof(rv_shm_t),
    .probe = rv_shm_probe,
    .open = rv_shm_open,
    .seg_attach = rv_shm_seg_attach,
    .close = rv_shm_close,
    .ops = &rv_shm_ops,
};
