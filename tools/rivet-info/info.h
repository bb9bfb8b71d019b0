/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivet-info/info.h: rivet-info's sections, shared between its command line (main.c) and
 * the printers (transports.c, report.c). */
#ifndef RV_INFO_H
#define RV_INFO_H

#include <gasnetex.h>
#include <stdint.h>
#include <stdio.h>

#include "core/job.h"
#include "transport/transport.h"

/* One --atomics request, parsed: "DT:OP[,OP...][:FLAG[,FLAG...]]". */
typedef struct rv_info_amo {
    const char *spec;   /* as written */
    gex_DT_t    dt;
    gex_OP_t    ops;
    gex_Flags_t flags;
} rv_info_amo_t;

/* transports.c */
/* Every registered transport, its priority, whether it is built and accepts 'job', and the
 * choice with its reason (rv_tp_select, the library's own rule). */
void rv_info_transports(FILE *f, const rv_job_t *job, const char *indent);
/* A made-up job of nranks ranks in blocks on nhosts hosts, laid out as core/job.c would (with
 * RIVET_PSHM), for --shape. Returns 0 or -1 (out of memory). */
int  rv_info_fake_job(rv_job_t *job, uint32_t nranks, uint32_t nhosts);

/* report.c */
void rv_info_version(FILE *f);
void rv_info_job(FILE *f);
void rv_info_limits(FILE *f, gex_TM_t tm);
void rv_info_config(FILE *f);
/* Parses an --atomics spec; returns 0, or -1 after printing what is wrong. */
int  rv_info_amo_parse(const char *spec, rv_info_amo_t *out);
void rv_info_atomics(FILE *f, gex_TM_t tm, const rv_info_amo_t *amo, int n);

#endif /* RV_INFO_H */
