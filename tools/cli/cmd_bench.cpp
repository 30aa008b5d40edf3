// `gemmtune bench`: the dispatcher's sgemm next to cuBLAS SGEMM (TF32 off) on the same buffers,
// in one process on one GPU, timed the way the sweep times; results checked against each other.
// With --cpu, also OpenBLAS on all cores and the GPU with the operands' transfers, for the
// CPU/GPU crossover. Prints a table and the geometric mean of the speedups, and writes the same
// as JSON (`gemmtune report --bench` draws it).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>

#include "commands.hpp"
#include "cpu_blas.hpp"
#include "deprecated.hpp"
#include "file_output.hpp"
#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/device_limits.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/timer.hpp"
#include "table.hpp"

namespace gemmtune::cli {

namespace {
struct BenchOptions {
  std::vector<std::string> shapes;
  std::string preset;
  std::string file;
  std::string layout = "nn";
  std::string db;
  std::string json;
  int device = 0;
  bool cpu = false;
  std::string precision = "ieee";
};

struct Row {
  tuner::ProblemSpec spec;
  int alignment = 4;
  double ours_ms = 0, cublas_ms = 0, ours_tflops = 0, cublas_tflops = 0, rel_diff = 0, spread = 0;
  double cublas_tf32_ms = 0;  // cuBLAS with TF32 tensor-core math: the second baseline
  std::optional<double> cpu_ms,
      transfer_ms;  ///< --cpu: OpenBLAS; the GPU with host<->device copies
  std::string config, source;
};

std::vector<tuner::ProblemSpec> problems_of(const BenchOptions& o) {
  std::vector<tuner::ProblemSpec> out;
  if (!o.preset.empty()) out = tuner::preset_problems(o.preset, o.layout);
  if (!o.file.empty()) {
    auto more = tuner::problems_from_csv(o.file, o.layout);
    out.insert(out.end(), more.begin(), more.end());
  }
  if (!o.shapes.empty()) {
    auto more = tuner::problems_from_shapes(o.shapes, o.layout, 1);
    out.insert(out.end(), more.begin(), more.end());
  }
  if (out.empty()) out = tuner::preset_problems("suite", o.layout);
  return tuner::unique_problems(out);
}

// Median wall time of `run` in milliseconds: one untimed run, then at least 3 timed runs and
// more until a second has passed (at most 200), for times the caller waits for end to end.
double median_wall_ms(const std::function<void()>& run) {
  using clock = std::chrono::steady_clock;
  run();
  std::vector<double> ms;
  const auto start = clock::now();
  while (ms.size() < 3 || (ms.size() < 200 && clock::now() - start < std::chrono::seconds(1))) {
    const auto t0 = clock::now();
    run();
    ms.push_back(std::chrono::duration<double, std::milli>(clock::now() - t0).count());
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

// Throws unless `mine` matches cuBLAS's `ref` within the tolerance of the problem (FP32's, or
// TF32's where the config computes with TF32 operands).
double check_against(const char* who, const std::vector<float>& mine,
                     const std::vector<double>& ref, const Problem& p,
                     const tuner::ProblemSpec& spec, const std::string& config) {
  const double diff = relative_error(mine, p.ldc, p.stride_c, ref, p.m, p.n, p.batch);
  const auto parsed = parse_config_name(config);
  const double tolerance = parsed ? verification_tolerance(*parsed, p.k) : fp32_tolerance(p.k);
  if (!(diff < 2 * tolerance))
    throw Error(Status::kInternal, std::string(who) + " and cuBLAS disagree on " +
                                       tuner::problem_label(spec) + ": relative difference " +
                                       std::to_string(diff) + " with " + config);
  return diff;
}

Row bench_one(const tuner::ProblemSpec& spec, Dispatcher& gemm, const tuner::CublasSgemm& cublas,
              const tuner::CublasSgemm& cublas_tf32, const tuner::GpuTimer& timer,
              std::mt19937_64& rng, bool cpu) {
  Problem p = spec.problem();
  size_t a_n = size_t(p.a_rows()) * p.lda * p.batch, b_n = size_t(p.b_rows()) * p.ldb * p.batch;
  size_t c_n = size_t(p.m) * p.ldc * p.batch;
  const std::vector<float> host_a = random_floats(a_n, rng), host_b = random_floats(b_n, rng);
  DeviceBuffer<float> a(a_n), b(b_n), ours(c_n), theirs(c_n);
  a.upload(host_a);
  b.upload(host_b);
  p.a = a.get(), p.b = b.get();
  Problem q = p;
  p.c = ours.get(), q.c = theirs.get();

  Row row;
  row.spec = spec;
  row.alignment = p.alignment();
  gemm.prepare(p);  // first-call compilation stays out of the timing
  const Explanation choice = gemm.explain(p);
  row.config = choice.config;
  row.source = choice_source_name(choice.source);
  GEMMTUNE_CUDA(
      cudaMemset(ours.get(), 0xff, c_n * sizeof(float)));  // NaN: every element must be written
  gemm.run(p);
  cublas.run(q, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  const std::vector<float> ref = theirs.download();
  const std::vector<double> ref64(ref.begin(), ref.end());
  row.rel_diff = check_against("gemmtune", ours.download(), ref64, p, spec, row.config);

  tuner::Timing t_ours = timer.time([&](cudaStream_t s) { gemm.run(p, s); });
  tuner::Timing t_cublas = timer.time([&](cudaStream_t s) { cublas.run(q, s); });
  row.cublas_tf32_ms = timer.time([&](cudaStream_t s) { cublas_tf32.run(q, s); }).median_ms;
  row.ours_ms = t_ours.median_ms, row.cublas_ms = t_cublas.median_ms;
  row.ours_tflops = p.flops() / t_ours.median_ms / 1e9;
  row.cublas_tflops = p.flops() / t_cublas.median_ms / 1e9;
  row.spread = t_ours.spread();
  if (!cpu) return row;

  // The CPU on the same operands, checked like the GPU; then the GPU as a program on the host sees
  // it: A and B copied up from pageable memory, the kernel, C copied back.
  std::vector<float> host_c(c_n, std::nanf(""));
  Problem h = p;
  h.a = host_a.data(), h.b = host_b.data(), h.c = host_c.data();
  cpu_sgemm(h);
  check_against("OpenBLAS", host_c, ref64, p, spec, "cblas_sgemm");
  row.cpu_ms = median_wall_ms([&] { cpu_sgemm(h); });
  row.transfer_ms = median_wall_ms([&] {
    GEMMTUNE_CUDA(cudaMemcpy(a.get(), host_a.data(), a_n * sizeof(float), cudaMemcpyHostToDevice));
    GEMMTUNE_CUDA(cudaMemcpy(b.get(), host_b.data(), b_n * sizeof(float), cudaMemcpyHostToDevice));
    gemm.run(p);
    GEMMTUNE_CUDA(
        cudaMemcpy(host_c.data(), ours.get(), c_n * sizeof(float), cudaMemcpyDeviceToHost));
  });
  return row;
}

std::string version_text(int v) { return v ? format("%d.%d", v / 1000, (v % 1000) / 10) : ""; }

std::string utc_now() {
  char buf[32];
  const std::time_t t = std::time(nullptr);
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string host_name() {
  char buf[256] = {};
  return gethostname(buf, sizeof buf - 1) == 0 ? buf : "";
}

void write_json(const std::string& path, const DeviceInfo& dev, const tuner::MeasuredCeilings& ceil,
                const std::vector<Row>& rows, double geomean, const std::optional<CpuBlas>& cpu) {
  const CudaVersions v = cuda_versions();
  nlohmann::ordered_json j = {{"gpu", dev.name},
                              {"sm_count", dev.sm_count},
                              {"measured_fp32_tflops", ceil.fp32_tflops},
                              {"measured_copy_gbs", ceil.copy_gbs},
                              {"geomean_speedup", geomean},
                              {"recorded_at", utc_now()},
                              {"hostname", host_name()},
                              {"gemmtune_version", GEMMTUNE_VERSION},
                              {"cuda",
                               {{"driver", version_text(v.driver)},
                                {"runtime", version_text(v.runtime)},
                                {"nvrtc", version_text(v.nvrtc)}}}};
  if (cpu) j["cpu"] = {{"name", cpu->cpu}, {"library", cpu->library}, {"threads", cpu->threads}};
  auto& problems = j["problems"] = nlohmann::ordered_json::array();
  for (const Row& r : rows) {
    nlohmann::ordered_json p = {{"m", r.spec.m},
                                {"n", r.spec.n},
                                {"k", r.spec.k},
                                {"batch", r.spec.batch},
                                {"layout", std::string{op_char(r.spec.op_a), op_char(r.spec.op_b)}},
                                {"alignment", r.alignment},
                                {"gemmtune_ms", r.ours_ms},
                                {"cublas_ms", r.cublas_ms},
                                {"gemmtune_tflops", r.ours_tflops},
                                {"cublas_tflops", r.cublas_tflops},
                                {"cublas_tf32_ms", r.cublas_tf32_ms},
                                {"speedup", r.cublas_ms / r.ours_ms},
                                {"config", r.config},
                                {"source", r.source},
                                {"rel_diff", r.rel_diff}};
    if (r.cpu_ms) p["cpu_ms"] = *r.cpu_ms;
    if (r.transfer_ms) p["gpu_transfer_ms"] = *r.transfer_ms;
    problems.push_back(std::move(p));
  }
  write_replacing(path, [&](std::ostream& out) { out << j.dump(2) << "\n"; });
}

// One printed line of the results; the header when `r` is null.
std::string line_of(const Row* r, double peak_tflops, bool cpu) {
  if (!r) {
    return format("%-24s %10s %13s %10s %8s %7s %10s", "problem", "gemmtune", "rate", "cuBLAS",
                  "speedup", "% peak", "cuBLAS-TF32") +
           (cpu ? format(" %10s %12s", "CPU", "GPU+copies") : "") +
           format("  %-13s %s", "source", "config");
  }
  const std::string label = tuner::problem_label(r->spec);
  std::string s =
      format("%-24s %10s %13s %10s %7.3fx %7s", label.c_str(), format_time_ms(r->ours_ms).c_str(),
             format_rate(r->ours_tflops).c_str(), format_time_ms(r->cublas_ms).c_str(),
             r->cublas_ms / r->ours_ms, format_percent(100 * r->ours_tflops / peak_tflops).c_str());
  s += format(" %10s", format_time_ms(r->cublas_tf32_ms).c_str());
  if (cpu)
    s += format(" %10s %12s", format_time_ms(r->cpu_ms.value_or(0)).c_str(),
                format_time_ms(r->transfer_ms.value_or(0)).c_str());
  return s + format("  %-13s %s", r->source.c_str(), r->config.c_str());
}

void run_bench(const BenchOptions& o) {
  if (!o.json.empty()) check_writable(o.json);  // before the sweep of timings, not after it
  std::vector<tuner::ProblemSpec> problems = problems_of(o);
  std::optional<CpuBlas> cpu;
  if (o.cpu) cpu = cpu_blas_setup();  // says how to get OpenBLAS before any GPU work
  DispatcherOptions dopts;
  dopts.db_path = o.db;
  dopts.device = o.device;
  auto precision = parse_precision(o.precision);
  if (!precision)
    throw Error(Status::kInvalidArgument,
                "bad --precision '" + o.precision + "': use ieee, fp32 or tf32");
  dopts.precision = *precision;
  Dispatcher gemm(dopts);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  const DeviceInfo& dev = gemm.device();
  tuner::GpuTimer timer;
  tuner::CublasSgemm cublas, cublas_tf32(true);
  tuner::MeasuredCeilings ceil = tuner::measure_ceilings(timer);
  std::printf(
      "%s, %d SMs; measured FP32 FMA peak %.1f TFLOP/s, device copy %.0f GB/s; precision %s; "
      "database %s\n",
      dev.name.c_str(), dev.sm_count, ceil.fp32_tflops, ceil.copy_gbs, precision_name(*precision),
      gemm.database_path().empty() ? "(none)" : gemm.database_path().c_str());
  if (cpu)
    std::printf("CPU: %s; %s, %d threads\n", cpu->cpu.c_str(), cpu->library.c_str(), cpu->threads);
  std::printf("%s\n%s\n", kProblemLegend, line_of(nullptr, 0, o.cpu).c_str());
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Row> rows;
  double log_sum = 0;
  for (const auto& spec : problems) {
    Row r = bench_one(spec, gemm, cublas, cublas_tf32, timer, rng, o.cpu);
    rows.push_back(r);
    log_sum += std::log(r.cublas_ms / r.ours_ms);
    std::printf("%s\n", line_of(&r, ceil.fp32_tflops, o.cpu).c_str());
    std::fflush(stdout);
  }
  double geomean = rows.empty() ? 0 : std::exp(log_sum / rows.size());
  std::printf("geometric mean speedup over cuBLAS: %.3fx (%zu problems)\n", geomean, rows.size());
  if (!o.json.empty()) {
    write_json(o.json, dev, ceil, rows, geomean, cpu);
    std::printf("wrote %s\n", o.json.c_str());
  }
}
}  // namespace

static void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench",
      "Time the dispatcher's sgemm against cuBLAS SGEMM (TF32 off) on the same buffers, one GPU");
  cmd->add_option("--shape", o->shapes, "Problem MxNxK (repeatable)");
  cmd->add_option("--preset", o->preset,
                  "Named problem set: " + tuner::preset_list() + " (default: suite)");
  cmd->add_option("--file", o->file, "CSV of problems: m,n,k[,layout][,batch]");
  cmd->add_option("--layout", o->layout, "nn, nt, tn, tt or all")->capture_default_str();
  cmd->add_option("--db", o->db, db_option_help("Tuning database"));
  add_old_spelling(
      cmd, cmd->add_option("--gpu", o->device, "CUDA device ordinal")->capture_default_str(),
      "--device", o->device);
  add_old_spelling(
      cmd,
      cmd->add_option(
          "--out", o->json,
          "Also write the results to this JSON file (gemmtune report --bench draws it)"),
      "--json", o->json);
  cmd->add_option("--precision", o->precision,
                  "The dispatcher's precision policy: ieee (FP32 FMA), fp32 (also 3xTF32 kernels "
                  "as accurate as "
                  "FP32 FMA), tf32 (also 1xTF32)")
      ->capture_default_str();
  cmd->add_flag(
      "--cpu", o->cpu,
      "Also time OpenBLAS's sgemm on all cores and the GPU with the operands' host<->device copies "
      "(pageable memory), for the CPU/GPU crossover");
  cmd->callback([o] { run_bench(*o); });
}

static const Registration kRegistration("bench", add_bench_command);

}  // namespace gemmtune::cli
