/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/launch.c: the start of a multi-host job: rank placement, the TCP listener,
 * the addresses and spec for the agents, and one remote shell per host. */
#include "remote_int.h"
#include "core/config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

/* Appends 'word' to buf in single quotes, safe for any POSIX shell. */
static int rv_run_quote(char *buf, size_t cap, size_t *len, const char *word)
{
    size_t l = *len;
#define RV_PUT(c) do { if (l + 1 >= cap) return -1; buf[l++] = (c); } while (0)
    if (l) RV_PUT(' ');
    RV_PUT('\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'') {
            RV_PUT('\''); RV_PUT('\\'); RV_PUT('\''); RV_PUT('\'');
        } else {
            RV_PUT(*p);
        }
    }
    RV_PUT('\'');
#undef RV_PUT
    buf[l] = 0;
    *len = l;
    return 0;
}

/* ---- start-up ----------------------------------------------------------- */

static int rv_run_listen(rv_run_remote_t *rm)
{
    unsigned lo = 0, hi = 0;
    if (rv_config_parse_ports(rv_cfg.LAUNCH_PORTS, &lo, &hi)) {   /* checked at start-up too */
        fprintf(stderr, "rivetrun: RIVET_LAUNCH_PORTS=%s is not a port or a range "
                "LOW-HIGH of ports (1..65535)\n", rv_cfg.LAUNCH_PORTS);
        return -1;
    }
    int err = 0;
    for (unsigned port = lo; port <= hi; port++) {
        for (int v6 = 1; v6 >= 0; v6--) {
            int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
            if (fd < 0) { err = errno; continue; }
            int one = 1, zero = 0;
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
            int rc;
            if (v6) {
                setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero);
                struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port),
                                          .sin6_addr = IN6ADDR_ANY_INIT};
                rc = bind(fd, (struct sockaddr *)&a6, sizeof a6);
            } else {
                struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                         .sin_addr.s_addr = htonl(INADDR_ANY)};
                rc = bind(fd, (struct sockaddr *)&a4, sizeof a4);
            }
            if (rc == 0 && listen(fd, 128) == 0) {
                struct sockaddr_storage ss;
                socklen_t sl = sizeof ss;
                getsockname(fd, (struct sockaddr *)&ss, &sl);
                rm->port = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
                                                          : ((struct sockaddr_in *)&ss)->sin_port);
                rm->listen_fd = fd;
                return 0;
            }
            err = errno;
            close(fd);
            if (err == EADDRINUSE) break;   /* next port */
        }
    }
    if (rv_cfg.LAUNCH_PORTS[0])
        fprintf(stderr, "rivetrun: cannot listen on any TCP port in RIVET_LAUNCH_PORTS=%s: %s\n",
                rv_cfg.LAUNCH_PORTS, strerror(err));
    else
        fprintf(stderr, "rivetrun: cannot listen on a TCP port for the agents: %s\n", strerror(err));
    return -1;
}

/* Where the agents connect back to: RIVET_LAUNCH_ADDR, else this host's name and its
 * interface addresses (the agent tries them in order). */
static void rv_run_addresses(rv_run_remote_t *rm, const char *myname)
{
    size_t len = 0;
    rm->addrs[0] = 0;
    if (rv_cfg.LAUNCH_ADDR[0]) {
        snprintf(rm->addrs, sizeof rm->addrs, "%s", rv_cfg.LAUNCH_ADDR);
        return;
    }
#define RV_ADD(s) do {                                                                    \
        size_t l_ = strlen(s);                                                            \
        if (len + l_ + 2 < sizeof rm->addrs) {                                            \
            if (len) rm->addrs[len++] = ',';                                              \
            memcpy(rm->addrs + len, s, l_ + 1);                                           \
            len += l_;                                                                    \
        }                                                                                 \
    } while (0)
    RV_ADD(myname);
    struct ifaddrs *ifs = NULL, *i;
    int any = 0;
    if (getifaddrs(&ifs) == 0) {
        for (int fam = 0; fam < 2; fam++)   /* IPv4 first */
            for (i = ifs; i; i = i->ifa_next) {
                if (!i->ifa_addr || (i->ifa_flags & IFF_LOOPBACK) || !(i->ifa_flags & IFF_UP))
                    continue;
                char a[INET6_ADDRSTRLEN];
                if (fam == 0 && i->ifa_addr->sa_family == AF_INET)
                    inet_ntop(AF_INET, &((struct sockaddr_in *)i->ifa_addr)->sin_addr, a, sizeof a);
                else if (fam == 1 && i->ifa_addr->sa_family == AF_INET6
                         && !IN6_IS_ADDR_LINKLOCAL(&((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr))
                    inet_ntop(AF_INET6, &((struct sockaddr_in6 *)i->ifa_addr)->sin6_addr, a, sizeof a);
                else
                    continue;
                RV_ADD(a);
                any = 1;
            }
        freeifaddrs(ifs);
    }
    if (!any) RV_ADD("127.0.0.1");
#undef RV_ADD
}

/* The spec part every host gets: u32 nenv, nargv, verbose; then cwd, env and argv as
 * NUL-terminated strings. Forwarded: RIVET_*, GASNET_* and FI_* (libfabric) except
 * the per-process ones, -x exports, and --transport. */
static int rv_run_build_spec(rv_run_job_t *job, rv_run_remote_t *rm)
{
    extern char **environ;
    size_t cap = 4096, len = 12;
    unsigned char *b = malloc(cap);
    uint32_t nenv = 0, nargv = 0;
    char cwd[PATH_MAX];
    if (!getcwd(cwd, sizeof cwd)) snprintf(cwd, sizeof cwd, ".");
#define RV_STR(s) do {                                                                    \
        size_t l_ = strlen(s) + 1;                                                        \
        while (b && len + l_ > cap) {                                                     \
            cap *= 2;                                                                     \
            unsigned char *n_ = realloc(b, cap);                                          \
            if (!n_) free(b);                                                             \
            b = n_;                                                                       \
        }                                                                                 \
        if (!b) goto oom;                                                                 \
        memcpy(b + len, s, l_);                                                           \
        len += l_;                                                                        \
    } while (0)
    if (!b) goto oom;
    RV_STR(cwd);
    for (char **e = environ; *e; e++) {
        const char *v = *e;
        if (strncmp(v, "RIVET_", 6) && strncmp(v, "GASNET_", 7) && strncmp(v, "FI_", 3) &&
            strncmp(v, "UCX_", 4))
            continue;
        if (!strncmp(v, "RIVET_BOOT_", 11) || !strncmp(v, "RIVET_HOSTNAME=", 15)) continue;
        RV_STR(v);
        nenv++;
    }
    for (uint32_t i = 0; i < job->opt.nexports; i++) {
        const char *x = job->opt.exports[i];
        if (strchr(x, '=')) {
            RV_STR(x);
            nenv++;
            continue;
        }
        const char *v = getenv(x);
        if (!v) {
            fprintf(stderr, "rivetrun: -x %s: %s is not set here; not exported\n", x, x);
            continue;
        }
        char kv[8192];
        snprintf(kv, sizeof kv, "%s=%s", x, v);
        RV_STR(kv);
        nenv++;
    }
    if (job->opt.transport) {
        char kv[512];
        snprintf(kv, sizeof kv, "RIVET_TRANSPORT=%s", job->opt.transport);
        RV_STR(kv);
        nenv++;
    }
    for (char **a = job->opt.argv; *a; a++) {
        RV_STR(*a);
        nargv++;
    }
#undef RV_STR
    uint32_t hdr[3] = {nenv, nargv, (uint32_t)job->opt.verbose};
    memcpy(b, hdr, sizeof hdr);
    rm->spec = b;
    rm->spec_len = len;
    return 0;
oom:
    fprintf(stderr, "rivetrun: out of memory\n");
    return -1;
}

static int rv_run_split_shell(rv_run_remote_t *rm)
{
    const char *s = rv_cfg.SSH;
    char *copy = strdup(s);
    int n = 0;
    rm->shell = calloc(strlen(s) / 2 + 2, sizeof *rm->shell);
    if (!copy || !rm->shell) {
        free(copy);
        return -1;
    }
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        rm->shell[n++] = w;
    rm->nshell = n;
    if (!n) {
        fprintf(stderr, "rivetrun: RIVET_SSH is empty: it must name the remote shell command "
                "(default 'ssh -x')\n");
        free(copy);
        free(rm->shell);
        rm->shell = NULL;
        return -1;
    }
    return 0;
}

static int rv_run_is_local(const char *name, const char *myname)
{
    return !strcmp(name, "localhost") || !strcmp(name, myname);
}

/* Starts the remote shell (or, for this host, the agent itself) for host h. */
static int rv_run_start_host(rv_run_job_t *job, rv_run_remote_t *rm, uint32_t hi, const char *myname)
{
    rv_run_host_t *h = &rm->host[hi];
    char idx[16], port[16], cmd[PATH_MAX + 2048];
    snprintf(idx, sizeof idx, "%u", (unsigned)hi);
    snprintf(port, sizeof port, "%u", rm->port);
    size_t cl = 0;
    cmd[0] = 0;
    int local = rv_run_is_local(h->name, myname);
    char *argv[64];
    int ac = 0;
    if (local) {
        argv[ac++] = rm->agent;
        argv[ac++] = "--agent";
        argv[ac++] = idx;
        argv[ac++] = port;
        argv[ac++] = rm->addrs;
        argv[ac++] = (char *)h->name;
    } else {
        memcpy(cmd, "exec", 5);
        cl = 4;
        if (rv_run_quote(cmd, sizeof cmd, &cl, rm->agent) || rv_run_quote(cmd, sizeof cmd, &cl, "--agent")
            || rv_run_quote(cmd, sizeof cmd, &cl, idx) || rv_run_quote(cmd, sizeof cmd, &cl, port)
            || rv_run_quote(cmd, sizeof cmd, &cl, rm->addrs)
            || rv_run_quote(cmd, sizeof cmd, &cl, h->name)) {
            fprintf(stderr, "rivetrun: the remote command line is too long\n");
            return RV_RUN_EXIT_ERROR;
        }
        if (rm->nshell > 60) {
            fprintf(stderr, "rivetrun: RIVET_SSH has too many words\n");
            return RV_RUN_EXIT_USAGE;
        }
        for (int i = 0; i < rm->nshell; i++) argv[ac++] = rm->shell[i];
        argv[ac++] = (char *)h->name;
        argv[ac++] = cmd;
    }
    argv[ac] = NULL;
    if (job->opt.verbose) {
        char rb[64];
        rv_run_range(h, rb, sizeof rb);
        if (local) rv_run_log(job, "host %s (%s): this host, starting the agent directly", h->name, rb);
        else rv_run_log(job, "host %s (%s): %s %s %s", h->name, rb, rv_cfg.SSH, h->name, cmd);
    }

    int in[2];
    if (pipe2(in, O_CLOEXEC)) {
        fprintf(stderr, "rivetrun: pipe failed: %s\n", strerror(errno));
        return RV_RUN_EXIT_ERROR;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid == 0) {
        /* Its own process group: a ^C at the terminal reaches rivetrun, which ends the
         * job in order, and not the remote shell, which must carry the output to the end. */
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGTERM) != 0 || getppid() != parent) _exit(RV_RUN_EXIT_ERROR);
        signal(SIGPIPE, SIG_DFL);
        sigprocmask(SIG_SETMASK, &job->orig_mask, NULL);
        if (dup2(in[0], 0) != 0) _exit(RV_RUN_EXIT_ERROR);
        execvp(argv[0], argv);
        fprintf(stderr, "rivetrun: cannot run the remote shell '%s' for host %s: %s\n", argv[0],
                h->name, strerror(errno));
        _exit(RV_RUN_EXIT_NOEXEC);
    }
    int fork_err = errno;
    close(in[0]);
    if (pid < 0) {
        close(in[1]);
        fprintf(stderr, "rivetrun: fork failed: %s\n", strerror(fork_err));
        return RV_RUN_EXIT_ERROR;
    }
    h->shell = pid;
    h->state = RV_HOST_LAUNCHING;
    /* The secret travels on the remote shell's stdin: never on a command line, where
     * any user of that host could read it. 33 bytes always fit in an empty pipe. */
    char line[34];
    memcpy(line, job->secret, 32);
    line[32] = '\n';
    ssize_t w;
    do w = write(in[1], line, 33);
    while (w < 0 && errno == EINTR);
    close(in[1]);
    return 0;
}

int rv_run_remote_start(rv_run_job_t *job)
{
    rv_run_remote_t *rm = calloc(1, sizeof *rm);
    if (!rm) {
        fprintf(stderr, "rivetrun: out of memory\n");
        return RV_RUN_EXIT_ERROR;
    }
    job->remote = rm;
    rm->listen_fd = -1;
    for (int i = 0; i < RV_RUN_PENDING; i++) rm->pending[i].fd = -1;
    rm->nhosts = job->opt.nhosts;
    rm->host = calloc(rm->nhosts, sizeof *rm->host);
    uint32_t *first = calloc(rm->nhosts, sizeof *first), *count = calloc(rm->nhosts, sizeof *count);
    if (!rm->host || !first || !count) {
        free(first);
        free(count);
        fprintf(stderr, "rivetrun: out of memory\n");
        return RV_RUN_EXIT_ERROR;
    }
    /* opt.np was placed by main (rv_run_hosts_place) before the rank table was made. */
    rv_run_hosts_place(&job->opt, first, count);
    for (uint32_t h = 0; h < rm->nhosts; h++) {
        rm->host[h].name = job->opt.hosts[h].name;
        rm->host[h].first = first[h];
        rm->host[h].count = count[h];
        rm->host[h].state = RV_HOST_CLOSED;
        rv_net_conn_init(&rm->host[h].conn, -1);
        for (uint32_t r = first[h]; r < first[h] + count[h]; r++) job->rank[r].host = h;
    }
    free(first);
    free(count);
    job->nspawned = job->opt.np;

    char myname[256] = "localhost";
    gethostname(myname, sizeof myname - 1);
    if (rv_cfg.LAUNCH_AGENT[0]) {
        snprintf(rm->agent, sizeof rm->agent, "%s", rv_cfg.LAUNCH_AGENT);
    } else {
        ssize_t l = readlink("/proc/self/exe", rm->agent, sizeof rm->agent - 1);
        if (l <= 0) {
            fprintf(stderr, "rivetrun: cannot find my own path (/proc/self/exe): %s; set "
                    "RIVET_LAUNCH_AGENT\n", strerror(errno));
            return RV_RUN_EXIT_ERROR;
        }
        rm->agent[l] = 0;
    }
    if (rv_run_split_shell(rm) || rv_run_listen(rm) || rv_run_build_spec(job, rm))
        return RV_RUN_EXIT_ERROR;
    rv_run_addresses(rm, myname);
    rv_run_log(job, "listening for the agents on TCP port %u; they connect to %s", rm->port,
               rm->addrs);
    rm->launch_deadline = rv_run_now_ms() + (int64_t)rv_cfg.LAUNCH_TIMEOUT * 1000;
    for (uint32_t h = 0; h < rm->nhosts; h++) {
        if (!rm->host[h].count) continue;
        int rc = rv_run_start_host(job, rm, h, myname);
        if (rc) {
            for (uint32_t k = 0; k < rm->nhosts; k++) rv_run_forget_ranks(job, &rm->host[k]);
            return rc;
        }
    }
    return 0;
}
