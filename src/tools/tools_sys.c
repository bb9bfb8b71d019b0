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

/* The zero-byte counts. Words: a byte of x is zero iff the high bit of the same byte of
 * ~(((x & 0x7f..) + 0x7f..) | x | 0x7f..) is set (the add cannot carry between bytes, so the
 * test is exact); those bits, shifted down and summed by a multiply, are the count. The
 * header has the same as inline functions; these are the library's exported copies. */
#define RV_LO7 0x7F7F7F7F7F7F7F7Full
#define RV_ONES 0x0101010101010101ull
static inline unsigned rv_zero_bytes64(uint64_t x)
{
    uint64_t t = ~(((x & RV_LO7) + RV_LO7) | x | RV_LO7);
    return (unsigned)(((t >> 7) * RV_ONES) >> 56);
}

#undef gasnett_count0s_uint32_t
#undef gasnett_count0s_uint64_t
#undef gasnett_count0s_uintptr_t
int gasnett_count0s_uint32_t(uint32_t x)
{
    return (int)rv_zero_bytes64((uint64_t)x | 0xFFFFFFFF00000000ull);
}

int gasnett_count0s_uint64_t(uint64_t x) { return (int)rv_zero_bytes64(x); }

int gasnett_count0s_uintptr_t(uintptr_t x)
{
#if UINTPTR_MAX > 0xFFFFFFFFu
    return gasnett_count0s_uint64_t((uint64_t)x);
#else
    return gasnett_count0s_uint32_t((uint32_t)x);
#endif
}

/* Buffers: 32 bytes a step as two 16-byte vectors (GCC/clang generic vectors: SSE2 on
 * x86-64, NEON on AArch64, plain words elsewhere), compared with zero, each lane counting
 * its zero bytes in a byte (at most 255 steps a block); a block ends by summing the 32 byte
 * counters. Unaligned loads and stores go through memcpy. The rest: words, then bytes. */
typedef unsigned char rv_v16 __attribute__((__vector_size__(16)));
enum { RV_STEP = 32, RV_BLOCK_STEPS = 255 };

/* the sum of the 16 byte counters of a */
static inline size_t rv_v16_sum(rv_v16 a)
{
    uint64_t w[2];
    memcpy(w, &a, sizeof w);
    uint64_t x = (w[0] & 0x00FF00FF00FF00FFull) + ((w[0] >> 8) & 0x00FF00FF00FF00FFull) +
                 (w[1] & 0x00FF00FF00FF00FFull) + ((w[1] >> 8) & 0x00FF00FF00FF00FFull);
    return (size_t)((x * 0x0001000100010001ull) >> 48); /* 4 lanes of at most 1020 */
}

/* counts the zeros of src[0, n); stores them to dst too unless dst is NULL */
static inline __attribute__((__always_inline__)) size_t
rv_count0s(unsigned char *GASNETT_RESTRICT dst, const unsigned char *GASNETT_RESTRICT src,
           size_t n, int copy)
{
    size_t c = 0, i = 0;
    const rv_v16 zero = { 0 };
    while (n - i >= RV_STEP) {
        size_t steps = (n - i) / RV_STEP;
        if (steps > RV_BLOCK_STEPS) steps = RV_BLOCK_STEPS;
        rv_v16 acc0 = zero, acc1 = zero;
        for (size_t s = 0; s < steps; s++, i += RV_STEP) {
            rv_v16 a, b;
            memcpy(&a, src + i, 16);
            memcpy(&b, src + i + 16, 16);
            if (copy) {
                memcpy(dst + i, &a, 16);
                memcpy(dst + i + 16, &b, 16);
            }
            acc0 -= (rv_v16)(a == zero); /* a true lane compares as all ones: -1 */
            acc1 -= (rv_v16)(b == zero);
        }
        c += rv_v16_sum(acc0) + rv_v16_sum(acc1);
    }
    for (; n - i >= 8; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        if (copy) memcpy(dst + i, &w, 8);
        c += rv_zero_bytes64(w);
    }
    for (; i < n; i++) {
        unsigned char b = src[i];
        if (copy) dst[i] = b;
        c += b == 0;
    }
    return c;
}

size_t gasnett_count0s(const void *p, size_t numbytes)
{
    return rv_count0s(NULL, p, numbytes, 0);
}

size_t gasnett_count0s_copy(void *GASNETT_RESTRICT dst, const void *GASNETT_RESTRICT src,
                            size_t numbytes)
{
    return rv_count0s(dst, src, numbytes, 1);
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
