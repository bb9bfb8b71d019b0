/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/limits.c: hardware limits the goals are measured against: a cache line bouncing
 * between two processes (round trip), a buffer echoed between two processes (round trip)
 * and single-core memcpy bandwidth. No GASNet. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "bench_util.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __asm__ __volatile__("pause");
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

/* Round trip of a write seen by the other process and answered: with one line both processes
 * write the same line; with two lines each writes its own and spins on the other's. */
static void cacheline_rtt(bu_opts_t *o, int two_lines)
{
    const char *variant = two_lines ? "two_lines" : "one_line";
    if (!bu_selected(o, "limit_cacheline_rtt", variant)) return;
    long iters = bu_iters(o, 200000, 0, 0, 100);
    long warm = iters / 4 + 1;
    long total = warm + (long)o->trials * iters;
    _Atomic uint64_t *mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                                 -1, 0);
    if (mem == MAP_FAILED) { perror("mmap"); exit(2); }
    _Atomic uint64_t *ping = &mem[0];
    _Atomic uint64_t *pong = two_lines ? &mem[16] : &mem[0]; /* 128 bytes apart */
    atomic_store(ping, 0);
    atomic_store(pong, 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); exit(2); }
    if (pid == 0) { /* responder */
        for (long i = 0; i < total; i++) {
            uint64_t want = two_lines ? (uint64_t)i + 1 : 2 * (uint64_t)i + 1;
            while (atomic_load_explicit(ping, memory_order_acquire) != want) cpu_relax();
            atomic_store_explicit(pong, two_lines ? (uint64_t)i + 1 : 2 * (uint64_t)i + 2,
                                  memory_order_release);
        }
        _exit(0);
    }
    double vals[BU_MAX_TRIALS];
    long i = 0;
    for (int t = -1; t < o->trials; t++) {
        long n = t < 0 ? warm : iters;
        double t0 = bu_now();
        for (long k = 0; k < n; k++, i++) {
            uint64_t w = two_lines ? (uint64_t)i + 1 : 2 * (uint64_t)i + 1;
            uint64_t r = two_lines ? (uint64_t)i + 1 : 2 * (uint64_t)i + 2;
            atomic_store_explicit(ping, w, memory_order_release);
            while (atomic_load_explicit(pong, memory_order_acquire) != r) cpu_relax();
        }
        if (t >= 0) vals[t] = 1e6 * (bu_now() - t0) / (double)n;
    }
    int st = 0;
    waitpid(pid, &st, 0);
    munmap((void *)mem, 4096);
    o->ranks = 2;
    bu_report_iters(o, 0, "limit_cacheline_rtt", variant, 64, "latency", "us", vals, iters);
}

/* Echo of 'size' bytes between two processes, the data motion of an AM Medium ping-pong whose
 * handlers run in place: A copies its buffer into shared area 1 and raises a flag; B copies
 * area 1 into shared area 2 and raises its flag; A sees it. The floor for am_medium_rtt. */
static void copy_rtt(bu_opts_t *o)
{
    if (!bu_selected(o, "limit_copy_rtt", NULL)) return;
    size_t max = o->max_size < (64u << 10) ? o->max_size : (64u << 10);
    size_t area = (max + 4095) & ~(size_t)4095;
    size_t maplen = 4096 + 2 * area;
    char *mem = mmap(NULL, maplen, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) { perror("mmap"); exit(2); }
    memset(mem, 0, maplen);
    _Atomic uint64_t *ping = (_Atomic uint64_t *)(void *)mem;
    _Atomic uint64_t *pong = (_Atomic uint64_t *)(void *)(mem + 128);
    char *a1 = mem + 4096, *a2 = mem + 4096 + area;
    char *src = bu_alloc(area);
    /* the sweep: 0, then min_size, doubling up to max */
    size_t sizes[64];
    int ns = 0;
    sizes[ns++] = 0;
    for (size_t z = o->min_size; z <= max && ns < 64; z *= 2) sizes[ns++] = z;
    long iters[64];
    for (int k = 0; k < ns; k++) iters[k] = bu_iters(o, 50000, sizes[k], 16.0 * 1024 * 1024, 20);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) { perror("fork"); exit(2); }
    if (pid == 0) { /* B: echoes, the same number of times A pings (warm-up + trials per size) */
        uint64_t seq = 0;
        for (int k = 0; k < ns; k++) {
            long n = (iters[k] / 4 + 1) + (long)o->trials * iters[k];
            for (long i = 0; i < n; i++) {
                seq++;
                while (atomic_load_explicit(ping, memory_order_acquire) != seq) cpu_relax();
                memcpy(a2, a1, sizes[k]);
                atomic_store_explicit(pong, seq, memory_order_release);
            }
        }
        _exit(0);
    }
    uint64_t seq = 0;
    double vals[BU_MAX_TRIALS];
    o->ranks = 2;
    for (int k = 0; k < ns; k++) {
        for (int t = -1; t < o->trials; t++) {
            long n = t < 0 ? iters[k] / 4 + 1 : iters[k];
            double t0 = bu_now();
            for (long i = 0; i < n; i++) {
                seq++;
                memcpy(a1, src, sizes[k]);
                atomic_store_explicit(ping, seq, memory_order_release);
                while (atomic_load_explicit(pong, memory_order_acquire) != seq) cpu_relax();
            }
            if (t >= 0) vals[t] = 1e6 * (bu_now() - t0) / (double)n;
        }
        bu_report_iters(o, 0, "limit_copy_rtt", "echo", sizes[k], "latency", "us", vals, iters[k]);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    munmap(mem, maplen);
    free(src);
}

static void memcpy_bw(bu_opts_t *o)
{
    if (!bu_selected(o, "limit_memcpy_bw", NULL)) return;
    char *src = bu_alloc(o->max_size), *dst = bu_alloc(o->max_size);
    double vals[BU_MAX_TRIALS];
    o->ranks = 1;
    for (size_t size = o->min_size; size <= o->max_size; size *= 2) {
        long iters = bu_iters(o, 20000, size, 64.0 * 1024 * 1024, 4);
        for (int t = -1; t < o->trials; t++) {
            long n = t < 0 ? iters / 4 + 1 : iters;
            double t0 = bu_now();
            for (long k = 0; k < n; k++) {
                memcpy(dst, src, size);
                BU_CLOBBER();
            }
            if (t >= 0) vals[t] = (double)size * (double)n / (bu_now() - t0) / 1e6;
        }
        bu_report_iters(o, 0, "limit_memcpy_bw", NULL, size, "bandwidth", "MB/s", vals, iters);
    }
    free(src);
    free(dst);
}

int main(int argc, char **argv)
{
    bu_opts_t o;
    if (bu_parse_args(&o, argc, argv, "limit", NULL)) return 2;
    if (!getenv("RIVET_BENCH_SYSTEM")) {
        int named = 0;
        for (int i = 1; i < argc; i++) named |= !strcmp(argv[i], "--system");
        if (!named) o.system = "limit";
    }
    cacheline_rtt(&o, 0);
    cacheline_rtt(&o, 1);
    copy_rtt(&o);
    memcpy_bw(&o);
    return 0;
}
