/* SPDX-License-Identifier: BSD-3-Clause */
/* core/config.c: loads, checks and prints the environment table of config.def (its rows and
 * the rules that bound every value), and parses GASNET_MAX_SEGSIZE. */
#include "core/config.h"
#include "core/error.h"
#include "core/trace.h"
#include "gasnetex.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>   /* isfinite: a macro, no libm */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

rv_config_t rv_cfg;

typedef struct {
    const char *name, *alias, *type, *def, *doc;
} rv_env_row_t;

static const rv_env_row_t rv_env_rows[] = {
#define RV_ENV(name, alias, type, def, doc) { #name, alias, #type, def, doc },
#include "core/config.def"
#undef RV_ENV
};
#define RV_ENV_NROWS (sizeof rv_env_rows / sizeof rv_env_rows[0])

enum { RV_RULE_RANGE = 1, RV_RULE_CHOICES, RV_RULE_TEXT, RV_RULE_CHECK };
typedef struct {
    const char *name;
    int         kind;
    uint64_t    lo, hi;     /* RANGE; TEXT: hi is the longest length */
    const char *text;       /* CHOICES: "a|b"; CHECK: what is allowed */
} rv_env_rule_t;

static const rv_env_rule_t rv_env_rules[] = {
#define RV_ENV(name, alias, type, def, doc)
#define RV_ENV_RANGE(name, lo, hi)   { #name, RV_RULE_RANGE, (lo), (hi), NULL },
#define RV_ENV_CHOICES(name, words)  { #name, RV_RULE_CHOICES, 0, 0, words },
#define RV_ENV_TEXT(name, maxlen)    { #name, RV_RULE_TEXT, 0, (maxlen), NULL },
#define RV_ENV_CHECK(name, what)     { #name, RV_RULE_CHECK, 0, 0, what },
#include "core/config.def"
#undef RV_ENV
#undef RV_ENV_RANGE
#undef RV_ENV_CHOICES
#undef RV_ENV_TEXT
#undef RV_ENV_CHECK
};

static const rv_env_rule_t *rv_env_rule(const char *name)
{
    for (size_t i = 0; i < sizeof rv_env_rules / sizeof rv_env_rules[0]; i++)
        if (!strcmp(rv_env_rules[i].name, name)) return &rv_env_rules[i];
    return NULL;
}

/* ---- value parsers ------------------------------------------------------------------- */

static const char *rv_skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* A unit letter (K, M, G, T, B; any case) with an optional B after K/M/G/T, then only blanks.
 * Returns its multiplier, 0 if s is not that. */
static uint64_t rv_unit(const char *s)
{
    uint64_t m;
    switch (toupper((unsigned char)*s)) {
    case 'K': m = 1ull << 10; break;
    case 'M': m = 1ull << 20; break;
    case 'G': m = 1ull << 30; break;
    case 'T': m = 1ull << 40; break;
    case 'B': m = 1; break;
    default: return 0;
    }
    if (m > 1 && toupper((unsigned char)s[1]) == 'B') s++;
    return *rv_skip_space(s + 1) ? 0 : m;
}

/* "123", "4K", "2M", "1.5G", "1T", "64KB": decimal digits with an optional fraction and unit. */
int rv_config_parse_size(const char *s, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s)) return -1;
    const char *p = s;
    uint64_t whole = 0;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (UINT64_MAX - 9) / 10) return -1;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    double frac = 0, scale = 0.1;
    if (*p == '.') {
        if (!isdigit((unsigned char)p[1])) return -1;
        for (p++; isdigit((unsigned char)*p); p++, scale /= 10) frac += (*p - '0') * scale;
    }
    uint64_t mult = 1;
    if (*p) {
        if (!(mult = rv_unit(p))) return -1;
    } else if (frac > 0) {
        return -1;   /* a fraction of a byte */
    }
    uint64_t v;
    if (__builtin_mul_overflow(whole, mult, &v)) return -1;
    double extra = frac * (double)mult;
    if (extra >= 18446744073709551616.0 || __builtin_add_overflow(v, (uint64_t)extra, &v)) return -1;
    *out = v;
    return 0;
}

static int rv_parse_uint(const char *s, uint64_t *out)
{
    if (!isdigit((unsigned char)*s)) return -1;   /* no sign, no blanks */
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end) return -1;
    *out = v;
    return 0;
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

/* ---- GASNET_MAX_SEGSIZE -------------------------------------------------------------- */

static int rv_why(char *why, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int rv_why(char *why, size_t n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, n, fmt, ap);
    va_end(ap);
    return -1;
}

/* GASNet's syntax (README, GASNET_MAX_SEGSIZE): VALUE[[/]P|[/]H]. VALUE is a number (a ratio
 * A/B too): strictly between 0 and 1 a fraction of physical memory, else bytes; or a number
 * with a unit (128.0MB, 4 GB, 2g). No suffix means P (per process); H is for the whole host. */
int rv_config_parse_segsize(const char *s, rv_segsize_spec_t *o, char *why, size_t n)
{
    static const char hint[] = "expected a size with a unit (4GB, 128.0MB) or a fraction of "
                               "physical memory (0.85, 1/2), optionally followed by /P (per "
                               "process) or /H (per host)";
    char buf[128];
    size_t len = strlen(s);
    if (len >= sizeof buf) return rv_why(why, n, "is too long; %s", hint);
    memcpy(buf, s, len + 1);
    while (len && isspace((unsigned char)buf[len - 1])) buf[--len] = 0;
    o->per_host = 0;
    if (len && strchr("hHpP", buf[len - 1])) {
        o->per_host = toupper((unsigned char)buf[len - 1]) == 'H';
        buf[--len] = 0;
        while (len && isspace((unsigned char)buf[len - 1])) buf[--len] = 0;
        if (len && buf[len - 1] == '/') buf[--len] = 0;
    }
    const char *p = rv_skip_space(buf);
    if (!*p) return rv_why(why, n, "has no amount; %s", hint);
    if (*p == '-') return rv_why(why, n, "is negative; %s", hint);
    if (*p == '+' || !(isdigit((unsigned char)*p) || *p == '.')) return rv_why(why, n, "is not a number; %s", hint);

    /* a plain number, or a ratio A/B */
    char *end;
    double d = strtod(p, &end);
    const char *q = rv_skip_space(end);
    if (*q == '/') {
        const char *den_s = rv_skip_space(q + 1);
        char *e2;
        double den = isdigit((unsigned char)*den_s) || *den_s == '.' ? strtod(den_s, &e2) : 0;
        if (den == 0 || !isfinite(den)) return rv_why(why, n, "has a bad ratio; %s", hint);
        d /= den;
        q = rv_skip_space(e2);
    }
    if (!*q) {
        if (!isfinite(d)) return rv_why(why, n, "is not a number; %s", hint);
        o->fraction = d > 0 && d < 1;
        o->value = d;
        if (!o->fraction && d >= 18446744073709551616.0) return rv_why(why, n, "is too large");
        return 0;
    }
    /* a number with a unit */
    uint64_t mult = 0;
    const char *u = p;
    while (isdigit((unsigned char)*u) || *u == '.') u++;
    if (u == p || strchr(p, '.') != strrchr(p, '.') || !(mult = rv_unit(rv_skip_space(u))))
        return rv_why(why, n, "is not a size or fraction; %s", hint);
    o->fraction = 0;
    o->value = strtod(p, NULL) * (double)mult;
    if (o->value >= 18446744073709551616.0) return rv_why(why, n, "is too large");
    return 0;
}

/* Whole bytes of a non-negative amount (no libm). */
static double rv_whole(double x)
{
    return x < 18446744073709551616.0 ? (double)(uint64_t)x : x;
}

int rv_config_segsize_bytes(const char *var, const char *s, uint32_t host_ranks, uint64_t *out,
                            char *err, size_t n)
{
    rv_segsize_spec_t spec;
    char why[384];
    if (rv_config_parse_segsize(s, &spec, why, sizeof why)) {
        snprintf(err, n, "environment: %s=%s %s", var, s, why);
        return -1;
    }
    double bytes = spec.value;
    if (spec.fraction) bytes *= (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGESIZE);
    double per_proc = spec.per_host ? bytes / (host_ranks ? host_ranks : 1) : bytes;
    if (per_proc < GASNET_PAGESIZE) {
        char each[96] = "";
        if (spec.per_host && host_ranks > 1)
            snprintf(each, sizeof each, " for the host, %.0f bytes for each of its %u ranks",
                     rv_whole(per_proc), (unsigned)host_ranks);
        else if (spec.per_host)
            snprintf(each, sizeof each, " for the host");
        snprintf(err, n, "environment: %s=%s gives %.0f bytes%s, less than one page (%d bytes) "
                 "per process: a size needs a unit (e.g. 64MB/P, 2GB/H), a fraction of physical "
                 "memory is below 1 (e.g. 0.5/H)", var, s, rv_whole(bytes), each, GASNET_PAGESIZE);
        return -1;
    }
    *out = per_proc >= 18446744073709551615.0 ? UINT64_MAX : (uint64_t)per_proc;
    return 0;
}

/* ---- the checks of RV_ENV_CHECK rows --------------------------------------------------- */

typedef int (*rv_env_check_fn)(const char *var, const char *v, char *err, size_t n);

static int rv_config_check_MAX_SEGSIZE(const char *var, const char *v, char *err, size_t n)
{
    uint64_t b;
    return rv_config_segsize_bytes(var, v, 0, &b, err, n);   /* ranks per host not known yet */
}

static int rv_config_check_SSH(const char *var, const char *v, char *err, size_t n)
{
    int words = 0;
    for (const char *p = v; *p;) {
        p += strspn(p, " \t");
        if (!*p) break;
        words++;
        p += strcspn(p, " \t");
    }
    if (words < 1 || words > 60) {
        snprintf(err, n, "environment: %s='%s' %s: it must name the remote shell command (default "
                 "'ssh -x'), at most 60 words", var, v, words ? "has too many words" : "is empty");
        return -1;
    }
    return 0;
}

int rv_config_parse_ports(const char *v, unsigned *lo, unsigned *hi)
{
    *lo = *hi = 0;
    if (!v[0]) return 0;
    uint64_t a, b;
    char first[16];
    const char *dash = strchr(v, '-');
    size_t l = dash ? (size_t)(dash - v) : strlen(v);
    if (l == 0 || l >= sizeof first) return -1;
    memcpy(first, v, l);
    first[l] = 0;
    if (rv_parse_uint(first, &a)) return -1;
    b = a;
    if (dash && rv_parse_uint(dash + 1, &b)) return -1;
    if (a < 1 || b < a || b > 65535) return -1;
    *lo = (unsigned)a;
    *hi = (unsigned)b;
    return 0;
}

static int rv_config_check_LAUNCH_PORTS(const char *var, const char *v, char *err, size_t n)
{
    unsigned lo, hi;
    if (rv_config_parse_ports(v, &lo, &hi)) {
        snprintf(err, n, "environment: %s=%s is not a port or a range LOW-HIGH of ports "
                 "(1..65535)", var, v);
        return -1;
    }
    return 0;
}

static int rv_config_check_TRACE(const char *var, const char *v, char *err, size_t n)
{
    if (!strcmp(v, "stderr") || !strcmp(v, "stdout") || !strcmp(v, "-") || strlen(v) > 4000) {
        snprintf(err, n, "environment: %s=%.64s%s: traces go to files; give a file name of at most "
                 "4000 characters (each rank writes its own; docs/observability.md)", var, v,
                 strlen(v) > 64 ? "..." : "");
        return -1;
    }
    return 0;
}

static int rv_config_check_TRACE_MASK(const char *var, const char *v, char *err, size_t n)
{
    uint32_t m;
    char bad = 0;
    if (rv_trace_mask_parse(v, &m, &bad)) {
        snprintf(err, n, "environment: %s=%s: '%c' is not a trace category; use letters of %s "
                 "(G gets, P puts, R atomics, V VIS, W collectives, B barriers, A AMs, C internal "
                 "AMs, I phases), or empty for all", var, v, bad, RV_TRACE_LETTERS);
        return -1;
    }
    return 0;
}

/* RIVET_STATS_FILE / GASNET_STATSFILE: stdout, stderr, -, or a file name whose directory exists
 * (checked up front, so a typo fails at start-up rather than losing the stats at exit). */
static int rv_config_check_STATS_FILE(const char *var, const char *v, char *err, size_t n)
{
    if (!v[0] || !strcmp(v, "stdout") || !strcmp(v, "stderr") || !strcmp(v, "-")) return 0;
    size_t l = strlen(v);
    if (l > 4000 || v[l - 1] == '/') {
        snprintf(err, n, "environment: %s='%.200s' is not a file name (it %s)", var, v,
                 l > 4000 ? "is longer than 4000 characters" : "ends with '/'");
        return -1;
    }
    char dir[4096];
    const char *slash = strrchr(v, '/');
    if (!slash) snprintf(dir, sizeof dir, ".");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash == v ? 1 : slash - v), v);
    struct stat st;
    if (strchr(dir, '%')) return 0; /* a per-rank directory: checked when the rank writes */
    if (stat(dir, &st) || !S_ISDIR(st.st_mode) || access(dir, W_OK)) {
        snprintf(err, n, "environment: %s='%.200s': the directory %.200s %s", var, v, dir,
                 stat(dir, &st) ? "does not exist" : !S_ISDIR(st.st_mode) ? "is not a directory"
                                                                        : "is not writable");
        return -1;
    }
    return 0;
}

static rv_env_check_fn rv_env_check_fn_of(const char *name)
{
#define RV_ENV(name, alias, type, def, doc)
#define RV_ENV_RANGE(name, lo, hi)
#define RV_ENV_CHOICES(name, words)
#define RV_ENV_TEXT(name, maxlen)
#define RV_ENV_CHECK(nm, what) if (!strcmp(name, #nm)) return rv_config_check_##nm;
#include "core/config.def"
#undef RV_ENV
#undef RV_ENV_RANGE
#undef RV_ENV_CHOICES
#undef RV_ENV_TEXT
#undef RV_ENV_CHECK
    return NULL;
}

/* ---- loading --------------------------------------------------------------------------- */

/* Writes a size as the largest exact unit: 262144 -> "256K". */
static void rv_fmt_size(uint64_t v, char *buf, size_t n)
{
    static const char units[] = "TGMK";
    for (int i = 0; i < 4; i++) {
        unsigned shift = 40 - 10 * (unsigned)i;
        if (v && !(v & ((1ull << shift) - 1))) {
            snprintf(buf, n, "%llu%c", (unsigned long long)(v >> shift), units[i]);
            return;
        }
    }
    snprintf(buf, n, "%llu", (unsigned long long)v);
}

/* "a|b|" -> "a, b, (empty)" */
static void rv_fmt_choices(const char *words, char *buf, size_t n)
{
    size_t l = 0;
    buf[0] = 0;
    for (const char *w = words;;) {
        size_t wl = strcspn(w, "|");
        l += (size_t)snprintf(buf + l, l < n ? n - l : 0, "%s%.*s", l ? ", " : "",
                              (int)(wl ? wl : 7), wl ? w : "(empty)");
        if (!w[wl] || l >= n) break;
        w += wl + 1;
    }
}

static int rv_in_choices(const char *words, const char *v)
{
    size_t vl = strlen(v);
    for (const char *w = words;;) {
        size_t wl = strcspn(w, "|");
        if (wl == vl && !strncmp(w, v, vl)) return 1;
        if (!w[wl]) return 0;
        w += wl + 1;
    }
}

/* What a rule allows, for messages and the table. */
static void rv_rule_text(const rv_env_row_t *r, const rv_env_rule_t *u, char *buf, size_t n)
{
    char a[32], b[32];
    if (!strcmp(r->type, "BOOL")) {
        snprintf(buf, n, "0 or 1 (also no/yes, false/true, off/on)");
    } else if (!u) {
        snprintf(buf, n, "(unchecked: config.def has no rule)");
    } else if (u->kind == RV_RULE_RANGE) {
        if (!strcmp(r->type, "SIZE")) {
            rv_fmt_size(u->lo, a, sizeof a);
            rv_fmt_size(u->hi, b, sizeof b);
        } else {
            snprintf(a, sizeof a, "%llu", (unsigned long long)u->lo);
            snprintf(b, sizeof b, "%llu", (unsigned long long)u->hi);
        }
        snprintf(buf, n, "%s to %s", a, b);
    } else if (u->kind == RV_RULE_CHOICES) {
        rv_fmt_choices(u->text, buf, n);
    } else if (u->kind == RV_RULE_TEXT) {
        snprintf(buf, n, "text of at most %llu characters", (unsigned long long)u->hi);
    } else {
        snprintf(buf, n, "%s", u->text);
    }
}

static int rv_check_value(const rv_env_row_t *r, const char *var, const char *v, void *field,
                          char *err, size_t n)
{
    const rv_env_rule_t *u = rv_env_rule(r->name);
    char allowed[256];
    rv_rule_text(r, u, allowed, sizeof allowed);
    if (!strcmp(r->type, "BOOL")) {
        if (rv_parse_bool(v, field)) {
            snprintf(err, n, "environment: %s=%s is not a boolean (allowed: %s)", var, v, allowed);
            return -1;
        }
        return 0;
    }
    if (!strcmp(r->type, "UINT") || !strcmp(r->type, "SIZE")) {
        uint64_t x;
        int size = r->type[0] == 'S';
        if (size ? rv_config_parse_size(v, &x) : rv_parse_uint(v, &x)) {
            snprintf(err, n, "environment: %s=%s is not %s (allowed: %s)", var, v,
                     size ? "a size (bytes, e.g. 64K, 2M, 1.5G)"
                          : v[0] == '-' ? "a non-negative integer" : "an integer", allowed);
            return -1;
        }
        if (u && u->kind == RV_RULE_RANGE && (x < u->lo || x > u->hi)) {
            char lim[32];
            if (size) rv_fmt_size(x < u->lo ? u->lo : u->hi, lim, sizeof lim);
            else snprintf(lim, sizeof lim, "%llu", (unsigned long long)(x < u->lo ? u->lo : u->hi));
            snprintf(err, n, "environment: %s=%s is %s the %s allowed value %s (allowed: %s)", var,
                     v, x < u->lo ? "below" : "above", x < u->lo ? "smallest" : "largest", lim,
                     allowed);
            return -1;
        }
        *(uint64_t *)field = x;
        return 0;
    }
    /* STR */
    *(const char **)field = v;
    if (!u) return 0;
    if (u->kind == RV_RULE_CHOICES && !rv_in_choices(u->text, v)) {
        snprintf(err, n, "environment: %s=%s is not one of %s", var, v, allowed);
        return -1;
    }
    if (u->kind == RV_RULE_TEXT && strlen(v) > u->hi) {
        snprintf(err, n, "environment: %s='%.60s...' is longer than %llu characters", var, v,
                 (unsigned long long)u->hi);
        return -1;
    }
    if (u->kind == RV_RULE_CHECK) {
        rv_env_check_fn f = rv_env_check_fn_of(r->name);
        if (f && f(var, v, err, n)) return -1;
    }
    return 0;
}

static const char *rv_env_lookup(const char *name, const char *alias, char *buf, size_t n)
{
    snprintf(buf, n, "RIVET_%s", name);
    const char *v = getenv(buf);
    if (!v && alias && (v = getenv(alias)) != NULL) snprintf(buf, n, "%s", alias); /* for errors */
    return v;
}

int rv_config_try_load(char *err, size_t n)
{
    char var[64];
    const char *v;
#define RV_ENV(name, alias, type, def, doc)                                                   \
    v = rv_env_lookup(#name, alias, var, sizeof var);                                         \
    if (!v) { v = def; snprintf(var, sizeof var, "default of RIVET_%s", #name); }             \
    {                                                                                         \
        static const rv_env_row_t row_ = { #name, alias, #type, def, doc };                   \
        if (rv_check_value(&row_, var, v, &rv_cfg.name, err, n)) return -1;                   \
    }
#include "core/config.def"
#undef RV_ENV
    /* GASNET_PSHM_NODES=1 (GASNet's smp spelling) turns the bypass off. */
    const char *pn = getenv("GASNET_PSHM_NODES");
    if (!getenv("RIVET_PSHM") && pn && !strcmp(pn, "1")) rv_cfg.PSHM = 0;
    return 0;
}

void rv_config_load(void)
{
    char err[768];
    if (rv_config_try_load(err, sizeof err)) rv_fatal("%s", err);
}

int rv_config_unchecked(FILE *f)
{
    int bad = 0;
    for (size_t i = 0; i < RV_ENV_NROWS; i++) {
        const rv_env_row_t *r = &rv_env_rows[i];
        const rv_env_rule_t *u = rv_env_rule(r->name);
        int numeric = !strcmp(r->type, "UINT") || !strcmp(r->type, "SIZE");
        int ok = !strcmp(r->type, "BOOL") || (u && (numeric ? u->kind == RV_RULE_RANGE
                                                            : u->kind != RV_RULE_RANGE));
        if (u && u->kind == RV_RULE_CHECK && !rv_env_check_fn_of(r->name)) ok = 0;
        if (!ok) {
            fprintf(f, "RIVET_%s (%s) has no fitting rule in config.def\n", r->name, r->type);
            bad++;
        }
    }
    for (size_t i = 0; i < sizeof rv_env_rules / sizeof rv_env_rules[0]; i++) {
        int found = 0;
        for (size_t k = 0; k < RV_ENV_NROWS && !found; k++)
            found = !strcmp(rv_env_rows[k].name, rv_env_rules[i].name);
        if (!found) {
            fprintf(f, "config.def has a rule for RIVET_%s, which is not a setting\n",
                    rv_env_rules[i].name);
            bad++;
        }
    }
    return bad;
}

void rv_config_print(FILE *f, int markdown)
{
    if (markdown) {
        fprintf(f, "| Variable | GASNet alias | Type | Default | Allowed | Meaning |\n");
        fprintf(f, "|---|---|---|---|---|---|\n");
    }
    for (size_t i = 0; i < RV_ENV_NROWS; i++) {
        const rv_env_row_t *r = &rv_env_rows[i];
        char allowed[256];
        rv_rule_text(r, rv_env_rule(r->name), allowed, sizeof allowed);
        if (markdown)
            /* an empty default would render as a stray `` in Markdown */
            fprintf(f, "| `RIVET_%s` | %s%s%s | %s | %s%s%s | %s | %s |\n", r->name,
                    r->alias ? "`" : "", r->alias ? r->alias : "", r->alias ? "`" : "",
                    r->type, *r->def ? "`" : "", *r->def ? r->def : "(empty)", *r->def ? "`" : "",
                    allowed, r->doc);
        else
            fprintf(f, "RIVET_%-16s %-5s default %-8s %s%s%s [allowed: %s]\n", r->name, r->type,
                    r->def, r->doc, r->alias ? "; alias " : "", r->alias ? r->alias : "", allowed);
    }
}
