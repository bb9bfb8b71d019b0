/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/pmix/pmix_boot.h: the PMIx bootstrap (jobs started by srun --mpi=pmix, mpirun, prterun). */
#ifndef RV_BOOT_PMIX_H
#define RV_BOOT_PMIX_H

#include "boot/boot.h"

/* Whether a PMIx server started this process: PMIX_RANK and PMIX_NAMESPACE are set. */
int  rv_boot_pmix_detected(void);
/* Whether this build has the PMIx bootstrap (pmix.h was found: RIVET_HAVE_PMIX). */
int  rv_boot_pmix_built(void);

/* Each mirrors the rv_boot_* call of boot.h; boot.c picks this mode when
 * rv_boot_pmix_detected(). libpmix.so.2 is loaded (dlopen) only by rv_boot_pmix_init. */
int  rv_boot_pmix_init(rv_boot_info_t *info);
int  rv_boot_pmix_allgather(const void *mine, size_t len, void *all);
/* Ends the whole job with 'code' (PMIx_Abort); 'fatal' only changes the message. */
void rv_boot_pmix_exit_job(int code, int fatal);
void rv_boot_pmix_fini(void);

#endif /* RV_BOOT_PMIX_H */
