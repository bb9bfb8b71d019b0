/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_misc.c: the GASNet-Tools odds and ends: the release version, the executable's
 * name, signal names and gasnett_mmap. */
#include "tools/tools_int.h"
#include "boot/boot.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

const char *gasnett_release_version_str(void)
{
    return _STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "." _STRINGIFY(GASNET_RELEASE_VERSION_MINOR)
        "." _STRINGIFY(GASNET_RELEASE_VERSION_PATCH);
}

uint64_t gasnett_release_version(void)
{
    return (uint64_t)GASNET_RELEASE_VERSION_MAJOR * 1000000u +
           (uint64_t)GASNET_RELEASE_VERSION_MINOR * 10000u + GASNET_RELEASE_VERSION_PATCH;
}

static pthread_once_t rv_tools_exe_once = PTHREAD_ONCE_INIT;
static char rv_tools_exe[PATH_MAX];

static void rv_tools_exe_init(void)
{
    ssize_t n = readlink("/proc/self/exe", rv_tools_exe, sizeof rv_tools_exe - 1);
    rv_tools_exe[n > 0 ? n : 0] = '\0';
}

const char *gasnett_exe_name(void)
{
    pthread_once(&rv_tools_exe_once, rv_tools_exe_init);
    return rv_tools_exe;
}

const char *gasnett_signame_fromval(int sigval)
{
    char num[16];
    const char *name = rv_boot_signame(sigval, num);
    return name == num ? NULL : name;   /* a number only: not a signal we know */
}

void *gasnett_mmap(uintptr_t segsize)
{
    void *p = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        gasnett_fatalerror("gasnett_mmap(%" PRIuPTR ") failed: %s", segsize, strerror(errno));
    return p;
}
