/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/cleanup.c: removal of the job's leftover /dev/shm objects, and signal names. */
#include "rivetrun.h"

#include <signal.h>
#include <stdio.h>

static void rv_run_shm_removed(void *ctx, const char *name)
{
    rv_run_log(ctx, "removed leftover shared memory /dev/shm%s", name);
}

void rv_run_shm_cleanup(rv_run_job_t *job)
{
    rv_boot_srv_shm_cleanup(job->secret, "rivetrun", rv_run_shm_removed, job);
}

const char *rv_run_signame(int sig, char buf[16])
{
    static const struct { int sig; const char *name; } names[] = {
        {SIGHUP, "SIGHUP"},   {SIGINT, "SIGINT"},     {SIGQUIT, "SIGQUIT"}, {SIGILL, "SIGILL"},
        {SIGTRAP, "SIGTRAP"}, {SIGABRT, "SIGABRT"},   {SIGBUS, "SIGBUS"},   {SIGFPE, "SIGFPE"},
        {SIGKILL, "SIGKILL"}, {SIGUSR1, "SIGUSR1"},   {SIGSEGV, "SIGSEGV"}, {SIGUSR2, "SIGUSR2"},
        {SIGPIPE, "SIGPIPE"}, {SIGALRM, "SIGALRM"},   {SIGTERM, "SIGTERM"}, {SIGCHLD, "SIGCHLD"},
        {SIGCONT, "SIGCONT"}, {SIGSTOP, "SIGSTOP"},   {SIGTSTP, "SIGTSTP"}, {SIGTTIN, "SIGTTIN"},
        {SIGTTOU, "SIGTTOU"}, {SIGURG, "SIGURG"},     {SIGXCPU, "SIGXCPU"}, {SIGXFSZ, "SIGXFSZ"},
        {SIGVTALRM, "SIGVTALRM"}, {SIGPROF, "SIGPROF"}, {SIGWINCH, "SIGWINCH"},
        {SIGIO, "SIGIO"},     {SIGSYS, "SIGSYS"},
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (names[i].sig == sig) return names[i].name;
    snprintf(buf, 16, "%d", sig);
    return buf;
}
