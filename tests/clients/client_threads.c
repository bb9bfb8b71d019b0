/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clients/client_threads.c: a Realm-style multi-threaded client (GASNET_PAR) using only
 * the public headers. Peers are picked from gex_System_QueryNbrhdInfo / QueryHostInfo. On each
 * rank the main thread only polls (gasnet_AMPoll in a loop, like Realm's background poller)
 * while NWORKERS worker threads inject at the same time: NPAM Mediums (IMMEDIATE), PutNB, GetNB, PutNBI / GetNBI with
 * gex_NBI_Wait, and AM Long Requests (some with GEX_FLAG_IMMEDIATE, retried when refused)
 * into per-(source, thread, slot) landing areas. Long handlers check every payload byte and
 * count arrivals under a handler-safe lock (gex_HSL_*); their Short Replies free the slot.
 * Every Get and every Put read-back is checked; at the end the arrival counts are checked
 * against the senders' choices of peers, exchanged by a reduction. */
#include "rv_test.h"

#include <gasnet_coll.h>
#include <pthread.h>
#include <stdatomic.h>

enum { H_LONG = 170, H_LONG_ACK, H_MED };

#define NWORKERS 2
#define ITERS_DEFAULT 300             /* argv[1] overrides (the ofi run uses fewer) */
#define NSLOT 4
#define LSLOT 4096                    /* bytes per AM Long landing slot */
#define PSLOT 8192                    /* bytes per Put region */
#define GSRC_BYTES 65536
#define MAXRANKS 64
#define LONG_OFF 0
#define PUT_OFF (LONG_OFF + (size_t)MAXRANKS * NWORKERS * NSLOT * LSLOT)
#define GSRC_OFF (PUT_OFF + (size_t)MAXRANKS * NWORKERS * PSLOT)
#define SEG_BYTES (GSRC_OFF + GSRC_BYTES)

static uint8_t *myseg;
static int ITERS = ITERS_DEFAULT;
static gex_Rank_t target[NWORKERS];
static atomic_int slot_busy[NWORKERS][NSLOT];
static atomic_int workers_done;
static gex_HSL_t count_lock;
static uint64_t *recv_count;  /* [src * NWORKERS + t], under count_lock */
static uint64_t *recv_seqsum; /* likewise */
static uint64_t *med_count;   /* NPAM Mediums, likewise */

static size_t long_off(gex_Rank_t src, int t, int slot)
{
    return LONG_OFF + (((size_t)src * NWORKERS + (size_t)t) * NSLOT + (size_t)slot) * LSLOT;
}
static size_t put_off(gex_Rank_t src, int t) { return PUT_OFF + ((size_t)src * NWORKERS + (size_t)t) * PSLOT; }
static uint64_t seed_of(gex_Rank_t src, int t, int seq, int what)
{
    return ((uint64_t)src << 40) ^ ((uint64_t)t << 32) ^ ((uint64_t)seq << 4) ^ (uint64_t)what;
}
static size_t len_of(gex_Rank_t src, int t, int seq, size_t max)
{
    return 1 + (size_t)((seed_of(src, t, seq, 9) * 0x9E3779B97F4A7C15ull) >> 40) % max;
}

static void h_long(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t t, gex_AM_Arg_t seq,
                   gex_AM_Arg_t slot, gex_AM_Arg_t len)
{
    gex_Token_Info_t info;
    gex_Token_Info(tok, &info, GEX_TI_SRCRANK | GEX_TI_IS_LONG | GEX_TI_IS_REQ);
    gex_Rank_t src = info.gex_srcrank;
    RVT_CHECK(t >= 0 && t < NWORKERS && slot >= 0 && slot < NSLOT && info.gex_is_long && info.gex_is_req,
              "Long Request from %u: thread %d slot %d", (unsigned)src, t, slot);
    RVT_CHECK(buf == myseg + long_off(src, t, slot) && nbytes == (size_t)len,
              "Long Request from %u thread %d seq %d: %zu bytes at %p, expected %d at %p", (unsigned)src, t,
              seq, nbytes, buf, len, (void *)(myseg + long_off(src, t, slot)));
    RVT_VERIFY(buf, nbytes, seed_of(src, t, seq, 1), "AM Long payload");
    gex_HSL_Lock(&count_lock);
    recv_count[src * NWORKERS + (gex_Rank_t)t]++;
    recv_seqsum[src * NWORKERS + (gex_Rank_t)t] += (uint64_t)seq;
    gex_HSL_Unlock(&count_lock);
    RVT_OK(gex_AM_ReplyShort2(tok, H_LONG_ACK, 0, t, slot));
}

static void h_med(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t t, gex_AM_Arg_t seq)
{
    gex_Token_Info_t info;
    gex_Token_Info(tok, &info, GEX_TI_SRCRANK);
    gex_Rank_t src = info.gex_srcrank;
    RVT_CHECK(t >= 0 && t < NWORKERS && nbytes == len_of(src, t, seq + 5, 1024),
              "NPAM Medium from %u thread %d seq %d: %zu bytes", (unsigned)src, t, seq, nbytes);
    RVT_VERIFY(buf, nbytes, seed_of(src, t, seq, 5), "NPAM Medium payload");
    gex_HSL_Lock(&count_lock);
    med_count[src * NWORKERS + (gex_Rank_t)t]++;
    gex_HSL_Unlock(&count_lock);
}

static void h_long_ack(gex_Token_t tok, gex_AM_Arg_t t, gex_AM_Arg_t slot)
{
    (void)tok;
    RVT_CHECK(t >= 0 && t < NWORKERS && slot >= 0 && slot < NSLOT, "Long ack: thread %d slot %d", t, slot);
    int was = atomic_exchange_explicit(&slot_busy[t][slot], 0, memory_order_acq_rel);
    RVT_CHECK(was == 1, "Long ack for thread %d slot %d, which was not in flight", t, slot);
}

static void *worker(void *arg)
{
    int t = (int)(intptr_t)arg;
    gex_Rank_t tgt = target[t];
    uint8_t *tseg = rvt_seg_addr(tgt, 0);
    uint8_t *out = malloc(PSLOT), *in = malloc(PSLOT), *in2 = malloc(PSLOT), *back = malloc(PSLOT);
    RVT_CHECK(out && in && in2 && back, "thread %d: out of memory", t);
    size_t maxlong = gex_AM_MaxRequestLong(rvt_tm, tgt, GEX_EVENT_NOW, 0, 4);
    if (maxlong > LSLOT) maxlong = LSLOT;
    RVT_CHECK(maxlong >= 512, "thread %d: MaxRequestLong to %u is %zu", t, (unsigned)tgt, maxlong);
    unsigned refused = 0;
    for (int seq = 0; seq < ITERS; seq++) {
        /* AM Long into my slot at the target, once its previous use was acknowledged */
        int slot = seq % NSLOT;
        while (atomic_load_explicit(&slot_busy[t][slot], memory_order_acquire)) gasnet_AMPoll();
        size_t n = len_of(rvt_me, t, seq, maxlong);
        rvt_fill(out, n, seed_of(rvt_me, t, seq, 1));
        atomic_store_explicit(&slot_busy[t][slot], 1, memory_order_relaxed);
        gex_Flags_t fl = seq % 2 ? GEX_FLAG_IMMEDIATE : 0;
        while (gex_AM_RequestLong4(rvt_tm, tgt, H_LONG, out, n, tseg + long_off(rvt_me, t, slot), GEX_EVENT_NOW,
                                   fl, t, seq, slot, (gex_AM_Arg_t)n) != 0) {
            RVT_CHECK(fl == GEX_FLAG_IMMEDIATE, "RequestLong without IMMEDIATE returned non-zero");
            refused++;
            gasnet_AMPoll();
        }

        /* NPAM Medium in a GASNet buffer, IMMEDIATE as Realm's background workers do */
        size_t mn = len_of(rvt_me, t, seq + 5, 1024);
        gex_AM_SrcDesc_t sd;
        while ((sd = gex_AM_PrepareRequestMedium(rvt_tm, tgt, NULL, mn, mn, NULL, GEX_FLAG_IMMEDIATE, 2)) ==
               GEX_AM_SRCDESC_NO_OP) {
            refused++;
            gasnet_AMPoll();
        }
        RVT_CHECK(gex_AM_SrcDescSize(sd) == mn, "thread %d: PrepareRequestMedium gave %zu bytes, asked %zu", t,
                  gex_AM_SrcDescSize(sd), mn);
        rvt_fill(gex_AM_SrcDescAddr(sd), mn, seed_of(rvt_me, t, seq, 5));
        gex_AM_CommitRequestMedium2(sd, H_MED, mn, t, seq);

        /* Put + Get at once, then read the Put back */
        size_t pn = len_of(rvt_me, t, seq + 7, PSLOT);
        size_t gn = len_of(rvt_me, t, seq + 11, PSLOT), goff = (size_t)(seed_of(rvt_me, t, seq, 3) % (GSRC_BYTES - PSLOT));
        rvt_fill(out, pn, seed_of(rvt_me, t, seq, 2));
        gex_Event_t ev[2];
        ev[0] = gex_RMA_PutNB(rvt_tm, tgt, tseg + put_off(rvt_me, t), out, pn, GEX_EVENT_DEFER, 0);
        ev[1] = gex_RMA_GetNB(rvt_tm, in, tgt, tseg + GSRC_OFF + goff, gn, 0);
        gex_Event_WaitAll(ev, 2, 0);
        for (size_t i = 0; i < gn; i++)
            RVT_CHECK(in[i] == rvt_byte(tgt + 77, goff + i), "thread %d seq %d: GetNB from %u byte %zu is 0x%02x, "
                      "expected 0x%02x", t, seq, (unsigned)tgt, goff + i, in[i], rvt_byte(tgt + 77, goff + i));
        gex_Event_Wait(gex_RMA_GetNB(rvt_tm, back, tgt, tseg + put_off(rvt_me, t), pn, 0));
        RVT_VERIFY(back, pn, seed_of(rvt_me, t, seq, 2), "PutNB read back by GetNB");

        /* NBI: a Put to the same region and a Get, synced together */
        if (seq % 3 == 0) {
            size_t qn = len_of(rvt_me, t, seq + 13, PSLOT);
            rvt_fill(out, qn, seed_of(rvt_me, t, seq, 4));
            RVT_OK(gex_RMA_PutNBI(rvt_tm, tgt, tseg + put_off(rvt_me, t), out, qn, GEX_EVENT_NOW, 0));
            RVT_OK(gex_RMA_GetNBI(rvt_tm, in2, tgt, tseg + GSRC_OFF, gn, 0));
            gex_NBI_Wait(GEX_EC_ALL, 0);
            for (size_t i = 0; i < gn; i++)
                RVT_CHECK(in2[i] == rvt_byte(tgt + 77, i), "thread %d seq %d: GetNBI from %u byte %zu wrong", t,
                          seq, (unsigned)tgt, i);
            RVT_OK(gex_RMA_GetNBI(rvt_tm, back, tgt, tseg + put_off(rvt_me, t), qn, 0));
            gex_NBI_Wait(GEX_EC_GET, 0);
            RVT_VERIFY(back, qn, seed_of(rvt_me, t, seq, 4), "PutNBI read back by GetNBI");
        }
    }
    for (int s = 0; s < NSLOT; s++)
        while (atomic_load_explicit(&slot_busy[t][s], memory_order_acquire)) gasnet_AMPoll();
    (void)refused;
    free(out); free(in); free(in2); free(back);
    atomic_fetch_add(&workers_done, 1);
    return NULL;
}

/* Peers as Realm picks them: a shared-memory neighbour if there is one, else a ring peer. */
static void pick_targets(void)
{
    gex_RankInfo_t *nb, *host;
    gex_Rank_t nn, ni, hn, hi, nset, nrank, hset, hrank;
    gex_System_QueryNbrhdInfo(&nb, &nn, &ni);
    gex_System_QueryHostInfo(&host, &hn, &hi);
    gex_System_QueryMyPosition(&nset, &nrank, &hset, &hrank);
    RVT_CHECK(nn >= 1 && ni < nn && nb[ni].gex_jobrank == rvt_me, "NbrhdInfo: %u entries, mine at %u",
              (unsigned)nn, (unsigned)ni);
    RVT_CHECK(hn >= nn && hi < hn && host[hi].gex_jobrank == rvt_me, "HostInfo: %u entries, mine at %u",
              (unsigned)hn, (unsigned)hi);
    for (gex_Rank_t i = 1; i < nn; i++)
        RVT_CHECK(nb[i - 1].gex_jobrank < nb[i].gex_jobrank, "NbrhdInfo not sorted by rank");
    for (gex_Rank_t i = 0; i < nn; i++) {
        int found = 0;
        for (gex_Rank_t j = 0; j < hn; j++) found |= host[j].gex_jobrank == nb[i].gex_jobrank;
        RVT_CHECK(found, "neighbour %u is not on my host", (unsigned)nb[i].gex_jobrank);
    }
    RVT_CHECK(nrank < nset && hrank < hset, "QueryMyPosition: nbrhd %u of %u, host %u of %u", (unsigned)nrank,
              (unsigned)nset, (unsigned)hrank, (unsigned)hset);
    target[0] = nn > 1 ? nb[(ni + 1) % nn].gex_jobrank : (rvt_me + 1) % rvt_n;
    target[1] = hn > 1 ? host[(hi + hn - 1) % hn].gex_jobrank : (rvt_me + rvt_n - 1) % rvt_n;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    if (argc > 1) ITERS = atoi(argv[1]);
    RVT_CHECK(ITERS > 0, "bad iteration count '%s'", argv[1]);
    RVT_CHECK(rvt_n <= MAXRANKS, "at most %d ranks", MAXRANKS);
    gex_AM_Entry_t table[] = {
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 4, NULL, "rt_long" },
        { H_LONG_ACK, (gex_AM_Fn_t)h_long_ack, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 2, NULL, "rt_ack" },
        { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "rt_med" },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 3));
    gex_HSL_Init(&count_lock);
    myseg = gex_Segment_QueryAddr(rvt_seg);
    recv_count = calloc(rvt_n * NWORKERS, sizeof *recv_count);
    recv_seqsum = calloc(rvt_n * NWORKERS, sizeof *recv_seqsum);
    med_count = calloc(rvt_n * NWORKERS, sizeof *med_count);
    RVT_CHECK(recv_count && recv_seqsum && med_count, "out of memory");
    rvt_fill(myseg + GSRC_OFF, GSRC_BYTES, rvt_me + 77);
    pick_targets();
    rvt_barrier();

    pthread_t th[NWORKERS];
    for (int t = 0; t < NWORKERS; t++)
        RVT_CHECK(pthread_create(&th[t], NULL, worker, (void *)(intptr_t)t) == 0, "pthread_create");
    while (atomic_load(&workers_done) < NWORKERS) gasnet_AMPoll(); /* the poller */
    for (int t = 0; t < NWORKERS; t++) pthread_join(th[t], NULL);

    /* Who sent to whom: every rank contributes its own row, a sum makes the table. */
    uint64_t *tg = calloc(rvt_n * NWORKERS, sizeof *tg), *all = calloc(rvt_n * NWORKERS, sizeof *all);
    RVT_CHECK(tg && all, "out of memory");
    for (int t = 0; t < NWORKERS; t++) tg[rvt_me * NWORKERS + (gex_Rank_t)t] = target[t] + 1;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, all, tg, GEX_DT_U64, 8, rvt_n * NWORKERS, GEX_OP_ADD,
                                          NULL, NULL, 0));
    rvt_barrier(); /* every Long has been acknowledged, so has arrived */
    gex_HSL_Lock(&count_lock);
    for (gex_Rank_t s = 0; s < rvt_n; s++)
        for (gex_Rank_t t = 0; t < NWORKERS; t++)
            if (all[s * NWORKERS + t] != (uint64_t)rvt_me + 1)
                RVT_CHECK(med_count[s * NWORKERS + t] == 0, "NPAM Mediums from rank %u thread %u, which "
                          "sends elsewhere", (unsigned)s, (unsigned)t);
    gex_HSL_Unlock(&count_lock);
    for (gex_Rank_t s = 0; s < rvt_n; s++) /* Mediums have no Reply: wait for all to arrive */
        for (gex_Rank_t t = 0; t < NWORKERS; t++)
            if (all[s * NWORKERS + t] == (uint64_t)rvt_me + 1) {
                uint64_t c;
                do {
                    gasnet_AMPoll();
                    gex_HSL_Lock(&count_lock);
                    c = med_count[s * NWORKERS + t];
                    gex_HSL_Unlock(&count_lock);
                    RVT_CHECK(c <= (uint64_t)ITERS, "%" PRIu64 " NPAM Mediums from rank %u thread %u", c,
                              (unsigned)s, (unsigned)t);
                } while (c < (uint64_t)ITERS);
            }
    gex_HSL_Lock(&count_lock);
    for (gex_Rank_t s = 0; s < rvt_n; s++)
        for (gex_Rank_t t = 0; t < NWORKERS; t++) {
            int mine = all[s * NWORKERS + t] == (uint64_t)rvt_me + 1;
            uint64_t want = mine ? ITERS : 0, wsum = mine ? (uint64_t)ITERS * (ITERS - 1) / 2 : 0;
            RVT_CHECK(recv_count[s * NWORKERS + t] == want && recv_seqsum[s * NWORKERS + t] == wsum,
                      "from rank %u thread %u: %" PRIu64 " Longs (sequence sum %" PRIu64 "), expected %" PRIu64
                      " (%" PRIu64 ")", (unsigned)s, (unsigned)t, recv_count[s * NWORKERS + t],
                      recv_seqsum[s * NWORKERS + t], want, wsum);
        }
    gex_HSL_Unlock(&count_lock);
    /* the last Put of every stream aimed at me is still in place */
    for (gex_Rank_t s = 0; s < rvt_n; s++)
        for (gex_Rank_t t = 0; t < NWORKERS; t++) {
            if (all[s * NWORKERS + t] != (uint64_t)rvt_me + 1) continue;
            int seq = ITERS - 1, nbi = seq % 3 == 0; /* then the PutNBI came last */
            size_t pn = len_of(s, (int)t, seq + (nbi ? 13 : 7), PSLOT);
            RVT_VERIFY(myseg + put_off(s, (int)t), pn, seed_of(s, (int)t, seq, nbi ? 4 : 2), "last Put of a stream");
        }
    free(tg); free(all); free(med_count);
    int rc = rvt_done("client_threads");
    gex_HSL_Destroy(&count_lock);
    return rc;
}
