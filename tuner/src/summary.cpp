#include "gemmtune/tuner/summary.hpp"

#include <algorithm>
#include <cstdio>

namespace gemmtune::tuner {

static std::string num(std::optional<double> v, const char* format) {
  if (!v) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, format, *v);
  return buf;
}

std::string compiles_cell(const SummaryRow& row) {
  if (!row.compiles) return "-";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%zu/%zu/%zu %.1f s", row.compiles->compiled, row.compiles->cached,
                row.compiles->reused, row.compile_wait_s);
  return buf;
}

std::string outcome_line(const SummaryRow& row, std::size_t new_candidates, std::size_t fresh,
                         std::optional<double> cublas_tflops, const std::string& note) {
  char buf[200];
  if (row.tflops)
    std::snprintf(
        buf, sizeof buf, "%zu new of %zu measured; best %s %.1f TFLOP/s, cuBLAS %.1f TFLOP/s",
        new_candidates, fresh, row.config.c_str(), *row.tflops, cublas_tflops.value_or(0));
  else
    std::snprintf(buf, sizeof buf, "%zu new of %zu measured; no candidate succeeded",
                  new_candidates, fresh);
  std::string out = buf;
  if (row.compiles) {
    char compiles[120];
    std::snprintf(compiles, sizeof compiles, "; compiles %s, %.1f s waited",
                  row.compiles->describe().c_str(), row.compile_wait_s);
    out += compiles;
  }
  return note.empty() ? out : out + " [" + note + "]";
}

std::string format_summary(const std::vector<SummaryRow>& rows) {
  // "compiles": compiled / from the binary cache / reused in this sweep, and the seconds the
  // search waited for them.
  const std::vector<std::string> header = {"GPU",       "problem", "best config",
                                           "ms",        "TFLOP/s", "% peak",
                                           "cuBLAS ms", "speedup", "compiled/cached/reused, wait",
                                           "note"};
  std::vector<std::vector<std::string>> cells = {header};
  for (const auto& r : rows)
    cells.push_back({r.gpu, r.problem, r.config.empty() ? "-" : r.config, num(r.ms, "%.4f"),
                     num(r.tflops, "%.1f"), num(r.peak_percent, "%.0f%%"), num(r.cublas_ms, "%.4f"),
                     num(r.speedup(), "%.2fx"), compiles_cell(r), r.note});
  std::vector<std::size_t> width(header.size(), 0);
  for (const auto& line : cells)
    for (std::size_t i = 0; i < line.size(); ++i) width[i] = std::max(width[i], line[i].size());
  std::string out;
  for (const auto& line : cells) {
    std::string text;
    for (std::size_t i = 0; i < line.size(); ++i) {
      bool numeric = i >= 3 && i <= 8;  // right-align numbers
      std::string pad(width[i] - line[i].size(), ' ');
      text += numeric ? pad + line[i] : line[i] + (i + 1 < line.size() ? pad : "");
      if (i + 1 < line.size()) text += "  ";
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    out += text + "\n";
  }
  return out;
}

}  // namespace gemmtune::tuner
