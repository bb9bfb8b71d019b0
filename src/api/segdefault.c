/* SPDX-License-Identifier: BSD-3-Clause */
/* api/segdefault.c: the client-overridable defaults of the largest segment (GASNet's
 * gasnet_max_segsize_str and deprecated gasnet_max_segsize). A client that defines either
 * variable replaces these weak definitions; api/segment.c reads them from another file, so
 * the read always sees the client's definition. */
#include <gasnetex.h>

__attribute__((weak)) const char *gasnet_max_segsize_str;
__attribute__((weak)) uint64_t gasnet_max_segsize;
