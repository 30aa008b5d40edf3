#include "sweep_plan_options.hpp"

#include <cstdio>
#include <cstdlib>

#include "gemmtune/error.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/tuner/problems.hpp"

namespace gemmtune::cli {

void SweepPlanOptions::add_problem_options(CLI::App* cmd) {
  cmd->add_option("--shape", shapes, "Problem MxNxK (repeatable)");
  cmd->add_option("--layout", layout,
                  "nn, nt, tn, tt or all (for --shape, presets, and CSV rows without one)")
      ->capture_default_str();
  cmd->add_option("--batch", batch, "Batch count of the --shape problems")->capture_default_str();
  cmd->add_option("--file", files, "CSV of problems: m,n,k[,layout][,batch] (repeatable)");
  cmd->add_option("--preset", presets,
                  "Named problem set: " + tuner::preset_list() +
                      " (repeatable); quick when no problem is given");
  cmd->add_option("--m-range", m_range,
                  "LO:HI: each problem at every M bucket from LO to HI in place of its own M (each "
                  "power of two and the midpoint above it: 1, 2, 3, 4, 6, 8, 12, ..., with LO and "
                  "HI), for a layer called with many token counts (docs/sweep.md)");
}

void SweepPlanOptions::add_candidate_options(CLI::App* cmd) {
  cmd->add_option("--space", space,
                  "full, reduced, or auto (= reduced; full takes hours per problem)")
      ->capture_default_str();
  cmd->add_option(
      "--config", configs,
      "Only these config names (repeatable), e.g. for a quick check: as `gemmtune space --list` "
      "prints them, or with a problem's access widths (`_g1x1x1`)");
  cmd->add_option(
         "--precision", precision,
         "Kernel classes, each searched on its own: ieee (FP32 FMA), fp32 (also 3xTF32 tensor-core "
         "kernels), tf32 (also 1xTF32); docs/precision.md")
      ->capture_default_str();
}

void SweepPlanOptions::add_device_options(CLI::App* cmd, const std::string& purpose) {
  cmd->add_option("--arch", arch, purpose + ": architecture (sm_80, sm_86, sm_89 or sm_90)")
      ->capture_default_str();
  cmd->add_option(
         "--sms", sms,
         purpose + ": SM count (132 on an H100 SXM or H200, 114 on an H100 PCIe, 108 on an A100)")
      ->capture_default_str()
      ->check(CLI::Range(1, 1024));
}

void SweepPlanOptions::add_shard_option(CLI::App* cmd) {
  cmd->add_option(
      "--shard", shard,
      "Run only task I of N (I from 0), e.g. 2/8; the N tasks split the work by its estimated "
      "cost. "
      "Default: a Slurm array task's SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT, else all; "
      "--shard 0/1 in an array whose tasks are not shards of one list");
}

void SweepPlanOptions::fill(tuner::SweepOptions& o) const {
  o.problems = tuner::problems_from_shapes(shapes, layout, batch);
  for (const auto& f : files) {
    auto more = tuner::problems_from_csv(f, layout);
    o.problems.insert(o.problems.end(), more.begin(), more.end());
  }
  std::vector<std::string> named = presets;
  if (o.problems.empty() && named.empty()) named.push_back("quick");
  for (const auto& p : named) {
    auto more = tuner::preset_problems(p, layout);
    o.problems.insert(o.problems.end(), more.begin(), more.end());
  }
  if (!m_range.empty()) o.problems = tuner::with_each_m(o.problems, tuner::m_buckets(m_range));
  for (auto& p : o.problems) {
    const tuner::ProblemSpec runs = tuner::kernel_spec(p);
    if (runs == p) continue;
    const char* why =
        runs.m != p.m ? "y = A^T x as y^T = x^T A" : "a vector read as the row it is in memory";
    std::printf("note: %s is tuned as %s, the form the dispatcher runs (%s)\n",
                tuner::problem_label(p).c_str(), tuner::problem_label(runs).c_str(), why);
    p = runs;
  }
  o.problems = tuner::unique_problems(o.problems);
  // The full space is hundreds of thousands of configs per problem: only on request.
  o.space = space == "auto" ? tuner::SpaceKind::reduced : tuner::parse_space(space);
  for (const std::string& name : configs)  // a typo fails here, for a sweep as for a compile
    if (!parse_config_name(name))
      throw Error(Status::kInvalidArgument,
                  "--config '" + name + "' is not a config name (gemmtune space --list --arch " +
                      arch + " lists them)");
  o.only_configs = configs;
  auto parsed = parse_precision(precision);
  if (!parsed)
    throw Error(Status::kInvalidArgument,
                "bad --precision '" + precision + "': use ieee, fp32 or tf32");
  o.precision = *parsed;
}

DeviceInfo SweepPlanOptions::planning_device() const {
  DeviceInfo dev;
  dev.limits = DeviceLimits::for_arch(arch);
  dev.sm_count = sms;
  dev.name = "(no GPU: " + arch + " limits, " + std::to_string(sms) + " SMs)";
  return dev;
}

std::optional<tuner::Shard> SweepPlanOptions::shard_to_run() const {
  const auto env = [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    return v ? std::optional<std::string>(v) : std::nullopt;
  };
  if (shard.empty()) return tuner::shard_from_slurm(env);
  const tuner::Shard given = tuner::parse_shard(shard);
  std::optional<tuner::Shard> slurm;
  try {
    slurm = tuner::shard_from_slurm(env);
  } catch (const Error&) {  // --shard is what counts; the environment only earns a note
  }
  if (slurm && !(*slurm == given)) {
    std::fprintf(stderr, "gemmtune: --shard %s given: it wins over this Slurm array task's %s\n",
                 tuner::shard_label(given).c_str(), tuner::shard_label(*slurm).c_str());
  }
  return given;
}

}  // namespace gemmtune::cli
