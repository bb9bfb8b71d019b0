/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/singleton/singleton.c: a program run without a launcher is rank 0 of a one-process job. */
#include "boot/singleton/singleton.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

int rv_boot_secret_new(char out[33])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[16];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        out[2 * i] = hex[raw[i] >> 4];
        out[2 * i + 1] = hex[raw[i] & 15];
    }
    out[32] = '\0';
    return 0;
}

int rv_boot_singleton_init(rv_boot_info_t *info)
{
    memset(info, 0, sizeof *info);
    info->rank = 0;
    info->size = 1;
    info->method = "singleton";
    if (rv_boot_secret_new(info->secret) != 0) {
        fprintf(stderr, "rivet: bootstrap: getrandom() failed for the job secret: %s\n",
                strerror(errno));
        return -1;
    }
    return 0;
}

int rv_boot_singleton_allgather(const void *mine, size_t len, void *all)
{
    if (len && mine != all) memmove(all, mine, len);
    return 0;
}
