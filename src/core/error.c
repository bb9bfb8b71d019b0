/* SPDX-License-Identifier: BSD-3-Clause */
/* core/error.c: fatal errors, warnings, verbose output, error names and verbose-error control. */
#include "core/core.h"
#include "boot/boot.h"
#include "core/trace.h"

#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int rv_verbose_errors = 1;

static void rv_where(char *buf, size_t n)
{
    if (rv_job.size)
        snprintf(buf, n, "rank %u on %s", rv_job.rank, rv_job.hostname);
    else {
        /* Before init the job layout is unknown, but a rank started by rivetrun knows
         * its rank from the environment (RV_BOOT_ENV_RANK, boot/launcher/proto.h). */
        char host[64] = "?";
        gethostname(host, sizeof host - 1);
        const char *r = getenv("RIVET_BOOT_RANK");
        if (r && r[0] && strspn(r, "0123456789") == strlen(r))
            snprintf(buf, n, "rank %s on %s, pid %d, before gex_Client_Init", r, host, (int)getpid());
        else
            snprintf(buf, n, "pid %d on %s, before gex_Client_Init", (int)getpid(), host);
    }
}

static void rv_vreport(const char *kind, const char *fmt, va_list ap)
{
    char msg[1024], where[128];
    vsnprintf(msg, sizeof msg, fmt, ap);
    rv_where(where, sizeof where);
    fprintf(stderr, "rivet: %s: %s (%s)\n", kind, msg, where);
    fflush(stderr);
}

void rv_fatal(const char *fmt, ...)
{
    static volatile int in_fatal;
    va_list ap;
    va_start(ap, fmt);
    if (!in_fatal) {
        in_fatal = 1;
        rv_vreport("fatal", fmt, ap);
        if (rv_cfg.BACKTRACE) {
            void *frames[64];
            int n = backtrace(frames, 64);
            fprintf(stderr, "rivet: backtrace of rank %u:\n", rv_job.rank);
            fflush(stderr);
            backtrace_symbols_fd(frames, n, STDERR_FILENO);
        }
    }
    va_end(ap);
    fflush(stdout);
    rv_trace_fini();        /* the events up to here, as a valid file */
    rv_stats_dump("fatal");
    rv_boot_fatal_job(1);   /* the launcher reports a fatal error, not a gasnet_exit(1) */
    _exit(1);
}

void rv_warn(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    rv_vreport("warning", fmt, ap);
    va_end(ap);
}

void rv_verbose_print(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "rivet[%u]: %s\n", rv_job.rank, msg);
}

int rv_error_return(int code, const char *fmt, ...)
{
    if (rv_verbose_errors) {
        va_list ap;
        va_start(ap, fmt);
        rv_vreport("error", fmt, ap);
        va_end(ap);
    }
    return code;
}

void rv_check_init_fail(const char *call)
{
    rv_fatal("%s called before gex_Client_Init", call);
}

int gex_System_GetVerboseErrors(void) { return rv_verbose_errors; }

void gex_System_SetVerboseErrors(int enable) { rv_verbose_errors = enable ? 1 : 0; }

static const struct {
    int code;
    const char *name, *desc;
} rv_errors[] = {
    { GASNET_OK, "GASNET_OK", "No error" },
    { GASNET_ERR_NOT_INIT, "GASNET_ERR_NOT_INIT", "GASNet message layer not initialized" },
    { GASNET_ERR_RESOURCE, "GASNET_ERR_RESOURCE", "Problem with requested resource" },
    { GASNET_ERR_BAD_ARG, "GASNET_ERR_BAD_ARG", "Invalid function parameter passed" },
    { GASNET_ERR_NOT_READY, "GASNET_ERR_NOT_READY", "Non-blocking operation not complete" },
    { GASNET_ERR_BARRIER_MISMATCH, "GASNET_ERR_BARRIER_MISMATCH", "Barrier id's mismatched" },
};

const char *gasnet_ErrorName(int errval)
{
    for (size_t i = 0; i < sizeof rv_errors / sizeof rv_errors[0]; i++)
        if (rv_errors[i].code == errval) return rv_errors[i].name;
    return "*unknown*";
}

const char *gasnet_ErrorDesc(int errval)
{
    for (size_t i = 0; i < sizeof rv_errors / sizeof rv_errors[0]; i++)
        if (rv_errors[i].code == errval) return rv_errors[i].desc;
    return "no description available";
}
