/* SPDX-License-Identifier: BSD-3-Clause */
/* transport/shm/shm_ring.h: the single-consumer byte ring that carries AMs between two
 * processes of a host: layout, push (producer) and next/release (consumer).
 *
 * The ring lives in the receiver's shared queue object. Records are packed back to
 * back, each an 8-byte word followed by the message padded to 8 bytes:
 *   word = len << 1 | 1   a message of len bytes follows
 *   word = RV_SHM_WRAP    nothing more until the end of the data: continue at 0
 *   word = n << 3 | 4     skip n bytes (n a multiple of 8, below 64): aligns the payload of
 *                         the record that follows (RV_SHM_SKIP, rv_shm_pl_pad)
 *   word = 0              empty: the producer has not written here yet
 * The consumer spins on the word at its head, so an arriving message costs it one
 * cache line. The producer keeps that protocol valid by zeroing the word after
 * each record before it publishes the record (release store of its word), so the
 * consumer never mistakes data of an earlier lap for a record. Space is freed by
 * the consumer advancing 'head' once a message has been handled in place.
 * Producers of one process serialize on 'plock'; consumers on 'clock' (trylock).
 * A reservation (reserve, then commit or unreserve) holds 'plock' in between: the caller
 * writes the payload in place, and commit writes the header and publishes the record. */
#ifndef RV_SHM_RING_H
#define RV_SHM_RING_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "core/spin.h"

#define RV_SHM_WRAP ((uint64_t)2)
#define RV_SHM_SKIP(n) ((uint64_t)(n) << 3 | 4)
/* Payloads of at least this many bytes start on a cache line: a large copy into the ring
 * then runs with its destination aligned (glibc's memcpy, rep movsb on AMD, loses up to
 * 15% on a 32 KiB copy to an 8-byte-aligned destination) and writes whole lines. */
#define RV_SHM_ALIGN_MIN 256u

typedef struct rv_shm_ring {
    /* producer's line: touched only by the sending process */
    _Alignas(64) uint64_t tail; /* bytes ever produced */
    uint64_t head_seen;         /* the consumer's head when last read */
    uint64_t rsv_at;            /* a reservation's record offset (under plock) */
    uint32_t rsv_pad;           /* and its skip bytes before the record's word */
    uint32_t plock;
    /* consumer's line */
    _Alignas(64) uint64_t head; /* bytes ever consumed (published with release) */
    uint32_t clock;
    _Alignas(64) unsigned char data[]; /* 'cap' bytes, cap a power of two */
} rv_shm_ring_t;

#define RV_SHM_RING_BYTES(cap) (sizeof(rv_shm_ring_t) + (size_t)(cap))

static inline size_t rv_shm_pad8(size_t n) { return (n + 7) & ~(size_t)7; }

static inline uint64_t *rv_shm_word(rv_shm_ring_t *r, uint64_t mask, uint64_t pos) {
    return (uint64_t *)(void *)(r->data + (pos & mask));
}

/* Largest message a ring of 'cap' bytes always accepts once drained: a wrap may
 * waste up to one record, a skip up to 56 bytes, and one word stays zeroed ahead of the tail. */
static inline size_t rv_shm_ring_max_msg(size_t cap) { return cap / 2 - 80; }

/* The skip bytes before a record at offset 'at' that put its payload (after the 8-byte word
 * and hl header bytes, hl a multiple of 8) on an 'align' boundary (8, 16 or 64). */
static inline size_t rv_shm_pl_pad(uint64_t at, size_t hl, size_t align)
{
    return align <= 8 ? 0 : (size_t)(0 - (at + 8 + hl)) & (align - 1); /* records are 8-aligned */
}

/* Copies an AM header (hl a multiple of 8, at most a few words) without a libc call. The
 * stores are relaxed atomics (plain moves) so that the loop stays scalar: for 2-10 words,
 * vector code behind alias and trip-count checks costs more than it saves. */
static inline void rv_shm_copy_hdr(unsigned char *dst, const void *hdr, size_t hl)
{
    const unsigned char *src = hdr;
    for (size_t i = 0; i < hl; i += 8) {
        uint64_t w;
        memcpy(&w, src + i, 8);
        __atomic_store_n((uint64_t *)(void *)(dst + i), w, __ATOMIC_RELAXED);
    }
}

/* Takes plock and finds room for a record of hl header bytes and len payload bytes whose
 * payload starts on an 'align' boundary: at (where the record's skip or word goes), pad (skip
 * bytes before its word) and total (bytes the tail moves, a wrap's included). Returns 0 holding
 * plock, or 1 (plock released) if it does not fit now. */
static inline __attribute__((always_inline)) int
rv_shm_ring_place(rv_shm_ring_t *r, size_t cap, size_t hl, size_t len, size_t align,
                  uint64_t *at_out, size_t *pad_out, size_t *total_out)
{
    rv_spin_lock(&r->plock);
    uint64_t tail = r->tail;
    uint64_t pos = tail & (cap - 1);
    size_t to_end = cap - pos;
    size_t need = 8 + rv_shm_pad8(hl + len);
    uint64_t at = pos;
    size_t pad = rv_shm_pl_pad(pos, hl, align);
    size_t total = pad + need;
    if (total > to_end) {
        at = 0;
        pad = rv_shm_pl_pad(0, hl, align);
        total = to_end + pad + need;
    }
    if (tail + total + 8 > r->head_seen + cap) {
        r->head_seen = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
        if (tail + total + 8 > r->head_seen + cap) {
            rv_spin_unlock(&r->plock);
            return 1;
        }
    }
    *at_out = at;
    *pad_out = pad;
    *total_out = total;
    return 0;
}

/* Appends hdr then payload as one message, the payload 'align'-aligned (8 or 64). Returns 0,
 * or 1 if it does not fit now. */
static inline __attribute__((always_inline)) int
rv_shm_ring_push_al(rv_shm_ring_t *r, size_t cap, const void *hdr, size_t hl, const void *pl,
                    size_t pn, size_t align)
{
    const uint64_t mask = cap - 1;
    size_t len = hl + pn, pad, total;
    uint64_t at;
    if (rv_shm_ring_place(r, cap, hl, pn, align, &at, &pad, &total)) return 1;
    uint64_t tail = r->tail, pos = tail & mask;
    unsigned char *body = r->data + at + pad + 8;
    rv_shm_copy_hdr(body, hdr, hl);
    if (pn) memcpy(body + hl, pl, pn);
    __atomic_store_n(rv_shm_word(r, mask, at + pad + 8 + rv_shm_pad8(len)), 0, __ATOMIC_RELAXED);
    __atomic_store_n(rv_shm_word(r, mask, at + pad), (uint64_t)len << 1 | 1, __ATOMIC_RELEASE);
    if (pad) __atomic_store_n(rv_shm_word(r, mask, at), RV_SHM_SKIP(pad), __ATOMIC_RELEASE);
    if (at != pos) __atomic_store_n(rv_shm_word(r, mask, pos), RV_SHM_WRAP, __ATOMIC_RELEASE);
    r->tail = tail + total;
    rv_spin_unlock(&r->plock);
    return 0;
}

/* Appends hdr then payload as one message. Returns 0, or 1 if it does not fit now. */
static inline int rv_shm_ring_push(rv_shm_ring_t *r, size_t cap, const void *hdr, size_t hl,
                                   const void *pl, size_t pn)
{
    if (pn >= RV_SHM_ALIGN_MIN) return rv_shm_ring_push_al(r, cap, hdr, hl, pl, pn, 64);
    return rv_shm_ring_push_al(r, cap, hdr, hl, pl, pn, 8);
}

/* Reserves room for one message of hl header bytes and up to maxlen payload bytes and
 * returns where its payload goes (16-byte aligned; 64 from RV_SHM_ALIGN_MIN bytes), holding
 * plock; or NULL (nothing held) if it does not fit now. The record is sized for maxlen;
 * commit may publish fewer bytes. */
static inline void *rv_shm_ring_reserve(rv_shm_ring_t *r, size_t cap, size_t hl, size_t maxlen)
{
    size_t pad, total;
    uint64_t at;
    if (rv_shm_ring_place(r, cap, hl, maxlen, maxlen >= RV_SHM_ALIGN_MIN ? 64 : 16, &at, &pad,
                          &total))
        return NULL;
    r->rsv_at = at;
    r->rsv_pad = (uint32_t)pad;
    return r->data + at + pad + 8 + hl;
}

/* Publishes the reserved message: hdr (the hl bytes reserved) and the first len (<= the
 * reserved maxlen) payload bytes already written in place. Releases plock. */
static inline void rv_shm_ring_commit(rv_shm_ring_t *r, size_t cap, const void *hdr, size_t hl,
                                      size_t len)
{
    const uint64_t mask = cap - 1;
    uint64_t tail = r->tail;
    uint64_t pos = tail & mask;
    uint64_t at = r->rsv_at;
    size_t pad = r->rsv_pad;
    size_t need = pad + 8 + rv_shm_pad8(hl + len);
    rv_shm_copy_hdr(r->data + at + pad + 8, hdr, hl);
    __atomic_store_n(rv_shm_word(r, mask, at + need), 0, __ATOMIC_RELAXED);
    __atomic_store_n(rv_shm_word(r, mask, at + pad), (uint64_t)(hl + len) << 1 | 1,
                     __ATOMIC_RELEASE);
    if (pad) __atomic_store_n(rv_shm_word(r, mask, at), RV_SHM_SKIP(pad), __ATOMIC_RELEASE);
    if (at != pos) __atomic_store_n(rv_shm_word(r, mask, pos), RV_SHM_WRAP, __ATOMIC_RELEASE);
    r->tail = tail + (at != pos ? cap - pos : 0) + need;
    rv_spin_unlock(&r->plock);
}

/* Drops a reservation: nothing was published. Releases plock. */
static inline void rv_shm_ring_unreserve(rv_shm_ring_t *r) { rv_spin_unlock(&r->plock); }

/* Cheap, lock-free "anything to read?" hint. Its load of a word that a producer of
 * this process may later overwrite with message bytes is a benign race (a wrong
 * hint costs one trylock or one more poll), but a race to ThreadSanitizer, which
 * cannot see that the word is only a hint: under TSan every ring is "maybe ready"
 * and the locked path, whose loads are all ordered, decides. */
static inline int rv_shm_ring_ready(rv_shm_ring_t *r, size_t cap)
{
#if defined(__SANITIZE_THREAD__)
    (void)r, (void)cap;
    return 1;
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
    (void)r, (void)cap;
    return 1;
#endif
#endif
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_RELAXED);
    return __atomic_load_n(rv_shm_word(r, cap - 1, head), __ATOMIC_RELAXED) != 0;
}

/* Consumer (holding clock): the next message in place, or NULL if empty.
 * *headp is the consumer's private head; skips wrap records. */
static inline void *rv_shm_ring_next(rv_shm_ring_t *r, size_t cap, uint64_t *headp, size_t *lenp)
{
    const uint64_t mask = cap - 1;
    uint64_t w = __atomic_load_n(rv_shm_word(r, mask, *headp), __ATOMIC_ACQUIRE);
    if (__builtin_expect(!(w & 1), 0)) {
        if (w == RV_SHM_WRAP) {
            *headp += cap - (*headp & mask);
            w = __atomic_load_n(rv_shm_word(r, mask, *headp), __ATOMIC_ACQUIRE);
        }
        if ((w & 7) == 4) {
            *headp += w >> 3;
            w = __atomic_load_n(rv_shm_word(r, mask, *headp), __ATOMIC_ACQUIRE);
        }
        if (!(w & 1)) return NULL;
    }
    *lenp = (size_t)(w >> 1);
    return r->data + (*headp & mask) + 8;
}

/* Consumer: the message of len bytes at the head has been handled; frees its space. */
static inline void rv_shm_ring_release(rv_shm_ring_t *r, uint64_t *headp, size_t len)
{
    *headp += 8 + rv_shm_pad8(len);
    __atomic_store_n(&r->head, *headp, __ATOMIC_RELEASE);
}

#endif /* RV_SHM_RING_H */
