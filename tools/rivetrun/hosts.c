/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/hosts.c: the host list of a multi-host job (--hosts, --hostfile) and the
 * placement of ranks on it, in blocks of consecutive ranks per host. */
#include "rivetrun.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RV_RUN_MAX_SLOTS 65536u

/* A host name goes to the remote shell as one argument, and into the remote command
 * line: letters, digits, '.', '-', '_' and "user@", never a leading '-' (an option). */
static int rv_run_host_ok(const char *h, size_t len)
{
    if (len == 0 || len > 255 || h[0] == '-') return 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)h[i];
        if (!isalnum(c) && c != '.' && c != '-' && c != '_' && c != '@') return 0;
    }
    return 1;
}

static int rv_run_parse_slots(const char *s, size_t len, uint32_t *out)
{
    char buf[16];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    char *end;
    errno = 0;
    unsigned long v = strtoul(buf, &end, 10);
    if (*end || errno || !isdigit((unsigned char)buf[0]) || v == 0 || v > RV_RUN_MAX_SLOTS)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* Adds host 'name' (len bytes) with 'slots'; a host named twice gets the slots of both. */
static int rv_run_host_push(rv_run_opts_t *o, const char *name, size_t len, uint32_t slots)
{
    for (uint32_t i = 0; i < o->nhosts; i++) {
        rv_run_hostspec_t *h = &o->hosts[i];
        if (strlen(h->name) == len && !memcmp(h->name, name, len)) {
            uint32_t a = h->slots ? h->slots : 1, b = slots ? slots : 1;
            h->slots = a + b > RV_RUN_MAX_SLOTS ? RV_RUN_MAX_SLOTS : a + b;
            return 0;
        }
    }
    rv_run_hostspec_t *n = realloc(o->hosts, (o->nhosts + 1) * sizeof *n);
    if (!n) return -1;
    o->hosts = n;
    n[o->nhosts].name = strndup(name, len);
    n[o->nhosts].slots = slots;
    if (!n[o->nhosts].name) return -1;
    o->nhosts++;
    return 0;
}

/* One "host" or "host:N" entry. */
static int rv_run_host_entry(rv_run_opts_t *o, const char *e, size_t len, const char *from,
                             unsigned line)
{
    char where[64] = "";
    if (line) snprintf(where, sizeof where, " line %u", line);
    const char *colon = memchr(e, ':', len);
    size_t nlen = colon ? (size_t)(colon - e) : len;
    uint32_t slots = 0;
    if (!rv_run_host_ok(e, nlen)) {
        fprintf(stderr, "rivetrun: %s%s: invalid host name '%.*s' (letters, digits, '.', '-', "
                "'_', user@; not starting with '-')\n", from, where, (int)nlen, e);
        return -1;
    }
    if (colon && rv_run_parse_slots(colon + 1, len - nlen - 1, &slots)) {
        fprintf(stderr, "rivetrun: %s%s: invalid slot count in '%.*s' (expected host:N, N in "
                "1..%u)\n", from, where, (int)len, e, RV_RUN_MAX_SLOTS);
        return -1;
    }
    if (rv_run_host_push(o, e, nlen, slots)) {
        fprintf(stderr, "rivetrun: out of memory\n");
        return -1;
    }
    return 0;
}

int rv_run_hosts_add(rv_run_opts_t *o, const char *list, const char *from)
{
    const char *p = list;
    for (;;) {
        const char *c = strchr(p, ',');
        size_t len = c ? (size_t)(c - p) : strlen(p);
        if (rv_run_host_entry(o, p, len, from, 0)) return -1;
        if (!c) break;
        p = c + 1;
    }
    return 0;
}

int rv_run_hosts_file(rv_run_opts_t *o, const char *path)
{
    FILE *f = fopen(path, "re");
    if (!f) {
        fprintf(stderr, "rivetrun: --hostfile %s: %s\n", path, strerror(errno));
        return -1;
    }
    char line[1024];
    unsigned ln = 0;
    uint32_t before = o->nhosts;
    int rc = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        /* "host", "host:N" or "host slots=N", surrounded by blanks */
        char *t = line;
        while (isspace((unsigned char)*t)) t++;
        char *end = t + strlen(t);
        while (end > t && isspace((unsigned char)end[-1])) *--end = 0;
        if (!*t) continue;
        char *sp = t;
        while (*sp && !isspace((unsigned char)*sp)) sp++;
        if (*sp) {
            *sp++ = 0;
            while (isspace((unsigned char)*sp)) sp++;
            uint32_t slots;
            if (strncmp(sp, "slots=", 6) || strchr(t, ':')
                || rv_run_parse_slots(sp + 6, strlen(sp + 6), &slots)) {
                fprintf(stderr, "rivetrun: %s line %u: expected 'host', 'host:N' or 'host "
                        "slots=N', got '%s %s'\n", path, ln, t, sp);
                rc = -1;
                break;
            }
            char entry[300];
            int n = snprintf(entry, sizeof entry, "%s:%u", t, (unsigned)slots);
            if (n < 0 || (size_t)n >= sizeof entry) {
                fprintf(stderr, "rivetrun: %s line %u: host name '%.40s...' is too long\n", path,
                        ln, t);
                rc = -1;
                break;
            }
            if (rv_run_host_entry(o, entry, strlen(entry), path, ln)) { rc = -1; break; }
        } else if (rv_run_host_entry(o, t, strlen(t), path, ln)) {
            rc = -1;
            break;
        }
    }
    if (!rc && ferror(f)) {
        fprintf(stderr, "rivetrun: --hostfile %s: read error\n", path);
        rc = -1;
    }
    fclose(f);
    if (!rc && o->nhosts == before) {
        fprintf(stderr, "rivetrun: --hostfile %s names no host\n", path);
        rc = -1;
    }
    return rc;
}

int rv_run_hosts_place(rv_run_opts_t *o, uint32_t *first, uint32_t *count)
{
    uint64_t total = 0;
    for (uint32_t h = 0; h < o->nhosts; h++) total += o->hosts[h].slots ? o->hosts[h].slots : 1;
    if (o->np == 0) {
        if (total > RV_RUN_MAX_SLOTS) {
            fprintf(stderr, "rivetrun: %s gives %llu slots, more than %u ranks; use -n\n",
                    o->hosts_from, (unsigned long long)total, RV_RUN_MAX_SLOTS);
            return -1;
        }
        o->np = (uint32_t)total;
    }
    /* Whole rounds of every host's slots, then the rest in host order: hosts fill up
     * to their slots first, and a job larger than the slots spreads like them. */
    uint64_t rounds = o->np / total, rest = o->np % total, next = 0;
    for (uint32_t h = 0; h < o->nhosts; h++) {
        uint64_t s = o->hosts[h].slots ? o->hosts[h].slots : 1;
        uint64_t extra = rest < s ? rest : s;
        rest -= extra;
        count[h] = (uint32_t)(rounds * s + extra);
        first[h] = (uint32_t)next;
        next += count[h];
    }
    return 0;
}
