/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/core/core_ident.c: a client built with a conduit's macro (GASNET_CONDUIT_SMP or
 * GASNET_CONDUIT_OFI, as the fragments pass it; none: RIVET) sees that conduit's names and
 * carries its ident strings; ident_check.sh then reads them from the binary as UPC++'s
 * upcxx-run does. This file and core_ident_b.c both include gasnetex.h: the program still
 * carries one copy. */
#include <gasnetex.h>

#include <stdio.h>
#include <string.h>

#if defined(GASNET_CONDUIT_SMP)
#define WANT "SMP"
#elif defined(GASNET_CONDUIT_OFI)
#define WANT "OFI"
#else
#define WANT "RIVET"
#endif

extern int core_ident_b(void);

int main(void)
{
    int ok = !strcmp(GASNET_CONDUIT_NAME_STR, WANT) && !strcmp(GASNET_CORE_NAME_STR, WANT) &&
             strstr(GASNET_CONFIG_STRING, ",CONDUIT=" WANT "(") != NULL && core_ident_b() == 1;
    printf("core_ident: conduit %s, config %s: %s\n", GASNET_CONDUIT_NAME_STR,
           GASNET_CONFIG_STRING, ok ? "ok" : "FAIL");
    return ok ? 0 : 1;
}
