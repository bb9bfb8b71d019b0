# SPDX-License-Identifier: BSD-3-Clause
# cmake/install.cmake: `make install` layout: bin/rivetrun, bin/rivet-info, lib/librivet.{so,a},
# include/*.h, lib/pkgconfig/rivet.pc, lib/cmake/Rivet (find_package), share/doc/rivet, and
# for GASNet clients include/<conduit>-conduit/*.mak, include/gasnet_tools-*.mak,
# lib/pkgconfig/gasnet-*.pc, bin/gasnetrun_*, include/<conduit>-conduit/gasnet_core.h and the
# GASNet build directory share/rivet/gasnet-build.
include(CMakePackageConfigHelpers)

install(TARGETS rivet rivet_static EXPORT RivetTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(TARGETS rivetrun rivet-info RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
file(GLOB RIVET_PUBLIC_HEADERS CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${RIVET_PUBLIC_HEADERS} DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# rivet.pc finds its prefix relative to itself, so `cmake --install --prefix X` works.
file(RELATIVE_PATH RIVET_PC_UP /r/${CMAKE_INSTALL_LIBDIR}/pkgconfig /r)
string(REGEX REPLACE "/$" "" RIVET_PC_UP "${RIVET_PC_UP}")
configure_file(${PROJECT_SOURCE_DIR}/cmake/rivet.pc.in ${PROJECT_BINARY_DIR}/rivet.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/rivet.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

set(RIVET_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/Rivet)
install(EXPORT RivetTargets NAMESPACE Rivet:: DESTINATION ${RIVET_CMAKE_DIR})
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/RivetConfig.cmake.in
  ${PROJECT_BINARY_DIR}/RivetConfig.cmake INSTALL_DESTINATION ${RIVET_CMAKE_DIR})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/RivetConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/RivetConfig.cmake ${PROJECT_BINARY_DIR}/RivetConfigVersion.cmake
        DESTINATION ${RIVET_CMAKE_DIR})

set(RIVET_DOC_DIR ${CMAKE_INSTALL_DATAROOTDIR}/doc/rivet)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${RIVET_DOC_DIR} OPTIONAL)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${RIVET_DOC_DIR})

# ---- GASNet clients' build systems (docs/building.md, "Building GASNet clients against
# Rivet"): include/<c>-conduit/<c>-<mode>.mak makefile fragments, lib/pkgconfig/
# gasnet-<c>-<mode>.pc and bin/gasnetrun_<c> for each conduit name Rivet answers to:
# smp (shm) always, ofi when the ofi transport is built, ...: the CONDUIT column of
# src/transport/registry.def. Every name links the same librivet.
set(RIVET_GASNET_CONDUITS ${RIVET_TP_CONDUITS}) # registry.def's CONDUIT of each built transport
include(CheckLanguage)
check_language(CXX)
set(RV_CC ${CMAKE_C_COMPILER})
if(CMAKE_CXX_COMPILER)
  set(RV_CXX ${CMAKE_CXX_COMPILER})
else()
  set(RV_CXX c++)
endif()
set(RV_LIBDIR_REL ${CMAKE_INSTALL_LIBDIR})
set(RV_INCDIR_REL ${CMAKE_INSTALL_INCLUDEDIR})
set(rv_gasnet_dir ${PROJECT_BINARY_DIR}/gasnet)
# The fragments name absolute directories (makefiles cannot find themselves portably), so
# they are written at install time, once the prefix is known: here every other @VAR@ is
# filled in and the directory ones are kept for the install step.
foreach(v RV_INCDIR RV_LIBDIR RV_BINDIR)
  set(${v} "@${v}@")
endforeach()
set(rv_mak_stage1 "")
foreach(RV_CONDUIT ${RIVET_GASNET_CONDUITS})
  string(TOUPPER ${RV_CONDUIT} RV_CONDUIT_UC)
  foreach(RV_MODE seq par parsync)
    string(TOUPPER ${RV_MODE} RV_MODE_UC)
    if(RV_MODE STREQUAL "seq")
      set(RV_EXTRADEFINES "")
    else()
      set(RV_EXTRADEFINES " -D_REENTRANT")
    endif()
    configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/conduit.pc.in
                   ${rv_gasnet_dir}/gasnet-${RV_CONDUIT}-${RV_MODE}.pc @ONLY)
    install(FILES ${rv_gasnet_dir}/gasnet-${RV_CONDUIT}-${RV_MODE}.pc
            DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
    configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/conduit.mak.in
                   ${rv_gasnet_dir}/stage1/${RV_CONDUIT}-${RV_MODE}.mak @ONLY)
    list(APPEND rv_mak_stage1 ${RV_CONDUIT}-${RV_MODE}.mak)
    # lib/libgasnet-<c>-<mode>.{so,a}: GASNet's library names, as links to librivet, for
    # build systems that look for them (Legion's FindGASNet.cmake takes the library
    # named gasnet-<c>-<mode> out of GASNET_LIBS)
    foreach(ext so a)
      file(CREATE_LINK librivet.${ext} ${rv_gasnet_dir}/libgasnet-${RV_CONDUIT}-${RV_MODE}.${ext}
           SYMBOLIC)
      install(FILES ${rv_gasnet_dir}/libgasnet-${RV_CONDUIT}-${RV_MODE}.${ext}
              DESTINATION ${CMAKE_INSTALL_LIBDIR})
    endforeach()
  endforeach()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/gasnetrun.in
                 ${rv_gasnet_dir}/gasnetrun_${RV_CONDUIT} @ONLY)
  install(PROGRAMS ${rv_gasnet_dir}/gasnetrun_${RV_CONDUIT} DESTINATION ${CMAKE_INSTALL_BINDIR})
endforeach()
# and the tools-only include/gasnet_tools-{seq,par}.mak
foreach(RV_MODE seq par)
  if(RV_MODE STREQUAL "par")
    set(RV_TOOLS_THREADFLAGS "-DGASNETT_THREAD_SAFE -D_REENTRANT")
  else()
    set(RV_TOOLS_THREADFLAGS "")
  endif()
  configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/tools.mak.in
                 ${rv_gasnet_dir}/stage1/gasnet_tools-${RV_MODE}.mak @ONLY)
  list(APPEND rv_mak_stage1 gasnet_tools-${RV_MODE}.mak)
endforeach()
# include/<c>-conduit/gasnet_core.h: a conduit directory's core header, which some clients'
# configure scripts (osss-gasnet's) take as the sign of a configured conduit
foreach(RV_CONDUIT ${RIVET_GASNET_CONDUITS})
  string(TOUPPER ${RV_CONDUIT} RV_CONDUIT_UC)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/gasnet_core.h.in
                 ${rv_gasnet_dir}/${RV_CONDUIT}-conduit/gasnet_core.h @ONLY)
  install(FILES ${rv_gasnet_dir}/${RV_CONDUIT}-conduit/gasnet_core.h
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/${RV_CONDUIT}-conduit)
endforeach()

# ---- A GASNet build directory, share/rivet/gasnet-build (docs/building.md, "A GASNet build
# directory"), for clients whose build takes a GASNet build tree rather than an install
# (UPC++: configure --with-gasnet=<it> --enable-single=opt): gasnet_config.h, config.status,
# a Makefile with the targets such builds call, and <c>-conduit/ with the fragments,
# gasnet_core.h and a Makefile. The headers and fragments are links to the installed ones.
set(RV_GASNET_BUILD_REL ${CMAKE_INSTALL_DATADIR}/rivet/gasnet-build)
list(JOIN RIVET_GASNET_CONDUITS " " RV_GASNET_CONDUITS_STR)
# The conduits its config.status reports (CONDUITS). Its <c>-conduit/ directories cover every
# conduit, but a client builds for each conduit reported, and UPC++ 2021.3 stops at one it does
# not know (its list predates ofi): smp by default.
set(RIVET_GASNET_BUILD_CONDUITS smp CACHE STRING
    "conduits the GASNet build directory share/rivet/gasnet-build reports (subset of: ${RIVET_GASNET_CONDUITS})")
foreach(c ${RIVET_GASNET_BUILD_CONDUITS})
  if(NOT c IN_LIST RIVET_GASNET_CONDUITS)
    message(FATAL_ERROR "RIVET_GASNET_BUILD_CONDUITS: '${c}' is not a conduit this build installs (${RV_GASNET_CONDUITS_STR})")
  endif()
endforeach()
list(JOIN RIVET_GASNET_BUILD_CONDUITS " " RV_GASNET_BUILD_CONDUITS_STR)
# the compiler families GASNet's configure reports (CC_FAMILY / CC_SUBFAMILY)
function(rv_compiler_family compiler id fam sub)
  if(NOT id)
    # not a language CMake enabled: ask the compiler
    execute_process(COMMAND ${compiler} --version OUTPUT_VARIABLE v ERROR_QUIET)
    if(v MATCHES "clang")
      set(id Clang)
    elseif(v MATCHES "Free Software Foundation|GCC")
      set(id GNU)
    endif()
  endif()
  if(id STREQUAL "GNU")
    set(f GNU)
    set(s GNU)
  elseif(id STREQUAL "Clang")
    set(f Clang)
    set(s LLVM)
  elseif(id STREQUAL "AppleClang")
    set(f Clang)
    set(s APPLE)
  elseif(id STREQUAL "IntelLLVM")
    set(f Clang)
    set(s INTEL)
  elseif(id MATCHES "^(Intel|NVHPC|PGI)$")
    set(f ${id})
    set(s none)
  else()
    set(f unknown)
    set(s none)
  endif()
  set(${fam} ${f} PARENT_SCOPE)
  set(${sub} ${s} PARENT_SCOPE)
endfunction()
rv_compiler_family("${RV_CC}" "${CMAKE_C_COMPILER_ID}" RV_CC_FAMILY RV_CC_SUBFAMILY)
rv_compiler_family("${RV_CXX}" "${CMAKE_CXX_COMPILER_ID}" RV_CXX_FAMILY RV_CXX_SUBFAMILY)
find_program(RV_PERL_PROGRAM perl)
if(RV_PERL_PROGRAM)
  set(RV_PERL ${RV_PERL_PROGRAM})
else()
  set(RV_PERL perl)
endif()
set(RV_PREFIX "@RV_PREFIX@")
configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/config.status.in
               ${rv_gasnet_dir}/stage1/gasnet-build/config.status @ONLY)
configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/build.mak.in
               ${rv_gasnet_dir}/stage1/gasnet-build/Makefile @ONLY)
foreach(RV_CONDUIT ${RIVET_GASNET_CONDUITS})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/gasnet/conduit-build.mak.in
                 ${rv_gasnet_dir}/stage1/gasnet-build/${RV_CONDUIT}-conduit/Makefile @ONLY)
endforeach()

install(CODE "
  foreach(d INCDIR:${CMAKE_INSTALL_INCLUDEDIR} LIBDIR:${CMAKE_INSTALL_LIBDIR} BINDIR:${CMAKE_INSTALL_BINDIR} GBDIR:${RV_GASNET_BUILD_REL})
    string(REGEX REPLACE \"^([A-Z]+):(.*)$\" \"\\\\1;\\\\2\" d \"\${d}\")
    list(GET d 0 name)
    list(GET d 1 dir)
    if(NOT IS_ABSOLUTE \"\${dir}\")
      set(dir \"\${CMAKE_INSTALL_PREFIX}/\${dir}\")
    endif()
    set(RV_\${name} \"\${dir}\")
  endforeach()
  foreach(f ${rv_mak_stage1})
    configure_file(\"${rv_gasnet_dir}/stage1/\${f}\" \"${rv_gasnet_dir}/installed/\${f}\" @ONLY)
  endforeach()
  # the GASNet build directory, staged afresh: its files filled in with the directories, its
  # links pointing at the installed headers, fragments and launchers (relative links, so the
  # installation can move as a whole)
  set(RV_PREFIX \"\${CMAKE_INSTALL_PREFIX}\")
  set(gb \"${rv_gasnet_dir}/installed/gasnet-build\")
  file(REMOVE_RECURSE \"\${gb}\")
  file(MAKE_DIRECTORY \"\${gb}/bin\")
  configure_file(\"${rv_gasnet_dir}/stage1/gasnet-build/Makefile\" \"\${gb}/Makefile\" @ONLY)
  configure_file(\"${rv_gasnet_dir}/stage1/gasnet-build/config.status\" \"\${gb}/config.status\" @ONLY)
  file(RELATIVE_PATH l \"\${RV_GBDIR}\" \"\${RV_INCDIR}/gasnet_config.h\")
  file(CREATE_LINK \"\${l}\" \"\${gb}/gasnet_config.h\" SYMBOLIC)
  foreach(c ${RIVET_GASNET_CONDUITS})
    file(MAKE_DIRECTORY \"\${gb}/\${c}-conduit/contrib\")
    configure_file(\"${rv_gasnet_dir}/stage1/gasnet-build/\${c}-conduit/Makefile\"
                   \"\${gb}/\${c}-conduit/Makefile\" COPYONLY)
    foreach(f gasnet_core.h \${c}-seq.mak \${c}-par.mak \${c}-parsync.mak)
      file(RELATIVE_PATH l \"\${RV_GBDIR}/\${c}-conduit\" \"\${RV_INCDIR}/\${c}-conduit/\${f}\")
      file(CREATE_LINK \"\${l}\" \"\${gb}/\${c}-conduit/\${f}\" SYMBOLIC)
    endforeach()
    file(RELATIVE_PATH l \"\${RV_GBDIR}/bin\" \"\${RV_BINDIR}/gasnetrun_\${c}\")
    file(CREATE_LINK \"\${l}\" \"\${gb}/bin/gasnetrun_\${c}\" SYMBOLIC)
    file(RELATIVE_PATH l \"\${RV_GBDIR}/\${c}-conduit/contrib\" \"\${RV_BINDIR}/gasnetrun_\${c}\")
    file(CREATE_LINK \"\${l}\" \"\${gb}/\${c}-conduit/contrib/gasnetrun_\${c}\" SYMBOLIC)
  endforeach()
")
install(DIRECTORY ${rv_gasnet_dir}/installed/gasnet-build/ DESTINATION ${RV_GASNET_BUILD_REL}
        USE_SOURCE_PERMISSIONS)
foreach(f ${rv_mak_stage1})
  if(f MATCHES "^gasnet_tools-")
    set(dest ${CMAKE_INSTALL_INCLUDEDIR})
  else()
    string(REGEX REPLACE "-[a-z]+\\.mak$" "-conduit" c ${f})
    set(dest ${CMAKE_INSTALL_INCLUDEDIR}/${c})
  endif()
  install(FILES ${rv_gasnet_dir}/installed/${f} DESTINATION ${dest})
endforeach()
