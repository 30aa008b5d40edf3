// The vocabulary of a choice: regime names and tuned problems' labels.
#include <algorithm>

#include "gemmtune/choice.hpp"
#include "gemmtune/waves.hpp"

namespace gemmtune {

Regime regime_of(long long m, long long n, long long k) {
  if (is_matrix_vector(m, n)) return Regime::vector;
  if (k >= 8 * std::max(m, n)) return Regime::large_k;
  if (std::min(m, n) <= 64) return Regime::skinny;
  return Regime::square;
}

const char* regime_name(Regime r) {
  switch (r) {
    case Regime::vector: return "matrix-vector";
    case Regime::large_k: return "large-K";
    case Regime::skinny: return "skinny";
    case Regime::square: return "square";
  }
  return "?";
}

bool may_lend(Regime tuned, Regime wanted) {
  return (tuned == Regime::vector) == (wanted == Regime::vector);
}

std::string TunedProblem::to_string() const {
  return problem_label(op_a, op_b, m, n, k, batch, alignment);
}

std::string Choice::to_string() const { return explanation_of(*this).to_string(); }

}  // namespace gemmtune
