/* SPDX-License-Identifier: BSD-3-Clause */
/* bench/bench_util.h: timing, statistics, options and JSON output shared by every benchmark
 * driver (Rivet, the MPI/OpenSHMEM peers and the limits); it knows nothing about GASNet. */
#ifndef BENCH_UTIL_H
#define BENCH_UTIL_H

#include <stddef.h>
#include <stdint.h>

#define BU_MAX_TRIALS 64

/* Options every driver understands (parsed by bu_parse_args). */
typedef struct {
    int         json;        /* --json: one JSON object per line, else a readable table */
    int         smoke;       /* --smoke: tiny sizes and iteration counts */
    int         trials;      /* --trials N: timed repetitions per measurement */
    double      scale;       /* --scale F: multiplies every iteration count */
    size_t      min_size;    /* --min-size B */
    size_t      max_size;    /* --max-size B */
    const char *system;      /* --system NAME (else $RIVET_BENCH_SYSTEM, else the default) */
    const char *config;      /* --config NAME: free-form tag of the library configuration */
    const char *only;        /* --only a,b,c: benchmark names (or benchmark:variant) to run */
    int         ranks;       /* filled in by the driver */
} bu_opts_t;

/* Parses the common options; returns 0, or prints usage and returns -1 on a bad one.
 * 'default_system' is used when neither --system nor $RIVET_BENCH_SYSTEM is given. */
int bu_parse_args(bu_opts_t *o, int argc, char **argv, const char *default_system,
                  const char *usage_extra);

/* 1 when benchmark 'name' (with variant 'variant', may be NULL) was selected by --only. */
int bu_selected(const bu_opts_t *o, const char *name, const char *variant);

/* Monotonic wall clock in seconds. */
double bu_now(void);

/* Iteration count for one trial moving 'size' bytes per op: 'base' ops for small sizes,
 * shrinking so that one trial moves about 'bytes_budget' bytes, never below 'floor'. */
long bu_iters(const bu_opts_t *o, long base, size_t size, double bytes_budget, long floor);

/* One measurement: 'n' trial values in 'unit'; for "us" smaller is better, else larger.
 * 'extra' is either NULL or extra JSON members without braces, e.g. "\"depth\":4". */
void bu_report(const bu_opts_t *o, const char *benchmark, const char *variant, size_t size,
               const char *metric, const char *unit, const double *vals, int n,
               const char *extra);

/* bu_report with 'extra' "\"iters\":<iters>", on rank 0 ('me' == 0) only. */
void bu_report_iters(const bu_opts_t *o, int me, const char *benchmark, const char *variant,
                     size_t size, const char *metric, const char *unit, const double *vals,
                     long iters);

/* One measurement's callbacks: 'run' does 'iters' operations of 'size' bytes and returns the
 * seconds they took; 'sync' is the job-wide barrier. 'ctx' goes to both. */
typedef double (*bu_run_fn)(void *ctx, size_t size, long iters);
typedef void (*bu_sync_fn)(void *ctx);
typedef struct {
    bu_run_fn  run;
    bu_sync_fn sync;
    void      *ctx;
    int        me;    /* this rank: rank 0 runs, the others only join the syncs */
} bu_pair_t;

/* Rank 0 runs p->run once for iters/4+1 (warm-up), then o->trials times, each between two
 * syncs; vals[t] (rank 0 only) is microseconds per op ('lat'), else 'per_op' (bytes for
 * bandwidth, 1 for a rate) times ops per second, in millions. */
void bu_pair_trials(const bu_opts_t *o, const bu_pair_t *p, size_t size, long iters, int lat,
                    double per_op, double *vals);

/* The peers' size sweep (o->min_size doubling to o->max_size) of benchmark bench:variant with
 * bu_pair_trials, reported by rank 0: latency in us ('lat') or bandwidth in MB/s. */
void bu_pair_sweep(const bu_opts_t *o, const bu_pair_t *p, const char *bench,
                   const char *variant, int lat);

/* The peers' four RMA sweeps, each with bu_pair_sweep: put_latency:blocking,
 * get_latency:blocking, put_bw:nbi and get_bw:nbi; p->ctx points to the int 'kind' (0 to 3,
 * in that order) that p->run reads. */
void bu_rma_sweeps(const bu_opts_t *o, bu_pair_t *p);

/* Latency of 'timed' (a barrier) back to back, 'iters' per trial after a warm-up of
 * iters/4+1 'sync's; 'combine' (may be NULL) turns each rank's microseconds per call into
 * the trial's value (e.g. the slowest rank's). Reported by rank 0 as "barrier". */
void bu_barrier_bench(const bu_opts_t *o, int me, bu_sync_fn sync, bu_sync_fn timed, void *ctx,
                      double (*combine)(void *ctx, double us));

/* Page-aligned, pre-touched heap buffer (exits on failure). */
void *bu_alloc(size_t bytes);

/* Keeps the compiler from optimising away a copy whose result is never read. */
#define BU_CLOBBER() __asm__ __volatile__("" ::: "memory")

#endif /* BENCH_UTIL_H */
