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
#define PLATFORM_COMPILER_FAMILYNAME CLANG
#define PLATFORM_COMPILER_FAMILYID 17
#elif defined(__GNUC__)
#define PLATFORM_COMPILER_GNU 1
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
#if defined(__GNUC__)
#define PLATFORM_COMPILER_VERSION \
    ((__GNUC__ << 16) | (__GNUC_MINOR__ << 8) | __GNUC_PATCHLEVEL__)
#define PLATFORM_COMPILER_VERSION_STR __VERSION__
#else
#define PLATFORM_COMPILER_VERSION 0
#define PLATFORM_COMPILER_VERSION_STR "unknown"
#endif
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
