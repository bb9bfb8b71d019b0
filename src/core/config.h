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
 * the default) and checks it against its rule. A malformed or out-of-range value is a fatal
 * error naming the variable, the value and what is allowed. */
void rv_config_load(void);

/* The same without dying: 0, or -1 with the message in err (rivetrun checks before it starts
 * anything). */
int rv_config_try_load(char *err, size_t n);

/* Prints the settings that lack a fitting rule in config.def (and rules without a setting) to
 * f; returns how many. */
int rv_config_unchecked(FILE *f);

/* Prints the table: plain text, or a Markdown table when markdown != 0. */
void rv_config_print(FILE *f, int markdown);

/* Parses "123", "4K", "2M", "1.5G", "1T", "64KB" (powers of 1024). Returns 0 or -1. */
int rv_config_parse_size(const char *s, uint64_t *out);

/* RIVET_LAUNCH_PORTS: "" (lo = hi = 0), "N" or "LOW-HIGH" within 1..65535. Returns 0 or -1. */
int rv_config_parse_ports(const char *v, unsigned *lo, unsigned *hi);

/* GASNET_MAX_SEGSIZE in GASNet's syntax: value is a fraction of physical memory (fraction)
 * or bytes; per_host: /H (shared by the host's ranks), else per process. */
typedef struct {
    int    fraction, per_host;
    double value;
} rv_segsize_spec_t;
int rv_config_parse_segsize(const char *s, rv_segsize_spec_t *out, char *why, size_t n);

/* Bytes per process that GASNET_MAX_SEGSIZE-style value s gives with host_ranks ranks on this
 * host (0: not known yet, taken as 1). Returns 0, or -1 with a message naming var and s in err (also when under one page). */
int rv_config_segsize_bytes(const char *var, const char *s, uint32_t host_ranks, uint64_t *out,
                            char *err, size_t n);

#endif /* RV_CONFIG_H */
