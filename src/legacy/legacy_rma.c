/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_rma.c: the GASNet-1 RMA calls with no direct EX counterpart: remote memset
 * (Puts from a pattern buffer) and the split-phase value Get (gasnet_get_nb_val). */
#include "legacy/legacy_int.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

/* ---- memset ------------------------------------------------------------------
 * The destination is filled by Puts from a pattern buffer, so memset works to every
 * peer over every transport with the RMA engine's own checks. There is one immutable
 * buffer per byte value, made on first use and shared by all threads; they are not
 * thread-locals because librivet.so must stay loadable with dlopen, whose static TLS
 * reserve is a few hundred bytes (tests/clients/client_plugin.c). */
#define RV_MEMSET_CHUNK 4096

static unsigned char *_Atomic rv_memset_bufs[256];

static const void *rv_memset_pattern(int val)
{
    unsigned char c = (unsigned char)val;
    unsigned char *b = atomic_load_explicit(&rv_memset_bufs[c], memory_order_acquire);
    if (!b) {
        unsigned char *nb = malloc(RV_MEMSET_CHUNK), *expect = NULL;
        if (!nb)
            rv_fatal("gasnet_memset: out of memory for a %d-byte pattern buffer", RV_MEMSET_CHUNK);
        memset(nb, c, RV_MEMSET_CHUNK);
        if (atomic_compare_exchange_strong_explicit(&rv_memset_bufs[c], &expect, nb,
                                                    memory_order_acq_rel, memory_order_acquire)) {
            b = nb;
        } else {
            free(nb); /* another thread published one first */
            b = expect;
        }
    }
    return b;
}

void gasnet_memset(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_memset");
    const void *pat = rv_memset_pattern(val);
    for (char *d = dest; nbytes;) {
        size_t n = nbytes < RV_MEMSET_CHUNK ? nbytes : RV_MEMSET_CHUNK;
        (void)gex_RMA_PutBlocking(tm, node, d, pat, n, 0);
        d += n;
        nbytes -= n;
    }
    rv_legacy_blocking_progress();
}

void gasnet_memset_nbi(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_memset_nbi");
    const void *pat = rv_memset_pattern(val);
    for (char *d = dest; nbytes;) {
        size_t n = nbytes < RV_MEMSET_CHUNK ? nbytes : RV_MEMSET_CHUNK;
        (void)gex_RMA_PutNBI(tm, node, d, pat, n, GEX_EVENT_NOW, 0);
        d += n;
        nbytes -= n;
    }
}

gasnet_handle_t gasnet_memset_nb(gasnet_node_t node, void *dest, int val, size_t nbytes)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_memset_nb");
    const void *pat = rv_memset_pattern(val);
    char *d = dest;
    if (!nbytes) return GASNET_INVALID_HANDLE;
    /* all but the last chunk complete before return; the handle covers the last one */
    while (nbytes > RV_MEMSET_CHUNK) {
        (void)gex_RMA_PutBlocking(tm, node, d, pat, RV_MEMSET_CHUNK, 0);
        d += RV_MEMSET_CHUNK;
        nbytes -= RV_MEMSET_CHUNK;
    }
    return gex_RMA_PutNB(tm, node, d, pat, nbytes, GEX_EVENT_NOW, 0);
}

/* ---- split-phase value Get ------------------------------------------------------
 * A valget handle is a small record from a per-thread free list: the Get lands in
 * its value (low-order bytes, per the host's byte order) and the event tracks it. */
struct rv_valget {
    struct rv_valget       *next;
    gex_Event_t             ev;
    gasnet_register_value_t val;
};

static _Thread_local struct rv_valget *rv_valget_free;

gasnet_valget_handle_t gasnet_get_nb_val(gasnet_node_t node, void *src, size_t nbytes)
{
    gex_TM_t tm = rv_legacy_tm_get("gasnet_get_nb_val");
    if (nbytes == 0 || nbytes > SIZEOF_GASNET_REGISTER_VALUE_T)
        rv_fatal("gasnet_get_nb_val: nbytes=%zu must be between 1 and %d", nbytes,
                 SIZEOF_GASNET_REGISTER_VALUE_T);
    struct rv_valget *h = rv_valget_free;
    if (h) {
        rv_valget_free = h->next;
    } else {
        h = malloc(sizeof *h);
        if (!h) rv_fatal("gasnet_get_nb_val: out of memory");
    }
    h->val = 0;
    char *dst = (char *)&h->val;
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    dst += sizeof h->val - nbytes;
#endif
    h->ev = gex_RMA_GetNB(tm, dst, node, src, nbytes, 0);
    return h;
}

gasnet_register_value_t gasnet_wait_syncnb_valget(gasnet_valget_handle_t handle)
{
    if (!handle) rv_fatal("gasnet_wait_syncnb_valget: handle is NULL");
    gex_Event_Wait(handle->ev);
    gasnet_register_value_t v = handle->val;
    handle->next = rv_valget_free;
    rv_valget_free = handle;
    return v;
}
