/* SPDX-License-Identifier: BSD-3-Clause */
/* legacy/legacy_int.h: what the GASNet-1 (gasnet.h) module shares among its files. */
#ifndef RV_LEGACY_INT_H
#define RV_LEGACY_INT_H

#include "core/core.h"
#include "gasnet.h"
#include "gasnet_coll.h"

#endif /* RV_LEGACY_INT_H */
