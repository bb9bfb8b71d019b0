/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/am/am_loopback.c: client AMs to the own rank (loopback) run their handler inside the
 * sending call, with the usual handler context and payload rules:
 * - the handler has run when the Request returns (no poll), and its nested Reply handler too;
 * - gex_Token_Info: srcrank is this rank, is_req tells Request from Reply, entry is the
 *   handler's registered entry (index, name, cdata);
 * - a Medium handler gets a private copy: a different address from the source, with the
 *   source's bytes; the handler scribbles over its copy and the source stays unchanged; the
 *   Reply it sends from that copy arrives as a further private copy; sizes 0 to the maximum
 *   (stack copies and the per-thread buffers);
 * - a Long payload is in the segment at the destination before the handler runs;
 * - GEX_FLAG_IMMEDIATE is never refused;
 * - several threads loop back at once (each checks its own payloads and counts).
 * Every rank runs it at once (NP 1 and 2: the other rank's traffic, if any, is its own). */
#include "rv_test.h"

#include <pthread.h>

#define NTHREADS 4
#define TITERS   3000

enum { H_REQ_S = 200, H_REP_S, H_REQ_M, H_REP_M, H_REQ_L, H_REP_L };

static char         *myseg;
static size_t        maxmed, longmax;
static _Thread_local int  ran_req, ran_rep; /* handlers run on this thread */
static _Thread_local const uint8_t *req_src; /* the Medium source of the Request in flight */
static _Thread_local const uint8_t *req_copy;
static _Thread_local size_t         long_off; /* this thread's Long region in the segment */

static uint8_t pat(size_t i, unsigned seed) { return (uint8_t)(i * 131u + seed * 7u + 1u); }

static void check_token(gex_Token_t t, int is_req, gex_AM_Index_t idx)
{
    gex_Token_Info_t info;
    gex_TI_t got = gex_Token_Info(t, &info, GEX_TI_ALL);
    RVT_CHECK((got & (GEX_TI_SRCRANK | GEX_TI_IS_REQ | GEX_TI_ENTRY)) ==
                  (GEX_TI_SRCRANK | GEX_TI_IS_REQ | GEX_TI_ENTRY),
              "gex_Token_Info gave 0x%x", (unsigned)got);
    RVT_CHECK(info.gex_srcrank == rvt_me, "srcrank %u, not this rank", (unsigned)info.gex_srcrank);
    RVT_CHECK(!!info.gex_is_req == is_req, "is_req %d in a %s handler", (int)info.gex_is_req,
              is_req ? "Request" : "Reply");
    RVT_CHECK(info.gex_entry && info.gex_entry->gex_index == idx,
              "entry names index %u, not %u", info.gex_entry ? info.gex_entry->gex_index : 0u,
              (unsigned)idx);
    RVT_CHECK(info.gex_entry->gex_cdata == (const void *)&myseg, "entry cdata is not ours");
}

static void req_s(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1)
{
    check_token(t, 1, H_REQ_S);
    ran_req++;
    RVT_OK(gex_AM_ReplyShort2(t, H_REP_S, 0, a1, a0));
}

static void rep_s(gex_Token_t t, gex_AM_Arg_t a0, gex_AM_Arg_t a1)
{
    check_token(t, 0, H_REP_S);
    RVT_CHECK(a0 == 22 && a1 == 11, "Reply args %d %d", (int)a0, (int)a1);
    ran_rep++;
}

static void req_m(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    check_token(t, 1, H_REQ_M);
    RVT_CHECK(nb == 0 || buf != (void *)req_src, "the Medium handler got the source itself");
    RVT_CHECK(((uintptr_t)buf & 7) == 0, "Medium buffer %p is not 8-byte aligned", buf);
    uint8_t *b = buf;
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(b[i] == pat(i, (unsigned)seed), "Medium Request byte %zu of %zu", i, nb);
    for (size_t i = 0; i < nb; i++) b[i] = pat(i, (unsigned)seed + 1); /* its own copy */
    req_copy = b;
    ran_req++;
    RVT_OK(gex_AM_ReplyMedium1(t, H_REP_M, buf, nb, GEX_EVENT_NOW, 0, seed + 1));
}

static void rep_m(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    check_token(t, 0, H_REP_M);
    RVT_CHECK(nb == 0 || buf != (void *)req_copy, "the Reply handler got the Reply's source");
    const uint8_t *b = buf;
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(b[i] == pat(i, (unsigned)seed), "Medium Reply byte %zu of %zu", i, nb);
    ran_rep++;
}

static void req_l(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    check_token(t, 1, H_REQ_L);
    RVT_CHECK(buf == myseg + long_off, "Long buf %p, not the destination %p", buf,
              (void *)(myseg + long_off));
    const uint8_t *b = buf;
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(b[i] == pat(i, (unsigned)seed), "Long Request byte %zu of %zu", i, nb);
    ran_req++;
    RVT_OK(gex_AM_ReplyLong1(t, H_REP_L, buf, nb, myseg + long_off + longmax, GEX_EVENT_NOW, 0,
                             seed));
}

static void rep_l(gex_Token_t t, void *buf, size_t nb, gex_AM_Arg_t seed)
{
    check_token(t, 0, H_REP_L);
    RVT_CHECK(buf == myseg + long_off + longmax, "Long Reply buf %p", buf);
    const uint8_t *b = buf;
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(b[i] == pat(i, (unsigned)seed), "Long Reply byte %zu of %zu", i, nb);
    ran_rep++;
}

static gex_AM_Entry_t htable[] = {
    { H_REQ_S, (gex_AM_Fn_t)req_s, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_SHORT, 2, &myseg, "req_s" },
    { H_REP_S, (gex_AM_Fn_t)rep_s, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 2, &myseg, "rep_s" },
    { H_REQ_M, (gex_AM_Fn_t)req_m, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, &myseg, "req_m" },
    { H_REP_M, (gex_AM_Fn_t)rep_m, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_MEDIUM, 1, &myseg, "rep_m" },
    { H_REQ_L, (gex_AM_Fn_t)req_l, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_LONG, 1, &myseg, "req_l" },
    { H_REP_L, (gex_AM_Fn_t)rep_l, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_LONG, 1, &myseg, "rep_l" },
};

/* One Request of each category (Medium and Long of nb bytes, seed s) and its Reply, each run
 * inside its call; flags 0 or GEX_FLAG_IMMEDIATE. */
static void round_trip(uint8_t *src, size_t nb, unsigned s, gex_Flags_t flags)
{
    int r0 = ran_req, p0 = ran_rep;
    RVT_CHECK(gex_AM_RequestShort2(rvt_tm, rvt_me, H_REQ_S, flags, 11, 22) == 0,
              "a Short Request to the own rank was refused");
    RVT_CHECK(ran_req == r0 + 1 && ran_rep == p0 + 1,
              "the Short handlers did not run inside the call");

    size_t mnb = nb < maxmed ? nb : maxmed;
    for (size_t i = 0; i < mnb; i++) src[i] = pat(i, s);
    req_src = src;
    RVT_CHECK(gex_AM_RequestMedium1(rvt_tm, rvt_me, H_REQ_M, src, mnb, GEX_EVENT_NOW, flags,
                                    (gex_AM_Arg_t)s) == 0,
              "a Medium Request to the own rank was refused");
    RVT_CHECK(ran_req == r0 + 2 && ran_rep == p0 + 2,
              "the Medium handlers did not run inside the call");
    for (size_t i = 0; i < mnb; i++)
        RVT_CHECK(src[i] == pat(i, s), "the Medium source changed at byte %zu of %zu", i, mnb);

    size_t lnb = nb < longmax ? nb : longmax;
    RVT_CHECK(gex_AM_RequestLong1(rvt_tm, rvt_me, H_REQ_L, src, lnb, myseg + long_off,
                                  GEX_EVENT_NOW, flags, (gex_AM_Arg_t)s) == 0,
              "a Long Request to the own rank was refused");
    RVT_CHECK(ran_req == r0 + 3 && ran_rep == p0 + 3,
              "the Long handlers did not run inside the call");
}

static const size_t sizes[] = { 0, 1, 7, 100, 504, 512, 513, 4096, 65536, (size_t)-1 };
#define NSIZES (sizeof sizes / sizeof sizes[0])

static void *thread_main(void *arg)
{
    unsigned id = (unsigned)(uintptr_t)arg;
    long_off = 2 * longmax * id;
    uint8_t *src = malloc(maxmed ? maxmed : 1);
    RVT_CHECK(src, "out of memory");
    for (int i = 0; i < TITERS; i++) {
        size_t nb = sizes[(unsigned)i % NSIZES];
        round_trip(src, nb, id * 1000u + (unsigned)i, (i & 1) ? GEX_FLAG_IMMEDIATE : 0);
    }
    RVT_CHECK(ran_req == 3 * TITERS && ran_rep == 3 * TITERS, "thread %u ran %d/%d handlers", id,
              ran_req, ran_rep);
    free(src);
    return NULL;
}

int main(int argc, char **argv)
{
    RVT_OK(gex_Client_Init(&rvt_client, &rvt_ep, &rvt_tm, "rvtest", &argc, &argv, 0));
    rvt_me = gex_TM_QueryRank(rvt_tm);
    rvt_n = gex_TM_QuerySize(rvt_tm);
    longmax = 8192;
    RVT_OK(gex_Segment_Attach(&rvt_seg, rvt_tm, 2 * longmax * (NTHREADS + 1)));
    myseg = gex_Segment_QueryAddr(rvt_seg);
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, htable, sizeof htable / sizeof htable[0]));
    maxmed = gex_AM_MaxRequestMedium(rvt_tm, rvt_me, GEX_EVENT_NOW, 0, 1);
    size_t mr = gex_AM_MaxReplyMedium(rvt_tm, rvt_me, GEX_EVENT_NOW, 0, 1);
    if (mr < maxmed) maxmed = mr;
    RVT_CHECK(maxmed >= 512, "gex_AM_MaxRequestMedium is only %zu", maxmed);
    rvt_barrier();

    /* the main thread alone: every size, then the threads at once */
    uint8_t *src = malloc(maxmed);
    RVT_CHECK(src, "out of memory");
    long_off = 2 * longmax * NTHREADS;
    for (unsigned k = 0; k < NSIZES; k++) {
        round_trip(src, sizes[k], k, 0);
        round_trip(src, sizes[k], k + 100, GEX_FLAG_IMMEDIATE);
    }
    free(src);

    pthread_t th[NTHREADS];
    for (unsigned i = 0; i < NTHREADS; i++)
        RVT_CHECK(pthread_create(&th[i], NULL, thread_main, (void *)(uintptr_t)i) == 0,
                  "pthread_create");
    for (unsigned i = 0; i < NTHREADS; i++) pthread_join(th[i], NULL);

    rvt_barrier();
    if (rvt_me == 0) printf("am_loopback: PASS (%u ranks)\n", (unsigned)rvt_n);
    gasnet_exit(0);
    return 0;
}
