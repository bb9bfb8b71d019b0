/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/singleton/singleton.h: the one-process bootstrap and the job-secret generator. */
#ifndef RV_BOOT_SINGLETON_H
#define RV_BOOT_SINGLETON_H

#include "boot/boot.h"

/* Fills out[33] with 16 bytes from getrandom() as 32 lowercase hex digits + NUL.
 * Returns 0, or -1 with errno set. Used by singleton jobs and by rivetrun. */
int rv_boot_secret_new(char out[33]);

int  rv_boot_singleton_init(rv_boot_info_t *info);
int  rv_boot_singleton_allgather(const void *mine, size_t len, void *all);

#endif /* RV_BOOT_SINGLETON_H */
