/* SPDX-License-Identifier: BSD-3-Clause */
/* core/obs.c: the observability switch word (see obs.h). */
#include "core/obs.h"

#include <stdio.h>
#include <string.h>

unsigned rv_obs_mask;

int rv_obs_subst(const char *spec, const char *with, char *out, size_t n)
{
    size_t o = 0, wl = strlen(with);
    for (const char *p = spec; *p; p++) {
        const char *s = *p == '%' ? with : p;
        size_t l = *p == '%' ? wl : 1;
        if (o + l >= n) return -1;
        memcpy(out + o, s, l);
        o += l;
    }
    out[o] = 0;
    return 0;
}

int rv_obs_rank_subst(const char *spec, unsigned r, char *out, size_t n)
{
    char with[16];
    snprintf(with, sizeof with, "%u", r);
    return rv_obs_subst(spec, with, out, n);
}
