/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_segdefault.c: a client's compiled-in largest segment, GASNet's
 * gasnet_max_segsize_str (built as core_segdefault_str, with the deprecated number too: the
 * string wins) or the deprecated per-rank gasnet_max_segsize (core_segdefault_num), applies
 * when GASNET_MAX_SEGSIZE is not in the environment; the environment still wins (run with
 * GASNET_MAX_SEGSIZE=2M, argument "env"). */
#include <gasnetex.h>

#include <stdio.h>
#include <string.h>

#ifdef RV_TEST_SEGSIZE_STR
const char *gasnet_max_segsize_str = "5M/P";
#endif
uint64_t gasnet_max_segsize = 3 << 20;

int main(int argc, char **argv)
{
    gex_Client_t client;
    gex_EP_t ep;
    gex_TM_t tm;
    if (gex_Client_Init(&client, &ep, &tm, "core_segdefault", &argc, &argv, 0) != GASNET_OK)
        return 1;
    uintptr_t want = 3 << 20;
#ifdef RV_TEST_SEGSIZE_STR
    want = 5 << 20;
#endif
    if (argc > 1 && !strcmp(argv[1], "env")) want = 2 << 20;
    uintptr_t got = gasnet_getMaxLocalSegmentSize();
    if (got != want) {
        fprintf(stderr, "FAIL core_segdefault: gasnet_getMaxLocalSegmentSize() is %zu, expected %zu\n",
                (size_t)got, (size_t)want);
        gasnet_exit(1);
    }
    printf("core_segdefault: rank %u ok (%zu bytes)\n", (unsigned)gex_TM_QueryRank(tm), (size_t)got);
    gasnet_exit(0);
    return 0;
}
