/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/ofi_amlong.c: AM Long by RDMA over the ofi transport, both protocols.
 * Every rank sends Long Requests of several sizes (packed and RDMA) to the next rank; each
 * Request handler checks the whole payload in place, then sends it back with a Long Reply whose
 * handler checks it again. With RIVET_AMLONG_HOLD=payload the sender holds the payload back
 * until well after the header: the handler must still see every byte, and the counters must
 * show headers that waited ("header" first); with =header, payloads that waited.
 * Then (reassembly, no hold) IMMEDIATE Long Requests to myself without polling: accepted up to
 * the credits, then refused with nothing sent; every accepted one runs once, payload intact.
 * Their payloads are bounced (RIVET_OFI_BOUNCE=32K), so the call never waits, and so never
 * polls, for local completion.
 *   ofi_amlong [sync|reassembly] [none|payload|header]   (what the environment was set to) */
#include "rv_test.h"
#include "am/am_long.h"

#define KIB ((size_t)1024)
#define SLOT (1024 * KIB)
static const size_t sizes[] = {100, 8 * KIB, 8 * KIB + 8, 20000, 64 * KIB, 300 * KIB, 1000 * KIB};
#define NSIZES (sizeof sizes / sizeof sizes[0])
#define ITERS 4
#define SEG ((2 * NSIZES) * SLOT)

enum { H_REQ = GEX_AM_INDEX_BASE, H_REP, H_SELF };
#define SELF_SLOT (20 * KIB) /* RDMA (over 8 KiB), bounced (RIVET_OFI_BOUNCE=32K): no wait */
#define SELF_MAX 64
static volatile int acks;
static int bad;

static uint64_t seed_of(gex_Rank_t src, int iter, size_t j) { return src * 1000003u + iter * 101u + j; }

/* args: iteration, size index. The payload must already be complete. */
static void req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t iter, gex_AM_Arg_t j)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK);
    uint64_t seed = seed_of(ti.gex_srcrank, iter, (size_t)j);
    if (n != sizes[j] || rvt_find_bad(buf, n, seed) != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: Long Request of %zu bytes (iter %d) from rank %u: payload "
                "not in place when its handler ran (byte %zu wrong)\n", (unsigned)rvt_me, n,
                (int)iter, (unsigned)ti.gex_srcrank, rvt_find_bad(buf, n, seed));
        bad = 1;
    }
    /* echo it to the sender's reply area, slot j */
    void *dst = (char *)rvt_seg_addr(ti.gex_srcrank, (NSIZES + (size_t)j) * SLOT);
    gex_AM_ReplyLong2(t, H_REP, buf, n, dst, GEX_EVENT_NOW, 0, iter, j);
}

static void rep_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t iter, gex_AM_Arg_t j)
{
    (void)t;
    if (n != sizes[j] || rvt_find_bad(buf, n, seed_of(rvt_me, iter, (size_t)j)) != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: Long Reply of %zu bytes (iter %d): payload not in place\n",
                (unsigned)rvt_me, n, (int)iter);
        bad = 1;
    }
    acks++;
}

static volatile int self_got;
static void self_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t k)
{
    (void)t;
    if (n != SELF_SLOT || rvt_find_bad(buf, n, 777u + (uint64_t)k) != (size_t)-1) {
        fprintf(stderr, "FAIL rank %u: IMMEDIATE Long %d to myself: payload not in place\n",
                (unsigned)rvt_me, (int)k);
        bad = 1;
    }
    self_got++;
}

static void immediate_self(uint8_t *src)
{
    int acc = 0;
    for (; acc < SELF_MAX; acc++) {
        rvt_fill(src, SELF_SLOT, 777u + (uint64_t)acc);
        if (gex_AM_RequestLong1(rvt_tm, rvt_me, H_SELF, src, SELF_SLOT,
                                rvt_seg_addr(rvt_me, (size_t)acc * SELF_SLOT), GEX_EVENT_NOW,
                                GEX_FLAG_IMMEDIATE, acc) != 0)
            break;
    }
    RVT_CHECK(acc > 0 && acc < SELF_MAX, "%d IMMEDIATE Long Requests to myself accepted without "
              "polling (want some, then a refusal)", acc);
    GASNET_BLOCKUNTIL(self_got == acc);
    for (int i = 0; i < 100; i++) gasnet_AMPoll();
    RVT_CHECK(self_got == acc && !bad, "%d accepted, %d handled", acc, self_got);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG);
    const char *proto = argc > 1 ? argv[1] : "reassembly";
    const char *hold = argc > 2 ? argv[2] : "none";
    gex_AM_Entry_t tab[] = {
        {H_REQ, (gex_AM_Fn_t)req_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 2, NULL, "req"},
        {H_REP, (gex_AM_Fn_t)rep_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REPLY, 2, NULL, "rep"},
        {H_SELF, (gex_AM_Fn_t)self_handler, GEX_FLAG_AM_LONG | GEX_FLAG_AM_REQUEST, 1, NULL, "self"},
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, tab, 3));
    gex_Rank_t to = (rvt_me + 1) % rvt_n;
    RVT_CHECK(gex_AM_MaxRequestLong(rvt_tm, to, GEX_EVENT_NOW, 0, 2) >= sizes[NSIZES - 1],
              "MaxRequestLong to rank %u is %zu: the RDMA path is not in use", (unsigned)to,
              gex_AM_MaxRequestLong(rvt_tm, to, GEX_EVENT_NOW, 0, 2));
    uint8_t *src = malloc(SLOT);
    RVT_CHECK(src != NULL, "malloc");
    rvt_barrier();
    for (int it = 0; it < ITERS; it++) {
        for (size_t j = 0; j < NSIZES; j++) {
            rvt_fill(src, sizes[j], seed_of(rvt_me, it, j));
            int before = acks;
            /* slot j of the target's request area: reused only after the echo came back */
            RVT_OK(gex_AM_RequestLong2(rvt_tm, to, H_REQ, src, sizes[j],
                                       rvt_seg_addr(to, j * SLOT), GEX_EVENT_NOW, 0, it,
                                       (gex_AM_Arg_t)j));
            memset(src, 0, sizes[j]); /* locally complete on return: the target must not see this */
            GASNET_BLOCKUNTIL(acks > before);
        }
    }
    RVT_CHECK(!bad, "a handler saw an incomplete payload (see above)");
    rvt_barrier(); /* every rank's Requests are answered: the counters are final */
    rv_am_long_stats_t st;
    rv_am_long_get_stats(&st);
    int reasm = !strcmp(proto, "reassembly");
    uint64_t rdma = reasm ? st.rdma_reasm : st.rdma_sync;
    /* per iteration, the sizes above the packed threshold (8 KiB) go by RDMA, both ways */
    RVT_CHECK(rdma >= 2 * ITERS * 5 && (reasm ? st.rdma_sync : st.rdma_reasm) == 0,
              "%s: %llu Longs by that protocol, %llu by the other", proto,
              (unsigned long long)rdma,
              (unsigned long long)(reasm ? st.rdma_sync : st.rdma_reasm));
    if (!strcmp(hold, "payload"))
        RVT_CHECK(st.header_first > 0, "payload held back, yet no header ever waited for it "
                  "(%llu payloads first)", (unsigned long long)st.payload_first);
    if (!strcmp(hold, "header"))
        RVT_CHECK(st.payload_first > 0, "header held back, yet no payload arrived before it "
                  "(%llu headers first)", (unsigned long long)st.header_first);
    if (reasm && !strcmp(hold, "none")) immediate_self(src); /* the request area is free now */
    free(src);
    return rvt_done("ofi_amlong");
}
