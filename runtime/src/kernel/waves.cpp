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

bool is_matrix_vector(long long m, long long n) { return std::min(m, n) <= 8; }

double predicted_fill(double blocks, int sms, int per_sm, long long m, long long n) {
  if (!is_matrix_vector(m, n)) return waves_of(blocks, sms, per_sm).fill;
  const double slots = double(std::max(1, sms)) * std::max(1, per_sm);
  return blocks > 0 ? std::min(1.0, blocks / slots) : 1.0;
}

double split_tail_tiles(double tiles, int sms) {
  const double s = std::max(1, sms);
  return tiles - std::floor(tiles / s) * s;
}

}  // namespace gemmtune
