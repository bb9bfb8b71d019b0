/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/config_test.c: unit test of the settings parsers (core/config.c): GASNET_MAX_SEGSIZE
 * in GASNet's syntax, sizes, ports, and that every setting of config.def has a fitting rule. */
#include "core/config.h"

#include <stdio.h>
#include <string.h>

static int failures;

static int rel_close(double a, double b)
{
    double d = a > b ? a - b : b - a;
    return d <= 1e-9 * (1 + (b > 0 ? b : -b));
}

#define CHECK(cond, ...)                                                        \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);     \
            fprintf(stderr, __VA_ARGS__);                                       \
            fprintf(stderr, "\n");                                              \
            failures++;                                                         \
        }                                                                       \
    } while (0)

/* value: bytes, or the fraction of physical memory */
static const struct { const char *in; int fraction, per_host; double value; } segsize_ok[] = {
    { "128.0MB/P", 0, 0, 128.0 * 1048576 },   /* what upcxx-run writes */
    { "128.0MB", 0, 0, 128.0 * 1048576 },
    { "4GB/P", 0, 0, 4.0 * 1073741824 },
    { "4GB/H", 0, 1, 4.0 * 1073741824 },
    { "4 GB", 0, 0, 4.0 * 1073741824 },
    { "4g", 0, 0, 4.0 * 1073741824 },
    { "2G/h", 0, 1, 2.0 * 1073741824 },
    { "1.5M", 0, 0, 1.5 * 1048576 },
    { "64K/p", 0, 0, 65536 },
    { "1T", 0, 0, 1099511627776.0 },
    { "4096B", 0, 0, 4096 },
    { "0.85/H", 1, 1, 0.85 },                  /* the default */
    { "0.85", 1, 0, 0.85 },                    /* no suffix: per process */
    { "0.5H", 1, 1, 0.5 },
    { " 0.5 / P ", 1, 0, 0.5 },
    { "1/2", 1, 0, 0.5 },                      /* a ratio is a fraction too */
    { "1/4/H", 1, 1, 0.25 },
    { "1048576", 0, 0, 1048576 },              /* a number without unit is bytes */
    { "1048576/H", 0, 1, 1048576 },
    { "1", 0, 0, 1 },                          /* 1 is not a fraction: one byte */
    { "5/H", 0, 1, 5 },                        /* parses: 5 bytes (too small: see below) */
    { "0/H", 0, 1, 0 },
};

static const char *const segsize_bad[] = {
    "", "/H", "P", "abc", "-1G", "-0.5", "4GBx", "4 GiB", "1.2.3M", "0.5/0", "0.5/x", "1e3M", "+1G",
    "inf", "nan", "0x", "4G/Q", "4G/HH",
};

/* bytes per process for the host sizes given, or 0: rejected (under one page) */
static const struct { const char *in; uint32_t ranks; uint64_t bytes; } segsize_bytes[] = {
    { "128.0MB/P", 4, 128ull << 20 },
    { "16M/H", 4, 4ull << 20 },
    { "16M/H", 0, 16ull << 20 },
    { "16K/H", 4, 4096 },
    { "8K/H", 4, 0 },
    { "5/H", 0, 0 },
    { "2/P", 1, 0 },
    { "0/H", 1, 0 },
    { "0", 1, 0 },
    { "4096", 1, 4096 },
    { "4095", 1, 0 },
};

static const struct { const char *in; int ok; uint64_t v; } sizes[] = {
    { "0", 1, 0 }, { "123", 1, 123 }, { "4K", 1, 4096 }, { "4KB", 1, 4096 }, { "4kb", 1, 4096 },
    { "2M", 1, 2ull << 20 }, { "1.5G", 1, 3ull << 29 }, { "1T", 1, 1ull << 40 }, { "7B", 1, 7 },
    { "-1", 0, 0 }, { "+1", 0, 0 }, { " 1", 0, 0 }, { "1 ", 0, 0 }, { "1X", 0, 0 }, { "1.5", 0, 0 },
    { "1.", 0, 0 }, { "", 0, 0 }, { "K", 0, 0 }, { "99999999999999999999", 0, 0 },
    { "17179869184T", 0, 0 },   /* 2^64 bytes */
};

int main(void)
{
    char why[512];
    for (size_t i = 0; i < sizeof segsize_ok / sizeof segsize_ok[0]; i++) {
        rv_segsize_spec_t s;
        int rc = rv_config_parse_segsize(segsize_ok[i].in, &s, why, sizeof why);
        CHECK(rc == 0, "'%s' rejected: %s", segsize_ok[i].in, why);
        if (rc) continue;
        CHECK(s.fraction == segsize_ok[i].fraction && s.per_host == segsize_ok[i].per_host
                  && rel_close(s.value, segsize_ok[i].value),
              "'%s' gave fraction=%d per_host=%d value=%g, want %d %d %g", segsize_ok[i].in,
              s.fraction, s.per_host, s.value, segsize_ok[i].fraction, segsize_ok[i].per_host,
              segsize_ok[i].value);
    }
    for (size_t i = 0; i < sizeof segsize_bad / sizeof segsize_bad[0]; i++) {
        rv_segsize_spec_t s;
        CHECK(rv_config_parse_segsize(segsize_bad[i], &s, why, sizeof why) != 0,
              "'%s' accepted (fraction=%d value=%g)", segsize_bad[i], s.fraction, s.value);
    }
    for (size_t i = 0; i < sizeof segsize_bytes / sizeof segsize_bytes[0]; i++) {
        uint64_t b = 0;
        char err[768];
        int rc = rv_config_segsize_bytes("GASNET_MAX_SEGSIZE", segsize_bytes[i].in,
                                         segsize_bytes[i].ranks, &b, err, sizeof err);
        if (segsize_bytes[i].bytes) {
            CHECK(rc == 0 && b == segsize_bytes[i].bytes, "'%s' on %u ranks: rc %d, %llu bytes, "
                  "want %llu (%s)", segsize_bytes[i].in, segsize_bytes[i].ranks, rc,
                  (unsigned long long)b, (unsigned long long)segsize_bytes[i].bytes, rc ? err : "");
        } else {
            CHECK(rc != 0, "'%s' on %u ranks accepted: %llu bytes", segsize_bytes[i].in,
                  segsize_bytes[i].ranks, (unsigned long long)b);
            CHECK(rc == 0 || (strstr(err, "GASNET_MAX_SEGSIZE=") && strstr(err, segsize_bytes[i].in)
                              && strstr(err, "less than one page")),
                  "message for '%s' does not name the variable, the value and the rule: %s",
                  segsize_bytes[i].in, err);
        }
    }
    /* a fraction is of physical memory */
    uint64_t half = 0;
    CHECK(rv_config_segsize_bytes("V", "0.5/H", 2, &half, why, sizeof why) == 0 && half > 4096,
          "0.5/H: %s", why);
    uint64_t quarter = 0;
    CHECK(rv_config_segsize_bytes("V", "0.25", 1, &quarter, why, sizeof why) == 0
              && (quarter > half ? quarter - half : half - quarter) <= 1,
          "0.25 per process (%llu) differs from 0.5/H on 2 ranks (%llu)",
          (unsigned long long)quarter, (unsigned long long)half);

    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        uint64_t v = 12345;
        int rc = rv_config_parse_size(sizes[i].in, &v);
        CHECK((rc == 0) == sizes[i].ok && (!sizes[i].ok || v == sizes[i].v),
              "size '%s': rc %d value %llu, want %s %llu", sizes[i].in, rc, (unsigned long long)v,
              sizes[i].ok ? "ok" : "rejected", (unsigned long long)sizes[i].v);
    }

    unsigned lo, hi;
    CHECK(rv_config_parse_ports("", &lo, &hi) == 0 && lo == 0 && hi == 0, "empty ports");
    CHECK(rv_config_parse_ports("4000", &lo, &hi) == 0 && lo == 4000 && hi == 4000, "one port");
    CHECK(rv_config_parse_ports("4000-4010", &lo, &hi) == 0 && lo == 4000 && hi == 4010, "range");
    const char *bad_ports[] = { "0", "70000", "5-4", "-5", "4000-", "x", "1-2-3", "4000 ", "-1" };
    for (size_t i = 0; i < sizeof bad_ports / sizeof bad_ports[0]; i++)
        CHECK(rv_config_parse_ports(bad_ports[i], &lo, &hi) != 0, "ports '%s' accepted", bad_ports[i]);

    /* every setting is bounded or checked */
    CHECK(rv_config_unchecked(stderr) == 0, "settings without a rule (listed above)");

    /* the defaults themselves pass their rules */
    char err[768];
    CHECK(rv_config_try_load(err, sizeof err) == 0, "defaults: %s", err);

    if (failures) {
        fprintf(stderr, "config_test: %d failure(s)\n", failures);
        return 1;
    }
    printf("config_test: PASS\n");
    return 0;
}
