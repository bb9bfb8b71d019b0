/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/rivetrun.h: the launcher's shared state: options, ranks, the job's fate. */
#ifndef RV_RUN_H
#define RV_RUN_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "boot/boot.h"
#include "boot/launcher/serve.h"

struct pollfd;

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
#define RV_RUN_LINGER_MS    5000 /* all ranks gone -> remote shells still running get SIGTERM */
#define RV_RUN_AUTH_MS     10000 /* a new TCP connection must complete the handshake by then */

/* One host of a multi-host job, as the user gave it (--hosts / --hostfile). */
typedef struct rv_run_hostspec {
    char     *name;
    uint32_t  slots;          /* 0: not given (counts as 1) */
} rv_run_hostspec_t;

typedef struct rv_run_opts {
    uint32_t     np;
    double       timeout;     /* seconds; 0 = none */
    const char  *timeout_str; /* as the user wrote it, for the message */
    int          verbose;
    const char  *transport;   /* --transport, NULL if not given */
    char       **argv;        /* program and its arguments (NULL-terminated) */
    rv_run_hostspec_t *hosts; /* --hosts / --hostfile (NULL: every rank on this host) */
    uint32_t     nhosts;
    const char  *hosts_from;  /* "--hosts" or the hostfile's name, for messages */
    char       **exports;     /* -x NAME[=VALUE], for remote ranks */
    uint32_t     nexports;
    const char  *launcher;    /* --launcher: auto (NULL), local, ssh or slurm */
} rv_run_opts_t;

/* One bootstrap result being delivered to every rank (shared, reference counted). */
typedef struct rv_run_result {
    int       refs;
    uint32_t  seq;
    size_t    len;
    unsigned char *bytes;
} rv_run_result_t;

typedef struct rv_run_rank {
    pid_t     pid;           /* on its host (0: not started yet) */
    uint32_t  host;          /* index in job->remote's hosts; UINT32_MAX: our own child */
    int       fd;            /* our end of its socket; -1 once closed */
    int       reaped;        /* waitpid() has collected it */
    int       status;        /* wait status once reaped */
    rv_boot_srv_rank_t srv;  /* its part in the collectives (exiting, ncoll, ...) */
    rv_run_result_t *out;    /* result being sent to it, or NULL */
    int       out_hdr;       /* the RESULT header of 'out' went out */
    size_t    out_off;       /* payload bytes of 'out' sent */
} rv_run_rank_t;

typedef struct rv_run_remote rv_run_remote_t;   /* remote.c */

typedef struct rv_run_job {
    rv_run_opts_t  opt;           /* opt.np: entries of rank[] */
    char           secret[33];
    rv_run_rank_t *rank;
    uint32_t       nspawned;
    uint32_t       rank_base;     /* jobrank of rank[0] (an agent's first rank; else 0) */
    uint32_t       size;          /* ranks in the whole job (RIVET_BOOT_SIZE) */
    const char    *where;         /* "" or " on host H", for messages about starting ranks */
    rv_run_remote_t *remote;      /* multi-host launch state, or NULL */
    sigset_t       orig_mask;  /* restored in the children */
    int            sigfd;
    rv_boot_srv_t  srv;           /* the collective in progress */
    /* the job's fate: srv.end, and */
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
/* Sends sig to rank r if it still runs (through its agent if it is on another host). */
void rv_run_kill_rank(rv_run_job_t *job, uint32_t r, int sig);
/* Sends sig to every rank still running (except 'except', or UINT32_MAX for none). */
void rv_run_signal_all(rv_run_job_t *job, int sig, uint32_t except);

/* server.c: the poll loop; returns the job's exit status when every rank is gone. */
int  rv_run_serve(rv_run_job_t *job);
/* Fails the job with a message (bootstrap or launch error, exit status 1). */
void rv_run_fail(rv_run_job_t *job, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Ends the job at once with 'code' (a rank or host failed; the reason was printed). */
void rv_run_end_failed(rv_run_job_t *job, int code);
/* Rank r is gone with wait status 'status' (reports it, ends the job on failure). */
void rv_run_reaped(rv_run_job_t *job, uint32_t r, int status);
/* One bootstrap record of rank r that came through its host's agent; 'trunc' when
 * it was longer than a record may be. */
void rv_run_remote_record(rv_run_job_t *job, uint32_t r, const void *rec, size_t len, int trunc);
/* "pid P" or "pid P on host H", for messages about rank r. */
const char *rv_run_rank_where(rv_run_job_t *job, uint32_t r, char *buf, size_t n);
/* Results and rank sockets, shared with the agent (agent.c). */
void rv_run_result_put(rv_run_result_t *res);
void rv_run_flush(rv_run_job_t *job, rv_run_rank_t *rk);
void rv_run_close_rank(rv_run_job_t *job, rv_run_rank_t *rk);

/* hosts.c: --hosts / --hostfile parsing and rank placement. */
int  rv_run_hosts_add(rv_run_opts_t *o, const char *list, const char *from);
int  rv_run_hosts_file(rv_run_opts_t *o, const char *path);
/* Fills first[h], count[h] (blocks of consecutive ranks per host); sets opt.np
 * from the slots when it is 0. Returns 0 or -1 (message printed). */
int  rv_run_hosts_place(rv_run_opts_t *o, uint32_t *first, uint32_t *count);

/* remote.c: the launcher side of a multi-host job. */
int  rv_run_remote_start(rv_run_job_t *job);   /* 0 or an exit status */
int  rv_run_remote_npoll(rv_run_job_t *job);
void rv_run_remote_fill(rv_run_job_t *job, struct pollfd *p);
void rv_run_remote_events(rv_run_job_t *job, const struct pollfd *p);
/* Handles expired deadlines; returns the next one (0: none). */
int64_t rv_run_remote_tick(rv_run_job_t *job, int64_t now);
/* A child of ours exited: 1 if it was a remote shell. */
int  rv_run_remote_child(rv_run_job_t *job, pid_t pid, int status);
/* Remote shells or agent connections still open. */
int  rv_run_remote_busy(rv_run_job_t *job);
void rv_run_remote_result(rv_run_job_t *job, rv_run_result_t *res);
void rv_run_remote_signal(rv_run_job_t *job, uint32_t r, int sig);
void rv_run_remote_fini(rv_run_job_t *job);
void rv_run_remote_where(rv_run_job_t *job, uint32_t r, char *buf, size_t n);

/* agent.c: `rivetrun --agent ...` on a host of a multi-host job. */
int  rv_run_agent_main(int argc, char **argv);
/* Starts tearing the job down with exit status 'code' (first call wins): ranks
 * blocked in a bootstrap collective get SIGTERM now, the others after window_ms,
 * and SIGKILL RV_RUN_GRACE_MS later. */
void rv_run_end(rv_run_job_t *job, int code, int window_ms);
/* Sets up job->srv (the bootstrap server's view of the job, its end) before the ranks start. */
void rv_run_srv_init(rv_run_job_t *job);

/* slurm.c: --launcher. What auto means here: ssh with --hosts, slurm inside a Slurm
 * allocation (SLURM_JOB_ID set), else local. */
const char *rv_run_launcher_pick(const rv_run_opts_t *o);
/* Runs the job through srun (RIVET_SRUN) and returns its exit status. */
int  rv_run_slurm(rv_run_opts_t *o);

/* cleanup.c */
void        rv_run_shm_cleanup(rv_run_job_t *job);
/* RIVET_STATS (stats.c): before the ranks start, the files they write; after they end, the
 * merged summary (table on stderr, RIVET_STATS_JSON). */
void        rv_run_stats_prepare(void);
void        rv_run_stats_finish(uint32_t np);
/* Multi-host jobs: an agent's ranks write their stats and trace files into a directory of the
 * agent's own (the launcher's paths may not exist on that host); as each rank ends, the agent
 * sends its files up (RV_NET_FILE), and the launcher writes them where its own ranks' files
 * go, before the merges. */
enum { RV_RUN_OBS_STATS = 0, RV_RUN_OBS_TRACE = 1 };
#define RV_RUN_OBS_CHUNK 60000 /* bytes of a file per frame (below RV_NET_MAX_UP) */
/* The agent, once the spec's environment is set: the directory, RIVET_STATS_FILE and
 * RIVET_TRACE of its ranks. */
void        rv_run_obs_agent_prepare(void);
/* The agent, when rank 'jobrank' has ended: its files, each through send(ctx, kind, first,
 * bytes, len) in chunks of at most RV_RUN_OBS_CHUNK, then removed. */
void        rv_run_obs_agent_collect(uint32_t jobrank,
                                     void (*send)(void *ctx, unsigned kind, int first,
                                                  const void *p, size_t n),
                                     void *ctx);
void        rv_run_obs_agent_fini(void);
/* The launcher: a chunk of a file of rank r from an agent. */
void        rv_run_obs_file(uint32_t r, unsigned kind, int first, const void *p, size_t n);


#endif /* RV_RUN_H */
