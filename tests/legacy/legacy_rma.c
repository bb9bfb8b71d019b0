/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_rma.c: every GASNet-1 put/get form (blocking, _nb, _nbi, _bulk, _val,
 * get_nb_val), memset{,_nb,_nbi}, the explicit-handle syncs (wait/try, _all, _some),
 * implicit-handle syncs and access regions, each verified by reading the data back. The try
 * loops do not poll: GASNet-1's try calls make progress themselves (run over ofi too). */
#include <gasnet.h>
#include "rv_test.h"

#define SEGSZ (256 * 1024)
#define SLOT (16 * 1024) /* each writer owns one slot of every segment */

static gasnet_seginfo_t *si;
static gasnet_node_t me, n;

static char *slot(gasnet_node_t node, int part) /* part: 0..3 sub-slots of 4 KiB */
{
    return (char *)si[node].addr + (size_t)me * SLOT + (size_t)part * (SLOT / 4);
}

static void fill(unsigned char *p, size_t nb, unsigned seed)
{
    for (size_t i = 0; i < nb; i++) p[i] = (unsigned char)(seed * 131 + i * 7 + 1);
}

static void expect_bytes(const char *what, const unsigned char *got, const unsigned char *want,
                         size_t nb, gasnet_node_t peer)
{
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(got[i] == want[i], "%s with node %u: byte %zu is 0x%02x, expected 0x%02x", what,
                  peer, i, got[i], want[i]);
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

static void one_peer(gasnet_node_t p, unsigned seed)
{
    unsigned char a[SLOT / 4], b[SLOT / 4], z[SLOT / 4];
    const size_t sizes[] = {1, 8, 13, 1000, SLOT / 4};
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        size_t nb = sizes[k];
        /* blocking */
        fill(a, nb, seed + 1);
        gasnet_put(p, slot(p, 0), a, nb);
        memset(b, 0, nb);
        gasnet_get(b, p, slot(p, 0), nb);
        expect_bytes("gasnet_put/gasnet_get", b, a, nb, p);
        fill(a, nb, seed + 2);
        gasnet_put_bulk(p, slot(p, 1), a, nb);
        memset(b, 0, nb);
        gasnet_get_bulk(b, p, slot(p, 1), nb);
        expect_bytes("gasnet_put_bulk/gasnet_get_bulk", b, a, nb, p);

        /* explicit handles: the non-bulk source may change right after the call */
        fill(a, nb, seed + 3);
        memcpy(z, a, nb);
        gasnet_handle_t h[4];
        h[0] = gasnet_put_nb(p, slot(p, 2), a, nb);
        memset(a, 0xEE, nb);
        gasnet_wait_syncnb(h[0]);
        memset(b, 0, nb);
        h[1] = gasnet_get_nb(b, p, slot(p, 2), nb);
        while (gasnet_try_syncnb(h[1]) != GASNET_OK) {}
        expect_bytes("gasnet_put_nb/gasnet_get_nb", b, z, nb, p);

        fill(a, nb, seed + 4);
        h[0] = gasnet_put_nb_bulk(p, slot(p, 3), a, nb);
        h[1] = GASNET_INVALID_HANDLE;
        gasnet_wait_syncnb_all(h, 2);
        RVT_CHECK(h[0] == GASNET_INVALID_HANDLE, "wait_syncnb_all left a live handle");
        memset(b, 0, nb);
        h[0] = gasnet_get_nb_bulk(b, p, slot(p, 3), nb);
        while (gasnet_try_syncnb_all(h, 2) != GASNET_OK) {}
        expect_bytes("gasnet_put_nb_bulk/gasnet_get_nb_bulk", b, a, nb, p);

        /* _some: keep syncing until every handle has been retired */
        unsigned char c[2][64];
        fill(a, 64, seed + 5);
        gasnet_put(p, slot(p, 0), a, 64);
        h[0] = gasnet_get_nb(c[0], p, slot(p, 0), 64);
        h[1] = gasnet_get_nb_bulk(c[1], p, slot(p, 0), 64);
        h[2] = GASNET_INVALID_HANDLE;
        gasnet_wait_syncnb_some(h, 3);
        RVT_CHECK(h[0] == GASNET_INVALID_HANDLE || h[1] == GASNET_INVALID_HANDLE,
                  "wait_syncnb_some retired nothing");
        while (h[0] != GASNET_INVALID_HANDLE || h[1] != GASNET_INVALID_HANDLE)
            (void)gasnet_try_syncnb_some(h, 3);
        expect_bytes("gasnet_get_nb (some)", c[0], a, 64, p);
        expect_bytes("gasnet_get_nb_bulk (some)", c[1], a, 64, p);

        /* implicit handles */
        fill(a, nb, seed + 6);
        memcpy(z, a, nb);
        gasnet_put_nbi(p, slot(p, 1), a, nb);
        memset(a, 0xDD, nb);
        gasnet_wait_syncnbi_puts();
        memset(b, 0, nb);
        gasnet_get_nbi(b, p, slot(p, 1), nb);
        gasnet_wait_syncnbi_gets();
        expect_bytes("gasnet_put_nbi/gasnet_get_nbi", b, z, nb, p);
        fill(a, nb, seed + 7);
        gasnet_put_nbi_bulk(p, slot(p, 2), a, nb);
        while (gasnet_try_syncnbi_puts() != GASNET_OK) {}
        memset(b, 0, nb);
        gasnet_get_nbi_bulk(b, p, slot(p, 2), nb);
        while (gasnet_try_syncnbi_all() != GASNET_OK) {}
        expect_bytes("gasnet_put_nbi_bulk/gasnet_get_nbi_bulk", b, a, nb, p);
        RVT_CHECK(gasnet_try_syncnbi_gets() == GASNET_OK, "no NBI gets left, try_ must be OK");

        /* access region: the NBI ops inside become one handle; an NB op inside stays apart */
        fill(a, nb, seed + 8);
        gasnet_begin_nbi_accessregion();
        gasnet_put_nbi_bulk(p, slot(p, 3), a, nb);
        gasnet_memset_nbi(p, slot(p, 0), 0x5A, nb);
        gasnet_handle_t inner = gasnet_put_nb(p, slot(p, 1), a, nb);
        gasnet_handle_t region = gasnet_end_nbi_accessregion();
        gasnet_wait_syncnb(inner);
        gasnet_wait_syncnb(region);
        memset(b, 0, nb);
        gasnet_get(b, p, slot(p, 3), nb);
        expect_bytes("access region put_nbi_bulk", b, a, nb, p);
        memset(z, 0x5A, nb);
        gasnet_get(b, p, slot(p, 0), nb);
        expect_bytes("access region memset_nbi", b, z, nb, p);
        gasnet_wait_syncnbi_all();
    }

    /* value forms, every width */
    for (size_t w = 1; w <= SIZEOF_GASNET_REGISTER_VALUE_T; w++) {
        gasnet_register_value_t v = (gasnet_register_value_t)0x8877665544332211ull ^ (seed * w);
        gasnet_register_value_t mask = w == 8 ? ~(gasnet_register_value_t)0
                                              : (((gasnet_register_value_t)1 << (8 * w)) - 1);
        gasnet_put_val(p, slot(p, 0), v, w);
        RVT_CHECK(gasnet_get_val(p, slot(p, 0), w) == (v & mask), "put_val/get_val width %zu", w);
        gasnet_wait_syncnb(gasnet_put_nb_val(p, slot(p, 1), v + 1, w));
        gasnet_put_nbi_val(p, slot(p, 2), v + 2, w);
        gasnet_wait_syncnbi_puts();
        gasnet_valget_handle_t g1 = gasnet_get_nb_val(p, slot(p, 1), w);
        gasnet_valget_handle_t g2 = gasnet_get_nb_val(p, slot(p, 2), w);
        RVT_CHECK(gasnet_wait_syncnb_valget(g2) == ((v + 2) & mask), "put_nbi_val width %zu", w);
        RVT_CHECK(gasnet_wait_syncnb_valget(g1) == ((v + 1) & mask), "put_nb_val width %zu", w);
    }

    /* memset, blocking and NB, across several pattern chunks and with an odd length */
    size_t mlen = SLOT - 3;
    unsigned char *big = malloc(SLOT), *want = malloc(SLOT);
    gasnet_memset(p, slot(p, 0), 0xA5, mlen);
    gasnet_get_bulk(big, p, slot(p, 0), SLOT);
    memset(want, 0xA5, mlen);
    expect_bytes("gasnet_memset", big, want, mlen, p);
    gasnet_wait_syncnb(gasnet_memset_nb(p, slot(p, 0), 0x3C, mlen));
    gasnet_get_bulk(big, p, slot(p, 0), SLOT);
    memset(want, 0x3C, mlen);
    expect_bytes("gasnet_memset_nb", big, want, mlen, p);
    gasnet_memset(p, slot(p, 0), 0, 0); /* zero bytes: nothing to do */
    gasnet_wait_syncnb(gasnet_memset_nb(p, slot(p, 0), 0, 0));
    free(big);
    free(want);
}

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    n = gasnet_nodes();
    rvt_me = me;
    RVT_OK(gasnet_attach(NULL, 0, SEGSZ, GASNET_PAGESIZE));
    RVT_CHECK(n * SLOT <= SEGSZ, "too many nodes for this test (%u)", n);
    si = calloc(n, sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    for (gasnet_node_t k = 0; k < n; k++) one_peer((me + k) % n, me * 10 + k);
    barrier();
    printf("legacy_rma: rank %u of %u: every put/get/memset form verified with %u peers\n", me,
           n, n);
    gasnet_exit(0);
    return 0;
}
