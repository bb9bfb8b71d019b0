/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/remote_int.h: the launcher's state for a multi-host job, shared by
 * remote.c (connections, frames, the job's end) and launch.c (listener, remote shells). */
#ifndef RV_RUN_REMOTE_INT_H
#define RV_RUN_REMOTE_INT_H

#include "rivetrun.h"
#include "net.h"

#include <limits.h>

#define RV_RUN_PENDING 16   /* connections in the handshake at once; more are closed */

enum { RV_HOST_LAUNCHING, RV_HOST_UP, RV_HOST_CLOSED };

typedef struct rv_run_host {
    const char    *name;
    uint32_t       first, count;   /* its ranks */
    pid_t          shell;          /* the remote shell (or the agent, for this host) */
    int            shell_done, shell_status;
    int            state;
    rv_net_conn_t  conn;
    rv_run_result_t *res;          /* our reference to the result streamed on conn */
    char           peer[80];
} rv_run_host_t;

typedef struct rv_run_pending {
    int             fd;            /* -1: free slot */
    int64_t         deadline;
    unsigned char   nonce[RV_NET_NONCE];
    rv_net_answer_t ans;
    size_t          got;
    char            peer[80];
} rv_run_pending_t;

struct rv_run_remote {
    rv_run_host_t   *host;
    uint32_t         nhosts;
    int              listen_fd;
    unsigned         port;
    char             addrs[1024];   /* where agents connect back: "a,b,c" */
    char             agent[PATH_MAX];
    char           **shell;         /* RIVET_SSH split into words */
    int              nshell;
    unsigned char   *spec;          /* the part of the spec common to every host */
    size_t           spec_len;
    int64_t          launch_deadline;
    int64_t          linger_term, linger_kill, linger_giveup;
    int              abandoned;     /* gave up waiting for remote shells */
    rv_run_pending_t pending[RV_RUN_PENDING];
};

/* remote.c, for launch.c */
void rv_run_range(const rv_run_host_t *h, char *buf, size_t n);
void rv_run_forget_ranks(rv_run_job_t *job, rv_run_host_t *h);

#endif /* RV_RUN_REMOTE_INT_H */
