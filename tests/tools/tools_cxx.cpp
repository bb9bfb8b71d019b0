/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/tools/tools_cxx.cpp: gasnet_tools.h compiles as C++ with -Wall -Wextra -Werror
 * -Wpedantic and works without gex_Client_Init. It is included before gasnetex.h here (the
 * other order is tools_job's), so both orders are known to compile. */
#include <gasnet_tools.h>
#include <gasnetex.h>
#include <cstdio>
#include <cstring>

static GASNETT_THREADKEY_DEFINE(cxx_key);
GASNETT_IDENT(cxx_ident, "$RivetToolsTest: tools_cxx $");

GASNETT_INLINE(cxx_twice)
int cxx_twice(int x) { return 2 * x; }

int main()
{
    gasnett_atomic_t a = gasnett_atomic_init(5);
    gasnett_atomic32_t a32 = gasnett_atomic32_init(0);
    gasnett_atomic64_t a64 = gasnett_atomic64_init(0);
    int ok = 1;
    ok &= gasnett_atomic_compare_and_swap(&a, 5, 6, GASNETT_ATOMIC_ACQ_IF_TRUE) != 0;
    ok &= gasnett_atomic_swap(&a, 9, 0) == 6;
    gasnett_atomic32_decrement(&a32, 0);
    ok &= gasnett_atomic32_read(&a32, 0) == 0xFFFFFFFFu;
    ok &= gasnett_atomic64_add(&a64, 3, GASNETT_ATOMIC_MB_PRE | GASNETT_ATOMIC_MB_POST) == 3;
    gasnett_tick_t t0 = gasnett_ticks_now();
    ok &= gasnett_ticks_to_ns(gasnett_ticks_now() - t0) < 1000000000u;
    gasnett_threadkey_set(cxx_key, &a);
    ok &= gasnett_threadkey_get(cxx_key) == static_cast<void *>(&a);
    char buf[32];
    ok &= std::strcmp(gasnett_format_number(3 << 20, buf, sizeof buf, 1), "3 MB") == 0;
    ok &= cxx_twice(21) == 42;
    ok &= std::strstr(cxx_ident, "tools_cxx") != nullptr;
    gasnett_local_mb();
    if (!ok) {
        std::fprintf(stderr, "FAIL tools_cxx: a check failed (format gave '%s')\n", buf);
        return 1;
    }
    std::printf("tools_cxx: ok\n");
    return 0;
}
