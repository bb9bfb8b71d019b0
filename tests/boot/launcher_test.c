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

static const char *rivetrun, *prog;
static int failures;

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

/* Runs argv with stdout+stderr captured. If sig_after_ready > 0, sends SIGTERM to
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
                kill(pid, SIGTERM);
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
    run_cmd(RR("--hosts", "a,b", "-n", "2", (char *)prog), 0, 10000, &r, NULL);
    expect_status(&r, 2, "--hosts");
    expect_out(&r, "not supported yet", "--hosts");
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

static const struct { const char *name; void (*fn)(void); } cases[] = {
    {"exitjob", case_exitjob}, {"allexit", case_allexit},   {"sigkill", case_sigkill},   {"timeout", case_timeout},
    {"ok", case_ok},           {"exitcode", case_exitcode}, {"noexec", case_noexec},
    {"help", case_help},       {"sigterm", case_sigterm},   {"mismatch", case_mismatch},
    {"deadlock", case_deadlock}, {"lost", case_lost},
};

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: launcher_test RIVETRUN BOOT_PROG CASE|all\n");
        return 2;
    }
    rivetrun = argv[1];
    prog = argv[2];
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
