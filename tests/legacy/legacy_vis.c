/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/legacy/legacy_vis.c: the GASNet-1 VIS calls (Vector, Indexed, Strided; blocking, _nb
 * and _nbi, all _bulk), the GASNet-1 broadcast (gasnet_coll_init/gasnet_coll_broadcast, LOCAL
 * and SINGLE, every sync flag) and the gasnett_format_* VIS formatters. Each node writes into
 * its successor's segment and reads it back; every byte is checked. */
#include <gasnet.h>
#include <gasnet_vis.h>
#include "rv_test.h"

#define SEGSZ (64 * 1024)
#define AREA 4096

static gasnet_node_t me, n, peer;
static gasnet_seginfo_t *si;

static unsigned char *remote(size_t off) { return (unsigned char *)si[peer].addr + off; }

static void expect(const char *what, const unsigned char *got, const unsigned char *want,
                   size_t nb)
{
    for (size_t i = 0; i < nb; i++)
        RVT_CHECK(got[i] == want[i], "%s: byte %zu is 0x%02x, expected 0x%02x", what, i, got[i],
                  want[i]);
}

static void barrier(void)
{
    gasnet_barrier_notify(0, GASNET_BARRIERFLAG_ANONYMOUS);
    RVT_OK(gasnet_barrier_wait(0, GASNET_BARRIERFLAG_ANONYMOUS));
}

static void check_bcast(void)
{
    const int syncs[][2] = {{GASNET_COLL_IN_ALLSYNC, GASNET_COLL_OUT_ALLSYNC},
                            {GASNET_COLL_IN_MYSYNC, GASNET_COLL_OUT_MYSYNC},
                            {GASNET_COLL_IN_NOSYNC, GASNET_COLL_OUT_NOSYNC}};
    static uint64_t val[4]; /* static: the same address on every node, for SINGLE */
    for (int s = 0; s < 3; s++) {
        for (int mode = 0; mode < 2; mode++) {
            gasnet_image_t root = (gasnet_image_t)((s + mode) % n);
            uint64_t src[4] = {0}, want[4];
            for (int k = 0; k < 4; k++) want[k] = 1000u * (unsigned)s + 10u * root + (unsigned)k;
            if (me == root) memcpy(mode ? val : src, want, sizeof want);
            else memset(val, 0xee, sizeof val);
            int flags = syncs[s][0] | syncs[s][1] |
                        (mode ? GASNET_COLL_SINGLE : GASNET_COLL_LOCAL);
            gasnet_coll_broadcast(GASNET_TEAM_ALL, val, root, mode ? val : src, sizeof val,
                                  flags);
            if (!(flags & GASNET_COLL_OUT_ALLSYNC)) barrier(); /* before the next round */
            expect("gasnet_coll_broadcast", (unsigned char *)val, (unsigned char *)want,
                   sizeof want);
        }
    }
    /* zero bytes: only the synchronization happens */
    gasnet_coll_broadcast(GASNET_TEAM_ALL, NULL, 0, NULL, 0,
                          GASNET_COLL_LOCAL | GASNET_COLL_IN_ALLSYNC | GASNET_COLL_OUT_ALLSYNC);
}

/* Vector: three source pieces (one empty) into two remote pieces, back in four. */
static void check_vector(int form, unsigned seed)
{
    unsigned char src[300], back[300];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(seed + i * 3);
    gasnet_memvec_t s[3] = {{src, 100}, {src + 100, 0}, {src + 100, 200}};
    gasnet_memvec_t d[2] = {{remote(1000), 120}, {remote(40), 180}};
    gasnet_memvec_t b[4] = {{back, 1}, {back + 1, 150}, {back + 151, 0}, {back + 151, 149}};
    memset(back, 0, sizeof back);
    if (form == 0) {
        gasnet_putv_bulk(peer, 2, d, 3, s);
        gasnet_getv_bulk(4, b, peer, 2, d);
    } else if (form == 1) {
        gasnet_wait_syncnb(gasnet_putv_nb_bulk(peer, 2, d, 3, s));
        gasnet_wait_syncnb(gasnet_getv_nb_bulk(4, b, peer, 2, d));
    } else {
        gasnet_putv_nbi_bulk(peer, 2, d, 3, s);
        gasnet_wait_syncnbi_puts();
        gasnet_getv_nbi_bulk(4, b, peer, 2, d);
        gasnet_wait_syncnbi_gets();
    }
    expect("gasnet_putv/getv", back, src, sizeof src);
    /* the remote layout too: first 120 bytes at 1000, the rest at 40 */
    unsigned char flat[180];
    gasnet_get(flat, peer, remote(1000), 120);
    expect("gasnet_putv first piece", flat, src, 120);
    gasnet_get(flat, peer, remote(40), 180);
    expect("gasnet_putv second piece", flat, src + 120, 180);
}

/* Indexed: 6 chunks of 8 bytes into 3 remote chunks of 16, back as one chunk of 48. */
static void check_indexed(int form, unsigned seed)
{
    unsigned char src[6 * 8], back[48];
    void *sl[6], *dl[3], *bl[1] = {back};
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(seed * 7 + i);
    for (int k = 0; k < 6; k++) sl[k] = src + (5 - k) * 8; /* reversed order */
    for (int k = 0; k < 3; k++) dl[k] = remote(2048 + (size_t)k * 100);
    memset(back, 0, sizeof back);
    if (form == 0) {
        gasnet_puti_bulk(peer, 3, dl, 16, 6, sl, 8);
        gasnet_geti_bulk(1, bl, 48, peer, 3, dl, 16);
    } else if (form == 1) {
        gasnet_wait_syncnb(gasnet_puti_nb_bulk(peer, 3, dl, 16, 6, sl, 8));
        gasnet_wait_syncnb(gasnet_geti_nb_bulk(1, bl, 48, peer, 3, dl, 16));
    } else {
        gasnet_puti_nbi_bulk(peer, 3, dl, 16, 6, sl, 8);
        gasnet_wait_syncnbi_all();
        gasnet_geti_nbi_bulk(1, bl, 48, peer, 3, dl, 16);
        gasnet_wait_syncnbi_all();
    }
    for (int k = 0; k < 6; k++) expect("gasnet_puti/geti", back + k * 8, src + (5 - k) * 8, 8);
}

/* Strided: a 3 x 4 block of 5-byte chunks from a local array with row pitch 7 and plane
 * pitch 40 into remote rows of pitch 11, planes of pitch 50; read back contiguously. */
static void check_strided(int form, unsigned seed)
{
    unsigned char src[200], back[60];
    for (size_t i = 0; i < sizeof src; i++) src[i] = (unsigned char)(seed * 5 + i * 11);
    const size_t count[3] = {5, 4, 3}, sstr[2] = {7, 40}, dstr[2] = {11, 50}, cstr[2] = {5, 20};
    void *dst = remote(3000);
    memset(back, 0, sizeof back);
    if (form == 0) {
        gasnet_puts_bulk(peer, dst, dstr, src, sstr, count, 2);
        gasnet_gets_bulk(back, cstr, peer, dst, dstr, count, 2);
    } else if (form == 1) {
        gasnet_wait_syncnb(gasnet_puts_nb_bulk(peer, dst, dstr, src, sstr, count, 2));
        gasnet_wait_syncnb(gasnet_gets_nb_bulk(back, cstr, peer, dst, dstr, count, 2));
    } else {
        gasnet_puts_nbi_bulk(peer, dst, dstr, src, sstr, count, 2);
        gasnet_wait_syncnbi_all();
        gasnet_gets_nbi_bulk(back, cstr, peer, dst, dstr, count, 2);
        gasnet_wait_syncnbi_all();
    }
    for (size_t z = 0; z < 3; z++)
        for (size_t y = 0; y < 4; y++)
            expect("gasnet_puts/gets", back + z * 20 + y * 5, src + z * 40 + y * 7, 5);
    unsigned char row[5];
    gasnet_get(row, peer, remote(3000 + 2 * 50 + 3 * 11), 5);
    expect("gasnet_puts remote layout", row, src + 2 * 40 + 3 * 7, 5);
    /* a zero count anywhere moves nothing */
    const size_t zero[3] = {5, 0, 3};
    gasnet_puts_bulk(peer, remote(0), dstr, src, sstr, zero, 2);
}

static void check_format(void)
{
    unsigned char x[16];
    gex_Memvec_t mv[2] = {{x, 3}, {NULL, 0}}; /* the formatters take GASNet-EX's types */
    void *al[3] = {x, x + 4, x + 8};
    const ptrdiff_t str[2] = {8, 64};
    const size_t cnt[3] = {4, 2, 5};
    char *buf = malloc(gasnett_format_memveclist_bufsz(2));
    gasnett_format_memveclist(buf, 2, mv);
    RVT_CHECK(strlen(buf) < gasnett_format_memveclist_bufsz(2) && strstr(buf, "2 entries, 3 bytes"),
              "memveclist: '%s'", buf);
    free(buf);
    buf = malloc(gasnett_format_addrlist_bufsz(3));
    gasnett_format_addrlist(buf, 3, al, 4);
    RVT_CHECK(strlen(buf) < gasnett_format_addrlist_bufsz(3) && strstr(buf, "3 entries of 4 bytes"),
              "addrlist: '%s'", buf);
    free(buf);
    buf = malloc(gasnett_format_putsgets_bufsz(2));
    /* a GASNet-1 strided description as GASNet's testvis passes it: count[0] is elemsz */
    size_t moved = gasnett_format_putsgets(buf, NULL, GEX_TM_INVALID, 3, x, str, x + 1, str,
                                           cnt[0], cnt + 1, 2);
    RVT_CHECK(moved == 40 && strlen(buf) < gasnett_format_putsgets_bufsz(2) &&
                  strstr(buf, "rank=3") && strstr(buf, "dststrides=[8,64]") &&
                  strstr(buf, "elemsz=4") && strstr(buf, "count=[2,5]"),
              "putsgets: '%s'", buf);
    free(buf);
}

int main(int argc, char **argv)
{
    RVT_OK(gasnet_init(&argc, &argv));
    me = gasnet_mynode();
    n = gasnet_nodes();
    rvt_me = me;
    peer = (me + 1) % n;
    RVT_OK(gasnet_attach(NULL, 0, SEGSZ, GASNET_PAGESIZE));
    si = calloc(n, sizeof *si);
    RVT_OK(gasnet_getSegmentInfo(si, (int)n));
    gasnet_coll_init(NULL, 0, NULL, 0, 0);
    check_bcast();
    for (int form = 0; form < 3; form++) {
        check_vector(form, me * 3 + (unsigned)form);
        check_indexed(form, me * 3 + (unsigned)form);
        check_strided(form, me * 3 + (unsigned)form);
        barrier();
    }
    check_format();
    barrier();
    if (me == 0) printf("legacy_vis: PASS on %u nodes\n", n);
    gasnet_exit(0);
    return 0;
}
