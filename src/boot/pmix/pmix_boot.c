/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/pmix/pmix_boot.c: the PMIx bootstrap: rank, size and host from the PMIx server that
 * started us (srun --mpi=pmix, Open MPI's mpirun, prterun), allgather over PMIx
 * put/commit/fence/get, barrier = fence, and the job's end through PMIx_Abort. libpmix is
 * compiled against (pmix.h, for its types) but loaded with dlopen only when a PMIx launcher
 * started the process: librivet has no link dependency on it. */
#include "boot/pmix/pmix_boot.h"
#include "boot/singleton/singleton.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rv_boot_pmix_detected(void)
{
    const char *r = getenv("PMIX_RANK"), *n = getenv("PMIX_NAMESPACE");
    return r && *r && n && *n;
}

#ifndef RIVET_HAVE_PMIX

int rv_boot_pmix_built(void) { return 0; }

int rv_boot_pmix_init(rv_boot_info_t *info)
{
    (void)info;
    fprintf(stderr, "rivet: bootstrap: this process was started by a PMIx launcher (srun --mpi=pmix, "
            "mpirun or prterun: PMIX_NAMESPACE=%s) but this Rivet was built without PMIx support "
            "(pmix.h was not found: install libpmix-dev and rebuild), or start it with rivetrun\n",
            getenv("PMIX_NAMESPACE"));
    return -1;
}

int rv_boot_pmix_allgather(const void *mine, size_t len, void *all)
{
    (void)mine, (void)len, (void)all;
    return -1;
}

void rv_boot_pmix_exit_job(int code, int fatal) { (void)code, (void)fatal; }
void rv_boot_pmix_fini(void) {}

#else /* RIVET_HAVE_PMIX */

#include <pmix.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdbool.h>
#include <unistd.h>

/* Bound on every wait of the exit paths: PMIx_Abort's kill reaching us, PMIx_Finalize. */
#define RV_PMIX_EXIT_SECONDS 10
/* How long gasnet_exit waits in its exit fence for the other ranks (all calling gasnet_exit
 * too) before it ends the job with PMIx_Abort. The fence carries this as its PMIX_TIMEOUT, so
 * the server ends it before we abort: Open MPI 4.1's mpirun crashed (SIGSEGV in
 * PMIx_server_finalize, the job's code lost) now and then when a fence was still open at the
 * abort. We wait 2 s longer, for servers that ignore the timeout. */
#define RV_PMIX_EXIT_WAIT_SECONDS 5

/* The libpmix entry points we use, resolved by name (types from pmix.h). */
static struct {
    void *lib;
    __typeof__(&PMIx_Init) init;
    __typeof__(&PMIx_Finalize) finalize;
    __typeof__(&PMIx_Get) get;
    __typeof__(&PMIx_Put) put;
    __typeof__(&PMIx_Commit) commit;
    __typeof__(&PMIx_Fence) fence;
    __typeof__(&PMIx_Fence_nb) fence_nb;
    __typeof__(&PMIx_Abort) abort;
    __typeof__(&PMIx_Error_string) errstr;
} px;

enum { RV_PX_NONE, RV_PX_UP, RV_PX_ABORTED, RV_PX_DONE };
static int rv_px_state;
static pid_t rv_px_pid;           /* a forked child must not speak for the rank */
static pmix_proc_t rv_px_me;
static uint32_t rv_px_size;
static uint32_t rv_px_seq;        /* numbers the allgathers: one PMIx key each */
static uint32_t rv_px_nfence;     /* numbers the fences after init (collectives, exit fences) */
static volatile sig_atomic_t rv_px_code;

int rv_boot_pmix_built(void) { return 1; }

static const char *rv_px_err(pmix_status_t rc)
{
    const char *s = px.errstr ? px.errstr(rc) : NULL;
    return s ? s : "unknown PMIx error";
}

static int rv_px_load(void)
{
    static const char *const names[] = { "libpmix.so.2", "libpmix.so" };
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !px.lib; i++)
        px.lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!px.lib) {
        fprintf(stderr, "rivet: bootstrap: started by a PMIx launcher (PMIX_NAMESPACE=%s) but "
                "libpmix.so.2 cannot be loaded (%s); install libpmix2, or start the job with "
                "rivetrun\n", getenv("PMIX_NAMESPACE"), dlerror());
        return -1;
    }
    struct { void **fn; const char *name; } syms[] = {
        { (void **)&px.init, "PMIx_Init" },     { (void **)&px.finalize, "PMIx_Finalize" },
        { (void **)&px.get, "PMIx_Get" },       { (void **)&px.put, "PMIx_Put" },
        { (void **)&px.commit, "PMIx_Commit" }, { (void **)&px.fence, "PMIx_Fence" },
        { (void **)&px.abort, "PMIx_Abort" },   { (void **)&px.errstr, "PMIx_Error_string" },
        { (void **)&px.fence_nb, "PMIx_Fence_nb" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(px.lib, syms[i].name);
        if (!*syms[i].fn) {
            fprintf(stderr, "rivet: bootstrap: libpmix has no %s: too old a PMIx\n", syms[i].name);
            return -1;
        }
    }
    return 0;
}

/* Frees a value PMIx_Get returned (allocated by libpmix with the same malloc). */
static void rv_px_free(pmix_value_t *v)
{
    if (!v) return;
    if (v->type == PMIX_STRING) free(v->data.string);
    else if (v->type == PMIX_BYTE_OBJECT) free(v->data.bo.bytes);
    free(v);
}

static void rv_px_proc(pmix_proc_t *p, pmix_rank_t rank)
{
    memset(p, 0, sizeof *p);
    memcpy(p->nspace, rv_px_me.nspace, sizeof p->nspace);
    p->rank = rank;
}

/* PMIx_Get of a job-level (rank = PMIX_RANK_WILDCARD) or per-rank key; NULL if absent. */
static pmix_value_t *rv_px_get(pmix_rank_t rank, const char *key)
{
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    rv_px_proc(&p, rank);
    if (px.get(&p, key, NULL, 0, &v) != PMIX_SUCCESS) return NULL;
    return v;
}

/* The job's fence; collect: every rank's committed data is brought to every rank. */
static int rv_px_fence(int collect, const char *what)
{
    pmix_proc_t all;
    pmix_info_t info;
    rv_px_proc(&all, PMIX_RANK_WILDCARD);
    memset(&info, 0, sizeof info);
    snprintf(info.key, sizeof info.key, "%s", PMIX_COLLECT_DATA);
    info.value.type = PMIX_BOOL;
    info.value.data.flag = true;
    pmix_status_t rc = px.fence(&all, 1, collect ? &info : NULL, collect ? 1 : 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "rivet: rank %u: PMIx_Fence (%s) failed: %s\n", (unsigned)rv_px_me.rank,
                what, rv_px_err(rc));
        return -1;
    }
    return 0;
}

static int rv_px_put(const char *key, const void *data, size_t len)
{
    pmix_value_t v;
    memset(&v, 0, sizeof v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)(uintptr_t)data;
    v.data.bo.size = len;
    pmix_status_t rc = px.put(PMIX_GLOBAL, key, &v);
    if (rc == PMIX_SUCCESS) rc = px.commit();
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "rivet: rank %u: PMIx_Put/Commit of %s failed: %s\n",
                (unsigned)rv_px_me.rank, key, rv_px_err(rc));
        return -1;
    }
    return 0;
}

/* Copies rank's byte object 'key' (exactly len bytes) to out. */
static int rv_px_fetch(pmix_rank_t rank, const char *key, void *out, size_t len)
{
    pmix_value_t *v = rv_px_get(rank, key);
    int ok = v && v->type == PMIX_BYTE_OBJECT && v->data.bo.size == len;
    if (ok) memcpy(out, v->data.bo.bytes, len);
    else
        fprintf(stderr, "rivet: rank %u: PMIx_Get of rank %u's %s failed\n",
                (unsigned)rv_px_me.rank, (unsigned)rank, key);
    rv_px_free(v);
    return ok ? 0 : -1;
}

static void rv_px_alarm(int sig)
{
    (void)sig;
    _exit(rv_px_code);
}

/* From here on the process ends within RV_PMIX_EXIT_SECONDS, with 'code'. */
static void rv_px_deadline(int code)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = rv_px_alarm;
    sigemptyset(&sa.sa_mask);
    rv_px_code = code;
    sigaction(SIGALRM, &sa, NULL);
    alarm(RV_PMIX_EXIT_SECONDS);
}

int rv_boot_pmix_init(rv_boot_info_t *info)
{
    static char detail[512];
    memset(info, 0, sizeof *info);
    if (rv_px_load()) return -1;
    pmix_status_t rc = px.init(&rv_px_me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "rivet: bootstrap: PMIx_Init failed: %s (PMIX_NAMESPACE=%s, PMIX_RANK=%s)\n",
                rv_px_err(rc), getenv("PMIX_NAMESPACE"), getenv("PMIX_RANK"));
        return -1;
    }
    rv_px_state = RV_PX_UP;
    rv_px_pid = getpid();

    pmix_value_t *v = rv_px_get(PMIX_RANK_WILDCARD, PMIX_JOB_SIZE);
    if (!v || v->type != PMIX_UINT32 || v->data.uint32 == 0 || rv_px_me.rank >= v->data.uint32) {
        fprintf(stderr, "rivet: bootstrap: PMIx gives no valid job size (%s) for rank %u\n",
                PMIX_JOB_SIZE, (unsigned)rv_px_me.rank);
        rv_px_free(v);
        return -1;
    }
    rv_px_size = v->data.uint32;
    rv_px_free(v);
    info->rank = rv_px_me.rank;
    info->size = rv_px_size;
    info->method = "pmix";

    /* The host layout as the resource manager sees it: our host's name (the key job.c groups
     * ranks by) and, for RIVET_VERBOSE, the node id and the ranks PMIx places beside us. */
    unsigned nodeid = 0;
    if ((v = rv_px_get(rv_px_me.rank, PMIX_HOSTNAME)) && v->type == PMIX_STRING && v->data.string)
        snprintf(info->host, sizeof info->host, "%s", v->data.string);
    rv_px_free(v);
    if ((v = rv_px_get(rv_px_me.rank, PMIX_NODEID)) && v->type == PMIX_UINT32)
        nodeid = v->data.uint32;
    rv_px_free(v);
    char peers[64] = "?";
    if ((v = rv_px_get(PMIX_RANK_WILDCARD, PMIX_LOCAL_PEERS)) && v->type == PMIX_STRING &&
        v->data.string) {
        snprintf(peers, sizeof peers, "%s", v->data.string);
        if (strlen(v->data.string) >= sizeof peers) strcpy(peers + sizeof peers - 4, "...");
    }
    rv_px_free(v);
    snprintf(detail, sizeof detail, "namespace %s, node %u (%s), ranks here: %s", rv_px_me.nspace,
             nodeid, info->host[0] ? info->host : "?", peers);
    info->detail = detail;

    /* The job secret (names our /dev/shm objects): rank 0's random value, published
     * through a fence; a fresh one per job even when a namespace name comes back. */
    char secret[33];
    if (rv_px_me.rank == 0 && rv_boot_secret_new(secret) != 0) {
        fprintf(stderr, "rivet: bootstrap: getrandom() failed for the job secret\n");
        return -1;
    }
    if ((rv_px_me.rank == 0 && rv_px_put("rivet.secret", secret, sizeof secret)) ||
        rv_px_fence(1, "job secret") || rv_px_fetch(0, "rivet.secret", secret, sizeof secret))
        return -1;
    secret[32] = '\0';
    for (int i = 0; i < 32; i++)
        if (!((secret[i] >= '0' && secret[i] <= '9') || (secret[i] >= 'a' && secret[i] <= 'f'))) {
            fprintf(stderr, "rivet: bootstrap: rank 0's job secret over PMIx is malformed\n");
            return -1;
        }
    memcpy(info->secret, secret, sizeof info->secret);
    return 0;
}

static void rv_px_follow(uint32_t fence);

int rv_boot_pmix_allgather(const void *mine, size_t len, void *all)
{
    if (rv_px_state != RV_PX_UP) return -1;
    /* with PMIX_COLLECT_DATA like every other fence (a gasnet_exit's exit fence may meet it) */
    uint32_t fence = rv_px_nfence++;
    if (len == 0) {
        if (rv_px_fence(1, "barrier")) return -1;
        rv_px_follow(fence);
        return 0;
    }
    char key[32];
    snprintf(key, sizeof key, "rivet.ag.%u", (unsigned)rv_px_seq++);
    if (rv_px_put(key, mine, len) || rv_px_fence(1, key)) return -1;
    rv_px_follow(fence);
    for (uint32_t r = 0; r < rv_px_size; r++) {
        char *dst = (char *)all + (size_t)r * len;
        if (r == rv_px_me.rank) memmove(dst, mine, len);
        else if (rv_px_fetch(r, key, dst, len)) return -1;
    }
    return 0;
}

/* The exit fence: gasnet_exit waits for it on a condition variable, with a time limit. */
static pthread_mutex_t rv_px_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rv_px_cond = PTHREAD_COND_INITIALIZER;
static int rv_px_fenced;           /* 1: the exit fence completed, -1: it failed */

static void rv_px_fenced_cb(pmix_status_t status, void *cbdata)
{
    (void)cbdata;
    pthread_mutex_lock(&rv_px_lock);
    rv_px_fenced = status == PMIX_SUCCESS ? 1 : -1;
    pthread_cond_signal(&rv_px_cond);
    pthread_mutex_unlock(&rv_px_lock);
}

/* The code rank r published with gasnet_exit for fence number 'fence' ("rivet.exit.<fence>":
 * only a rank in that very fence can see it), or -1. A PMIX_OPTIONAL get: only what the fence
 * brought, no wait for a key that may never come. */
static int rv_px_exit_code_of(uint32_t r, uint32_t fence)
{
    char key[32];
    snprintf(key, sizeof key, "rivet.exit.%u", (unsigned)fence);
    pmix_info_t opt;
    memset(&opt, 0, sizeof opt);
    snprintf(opt.key, sizeof opt.key, "%s", PMIX_OPTIONAL);
    opt.value.type = PMIX_BOOL;
    opt.value.data.flag = true;
    pmix_proc_t p;
    pmix_value_t *v = NULL;
    rv_px_proc(&p, r);
    int code = -1;
    int32_t c;
    if (px.get(&p, key, &opt, 1, &v) == PMIX_SUCCESS && v &&
        v->type == PMIX_BYTE_OBJECT && v->data.bo.size == sizeof c) {
        memcpy(&c, v->data.bo.bytes, sizeof c);
        code = c;
    }
    rv_px_free(v);
    return code;
}

/* Whether every rank called gasnet_exit: each publishes its code and enters an exit fence;
 * when a fence completes within RV_PMIX_EXIT_WAIT_SECONDS and every rank published a code,
 * each rank can end by itself, after its output went out. A fence that met other ranks'
 * bootstrap collective instead is followed by a second one: those ranks see our code after
 * their collective (rv_px_follow) and join it. */
static int rv_px_exit_together(int code)
{
    int32_t c = code;
    pmix_proc_t all;
    pmix_info_t info[2];
    rv_px_proc(&all, PMIX_RANK_WILDCARD);
    memset(info, 0, sizeof info);
    snprintf(info[0].key, sizeof info[0].key, "%s", PMIX_COLLECT_DATA);
    info[0].value.type = PMIX_BOOL;
    info[0].value.data.flag = true;
    snprintf(info[1].key, sizeof info[1].key, "%s", PMIX_TIMEOUT);
    info[1].value.type = PMIX_INT;
    info[1].value.data.integer = RV_PMIX_EXIT_WAIT_SECONDS;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += RV_PMIX_EXIT_WAIT_SECONDS + 2;
    for (int round = 0; round < 2; round++) {
        uint32_t fence = rv_px_nfence++;
        char key[32];
        snprintf(key, sizeof key, "rivet.exit.%u", (unsigned)fence);
        if (rv_px_put(key, &c, sizeof c)) return 0;
        pthread_mutex_lock(&rv_px_lock);
        rv_px_fenced = 0;
        pthread_mutex_unlock(&rv_px_lock);
        if (px.fence_nb(&all, 1, info, 2, rv_px_fenced_cb, NULL) != PMIX_SUCCESS) return 0;
        pthread_mutex_lock(&rv_px_lock);
        while (!rv_px_fenced &&
               pthread_cond_timedwait(&rv_px_cond, &rv_px_lock, &until) != ETIMEDOUT) {}
        int fenced = rv_px_fenced;
        pthread_mutex_unlock(&rv_px_lock);
        if (fenced != 1) return 0;
        int all_exit = 1;
        for (uint32_t r = 0; all_exit && r < rv_px_size; r++)
            all_exit = r == rv_px_me.rank || rv_px_exit_code_of(r, fence) >= 0;
        if (all_exit) return 1;
    }
    return 0;
}

/* After a bootstrap collective: when another rank's gasnet_exit met it, this rank joins that
 * exit, with the same code, instead of going on. */
static void rv_px_follow(uint32_t fence)
{
    for (uint32_t r = 0; r < rv_px_size; r++) {
        int code = r == rv_px_me.rank ? -1 : rv_px_exit_code_of(r, fence);
        if (code < 0) continue;
        rv_boot_pmix_exit_job(code, 0);
        exit(code);
    }
}

void rv_boot_pmix_exit_job(int code, int fatal)
{
    if (rv_px_state != RV_PX_UP || getpid() != rv_px_pid) return;
    /* What this rank printed goes out before anything can end it. */
    fflush(NULL);
    if (!fatal && rv_px_exit_together(code)) {
        /* Every rank called gasnet_exit: each ends by itself, with its code. */
        rv_px_state = RV_PX_DONE;
        rv_px_deadline(code);
        px.finalize(NULL, 0);
        alarm(0);
        return;
    }
    rv_px_state = RV_PX_ABORTED;
    rv_px_deadline(code);
    char msg[128];
    snprintf(msg, sizeof msg, "rivet: rank %u %s %d", (unsigned)rv_px_me.rank,
             fatal ? "stopped on a fatal error, exit code" : "called gasnet_exit", code);
    pmix_status_t rc = px.abort(code, msg, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        fprintf(stderr, "rivet: rank %u: PMIx_Abort failed: %s; exiting with %d alone\n",
                (unsigned)rv_px_me.rank, rv_px_err(rc), code);
        rv_px_state = RV_PX_DONE;
        alarm(0);
    }
}

void rv_boot_pmix_fini(void)
{
    if (getpid() != rv_px_pid) return;
    if (rv_px_state == RV_PX_ABORTED) {
        /* After gasnet_exit: wait (bounded by the alarm) for the server's kill, so that the
         * job's code is the one we passed to PMIx_Abort, not that of an early exit. */
        fflush(NULL);
        for (;;) pause();
    }
    if (rv_px_state != RV_PX_UP) return;
    rv_px_state = RV_PX_DONE;
    rv_px_deadline(1);
    px.finalize(NULL, 0);
    alarm(0);
}

#endif /* RIVET_HAVE_PMIX */
