/* SPDX-License-Identifier: BSD-3-Clause */
/* boot/pmi2/pmi2_boot.c: the PMI2 bootstrap for launchers that offer only PMI2 (Slurm's
 * srun --mpi=pmi2): rank and size from PMI2_Init, the node layout from the job attribute
 * PMI_process_mapping, allgather over PMI2_KVS_Put/Fence/Get (values are text: hex, cut into
 * chunks), barrier = fence, and the job's end: an exit fence when every rank calls
 * gasnet_exit, else PMI2_Abort. Slurm's pmi2.h is compiled against (for the prototypes) but
 * libpmi2 is loaded with dlopen only when a PMI2 launcher started the process. */
#include "boot/pmi2/pmi2_boot.h"
#include "boot/singleton/singleton.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rv_boot_pmi2_detected(void)
{
    const char *fd = getenv("PMI_FD"), *r = getenv("PMI_RANK");
    return fd && *fd && r && *r;
}

#ifndef RIVET_HAVE_PMI2

int rv_boot_pmi2_built(void) { return 0; }

int rv_boot_pmi2_init(rv_boot_info_t *info)
{
    (void)info;
    fprintf(stderr, "rivet: bootstrap: this process was started by a PMI2 launcher (srun --mpi=pmi2: "
            "PMI_FD=%s, PMI_RANK=%s) but this Rivet was built without PMI2 support (slurm/pmi2.h "
            "was not found: install libpmi2-0-dev and rebuild), or start it with srun --mpi=pmix "
            "or rivetrun\n", getenv("PMI_FD"), getenv("PMI_RANK"));
    return -1;
}

int rv_boot_pmi2_allgather(const void *mine, size_t len, void *all)
{
    (void)mine, (void)len, (void)all;
    return -1;
}

void rv_boot_pmi2_exit_job(int code, int fatal) { (void)code, (void)fatal; }
void rv_boot_pmi2_fini(void) {}

#else /* RIVET_HAVE_PMI2 */

#include <slurm/pmi2.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>

/* Bound on the waits of the exit paths: PMI2_Abort's kill reaching us, PMI2_Finalize. */
#define RV_PMI2_EXIT_SECONDS 10
/* How long gasnet_exit waits in its exit fence for the other ranks (all calling gasnet_exit
 * too) before it ends the job with PMI2_Abort. */
#define RV_PMI2_EXIT_WAIT_SECONDS 5
/* Hex digits of one KVS value (PMI2_MAX_VALLEN 1024 with the kind letter and the NUL). */
#define RV_PMI2_CHUNK 1000

/* The libpmi2 entry points we use, resolved by name (types from pmi2.h). */
static struct {
    void *lib;
    __typeof__(&PMI2_Init) init;
    __typeof__(&PMI2_Finalize) finalize;
    __typeof__(&PMI2_Abort) abort;
    __typeof__(&PMI2_Job_GetId) jobid;
    __typeof__(&PMI2_KVS_Put) put;
    __typeof__(&PMI2_KVS_Fence) fence;
    __typeof__(&PMI2_KVS_Get) get;
    __typeof__(&PMI2_Info_GetJobAttr) jobattr;
} p2;

enum { RV_P2_NONE, RV_P2_UP, RV_P2_ABORTED, RV_P2_DONE };
static int rv_p2_state;
static pid_t rv_p2_pid;            /* a forked child must not speak for the rank */
static int rv_p2_rank, rv_p2_size;
static char rv_p2_job[PMI2_MAX_VALLEN];
static uint32_t rv_p2_seq;         /* numbers the fences: each has its own keys */
static volatile sig_atomic_t rv_p2_code;

int rv_boot_pmi2_built(void) { return 1; }

static int rv_p2_load(void)
{
    static const char *const names[] = { "libpmi2.so.0", "libpmi2.so" };
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !p2.lib; i++)
        p2.lib = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
    if (!p2.lib) {
        fprintf(stderr, "rivet: bootstrap: started by a PMI2 launcher (srun --mpi=pmi2: PMI_FD=%s) "
                "but libpmi2.so.0 cannot be loaded (%s); install libpmi2-0, or start the job with "
                "srun --mpi=pmix or rivetrun\n", getenv("PMI_FD"), dlerror());
        return -1;
    }
    struct { void **fn; const char *name; } syms[] = {
        { (void **)&p2.init, "PMI2_Init" },         { (void **)&p2.finalize, "PMI2_Finalize" },
        { (void **)&p2.abort, "PMI2_Abort" },       { (void **)&p2.jobid, "PMI2_Job_GetId" },
        { (void **)&p2.put, "PMI2_KVS_Put" },       { (void **)&p2.fence, "PMI2_KVS_Fence" },
        { (void **)&p2.get, "PMI2_KVS_Get" },       { (void **)&p2.jobattr, "PMI2_Info_GetJobAttr" },
    };
    for (size_t i = 0; i < sizeof syms / sizeof syms[0]; i++) {
        *syms[i].fn = dlsym(p2.lib, syms[i].name);
        if (!*syms[i].fn) {
            fprintf(stderr, "rivet: bootstrap: libpmi2 has no %s\n", syms[i].name);
            return -1;
        }
    }
    return 0;
}

static int rv_p2_fence(const char *what)
{
    int rc = p2.fence();
    if (rc != PMI2_SUCCESS) {
        fprintf(stderr, "rivet: rank %d: PMI2_KVS_Fence (%s) failed: error %d\n", rv_p2_rank, what, rc);
        return -1;
    }
    return 0;
}

static int rv_p2_put(const char *key, const char *val)
{
    int rc = p2.put(key, val);
    if (rc != PMI2_SUCCESS) {
        fprintf(stderr, "rivet: rank %d: PMI2_KVS_Put of %s failed: error %d\n", rv_p2_rank, key, rc);
        return -1;
    }
    return 0;
}

/* The text value of 'key' (put by 'rank') into val[PMI2_MAX_VALLEN]; its length, or -1. */
static int rv_p2_get(int rank, const char *key, char *val)
{
    int len = 0;
    int rc = p2.get(rv_p2_job, rank, key, val, PMI2_MAX_VALLEN, &len);
    if (rc != PMI2_SUCCESS || len < 0 || len >= PMI2_MAX_VALLEN) {
        fprintf(stderr, "rivet: rank %d: PMI2_KVS_Get of rank %d's %s failed: error %d\n",
                rv_p2_rank, rank, key, rc);
        return -1;
    }
    val[len] = '\0';
    return (int)strlen(val);
}

static void rv_p2_key(char key[PMI2_MAX_KEYLEN], uint32_t seq, int rank, size_t chunk)
{
    snprintf(key, PMI2_MAX_KEYLEN, "rivet.%u.%d.%zu", (unsigned)seq, rank, chunk);
}

static void rv_p2_alarm(int sig)
{
    (void)sig;
    _exit(rv_p2_code);
}

/* From here on the process ends within RV_PMI2_EXIT_SECONDS, with 'code'. */
static void rv_p2_deadline(int code)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = rv_p2_alarm;
    sigemptyset(&sa.sa_mask);
    rv_p2_code = code;
    sigaction(SIGALRM, &sa, NULL);
    alarm(RV_PMI2_EXIT_SECONDS);
}

/* Appends to buf[len] (used: its length so far, which may pass len: the text is cut). */
static void rv_p2_cat(char *buf, size_t len, size_t *used, const char *sep, int a, int b)
{
    char one[32];
    int n = a == b ? snprintf(one, sizeof one, "%s%d", sep, a)
                   : snprintf(one, sizeof one, "%s%d-%d", sep, a, b);
    if (*used < len) snprintf(buf + *used, len - *used, "%s", one);
    *used += (size_t)n;
}

/* The node of every rank from PMI_process_mapping, "(vector,(first,nodes,per),...)": the
 * triples, repeated until every rank has a node, give 'nodes' nodes from 'first' on 'per'
 * consecutive ranks each. Writes our node and the ranks on it (ranges, e.g. "0-3,8"). */
static int rv_p2_map(const char *m, unsigned *node, char *here, size_t hlen /* >= 8 */)
{
    enum { MAXT = 256 };
    long t[MAXT][3];
    int nt = 0;
    const char *p = strstr(m, "vector,");
    if (!p) return -1;
    p += 7;
    while (*p == '(' && nt < MAXT) {
        char *e;
        for (int k = 0; k < 3; k++) {
            t[nt][k] = strtol(p + 1, &e, 10);
            if (e == p + 1 || (k < 2 ? *e != ',' : *e != ')')) return -1;
            p = e;
        }
        if (t[nt][0] < 0 || t[nt][1] <= 0 || t[nt][2] <= 0) return -1;
        nt++;
        p++;
        if (*p == ',') p++;
    }
    if (nt == 0) return -1;
    /* two passes: find our node, then list the ranks that share it */
    for (int pass = 0; pass < 2; pass++) {
        int r = 0, first = -2, last = -2;
        size_t used = 0;
        if (pass == 1) here[0] = '\0';
        while (r < rv_p2_size)
            for (int i = 0; i < nt && r < rv_p2_size; i++)
                for (long n = 0; n < t[i][1] && r < rv_p2_size; n++)
                    for (long k = 0; k < t[i][2] && r < rv_p2_size; k++, r++) {
                        unsigned nd = (unsigned)(t[i][0] + n);
                        if (pass == 0) {
                            if (r == rv_p2_rank) *node = nd;
                            continue;
                        }
                        if (nd != *node) continue;
                        if (r != last + 1) {      /* a new range: write out the last one */
                            if (first >= 0) rv_p2_cat(here, hlen, &used, used ? "," : "", first, last);
                            first = r;
                        }
                        last = r;
                    }
        if (pass == 1 && first >= 0) rv_p2_cat(here, hlen, &used, used ? "," : "", first, last);
        if (pass == 1 && used >= hlen) strcpy(here + hlen - 4, "...");
    }
    return 0;
}

int rv_boot_pmi2_init(rv_boot_info_t *info)
{
    static char detail[512];
    memset(info, 0, sizeof *info);
    if (rv_p2_load()) return -1;
    int spawned = 0, appnum = 0;
    int rc = p2.init(&spawned, &rv_p2_size, &rv_p2_rank, &appnum);
    if (rc != PMI2_SUCCESS) {
        fprintf(stderr, "rivet: bootstrap: PMI2_Init failed: error %d (PMI_FD=%s, PMI_RANK=%s)\n", rc,
                getenv("PMI_FD"), getenv("PMI_RANK"));
        return -1;
    }
    rv_p2_state = RV_P2_UP;
    rv_p2_pid = getpid();
    if (rv_p2_size <= 0 || rv_p2_rank < 0 || rv_p2_rank >= rv_p2_size) {
        fprintf(stderr, "rivet: bootstrap: PMI2 gives no valid job (rank %d of %d)\n", rv_p2_rank,
                rv_p2_size);
        return -1;
    }
    if ((rc = p2.jobid(rv_p2_job, sizeof rv_p2_job)) != PMI2_SUCCESS) {
        fprintf(stderr, "rivet: bootstrap: PMI2_Job_GetId failed: error %d\n", rc);
        return -1;
    }
    info->rank = (uint32_t)rv_p2_rank;
    info->size = (uint32_t)rv_p2_size;
    info->method = "pmi2";

    /* The node layout as the resource manager sees it, for RIVET_VERBOSE; job.c groups
     * ranks into hosts by their host names (info->host left empty: gethostname). */
    char map[PMI2_MAX_VALLEN] = "", here[64] = "?";
    unsigned node = 0;
    int found = 0;
    if (p2.jobattr("PMI_process_mapping", map, sizeof map, &found) != PMI2_SUCCESS || !found ||
        rv_p2_map(map, &node, here, sizeof here) != 0)
        snprintf(detail, sizeof detail, "job %.64s, no usable PMI_process_mapping ('%.200s')",
                 rv_p2_job, map);
    else
        snprintf(detail, sizeof detail,
                 "job %.64s, node %u, ranks here: %.63s (PMI_process_mapping %.200s)", rv_p2_job,
                 node, here, map);
    info->detail = detail;

    /* The job secret (names our /dev/shm objects): rank 0's random value, through a fence. */
    char secret[PMI2_MAX_VALLEN];
    if (rv_p2_rank == 0 && rv_boot_secret_new(secret) != 0) {
        fprintf(stderr, "rivet: bootstrap: getrandom() failed for the job secret\n");
        return -1;
    }
    if ((rv_p2_rank == 0 && rv_p2_put("rivet.secret", secret)) || rv_p2_fence("job secret") ||
        rv_p2_get(0, "rivet.secret", secret) != 32) {
        fprintf(stderr, "rivet: bootstrap: rank %d did not get rank 0's job secret over PMI2\n",
                rv_p2_rank);
        return -1;
    }
    for (int i = 0; i < 32; i++)
        if (!((secret[i] >= '0' && secret[i] <= '9') || (secret[i] >= 'a' && secret[i] <= 'f'))) {
            fprintf(stderr, "rivet: bootstrap: rank 0's job secret over PMI2 is malformed\n");
            return -1;
        }
    memcpy(info->secret, secret, 33);
    return 0;
}

/* Another rank's exit fence met our collective: it called gasnet_exit(code); the job ends
 * with that code, this rank too. */
static void rv_p2_follow(int from, int code)
{
    if (getenv("RIVET_VERBOSE") && atoi(getenv("RIVET_VERBOSE")) > 0)
        fprintf(stderr, "rivet: rank %d: rank %d called gasnet_exit(%d); ending with it\n", rv_p2_rank,
                from, code);
    rv_p2_state = RV_P2_DONE;
    fflush(NULL);
    rv_p2_deadline(code);
    p2.finalize();
    alarm(0);
    exit(code);
}

static int rv_p2_hex(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

int rv_boot_pmi2_allgather(const void *mine, size_t len, void *all)
{
    if (rv_p2_state != RV_P2_UP) return -1;
    static const char digits[] = "0123456789abcdef";
    const unsigned char *in = mine;
    uint32_t seq = rv_p2_seq++;
    size_t nchunk = len ? (2 * len + RV_PMI2_CHUNK - 1) / RV_PMI2_CHUNK : 1;
    char key[PMI2_MAX_KEYLEN], val[PMI2_MAX_VALLEN];
    /* chunk c: hex digits [c*CHUNK, (c+1)*CHUNK) of our bytes; chunk 0 starts with 'a' (an
     * allgather or barrier; an exit fence's is 'x<code>') */
    for (size_t c = 0; c < nchunk; c++) {
        char *v = val;
        if (c == 0) *v++ = 'a';
        for (size_t h = c * RV_PMI2_CHUNK; h < 2 * len && h < (c + 1) * RV_PMI2_CHUNK; h++)
            *v++ = digits[(in[h / 2] >> (h % 2 ? 0 : 4)) & 15];
        *v = '\0';
        rv_p2_key(key, seq, rv_p2_rank, c);
        if (rv_p2_put(key, val)) return -1;
    }
    if (rv_p2_fence(len ? "allgather" : "barrier")) return -1;
    for (int r = 0; r < rv_p2_size; r++) {
        unsigned char *dst = len ? (unsigned char *)all + (size_t)r * len : NULL;
        if (r == rv_p2_rank) {
            if (len) memmove(dst, mine, len);
            continue;
        }
        for (size_t c = 0; c < nchunk; c++) {
            rv_p2_key(key, seq, r, c);
            int n = rv_p2_get(r, key, val);
            if (n < 0) return -1;
            const char *v = val;
            if (c == 0 && *v == 'x') rv_p2_follow(r, atoi(v + 1));
            if (c == 0 && *v++ != 'a') n = -1;
            size_t h0 = c * RV_PMI2_CHUNK;
            size_t want = !len ? 0 : 2 * len - h0 < RV_PMI2_CHUNK ? 2 * len - h0 : RV_PMI2_CHUNK;
            int bad = n < 0 || strlen(v) != want;
            for (size_t h = 0; h < want && !bad; h++) bad = rv_p2_hex(v[h]) < 0;
            if (bad) {
                fprintf(stderr, "rivet: rank %d: rank %d's %s over PMI2 is malformed\n", rv_p2_rank,
                        r, key);
                return -1;
            }
            for (size_t h = 0; h < want; h++) {
                int d = rv_p2_hex(v[h]);
                size_t b = (h0 + h) / 2;
                dst[b] = (unsigned char)((h0 + h) % 2 ? (dst[b] & 0xf0) | d : d << 4);
            }
        }
    }
    return 0;
}

/* The exit fence runs on its own thread, so that gasnet_exit can stop waiting for it. */
static pthread_mutex_t rv_p2_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t rv_p2_cond = PTHREAD_COND_INITIALIZER;
static int rv_p2_fenced;           /* 1: the exit fence completed, -1: it failed */

static void *rv_p2_exit_fence(void *arg)
{
    (void)arg;
    int rc = p2.fence();
    pthread_mutex_lock(&rv_p2_lock);
    rv_p2_fenced = rc == PMI2_SUCCESS ? 1 : -1;
    pthread_cond_signal(&rv_p2_cond);
    pthread_mutex_unlock(&rv_p2_lock);
    return NULL;
}

/* Whether every rank reached our exit fence within RV_PMI2_EXIT_WAIT_SECONDS. */
static int rv_p2_exit_together(int code)
{
    char key[PMI2_MAX_KEYLEN], val[32];
    rv_p2_key(key, rv_p2_seq++, rv_p2_rank, 0);
    snprintf(val, sizeof val, "x%d", code);
    if (p2.put(key, val) != PMI2_SUCCESS) return 0;
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);   /* the fence thread takes no signals */
    int err = pthread_create(&t, &a, rv_p2_exit_fence, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&a);
    if (err) return 0;
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += RV_PMI2_EXIT_WAIT_SECONDS;
    pthread_mutex_lock(&rv_p2_lock);
    while (!rv_p2_fenced && pthread_cond_timedwait(&rv_p2_cond, &rv_p2_lock, &until) != ETIMEDOUT) {}
    int done = rv_p2_fenced == 1;
    pthread_mutex_unlock(&rv_p2_lock);
    return done;
}

void rv_boot_pmi2_exit_job(int code, int fatal)
{
    if (rv_p2_state != RV_P2_UP || getpid() != rv_p2_pid) return;
    /* What this rank printed reaches srun before anything ends it. */
    fflush(NULL);
    if (!fatal && rv_p2_exit_together(code)) {
        /* Every rank called gasnet_exit (or meets us in a bootstrap collective and follows):
         * each ends by itself with its code, which srun reports. */
        rv_p2_state = RV_P2_DONE;
        rv_p2_deadline(code);
        p2.finalize();
        alarm(0);
        return;
    }
    rv_p2_state = RV_P2_ABORTED;
    rv_p2_deadline(code);
    char msg[160];
    snprintf(msg, sizeof msg, "rivet: rank %d %s %d", rv_p2_rank,
             fatal ? "stopped on a fatal error, exit code" : "called gasnet_exit alone, exit code",
             code);
    fprintf(stderr, "%s: ending the job through PMI2_Abort\n", msg);
    /* PMI2 carries no exit code: srun kills every rank (and reports that, not 'code'). */
    int rc = p2.abort(1, msg);
    fprintf(stderr, "rivet: rank %d: PMI2_Abort failed: error %d; exiting with %d alone\n", rv_p2_rank,
            rc, code);
    rv_p2_state = RV_P2_DONE;
    alarm(0);
}

void rv_boot_pmi2_fini(void)
{
    if (getpid() != rv_p2_pid) return;
    if (rv_p2_state == RV_P2_ABORTED) {
        /* Wait (bounded by the alarm) for the server's kill instead of ending first. */
        fflush(NULL);
        for (;;) pause();
    }
    if (rv_p2_state != RV_P2_UP) return;
    rv_p2_state = RV_P2_DONE;
    rv_p2_deadline(1);
    p2.finalize();
    alarm(0);
}

#endif /* RIVET_HAVE_PMI2 */
