/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/boot_collectives.c: bootstrap allgather and barrier, checked byte for byte (launcher or singleton). */
#include "boot/boot.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char pat(uint32_t rank, size_t len, size_t i, int round)
{
    return (unsigned char)(rank * 131u + i * 7u + (i >> 8) + len * 3u + (unsigned)round * 17u);
}

#define CHECK(cond, ...)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            fprintf(stderr, "boot_collectives: FAIL (rank %u): ", (unsigned)bi.rank);      \
            fprintf(stderr, __VA_ARGS__);                                                  \
            fputc('\n', stderr);                                                           \
            exit(1);                                                                       \
        }                                                                                  \
    } while (0)

int main(void)
{
    rv_boot_info_t bi;
    memset(&bi, 0, sizeof bi);
    CHECK(rv_boot_init(&bi) == 0, "rv_boot_init failed");
    const char *env_size = getenv("RIVET_BOOT_SIZE");
    if (env_size) {
        CHECK(strcmp(bi.method, "launcher") == 0, "method is %s under rivetrun", bi.method);
        CHECK(bi.size == (uint32_t)atoi(env_size), "size %u but RIVET_BOOT_SIZE=%s",
              (unsigned)bi.size, env_size);
    } else {
        CHECK(strcmp(bi.method, "singleton") == 0 && bi.size == 1 && bi.rank == 0,
              "singleton job is %s rank %u of %u", bi.method, (unsigned)bi.rank,
              (unsigned)bi.size);
    }
    CHECK(bi.rank < bi.size, "rank %u out of range", (unsigned)bi.rank);
    CHECK(strlen(bi.secret) == 32 && strspn(bi.secret, "0123456789abcdef") == 32,
          "bad secret '%s'", bi.secret);
    /* A second init sees the same job. */
    rv_boot_info_t again;
    CHECK(rv_boot_init(&again) == 0 && again.rank == bi.rank && again.size == bi.size
              && strcmp(again.secret, bi.secret) == 0, "second rv_boot_init differs");

    /* Every rank must hold the same secret. */
    char *secrets = malloc(33u * bi.size);
    CHECK(secrets, "malloc");
    CHECK(rv_boot_allgather(bi.secret, 33, secrets) == 0, "allgather of secrets");
    for (uint32_t r = 0; r < bi.size; r++)
        CHECK(memcmp(secrets + 33u * r, bi.secret, 33) == 0, "rank %u has another secret",
              (unsigned)r);
    free(secrets);

    static const size_t lens[] = {0, 1, 7, 4096, 32767, 32768, 32769, 100000, 1u << 20};
    const size_t nlens = sizeof lens / sizeof lens[0];
    for (int round = 0; round < 3; round++) {
        for (size_t k = 0; k < nlens; k++) {
            size_t len = lens[round == 1 ? nlens - 1 - k : k];
            unsigned char *mine = malloc(len ? len : 1);
            unsigned char *all = malloc(len ? len * bi.size + 1 : 1);
            CHECK(mine && all, "malloc");
            for (size_t i = 0; i < len; i++) mine[i] = pat(bi.rank, len, i, round);
            if (len) all[len * bi.size] = 0xa5;   /* guard byte past the end */
            CHECK(rv_boot_allgather(mine, len, all) == 0, "allgather of %zu bytes", len);
            for (uint32_t r = 0; r < bi.size; r++)
                for (size_t i = 0; i < len; i++)
                    CHECK(all[r * len + i] == pat(r, len, i, round),
                          "allgather of %zu bytes, round %d: byte %zu from rank %u is %u, "
                          "expected %u", len, round, i, (unsigned)r,
                          (unsigned)all[r * len + i], (unsigned)pat(r, len, i, round));
            if (len) CHECK(all[len * bi.size] == 0xa5, "allgather wrote past the end");
            free(mine);
            free(all);
            CHECK(rv_boot_barrier() == 0, "barrier after %zu bytes", len);
        }
    }
    for (int i = 0; i < 200; i++) CHECK(rv_boot_barrier() == 0, "barrier %d", i);

    /* Ranks arrive in order: the allgather must still put each at its own slot. */
    uint32_t me = bi.rank * 2654435761u, *ids = malloc(sizeof me * bi.size);
    CHECK(ids, "malloc");
    CHECK(rv_boot_allgather(&me, sizeof me, ids) == 0, "allgather of ids");
    for (uint32_t r = 0; r < bi.size; r++)
        CHECK(ids[r] == r * 2654435761u, "slot %u holds %u", (unsigned)r, (unsigned)ids[r]);
    free(ids);

    rv_boot_fini();
    rv_boot_fini();   /* safe twice */
    printf("boot_collectives: rank %u of %u ok (%s)\n", (unsigned)bi.rank, (unsigned)bi.size,
           bi.method);
    return 0;
}
