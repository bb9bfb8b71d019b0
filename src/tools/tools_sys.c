/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_sys.c: the GASNet-Tools system queries and utilities: host name, CPU count,
 * physical memory, affinity, yielding, streams, signals, checksums, zero-byte counts and
 * rlimits. */
#include "tools/tools_int.h"
#include "core/core.h"

#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

static pthread_once_t rv_tools_host_once = PTHREAD_ONCE_INIT;
static char rv_tools_hostname[256];

static void rv_tools_host_init(void)
{
    if (gethostname(rv_tools_hostname, sizeof rv_tools_hostname - 1))
        snprintf(rv_tools_hostname, sizeof rv_tools_hostname, "unknown");
}

const char *gasnett_gethostname(void)
{
    pthread_once(&rv_tools_host_once, rv_tools_host_init);
    return rv_tools_hostname;
}

int gasnett_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 0;
}

uint64_t gasnett_getPhysMemSz(int failureIsFatal)
{
    long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
    if (pages > 0 && psize > 0) return (uint64_t)pages * (uint64_t)psize;
    if (failureIsFatal) rv_fatal("gasnett_getPhysMemSz: the physical memory size is unknown");
    return 0;
}

int gasnett_set_affinity(int rank)
{
    int n = gasnett_cpu_count();
    if (n <= 0) return -1;
    int cpu = rank % n;
    if (cpu < 0) cpu += n;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    /* a cpuset that excludes the CPU leaves the thread alone and reports it */
    return sched_setaffinity(0, sizeof set, &set) ? -1 : 0;
}

void gasnett_sched_yield(void) { sched_yield(); }

void gasnett_flush_streams(void)
{
    fflush(stdout);
    fflush(stderr);
}

void gasnett_close_streams(void)
{
    gasnett_flush_streams();
    (void)fclose(stdin);
    (void)fclose(stdout);
    (void)fclose(stderr);
}

gasnett_sighandlerfn_t gasnett_reghandler(int sigtocatch, gasnett_sighandlerfn_t fp)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fp;
    sigemptyset(&sa.sa_mask);
    if (sigaction(sigtocatch, &sa, &old))
        rv_fatal("gasnett_reghandler: cannot register a handler for signal %d", sigtocatch);
    return old.sa_handler;
}

/* Not cryptographic: 8 bytes at a time, rotate, xor and multiply, then the tail bytes. */
uint64_t gasnett_checksum(const void *p, int numbytes)
{
    const unsigned char *b = p;
    uint64_t h = 0x243F6A8885A308D3ull;
    size_t n = numbytes > 0 ? (size_t)numbytes : 0, i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = ((h << 23) | (h >> 41)) ^ w;
        h *= 0x9E3779B97F4A7C15ull;
    }
    for (; i < n; i++) h = (h ^ b[i]) * 0x100000001B3ull;
    return h ^ (h >> 29) ^ n;
}

int gasnett_count0s_uint32_t(uint32_t x)
{
    int c = 0;
    for (int i = 0; i < 4; i++, x >>= 8) c += (x & 0xff) == 0;
    return c;
}

int gasnett_count0s_uint64_t(uint64_t x)
{
    int c = 0;
    for (int i = 0; i < 8; i++, x >>= 8) c += (x & 0xff) == 0;
    return c;
}

int gasnett_count0s_uintptr_t(uintptr_t x) { return gasnett_count0s_uint64_t((uint64_t)x); }

size_t gasnett_count0s(const void *p, size_t numbytes)
{
    const unsigned char *b = p;
    size_t c = 0;
    for (size_t i = 0; i < numbytes; i++) c += b[i] == 0;
    return c;
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                            size_t numbytes)
{
    if (numbytes) memcpy(dst, src, numbytes);
    return gasnett_count0s(dst, numbytes);
}

int gasnett_maximize_rlimit(int res, const char *lim_desc)
{
    if (lim_desc) {
        char name[128];
        snprintf(name, sizeof name, "GASNET_MAXIMIZE_%s", lim_desc);
        if (!rv_tools_env_flag(NULL, name, 1)) return 1;   /* declined by the user: success */
    }
    struct rlimit rl;
    if (getrlimit(res, &rl)) return 0;
    if (rl.rlim_cur == rl.rlim_max) return 1;
    rl.rlim_cur = rl.rlim_max;
    return setrlimit(res, &rl) == 0;
}

int gasnett_maximize_rlimits(void)
{
    static const struct { int res; const char *desc; } lims[] = {
        { RLIMIT_CPU, "RLIMIT_CPU" },   { RLIMIT_DATA, "RLIMIT_DATA" },
        { RLIMIT_RSS, "RLIMIT_RSS" },   { RLIMIT_STACK, "RLIMIT_STACK" },
        { RLIMIT_AS, "RLIMIT_AS" },     { RLIMIT_MEMLOCK, "RLIMIT_MEMLOCK" },
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++)
        ok &= gasnett_maximize_rlimit(lims[i].res, lims[i].desc) != 0;
    return ok;
}

/* The word every fence of a ThreadSanitizer build updates (gasnet_tools.h, RV_TOOLS_FENCE).
 * Exported whatever this build is: gasnet_tools.h declares it only to a TSan-built client. */
__attribute__((__visibility__("default"))) int _rivet_tools_fence_word;
