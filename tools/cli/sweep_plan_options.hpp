#pragma once
// The options `sweep` and `compile` share: which problems (--shape, --layout, --batch, --file,
// --preset, --m-range), which candidates (--space, --config), the device to plan for without a
// GPU (--arch, --sms) and which task of several this is (--shard, else Slurm's array variables).
#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "gemmtune/device.hpp"
#include "gemmtune/tuner/shard.hpp"
#include "gemmtune/tuner/sweep.hpp"

namespace gemmtune::cli {

struct SweepPlanOptions {
  std::vector<std::string> shapes;
  std::string layout = "nn";
  int batch = 1;
  std::vector<std::string> files;
  std::vector<std::string> presets;
  std::string m_range;  // --m-range LO:HI; empty: each problem's own M
  std::string space = "auto";
  std::vector<std::string> configs;
  std::string precision = "ieee";
  std::string arch = "sm_90";
  int sms = 132;
  std::string shard;

  /// Adds the problem options (--shape, --layout, --batch, --file, --preset, --m-range) to `cmd`.
  void add_problem_options(CLI::App* cmd);
  /// Adds --space, --config and --precision.
  void add_candidate_options(CLI::App* cmd);
  /// Adds --arch and --sms, described by `purpose` (what they are used for in `cmd`).
  void add_device_options(CLI::App* cmd, const std::string& purpose);
  /// Adds --shard.
  void add_shard_option(CLI::App* cmd);

  /// The problems, without repeats (the quick preset when none is named); the space, the
  /// configs and the precision classes. Throws Error(kInvalidArgument) on bad input.
  void fill(tuner::SweepOptions& options) const;
  /// The device --arch and --sms describe (no GPU needed); `name` as shown.
  DeviceInfo planning_device() const;
  /// Which task this is: --shard when given (it wins over the environment, and a note on stderr
  /// says so when a Slurm array task's variables say otherwise), else the Slurm array task's,
  /// else nullopt (all of the work). Throws Error(kInvalidArgument) on a bad value.
  std::optional<tuner::Shard> shard_to_run() const;
};

}  // namespace gemmtune::cli
