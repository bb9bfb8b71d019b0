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

#include <signal.h>
#include <stdlib.h>

#define KIB ((size_t)1024)
#define SEG (12 * KIB * KIB)

enum { H_LONG = GEX_AM_INDEX_BASE, H_ACK, H_PING };
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
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 3));
    RVT_CHECK(rvt_n % 2 == 0 || !strcmp(mode, "atomics"), "needs an even number of ranks");
    peer = (rvt_me ^ 1) % rvt_n;
    (void)stats();
    if (!strcmp(mode, "amlong")) test_amlong(argc > 2 ? argv[2] : "reassembly");
    else if (!strcmp(mode, "regreuse")) test_regreuse();
    else if (!strcmp(mode, "death")) test_death();
    else if (!strcmp(mode, "atomics")) test_atomics();
    else RVT_FAIL("unknown mode %s", mode);
    return rvt_done("ucx_transport");
}
#endif
