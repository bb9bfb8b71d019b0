/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_long.c: AM Long payloads by RDMA. put-sync-send: put, wait for remote completion, send
 * the header. Target-side reassembly: the payload (a put carrying a nonce as immediate data) and
 * the header (carrying the same nonce) are injected back to back; the target matches them by
 * (source, nonce) and runs the handler once both are there, whichever came first. */
#include "am/am_long.h"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define RV_HAS_SANITIZER_FEATURE 1
#endif
#endif
#ifndef RV_HAS_SANITIZER_FEATURE
#define RV_HAS_SANITIZER_FEATURE 0
#endif

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#endif

size_t rv_am_long_packed;
size_t rv_am_long_copy_min;
static int rv_am_long_reasm;                  /* 1: reassembly, 0: put-sync-send */
enum { RV_HOLD_NONE, RV_HOLD_PAYLOAD, RV_HOLD_HEADER };
static int rv_am_long_hold;                   /* RIVET_AMLONG_HOLD (debug) */
#define RV_AM_LONG_HOLD_POLLS 2000            /* when holding: at least these polls ... */
#define RV_AM_LONG_HOLD_NS 20000000ll         /* ... and this long between the two halves */
static _Atomic uint32_t rv_am_long_nonce;
static rv_am_long_stats_t rv_am_long_st;

#define RV_LSTAT(f) __atomic_fetch_add(&rv_am_long_st.f, 1, __ATOMIC_RELAXED)

/* 1 on x86-64 CPUs with enhanced (ERMS) or fast short (FSRM) string moves, outside sanitizer
 * builds (their interceptors check memcpy, not an inline rep movsb). */
static int rv_am_fast_strings(void)
{
#if defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__) && \
    !RV_HAS_SANITIZER_FEATURE
    unsigned a, b, c, d;
    if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
    return (b & (1u << 9)) || (d & (1u << 4)); /* ERMS, FSRM */
#else
    return 0;
#endif
}

void rv_am_long_init(void)
{
    const char *m = rv_cfg.AMLONG;
    if (!strcmp(m, "reassembly")) rv_am_long_reasm = 1;
    else if (!strcmp(m, "sync")) rv_am_long_reasm = 0;
    else rv_fatal("environment: RIVET_AMLONG=%s is not one of reassembly, sync", m);
    const char *h = rv_cfg.AMLONG_HOLD;
    if (!strcmp(h, "none")) rv_am_long_hold = RV_HOLD_NONE;
    else if (!strcmp(h, "payload")) rv_am_long_hold = RV_HOLD_PAYLOAD;
    else if (!strcmp(h, "header")) rv_am_long_hold = RV_HOLD_HEADER;
    else rv_fatal("environment: RIVET_AMLONG_HOLD=%s is not one of none, payload, header", h);
    if (rv_am_long_reasm && rv_tp.lim.imm_bits < 31) {
        if (rv_tp.ops.put)
            rv_verbose(1, "AM Long: transport %s carries no immediate data: put-sync-send",
                       rv_tp.desc->name);
        rv_am_long_reasm = 0;
    }
    rv_am_long_packed = (size_t)rv_cfg.AMLONG_PACKED;
    rv_am_long_copy_min = rv_am_fast_strings() ? (size_t)rv_cfg.AMLONG_COPY : 0;
    if (rv_tp.ops.put)
        rv_verbose(1, "AM Long: payloads over %zu bytes to unmapped peers by RDMA, %s",
                   rv_am_long_packed, rv_am_long_reasm ? "target-side reassembly" : "put-sync-send");
}

void rv_am_long_get_stats(rv_am_long_stats_t *out)
{
    out->rdma_sync = __atomic_load_n(&rv_am_long_st.rdma_sync, __ATOMIC_RELAXED);
    out->rdma_reasm = __atomic_load_n(&rv_am_long_st.rdma_reasm, __ATOMIC_RELAXED);
    out->header_first = __atomic_load_n(&rv_am_long_st.header_first, __ATOMIC_RELAXED);
    out->payload_first = __atomic_load_n(&rv_am_long_st.payload_first, __ATOMIC_RELAXED);
}

/* ---- sender ---------------------------------------------------------------------- */

typedef struct rv_am_long_wait {
    rv_tp_cmpl_t     c;
    _Atomic unsigned ev;
} rv_am_long_wait_t;

static void rv_am_long_done(rv_tp_cmpl_t *c, unsigned ev)
{
    atomic_fetch_or_explicit(&((rv_am_long_wait_t *)(void *)c)->ev, ev, memory_order_release);
}

/* A Reply runs inside a Request handler: it may only drain replies. */
static inline void rv_am_long_step(unsigned chan)
{
    int n = chan == RV_CHAN_REP ? rv_poll_replies() : rv_poll();
    if (n == 0 && (rv_job.oversubscribed || rv_wait_crowded())) sched_yield();
}

static int64_t rv_am_long_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

/* Debug (RIVET_AMLONG_HOLD): keeps polling between the two halves of a reassembly Long, long
 * enough that the first half has reached the target even when the other core is busy (a
 * transport may need round trips, e.g. a flush, before that half leaves). */
static void rv_am_long_hold_back(unsigned chan)
{
    int64_t until = rv_am_long_now_ns() + RV_AM_LONG_HOLD_NS;
    for (int i = 0; i < RV_AM_LONG_HOLD_POLLS || rv_am_long_now_ns() < until; i++)
        rv_am_long_step(chan);
}

static void rv_am_long_send_hdr(gex_Rank_t jr, unsigned chan, const rv_am_hdr_t *h, size_t hl,
                                const void *pl, size_t pn)
{
    while (rv_tp.ops.send(rv_tp.priv, jr, chan, h, hl, pl, pn) != 0) rv_am_long_step(chan);
}

int rv_am_long_rdma(gex_Rank_t jr, unsigned chan, rv_am_hdr_t *h, size_t hl, const void *src,
                    size_t nbytes, gex_Flags_t flags)
{
    rv_am_long_wait_t w = { { rv_am_long_done }, 0 };
    int reasm = rv_am_long_reasm;
    uint64_t nrec = 0; /* the header's payload: the nonce */
    unsigned pflags = 0;
    if (reasm) {
        uint32_t nonce = atomic_fetch_add_explicit(&rv_am_long_nonce, 1, memory_order_relaxed);
        nrec = nonce & 0x7fffffffu;
        pflags = RV_TP_PUT_IMM(chan);
        h->kind |= RV_AM_F_RDMA;
    }
    int hold = reasm ? rv_am_long_hold : RV_HOLD_NONE;
    if (reasm && (flags & GEX_FLAG_IMMEDIATE) && hold == RV_HOLD_NONE) {
        /* The header first: if there is no credit (or room) for it, nothing has started and
         * the call unwinds; the payload put then only waits for transient resources. The
         * target matches the two in either order. */
        if (rv_tp.ops.send(rv_tp.priv, jr, chan, h, hl, &nrec, sizeof nrec) != 0) return 1;
        hold = RV_HOLD_PAYLOAD; /* i.e. the header is out */
        flags &= ~GEX_FLAG_IMMEDIATE;
    } else if (hold == RV_HOLD_PAYLOAD) { /* debug: the header goes first, the payload later */
        rv_am_long_send_hdr(jr, chan, h, hl, &nrec, sizeof nrec);
        rv_am_long_hold_back(chan);
        flags &= ~GEX_FLAG_IMMEDIATE;
    }
    int rc;
    while ((rc = rv_tp.ops.put(rv_tp.priv, jr, (uintptr_t)h->dest, src, nbytes, &w.c, pflags,
                               (uint32_t)nrec)) == RV_TP_AGAIN) {
        if (flags & GEX_FLAG_IMMEDIATE) return 1; /* nothing started */
        rv_am_long_step(chan);
    }
    unsigned need = (rc == RV_TP_LC_LATER ? RV_TP_EV_LOCAL : 0) | (reasm ? 0 : RV_TP_EV_REMOTE);
    if (!reasm) {
        RV_LSTAT(rdma_sync);
        while (!(atomic_load_explicit(&w.ev, memory_order_acquire) & RV_TP_EV_REMOTE))
            rv_am_long_step(chan);
        rv_am_long_send_hdr(jr, chan, h, hl, NULL, 0); /* a plain Long: the payload is there */
    } else {
        RV_LSTAT(rdma_reasm);
        if (hold == RV_HOLD_HEADER) rv_am_long_hold_back(chan);
        if (hold != RV_HOLD_PAYLOAD) rv_am_long_send_hdr(jr, chan, h, hl, &nrec, sizeof nrec);
    }
    /* the source is locally complete on return, and w must outlive every event it is owed */
    while ((atomic_load_explicit(&w.ev, memory_order_acquire) & need) != need) rv_am_long_step(chan);
    return 0;
}

/* ---- target: (source, nonce) -> whichever half came first ------------------------- */

#define RV_AM_LONG_BUCKETS 1024
#define RV_AM_LONG_MSG_MAX (RV_AM_HDR_MAX + 8)
enum { RV_LP_PAYLOAD = 1, RV_LP_HEADER = 2 };

typedef struct rv_am_lpend {
    uint64_t            key;
    struct rv_am_lpend *next;
    uint8_t             state, chan;
    uint16_t            len;
    uint64_t            msg[RV_AM_LONG_MSG_MAX / 8];
} rv_am_lpend_t;

static rv_am_lpend_t *rv_am_lp_bucket[RV_AM_LONG_BUCKETS];
static rv_am_lpend_t *rv_am_lp_free;
static pthread_mutex_t rv_am_lp_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint64_t rv_am_lp_key(gex_Rank_t src, uint32_t nonce)
{
    return (uint64_t)src << 32 | nonce;
}

static inline rv_am_lpend_t **rv_am_lp_slot(uint64_t key)
{
    uint64_t h = key * 0x9e3779b97f4a7c15ull;
    return &rv_am_lp_bucket[(h >> 40) & (RV_AM_LONG_BUCKETS - 1)];
}

/* Removes and returns the entry for key, or NULL. Lock held. */
static rv_am_lpend_t *rv_am_lp_take(uint64_t key)
{
    for (rv_am_lpend_t **p = rv_am_lp_slot(key); *p; p = &(*p)->next) {
        if ((*p)->key == key) {
            rv_am_lpend_t *e = *p;
            *p = e->next;
            return e;
        }
    }
    return NULL;
}

/* A new entry for key (lock held). Entries are allocated in batches, rarely. */
static rv_am_lpend_t *rv_am_lp_add(uint64_t key)
{
    if (!rv_am_lp_free) {
        rv_am_lpend_t *b = calloc(64, sizeof *b);
        if (!b) rv_fatal("out of memory matching AM Long payloads with their headers");
        for (int i = 0; i < 64; i++) {
            b[i].next = rv_am_lp_free;
            rv_am_lp_free = &b[i];
        }
    }
    rv_am_lpend_t *e = rv_am_lp_free;
    rv_am_lp_free = e->next;
    rv_am_lpend_t **s = rv_am_lp_slot(key);
    e->key = key;
    e->next = *s;
    *s = e;
    return e;
}

static inline void rv_am_lp_recycle(rv_am_lpend_t *e)
{
    e->next = rv_am_lp_free;
    rv_am_lp_free = e;
}

int rv_am_long_header(gex_Rank_t src, unsigned chan, const void *msg, size_t len,
                      const void *payload, size_t paylen)
{
    uint64_t nrec;
    if (paylen != sizeof nrec || len > RV_AM_LONG_MSG_MAX)
        rv_fatal("malformed reassembly AM Long from rank %u (%zu bytes)", src, len);
    memcpy(&nrec, payload, sizeof nrec);
    uint64_t key = rv_am_lp_key(src, (uint32_t)nrec);
    pthread_mutex_lock(&rv_am_lp_lock);
    rv_am_lpend_t *e = rv_am_lp_take(key);
    if (e) {
        if (e->state != RV_LP_PAYLOAD)
            rv_fatal("AM Long from rank %u: two headers with nonce %u", src, (unsigned)nrec);
        rv_am_lp_recycle(e);
        pthread_mutex_unlock(&rv_am_lp_lock);
        RV_LSTAT(payload_first);
        return 1;
    }
    e = rv_am_lp_add(key);
    e->state = RV_LP_HEADER;
    e->chan = (uint8_t)chan;
    e->len = (uint16_t)len;
    memcpy(e->msg, msg, len);
    pthread_mutex_unlock(&rv_am_lp_lock);
    RV_LSTAT(header_first);
    return 0;
}

void rv_am_imm_deliver(gex_Rank_t src, unsigned chan, uint32_t imm)
{
    uint64_t key = rv_am_lp_key(src, imm);
    pthread_mutex_lock(&rv_am_lp_lock);
    rv_am_lpend_t *e = rv_am_lp_take(key);
    if (!e) { /* the payload came first: the header will find this */
        e = rv_am_lp_add(key);
        e->state = RV_LP_PAYLOAD;
        e->chan = (uint8_t)chan;
        pthread_mutex_unlock(&rv_am_lp_lock);
        return;
    }
    if (e->state != RV_LP_HEADER || e->chan != chan)
        rv_fatal("AM Long from rank %u: payload with nonce %u does not match what arrived before",
                 src, (unsigned)imm);
    uint64_t copy[RV_AM_LONG_MSG_MAX / 8];
    size_t len = e->len;
    memcpy(copy, e->msg, len);
    rv_am_lp_recycle(e);
    pthread_mutex_unlock(&rv_am_lp_lock);
    /* both halves are here: deliver the header as a plain Long (payload in place) */
    ((rv_am_hdr_t *)(void *)copy)->kind &= (uint8_t)~RV_AM_F_RDMA;
    rv_am_deliver(src, chan, copy, len);
}
