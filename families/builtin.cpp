// The kernel families built into gemmtune, one line each, in the registry's order
// (families/README.md, "The family interface"): a plain list, so that no family depends on a
// static initialiser that a static library could drop.
#include "gemmtune/family.hpp"
#include "gemmtune/sgemm/family.hpp"

namespace gemmtune {

std::span<const KernelFamily* const> builtin_families() {
  static const KernelFamily* const list[] = {
      &sgemm_kernel_family(),
  };
  return list;
}

}  // namespace gemmtune
