/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_machinery.c: the shared machinery in src/core/ that the engines and the
 * transports build on: 64-bit AM argument packing, the spinlocked free list (also under two
 * contending threads), the deferred-operation FIFO, and the per-thread object pools (batch
 * initialisation, reuse, and the hand-back of an exited thread's objects to the next thread). */
#include "core/amargs.h"
#include "core/defer.h"
#include "core/pool.h"
#include "core/slist.h"
#include "rv_check.h"

#include <pthread.h>
#include <stdint.h>
#include <string.h>

/* ---- amargs ---------------------------------------------------------------------------- */

static void test_amargs(void)
{
    static const uint64_t vals[] = { 0, 1, 0xffffffffu, UINT64_C(1) << 32,
                                     UINT64_C(0x8000000080000000), UINT64_MAX,
                                     UINT64_C(0x0123456789abcdef) };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        gex_AM_Arg_t a[4] = { 7, 7, 7, 7 };
        rv_args_set_u64(a + 1, vals[i]);
        CHECK(a[0] == 7 && a[3] == 7, "rv_args_set_u64 wrote outside its two arguments");
        CHECK((uint32_t)a[1] == (uint32_t)vals[i] && (uint32_t)a[2] == (uint32_t)(vals[i] >> 32),
              "value %zu: not low half first", i);
        CHECK(rv_args_u64(a + 1) == vals[i], "value %zu: round trip gave %llx", i,
              (unsigned long long)rv_args_u64(a + 1));
    }
    int x;
    gex_AM_Arg_t a[2];
    rv_args_set_ptr(a, &x);
    CHECK(rv_args_ptr(a) == &x, "pointer round trip");
}

/* ---- flist ----------------------------------------------------------------------------- */

typedef struct item {
    int        tag;
    rv_slink_t link;
    int        inuse;
} item_t;

#define NITEMS 64
static item_t items[NITEMS];
static rv_flist_t fl;

static void *flist_worker(void *arg)
{
    (void)arg;
    for (int k = 0; k < 200000; k++) {
        rv_slink_t *l = rv_flist_get(&fl);
        if (!l) continue;
        item_t *it = rv_container_of(l, item_t, link);
        int was = __atomic_exchange_n(&it->inuse, 1, __ATOMIC_RELAXED);
        CHECK(!was, "item %d handed to two threads at once", it->tag);
        __atomic_store_n(&it->inuse, 0, __ATOMIC_RELAXED);
        rv_flist_put(&fl, l);
    }
    return NULL;
}

static void test_flist(void)
{
    CHECK(rv_flist_get(&fl) == NULL && rv_flist_count(&fl) == 0, "a zeroed list is empty");
    for (int i = 0; i < NITEMS; i++) {
        items[i].tag = i;
        rv_flist_put(&fl, &items[i].link);
    }
    CHECK(rv_flist_count(&fl) == NITEMS, "count %u", rv_flist_count(&fl));
    for (int i = NITEMS - 1; i >= 0; i--) { /* LIFO */
        rv_slink_t *l = rv_flist_get(&fl);
        CHECK(l && rv_container_of(l, item_t, link)->tag == i, "expected item %d", i);
    }
    CHECK(rv_flist_get(&fl) == NULL, "drained list is empty");
    for (int i = 0; i < NITEMS; i++) rv_flist_put(&fl, &items[i].link);
    pthread_t t[2];
    for (int i = 0; i < 2; i++) CHECK(!pthread_create(&t[i], NULL, flist_worker, NULL), "thread");
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    CHECK(rv_flist_count(&fl) == NITEMS, "after contention: %u items, expected %d",
          rv_flist_count(&fl), NITEMS);
    int seen[NITEMS] = { 0 };
    for (rv_slink_t *l = fl.head; l; l = l->next) seen[rv_container_of(l, item_t, link)->tag]++;
    for (int i = 0; i < NITEMS; i++) CHECK(seen[i] == 1, "item %d listed %d times", i, seen[i]);
}

/* ---- defer ----------------------------------------------------------------------------- */

static void test_defer(void)
{
    static rv_defer_t q = RV_DEFER_INIT;
    item_t d[5];
    CHECK(!rv_defer_pending(&q), "new queue has nothing pending");
    for (int i = 0; i < 5; i++) {
        d[i].tag = i;
        rv_defer_push(&q, &d[i].link);
    }
    CHECK(rv_defer_pending(&q), "pending after push");
    CHECK(rv_defer_trylock(&q), "trylock of a free queue");
    for (int i = 0; i < 3; i++) { /* FIFO */
        rv_slink_t *l = rv_defer_head(&q);
        CHECK(l && rv_container_of(l, item_t, link)->tag == i, "expected deferred item %d", i);
        rv_defer_pop(&q);
    }
    rv_defer_unlock(&q);
    rv_defer_push(&q, &d[0].link); /* joins behind 3 and 4 */
    CHECK(rv_defer_trylock(&q), "trylock again");
    int want[] = { 3, 4, 0 };
    for (int i = 0; i < 3; i++) {
        rv_slink_t *l = rv_defer_head(&q);
        CHECK(l && rv_container_of(l, item_t, link)->tag == want[i], "expected item %d", want[i]);
        rv_defer_pop(&q);
    }
    CHECK(rv_defer_head(&q) == NULL && !rv_defer_pending(&q), "drained queue is empty");
    rv_defer_unlock(&q);
}

/* ---- pool ------------------------------------------------------------------------------ */

typedef struct obj {
    uint64_t   magic;
    rv_slink_t link;
    int        owner;
} obj_t;

#define BATCH 8
static int ninit, nexit;
static void obj_init(void *p)
{
    obj_t *o = p;
    CHECK(o->magic == 0 && o->owner == 0, "a fresh object is zeroed");
    o->magic = 0x600d;
    __atomic_fetch_add(&ninit, 1, __ATOMIC_RELAXED);
}
static void obj_thread_exit(void) { __atomic_fetch_add(&nexit, 1, __ATOMIC_RELAXED); }

static rv_pool_t pool = RV_POOL_INIT(obj_t, link, BATCH, "test objects", obj_init,
                                     obj_thread_exit);
static _Thread_local rv_pool_tls_t tls;

static obj_t *obj_get(void) { return rv_container_of(rv_pool_get(&pool, &tls), obj_t, link); }

static obj_t *left[3 * BATCH];

/* Takes 3 batches' worth, returns them to its own list, and exits. */
static void *pool_leaver(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3 * BATCH; i++) {
        left[i] = obj_get();
        CHECK(left[i]->magic == 0x600d, "object %d not initialised", i);
        for (int j = 0; j < i; j++) CHECK(left[j] != left[i], "object handed out twice");
    }
    for (int i = 0; i < 3 * BATCH; i++) rv_pool_put(&tls, &left[i]->link);
    return NULL;
}

/* A new thread's first objects are the ones the exited thread left. */
static void *pool_heir(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3 * BATCH; i++) {
        obj_t *o = obj_get();
        int found = 0;
        for (int j = 0; j < 3 * BATCH; j++) found |= o == left[j];
        CHECK(found, "object %d of the heir thread is not one the exited thread left", i);
    }
    return NULL;
}

static void *pool_watched(void *arg)
{
    (void)arg;
    rv_pool_watch_thread(&pool, &tls);
    return NULL;
}

static void test_pool(void)
{
    obj_t *a = obj_get(), *b = obj_get();
    CHECK(a != b && ninit == BATCH, "one batch initialised (%d)", ninit);
    rv_pool_put(&tls, &b->link);
    CHECK(obj_get() == b, "the last object returned comes back first");
    pthread_t t;
    CHECK(!pthread_create(&t, NULL, pool_leaver, NULL), "thread");
    pthread_join(t, NULL);
    CHECK(ninit == 4 * BATCH, "the leaver allocated 3 batches (%d)", ninit);
    CHECK(nexit == 1, "thread-exit hook ran %d times", nexit);
    CHECK(!pthread_create(&t, NULL, pool_heir, NULL), "thread");
    pthread_join(t, NULL);
    CHECK(ninit == 4 * BATCH, "the heir reused instead of allocating (%d)", ninit);
    CHECK(nexit == 2, "thread-exit hook ran %d times", nexit);
    /* a thread only watched (no objects taken) still gets its exit hook */
    CHECK(!pthread_create(&t, NULL, pool_watched, NULL), "thread");
    pthread_join(t, NULL);
    CHECK(nexit == 3 && ninit == 4 * BATCH, "watched thread: exit hook ran %d times", nexit);
}

int main(void)
{
    test_amargs();
    test_flist();
    test_defer();
    test_pool();
    printf("core_machinery: ok\n");
    return 0;
}
