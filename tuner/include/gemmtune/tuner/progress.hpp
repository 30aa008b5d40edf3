#pragma once
// Progress of a sweep: on a terminal one line that updates in place (problem i/n, candidates
// done/total, best so far, ETA); otherwise plain lines, at each problem's start and end and
// about every 10% of its candidates, so that logs stay readable.
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <ostream>
#include <string>

namespace gemmtune::tuner {

/// Writes one worker's progress to an injected stream. Several reporters (one per device worker)
/// may write to the same stream at once: their lines never interleave mid-line.
class ProgressReporter {
 public:
  /// Seconds since some fixed point; injectable for tests.
  using Clock = std::function<double()>;

  /// Reports to `out`; `is_tty` picks the updating line over plain lines. `clock` defaults to
  /// std::chrono::steady_clock.
  ProgressReporter(std::ostream& out, bool is_tty, Clock clock = {});

  /// A problem starts: `index` counts from 1 out of `count`; `candidates` is the candidate set's
  /// size and `prefix` names the device when there are several (e.g. "[gpu 1] ").
  void begin_problem(std::size_t index, std::size_t count, const std::string& label,
                     std::size_t candidates, const std::string& prefix = "");
  /// `done` of `total` measurements made; `best_tflops` is the best so far, if any.
  void update(std::size_t done, std::size_t total, std::optional<double> best_tflops);
  /// The problem is finished; `outcome` says with what (e.g. "best sgemm_... 41.2 TFLOP/s").
  void end_problem(const std::string& outcome);
  /// Prints a message as a line of its own (clearing the updating line first on a terminal).
  void note(const std::string& line);

  /// Formats seconds as "42s", "3m05s" or "1h02m".
  static std::string format_duration(double seconds);

 private:
  std::string status_text(std::size_t done, std::size_t total,
                          std::optional<double> best_tflops) const;
  void clear_line();

  std::ostream& out_;
  bool tty_;
  Clock clock_;
  std::string prefix_, label_;
  std::size_t index_ = 0, count_ = 0;
  double started_ = 0;
  int last_decile_ = -1;
  bool line_open_ = false;
};

}  // namespace gemmtune::tuner
