/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/launcher.h: the rank side of the rivetrun bootstrap (used by boot.c). */
#ifndef RV_BOOT_LAUNCHER_H
#define RV_BOOT_LAUNCHER_H

#include "boot/boot.h"

/* Each mirrors the rv_boot_* call of boot.h; boot.c picks this mode when
 * RIVET_BOOT_FD is in the environment. */
int  rv_boot_launcher_init(rv_boot_info_t *info);
int  rv_boot_launcher_allgather(const void *mine, size_t len, void *all);
/* flags: RV_BOOT_EXIT_* of proto.h (0: gasnet_exit). */
void rv_boot_launcher_exit_job(int code, unsigned flags);
/* A fatal error before rv_boot_launcher_init: tells a launcher named in the
 * environment, if there is one, that this rank stops on it. */
void rv_boot_launcher_fatal_early(int code);
void rv_boot_launcher_fini(void);

#endif /* RV_BOOT_LAUNCHER_H */
