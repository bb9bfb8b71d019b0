/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/transport/udp_transport.c: the udp transport's own behaviours (run with
 * RIVET_TRANSPORT=udp RIVET_PSHM=0).
 *   udp_transport stray   every rank sends its right-hand neighbour, from a socket of its own
 *                 (an address outside the job), thousands of garbage datagrams: random bytes of
 *                 every length, headers with a wrong token, and headers with the job's token
 *                 and a valid rank, channel and the very sequence numbers the neighbour expects
 *                 next (a spoof); then real AM Medium Requests with checked payloads. Every
 *                 rank must run exactly the real handlers, each payload intact
 *   udp_transport deaf    rank 1 stops polling; rank 0 sends it AM Requests with
 *                 GEX_FLAG_IMMEDIATE until one is refused (the send window bounds what a sender
 *                 holds), then blocking ones, one of which waits: the job must end with
 *                 "rank 1 unreachable" (RIVET_UDP_PEER_TIMEOUT), never hang; the IMMEDIATE
 *                 ones accepted must fit in one send window
 *   udp_transport retx    (with RIVET_UDP_DROP_PERMILLE) every rank floods its right-hand
 *                 neighbour with checked AM Mediums, each answered; then the retransmissions
 *                 must stay near the datagrams the loss aid dropped: selective acknowledgements
 *                 resend only what was lost (cumulative ones alone resend every later datagram
 *                 in flight)
 *   udp_transport idle    rank 0 keeps rank 1 waiting (GASNET_BLOCKUNTIL) for 300 ms: rank 1
 *                 must block (ppoll) instead of spinning: CPU time well below the wait
 *   udp_transport talk    every rank sends checked AM Medium Requests to every other, answered,
 *                 for up to 60 s: run through tests/transport/udp_relay --cut, which makes a
 *                 rank disappear from the network meanwhile; the job must end with "rank N
 *                 unreachable" well before (a normal end here is a failure)
 *   udp_transport tail    (through tests/transport/udp_relay --tail-drop) rank 0 sends rank 1
 *                 bursts of AM Mediums, each answered, a burst at a time; the relay drops the
 *                 last datagram of bursts. The same rounds run with tail-loss probes off (the
 *                 retransmission timeout recovers) and on, in the same job: with probes the
 *                 rounds must take well under the time without (a ratio), and probes be sent
 *   udp_transport mtu [DGRAM WINDOW]   the datagram size and window the transport chose: with
 *                 no arguments (RIVET_UDP_DGRAM and RIVET_UDP_WINDOW unset, a one-host job bound
 *                 to 127.0.0.1) from loopback's MTU (/sys/class/net/lo/mtu): MTU - 28 between
 *                 8192 and 65000 (halved while small socket buffers cannot hold two
 *                 messages' datagrams), a window of 512 KiB of them between 16 and 64; else exactly
 *                 the DGRAM and WINDOW given (the explicit settings)
 *   udp_transport putref  (through tests/transport/udp_relay: loss, duplicates, reordering)
 *                 Puts with GEX_EVENT_DEFER go by reference (transport op send_ref, no copy):
 *                 every rank puts rounds of 640 KiB into its right-hand neighbour's segment,
 *                 each from a fresh malloc'd buffer that it scribbles over and frees as soon as
 *                 gex_NBI_Wait reports the round complete (under ASan a later read by a
 *                 retransmission is a use after free); the neighbour checks every round's data,
 *                 and datagrams must have gone by reference (tp.udp.ref_out) */
#include "rv_test.h"
#include <gasnet_coll.h>
#include "transport/transport.h"
#include "transport/udp/udp_int.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { H_REQ = GEX_AM_INDEX_BASE, H_ACK };
#define NREAL 200
#define LEN   3000
static volatile int got, acks;
static int bad;

static void req_handler(gex_Token_t t, void *buf, size_t n, gex_AM_Arg_t seed)
{
    gex_Token_Info_t info;
    gex_Token_Info(t, &info, GEX_TI_SRCRANK);
    size_t b = rvt_find_bad(buf, n, (uint64_t)seed);
    if (n == 0) { /* test_idle's */
        got++;
        gex_AM_ReplyShort0(t, H_ACK, 0);
        return;
    }
    if (n != LEN || b != (size_t)-1 || (uint32_t)seed / 100000u != info.gex_srcrank) {
        fprintf(stderr, "FAIL rank %u: AM of %zu bytes, seed %d from rank %u: bad payload "
                "(byte %zu)\n", (unsigned)rvt_me, n, (int)seed, (unsigned)info.gex_srcrank, b);
        bad = 1;
    }
    got++;
    gex_AM_ReplyShort0(t, H_ACK, 0);
}

static void ack_handler(gex_Token_t t) { (void)t; acks++; }

static rv_udp_t *udp(void)
{
    RVT_CHECK(rv_tp.desc && strcmp(rv_tp.desc->name, "udp") == 0,
              "the udp transport is not in use (set RIVET_TRANSPORT=udp)");
    return rv_tp.priv;
}

static void test_stray(void)
{
    rv_udp_t *u = udp();
    gex_Rank_t right = (rvt_me + 1) % rvt_n;
    struct sockaddr_in to = u->peers[right].addr;
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    RVT_CHECK(fd >= 0, "socket");
    unsigned char d[9000];
    srand(7 + rvt_me);
    int sent = 0;
    /* random bytes of every length up to the largest datagram, and a bit beyond */
    for (size_t len = 0; len < 9000; len += 7) {
        for (size_t i = 0; i < len; i++) d[i] = (unsigned char)rand();
        sent += sendto(fd, d, len, 0, (struct sockaddr *)&to, sizeof to) >= 0;
    }
    /* headers: wrong token, then the job's own token with the sequence numbers the neighbour
     * expects from me next, on both channels, single datagrams and fragments (a spoof) */
    for (int spoof = 0; spoof < 2; spoof++)
        for (unsigned c = 0; c < 2; c++)
            for (uint32_t k = 0; k < 2 * u->win; k++) {
                rv_udp_hdr_t *h = (rv_udp_hdr_t *)(void *)d;
                for (size_t i = 0; i < 2000; i++) d[i] = (unsigned char)rand();
                h->token = spoof ? u->token : u->token ^ 1;
                h->src = rvt_me;
                h->kind = k % 5 == 4 ? RV_UDP_ACK : RV_UDP_DATA;
                h->chan = (uint8_t)c;
                h->flags = k % 3 == 2 ? RV_UDP_FIRST : RV_UDP_FIRST | RV_UDP_LAST;
                h->seq = u->peers[right].tx[c].next + k % u->win;
                h->msglen = 64;
                h->ack_rcv[0] = h->ack_free[0] = h->ack_rcv[1] = h->ack_free[1] = 12345 + k;
                sent += sendto(fd, d, sizeof *h + 64 + (k % 2000), 0, (struct sockaddr *)&to,
                               sizeof to) >= 0;
            }
    close(fd);
    RVT_CHECK(sent > 1000, "only %d stray datagrams could be sent", sent);
    rvt_barrier();
    /* the real traffic: everyone to everyone */
    unsigned char *buf = malloc(LEN);
    RVT_CHECK(buf != NULL, "malloc");
    for (int i = 0; i < NREAL; i++)
        for (gex_Rank_t r = 0; r < rvt_n; r++) {
            if (r == rvt_me) continue;
            gex_AM_Arg_t seed = (gex_AM_Arg_t)(rvt_me * 100000u + (unsigned)i);
            rvt_fill(buf, LEN, (uint64_t)seed);
            RVT_OK(gex_AM_RequestMedium1(rvt_tm, r, H_REQ, buf, LEN, GEX_EVENT_NOW, 0, seed));
        }
    int want = NREAL * (int)(rvt_n - 1);
    GASNET_BLOCKUNTIL(acks == want && got == want);
    rvt_barrier();
    RVT_CHECK(!bad, "a corrupted payload arrived");
    RVT_CHECK(got == want && acks == want, "rank %u ran %d handlers (%d acks), expected %d",
              (unsigned)rvt_me, got, acks, want);
    free(buf);
}

static void test_deaf(void)
{
    (void)udp();
    rvt_barrier();
    if (rvt_me == 1) {
        for (;;) pause(); /* never polls again: the job must end from rank 0 */
    }
    if (rvt_me != 0) return;
    unsigned char buf[LEN];
    rvt_fill(buf, LEN, 1);
    int accepted = 0;
    while (gex_AM_RequestMedium1(rvt_tm, 1, H_REQ, buf, LEN, GEX_EVENT_NOW,
                                 GEX_FLAG_IMMEDIATE, 1) == GASNET_OK) {
        accepted++;
        RVT_CHECK(accepted < 100000, "100000 AMs accepted by a rank that never polls: "
                  "no flow control");
    }
    printf("deaf: %d AMs accepted before the window closed\n", accepted);
    RVT_CHECK((uint32_t)accepted <= udp()->win, "%d AMs of one datagram accepted, above the "
              "send window (%u)", accepted, (unsigned)udp()->win);
    fflush(stdout);
    /* blocking ones: one of the next few must wait for good (the engine may hold back a
     * little room from IMMEDIATE), until the peer timeout ends the job */
    for (int i = 0; i < 1000; i++)
        RVT_OK(gex_AM_RequestMedium1(rvt_tm, 1, H_REQ, buf, LEN, GEX_EVENT_NOW, 0, 1));
    RVT_CHECK(0, "1000 blocking AMs to a rank that never polls returned");
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void test_talk(void)
{
    (void)udp();
    rvt_barrier();
    unsigned char *buf = malloc(LEN);
    RVT_CHECK(buf != NULL, "malloc");
    uint64_t start = now_ns();
    int sent = 0;
    for (int i = 0; now_ns() - start < 60000000000ull; i++)
        for (gex_Rank_t r = 0; r < rvt_n; r++) {
            if (r == rvt_me) continue;
            gex_AM_Arg_t seed = (gex_AM_Arg_t)(rvt_me * 100000u + (unsigned)(i % 100000));
            rvt_fill(buf, LEN, (uint64_t)seed);
            RVT_OK(gex_AM_RequestMedium1(rvt_tm, r, H_REQ, buf, LEN, GEX_EVENT_NOW, 0, seed));
            sent++;
            GASNET_BLOCKUNTIL(acks + 64 >= sent);
        }
    RVT_CHECK(0, "60 s of traffic and nobody disappeared (run through udp_relay --cut)");
}

static void print_stats(const char *what)
{
    const rv_udp_stats_t *st = &udp()->st;
    printf("%s rank %u: data %llu, resent %llu on timeout + %llu fast, probes %llu, acks %llu, "
           "dropped by the aid %llu, duplicates in %llu, rtt samples %llu, srtt to the right "
           "%llu us, sendmmsg %llu, idle waits %llu, tail-loss probes %llu, congestion "
           "window cuts %llu\n", what, (unsigned)rvt_me,
           (unsigned long long)st->data_out, (unsigned long long)st->retx_timeout,
           (unsigned long long)st->retx_fast, (unsigned long long)st->probes,
           (unsigned long long)st->acks_out, (unsigned long long)st->aid_dropped,
           (unsigned long long)st->dups_in, (unsigned long long)st->rtt_samples,
           (unsigned long long)udp()->peers[(rvt_me + 1) % rvt_n].srtt / 1000,
           (unsigned long long)st->sendmmsg, (unsigned long long)st->idle_waits,
           (unsigned long long)st->tlp, (unsigned long long)st->cc_cuts);
    fflush(stdout);
}

#define NRETX 20000
static void test_retx(void)
{
    rv_udp_t *u = udp();
    RVT_CHECK(u->drop > 0, "run with RIVET_UDP_DROP_PERMILLE");
    rvt_barrier();
    gex_Rank_t right = (rvt_me + 1) % rvt_n;
    unsigned char buf[LEN];
    for (int i = 0; i < NRETX; i++) {
        gex_AM_Arg_t seed = (gex_AM_Arg_t)(rvt_me * 100000u + (unsigned)i % 100000u);
        rvt_fill(buf, LEN, (uint64_t)seed);
        RVT_OK(gex_AM_RequestMedium1(rvt_tm, right, H_REQ, buf, LEN, GEX_EVENT_NOW, 0, seed));
    }
    GASNET_BLOCKUNTIL(acks == NRETX && got == NRETX);
    rvt_barrier();
    RVT_CHECK(!bad, "a corrupted payload arrived");
    print_stats("retx");
    const rv_udp_stats_t *st = &u->st;
    uint64_t resent = st->retx_timeout + st->retx_fast;
    RVT_CHECK(st->aid_dropped > 0, "the loss aid dropped nothing");
    /* fast retransmissions follow SACKs of what was lost; a timeout also fires when the peer
     * is descheduled (np 4 on 2 cores: 646 of 40004 once), so those are allowed 2.5% of the
     * traffic on top: a storm that resends everything still fails */
    RVT_CHECK(st->retx_fast <= 2 * st->aid_dropped + 50, "%llu fast retransmissions for %llu "
              "lost", (unsigned long long)st->retx_fast, (unsigned long long)st->aid_dropped);
    RVT_CHECK(resent <= 2 * st->aid_dropped + st->data_out / 40 + 50, "%llu datagrams resent "
              "for %llu lost: retransmission resends more than what was lost",
              (unsigned long long)resent, (unsigned long long)st->aid_dropped);
    /* tail-loss probes: a peer descheduled for longer than the probe timeout draws one
     * needlessly (one per stream and silence), so they are bounded by the traffic, not the loss */
    RVT_CHECK(st->tlp <= st->data_out / 20, "%llu tail-loss probes for %llu datagrams",
              (unsigned long long)st->tlp, (unsigned long long)st->data_out);
    /* the congestion window saw the losses (and never left its bounds) */
    const rv_udp_cc_t *cc = &u->peers[right].cc;
    printf("retx rank %u: congestion window to the right %u (ssthresh %u, at most %u), %llu "
           "sends held\n", (unsigned)rvt_me, (unsigned)cc->cwnd, (unsigned)cc->ssthresh,
           (unsigned)u->cc_max, (unsigned long long)st->cc_waits);
    RVT_CHECK(!u->cc_on || st->cc_cuts > 0, "losses and no congestion window decrease");
    RVT_CHECK(cc->cwnd >= 4 && cc->cwnd <= u->cc_max, "congestion window %u", (unsigned)cc->cwnd);
}

#define TAIL_BURST  4
#define TAIL_ROUNDS 10
/* TAIL_ROUNDS bursts from rank 0 to rank 1, each answered; seconds */
static double tail_rounds(int *base)
{
    unsigned char buf[LEN];
    rvt_barrier();
    uint64_t t0 = now_ns();
    if (rvt_me == 0) {
        for (int r = 0; r < TAIL_ROUNDS; r++) {
            for (int i = 0; i < TAIL_BURST; i++) {
                gex_AM_Arg_t seed = (gex_AM_Arg_t)((unsigned)(*base)++ % 100000u);
                rvt_fill(buf, LEN, (uint64_t)seed);
                RVT_OK(gex_AM_RequestMedium1(rvt_tm, 1, H_REQ, buf, LEN, GEX_EVENT_NOW, 0, seed));
            }
            GASNET_BLOCKUNTIL(acks == *base);
        }
    } else if (rvt_me == 1) {
        *base += TAIL_ROUNDS * TAIL_BURST;
        GASNET_BLOCKUNTIL(got == *base);
    }
    double t = 1e-9 * (double)(now_ns() - t0);
    rvt_barrier();
    return t;
}

static void test_tail(void)
{
    rv_udp_t *u = udp();
    RVT_CHECK(rvt_n == 2, "run with 2 ranks");
    RVT_CHECK(getenv("RIVET_UDP_RELAY"), "run through udp_relay --tail-drop");
    int base = 0;
    u->tlp_on = 0;
    uint64_t p0 = u->st.tlp, r0 = u->st.retx_timeout;
    double off = tail_rounds(&base);
    uint64_t p1 = u->st.tlp, r1 = u->st.retx_timeout;
    u->tlp_on = 1;
    double on = tail_rounds(&base);
    uint64_t p2 = u->st.tlp, r2 = u->st.retx_timeout;
    RVT_CHECK(!bad, "a corrupted payload arrived");
    printf("tail: rank %u: %d rounds of %d: %.3f s without tail-loss probes, %.3f s with "
           "(%.2fx); probes %llu, %llu; timeouts %llu, %llu; rto to the peer %llu us, srtt "
           "%llu us\n", (unsigned)rvt_me, TAIL_ROUNDS, TAIL_BURST, off, on, on / off,
           (unsigned long long)(p1 - p0), (unsigned long long)(p2 - p1),
           (unsigned long long)(r1 - r0), (unsigned long long)(r2 - r1),
           (unsigned long long)u->peers[rvt_me ^ 1].rto / 1000,
           (unsigned long long)u->peers[rvt_me ^ 1].srtt / 1000);
    fflush(stdout);
    RVT_CHECK(p1 == p0, "tail-loss probes sent while they were off");
    /* The relay drops burst tails as it sees them: in some runs one rank's data loses none
     * in the probed rounds (it then needs neither a probe nor a timeout), so the job as a
     * whole must have probed */
    uint64_t mine = p2 - p1, all = 0;
    gex_Event_Wait(gex_Coll_ReduceToAllNB(rvt_tm, &all, &mine, GEX_DT_U64, sizeof mine, 1,
                                          GEX_OP_ADD, NULL, NULL, 0));
    RVT_CHECK(all > 0, "no tail-loss probe was sent by any rank");
    /* The probes, not the timeout, recovered the tails: with them fewer timeouts than the same
     * rounds took without (at most half in quiet runs; 5 of 8 once with the suite running
     * beside it, srtt 8.5 ms). (How much sooner the rounds end depends on
     * the scheduling of the two ranks and the relay: 0.30-0.36x of the time in some quiet
     * runs, 0.8-1.1x in others where each round waits on other things, so the time is printed,
     * not checked.) A probe gives way to the timeout when it would not come first: when the
     * machine is so loaded that the smoothed round trip is a quarter of the minimum timeout
     * (ranks wait tens of ms for a core) nothing can be required. */
    const rv_udp_peer_t *pp = &u->peers[rvt_me ^ 1];
    if (pp->srtt < u->rto_min_ns / 4) {
        RVT_CHECK(r2 - r1 < r1 - r0, "%llu timeouts with probes, %llu without",
                  (unsigned long long)(r2 - r1), (unsigned long long)(r1 - r0));
    } else {
        printf("tail: rank %u: srtt %llu us, above a quarter of the minimum timeout (machine "
               "overloaded): not checked\n", (unsigned)rvt_me, (unsigned long long)pp->srtt / 1000);
    }
}

#define PREF_LEN    (640u * 1024u)
#define PREF_ROUNDS 24
static void test_putref(void)
{
    rv_udp_t *u = udp();
    gex_Rank_t right = (rvt_me + 1) % rvt_n, left = (rvt_me + rvt_n - 1) % rvt_n;
    uint64_t ref0 = __atomic_load_n(&u->st.ref_out, __ATOMIC_RELAXED);
    rvt_barrier();
    for (unsigned r = 0; r < PREF_ROUNDS; r++) {
        unsigned char *src = malloc(PREF_LEN);
        RVT_CHECK(src, "out of memory");
        rvt_fill(src, PREF_LEN, (uint64_t)rvt_me * 1000u + r);
        gex_RMA_PutNBI(rvt_tm, right, rvt_seg_addr(right, 0), src, PREF_LEN, GEX_EVENT_DEFER, 0);
        gex_NBI_Wait(GEX_EC_PUT, 0);
        /* remote completion: the source is ours again, at once */
        memset(src, 0xa5, PREF_LEN);
        free(src);
        rvt_barrier();
        RVT_VERIFY(rvt_seg_addr(rvt_me, 0), PREF_LEN, (uint64_t)left * 1000u + r, "putref round");
        rvt_barrier();
    }
    uint64_t refs = __atomic_load_n(&u->st.ref_out, __ATOMIC_RELAXED) - ref0;
    RVT_CHECK(refs >= PREF_ROUNDS, "%llu datagrams went by reference in %u rounds of Puts",
              (unsigned long long)refs, PREF_ROUNDS);
    if (rvt_me == 0)
        printf("putref: rank 0: %llu datagrams by reference\n", (unsigned long long)refs);
}

static void test_idle(void)
{
    rv_udp_t *u = udp();
    rvt_barrier();
    if (rvt_me == 0) {
        struct timespec d = { 0, 300000000 };
        nanosleep(&d, NULL); /* the idle time rank 1 must not spin through */
        RVT_OK(gex_AM_RequestMedium1(rvt_tm, 1, H_REQ, "", 0, GEX_EVENT_NOW, 0, 0));
        GASNET_BLOCKUNTIL(acks == 1);
    } else if (rvt_me == 1) {
        struct timespec w0, w1, c0, c1;
        clock_gettime(CLOCK_MONOTONIC, &w0);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c0);
        GASNET_BLOCKUNTIL(got == 1);
        clock_gettime(CLOCK_MONOTONIC, &w1);
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c1);
        double wall = (double)(w1.tv_sec - w0.tv_sec) + 1e-9 * (double)(w1.tv_nsec - w0.tv_nsec);
        double cpu = (double)(c1.tv_sec - c0.tv_sec) + 1e-9 * (double)(c1.tv_nsec - c0.tv_nsec);
        printf("idle: waited %.3f s, CPU %.3f s, %llu blocking waits\n", wall, cpu,
               (unsigned long long)u->st.idle_waits);
        fflush(stdout);
        RVT_CHECK(wall > 0.1, "the wait took only %.3f s", wall);
        RVT_CHECK(u->st.idle_waits > 0, "the wait never blocked");
        RVT_CHECK(cpu < 0.5 * wall, "%.3f s of CPU in a %.3f s wait: it spins", cpu, wall);
    }
    rvt_barrier();
}

static void test_mtu(int argc, char **argv)
{
    rv_udp_t *u = udp();
    size_t want_dgram;
    uint32_t want_win;
    if (argc > 3) {
        want_dgram = strtoul(argv[2], NULL, 10);
        want_win = (uint32_t)strtoul(argv[3], NULL, 10);
    } else {
        RVT_CHECK(ntohl(u->peers[rvt_me].addr.sin_addr.s_addr) == INADDR_LOOPBACK,
                  "rank %u is not bound to 127.0.0.1", (unsigned)rvt_me);
        FILE *f = fopen("/sys/class/net/lo/mtu", "r");
        unsigned mtu = 0;
        RVT_CHECK(f && fscanf(f, "%u", &mtu) == 1, "cannot read /sys/class/net/lo/mtu");
        fclose(f);
        RVT_CHECK(u->mtu == mtu, "the transport read MTU %u, /sys says %u", u->mtu, mtu);
        want_dgram = mtu - 28 < 8192 ? 8192 : mtu - 28 > 65000 ? 65000 : mtu - 28;
        want_dgram &= ~(size_t)7;
        /* halved (a multiple of 8, not below 8 KiB) while the job's smallest socket buffers
         * cannot hold two messages' datagrams per channel for both channels, each datagram
         * charged its truesize as udp_msg.c estimates it (a stock rmem_max: 65000 -> 32496) */
        for (;;) {
            size_t ts = want_dgram + 400 <= 32768 ? 512 : want_dgram + 800;
            while (ts < want_dgram + 400) ts *= 2;
            ts += 512;
            size_t frags = (RV_UDP_MAX_MSG + want_dgram - sizeof(rv_udp_hdr_t) - 1) /
                           (want_dgram - sizeof(rv_udp_hdr_t));
            if (!u->buf || want_dgram / 2 < RV_UDP_DGRAM_MIN_AUTO ||
                u->buf / (RV_UDP_FIT_CHANS * ts) >= 2 * frags)
                break;
            want_dgram = (want_dgram / 2) & ~(size_t)7;
        }
        want_win = (uint32_t)(512 * 1024 / want_dgram);
        want_win = want_win < 16 ? 16 : want_win > 64 ? 64 : want_win;
    }
    printf("mtu: rank %u: MTU %u, datagrams of %zu bytes, window %u\n", (unsigned)rvt_me,
           u->mtu, u->dgram, (unsigned)u->win);
    fflush(stdout);
    RVT_CHECK(u->dgram == want_dgram, "datagrams of %zu bytes, expected %zu", u->dgram, want_dgram);
    /* The automatic window also shrinks to the socket buffers the kernel granted (u->buf; a
     * stock net.core.rmem_max of 208 KiB holds few 65000-byte datagrams, or 8 KiB ones): smaller
     * only then; an explicit RIVET_UDP_WINDOW is kept */
    size_t need_buf = (size_t)want_win * (u->dgram + 1400) * RV_UDP_FIT_CHANS;
    const char *win_env = getenv("RIVET_UDP_WINDOW");
    if (!(win_env && *win_env) && u->buf && u->buf < need_buf)
        RVT_CHECK(u->win >= 2 && u->win <= want_win, "a window of %u, expected 2..%u (socket "
                  "buffers of %zu bytes)", (unsigned)u->win, (unsigned)want_win, (size_t)u->buf);
    else
        RVT_CHECK(u->win == want_win, "a window of %u, expected %u", (unsigned)u->win,
                  (unsigned)want_win);
    RVT_CHECK(u->frag == u->dgram - sizeof(rv_udp_hdr_t), "fragment %zu", u->frag);
    rvt_barrier();
}

int main(int argc, char **argv)
{
    /* putref puts into the segment */
    rvt_init(&argc, &argv, argc > 1 && !strcmp(argv[1], "putref") ? 1u << 20 : 0);
    gex_AM_Entry_t h[] = {
        { H_REQ, (gex_AM_Fn_t)req_handler, GEX_FLAG_AM_MEDIUM | GEX_FLAG_AM_REQUEST, 1, NULL, NULL },
        { H_ACK, (gex_AM_Fn_t)ack_handler, GEX_FLAG_AM_SHORT | GEX_FLAG_AM_REPLY, 0, NULL, NULL },
    };
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, 2));
    const char *mode = argc > 1 ? argv[1] : "stray";
    if (!strcmp(mode, "stray")) test_stray();
    else if (!strcmp(mode, "deaf")) test_deaf();
    else if (!strcmp(mode, "talk")) test_talk();
    else if (!strcmp(mode, "retx")) test_retx();
    else if (!strcmp(mode, "idle")) test_idle();
    else if (!strcmp(mode, "mtu")) test_mtu(argc, argv);
    else if (!strcmp(mode, "tail")) test_tail();
    else if (!strcmp(mode, "putref")) test_putref();
    else RVT_CHECK(0, "unknown mode %s", mode);
    return rvt_done("udp_transport");
}
