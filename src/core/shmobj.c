/* SPDX-License-Identifier: BSD-3-Clause */
/* core/shmobj.c: the job's named shared-memory objects (create, map a peer's, name them by
 * the job secret), used by every transport's PSHM mapping and by created segments. */
#include "core/shmobj.h"
#include "core/core.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void rv_shmobj_name(char *buf, size_t len, const char *secret, char kind, uint32_t rank)
{
    snprintf(buf, len, "/rivet-%s-%c%u", secret, kind, rank);
}

void *rv_shmobj_create(const char *name, size_t len, int populate)
{
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        rv_warn("shm: shm_open(%s) failed: %s", name, strerror(errno));
        return NULL;
    }
    if (ftruncate(fd, (off_t)len) != 0) {
        rv_warn("shm: sizing %s to %zu bytes failed: %s", name, len, strerror(errno));
        close(fd);
        shm_unlink(name);
        return NULL;
    }
    int fl = MAP_SHARED | MAP_NORESERVE | (populate ? MAP_POPULATE : 0);
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, fl, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        rv_warn("shm: mapping %s (%zu bytes) failed: %s", name, len, strerror(errno));
        shm_unlink(name);
        return NULL;
    }
    return p;
}

void *rv_shmobj_attach(const char *name, size_t len)
{
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0) {
        rv_warn("shm: opening peer object %s failed: %s", name, strerror(errno));
        return NULL;
    }
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_NORESERVE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        rv_warn("shm: mapping peer object %s (%zu bytes) failed: %s", name, len, strerror(errno));
        return NULL;
    }
    return p;
}

void *rv_shmobj_segment(const char *who, char kind, uintptr_t size, int *ok)
{
    *ok = 1;
    if (!size) return NULL;
    if (rv_job.nbrhd_size > 1) {
        char name[96];
        rv_shmobj_name(name, sizeof name, rv_job.secret, kind, rv_job.rank);
        void *p = rv_shmobj_create(name, size, 0);
        *ok = p != NULL;
        return p;
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (p != MAP_FAILED) return p;
    rv_warn("%s: cannot allocate a %zu-byte segment", who, (size_t)size);
    *ok = 0;
    return NULL;
}

void rv_shmobj_segment_unlink(char kind)
{
    char name[96];
    rv_shmobj_name(name, sizeof name, rv_job.secret, kind, rv_job.rank);
    shm_unlink(name);
}
