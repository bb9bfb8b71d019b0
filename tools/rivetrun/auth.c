/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/auth.c: SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104) for the agents'
 * proof that they know the job secret; small and slow is fine: a few hashes per job. */
#include "auth.h"

#include <string.h>

typedef struct rv_sha256 {
    uint32_t h[8];
    uint64_t total;          /* bytes hashed so far */
    unsigned char blk[64];
    size_t   n;              /* bytes waiting in blk */
} rv_sha256_t;

static const uint32_t rv_sha_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rv_rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

static void rv_sha256_block(rv_sha256_t *s, const unsigned char *p)
{
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16
             | (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rv_rotr(w[i - 15], 7) ^ rv_rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rv_rotr(w[i - 2], 17) ^ rv_rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3];
    uint32_t e = s->h[4], f = s->h[5], g = s->h[6], h = s->h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = h + (rv_rotr(e, 6) ^ rv_rotr(e, 11) ^ rv_rotr(e, 25)) + ((e & f) ^ (~e & g))
                    + rv_sha_k[i] + w[i];
        uint32_t t2 = (rv_rotr(a, 2) ^ rv_rotr(a, 13) ^ rv_rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        h = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    s->h[0] += a; s->h[1] += b; s->h[2] += c; s->h[3] += d;
    s->h[4] += e; s->h[5] += f; s->h[6] += g; s->h[7] += h;
}

static void rv_sha256_init(rv_sha256_t *s)
{
    static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, iv, sizeof iv);
    s->total = 0;
    s->n = 0;
}

static void rv_sha256_update(rv_sha256_t *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->total += len;
    while (len) {
        size_t take = 64 - s->n < len ? 64 - s->n : len;
        memcpy(s->blk + s->n, p, take);
        s->n += take;
        p += take;
        len -= take;
        if (s->n == 64) {
            rv_sha256_block(s, s->blk);
            s->n = 0;
        }
    }
}

static void rv_sha256_final(rv_sha256_t *s, unsigned char out[RV_SHA256_LEN])
{
    uint64_t bits = s->total * 8;
    unsigned char pad = 0x80;
    rv_sha256_update(s, &pad, 1);
    pad = 0;
    while (s->n != 56) rv_sha256_update(s, &pad, 1);
    unsigned char len[8];
    for (int i = 0; i < 8; i++) len[i] = (unsigned char)(bits >> (56 - 8 * i));
    rv_sha256_update(s, len, 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

void rv_sha256(const void *data, size_t len, unsigned char out[RV_SHA256_LEN])
{
    rv_sha256_t s;
    rv_sha256_init(&s);
    rv_sha256_update(&s, data, len);
    rv_sha256_final(&s, out);
}

void rv_hmac_sha256(const void *key, size_t keylen, const rv_iov_t *parts, int nparts,
                    unsigned char out[RV_SHA256_LEN])
{
    unsigned char k[64] = {0}, pad[64], inner[RV_SHA256_LEN];
    if (keylen > sizeof k) rv_sha256(key, keylen, k);
    else memcpy(k, key, keylen);
    rv_sha256_t s;
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x36;
    rv_sha256_init(&s);
    rv_sha256_update(&s, pad, sizeof pad);
    for (int i = 0; i < nparts; i++) rv_sha256_update(&s, parts[i].p, parts[i].len);
    rv_sha256_final(&s, inner);
    for (int i = 0; i < 64; i++) pad[i] = k[i] ^ 0x5c;
    rv_sha256_init(&s);
    rv_sha256_update(&s, pad, sizeof pad);
    rv_sha256_update(&s, inner, sizeof inner);
    rv_sha256_final(&s, out);
}

int rv_auth_equal(const unsigned char *a, const unsigned char *b, size_t n)
{
    volatile unsigned char diff = 0;   /* no early exit: the time says nothing */
    for (size_t i = 0; i < n; i++) diff |= a[i] ^ b[i];
    return diff == 0;
}
