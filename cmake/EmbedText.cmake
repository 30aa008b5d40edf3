# embed_text(OUT_CPP NAMESPACE ns FUNCTION fn FILES path...): generates a .cpp that defines
# `std::string_view ns::fn()` returning the files' bytes concatenated, regenerated when one changes.
function(embed_text out_cpp)
  cmake_parse_arguments(E "" "NAMESPACE;FUNCTION" "FILES" ${ARGN})
  set(content "")
  foreach(f IN LISTS E_FILES)
    file(READ "${f}" part HEX)
    string(APPEND content "${part}")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${f}")
  endforeach()
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${content}")
  file(WRITE "${out_cpp}.tmp"
       "// Generated from ${E_FILES}; do not edit.\n#include <string_view>\n"
       "namespace ${E_NAMESPACE} {\nnamespace { const char kData[] = {${bytes} 0}; }\n"
       "std::string_view ${E_FUNCTION}() { return {kData, sizeof(kData) - 1}; }\n}\n")
  configure_file("${out_cpp}.tmp" "${out_cpp}" COPYONLY)
endfunction()
