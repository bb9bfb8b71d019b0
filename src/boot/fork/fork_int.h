/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/fork/fork_int.h: the supervisor's state, shared by fork.c (spawn) and supervise.c (serve). */
#ifndef RV_BOOT_FORK_INT_H
#define RV_BOOT_FORK_INT_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "boot/boot.h"
#include "boot/launcher/serve.h"

/* The job's end, as under rivetrun (tools/rivetrun/rivetrun.h): after a gasnet_exit the
 * other ranks get a window to exit by themselves, then SIGTERM, then SIGKILL. */
#define RV_FORK_EXIT_WINDOW_MS 500
#define RV_FORK_GRACE_MS       1000
#define RV_FORK_REAP_MS        5000

typedef struct rv_fork_rank {
    pid_t    pid;
    int      fd;           /* the supervisor's end of the rank's socket; -1 once closed */
    int      reaped, status;
    rv_boot_srv_rank_t srv;   /* its part in the collectives (exiting, ncoll, ...) */
    int      out;          /* the current result is still (partly) to be sent to it */
    int      out_hdr;
    size_t   out_off;
} rv_fork_rank_t;

typedef struct rv_fork_job {
    uint32_t        n;
    rv_fork_rank_t *rank;
    char            secret[33];
    int             sigfd;
    rv_boot_srv_t   srv;           /* the collective being gathered */
    /* the result being delivered (collectives are sequential: one at a time) */
    unsigned char  *res_buf;
    size_t          res_len;
    uint32_t        res_seq;
    /* the job's fate: srv.end */
} rv_fork_job_t;

/* Serves the job until every rank is gone, cleans up, and _exits with its status. */
_Noreturn void rv_fork_supervise(rv_fork_job_t *job);

#endif /* RV_BOOT_FORK_INT_H */
