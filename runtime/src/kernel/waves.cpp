#include "gemmtune/waves.hpp"

#include <algorithm>
#include <cmath>

namespace gemmtune {

Waves waves_of(double blocks, int sms, int per_sm) {
  const double s = std::max(1, sms), r = std::max(1, per_sm);
  Waves w;
  if (blocks <= 0) return w;
  w.on_busiest = std::ceil(blocks / s);
  w.resident = std::min(r, w.on_busiest);
  w.full_rounds = std::floor(w.on_busiest / w.resident);
  w.rest = w.on_busiest - w.full_rounds * w.resident;
  const double rounds = std::ceil(w.on_busiest / r);
  w.fill = blocks / (rounds * s * r);
  return w;
}

double split_tail_tiles(double tiles, int sms) {
  const double s = std::max(1, sms);
  return tiles - std::floor(tiles / s) * s;
}

}  // namespace gemmtune
