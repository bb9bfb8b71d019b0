/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ucx/ucx_dl.c: loads libucp (with libuct and libucs) with dlopen on the UCX
 * transport's first use and fills rv_ucx_fn (ucx_dl.h). */
#define RV_UCX_DL_IMPL
#include "transport/ucx/ucx_dl.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

struct rv_ucx_fns rv_ucx_fn;

int rv_ucx_dl_load(const char **why)
{
    static int state; /* 0 not tried, 1 loaded, -1 failed */
    static char reason[256];
    if (state) {
        if (state < 0) *why = reason;
        return state > 0 ? 0 : -1;
    }
    static const char *const names[] = { "libucp.so.0", "libucp.so" };
    void *lib = NULL;
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !lib; i++)
        lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    /* uct_* live in libuct, which libucp needs; ask it by name in case a libucp does not */
    void *uct = lib ? dlopen("libuct.so.0", RTLD_NOW | RTLD_GLOBAL) : NULL;
    if (!lib) {
        const char *e = dlerror();
        snprintf(reason, sizeof reason, "libucp.so.0 cannot be loaded (%s)", e ? e : "?");
        *why = reason;
        state = -1;
        return -1;
    }
    struct { void **fn; const char *name; } syms[] = {
#define RV_UCX_FN_SYM(f) { (void **)&rv_ucx_fn.p_##f, #f },
        RV_UCX_FNS(RV_UCX_FN_SYM)
#undef RV_UCX_FN_SYM
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(lib, syms[i].name);
        if (!*syms[i].fn && uct) *syms[i].fn = dlsym(uct, syms[i].name);
        if (!*syms[i].fn) {
            snprintf(reason, sizeof reason, "the UCX libraries have no %s", syms[i].name);
            *why = reason;
            state = -1;
            return -1;
        }
    }
    state = 1;
    return 0;
}
