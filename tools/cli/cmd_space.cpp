// `gemmtune space`: the kernel family's valid configurations for an architecture, after static
// pruning, and with --compile their compiled resources. Needs no GPU.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "commands.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/sgemm/tuning/space.hpp"
#include "gemmtune/tuner/shape.hpp"
#include "gemmtune/tuner/threads.hpp"

namespace gemmtune::cli {

namespace {
// --list and --compile take at most this many configs unless --max says otherwise: the space
// holds millions, and compiling them all would take days.
constexpr int kDefaultMax = 1000;

struct SpaceOptions {
  std::string arch = "sm_90";
  std::string layout = "nn";
  bool count = false, list = false, compile = false, sample = false, knobs = false;
  int max = kDefaultMax;
  std::vector<std::string> names;  // --config: only these
  int jobs = int(std::max(1u, std::thread::hardware_concurrency()));
};

void compile_all(const std::vector<GemmConfig>& configs, const SpaceOptions& o) {
  std::vector<CompileResult> results(configs.size());
  std::atomic<size_t> next{0}, done{0};
  const auto compile = [&] {
    for (size_t i; (i = next++) < configs.size();) {
      results[i] = compile_config(configs[i], o.arch);
      size_t d = ++done;
      if (d % 50 == 0) std::fprintf(stderr, "compiled %zu / %zu\n", d, configs.size());
    }
  };
  const auto stop = [&] { next = configs.size(); };  // each thread ends after its current config
  for (auto& t : tuner::start_threads(unsigned(o.jobs), compile, stop, "compile jobs (-j)"))
    t.join();
  std::printf("%-52s %5s %6s %8s %7s\n", "config", "regs", "spill", "smem KiB", "seconds");
  int failed = 0, spilled = 0;
  std::vector<double> secs;
  for (size_t i = 0; i < configs.size(); ++i) {
    const auto& r = results[i];
    secs.push_back(r.seconds);
    if (!r.ok) {
      ++failed;
      std::printf("%-52s compile failed: %s\n", config_name(configs[i]).c_str(),
                  r.log.substr(0, 200).c_str());
      continue;
    }
    spilled += r.resources.spill_stores > 0;
    std::printf("%-52s %5d %6d %8.1f %7.2f\n", config_name(configs[i]).c_str(),
                r.resources.registers, r.resources.spill_stores, configs[i].smem_bytes() / 1024.0,
                r.seconds);
  }
  std::sort(secs.begin(), secs.end());
  std::printf(
      "%zu compiled for %s: %d failed, %d spill (pruned by a sweep); median %.2f s per config, %d "
      "jobs\n",
      configs.size(), o.arch.c_str(), failed, spilled, secs.empty() ? 0.0 : secs[secs.size() / 2],
      o.jobs);
  if (failed) exit_status() = 1;
}

// The knob table: what each knob means, its default and the values the space takes; then the
// flags, with the suffix a name ends in when one is set.
void print_knobs() {
  std::printf("%-10s %7s  %-38s %s\n", "knob", "default", "values", "meaning");
  for (const Knob& knob : kSgemmKnobs) {
    std::string values;
    for (int v : knob.values) {
      if (!values.empty()) values += ' ';
      values += std::to_string(v);
    }
    std::printf("%-10s %7d  %-38s %s\n", std::string(knob.name).c_str(), knob.default_value(),
                values.c_str(), std::string(knob.meaning).c_str());
  }
  std::printf("\n%-18s %-6s  %s\n", "flag", "suffix", "meaning");
  for (const Knob& flag : kSgemmFlags)
    std::printf("%-18s %-6s  %s\n", std::string(flag.name).c_str(),
                std::string(flag.name_prefix).c_str(), std::string(flag.meaning).c_str());
}

// Says on stderr, once a second, how far a walk through the space has got: a walk checks millions
// of combinations for seconds, and a silent one looks hung.
class WalkProgress {
 public:
  explicit WalkProgress(std::string what) : what_(std::move(what)) {}
  // Counts one combination.
  void visit() {
    if (++seen_ % 65536 != 0) return;
    const auto now = std::chrono::steady_clock::now();
    if (now < next_) return;
    next_ = now + std::chrono::seconds(1);
    std::fprintf(stderr, "space: %s: %.1f million combinations checked\n", what_.c_str(),
                 double(seen_) / 1e6);
  }

 private:
  std::string what_;
  std::size_t seen_ = 0;
  std::chrono::steady_clock::time_point next_ =
      std::chrono::steady_clock::now() + std::chrono::seconds(1);
};

// The configs named by --config, each checked: a name that does not parse, or is no valid
// config for the architecture, is an error that says why.
std::vector<GemmConfig> named_configs(const SpaceOptions& o, const DeviceLimits& limits) {
  std::vector<GemmConfig> configs;
  for (const std::string& name : o.names) {
    const std::optional<GemmConfig> c = parse_config_name(name);
    if (!c)
      throw Error(Status::kInvalidArgument,
                  "--config '" + name +
                      "' is no sgemm config name (such as sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_"
                      "p4_k1_r8): `gemmtune space --list` prints valid ones");
    if (auto why = c->validate(limits))
      throw Error(Status::kInvalidArgument,
                  "--config '" + name + "' is not valid on " + o.arch + ": " + *why);
    configs.push_back(*c);
  }
  return configs;
}

void run_space(const SpaceOptions& o) {
  if (o.knobs) return print_knobs();
  DeviceLimits limits = DeviceLimits::for_arch(o.arch);
  if (!o.names.empty()) {
    const std::vector<GemmConfig> configs = named_configs(o, limits);
    if (o.compile) return compile_all(configs, o);
    for (auto& c : configs) std::printf("%s\n", config_name(c).c_str());
    return;
  }
  auto layouts = tuner::parse_layouts(o.layout);
  std::vector<GemmConfig> configs;
  for (auto [a, b] : layouts) {
    WalkProgress progress(o.arch + " " + op_char(a) + op_char(b));
    const auto visit = [&progress](const GemmConfig&) {
      progress.visit();
      return true;
    };
    auto part = o.sample ? tuner::coverage_sample(limits, a, b, visit)
                         : tuner::valid_space(limits, a, b, visit);
    configs.insert(configs.end(), part.begin(), part.end());
  }
  const bool capped = (o.list || o.compile) && o.max > 0 && int(configs.size()) > o.max;
  if (capped)
    std::fprintf(stderr,
                 "space: taking %d of the %zu configs, evenly spread; --max N for another number, "
                 "--max 0 for all\n",
                 o.max, configs.size());
  if (capped) {
    // An even stride through the space keeps every region represented.
    std::vector<GemmConfig> picked;
    for (int i = 0; i < o.max; ++i) picked.push_back(configs[size_t(i) * configs.size() / o.max]);
    configs.swap(picked);
  }
  if (o.list)
    for (auto& c : configs) std::printf("%s\n", config_name(c).c_str());
  if (o.compile) compile_all(configs, o);
  if (o.count || (!o.list && !o.compile)) {
    std::printf("%s, layout %s: %zu combinations per layout, %zu %s after pruning by validate()\n",
                o.arch.c_str(), o.layout.c_str(), tuner::full_space_size(), configs.size(),
                o.sample ? "in the coverage sample" : "valid");
  }
}
}  // namespace

static void add_space_command(CLI::App& app) {
  auto o = std::make_shared<SpaceOptions>();
  auto* cmd = app.add_subcommand(
      "space", "List, count or compile the valid kernel configurations (no GPU needed)");
  cmd->add_option("--arch", o->arch, "Target architecture: sm_80, sm_86, sm_89 or sm_90")
      ->capture_default_str();
  cmd->add_option("--layout", o->layout, "nn, nt, tn, tt or all")->capture_default_str();
  cmd->add_flag("--count", o->count,
                "Print the size of the space before and after pruning (the default)");
  cmd->add_flag("--list", o->list, "Print every valid config's name");
  cmd->add_flag("--compile", o->compile,
                "Compile the configs with NVRTC and print registers, spills, shared memory");
  cmd->add_flag("--sample", o->sample,
                "Only the coverage sample: every parameter value at least once");
  cmd->add_flag("--knobs", o->knobs,
                "Print the knob table: each knob's meaning, default and values");
  cmd->add_option("--max", o->max,
                  "With --list or --compile: at most this many configs, evenly spread over the "
                  "space (0 = all)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--config", o->names,
                  "Only this config (repeatable): checked against the architecture's rules, then "
                  "printed, or with --compile compiled (registers, spills, shared memory); "
                  "--layout, --sample and --max do not apply");
  cmd->add_option("-j,--jobs", o->jobs, "Parallel compilations (0: one per core)")
      ->capture_default_str()
      ->check(CLI::Range(0, 256));
  cmd->callback([o] {
    if (o->jobs == 0) o->jobs = int(std::max(1u, std::thread::hardware_concurrency()));
    run_space(*o);
  });
}

static const Registration kRegistration("space", add_space_command);

}  // namespace gemmtune::cli
