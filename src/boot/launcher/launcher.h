/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/launcher.h: the rank side of the rivetrun bootstrap (used by boot.c). */
#ifndef RV_BOOT_LAUNCHER_H
#define RV_BOOT_LAUNCHER_H

#include "boot/boot.h"

/* Each mirrors the rv_boot_* call of boot.h; boot.c picks this mode when
 * RIVET_BOOT_FD is in the environment. */
int  rv_boot_launcher_init(rv_boot_info_t *info);
int  rv_boot_launcher_allgather(const void *mine, size_t len, void *all);
void rv_boot_launcher_exit_job(int code);
void rv_boot_launcher_fini(void);

#endif /* RV_BOOT_LAUNCHER_H */
