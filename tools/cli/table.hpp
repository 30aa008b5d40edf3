#pragma once
// An aligned text table, and the same rows as JSON (nlohmann::json, so every string is escaped).
// Each cell carries its display text (with an adaptive unit: "4.13 us", "812 GFLOP/s", "0.047%")
// and its JSON value (the bare number in the column's base unit, a string, null, or an object
// whose fields are spread into the row: a problem is m, n, k, batch, layout and alignment).
// Config names are always shown whole, so that they can be pasted into `gemmtune try`; columns
// with a note (the problem's "a1", "b8") explain themselves under the table.
// Header-only: tools/cli/CMakeLists.txt compiles cmd_*.cpp only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/db/records.hpp"

namespace gemmtune::cli {

/// Width the text tables try to keep to.
inline constexpr std::size_t kTerminalWidth = 100;

/// How a problem is written in every table, as one line for under the table.
inline constexpr const char* kProblemLegend =
    "problem: MxNxK, layout of A and B (n: as stored, t: transposed); bN: batch of N; "
    "a1/a2: the widest vector (floats) the data allows, a4 not written";

/// How a column's text is placed in its width.
enum class Align { left, right };

/// One column: its header, its JSON key, and how it is laid out.
struct Column {
  std::string header;  ///< shown above the column (carries the unit where cells do not)
  std::string
      key;  ///< its key in --format json output; "" spreads an object cell's fields into the row
  Align align = Align::right;
  bool in_text = true;    ///< false: only in --format json (e.g. the GPU a grouped table is for)
  std::string note = {};  ///< printed under the table: what the column's cells mean
};

/// One cell: what the table shows and what --format json writes.
struct Cell {
  std::string text;             ///< display text; "-" for nothing
  nlohmann::ordered_json json;  ///< the value --format json writes

  /// A string.
  static Cell str(std::string_view s) { return {std::string(s), std::string(s)}; }
  /// A number shown as `text` (with its unit), written to JSON as `value`.
  static Cell num(double value, std::string text) {
    if (!std::isfinite(value)) return none();
    return {std::move(text), value};
  }
  /// An integer shown as `text` (its decimal form when empty).
  static Cell integer(std::int64_t value, std::string text = {}) {
    return {text.empty() ? std::to_string(value) : std::move(text), value};
  }
  /// A yes/no.
  static Cell boolean(bool value) { return {value ? "yes" : "no", value}; }
  /// Nothing measured: "-" in the table, null in JSON.
  static Cell none() { return {"-", nullptr}; }
  /// A problem shown as `label`; in JSON its fields, each its own (spread into the row when the
  /// column's key is "").
  static Cell problem(std::string label, const db::ProblemKey& p) {
    return {std::move(label),
            {{"m", p.m},
             {"n", p.n},
             {"k", p.k},
             {"batch", p.batch},
             {"layout", std::string{p.op_a, p.op_b}},
             {"alignment", p.alignment},
             {"dtype", p.dtype}}};
  }
};

// ---- units ---------------------------------------------------------------------------------

/// printf into a std::string.
template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

/// Three significant digits: 812, 41.3, 4.13.
inline std::string significant(double v) {
  return format(v >= 99.95 ? "%.0f" : v >= 9.995 ? "%.1f" : "%.2f", v);
}

/// A time in milliseconds in a unit that keeps three significant digits: "812 ns", "4.13 us",
/// "57.2 us", "1.78 ms", "2.50 s" (4 us and 5 us never look alike).
inline std::string format_time_ms(double ms) {
  if (ms < 0.00099995) return significant(ms * 1e6) + " ns";
  if (ms < 0.99995) return significant(ms * 1e3) + " us";
  if (ms < 999.95) return significant(ms) + " ms";
  return significant(ms / 1e3) + " s";
}

/// A rate given in TFLOP/s, in a unit that keeps three significant digits: "812 MFLOP/s",
/// "4.13 GFLOP/s", "51.2 TFLOP/s" (a tiny problem never shows 0.0).
inline std::string format_rate(double tflops) {
  if (tflops < 0.00099995) return significant(tflops * 1e6) + " MFLOP/s";
  if (tflops < 0.99995) return significant(tflops * 1e3) + " GFLOP/s";
  return significant(tflops) + " TFLOP/s";
}

/// A share in percent: "80.1%", but "0.047%" below 1% rather than "0.0%".
inline std::string format_percent(double percent) {
  return percent >= 0.995 || percent <= 0 ? format("%.1f%%", percent) : format("%.2g%%", percent);
}

/// A time cell (JSON: milliseconds).
inline Cell time_cell(std::optional<double> ms) {
  return ms ? Cell::num(*ms, format_time_ms(*ms)) : Cell::none();
}

/// A rate cell (JSON: TFLOP/s).
inline Cell rate_cell(std::optional<double> tflops) {
  return tflops ? Cell::num(*tflops, format_rate(*tflops)) : Cell::none();
}

/// A percent cell (JSON: the percentage).
inline Cell percent_cell(std::optional<double> percent) {
  return percent ? Cell::num(*percent, format_percent(*percent)) : Cell::none();
}

/// A number with `decimals` and a unit suffix ("1.25x", "51.3").
inline Cell fixed_cell(std::optional<double> v, int decimals, std::string_view suffix = {}) {
  if (!v || !std::isfinite(*v)) return Cell::none();
  return Cell::num(*v, format("%.*f", decimals, *v) + std::string(suffix));
}

/// A relative error, two significant digits: "3.1e-07" (JSON: the number).
inline Cell error_cell(std::optional<double> error) {
  return error ? Cell::num(*error, format("%.2g", *error)) : Cell::none();
}

/// What the precision class and the two error columns of a table of configs mean.
inline constexpr const char* kPrecisionLegend =
    "class: ieee FP32 FMA, fp32 3xTF32, tf32 1xTF32 (docs/precision.md); error, wide-range: "
    "relative "
    "error against the float64 reference on the random and on the wide-range inputs (-: not "
    "measured)";

/// A size in bytes: "512 B", "16 KiB", "141.0 GiB" (JSON: bytes).
inline std::string format_bytes(double bytes) {
  if (bytes < 1024) return format("%.0f B", bytes);
  if (bytes < 1024.0 * 1024)
    return format(bytes < 10 * 1024 ? "%.1f KiB" : "%.0f KiB", bytes / 1024);
  if (bytes < 1024.0 * 1024 * 1024) return format("%.1f MiB", bytes / (1024.0 * 1024));
  return format("%.1f GiB", bytes / (1024.0 * 1024 * 1024));
}

/// A byte-count cell.
inline Cell bytes_cell(std::optional<std::int64_t> bytes) {
  return bytes ? Cell::integer(*bytes, format_bytes(static_cast<double>(*bytes))) : Cell::none();
}

// ---- the table -----------------------------------------------------------------------------

/// Rows under fixed columns; render() for people, json_objects() for programs.
class Table {
 public:
  explicit Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

  /// Appends a row; it must have one cell per column.
  void add_row(std::vector<Cell> cells) {
    cells.resize(columns_.size(), Cell::none());
    rows_.push_back(std::move(cells));
  }
  std::size_t size() const { return rows_.size(); }
  bool empty() const { return rows_.empty(); }

  /// The aligned text: a header, a rule, the rows, then the notes of the columns shown. Columns
  /// are two spaces apart, one when that keeps the table within `width`. Nothing is cut: a wide
  /// table makes long lines rather than config names that cannot be pasted into `gemmtune try`.
  std::string render(std::size_t width = kTerminalWidth) const {
    std::vector<std::size_t> shown;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c].in_text) shown.push_back(c);
    std::vector<std::size_t> w(columns_.size(), 0);
    for (std::size_t c : shown) {
      w[c] = columns_[c].header.size();
      for (const auto& row : rows_) w[c] = std::max(w[c], row[c].text.size());
    }
    std::size_t total = 0;
    for (std::size_t c : shown) total += w[c] + 2;
    const std::size_t gap = total > width + 2 ? 1 : 2;
    std::string out;
    auto line = [&](auto&& text_of) {
      std::string s;
      for (std::size_t i = 0; i < shown.size(); ++i) {
        const std::size_t c = shown[i];
        const std::string t = text_of(c);
        const std::string pad(w[c] - std::min(w[c], t.size()), ' ');
        if (i) s += std::string(gap, ' ');
        s += columns_[c].align == Align::right ? pad + t : t + pad;
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += s + '\n';
    };
    line([&](std::size_t c) { return columns_[c].header; });
    line([&](std::size_t c) { return std::string(w[c], '-'); });
    for (const auto& row : rows_) line([&](std::size_t c) { return row[c].text; });
    for (std::size_t c : shown)
      if (!columns_[c].note.empty()) out += columns_[c].note + "\n";
    return out;
  }

  /// Each row as one JSON object keyed by the columns' keys (all columns, text-only or not).
  std::vector<nlohmann::ordered_json> json_objects() const {
    std::vector<nlohmann::ordered_json> objects;
    for (const auto& row : rows_) {
      nlohmann::ordered_json o = nlohmann::ordered_json::object();
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        if (columns_[c].key.empty() && row[c].json.is_object()) {
          for (const auto& [k, v] : row[c].json.items()) o[k] = v;
        } else {
          o[columns_[c].key] = row[c].json;
        }
      }
      objects.push_back(std::move(o));
    }
    return objects;
  }

  /// The rows as a JSON array, one object per line.
  std::string json() const { return json_array(json_objects()); }

  /// `objects` as a JSON array, one per line.
  static std::string json_array(const std::vector<nlohmann::ordered_json>& objects) {
    if (objects.empty()) return "[]\n";
    std::string out = "[\n";
    for (std::size_t i = 0; i < objects.size(); ++i)
      out += objects[i].dump() + (i + 1 < objects.size() ? ",\n" : "\n");
    return out + "]\n";
  }

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

/// The problem column of a table (JSON: the problem's fields, each its own).
inline Column problem_column(bool in_text = true) {
  return {"problem", "", Align::left, in_text, kProblemLegend};
}

}  // namespace gemmtune::cli
