/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/common/statsmerge.h: reads RIVET_STATS records (one JSON object a line, per rank) and
 * merges them into a job summary: a table for people, JSON for tools (rivetrun, rivet-info). */
#ifndef RV_STATSMERGE_H
#define RV_STATSMERGE_H

#include <stddef.h>
#include <stdio.h>

typedef struct rv_sm rv_sm_t;

rv_sm_t *rv_sm_new(void);
void rv_sm_free(rv_sm_t *m);
/* Adds every record of file 'path' (a later record of the same rank replaces an earlier one).
 * Returns the number of records read, or -1 with the reason in err. */
int rv_sm_add_file(rv_sm_t *m, const char *path, char *err, size_t n);
/* The record of the rank whose live file (core/stats.h) is at 'path', reason "killed": one
 * JSON line in out. Read it on the rank's host (the clock converts its "_ns" counters).
 * Returns its length, or -1 with the reason in err. */
int rv_sm_live_record(const char *path, char *out, size_t n, char *err, size_t en);
/* If 'live' exists: its record written to 'rec' (appended, or replacing the file) and 'live'
 * removed. Returns 1 if so, 0 without a live file, -1 with the reason in err. */
int rv_sm_live_settle(const char *live, const char *rec, int append, char *err, size_t en);
/* Ranks with a record. */
unsigned rv_sm_ranks(const rv_sm_t *m);
/* The job size the records name (the largest), 0 when none. */
unsigned rv_sm_size(const rv_sm_t *m);
/* The summary table (counters that are not 0 on some rank): total, the smallest and largest
 * per-rank value, and the ranks missing or ended by a fatal error or a signal. */
void rv_sm_table(const rv_sm_t *m, FILE *f);
/* The summary as one JSON object: "counters" (merged: sum, or max for names ending in "_max"),
 * "per_rank" (each counter's values by rank, null for a rank without a record) and "ranks". */
void rv_sm_json(const rv_sm_t *m, FILE *f);

#endif /* RV_STATSMERGE_H */
