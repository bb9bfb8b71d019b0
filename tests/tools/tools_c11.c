/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_c11.c: gasnet_tools.h alone in strict ISO C11 (-std=c11 -Wpedantic,
 * no feature-test macros), linked with librivet and never calling gex_Client_Init. */
#include <gasnet_tools.h>
#include <stdio.h>

static GASNETT_THREADKEY_DEFINE(c11_key);

int main(void)
{
    gasnett_atomic_t a = gasnett_atomic_init(1);
    gasnett_atomic_add(&a, 41, GASNETT_ATOMIC_REL);
    gasnett_tick_t t0 = gasnett_ticks_now();
    gasnett_tick_t t1 = gasnett_ticks_now();
    gasnett_threadkey_set(c11_key, &a);
    gasnett_rwlock_t rw = GASNETT_RWLOCK_INITIALIZER;   /* a mutex underneath here */
    gasnett_rwlock_rdlock(&rw);
    int busy = gasnett_rwlock_trywrlock(&rw) != 0;
    gasnett_rwlock_unlock(&rw);
    char buf[32];
    gasnett_format_number(2048, buf, sizeof buf, 1);
    if (gasnett_atomic_read(&a, GASNETT_ATOMIC_ACQ) != 42 || t1 < t0 ||
        gasnett_threadkey_get(c11_key) != (void *)&a || gasnett_cpu_count() < 1 ||
        buf[0] != '2' || !busy) {
        fprintf(stderr, "FAIL tools_c11: value %llu, ticks %llu..%llu, format '%s'\n",
                (unsigned long long)gasnett_atomic_read(&a, 0), (unsigned long long)t0,
                (unsigned long long)t1, buf);
        return 1;
    }
    printf("tools_c11: ok\n");
    return 0;
}
