/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/inuse.c: the transport in use (rv_tp, transport/transport.h), which api/client.c
 * opens and the engines send through. */
#include "transport/transport.h"

rv_tp_state_t rv_tp;
