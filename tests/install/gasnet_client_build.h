/* SPDX-License-Identifier: BSD-3-Clause */
/* tests/install/gasnet_client_build.h: MODE and CONDUIT, what the fragment or .pc a test client
 * was built with selected (its GASNET_<mode> and GASNET_CONDUIT_<name> defines), and
 * CONDUIT_NAME, the conduit's name in GASNet's spelling (GASNET_CONDUIT_NAME_STR: "SMP").
 * Include after gasnetex.h. */
#ifndef GASNET_CLIENT_BUILD_H
#define GASNET_CLIENT_BUILD_H
#if defined(GASNET_SEQ)
#define MODE "SEQ"
#elif defined(GASNET_PARSYNC)
#define MODE "PARSYNC"
#else
#define MODE "PAR"
#endif
/* the fragment or .pc names its conduit, as GASNet's do */
#if defined(GASNET_CONDUIT_SMP) + defined(GASNET_CONDUIT_OFI) + defined(GASNET_CONDUIT_UCX) + \
        defined(GASNET_CONDUIT_UDP) != 1
#error "the build settings must define exactly one of GASNET_CONDUIT_SMP, _OFI, _UCX and _UDP"
#elif defined(GASNET_CONDUIT_SMP)
#define CONDUIT "smp"
#elif defined(GASNET_CONDUIT_OFI)
#define CONDUIT "ofi"
#elif defined(GASNET_CONDUIT_UCX)
#define CONDUIT "ucx"
#else
#define CONDUIT "udp"
#endif
#define CONDUIT_NAME GASNET_CONDUIT_NAME_STR
#endif
