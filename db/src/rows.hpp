#pragma once
// Binding and reading the column groups several queries share (configs, problems), so that each
// list of columns is written once; the knob columns follow kSgemmKnobs.
#include <string>
#include <string_view>

#include "gemmtune/db/records.hpp"
#include "gemmtune/db/sqlite.hpp"

namespace gemmtune::db::detail {

/// "<a>.family, <a>.name, <a>.op_a, <a>.op_b, <a>.bm, ..." (alias `a`; empty: bare names).
std::string config_columns(std::string_view alias);
/// Number of columns config_columns() names.
int config_column_count();
/// Binds a config's columns, in config_columns() order, from parameter `first`; returns the next.
int bind_config(Statement& st, int first, const KernelConfig& c);
/// Reads a config from result columns starting at `first`, in config_columns() order.
KernelConfig read_config(const Statement& st, int first);

/// "<a>.dtype, <a>.op_a, <a>.op_b, <a>.m, <a>.n, <a>.k, <a>.batch, <a>.alignment".
std::string problem_columns(std::string_view alias);
/// Number of columns problem_columns() names.
inline constexpr int kProblemColumnCount = 8;
/// Binds a problem's columns, in problem_columns() order, from parameter `first`; returns the next.
int bind_problem(Statement& st, int first, const ProblemKey& p);
/// Reads a problem from result columns starting at `first`.
ProblemKey read_problem(const Statement& st, int first);

/// Common table expressions `per_config` and `ranked` over the ok results (of results `r`) that
/// `condition` admits: each config's best result on a (GPU model, problem), ranked by `place`
/// within its precision class (GemmConfig::precision; fastest first, the older result on a tie).
/// What Database::top_configs() reads and prune()'s keep_top keeps: one definition for both.
std::string ranked_configs_cte(std::string_view condition);

/// "'n'" or "'t'" as one-character text.
inline std::string_view op_text(const char& op) { return {&op, 1}; }

}  // namespace gemmtune::db::detail
