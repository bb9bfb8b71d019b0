/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/rivetrun.h: the launcher's shared state: options, ranks, the job's fate. */
#ifndef RV_RUN_H
#define RV_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Exit statuses of rivetrun itself (besides the job's own codes). */
#define RV_RUN_EXIT_ERROR   1    /* bootstrap/launcher error: protocol, allgather mismatch, ... */
#define RV_RUN_EXIT_USAGE   2    /* bad command line */
#define RV_RUN_EXIT_TIMEOUT 124  /* --timeout exceeded */
#define RV_RUN_EXIT_NOEXEC  127  /* the program could not be started */

#define RV_RUN_GRACE_MS     1000 /* SIGTERM -> SIGKILL */
#define RV_RUN_EXIT_WINDOW_MS 500 /* after gasnet_exit: time for the others to exit by
                                   * themselves (all ranks calling gasnet_exit(0) at the
                                   * end is common) before they get SIGTERM */
#define RV_RUN_REAP_MS      5000 /* SIGKILL -> give up waiting for unkillable ranks */

typedef struct rv_run_opts {
    uint32_t     np;
    double       timeout;     /* seconds; 0 = none */
    const char  *timeout_str; /* as the user wrote it, for the message */
    int          verbose;
    const char  *transport;   /* --transport, NULL if not given */
    char       **argv;        /* program and its arguments (NULL-terminated) */
} rv_run_opts_t;

/* One bootstrap result being delivered to every rank (shared, reference counted). */
typedef struct rv_run_result {
    int       refs;
    uint32_t  seq;
    size_t    len;
    unsigned char *bytes;
} rv_run_result_t;

typedef struct rv_run_rank {
    pid_t     pid;
    int       fd;            /* our end of its socket; -1 once closed */
    int       reaped;        /* waitpid() has collected it */
    int       status;        /* wait status once reaped */
    int       hello, fini;
    int       exiting;       /* sent EXIT or FINI: on its way out, gets no SIGTERM */
    int       termed;        /* we sent it SIGTERM */
    uint32_t  ncoll;         /* collectives it has started to contribute to */
    int       in_gather;     /* its contribution to the current collective is incomplete */
    uint64_t  in_got;        /* bytes of it received so far */
    rv_run_result_t *out;    /* result being sent to it, or NULL */
    int       out_hdr;       /* the RESULT header of 'out' went out */
    size_t    out_off;       /* payload bytes of 'out' sent */
} rv_run_rank_t;

typedef struct rv_run_job {
    rv_run_opts_t  opt;
    char           secret[33];
    rv_run_rank_t *rank;
    uint32_t       nspawned;
    sigset_t       orig_mask;  /* restored in the children */
    int            sigfd;
    /* the collective in progress */
    uint32_t       coll_seq;      /* number of the current collective (1, 2, ...) */
    int            coll_has_len;
    uint64_t       coll_len;      /* bytes per rank */
    uint32_t       coll_first;    /* rank that fixed coll_len */
    uint32_t       coll_done;     /* ranks whose contribution is complete */
    unsigned char *coll_buf;
    /* the job's fate */
    int            ending;        /* the job is being torn down */
    int            exit_code;
    int64_t        term_at_ms;    /* SIGTERM the ranks at this time (0: not armed) */
    int64_t        kill_at_ms;    /* SIGKILL stragglers at this time (0: not armed) */
    int64_t        giveup_at_ms;  /* stop waiting for unkillable ranks */
    int64_t        timeout_at_ms; /* --timeout deadline (0: none) */
} rv_run_job_t;

/* main.c */
int64_t rv_run_now_ms(void);
void    rv_run_log(rv_run_job_t *job, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* spawn.c: starts every rank; returns 0, or the exit status for a failed start. */
int  rv_run_spawn_all(rv_run_job_t *job);
/* After the ranks are gone: kills and reaps processes they left behind. */
void rv_run_reap_orphans(rv_run_job_t *job);
/* Sends sig to every rank still running (except 'except', or UINT32_MAX for none). */
void rv_run_signal_all(rv_run_job_t *job, int sig, uint32_t except);

/* server.c: the poll loop; returns the job's exit status when every rank is gone. */
int  rv_run_serve(rv_run_job_t *job);
/* Starts tearing the job down with exit status 'code' (first call wins): ranks
 * blocked in a bootstrap collective get SIGTERM now, the others after window_ms,
 * and SIGKILL RV_RUN_GRACE_MS later. */
void rv_run_end(rv_run_job_t *job, int code, int window_ms);

/* cleanup.c */
void        rv_run_shm_cleanup(rv_run_job_t *job);
const char *rv_run_signame(int sig, char buf[16]);

#endif /* RV_RUN_H */
