/* SPDX-License-Identifier: BSD-3-Clause */
/* core/error.h: fatal errors, warnings, verbose logging and the non-fatal error-return helper. */
#ifndef RV_ERROR_H
#define RV_ERROR_H

#include "core/config.h"

#define RV_PRINTF(a, b) __attribute__((format(printf, a, b)))

/* Prints "rivet: fatal: <msg> (rank R on HOST)" (and a backtrace with
 * GASNET_BACKTRACE=1), then ends the whole job with exit code 1. */
void rv_fatal(const char *fmt, ...) RV_PRINTF(1, 2) __attribute__((noreturn));

/* Prints "rivet: warning: <msg> (rank R on HOST)". */
void rv_warn(const char *fmt, ...) RV_PRINTF(1, 2);

/* Prints "rivet[R]: <msg>" when RIVET_VERBOSE >= level. */
#define rv_verbose(level, ...) \
    do { if (rv_cfg.VERBOSE >= (level)) rv_verbose_print(__VA_ARGS__); } while (0)
void rv_verbose_print(const char *fmt, ...) RV_PRINTF(1, 2);

/* For non-fatal error returns: prints "rivet: error: <msg> (rank R on HOST)" when
 * verbose errors are on (gex_System_SetVerboseErrors) and returns 'code'. */
int rv_error_return(int code, const char *fmt, ...) RV_PRINTF(2, 3);

extern int rv_verbose_errors;

/* The common checks every entry point makes, with the call's name in the message. */
void rv_check_init_fail(const char *call) __attribute__((noreturn));
#define RV_CHECK_INIT(call) \
    do { if (__builtin_expect(rv_client_g == NULL, 0)) rv_check_init_fail(call); } while (0)

#endif /* RV_ERROR_H */
