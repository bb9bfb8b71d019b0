/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_flush.c: remote completion of puts over ofi, by per-peer flush reads
 * (RIVET_OFI_PUT_COMPLETION=flush) or by each write's own delivery completion ('delivery').
 *   ofi_flush flush|delivery
 * Every rank floods every other rank with NBI (and NB) puts of mixed sizes (inject, bounce,
 * from the client's memory) taken from three source buffers (its segment, two malloc'd ones),
 * syncs, and enters a barrier; right after it each target checks every byte it was sent.
 * Rounds vary the local completion option (DEFER, NOW with the source scribbled at once,
 * GROUP with the sources scribbled after GEX_EC_LC, NB events). Then a get right after a
 * synced put must see the put's data. The counters say which completion path ran. */
#include "rv_test.h"
#include "transport/ofi/ofi_stats.h"

#define KIB     ((size_t)1024)
#define NPUTS   240                /* puts per peer per round */
#define REGION  (1536 * KIB)       /* bytes a source gets in each target's segment */
#define GETAREA (64 * KIB)         /* per source, after the regions: put-then-get */
static const size_t sizes[] = {8, 1, 65, 1000, 4096, 8193, 12000, 24577};
#define NSIZES (sizeof sizes / sizeof sizes[0])

static size_t put_off[NPUTS + 1]; /* put i covers [put_off[i], put_off[i+1]) */
static uint8_t **srcs;            /* [3 * peer + b]: a peer's pattern in three places */
static uint8_t *myseg;

static rv_ofi_stats_t stats(void)
{
    rv_ofi_stats_t s;
    RVT_CHECK(rv_ofi_stats(&s) == 0, "the ofi transport is not in use (set RIVET_TRANSPORT=ofi)");
    return s;
}

static uint64_t seed_of(unsigned round, gex_Rank_t src, gex_Rank_t dst)
{
    return 0x5EED0000u + 1000u * round + 31u * src + dst;
}

/* One round: the pattern for each peer in every source buffer, the flood, the sync. */
static void flood(unsigned round)
{
    size_t nev = 0;
    gex_Event_t *evs = malloc(rvt_n * NPUTS * sizeof *evs);
    RVT_CHECK(evs != NULL, "malloc of %d events failed", rvt_n * NPUTS);
    /* every peer has its own sources: with DEFER none may change before the sync */
    for (gex_Rank_t p = 0; p < rvt_n; p++)
        for (int b = 0; b < 3 && p != rvt_me; b++)
            rvt_fill(srcs[3 * p + b], put_off[NPUTS], seed_of(round, rvt_me, p));
    for (gex_Rank_t p = 0; p < rvt_n; p++) {
        if (p == rvt_me) continue;
        uint8_t *dst = rvt_seg_addr(p, (uintptr_t)rvt_me * REGION);
        for (int i = 0; i < NPUTS; i++) {
            uint8_t *s = srcs[3 * p + i % 3] + put_off[i];
            size_t n = put_off[i + 1] - put_off[i];
            switch (round) {
            case 0:
                gex_RMA_PutNBI(rvt_tm, p, dst + put_off[i], s, n, GEX_EVENT_DEFER, 0);
                break;
            case 1: /* locally complete on return: the source may change at once */
                gex_RMA_PutNBI(rvt_tm, p, dst + put_off[i], s, n, GEX_EVENT_NOW, 0);
                memset(s, 0xEE, n);
                break;
            case 2:
                gex_RMA_PutNBI(rvt_tm, p, dst + put_off[i], s, n, GEX_EVENT_GROUP, 0);
                break;
            default:
                evs[nev++] = gex_RMA_PutNB(rvt_tm, p, dst + put_off[i], s, n, GEX_EVENT_DEFER, 0);
                break;
            }
        }
    }
    if (round == 2) { /* local completion, then scribble before the data is known to land */
        gex_NBI_Wait(GEX_EC_LC, 0);
        for (gex_Rank_t p = 0; p < rvt_n; p++)
            for (int b = 0; b < 3 && p != rvt_me; b++)
                memset(srcs[3 * p + b], 0xDD, put_off[NPUTS]);
    }
    if (round == 3) gex_Event_WaitAll(evs, nev, 0);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    free(evs);
}

/* The target's side: every byte each source sent, right after the barrier. */
static void verify(unsigned round)
{
    for (gex_Rank_t s = 0; s < rvt_n; s++) {
        if (s == rvt_me) continue;
        char what[96];
        snprintf(what, sizeof what, "round %u: %d puts from rank %u, checked after the barrier",
                 round, NPUTS, (unsigned)s);
        RVT_VERIFY(myseg + (size_t)s * REGION, put_off[NPUTS], seed_of(round, s, rvt_me), what);
    }
}

/* A get right after a synced put (NBI, then NB) reads the put's data. */
static void put_then_get(void)
{
    uint8_t *back = malloc(GETAREA);
    RVT_CHECK(back != NULL, "malloc(%zu) failed", GETAREA);
    for (gex_Rank_t p = 0; p < rvt_n; p++) {
        if (p == rvt_me) continue;
        uint8_t *dst = rvt_seg_addr(p, rvt_n * REGION + (uintptr_t)rvt_me * GETAREA);
        for (unsigned k = 0; k < 8; k++) {
            uint64_t seed = 0x6E7000u + 16u * k + p;
            size_t n = k & 1 ? GETAREA : 8 + 999 * k;
            rvt_fill(srcs[3 * p + 1], n, seed);
            if (k & 2) {
                uint8_t *src = srcs[3 * p + 1];
                gex_Event_Wait(gex_RMA_PutNB(rvt_tm, p, dst, src, n, GEX_EVENT_DEFER, 0));
            } else {
                for (size_t off = 0; off < n; off += 4096) {
                    size_t m = n - off < 4096 ? n - off : 4096;
                    gex_RMA_PutNBI(rvt_tm, p, dst + off, srcs[3 * p + 1] + off, m,
                                   GEX_EVENT_DEFER, 0);
                }
                gex_NBI_Wait(GEX_EC_PUT, 0);
            }
            memset(back, 0, n);
            if (k & 4) gex_Event_Wait(gex_RMA_GetNB(rvt_tm, back, p, dst, n, 0));
            else RVT_OK(gex_RMA_GetBlocking(rvt_tm, back, p, dst, n, 0));
            char what[80];
            snprintf(what, sizeof what, "get of %zu bytes from rank %u right after its put", n,
                     (unsigned)p);
            RVT_VERIFY(back, n, seed, what);
        }
    }
    free(back);
}

int main(int argc, char **argv)
{
    size_t segsize = 0;
    put_off[0] = 0;
    for (int i = 0; i < NPUTS; i++) put_off[i + 1] = put_off[i] + sizes[i % NSIZES];
    rvt_init(&argc, &argv, 0);
    RVT_CHECK(argc == 2 && (!strcmp(argv[1], "flush") || !strcmp(argv[1], "delivery")),
              "usage: ofi_flush flush|delivery");
    int flush = !strcmp(argv[1], "flush");
    RVT_CHECK(rvt_n >= 3, "needs 3 or more ranks (2+ peers each), has %u", (unsigned)rvt_n);
    RVT_CHECK(put_off[NPUTS] <= REGION, "%zu bytes of puts exceed the region", put_off[NPUTS]);
    segsize = rvt_n * (REGION + GETAREA + REGION);
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, segsize));
    myseg = gex_Segment_QueryAddr(rvt_seg);
    srcs = calloc(3 * rvt_n, sizeof *srcs);
    RVT_CHECK(srcs != NULL, "calloc failed");
    for (gex_Rank_t p = 0; p < rvt_n; p++) { /* one source in my segment, two malloc'd */
        srcs[3 * p] = myseg + rvt_n * (REGION + GETAREA) + (size_t)p * REGION;
        srcs[3 * p + 1] = malloc(REGION);
        srcs[3 * p + 2] = malloc(REGION);
        RVT_CHECK(srcs[3 * p + 1] && srcs[3 * p + 2], "malloc(%zu) failed", REGION);
    }

    rv_ofi_stats_t a = stats();
    RVT_CHECK(a.put_flush == (flush ? 2u : 0u), "put_flush is %llu, expected %d for '%s'",
              (unsigned long long)a.put_flush, flush ? 2 : 0, argv[1]);
    for (unsigned round = 0; round < 4; round++) {
        memset(myseg, 0, rvt_n * REGION);
        rvt_barrier(); /* everyone's regions are clear */
        flood(round);
        rvt_barrier(); /* every put was synced by its initiator */
        verify(round);
    }
    put_then_get();
    rvt_barrier();
    rv_ofi_stats_t b = stats();
    unsigned long long puts = b.puts - a.puts, fl = b.peer_flushes - a.peer_flushes,
                       fp = b.flushed_puts - a.flushed_puts;
    RVT_CHECK(puts >= 4u * NPUTS * (rvt_n - 1), "only %llu RDMA puts", puts);
    if (flush) {
        RVT_CHECK(fp == puts, "%llu puts, but %llu completed by a flush", puts, fp);
        RVT_CHECK(fl >= 4u * (rvt_n - 1) && 2 * fl <= fp,
                  "%llu flushes for %llu puts (expected one per peer and sync, about)", fl, fp);
    } else {
        RVT_CHECK(fl == 0 && fp == 0, "'delivery', yet %llu flushes covered %llu puts", fl, fp);
    }
    if (rvt_me == 0)
        printf("ofi_flush %s: %llu puts, %llu flushes\n", argv[1], puts, fl);
    for (gex_Rank_t p = 0; p < rvt_n; p++) {
        free(srcs[3 * p + 1]);
        free(srcs[3 * p + 2]);
    }
    free(srcs);
    return rvt_done("ofi_flush");
}
