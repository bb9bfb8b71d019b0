/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ucx_transport.c: the ucx transport's own behaviours, seen through its counters
 * (run with RIVET_TRANSPORT=ucx RIVET_PSHM=0; rank r works with rank r^1, np even).
 *   ucx_transport amlong reassembly|sync   AM Long Requests up to 4 MiB from malloc'd memory:
 *                     every payload byte checked in the handler; the payloads above the packed
 *                     threshold went by UCP puts, with reassembly each followed by its
 *                     immediate value after the put's flush
 *   ucx_transport regreuse   puts and gets of many sizes from and into the same out-of-segment
 *                     buffers, hundreds of times, every byte read back: no ucp_mem_map per
 *                     operation (segments are mapped once; UCX registers local memory itself)
 *   ucx_transport atomics    RIVET_RATOMIC=auto: a U64 and an I32 domain of integer ops UCP
 *                     has are native (rv_ratomic_query), every rank's FADDs to rank 0's word add
 *                     up exactly, SUB/CAS/FCAS/SWAP/GET/AND/XOR give exact results, the
 *                     transport counted the atomics; a domain with MULT is not native
 *   ucx_transport imm quiet|replies [credits]   GEX_FLAG_IMMEDIATE under backpressure: rank 0 floods rank 1
 *                     with IMMEDIATE Requests (Short, Medium, Long) and IMMEDIATE PutNBs while
 *                     rank 1 does not poll at all (quiet) or polls only Replies (replies: UCX
 *                     receives, the Requests wait in the transport's queue). Requests must be
 *                     refused (non-zero return) once rank 1's credits are used up, puts once the
 *                     operation slots are (GEX_EVENT_NO_OP); no call may block (each returns
 *                     within seconds, while rank 1 would never let a blocked one finish); once
 *                     rank 1 polls again, every accepted Request runs exactly once with its
 *                     payload intact, no refused one runs, accepted puts landed and refused
 *                     ones did not; in 'replies', the queue never held more Requests than
 *                     rank 1's credits (RIVET_UCX_CREDITS). 'credits': the refusals must
 *                     include credit stalls (and in 'replies' the queue must have filled to half
 *                     the credits); else send buffers may refuse first (UCX's shared memory)
 *   ucx_transport np  negotiated-payload Mediums (Prepare with no buffer, payload written in
 *                     place, Commit; Requests and the handlers' Replies, 0 B to the largest
 *                     Medium, some cancelled): every byte checked by the handler, and the
 *                     transport sent them from its reservations (sends_np), not by copy
 *   ucx_transport putflood  20000 8-byte NBI puts then one NBI sync, twice, every word read
 *                     back: fewer than one endpoint flush per 1000 puts (a fixed pool of
 *                     operation slots needed one per 256: a flush round trip each)
 *   ucx_transport death      rank 1 dies (SIGKILL) while rank 0 keeps sending it AMs and puts:
 *                     the job must end (never hang) with a message naming rank 1
 * Built without UCX, it exits 77 (skipped). */
#include "rv_test.h"

#ifndef RIVET_TEST_HAVE_UCX
int main(void)
{
    printf("SKIP: this library is built without the ucx transport (UCX not found)\n");
    return 77;
}
#else
#include "transport/ucx/ucx_stats.h"
#include "ratomic/ratomic_int.h"
#include <gasnet_ratomic.h>

#include "core/progress.h"
#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define KIB ((size_t)1024)
#define SEG (12 * KIB * KIB)

enum { H_LONG = GEX_AM_INDEX_BASE, H_ACK, H_PING, H_ISHORT, H_IMED, H_ILONG, H_PID, H_NPREQ,
       H_NPREP };
static gex_Rank_t peer;
static volatile int acks, pings;
static int bad;

static rv_ucx_stats_t stats(void)
{
    rv_ucx_stats_t s;
    RVT_CHECK(rv_ucx_stats(&s) == 0, "the ucx transport is not in use (set RIVET_TRANSPORT=ucx)");
    return s;
}

static void long_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    size_t b = rvt_find_bad(buf, n, (uint64_t)seed);
    if (b != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: AM Long of %zu bytes: byte %zu wrong when its handler "
                "ran\n", (unsigned)rvt_me, n, b);
        bad = 1;
    }
    gex_AM_ReplyShort0(t, H_ACK, 0);
}

static void ack_handler(gex_Token_t t) { (void)t; acks++; }
static void ping_handler(gex_Token_t t) { (void)t; pings++; }

static void test_amlong(const char *proto)
{
    static const size_t sizes[] = {100, 8 * KIB + 8, 64 * KIB, 1000 * KIB, 4 * KIB * KIB};
    size_t mx = gex_AM_MaxRequestLong(rvt_tm, peer, GEX_EVENT_NOW, 0, 1);
    RVT_CHECK(mx >= 4 * KIB * KIB, "MaxRequestLong to rank %u is %zu: no RDMA path", (unsigned)peer,
              mx);
    uint8_t *src = malloc(4 * KIB * KIB);
    RVT_CHECK(src != NULL, "malloc");
    rvt_barrier();
    rv_ucx_stats_t a = stats();
    int rdma = 0;
    for (int it = 0; it < 3; it++) {
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            uint64_t seed = 1000u * rvt_me + 10u * it + j;
            rvt_fill(src, sizes[j], seed);
            int before = acks;
            RVT_OK(gex_AM_RequestLong1(rvt_tm, peer, H_LONG, src, sizes[j],
                                       rvt_seg_addr(peer, 4 * KIB * KIB), GEX_EVENT_NOW, 0,
                                       (gex_AM_Arg_t)seed));
            memset(src, 0, sizes[j]); /* locally complete on return */
            GASNET_BLOCKUNTIL(acks > before);
            rdma += sizes[j] > 8 * KIB;
        }
    }
    rvt_barrier();
    rv_ucx_stats_t b = stats();
    RVT_CHECK(!bad, "a handler saw an incomplete payload (see above)");
    RVT_CHECK(b.puts - a.puts >= (uint64_t)rdma, "%d Long payloads over 8 KiB, %llu UCP puts",
              rdma, (unsigned long long)(b.puts - a.puts));
    RVT_CHECK(b.recv_held > a.recv_held, "no message was delivered in UCX's own buffer "
              "(%llu copied)", (unsigned long long)(b.recv_copied - a.recv_copied));
    if (!strcmp(proto, "reassembly"))
        RVT_CHECK(b.imm_sent - a.imm_sent >= (uint64_t)rdma, "reassembly: %d RDMA Longs, %llu "
                  "immediate values sent", rdma, (unsigned long long)(b.imm_sent - a.imm_sent));
    else
        RVT_CHECK(b.imm_sent == a.imm_sent, "sync: %llu immediate values sent",
                  (unsigned long long)(b.imm_sent - a.imm_sent));
    free(src);
}

static void test_regreuse(void)
{
    static const size_t sizes[] = {1, 8, 100, 4 * KIB, 8 * KIB + 1, 64 * KIB, 300 * KIB};
    uint8_t *src = malloc(300 * KIB), *back = malloc(300 * KIB);
    RVT_CHECK(src && back, "malloc");
    uint8_t *rbase = rvt_seg_addr(peer, 0);
    rvt_barrier();
    rv_ucx_stats_t a = stats();
    int ops = 0;
    for (int it = 0; it < 40; it++) {
        for (size_t j = 0; j < sizeof sizes / sizeof sizes[0]; j++) {
            uint64_t seed = 7u * it + j + 100u * rvt_me;
            rvt_fill(src, sizes[j], seed);
            /* my half of the peer's segment: it writes into mine the same way */
            uint8_t *dst = rbase + (size_t)rvt_me % 2 * (SEG / 2) + j * 512 * KIB;
            RVT_OK(gex_RMA_PutBlocking(rvt_tm, peer, dst, src, sizes[j], 0));
            memset(back, 0, sizes[j]);
            RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, dst, sizes[j], 0));
            RVT_VERIFY(back, sizes[j], seed, "put then get from the same buffers");
            ops += 2;
        }
    }
    rvt_barrier();
    rv_ucx_stats_t b = stats();
    RVT_CHECK(b.puts - a.puts >= (uint64_t)ops / 2 && b.gets - a.gets >= (uint64_t)ops / 2,
              "%d operations, %llu puts and %llu gets by UCP", ops,
              (unsigned long long)(b.puts - a.puts), (unsigned long long)(b.gets - a.gets));
    RVT_CHECK(b.mem_maps == a.mem_maps, "%llu ucp_mem_map calls during the transfers",
              (unsigned long long)(b.mem_maps - a.mem_maps));
    RVT_CHECK(b.flushes > a.flushes, "puts completed without any endpoint flush");
    free(src);
    free(back);
}

#define INT_OPS (GEX_OP_ADD | GEX_OP_FADD | GEX_OP_SUB | GEX_OP_INC | GEX_OP_CAS | GEX_OP_FCAS | \
                 GEX_OP_GET | GEX_OP_SET | GEX_OP_SWAP | GEX_OP_AND | GEX_OP_XOR)

static int is_native(gex_DT_t dt, gex_OP_t ops)
{
    const char *impl = rv_ratomic_query(rvt_tm, dt, ops, 0);
    RVT_CHECK(impl != NULL, "not a valid domain");
    return strstr(impl, "ucp_atomic") != NULL;
}

static uint64_t op64(gex_AD_t ad, void *w, gex_OP_t op, uint64_t a, uint64_t b)
{
    uint64_t r = 0;
    gex_Event_Wait(gex_AD_OpNB_U64(ad, &r, 0, w, op, a, b, 0));
    return r;
}

static int32_t op32(gex_AD_t ad, void *w, gex_OP_t op, int32_t a, int32_t b)
{
    int32_t r = 0;
    gex_Event_Wait(gex_AD_OpNB_I32(ad, &r, 0, w, op, a, b, 0));
    return r;
}

static void test_atomics(void)
{
    RVT_CHECK(is_native(GEX_DT_U64, INT_OPS) && is_native(GEX_DT_I32, INT_OPS),
              "integer domains UCP has every op of are not native");
    RVT_CHECK(!is_native(GEX_DT_U64, INT_OPS | GEX_OP_MULT), "a domain with MULT is native");
    gex_AD_t ad, ad32;
    gex_AD_Create(&ad, rvt_tm, GEX_DT_U64, INT_OPS, 0);
    gex_AD_Create(&ad32, rvt_tm, GEX_DT_I32, INT_OPS, 0);
    uint64_t *w = rvt_seg_addr(0, 0);
    int32_t *w32 = (int32_t *)rvt_seg_addr(0, 64);
    if (rvt_me == 0) {
        *(uint64_t *)gex_Segment_QueryAddr(rvt_seg) = 0;
        ((int32_t *)gex_Segment_QueryAddr(rvt_seg))[16] = 0;
    }
    rvt_barrier();
    rv_ucx_stats_t a = stats();
    uint64_t seen_max = 0;
    for (int i = 0; i < 300; i++) {
        uint64_t old = op64(ad, w, GEX_OP_FADD, 1, 0);
        if (old > seen_max) seen_max = old;
        op32(ad32, w32, GEX_OP_SUB, 3, 0);
    }
    rvt_barrier();
    uint64_t total = op64(ad, w, GEX_OP_GET, 0, 0);
    int32_t t32 = op32(ad32, w32, GEX_OP_GET, 0, 0);
    RVT_CHECK(total == 300u * rvt_n, "FADD total %llu, expected %u", (unsigned long long)total,
              300u * rvt_n);
    RVT_CHECK(t32 == -900 * (int32_t)rvt_n, "I32 SUB total %d, expected %d", t32, -900 * (int)rvt_n);
    RVT_CHECK(seen_max < total, "a fetched value %llu was never the word's",
              (unsigned long long)seen_max);
    rvt_barrier();
    if (rvt_me == 0) {
        uint64_t big = 0xF0F0F0F0F0F0F0F0ull;
        op64(ad, w, GEX_OP_SET, big, 0);
        RVT_CHECK(op64(ad, w, GEX_OP_FCAS, 1, 2) == big, "FCAS miss");
        RVT_CHECK(op64(ad, w, GEX_OP_FCAS, big, 7) == big, "FCAS hit");
        RVT_CHECK(op64(ad, w, GEX_OP_SWAP, 12, 0) == 7, "SWAP");
        op64(ad, w, GEX_OP_AND, 10, 0);
        op64(ad, w, GEX_OP_XOR, 1, 0);
        RVT_CHECK(op64(ad, w, GEX_OP_GET, 0, 0) == 9, "AND, XOR");
        op32(ad32, w32, GEX_OP_SET, -5, 0);
        op32(ad32, w32, GEX_OP_CAS, -5, -70000);
        RVT_CHECK(op32(ad32, w32, GEX_OP_GET, 0, 0) == -70000, "I32 CAS");
    }
    rvt_barrier();
    rv_ucx_stats_t b = stats();
    RVT_CHECK(b.amos - a.amos >= 602, "%llu native atomics counted",
              (unsigned long long)(b.amos - a.amos));
    gex_AD_Destroy(ad);
    gex_AD_Destroy(ad32);
}

/* ---- IMMEDIATE under backpressure ---- */
#define IMM_MAX   20000          /* attempts per kind at most */
#define IMM_REFUSE 50            /* refusals per kind before the flood ends */
#define IMM_PAY   1024           /* Medium payload; Long payloads are 2 KiB */
#define IMM_LPAY  2048
#define IMM_LONGS (1 * KIB * KIB) /* segment offset of the Long landing area (one slot each) */
#define IMM_PUTS  (6 * KIB * KIB) /* segment offset of the put slots (64 bytes each) */
enum { K_SHORT, K_MED, K_LONG, K_PUT, K_N };
static uint8_t *imm_seen[K_N];    /* rank 1: times each sequence number ran */
static uint8_t *imm_ok[K_N];      /* rank 0: accepted; rank 1: the copy rank 0 sends */
static volatile long imm_pid;
static int imm_bad;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}

static uint64_t imm_seed(int k, int seq) { return 7919u * (uint64_t)k + (uint64_t)seq; }

static void imm_mark(int k, gex_AM_Arg_t seq)
{
    if (seq < 0 || seq >= IMM_MAX) {
        fprintf(stderr, "FAIL: kind %d: sequence number %d out of range\n", k, (int)seq);
        imm_bad = 1;
        return;
    }
    imm_seen[k][seq]++;
}

static void h_ishort(gex_Token_t t, gex_AM_Arg_t seq, gex_AM_Arg_t chk)
{
    (void)t;
    if (chk != (gex_AM_Arg_t)imm_seed(K_SHORT, seq)) imm_bad = 1;
    imm_mark(K_SHORT, seq);
}

static void h_imed(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq)
{
    (void)t;
    if (n != IMM_PAY || rvt_find_bad(buf, n, imm_seed(K_MED, seq)) != (size_t)-1) {
        fprintf(stderr, "FAIL: Medium %d: %zu bytes or payload wrong\n", (int)seq, n);
        imm_bad = 1;
    }
    imm_mark(K_MED, seq);
}

static void h_ilong(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq)
{
    (void)t;
    uint8_t *want = (uint8_t *)gex_Segment_QueryAddr(rvt_seg) + IMM_LONGS + (size_t)seq % 2048 * IMM_LPAY;
    if (n != IMM_LPAY || buf != want || rvt_find_bad(buf, n, imm_seed(K_LONG, seq)) != (size_t)-1) {
        fprintf(stderr, "FAIL: Long %d: %zu bytes at %p (want %p) or payload wrong\n", (int)seq,
                n, buf, (void *)want);
        imm_bad = 1;
    }
    imm_mark(K_LONG, seq);
}

static void h_pid(gex_Token_t t, gex_AM_Arg_t pid) { (void)t; imm_pid = pid; }

/* One IMMEDIATE injection of kind k, number seq: 1 accepted, 0 refused. Its time goes to *dt. */
static int imm_one(int k, int seq, uint8_t *src, gex_Event_t *ev, double *dt)
{
    int ok;
    double t0 = now_s();
    switch (k) {
    case K_SHORT:
        ok = gex_AM_RequestShort2(rvt_tm, 1, H_ISHORT, GEX_FLAG_IMMEDIATE, seq,
                                  (gex_AM_Arg_t)imm_seed(K_SHORT, seq)) == 0;
        break;
    case K_MED:
        rvt_fill(src, IMM_PAY, imm_seed(K_MED, seq));
        ok = gex_AM_RequestMedium1(rvt_tm, 1, H_IMED, src, IMM_PAY, GEX_EVENT_NOW,
                                   GEX_FLAG_IMMEDIATE, seq) == 0;
        break;
    case K_LONG: /* a Long slot may be reused (seq % 2048) only after the slot's earlier one ran:
                  * the checks in the handler are exact while fewer than 2048 are accepted */
        rvt_fill(src, IMM_LPAY, imm_seed(K_LONG, seq));
        ok = gex_AM_RequestLong1(rvt_tm, 1, H_ILONG, src, IMM_LPAY,
                                 rvt_seg_addr(1, IMM_LONGS + (size_t)seq % 2048 * IMM_LPAY),
                                 GEX_EVENT_NOW, GEX_FLAG_IMMEDIATE, seq) == 0;
        break;
    default: /* K_PUT: 64 bytes into slot seq, from src (kept until the event completes) */
        rvt_fill(src, 64, imm_seed(K_PUT, seq));
        *ev = gex_RMA_PutNB(rvt_tm, 1, rvt_seg_addr(1, IMM_PUTS + (size_t)seq * 64), src, 64,
                            GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE);
        ok = *ev != GEX_EVENT_NO_OP;
        break;
    }
    *dt = now_s() - t0;
    return ok;
}

static void test_imm(const char *how, int by_credits)
{
    int replies = !strcmp(how, "replies");
    RVT_CHECK(replies || !strcmp(how, "quiet"), "imm: quiet or replies, not %s", how);
    RVT_CHECK(rvt_n == 2, "imm runs on 2 ranks");
    static char path[64];
    for (int k = 0; k < K_N; k++) {
        imm_seen[k] = calloc(IMM_MAX, 1);
        imm_ok[k] = calloc(IMM_MAX, 1);
        RVT_CHECK(imm_seen[k] && imm_ok[k], "calloc");
    }
    /* rank 1 is told when the flood ends through a file (it does not poll GASNet meanwhile) */
    if (rvt_me == 0) RVT_OK(gex_AM_RequestShort1(rvt_tm, 1, H_PID, 0, (gex_AM_Arg_t)getpid()));
    else GASNET_BLOCKUNTIL(imm_pid != 0);
    snprintf(path, sizeof path, "/tmp/rivet-ucx-imm-%ld", rvt_me == 0 ? (long)getpid() : imm_pid);
    unlink(path);
    rvt_barrier();
    rv_ucx_stats_t a = stats();
    if (rvt_me == 1) {
        /* inattentive: no delivery of Requests until the file appears */
        unsigned long polls = 0;
        while (access(path, F_OK) != 0) {
            if (replies) polls += rv_poll_replies() >= 0;
        }
        (void)polls;
    } else {
        uint8_t *pbuf = malloc((size_t)IMM_MAX * 64), *src = malloc(IMM_LPAY);
        gex_Event_t *ev = calloc(IMM_MAX, sizeof *ev);
        RVT_CHECK(pbuf && src && ev, "malloc");
        int next[K_N] = {0}, refused[K_N] = {0};
        double worst = 0;
        int worst_k = -1;
        /* round robin over the kinds until each was refused IMM_REFUSE times */
        for (int busy = 1; busy;) {
            busy = 0;
            for (int k = 0; k < K_N; k++) {
                if (refused[k] >= IMM_REFUSE) continue;
                RVT_CHECK(next[k] < IMM_MAX, "kind %d: %d IMMEDIATE injections into an "
                          "inattentive rank, only %d refused", k, IMM_MAX, refused[k]);
                busy = 1;
                int seq = next[k]++;
                double dt;
                int ok = imm_one(k, seq, k == K_PUT ? pbuf + (size_t)seq * 64 : src, &ev[seq], &dt);
                if (dt > worst) { worst = dt; worst_k = k; }
                if (ok) imm_ok[k][seq] = 1;
                else refused[k]++;
            }
        }
        printf("imm %s: attempts short %d medium %d long %d put %d; refused %d each; slowest "
               "call %.3f ms (kind %d)\n", how, next[0], next[1], next[2], next[3], IMM_REFUSE,
               worst * 1e3, worst_k);
        /* every call returned at once: a call that blocked would wait for rank 1, which does
         * not poll until the file appears, so it would never have returned at all */
        RVT_CHECK(worst < 10.0, "an IMMEDIATE call took %.1f s", worst);
        rv_ucx_stats_t b = stats();
        RVT_CHECK(b.credit_stalls + b.send_again > a.credit_stalls + a.send_again,
                  "no Request was refused for lack of credits or send buffers");
        RVT_CHECK(!by_credits || b.credit_stalls > a.credit_stalls,
                  "no Request was refused for lack of credits");
        FILE *f = fopen(path, "w");
        RVT_CHECK(f != NULL, "creating %s", path);
        fclose(f);
        for (int seq = 0; seq < next[K_PUT]; seq++)
            if (imm_ok[K_PUT][seq]) gex_Event_Wait(ev[seq]);
        free(pbuf);
        free(src);
        free(ev);
    }
    rvt_barrier(); /* rank 1 polls: everything accepted runs */
    if (rvt_me == 1) unlink(path);
    /* rank 0's verdicts to rank 1 (blocking puts into its segment, after the puts' slots) */
    uint8_t *okarea = (uint8_t *)gex_Segment_QueryAddr(rvt_seg) + 10 * KIB * KIB;
    if (rvt_me == 0)
        for (int k = 0; k < K_N; k++)
            RVT_OK(gex_RMA_PutBlocking(rvt_tm, 1, rvt_seg_addr(1, 10 * KIB * KIB + (size_t)k * IMM_MAX),
                                       imm_ok[k], IMM_MAX, 0));
    rvt_barrier();
    if (rvt_me == 1) {
        RVT_CHECK(!imm_bad, "a handler saw a wrong message (see above)");
        static const char *names[K_N] = {"Short", "Medium", "Long", "Put"};
        uint8_t *seg = gex_Segment_QueryAddr(rvt_seg);
        for (int k = 0; k < K_N; k++) {
            int acc = 0;
            for (int seq = 0; seq < IMM_MAX; seq++) {
                int ok = okarea[(size_t)k * IMM_MAX + seq];
                acc += ok;
                if (k == K_PUT) {
                    uint8_t *slot = seg + IMM_PUTS + (size_t)seq * 64;
                    if (ok) RVT_VERIFY(slot, 64, imm_seed(K_PUT, seq), "an accepted IMMEDIATE put");
                    else
                        for (int i = 0; i < 64; i++)
                            RVT_CHECK(slot[i] == 0, "refused put %d landed (byte %d)", seq, i);
                } else {
                    RVT_CHECK(imm_seen[k][seq] == ok, "%s Request %d: accepted %d, ran %d times",
                              names[k], seq, ok, imm_seen[k][seq]);
                }
            }
            RVT_CHECK(acc > 0, "%s: nothing accepted", names[k]);
            printf("imm %s: %s accepted %d\n", how, names[k], acc);
        }
        rv_ucx_stats_t b = stats();
        const char *cr = getenv("RIVET_UCX_CREDITS");
        uint64_t credits = cr ? strtoull(cr, NULL, 10) : 128;
        if (replies && by_credits)
            RVT_CHECK(b.reqq_max >= credits / 2, "replies: the queue held at most %llu Requests: "
                      "rank 1 did not receive while inattentive", (unsigned long long)b.reqq_max);
        if (replies)
            RVT_CHECK(b.reqq_max <= credits, "replies: %llu Requests queued, credits %llu",
                      (unsigned long long)b.reqq_max, (unsigned long long)credits);
        printf("imm %s: most Requests queued %llu (credits %llu), credit messages %llu\n", how,
               (unsigned long long)b.reqq_max, (unsigned long long)credits,
               (unsigned long long)(b.credit_msgs - a.credit_msgs));
    }
    rvt_barrier();
    for (int k = 0; k < K_N; k++) {
        free(imm_seen[k]);
        free(imm_ok[k]);
    }
}

/* ---- np: negotiated payload in place ---- */
static volatile int np_got;

static size_t np_size(int i, size_t mx)
{
    static const size_t sz[] = {0, 8, 100, 480, 600, 4096, 20000};
    return i < 7 ? (sz[i] < mx ? sz[i] : mx) : mx;
}

static void np_rep(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    (void)t;
    size_t b = rvt_find_bad(buf, n, (uint64_t)seed);
    if (b != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: NP Reply of %zu bytes: byte %zu wrong\n",
                (unsigned)rvt_me, n, b);
        bad = 1;
    }
    np_got++;
}

/* Checks the Request's payload, then Replies with the same size in place (seed + 1). */
static void np_req(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    size_t b = rvt_find_bad(buf, n, (uint64_t)seed);
    if (b != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: NP Request of %zu bytes: byte %zu wrong\n",
                (unsigned)rvt_me, n, b);
        bad = 1;
    }
    gex_AM_SrcDesc_t sd = gex_AM_PrepareReplyMedium(t, NULL, n, n, NULL, 0, 1);
    RVT_CHECK(gex_AM_SrcDescSize(sd) >= n, "PrepareReplyMedium gave %zu bytes, asked %zu",
              gex_AM_SrcDescSize(sd), n);
    rvt_fill(gex_AM_SrcDescAddr(sd), n, (uint64_t)seed + 1);
    gex_AM_CommitReplyMedium1(sd, H_NPREP, n, seed + 1);
}

static void test_np(void)
{
    size_t mx = gex_AM_MaxRequestMedium(rvt_tm, peer, GEX_EVENT_NOW, 0, 1);
    size_t mr = gex_AM_MaxReplyMedium(rvt_tm, peer, GEX_EVENT_NOW, 0, 1);
    if (mr < mx) mx = mr;
    rv_ucx_stats_t a = stats(); /* before the barrier: the peer's first Requests may be
                                  * answered inside it */
    rvt_barrier();
    int sent = 0;
    for (int it = 0; it < 40; it++) {
        for (int i = 0; i < 8; i++) {
            size_t n = np_size(i, mx);
            gex_AM_Arg_t seed = (gex_AM_Arg_t)(100000 * rvt_me + 100 * it + 2 * i);
            gex_AM_SrcDesc_t sd = gex_AM_PrepareRequestMedium(rvt_tm, peer, NULL, n, n, NULL,
                                                              0, 1);
            RVT_CHECK(gex_AM_SrcDescSize(sd) >= n, "PrepareRequestMedium gave %zu bytes, "
                      "asked %zu", gex_AM_SrcDescSize(sd), n);
            if ((it + i) % 5 == 0) { /* written, then dropped: nothing may arrive */
                rvt_fill(gex_AM_SrcDescAddr(sd), n, 0xdead);
                RVT_OK(gex_AM_CancelRequestMedium(sd, 0));
                continue;
            }
            rvt_fill(gex_AM_SrcDescAddr(sd), n, (uint64_t)seed);
            gex_AM_CommitRequestMedium1(sd, H_NPREQ, n, seed);
            sent++;
        }
        GASNET_BLOCKUNTIL(np_got == sent); /* the Replies carry the credits back */
    }
    rvt_barrier();
    rv_ucx_stats_t b = stats();
    RVT_CHECK(!bad, "a handler saw a wrong payload (see above)");
    /* this rank's Requests and its Replies to the peer's as many Requests */
    RVT_CHECK(b.sends_np - a.sends_np >= (uint64_t)(2 * sent), "%d NP Requests and as many "
              "Replies, %llu sent from reservations", sent,
              (unsigned long long)(b.sends_np - a.sends_np));
}

/* ---- putflood: small NBI puts are not bounded by a flush round trip each 256 ---- */
static void test_putflood(void)
{
    enum { N = 20000 };
    uint64_t *src = malloc(N * sizeof *src), *back = malloc(N * sizeof *back);
    RVT_CHECK(src && back, "malloc");
    uint64_t *dst = (uint64_t *)rvt_seg_addr(peer, 0) + (size_t)(rvt_me % 2) * N;
    for (int round = 0; round < 2; round++) {
        rvt_barrier();
        rv_ucx_stats_t a = stats();
        for (int i = 0; i < N; i++) {
            src[i] = (uint64_t)round << 40 | (uint64_t)rvt_me << 32 | (uint64_t)i;
            gex_RMA_PutNBI(rvt_tm, peer, dst + i, &src[i], 8, GEX_EVENT_DEFER, 0);
        }
        gex_NBI_Wait(GEX_EC_PUT, 0);
        rv_ucx_stats_t b = stats();
        RVT_CHECK(b.puts - a.puts >= N, "%d puts, %llu by UCP", N,
                  (unsigned long long)(b.puts - a.puts));
        /* a fixed pool of 256 slots needed N/256 = 78 (one round trip each); now a few */
        RVT_CHECK((b.flushes - a.flushes) * 1000 < N, "%d puts took %llu flushes", N,
                  (unsigned long long)(b.flushes - a.flushes));
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, dst, N * sizeof *back, 0));
        for (int i = 0; i < N; i++)
            RVT_CHECK(back[i] == src[i], "round %d: word %d is %llx, not %llx", round, i,
                      (unsigned long long)back[i], (unsigned long long)src[i]);
    }
    rvt_barrier();
    free(src);
    free(back);
}

static void test_death(void)
{
    uint8_t *src = calloc(1, 64 * KIB);
    RVT_CHECK(src != NULL, "calloc");
    rvt_barrier();
    if (rvt_me == 1) raise(SIGKILL);
    if (rvt_me != 0) { /* other pairs wait for the end */
        for (;;) gasnet_AMPoll();
    }
    /* rank 0: keeps talking to the dead rank until the job is ended */
    for (unsigned long i = 0;; i++) {
        gex_AM_RequestShort0(rvt_tm, 1, H_PING, 0);
        gex_RMA_PutBlocking(rvt_tm, 1, rvt_seg_addr(1, 0), src, (i % 2) ? 64 * KIB : 8, 0);
        gasnet_AMPoll();
    }
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG);
    const char *mode = argc > 1 ? argv[1] : "regreuse";
    gex_AM_Entry_t tab[] = {
        {H_LONG, (gex_AM_Fn_t)long_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "long"},
        {H_ACK, (gex_AM_Fn_t)ack_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "ack"},
        {H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping"},
        {H_ISHORT, (gex_AM_Fn_t)h_ishort, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 2, NULL, "ishort"},
        {H_IMED, (gex_AM_Fn_t)h_imed, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "imed"},
        {H_ILONG, (gex_AM_Fn_t)h_ilong, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "ilong"},
        {H_PID, (gex_AM_Fn_t)h_pid, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 1, NULL, "pid"},
        {H_NPREQ, (gex_AM_Fn_t)np_req, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, "npreq"},
        {H_NPREP, (gex_AM_Fn_t)np_rep, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY, 1, NULL, "nprep"},
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, sizeof tab / sizeof tab[0]));
    RVT_CHECK(rvt_n % 2 == 0 || !strcmp(mode, "atomics"), "needs an even number of ranks");
    peer = (rvt_me ^ 1) % rvt_n;
    (void)stats();
    if (!strcmp(mode, "amlong")) test_amlong(argc > 2 ? argv[2] : "reassembly");
    else if (!strcmp(mode, "regreuse")) test_regreuse();
    else if (!strcmp(mode, "death")) test_death();
    else if (!strcmp(mode, "imm")) test_imm(argc > 2 ? argv[2] : "quiet",
                                               argc > 3 && !strcmp(argv[3], "credits"));
    else if (!strcmp(mode, "atomics")) test_atomics();
    else if (!strcmp(mode, "np")) test_np();
    else if (!strcmp(mode, "putflood")) test_putflood();
    else RVT_FAIL("unknown mode %s", mode);
    return rvt_done("ucx_transport");
}
#endif
