/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clients/client_plugin_lib.c: the network layer of a runtime that keeps GASNet-EX in
 * a plugin it loads with dlopen (Realm's gasnetex_wrapper does this): this shared library
 * links librivet and offers client_plugin.c a few calls; the loader itself never links
 * Rivet. The calls are what such a layer does: init with handlers and CData, an extra RMA
 * endpoint whose segment is created, bound and published, NPAM Mediums with
 * GEX_FLAG_IMMEDIATE, Puts through gex_TM_Pair to the peer's extra endpoint, barriers. */
#include <gasnetex.h>
#include <gasnet_coll.h>

#define H_MED (GEX_AM_INDEX_BASE + 1)
#define SEG1_BYTES (1u << 20)

static gex_Client_t client;
static gex_EP_t ep0, ep1;
static gex_TM_t tm;
static char *seg1;
static long arrived, bad; /* updated by handlers in either polling thread: __atomic */

static unsigned char pat(unsigned src, unsigned seq, size_t i)
{
    return (unsigned char)(src * 31 + seq * 7 + i);
}

static void h_med(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seq)
{
    gex_Token_Info_t ti;
    gex_Token_Info(t, &ti, GEX_TI_SRCRANK | GEX_TI_EP);
    long *count = (long *)gex_EP_QueryCData(ti.gex_ep); /* the layer finds its state here */
    for (size_t i = 0; i < n; i++)
        if (((unsigned char *)buf)[i] != pat(ti.gex_srcrank, (unsigned)seq, i))
            __atomic_add_fetch(&bad, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(count, 1, __ATOMIC_RELAXED);
}

/* Returns 0 or a negative step number; *rank and *size describe the job. */
int plugin_init(int *argc, char ***argv, unsigned *rank, unsigned *size)
{
    gex_AM_Entry_t h[] = { { H_MED, (gex_AM_Fn_t)h_med, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST,
                             1, NULL, "plugin_med" } };
    if (gex_Client_Init(&client, &ep0, &tm, "client_plugin", argc, argv, 0) != GASNET_OK) return -1;
    if (gex_EP_RegisterHandlers(ep0, h, 1) != GASNET_OK) return -2;
    gex_EP_SetCData(ep0, (const void *)&arrived);
    gex_EP_Index_t idx;
    if (gex_EP_Create(&ep1, client, GEX_EP_CAPABILITY_RMA, 0) != GASNET_OK) return -3;
    idx = gex_EP_QueryIndex(ep1);
    if (idx != 1) return -4;
    seg1 = malloc(SEG1_BYTES);
    gex_Segment_t s;
    if (!seg1 || gex_Segment_Create(&s, client, seg1, SEG1_BYTES, GEX_MK_HOST, 0) != GASNET_OK)
        return -5;
    gex_EP_BindSegment(ep1, s, 0);
    if (gex_EP_PublishBoundSegment(tm, &ep1, 1, 0) != GASNET_OK) return -6;
    *rank = gex_TM_QueryRank(tm);
    *size = gex_TM_QuerySize(tm);
    return 0;
}

void plugin_barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

/* n NPAM Mediums to peer in GASNet buffers, each tried first with GEX_FLAG_IMMEDIATE. */
void plugin_send(unsigned peer, unsigned first_seq, int n)
{
    unsigned me = gex_TM_QueryRank(tm);
    for (int k = 0; k < n; k++) {
        unsigned seq = first_seq + (unsigned)k;
        size_t len = 1 + (seq * 97) % 3000;
        gex_AM_SrcDesc_t sd;
        while ((sd = gex_AM_PrepareRequestMedium(tm, peer, NULL, len, len, NULL,
                                                 GEX_FLAG_IMMEDIATE, 1)) == GEX_AM_SRCDESC_NO_OP)
            gasnet_AMPoll();
        unsigned char *a = gex_AM_SrcDescAddr(sd);
        for (size_t i = 0; i < len; i++) a[i] = pat(me, seq, i);
        gex_AM_CommitRequestMedium1(sd, H_MED, len, (gex_AM_Arg_t)seq);
    }
}

/* Waits for n Mediums; returns how many carried wrong bytes. */
long plugin_wait(long n)
{
    while (__atomic_load_n(&arrived, __ATOMIC_RELAXED) < n) gasnet_AMPoll();
    return __atomic_load_n(&bad, __ATOMIC_RELAXED) +
           (__atomic_load_n(&arrived, __ATOMIC_RELAXED) != n);
}

/* Puts a pattern into peer's extra-endpoint segment through gex_TM_Pair(ep0, 1); after a
 * barrier, plugin_check_put compares what the left neighbour put into ours. */
int plugin_put(unsigned peer)
{
    unsigned me = gex_TM_QueryRank(tm);
    static unsigned char src[100000];
    for (size_t i = 0; i < sizeof src; i++) src[i] = pat(me, 999, i);
    void *dst;
    if (gex_EP_QueryBoundSegmentNB(gex_TM_Pair(ep0, 1), peer, &dst, NULL, NULL, 0) != GASNET_OK)
        return -1;
    return gex_RMA_PutBlocking(gex_TM_Pair(ep0, 1), peer, (char *)dst + 4096, src, sizeof src, 0);
}

long plugin_check_put(unsigned left)
{
    long wrong = 0;
    for (size_t i = 0; i < 100000; i++) wrong += (unsigned char)seg1[4096 + i] != pat(left, 999, i);
    return wrong;
}
