/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/launcher/serve.h: the server side of the launcher protocol, shared by rivetrun and the fork-mode supervisor. */
#ifndef RV_BOOT_SERVE_H
#define RV_BOOT_SERVE_H

#include "boot/launcher/proto.h"

#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

/* A rank's part in the bootstrap collectives, as the server sees it. */
typedef struct rv_boot_srv_rank {
    int      hello, fini;  /* sent its HELLO, its FINI */
    int      exiting;      /* sent EXIT or FINI: on its way out, gets no SIGTERM */
    int      termed;       /* got SIGTERM from the server */
    uint32_t ncoll;        /* collectives it has started to contribute to */
    int      in_gather;    /* its contribution to the current collective is incomplete */
    uint64_t in_got;       /* bytes of it received so far */
} rv_boot_srv_rank_t;

/* What differs between the servers: messages, the job's end, per-rank state. */
typedef struct rv_boot_srv_ops {
    const char *prefix;    /* of messages on stderr: "rivet", "rivetrun" */
    int  detail;           /* messages name the peer's values and a version hint */
    int  fatal_code;       /* job status when a rank stops on a fatal error with code 0 */
    int  exit_window_ms;   /* after a gasnet_exit, before SIGTERM */
    rv_boot_srv_rank_t *(*rank)(void *ctx, uint32_t r);
    int  (*reaped)(void *ctx, uint32_t r);
    const char *(*where)(void *ctx, uint32_t r, char *buf, size_t n);   /* "pid P", ... */
    void (*fail)(void *ctx, const char *msg);          /* a bootstrap failure: end the job */
    void (*close)(void *ctx, uint32_t r);              /* rank r's connection ended */
    void (*end)(void *ctx, int code, int window_ms);
    void (*end_failed)(void *ctx, int code);
    void (*complete)(void *ctx);                       /* every contribution is in */
    void (*log)(void *ctx, const char *msg);           /* verbose log; may be NULL */
    void (*signal)(void *ctx, uint32_t r, int sig);    /* to rank r unless it is reaped */
} rv_boot_srv_ops_t;

/* The job's end, as both servers run it: a window for the ranks to exit by themselves, then
 * SIGTERM, then (after a grace period) SIGKILL, then giving up on unkillable ranks. */
typedef struct rv_boot_end {
    int      ending;        /* the job is being torn down */
    int      exit_code;
    int64_t  term_at_ms;    /* SIGTERM the ranks at this time (0: not armed) */
    int64_t  kill_at_ms;    /* SIGKILL stragglers at this time (0: not armed) */
    int64_t  giveup_at_ms;  /* stop waiting for unkillable ranks */
} rv_boot_end_t;

/* The collective in progress. */
typedef struct rv_boot_srv {
    const rv_boot_srv_ops_t *ops;
    void          *ctx;
    rv_boot_end_t  end;           /* the job's fate */
    uint32_t       n;             /* contributions per collective */
    uint32_t       coll_seq;      /* number of the current collective (1, 2, ...) */
    int            coll_has_len;
    uint64_t       coll_len;      /* bytes per rank */
    uint32_t       coll_first;    /* rank that fixed coll_len */
    uint32_t       coll_done;     /* ranks whose contribution is complete */
    unsigned char *coll_buf;
} rv_boot_srv_t;

/* Handles one record from rank r; DATA payload (plen bytes) is already in place in coll_buf. */
void rv_boot_srv_record(rv_boot_srv_t *s, uint32_t r, const rv_boot_hdr_t *h, size_t plen);
/* Reads and handles every record rank r has queued on *fd, its DATA bytes straight
 * into coll_buf; calls ops->close when the connection ends. */
void rv_boot_srv_drain(rv_boot_srv_t *s, uint32_t r, const int *fd);
/* Fails the job if a rank that exited 0 left a collective the others wait in. */
void rv_boot_srv_check_deadlock(rv_boot_srv_t *s);
/* SIGTERM (ops->signal) to each of ranks 0..n-1 that is neither reaped, on its way out nor
 * signalled already; only_blocked: only those waiting in a collective that can no longer
 * complete (they contributed to it). */
void rv_boot_srv_term(rv_boot_srv_t *s, uint32_t n, int only_blocked);

/* Starts the job's end with status 'code' (of ranks 0..n-1; nothing if it is ending already:
 * returns 0): window_ms > 0 gives the ranks that long to exit (SIGTERM now only to the blocked
 * ones), then SIGTERM; SIGKILL grace_ms after that. */
int rv_boot_srv_end(rv_boot_srv_t *s, uint32_t n, int code, int window_ms, int grace_ms,
                    int64_t now);

/* A failure (reason said): ends the job at once through ops->end, saying so if any of ranks
 * 0..n-1 is still running. */
void rv_boot_srv_end_failed(rv_boot_srv_t *s, uint32_t n, int code);

/* A fatal problem of the bootstrap itself: unless the job is ending already, says
 * "<prefix>: <tag><message>" and ends the job (status 'code') as rv_boot_srv_end_failed does. */
void rv_boot_srv_vfail(rv_boot_srv_t *s, uint32_t n, int code, const char *tag, const char *fmt,
                       va_list ap) __attribute__((format(printf, 5, 0)));

/* Rank r (reaped by the caller) ended with wait status 'status': reads what it sent last from
 * *fd, closes it (ops->close), and unless the job is ending says how it ended (a failure
 * ends the job; an exit 0 may leave the others deadlocked). */
void rv_boot_srv_reaped(rv_boot_srv_t *s, uint32_t r, int status, int *fd);

/* Reads the signals queued on sigfd (SIGCHLD only wakes the caller, which reaps): the first
 * other one ends the job (status 128 + signal; "<prefix>: <who>received SIG..."), one while it
 * is ending SIGKILLs ranks 0..n-1 (no more grace). */
void rv_boot_srv_signals(rv_boot_srv_t *s, int sigfd, uint32_t n, const char *who);

/* The end's deadlines at time 'now' for ranks 0..n-1: SIGTERM, then SIGKILL (arming the
 * give-up reap_ms later). Returns the next deadline (0: none). */
int64_t rv_boot_srv_deadlines(rv_boot_srv_t *s, uint32_t n, int64_t now, int reap_ms);

/* Takes the completed collective's buffer and starts the next collective. */
unsigned char *rv_boot_srv_take(rv_boot_srv_t *s);

/* Sends as much of a result (RESULT header, then DATA) as fd takes now, advancing
 * *hdr_sent and *off. Returns 1 when all is sent, 0 to retry on POLLOUT, -1 if fd failed. */
int rv_boot_srv_send(int fd, uint32_t seq, const unsigned char *bytes, size_t len,
                     int *hdr_sent, size_t *off);

/* The signals a launcher reads from its signalfd: SIGCHLD, SIGINT, SIGTERM, SIGHUP, SIGQUIT. */
void rv_boot_srv_sigset(sigset_t *set);
/* SIGKILLs the caller's children that are not ranks (orphans re-parented to it), in
 * rounds (killing one may orphan its children), reaping them; returns how many. */
int rv_boot_srv_kill_orphans(void);
/* Removes the job's leftover /dev/shm objects; removed (may be NULL) hears of each. */
void rv_boot_srv_shm_cleanup(const char *secret, const char *prefix,
                             void (*removed)(void *ctx, const char *name), void *ctx);

#endif /* RV_BOOT_SERVE_H */
