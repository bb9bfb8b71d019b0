/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_long_copy.c: AM Long payloads of 1-5 KiB into a peer's segment, around the sizes
 * where the sender's copy changes strategy (RIVET_AMLONG_COPY, 4 KiB: am_inject.c), from
 * sources and to destinations at odd offsets, with and without GEX_FLAG_IMMEDIATE. Each
 * handler checks the payload byte by byte and that every other byte of its slot still holds
 * the guard pattern written before the exchange. */
#include "rv_test.h"
#include "am_macros.h"

enum { H_LONG = 160 };

#define SLOT 8192
#define GUARD 0xA5

static const size_t sizes[] = { 1000, 1023, 1024, 1025, 1536, 2047, 2048, 2112,
                                2113, 3000, 4095, 4096, 4097, 5000 };
static const size_t src_off[] = { 0, 1, 7, 63 };
static const size_t dst_off[] = { 0, 3, 64 };
#define NS (sizeof sizes / sizeof sizes[0])
#define NSRC (sizeof src_off / sizeof src_off[0])
#define NDST (sizeof dst_off / sizeof dst_off[0])
#define NCASE (NS * NSRC * NDST * 2) /* * 2: with and without IMMEDIATE */

static uint8_t *myseg;
static volatile unsigned long got;

static size_t case_size(unsigned c) { return sizes[c % NS]; }
static size_t case_dst(unsigned c) { return dst_off[(c / NS / NSRC) % NDST]; }
static size_t case_src(unsigned c) { return src_off[(c / NS) % NSRC]; }
static uintptr_t slot_off(unsigned c) { return (uintptr_t)c * SLOT; } /* one sender per rank */

static void h_long(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t c)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    RVT_CHECK(c >= 0 && (unsigned)c < NCASE, "case %d out of range", c);
    RVT_CHECK(info.gex_srcrank == (rvt_me + rvt_n - 1) % rvt_n, "case %d from rank %u", c,
              (unsigned)info.gex_srcrank);
    uint8_t *slot = myseg + slot_off((unsigned)c);
    RVT_CHECK(buf == slot + case_dst((unsigned)c) && nb == case_size((unsigned)c),
              "case %d from %u: buf %p/%zu, expected %p/%zu", c, (unsigned)info.gex_srcrank, buf,
              nb, (void *)(slot + case_dst((unsigned)c)), case_size((unsigned)c));
    AMT_VERIFY(buf, nb, (uint64_t)c * 31 + info.gex_srcrank, "Long payload");
    for (size_t i = 0; i < SLOT; i++) {
        if (slot + i >= (uint8_t *)buf && slot + i < (uint8_t *)buf + nb) continue;
        RVT_CHECK(slot[i] == GUARD, "case %d (%zu bytes at +%zu): byte %zu of its slot is 0x%02x",
                  c, nb, case_dst((unsigned)c), i, slot[i]);
    }
    got++;
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, (uintptr_t)NCASE * SLOT);
    myseg = gex_Segment_QueryAddr(rvt_seg);
    gex_AM_Entry_t table[] = {
        { H_LONG, (gex_AM_Fn_t)h_long, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, NULL },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, table, 1));
    memset(myseg, GUARD, (size_t)NCASE * SLOT);
    rvt_barrier();

    gex_Rank_t peer = (rvt_me + 1) % rvt_n;
    uint8_t *peerseg = rvt_seg_addr(peer, 0);
    uint8_t *src = malloc(8192 + 64);
    RVT_CHECK(src != NULL, "out of memory");
    for (unsigned c = 0; c < NCASE; c++) {
        size_t n = case_size(c);
        uint8_t *s = src + case_src(c);
        amt_fill(s, n, (uint64_t)c * 31 + rvt_me);
        void *dest = peerseg + slot_off(c) + case_dst(c);
        if (c < NCASE / 2) {
            RVT_OK(gex_AM_RequestLong(rvt_tm, peer, H_LONG, s, n, dest, GEX_EVENT_NOW, 0,
                                      (gex_AM_Arg_t)c));
        } else {
            while (gex_AM_RequestLong(rvt_tm, peer, H_LONG, s, n, dest, GEX_EVENT_NOW,
                                      GEX_FLAG_IMMEDIATE, (gex_AM_Arg_t)c))
                gasnet_AMPoll();
        }
        memset(src, 0x5A, 8192 + 64); /* the copy is done once the call returns */
    }
    GASNET_BLOCKUNTIL(got == NCASE);
    free(src);
    return rvt_done("am_long_copy");
}
