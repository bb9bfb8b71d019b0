/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/fork/fork.h: GASNet's smp way of starting a job: GASNET_PSHM_NODES=N and no launcher. */
#ifndef RV_BOOT_FORK_H
#define RV_BOOT_FORK_H

#include "boot/boot.h"

/* Most ranks a program forks by itself; larger jobs are started with rivetrun -n N. */
#define RV_BOOT_FORK_MAX 1024u

/* Reads GASNET_PSHM_NODES into *n (1 when it is unset or empty). Returns 0, or -1
 * with a message when the value is not a whole number in 1..RV_BOOT_FORK_MAX. */
int rv_boot_fork_nodes(uint32_t *n);

/* Forks n ranks (n >= 2) and returns 0 in each of them, with the launcher protocol
 * of boot/launcher/ set up over a socketpair (info filled, method "fork"). The
 * calling process stays behind as the job's supervisor, the part of rivetrun a
 * one-host job needs: it serves the bootstrap collectives, ends the job on
 * gasnet_exit, a failed rank or a signal, removes the job's /dev/shm objects and
 * leftover processes, and _exits with the job's status: it never returns.
 * Returns -1 in the calling process (message printed, nothing left running) when
 * the ranks cannot be started, e.g. when the process already runs threads. */
int rv_boot_fork_init(rv_boot_info_t *info, uint32_t n);

#endif /* RV_BOOT_FORK_H */
