# Installs the library, its public headers and a CMake package so that
# find_package(gemmtune) + target_link_libraries(app gemmtune::gemmtune) work.
include(CMakePackageConfigHelpers)
install(TARGETS gemmtune gemmtune_db gemmtune_templates gemmtune_knobs EXPORT gemmtuneTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The public API only (runtime/include), with the knob table its GemmConfig is made of; the
# internal headers (runtime/internal) stay with the tuner and the tools.
install(DIRECTORY runtime/include/gemmtune DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(FILES templates/include/gemmtune/knobs.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gemmtune)
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
  install(FILES tools/report/gemmtune_report.py DESTINATION ${CMAKE_INSTALL_DATADIR}/gemmtune)
endif()
