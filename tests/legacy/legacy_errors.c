/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_errors.c: misuse of the GASNet-1 API, one case per run (argv[1]).
 * Every case must end the job with a message naming the call and what was wrong:
 * fatal errors, or the spec's error return, reported and turned into an exit by the
 * client's usual GASNET_Safe check. */
#include <gasnet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GASNET_Safe(fncall)                                                                \
    do {                                                                                   \
        int _retval = (fncall);                                                            \
        if (_retval != GASNET_OK) {                                                        \
            fprintf(stderr, "ERROR calling: %s: %s\n", #fncall, gasnet_ErrorName(_retval)); \
            fflush(stderr);                                                                \
            gasnet_exit(_retval);                                                          \
        }                                                                                  \
    } while (0)

static void h(gasnet_token_t t) { (void)t; }

static void g1_start(void)
{
    static int argc = 1;
    static char *args[] = {"legacy_errors", NULL};
    static char **argv = args;
    GASNET_Safe(gasnet_init(&argc, &argv));
    GASNET_Safe(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
}

int main(int argc, char **argv)
{
    const char *c = argc > 1 ? argv[1] : "";
    if (!strcmp(c, "before_init")) {
        gasnet_barrier_notify(0, 0);
    } else if (!strcmp(c, "before_attach")) {
        GASNET_Safe(gasnet_init(&argc, &argv));
        gasnet_AMRequestShort0(0, 200);
    } else if (!strcmp(c, "init_twice")) {
        GASNET_Safe(gasnet_init(&argc, &argv));
        GASNET_Safe(gasnet_init(&argc, &argv));
    } else if (!strcmp(c, "attach_noinit")) {
        gex_Client_t cl;
        gex_EP_t ep;
        gex_TM_t tm;
        GASNET_Safe(gex_Client_Init(&cl, &ep, &tm, "x", &argc, &argv, GEX_FLAG_USES_GASNET1));
        GASNET_Safe(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
    } else if (!strcmp(c, "attach_twice")) {
        g1_start();
        GASNET_Safe(gasnet_attach(NULL, 0, GASNET_PAGESIZE, 0));
    } else if (!strcmp(c, "attach_segsize")) {
        GASNET_Safe(gasnet_init(&argc, &argv));
        GASNET_Safe(gasnet_attach(NULL, 0, 1000, 0));
    } else if (!strcmp(c, "attach_index")) {
        gasnet_handlerentry_t t[] = {{200, (void (*)())h}, {5, (void (*)())h}};
        GASNET_Safe(gasnet_init(&argc, &argv));
        GASNET_Safe(gasnet_attach(t, 2, GASNET_PAGESIZE, 0));
    } else if (!strcmp(c, "attach_dup")) {
        gasnet_handlerentry_t t[] = {{200, (void (*)())h}, {200, (void (*)())h}};
        GASNET_Safe(gasnet_init(&argc, &argv));
        GASNET_Safe(gasnet_attach(t, 2, GASNET_PAGESIZE, 0));
    } else if (!strcmp(c, "attach_nullfn")) {
        gasnet_handlerentry_t t[] = {{0, NULL}};
        GASNET_Safe(gasnet_init(&argc, &argv));
        GASNET_Safe(gasnet_attach(t, 1, GASNET_PAGESIZE, 0));
    } else if (!strcmp(c, "wait_no_notify")) {
        g1_start();
        gasnet_barrier_wait(0, 0);
    } else if (!strcmp(c, "notify_twice")) {
        g1_start();
        gasnet_barrier_notify(1, 0);
        gasnet_barrier_notify(2, 0);
    } else if (!strcmp(c, "barrier_flags")) {
        g1_start();
        gasnet_barrier_notify(1, 4);
    } else if (!strcmp(c, "waitmode")) {
        g1_start();
        gasnet_set_waitmode(7);
    } else if (!strcmp(c, "valget_size")) {
        g1_start();
        gasnet_seginfo_t si;
        GASNET_Safe(gasnet_getSegmentInfo(&si, 1));
        gasnet_wait_syncnb_valget(gasnet_get_nb_val(0, si.addr, 9));
    } else if (!strcmp(c, "msgsource_null")) {
        g1_start();
        gasnet_node_t s;
        gasnet_AMGetMsgSource(NULL, &s);
    } else if (!strcmp(c, "seginfo_bad")) {
        g1_start();
        GASNET_Safe(gasnet_getSegmentInfo(NULL, 2));
    } else if (!strcmp(c, "nodeinfo_bad")) {
        static int ac = 1;
        static char *av[] = {"legacy_errors", NULL};
        static char **avp = av;
        GASNET_Safe(gasnet_init(&ac, &avp)); /* allowed before attach: the check still runs */
        GASNET_Safe(gasnet_getNodeInfo(NULL, -1));
    } else if (!strcmp(c, "coll_flags")) {
        g1_start();
        int v = 0; /* two OUT flags, no IN flag (gasnet_coll_init is optional) */
        gasnet_coll_broadcast(GASNET_TEAM_ALL, &v, 0, &v, sizeof v,
                              GASNET_COLL_LOCAL | GASNET_COLL_OUT_MYSYNC | GASNET_COLL_OUT_ALLSYNC);
    } else if (!strcmp(c, "coll_no_in")) {
        g1_start();
        int v[8] = {0}, w[8];
        gasnet_coll_exchange(GASNET_TEAM_ALL, w, v, sizeof(int),
                             GASNET_COLL_LOCAL | GASNET_COLL_OUT_MYSYNC);
    } else if (!strcmp(c, "coll_unknown")) {
        g1_start();
        int v = 0, w[8];
        gasnet_coll_gather(GASNET_TEAM_ALL, 0, w, &v, sizeof v,
                           GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC |
                               (1 << 12));
    } else if (!strcmp(c, "coll_nolocal")) {
        g1_start();
        int v = 0, w[8];
        gasnet_coll_gather_all(GASNET_TEAM_ALL, w, &v, sizeof v,
                               GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);
    } else if (!strcmp(c, "coll_root")) {
        g1_start();
        int v[8] = {0}, w = 0;
        gasnet_coll_scatter(GASNET_TEAM_ALL, &w, gasnet_nodes(), v, sizeof w,
                            GASNET_COLL_LOCAL | GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC);
    } else if (!strcmp(c, "coll_dstimage")) {
        g1_start();
        int v = 0, w[8];
        gasnet_coll_wait_sync(gasnet_coll_gather_nb(GASNET_TEAM_ALL, gasnet_nodes() + 5, w, &v,
                                                    sizeof v, GASNET_COLL_LOCAL |
                                                    GASNET_COLL_IN_NOSYNC | GASNET_COLL_OUT_NOSYNC));
    } else if (!strcmp(c, "coll_team")) {
        g1_start();
        static int v;
        gasnet_coll_wait_sync(gasnet_coll_broadcast_nb((gasnet_team_handle_t)(void *)&v, &v, 0,
                                                       &v, sizeof v, GASNET_COLL_LOCAL |
                                                       GASNET_COLL_IN_MYSYNC | GASNET_COLL_OUT_MYSYNC));
    } else if (!strcmp(c, "coll_barrier_team")) {
        g1_start();
        static int v;
        gasnet_coll_barrier_notify((gasnet_team_handle_t)(void *)&v, 0, GASNET_BARRIERFLAG_ANONYMOUS);
    } else if (!strcmp(c, "coll_sync_mismatch")) {
        g1_start();
        int v = 0; /* rank 0 asks for IN_ALLSYNC, the others for IN_MYSYNC */
        gasnet_coll_broadcast(GASNET_TEAM_ALL, &v, 0, &v, sizeof v,
                              GASNET_COLL_LOCAL | GASNET_COLL_OUT_MYSYNC |
                                  (gasnet_mynode() == 0 ? GASNET_COLL_IN_ALLSYNC : GASNET_COLL_IN_MYSYNC));
    } else if (!strcmp(c, "coll_images")) {
        g1_start();
        gasnet_image_t images[1] = {1};
        gasnet_coll_init(images, 0, NULL, 0, 0);
    } else if (!strcmp(c, "coll_twice")) {
        g1_start();
        gasnet_coll_init(NULL, 0, NULL, 0, 0);
        gasnet_coll_init(NULL, 0, NULL, 0, 0);
    } else {
        fprintf(stderr, "legacy_errors: unknown case '%s'\n", c);
        return 2;
    }
    fprintf(stderr, "legacy_errors: case '%s' did not fail\n", c);
    return 0;
}
