#include "rows.hpp"

#include <algorithm>
#include <iterator>

namespace gemmtune::db::detail {
namespace {

std::string join(std::string_view alias, std::initializer_list<std::string_view> names) {
  std::string out;
  for (std::string_view n : names) {
    if (!out.empty()) out += ", ";
    if (!alias.empty()) (out += alias) += '.';
    out += n;
  }
  return out;
}

char first_char(const Statement& st, int col) {
  const std::string s = st.get_text(col);
  return s.empty() ? '?' : s[0];
}

}  // namespace

bool valid_column_name(std::string_view name) {
  const auto lower = [](char ch) { return ch >= 'a' && ch <= 'z'; };
  const auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  return !name.empty() && lower(name.front()) &&
         std::all_of(name.begin(), name.end(),
                     [&](char ch) { return lower(ch) || digit(ch) || ch == '_'; }) &&
         std::find(std::begin(kConfigKeyColumns), std::end(kConfigKeyColumns), name) ==
             std::end(kConfigKeyColumns);
}

std::string quoted(std::string_view identifier) {
  std::string out = "\"";
  for (char ch : identifier) {
    if (ch == '"') out += '"';
    out += ch;
  }
  return out + '"';
}

std::vector<std::string> knob_columns(Connection& conn, const std::string& table,
                                      const std::string& schema) {
  Statement st(conn, schema.empty() ? "SELECT name FROM pragma_table_info(?1)"
                                    : "SELECT name FROM pragma_table_info(?1, ?2)");
  st.bind_text(1, table);
  if (!schema.empty()) st.bind_text(2, schema);
  std::vector<std::string> out;
  while (st.step()) {
    std::string name = st.get_text(0);
    if (std::find(std::begin(kConfigKeyColumns), std::end(kConfigKeyColumns), name) ==
        std::end(kConfigKeyColumns))
      out.push_back(std::move(name));
  }
  return out;
}

std::string config_columns(std::span<const std::string> knobs, std::string_view alias) {
  std::string out = join(alias, {"family", "name", "op_a", "op_b"});
  for (const std::string& knob : knobs) out += ", " + join(alias, {quoted(knob)});
  return out;
}

KernelConfig read_config(const Statement& st, int i, std::span<const std::string> knobs) {
  KernelConfig c;
  c.family = st.get_text(i++);
  c.name = st.get_text(i++);
  c.op_a = first_char(st, i++);
  c.op_b = first_char(st, i++);
  for (const std::string& knob : knobs) {
    if (!st.is_null(i)) c.knobs.emplace(knob, static_cast<int>(st.get_int(i)));
    ++i;
  }
  return c;
}

std::string problem_columns(std::string_view alias) {
  return join(alias, {"dtype", "op_a", "op_b", "m", "n", "k", "batch", "alignment"});
}

int bind_problem(Statement& st, int i, const ProblemKey& p) {
  st.bind_text(i++, p.dtype);
  st.bind_text(i++, op_text(p.op_a));
  st.bind_text(i++, op_text(p.op_b));
  for (std::int64_t v : {p.m, p.n, p.k, p.batch, std::int64_t{p.alignment}}) st.bind_int(i++, v);
  return i;
}

ProblemKey read_problem(const Statement& st, int i) {
  ProblemKey p;
  p.dtype = st.get_text(i++);
  p.op_a = first_char(st, i++);
  p.op_b = first_char(st, i++);
  p.m = st.get_int(i++);
  p.n = st.get_int(i++);
  p.k = st.get_int(i++);
  p.batch = st.get_int(i++);
  p.alignment = static_cast<int>(st.get_int(i++));
  return p;
}

std::string precision_class_of_config(std::span<const FamilySchema> families) {
  // Family and column names were checked to be identifiers (check_families): safe in SQL text.
  std::string sql;
  for (const FamilySchema& family : families) {
    const PrecisionClasses& classes = family.precision;
    if (classes.column.empty()) continue;
    sql += " WHEN k.family = '" + family.name + "' THEN CASE k." + classes.column;
    for (const auto& [value, precision_class] : classes.of_value)
      sql += " WHEN " + std::to_string(value) + " THEN " + std::to_string(precision_class);
    sql += " ELSE " + std::to_string(classes.otherwise) + " END";
  }
  return sql.empty() ? "0" : "CASE" + sql + " ELSE 0 END";
}

std::string ranked_configs_cte(std::string_view condition, std::span<const FamilySchema> families) {
  return "per_config AS ("
         "  SELECT s.gpu_model_id, r.problem_id, r.config_id, r.id AS result_id, r.sweep_id,"
         "         r.median_ms, r.min_ms, r.max_ms, r.tflops, r.rel_error, r.wide_error,"
         // Each precision class has its own fastest few.
         "         " +
         precision_class_of_config(families) +
         " AS precision_class,"
         "         row_number() OVER (PARTITION BY s.gpu_model_id, r.problem_id, r.config_id"
         "                            ORDER BY r.median_ms, r.id) AS own"
         "  FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id"
         "  JOIN configs AS k ON k.id = r.config_id"
         "  WHERE r.status = 'ok' AND (" +
         std::string(condition) +
         ")),"
         " ranked AS ("
         "  SELECT *, row_number() OVER (PARTITION BY gpu_model_id, problem_id, precision_class"
         "                               ORDER BY median_ms, result_id) AS place"
         "  FROM per_config WHERE own = 1)";
}

}  // namespace gemmtune::db::detail
