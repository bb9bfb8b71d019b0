/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/tools_lock.c: the GASNet-Tools mutex, condition variable and reader/writer lock
 * wrappers over pthreads; a failing call is a fatal error naming it. */
#include "tools/tools_int.h"
#include "core/core.h"

#include <errno.h>
#include <sched.h>
#include <string.h>

static void rv_tools_lock_check(int rc, const char *call)
{
    if (rc) rv_fatal("%s: %s", call, strerror(rc));
}

void gasnett_mutex_init(gasnett_mutex_t *pl)
{
    rv_tools_lock_check(pthread_mutex_init(pl, NULL), "gasnett_mutex_init");
}
void gasnett_mutex_destroy(gasnett_mutex_t *pl)
{
    rv_tools_lock_check(pthread_mutex_destroy(pl), "gasnett_mutex_destroy");
}
int gasnett_mutex_destroy_ignoreerr(gasnett_mutex_t *pl) { return pthread_mutex_destroy(pl); }
void gasnett_mutex_lock(gasnett_mutex_t *pl)
{
    rv_tools_lock_check(pthread_mutex_lock(pl), "gasnett_mutex_lock");
}
void gasnett_mutex_unlock(gasnett_mutex_t *pl)
{
    rv_tools_lock_check(pthread_mutex_unlock(pl), "gasnett_mutex_unlock");
}
int gasnett_mutex_trylock(gasnett_mutex_t *pl)
{
    int rc = pthread_mutex_trylock(pl);
    if (rc && rc != EBUSY) rv_tools_lock_check(rc, "gasnett_mutex_trylock");
    return rc;
}

void gasnett_cond_init(gasnett_cond_t *pc)
{
    rv_tools_lock_check(pthread_cond_init(pc, NULL), "gasnett_cond_init");
}
void gasnett_cond_destroy(gasnett_cond_t *pc)
{
    rv_tools_lock_check(pthread_cond_destroy(pc), "gasnett_cond_destroy");
}
void gasnett_cond_signal(gasnett_cond_t *pc)
{
    rv_tools_lock_check(pthread_cond_signal(pc), "gasnett_cond_signal");
}
void gasnett_cond_broadcast(gasnett_cond_t *pc)
{
    rv_tools_lock_check(pthread_cond_broadcast(pc), "gasnett_cond_broadcast");
}
void gasnett_cond_wait(gasnett_cond_t *pc, gasnett_mutex_t *pl)
{
    rv_tools_lock_check(pthread_cond_wait(pc, pl), "gasnett_cond_wait");
}

void gasnett_rwlock_init(gasnett_rwlock_t *pl)
{
    rv_tools_lock_check(pthread_rwlock_init(pl, NULL), "gasnett_rwlock_init");
}
void gasnett_rwlock_destroy(gasnett_rwlock_t *pl)
{
    rv_tools_lock_check(pthread_rwlock_destroy(pl), "gasnett_rwlock_destroy");
}
void gasnett_rwlock_rdlock(gasnett_rwlock_t *pl)
{
    int rc;
    /* a reader-count limit (EAGAIN) is masked as blocking, as documented */
    while ((rc = pthread_rwlock_rdlock(pl)) == EAGAIN) sched_yield();
    rv_tools_lock_check(rc, "gasnett_rwlock_rdlock");
}
void gasnett_rwlock_wrlock(gasnett_rwlock_t *pl)
{
    rv_tools_lock_check(pthread_rwlock_wrlock(pl), "gasnett_rwlock_wrlock");
}
void gasnett_rwlock_unlock(gasnett_rwlock_t *pl)
{
    rv_tools_lock_check(pthread_rwlock_unlock(pl), "gasnett_rwlock_unlock");
}
int gasnett_rwlock_tryrdlock(gasnett_rwlock_t *pl)
{
    int rc = pthread_rwlock_tryrdlock(pl);
    if (rc && rc != EBUSY && rc != EAGAIN) rv_tools_lock_check(rc, "gasnett_rwlock_tryrdlock");
    return rc;
}
int gasnett_rwlock_trywrlock(gasnett_rwlock_t *pl)
{
    int rc = pthread_rwlock_trywrlock(pl);
    if (rc && rc != EBUSY) rv_tools_lock_check(rc, "gasnett_rwlock_trywrlock");
    return rc;
}
