/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_rdma.c: the ofi transport's native RMA, seen through its counters.
 *   ofi_rdma native   puts and gets travel as RDMA (counters move), data checked
 *   ofi_rdma ref      RIVET_RMA=ref: no RDMA get, puts as AM
 *   ofi_rdma cache    RIVET_OFI_MR_LOCAL=1 RIVET_OFI_REGCACHE_MAX=1M: bounce buffers for small
 *                     out-of-segment buffers; the registration cache reuses a registration,
 *                     coalesces adjacent ranges and stays within its bound
 *   ofi_rdma flush    RIVET_OFI_DC=0: remote completion by follow-up reads
 *   ofi_rdma immediate  GEX_FLAG_IMMEDIATE puts without polling are refused ("no op") once the
 *                     transport runs out of operation slots; a refused get too; nothing lost
 * Rank r works against rank r^1 (np must be even); every transfer is read back and compared. */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#include <stdlib.h>

#define KIB ((size_t)1024)
#define SEG (4 * KIB * KIB)

static gex_Rank_t peer;
static uint8_t *remote_base; /* the peer's segment, as it sees it */

static rv_ofi_stats_t stats(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use (set RIVET_TRANSPORT=ofi)");
    return s;
}

/* Puts n bytes of pattern 'seed' from src to the peer's segment at off, reads them back into
 * back (cleared first), and compares. */
static void roundtrip(uint8_t *src, uint8_t *back, size_t off, size_t n, uint64_t seed,
                      const char *what)
{
    rvt_fill(src, n, seed);
    gex_Event_Wait(gex_RMA_PutNB(rvt_tm, peer, remote_base + off, src, n, GEX_EVENT_DEFER, 0));
    memset(back, 0, n);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, remote_base + off, n, 0));
    RVT_VERIFY(back, n, seed, what);
}

static uint8_t *page_alloc(size_t n)
{
    void *p = NULL;
    RVT_CHECK(posix_memalign(&p, 4096, n) == 0, "posix_memalign(%zu) failed", n);
    return p;
}

static void test_native(int expect_rdma)
{
    uint8_t *src = page_alloc(256 * KIB), *back = page_alloc(256 * KIB);
    rv_ofi_stats_t a = stats();
    static const size_t sizes[] = {1, 8, 64, 65, 1000, 8 * KIB, 8 * KIB + 1, 100 * KIB, 256 * KIB};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        char what[64];
        snprintf(what, sizeof what, "put/get of %zu bytes", sizes[i]);
        roundtrip(src, back, 4096 * i, sizes[i], 0xABC0u + i + 100 * rvt_me, what);
    }
    /* a NBI burst from my segment's upper half into the peer's second MiB, then read back */
    uint8_t *myseg = gex_Segment_QueryAddr(rvt_seg);
    rvt_fill(myseg + SEG / 2, 512 * KIB, 0x77u + rvt_me);
    for (size_t off = 0; off < 512 * KIB; off += 32 * KIB)
        gex_RMA_PutNBI(rvt_tm, peer, remote_base + 1024 * KIB + off, myseg + SEG / 2 + off,
                       32 * KIB, GEX_EVENT_DEFER, 0);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    uint8_t *big = page_alloc(512 * KIB);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, big, peer, remote_base + 1024 * KIB, 512 * KIB, 0));
    RVT_VERIFY(big, 512 * KIB, 0x77u + rvt_me, "NBI burst from the segment");
    rv_ofi_stats_t b = stats();
    if (expect_rdma) {
        RVT_CHECK(b.puts - a.puts >= 10 && b.gets - a.gets >= 10,
                  "RDMA counters did not move: %llu puts, %llu gets",
                  (unsigned long long)(b.puts - a.puts), (unsigned long long)(b.gets - a.gets));
    } else {
        RVT_CHECK(b.gets == a.gets, "RIVET_RMA=ref, yet %llu RDMA reads were issued",
                  (unsigned long long)(b.gets - a.gets));
    }
    free(src);
    free(back);
    free(big);
}

static void test_cache(void)
{
    rv_ofi_stats_t s0 = stats();
    RVT_CHECK(s0.rc_limit == 1024 * KIB, "regcache bound is %llu, run with RIVET_OFI_REGCACHE_MAX=1M",
              (unsigned long long)s0.rc_limit);
    uint8_t *back = page_alloc(256 * KIB);

    /* small out-of-segment buffers go through bounce buffers, both ways */
    uint8_t small[2000];
    roundtrip(small, back, 0, sizeof small, 11, "bounced put/get");
    rv_ofi_stats_t s1 = stats();
    RVT_CHECK(s1.bounce_puts > s0.bounce_puts && s1.bounce_gets > s0.bounce_gets,
              "no bounce buffer used for a 2000-byte out-of-segment put/get");
    RVT_CHECK(s1.rc_misses == s0.rc_misses, "a small transfer registered memory");

    /* the reads back all land in 'back': register all of it once, up front */
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, remote_base, 256 * KIB, 0));
    s1 = stats();

    /* repeated puts from one large buffer: one registration, then hits */
    uint8_t *a = page_alloc(512 * KIB);
    for (int i = 0; i < 10; i++) roundtrip(a, back, 0, 64 * KIB, 100 + i, "repeated put");
    rv_ofi_stats_t s2 = stats();
    RVT_CHECK(s2.rc_misses - s1.rc_misses == 1, "10 puts from one buffer + 10 gets into another "
              "registered %llu times (want 1)", (unsigned long long)(s2.rc_misses - s1.rc_misses));
    RVT_CHECK(s2.rc_hits - s1.rc_hits >= 18, "only %llu cache hits for 20 transfers",
              (unsigned long long)(s2.rc_hits - s1.rc_hits));

    /* the next 64 KiB of the same buffer is adjacent: it coalesces with the first */
    roundtrip(a + 64 * KIB, back, 0, 64 * KIB, 200, "adjacent put");
    rv_ofi_stats_t s3 = stats();
    RVT_CHECK(s3.rc_merged > s2.rc_merged, "an adjacent range did not coalesce (merged %llu)",
              (unsigned long long)s3.rc_merged);
    /* now the whole 128 KiB is one registration: a put spanning both is a hit */
    roundtrip(a, back, 0, 128 * KIB, 201, "spanning put");
    rv_ofi_stats_t s4 = stats();
    RVT_CHECK(s4.rc_misses == s3.rc_misses, "a put over two coalesced ranges registered again");

    /* many separate buffers: the bound holds, old entries are evicted */
    enum { NB = 10 };
    uint8_t *bufs[NB];
    for (int i = 0; i < NB; i++) bufs[i] = page_alloc(256 * KIB); /* gaps keep them apart */
    for (int i = 0; i < NB; i++) roundtrip(bufs[i], back, 0, 192 * KIB, 300 + i, "bounded put");
    rv_ofi_stats_t s5 = stats();
    RVT_CHECK(s5.rc_evicted > s4.rc_evicted, "%d x 192 KiB through a 1 MiB cache evicted nothing",
              NB);
    RVT_CHECK(s5.rc_bytes_max <= s5.rc_limit && s5.rc_bytes <= s5.rc_limit,
              "registered %llu bytes (peak %llu) over the %llu-byte bound",
              (unsigned long long)s5.rc_bytes, (unsigned long long)s5.rc_bytes_max,
              (unsigned long long)s5.rc_limit);
    for (int i = 0; i < NB; i++) free(bufs[i]);
    free(a);
    free(back);
}

static void test_flush(void)
{
    rv_ofi_stats_t a = stats();
    uint8_t buf[4096], back[4096];
    for (int i = 0; i < 5; i++) roundtrip(buf, back, 0, sizeof buf, 500 + i, "flushed put");
    rv_ofi_stats_t b = stats();
    RVT_CHECK(b.flush_reads - a.flush_reads >= 5, "RIVET_OFI_DC=0 but %llu follow-up reads",
              (unsigned long long)(b.flush_reads - a.flush_reads));
}

static void test_immediate(void)
{
    uint8_t *myseg = gex_Segment_QueryAddr(rvt_seg);
    const size_t n = 64 * KIB;
    rvt_fill(myseg + SEG / 2, n, 0x1234u + rvt_me);
    unsigned long acc = 0, tries = 0;
    /* every put writes the same bytes to the same place: no race in what lands there */
    while (tries++ < 100000 &&
           gex_RMA_PutNBI(rvt_tm, peer, remote_base + 1024 * KIB, myseg + SEG / 2, n,
                          GEX_EVENT_DEFER, GEX_FLAG_IMMEDIATE) == 0)
        acc++;
    RVT_CHECK(acc > 0 && tries <= 100000, "IMMEDIATE puts without polling: %lu accepted of %lu "
              "tries (want some accepted, then a refusal)", acc, tries - 1);
    uint8_t *back = page_alloc(n);
    RVT_CHECK(gex_RMA_GetNBI(rvt_tm, back, peer, remote_base + 1024 * KIB, n,
                             GEX_FLAG_IMMEDIATE) != 0,
              "an IMMEDIATE get was accepted while %lu puts hold every operation slot", acc);
    gex_NBI_Wait(GEX_EC_ALL, 0);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, peer, remote_base + 1024 * KIB, n, 0));
    RVT_VERIFY(back, n, 0x1234u + rvt_me, "data of the accepted IMMEDIATE puts");
    free(back);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG);
    const char *mode = argc > 1 ? argv[1] : "native";
    RVT_CHECK(rvt_n % 2 == 0, "needs an even number of ranks");
    peer = rvt_me ^ 1;
    remote_base = rvt_seg_addr(peer, 0);
    rvt_barrier();
    if (!strcmp(mode, "native")) test_native(1);
    else if (!strcmp(mode, "ref")) test_native(0);
    else if (!strcmp(mode, "cache")) test_cache();
    else if (!strcmp(mode, "flush")) test_flush();
    else if (!strcmp(mode, "immediate")) test_immediate();
    else RVT_FAIL("unknown mode %s", mode);
    return rvt_done("ofi_rdma");
}
