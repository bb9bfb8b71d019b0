/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/udp/udp.c: the udp transport's descriptor: probe, open (the socket, its address
 * exchanged through the bootstrap), segments (private memory, or shared objects a
 * neighbourhood maps, like ofi's), close. Messages are udp_msg.c's. */
#include "transport/udp/udp_int.h"
#include "core/config.h"
#include "core/error.h"
#include "core/job.h"
#include "core/shmobj.h"
#include "core/stats.h"
#include "boot/boot.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

/* Kernel UDP reaches every host: it serves any job. */
static int rv_udp_probe(const rv_job_t *job)
{
    (void)job;
    return 0;
}

/* The first IPv4 address of interface 'name', or of any up non-loopback interface (name NULL). */
static int rv_udp_if_addr(const char *name, struct in_addr *a)
{
    struct ifaddrs *ifs, *i;
    if (getifaddrs(&ifs) != 0) return -1;
    int found = -1;
    for (i = ifs; i && found; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET) continue;
        if (name ? strcmp(i->ifa_name, name) != 0
                 : (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
            continue;
        *a = ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr;
        found = 0;
    }
    freeifaddrs(ifs);
    return found;
}

/* The address to bind: RIVET_UDP_IFACE (an address or an interface name), else loopback for a
 * one-host job, else the host name's address, else the first non-loopback interface's. */
static int rv_udp_pick_addr(const rv_job_t *job, struct in_addr *a)
{
    const char *want = rv_cfg.UDP_IFACE;
    if (want && want[0]) {
        if (inet_pton(AF_INET, want, a) == 1 || rv_udp_if_addr(want, a) == 0) return 0;
        rv_warn("udp: RIVET_UDP_IFACE=%s is neither an IPv4 address nor an interface with one", want);
        return -1;
    }
    if (job->host_count <= 1) {
        a->s_addr = htonl(INADDR_LOOPBACK);
        return 0;
    }
    struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_DGRAM }, *res = NULL;
    if (getaddrinfo(job->hostname, NULL, &hints, &res) == 0 && res) {
        *a = ((struct sockaddr_in *)(void *)res->ai_addr)->sin_addr;
        freeaddrinfo(res);
        if ((ntohl(a->s_addr) >> 24) != 127) return 0;
    }
    if (rv_udp_if_addr(NULL, a) == 0) return 0;
    rv_warn("udp: no IPv4 address for host %s (set RIVET_UDP_IFACE)", job->hostname);
    return -1;
}

/* A 64-bit token from the job's secret (FNV-1a): every datagram carries it. */
static uint64_t rv_udp_token(const char *secret)
{
    uint64_t h = 1469598103934665603ull;
    for (const char *p = secret; *p; p++) h = (h ^ (unsigned char)*p) * 1099511628211ull;
    return h ^ 0x7564705f72697674ull;
}

/* RIVET_STATS: the transport's counters (rv_udp_stats_t) as tp.udp.*, and its
 * retransmissions (on timeout and fast) as the generic tp.retransmits. */
static rv_udp_t *rv_udp_g;

static void rv_udp_stats_emit(rv_stats_emit_t emit, void *ctx)
{
    rv_udp_t *u = rv_udp_g;
    if (!u) return;
#define RV_UDP_EMIT(f) emit(#f, __atomic_load_n(&u->st.f, __ATOMIC_RELAXED), ctx)
    RV_UDP_EMIT(data_out);
    RV_UDP_EMIT(retx_timeout);
    RV_UDP_EMIT(retx_fast);
    RV_UDP_EMIT(probes);
    RV_UDP_EMIT(acks_out);
    RV_UDP_EMIT(dgrams_in);
    RV_UDP_EMIT(dups_in);
    RV_UDP_EMIT(rtt_samples);
    RV_UDP_EMIT(sendmmsg);
    RV_UDP_EMIT(send_full);
    RV_UDP_EMIT(idle_waits);
    RV_UDP_EMIT(aid_dropped);
    RV_UDP_EMIT(tlp);
    RV_UDP_EMIT(cc_cuts);
    RV_UDP_EMIT(cc_waits);
    RV_UDP_EMIT(ref_out);
#undef RV_UDP_EMIT
}

static uint64_t rv_udp_retransmits(void)
{
    rv_udp_t *u = rv_udp_g;
    return u ? __atomic_load_n(&u->st.retx_timeout, __ATOMIC_RELAXED) +
                   __atomic_load_n(&u->st.retx_fast, __ATOMIC_RELAXED) +
                   __atomic_load_n(&u->st.tlp, __ATOMIC_RELAXED)
             : 0;
}

static void rv_udp_close(void *priv)
{
    rv_udp_t *u = priv;
    if (rv_udp_g == u) rv_udp_g = NULL;
    rv_udp_msg_close(u);
    if (u->nbrseg && u->segsize)
        for (uint32_t r = 0; r < u->size; r++)
            if (u->nbrseg[r]) munmap(u->nbrseg[r], (size_t)u->segsize[r]);
    if (u->seg) munmap(u->seg, u->seglen);
    free(u->nbrseg);
    free(u->segsize);
    u->nbrseg = NULL;
    u->segsize = NULL;
    u->seg = NULL;
    if (u->sfd >= 0 && u->sfd != u->fd) close(u->sfd);
    u->sfd = -1;
    if (u->fd >= 0) close(u->fd);
    u->fd = -1;
    free(u->peers);
    u->peers = NULL;
}

typedef struct {
    uint32_t ip;    /* network order */
    uint16_t port;  /* network order */
    uint16_t ok;
    uint16_t dgram; /* the datagram size this rank would choose (the job takes the smallest) */
    uint16_t sport; /* network order: the port its datagrams come from (its send sockets') */
    uint32_t buf;   /* the smaller socket buffer the kernel granted, bytes (the job's smallest
                     * bounds the window) */
} rv_udp_addr_t;

/* The MTU of the interface that holds address a (the one the socket is bound to), 0 if not
 * known. */
static unsigned rv_udp_if_mtu(int fd, struct in_addr a)
{
    struct ifaddrs *ifs, *i;
    unsigned mtu = 0;
    if (getifaddrs(&ifs) != 0) return 0;
    for (i = ifs; i && !mtu; i = i->ifa_next) {
        if (!i->ifa_addr || i->ifa_addr->sa_family != AF_INET ||
            ((struct sockaddr_in *)(void *)i->ifa_addr)->sin_addr.s_addr != a.s_addr)
            continue;
        struct ifreq ifr;
        memset(&ifr, 0, sizeof ifr);
        snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "%s", i->ifa_name);
        if (ioctl(fd, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0) mtu = (unsigned)ifr.ifr_mtu;
    }
    freeifaddrs(ifs);
    return mtu;
}

/* The datagram size: RIVET_UDP_DGRAM when set (at least 1 KiB), else the path's: the bound
 * interface's MTU less the IPv4 and UDP headers (28 bytes), between 8 KiB and 65000 bytes
 * (loopback, MTU 65536: 65000; jumbo frames, 9000: 8968; Ethernet, 1500: 8 KiB, IP fragments
 * on the wire). A multiple of 8. */
static size_t rv_udp_pick_dgram(unsigned mtu)
{
    size_t d = (size_t)rv_cfg.UDP_DGRAM;
    if (d && d < 1024) {
        rv_warn("udp: RIVET_UDP_DGRAM=%zu raised to 1024 (0 chooses from the interface's MTU)", d);
        d = 1024;
    }
    if (!d) {
        d = mtu > 28 ? mtu - 28 : 0;
        if (d < RV_UDP_DGRAM_MIN_AUTO) d = RV_UDP_DGRAM_MIN_AUTO;
        if (d > RV_UDP_DGRAM_MAX) d = RV_UDP_DGRAM_MAX;
    }
    return d & ~(size_t)7;
}

/* Test aid (tests/transport/udp_relay.c): RIVET_UDP_RELAY=IPv4:PORT sends every datagram through
 * a relay process that stands in for rank r at PORT + r and forwards from there, so the
 * address check still tells ranks apart. This rank's real address is registered at its own
 * stand-in port (a datagram the relay recognises, never a rank). Kept to this one function. */
#define RV_UDP_RELAY_MAGIC 0x79616c65725f7672ull /* "rv_relay" */
static int rv_udp_relay(rv_udp_t *u)
{
    const char *s = rv_cfg.UDP_RELAY;
    if (!s || !s[0]) return 1;
    char ip[64];
    const char *colon = strrchr(s, ':');
    unsigned long port = colon ? strtoul(colon + 1, NULL, 10) : 0;
    struct sockaddr_in ra = { .sin_family = AF_INET };
    if (!colon || (size_t)(colon - s) >= sizeof ip || port == 0 || port + u->size > 65535) {
        rv_warn("udp: RIVET_UDP_RELAY=%s is not IPv4:PORT", s);
        return 0;
    }
    memcpy(ip, s, (size_t)(colon - s));
    ip[colon - s] = 0;
    if (inet_pton(AF_INET, ip, &ra.sin_addr) != 1) {
        rv_warn("udp: RIVET_UDP_RELAY=%s is not IPv4:PORT", s);
        return 0;
    }
    uint64_t reg[2] = { RV_UDP_RELAY_MAGIC, u->me };
    ra.sin_port = htons((uint16_t)(port + u->me));
    for (int i = 0; i < 2; i++) (void)sendto(u->fd, reg, sizeof reg, 0, (struct sockaddr *)&ra, sizeof ra);
    for (uint32_t r = 0; r < u->size; r++) {
        ra.sin_port = htons((uint16_t)(port + r));
        u->peers[r].addr = ra;
        u->peers[r].sport = ra.sin_port; /* the relay forwards from the stand-in port */
    }
    rv_verbose(1, "udp: rank %u talks through the relay at %s", u->me, s);
    return 1;
}

static int rv_udp_open(void *priv, const rv_job_t *job, rv_tp_limits_t *lim)
{
    rv_udp_t *u = priv;
    u->me = job->rank;
    u->size = job->size;
    u->fd = u->sfd = -1;
    u->token = rv_udp_token(job->secret);
    if (RV_STAT_ON()) {
        rv_udp_g = u;
        rv_stats_source("tp.udp", rv_udp_stats_emit);
        rv_stats_extra(RV_ST_TP_RETRANSMITS, rv_udp_retransmits);
    }
    struct in_addr a;
    int ok = rv_udp_pick_addr(job, &a) == 0;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = a };
    socklen_t sl = sizeof sa;
    if (ok) {
        u->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        int big = 8 << 20;
        if (u->fd >= 0) {
            setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
            setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
            /* what the kernel granted (capped at net.core.rmem_max / wmem_max, doubled for
             * its bookkeeping): the window is fitted to it (udp_msg.c) */
            socklen_t bl = sizeof u->rcvbuf;
            if (getsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &u->rcvbuf, &bl) != 0) u->rcvbuf = 0;
            bl = sizeof u->sndbuf;
            if (getsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &u->sndbuf, &bl) != 0) u->sndbuf = 0;
        }
        ok = u->fd >= 0 && bind(u->fd, (struct sockaddr *)&sa, sizeof sa) == 0 &&
             getsockname(u->fd, (struct sockaddr *)&sa, &sl) == 0;
        if (!ok) rv_warn("udp: cannot bind a socket to %s: %s", inet_ntoa(a), strerror(errno));
    }
    /* Datagrams leave from a second port (send sockets, udp_msg.c: one unconnected, and one
     * connected per peer, all bound to it with SO_REUSEADDR): a connected socket's send skips
     * the route lookup (2239 against 2615 ns, best of 40 rounds). Nothing is sent to that
     * port; peers check that a rank's datagrams come from it. Through the relay, and if the
     * port cannot be had, datagrams leave from the receiving socket as before. */
    struct sockaddr_in ss = { .sin_family = AF_INET, .sin_addr = sa.sin_addr };
    socklen_t ssl = sizeof ss;
    if (ok && !(rv_cfg.UDP_RELAY && rv_cfg.UDP_RELAY[0])) {
        int one = 1, big = 8 << 20;
        u->sfd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (u->sfd >= 0 &&
            (setsockopt(u->sfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) != 0 ||
             setsockopt(u->sfd, SOL_SOCKET, SO_SNDBUF, &big, sizeof big) != 0 ||
             bind(u->sfd, (struct sockaddr *)&ss, sizeof ss) != 0 ||
             getsockname(u->sfd, (struct sockaddr *)&ss, &ssl) != 0)) {
            close(u->sfd);
            u->sfd = -1;
        }
        socklen_t bl = sizeof u->sndbuf;
        if (u->sfd >= 0 && getsockopt(u->sfd, SOL_SOCKET, SO_SNDBUF, &u->sndbuf, &bl) != 0)
            u->sndbuf = 0;
    }
    if (u->sfd < 0) {
        u->sfd = u->fd;
        ss = sa;
    }
    u->sport = ss.sin_port;
    u->sbind = ss;
    u->mtu = ok ? rv_udp_if_mtu(u->fd, sa.sin_addr) : 0;
    rv_udp_addr_t mine = { sa.sin_addr.s_addr, sa.sin_port, (uint16_t)ok,
                           (uint16_t)rv_udp_pick_dgram(u->mtu), ss.sin_port,
                           (uint32_t)(u->rcvbuf < u->sndbuf ? u->rcvbuf : u->sndbuf) }, *all;
    u->dgram = mine.dgram;
    u->buf = mine.buf;
    all = calloc(u->size, sizeof *all);
    u->peers = calloc(u->size, sizeof *u->peers);
    for (uint32_t r = 0; u->peers && r < u->size; r++) u->peers[r].cfd = -1;
    int res = all && u->peers && rv_boot_allgather(&mine, sizeof mine, all) == 0;
    for (uint32_t r = 0; res && r < u->size; r++) {
        if (!all[r].ok) res = 0;
        if (all[r].dgram < u->dgram) u->dgram = all[r].dgram; /* every rank receives them all */
        if (all[r].buf < u->buf) u->buf = all[r].buf; /* the window is the same everywhere */
        u->peers[r].addr = (struct sockaddr_in){ .sin_family = AF_INET, .sin_port = all[r].port,
                                                 .sin_addr = { all[r].ip } };
        u->peers[r].sport = all[r].sport;
    }
    free(all);
    if (res) res = rv_udp_relay(u);
    if (res) res = rv_udp_msg_open(u) == 0;
    /* An idle poll is a recvfrom system call already; a sched_yield after it costs ~0.2 us and,
     * on a machine busy with other work, lets the peer that has to answer run now instead of
     * after our time slice (as over ofi; GASNet-EX udp yields in its idle poll too). testsmall's
     * 8 B round trips at load 8-20, median of 5 runs: 24-122 us spinning, 17-23 us yielding,
     * GASNet-EX udp's 19-24 (docs/benchmarks.md, "GASNet's tests over the network"). Only
     * when some rank is reached through udp. */
    if (res && !strcmp(rv_cfg.WAIT_MODE, "auto") && job->nbrhd_count > 1) rv_job.idle_yield = 1;
    rv_verbose(1, "udp: rank %u bound to %s:%u (sending from port %u) (MTU %u), datagrams up to %zu bytes (%s), "
               "window %u, socket buffers granted %d KiB receive, %d KiB send (job's smallest "
               "%u KiB)", u->me, inet_ntoa(sa.sin_addr),
               ntohs(sa.sin_port), ntohs(u->sport), u->mtu, u->dgram,
               rv_cfg.UDP_DGRAM ? "RIVET_UDP_DGRAM" : "from the MTU", u->win, u->rcvbuf >> 10,
               u->sndbuf >> 10, (unsigned)(u->buf >> 10));
    if (!rv_job_all_ok(res)) {
        rv_udp_close(u);
        return -1;
    }
    *lim = (rv_tp_limits_t){ .max_msg = RV_UDP_MAX_MSG, .pref_msg = u->frag };
    return 0;
}

/* Maps the segments of my neighbourhood's other ranks. Returns 0 if one failed. */
static int rv_udp_seg_map_nbrs(rv_udp_t *u, rv_segmap_t *map)
{
    int ok = (u->nbrseg = calloc(u->size, sizeof *u->nbrseg)) != NULL;
    for (uint32_t i = 0; ok && i < rv_job.nbrhd_size; i++) {
        uint32_t r = rv_job.nbrhd_ranks[i];
        if (r == u->me || !u->segsize[r]) continue;
        char peer[96];
        rv_shmobj_name(peer, sizeof peer, rv_job.secret, 'd', r);
        map[r].local_base = u->nbrseg[r] = rv_shmobj_attach(peer, (size_t)u->segsize[r]);
        ok = u->nbrseg[r] != NULL;
    }
    return ok;
}

/* This rank's segment: private memory, or a shared object when its neighbourhood has other
 * ranks (they copy into it directly); everyone else is reached by AMs (no RDMA). */
static int rv_udp_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map)
{
    rv_udp_t *u = priv;
    const int shared = rv_job.nbrhd_size > 1;
    int ok;
    void *mine = rv_shmobj_segment("udp", 'd', size, &ok);
    u->seg = mine;
    u->seglen = mine ? size : 0;
    uint64_t d[3] = { (uint64_t)(uintptr_t)mine, mine ? size : 0, (uint64_t)ok };
    uint64_t *all = calloc(u->size, sizeof d);
    u->segsize = calloc(u->size, sizeof *u->segsize);
    int res = all && u->segsize && rv_boot_allgather(d, sizeof d, all) == 0;
    for (uint32_t r = 0; res && r < u->size; r++) {
        if (!all[3 * r + 2]) res = 0;
        u->segsize[r] = all[3 * r + 1];
        map[r].owner_base = (void *)(uintptr_t)all[3 * r];
        map[r].size = (uintptr_t)all[3 * r + 1];
        map[r].local_base = r == u->me ? mine : NULL;
        map[r].flags = 0;
    }
    free(all);
    if (res && rv_job.nbrhd_count < rv_job.size) {
        int mapped = !shared || rv_udp_seg_map_nbrs(u, map);
        res = rv_job_all_ok(mapped);
    }
    if (size && shared) rv_shmobj_segment_unlink('d');
    if (!res) {
        for (uint32_t r = 0; r < u->size; r++)
            if (r != u->me) map[r].local_base = NULL;
    }
    return res ? 0 : -1;
}

static const rv_tp_ops_t rv_udp_ops = {
    .size = sizeof(rv_tp_ops_t),
    .send = rv_udp_send,
    .send_ref = rv_udp_send_ref,
    .poll = rv_udp_poll,
    .idle = rv_udp_idle,
};

const rv_tp_desc_t rv_tp_udp_desc = {
    .size = sizeof(rv_tp_desc_t),
    .name = "udp",
    .abi = RV_TP_ABI,
    .priv_size = sizeof(rv_udp_t),
    .probe = rv_udp_probe,
    .open = rv_udp_open,
    .seg_attach = rv_udp_seg_attach,
    .close = rv_udp_close,
    .ops = &rv_udp_ops,
};
