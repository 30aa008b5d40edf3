#include "gemmtune/tuner/progress.hpp"

#include <cstdio>

namespace gemmtune::tuner {

// One lock for all reporters: device workers write to the same stream.
static std::mutex& output_mutex() {
  static std::mutex m;
  return m;
}

ProgressReporter::ProgressReporter(std::ostream& out, bool is_tty, Clock clock)
    : out_(out), tty_(is_tty), clock_(std::move(clock)) {
  if (!clock_) {
    clock_ = [] {
      return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
          .count();
    };
  }
}

std::string ProgressReporter::format_duration(double s) {
  char buf[32];
  if (s < 0) s = 0;
  long t = long(s + 0.5);
  if (t < 60)
    std::snprintf(buf, sizeof buf, "%lds", t);
  else if (t < 3600)
    std::snprintf(buf, sizeof buf, "%ldm%02lds", t / 60, t % 60);
  else
    std::snprintf(buf, sizeof buf, "%ldh%02ldm", t / 3600, (t % 3600) / 60);
  return buf;
}

void ProgressReporter::clear_line() {
  if (tty_ && line_open_) {
    out_ << "\r\033[K";
    line_open_ = false;
  }
}

void ProgressReporter::begin_problem(std::size_t index, std::size_t count, const std::string& label,
                                     std::size_t candidates, const std::string& prefix) {
  std::lock_guard lock(output_mutex());
  index_ = index, count_ = count, label_ = label, prefix_ = prefix;
  started_ = clock_();
  last_decile_ = -1;
  clear_line();
  // A new problem always gets a line of its own, so the scroll-back lists what was tuned.
  out_ << prefix_ << "[" << index_ << "/" << count_ << "] " << label_ << ": " << candidates
       << " candidates\n";
  out_.flush();
}

std::string ProgressReporter::status_text(std::size_t done, std::size_t total,
                                          std::optional<double> best_tflops) const {
  char buf[160];
  std::string best =
      best_tflops ? (std::snprintf(buf, sizeof buf, "%.1f TFLOP/s", *best_tflops), buf) : "-";
  double elapsed = clock_() - started_;
  std::string eta =
      done > 0 && total > done ? format_duration(elapsed / done * (total - done)) : "-";
  int pct = total > 0 ? int(100.0 * done / total) : 100;
  std::snprintf(buf, sizeof buf, "%zu/%zu measured (%d%%), best %s, ETA %s", done, total, pct,
                best.c_str(), eta.c_str());
  return prefix_ + "[" + std::to_string(index_) + "/" + std::to_string(count_) + "] " + label_ +
         ": " + buf;
}

void ProgressReporter::update(std::size_t done, std::size_t total,
                              std::optional<double> best_tflops) {
  std::lock_guard lock(output_mutex());
  if (tty_) {
    out_ << "\r\033[K" << status_text(done, total, best_tflops);
    line_open_ = true;
    out_.flush();
    return;
  }
  int decile = total > 0 ? int(10.0 * done / total) : 10;
  if (decile == last_decile_ || decile == 0) return;
  last_decile_ = decile;
  out_ << status_text(done, total, best_tflops) << "\n";
  out_.flush();
}

void ProgressReporter::end_problem(const std::string& outcome) {
  std::lock_guard lock(output_mutex());
  clear_line();
  out_ << prefix_ << "[" << index_ << "/" << count_ << "] " << label_ << ": " << outcome << " ("
       << format_duration(clock_() - started_) << ")\n";
  out_.flush();
}

void ProgressReporter::note(const std::string& line) {
  std::lock_guard lock(output_mutex());
  clear_line();
  out_ << line << "\n";
  out_.flush();
}

}  // namespace gemmtune::tuner
