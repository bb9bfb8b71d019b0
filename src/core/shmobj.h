/* SPDX-License-Identifier: BSD-3-Clause */
/* core/shmobj.h: the job's named shared-memory objects (core/shmobj.c). */
#ifndef RV_SHMOBJ_H
#define RV_SHMOBJ_H

#include <stddef.h>
#include <stdint.h>

/* "/rivet-<secret>-<kind><rank>", the name of one shared object of this job. */
void rv_shmobj_name(char *buf, size_t len, const char *secret, char kind, uint32_t rank);

/* Creates (exclusively, mode 0600) and maps an object of len bytes. NULL on failure
 * (reason printed). */
void *rv_shmobj_create(const char *name, size_t len, int populate);

/* Maps an existing object of len bytes. NULL on failure (reason printed). */
void *rv_shmobj_attach(const char *name, size_t len);

/* A network transport's own segment of size bytes (NULL for 0): the shared object
 * <kind><my rank> when its neighbourhood has other ranks (they map it and copy directly),
 * else private anonymous memory. *ok is 0 on failure (reason printed, naming 'who'). */
void *rv_shmobj_segment(const char *who, char kind, uintptr_t size, int *ok);
/* Removes that shared object's name once the neighbourhood has mapped it. */
void rv_shmobj_segment_unlink(char kind);

#endif /* RV_SHMOBJ_H */
