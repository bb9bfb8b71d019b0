/* SPDX-License-Identifier: BSD-3-Clause */
/* core/trace.h: RIVET_TRACE event recording (Chrome/Perfetto trace event JSON, one file per
 * rank; docs/observability.md). Every hook sits behind RV_OBS_ON(RV_OBS_TRACE) (core/obs.h):
 * off, it costs one not-taken branch. On, an event is one clock read and one 48-byte record
 * appended to this thread's preallocated buffer; the JSON is written when a buffer fills and
 * at exit, never per event. */
#ifndef RV_CORE_TRACE_H
#define RV_CORE_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include "core/obs.h"

/* The events: (ID, category letter, name). The letters are GASNet's GASNET_TRACEMASK
 * letters where GASNet has one (G gets, P puts, R remote atomics, W collectives, B barriers,
 * A AMs, I information), plus V (VIS) and C (the library's own AMs). */
#define RV_TRACE_EVENTS(X)                                            \
    X(AM_SEND,      'A', "AM send")                                   \
    X(AM_HANDLER,   'A', "AM handler")                                \
    X(AMI_SEND,     'C', "internal AM send")                          \
    X(AMI_HANDLER,  'C', "internal AM handler")                       \
    X(PUT,          'P', "Put")                                       \
    X(GET,          'G', "Get")                                       \
    X(AMO,          'R', "atomic")                                    \
    X(VIS_PUT,      'V', "VIS Put")                                   \
    X(VIS_GET,      'V', "VIS Get")                                   \
    X(COLL,         'W', "collective")                                \
    X(BARRIER,      'B', "barrier")                                   \
    X(PHASE,        'I', "phase")                                     \
    X(NOTE,         'I', "note")

enum {
#define RV_TRACE_ID_(id, cat, name) RV_TR_##id,
    RV_TRACE_EVENTS(RV_TRACE_ID_)
#undef RV_TRACE_ID_
    RV_TR_COUNT
};

/* Every letter GASNET_TRACEMASK / RIVET_TRACE_MASK accepts: those above, and GASNet's others
 * (S L X O D N H U), which record nothing here. */
#define RV_TRACE_LETTERS "GPRVWBACISLXODNHU"

/* "peer" of an event with none */
#define RV_TR_NOPEER 0xFFFFFFFFu

/* ---- hooks (call only under RV_OBS_ON(RV_OBS_TRACE)) ---- */

/* The start of an event of category id: the clock (ns), or 0 when the category is filtered
 * out or recording stopped (then rv_trace_end does nothing). */
uint64_t rv_trace_begin(unsigned id);
/* A complete event ("X") from t0 (rv_trace_begin) to now. label: a string that lives until
 * exit (the call's name, a registered handler's name) or NULL for the id's name; peer: the
 * other rank (jobrank) or RV_TR_NOPEER; bytes: payload size; arg: the AM handler index, the
 * atomic opcode, ... (printed as "arg" unless ~0u). */
void rv_trace_end(unsigned id, uint64_t t0, const char *label, uint32_t peer, uint64_t bytes,
                  uint32_t arg);
/* An asynchronous span (a nonblocking collective): begin at initiation, end at completion,
 * possibly on another thread; key tells concurrent spans apart. */
void rv_trace_async(unsigned id, int begin, const char *label, uint64_t key, uint64_t bytes,
                    uint32_t arg);

/* ---- life cycle ---- */

/* The clock traces use (CLOCK_REALTIME, ns): ranks on one host share it, hosts agree as well
 * as their clocks are synchronised. */
uint64_t rv_trace_clock(void);
/* After the job layout is known (gex_Client_Init): opens this rank's file and sets
 * RV_OBS_TRACE when RIVET_TRACE (GASNET_TRACEFILE) is set; t_start is when gex_Client_Init
 * began, t_boot when the bootstrap finished (recorded as phases). Fatal error on a file that
 * cannot be created. */
void rv_trace_init(uint64_t t_start, uint64_t t_boot);
/* A start-up or exit phase from t0 to now (category I). */
void rv_trace_phase(const char *label, uint64_t t0);
/* gasnet_exit was called: the exit phase starts now. */
void rv_trace_exit_begin(void);
/* Writes every buffered event and closes the file (exit, fatal error); idempotent. */
void rv_trace_fini(void);
/* The same from the handler of a signal that ends the rank (SIGTERM from the launcher, ...):
 * skipped if this thread was interrupted inside the trace's own writing; never allocates and
 * leaves the file open (flushed). */
void rv_trace_fini_signal(void);

/* The file rank 'rank' writes for RIVET_TRACE=spec: each '%' in spec replaced by the rank, else
 * NAME.json -> NAME.<rank>.json, else spec.<rank>. Returns 0, or -1 if it does not fit. */
int rv_trace_rank_path(const char *spec, unsigned rank, char *out, size_t n);
/* The merged job file for spec: spec itself, or with each '%' replaced by "all". */
int rv_trace_job_path(const char *spec, char *out, size_t n);
/* Checks a RIVET_TRACE_MASK value: 0, or -1 with the offending letter in *bad. */
int rv_trace_mask_parse(const char *s, uint32_t *mask, char *bad);

#endif /* RV_CORE_TRACE_H */
