/* SPDX-License-Identifier: BSD-3-Clause */
/* examples/hello.c: the `make run` demo. Every rank sends a token around the ring of
 * ranks with Active Messages, then rank 0 measures the AM Short round-trip time.
 * Uses only the public GASNet-EX API:  rivetrun -n 4 build/examples/hello */
#include <gasnetex.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static gex_TM_t   tm;
static gex_Rank_t me, nranks;

/* Handler indices: fixed, the same on every rank. */
enum { H_RING = GEX_AM_INDEX_BASE, H_PING, H_PONG };

/* ---- the ring ---------------------------------------------------------------
 * Each rank starts one token. A token is an AM Medium Request to the next rank
 * carrying two arguments, its hop count and the rank that started it (its
 * origin), and a short text naming the sender. A handler may not send
 * Requests, so it only records the token; main() forwards it. After N hops
 * every token is back at its origin, and every rank has seen N tokens. */
typedef struct {
    int        hop;
    gex_Rank_t from;    /* who sent it to us, from gex_Token_Info */
    char       text[64];
} token_t;

static token_t *tokens;              /* [nranks], indexed by origin */
static gex_Rank_t *arrival;          /* origins in the order their tokens arrived */
static volatile gex_Rank_t narrived; /* written by the handler, read by main() */

static void ring_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t hop,
                         gex_AM_Arg_t origin)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    token_t *tok = &tokens[origin];
    tok->hop = hop;
    tok->from = info.gex_srcrank;
    snprintf(tok->text, sizeof tok->text, "%.*s", (int)nbytes, (const char *)buf);
    arrival[narrived] = (gex_Rank_t)origin;
    narrived = narrived + 1;
}

static void send_token(int hop, gex_Rank_t origin)
{
    char text[64];
    int len = snprintf(text, sizeof text, "token from rank %u", (unsigned)me);
    /* GEX_EVENT_NOW: 'text' may be reused as soon as the call returns. */
    gex_AM_RequestMedium(tm, (me + 1) % nranks, H_RING, text, (size_t)len + 1, GEX_EVENT_NOW, 0,
                         hop, origin);
}

/* ---- the latency measurement -------------------------------------------------
 * Rank 0 sends an AM Short Request; the target's handler answers with an AM
 * Short Reply, whose handler raises a flag that rank 0 waits on. */
static volatile int pong;

static void ping_handler(gex_Token_t t) { gex_AM_ReplyShort(t, H_PONG, 0); }
static void pong_handler(gex_Token_t t) { (void)t; pong = 1; }

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

static void barrier(void) { gex_Event_Wait(gex_Coll_BarrierNB(tm, 0)); }

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    if (gex_Client_Init(&client, &ep, &tm, "HELLO", &argc, &argv, 0) != GASNET_OK) return 1;
    me = gex_TM_QueryRank(tm);
    nranks = gex_TM_QuerySize(tm);

    gex_AM_Entry_t handlers[] = {
        { H_RING, (gex_AM_Fn_t)ring_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 2, NULL, "ring" },
        { H_PING, (gex_AM_Fn_t)ping_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REQUEST, 0, NULL, "ping" },
        { H_PONG, (gex_AM_Fn_t)pong_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, "pong" },
    };
    if (gex_EP_RegisterHandlers(ep, handlers, sizeof handlers / sizeof handlers[0]) != GASNET_OK)
        return 1;
    tokens = calloc(nranks, sizeof *tokens);
    arrival = calloc(nranks, sizeof *arrival);
    if (!tokens || !arrival) return 1;
    barrier(); /* every rank's handlers are registered before anyone sends */

    /* Start my token, then forward every other rank's token as it comes by. */
    send_token(1, me);
    int ok = 1;
    for (gex_Rank_t done = 0; done < nranks; done++) {
        GASNET_BLOCKUNTIL(narrived > done);
        gex_Rank_t origin = arrival[done];
        const token_t *tok = &tokens[origin];
        gex_Rank_t prev = (me + nranks - 1) % nranks;
        int want_hop = origin == me ? (int)nranks : (int)((me + nranks - origin) % nranks);
        char want_text[64];
        snprintf(want_text, sizeof want_text, "token from rank %u", (unsigned)prev);
        if (tok->from != prev || tok->hop != want_hop || strcmp(tok->text, want_text) != 0) {
            fprintf(stderr, "rank %u: token of rank %u is wrong: hop %d from rank %u (\"%s\")\n",
                    (unsigned)me, (unsigned)origin, tok->hop, (unsigned)tok->from, tok->text);
            ok = 0;
        }
        if (origin != me) send_token(tok->hop + 1, origin);
    }

    /* Print one line per rank, in rank order. */
    char host[64] = "?";
    gethostname(host, sizeof host - 1);
    for (gex_Rank_t r = 0; r < nranks; r++) {
        if (r == me) {
            const token_t *mine = &tokens[me];
            printf("rank %u/%u on %s: token from rank %u arrived (hop %d), ring %s\n",
                   (unsigned)me, (unsigned)nranks, host, (unsigned)mine->from, mine->hop,
                   ok ? "OK" : "BROKEN");
            fflush(stdout);
        }
        barrier();
    }

    /* AM Short round trip from rank 0 to rank 1 (or to itself when alone). */
    if (me == 0) {
        gex_Rank_t peer = nranks > 1 ? 1 : 0;
        enum { WARMUP = 1000, ITERS = 10000, TRIALS = 5 };
        double best = 1e30;
        for (int trial = -1; trial < TRIALS; trial++) {
            int iters = trial < 0 ? WARMUP : ITERS;
            double t0 = now_us();
            for (int i = 0; i < iters; i++) {
                pong = 0;
                gex_AM_RequestShort(tm, peer, H_PING, 0);
                GASNET_BLOCKUNTIL(pong);
            }
            double per = (now_us() - t0) / iters;
            if (trial >= 0 && per < best) best = per;
        }
        printf("AM Short round trip: %.2f us (best of %d)\n", best, (int)TRIALS);
        fflush(stdout);
    }
    barrier();
    return ok ? 0 : 1;
}
