#pragma once
// The problems a sweep tunes: from --shape/--layout/--batch, from a CSV file, or from a named preset.
#include <istream>
#include <string>
#include <vector>

#include "gemmtune/problem.hpp"

namespace gemmtune::tuner {

/// One problem to tune: shape, layout and batch (packed, 16-byte aligned buffers).
struct ProblemSpec {
  Op op_a = Op::N, op_b = Op::N;
  int m = 0, n = 0, k = 0;
  int batch = 1;
  bool operator==(const ProblemSpec&) const = default;

  /// The packed Problem of this spec (no pointers yet).
  Problem problem() const { return Problem::packed(op_a, op_b, m, n, k, batch); }
};

/// The spec of kernel_form(spec.problem()): the form the dispatcher runs, which is the one to
/// tune (a matrix-vector product y = A^T x becomes y^T = x^T A; a vector stored as a column of
/// adjacent elements is read as a row).
ProblemSpec kernel_spec(const ProblemSpec& spec);

/// "1024x1024x2048 nn" or "1024x1024x2048 nt b8" (batch shown when > 1): for logs and tables.
std::string problem_label(const ProblemSpec& p);

/// Every (shape, layout) pair of `shapes` ("MxNxK" each) and `layout` (nn|nt|tn|tt|all), with
/// `batch`. Throws Error(kInvalidArgument) naming the bad shape, layout or batch.
std::vector<ProblemSpec> problems_from_shapes(const std::vector<std::string>& shapes,
                                              const std::string& layout, int batch);

/// Reads a CSV file: columns m,n,k[,layout][,batch]; an optional first line that is the header
/// m,n,k[,layout][,batch] (any case); '#' starts a comment; blank lines are skipped. layout may be
/// nn|nt|tn|tt|all and defaults to `default_layout`. Throws Error(kInvalidArgument) naming
/// file:line on a bad line, and naming the file when it holds no problem or is a directory.
std::vector<ProblemSpec> problems_from_csv(const std::string& path,
                                           const std::string& default_layout = "nn");

/// problems_from_csv() on text already open: `name` stands for the file in messages.
std::vector<ProblemSpec> problems_from_csv(std::istream& in, const std::string& name,
                                           const std::string& default_layout = "nn");

/// Names of the built-in presets, in alphabetical order (classes, holdout, quick, squares, suite,
/// transformer, users).
std::vector<std::string> preset_names();
/// The preset names as a comma-separated list, for help texts and errors.
std::string preset_list();

/// The problems of a preset, each in `layout` (nn|nt|tn|tt|all), except the shapes of a preset
/// that name their own layout (the `users` preset's). Throws Error(kInvalidArgument) listing the
/// preset names when `name` is unknown.
std::vector<ProblemSpec> preset_problems(const std::string& name, const std::string& layout = "nn");

/// The token counts a layer called with many M is tuned at (`--m-range LO:HI`): each power of two
/// from LO to HI and the midpoint above it (1, 2, 3, 4, 6, 8, 12, 16, 24, ...), with LO and HI
/// themselves, ascending. An M between two of them runs a config tuned within a factor 1.5 of it.
/// Throws Error(kInvalidArgument) unless 1 <= LO <= HI.
std::vector<int> m_buckets(int lo, int hi);

/// Parses "LO:HI" (`--m-range`) into m_buckets(LO, HI). Throws Error(kInvalidArgument) naming the
/// text when it is not two positive integers with LO <= HI.
std::vector<int> m_buckets(const std::string& range);

/// Each problem of `problems` once for every M of `ms` in place of its own, problem by problem.
std::vector<ProblemSpec> with_each_m(const std::vector<ProblemSpec>& problems,
                                     const std::vector<int>& ms);

/// Drops repeated problems, keeping the first occurrence's order.
std::vector<ProblemSpec> unique_problems(const std::vector<ProblemSpec>& problems);

}  // namespace gemmtune::tuner
