/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_coll.h: the spec's collectives header. Rivet declares gex_Coll_BarrierNB in
 * gasnetex.h (clients expect it there); the other collectives arrive with their issue. */
#ifndef _GASNET_COLL_H
#define _GASNET_COLL_H
#include <gasnetex.h>
#endif
