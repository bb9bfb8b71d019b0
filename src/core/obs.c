/* SPDX-License-Identifier: BSD-3-Clause */
/* core/obs.c: the observability switch word (see obs.h). */
#include "core/obs.h"

unsigned rv_obs_mask;
