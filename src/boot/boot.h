/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/boot.h: the bootstrap contract: job identity, allgather and barrier before the network is up. */
#ifndef RV_BOOT_H
#define RV_BOOT_H

#include <stddef.h>
#include <stdint.h>

/* What the bootstrap tells the core about this process's place in the job. */
typedef struct rv_boot_info {
    uint32_t rank;        /* jobrank, 0..size-1 */
    uint32_t size;        /* number of processes in the job */
    char     secret[33];  /* per-job random secret, 32 lowercase hex digits + NUL */
    const char *method;   /* "launcher" (rivetrun), "fork" (GASNET_PSHM_NODES) or "singleton" */
} rv_boot_info_t;

/* Connects to the launcher named in the environment (RIVET_BOOT_* set by rivetrun);
 * without one, GASNET_PSHM_NODES=N (N > 1) forks N ranks (boot/fork/: the calling
 * process stays behind as their supervisor and never returns); otherwise sets up a
 * one-process job with a fresh random secret.
 * Returns 0 on success; on failure prints the reason and returns -1. */
int rv_boot_init(rv_boot_info_t *info);

/* Collective over the whole job: every rank contributes 'len' bytes (same len on
 * every rank); 'all' receives size*len bytes, rank r's contribution at r*len.
 * Blocks (never spins a core) until every rank has contributed. Returns 0 or -1. */
int rv_boot_allgather(const void *mine, size_t len, void *all);

/* Collective over the whole job; returns when every rank has entered. 0 or -1. */
int rv_boot_barrier(void);

/* Tells the launcher that this rank ends the whole job with 'code' (gasnet_exit):
 * the launcher terminates the other ranks and exits with 'code'. Returns at once. */
void rv_boot_exit_job(int code);

/* Like rv_boot_exit_job, for a rank that stops on a fatal error (its message is
 * printed): the launcher reports it as such, not as a gasnet_exit. Works before
 * rv_boot_init too, when a launcher started this process. Returns at once. */
void rv_boot_fatal_job(int code);

/* Tells the launcher this rank is finishing normally (return from main / exit()),
 * then closes the connection. Safe to call more than once. */
void rv_boot_fini(void);

#endif /* RV_BOOT_H */
