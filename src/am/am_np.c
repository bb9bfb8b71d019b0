/* SPDX-License-Identifier: BSD-3-Clause */
/* am/am_np.c: negotiated-payload AM (Prepare/Commit, Commit_v2 and Cancel): in place in the
 * transport's send space when it offers reserve/commit (a Medium with a library buffer to
 * another rank), otherwise in a library buffer copied at Commit. */
#include "am/am_int.h"

#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdlib.h>

/* One outstanding Prepare per thread (Prepare/Commit pairs do not nest). */
struct rv_srcdesc {
    void            *addr;
    size_t           size;
    uint8_t          active, kind, is_reply, client_buf;
    uint8_t          reserved; /* addr is a transport reservation (rv_tp.ops.reserve) */
    unsigned         numargs;
    gex_Rank_t       jr;
    struct rv_token *tok;
    void            *dest;
    gex_Event_t     *lc;
    gex_Flags_t      flags;
    const char      *call;
};

static _Thread_local struct rv_srcdesc rv_sd;
static _Thread_local void  *rv_sd_buf; /* library-allocated payload buffer, grown on demand */
static _Thread_local size_t rv_sd_cap;

/* The buffer is freed when its thread exits (a key's destructor): threads come and go. */
static pthread_key_t  rv_sd_key;
static pthread_once_t rv_sd_once = PTHREAD_ONCE_INIT;
static void rv_sd_key_init(void)
{
    if (pthread_key_create(&rv_sd_key, free))
        rv_fatal("gex_AM_Prepare*: cannot create the thread key for payload buffers");
}

static gex_AM_SrcDesc_t rv_am_prepare(const char *call, int is_reply, unsigned kind, gex_Rank_t jr,
                                      struct rv_token *tok, const void *client_buf, size_t least,
                                      size_t most, void *dest, gex_Event_t *lc, gex_Flags_t flags,
                                      unsigned numargs)
{
    if (rv_sd.active)
        rv_fatal("%s: the previous Prepare on this thread (%s) was not committed or cancelled",
                 call, rv_sd.call);
    if (numargs > RV_AM_MAX_ARGS)
        rv_fatal("%s: numargs=%u exceeds gex_AM_MaxArgs()=%u", call, numargs, RV_AM_MAX_ARGS);
    size_t max = kind == RV_AM_MEDIUM ? rv_am_max_medium() : rv_am_max_long(jr);
    if (least > max)
        rv_fatal("%s: least_payload=%zu exceeds the largest payload to this peer (%zu)", call,
                 least, max);
    if (most < least)
        rv_fatal("%s: most_payload=%zu is less than least_payload=%zu", call, most, least);
    if (client_buf) rv_am_lc(call, lc, is_reply);
    size_t size = most < max ? most : max;
    void *addr = (void *)client_buf;
    uint8_t reserved = 0;
    if (!addr && kind == RV_AM_MEDIUM && rv_tp.ops.reserve && (jr != rv_job.rank || rv_am_lb_queue)) {
        /* In place: the payload is written where the peer will read it. Waiting for room
         * polls like a send; under GEX_FLAG_IMMEDIATE one poll and one retry, then a no-op. */
        unsigned chan = is_reply ? RV_CHAN_REP : RV_CHAN_REQ;
        size_t hl = RV_AM_HDR_BYTES(numargs);
        int tries = 0, waiting = 0;
        while (!(addr = rv_tp.ops.reserve(rv_tp.priv, jr, chan, hl, size))) {
            RV_STAT_INC(RV_ST_AM_SEND_AGAIN);
            int n = rv_am_xmit_poll(chan);
            if (flags & GEX_FLAG_IMMEDIATE) {
                if (!tries++) continue;
                if (tok) tok->replied = 0; /* a no-op: the handler may still Reply */
                RV_STAT_INC(RV_ST_AM_IMM_REFUSED);
                return GEX_AM_SRCDESC_NO_OP;
            }
            if (n == 0) rv_wait_idle(&waiting);
        }
        rv_wait_uncount(waiting);
        reserved = 1;
    } else if (!addr) {
        if (size > rv_sd_cap) {
            pthread_once(&rv_sd_once, rv_sd_key_init);
            void *p = realloc(rv_sd_buf, size);
            if (!p) rv_fatal("%s: out of memory for a %zu-byte payload buffer", call, size);
            if (pthread_setspecific(rv_sd_key, p)) rv_fatal("%s: pthread_setspecific failed", call);
            rv_sd_buf = p;
            rv_sd_cap = size;
        }
        addr = rv_sd_buf ? rv_sd_buf : (void *)&rv_sd; /* any non-NULL address for size 0 */
    }
    rv_sd.addr = addr;
    rv_sd.size = size;
    rv_sd.active = 1;
    rv_sd.kind = (uint8_t)kind;
    rv_sd.is_reply = (uint8_t)is_reply;
    rv_sd.client_buf = client_buf != NULL;
    rv_sd.reserved = reserved;
    rv_sd.numargs = numargs;
    rv_sd.jr = jr;
    rv_sd.tok = tok;
    rv_sd.dest = dest;
    rv_sd.lc = lc;
    rv_sd.flags = flags & ~GEX_FLAG_IMMEDIATE;
    rv_sd.call = call;
    return &rv_sd;
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestMedium(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                             size_t least_payload, size_t most_payload,
                                             gex_Event_t *lc_opt, gex_Flags_t flags,
                                             unsigned int numargs)
{
    static const char call[] = "gex_AM_PrepareRequestMedium";
    gex_Rank_t jr = rv_am_req_check(call, tm, rank);
    return rv_am_prepare(call, 0, RV_AM_MEDIUM, jr, NULL, client_buf, least_payload, most_payload,
                         NULL, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyMedium(gex_Token_t token, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs)
{
    static const char call[] = "gex_AM_PrepareReplyMedium";
    struct rv_token *t = rv_am_rep_check(call, token);
    return rv_am_prepare(call, 1, RV_AM_MEDIUM, t->src, t, client_buf, least_payload, most_payload,
                         NULL, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareRequestLong(gex_TM_t tm, gex_Rank_t rank, const void *client_buf,
                                           size_t least_payload, size_t most_payload,
                                           void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                           unsigned int numargs)
{
    static const char call[] = "gex_AM_PrepareRequestLong";
    gex_Rank_t jr = rv_am_req_check(call, tm, rank);
    return rv_am_prepare(call, 0, RV_AM_LONG, jr, NULL, client_buf, least_payload, most_payload,
                         dest_addr, lc_opt, flags, numargs);
}

gex_AM_SrcDesc_t gex_AM_PrepareReplyLong(gex_Token_t token, const void *client_buf,
                                         size_t least_payload, size_t most_payload,
                                         void *dest_addr, gex_Event_t *lc_opt, gex_Flags_t flags,
                                         unsigned int numargs)
{
    static const char call[] = "gex_AM_PrepareReplyLong";
    struct rv_token *t = rv_am_rep_check(call, token);
    return rv_am_prepare(call, 1, RV_AM_LONG, t->src, t, client_buf, least_payload, most_payload,
                         dest_addr, lc_opt, flags, numargs);
}

static struct rv_srcdesc *rv_sd_check(const char *call, gex_AM_SrcDesc_t sd)
{
    if (sd != &rv_sd || !rv_sd.active)
        rv_fatal("%s: the source descriptor is not the live result of a Prepare on this thread",
                 call);
    return sd;
}

void *gex_AM_SrcDescAddr(gex_AM_SrcDesc_t sd) { return rv_sd_check("gex_AM_SrcDescAddr", sd)->addr; }
size_t gex_AM_SrcDescSize(gex_AM_SrcDesc_t sd) { return rv_sd_check("gex_AM_SrcDescSize", sd)->size; }

int _rivet_am_commit(gex_AM_SrcDesc_t sd, gex_AM_Index_t handler, size_t nbytes, void *dest_addr,
                     gex_Flags_t flags, unsigned int numargs, ...)
{
    static const char call[] = "gex_AM_Commit";
    struct rv_srcdesc *d = rv_sd_check(call, sd);
    if (numargs != d->numargs)
        rv_fatal("%s: %u arguments, but %s announced numargs=%u", call, numargs, d->call,
                 d->numargs);
    if (nbytes > d->size)
        rv_fatal("%s: nbytes=%zu exceeds gex_AM_SrcDescSize()=%zu", call, nbytes, d->size);
    if (d->kind == RV_AM_LONG && d->dest && dest_addr != d->dest)
        rv_fatal("%s: dest_addr %p differs from the %p given to %s", call, dest_addr, d->dest,
                 d->call);
    gex_AM_Arg_t a[RV_AM_MAX_ARGS + 1];
    va_list ap;
    va_start(ap, numargs);
    for (unsigned i = 0; i < numargs; i++) a[i] = (gex_AM_Arg_t)va_arg(ap, int);
    va_end(ap);
    if (d->reserved) { /* the payload is in place: add the header and publish; never refused */
        uint64_t hb[RV_AM_HDR_MAX / 8];
        size_t hl = rv_am_hdr_fill((rv_am_hdr_t *)(void *)hb, RV_AM_MEDIUM, handler, nbytes, NULL,
                                   numargs, a);
        d->active = 0;
        rv_tp.ops.commit(rv_tp.priv, d->jr, d->is_reply ? RV_CHAN_REP : RV_CHAN_REQ, hb, hl,
                         nbytes);
        if (RV_STAT_ON())
            rv_am_stat_sent(d->is_reply ? RV_CHAN_REP : RV_CHAN_REQ, RV_AM_MEDIUM, nbytes, 0);
        return 0;
    }
    /* The send may poll (waiting for room, or for an RDMA payload) and so run handlers
     * on this thread that Prepare their own Replies: free the descriptor and keep the
     * payload buffer out of their reach until the send is done. */
    struct rv_srcdesc saved = *d;
    void *own = d->client_buf ? NULL : rv_sd_buf;
    size_t owncap = rv_sd_cap;
    if (own) {
        rv_sd_buf = NULL;
        rv_sd_cap = 0;
    }
    d->active = 0;
    int rc = rv_am_send(saved.call, saved.jr, saved.is_reply ? RV_CHAN_REP : RV_CHAN_REQ,
                        saved.kind, handler, saved.addr, nbytes,
                        saved.kind == RV_AM_LONG ? dest_addr : NULL,
                        saved.flags | (flags & GEX_FLAG_IMMEDIATE), numargs, a);
    if (own) {
        if (rv_sd_buf) { /* one a nested Prepare allocated meanwhile */
            free(rv_sd_buf);
            pthread_setspecific(rv_sd_key, own); /* own is again what the thread frees */
        }
        rv_sd_buf = own;
        rv_sd_cap = owncap;
    }
    if (rc) {
        *d = saved; /* no room: the descriptor stays live for another Commit or a Cancel */
        return 1;
    }
    return 0;
}

static int rv_am_cancel(const char *call, gex_AM_SrcDesc_t sd, unsigned kind, int is_reply)
{
    struct rv_srcdesc *d = rv_sd_check(call, sd);
    if (d->kind != kind || d->is_reply != is_reply)
        rv_fatal("%s does not match %s", call, d->call);
    if (d->tok) d->tok->replied = 0;
    d->active = 0;
    if (d->reserved) rv_tp.ops.unreserve(rv_tp.priv, d->jr, is_reply ? RV_CHAN_REP : RV_CHAN_REQ);
    return GASNET_OK;
}

int gex_AM_CancelRequestMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    (void)flags;
    return rv_am_cancel("gex_AM_CancelRequestMedium", sd, RV_AM_MEDIUM, 0);
}
int gex_AM_CancelReplyMedium(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    (void)flags;
    return rv_am_cancel("gex_AM_CancelReplyMedium", sd, RV_AM_MEDIUM, 1);
}
int gex_AM_CancelRequestLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    (void)flags;
    return rv_am_cancel("gex_AM_CancelRequestLong", sd, RV_AM_LONG, 0);
}
int gex_AM_CancelReplyLong(gex_AM_SrcDesc_t sd, gex_Flags_t flags)
{
    (void)flags;
    return rv_am_cancel("gex_AM_CancelReplyLong", sd, RV_AM_LONG, 1);
}
