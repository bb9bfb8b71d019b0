/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/boot.c: picks the bootstrap (rivetrun launcher, PMIx, PMI2, fork spawner or singleton) and
 * dispatches boot.h to it. */
#include "boot/boot.h"
#include "boot/fork/fork.h"
#include "boot/launcher/launcher.h"
#include "boot/launcher/proto.h"
#include "boot/pmi2/pmi2_boot.h"
#include "boot/pmix/pmix_boot.h"
#include "boot/singleton/singleton.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RV_BOOT_NONE, RV_BOOT_SINGLETON, RV_BOOT_LAUNCHER, RV_BOOT_PMIX, RV_BOOT_PMI2 };

static int rv_boot_mode = RV_BOOT_NONE;
static rv_boot_info_t rv_boot_info;

#ifdef RIVET_HAVE_PMIX
#define RV_BOOT_PMIX_BUILT "built"
#else
#define RV_BOOT_PMIX_BUILT "not built: no pmix.h"
#endif
#ifdef RIVET_HAVE_PMI2
#define RV_BOOT_PMI2_BUILT "built"
#else
#define RV_BOOT_PMI2_BUILT "not built: no slurm/pmi2.h"
#endif
const char rv_boot_order[] =
    "1. launcher   RIVET_BOOT_FD set (started by rivetrun)\n"
    "2. pmix       PMIX_RANK and PMIX_NAMESPACE set (srun --mpi=pmix, mpirun, prterun; "
    RV_BOOT_PMIX_BUILT ")\n"
    "3. pmi2       PMI_FD and PMI_RANK set (srun --mpi=pmi2; " RV_BOOT_PMI2_BUILT ")\n"
    "4. fork       GASNET_PSHM_NODES=N, N > 1 (this process forks N ranks)\n"
    "5. singleton  otherwise (a one-rank job)\n";

int rv_boot_init(rv_boot_info_t *info)
{
    /* A second call (e.g. a second client) sees the same job. */
    if (rv_boot_mode != RV_BOOT_NONE) {
        *info = rv_boot_info;
        return 0;
    }
    int rc;
    int mode;
    const char *fd = getenv(RV_BOOT_ENV_FD);
    uint32_t nfork = 1;
    if (fd && *fd) {
        /* A launcher started us: it decides the job; GASNET_PSHM_NODES forks nothing. */
        rc = rv_boot_launcher_init(&rv_boot_info);
        mode = RV_BOOT_LAUNCHER;
    } else if (rv_boot_pmix_detected()) {
        /* A PMIx server (srun, mpirun, prterun) started us: it decides the job. */
        rc = rv_boot_pmix_init(&rv_boot_info);
        mode = RV_BOOT_PMIX;
    } else if (rv_boot_pmi2_detected()) {
        /* A PMI2 server (srun --mpi=pmi2) started us: it decides the job. */
        rc = rv_boot_pmi2_init(&rv_boot_info);
        mode = RV_BOOT_PMI2;
    } else if (rv_boot_fork_nodes(&nfork) != 0) {
        return -1;
    } else if (nfork > 1) {
        /* Returns in each forked rank, which then speaks the launcher protocol. */
        rc = rv_boot_fork_init(&rv_boot_info, nfork);
        mode = RV_BOOT_LAUNCHER;
    } else {
        rc = rv_boot_singleton_init(&rv_boot_info);
        mode = RV_BOOT_SINGLETON;
    }
    if (rc != 0) {
        /* A PMIx or PMI2 job whose bootstrap failed must still end as a whole. */
        if (mode == RV_BOOT_PMIX) rv_boot_pmix_exit_job(1, 1);
        if (mode == RV_BOOT_PMI2) rv_boot_pmi2_exit_job(1, 1);
        return -1;
    }
    rv_boot_mode = mode;
    *info = rv_boot_info;
    return 0;
}

int rv_boot_allgather(const void *mine, size_t len, void *all)
{
    switch (rv_boot_mode) {
    case RV_BOOT_LAUNCHER:  return rv_boot_launcher_allgather(mine, len, all);
    case RV_BOOT_PMIX:      return rv_boot_pmix_allgather(mine, len, all);
    case RV_BOOT_PMI2:      return rv_boot_pmi2_allgather(mine, len, all);
    case RV_BOOT_SINGLETON: return rv_boot_singleton_allgather(mine, len, all);
    default:
        fprintf(stderr, "rivet: bootstrap collective before rv_boot_init\n");
        return -1;
    }
}

int rv_boot_barrier(void)
{
    return rv_boot_allgather(NULL, 0, NULL);
}

void rv_boot_exit_job(int code)
{
    if (rv_boot_mode == RV_BOOT_LAUNCHER) rv_boot_launcher_exit_job(code, 0);
    else if (rv_boot_mode == RV_BOOT_PMIX) rv_boot_pmix_exit_job(code, 0);
    else if (rv_boot_mode == RV_BOOT_PMI2) rv_boot_pmi2_exit_job(code, 0);
}

void rv_boot_fatal_job(int code)
{
    if (rv_boot_mode == RV_BOOT_LAUNCHER) rv_boot_launcher_exit_job(code, RV_BOOT_EXIT_FATAL);
    else if (rv_boot_mode == RV_BOOT_PMIX) rv_boot_pmix_exit_job(code, 1);
    else if (rv_boot_mode == RV_BOOT_PMI2) rv_boot_pmi2_exit_job(code, 1);
    else if (rv_boot_mode == RV_BOOT_NONE) rv_boot_launcher_fatal_early(code);
}

void rv_boot_fini(void)
{
    if (rv_boot_mode == RV_BOOT_LAUNCHER) rv_boot_launcher_fini();
    else if (rv_boot_mode == RV_BOOT_PMIX) rv_boot_pmix_fini();
    else if (rv_boot_mode == RV_BOOT_PMI2) rv_boot_pmi2_fini();
}

const char *rv_boot_signame(int sig, char buf[16])
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
