/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_rma.c: the GASNet-1 RMA calls with no direct EX counterpart: remote memset
 * (Puts from a pattern buffer) and the split-phase value Get (gasnet_get_nb_val). */
#include "legacy/legacy_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- memset ------------------------------------------------------------------
 * The destination is filled by Puts from a thread-local pattern buffer, so memset
 * works to every peer over every transport with the RMA engine's own checks. */
#define RV_MEMSET_CHUNK 4096

static _Thread_local unsigned char rv_memset_buf[RV_MEMSET_CHUNK];
static _Thread_local int rv_memset_val = -1;

static const void *rv_memset_pattern(int val)
{
    unsigned char c = (unsigned char)val;
    if (rv_memset_val != c) {
        memset(rv_memset_buf, c, sizeof rv_memset_buf);
        rv_memset_val = c;
    }
    return rv_memset_buf;
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
