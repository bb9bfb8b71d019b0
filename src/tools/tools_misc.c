/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_misc.c: the GASNet-Tools odds and ends: the release version, the executable's
 * name, signal names and gasnett_mmap. */
#include "tools/tools_int.h"

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
    static const struct { int sig; const char *name; } names[] = {
        { SIGHUP, "SIGHUP" },   { SIGINT, "SIGINT" },     { SIGQUIT, "SIGQUIT" },
        { SIGILL, "SIGILL" },   { SIGTRAP, "SIGTRAP" },   { SIGABRT, "SIGABRT" },
        { SIGBUS, "SIGBUS" },   { SIGFPE, "SIGFPE" },     { SIGKILL, "SIGKILL" },
        { SIGUSR1, "SIGUSR1" }, { SIGSEGV, "SIGSEGV" },   { SIGUSR2, "SIGUSR2" },
        { SIGPIPE, "SIGPIPE" }, { SIGALRM, "SIGALRM" },   { SIGTERM, "SIGTERM" },
        { SIGCHLD, "SIGCHLD" }, { SIGCONT, "SIGCONT" },   { SIGSTOP, "SIGSTOP" },
        { SIGTSTP, "SIGTSTP" }, { SIGTTIN, "SIGTTIN" },   { SIGTTOU, "SIGTTOU" },
        { SIGURG, "SIGURG" },   { SIGXCPU, "SIGXCPU" },   { SIGXFSZ, "SIGXFSZ" },
        { SIGVTALRM, "SIGVTALRM" }, { SIGPROF, "SIGPROF" }, { SIGWINCH, "SIGWINCH" },
        { SIGIO, "SIGIO" },     { SIGSYS, "SIGSYS" },
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sigval) return names[i].name;
    return NULL;
}

void *gasnett_mmap(uintptr_t segsize)
{
    void *p = mmap(NULL, segsize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        gasnett_fatalerror("gasnett_mmap(%" PRIuPTR ") failed: %s", segsize, strerror(errno));
    return p;
}
