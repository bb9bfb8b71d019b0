/* SPDX-License-Identifier: BSD-3-Clause */
/* core/config.h: the parsed environment (rv_cfg), loaded once at start-up. */
#ifndef RV_CONFIG_H
#define RV_CONFIG_H

#include <stdint.h>
#include <stdio.h>

#define RV_CFGTYPE_BOOL int
#define RV_CFGTYPE_UINT uint64_t
#define RV_CFGTYPE_SIZE uint64_t
#define RV_CFGTYPE_STR  const char *

typedef struct rv_config {
#define RV_ENV(name, alias, type, def, doc) RV_CFGTYPE_##type name;
#include "core/config.def"
#undef RV_ENV
} rv_config_t;

extern rv_config_t rv_cfg;

/* Reads every variable of config.def (RIVET_<NAME>, else its GASNet alias, else
 * the default). A malformed value is a fatal error naming the variable. */
void rv_config_load(void);

/* Prints the table: plain text, or a Markdown table when markdown != 0. */
void rv_config_print(FILE *f, int markdown);

/* Parses "123", "4K", "2M", "1G", "1T" (powers of 1024). Returns 0 or -1. */
int rv_config_parse_size(const char *s, uint64_t *out);

#endif /* RV_CONFIG_H */
