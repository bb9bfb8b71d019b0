/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_am.c: a GASNet-1 program (gasnet_init, gasnet_attach with a handler
 * table, gasnet_getSegmentInfo) doing AM ping-pong with every category and argument counts
 * 0, 1, 2, 4 and 16, checking arguments, payloads, sources and Long placement; then
 * gasnet_QueryGexObjects and EX calls on the objects it returns. */
#include <gasnet.h>
#include "rv_test.h"

/* The usual client-side error check of GASNet-1 programs. */
#define GASNET_Safe(fncall)                                                               \
    do {                                                                                  \
        int _retval = (fncall);                                                           \
        if (_retval != GASNET_OK) {                                                       \
            fprintf(stderr, "ERROR calling: %s\n at: %s:%i\n error: %s (%s)\n", #fncall, \
                    __FILE__, __LINE__, gasnet_ErrorName(_retval),                        \
                    gasnet_ErrorDesc(_retval));                                           \
            fflush(stderr);                                                               \
            gasnet_exit(_retval);                                                         \
        }                                                                                 \
    } while (0)

#define SEGSZ (64 * 1024)
#define LONGSZ 4096

enum { H_SHORT0 = 201, H_SHORT16 = 202, H_MED4 = 203, H_LONG2 = 204, H_REP_SHORT2 = 205 };
static gasnet_handlerentry_t htable[] = {
    {H_SHORT0, NULL},  {H_SHORT16, NULL}, {H_MED4, NULL}, {H_LONG2, NULL},
    {H_REP_SHORT2, NULL},
    {0, NULL}, /* [5] Medium request, 0 args: index assigned by gasnet_attach */
    {0, NULL}, /* [6] Medium/Long reply handler, 1 arg: assigned */
    {0, NULL}, /* [7] Short request with 1 arg: assigned */
};
#define H_MED0 (htable[5].index)
#define H_REP_PAYLOAD (htable[6].index)
#define H_SHORT1 (htable[7].index)

static gasnet_seginfo_t *seginfo;
static gasnet_node_t me, n;
static volatile int replies;  /* Short replies received */
static volatile int payload_replies;
static volatile int failures;
static char medbuf[512];

static void note_fail(const char *what, int a, int b)
{
    fprintf(stderr, "FAIL rank %u: %s: got %d, expected %d\n", me, what, a, b);
    failures++;
}

static gasnet_node_t src_of(gasnet_token_t t)
{
    gasnet_node_t s = (gasnet_node_t)-1;
    GASNET_Safe(gasnet_AMGetMsgSource(t, &s));
    return s;
}

static void h_short0(gasnet_token_t t)
{
    gasnet_AMReplyShort2(t, H_REP_SHORT2, (gasnet_handlerarg_t)src_of(t), 0);
}
static void h_short1(gasnet_token_t t, gasnet_handlerarg_t a0)
{
    if (a0 != (gasnet_handlerarg_t)src_of(t) * 3 - 7) note_fail("Short1 arg", a0, 0);
    gasnet_AMReplyShort2(t, H_REP_SHORT2, (gasnet_handlerarg_t)src_of(t), 1);
}
static void h_short16(gasnet_token_t t, gasnet_handlerarg_t a0, gasnet_handlerarg_t a1,
                      gasnet_handlerarg_t a2, gasnet_handlerarg_t a3, gasnet_handlerarg_t a4,
                      gasnet_handlerarg_t a5, gasnet_handlerarg_t a6, gasnet_handlerarg_t a7,
                      gasnet_handlerarg_t a8, gasnet_handlerarg_t a9, gasnet_handlerarg_t a10,
                      gasnet_handlerarg_t a11, gasnet_handlerarg_t a12, gasnet_handlerarg_t a13,
                      gasnet_handlerarg_t a14, gasnet_handlerarg_t a15)
{
    gasnet_handlerarg_t v[16] = {a0, a1, a2, a3, a4, a5, a6, a7,
                                 a8, a9, a10, a11, a12, a13, a14, a15};
    gasnet_node_t s = src_of(t);
    for (int i = 0; i < 16; i++)
        if (v[i] != (gasnet_handlerarg_t)(s * 1000 + i * 17 - 40000)) note_fail("Short16 arg", v[i], i);
    gasnet_AMReplyShort2(t, H_REP_SHORT2, (gasnet_handlerarg_t)s, 16);
}
/* Medium request, 4 args: checks the payload, replies with a Medium echo of it. */
static void h_med4(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t len,
                   gasnet_handlerarg_t seed, gasnet_handlerarg_t x, gasnet_handlerarg_t y)
{
    gasnet_node_t s = src_of(t);
    if ((size_t)len != nb) note_fail("Medium nbytes", (int)nb, len);
    for (size_t i = 0; i < nb; i++)
        if (((unsigned char *)buf)[i] != (unsigned char)(seed + i)) {
            note_fail("Medium payload byte", ((unsigned char *)buf)[i], (unsigned char)(seed + i));
            break;
        }
    if (x != -1 || y != INT32_MAX) note_fail("Medium args x/y", x, -1);
    gasnet_AMReplyMedium1(t, H_REP_PAYLOAD, buf, nb, (gasnet_handlerarg_t)s);
}
static void h_med0(gasnet_token_t t, void *buf, size_t nb)
{
    (void)buf;
    if (nb != 0) note_fail("Medium0 nbytes", (int)nb, 0);
    gasnet_AMReplyShort2(t, H_REP_SHORT2, (gasnet_handlerarg_t)src_of(t), 100);
}
/* Long request, 2 args: the payload is at its place in my segment; reply with a Long
 * that writes it back into the requester's segment at the offset it names. */
static void h_long2(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t off,
                    gasnet_handlerarg_t seed)
{
    gasnet_node_t s = src_of(t);
    char *expect_at = (char *)seginfo[me].addr + off;
    if ((char *)buf != expect_at) note_fail("Long buf address", 0, 1);
    if (nb != LONGSZ) note_fail("Long nbytes", (int)nb, LONGSZ);
    for (size_t i = 0; i < nb; i++)
        if (((unsigned char *)buf)[i] != (unsigned char)(seed ^ i)) {
            note_fail("Long payload byte", ((unsigned char *)buf)[i], (unsigned char)(seed ^ i));
            break;
        }
    gasnet_AMReplyLong1(t, H_REP_PAYLOAD, buf, nb, (char *)seginfo[s].addr + off,
                        (gasnet_handlerarg_t)s);
}
static void h_rep_short2(gasnet_token_t t, gasnet_handlerarg_t who, gasnet_handlerarg_t kind)
{
    (void)kind;
    if ((gasnet_node_t)who != me) note_fail("reply names requester", who, (int)me);
    (void)t;
    replies++;
}
static void h_rep_payload(gasnet_token_t t, void *buf, size_t nb, gasnet_handlerarg_t who)
{
    (void)t;
    if ((gasnet_node_t)who != me) note_fail("payload reply names requester", who, (int)me);
    if (nb <= sizeof medbuf) memcpy(medbuf, buf, nb);
    payload_replies++;
}

int main(int argc, char **argv)
{
    GASNET_Safe(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    n = gasnet_nodes();
    rvt_me = me;
    RVT_CHECK(gasnet_getMaxLocalSegmentSize() >= SEGSZ, "max segment %" PRIuPTR,
              gasnet_getMaxLocalSegmentSize());
    htable[0].fnptr = (void (*)())h_short0;
    htable[1].fnptr = (void (*)())h_short16;
    htable[2].fnptr = (void (*)())h_med4;
    htable[3].fnptr = (void (*)())h_long2;
    htable[4].fnptr = (void (*)())h_rep_short2;
    htable[5].fnptr = (void (*)())h_med0;
    htable[6].fnptr = (void (*)())h_rep_payload;
    htable[7].fnptr = (void (*)())h_short1;
    GASNET_Safe(gasnet_attach(htable, 8, SEGSZ, 0));
    /* index-0 entries get the highest free indices, in table order */
    RVT_CHECK(H_MED0 == 255 && H_REP_PAYLOAD == 254 && H_SHORT1 == 253,
              "assigned indices %u %u %u, expected 255 254 253", H_MED0, H_REP_PAYLOAD, H_SHORT1);

    seginfo = calloc(n + 1, sizeof *seginfo);
    seginfo[n].size = 12345; /* entries past gasnet_nodes() stay untouched */
    GASNET_Safe(gasnet_getSegmentInfo(seginfo, (int)n + 1));
    RVT_CHECK(seginfo[n].size == 12345, "entry past the last node was written");
    for (gasnet_node_t r = 0; r < n; r++)
        RVT_CHECK(seginfo[r].addr && seginfo[r].size >= SEGSZ &&
                  (uintptr_t)seginfo[r].addr % GASNET_PAGESIZE == 0,
                  "segment of node %u: %p + %" PRIuPTR, r, seginfo[r].addr, seginfo[r].size);

    RVT_CHECK(gasnet_AMMaxArgs() >= 16, "gasnet_AMMaxArgs()=%zu", (size_t)gasnet_AMMaxArgs());
    RVT_CHECK(gasnet_AMMaxMedium() >= 512 && gasnet_AMMaxLongRequest() >= 512 &&
              gasnet_AMMaxLongReply() >= 512, "AM maxima below 512");

    /* the EX view of the same job */
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    gasnet_QueryGexObjects(&client, &ep, &tm, &seg);
    RVT_CHECK(gex_Client_QueryFlags(client) & GEX_FLAG_USES_GASNET1, "client lacks USES_GASNET1");
    RVT_CHECK(gex_TM_QueryEP(tm) == ep && gex_EP_QueryClient(ep) == client,
              "objects do not belong together");
    RVT_CHECK(gex_TM_QueryRank(tm) == me && gex_TM_QuerySize(tm) == n, "team rank/size");
    RVT_CHECK(gex_Segment_QueryAddr(seg) == seginfo[me].addr &&
              gex_Segment_QuerySize(seg) == seginfo[me].size, "segment differs from seginfo");
    gasnet_QueryGexObjects(NULL, NULL, NULL, NULL);

    GASNET_Safe((gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS),
                 gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS)));

    /* an EX Put on the returned team, read back with a legacy Get */
    gasnet_node_t right = (me + 1) % n;
    uint64_t stamp = 0xC0FFEE0000ull + me;
    RVT_OK(gex_RMA_PutBlocking(tm, right, (char *)seginfo[right].addr + 8, &stamp, 8, 0));
    uint64_t back = 0;
    gasnet_get(&back, right, (char *)seginfo[right].addr + 8, 8);
    RVT_CHECK(back == stamp, "EX Put then legacy Get: %" PRIx64 " != %" PRIx64, back, stamp);

    const int rounds = 3;
    int expect_short = 0, expect_payload = 0;
    for (int round = 0; round < rounds; round++) {
        for (gasnet_node_t r = 0; r < n; r++) {
            GASNET_Safe(gasnet_AMRequestShort0(r, H_SHORT0));
            GASNET_Safe(gasnet_AMRequestShort1(r, H_SHORT1, (gasnet_handlerarg_t)me * 3 - 7));
            gasnet_handlerarg_t b = (gasnet_handlerarg_t)me * 1000 - 40000;
            GASNET_Safe(gasnet_AMRequestShort16(r, H_SHORT16, b, b + 17, b + 34, b + 51, b + 68,
                                                b + 85, b + 102, b + 119, b + 136, b + 153,
                                                b + 170, b + 187, b + 204, b + 221, b + 238,
                                                b + 255));
            GASNET_Safe(gasnet_AMRequestMedium0(r, H_MED0, NULL, 0));
            expect_short += 4;
            GASNET_BLOCKUNTIL(replies == expect_short);

            /* Medium with payload and a Medium echo */
            unsigned char src[300];
            int seed = (int)(me * 31 + r + round);
            for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(seed + i);
            GASNET_Safe(gasnet_AMRequestMedium4(r, H_MED4, src, sizeof src,
                                                (gasnet_handlerarg_t)sizeof src, seed, -1,
                                                INT32_MAX));
            expect_payload++;
            GASNET_BLOCKUNTIL(payload_replies == expect_payload);
            RVT_CHECK(!memcmp(medbuf, src, sizeof src), "Medium echo from %u differs", r);

            /* Long into r's segment at my slot; r sends it back with a Long reply */
            int off = 4096 + (int)me * LONGSZ;
            unsigned char *lsrc = malloc(LONGSZ);
            for (size_t i = 0; i < LONGSZ; i++) lsrc[i] = (unsigned char)(seed ^ i);
            memset((char *)seginfo[me].addr + off, 0, LONGSZ);
            if (round & 1)
                GASNET_Safe(gasnet_AMRequestLongAsync2(r, H_LONG2, lsrc, LONGSZ,
                                                       (char *)seginfo[r].addr + off, off, seed));
            else
                GASNET_Safe(gasnet_AMRequestLong2(r, H_LONG2, lsrc, LONGSZ,
                                                  (char *)seginfo[r].addr + off, off, seed));
            expect_payload++;
            GASNET_BLOCKUNTIL(payload_replies == expect_payload);
            RVT_CHECK(!memcmp((char *)seginfo[me].addr + off, lsrc, LONGSZ),
                      "Long reply from %u did not land in my segment", r);
            free(lsrc);
            RVT_CHECK(!failures, "%d handler checks failed", failures);
        }
    }
    GASNET_Safe((gasnet_barrier_notify(7, 0), gasnet_barrier_wait(7, 0)));
    printf("legacy_am: rank %u of %u: %d Short, %d payload round trips OK\n", me, n, expect_short,
           expect_payload);
    free(seginfo);
    gasnet_exit(0);
    return 0;
}
