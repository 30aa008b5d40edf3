#include "gemmtune/tuner/compile_counts.hpp"

namespace gemmtune::tuner {

void CompileCounts::add(CompileOrigin origin) {
  switch (origin) {
    case CompileOrigin::compiled: ++compiled; break;
    case CompileOrigin::cache: ++cached; break;
    case CompileOrigin::reused: ++reused; break;
  }
}

CompileCounts& CompileCounts::operator+=(const CompileCounts& o) {
  compiled += o.compiled, cached += o.cached, reused += o.reused;
  return *this;
}

std::string CompileCounts::describe() const {
  return std::to_string(compiled) + " compiled, " + std::to_string(cached) + " cached, " +
         std::to_string(reused) + " reused";
}

}  // namespace gemmtune::tuner
