/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_env.c: the GASNet-Tools environment queries (gasnett_getenv*), integer and
 * memory-size parsing and formatting, and the GASNET_VERBOSEENV report. */
#include "tools/tools_int.h"
#include "core/core.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- parsing -------------------------------------------------------------------------- */

static const char *rv_tools_skip_space(const char *s)
{
    while (*s && isspace((unsigned char)*s)) s++;
    return s;
}

/* The unit named by a memory-size suffix (case-insensitive B, K, KB, M, MB, G, GB, T, TB),
 * 0 if s is not one. */
static uint64_t rv_tools_suffix_unit(const char *s, size_t len)
{
    static const struct { const char *name; unsigned shift; } units[] = {
        { "b", 0 },  { "k", 10 }, { "kb", 10 }, { "m", 20 }, { "mb", 20 },
        { "g", 30 }, { "gb", 30 }, { "t", 40 }, { "tb", 40 },
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (strlen(units[i].name) == len && !strncasecmp(s, units[i].name, len))
            return (uint64_t)1 << units[i].shift;
    return 0;
}

int rv_tools_parse_int(const char *str, uint64_t mem_size_multiplier, int64_t *out)
{
    if (!str) return -1;
    const char *s = rv_tools_skip_space(str);
    int neg = 0;
    if (*s == '+' || *s == '-') neg = (*s++ == '-');
    int hex = (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'));
    const char *digits = hex ? s + 2 : s;
    if (!(hex ? isxdigit((unsigned char)*digits) : isdigit((unsigned char)*digits)) &&
        !(!hex && mem_size_multiplier && *digits == '.' && isdigit((unsigned char)digits[1])))
        return -1;
    errno = 0;
    char *end;
    uint64_t whole = strtoull(digits, &end, hex ? 16 : 10);
    if (errno == ERANGE) return -1;
    if (end == digits && *digits != '.') return -1;
    double frac = 0.0;
    const char *p = end;
    if (!hex && mem_size_multiplier && *p == '.') {      /* fractional memory sizes only */
        double scale = 0.1;
        for (p++; isdigit((unsigned char)*p); p++, scale /= 10) frac += (*p - '0') * scale;
    }
    p = rv_tools_skip_space(p);
    const char *suf = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    size_t suflen = (size_t)(p - suf);
    if (*rv_tools_skip_space(p)) return -1;              /* trailing junk */
    uint64_t unit = 1;
    if (mem_size_multiplier) {
        unit = suflen ? rv_tools_suffix_unit(suf, suflen) : mem_size_multiplier;
        if (!unit) return -1;
    } else if (suflen) {
        return -1;
    }
    uint64_t mag;
    if (__builtin_mul_overflow(whole, unit, &mag)) return -1;
    if (frac > 0.0) {
        double extra = frac * (double)unit + 0.5;   /* rounded to the nearest byte */
        if (extra >= 18446744073709551616.0 ||
            __builtin_add_overflow(mag, (uint64_t)extra, &mag))
            return -1;
    }
    if (mag > (uint64_t)INT64_MAX + (neg ? 1u : 0u)) return -1;
    *out = neg ? (int64_t)(0 - mag) : (int64_t)mag;
    return 0;
}

int64_t gasnett_parse_int(const char *str, uint64_t mem_size_multiplier)
{
    int64_t v;
    if (rv_tools_parse_int(str, mem_size_multiplier, &v))
        rv_fatal("gasnett_parse_int: '%s' is not %s", str ? str : "(null)",
                 mem_size_multiplier ? "a memory size (number with optional B, KB, MB, GB or TB)"
                                     : "an integer (decimal or 0x hex)");
    return v;
}

char *gasnett_format_number(int64_t val, char *buf, size_t bufsz, int is_mem_size)
{
    static const char *const names[] = { "TB", "GB", "MB", "KB" };
    if (!buf || !bufsz) return buf;
    if (is_mem_size && val != 0) {
        uint64_t mag = val < 0 ? 0 - (uint64_t)val : (uint64_t)val;
        for (int i = 0; i < 4; i++) {
            unsigned shift = 40 - 10 * (unsigned)i;
            if ((mag & (((uint64_t)1 << shift) - 1)) == 0) {
                snprintf(buf, bufsz, "%s%" PRIu64 " %s", val < 0 ? "-" : "", mag >> shift, names[i]);
                return buf;
            }
        }
    }
    if (is_mem_size) snprintf(buf, bufsz, "%" PRId64 " B", val);
    else snprintf(buf, bufsz, "%" PRId64, val);
    return buf;
}

/* ---- verbose report ----------------------------------------------------------------------- */

int rv_tools_env_flag(const char *rivet_name, const char *gasnet_alias, int defaultval)
{
    const char *v = rivet_name ? getenv(rivet_name) : NULL;
    if ((!v || !*v) && gasnet_alias) v = getenv(gasnet_alias);
    if (!v || !*v) return defaultval;
    if (!strcasecmp(v, "1") || !strcasecmp(v, "y") || !strcasecmp(v, "yes")) return 1;
    if (!strcasecmp(v, "0") || !strcasecmp(v, "n") || !strcasecmp(v, "no")) return 0;
    return defaultval;
}

int gasnett_verboseenv(void)
{
    if (!rv_tools_env_flag("RIVET_VERBOSEENV", "GASNET_VERBOSEENV", 0)) return 0;
    /* one rank reports for the job: rank 0, or any process outside a job */
    if (rv_job.size) return rv_job.rank == 0;
    const char *r = getenv("RIVET_BOOT_RANK");
    return !r || !strcmp(r, "0");
}

/* Each key is reported once per process: a small list of reported keys. */
static pthread_mutex_t rv_tools_env_lock = PTHREAD_MUTEX_INITIALIZER;
typedef struct rv_tools_seen { struct rv_tools_seen *next; char key[]; } rv_tools_seen_t;
static rv_tools_seen_t *rv_tools_seen_keys;

static int rv_tools_first_report(const char *key)
{
    int first = 1;
    pthread_mutex_lock(&rv_tools_env_lock);
    for (rv_tools_seen_t *s = rv_tools_seen_keys; s; s = s->next)
        if (!strcmp(s->key, key)) { first = 0; break; }
    if (first) {
        size_t n = strlen(key) + 1;
        rv_tools_seen_t *s = malloc(sizeof *s + n);
        if (s) {
            memcpy(s->key, key, n);
            s->next = rv_tools_seen_keys;
            rv_tools_seen_keys = s;
        }
    }
    pthread_mutex_unlock(&rv_tools_env_lock);
    return first;
}

static void rv_tools_env_report(const char *key, const char *shown, int is_dflt)
{
    if (!key || !gasnett_verboseenv() || !rv_tools_first_report(key)) return;
    fprintf(stderr, "rivet: env: %s = %s%s\n", key, shown, is_dflt ? " (default)" : "");
    fflush(stderr);
}

void gasnett_envstr_display(const char *key, const char *val, int is_dflt)
{
    rv_tools_env_report(key, val ? val : "(not set)", is_dflt);
}

void gasnett_envint_display(const char *key, int64_t val, int is_dflt, int is_mem_size)
{
    char buf[64];
    rv_tools_env_report(key, gasnett_format_number(val, buf, sizeof buf, is_mem_size), is_dflt);
}

void gasnett_envdbl_display(const char *key, double val, int is_dflt)
{
    char buf[64];
    snprintf(buf, sizeof buf, "%g", val);
    rv_tools_env_report(key, buf, is_dflt);
}

/* ---- queries ------------------------------------------------------------------------------ */

void gasnett_setenv(const char *key, const char *value)
{
    if (!key || !*key || setenv(key, value ? value : "", 1))
        rv_fatal("gasnett_setenv: cannot set '%s'", key ? key : "(null)");
}

void gasnett_unsetenv(const char *key)
{
    if (!key || !*key || unsetenv(key))
        rv_fatal("gasnett_unsetenv: cannot unset '%s'", key ? key : "(null)");
}

char *gasnett_getenv(const char *keyname)
{
    return keyname ? getenv(keyname) : NULL;
}

/* The value if set and non-empty, else NULL. */
static const char *rv_tools_env_value(const char *keyname)
{
    const char *v = gasnett_getenv(keyname);
    return v && *v ? v : NULL;
}

char *gasnett_getenv_withdefault(const char *keyname, const char *defaultval)
{
    const char *v = rv_tools_env_value(keyname);
    gasnett_envstr_display(keyname, v ? v : defaultval, v == NULL);
    return (char *)(v ? v : defaultval);
}

int gasnett_getenv_yesno_withdefault(const char *keyname, int defaultval)
{
    const char *v = rv_tools_env_value(keyname);
    int r = defaultval ? 1 : 0;
    if (v) {
        if (!strcasecmp(v, "y") || !strcasecmp(v, "yes") || !strcmp(v, "1")) r = 1;
        else if (!strcasecmp(v, "n") || !strcasecmp(v, "no") || !strcmp(v, "0")) r = 0;
        else
            rv_fatal("gasnett_getenv_yesno_withdefault: %s='%s' is not yes or no "
                     "(Y, YES, 1, N, NO or 0)", keyname, v);
    }
    gasnett_envstr_display(keyname, r ? "YES" : "NO", v == NULL);
    return r;
}

int64_t gasnett_getenv_int_withdefault(const char *keyname, int64_t defaultval,
                                       uint64_t mem_size_multiplier)
{
    const char *v = rv_tools_env_value(keyname);
    int64_t r = defaultval;
    if (v && rv_tools_parse_int(v, mem_size_multiplier, &r))
        rv_fatal("gasnett_getenv_int_withdefault: %s='%s' is not %s", keyname, v,
                 mem_size_multiplier ? "a memory size (number with optional B, KB, MB, GB or TB)"
                                     : "an integer (decimal or 0x hex)");
    gasnett_envint_display(keyname, r, v == NULL, mem_size_multiplier != 0);
    return r;
}

double gasnett_getenv_dbl_withdefault(const char *keyname, double defaultval)
{
    const char *v = rv_tools_env_value(keyname);
    double r = defaultval;
    if (v) {
        char *end;
        errno = 0;
        r = strtod(v, &end);
        int ok = end != v && errno == 0;
        if (ok && *end == '/') {                 /* a fraction such as 3/8 */
            const char *q = end + 1;
            double d = strtod(q, &end);
            ok = end != q && d != 0.0;
            r = ok ? r / d : r;
        }
        if (!ok || *rv_tools_skip_space(end))
            rv_fatal("gasnett_getenv_dbl_withdefault: %s='%s' is not a number or a fraction",
                     keyname, v);
    }
    gasnett_envdbl_display(keyname, r, v == NULL);
    return r;
}
