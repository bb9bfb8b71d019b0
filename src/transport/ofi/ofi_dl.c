/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_dl.c: loads libfabric with dlopen on the ofi transport's first use (its
 * probe) and fills rv_ofi_fn, the table of the libfabric functions Rivet calls. */
#define RV_OFI_DL_IMPL
#include "transport/ofi/ofi_int.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

struct rv_ofi_fns rv_ofi_fn;

int rv_ofi_dl_load(const char **why)
{
    static int state; /* 0 not tried, 1 loaded, -1 failed */
    static char reason[256];
    if (state) {
        if (state < 0) *why = reason;
        return state > 0 ? 0 : -1;
    }
    /* the SONAME first (the ABI the headers describe), then the development link */
    static const char *const names[] = { "libfabric.so.1", "libfabric.so" };
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        const char *e = dlerror();
        snprintf(reason, sizeof reason, "libfabric.so.1 cannot be loaded (%s)", e ? e : "?");
        *why = reason;
        state = -1;
        return -1;
    }
    struct { void **fn; const char *name; } syms[] = {
        { (void **)&rv_ofi_fn.getinfo, "fi_getinfo" },   { (void **)&rv_ofi_fn.freeinfo, "fi_freeinfo" },
        { (void **)&rv_ofi_fn.dupinfo, "fi_dupinfo" },   { (void **)&rv_ofi_fn.fabric, "fi_fabric" },
        { (void **)&rv_ofi_fn.strerror, "fi_strerror" }, { (void **)&rv_ofi_fn.version, "fi_version" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(lib, syms[i].name);
        if (!*syms[i].fn) {
            snprintf(reason, sizeof reason, "libfabric has no %s", syms[i].name);
            *why = reason;
            state = -1;
            return -1;
        }
    }
    state = 1;
    return 0;
}
