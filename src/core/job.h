/* SPDX-License-Identifier: BSD-3-Clause */
/* core/job.h: the job's shape as the core computed it at init: ranks, neighbourhoods, hosts. */
#ifndef RV_JOB_H
#define RV_JOB_H

#include <stdint.h>

typedef struct rv_job {
    uint32_t  rank;          /* my jobrank */
    uint32_t  size;          /* job size */
    char      secret[33];    /* per-job secret (hex) from the bootstrap */
    char      hostname[64];  /* my host name */
    /* neighbourhood: processes that can cross-map memory (same host, PSHM on) */
    uint32_t  nbrhd_size;    /* members of my neighbourhood (>= 1) */
    uint32_t  nbrhd_index;   /* my index within it */
    uint32_t *nbrhd_ranks;   /* sorted jobranks of my neighbourhood [nbrhd_size] */
    uint32_t *nbrhd_of;      /* [size]: neighbourhood id of every jobrank */
    uint32_t  nbrhd_count;   /* number of neighbourhoods in the job */
    /* host: same OS image */
    uint32_t  host_size, host_index;
    uint32_t *host_ranks;    /* sorted jobranks on my host [host_size] */
    uint32_t *host_of;       /* [size]: host id of every jobrank */
    uint32_t  host_count;
    int       oversubscribed; /* more ranks on this host than online cores */
    int       idle_yield;     /* wait loops yield the CPU after an idle poll: oversubscribed,
                               * RIVET_WAIT_MODE=yield, or (auto) a transport whose poll is a
                               * system call anyway asked for it (transport/ofi,
                               * transport/udp) */
    int       wait_cap;       /* RIVET_WAIT_MODE=auto: idle wait loops also yield once more
                               * threads of this process wait than cores / ranks here
                               * (rv_waiters, core/progress.h); spin: INT_MAX */
    int       long_wait_yield; /* RIVET_WAIT_MODE=auto: a wait's idle polls yield once it has
                                * lasted a millisecond (core/progress.c) */
} rv_job_t;

extern rv_job_t rv_job;

/* Same neighbourhood as me? */
static inline int rv_job_in_nbrhd(uint32_t jobrank) {
    return rv_job.nbrhd_of[jobrank] == rv_job.nbrhd_of[rv_job.rank];
}

/* Agrees across the job whether every rank succeeded (ok = 1). A bootstrap allgather: also a
 * barrier. Returns 1 if all did (core/job.c). For transports' collective set-up steps. */
int rv_job_all_ok(int ok);

#endif /* RV_JOB_H */
