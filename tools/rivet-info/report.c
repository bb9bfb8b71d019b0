/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivet-info/report.c: rivet-info's sections about this job: version, layout, limits,
 * the configuration in effect and the atomics implementation a domain would get. */
#include "info.h"
#include "boot/boot.h"
#include "core/core.h"
#include "ratomic/ratomic_int.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

void rv_info_version(FILE *f)
{
    fprintf(f, "Rivet %d.%d.%d, GASNet-EX spec %d.%d (release %d.%d.%d)\n", RIVET_VERSION_MAJOR,
            RIVET_VERSION_MINOR, RIVET_VERSION_PATCH, GEX_SPEC_VERSION_MAJOR, GEX_SPEC_VERSION_MINOR,
            GASNET_RELEASE_VERSION_MAJOR, GASNET_RELEASE_VERSION_MINOR, GASNET_RELEASE_VERSION_PATCH);
    fprintf(f, "transports built:");
    for (const rv_tp_entry_t *e = rv_tp_registry; e->name; e++)
        if (e->desc) fprintf(f, " %s", e->name);
    fprintf(f, "\n");
}

void rv_info_job(FILE *f)
{
    rv_boot_info_t bi;
    rv_boot_init(&bi);   /* already done by gex_Client_Init: returns the same job */
    fprintf(f, "job:\n");
    fprintf(f, "  ranks: %u (bootstrap: %s)\n", rv_job.size, bi.method);
    fprintf(f, "  bootstrap order (first match wins):\n");
    for (const char *l = rv_boot_order; *l;) {
        const char *nl = strchr(l, '\n');
        int n = nl ? (int)(nl - l) : (int)strlen(l);
        fprintf(f, "    %.*s\n", n, l);
        l += n + (nl != NULL);
    }
    fprintf(f, "  hosts: %u, neighbourhoods: %u (RIVET_PSHM=%d)\n", rv_job.host_count,
            rv_job.nbrhd_count, rv_cfg.PSHM);
    fprintf(f, "  rank 0: host %s, %u rank(s) on it, neighbourhood of %u rank(s)%s\n",
            rv_job.hostname, rv_job.host_size, rv_job.nbrhd_size,
            rv_job.oversubscribed ? ", wait loops yield (more ranks than cores)" : "");
}

/* Reports the limits to one peer, if there is one of that kind. */
static void rv_info_peer(FILE *f, gex_TM_t tm, const char *kind, gex_Rank_t peer)
{
    if (peer == GEX_RANK_INVALID) {
        fprintf(f, "  to %-45s (none in this job)\n", kind);
        return;
    }
    char k[64];
    snprintf(k, sizeof k, "%s (rank %u):", kind, (unsigned)peer);
    fprintf(f, "  to %-45s Medium %zu / %zu, Long %zu / %zu (request / reply)\n", k,
            gex_AM_MaxRequestMedium(tm, peer, GEX_EVENT_NOW, 0, 0),
            gex_AM_MaxReplyMedium(tm, peer, GEX_EVENT_NOW, 0, 0),
            gex_AM_MaxRequestLong(tm, peer, GEX_EVENT_NOW, 0, 0),
            gex_AM_MaxReplyLong(tm, peer, GEX_EVENT_NOW, 0, 0));
}

void rv_info_limits(FILE *f, gex_TM_t tm)
{
    gex_Rank_t nbr = GEX_RANK_INVALID, far = GEX_RANK_INVALID;
    for (gex_Rank_t r = 1; r < rv_job.size; r++) {
        if (rv_job_in_nbrhd(r) && nbr == GEX_RANK_INVALID) nbr = r;
        if (!rv_job_in_nbrhd(r) && far == GEX_RANK_INVALID) far = r;
    }
    fprintf(f, "limits (bytes):\n");
    fprintf(f, "  AM arguments: %u\n", gex_AM_MaxArgs());
    fprintf(f, "  AM Medium LUB: request %zu, reply %zu\n", gex_AM_LUBRequestMedium(),
            gex_AM_LUBReplyMedium());
    fprintf(f, "  AM Long LUB: request %zu, reply %zu\n", gex_AM_LUBRequestLong(),
            gex_AM_LUBReplyLong());
    rv_info_peer(f, tm, "self", 0);
    rv_info_peer(f, tm, "a neighbourhood peer", nbr);
    rv_info_peer(f, tm, "a peer in another neighbourhood", far);
    fprintf(f, "  segment max: local %llu, global %llu\n",
            (unsigned long long)gasnet_getMaxLocalSegmentSize(),
            (unsigned long long)gasnet_getMaxGlobalSegmentSize());
    fprintf(f, "  transport %s: message %zu, segment %llu, RDMA %zu%s, immediate data %u bits\n",
            rv_tp.desc->name, rv_tp.lim.max_msg, (unsigned long long)rv_tp.lim.max_seg_local,
            rv_tp.lim.max_rdma, rv_tp.lim.max_rdma ? "" : " (none)", rv_tp.lim.imm_bits);
}

/* ---- configuration in effect --------------------------------------------------------------- */

static const char *rv_info_source(const char *name, const char *alias, char *buf, size_t n)
{
    snprintf(buf, n, "RIVET_%s", name);
    if (getenv(buf)) return buf;
    if (alias && getenv(alias)) return alias;
    if (!strcmp(name, "PSHM") && getenv("GASNET_PSHM_NODES")) return "GASNET_PSHM_NODES";
    return "default";
}

static void rv_info_row(FILE *f, const char *name, const char *alias, const char *value)
{
    char buf[64];
    fprintf(f, "  RIVET_%-16s = %-20s (%s)\n", name, value, rv_info_source(name, alias, buf, sizeof buf));
}

void rv_info_config(FILE *f)
{
    char v[64];
    fprintf(f, "configuration in effect (rivetrun --help-env explains each):\n");
#define RV_INFO_BOOL(x) snprintf(v, sizeof v, "%d", (x))
#define RV_INFO_UINT(x) snprintf(v, sizeof v, "%llu", (unsigned long long)(x))
#define RV_INFO_SIZE(x) snprintf(v, sizeof v, "%llu", (unsigned long long)(x))
#define RV_INFO_STR(x)  snprintf(v, sizeof v, "\"%s\"", (x))
#define RV_ENV(name, alias, type, def, doc)                                                      \
    RV_INFO_##type(rv_cfg.name);                                                                \
    rv_info_row(f, #name, alias, v);
#include "core/config.def"
#undef RV_ENV
}

/* ---- atomics ------------------------------------------------------------------------------- */

static const struct { const char *name; gex_OP_t op; } rv_info_ops[] = {
    {"ADD", GEX_OP_ADD},   {"FADD", GEX_OP_FADD}, {"SUB", GEX_OP_SUB},     {"FSUB", GEX_OP_FSUB},
    {"MULT", GEX_OP_MULT}, {"FMULT", GEX_OP_FMULT}, {"MIN", GEX_OP_MIN},   {"FMIN", GEX_OP_FMIN},
    {"MAX", GEX_OP_MAX},   {"FMAX", GEX_OP_FMAX}, {"INC", GEX_OP_INC},     {"FINC", GEX_OP_FINC},
    {"DEC", GEX_OP_DEC},   {"FDEC", GEX_OP_FDEC}, {"AND", GEX_OP_AND},     {"FAND", GEX_OP_FAND},
    {"OR", GEX_OP_OR},     {"FOR", GEX_OP_FOR},   {"XOR", GEX_OP_XOR},     {"FXOR", GEX_OP_FXOR},
    {"SET", GEX_OP_SET},   {"SWAP", GEX_OP_SWAP}, {"CAS", GEX_OP_CAS},     {"FCAS", GEX_OP_FCAS},
    {"GET", GEX_OP_GET},
};
static const struct { const char *name; gex_DT_t dt; } rv_info_dts[] = {
    {"I32", GEX_DT_I32}, {"U32", GEX_DT_U32}, {"I64", GEX_DT_I64},
    {"U64", GEX_DT_U64}, {"FLT", GEX_DT_FLT}, {"DBL", GEX_DT_DBL},
};
static const struct { const char *name; gex_Flags_t flag; } rv_info_flags[] = {
    {"FAVOR_MY_RANK", GEX_FLAG_AD_FAVOR_MY_RANK},
    {"FAVOR_MY_NBRHD", GEX_FLAG_AD_FAVOR_MY_NBRHD},
    {"FAVOR_REMOTE", GEX_FLAG_AD_FAVOR_REMOTE},
};
#define RV_N(a) (sizeof(a) / sizeof((a)[0]))

/* Strips an optional prefix ("GEX_OP_", "GEX_DT_", "GEX_FLAG_AD_"), case-insensitively. */
static const char *rv_info_unprefix(const char *w, const char *prefix)
{
    size_t l = strlen(prefix);
    return strncasecmp(w, prefix, l) == 0 ? w + l : w;
}

int rv_info_amo_parse(const char *spec, rv_info_amo_t *out)
{
    char buf[512];
    memset(out, 0, sizeof *out);
    out->spec = spec;
    snprintf(buf, sizeof buf, "%s", spec);
    char *ops = strchr(buf, ':');
    if (!ops) goto usage;
    *ops++ = 0;
    char *flags = strchr(ops, ':');
    if (flags) *flags++ = 0;
    const char *dt = rv_info_unprefix(buf, "GEX_DT_");
    for (size_t i = 0; i < RV_N(rv_info_dts) && !out->dt; i++)
        if (!strcasecmp(dt, rv_info_dts[i].name)) out->dt = rv_info_dts[i].dt;
    if (!out->dt) {
        fprintf(stderr, "rivet-info: --atomics %s: '%s' is not a type (I32 U32 I64 U64 FLT DBL)\n",
                spec, buf);
        return -1;
    }
    gex_OP_t valid = rv_ratomic_valid_ops(out->dt);
    for (char *save = NULL, *w = strtok_r(ops, ",|+", &save); w; w = strtok_r(NULL, ",|+", &save)) {
        const char *o = rv_info_unprefix(w, "GEX_OP_");
        gex_OP_t op = 0;
        if (!strcasecmp(o, "ALL")) op = valid;
        for (size_t i = 0; i < RV_N(rv_info_ops) && !op; i++)
            if (!strcasecmp(o, rv_info_ops[i].name)) op = rv_info_ops[i].op;
        if (!op) {
            fprintf(stderr, "rivet-info: --atomics %s: '%s' is not an atomic op (ADD FADD ... "
                    "CAS FCAS GET, or ALL)\n", spec, w);
            return -1;
        }
        if (op & ~valid) {
            fprintf(stderr, "rivet-info: --atomics %s: %s is not valid for %s (bitwise ops are "
                    "integer-only)\n", spec, w, rv_ratomic_dt_name(out->dt));
            return -1;
        }
        out->ops |= op;
    }
    if (!out->ops) goto usage;
    for (char *save = NULL, *w = flags ? strtok_r(flags, ",|+", &save) : NULL; w;
         w = strtok_r(NULL, ",|+", &save)) {
        const char *fl = rv_info_unprefix(w, "GEX_FLAG_AD_");
        gex_Flags_t x = 0;
        for (size_t i = 0; i < RV_N(rv_info_flags) && !x; i++)
            if (!strcasecmp(fl, rv_info_flags[i].name)) x = rv_info_flags[i].flag;
        if (!x) {
            fprintf(stderr, "rivet-info: --atomics %s: '%s' is not a domain flag (FAVOR_MY_RANK, "
                    "FAVOR_MY_NBRHD, FAVOR_REMOTE)\n", spec, w);
            return -1;
        }
        out->flags |= x;
    }
    gex_Flags_t favor = out->flags;
    if (favor & (favor - 1)) {
        fprintf(stderr, "rivet-info: --atomics %s: the FAVOR_* flags exclude each other\n", spec);
        return -1;
    }
    return 0;
usage:
    fprintf(stderr, "rivet-info: --atomics %s: expected TYPE:OP[,OP...][:FLAG], e.g. "
            "U64:FADD,CAS or DBL:ADD:FAVOR_REMOTE\n", spec);
    return -1;
}

void rv_info_atomics(FILE *f, gex_TM_t tm, const rv_info_amo_t *amo, int n)
{
    fprintf(f, "atomics (what gex_AD_Create over the whole job would use; RIVET_RATOMIC=%s):\n",
            rv_cfg.RATOMIC);
    for (int i = 0; i < n; i++) {
        char ops[512] = "";
        for (size_t k = 0; k < RV_N(rv_info_ops); k++)
            if (amo[i].ops & rv_info_ops[k].op) {
                if (ops[0]) strncat(ops, ",", sizeof ops - strlen(ops) - 1);
                strncat(ops, rv_info_ops[k].name, sizeof ops - strlen(ops) - 1);
            }
        const char *impl = rv_ratomic_query(tm, amo[i].dt, amo[i].ops, amo[i].flags);
        fprintf(f, "  %s {%s} flags 0x%x: %s\n", rv_ratomic_dt_name(amo[i].dt), ops,
                (unsigned)amo[i].flags, impl ? impl : "(not a valid domain)");
    }
}
