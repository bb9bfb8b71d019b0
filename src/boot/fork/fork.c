/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/fork/fork.c: GASNET_PSHM_NODES=N without a launcher: checks N, forks the ranks, sets each one up. */
#include "boot/fork/fork.h"
#include "boot/fork/fork_int.h"
#include "boot/launcher/launcher.h"
#include "boot/launcher/proto.h"
#include "boot/singleton/singleton.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

int rv_boot_fork_nodes(uint32_t *n)
{
    const char *s = getenv("GASNET_PSHM_NODES");
    *n = 1;
    if (!s || !*s) return 0;
    const char *p = s;
    while (*p == ' ' || *p == '\t') p++;
    char *end = NULL;
    unsigned long v = 0;
    int ok = *p >= '0' && *p <= '9';
    if (ok) {
        errno = 0;
        v = strtoul(p, &end, 10);
        while (*end == ' ' || *end == '\t') end++;
        ok = !errno && *end == '\0';
    }
    if (!ok || v < 1 || v > RV_BOOT_FORK_MAX) {
        fprintf(stderr, "rivet: bootstrap: GASNET_PSHM_NODES=%s is not a valid number of ranks: "
                "expected a whole number from 1 to %u (a program started without a launcher "
                "forks that many ranks; for larger jobs use rivetrun -n N)\n", s,
                RV_BOOT_FORK_MAX);
        return -1;
    }
    *n = (uint32_t)v;
    return 0;
}

/* Threads of this process; 0 if unknown. Only the calling thread lives on in a
 * forked child, so the ranks would miss the others and any lock they hold. */
static int rv_fork_threads(void)
{
    DIR *d = opendir("/proc/self/task");
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.') n++;
    closedir(d);
    return n;
}

static sigset_t rv_fork_orig_mask;
static struct sigaction rv_fork_orig_chld;
static int rv_fork_orig_subreaper;

/* Kills and reaps the ranks forked so far; used when the job cannot start. */
static void rv_fork_abort(rv_fork_job_t *job, uint32_t forked)
{
    for (uint32_t r = 0; r < forked; r++) {
        kill(job->rank[r].pid, SIGKILL);
        while (waitpid(job->rank[r].pid, NULL, 0) < 0 && errno == EINTR) {}
        close(job->rank[r].fd);
    }
    close(job->sigfd);
    free(job->rank);
    (void)prctl(PR_SET_CHILD_SUBREAPER, rv_fork_orig_subreaper);
    sigaction(SIGCHLD, &rv_fork_orig_chld, NULL);
    sigprocmask(SIG_SETMASK, &rv_fork_orig_mask, NULL);
}

/* In rank r, right after fork: drop the supervisor's state and become a rank that
 * speaks the launcher protocol over 'sock'. */
static int rv_fork_child(rv_fork_job_t *job, uint32_t r, int sock, pid_t supervisor,
                         rv_boot_info_t *info)
{
    /* Die with the supervisor; if it died before prctl, we were re-parented. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != supervisor) _exit(1);
    for (uint32_t k = 0; k < r; k++) close(job->rank[k].fd);   /* other ranks' sockets */
    close(job->sigfd);
    char secret[33], num[32];
    memcpy(secret, job->secret, sizeof secret);
    free(job->rank);
    sigaction(SIGCHLD, &rv_fork_orig_chld, NULL);
    sigprocmask(SIG_SETMASK, &rv_fork_orig_mask, NULL);

    /* The same environment rivetrun gives a rank (docs/rivetrun.md). */
    snprintf(num, sizeof num, "%d", sock);
    if (setenv(RV_BOOT_ENV_FD, num, 1)) goto fail;
    snprintf(num, sizeof num, "%u", (unsigned)r);
    if (setenv(RV_BOOT_ENV_RANK, num, 1)) goto fail;
    snprintf(num, sizeof num, "%u", (unsigned)job->n);
    if (setenv(RV_BOOT_ENV_SIZE, num, 1)) goto fail;
    if (setenv(RV_BOOT_ENV_SECRET, secret, 1)) goto fail;
    if (rv_boot_launcher_init(info) != 0) _exit(1);
    info->method = "fork";
    return 0;
fail:
    fprintf(stderr, "rivet: bootstrap: rank %u: setenv failed: %s\n", (unsigned)r, strerror(errno));
    _exit(1);
}

int rv_boot_fork_init(rv_boot_info_t *info, uint32_t n)
{
    int threads = rv_fork_threads();
    if (threads > 1) {
        fprintf(stderr, "rivet: bootstrap: GASNET_PSHM_NODES=%u: this process already runs %d "
                "threads, and only the calling thread would live on in the %u forked ranks; "
                "create threads after gex_Client_Init/gasnet_init, or start the job with "
                "rivetrun -n %u\n", (unsigned)n, threads, (unsigned)n, (unsigned)n);
        return -1;
    }
    rv_fork_job_t *job = calloc(1, sizeof *job);
    if (!job || !(job->rank = calloc(n, sizeof *job->rank))) {
        free(job);
        fprintf(stderr, "rivet: bootstrap: out of memory for %u ranks\n", (unsigned)n);
        return -1;
    }
    job->n = n;
    if (rv_boot_secret_new(job->secret) != 0) {
        fprintf(stderr, "rivet: bootstrap: getrandom() failed for the job secret: %s\n",
                strerror(errno));
        free(job->rank);
        free(job);
        return -1;
    }

    /* Signals are read from a signalfd; block them before any rank exists so none is
     * lost. The ranks get the original mask and SIGCHLD action back. */
    sigset_t set;
    rv_boot_srv_sigset(&set);
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;   /* SIG_IGN would reap the ranks before we see their status */
    if (sigaction(SIGCHLD, &dfl, &rv_fork_orig_chld) != 0
        || sigprocmask(SIG_BLOCK, &set, &rv_fork_orig_mask) != 0
        || (job->sigfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
        fprintf(stderr, "rivet: bootstrap: cannot set up signal handling for the forked ranks: "
                "%s\n", strerror(errno));
        sigprocmask(SIG_SETMASK, &rv_fork_orig_mask, NULL);
        free(job->rank);
        free(job);
        return -1;
    }
    /* Processes the ranks start and leave behind come to the supervisor, which ends
     * them with the job (the setting is not inherited by the ranks). */
    (void)prctl(PR_GET_CHILD_SUBREAPER, &rv_fork_orig_subreaper);
    (void)prctl(PR_SET_CHILD_SUBREAPER, 1);
    /* Output buffered so far would otherwise be written once by every rank. */
    fflush(NULL);

    pid_t self = getpid();
    for (uint32_t r = 0; r < n; r++) {
        int sv[2];
        if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
            fprintf(stderr, "rivet: bootstrap: socketpair for rank %u failed: %s\n", (unsigned)r,
                    strerror(errno));
            rv_fork_abort(job, r);
            free(job);
            return -1;
        }
        pid_t pid = fork();
        if (pid == 0) {
            close(sv[0]);
            int rc = rv_fork_child(job, r, sv[1], self, info);
            free(job);
            return rc;
        }
        int err = errno;
        close(sv[1]);
        if (pid < 0) {
            close(sv[0]);
            fprintf(stderr, "rivet: bootstrap: GASNET_PSHM_NODES=%u: fork of rank %u failed: %s\n",
                    (unsigned)n, (unsigned)r, strerror(err));
            rv_fork_abort(job, r);
            free(job);
            return -1;
        }
        job->rank[r].pid = pid;
        job->rank[r].fd = sv[0];
        (void)fcntl(sv[0], F_SETFL, fcntl(sv[0], F_GETFL) | O_NONBLOCK);
    }
    rv_fork_supervise(job);
}
