/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/transport.c: the registry of transports (registry.def, with CMake's verdict on
 * which are built) and the one rule that picks a job's transport (gex_Client_Init, rivet-info). */
#include "transport/transport.h"
#include "core/config.h"
#include "core/error.h"
#include "rv_tp_built.h" /* RV_TP_BUILT_<name>: 1 or 0, written by cmake/transports.cmake */

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* RV_TP_PICK(flag, yes, no): yes when flag expands to 1, no when it expands to 0. */
#define RV_TP_PICK_1(yes, no) yes
#define RV_TP_PICK_0(yes, no) no
#define RV_TP_PICK_(flag, yes, no) RV_TP_PICK_##flag(yes, no)
#define RV_TP_PICK(flag, yes, no) RV_TP_PICK_(flag, yes, no)

#define RV_TP(name, option, needs, prio, conduit, scope, note) \
    RV_TP_PICK(RV_TP_BUILT_##name, extern const rv_tp_desc_t rv_tp_##name##_desc;, )
#include "transport/registry.def"
#undef RV_TP

const rv_tp_entry_t rv_tp_registry[] = {
#define RV_TP(name, option, needs, prio, conduit, scope, note) \
    { #name, prio, #option, #needs, note, RV_TP_PICK(RV_TP_BUILT_##name, &rv_tp_##name##_desc, NULL) },
#include "transport/registry.def"
#undef RV_TP
    { NULL, 0, NULL, NULL, NULL, NULL },
};

const rv_tp_entry_t *rv_tp_find(const char *name)
{
    for (const rv_tp_entry_t *e = rv_tp_registry; e->name; e++)
        if (e->desc && !strcmp(e->name, name)) return e;
    return NULL;
}

/* Appends to buf[n] (always terminated). */
static void rv_tp_cat(char *buf, size_t n, const char *fmt, ...) RV_PRINTF(3, 4);
static void rv_tp_cat(char *buf, size_t n, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 1 >= n) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, n - len, fmt, ap);
    va_end(ap);
}

static int rv_tp_usable(const rv_tp_entry_t *e)
{
    return e->desc && e->desc->abi == RV_TP_ABI;
}

/* RIVET_TRANSPORT=want: that one or nothing. */
static const rv_tp_entry_t *rv_tp_select_named(const rv_job_t *job, const char *want, char *why,
                                               size_t n)
{
    const rv_tp_entry_t *e = rv_tp_registry;
    while (e->name && strcmp(e->name, want)) e++;
    if (!e->name || !e->desc) {
        snprintf(why, n, "RIVET_TRANSPORT=%s is not a transport built into this library", want);
        if (e->name && strcmp(e->option, "-") && strcmp(e->needs, "-"))
            rv_tp_cat(why, n, " (it is built with the CMake option %s=ON when pkg-config finds %s)",
                      e->option, e->needs);
        else if (e->name && strcmp(e->option, "-"))
            rv_tp_cat(why, n, " (it is built with the CMake option %s=ON)", e->option);
        return NULL;
    }
    if (!rv_tp_usable(e)) {
        snprintf(why, n, "RIVET_TRANSPORT=%s: its descriptor has transport ABI %u, this library %u",
                 want, e->desc->abi, (unsigned)RV_TP_ABI);
        return NULL;
    }
    if (e->desc->probe(job) != 0) {
        snprintf(why, n, "RIVET_TRANSPORT=%s cannot serve this job (%u ranks in %u neighbourhoods; "
                 "RIVET_VERBOSE=1 says why)", want, job->size, job->nbrhd_count);
        return NULL;
    }
    snprintf(why, n, "RIVET_TRANSPORT=%s asks for it and it accepts this job", want);
    return e;
}

const rv_tp_entry_t *rv_tp_select(const rv_job_t *job, char *why, size_t n)
{
    const char *want = rv_cfg.TRANSPORT;
    if (want && want[0]) return rv_tp_select_named(job, want, why, n);

    /* Highest priority first (registry order among equals); the first that accepts wins. */
    enum { MAXTP = 64 };
    unsigned char tried[MAXTP] = {0};
    char declined[256] = "";
    for (;;) {
        const rv_tp_entry_t *best = NULL;
        int bi = -1, i = 0;
        for (const rv_tp_entry_t *e = rv_tp_registry; e->name && i < MAXTP; e++, i++)
            if (rv_tp_usable(e) && !tried[i] && (!best || e->priority > best->priority)) {
                best = e;
                bi = i;
            }
        if (!best) break;
        tried[bi] = 1;
        if (best->desc->probe(job) == 0) {
            snprintf(why, n, "RIVET_TRANSPORT is empty: %s is the highest-priority transport that "
                     "accepts this job (%u rank(s) in %u neighbourhood(s)%s)", best->name,
                     job->size, job->nbrhd_count, rv_cfg.PSHM ? "" : ", RIVET_PSHM=0");
            if (declined[0]) rv_tp_cat(why, n, "; declined: %s", declined);
            return best;
        }
        rv_tp_cat(declined, sizeof declined, "%s%s (priority %d)", declined[0] ? ", " : "",
                  best->name, best->priority);
    }
    char built[128] = "";
    for (const rv_tp_entry_t *e = rv_tp_registry; e->name; e++)
        if (e->desc) rv_tp_cat(built, sizeof built, "%s%s", built[0] ? " " : "", e->name);
    snprintf(why, n, "no transport built into this library can serve this job (%u ranks in %u "
             "neighbourhoods%s); built: %s (RIVET_VERBOSE=1 says why each declined)", job->size,
             job->nbrhd_count, rv_cfg.PSHM ? "" : ", RIVET_PSHM=0", built);
    return NULL;
}
