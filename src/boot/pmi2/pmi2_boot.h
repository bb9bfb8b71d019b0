/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/pmi2/pmi2_boot.h: the PMI2 bootstrap (jobs started by srun --mpi=pmi2). */
#ifndef RV_BOOT_PMI2_H
#define RV_BOOT_PMI2_H

#include "boot/boot.h"

/* Whether a PMI2 server started this process: PMI_FD and PMI_RANK are set. */
int  rv_boot_pmi2_detected(void);
/* Whether this build has the PMI2 bootstrap (slurm/pmi2.h was found: RIVET_HAVE_PMI2). */
int  rv_boot_pmi2_built(void);

/* Each mirrors the rv_boot_* call of boot.h; boot.c picks this mode when
 * rv_boot_pmi2_detected() (and no rivetrun or PMIx server started us). libpmi2.so.0 is
 * loaded (dlopen) only by rv_boot_pmi2_init. */
int  rv_boot_pmi2_init(rv_boot_info_t *info);
int  rv_boot_pmi2_allgather(const void *mine, size_t len, void *all);
/* Ends the whole job with 'code'. fatal: at once, through PMI2_Abort. Otherwise (gasnet_exit)
 * first an exit fence, so that ranks which all call gasnet_exit end by themselves with their
 * code; PMI2_Abort only when the other ranks do not follow within a few seconds. */
void rv_boot_pmi2_exit_job(int code, int fatal);
void rv_boot_pmi2_fini(void);

#endif /* RV_BOOT_PMI2_H */
