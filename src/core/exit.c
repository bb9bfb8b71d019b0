/* SPDX-License-Identifier: BSD-3-Clause */
/* core/exit.c: gasnet_exit (ends the whole job) and the normal-exit hook. */
#include "core/core.h"
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>

static void rv_atexit(void)
{
    rv_boot_fini();
}

void rv_exit_install(void)
{
    atexit(rv_atexit);
}

void gasnet_exit(int exitcode)
{
    /* The launcher ends the other ranks with our code; exit() then flushes stdio
     * and runs the client's atexit handlers, like returning from main. */
    if (rv_client_g) rv_boot_exit_job(exitcode);
    exit(exitcode);
}
