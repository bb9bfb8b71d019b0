/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/clients/client_plugin.c: a program that does not link Rivet and reaches it only
 * through a plugin it loads with dlopen (client_plugin_lib.c), the way Realm loads its
 * GASNet-EX wrapper. librivet.so is then loaded after the program started, so its
 * thread-locals must fit the few hundred bytes of static TLS glibc keeps for dlopen.
 * A second thread sends while the main thread polls, so a thread created after the load
 * uses the library too. Checks every byte received and put. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define NMSG 200

static int (*p_init)(int *, char ***, unsigned *, unsigned *);
static void (*p_barrier)(void);
static void (*p_send)(unsigned, unsigned, int);
static long (*p_wait)(long);
static int (*p_put)(unsigned);
static long (*p_check_put)(unsigned);
static unsigned me, n;

#define FAIL(...)                                                     \
    do {                                                              \
        fprintf(stderr, "FAIL rank %u client_plugin: ", me);          \
        fprintf(stderr, __VA_ARGS__);                                 \
        fprintf(stderr, "\n");                                        \
        exit(1);                                                      \
    } while (0)

static void *sender(void *arg)
{
    (void)arg;
    p_send((me + 1) % n, 0, NMSG);
    return NULL;
}

int main(int argc, char **argv)
{
    void *lib = dlopen(CLIENT_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
    if (!lib) FAIL("dlopen %s: %s", CLIENT_PLUGIN_PATH, dlerror());
#define SYM(v, name) if (!(*(void **)&v = dlsym(lib, name))) FAIL("dlsym %s: %s", name, dlerror())
    SYM(p_init, "plugin_init");
    SYM(p_barrier, "plugin_barrier");
    SYM(p_send, "plugin_send");
    SYM(p_wait, "plugin_wait");
    SYM(p_put, "plugin_put");
    SYM(p_check_put, "plugin_check_put");
    int rc = p_init(&argc, &argv, &me, &n);
    if (rc) FAIL("plugin_init failed at step %d", -rc);

    pthread_t t;
    if (pthread_create(&t, NULL, sender, NULL)) FAIL("pthread_create");
    long wrong = p_wait(NMSG); /* from the left neighbour, polled here */
    pthread_join(t, NULL);
    if (wrong) FAIL("%ld Mediums wrong or missing", wrong);
    p_barrier();
    if ((rc = p_put((me + 1) % n))) FAIL("put through gex_TM_Pair returned %d", rc);
    p_barrier();
    if ((wrong = p_check_put((me + n - 1) % n)))
        FAIL("%ld bytes wrong in the extra segment", wrong);
    p_barrier();
    printf("client_plugin: rank %u of %u ok\n", me, n);
    return 0;
}
