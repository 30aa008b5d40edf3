# Installs the library, its public headers and a CMake package so that
# find_package(gemmtune) + target_link_libraries(app gemmtune::gemmtune) work.
include(CMakePackageConfigHelpers)
install(TARGETS gemmtune gemmtune_shared gemmtune_no_cudart gemmtune_db gemmtune_templates
                gemmtune_sgemm
        EXPORT gemmtuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public API only: gemmtune.h, gemmtune.hpp and the headers they include. The kernel
# family's types (GemmConfig, the knob table, the chooser) are internal (families/,
# runtime/internal, templates/include), as are db/ and tuner/: the tuner, the tools and the tests
# build on them.
# Listed one by one so that no header is installed by accident (examples/ci-build.sh checks the
# list, and examples/ compiles each one alone as C++17).
set(gemmtune_public_headers gemmtune.h gemmtune.hpp device.hpp error.hpp explanation.hpp log.hpp precision.hpp
    problem.hpp workspace_allocator.hpp)
list(TRANSFORM gemmtune_public_headers PREPEND runtime/include/gemmtune/)
install(FILES ${gemmtune_public_headers} ${PROJECT_BINARY_DIR}/runtime/include/gemmtune/version.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gemmtune)
# pkg-config: the shared library (-lgemmtune finds libgemmtune.so first) with the shared CUDA runtime.
file(RELATIVE_PATH GEMMTUNE_PC_TO_PREFIX "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
string(REGEX REPLACE "/$" "" GEMMTUNE_PC_TO_PREFIX "${GEMMTUNE_PC_TO_PREFIX}")
# The toolkit's root, as /usr/local/cuda (the link every NVIDIA install makes) when it is that one.
set(GEMMTUNE_PC_CUDA_HOME "${CUDAToolkit_LIBRARY_ROOT}")
if(NOT GEMMTUNE_PC_CUDA_HOME)
  get_filename_component(GEMMTUNE_PC_CUDA_HOME "${CUDAToolkit_BIN_DIR}" DIRECTORY)
endif()
file(REAL_PATH "${GEMMTUNE_PC_CUDA_HOME}" _cuda_home_real)
file(REAL_PATH "/usr/local/cuda" _usr_local_cuda_real)
if(_cuda_home_real STREQUAL _usr_local_cuda_real)
  set(GEMMTUNE_PC_CUDA_HOME /usr/local/cuda)
endif()
configure_file(cmake/gemmtune.pc.in "${CMAKE_CURRENT_BINARY_DIR}/gemmtune.pc" @ONLY)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/gemmtune.pc" DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
install(FILES LICENSE DESTINATION ${CMAKE_INSTALL_DATADIR}/doc/gemmtune)
install(EXPORT gemmtuneTargets NAMESPACE gemmtune:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gemmtune)
configure_package_config_file(cmake/gemmtuneConfig.cmake.in
  "${CMAKE_CURRENT_BINARY_DIR}/gemmtuneConfig.cmake"
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gemmtune)
write_basic_package_version_file("${CMAKE_CURRENT_BINARY_DIR}/gemmtuneConfigVersion.cmake"
  COMPATIBILITY SameMinorVersion)
install(FILES "${CMAKE_CURRENT_BINARY_DIR}/gemmtuneConfig.cmake"
              "${CMAKE_CURRENT_BINARY_DIR}/gemmtuneConfigVersion.cmake"
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/gemmtune)
if(GEMMTUNE_BUILD_TOOLS)
  install(TARGETS gemmtune_cli RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(FILES tools/report/gemmtune_report.py tools/report/report_data.py tools/report/report_draw.py
                tools/report/report_html.py DESTINATION ${CMAKE_INSTALL_DATADIR}/gemmtune)
endif()
