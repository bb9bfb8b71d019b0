/* SPDX-License-Identifier: BSD-3-Clause */
/* api/client.c: gex_Client_Init (bootstrap, job layout, transport choice) and client queries. */
#include "core/core.h"
#include "core/job_int.h"
#include "api/segment_int.h"
#include "transport/transport.h"
#include "am/am_int.h"
#include "coll/coll_int.h"
#include "rma/rma_api.h"
#include "event/event.h"
#include "boot/boot.h"
#include "core/trace.h"

#include <stdlib.h>
#include <string.h>


static void rv_tp_open(void)
{
    char why[512];
    const rv_tp_entry_t *e = rv_tp_select(&rv_job, why, sizeof why); /* transport/transport.c */
    if (!e) rv_fatal("%s", why);
    const rv_tp_desc_t *d = e->desc;
    rv_tp.desc = d;
    rv_tp.priv = calloc(1, d->priv_size ? d->priv_size : 1);
    if (!rv_tp.priv) rv_fatal("out of memory opening transport %s", d->name);
    if (d->open(rv_tp.priv, &rv_job, &rv_tp.lim) != 0)
        rv_fatal("transport %s failed to open", d->name);
    memset(&rv_tp.ops, 0, sizeof rv_tp.ops);
    memcpy(&rv_tp.ops, d->ops, d->ops->size < sizeof rv_tp.ops ? d->ops->size : sizeof rv_tp.ops);
    rv_verbose(1, "transport %s (max message %zu bytes): %s", d->name, rv_tp.lim.max_msg, why);
}

int gex_Client_Init(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p, const char *clientName,
                    int *argc, char ***argv, gex_Flags_t flags)
{
    (void)argc;
    (void)argv;
    if (rv_client_g)
        return rv_error_return(GASNET_ERR_RESOURCE,
                               "gex_Client_Init: only one client per process is supported");
    if (!client_p || !ep_p || !tm_p)
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Client_Init: client_p, ep_p and tm_p "
                                                   "must not be NULL");
    if (!clientName || !clientName[0])
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Client_Init: clientName is empty");
    if (flags & ~(GEX_FLAG_USES_GASNET1 | GEX_FLAG_DEFER_THREADS))
        return rv_error_return(GASNET_ERR_BAD_ARG, "gex_Client_Init: unknown flags 0x%x",
                               (unsigned)flags);

    uint64_t t_start = rv_trace_clock();
    rv_config_load();
    rv_boot_info_t bi;
    if (rv_boot_init(&bi) != 0)
        return rv_error_return(GASNET_ERR_RESOURCE, "gex_Client_Init: bootstrap failed");
    rv_job_init(&bi);
    rv_trace_init(t_start, rv_trace_clock());
    uint64_t t_tp = rv_trace_clock();
    rv_stats_init();
    rv_tp_open();
    rv_trace_phase("transport open", t_tp);
    rv_poller.poll = rv_tp.ops.poll;
    rv_poller.priv = rv_tp.priv;
    rv_poller.idle = rv_tp.ops.idle;
    rv_poller.hint = rv_tp.ops.poll_hint ? rv_tp.ops.poll_hint(rv_tp.priv) : NULL;

    struct rv_client *c = calloc(1, sizeof *c);
    struct rv_ep *ep = calloc(1, sizeof *ep);
    struct rv_tm *tm = rv_hot_calloc(1, RV_TM_TABLE_OFF + (size_t)rv_job.size * sizeof(rv_segmap_t),
                                     "gex_Client_Init"); /* and room for rv_tm0_table */
    if (!c || !ep) rv_fatal("gex_Client_Init: out of memory");
    c->name = strdup(clientName);
    c->flags = flags;
    c->ep0 = ep;
    c->tm0 = tm;
    ep->client = c;
    ep->index = 0;
    ep->caps = GEX_EP_CAPABILITY_ALL;
    rv_eps[0] = ep;
    tm->client = c;
    tm->ep = ep;
    tm->rank = rv_job.rank;
    tm->size = rv_job.size;
    tm->id = 0;

    rv_am_init();
    rv_rma_api_init();
    rv_nbi_init();
    rv_segment_init_limits();
    rv_coll_team_init(tm);
    rv_exit_install();
    rv_client_g = c;

    uint64_t t_bar = rv_trace_clock();
    if (rv_boot_barrier() != 0) rv_fatal("gex_Client_Init: bootstrap barrier failed");
    rv_trace_phase("start-up barrier", t_bar);
    rv_trace_phase("gex_Client_Init", t_start);
    *client_p = c;
    *ep_p = ep;
    *tm_p = tm;
    return GASNET_OK;
}

gex_Flags_t gex_Client_QueryFlags(gex_Client_t client) { return client->flags; }
const char *gex_Client_QueryName(gex_Client_t client) { return client->name; }
void gex_Client_SetCData(gex_Client_t client, const void *val) { client->cdata = (void *)val; }
void *gex_Client_QueryCData(gex_Client_t client) { return client->cdata; }

/* gex_Client_Init of a GASNET_SEQ or GASNET_PARSYNC client (gasnetex.h; rv_am_gate_close) */
int _rivet_client_init_seq(gex_Client_t *client_p, gex_EP_t *ep_p, gex_TM_t *tm_p,
                           const char *clientName, int *argc, char ***argv, gex_Flags_t flags)
{
    rv_seq_client = 1;
    return gex_Client_Init(client_p, ep_p, tm_p, clientName, argc, argv, flags);
}
