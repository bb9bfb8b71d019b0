/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_int.h: helpers shared by the GASNet-Tools implementation (gasnet_tools.h). */
#ifndef RV_TOOLS_INT_H
#define RV_TOOLS_INT_H

#include "gasnet_tools.h"

/* A yes/no variable read at call time: RIVET_<name> first, then its GASNet alias
 * (NULL: none); unset, empty or not recognisably yes/no gives defaultval. */
int rv_tools_env_flag(const char *rivet_name, const char *gasnet_alias, int defaultval);

/* Parses an integer (mem_size_multiplier == 0) or a memory size (!= 0, the unit of a bare
 * number) as gasnett_parse_int documents. Returns 0 and *out, or -1 if str is malformed. */
int rv_tools_parse_int(const char *str, uint64_t mem_size_multiplier, int64_t *out);

#endif /* RV_TOOLS_INT_H */
