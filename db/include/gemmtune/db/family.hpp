#pragma once
// A kernel family as the database sees it: plain data that the family's own code hands to
// Database (the sgemm family's: runtime/src/db_rows.cpp, built from its knob table). The database
// knows no family of its own; families share the `configs` table, each with its knob columns.
#include <string>
#include <utility>
#include <vector>

namespace gemmtune::db {

/// One knob column a family declares.
struct KnobColumn {
  /// The `configs` column: lower-case letters, digits and '_', starting with a letter, and not
  /// one of the columns every row has (id, family, name, op_a, op_b).
  std::string name;
  /// The value the family's configs stored before the column existed ran with: it fills their
  /// rows when the column is added.
  int default_value = 0;
};

/// How a family's configs fall into precision classes, each of which keeps its own fastest
/// configs (Database::top_configs, prune's keep_top): a config's class is the one its value of
/// knob column `column` maps to in `of_value`, else `otherwise`. No column: one class.
struct PrecisionClasses {
  std::string column;                         ///< one of the family's knob columns, or empty
  std::vector<std::pair<int, int>> of_value;  ///< knob value -> class
  int otherwise = 0;                          ///< the class of every other value
};

/// A kernel family as the database stores it (its schema; the runtime's gemmtune::KernelFamily is
/// the family itself): its name (`configs.family`, the prefix of its config names; written as a
/// knob column's name is), the knob columns its configs have (families may share a column) and
/// how its configs fall into precision classes.
struct FamilySchema {
  std::string name;
  std::vector<KnobColumn> knobs;
  PrecisionClasses precision = {};
};

}  // namespace gemmtune::db
