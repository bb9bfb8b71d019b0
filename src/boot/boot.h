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
    const char *method;   /* "launcher" (rivetrun), "pmix", "pmi2", "fork" (GASNET_PSHM_NODES) or "singleton" */
    const char *detail;   /* what the bootstrap found, for RIVET_VERBOSE, or NULL */
    char     host[64];    /* this host's name as the launcher knows it, or "" (gethostname) */
} rv_boot_info_t;

/* Picks the bootstrap, first match wins (rv_boot_order lists them): rivetrun's own
 * (RIVET_BOOT_FD in the environment: connects to the launcher); PMIx (PMIX_RANK and
 * PMIX_NAMESPACE: srun --mpi=pmix, mpirun, prterun; boot/pmix/); PMI2 (PMI_FD and PMI_RANK:
 * srun --mpi=pmi2; boot/pmi2/); GASNET_PSHM_NODES=N
 * (N > 1) forks N ranks (boot/fork/: the calling process stays behind as their
 * supervisor and never returns); otherwise a one-process job with a fresh random secret.
 * Returns 0 on success; on failure prints the reason and returns -1. */
int rv_boot_init(rv_boot_info_t *info);

/* The bootstrap order, one line per method with what selects it and whether this build
 * has it (rivet-info prints it). */
extern const char rv_boot_order[];

/* A signal's name ("SIGKILL"), or its number written into buf when it has none we know;
 * rivetrun, the fork supervisor and gasnett_signame_fromval share this one table. */
const char *rv_boot_signame(int sig, char buf[16]);

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
