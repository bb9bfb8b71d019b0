/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivet-info/transports.c: which transports are built, which one a job gets, and why. */
#include "info.h"
#include "core/config.h"
#include "transport/transport.h"

#include <stdlib.h>
#include <string.h>

void rv_info_transports(FILE *f, const rv_job_t *job, const char *indent)
{
    for (const rv_tp_entry_t *e = rv_tp_registry; e->name; e++) {
        const rv_tp_desc_t *d = e->desc;
        if (!d) {
            fprintf(f, "%s%-4s priority %3d  %-8s %s (not built: CMake option %s, needs %s)\n",
                    indent, e->name, e->priority, "-", e->note, e->option, e->needs);
            continue;
        }
        int ok = d->abi == RV_TP_ABI && d->probe(job) == 0;
        fprintf(f, "%s%-4s priority %3d  %-8s %s\n", indent, e->name, e->priority,
                d->abi != RV_TP_ABI ? "(ABI)" : ok ? "accepts" : "declines", e->note);
    }
    /* the library's own rule (transport/transport.c), as gex_Client_Init applies it */
    char why[512];
    const rv_tp_entry_t *e = rv_tp_select(job, why, sizeof why);
    fprintf(f, "%sselected: %s\n%swhy: %s%s\n", indent, e ? e->name : "(none)", indent, why,
            e ? "" : ": gex_Client_Init fails");
}

int rv_info_fake_job(rv_job_t *job, uint32_t nranks, uint32_t nhosts)
{
    memset(job, 0, sizeof *job);
    job->size = nranks;
    job->host_of = calloc(nranks, sizeof *job->host_of);
    job->nbrhd_of = calloc(nranks, sizeof *job->nbrhd_of);
    if (!job->host_of || !job->nbrhd_of) return -1;
    /* blocks of consecutive ranks per host, as rivetrun --hosts places them */
    uint32_t per = nranks / nhosts, extra = nranks % nhosts, r = 0;
    for (uint32_t h = 0; h < nhosts; h++)
        for (uint32_t k = 0; k < per + (h < extra); k++) job->host_of[r++] = h;
    job->host_count = nhosts;
    for (r = 0; r < nranks; r++) job->nbrhd_of[r] = rv_cfg.PSHM ? job->host_of[r] : r;
    job->nbrhd_count = rv_cfg.PSHM ? nhosts : nranks;
    for (r = 0; r < nranks; r++) {
        job->host_size += job->host_of[r] == 0;
        job->nbrhd_size += job->nbrhd_of[r] == 0;
    }
    job->host_ranks = calloc(job->host_size, sizeof *job->host_ranks);
    job->nbrhd_ranks = calloc(job->nbrhd_size, sizeof *job->nbrhd_ranks);
    if (!job->host_ranks || !job->nbrhd_ranks) return -1;
    uint32_t a = 0, b = 0;
    for (r = 0; r < nranks; r++) {
        if (job->host_of[r] == 0) job->host_ranks[a++] = r;
        if (job->nbrhd_of[r] == 0) job->nbrhd_ranks[b++] = r;
    }
    memcpy(job->secret, "00000000000000000000000000000000", 33);
    snprintf(job->hostname, sizeof job->hostname, "shape-host-0");
    return 0;
}
