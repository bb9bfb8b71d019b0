/* SPDX-License-Identifier: BSD-3-Clause */
/* core/job_int.h: core-private entry points of job.c. */
#ifndef RV_JOB_INT_H
#define RV_JOB_INT_H

#include "boot/boot.h"

/* Fills rv_job from the bootstrap (collective: allgathers host names). */
void rv_job_init(const rv_boot_info_t *bi);

#endif /* RV_JOB_INT_H */
