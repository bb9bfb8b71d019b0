/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_debug.c: the GASNet-Tools debugging aids: backtraces, freezing for a
 * debugger, fatal errors, fast process exit and source locations. */
#include "tools/tools_int.h"
#include "core/core.h"

#include <execinfo.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void gasnett_backtrace_init(const char *exename)
{
    (void)exename;   /* glibc's backtrace() finds the executable itself */
}

/* Defined by the client if it has its own mechanism; weak, so unresolved means "none". */
extern gasnett_backtrace_type_t gasnett_backtrace_user __attribute__((__weak__));

int gasnett_print_backtrace(int fd)
{
    if (&gasnett_backtrace_user && gasnett_backtrace_user.fnp &&
        gasnett_backtrace_user.fnp(fd) == 0)
        return 0;
    void *frames[64];
    int n = backtrace(frames, 64);
    if (n <= 0) return 1;
    char head[96];
    int len = snprintf(head, sizeof head, "rivet: backtrace of pid %d:\n", (int)getpid());
    if (write(fd, head, (size_t)len) < 0) return 1;
    backtrace_symbols_fd(frames, n, fd);
    return 0;
}

/* GASNET_BACKTRACE (or RIVET_BACKTRACE), read at call time so it works before init too. */
static int rv_tools_backtrace_ifenabled(int fd)
{
    if (!rv_tools_env_flag("RIVET_BACKTRACE", "GASNET_BACKTRACE", 0)) return 1;
    return gasnett_print_backtrace(fd);
}

int (*gasnett_print_backtrace_ifenabled)(int fd) = rv_tools_backtrace_ifenabled;

/* The flag gasnett_freezeForDebuggerErr waits on: set it to 0 in the debugger. */
volatile int gasnet_frozen;

void gasnett_freezeForDebuggerNow(volatile int *flag, const char *flagsymname)
{
    if (!flag) return;
    *flag = 1;
    fprintf(stderr, "rivet: process %d on %s is frozen for a debugger: attach with "
            "'gdb -p %d', then 'set var %s = 0' and 'continue'\n",
            (int)getpid(), gasnett_gethostname(), (int)getpid(), flagsymname ? flagsymname : "?");
    fflush(stderr);
    /* a human is on the other end: check ten times a second, use no CPU in between */
    const struct timespec tenth = { 0, 100000000L };
    while (*flag) nanosleep(&tenth, NULL);
}

void gasnett_freezeForDebuggerErr(void)
{
    if (rv_tools_env_flag("RIVET_FREEZE_ON_ERROR", "GASNET_FREEZE_ON_ERROR", 0))
        gasnett_freezeForDebuggerNow(&gasnet_frozen, "gasnet_frozen");
}

static void rv_tools_fatal_msg(const char *msg) __attribute__((__noreturn__));
static void rv_tools_fatal_msg(const char *msg)
{
    gasnett_freezeForDebuggerErr();
    /* after gex_Client_Init rv_fatal prints the backtrace itself (GASNET_BACKTRACE) */
    if (!rv_job.size) (void)gasnett_print_backtrace_ifenabled(2);
    rv_fatal("%s", msg);
}

#define RV_TOOLS_FATAL_FORMAT(buf, msg)                            \
    do {                                                           \
        va_list ap;                                                \
        va_start(ap, msg);                                         \
        vsnprintf(buf, sizeof buf, msg ? msg : "(null)", ap);      \
        va_end(ap);                                                \
    } while (0)

void gasnett_fatalerror(const char *msg, ...)
{
    char buf[4096];
    RV_TOOLS_FATAL_FORMAT(buf, msg);
    rv_tools_fatal_msg(buf);
}

/* GASNet's variant without the caller's position: Rivet's gasnett_fatalerror prints none
 * either, so the two are the same. */
void gasnett_fatalerror_nopos(const char *msg, ...)
{
    char buf[4096];
    RV_TOOLS_FATAL_FORMAT(buf, msg);
    rv_tools_fatal_msg(buf);
}

void gasnett_killmyprocess(int exitcode)
{
    _exit(exitcode);
}

char *_rivet_tools_current_loc(const char *file, int line, const char *func)
{
    size_t n = strlen(file ? file : "") + strlen(func ? func : "") + 32;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s at %s:%d", func ? func : "?", file ? file : "?", line);
    return s;
}
