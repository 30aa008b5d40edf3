# Replace the imported SQLite target's shared library with the static archive when the system has one.
get_filename_component(_sqlite_dir "${SQLite3_LIBRARY}" DIRECTORY)
find_file(GEMMTUNE_SQLITE_STATIC libsqlite3.a HINTS "${_sqlite_dir}" NO_DEFAULT_PATH)
if(GEMMTUNE_SQLITE_STATIC)
  set_target_properties(SQLite::SQLite3 PROPERTIES IMPORTED_LOCATION "${GEMMTUNE_SQLITE_STATIC}"
                        INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS};m")
  message(STATUS "gemmtune: linking SQLite statically (${GEMMTUNE_SQLITE_STATIC})")
endif()
