/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_compat.c: the gasnet_tools.h names GASNet's own test programs
 * (tests/test.h) use, without gex_Client_Init: the no-op tracing/statistics macros in the
 * forms test.h writes them, PLATFORM_* identification agreeing with the compiler (from
 * gasnet_portable_platform.h, included alone first), the config string and performance
 * warning, GASNETT_EXTERNC, and a client-defined gasnett_backtrace_user that
 * gasnett_print_backtrace must call first (its output is read back through a pipe). */
#include <gasnet_portable_platform.h> /* first: it must stand alone (Caffeine includes it) */
#include <gasnet_tools.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FAIL(...)                                                   \
    do {                                                            \
        fprintf(stderr, "FAIL tools_compat: " __VA_ARGS__);         \
        fprintf(stderr, "\n");                                      \
        exit(1);                                                    \
    } while (0)

static int user_calls, user_result;
GASNETT_EXTERNC int my_backtrace(int fd);
int my_backtrace(int fd)
{
    user_calls++;
    if (user_result == 0 && write(fd, "USER-BT\n", 8) != 8) return 1;
    return user_result;
}
gasnett_backtrace_type_t gasnett_backtrace_user = {"USER", &my_backtrace, 1};

static size_t read_all(int fd, char *buf, size_t cap)
{
    size_t got = 0;
    ssize_t k;
    while (got + 1 < cap && (k = read(fd, buf + got, cap - 1 - got)) > 0) got += (size_t)k;
    buf[got] = 0;
    return got;
}

int main(void)
{
    /* tracing: every form test.h uses compiles and does nothing */
    const char *file;
    unsigned int line;
    GASNETT_TRACE_GETSOURCELINE(&file, &line); /* no source lines: NULL, 0 */
    if (file != NULL || line != 0) FAIL("GETSOURCELINE gave %p:%u", (const void *)file, line);
    GASNETT_TRACE_SETSOURCELINE(file, line);
    GASNETT_TRACE_FREEZESOURCELINE();
    GASNETT_TRACE_UNFREEZESOURCELINE();
    if (GASNETT_TRACE_ENABLED || GASNETT_STATS_ENABLED) FAIL("tracing/stats report enabled");
    GASNETT_TRACE_PRINTF("%s %d", "value", 42);
    GASNETT_TRACE_PRINTF_FORCE("%d", 1);
    GASNETT_STATS_PRINTF("%d", 2);
    GASNETT_TRACE_SETMASK(GASNETT_TRACE_GETMASK());
    GASNETT_STATS_SETMASK(GASNETT_STATS_GETMASK());
    GASNETT_TRACE_SET_TRACELOCAL(GASNETT_TRACE_GET_TRACELOCAL());
    if (strcmp(gasnett_performance_warning_str(), "") != 0) FAIL("performance warning not empty");

    /* platform identification */
#if PLATFORM_ARCH_64 && !PLATFORM_ARCH_32
    if (sizeof(void *) != 8) FAIL("PLATFORM_ARCH_64 with %zu-byte pointers", sizeof(void *));
#elif PLATFORM_ARCH_32 && !PLATFORM_ARCH_64
    if (sizeof(void *) != 4) FAIL("PLATFORM_ARCH_32 with %zu-byte pointers", sizeof(void *));
#else
#error exactly one of PLATFORM_ARCH_32 / PLATFORM_ARCH_64 must be set
#endif
    const char *fam = _STRINGIFY(PLATFORM_COMPILER_FAMILYNAME);
#if defined(__clang__) && PLATFORM_COMPILER_CLANG && !PLATFORM_COMPILER_GNU
    if (strcmp(fam, "CLANG")) FAIL("clang reported as %s", fam);
#elif !defined(__clang__) && PLATFORM_COMPILER_GNU && !PLATFORM_COMPILER_CLANG
    if (strcmp(fam, "GNU")) FAIL("gcc reported as %s", fam);
#else
#error PLATFORM_COMPILER_GNU / PLATFORM_COMPILER_CLANG disagree with the compiler
#endif
    if (strcmp(PLATFORM_COMPILER_VERSION_STR, __VERSION__)) FAIL("compiler version string");
    if (!PLATFORM_OS_LINUX) FAIL("PLATFORM_OS_LINUX not set");
    if (!strstr(GASNETT_CONFIG_STRING, "nodebug") || GASNETT_MAX_THREADS < 1)
        FAIL("config string '%s' / max threads %d", GASNETT_CONFIG_STRING, GASNETT_MAX_THREADS);
    char num[32];
    snprintf(num, sizeof num, "%" PRIu64, (uint64_t)12345);
    if (strcmp(num, "12345")) FAIL("PRIu64 formatting gave '%s'", num);

    /* the client's backtrace mechanism runs first; on failure Rivet's own follows */
    int p[2];
    char buf[8192];
    if (pipe(p)) FAIL("pipe");
    user_result = 0;
    if (gasnett_print_backtrace(p[1]) != 0) FAIL("gasnett_print_backtrace failed");
    close(p[1]);
    read_all(p[0], buf, sizeof buf);
    close(p[0]);
    if (user_calls != 1 || strcmp(buf, "USER-BT\n"))
        FAIL("user mechanism: %d calls, output '%s'", user_calls, buf);
    if (pipe(p)) FAIL("pipe");
    user_result = 1;
    if (gasnett_print_backtrace(p[1]) != 0) FAIL("fallback backtrace failed");
    close(p[1]);
    read_all(p[0], buf, sizeof buf);
    close(p[0]);
    if (user_calls != 2 || !strstr(buf, "rivet: backtrace of pid"))
        FAIL("fallback after a failing user mechanism: %d calls, output '%.200s'", user_calls,
             buf);
    printf("tools_compat: OK\n");
    return 0;
}
