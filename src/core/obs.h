/* SPDX-License-Identifier: BSD-3-Clause */
/* core/obs.h: the one word every hot path reads to know whether run-time observability is on
 * (RIVET_STATS counters, RIVET_TRACE event traces). Off by default: a hook costs one
 * predictable, not-taken branch on a word that stays in cache. Set once at start-up, before
 * any traffic; never changed while a job runs. */
#ifndef RV_CORE_OBS_H
#define RV_CORE_OBS_H

enum { RV_OBS_STATS = 1u, RV_OBS_TRACE = 2u };

extern unsigned rv_obs_mask;

#define RV_OBS_ON(bits) __builtin_expect((rv_obs_mask & (bits)) != 0, 0)

#include <stddef.h>

/* A stats or trace file name: 'spec' with every '%' replaced by 'with' (a rank number:
 * GASNet's convention), into out[n]. Returns 0, or -1 when it does not fit. */
int rv_obs_subst(const char *spec, const char *with, char *out, size_t n);
/* The same with the rank number r. */
int rv_obs_rank_subst(const char *spec, unsigned r, char *out, size_t n);

#endif
