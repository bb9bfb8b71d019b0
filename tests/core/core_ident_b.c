/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_ident_b.c: a second object of core_ident that includes gasnetex.h. */
#include <gasnetex.h>

int core_ident_b(void) { return GASNET_PSHM; }
