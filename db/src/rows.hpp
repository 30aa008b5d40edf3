#pragma once
// Binding and reading the column groups several queries share (configs, problems), so that each
// list of columns is written once; the knob columns are the table's own (knob_columns()).
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/db/family.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/db/sqlite.hpp"

namespace gemmtune::db::detail {

/// The columns of `configs` that every family's rows have; the others are knob columns.
inline constexpr std::string_view kConfigKeyColumns[] = {"id", "family", "name", "op_a", "op_b"};

/// Whether `name` may name a knob column (or a family): lower-case letters, digits and '_',
/// starting with a letter, and none of kConfigKeyColumns.
bool valid_column_name(std::string_view name);

/// `identifier` as a quoted SQL identifier ("bm"): what SQL text names a knob column with, since
/// the columns of a file are whatever its writer made them.
std::string quoted(std::string_view identifier);

/// The knob columns of `table` (configs or a view of it), in the table's order: with `schema`
/// empty, as this connection resolves the name (a temporary view first).
std::vector<std::string> knob_columns(Connection& conn, const std::string& table,
                                      const std::string& schema = "");

/// "<a>.family, <a>.name, <a>.op_a, <a>.op_b, <a>.<knob>, ..." for the knob columns `knobs`
/// (alias `a`; empty: bare names).
std::string config_columns(std::span<const std::string> knobs, std::string_view alias);
/// Reads a config from result columns starting at `first`, in config_columns(knobs) order; knob
/// columns that hold NULL are left out of its knobs.
KernelConfig read_config(const Statement& st, int first, std::span<const std::string> knobs);

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
/// within its precision class (as `families` declare them, FamilySchema::precision; fastest first,
/// the older result on a tie). What Database::top_configs() reads and prune()'s keep_top keeps:
/// one definition for both.
std::string ranked_configs_cte(std::string_view condition, std::span<const FamilySchema> families);

/// "'n'" or "'t'" as one-character text.
inline std::string_view op_text(const char& op) { return {&op, 1}; }

}  // namespace gemmtune::db::detail
