/* SPDX-License-Identifier: BSD-3-Clause */
/* rma/rma_api.h: what the core calls to start the RMA engine. */
#ifndef RV_RMA_API_H
#define RV_RMA_API_H

/* Reads RIVET_RMA and registers the reference protocol's handlers. */
void rv_rma_api_init(void);

#endif /* RV_RMA_API_H */
