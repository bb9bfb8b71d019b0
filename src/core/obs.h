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

#endif
