/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/harness/rv_check.h: CHECK for test programs that do not use rv_test.h's job set-up
 * (tools-only programs, single-purpose GASNet programs): a failed check prints
 * "FAIL file:line: check 'cond' failed: <message>" and ends the process through
 * RV_CHECK_EXIT(1): exit by default; a GASNet program defines it as gasnet_exit first. */
#ifndef RV_CHECK_H
#define RV_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#ifndef RV_CHECK_EXIT
#define RV_CHECK_EXIT exit
#endif

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "FAIL %s:%d: check '%s' failed: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fprintf(stderr, "\n");                                                         \
            RV_CHECK_EXIT(1);                                                              \
        }                                                                                  \
    } while (0)

#endif
