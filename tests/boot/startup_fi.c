/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/startup_fi.c: the reference for the ofi start-up ratio in startup_time.sh: what any
 * libfabric program pays before its first message, with no Rivet: loading libfabric with its
 * dependencies (dlopen, as Rivet's ofi transport does: their constructors run here), then one
 * fi_getinfo for a reliable-datagram endpoint with RMA (the first call initialises every
 * built-in provider), then a second one (what a later call costs). Prints the three times on
 * stdout; exits 0 when a provider answers. */
#include <rdma/fabric.h>

#include <dlfcn.h>
#include <stdio.h>
#include <time.h>

typedef int (*getinfo_fn)(uint32_t, const char *, const char *, uint64_t, const struct fi_info *,
                          struct fi_info **);
typedef struct fi_info *(*dupinfo_fn)(const struct fi_info *);
typedef void (*freeinfo_fn)(struct fi_info *);
typedef const char *(*strerror_fn)(int);

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

int main(void)
{
    double t0 = now();
    void *lib = dlopen("libfabric.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        fprintf(stderr, "startup_fi: %s\n", dlerror());
        return 1;
    }
    double t1 = now();
    getinfo_fn getinfo = (getinfo_fn)dlsym(lib, "fi_getinfo");
    dupinfo_fn dupinfo = (dupinfo_fn)dlsym(lib, "fi_dupinfo");
    freeinfo_fn freeinfo = (freeinfo_fn)dlsym(lib, "fi_freeinfo");
    strerror_fn errstr = (strerror_fn)dlsym(lib, "fi_strerror");
    if (!getinfo || !dupinfo || !freeinfo || !errstr) {
        fprintf(stderr, "startup_fi: libfabric lacks fi_getinfo/fi_dupinfo/fi_freeinfo\n");
        return 1;
    }
    double t[3] = { t1, 0, 0 };
    for (int k = 1; k <= 2; k++) {
        struct fi_info *hints = dupinfo(NULL), *list = NULL; /* fi_allocinfo */
        if (!hints) return 1;
        hints->caps = FI_MSG | FI_RMA;
        hints->ep_attr->type = FI_EP_RDM;
        hints->mode = FI_CONTEXT;
        int rc = getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &list);
        freeinfo(hints);
        if (rc || !list) {
            fprintf(stderr, "startup_fi: fi_getinfo: %s\n", errstr(-rc));
            return 1;
        }
        freeinfo(list);
        t[k] = now();
    }
    printf("startup_fi: load %.4f s, first fi_getinfo %.4f s, second %.4f s\n", t1 - t0,
           t[1] - t[0], t[2] - t[1]);
    return 0;
}
