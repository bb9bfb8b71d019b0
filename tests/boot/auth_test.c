/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/boot/auth_test.c: rivetrun's SHA-256 and HMAC-SHA-256 against published test vectors
 * (FIPS 180-2 examples, RFC 4231), so the agents' proof of the job secret is the real thing. */
#include "auth.h"

#include <stdio.h>
#include <string.h>

static int failures;

static void check(const char *what, const unsigned char got[RV_SHA256_LEN], const char *want)
{
    char hex[2 * RV_SHA256_LEN + 1];
    for (int i = 0; i < RV_SHA256_LEN; i++) snprintf(hex + 2 * i, 3, "%02x", got[i]);
    if (strcmp(hex, want)) {
        printf("auth_test: FAIL: %s: got %s, expected %s\n", what, hex, want);
        failures++;
    }
}

int main(void)
{
    unsigned char out[RV_SHA256_LEN];
    rv_sha256("abc", 3, out);
    check("sha256(abc)", out, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m2 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    rv_sha256(m2, strlen(m2), out);
    check("sha256(448 bits)", out, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    rv_sha256("", 0, out);
    check("sha256()", out, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

    rv_iov_t p2[2] = {{"what do ya want ", 16}, {"for nothing?", 12}};   /* split input */
    rv_hmac_sha256("Jefe", 4, p2, 2, out);
    check("hmac RFC 4231 #2", out, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    unsigned char key[131];
    memset(key, 0xaa, sizeof key);
    rv_iov_t p6 = {"Test Using Larger Than Block-Size Key - Hash Key First", 54};
    rv_hmac_sha256(key, sizeof key, &p6, 1, out);
    check("hmac RFC 4231 #6", out, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");

    unsigned char a[4] = {1, 2, 3, 4}, b[4] = {1, 2, 3, 5};
    if (!rv_auth_equal(a, a, 4) || rv_auth_equal(a, b, 4)) {
        printf("auth_test: FAIL: rv_auth_equal\n");
        failures++;
    }
    if (failures) return 1;
    printf("auth_test: ok\n");
    return 0;
}
