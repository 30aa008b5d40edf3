// CSV and JSON export: one query, written column by column with the column's own name.
#include "gemmtune/db/export.hpp"

#include <sqlite3.h>

#include <charconv>
#include <cmath>

#include "database_access.hpp"
#include "rows.hpp"

namespace gemmtune::db {
namespace {

std::string number(double v) {
  char buf[32];
  const auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest text that reads back exact
  return std::string(buf, r.ptr);
}

std::string hex(const std::vector<std::byte>& bytes) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string s;
  for (std::byte b : bytes) {
    s += kHex[static_cast<int>(b) >> 4];
    s += kHex[static_cast<int>(b) & 15];
  }
  return s;
}

// Length of the valid UTF-8 sequence at s[i], or 0 (overlong forms, surrogates and code points
// above U+10FFFF are invalid).
std::size_t utf8_length(std::string_view s, std::size_t i) {
  const auto c = [&](std::size_t j) { return static_cast<unsigned char>(s[j]); };
  const unsigned char b = c(i);
  std::size_t n;
  unsigned lo = 0x80, hi = 0xbf;  // allowed range of the second byte
  if (b >= 0xc2 && b <= 0xdf)
    n = 2;
  else if (b >= 0xe0 && b <= 0xef) {
    n = 3;
    if (b == 0xe0) lo = 0xa0;
    if (b == 0xed) hi = 0x9f;
  } else if (b >= 0xf0 && b <= 0xf4) {
    n = 4;
    if (b == 0xf0) lo = 0x90;
    if (b == 0xf4) hi = 0x8f;
  } else {
    return 0;
  }
  if (i + n > s.size() || c(i + 1) < lo || c(i + 1) > hi) return 0;
  for (std::size_t j = 2; j < n; ++j)
    if (c(i + j) < 0x80 || c(i + j) > 0xbf) return 0;
  return n;
}

void write_csv(Statement& st, std::ostream& out) {
  const int cols = st.column_count();
  for (int i = 0; i < cols; ++i) out << (i ? "," : "") << csv_field(st.column_name(i));
  out << '\n';
  while (st.step()) {
    for (int i = 0; i < cols; ++i) {
      if (i) out << ',';
      switch (st.column_type(i)) {
        case SQLITE_NULL: break;
        case SQLITE_INTEGER: out << st.get_int(i); break;
        case SQLITE_FLOAT: out << number(st.get_real(i)); break;
        case SQLITE_BLOB: out << hex(st.get_blob(i)); break;
        default: out << csv_field(st.get_text(i));
      }
    }
    out << '\n';
  }
}

void write_json(Statement& st, std::ostream& out) {
  const int cols = st.column_count();
  std::vector<std::string> keys;
  for (int i = 0; i < cols; ++i) keys.push_back(json_string(st.column_name(i)));
  out << '[';
  bool first = true;
  while (st.step()) {
    out << (first ? "\n{" : ",\n{");
    first = false;
    for (int i = 0; i < cols; ++i) {
      out << (i ? "," : "") << keys[i] << ':';
      switch (st.column_type(i)) {
        case SQLITE_NULL: out << "null"; break;
        case SQLITE_INTEGER: out << st.get_int(i); break;
        case SQLITE_FLOAT: {
          const double v = st.get_real(i);
          out << (std::isfinite(v) ? number(v) : "null");
          break;
        }
        case SQLITE_BLOB: out << '"' << hex(st.get_blob(i)) << '"'; break;
        default: out << json_string(st.get_text(i));
      }
    }
    out << '}';
  }
  out << "\n]\n";
}

void write(Statement& st, ExportFormat format, std::ostream& out) {
  if (format == ExportFormat::csv)
    write_csv(st, out);
  else
    write_json(st, out);
}

// ", <a>.<knob>, ..." for the knob columns of `db`'s configs, in the table's order.
std::string param_columns(const Database& db, std::string_view alias) {
  std::string s;
  for (const std::string& knob : detail::DatabaseAccess::knob_columns(db))
    (((s += ", ") += alias) += '.') += detail::quoted(knob);
  return s;
}

}  // namespace

void export_results(const Database& db, ExportFormat format, std::ostream& out,
                    std::optional<Id> gpu_model_id) {
  Statement st(detail::DatabaseAccess::connection(db),
               "SELECT r.id AS result_id, s.uid AS sweep_uid, s.started_at AS sweep_started_at, "
               "s.hostname, s.template_hash, g.name AS gpu_name, g.cc_major, g.cc_minor, "
               "g.sm_count, p.dtype, p.op_a, p.op_b, p.m, p.n, p.k, p.batch, p.alignment, "
               "c.family, c.name AS config_name" +
                   param_columns(db, "c") +
                   ", r.status, r.median_ms, r.min_ms, r.max_ms, r.repetitions, r.tflops, "
                   "r.rel_error, r.wide_error, r.registers, r.spill_bytes, r.smem_bytes, r.error, "
                   "r.recorded_at "
                   "FROM results AS r JOIN sweeps AS s ON s.id = r.sweep_id "
                   "JOIN gpu_models AS g ON g.id = s.gpu_model_id "
                   "JOIN problems AS p ON p.id = r.problem_id "
                   "JOIN configs AS c ON c.id = r.config_id "
                   "WHERE ?1 IS NULL OR s.gpu_model_id = ?1 ORDER BY r.id");
  st.bind_int(1, gpu_model_id);
  write(st, format, out);
}

void export_bests(const Database& db, ExportFormat format, std::ostream& out,
                  std::optional<Id> gpu_model_id) {
  Statement st(detail::DatabaseAccess::connection(db),
               "SELECT b.*" + param_columns(db, "c") +
                   " FROM best_results AS b JOIN configs AS c ON c.id = b.config_id "
                   "WHERE ?1 IS NULL OR b.gpu_model_id = ?1 "
                   "ORDER BY b.gpu_model_id, b.problem_id");
  st.bind_int(1, gpu_model_id);
  write(st, format, out);
}

std::string csv_field(std::string_view s) {
  const bool quote = s.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!s.empty() && (s.front() == ' ' || s.back() == ' '));
  if (!quote) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + '"';
}

std::string json_string(std::string_view s) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out = "\"";
  for (std::size_t i = 0; i < s.size();) {
    const auto b = static_cast<unsigned char>(s[i]);
    if (b >= 0x80) {
      if (const std::size_t n = utf8_length(s, i)) {
        out.append(s.substr(i, n));
        i += n;
        continue;
      }
    }
    switch (b) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (b < 0x20 || b >= 0x80) {
          ((out += "\\u00") += kHex[b >> 4]) += kHex[b & 15];
        } else {
          out += static_cast<char>(b);
        }
    }
    ++i;
  }
  return out + '"';
}

}  // namespace gemmtune::db
