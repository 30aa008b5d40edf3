// The library's version, from the header generated from the project version (cmake/version.h.in).
#include "gemmtune/gemmtune.h"
#include "gemmtune/gemmtune.hpp"

extern "C" const char* gemmtune_version(void) { return GEMMTUNE_VERSION_STRING; }

extern "C" int gemmtune_version_number(void) { return GEMMTUNE_VERSION_NUMBER; }

namespace gemmtune {

const char* version() { return GEMMTUNE_VERSION_STRING; }

int version_number() { return GEMMTUNE_VERSION_NUMBER; }

}  // namespace gemmtune
