/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/boot.c: picks the bootstrap (rivetrun launcher, fork spawner or singleton) and dispatches boot.h to it. */
#include "boot/boot.h"
#include "boot/fork/fork.h"
#include "boot/launcher/launcher.h"
#include "boot/launcher/proto.h"
#include "boot/singleton/singleton.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { RV_BOOT_NONE, RV_BOOT_SINGLETON, RV_BOOT_LAUNCHER };

static int rv_boot_mode = RV_BOOT_NONE;
static rv_boot_info_t rv_boot_info;

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
    if (rc != 0) return -1;
    rv_boot_mode = mode;
    *info = rv_boot_info;
    return 0;
}

int rv_boot_allgather(const void *mine, size_t len, void *all)
{
    switch (rv_boot_mode) {
    case RV_BOOT_LAUNCHER:  return rv_boot_launcher_allgather(mine, len, all);
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
}

void rv_boot_fatal_job(int code)
{
    if (rv_boot_mode == RV_BOOT_LAUNCHER) rv_boot_launcher_exit_job(code, RV_BOOT_EXIT_FATAL);
    else if (rv_boot_mode == RV_BOOT_NONE) rv_boot_launcher_fatal_early(code);
}

void rv_boot_fini(void)
{
    if (rv_boot_mode == RV_BOOT_LAUNCHER) rv_boot_launcher_fini();
}
