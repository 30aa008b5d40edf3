#include "gemmtune/register_floor.hpp"

#include <algorithm>

namespace gemmtune {

int register_floor(const GemmConfig& c, const RegisterFloorTerms& terms) {
  const int t = std::max(1, c.threads());
  const int staged = c.reduces()     ? terms.reduction_sets * c.bk * (c.tm + c.tn)
                     : c.streams_b() ? c.stages * c.bk * (c.tm + c.tn)
                     : c.stages <= 2 && (!c.wgmma || terms.warpgroup_staging)
                         ? (c.bm + c.bn) * c.bk / t
                         : 0;
  return (c.math >= 3 ? 2 : 1) * c.tm * c.tn + c.tm + c.tn + staged + terms.addressing;
}

}  // namespace gemmtune
