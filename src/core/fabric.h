/* SPDX-License-Identifier: BSD-3-Clause */
/* core/fabric.h: whether this host shows a fabric (RDMA) device, asked of the kernel's device
 * nodes without loading any network library. The network transports' probes use it to decline
 * cheaply on hosts that have only Ethernet (there the udp transport serves). */
#ifndef RV_CORE_FABRIC_H
#define RV_CORE_FABRIC_H
#include <stddef.h>

/* 1 and the first device's name in name[n] (e.g. "infiniband/mlx5_0"), or 0 and "". */
int rv_fabric_device(char *name, size_t n);

#endif
