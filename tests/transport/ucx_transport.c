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
    RVT_CHECK(rvt_n % 2 == 0, "needs an even number of ranks");
    peer = rvt_me ^ 1;
    (void)stats();
    if (!strcmp(mode, "amlong")) test_amlong(argc > 2 ? argv[2] : "reassembly");
    else if (!strcmp(mode, "regreuse")) test_regreuse();
    else if (!strcmp(mode, "death")) test_death();
    else RVT_FAIL("unknown mode %s", mode);
    return rvt_done("ucx_transport");
}
#endif
