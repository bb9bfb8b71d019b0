/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_config.h: the build configuration GASNet clients read: the release and
 * specification versions Rivet implements, the sizes of the basic types and the feature
 * macros (HAVE_*) of the platform. gasnetex.h, gasnet.h and gasnet_tools.h include it;
 * client configure scripts also read the version lines of this file as text, so each
 * version macro is defined on exactly one line, in "#define NAME VALUE" form. */
#ifndef _INCLUDED_GASNET_CONFIG_H
#define _INCLUDED_GASNET_CONFIG_H

/* ---- versions: GASNet-EX release 2025.8.0 and the specifications it implements ---- */
#define GASNET_RELEASE_VERSION_MAJOR 2025
#define GASNET_RELEASE_VERSION_MINOR 8
#define GASNET_RELEASE_VERSION_PATCH 0
#define GEX_SPEC_VERSION_MAJOR 0
#define GEX_SPEC_VERSION_MINOR 19
#define GASNET_SPEC_VERSION_MAJOR 1
#define GASNET_SPEC_VERSION_MINOR 8
#define GASNETT_SPEC_VERSION_MAJOR 1
#define GASNETT_SPEC_VERSION_MINOR 20
/* Rivet's own version */
#define RIVET_VERSION_MAJOR 0
#define RIVET_VERSION_MINOR 1
#define RIVET_VERSION_PATCH 0

/* ---- sizes of the basic types (clients test them in #if) ---------------------------- */
#ifndef SIZEOF_INT
#define SIZEOF_CHAR        1
#define SIZEOF_SHORT       __SIZEOF_SHORT__
#define SIZEOF_INT         __SIZEOF_INT__
#define SIZEOF_LONG        __SIZEOF_LONG__
#define SIZEOF_LONG_LONG   __SIZEOF_LONG_LONG__
#define SIZEOF_VOID_P      __SIZEOF_POINTER__
#define SIZEOF_SIZE_T      __SIZEOF_SIZE_T__
#define SIZEOF_PTRDIFF_T   __SIZEOF_PTRDIFF_T__
#define SIZEOF_FLOAT       __SIZEOF_FLOAT__
#define SIZEOF_DOUBLE      __SIZEOF_DOUBLE__
#define SIZEOF_LONG_DOUBLE __SIZEOF_LONG_DOUBLE__
#define SIZEOF__BOOL       1
#endif

/* ---- platform features (Linux with glibc or a compatible libc) ---------------------- */
#define HAVE_PTHREAD_H 1
#define HAVE_PTHREAD_SETCONCURRENCY 1
#define HAVE_PTHREAD_KILL 1
#define HAVE_PTHREAD_SIGMASK 1
#define HAVE_INTTYPES_H 1
#define HAVE_STDINT_H 1
#define HAVE_SYS_TYPES_H 1
#define HAVE_MMAP 1 /* gasnett_mmap is available */
#define HAVE_CLOCK_GETTIME 1
#define HAVE_NANOSLEEP 1
#define HAVE_USLEEP 1
#define HAVE_SCHED_YIELD 1
#define HAVE_POSIX_MEMALIGN 1
#define HAVE_EXECINFO_H 1
#define HAVE_BACKTRACE 1
#define HAVE_BACKTRACE_SYMBOLS 1
/* shared-memory (PSHM) support is built in */
#define GASNETI_PSHM_ENABLED 1

#endif /* _INCLUDED_GASNET_CONFIG_H */
