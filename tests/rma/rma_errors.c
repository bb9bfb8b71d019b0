/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/rma/rma_errors.c: bad RMA and event calls end the job with a clear message. argv[1]
 * names the case; the last rank makes the bad call (to rank 0, itself at one rank), the others
 * wait in a barrier. Before the call the program prints what the message must contain, one
 * "rma_errors: expect: TEXT" line each (call, rank, the exact address range and segment
 * bounds); rma_expect.sh checks those against the fatal line, the test's regex its form. */
#include "rma_test.h"

#define SEG_BYTES (64 * RMAT_KIB)

static void expect(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void expect(const char *fmt, ...)
{
    char buf[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    printf("rma_errors: expect: %s\n", buf);
    fflush(stdout);
}

/* The message of a remote range outside rank 0's segment. */
static void expect_range(const char *call, const char *role, const void *a, size_t n)
{
    void *base = NULL;
    uintptr_t size = 0;
    RVT_OK(gex_Segment_QueryBound(rvt_tm, 0, &base, NULL, &size));
    expect("%s: ", call);
    expect("%s [%p, %p)", role, a, (void *)((uintptr_t)a + n));
    expect("bound segment [%p, %p)", base, (void *)((uintptr_t)base + size));
    expect("of rank 0");
}

static int in_handler_case;
static uint8_t *base_h;
static void bad_handler(gex_Token_t t)
{
    (void)t;
    uint64_t w = 1;
    if (in_handler_case == 1)
        (void)gex_RMA_PutNB(rvt_tm, 0, base_h, &w, 8, GEX_EVENT_NOW, 0);
    else
        (void)gex_RMA_GetNBI(rvt_tm, &w, 0, base_h, 8, 0);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG_BYTES);
    RVT_CHECK(argc == 2, "usage: rma_errors <case>");
    const char *c = argv[1];
    if (rvt_me != rvt_n - 1) {
        rvt_barrier(); /* the last rank never arrives */
        RVT_FAIL("case %s: the bad call did not end the job", c);
    }
    uint8_t *base0 = (uint8_t *)rvt_seg_addr(0, 0), *end0 = (uint8_t *)rvt_seg_addr(0, SEG_BYTES);
    uint8_t buf[512] = {0};
    gex_Event_t ev = GEX_EVENT_INVALID;

    if (!strcmp(c, "put_outside")) { /* starts exactly at the end */
        expect_range("gex_RMA_PutBlocking", "destination", end0, 8);
        gex_RMA_PutBlocking(rvt_tm, 0, end0, buf, 8, 0);
    } else if (!strcmp(c, "get_below")) { /* entirely below the base */
        expect_range("gex_RMA_GetNB", "source", base0 - 64, 16);
        ev = gex_RMA_GetNB(rvt_tm, buf, 0, base0 - 64, 16, 0);
    } else if (!strcmp(c, "put_below_straddle")) { /* 8 bytes below the base, 8 in it */
        expect_range("gex_RMA_PutBlocking", "destination", base0 - 8, 16);
        gex_RMA_PutBlocking(rvt_tm, 0, base0 - 8, buf, 16, 0);
    } else if (!strcmp(c, "get_below_straddle")) { /* 64 below, 448 in */
        expect_range("gex_RMA_GetNBI", "source", base0 - 64, 512);
        gex_RMA_GetNBI(rvt_tm, buf, 0, base0 - 64, 512, 0);
    } else if (!strcmp(c, "put_straddle")) { /* last 4 bytes in, next 4 out */
        expect_range("gex_RMA_PutNBI", "destination", end0 - 4, 8);
        gex_RMA_PutNBI(rvt_tm, 0, end0 - 4, buf, 8, GEX_EVENT_DEFER, 0);
    } else if (!strcmp(c, "get_straddle")) {
        expect_range("gex_RMA_GetBlocking", "source", end0 - 100, 200);
        gex_RMA_GetBlocking(rvt_tm, buf, 0, end0 - 100, 200, 0);
    } else if (!strcmp(c, "putnb_straddle")) {
        expect_range("gex_RMA_PutNB", "destination", end0 - 1, 2);
        ev = gex_RMA_PutNB(rvt_tm, 0, end0 - 1, buf, 2, GEX_EVENT_NOW, 0);
    } else if (!strcmp(c, "val_outside")) {
        expect_range("gex_RMA_PutBlockingVal", "destination", end0 - 2, 4);
        gex_RMA_PutBlockingVal(rvt_tm, 0, end0 - 2, 42, 4, 0);
    } else if (!strcmp(c, "getval_outside")) {
        expect_range("gex_RMA_GetBlockingVal", "source", end0, 8);
        (void)gex_RMA_GetBlockingVal(rvt_tm, 0, end0, 8, 0);
    } else if (!strcmp(c, "nb_group")) {
        expect("gex_RMA_PutNB: lc_opt GEX_EVENT_GROUP");
        ev = gex_RMA_PutNB(rvt_tm, 0, base0, buf, 8, GEX_EVENT_GROUP, 0);
    } else if (!strcmp(c, "nb_null")) {
        expect("gex_RMA_PutNB: lc_opt is NULL");
        ev = gex_RMA_PutNB(rvt_tm, 0, base0, buf, 8, NULL, 0);
    } else if (!strcmp(c, "nbi_pointer")) {
        expect("gex_RMA_PutNBI: lc_opt");
        expect("not a pointer");
        gex_RMA_PutNBI(rvt_tm, 0, base0, buf, 8, &ev, 0);
    } else if (!strcmp(c, "nbi_null")) {
        expect("gex_RMA_PutNBI: lc_opt is NULL");
        gex_RMA_PutNBI(rvt_tm, 0, base0, buf, 8, NULL, 0);
    } else if (!strcmp(c, "rank_put")) {
        expect("gex_RMA_PutBlocking: rank %u is out of range (team size %u)", (unsigned)rvt_n,
               (unsigned)rvt_n);
        gex_RMA_PutBlocking(rvt_tm, rvt_n, base0, buf, 8, 0);
    } else if (!strcmp(c, "rank_get")) {
        expect("gex_RMA_GetNB: rank %u is out of range (team size %u)", (unsigned)GEX_RANK_INVALID,
               (unsigned)rvt_n);
        ev = gex_RMA_GetNB(rvt_tm, buf, GEX_RANK_INVALID, base0, 8, 0);
    } else if (!strcmp(c, "val_size")) {
        expect("gex_RMA_PutBlockingVal: nbytes=9");
        gex_RMA_PutBlockingVal(rvt_tm, 0, base0, 42, 9, 0);
    } else if (!strcmp(c, "getval_size")) {
        expect("gex_RMA_GetBlockingVal: nbytes=0");
        (void)gex_RMA_GetBlockingVal(rvt_tm, 0, base0, 0, 0);
    } else if (!strcmp(c, "test_noop")) {
        expect("gex_Event_Test: GEX_EVENT_NO_OP");
        gex_Event_Test(GEX_EVENT_NO_OP);
    } else if (!strcmp(c, "wait_noop")) {
        expect("gex_Event_Wait: GEX_EVENT_NO_OP");
        gex_Event_Wait(GEX_EVENT_NO_OP);
    } else if (!strcmp(c, "waitall_noop")) {
        gex_Event_t arr[3] = {GEX_EVENT_INVALID, GEX_EVENT_NO_OP, GEX_EVENT_INVALID};
        expect("gex_Event_WaitAll: GEX_EVENT_NO_OP");
        gex_Event_WaitAll(arr, 3, 0);
    } else if (!strcmp(c, "region_nest")) {
        expect("gex_NBI_BeginAccessRegion: ");
        expect("do not nest");
        gex_NBI_BeginAccessRegion(0);
        gex_NBI_BeginAccessRegion(0);
    } else if (!strcmp(c, "region_end")) {
        expect("gex_NBI_EndAccessRegion: no access region is open");
        (void)gex_NBI_EndAccessRegion(0);
    } else if (!strcmp(c, "wait_in_region")) {
        expect("gex_NBI_Wait called inside an NBI access region");
        gex_NBI_Wait(GEX_EC_ALL, 0); /* nothing outstanding: gasnetex.h's inline sync armed */
        gex_NBI_BeginAccessRegion(0);
        gex_RMA_PutNBI(rvt_tm, 0, base0, buf, 8, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
    } else if (!strcmp(c, "test_in_region")) {
        expect("gex_NBI_Test called inside an NBI access region");
        gex_NBI_Wait(GEX_EC_ALL, 0);
        gex_NBI_BeginAccessRegion(0);
        (void)gex_NBI_Test(GEX_EC_ALL, 0);
    } else if (!strcmp(c, "putnb_in_handler") || !strcmp(c, "getnbi_in_handler")) {
        /* a handler's NB/NBI call to a mapped peer takes the library's path, which refuses it */
        in_handler_case = c[0] == 'p' ? 1 : 2;
        base_h = base0;
        expect("%s called inside an AM handler", c[0] == 'p' ? "gex_RMA_PutNB" : "gex_RMA_GetNBI");
        gex_AM_Entry_t am = {0, (gex_AM_Fn_t)bad_handler, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT,
                             0, NULL, "bad_handler"};
        RVT_OK(gex_EP_RegisterHandlers(rvt_ep, &am, 1));
        RVT_OK(gex_AM_RequestShort0(rvt_tm, rvt_me, am.gex_index, 0));
        for (int i = 0; i < 1000000; i++) gasnet_AMPoll();
    } else if (!strcmp(c, "nbi_flags")) {
        expect("gex_NBI_Test: flags must be 0");
        (void)gex_NBI_Test(GEX_EC_ALL, 1);
    } else if (!strcmp(c, "nbi_mask")) {
        expect("gex_NBI_Wait: event_mask 0x100 has bits that name no GEX_EC_*");
        gex_NBI_Wait((gex_EC_t)0x100, 0);
    } else if (!strcmp(c, "region_flags")) {
        expect("gex_NBI_BeginAccessRegion: flags must be 0");
        gex_NBI_BeginAccessRegion(1);
    } else if (!strcmp(c, "testsome_flags")) {
        gex_Event_t arr[1] = {GEX_EVENT_INVALID};
        expect("gex_Event_TestSome: flags must be 0");
        (void)gex_Event_TestSome(arr, 1, 1);
    } else if (!strcmp(c, "waitall_flags")) {
        gex_Event_t arr[1] = {GEX_EVENT_INVALID};
        expect("gex_Event_WaitAll: flags must be 0");
        gex_Event_WaitAll(arr, 1, 2);
    } else if (!strcmp(c, "leaf_all")) {
        expect("gex_Event_QueryLeaf: event_category 0x1f is not a single GEX_EC_* category");
        (void)gex_Event_QueryLeaf(GEX_EVENT_INVALID, GEX_EC_ALL);
    } else if (!strcmp(c, "leaf_or")) {
        ev = gex_RMA_PutNB(rvt_tm, 0, base0, buf, 8, GEX_EVENT_DEFER, 0);
        expect("gex_Event_QueryLeaf: event_category 0xa is not a single GEX_EC_* category");
        (void)gex_Event_QueryLeaf(ev, GEX_EC_LC | GEX_EC_PUT);
    } else if (!strcmp(c, "leaf_noop")) {
        expect("gex_Event_QueryLeaf: root is GEX_EVENT_NO_OP");
        (void)gex_Event_QueryLeaf(GEX_EVENT_NO_OP, GEX_EC_LC);
    } else {
        RVT_FAIL("unknown case %s", c);
    }
    gex_Event_Wait(ev);
    RVT_FAIL("case %s: the bad call returned", c);
}
