/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/transport.c: the explicit list of transports built into this library. */
#include "transport/transport.h"

extern const rv_tp_desc_t rv_tp_shm_desc;
#ifdef RIVET_HAVE_OFI
extern const rv_tp_desc_t rv_tp_ofi_desc;
#endif
#ifdef RIVET_HAVE_UCX
extern const rv_tp_desc_t rv_tp_ucx_desc;
#endif

const rv_tp_desc_t *const rv_tp_builtin[] = {
    &rv_tp_shm_desc,
#ifdef RIVET_HAVE_OFI
    &rv_tp_ofi_desc,
#endif
#ifdef RIVET_HAVE_UCX
    &rv_tp_ucx_desc,
#endif
    NULL,
};
