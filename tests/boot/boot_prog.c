/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/boot_prog.c: tiny rank programs that misbehave on purpose for the launcher tests. */
#include "boot/boot.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static rv_boot_info_t bi;

static void die(const char *what)
{
    fprintf(stderr, "boot_prog: rank %u: %s failed\n", (unsigned)bi.rank, what);
    exit(99);
}

static void forever(void)
{
    for (;;) pause();
}

/* Creates /dev/shm/rivet-<secret>-bootprog-<rank>, as the shm transport would. */
static void make_shm(void)
{
    char name[96];
    snprintf(name, sizeof name, "/rivet-%s-bootprog-%u", bi.secret, (unsigned)bi.rank);
    int fd = shm_open(name, O_CREAT | O_RDWR, 0600);
    if (fd < 0) die("shm_open");
    close(fd);
    printf("created /dev/shm%s secret %s\n", name, bi.secret);
    fflush(stdout);
}

/* Before init, the only socket this process holds must be its own bootstrap one. */
static int count_sockets(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d) return -1;
    struct dirent *e;
    int n = 0;
    while ((e = readdir(d))) {
        char path[300], link[64];
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(path, link, sizeof link - 1);
        if (l > 0) {
            link[l] = 0;
            n += strncmp(link, "socket:", 7) == 0;
        }
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "ok";
    uint32_t who = argc > 2 ? (uint32_t)atoi(argv[2]) : 0;
    int code = argc > 3 ? atoi(argv[3]) : 0;
    int sockets = count_sockets();

    if (rv_boot_init(&bi) != 0) die("rv_boot_init");
    const char *env_secret = getenv("RIVET_BOOT_SECRET");
    if (!env_secret || strcmp(env_secret, bi.secret) != 0) die("secret from the environment");

    if (strcmp(mode, "ok") == 0) {            /* d: everyone returns 0 */
        if (sockets != 1) {
            fprintf(stderr, "boot_prog: rank %u inherited %d sockets, expected only its own\n",
                    (unsigned)bi.rank, sockets);
            return 98;
        }
        make_shm();
        if (rv_boot_barrier()) die("barrier");
        rv_boot_fini();
        return 0;
    }
    if (strcmp(mode, "exitjob") == 0) {       /* a: gasnet_exit(code) on one rank */
        if (rv_boot_barrier()) die("barrier");
        if (bi.rank == who) {
            rv_boot_exit_job(code);
            exit(code);
        }
        rv_boot_barrier();                    /* never completes */
        die("barrier that cannot complete");
    }
    if (strcmp(mode, "allexit") == 0) {       /* every rank calls gasnet_exit(code) */
        if (rv_boot_barrier()) die("barrier");
        printf("bye from rank %u\n", (unsigned)bi.rank);   /* still in the stdio buffer */
        rv_boot_exit_job(code);
        exit(code);
    }
    if (strcmp(mode, "sigkill") == 0) {       /* b: one rank dies by SIGKILL mid-job */
        make_shm();
        if (rv_boot_barrier()) die("barrier");
        if (bi.rank == who) raise(SIGKILL);
        rv_boot_barrier();
        die("barrier that cannot complete");
    }
    if (strcmp(mode, "hang") == 0 || strcmp(mode, "ready") == 0) {   /* c, h */
        if (rv_boot_barrier()) die("barrier");
        if (bi.rank == 0) {                   /* a process the rank leaves behind */
            fflush(stdout);
            pid_t child = fork();
            if (child < 0) die("fork");
            if (child == 0) forever();
            printf("orphan-to-be pid %ld\n", (long)child);
        }
        printf("ready rank %u pid %ld\n", (unsigned)bi.rank, (long)getpid());
        fflush(stdout);
        forever();
    }
    if (strcmp(mode, "exit") == 0) {          /* e: one rank exits non-zero */
        if (rv_boot_barrier()) die("barrier");
        rv_boot_fini();
        return bi.rank == who ? code : 0;
    }
    if (strcmp(mode, "mismatch") == 0) {      /* ranks disagree on the allgather length */
        char buf[64] = {0}, all[64 * 64];
        rv_boot_allgather(buf, bi.rank == who ? 16 : 8, all);
        die("allgather with mismatched lengths");
    }
    if (strcmp(mode, "deadlock") == 0) {      /* one rank leaves while the others wait */
        if (bi.rank == who) {
            rv_boot_fini();
            return 0;
        }
        rv_boot_barrier();
        die("barrier that cannot complete");
    }
    if (strcmp(mode, "lost") == 0) {          /* the launcher vanishes mid-barrier */
        rv_boot_barrier();
        die("barrier without a launcher");
    }
    fprintf(stderr, "boot_prog: unknown mode '%s'\n", mode);
    return 2;
}
