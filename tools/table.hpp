#pragma once
// An aligned text table that fits a terminal (100 columns by default), and the same rows as JSON.
// Each cell carries its display text (with units: "1.234 ms", "80.1%", "1.25x") and its JSON value
// (the bare number in the column's base unit, a string, or null), so --json output is the table
// the user sees, machine-readable. Header-only: tools/CMakeLists.txt compiles cmd_*.cpp only.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/db/export.hpp"

namespace gemmtune::cli {

/// Width the text tables are fitted to.
inline constexpr std::size_t kTerminalWidth = 100;

/// How a column's text is placed in its width.
enum class Align { left, right };

/// One column: its header, its JSON key, and how it is laid out.
struct Column {
  std::string header;              ///< shown above the column (carries the unit where cells do not)
  std::string key;                 ///< its key in --json output
  Align align = Align::right;
  int shrink = 0;                  ///< may be elided in the middle to fit: 1 first, 2 next, 0 never
  bool in_text = true;             ///< false: only in --json (e.g. the GPU a grouped table is for)
  bool config_names = false;       ///< holds config names: a tail of tokens every row shares
                                   ///< ("_v4_p4_k1_r8") is shown once, under the table
};

/// One cell: what the table shows and what --json writes.
struct Cell {
  std::string text;  ///< display text; "-" for nothing
  std::string json;  ///< a JSON literal

  /// A string.
  static Cell str(std::string_view s) { return {std::string(s), db::json_string(s)}; }
  /// A number shown as `text` (with its unit), written to JSON as `value`.
  static Cell num(double value, std::string text) {
    if (!std::isfinite(value)) return none();
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.9g", value);
    return {std::move(text), buf};
  }
  /// An integer shown as `text` (its decimal form when empty).
  static Cell integer(std::int64_t value, std::string text = {}) {
    std::string j = std::to_string(value);
    return {text.empty() ? j : std::move(text), j};
  }
  /// Nothing measured: "-" in the table, null in JSON.
  static Cell none() { return {"-", "null"}; }
};

// ---- units ---------------------------------------------------------------------------------

/// printf into a std::string.
template <typename... Args>
std::string format(const char* fmt, Args... args) {
  char buf[256];
  std::snprintf(buf, sizeof buf, fmt, args...);
  return buf;
}

/// A time in milliseconds with a unit that keeps it short: "12.3 us", "1.234 ms", "2.50 s".
inline std::string format_time_ms(double ms) {
  if (ms < 0.01) return format("%.2f us", ms * 1e3);
  if (ms < 1.0) return format("%.1f us", ms * 1e3);
  if (ms < 1000.0) return format("%.3f ms", ms);
  return format("%.2f s", ms / 1e3);
}

/// A time cell (JSON: milliseconds).
inline Cell time_cell(std::optional<double> ms) {
  return ms ? Cell::num(*ms, format_time_ms(*ms)) : Cell::none();
}

/// A number with `decimals` and a unit suffix ("80.1%", "1.25x", "51.3").
inline Cell fixed_cell(std::optional<double> v, int decimals, std::string_view suffix = {}) {
  if (!v || !std::isfinite(*v)) return Cell::none();
  return Cell::num(*v, format("%.*f", decimals, *v) + std::string(suffix));
}

/// A size in bytes: "512 B", "16 KiB", "141.0 GiB" (JSON: bytes).
inline std::string format_bytes(double bytes) {
  if (bytes < 1024) return format("%.0f B", bytes);
  if (bytes < 1024.0 * 1024) return format(bytes < 10 * 1024 ? "%.1f KiB" : "%.0f KiB", bytes / 1024);
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

  /// The aligned text: a header, a rule and the rows, each line at most `width` characters. When
  /// the table is too wide it first shows the config names' common tail once, below the table,
  /// then narrows the gaps between columns, then elides the middle of the shrinkable columns.
  std::string render(std::size_t width = kTerminalWidth) const {
    std::vector<std::size_t> shown;
    for (std::size_t c = 0; c < columns_.size(); ++c)
      if (columns_[c].in_text) shown.push_back(c);
    std::vector<std::vector<std::string>> text(rows_.size());
    for (std::size_t r = 0; r < rows_.size(); ++r)
      for (const auto& cell : rows_[r]) text[r].push_back(cell.text);
    std::size_t gap = 2;
    std::vector<std::size_t> w = widths(shown, text);
    std::string note;
    if (total(shown, w, gap) > width) {
      note = strip_common_tail(text);
      w = widths(shown, text);
    }
    if (total(shown, w, gap) > width) gap = 1;
    fit(shown, w, gap, width);
    std::string out;
    auto line = [&](auto&& text_of) {
      std::string s;
      for (std::size_t i = 0; i < shown.size(); ++i) {
        const std::size_t c = shown[i];
        std::string t = elide(text_of(c), w[c]);
        std::string pad(w[c] - t.size(), ' ');
        if (i) s += std::string(gap, ' ');
        s += columns_[c].align == Align::right ? pad + t : t + pad;
      }
      while (!s.empty() && s.back() == ' ') s.pop_back();
      out += s + '\n';
    };
    line([&](std::size_t c) { return columns_[c].header; });
    line([&](std::size_t c) { return std::string(w[c], '-'); });
    for (const auto& row : text) line([&](std::size_t c) { return row[c]; });
    if (!note.empty()) out += "(every config above ends in " + note + ")\n";
    return out;
  }

  /// Each row as one JSON object keyed by the columns' keys (all columns, text-only or not).
  std::vector<std::string> json_objects() const {
    std::vector<std::string> objects;
    for (const auto& row : rows_) {
      std::string o = "{";
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        if (c) o += ", ";
        o += db::json_string(columns_[c].key) + ": " + row[c].json;
      }
      objects.push_back(o + "}");
    }
    return objects;
  }

  /// The rows as a JSON array, one object per line.
  std::string json() const { return json_array(json_objects()); }

  /// `objects` as a JSON array, one per line.
  static std::string json_array(const std::vector<std::string>& objects) {
    if (objects.empty()) return "[]\n";
    std::string out = "[\n";
    for (std::size_t i = 0; i < objects.size(); ++i) out += objects[i] + (i + 1 < objects.size() ? ",\n" : "\n");
    return out + "]\n";
  }

 private:
  static constexpr std::size_t kMinShrunk = 12;
  static constexpr std::size_t kConfigTokensKept = 4;  // block, warp and thread tiles, stages

  std::vector<std::size_t> widths(const std::vector<std::size_t>& shown,
                                  const std::vector<std::vector<std::string>>& text) const {
    std::vector<std::size_t> w(columns_.size(), 0);
    for (std::size_t c : shown) {
      w[c] = columns_[c].header.size();
      for (const auto& row : text) w[c] = std::max(w[c], row[c].size());
    }
    return w;
  }

  static std::size_t total(const std::vector<std::size_t>& shown, const std::vector<std::size_t>& w,
                           std::size_t gap) {
    std::size_t t = shown.empty() ? 0 : gap * (shown.size() - 1);
    for (std::size_t c : shown) t += w[c];
    return t;
  }

  static std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> tokens;
    std::size_t start = 0;
    for (std::size_t i = 0; i <= s.size(); ++i) {
      if (i == s.size() || s[i] == '_') {
        tokens.push_back(s.substr(start, i - start));
        start = i + 1;
      }
    }
    return tokens;
  }

  // Removes from the config-name cells the longest tail of whole "_" tokens they all share (keeping
  // their first kConfigTokensKept tokens) and returns it ("_v4_p4_k1_r8"), or "" when none.
  std::string strip_common_tail(std::vector<std::vector<std::string>>& text) const {
    std::vector<std::pair<std::size_t, std::size_t>> cells;  // (row, column) of config names
    std::vector<std::string> tail;
    bool first = true;
    for (std::size_t r = 0; r < text.size(); ++r) {
      for (std::size_t c = 0; c < columns_.size(); ++c) {
        const auto tokens = split(text[r][c]);
        if (!columns_[c].config_names || tokens.size() <= kConfigTokensKept) continue;
        std::vector<std::string> own(tokens.begin() + kConfigTokensKept, tokens.end());
        if (first) tail = own, first = false;
        std::size_t n = 0;  // length of the common tail
        while (n < tail.size() && n < own.size() && tail[tail.size() - 1 - n] == own[own.size() - 1 - n]) ++n;
        tail.erase(tail.begin(), tail.end() - static_cast<std::ptrdiff_t>(n));
        cells.emplace_back(r, c);
      }
    }
    if (tail.empty()) return "";
    std::string suffix;
    for (const auto& t : tail) suffix += "_" + t;
    for (auto [r, c] : cells) text[r][c].resize(text[r][c].size() - suffix.size());
    return suffix;
  }

  // Shrinks shrinkable columns (priority 1 before 2), widest first, until the table fits `width`
  // or they are at their minimum.
  void fit(const std::vector<std::size_t>& shown, std::vector<std::size_t>& w, std::size_t gap,
           std::size_t width) const {
    for (int level = 1; level <= 2; ++level) {
      while (total(shown, w, gap) > width) {
        std::size_t widest = columns_.size();
        for (std::size_t c : shown) {
          const std::size_t floor = std::max(kMinShrunk, columns_[c].header.size());
          if (columns_[c].shrink == level && w[c] > floor && (widest == columns_.size() || w[c] > w[widest]))
            widest = c;
        }
        if (widest == columns_.size()) break;  // nothing left to shrink at this level
        --w[widest];
      }
    }
  }

  // `s` cut to `width` by replacing its middle with "..".
  static std::string elide(const std::string& s, std::size_t width) {
    if (s.size() <= width) return s;
    if (width <= 2) return s.substr(0, width);
    const std::size_t keep = width - 2, head = (keep + 1) / 2;
    return s.substr(0, head) + ".." + s.substr(s.size() - (keep - head));
  }

  std::vector<Column> columns_;
  std::vector<std::vector<Cell>> rows_;
};

}  // namespace gemmtune::cli
