// `gemmtune explain --shape MxNxK [--layout nt] [--batch N] [--alignment 4] [--deterministic]
// [--precision P] [--db PATH] [--no-shipped] [--gpu N] [--arch sm_90 [--gpu-model NAME]]`: the
// kernel the dispatcher would choose and why, from the database and behind it the shipped one
// (shipped.hpp). With --arch it needs no GPU: the GPU model is --gpu-model, or the only one of
// that architecture in the database.
#include <cstdio>

#include "commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/shipped.hpp"
#include "gemmtune/tuner/shape.hpp"

namespace gemmtune::cli {

namespace {
struct ExplainOptions {
  std::string shape;
  std::string layout = "nn";
  int batch = 1;
  int alignment = 0;
  std::string db_path;
  int device = 0;
  std::string arch;
  std::string gpu_name;
  bool deterministic = false;
  std::string precision = "ieee";
  bool no_shipped = false;
};

void run_explain(const ExplainOptions& o) {
  require_shape(o.shape);
  tuner::Shape s = tuner::parse_shape(o.shape);
  if (o.batch < 1) throw Error(Status::kInvalidArgument, "--batch must be at least 1");
  if (o.alignment != 0 && o.alignment != 1 && o.alignment != 2 && o.alignment != 4)
    throw Error(Status::kInvalidArgument, "--alignment must be 1, 2 or 4");
  DeviceLimits limits;
  GpuIdentity gpu;
  if (!o.arch.empty()) {
    limits = DeviceLimits::for_arch(o.arch);
    gpu.name = o.gpu_name;
  } else {
    DeviceInfo dev;
    try {
      dev = device_info(o.device);
    } catch (const Error& e) {
      if (e.status() != Status::kNoDevice) throw;
      throw Error(Status::kNoDevice,
                  std::string(e.what()) +
                      "; to explain without a GPU, name the architecture: --arch sm_90");
    }
    limits = dev.limits;
    gpu.name = o.gpu_name.empty() ? dev.name : o.gpu_name;
    gpu.sm_count = o.gpu_name.empty() ? dev.sm_count : 0;
  }
  gpu.cc_major = limits.cc_major, gpu.cc_minor = limits.cc_minor;
  std::string path = o.db_path;
  TuningSnapshot snapshot;
  try {
    if (path.empty()) path = db::default_database_path();
    snapshot = load_tuning_snapshot(path, gpu);
  } catch (const std::exception& e) {
    snapshot.notes.push_back(e.what());
  }
  snapshot = with_shipped(std::move(snapshot), gpu, !o.no_shipped);
  auto precision = parse_precision(o.precision);
  if (!precision)
    throw Error(Status::kInvalidArgument,
                "bad --precision '" + o.precision + "': use ieee, fp32 or tf32");
  Chooser chooser(limits, std::move(snapshot), o.deterministic, *precision);
  bool first = true;
  for (auto [oa, ob] : tuner::parse_layouts(o.layout)) {
    Problem p = shape_only_problem(oa, ob, s.m, s.n, s.k, o.batch, o.alignment);
    // What the dispatcher runs, as Dispatcher::explain chooses: the problem's kernel form.
    const Problem runs = kernel_form(p);
    Choice c = chooser.choose(runs);
    if (runs.m != p.m) c.runs_as = runs.label();
    if (!first) std::printf("\n");
    first = false;
    std::printf("problem  %s (%s)\n", p.label().c_str(), regime_name(regime_of(p.m, p.n, p.k)));
    std::printf("database %s\n", path.empty() ? "(none)" : path.c_str());
    std::printf("%s", c.to_string().c_str());
  }
}
}  // namespace

static void add_explain_command(CLI::App& app) {
  auto o = std::make_shared<ExplainOptions>();
  auto* cmd = app.add_subcommand("explain",
                                 "Show the kernel the dispatcher chooses for a problem, and why");
  add_shape_option(cmd, o->shape, "Problem MxNxK, e.g. 4096x4096x4096");
  cmd->add_option("--layout", o->layout, "nn, nt, tn, tt or all")->capture_default_str();
  cmd->add_option("--batch", o->batch, "Batch count")->capture_default_str();
  cmd->add_option("--alignment", o->alignment,
                  "Alignment class of the data: 4, 2 or 1 floats (default: what the shape allows)");
  cmd->add_flag("--deterministic", o->deterministic,
                "The choice of a deterministic dispatcher: configs without atomic split-K only "
                "(the same bits every run)");
  cmd->add_option("--precision", o->precision,
                  "The choice under this precision policy: ieee (FP32 FMA), fp32 (also 3xTF32 as "
                  "accurate as FP32 "
                  "FMA), tf32 (also 1xTF32)")
      ->capture_default_str();
  cmd->add_option("--db", o->db_path, db_option_help("Tuning database"));
  cmd->add_flag("--no-shipped", o->no_shipped,
                "Leave out the tuning database shipped with gemmtune for the GPU model (as "
                "GEMMTUNE_NO_SHIPPED=1 does)");
  add_old_spelling(
      cmd,
      cmd->add_option("--gpu", o->device, "CUDA device ordinal whose GPU model is looked up")
          ->capture_default_str(),
      "--device", o->device);
  cmd->add_option("--arch", o->arch, "Work without a GPU: the architecture, e.g. sm_90");
  auto* model = cmd->add_option(
      "--gpu-model", o->gpu_name,
      "GPU model name as the database stores it, e.g. \"NVIDIA H200\" (with --arch: default "
      "the only model of that architecture)");
  add_old_spelling(cmd, model, "--gpu-name", o->gpu_name);
  cmd->callback([o] { run_explain(*o); });
}

static const Registration kRegistration("explain", add_explain_command);

}  // namespace gemmtune::cli
