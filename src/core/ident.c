/* SPDX-License-Identifier: BSD-3-Clause */
/* core/ident.c: the ident strings of the library itself ("$Name: value $", found by
 * `ident` or `strings`). Client programs carry their conduit's strings from gasnetex.h. */
#include <gasnetex.h>
#include <gasnet_tools.h>

#define RV_LIB_IDENT(name, text) GASNETT_IDENT(rv_ident_##name, text)

RV_LIB_IDENT(core_name, "$GASNetCoreLibraryName: RIVET $");
RV_LIB_IDENT(core_version, "$GASNetCoreLibraryVersion: " GASNET_CORE_VERSION_STR " $");
RV_LIB_IDENT(ext_name, "$GASNetExtendedLibraryName: " GASNET_EXTENDED_NAME_STR " $");
RV_LIB_IDENT(ext_version, "$GASNetExtendedLibraryVersion: " GASNET_EXTENDED_VERSION_STR " $");
RV_LIB_IDENT(ex_api, "$GASNetEXAPIVersion: " _STRINGIFY(GEX_SPEC_VERSION_MAJOR) "." _STRINGIFY(
                         GEX_SPEC_VERSION_MINOR) " $");
RV_LIB_IDENT(api, "$GASNetAPIVersion: " _STRINGIFY(GASNET_SPEC_VERSION_MAJOR) " $");
RV_LIB_IDENT(release, "$GASNetReleaseVersion: " _STRINGIFY(GASNET_RELEASE_VERSION_MAJOR) "." _STRINGIFY(
                          GASNET_RELEASE_VERSION_MINOR) "." _STRINGIFY(GASNET_RELEASE_VERSION_PATCH) " $");
RV_LIB_IDENT(tools_config, "$GASNetToolsConfig: " GASNETT_CONFIG_STRING " $");
RV_LIB_IDENT(tools_threads, "$GASNetToolsThreadModel: PAR $");
RV_LIB_IDENT(rivet, "$RivetVersion: " _STRINGIFY(RIVET_VERSION_MAJOR) "." _STRINGIFY(
                        RIVET_VERSION_MINOR) "." _STRINGIFY(RIVET_VERSION_PATCH) " $");
