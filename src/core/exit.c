/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exit.c: gasnet_exit (ends the whole job), the normal-exit hook, and the exit signals:
 * SIGQUIT tells a rank that the job is ending (GASNet-1 spec, gasnet_exit). rivetrun ends the
 * other ranks with SIGTERM; that, and a SIGINT or SIGHUP reaching a rank, is turned into a
 * SIGQUIT here, so a client's SIGQUIT handler sees every way the job can end and may call
 * gasnet_exit. Without a client handler the rank ends as the original signal would have
 * ended it (a SIGQUIT sent directly: as SIGTERM would, without a core file). Crash signals
 * keep their default action (a crash is reported as one), unless the client or a tool (a
 * sanitizer, a debugger) catches them; with RIVET_STATS or RIVET_TRACE on, a handler first
 * writes the rank's counters and events, then the crash goes on as before (the default action,
 * or the sanitizer's handler it was installed over). A rank whose transport finds a peer gone first waits
 * for that end (rv_exit_await_end) before calling it a failure of its own. */
#include "core/core.h"
#include "boot/boot.h"
#include "core/trace.h"
#include "core/stats.h"

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* How long a rank that finds a peer gone waits for the job's end to reach it: more than
 * rivetrun's exit window (500 ms) before it ends the other ranks. */
#define RV_EXIT_AWAIT_MS 2000

static volatile sig_atomic_t rv_exit_sig; /* the terminating signal that became a SIGQUIT */

/* SIGQUIT with no client handler: end by the original signal's default action. */
static void rv_exit_sigquit(int sig)
{
    (void)sig;
    int orig = rv_exit_sig ? (int)rv_exit_sig : SIGTERM;
    rv_trace_fini_signal(); /* the job is ending: keep this rank's events */
    rv_stats_dump("signal"); /* the counters so far (one write, no allocation) */
    signal(orig, SIG_DFL);
    sigset_t s;
    sigemptyset(&s);
    sigaddset(&s, orig);
    sigprocmask(SIG_UNBLOCK, &s, NULL); /* we may be inside orig's own handler */
    raise(orig);
    _exit(128 + orig);
}

/* Crash signals with stats or trace on: what ran before us (SIG_DFL, or a sanitizer's). */
static const int rv_exit_crash_sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
#define RV_EXIT_NCRASH (sizeof rv_exit_crash_sigs / sizeof rv_exit_crash_sigs[0])
static struct sigaction rv_exit_crash_prev[RV_EXIT_NCRASH];

static void rv_exit_crash(int sig, siginfo_t *si, void *uc)
{
    (void)si;
    (void)uc;
    size_t i = 0;
    while (i + 1 < RV_EXIT_NCRASH && rv_exit_crash_sigs[i] != sig) i++;
    /* the previous action first: a fault inside what follows ends the rank as it would have */
    sigaction(sig, &rv_exit_crash_prev[i], NULL);
    char sb[16]; /* rv_boot_signame: a constant string for these signals (no snprintf) */
    rv_stats_dump_sig("crash", rv_boot_signame(sig, sb)); /* static buffer, one write(2) */
    rv_trace_fini_signal();
    /* pending until we return: then the default action (or the sanitizer) takes it; a
     * faulting instruction would fault again anyway */
    raise(sig);
}

static int rv_exit_sanitizer(const struct sigaction *old)
{
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) return 0;
    Dl_info di;
    void *fn = (old->sa_flags & SA_SIGINFO) ? (void *)old->sa_sigaction : (void *)old->sa_handler;
    return dladdr(fn, &di) && di.dli_fname &&
           (strstr(di.dli_fname, "libasan") || strstr(di.dli_fname, "libtsan") ||
            strstr(di.dli_fname, "libubsan") || strstr(di.dli_fname, "clang_rt"));
}

static void rv_exit_sigterm(int sig)
{
    rv_exit_sig = sig;
    raise(SIGQUIT);
}

/* Whether the current handler of sig was installed by a network library we link, not by the
 * client: libinfinipath (loaded with libfabric's psm provider) catches SIGINT, SIGTERM and
 * every crash signal at load time and calls exit(1), which would hide how a rank ended; UCX's
 * libucs catches the crash signals at load time (UCX_ERROR_SIGNALS) and exits 1 likewise. */
static int rv_exit_foreign(const struct sigaction *old)
{
    if (old->sa_handler == SIG_DFL || old->sa_handler == SIG_IGN) return 0;
    Dl_info di;
    void *fn = (old->sa_flags & SA_SIGINFO) ? (void *)old->sa_sigaction : (void *)old->sa_handler;
    return dladdr(fn, &di) && di.dli_fname &&
           (strstr(di.dli_fname, "libinfinipath") || strstr(di.dli_fname, "libucs"));
}

/* Installs fn (SIG_DFL: restores the default) where the signal has its default action or a
 * foreign handler: a client's own handler (or SIG_IGN, as under nohup) stays. */
static void rv_exit_catch(int sig, void (*fn)(int))
{
    struct sigaction sa, old;
    if (sigaction(sig, NULL, &old)) return;
    if (old.sa_handler != SIG_DFL && !rv_exit_foreign(&old)) return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = fn == SIG_DFL ? 0 : SA_RESTART;
    sigaction(sig, &sa, NULL);
}

static void rv_atexit(void)
{
    rv_trace_fini();
    rv_stats_dump("exit");
    rv_boot_fini();
}

void rv_exit_install(void)
{
    atexit(rv_atexit);
    rv_exit_catch(SIGQUIT, rv_exit_sigquit);
    rv_exit_catch(SIGINT, rv_exit_sigterm);
    rv_exit_catch(SIGTERM, rv_exit_sigterm);
    rv_exit_catch(SIGHUP, rv_exit_sigterm);
    for (size_t i = 0; i < RV_EXIT_NCRASH; i++) {
        int sig = rv_exit_crash_sigs[i];
        rv_exit_catch(sig, SIG_DFL);
        if (!RV_OBS_ON(RV_OBS_STATS | RV_OBS_TRACE)) continue;
        struct sigaction old, sa;
        if (sigaction(sig, NULL, &old)) continue;
        if (old.sa_handler != SIG_DFL && !rv_exit_sanitizer(&old)) continue; /* the client's */
        rv_exit_crash_prev[i] = old;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = rv_exit_crash;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_SIGINFO;
        sigaction(sig, &sa, NULL);
    }
}

void rv_exit_await_end(void)
{
    if (rv_job.size < 2) return;
    const struct timespec step = {0, 10 * 1000 * 1000};
    for (int ms = 0; ms < RV_EXIT_AWAIT_MS; ms += 10) nanosleep(&step, NULL);
}

void gasnet_exit(int exitcode)
{
    /* The launcher ends the other ranks with our code; exit() then flushes stdio
     * and runs the client's atexit handlers, like returning from main. */
    rv_trace_exit_begin();
    if (rv_client_g) rv_boot_exit_job(exitcode);
    exit(exitcode);
}
