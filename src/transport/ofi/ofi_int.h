/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/ofi/ofi_int.h: the libfabric transport's private state. */
#ifndef RV_OFI_INT_H
#define RV_OFI_INT_H

#include "transport/transport.h"

#include <pthread.h>
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define RV_OFI_NRECV 64 /* posted receive buffers */
#define RV_OFI_NSEND 64 /* staged send buffers */

/* Every message starts with this; the AM header follows, 8-byte aligned. */
typedef struct rv_ofi_hdr {
    uint32_t src;
    uint32_t chan; /* channel in the low 8 bits, then the padding bytes at the end */
} rv_ofi_hdr_t;

/* A send buffer; the fi_context comes first so a completion's op_context is it. */
typedef struct rv_ofi_sbuf {
    struct fi_context    ctx;
    struct rv_ofi_sbuf  *next;
    unsigned char       *data;
} rv_ofi_sbuf_t;

/* A posted receive buffer (one message). It is posted again once its message has
 * been handled (or copied to the stash). */
typedef struct rv_ofi_region {
    struct fi_context ctx;
    unsigned char    *buf;
    size_t            size;
    int               released; /* the provider filled it */
    unsigned          pending;  /* a handler is running on its message */
} rv_ofi_region_t;

/* A copy of a Request that arrived while only replies could run (inside a handler). */
typedef struct rv_ofi_stashed {
    void    *msg;
    size_t   len;
    uint32_t src;
} rv_ofi_stashed_t;

typedef struct rv_ofi {
    uint32_t           me, size;
    struct fi_info    *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av     *av;
    struct fid_cq     *cq;
    struct fid_ep     *ep;
    fi_addr_t         *addr;      /* [size] */
    size_t             bufsz;     /* bytes of a send buffer (largest message + our header) */
    size_t             inject;    /* largest message sent with fi_inject */
    int                mr_local;  /* buffers must be registered (FI_MR_LOCAL) */
    struct fid_mr     *smr, *rmr;
    unsigned char     *spool, *rpool;
    rv_ofi_sbuf_t      sbufs[RV_OFI_NSEND];
    rv_ofi_sbuf_t     *sfree;
    uint32_t           slock;
    rv_ofi_region_t    regions[RV_OFI_NRECV];
    pthread_mutex_t    plock;     /* one polling thread at a time */
    rv_ofi_stashed_t  *stash;     /* ring of deferred Requests */
    size_t             stash_cap, stash_head, stash_n;
    void              *seg;
    uintptr_t          seglen;
} rv_ofi_t;

int  rv_ofi_seg_attach(void *priv, uintptr_t size, rv_segmap_t *map);
void rv_ofi_seg_close(rv_ofi_t *o);

#endif /* RV_OFI_INT_H */
