/* SPDX-License-Identifier: BSD-3-Clause */
/* gasnet_config.h: the configuration facts GASNet clients' build scripts read from this
 * header's text (release version, GASNet-EX specification version) and that test code tests
 * (HAVE_PTHREAD_H). PLACEHOLDER kept minimal: the full header comes with the gasnet_config.h
 * work of issue 16; the values must stay those of gasnetex.h. One definition per line, as
 * configure scripts read them with grep/awk (the value is the third field). */
#ifndef GASNET_CONFIG_H
#define GASNET_CONFIG_H
#define GASNET_RELEASE_VERSION_MAJOR 2024
#define GASNET_RELEASE_VERSION_MINOR 5
#define GASNET_RELEASE_VERSION_PATCH 0
#define GASNETI_EX_SPEC_VERSION_MAJOR 0
#define GASNETI_EX_SPEC_VERSION_MINOR 18
#define HAVE_PTHREAD_H 1
#endif
