/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_portable_platform.h: compiler, OS and CPU identification under GASNet's PLATFORM_* names. */
/* Clients include it on its own or get it through gasnet_tools.h. Only the compilers, OS and
 * CPUs Rivet builds on are named; an undefined name tests as 0 in #if. */
#ifndef GASNET_PORTABLE_PLATFORM_H
#define GASNET_PORTABLE_PLATFORM_H
#include <stdint.h>

#define RV_PLATFORM_STR_(x) #x
#define RV_PLATFORM_STR(x) RV_PLATFORM_STR_(x)
#ifndef PLATFORM_COMPILER_FAMILYNAME
#if defined(__clang__)
#define PLATFORM_COMPILER_CLANG 1
#ifdef __cplusplus
#define PLATFORM_COMPILER_CLANG_CXX 1
#else
#define PLATFORM_COMPILER_CLANG_C 1
#endif
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 17
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
#ifdef __cplusplus
#define PLATFORM_COMPILER_GNU_CXX 1
#else
#define PLATFORM_COMPILER_GNU_C 1
#endif
#define PLATFORM_COMPILER_FAMILYNAME GNU
#define PLATFORM_COMPILER_FAMILYID 1
#else
#define PLATFORM_COMPILER_UNKNOWN 1
#define PLATFORM_COMPILER_FAMILYNAME UNKNOWN
#define PLATFORM_COMPILER_FAMILYID 0
#endif
#ifdef __cplusplus
#define PLATFORM_COMPILER_CXX 1
#else
#define PLATFORM_COMPILER_C 1
#endif
/* A version as one integer (major << 16 | minor << 8 | patch), so that versions compare in
 * #if: PLATFORM_COMPILER_VERSION_GE(12, 0, 0) is true with gcc 12.0.0 and later (for clang,
 * clang's own version, not the GNU version it advertises). */
#define PLATFORM_COMPILER_VERSION_INT(maj, min, pat) (((maj) << 16) | ((min) << 8) | (pat))
#if defined(__clang__)
#define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__clang_major__, __clang_minor__, __clang_patchlevel__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_VERSION \
    PLATFORM_COMPILER_VERSION_INT(__GNUC__, __GNUC_MINOR__, __GNUC_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#else
#define PLATFORM_COMPILER_VERSION 0
#define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif
#define PLATFORM_COMPILER_VERSION_GT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION > PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_GE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION >= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_EQ(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION == PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LE(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION <= PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
#define PLATFORM_COMPILER_VERSION_LT(maj, min, pat) \
    (PLATFORM_COMPILER_VERSION < PLATFORM_COMPILER_VERSION_INT(maj, min, pat))
/* the family, plus 10000 when compiling C++ */
#ifdef __cplusplus
#define PLATFORM_COMPILER_ID (10000 + PLATFORM_COMPILER_FAMILYID)
#else
#define PLATFORM_COMPILER_ID PLATFORM_COMPILER_FAMILYID
#endif
/* the language level: __cplusplus or __STDC_VERSION__ */
#if defined(__cplusplus)
#define PLATFORM_COMPILER_CXX_LANGLVL __cplusplus
#elif defined(__STDC_VERSION__)
#define PLATFORM_COMPILER_C_LANGLVL __STDC_VERSION__
#endif
#define PLATFORM_STRINGIFY(x) RV_PLATFORM_STR(x)
#define PLATFORM_COMPILER_IDSTR \
    RV_PLATFORM_STR(PLATFORM_COMPILER_FAMILYNAME) "|" PLATFORM_COMPILER_VERSION_STR
#if defined(__linux__)
#define PLATFORM_OS_LINUX 1
#define PLATFORM_OS_FAMILYNAME LINUX
#endif
#if defined(__x86_64__)
#define PLATFORM_ARCH_X86_64 1
#define PLATFORM_ARCH_FAMILYNAME X86_64
#elif defined(__aarch64__)
#define PLATFORM_ARCH_AARCH64 1
#define PLATFORM_ARCH_FAMILYNAME AARCH64
#elif defined(__powerpc64__)
#define PLATFORM_ARCH_POWERPC 1
#define PLATFORM_ARCH_FAMILYNAME POWERPC
#endif
#if UINTPTR_MAX > 0xFFFFFFFFu
#define PLATFORM_ARCH_64 1
#else
#define PLATFORM_ARCH_32 1
#endif
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define PLATFORM_ARCH_BIG_ENDIAN 1
#else
#define PLATFORM_ARCH_LITTLE_ENDIAN 1
#endif
#endif /* PLATFORM_COMPILER_FAMILYNAME */

#endif /* GASNET_PORTABLE_PLATFORM_H */
