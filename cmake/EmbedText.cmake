# embed_text(OUT_CPP NAMESPACE ns FUNCTION fn [LINE_DIRECTIVES] FILES path...): generates a .cpp
# that defines `std::string_view ns::fn()` returning the files' bytes concatenated in the order
# given, regenerated when one changes. With LINE_DIRECTIVES (C/C++ sources only) each file is
# preceded by `#line 1 "path"` (path relative to the project's source directory), so that a
# compiler's diagnostics name the file and line it came from rather than a line of the whole.
function(embed_text out_cpp)
  cmake_parse_arguments(E "LINE_DIRECTIVES" "NAMESPACE;FUNCTION" "FILES" ${ARGN})
  set(content "")
  foreach(f IN LISTS E_FILES)
    if(E_LINE_DIRECTIVES)
      file(RELATIVE_PATH rel "${PROJECT_SOURCE_DIR}" "${f}")
      string(HEX "#line 1 \"${rel}\"\n" line)
      string(APPEND content "${line}")
    endif()
    file(READ "${f}" part HEX)
    if(E_LINE_DIRECTIVES AND NOT part MATCHES "0a$")
      string(APPEND part "0a")  # the next directive must start a line
    endif()
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
