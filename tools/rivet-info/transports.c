/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivet-info/transports.c: which transports are built, which one a job gets, and why. */
#include "info.h"
#include "core/config.h"

#include <stdlib.h>
#include <string.h>

/* What each known transport serves, in a few words (unknown ones print none). */
static const char *rv_info_tp_note(const char *name)
{
    if (!strcmp(name, "shm")) return "shared memory: serves jobs whose ranks all share one neighbourhood";
    if (!strcmp(name, "ofi")) return "libfabric: serves any job when a usable provider exists (never 'sockets' by default)";
    if (!strcmp(name, "ucx")) return "UCX (UCP): serves any job, ahead of ofi, when UCX finds an RDMA device; else only when RIVET_TRANSPORT=ucx (RIVET_VERBOSE=1 says which)";
    return "";
}

const rv_tp_desc_t *rv_info_select(const rv_job_t *job, char *why, size_t n)
{
    const char *want = rv_cfg.TRANSPORT;
    const rv_tp_desc_t *best = NULL;
    int found = 0;
    for (int i = 0; rv_tp_builtin[i]; i++) {
        const rv_tp_desc_t *d = rv_tp_builtin[i];
        if (d->abi != RV_TP_ABI) continue;
        if (want[0] && strcmp(want, d->name)) continue;
        found = 1;
        if (best && d->priority <= best->priority) continue;
        if (d->probe(job) == 0) best = d;
    }
    if (want[0]) {
        if (!found) snprintf(why, n, "RIVET_TRANSPORT=%s is not a transport built into this library", want);
        else if (!best) snprintf(why, n, "RIVET_TRANSPORT=%s asks for it, but it declines this job: "
                                 "gex_Client_Init fails", want);
        else snprintf(why, n, "RIVET_TRANSPORT=%s asks for it and it accepts this job", want);
    } else if (best) {
        snprintf(why, n, "RIVET_TRANSPORT is empty: %s is the highest-priority transport that "
                 "accepts this job (%u rank(s) in %u neighbourhood(s)%s)", best->name, job->size,
                 job->nbrhd_count, rv_cfg.PSHM ? "" : ", RIVET_PSHM=0");
    } else {
        snprintf(why, n, "no built transport accepts this job (%u rank(s) in %u neighbourhood(s)): "
                 "gex_Client_Init fails", job->size, job->nbrhd_count);
    }
    return best;
}

void rv_info_transports(FILE *f, const rv_job_t *job, const char *indent)
{
    for (int i = 0; rv_tp_builtin[i]; i++) {
        const rv_tp_desc_t *d = rv_tp_builtin[i];
        int ok = d->abi == RV_TP_ABI && d->probe(job) == 0;
        fprintf(f, "%s%-4s priority %3d  %-8s %s\n", indent, d->name, d->priority,
                d->abi != RV_TP_ABI ? "(ABI)" : ok ? "accepts" : "declines", rv_info_tp_note(d->name));
    }
    char why[512];
    const rv_tp_desc_t *d = rv_info_select(job, why, sizeof why);
    fprintf(f, "%sselected: %s\n%swhy: %s\n", indent, d ? d->name : "(none)", indent, why);
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
