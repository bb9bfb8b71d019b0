/* SPDX-License-Identifier: BSD-3-Clause */
/* core/fabric.c: finds a fabric device among the kernel's device nodes (core/fabric.h). */
#include "core/fabric.h"

#include <dirent.h>
#include <stdio.h>
#include <unistd.h>

/* The first entry of directory 'dir' that is not '.'-prefixed, into name[n]. */
static int rv_fabric_first(const char *dir, const char *label, char *name, size_t n)
{
    DIR *d = opendir(dir);
    if (!d) return 0;
    int any = 0;
    for (struct dirent *e; !any && (e = readdir(d));)
        if (e->d_name[0] != '.') {
            snprintf(name, n, "%s/%s", label, e->d_name);
            any = 1;
        }
    closedir(d);
    return any;
}

int rv_fabric_device(char *name, size_t n)
{
    static const char *const nodes[] = {"/dev/kgni0", "/dev/hfi1_0", "/dev/cxi0"};
    if (n) name[0] = '\0';
    /* verbs devices: InfiniBand, RoCE, Omni-Path (hfi1), AWS EFA */
    if (rv_fabric_first("/sys/class/infiniband", "infiniband", name, n)) return 1;
    /* HPE Slingshot (cxi) */
    if (rv_fabric_first("/sys/class/cxi", "cxi", name, n)) return 1;
    for (size_t i = 0; i < sizeof nodes / sizeof nodes[0]; i++)
        if (access(nodes[i], F_OK) == 0) {
            snprintf(name, n, "%s", nodes[i]);
            return 1;
        }
    return 0;
}
