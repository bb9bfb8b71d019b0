/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_names.c: GASNet-Tools names of GASNet-EX 2025.8.0 with gasnet_tools.h
 * alone (no gasnetex.h, no job): the release version macros and functions, the compiler
 * helpers (FALLTHROUGH, UNUSED_ARGS, assume), gasnett_exe_name, gasnett_signame_fromval,
 * gasnett_mmap, gasnett_nsleep's result, the statistics no-ops, gasnet_frozen and the
 * PLATFORM_COMPILER_VERSION_* comparisons. */
#include <gasnet_tools.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rv_check.h"

/* the release macros come with gasnet_tools.h (gasnet_config.h), evaluable in #if */
#if GASNET_RELEASE_VERSION_MAJOR != 2025 || GASNET_RELEASE_VERSION_MINOR != 8 || \
    GASNET_RELEASE_VERSION_PATCH != 0 || GASNETT_RELEASE_VERSION_MAJOR != 2025 ||  \
    GASNETT_RELEASE_VERSION_MINOR != 8 || GASNETT_RELEASE_VERSION_PATCH != 0 ||    \
    GEX_SPEC_VERSION_MAJOR != 0 || GEX_SPEC_VERSION_MINOR != 19 ||                 \
    GASNETT_SPEC_VERSION_MAJOR != 1 || GASNETT_SPEC_VERSION_MINOR != 20
#error "release 2025.8.0, EX spec 0.19, tools spec 1.20 with gasnet_tools.h alone"
#endif
#if !defined(HAVE_PTHREAD_H) || !defined(HAVE_MMAP)
#error "gasnet_config.h's HAVE_* come with gasnet_tools.h"
#endif
/* the compiler version comparisons, for the compiler building this file */
#if !PLATFORM_COMPILER_VERSION_GE(4, 0, 0) || PLATFORM_COMPILER_VERSION_LT(4, 0, 0) ||      \
    PLATFORM_COMPILER_VERSION_GT(999, 0, 0) || !PLATFORM_COMPILER_VERSION_LE(999, 0, 0) ||  \
    PLATFORM_COMPILER_VERSION_EQ(0, 0, 0)
#error "PLATFORM_COMPILER_VERSION_GE/LT/GT/LE/EQ"
#endif
#if defined(__clang__)
#if !PLATFORM_COMPILER_VERSION_EQ(__clang_major__, __clang_minor__, __clang_patchlevel__) || \
    !PLATFORM_COMPILER_CLANG_C || PLATFORM_COMPILER_ID != PLATFORM_COMPILER_FAMILYID
#error "PLATFORM_COMPILER_VERSION is clang's own version"
#endif
#elif defined(__GNUC__)
#if !PLATFORM_COMPILER_VERSION_EQ(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__) || \
    !PLATFORM_COMPILER_GNU_C
#error "PLATFORM_COMPILER_VERSION is gcc's version"
#endif
#endif
#if PLATFORM_COMPILER_C_LANGLVL < 201112L
#error "PLATFORM_COMPILER_C_LANGLVL"
#endif

static int classify(int x)
{
    int r = 0;
    switch (x) {
    case 0:
        r += 1;
        GASNETT_FALLTHROUGH
    case 1:
        r += 10;
        break;
    default:
        r = -1;
    }
    return r;
}

#define SUM2(a, b) (GASNETT_UNUSED_ARGS2(a, b), 2)

static int stats_called;
static void stats_cb(void (*pr)(const char *, ...)) { (void)pr; stats_called++; }

int main(void)
{
    /* version functions agree with the macros */
    CHECK(!strcmp(gasnett_release_version_str(), "2025.8.0"), "'%s'", gasnett_release_version_str());
    CHECK(gasnett_release_version() == 2025u * 1000000u + 8u * 10000u, "%" PRIu64,
          gasnett_release_version());
    CHECK(!strncmp(GASNETT_CONFIG_STRING, "RELEASE=2025.8.0,SPEC=1.20,", 27),
          "GASNETT_CONFIG_STRING '%s'", GASNETT_CONFIG_STRING);

    CHECK(classify(0) == 11 && classify(1) == 10 && classify(5) == -1, "GASNETT_FALLTHROUGH");
    int u1 = 1, u2 = 2, u3 = 3, u4 = 4, u5 = 5, u6 = 6, u7 = 7, u8 = 8;
    CHECK(SUM2(u1, u2) == 2, "GASNETT_UNUSED_ARGS2");
    GASNETT_UNUSED_ARGS1(u1);
    GASNETT_UNUSED_ARGS3(u1, u2, u3);
    GASNETT_UNUSED_ARGS4(u1, u2, u3, u4);
    GASNETT_UNUSED_ARGS5(u1, u2, u3, u4, u5);
    GASNETT_UNUSED_ARGS6(u1, u2, u3, u4, u5, u6);
    GASNETT_UNUSED_ARGS7(u1, u2, u3, u4, u5, u6, u7);
    GASNETT_UNUSED_ARGS8(u1, u2, u3, u4, u5, u6, u7, u8);
    gasnett_assume(u8 == 8);

    /* the executable: an absolute path ending in this program's name */
    const char *exe = gasnett_exe_name();
    CHECK(exe && exe[0] == '/' && strstr(exe, "tools_names"), "gasnett_exe_name '%s'",
          exe ? exe : "(null)");
    CHECK(gasnett_exe_name() == exe, "gasnett_exe_name is stable");

    CHECK(!strcmp(gasnett_signame_fromval(SIGSEGV), "SIGSEGV") &&
          !strcmp(gasnett_signame_fromval(SIGTERM), "SIGTERM") &&
          !strcmp(gasnett_signame_fromval(SIGUSR1), "SIGUSR1"), "gasnett_signame_fromval");
    CHECK(gasnett_signame_fromval(0) == NULL && gasnett_signame_fromval(12345) == NULL,
          "gasnett_signame_fromval of a non-signal is NULL");

    /* gasnett_mmap: page-aligned, zeroed, writable */
    size_t sz = 3 * GASNETT_PAGESIZE;
    unsigned char *m = (unsigned char *)gasnett_mmap(sz);
    CHECK(m && ((uintptr_t)m % GASNETT_PAGESIZE) == 0, "gasnett_mmap alignment %p", (void *)m);
    for (size_t i = 0; i < sz; i++) CHECK(m[i] == 0, "gasnett_mmap byte %zu not zero", i);
    memset(m, 0xab, sz);
    CHECK(m[sz - 1] == 0xab, "gasnett_mmap memory is writable");

    /* gasnett_nsleep returns 0 after at least the time asked */
    gasnett_tick_t t0 = gasnett_ticks_now();
    CHECK(gasnett_nsleep(1000000) == 0, "gasnett_nsleep result");
    CHECK(gasnett_ticks_to_ns(gasnett_ticks_now() - t0) >= 1000000, "gasnett_nsleep too short");

    /* no statistics: the callback is not registered, dumping does nothing */
    (void)stats_cb; /* GASNETT_STATS_INIT, as GASNet's without statistics, ignores it */
    CHECK(GASNETT_STATS_INIT(stats_cb) == 0, "GASNETT_STATS_INIT reports disabled");
    GASNETT_STATS_DUMP(1);
    CHECK(stats_called == 0, "GASNETT_STATS_DUMP called the callback");

    /* gasnet_frozen is the flag gasnett_freezeForDebuggerErr waits on: 0 when not frozen */
    CHECK(gasnet_frozen == 0, "gasnet_frozen");
    printf("tools_names: ok\n");
    return 0;
}
