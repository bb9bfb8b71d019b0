# SPDX-License-Identifier: BSD-3-Clause
# cmake/install.cmake: `make install` layout: bin/rivetrun, bin/rivet-info, lib/librivet.{so,a},
# include/*.h, lib/pkgconfig/rivet.pc, lib/cmake/Rivet (find_package), share/doc/rivet.
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
