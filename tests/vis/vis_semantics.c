/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/vis/vis_semantics.c: the VIS section's normative statements one by one: peer completion
 * (every Put kind and form, payload and nbytes 0, the handler sees the data, a Put of no
 * bytes, a Get between arming and Put, disarm with handler 0, only the next Put is armed),
 * the degenerate cases (elemsz 0 and a zero count ignore every other argument, stridelevels 0
 * ignores the metadata arrays, empty lists, zero-length vector entries), different chunking
 * on the two sides, reflection and transpose through negative and permuted strides, strided
 * metadata consumed at initiation, and GEX_FLAG_ENABLE_LEAF_LC local completion (NB leaf
 * event, NBI GEX_EC_LC). Each rank puts to the next rank and reads back with
 * gex_RMA_GetBlocking. */
#include "rv_test.h"
#include <gasnet_vis.h>

#define SEG      (64 * 1024)
#define PC_H     200 /* peer completion handler index */
#define PC_BYTES 64  /* bytes per peer-completion Put */
#define NPC      9   /* armed Puts: 3 kinds x 3 forms */

static gex_Rank_t peer, from;
static char      *mybase;   /* my segment */
static char      *peerbase; /* the next rank's segment, as it sees it */

/* ---- peer completion ------------------------------------------------------------------ */

struct pc_msg {
    uint32_t sender, k, magic;
};
static volatile int pc_count, pc_bad;
static volatile int pc_empty; /* notifications with nbytes 0 */

static void pc_handler(gex_Token_t tok, void *buf, size_t nbytes)
{
    gex_Token_Info_t ti;
    gex_Token_Info(tok, &ti, GEX_TI_SRCRANK);
    if (nbytes == 0) {
        pc_empty++;
        return;
    }
    struct pc_msg m;
    if (nbytes != sizeof m || ti.gex_srcrank != from) {
        pc_bad++;
        return;
    }
    memcpy(&m, buf, sizeof m);
    if (m.sender != from || m.magic != 0xC0FFEEu || m.k >= NPC) {
        pc_bad++;
        return;
    }
    /* the Put's data is visible when the handler runs */
    if (rvt_find_bad(mybase + m.k * PC_BYTES, PC_BYTES, 1000 + from * 16 + m.k) != (size_t)-1)
        pc_bad++;
    pc_count++;
}

static void sync_form(int form, gex_Event_t ev, int rc)
{
    if (form == 1) gex_Event_Wait(ev);
    else RVT_CHECK(rc == 0, "VIS Put returned %d", rc);
    if (form == 2) gex_NBI_Wait(GEX_EC_ALL, 0);
}

static void test_peer_completion(void)
{
    char src[PC_BYTES];
    for (uint32_t k = 0; k < NPC; k++) {
        int kind = (int)k / 3, form = (int)k % 3; /* form: 0 Blocking, 1 NB, 2 NBI */
        rvt_fill(src, PC_BYTES, 1000 + rvt_me * 16 + k);
        struct pc_msg m = { rvt_me, k, 0xC0FFEEu };
        gex_VIS_SetPeerCompletionHandler(PC_H, &m, sizeof m, 0);
        char *dst = peerbase + k * PC_BYTES;
        gex_Event_t ev = GEX_EVENT_INVALID;
        int rc = 0;
        if (kind == 0) {
            gex_Memvec_t d[2] = { { dst, 40 }, { dst + 40, PC_BYTES - 40 } };
            gex_Memvec_t s[1] = { { src, PC_BYTES } };
            if (form == 0) rc = gex_VIS_VectorPutBlocking(rvt_tm, peer, 2, d, 1, s, 0);
            else if (form == 1) ev = gex_VIS_VectorPutNB(rvt_tm, peer, 2, d, 1, s, 0);
            else rc = gex_VIS_VectorPutNBI(rvt_tm, peer, 2, d, 1, s, 0);
        } else if (kind == 1) {
            void *d[4] = { dst, dst + 16, dst + 32, dst + 48 }, *s[2] = { src, src + 32 };
            if (form == 0) rc = gex_VIS_IndexedPutBlocking(rvt_tm, peer, 4, d, 16, 2, s, 32, 0);
            else if (form == 1) ev = gex_VIS_IndexedPutNB(rvt_tm, peer, 4, d, 16, 2, s, 32, 0);
            else rc = gex_VIS_IndexedPutNBI(rvt_tm, peer, 4, d, 16, 2, s, 32, 0);
        } else {
            ptrdiff_t st[1] = { 8 };
            size_t cnt[1] = { PC_BYTES / 8 };
            if (form == 0)
                rc = gex_VIS_StridedPutBlocking(rvt_tm, peer, dst, st, src, st, 8, cnt, 1, 0);
            else if (form == 1)
                ev = gex_VIS_StridedPutNB(rvt_tm, peer, dst, st, src, st, 8, cnt, 1, 0);
            else rc = gex_VIS_StridedPutNBI(rvt_tm, peer, dst, st, src, st, 8, cnt, 1, 0);
        }
        sync_form(form, ev, rc);
        m.magic = 0; /* may change once the Put is complete */
    }
    /* nbytes 0: source_addr is ignored; a Get in between leaves the handler armed for the
     * next Put (only Puts support peer completion) */
    gex_VIS_SetPeerCompletionHandler(PC_H, NULL, 0, 0);
    uint64_t w = 7, r = 0;
    RVT_CHECK(gex_VIS_VectorGetBlocking(rvt_tm, 1, (gex_Memvec_t[]){ { &r, 8 } }, peer, 1,
                                        (gex_Memvec_t[]){ { peerbase, 8 } }, 0) == 0, "Get");
    RVT_CHECK(gex_VIS_IndexedPutBlocking(rvt_tm, peer, 1, (void *[]){ peerbase + NPC * PC_BYTES },
                                         8, 1, (void *[]){ &w }, 8, 0) == 0, "IndexedPutBlocking");
    /* a Put that moves no bytes is still a VIS Put: it is notified too (Rivet's choice) */
    gex_VIS_SetPeerCompletionHandler(PC_H, NULL, 0, 0);
    RVT_CHECK(gex_VIS_VectorPutBlocking(rvt_tm, peer, 0, NULL, 0, NULL, 0) == 0, "empty Put");
    /* disarmed by handler 0: the next Put sends nothing */
    struct pc_msg bogus = { 999, 999, 999 };
    gex_VIS_SetPeerCompletionHandler(PC_H, &bogus, sizeof bogus, 0);
    gex_VIS_SetPeerCompletionHandler(0, NULL, 0, 0);
    RVT_CHECK(gex_VIS_IndexedPutBlocking(rvt_tm, peer, 1, (void *[]){ peerbase + NPC * PC_BYTES },
                                         8, 1, (void *[]){ &w }, 8, 0) == 0, "IndexedPutBlocking");
    /* only the next Put is armed: this one (never armed) sends nothing either */
    RVT_CHECK(gex_VIS_VectorPutBlocking(rvt_tm, peer, 1,
                                        (gex_Memvec_t[]){ { peerbase + NPC * PC_BYTES, 8 } }, 1,
                                        (gex_Memvec_t[]){ { &w, 8 } }, 0) == 0, "VectorPutBlocking");

    while (pc_count + pc_bad < NPC || pc_empty < 2) gasnet_AMPoll();
    rvt_barrier();
    gasnet_AMPoll();
    rvt_barrier();
    RVT_CHECK(pc_bad == 0 && pc_count == NPC && pc_empty == 2,
              "peer completion: %d good, %d bad, %d empty notifications (expected %d, 0, 2)",
              pc_count, pc_bad, pc_empty, NPC);
}

/* ---- degenerate cases ------------------------------------------------------------------ */

static void test_degenerate(void)
{
    /* elemsz 0: a no-op, every other argument ignored (even tm and rank) */
    RVT_CHECK(gex_VIS_StridedPutBlocking(GEX_TM_INVALID, GEX_RANK_INVALID, NULL, NULL, NULL, NULL,
                                         0, NULL, 7, 0) == 0, "elemsz 0 PutBlocking");
    RVT_CHECK(gex_VIS_StridedGetNB(GEX_TM_INVALID, NULL, NULL, 12345, NULL, NULL, 0, NULL, 3,
                                   0) == GEX_EVENT_INVALID, "elemsz 0 GetNB");
    RVT_CHECK(gex_VIS_StridedPutNBI(GEX_TM_INVALID, 54321, NULL, NULL, NULL, NULL, 0, NULL, 2,
                                    0) == 0, "elemsz 0 PutNBI");
    /* a zero count: no-op, tm, rank and addresses ignored (strides must be valid arrays) */
    ptrdiff_t st[3] = { 8, 64, 512 };
    size_t c0[3] = { 4, 0, 2 };
    RVT_CHECK(gex_VIS_StridedPutNB(GEX_TM_INVALID, GEX_RANK_INVALID, NULL, st, NULL, st, 8, c0, 3,
                                   0) == GEX_EVENT_INVALID, "zero count PutNB");
    RVT_CHECK(gex_VIS_StridedGetBlocking(GEX_TM_INVALID, NULL, st, GEX_RANK_INVALID, NULL, st, 8,
                                         c0, 3, 0) == 0, "zero count GetBlocking");
    gex_NBI_Wait(GEX_EC_ALL, 0);

    /* stridelevels 0: a contiguous copy of elemsz bytes; strides and count ignored (NULL) */
    char *base = peerbase + 8192;
    char buf[300], back[300];
    rvt_fill(buf, sizeof buf, 3000 + rvt_me);
    RVT_CHECK(gex_VIS_StridedPutBlocking(rvt_tm, peer, base, NULL, buf, NULL, 300, NULL, 0, 0) == 0,
              "stridelevels 0 Put");
    memset(back, 0, sizeof back);
    gex_Event_Wait(gex_VIS_StridedGetNB(rvt_tm, back, NULL, peer, base, NULL, 300, NULL, 0, 0));
    RVT_VERIFY(back, 300, 3000 + rvt_me, "stridelevels 0 round trip");

    /* empty lists (NULL allowed with count 0), and zero total through zero-length entries */
    RVT_CHECK(gex_VIS_VectorPutBlocking(rvt_tm, peer, 0, NULL, 0, NULL, 0) == 0, "empty vector");
    RVT_CHECK(gex_VIS_VectorGetNB(rvt_tm, 0, NULL, peer, 0, NULL, 0) == GEX_EVENT_INVALID,
              "empty vector NB");
    RVT_CHECK(gex_VIS_IndexedPutNBI(rvt_tm, peer, 0, NULL, 8, 0, NULL, 8, 0) == 0, "empty indexed");
    void *one[1] = { base };
    RVT_CHECK(gex_VIS_IndexedGetBlocking(rvt_tm, 3, one, 0, peer, 5, one, 0, 0) == 0,
              "zero-length indexed");
    gex_NBI_Wait(GEX_EC_ALL, 0);

    /* zero-length vector entries in the middle, different chunking on the two sides */
    char *vb = peerbase + 12288;
    gex_Memvec_t d[5] = { { vb, 0 }, { vb + 100, 5 }, { NULL, 0 }, { vb + 7, 11 }, { vb + 200, 0 } };
    gex_Memvec_t s[3] = { { buf, 3 }, { buf + 50, 0 }, { buf + 3, 13 } };
    RVT_CHECK(gex_VIS_VectorPutBlocking(rvt_tm, peer, 5, d, 3, s, 0) == 0, "vector with 0 entries");
    gex_RMA_GetBlocking(rvt_tm, back, peer, vb + 100, 5, 0);
    gex_RMA_GetBlocking(rvt_tm, back + 5, peer, vb + 7, 11, 0);
    RVT_VERIFY(back, 16, 3000 + rvt_me, "vector with zero-length entries");

    /* indexed, different chunking: 4 x 6 bytes remote from 3 x 8 bytes local */
    char *ib = peerbase + 16384;
    void *idst[4] = { ib + 60, ib, ib + 30, ib + 90 };
    void *isrc[3] = { buf, buf + 8, buf + 16 };
    RVT_CHECK(gex_VIS_IndexedPutBlocking(rvt_tm, peer, 4, idst, 6, 3, isrc, 8, 0) == 0, "indexed");
    for (int i = 0; i < 4; i++) gex_RMA_GetBlocking(rvt_tm, back + 6 * i, peer, idst[i], 6, 0);
    RVT_VERIFY(back, 24, 3000 + rvt_me, "indexed with different chunking");
}

/* ---- reflection, transpose, metadata lifetime, local completion ------------------------------ */

#define R 5
#define C 7

static void test_shapes(void)
{
    int32_t a[R][C], got[R][C];
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++) a[i][j] = (int32_t)(rvt_me * 1000 + i * C + j);
    /* reflection: the destination starts at its last element, both strides negative */
    int32_t *rb = (int32_t *)(peerbase + 20480);
    ptrdiff_t dst_st[2] = { -(ptrdiff_t)sizeof(int32_t), -(ptrdiff_t)(C * sizeof(int32_t)) };
    ptrdiff_t src_st[2] = { sizeof(int32_t), C * sizeof(int32_t) };
    size_t cnt[2] = { C, R };
    RVT_CHECK(gex_VIS_StridedPutBlocking(rvt_tm, peer, rb + R * C - 1, dst_st, a, src_st,
                                         sizeof(int32_t), cnt, 2, 0) == 0, "reflected Put");
    gex_RMA_GetBlocking(rvt_tm, got, peer, rb, sizeof got, 0);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            RVT_CHECK(got[R - 1 - i][C - 1 - j] == a[i][j], "reflection: [%d][%d] is %d, want %d",
                      R - 1 - i, C - 1 - j, got[R - 1 - i][C - 1 - j], a[i][j]);

    /* transpose: remote column-major from local row-major; then a strided Get with the
     * stride arrays overwritten right after initiation (consumed before return) */
    int32_t *tb = (int32_t *)(peerbase + 24576);
    ptrdiff_t t_dst[2] = { R * sizeof(int32_t), sizeof(int32_t) };
    RVT_CHECK(gex_VIS_StridedPutBlocking(rvt_tm, peer, tb, t_dst, a, src_st, sizeof(int32_t), cnt,
                                         2, 0) == 0, "transposed Put");
    int32_t t[C][R];
    ptrdiff_t g_dst[2] = { R * sizeof(int32_t), sizeof(int32_t) };
    ptrdiff_t g_src[2] = { R * sizeof(int32_t), sizeof(int32_t) };
    size_t g_cnt[2] = { C, R };
    memset(t, 0, sizeof t);
    gex_Event_t ev = gex_VIS_StridedGetNB(rvt_tm, t, g_dst, peer, tb, g_src, sizeof(int32_t),
                                          g_cnt, 2, 0);
    g_dst[0] = g_dst[1] = g_src[0] = g_src[1] = 0x7777;
    g_cnt[0] = g_cnt[1] = 1000;
    gex_Event_Wait(ev);
    for (int i = 0; i < R; i++)
        for (int j = 0; j < C; j++)
            RVT_CHECK(t[j][i] == a[i][j], "transpose: [%d][%d] is %d, want %d", j, i, t[j][i],
                      a[i][j]);

    /* GEX_FLAG_ENABLE_LEAF_LC: NB leaf event; after it the source may be reused */
    char src[4096], back[4096];
    char *lb = peerbase + 32768;
    rvt_fill(src, sizeof src, 5000 + rvt_me);
    ptrdiff_t s1[1] = { 128 };
    size_t c1[1] = { 32 };
    ev = gex_VIS_StridedPutNB(rvt_tm, peer, lb, s1, src, s1, 128, c1, 1, GEX_FLAG_ENABLE_LEAF_LC);
    gex_Event_t lc = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    RVT_CHECK(gex_Event_QueryLeaf(ev, GEX_EC_LC) == lc, "QueryLeaf is not idempotent");
    gex_Event_Wait(lc);
    memset(src, 0xEE, sizeof src);
    gex_Event_Wait(ev);
    gex_RMA_GetBlocking(rvt_tm, back, peer, lb, sizeof back, 0);
    RVT_VERIFY(back, sizeof back, 5000 + rvt_me, "LEAF_LC NB Put");
    /* NBI: local completion as GEX_EC_LC */
    rvt_fill(src, sizeof src, 6000 + rvt_me);
    gex_Memvec_t vd[1] = { { lb, sizeof src } }, vs[2] = { { src, 1000 }, { src + 1000, 3096 } };
    RVT_CHECK(gex_VIS_VectorPutNBI(rvt_tm, peer, 1, vd, 2, vs, GEX_FLAG_ENABLE_LEAF_LC) == 0, "NBI");
    gex_NBI_Wait(GEX_EC_LC, 0);
    memset(src, 0xDD, sizeof src);
    gex_NBI_Wait(GEX_EC_PUT, 0);
    gex_RMA_GetBlocking(rvt_tm, back, peer, lb, sizeof back, 0);
    RVT_VERIFY(back, sizeof back, 6000 + rvt_me, "LEAF_LC NBI Put");
    /* an empty NB Put with the flag: QueryLeaf of its (complete) root is complete too */
    ev = gex_VIS_VectorPutNB(rvt_tm, peer, 0, NULL, 0, NULL, GEX_FLAG_ENABLE_LEAF_LC);
    lc = gex_Event_QueryLeaf(ev, GEX_EC_LC);
    gex_Event_Wait(lc);
    gex_Event_Wait(ev);
}

int main(int argc, char **argv)
{
    rvt_init(&argc, &argv, SEG);
    gex_AM_Entry_t h[1] = { { PC_H, (gex_AM_Fn_t)pc_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REPLY,
                              0, NULL, "pc" } };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, 1));
    peer = (rvt_me + 1) % rvt_n;
    from = (rvt_me + rvt_n - 1) % rvt_n;
    mybase = gex_Segment_QueryAddr(rvt_seg);
    peerbase = rvt_seg_addr(peer, 0);
    rvt_barrier(); /* handlers registered everywhere */
    test_peer_completion();
    test_degenerate();
    test_shapes();
    return rvt_done("vis_semantics");
}
