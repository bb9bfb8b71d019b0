/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_inject.c: AM Request/Reply injection (Short, Medium, Long) and internal sends. */
#include "am/am_int.h"
#include "am/am_long.h"
#include "am/am_run.h"
#include "core/trace.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

typedef union {
    rv_am_hdr_t h;
    uint64_t    raw[RV_AM_HDR_MAX / 8];
} rv_am_hdrbuf_t;

/* Makes progress while a send waits for room. A Reply is sent from a Request handler: it
 * may only drain replies, which never send, so two ranks replying to each other cannot
 * deadlock. */
__attribute__((noinline)) int rv_am_xmit_poll(unsigned chan)
{
    return chan == RV_CHAN_REP ? rv_poll_replies() : rv_poll();
}

/* A burst of client Requests also serves the traffic coming the other way: a thread's 32nd
 * Request, or the one that brings the payload its Requests carried to 256 KiB (half of a
 * default shm ring), polls once before it is sent; then both counts start over. The
 * specification lets a Request poll; no handler is running (rv_am_req_check made sure).
 * Without it, two ranks flooding each other only drain once their rings are full, then wait
 * for each other, full ring against full ring: testam's two-way Medium flood took 1.3-2x longer
 * (8-64 KiB). An idle poll per 32 small Requests costs a few instructions each.
 * Library-internal Requests never poll here: they may be sent from progress hooks, which a
 * poll would re-enter. Nor do IMMEDIATE ones: the client asked for an injection attempt that
 * returns at once (a refusal polls once, below, as before). */
#define RV_AM_REQ_POLL_EVERY 32u
#define RV_AM_REQ_POLL_BYTES (256u * 1024u)
static _Thread_local struct { unsigned n; size_t bytes; } rv_am_req_sent;

typedef int (*rv_tp_send_fn)(void *, gex_Rank_t, unsigned, const void *, size_t, const void *,
                             size_t); /* rv_tp.ops.send or send_ref */

/* rv_am_xmit's send found no room: out of line, so that the send that goes through at once
 * keeps a small frame. */
static __attribute__((noinline)) int rv_am_xmit_wait(rv_tp_send_fn send, gex_Rank_t jr,
                                                     unsigned chan, const rv_am_hdr_t *h,
                                                     size_t hl, const void *pl, size_t pn,
                                                     gex_Flags_t flags)
{
    int tries = 0, waiting = 0;
    do {
        RV_STAT_INC(RV_ST_AM_SEND_AGAIN);
        if ((flags & GEX_FLAG_IMMEDIATE) && (h->kind & RV_AM_F_INTERNAL)) return 1;
        int n = rv_am_xmit_poll(chan);
        if (flags & GEX_FLAG_IMMEDIATE) {
            if (tries++) return 1;
            continue;
        }
        if (n == 0) rv_wait_idle(&waiting);
    } while (send(rv_tp.priv, jr, chan, h, hl, pl, pn) != 0);
    rv_wait_uncount(waiting);
    return 0;
}

/* Hands one message to the transport, making progress while its receive space is full.
 * Under GEX_FLAG_IMMEDIATE a refused send polls once and retries once before it reports
 * backpressure: a bounded step, never a wait, and it turns most refusals into successes
 * (the room a poll frees is usually the peer's drain of our own ring, seen one poll later),
 * so a client's retry loop does not spin on refusals that cost nothing to make and nothing
 * to act on. Internal IMMEDIATE sends return at once: library protocols send them from
 * progress hooks, which a poll would re-enter. */
static inline int rv_am_xmit(gex_Rank_t jr, unsigned chan, const rv_am_hdr_t *h, size_t hl,
                             const void *pl, size_t pn, gex_Flags_t flags)
{
    if (chan == RV_CHAN_REQ && !(h->kind & RV_AM_F_INTERNAL) && !(flags & GEX_FLAG_IMMEDIATE) &&
        __builtin_expect(++rv_am_req_sent.n >= RV_AM_REQ_POLL_EVERY ||
                             (rv_am_req_sent.bytes += pn) >= RV_AM_REQ_POLL_BYTES, 0)) {
        rv_am_req_sent.n = 0;
        rv_am_req_sent.bytes = 0;
        rv_poll();
    }
    rv_tp_send_fn send = rv_tp.ops.send;
    if ((flags & RV_AM_FLAG_PAYLOAD_REF) && rv_tp.ops.send_ref) send = rv_tp.ops.send_ref;
    if (__builtin_expect(send(rv_tp.priv, jr, chan, h, hl, pl, pn) != 0, 0))
        return rv_am_xmit_wait(send, jr, chan, h, hl, pl, pn, flags);
    return 0;
}

#define RV_AM_IMM_DIRECT_MIN 512

/* A Long payload into a peer's mapped segment. Its destination lines are often in the
 * peer's cache (its handlers read the previous payloads there, or it wrote them): vector
 * stores must first fetch each line from there (read for ownership), a fast string copy
 * writes whole lines and only invalidates them. glibc picks the string copy only above a
 * size (2112 bytes on CPUs with FSRM); below it, testam's two-way Long flood, whose ranks each
 * read the region the other writes, ran 2-2.5x slower per message at 1.5-2 KiB than at
 * 2.5 KiB and up. From 4 KiB on, memcpy: glibc takes the string copy there itself (on most
 * x86-64 CPUs), and past the caches non-temporal stores. */
static inline void rv_am_copy_long(void *dst, const void *src, size_t n)
{
#if defined(__x86_64__)
    if (rv_am_long_copy_min && n >= rv_am_long_copy_min && n < RV_AM_COPY_END) {
        __asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(n) : : "memory");
        return;
    }
#endif
    memcpy(dst, src, n);
}

/* An IMMEDIATE Long whose target segment is mapped here: reserves the header's room in the
 * peer's receive space (refused: one poll and one retry, as rv_am_xmit), then copies the
 * payload into the segment and publishes the header. A refusal leaves no trace. */
static __attribute__((noinline)) int rv_am_xmit_direct_imm(gex_Rank_t jr, unsigned chan,
                                                           const rv_am_hdr_t *h, size_t hl,
                                                           void *dst, const void *src,
                                                           size_t nbytes)
{
    int tries = 0;
    while (!rv_tp.ops.reserve(rv_tp.priv, jr, chan, hl, 0)) {
        if (tries++) return 1;
        rv_am_xmit_poll(chan);
    }
    rv_am_copy_long(dst, src, nbytes);
    rv_tp.ops.commit(rv_tp.priv, jr, chan, h, hl, 0);
    return 0;
}

/* ---- loopback: a client AM to this rank runs its handler inside the injecting call ---- *
 * No message is built: the arguments go straight to the handler (rv_am_run_local: the entry
 * checks, token and handler context of rv_am_deliver). A Medium payload is copied first, so
 * the handler gets a private copy; a Long payload is already in the own segment. A Request
 * handler may Reply to this rank, which nests one level (Reply handlers never send), so each
 * thread needs at most one payload buffer per channel; small payloads use the stack. Internal
 * AMs keep the ring: library protocols expect their handlers to run from a poll, never inside
 * their own sends. */
#define RV_AM_LB_STACK 512

int rv_am_lb_queue; /* RIVET_AM_LOOPBACK=queue: own-rank AMs take the transport (tests) */

static _Thread_local void *rv_am_lb_buf[2]; /* per channel, max Medium bytes */
static pthread_key_t  rv_am_lb_key;
static pthread_once_t rv_am_lb_once = PTHREAD_ONCE_INIT;

static void rv_am_lb_free(void *p)
{
    void **b = p;
    free(b[0]);
    free(b[1]);
    free(b);
}

static void rv_am_lb_key_init(void)
{
    if (pthread_key_create(&rv_am_lb_key, rv_am_lb_free))
        rv_fatal("AM loopback: cannot create the thread key for its buffers");
}

static __attribute__((noinline)) void *rv_am_lb_grow(unsigned chan)
{
    pthread_once(&rv_am_lb_once, rv_am_lb_key_init);
    void **keep = pthread_getspecific(rv_am_lb_key);
    if (!keep && (!(keep = calloc(2, sizeof *keep)) || pthread_setspecific(rv_am_lb_key, keep)))
        rv_fatal("AM loopback: out of memory");
    if (!(keep[chan] = malloc(rv_am_max_medium())))
        rv_fatal("AM loopback: out of memory for a %zu-byte buffer", rv_am_max_medium());
    return rv_am_lb_buf[chan] = keep[chan];
}

/* A Medium to the own rank: its handler runs on a private copy of the payload. */
static inline __attribute__((always_inline)) int
rv_am_lb_medium(unsigned chan, gex_AM_Index_t handler, const void *src, size_t nbytes,
                unsigned nargs, const gex_AM_Arg_t *args)
{
    uint64_t small[RV_AM_LB_STACK / 8];
    void *buf = small;
    if (nbytes > sizeof small) {
        buf = rv_am_lb_buf[chan];
        if (!buf) buf = rv_am_lb_grow(chan);
    }
    if (nbytes) memcpy(buf, src, nbytes);
    RV_STAT_INC(RV_ST_AM_LOOPBACK);
    rv_am_run_local(chan, RV_AM_MEDIUM, handler, buf, nbytes, args, nargs);
    return 0;
}

/* A Short, or a Long whose payload is in place, to the own rank. */
static inline __attribute__((always_inline)) int
rv_am_lb_run(unsigned chan, unsigned kind, gex_AM_Index_t handler, void *buf, size_t nbytes,
             unsigned nargs, const gex_AM_Arg_t *args)
{
    RV_STAT_INC(RV_ST_AM_LOOPBACK);
    rv_am_run_local(chan, kind, handler, buf, nbytes, args, nargs);
    return 0;
}

void rv_am_lc(const char *call, gex_Event_t *lc, int is_reply)
{
    if (lc == GEX_EVENT_NOW || lc == NULL) return;
    if (lc == GEX_EVENT_GROUP) {
        if (is_reply) rv_fatal("%s: GEX_EVENT_GROUP is not allowed as lc_opt of a Reply", call);
        return; /* payload already copied: nothing left for gex_NBI_* to track */
    }
    if (lc == GEX_EVENT_DEFER) rv_fatal("%s: GEX_EVENT_DEFER is not allowed as lc_opt of an AM", call);
    *lc = GEX_EVENT_INVALID; /* locally complete on return */
}

/* RIVET_STATS: one AM the caller asked for, sent (rc 0) or refused under IMMEDIATE. */
__attribute__((noinline)) void rv_am_stat_sent(unsigned chan, unsigned kind, size_t nbytes, int rc)
{
    if (kind & RV_AM_F_INTERNAL) {
        if (!rc) rv_stats_add(RV_ST_AM_INT_SENT, 1);
        return;
    }
    if (rc) {
        rv_stats_add(RV_ST_AM_IMM_REFUSED, 1);
        return;
    }
    unsigned k = (kind & RV_AM_KIND_MASK) - RV_AM_SHORT, rep = chan == RV_CHAN_REP;
    rv_stats_add((rv_stat_t)(RV_ST_AM_SENT_SHORT_REQ + 2 * k + rep), 1);
    if (!k) return;
    rv_stats_add((rv_stat_t)(RV_ST_AM_BYTES_MEDIUM_REQ + 2 * (k - 1) + rep), nbytes);
    rv_stat_t c = nbytes <= 64 ? RV_ST_AM_SIZE_64 : nbytes <= 512 ? RV_ST_AM_SIZE_512
                : nbytes <= 4096 ? RV_ST_AM_SIZE_4K : nbytes <= 32768 ? RV_ST_AM_SIZE_32K
                : nbytes <= 262144 ? RV_ST_AM_SIZE_256K : RV_ST_AM_SIZE_BIG;
    rv_stats_add(c, 1);
}

/* The header is built in *hb; args may already be there (hb->h.args: the gex_AM_* calls
 * collect their arguments straight into it, and the copy folds away). */
static inline __attribute__((always_inline)) int
rv_am_send_body(const char *call, gex_Rank_t jr, unsigned chan, unsigned kind,
                gex_AM_Index_t handler, const void *src, size_t nbytes, void *dest,
                gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args, rv_am_hdrbuf_t *hb)
{
    const void *pl = NULL;
    size_t pn = 0;
    unsigned k = kind & RV_AM_KIND_MASK;
    /* a client AM to the own rank runs here and now (loopback, above) */
    int lb = __builtin_expect(jr == rv_job.rank, 0) && !(kind & RV_AM_F_INTERNAL) &&
             !rv_am_lb_queue;
    if (k == RV_AM_SHORT) {
        if (lb) return rv_am_lb_run(chan, RV_AM_SHORT, handler, NULL, 0, nargs, args);
    } else if (k == RV_AM_MEDIUM) {
        size_t max = rv_am_max_medium();
        if (__builtin_expect(nbytes > max, 0))
            rv_fatal("%s: nbytes=%zu exceeds gex_AM_Max%sMedium()=%zu", call, nbytes,
                     chan == RV_CHAN_REQ ? "Request" : "Reply", max);
        if (lb) return rv_am_lb_medium(chan, handler, src, nbytes, nargs, args);
        pl = src;
        pn = nbytes;
    } else if (k == RV_AM_LONG && !nbytes) {
        if (lb) return rv_am_lb_run(chan, RV_AM_LONG, handler, dest, 0, nargs, args);
    }
    size_t hl = rv_am_hdr_fill(&hb->h, kind, handler, nbytes, dest, nargs, args);
    if (k == RV_AM_LONG && nbytes) {
        size_t max = rv_am_max_long(jr);
        if (__builtin_expect(nbytes > max, 0))
            rv_fatal("%s: nbytes=%zu exceeds gex_AM_Max%sLong()=%zu for rank %u", call, nbytes,
                     chan == RV_CHAN_REQ ? "Request" : "Reply", max, jr);
        const rv_segmap_t *m = rv_segmap ? &rv_segmap[jr] : NULL;
        if (!m || !m->size) rv_fatal("%s: rank %u has no bound segment for a Long payload", call, jr);
        uintptr_t d = (uintptr_t)dest, base = (uintptr_t)m->owner_base;
        if (d < base || nbytes > m->size || d - base > m->size - nbytes)
            rv_fatal("%s: destination [%p, %p) is outside the bound segment [%p, %p) of jobrank %u",
                     call, dest, (void *)(d + nbytes), m->owner_base, (void *)(base + m->size), jr);
        if (lb) {
            memcpy(dest, src, nbytes); /* loopback: straight into the own segment */
            return rv_am_lb_run(chan, RV_AM_LONG, handler, dest, nbytes, nargs, args);
        } else if (m->local_base && (flags & GEX_FLAG_IMMEDIATE) && rv_tp.ops.reserve &&
                   nbytes > RV_AM_IMM_DIRECT_MIN && !(kind & RV_AM_F_INTERNAL)) {
            /* A client's IMMEDIATE: room for the header first, then the payload straight
             * into the mapped segment, as without the flag (one copy, not two). Small
             * payloads travel inline below: their second copy costs less than a
             * reservation. (Library protocols keep inline payloads: their IMMEDIATE
             * chunks meet backpressure in the ring, which they count on.) */
            return rv_am_xmit_direct_imm(jr, chan, &hb->h, hl,
                                         (char *)m->local_base + (d - base), src, nbytes);
        } else if (m->local_base &&
            !((flags & GEX_FLAG_IMMEDIATE) && nbytes <= rv_am_max_medium())) {
            /* Direct copy into the mapped segment. Under IMMEDIATE a refused send
             * must leave no trace, so payloads that fit travel inline instead;
             * larger ones are copied and the send then waits for room. */
            rv_am_copy_long((char *)m->local_base + (d - base), src, nbytes);
            flags &= ~GEX_FLAG_IMMEDIATE;
        } else if ((m->flags & RV_SEG_RDMA) && nbytes > rv_am_long_packed &&
                   !((flags & GEX_FLAG_IMMEDIATE) && nbytes <= rv_am_max_medium())) {
            /* Payload by RDMA (am_long.c). Under IMMEDIATE, payloads that fit travel
             * inline as above; larger ones unwind if the put cannot start. */
            return rv_am_long_rdma(jr, chan, &hb->h, hl, src, nbytes, flags);
        } else {
            hb->h.kind |= RV_AM_F_INLINE;
            pl = src;
            pn = nbytes;
        }
    }
    return rv_am_xmit(jr, chan, &hb->h, hl, pl, pn, flags);
}

/* RIVET_STATS and RIVET_TRACE: the send counted (sent, or refused under IMMEDIATE) and traced
 * (one event named by its call, or by the library's AM for its own, with the peer, payload
 * size and handler index), as each is on. */
static __attribute__((noinline)) int
rv_am_send_observed(const char *call, gex_Rank_t jr, unsigned chan, unsigned kind,
                    gex_AM_Index_t handler, const void *src, size_t nbytes, void *dest,
                    gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args,
                    rv_am_hdrbuf_t *hb)
{
    int trace = RV_OBS_ON(RV_OBS_TRACE);
    unsigned id = (kind & RV_AM_F_INTERNAL) ? RV_TR_AMI_SEND : RV_TR_AM_SEND;
    uint64_t t0 = trace ? rv_trace_begin(id) : 0;
    int rc =
        rv_am_send_body(call, jr, chan, kind, handler, src, nbytes, dest, flags, nargs, args, hb);
    if (RV_STAT_ON()) rv_am_stat_sent(chan, kind, nbytes, rc);
    if (trace && !rc)
        rv_trace_end(id, t0,
                     (kind & RV_AM_F_INTERNAL) ? rv_am_internal_name(handler, chan == RV_CHAN_REQ)
                                               : call,
                     jr, nbytes, handler);
    return rc;
}

/* The send with its observability hook, one not-taken branch: inlined into the gex_AM_* calls
 * below, so each keeps its constant category and channel. */
static inline __attribute__((always_inline)) int
rv_am_send_i(const char *call, gex_Rank_t jr, unsigned chan, unsigned kind, gex_AM_Index_t handler,
             const void *src, size_t nbytes, void *dest, gex_Flags_t flags, unsigned nargs,
             const gex_AM_Arg_t *args, rv_am_hdrbuf_t *hb)
{
    if (RV_OBS_ON(RV_OBS_TRACE | RV_OBS_STATS))
        return rv_am_send_observed(call, jr, chan, kind, handler, src, nbytes, dest, flags, nargs,
                                   args, hb);
    return rv_am_send_body(call, jr, chan, kind, handler, src, nbytes, dest, flags, nargs, args,
                           hb);
}

int rv_am_send(const char *call, gex_Rank_t jr, unsigned chan, unsigned kind,
               gex_AM_Index_t handler, const void *src, size_t nbytes, void *dest,
               gex_Flags_t flags, unsigned nargs, const gex_AM_Arg_t *args)
{
    rv_am_hdrbuf_t hb;
    return rv_am_send_i(call, jr, chan, kind, handler, src, nbytes, dest, flags, nargs, args, &hb);
}

/* Collects a call's variadic handler arguments where its header goes: into the buffer hb it
 * declares (a is hb.h.args). */
#define RV_AM_ARGS(call, numargs, last, a)                                                  \
    rv_am_hdrbuf_t hb;                                                                      \
    gex_AM_Arg_t *const a = hb.h.args;                                                      \
    do {                                                                                    \
        if (__builtin_expect((numargs) > RV_AM_MAX_ARGS, 0))                                \
            rv_fatal("%s: %u handler arguments exceed gex_AM_MaxArgs()=%u", call, numargs,  \
                     RV_AM_MAX_ARGS);                                                       \
        va_list ap_;                                                                        \
        va_start(ap_, last);                                                                \
        for (unsigned i_ = 0; i_ < (numargs); i_++) a[i_] = (gex_AM_Arg_t)va_arg(ap_, int); \
        va_end(ap_);                                                                        \
    } while (0)

static __attribute__((noinline, noreturn)) void rv_am_req_in_handler(const char *call)
{
    if (!rv_am_cur_token->is_req)
        rv_fatal("%s: called from a Reply handler; Reply handlers may not communicate", call);
    rv_fatal("%s: called from a Request handler; Request handlers may only Reply", call);
}

static inline __attribute__((always_inline)) gex_Rank_t
rv_am_req_check_i(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    if (__builtin_expect(rv_am_cur_token != NULL, 0)) rv_am_req_in_handler(call);
    /* rv_tm_check_rank's checks, inline; it reports the first that fails */
    if (__builtin_expect(!rv_client_g || tm == GEX_TM_INVALID || rank >= tm->size, 0))
        rv_tm_check_rank(call, tm, rank);
    gex_Rank_t jr = rv_tm_jobrank(tm, rank);
    if (__builtin_expect(tm->is_pair, 0) && (tm->pair_index || tm->ep->index))
        rv_tm_pair_only_rma(call, "GEX_EP_CAPABILITY_AM", tm);
    return jr;
}

gex_Rank_t rv_am_req_check(const char *call, gex_TM_t tm, gex_Rank_t rank)
{
    return rv_am_req_check_i(call, tm, rank);
}

/* A token that is not the running handler's (or NULL): the first of these that applies. */
static __attribute__((noinline, noreturn)) void rv_am_rep_bad(const char *call, gex_Token_t tok)
{
    RV_CHECK_INIT(call);
    if (!tok) rv_fatal("%s: token is NULL", call);
    rv_fatal("%s: the token is not that of the AM handler running on this thread; a Reply "
             "must be sent from inside its Request handler", call);
}

struct rv_token *rv_am_rep_check(const char *call, gex_Token_t tok)
{
    /* The token lives only while its handler runs, on the thread running it: the running
     * handler's token is not NULL, and a handler runs only after init. */
    if (__builtin_expect(!tok || tok != rv_am_cur_token, 0)) rv_am_rep_bad(call, tok);
    if (__builtin_expect(!tok->is_req, 0))
        rv_fatal("%s: called from a Reply handler; Reply handlers may not communicate", call);
    if (__builtin_expect(tok->replied, 0))
        rv_fatal("%s: a Request handler may send at most one Reply", call);
    tok->replied = 1;
    return tok;
}

int _rivet_am_request_short(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler, gex_Flags_t flags,
                            unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_RequestShort";
    gex_Rank_t jr = rv_am_req_check_i(call, tm, rank);
    RV_AM_ARGS(call, numargs, numargs, a);
    return rv_am_send_i(call, jr, RV_CHAN_REQ, RV_AM_SHORT, handler, NULL, 0, NULL, flags, numargs,
                        a, &hb);
}

int _rivet_am_request_medium(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                             const void *source_addr, size_t nbytes, gex_Event_t *lc_opt,
                             gex_Flags_t flags, unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_RequestMedium";
    gex_Rank_t jr = rv_am_req_check_i(call, tm, rank);
    rv_am_lc(call, lc_opt, 0);
    RV_AM_ARGS(call, numargs, numargs, a);
    return rv_am_send_i(call, jr, RV_CHAN_REQ, RV_AM_MEDIUM, handler, source_addr, nbytes, NULL,
                      flags, numargs, a, &hb);
}

int _rivet_am_request_long(gex_TM_t tm, gex_Rank_t rank, gex_AM_Index_t handler,
                           const void *source_addr, size_t nbytes, void *dest_addr,
                           gex_Event_t *lc_opt, gex_Flags_t flags, unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_RequestLong";
    gex_Rank_t jr = rv_am_req_check_i(call, tm, rank);
    rv_am_lc(call, lc_opt, 0);
    RV_AM_ARGS(call, numargs, numargs, a);
    return rv_am_send_i(call, jr, RV_CHAN_REQ, RV_AM_LONG, handler, source_addr, nbytes, dest_addr,
                      flags, numargs, a, &hb);
}

int _rivet_am_reply_short(gex_Token_t token, gex_AM_Index_t handler, gex_Flags_t flags,
                          unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_ReplyShort";
    struct rv_token *t = rv_am_rep_check(call, token);
    RV_AM_ARGS(call, numargs, numargs, a);
    int rc = rv_am_send_i(call, t->src, RV_CHAN_REP, RV_AM_SHORT, handler, NULL, 0, NULL, flags,
                        numargs, a, &hb);
    if (rc) t->replied = 0;
    return rc;
}

int _rivet_am_reply_medium(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                           size_t nbytes, gex_Event_t *lc_opt, gex_Flags_t flags,
                           unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_ReplyMedium";
    struct rv_token *t = rv_am_rep_check(call, token);
    rv_am_lc(call, lc_opt, 1);
    RV_AM_ARGS(call, numargs, numargs, a);
    int rc = rv_am_send_i(call, t->src, RV_CHAN_REP, RV_AM_MEDIUM, handler, source_addr, nbytes,
                        NULL, flags, numargs, a, &hb);
    if (rc) t->replied = 0;
    return rc;
}

int _rivet_am_reply_long(gex_Token_t token, gex_AM_Index_t handler, const void *source_addr,
                         size_t nbytes, void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                         unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_ReplyLong";
    struct rv_token *t = rv_am_rep_check(call, token);
    rv_am_lc(call, lc_opt, 1);
    RV_AM_ARGS(call, numargs, numargs, a);
    int rc = rv_am_send_i(call, t->src, RV_CHAN_REP, RV_AM_LONG, handler, source_addr, nbytes,
                        dest_addr, flags, numargs, a, &hb);
    if (rc) t->replied = 0;
    return rc;
}

int rv_am_send_internal(gex_Rank_t jobrank, unsigned chan, unsigned kind, unsigned index,
                        const gex_AM_Arg_t *args, unsigned nargs, const void *payload,
                        size_t nbytes, void *dest, gex_Flags_t flags)
{
    return rv_am_send("rivet internal AM", jobrank, chan, kind | RV_AM_F_INTERNAL,
                      (gex_AM_Index_t)index, payload, nbytes, dest, flags, nargs, args);
}
