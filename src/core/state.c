/* SPDX-License-Identifier: BSD-3-Clause */
/* core/state.c: the process-wide state every layer reads: the client, the endpoints and their
 * segment tables, and the handler context (core/core.h). The api fills them. */
#include "core/core.h"

struct rv_client *rv_client_g;
rv_segmap_t *rv_segmap;
struct rv_ep *rv_eps[GASNET_MAXEPS];
rv_segmap_t  *rv_epsegs[GASNET_MAXEPS];
_Thread_local struct rv_token *rv_am_cur_token;

void rv_tm_flat_refresh(void)
{
    if (rv_client_g && rv_client_g->tm0) rv_tm_flat_set(rv_client_g->tm0);
    for (unsigned e = 0; e < GASNET_MAXEPS; e++)
        if (rv_eps[e])
            for (unsigned i = 0; i < GASNET_MAXEPS; i++)
                if (rv_eps[e]->pairs[i]) rv_tm_flat_set(rv_eps[e]->pairs[i]);
}
