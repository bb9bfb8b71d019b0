/* SPDX-License-Identifier: BSD-3-Clause */
/* tools/rivetrun/auth.h: hashing for the agent <-> launcher handshake (see net.h). */
#ifndef RV_RUN_AUTH_H
#define RV_RUN_AUTH_H

#include <stddef.h>
#include <stdint.h>

#define RV_SHA256_LEN 32

typedef struct rv_iov {
    const void *p;
    size_t      len;
} rv_iov_t;

void rv_sha256(const void *data, size_t len, unsigned char out[RV_SHA256_LEN]);
/* HMAC-SHA-256 of the concatenation of parts[0..nparts-1] under key. */
void rv_hmac_sha256(const void *key, size_t keylen, const rv_iov_t *parts, int nparts,
                    unsigned char out[RV_SHA256_LEN]);
/* 1 if the n bytes are equal; takes the same time wherever they differ. */
int  rv_auth_equal(const unsigned char *a, const unsigned char *b, size_t n);

#endif /* RV_RUN_AUTH_H */
