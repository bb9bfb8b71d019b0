/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/remote_int.h: the launcher's state for a multi-host job, shared by
 * remote.c (connections, frames, the job's end) and launch.c (listener, remote shells). */
#ifndef RV_RUN_REMOTE_INT_H
#define RV_RUN_REMOTE_INT_H

#include "rivetrun.h"
#include "net.h"

#include <limits.h>

/* Connections in the handshake at once. A real agent answers the challenge at once, so when
 * every slot is taken the oldest stranger's slot is reclaimed for the newcomer: connections
 * that are held open without answering cannot keep agents out. */
#define RV_RUN_PENDING 256
#define RV_RUN_REFUSALS_SHOWN 3   /* refused connections reported one by one; then counted */

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
    int64_t         deadline, since;
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
    /* connections that were not agents of this job: refused (bad answer, wrong secret, no
     * host waiting), timed out in the handshake, or reclaimed for a newcomer */
    unsigned         n_refused, n_timedout, n_reclaimed;
};

/* remote.c: "N connection(s) ... failed authentication ..." into buf ("" when none). */
void rv_run_strangers(const rv_run_remote_t *rm, char *buf, size_t n);

/* remote.c, for launch.c */
void rv_run_range(const rv_run_host_t *h, char *buf, size_t n);
void rv_run_forget_ranks(rv_run_job_t *job, rv_run_host_t *h);

#endif /* RV_RUN_REMOTE_INT_H */
