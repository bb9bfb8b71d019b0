/* SPDX-License-Identifier: BSD-3-Clause */
/* core/hsl.c: handler-safe locks (a mutex; handlers may take them, never block on the network). */
#include "gasnetex.h"
#include "core/error.h"

void gex_HSL_Init(gex_HSL_t *hsl)
{
    if (pthread_mutex_init(&hsl->rv_lock, NULL)) rv_fatal("gex_HSL_Init: pthread_mutex_init failed");
}
void gex_HSL_Destroy(gex_HSL_t *hsl) { pthread_mutex_destroy(&hsl->rv_lock); }
void gex_HSL_Lock(gex_HSL_t *hsl) { pthread_mutex_lock(&hsl->rv_lock); }
void gex_HSL_Unlock(gex_HSL_t *hsl) { pthread_mutex_unlock(&hsl->rv_lock); }
int gex_HSL_Trylock(gex_HSL_t *hsl)
{
    return pthread_mutex_trylock(&hsl->rv_lock) ? GASNET_ERR_NOT_READY : GASNET_OK;
}
