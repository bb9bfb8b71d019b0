/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/tracemerge.h: merges the ranks' RIVET_TRACE files into one job trace (rivetrun
 * after a job, rivet-info --merge-trace on demand). */
#ifndef RV_TRACEMERGE_H
#define RV_TRACEMERGE_H

/* Merges the rank files of RIVET_TRACE=spec (ranks 0..np-1; np 0: as many as exist from rank
 * 0) into the job trace; remove_parts: delete the rank files after; who names the tool in
 * messages. Returns 0, or -1 after saying what went wrong. */
int rv_trace_merge(const char *spec, unsigned np, int remove_parts, const char *who);

#endif
