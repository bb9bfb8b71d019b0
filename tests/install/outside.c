/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/install/outside.c: a client built outside the tree against an installed Rivet
 * (pkg-config or find_package): init, attach, register handlers, exchange AMs. */
#include <gasnetex.h>
#include <gasnet.h> /* the installed GASNet-1 header compiles too */
#include <stdio.h>
#include <string.h>

#define H_PING 200
#define H_PONG 201
static volatile int pongs;
static gex_Rank_t me, n;

static void ping(gex_Token_t tok, void *buf, size_t nbytes, gex_AM_Arg_t from)
{
    gex_Token_Info_t info;
    gex_Token_Info(tok, &info, GEX_TI_SRCRANK);
    int ok = (gex_Rank_t)from == info.gex_srcrank && nbytes == 16 &&
             !memcmp(buf, "outside-program", 16);
    gex_AM_ReplyShort1(tok, H_PONG, 0, ok);
}
static void pong(gex_Token_t tok, gex_AM_Arg_t ok)
{
    (void)tok;
    if (!ok) {
        fprintf(stderr, "outside: rank %u: payload or source wrong at the target\n", me);
        gasnet_exit(1);
    }
    pongs++;
}

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    gex_Segment_t seg;
    if (gex_Client_Init(&client, &ep, &tm, "outside", &argc, &argv, 0) != GASNET_OK) return 1;
    if (gex_Segment_Attach(&seg, tm, 1 << 20) != GASNET_OK) return 1;
    gex_AM_Entry_t h[] = {
        {H_PING, (gex_AM_Fn_t)ping, GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "ping"},
        {H_PONG, (gex_AM_Fn_t)pong, GEX_FLAG_AM_REPLY | GEX_FLAG_AM_SHORT, 1, NULL, "pong"},
    };
    if (gex_EP_RegisterHandlers(ep, h, 2) != GASNET_OK) return 1;
    me = gex_TM_QueryRank(tm);
    n = gex_TM_QuerySize(tm);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    for (gex_Rank_t r = 0; r < n; r++)
        gex_AM_RequestMedium1(tm, r, H_PING, "outside-program", 16, GEX_EVENT_NOW, 0, me);
    GASNET_BLOCKUNTIL(pongs == (int)n);
    gex_Event_Wait(gex_Coll_BarrierNB(tm, 0));
    printf("outside: rank %u of %u exchanged AMs with every rank\n", me, n);
    return 0;
}
