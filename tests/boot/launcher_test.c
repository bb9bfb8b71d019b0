/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/launcher_test.c: runs rivetrun on misbehaving jobs and checks exit status, timing and cleanup. */
#include "boot/launcher/proto.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *rivetrun, *prog, *fake_ssh, *fork_prog;
static int failures;
static int ready_sig = SIGTERM;   /* what run_cmd sends once the ranks are ready */
static int ready_pgrp;            /* run the command in its own process group and send
                                   * ready_sig to the whole group, as ^C at a terminal does */

#define FAIL(...)                                                                          \
    do {                                                                                   \
        fprintf(stderr, "launcher_test: FAIL: " __VA_ARGS__);                              \
        fputc('\n', stderr);                                                               \
        failures++;                                                                        \
    } while (0)

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

typedef struct run {
    int       status;      /* wait status of the command */
    long long elapsed;     /* ms from start to exit */
    long long after_sig;   /* ms from the signal we sent to exit, or -1 */
    char      out[65536];  /* stdout + stderr */
    size_t    outlen;
} run_t;

static int count_lines(const run_t *r, const char *prefix)
{
    int n = 0;
    for (const char *p = r->out; (p = strstr(p, prefix)); p++) n++;
    return n;
}

/* Runs argv with stdout+stderr captured. If sig_after_ready > 0, sends ready_sig to
 * the command once that many "ready " lines appeared. Kills it after limit_ms. The
 * wait for the output pipe's EOF after exit proves no rank outlived rivetrun. */
static void run_cmd(char *const argv[], int sig_after_ready, long long limit_ms, run_t *r,
                    char *const envp_extra[])
{
    memset(r, 0, sizeof *r);
    r->after_sig = -1;
    int p[2];
    if (pipe2(p, O_CLOEXEC)) { perror("pipe"); exit(2); }
    long long t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        if (ready_pgrp) setpgid(0, 0);
        dup2(p[1], 1);
        dup2(p[1], 2);
        for (int i = 0; envp_extra && envp_extra[i]; i++) putenv(envp_extra[i]);
        execv(argv[0], argv);
        perror("execv");
        _exit(126);
    }
    close(p[1]);
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd < 0) { perror("pidfd_open"); exit(2); }
    int exited = 0, eof = 0, signalled = 0, killed = 0;
    long long sig_at = 0, exit_at = 0;
    while (!exited || !eof) {
        long long now = now_ms();
        long long deadline = exited ? exit_at + 3000 : t0 + limit_ms;
        if (now >= deadline) {
            if (exited) {
                FAIL("%s: output pipe still open 3 s after rivetrun exited: a rank outlived "
                     "the job", argv[0]);
                break;
            }
            if (!killed) {
                FAIL("%s did not finish within %lld ms; killing it", argv[0], limit_ms);
                kill(pid, SIGKILL);
                killed = 1;
            }
            deadline = now + 5000;
        }
        struct pollfd pf[2] = {{eof ? -1 : p[0], POLLIN, 0}, {exited ? -1 : pidfd, POLLIN, 0}};
        int n = poll(pf, 2, (int)(deadline - now));
        if (n < 0 && errno != EINTR) { perror("poll"); exit(2); }
        if (pf[0].revents) {
            size_t room = sizeof r->out - 1 - r->outlen;
            char sink[4096];
            ssize_t got = read(p[0], room ? r->out + r->outlen : sink, room ? room : sizeof sink);
            if (got <= 0) eof = 1;
            else if (room) r->outlen += (size_t)got;
            r->out[r->outlen] = 0;
            if (sig_after_ready && !signalled && count_lines(r, "ready ") >= sig_after_ready) {
                kill(ready_pgrp ? -pid : pid, ready_sig);
                signalled = 1;
                sig_at = now_ms();
            }
        }
        if (pf[1].revents) {
            while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR) {}
            exited = 1;
            exit_at = now_ms();
            r->elapsed = exit_at - t0;
            if (signalled) r->after_sig = exit_at - sig_at;
        }
    }
    if (!exited) {
        while (waitpid(pid, &r->status, 0) < 0 && errno == EINTR) {}
        r->elapsed = now_ms() - t0;
    }
    close(pidfd);
    close(p[0]);
    /* A sanitizer error from a rank, an agent or rivetrun itself fails every case. (Not
     * TSan's "signal-unsafe call inside of a signal": TSan says that about its own delivery
     * of SIGTERM to a rank killed in a blocking call, which runs library destructors.) */
    static const char *const san[] = {"ERROR: AddressSanitizer", "ERROR: LeakSanitizer",
                                      "runtime error:", "ThreadSanitizer: data race",
                                      "ThreadSanitizer: heap-use-after-free",
                                      "ThreadSanitizer: lock-order-inversion"};
    for (size_t i = 0; i < sizeof san / sizeof san[0]; i++)
        if (strstr(r->out, san[i]))
            FAIL("%s: a sanitizer reported \"%s\" (see the output)", argv[0], san[i]);
    if (strstr(r->out, "rivetrun: warning:")) FAIL("%s: rivetrun warned (see the output)", argv[0]);
    printf("---- %s ... (exit ", argv[0]);
    if (WIFEXITED(r->status)) printf("status %d", WEXITSTATUS(r->status));
    else printf("signal %d", WTERMSIG(r->status));
    printf(", %lld ms) output:\n%s----\n", r->elapsed, r->out);
    fflush(stdout);
}

static void expect_status(const run_t *r, int want, const char *what)
{
    if (!WIFEXITED(r->status)) FAIL("%s: rivetrun died by signal %d", what, WTERMSIG(r->status));
    else if (WEXITSTATUS(r->status) != want)
        FAIL("%s: exit status %d, expected %d", what, WEXITSTATUS(r->status), want);
}

static void expect_out(const run_t *r, const char *text, const char *what)
{
    if (!strstr(r->out, text)) FAIL("%s: output lacks \"%s\"", what, text);
}

static void expect_faster(const run_t *r, long long ms, const char *what)
{
    if (r->elapsed > ms) FAIL("%s: took %lld ms, limit %lld ms", what, r->elapsed, ms);
}

/* Every "secret S" printed by the ranks: no /dev/shm/rivet-S-* may remain. */
static void expect_shm_clean(const run_t *r, int want_created, const char *what)
{
    const char *p = strstr(r->out, " secret ");
    if (!p) {
        if (want_created) FAIL("%s: the ranks did not report creating shared memory", what);
        return;
    }
    char prefix[64];
    snprintf(prefix, sizeof prefix, "rivet-%.32s-", p + 8);
    if (count_lines(r, "created /dev/shm/") < want_created)
        FAIL("%s: expected %d ranks to create shared memory", what, want_created);
    DIR *d = opendir("/dev/shm");
    if (!d) { FAIL("%s: cannot open /dev/shm", what); return; }
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            FAIL("%s: /dev/shm/%s was left behind", what, e->d_name);
            char name[300];
            snprintf(name, sizeof name, "/dev/shm/%s", e->d_name);
            unlink(name);
        }
    closedir(d);
}

/* Every "pid P" printed by the ranks (and by processes they started) must be gone. */
static void expect_ranks_gone(const run_t *r, int want, const char *what)
{
    int n = 0;
    for (const char *p = r->out; (p = strstr(p, " pid ")); p += 5) {
        long pid = strtol(p + 5, NULL, 10);
        if (pid <= 0) continue;
        n++;
        if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            FAIL("%s: rank process %ld is still alive", what, pid);
    }
    if (n < want) FAIL("%s: only %d of %d ranks reported their pid", what, n, want);
}

#define RR(...) ((char *const[]){(char *)rivetrun, __VA_ARGS__, NULL})

static void case_exitjob(void)
{
    run_t r;
    run_cmd(RR("-n", "4", (char *)prog, "exitjob", "2", "7"), 0, 20000, &r, NULL);
    expect_status(&r, 7, "exitjob");
    expect_faster(&r, 5000, "exitjob");
}

/* All ranks call gasnet_exit(0) at the end, as GASNet programs often do: the
 * first one must not cost the others their buffered output. */
static void case_allexit(void)
{
    run_t r;
    run_cmd(RR("-n", "4", (char *)prog, "allexit", "0", "0"), 0, 20000, &r, NULL);
    expect_status(&r, 0, "allexit");
    if (count_lines(&r, "bye from rank ") != 4) FAIL("allexit: a rank lost its output");
    run_cmd(RR("-n", "3", (char *)prog, "allexit", "0", "5"), 0, 20000, &r, NULL);
    expect_status(&r, 5, "allexit 5");
    expect_out(&r, "called gasnet_exit(5)", "allexit 5");
}

static void case_sigkill(void)
{
    run_t r;
    run_cmd(RR("-n", "4", (char *)prog, "sigkill", "1"), 0, 20000, &r, NULL);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) FAIL("sigkill: rivetrun exited 0");
    expect_status(&r, 128 + SIGKILL, "sigkill");
    expect_out(&r, "rank 1 (pid ", "sigkill");
    expect_out(&r, "was killed by signal SIGKILL", "sigkill");
    expect_out(&r, "rivetrun: terminating the job", "sigkill");
    expect_faster(&r, 5000, "sigkill");
    expect_shm_clean(&r, 4, "sigkill");
}

static void case_timeout(void)
{
    run_t r;
    run_cmd(RR("--timeout", "2", "-n", "3", (char *)prog, "hang"), 0, 20000, &r, NULL);
    expect_status(&r, 124, "timeout");
    expect_out(&r, "rivetrun: job timed out after 2 s; killed", "timeout");
    expect_faster(&r, 4500, "timeout");
    if (r.elapsed < 1900) FAIL("timeout: job ended after %lld ms, before its timeout", r.elapsed);
    expect_ranks_gone(&r, 4, "timeout");   /* 3 ranks + the child of rank 0 */
}

static void case_ok(void)
{
    run_t r;
    run_cmd(RR("-n", "4", (char *)prog, "ok"), 0, 20000, &r, NULL);
    expect_status(&r, 0, "ok");
    expect_shm_clean(&r, 4, "ok");
    run_cmd(RR("-np", "1", (char *)prog, "ok"), 0, 20000, &r, NULL);
    expect_status(&r, 0, "ok -np 1");
    run_cmd(RR("--np", "3", "--", (char *)prog, "ok"), 0, 20000, &r, NULL);
    expect_status(&r, 0, "ok --np 3");
}

static void case_exitcode(void)
{
    run_t r;
    run_cmd(RR("-n", "4", (char *)prog, "exit", "2", "3"), 0, 20000, &r, NULL);
    expect_status(&r, 3, "exitcode");
    expect_out(&r, "rivetrun: rank 2 (pid ", "exitcode");
    expect_out(&r, "exited with status 3", "exitcode");
}

static void case_noexec(void)
{
    run_t r;
    run_cmd(RR("-n", "2", "/nonexistent/rivet-no-such-program"), 0, 10000, &r, NULL);
    expect_status(&r, 127, "noexec");
    expect_out(&r, "/nonexistent/rivet-no-such-program", "noexec");
    expect_faster(&r, 5000, "noexec");
    run_cmd(RR("-n", "2", "rivet-no-such-program-in-path"), 0, 10000, &r, NULL);
    expect_status(&r, 127, "noexec (PATH)");
    expect_out(&r, "rivet-no-such-program-in-path", "noexec (PATH)");
    run_cmd(RR("-n", "2", "/dev/null"), 0, 10000, &r, NULL);
    expect_status(&r, 127, "noexec (not executable)");
    expect_out(&r, "/dev/null", "noexec (not executable)");
}

static void case_help(void)
{
    run_t r;
    run_cmd(RR("--help"), 0, 10000, &r, NULL);
    expect_status(&r, 0, "--help");
    expect_out(&r, "--timeout", "--help");
    expect_out(&r, "RIVET_BOOT_SECRET", "--help");
    run_cmd(RR("--help-env"), 0, 10000, &r, NULL);
    expect_status(&r, 0, "--help-env");
    expect_out(&r, "RIVET_", "--help-env");
    run_cmd(RR("--help-env", "--markdown"), 0, 10000, &r, NULL);
    expect_status(&r, 0, "--help-env --markdown");
    expect_out(&r, "|", "--help-env --markdown");
    run_cmd(RR("--version"), 0, 10000, &r, NULL);
    expect_status(&r, 0, "--version");
    expect_out(&r, "rivetrun", "--version");
    run_cmd(RR("--hosts", "a,b", "--hostfile", "/dev/null", "-n", "2", (char *)prog), 0, 10000,
            &r, NULL);
    expect_status(&r, 2, "--hosts and --hostfile");
    expect_out(&r, "give the hosts once", "--hosts and --hostfile");
    run_cmd(RR("-n", "0", (char *)prog), 0, 10000, &r, NULL);
    expect_status(&r, 2, "-n 0");
    run_cmd(RR((char *)prog), 0, 10000, &r, NULL);
    expect_status(&r, 2, "no -n");
}

static void case_sigterm(void)
{
    run_t r;
    run_cmd(RR("-n", "3", (char *)prog, "ready"), 3, 20000, &r, NULL);
    expect_status(&r, 128 + SIGTERM, "sigterm");
    if (r.after_sig < 0) FAIL("sigterm: the ranks never became ready");
    else if (r.after_sig > 5000) FAIL("sigterm: exit took %lld ms after SIGTERM", r.after_sig);
    expect_ranks_gone(&r, 4, "sigterm");
}

static void case_mismatch(void)
{
    run_t r;
    run_cmd(RR("-n", "3", (char *)prog, "mismatch", "1"), 0, 20000, &r, NULL);
    expect_status(&r, 1, "mismatch");
    expect_out(&r, "every rank must pass the same length", "mismatch");
    expect_faster(&r, 5000, "mismatch");
}

static void case_deadlock(void)
{
    run_t r;
    run_cmd(RR("-n", "3", (char *)prog, "deadlock", "0"), 0, 20000, &r, NULL);
    expect_status(&r, 1, "deadlock");
    expect_out(&r, "without joining bootstrap collective", "deadlock");
    expect_faster(&r, 5000, "deadlock");
}

/* We play a launcher that dies in the middle of a barrier: the rank must say so
 * and exit 1 promptly instead of hanging. */
static void case_lost(void)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) { perror("socketpair"); exit(2); }
    int p[2];
    if (pipe2(p, O_CLOEXEC)) { perror("pipe"); exit(2); }
    long long t0 = now_ms();
    pid_t pid = fork();
    if (pid == 0) {
        char fd[16];
        snprintf(fd, sizeof fd, "%d", sv[1]);
        fcntl(sv[1], F_SETFD, 0);
        dup2(p[1], 2);
        setenv(RV_BOOT_ENV_FD, fd, 1);
        setenv(RV_BOOT_ENV_RANK, "0", 1);
        setenv(RV_BOOT_ENV_SIZE, "2", 1);
        setenv(RV_BOOT_ENV_SECRET, "0123456789abcdef0123456789abcdef", 1);
        execl(prog, prog, "lost", (char *)NULL);
        _exit(126);
    }
    close(sv[1]);
    close(p[1]);
    /* Wait for the hello and the barrier's GATHER, then vanish. */
    for (int i = 0; i < 2; i++) {
        rv_boot_hdr_t h;
        struct pollfd pf = {sv[0], POLLIN, 0};
        if (poll(&pf, 1, 10000) != 1 || recv(sv[0], &h, sizeof h, 0) != (ssize_t)sizeof h) {
            FAIL("lost: the rank did not send hello and barrier");
            break;
        }
    }
    close(sv[0]);
    int status;
    char err[4096] = {0};
    size_t len = 0;
    struct pollfd pf = {p[0], POLLIN, 0};
    while (len < sizeof err - 1 && poll(&pf, 1, 10000) == 1) {
        ssize_t got = read(p[0], err + len, sizeof err - 1 - len);
        if (got <= 0) break;
        len += (size_t)got;
    }
    close(p[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    long long el = now_ms() - t0;
    printf("---- lost: rank exit %d after %lld ms, stderr:\n%s----\n",
           WIFEXITED(status) ? WEXITSTATUS(status) : -1, el, err);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 1) FAIL("lost: rank did not exit 1");
    if (!strstr(err, "lost the bootstrap connection")) FAIL("lost: no clear message");
    if (el > 5000) FAIL("lost: took %lld ms", el);
}

/* ---- multi-host: every "host" is this machine, reached through fake_ssh.sh ---- */

static char *mh_env[] = {NULL, NULL};

static void mh_setup(void)
{
    static char ssh[4200];
    snprintf(ssh, sizeof ssh, "RIVET_SSH=%s", fake_ssh ? fake_ssh : "/bin/false");
    mh_env[0] = ssh;
    if (!fake_ssh) FAIL("multi-host case without the fake_ssh.sh argument");
}

/* Output forwarded from every host; ranks inherit only their own socket (boot_prog
 * "ok" checks that: no agent or launcher socket leaks into a rank); cleanup. */
static void case_mh_ok(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("--hosts", "h1,h2", "-n", "4", (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 0, "mh_ok");
    expect_shm_clean(&r, 4, "mh_ok");
    expect_faster(&r, 10000, "mh_ok");
}

/* Placement: blocks per host, slots, rounds, hostfile syntax; and bad host lists. */
static void case_mh_place(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("-v", "--hosts", "h1:1,h2:1", "-n", "4", (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 0, "mh_place rounds");
    expect_out(&r, "host h1 (ranks 0-1)", "mh_place rounds");
    expect_out(&r, "host h2 (ranks 2-3)", "mh_place rounds");
    run_cmd(RR("-v", "--hosts", "h1:3,h2:2,h3", "-n", "4", (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 0, "mh_place slots");
    expect_out(&r, "host h1 (ranks 0-2)", "mh_place slots");
    expect_out(&r, "host h2 (rank 3)", "mh_place slots");
    if (strstr(r.out, "host h3 (")) FAIL("mh_place slots: h3 got ranks although h1, h2 had room");

    char path[] = "/tmp/rivet-hostfile-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0) { FAIL("mkstemp: %s", strerror(errno)); return; }
    const char *hf = "# two hosts\n  h1 slots=2   # first\n\nh2:1\nh1\n";
    if (write(fd, hf, strlen(hf)) != (ssize_t)strlen(hf)) FAIL("write hostfile");
    close(fd);
    run_cmd(RR("-v", "--hostfile", path, (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 0, "mh_place hostfile");
    expect_out(&r, "4 rank(s)", "mh_place hostfile (N = slots, h1 named twice: 3 slots)");
    expect_out(&r, "host h1 (ranks 0-2)", "mh_place hostfile");
    expect_out(&r, "host h2 (rank 3)", "mh_place hostfile");
    fd = open(path, O_WRONLY | O_TRUNC);
    hf = "h1\nh2 cores=4\n";
    if (fd < 0 || write(fd, hf, strlen(hf)) != (ssize_t)strlen(hf)) FAIL("write hostfile");
    if (fd >= 0) close(fd);
    run_cmd(RR("--hostfile", path, (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 2, "mh_place bad hostfile");
    expect_out(&r, "line 2: expected 'host', 'host:N' or 'host slots=N'", "mh_place bad hostfile");
    unlink(path);
    run_cmd(RR("--hostfile", "/nonexistent/hostfile", (char *)prog, "ok"), 0, 20000, &r, mh_env);
    expect_status(&r, 2, "mh_place missing hostfile");
    expect_out(&r, "/nonexistent/hostfile", "mh_place missing hostfile");

    run_cmd(RR("--hosts", "h1,-oProxyCommand=x", "-n", "2", (char *)prog, "ok"), 0, 10000, &r, mh_env);
    expect_status(&r, 2, "mh_place option as host");
    expect_out(&r, "invalid host name '-oProxyCommand=x'", "mh_place option as host");
    run_cmd(RR("--hosts", "h1:0", (char *)prog, "ok"), 0, 10000, &r, mh_env);
    expect_status(&r, 2, "mh_place 0 slots");
    expect_out(&r, "invalid slot count", "mh_place 0 slots");
}

static void case_mh_sigkill(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("--hosts", "h1:2,h2:2", (char *)prog, "sigkill", "3"), 0, 20000, &r, mh_env);
    expect_status(&r, 128 + SIGKILL, "mh_sigkill");
    expect_out(&r, "rivetrun: rank 3 (pid ", "mh_sigkill");
    expect_out(&r, " on host h2) was killed by signal SIGKILL", "mh_sigkill");
    expect_out(&r, "rivetrun: terminating the job", "mh_sigkill");
    expect_faster(&r, 5000, "mh_sigkill");
    expect_shm_clean(&r, 4, "mh_sigkill");
}

static void case_mh_exit(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("--hosts", "h1,h2", "-n", "4", (char *)prog, "exit", "2", "3"), 0, 20000, &r, mh_env);
    expect_status(&r, 3, "mh_exit");
    expect_out(&r, " on host h2) exited with status 3", "mh_exit");
    run_cmd(RR("--hosts", "h1,h2", "-n", "4", (char *)prog, "exitjob", "3", "7"), 0, 20000, &r,
            mh_env);
    expect_status(&r, 7, "mh_exit gasnet_exit");
    expect_out(&r, " on host h2) called gasnet_exit(7)", "mh_exit gasnet_exit");
    expect_faster(&r, 5000, "mh_exit gasnet_exit");
    run_cmd(RR("--hosts", "h1,h2", "-n", "2", "/nonexistent/rivet-no-such-program"), 0, 10000, &r,
            mh_env);
    expect_status(&r, 127, "mh_exit noexec");
    expect_out(&r, "cannot run '/nonexistent/rivet-no-such-program' on host h", "mh_exit noexec");
}

/* Timeout, SIGTERM to rivetrun, and rivetrun killed outright: no rank, orphan or
 * agent may survive (run_cmd waits for the output pipe to close). */
static void case_mh_kill(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("--timeout", "2", "--hosts", "h1,h2", "-n", "3", (char *)prog, "hang"), 0, 20000, &r,
            mh_env);
    expect_status(&r, 124, "mh_kill timeout");
    expect_faster(&r, 4500, "mh_kill timeout");
    expect_ranks_gone(&r, 4, "mh_kill timeout");
    run_cmd(RR("--hosts", "h1,h2", "-n", "3", (char *)prog, "ready"), 3, 20000, &r, mh_env);
    expect_status(&r, 128 + SIGTERM, "mh_kill sigterm");
    if (r.after_sig < 0 || r.after_sig > 5000) FAIL("mh_kill sigterm: exit %lld ms after SIGTERM", r.after_sig);
    expect_ranks_gone(&r, 4, "mh_kill sigterm");
    ready_sig = SIGKILL;
    run_cmd(RR("--hosts", "h1,h2", "-n", "3", (char *)prog, "ready"), 3, 20000, &r, mh_env);
    ready_sig = SIGTERM;
    if (WIFEXITED(r.status) || WTERMSIG(r.status) != SIGKILL) FAIL("mh_kill sigkill: not killed");
    expect_out(&r, "lost the connection to the launcher", "mh_kill sigkill");
    expect_ranks_gone(&r, 4, "mh_kill sigkill");
}

/* A host that cannot be reached is named, and the ranks already started elsewhere go. */
static void case_mh_unreachable(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("--hosts", "h1,unreachable-h3", "-n", "4", (char *)prog, "ready"), 0, 20000, &r,
            mh_env);
    expect_status(&r, 1, "mh_unreachable");
    expect_out(&r, "cannot start ranks 2-3 on host unreachable-h3", "mh_unreachable");
    expect_out(&r, "exited with status 255", "mh_unreachable");
    expect_faster(&r, 5000, "mh_unreachable");
    expect_ranks_gone(&r, 0, "mh_unreachable");
    /* an agent that cannot reach the launcher says where it tried */
    char *env2[] = {mh_env[0], "RIVET_LAUNCH_ADDR=127.0.0.1,no-such-host.invalid", NULL};
    run_cmd(RR("--hosts", "h1", "-n", "1", (char *)prog, "ok"), 0, 20000, &r, env2);
    expect_status(&r, 0, "mh_unreachable second address");
    char *env3[] = {mh_env[0], "RIVET_LAUNCH_ADDR=no-such-host.invalid", NULL};
    run_cmd(RR("--hosts", "h1", "-n", "1", (char *)prog, "ok"), 0, 20000, &r, env3);
    expect_status(&r, 1, "mh_unreachable launcher");
    expect_out(&r, "cannot reach the launcher (tried no-such-host.invalid", "mh_unreachable launcher");
    expect_out(&r, "cannot start rank 0 on host h1", "mh_unreachable launcher");
    run_cmd(RR("--hosts", "h1", "-n", "1", (char *)prog, "ok"), 0, 20000, &r,
            (char *[]){"RIVET_SSH=/nonexistent/ssh", NULL});
    expect_status(&r, 1, "mh_unreachable no ssh");
    expect_out(&r, "cannot run the remote shell '/nonexistent/ssh' for host h1", "mh_unreachable no ssh");
}

/* A process that does not know the job secret is refused; the job goes on. */
static void case_mh_secret(void)
{
    run_t r;
    mh_setup();
    run_cmd(RR("-v", "--hosts", "h1,intruder-h2", "-n", "4", (char *)prog, "ok"), 0, 20000, &r,
            mh_env);
    expect_status(&r, 0, "mh_secret");
    expect_out(&r, "it did not prove that it knows the job secret", "mh_secret");
    expect_out(&r, "refused this agent", "mh_secret");
    expect_out(&r, "fake_ssh: the stranger was turned away", "mh_secret");
    expect_shm_clean(&r, 4, "mh_secret");
    /* The secret is never on a command line, where other users could read it. */
    const char *sec = strstr(r.out, "job secret ");
    const char *cmd = strstr(r.out, "'--agent'");
    if (!sec || !cmd) {
        FAIL("mh_secret: -v did not show the secret and the remote command");
    } else {
        char secret[33];
        snprintf(secret, sizeof secret, "%.32s", sec + 11);
        const char *eol = strchr(cmd, '\n');
        const char *hit = strstr(cmd, secret);
        if (hit && (!eol || hit < eol)) FAIL("mh_secret: the secret is on the remote command line");
    }
}

static void expect_no(const run_t *r, const char *text, const char *what)
{
    if (strstr(r->out, text)) FAIL("%s: output has \"%s\"", what, text);
}

/* ---- a fatal error is reported as one, not as gasnet_exit(1) ---- */

static void case_fatal(void)
{
    run_t r;
    /* a bad setting: rivetrun checks the environment and starts nothing */
    run_cmd(RR("-n", "2", (char *)fork_prog, "check"), 0, 20000, &r,
            (char *[]){"RIVET_VERBOSE=abc", NULL});
    expect_status(&r, 2, "bad setting");
    expect_out(&r, "rivetrun: environment: RIVET_VERBOSE=abc is not an integer", "bad setting");
    expect_out(&r, "nothing was started", "bad setting");
    expect_no(&r, "gasnet_exit", "bad setting");
    expect_faster(&r, 5000, "bad setting");
    /* a fatal error in a running rank (a put to a rank that does not exist) */
    run_cmd(RR("-n", "2", (char *)fork_prog, "fatal", "1"), 0, 20000, &r, NULL);
    expect_status(&r, 1, "fatal in a rank");
    expect_out(&r, "rivet: fatal: ", "fatal in a rank");
    expect_out(&r, "rivetrun: rank 1 (pid ", "fatal in a rank");
    expect_out(&r, ") stopped on a fatal error (see its \"rivet: fatal:\" message)", "fatal in a rank");
    expect_no(&r, "gasnet_exit", "fatal in a rank");
    /* a real gasnet_exit(1) is still one */
    run_cmd(RR("-n", "2", (char *)fork_prog, "exitjob", "1", "1"), 0, 20000, &r, NULL);
    expect_status(&r, 1, "gasnet_exit(1)");
    expect_out(&r, "rivetrun: rank 1 (pid ", "gasnet_exit(1)");
    expect_out(&r, ") called gasnet_exit(1); terminating the job", "gasnet_exit(1)");
    expect_no(&r, "fatal error", "gasnet_exit(1)");
}

/* ---- fork spawning: GASNET_PSHM_NODES=N and no launcher ---- */

#define FP(...) ((char *const[]){(char *)fork_prog, __VA_ARGS__, NULL})

/* AM, RMA and barrier with data checked, same addresses, output of every rank (and the
 * pre-fork output once), nothing left behind; GASNET_PSHM_NODES under rivetrun forks nothing. */
static void case_fork_ok(void)
{
    run_t r;
    run_cmd(FP("check", "4"), 0, 60000, &r, (char *[]){"GASNET_PSHM_NODES=4", NULL});
    expect_status(&r, 0, "fork_ok");
    for (int k = 0; k < 4; k++) {
        char line[64];
        snprintf(line, sizeof line, "fork_prog: rank %d/4 checked", k);
        expect_out(&r, line, "fork_ok");
    }
    if (count_lines(&r, "fork_prog: before init") != 1)
        FAIL("fork_ok: output buffered before the fork was written %d times",
             count_lines(&r, "fork_prog: before init"));
    expect_out(&r, "fork_prog: PASS on 4 ranks", "fork_ok");
    expect_shm_clean(&r, 0, "fork_ok");
    expect_ranks_gone(&r, 5, "fork_ok");   /* 4 ranks + the supervisor */
    run_cmd(RR("-n", "2", (char *)fork_prog, "check", "2"), 0, 60000, &r,
            (char *[]){"GASNET_PSHM_NODES=4", NULL});
    expect_status(&r, 0, "fork_ok under rivetrun");
    expect_out(&r, "fork_prog: PASS on 2 ranks", "fork_ok under rivetrun");
}

static void case_fork_exit(void)
{
    run_t r;
    char *env[] = {"GASNET_PSHM_NODES=4", NULL};
    run_cmd(FP("exitjob", "2", "7"), 0, 20000, &r, env);
    expect_status(&r, 7, "fork_exit");
    expect_out(&r, "rivet: rank 2 (pid ", "fork_exit");
    expect_out(&r, ") called gasnet_exit(7); terminating the job", "fork_exit");
    expect_faster(&r, 5000, "fork_exit");
    expect_shm_clean(&r, 0, "fork_exit");
    expect_ranks_gone(&r, 5, "fork_exit");
    run_cmd(FP("exitjob", "0", "0"), 0, 20000, &r, env);
    expect_status(&r, 0, "fork_exit 0");
    expect_faster(&r, 5000, "fork_exit 0");
    /* a bad setting is found before anything is forked */
    run_cmd(FP("check"), 0, 20000, &r, (char *[]){"GASNET_PSHM_NODES=2", "RIVET_TRANSPORT=bogus", NULL});
    expect_status(&r, 1, "fork_exit bad setting");
    expect_out(&r, "rivet: fatal: environment: RIVET_TRANSPORT=bogus", "fork_exit bad setting");
    expect_no(&r, "gasnet_exit", "fork_exit bad setting");
    run_cmd(FP("fatal", "1"), 0, 20000, &r, (char *[]){"GASNET_PSHM_NODES=2", NULL});
    expect_status(&r, 1, "fork_exit fatal");
    expect_out(&r, ") stopped on a fatal error (see its \"rivet: fatal:\" message)", "fork_exit fatal");
    expect_no(&r, "gasnet_exit", "fork_exit fatal");
    expect_shm_clean(&r, 0, "fork_exit fatal");
}

static void case_fork_sigkill(void)
{
    run_t r;
    run_cmd(FP("sigkill", "1"), 0, 20000, &r, (char *[]){"GASNET_PSHM_NODES=4", NULL});
    expect_status(&r, 128 + SIGKILL, "fork_sigkill");
    expect_out(&r, "rivet: rank 1 (pid ", "fork_sigkill");
    expect_out(&r, ") was killed by signal SIGKILL", "fork_sigkill");
    expect_out(&r, "rivet: terminating the job", "fork_sigkill");
    expect_faster(&r, 5000, "fork_sigkill");
    expect_shm_clean(&r, 0, "fork_sigkill");
    expect_ranks_gone(&r, 5, "fork_sigkill");
}

/* SIGTERM to the supervisor (kill PID), and SIGINT to the whole process group (^C). */
static void case_fork_signal(void)
{
    run_t r;
    char *env[] = {"GASNET_PSHM_NODES=3", NULL};
    run_cmd(FP("ready"), 3, 20000, &r, env);
    expect_status(&r, 128 + SIGTERM, "fork_signal SIGTERM");
    if (r.after_sig < 0 || r.after_sig > 5000) FAIL("fork_signal SIGTERM: exit %lld ms after it", r.after_sig);
    expect_out(&r, "received SIGTERM", "fork_signal SIGTERM");
    expect_shm_clean(&r, 0, "fork_signal SIGTERM");
    expect_ranks_gone(&r, 4, "fork_signal SIGTERM");
    ready_sig = SIGINT;
    ready_pgrp = 1;
    run_cmd(FP("ready"), 3, 20000, &r, env);
    ready_sig = SIGTERM;
    ready_pgrp = 0;
    expect_status(&r, 128 + SIGINT, "fork_signal ^C");
    if (r.after_sig < 0 || r.after_sig > 5000) FAIL("fork_signal ^C: exit %lld ms after it", r.after_sig);
    expect_shm_clean(&r, 0, "fork_signal ^C");
    expect_ranks_gone(&r, 4, "fork_signal ^C");
}

/* Values that are not a number of ranks, and a process that already runs threads. */
static void case_fork_bad(void)
{
    static const char *const bad[] = {"0", "-1", "abc", "4x", "1025", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        run_t r;
        char env[64], what[64];
        snprintf(env, sizeof env, "GASNET_PSHM_NODES=%s", bad[i]);
        snprintf(what, sizeof what, "fork_bad %s", bad[i]);
        run_cmd(FP("check"), 0, 20000, &r, (char *[]){env, NULL});
        if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) FAIL("%s: exited 0", what);
        char msg[256];
        snprintf(msg, sizeof msg, "rivet: bootstrap: %s is not a valid number of ranks: expected a "
                 "whole number from 1 to 1024", env);
        expect_out(&r, msg, what);
        expect_no(&r, "started pid", what);
    }
    run_t r;
    run_cmd(FP("thread"), 0, 20000, &r, (char *[]){"GASNET_PSHM_NODES=2", NULL});
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 0) FAIL("fork_bad thread: exited 0");
    expect_out(&r, "GASNET_PSHM_NODES=2: this process already runs 2 threads", "fork_bad thread");
    expect_no(&r, "started pid", "fork_bad thread");
}

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"fatal", case_fatal},     {"fork_ok", case_fork_ok},   {"fork_exit", case_fork_exit},
    {"fork_sigkill", case_fork_sigkill}, {"fork_signal", case_fork_signal},
    {"fork_bad", case_fork_bad},
    {"mh_ok", case_mh_ok},       {"mh_place", case_mh_place}, {"mh_sigkill", case_mh_sigkill},
    {"mh_exit", case_mh_exit},   {"mh_kill", case_mh_kill},   {"mh_unreachable", case_mh_unreachable},
    {"mh_secret", case_mh_secret},
    {"exitjob", case_exitjob}, {"allexit", case_allexit},   {"sigkill", case_sigkill},   {"timeout", case_timeout},
    {"ok", case_ok},           {"exitcode", case_exitcode}, {"noexec", case_noexec},
    {"help", case_help},       {"sigterm", case_sigterm},   {"mismatch", case_mismatch},
    {"deadlock", case_deadlock}, {"lost", case_lost},
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: launcher_test RIVETRUN BOOT_PROG CASE|all [FAKE_SSH [FORK_PROG]]\n");
        return 2;
    }
    rivetrun = argv[1];
    prog = argv[2];
    fake_ssh = argc > 4 ? argv[4] : NULL;
    fork_prog = argc > 5 ? argv[5] : "/nonexistent/boot_fork_prog";
    int ran = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(argv[3], "all") == 0 || strcmp(argv[3], cases[i].name) == 0) {
            cases[i].fn();
            ran++;
        }
    if (!ran) {
        fprintf(stderr, "launcher_test: unknown case '%s'\n", argv[3]);
        return 2;
    }
    if (failures) {
        fprintf(stderr, "launcher_test: %s: %d failure(s)\n", argv[3], failures);
        return 1;
    }
    printf("launcher_test: %s: ok\n", argv[3]);
    return 0;
}
