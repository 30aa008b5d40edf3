#include "gemmtune/register_floor.hpp"

#include <algorithm>

namespace gemmtune {

int register_floor(const GemmConfig& c, const RegisterFloorTerms& terms) {
  const int t = std::max(1, c.threads());
  const int staged = c.reduces()     ? terms.reduction_sets * c.bk * (c.tm + c.tn)
                     : c.streams_b() ? c.stages * c.bk * (c.tm + c.tn)
                     : !fills_by_cp_async(c.stages) &&
                             (c.path() != KernelPath::warpgroup || terms.warpgroup_staging)
                         ? (c.bm + c.bn) * c.bk / t
                         : 0;
  return accumulator_rows(c.math, c.tm) * c.tn + c.tm + c.tn + staged + terms.addressing;
}

}  // namespace gemmtune
