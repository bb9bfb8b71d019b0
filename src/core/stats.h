/* SPDX-License-Identifier: BSD-3-Clause */
/* core/stats.h: RIVET_STATS run-time counters: the hooks engines and transports call, the
 * sources that fold a module's own counters in, and the per-rank record written at exit.
 * Off by default; a hook then costs one predictable not-taken branch (core/obs.h). On, each
 * thread adds into its own block of counters (no shared cache line, no locked instruction);
 * the blocks are summed when the record is written. */
#ifndef RV_CORE_STATS_H
#define RV_CORE_STATS_H

#include <stdint.h>
#include "core/obs.h"

typedef enum {
#define RV_STAT(id, name, doc) RV_ST_##id,
#include "core/stats.def"
#undef RV_STAT
    RV_ST_COUNT
} rv_stat_t;

/* Adds n to counter id of the calling thread (stats on only: call through RV_STAT_ADD). */
void rv_stats_add(rv_stat_t id, uint64_t n);
/* Monotonic nanoseconds. */
uint64_t rv_stats_now(void);
/* The timed hooks' clock: the x86 time-stamp counter (a few ns to read, where clock_gettime
 * costs 25-70 ns), else rv_stats_now(). Counters named "*_ns" add ticks; the record converts
 * them to nanoseconds with the ratio of elapsed nanoseconds to elapsed ticks over the run. */
#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rv_stats_ticks(void) { return __builtin_ia32_rdtsc(); }
#else
static inline uint64_t rv_stats_ticks(void) { return rv_stats_now(); }
#endif

#define RV_STAT_ON() RV_OBS_ON(RV_OBS_STATS)
#define RV_STAT_ADD(id, n)                                                                     \
    do {                                                                                       \
        if (RV_STAT_ON()) rv_stats_add((id), (n));                                             \
    } while (0)
#define RV_STAT_INC(id) RV_STAT_ADD(id, 1)
/* Two counters at once (an operation and its bytes): one branch. */
#define RV_STAT_OP(id, bytes_id, n)                                                            \
    do {                                                                                       \
        if (RV_STAT_ON()) {                                                                    \
            rv_stats_add((id), 1);                                                             \
            rv_stats_add((bytes_id), (n));                                                     \
        }                                                                                      \
    } while (0)

/* A module's own counters, folded into the record: fn calls emit(name, value, ctx) for each,
 * name without the prefix; the record names it "<prefix>.<name>" (a name ending in "_max" is
 * merged across ranks by maximum). Register at start-up; fn may run from a fatal-error or
 * signal path, so it only copies numbers (no lock, no allocation). */
typedef void (*rv_stats_emit_t)(const char *name, uint64_t value, void *ctx);
void rv_stats_source(const char *prefix, void (*fn)(rv_stats_emit_t emit, void *ctx));

/* A core counter that a module keeps in its own memory (udp's retransmissions: tp.retransmits):
 * get() is added to counter id when the record is written (it may run from a signal handler:
 * relaxed loads only). */
void rv_stats_extra(rv_stat_t id, uint64_t (*get)(void));

/* The live file: with stats on and records written to files, each rank keeps its counter
 * blocks in a MAP_SHARED mapping of "<its record file>.live" (a shared record file without
 * '%': "<file>.<rank>.live"), so that its counters outlive a SIGKILL; the rank removes it
 * once its record is written. rivetrun (or its agent, on the rank's host) turns a live file
 * left behind into a record with reason "killed" (tools/common/statsmerge.c). Layout: this
 * header; ncounters NUL-terminated names at names_off; nblocks blocks of ncounters uint64_t
 * each, stride bytes apart, at blocks_off; the rank's counters are the sums over the blocks. */
#define RV_STATS_LIVE_MAGIC   "RVSTLIVE"
#define RV_STATS_LIVE_VERSION 1u
#define RV_STATS_LIVE_BLOCKS  64 /* threads whose counters the file holds */
typedef struct rv_stats_live {
    char             magic[8]; /* written last: a file without it was cut short */
    uint32_t         version, rank, size, ncounters;
    uint32_t         stride, nblocks_max, names_off, blocks_off;
    _Atomic uint32_t nblocks;  /* blocks in use (may exceed nblocks_max: read the smaller) */
    uint32_t         pad;
    uint64_t         pid, t0_ns, tick0; /* CLOCK_MONOTONIC ns and rv_stats_ticks() at start */
    char             host[64];
} rv_stats_live_t;

/* Start-up, once the rank is known (api/client.c): reads RIVET_STATS and RIVET_STATS_FILE
 * (GASNET_STATSFILE), sets the RV_OBS_STATS bit of rv_obs_mask when either asks for stats. */
void rv_stats_init(void);
/* Writes this rank's record once (later calls do nothing): at exit ("exit"), on a fatal error
 * ("fatal") or a terminating signal ("signal"). Nothing when stats are off. */
void rv_stats_dump(const char *reason);
/* The same with the signal that ends the rank ("crash", "SIGSEGV": core/exit.c's handler). */
void rv_stats_dump_sig(const char *reason, const char *signame);

#endif /* RV_CORE_STATS_H */
