/* SPDX-License-Identifier: BSD-3-Clause */
/* core/slist.h: the intrusive singly linked list link every pooled object embeds, and the free
 * list shared by threads under a spinlock (a transport's fixed sets of send buffers and
 * operation contexts). */
#ifndef RV_SLIST_H
#define RV_SLIST_H

#include <stddef.h>
#include "core/spin.h"

typedef struct rv_slink {
    struct rv_slink *next;
} rv_slink_t;

/* The object of type T whose member m is the link p (p must not be NULL). */
#define rv_container_of(p, T, m) ((T *)(void *)((char *)(p) - offsetof(T, m)))

/* A LIFO free list any thread may take from or give back to; zeroed: empty and unlocked. */
typedef struct rv_flist {
    rv_slink_t *head;
    rv_spin_t   lock;
} rv_flist_t;

/* Takes one object's link off the list, or NULL when it is empty. */
static inline rv_slink_t *rv_flist_get(rv_flist_t *l)
{
    rv_spin_lock(&l->lock);
    rv_slink_t *n = l->head;
    if (n) l->head = n->next;
    rv_spin_unlock(&l->lock);
    return n;
}

static inline void rv_flist_put(rv_flist_t *l, rv_slink_t *n)
{
    rv_spin_lock(&l->lock);
    n->next = l->head;
    l->head = n;
    rv_spin_unlock(&l->lock);
}

/* Objects on the list right now (a snapshot). */
static inline unsigned rv_flist_count(rv_flist_t *l)
{
    unsigned k = 0;
    rv_spin_lock(&l->lock);
    for (rv_slink_t *n = l->head; n; n = n->next) k++;
    rv_spin_unlock(&l->lock);
    return k;
}

#endif /* RV_SLIST_H */
