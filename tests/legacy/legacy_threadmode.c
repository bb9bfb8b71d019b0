/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_threadmode.c: the client's threading-mode choice. Built four times: with
 * -DGASNET_SEQ, -DGASNET_PARSYNC, with "#define GASNET_PAR" (no value) in the source, and with
 * nothing (GASNET_PAR by default). The chosen macro is 1, the others are undefined, the
 * configuration string names the mode, gex_System_QueryMaxThreads() is 1 only in SEQ, and a
 * put/get round trip works in every mode. */
#ifdef RVT_DEFINE_PAR_EMPTY
#define GASNET_PAR /* the empty definition a client may write: must not clash */
#endif
#include <gasnet.h>
#include "rv_test.h"

#if (defined(GASNET_SEQ) + defined(GASNET_PARSYNC) + defined(GASNET_PAR)) != 1
#error "exactly one threading mode must be defined"
#endif
#if defined(GASNET_SEQ)
#if GASNET_SEQ != 1
#error "GASNET_SEQ must be 1"
#endif
#define MODE "SEQ"
#elif defined(GASNET_PARSYNC)
#if GASNET_PARSYNC != 1
#error "GASNET_PARSYNC must be 1"
#endif
#define MODE "PARSYNC"
#else
#if GASNET_PAR != 1
#error "GASNET_PAR must be 1"
#endif
#define MODE "PAR"
#endif

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    rvt_me = gasnet_mynode();
    RVT_OK(gasnet_attach(NULL, 0, GASNET_PAGESIZE, GASNET_PAGESIZE));
    RVT_CHECK(strstr(GASNET_CONFIG_STRING, ",THREADMODEL=" MODE ",") != NULL,
              "GASNET_CONFIG_STRING '%s' does not name THREADMODEL=%s", GASNET_CONFIG_STRING,
              MODE);
    /* SEQ promises one thread: the limit says 1 there, more than 1 otherwise (testgasnet) */
#if defined(GASNET_SEQ)
    RVT_CHECK(gex_System_QueryMaxThreads() == 1, "SEQ: gex_System_QueryMaxThreads() is %llu",
              (unsigned long long)gex_System_QueryMaxThreads());
#else
    RVT_CHECK(gex_System_QueryMaxThreads() > 1, "%s: gex_System_QueryMaxThreads() is %llu", MODE,
              (unsigned long long)gex_System_QueryMaxThreads());
#endif
    RVT_CHECK(gex_System_QueryMaxThreads() == GASNETI_MAX_THREADS,
              "%s: GASNETI_MAX_THREADS %d is not gex_System_QueryMaxThreads() %llu", MODE,
              (int)GASNETI_MAX_THREADS, (unsigned long long)gex_System_QueryMaxThreads());
    gasnet_seginfo_t *si = calloc(gasnet_nodes(), sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)gasnet_nodes()));
    gasnet_node_t peer = (gasnet_mynode() + 1) % gasnet_nodes();
    uint64_t v = 0x1234 + gasnet_mynode(), back = 0;
    gasnet_put(peer, si[peer].addr, &v, sizeof v);
    gasnet_get(&back, peer, si[peer].addr, sizeof back);
    RVT_CHECK(back == v, "%s: read back 0x%llx, wrote 0x%llx", MODE, (unsigned long long)back,
              (unsigned long long)v);
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
    if (gasnet_mynode() == 0) printf("legacy_threadmode (%s): PASS\n", MODE);
    gasnet_exit(0);
    return 0;
}
