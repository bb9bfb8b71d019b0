/* SPDX-License-Identifier: BSD-3-Clause */
/* core/config.c: loads and prints the environment table of config.def. */
#include "core/config.h"
#include "core/error.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

rv_config_t rv_cfg;

typedef struct {
    const char *name, *alias, *type, *def, *doc;
} rv_env_row_t;

static const rv_env_row_t rv_env_rows[] = {
#define RV_ENV(name, alias, type, def, doc) { #name, alias, #type, def, doc },
#include "core/config.def"
#undef RV_ENV
};

int rv_config_parse_size(const char *s, uint64_t *out)
{
    char *end;
    if (!s || !isdigit((unsigned char)*s)) return -1;
    unsigned long long v = strtoull(s, &end, 10);
    uint64_t mult = 1;
    switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1ull << 10; end++; break;
    case 'M': mult = 1ull << 20; end++; break;
    case 'G': mult = 1ull << 30; end++; break;
    case 'T': mult = 1ull << 40; end++; break;
    default: break;
    }
    if (*end == 'B' || *end == 'b') end++;
    if (*end != '\0') return -1;
    *out = (uint64_t)v * mult;
    return 0;
}

static const char *rv_env_lookup(const char *name, const char *alias, char *buf, size_t n)
{
    snprintf(buf, n, "RIVET_%s", name);
    const char *v = getenv(buf);
    if (!v && alias && (v = getenv(alias)) != NULL) snprintf(buf, n, "%s", alias); /* for errors */
    return v;
}

static int rv_parse_bool(const char *v, int *out)
{
    if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off")) {
        *out = 0;
        return 0;
    }
    return -1;
}

#define RV_LOAD_BOOL(field, v, var) \
    if (rv_parse_bool(v, &rv_cfg.field)) rv_fatal("environment: %s=%s is not a boolean (0/1)", var, v)
#define RV_LOAD_UINT(field, v, var) \
    do { char *e_; rv_cfg.field = strtoull(v, &e_, 10); \
         if (*v == '\0' || *e_ != '\0') rv_fatal("environment: %s=%s is not an integer", var, v); } while (0)
#define RV_LOAD_SIZE(field, v, var) \
    if (rv_config_parse_size(v, &rv_cfg.field)) rv_fatal("environment: %s=%s is not a size (e.g. 64K, 2M)", var, v)
#define RV_LOAD_STR(field, v, var) rv_cfg.field = (v)

void rv_config_load(void)
{
    char var[64];
    const char *v;
#define RV_ENV(name, alias, type, def, doc)                                   \
    v = rv_env_lookup(#name, alias, var, sizeof var);                         \
    if (!v) { v = def; snprintf(var, sizeof var, "default of RIVET_%s", #name); } \
    RV_LOAD_##type(name, v, var);
#include "core/config.def"
#undef RV_ENV
    /* GASNET_PSHM_NODES=1 (GASNet's smp spelling) turns the bypass off. */
    const char *pn = getenv("GASNET_PSHM_NODES");
    if (!getenv("RIVET_PSHM") && pn && !strcmp(pn, "1")) rv_cfg.PSHM = 0;
}

void rv_config_print(FILE *f, int markdown)
{
    size_t n = sizeof rv_env_rows / sizeof rv_env_rows[0];
    if (markdown) {
        fprintf(f, "| Variable | GASNet alias | Type | Default | Meaning |\n");
        fprintf(f, "|---|---|---|---|---|\n");
    }
    for (size_t i = 0; i < n; i++) {
        const rv_env_row_t *r = &rv_env_rows[i];
        if (markdown)
            /* an empty default would render as a stray `` in Markdown */
            fprintf(f, "| `RIVET_%s` | %s%s%s | %s | %s%s%s | %s |\n", r->name,
                    r->alias ? "`" : "", r->alias ? r->alias : "", r->alias ? "`" : "",
                    r->type, *r->def ? "`" : "", *r->def ? r->def : "(empty)", *r->def ? "`" : "",
                    r->doc);
        else
            fprintf(f, "RIVET_%-16s %-5s default %-8s %s%s%s\n", r->name, r->type, r->def, r->doc,
                    r->alias ? "; alias " : "", r->alias ? r->alias : "");
    }
}
