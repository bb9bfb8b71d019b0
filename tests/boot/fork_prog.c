/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/fork_prog.c: a GASNet-EX program for fork spawning (GASNET_PSHM_NODES=N, no launcher)
 * and for uniform code addresses across the ranks of a host (under rivetrun and forked).
 * usage: fork_prog check N [expect-differ]   AM + RMA + barrier with data checked, every
 *                                            rank's code addresses compared (expect-differ:
 *                                            they must differ, proving the check can fail)
 *        fork_prog exitjob R CODE            rank R calls gasnet_exit(CODE), the others wait
 *        fork_prog sigkill R                 rank R kills itself with SIGKILL
 *        fork_prog ready                     every rank says "ready" and waits to be killed
 *        fork_prog thread N                  starts a thread before gex_Client_Init
 * Only the public API; built as a PIE against the shared librivet. */
#include "rv_test.h"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

/* fork_vtbl.cpp (when C++ is available): the vtable pointer of a polymorphic object. */
#ifdef FORK_PROG_CXX
extern const void *fork_prog_vtable(void);
#else
static const void *fork_prog_vtable(void) { return NULL; }
#endif

enum { H_ADDRS = GEX_AM_INDEX_BASE };

typedef struct addrs {
    uint64_t static_fn;    /* a function of this program */
    uint64_t libc_fn;      /* a function of the C library */
    uint64_t rivet_fn;     /* a function of librivet */
    uint64_t vtable;       /* a C++ vtable (0 without C++) */
    uint64_t main_fn;
} addrs_t;

static const char *const addr_names[] = {"static function", "libc function (strlen)",
                                         "librivet function (gex_Client_Init)", "C++ vtable",
                                         "main"};

static addrs_t mine;
static volatile int am_seen, am_bad;
static char am_what[256];

static int compare(const addrs_t *a, const addrs_t *b, char *what, size_t n)
{
    const uint64_t *x = (const uint64_t *)a, *y = (const uint64_t *)b;
    for (size_t i = 0; i < sizeof *a / sizeof x[0]; i++)
        if (x[i] != y[i]) {
            snprintf(what, n, "%s: 0x%llx here, 0x%llx there", addr_names[i],
                     (unsigned long long)x[i], (unsigned long long)y[i]);
            return 1;
        }
    return 0;
}

static void addrs_handler(gex_Token_t t, void *buf, size_t nbytes, gex_AM_Arg_t from)
{
    (void)t;
    (void)from;
    if (nbytes != sizeof(addrs_t)) am_bad = 1;
    else if (compare(&mine, (const addrs_t *)buf, am_what, sizeof am_what)) am_bad = 1;
    am_seen = am_seen + 1;
}

static __attribute__((noinline)) int static_fn(int x) { return x * 3 + 1; }

static void *sleeper(void *arg)
{
    (void)arg;
    for (;;) pause();
    return NULL;
}

/* The premise of the address check: a position-independent executable (loaded at a
 * random address unless randomisation is off) and the shared librivet. */
static void check_premise(void)
{
    Elf64_Ehdr eh;
    int fd = open("/proc/self/exe", O_RDONLY);
    RVT_CHECK(fd >= 0 && read(fd, &eh, sizeof eh) == (ssize_t)sizeof eh, "cannot read /proc/self/exe");
    close(fd);
    RVT_CHECK(eh.e_type == ET_DYN, "fork_prog is not a position-independent executable (e_type %u)",
              (unsigned)eh.e_type);
    Dl_info di;
    RVT_CHECK(dladdr((void *)gex_Client_Init, &di) && di.dli_fname
              && strstr(di.dli_fname, "librivet.so"),
              "gex_Client_Init is not in the shared librivet (%s)", di.dli_fname ? di.dli_fname : "?");
}

static int aslr_on(void)
{
    int fd = open("/proc/sys/kernel/randomize_va_space", O_RDONLY);
    char c = '2';
    if (fd >= 0) {
        if (read(fd, &c, 1) != 1) c = '2';
        close(fd);
    }
    return c != '0';
}

static void check(gex_Rank_t want_n, int expect_differ)
{
    check_premise();
    RVT_CHECK(rvt_n == want_n, "the job has %u ranks, expected %u", (unsigned)rvt_n, (unsigned)want_n);
    const size_t blk = 4096;
    char *seg = (char *)rvt_seg_addr(rvt_me, 0);

    /* AM: every rank sends its addresses to every rank (itself too); handlers compare. */
    for (gex_Rank_t r = 0; r < rvt_n; r++)
        RVT_OK(gex_AM_RequestMedium1(rvt_tm, r, H_ADDRS, &mine, sizeof mine, GEX_EVENT_NOW, 0,
                                     (gex_AM_Arg_t)rvt_me));
    GASNET_BLOCKUNTIL(am_seen == (int)rvt_n);

    /* RMA: a pattern put into the next rank's segment, read back by get; barrier between. */
    gex_Rank_t next = (rvt_me + 1) % rvt_n, prev = (rvt_me + rvt_n - 1) % rvt_n;
    char *buf = (char *)malloc(blk);
    RVT_CHECK(buf != NULL, "malloc");
    rvt_fill(buf, blk, 100 + rvt_me);
    RVT_OK(gex_RMA_PutBlocking(rvt_tm, next, rvt_seg_addr(next, 0), buf, blk, 0));
    memcpy(seg + blk, &mine, sizeof mine);
    rvt_barrier();
    RVT_VERIFY(seg, blk, 100 + prev, "the block the previous rank put here");
    memset(buf, 0, blk);
    RVT_OK(gex_RMA_GetBlocking(rvt_tm, buf, next, rvt_seg_addr(next, 0), blk, 0));
    RVT_VERIFY(buf, blk, 100 + rvt_me, "the block read back from the next rank");

    /* Every rank's addresses, fetched from its segment, against ours. */
    int differ = 0;
    char what[256] = "";
    for (gex_Rank_t r = 0; r < rvt_n; r++) {
        addrs_t theirs;
        RVT_OK(gex_RMA_GetBlocking(rvt_tm, &theirs, r, rvt_seg_addr(r, blk), sizeof theirs, 0));
        differ |= compare(&mine, &theirs, what, sizeof what);
    }
    if (expect_differ) {
        RVT_CHECK(rvt_n < 2 || differ || !aslr_on(),
                  "every rank has the same addresses although randomisation was left on: "
                  "the address check cannot detect a difference");
        if (rvt_me == 0)
            printf("fork_prog: with randomisation on, addresses %s (%s)\n",
                   differ ? "differ as expected" : "are the same", aslr_on() ? "ASLR on" : "ASLR off");
    } else {
        RVT_CHECK(!am_bad, "a rank's addresses (sent by AM) differ from ours: %s", am_what);
        RVT_CHECK(!differ, "a rank's addresses (read by RMA) differ from ours: %s", what);
    }
    free(buf);

    /* A second client is refused, in every rank, without forking anything. */
    gex_Client_t c2;
    gex_EP_t e2;
    gex_TM_t t2;
    gex_System_SetVerboseErrors(0);
    RVT_CHECK(gex_Client_Init(&c2, &e2, &t2, "second", NULL, NULL, 0) != GASNET_OK,
              "a second gex_Client_Init succeeded");
    gex_System_SetVerboseErrors(1);
    rvt_barrier();
    printf("fork_prog: rank %u/%u checked\n", (unsigned)rvt_me, (unsigned)rvt_n);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "check";
    int argc0 = argc;
    char **argv0 = argv;
    mine.static_fn = (uint64_t)(uintptr_t)static_fn;
    mine.libc_fn = (uint64_t)(uintptr_t)strlen;
    mine.rivet_fn = (uint64_t)(uintptr_t)gex_Client_Init;
    mine.vtable = (uint64_t)(uintptr_t)fork_prog_vtable();
    mine.main_fn = (uint64_t)(uintptr_t)main;
    (void)static_fn(1);

    if (!strcmp(mode, "thread")) {
        pthread_t th;
        if (pthread_create(&th, NULL, sleeper, NULL) != 0) return 3;
    }
    /* Output buffered before the fork is written once, by the process that wrote it. */
    printf("fork_prog: before init pid %ld\n", (long)getpid());

    rvt_init(&argc, &argv, 64 * 1024);
    RVT_CHECK(argc == argc0 && argv == argv0 && !strcmp(argv[1], mode),
              "gex_Client_Init changed argc/argv (%d, %s)", argc, argv[1]);
    gex_AM_Entry_t h[] = {{H_ADDRS, (gex_AM_Fn_t)addrs_handler,
                           GEX_FLAG_AM_REQUEST | GEX_FLAG_AM_MEDIUM, 1, NULL, "addrs"}};
    RVT_OK(gex_EP_RegisterHandlers(rvt_ep, h, 1));
    rvt_barrier();
    const char *secret = getenv("RIVET_BOOT_SECRET");
    printf("fork_prog: rank %u/%u started pid %ld secret %s\n", (unsigned)rvt_me, (unsigned)rvt_n,
           (long)getpid(), secret ? secret : "-");
    fflush(stdout);

    if (!strcmp(mode, "check")) {
        check(argc > 2 ? (gex_Rank_t)atoi(argv[2]) : rvt_n, argc > 3 && !strcmp(argv[3], "expect-differ"));
        return rvt_done("fork_prog");
    }
    if (!strcmp(mode, "exitjob")) {
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) {
            printf("fork_prog: rank %u calls gasnet_exit(%d)\n", (unsigned)rvt_me, atoi(argv[3]));
            fflush(stdout);
            gasnet_exit(atoi(argv[3]));
        }
        rvt_barrier();   /* never completes */
        RVT_FAIL("the barrier completed without the exiting rank");
    }
    if (!strcmp(mode, "fatal")) {      /* a fatal error in a running rank: a put to no rank */
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) {
            static char word[8];
            gex_RMA_PutBlocking(rvt_tm, rvt_n, word, word, sizeof word, 0);
            RVT_FAIL("a put to rank %u (of %u) returned", (unsigned)rvt_n, (unsigned)rvt_n);
        }
        rvt_barrier();   /* never completes */
        RVT_FAIL("the barrier completed without the failed rank");
    }
    if (!strcmp(mode, "sigkill")) {
        rvt_barrier();   /* every rank has printed its pid */
        if (rvt_me == (gex_Rank_t)atoi(argv[2])) raise(SIGKILL);
        rvt_barrier();
        RVT_FAIL("the barrier completed without the killed rank");
    }
    if (!strcmp(mode, "ready")) {
        printf("ready rank %u pid %ld\n", (unsigned)rvt_me, (long)getpid());
        fflush(stdout);
        for (;;) pause();
    }
    if (!strcmp(mode, "thread")) RVT_FAIL("gex_Client_Init forked a process that runs threads");
    RVT_FAIL("unknown mode %s", mode);
}
