/* SPDX-License-Identifier: BSD-3-Clause */
/* core/job.c: works out the job's hosts and neighbourhoods from the bootstrap allgather. */
#include "core/core.h"
#include "core/job_int.h"
#include "boot/boot.h"

#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

rv_job_t rv_job;

/* Groups ranks by key: of[r] = group id (ids in order of first appearance), and
 * lists my group's members (ascending, since r ascends). */
static void rv_job_group(const char *keys, size_t keylen, uint32_t n, uint32_t me,
                         uint32_t *of, uint32_t *count, uint32_t **members, uint32_t *msize,
                         uint32_t *mindex)
{
    uint32_t groups = 0;
    for (uint32_t r = 0; r < n; r++) {
        of[r] = UINT32_MAX;
        for (uint32_t q = 0; q < r; q++)
            if (!memcmp(keys + (size_t)q * keylen, keys + (size_t)r * keylen, keylen)) {
                of[r] = of[q];
                break;
            }
        if (of[r] == UINT32_MAX) of[r] = groups++;
    }
    *count = groups;
    uint32_t k = 0;
    for (uint32_t r = 0; r < n; r++) k += of[r] == of[me];
    *members = malloc(k * sizeof **members);
    if (!*members) rv_fatal("out of memory computing the job layout");
    *msize = k;
    k = 0;
    for (uint32_t r = 0; r < n; r++) {
        if (of[r] != of[me]) continue;
        if (r == me) *mindex = k;
        (*members)[k++] = r;
    }
}

static int rv_online_cpus(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void rv_job_init(const rv_boot_info_t *bi)
{
    rv_job.rank = bi->rank;
    rv_job.size = bi->size;
    memcpy(rv_job.secret, bi->secret, sizeof rv_job.secret);
    if (rv_cfg.HOSTNAME[0]) snprintf(rv_job.hostname, sizeof rv_job.hostname, "%s", rv_cfg.HOSTNAME);
    else if (bi->host[0]) snprintf(rv_job.hostname, sizeof rv_job.hostname, "%s", bi->host);
    else gethostname(rv_job.hostname, sizeof rv_job.hostname - 1);

    rv_verbose(1, "bootstrap: %s%s%s", bi->method, bi->detail ? ": " : "", bi->detail ? bi->detail : "");

    uint32_t n = rv_job.size;
    char *names = calloc(n, sizeof rv_job.hostname);
    rv_job.host_of = malloc(n * sizeof(uint32_t));
    rv_job.nbrhd_of = malloc(n * sizeof(uint32_t));
    if (!names || !rv_job.host_of || !rv_job.nbrhd_of) rv_fatal("out of memory at start-up");
    if (rv_boot_allgather(rv_job.hostname, sizeof rv_job.hostname, names))
        rv_fatal("bootstrap allgather of host names failed");
    rv_job_group(names, sizeof rv_job.hostname, n, rv_job.rank, rv_job.host_of, &rv_job.host_count,
                 &rv_job.host_ranks, &rv_job.host_size, &rv_job.host_index);
    free(names);

    if (rv_cfg.PSHM && rv_cfg.SUPERNODE_MAXSIZE) {
        /* GASNET_SUPERNODE_MAXSIZE: a host's ranks, in jobrank order, are cut into
         * neighbourhoods of at most that many consecutive ones. */
        uint64_t *keys = calloc(n, sizeof *keys);
        uint32_t *seen = calloc(rv_job.host_count, sizeof *seen);
        if (!keys || !seen) rv_fatal("out of memory at start-up");
        for (uint32_t r = 0; r < n; r++) {
            uint32_t h = rv_job.host_of[r];
            keys[r] = (uint64_t)h << 32 | (uint32_t)(seen[h]++ / rv_cfg.SUPERNODE_MAXSIZE);
        }
        rv_job_group((const char *)keys, sizeof *keys, n, rv_job.rank, rv_job.nbrhd_of,
                     &rv_job.nbrhd_count, &rv_job.nbrhd_ranks, &rv_job.nbrhd_size,
                     &rv_job.nbrhd_index);
        free(keys);
        free(seen);
    } else if (rv_cfg.PSHM) {
        memcpy(rv_job.nbrhd_of, rv_job.host_of, n * sizeof(uint32_t));
        rv_job.nbrhd_count = rv_job.host_count;
        rv_job.nbrhd_size = rv_job.host_size;
        rv_job.nbrhd_index = rv_job.host_index;
        rv_job.nbrhd_ranks = rv_job.host_ranks;
    } else {
        for (uint32_t r = 0; r < n; r++) rv_job.nbrhd_of[r] = r;
        rv_job.nbrhd_count = n;
        rv_job.nbrhd_size = 1;
        rv_job.nbrhd_index = 0;
        rv_job.nbrhd_ranks = malloc(sizeof(uint32_t));
        if (!rv_job.nbrhd_ranks) rv_fatal("out of memory at start-up");
        rv_job.nbrhd_ranks[0] = rv_job.rank;
    }

    int cpus = rv_online_cpus();
    if (!strcmp(rv_cfg.WAIT_MODE, "yield"))
        rv_job.oversubscribed = 1;
    else if (!strcmp(rv_cfg.WAIT_MODE, "spin"))
        rv_job.oversubscribed = 0;
    else if (!strcmp(rv_cfg.WAIT_MODE, "auto"))
        rv_job.oversubscribed = (int)rv_job.host_size > cpus;
    else
        rv_fatal("environment: RIVET_WAIT_MODE=%s is not one of spin, yield, auto", rv_cfg.WAIT_MODE);
    rv_job.idle_yield = rv_job.oversubscribed;
    /* threads waiting x ranks here > cores: waiting threads share the cores, so they yield */
    rv_job.wait_cap = strcmp(rv_cfg.WAIT_MODE, "spin") ? cpus / (int)rv_job.host_size : INT_MAX;
    rv_job.long_wait_yield = !strcmp(rv_cfg.WAIT_MODE, "auto");

    char crowd[64] = "";
    if (!rv_job.oversubscribed && rv_job.wait_cap != INT_MAX)
        snprintf(crowd, sizeof crowd, ": wait loops yield while over %d thread(s) here wait",
                 rv_job.wait_cap);
    rv_verbose(1, "job of %u ranks on %u host(s), %u neighbourhood(s); %u rank(s) here on %d cpu(s)%s",
               n, rv_job.host_count, rv_job.nbrhd_count, rv_job.host_size, cpus,
               rv_job.oversubscribed ? ": wait loops yield" : crowd);
}

int rv_job_all_ok(int ok)
{
    uint32_t size = rv_job.size;
    uint8_t *all = calloc(size, 1);
    uint8_t mine = (uint8_t)(ok != 0);
    int res = all && rv_boot_allgather(&mine, 1, all) == 0;
    for (uint32_t r = 0; res && r < size; r++)
        if (!all[r]) res = 0;
    free(all);
    return res;
}
