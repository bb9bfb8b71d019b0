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

