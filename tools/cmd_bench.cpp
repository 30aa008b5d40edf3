// `gemmtune bench`: the dispatcher's sgemm next to cuBLAS SGEMM (TF32 off) on the same buffers,
// in one process on one GPU, timed the way the sweep times; results checked against each other.
// Prints a table and the geometric mean of the speedups, and writes the same as JSON.
#include <cmath>
#include <cstdio>
#include <fstream>
#include <random>

#include "commands.hpp"
#include "gemmtune/device_buffer.hpp"
#include "gemmtune/error.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/reference.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/device_limits.hpp"
#include "gemmtune/tuner/problems.hpp"
#include "gemmtune/tuner/timer.hpp"

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
};

struct Row {
  tuner::ProblemSpec spec;
  double ours_ms = 0, cublas_ms = 0, ours_tflops = 0, cublas_tflops = 0, rel_diff = 0, spread = 0;
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

Row bench_one(const tuner::ProblemSpec& spec, Dispatcher& gemm, const tuner::CublasSgemm& cublas,
              const tuner::GpuTimer& timer, std::mt19937_64& rng) {
  Problem p = spec.problem();
  size_t a_n = size_t(p.a_rows()) * p.lda * p.batch, b_n = size_t(p.b_rows()) * p.ldb * p.batch;
  size_t c_n = size_t(p.m) * p.ldc * p.batch;
  DeviceBuffer<float> a(a_n), b(b_n), ours(c_n), theirs(c_n);
  a.upload(random_floats(a_n, rng));
  b.upload(random_floats(b_n, rng));
  p.a = a.get(), p.b = b.get();
  Problem q = p;
  p.c = ours.get(), q.c = theirs.get();

  Row row;
  row.spec = spec;
  gemm.prepare(p);  // first-call compilation stays out of the timing
  Choice choice = gemm.explain(p);
  row.config = config_name(choice.config);
  row.source = choice_source_name(choice.source);
  GEMMTUNE_CUDA(cudaMemset(ours.get(), 0xff, c_n * sizeof(float)));  // NaN: every element must be written
  gemm.run(p);
  cublas.run(q, nullptr);
  GEMMTUNE_CUDA(cudaDeviceSynchronize());
  std::vector<float> mine = ours.download(), ref = theirs.download();
  std::vector<double> ref64(ref.begin(), ref.end());
  row.rel_diff = relative_error(mine, p.ldc, p.stride_c, ref64, p.m, p.n, p.batch);
  if (!(row.rel_diff < 2 * fp32_tolerance(p.k)))
    throw Error(Status::kInternal, "gemmtune and cuBLAS disagree on " + tuner::problem_label(spec) +
                                       ": relative difference " + std::to_string(row.rel_diff) + " with " + row.config);

  tuner::Timing t_ours = timer.time([&](cudaStream_t s) { gemm.run(p, s); });
  tuner::Timing t_cublas = timer.time([&](cudaStream_t s) { cublas.run(q, s); });
  row.ours_ms = t_ours.median_ms, row.cublas_ms = t_cublas.median_ms;
  row.ours_tflops = p.flops() / t_ours.median_ms / 1e9;
  row.cublas_tflops = p.flops() / t_cublas.median_ms / 1e9;
  row.spread = t_ours.spread();
  return row;
}

void write_json(const std::string& path, const DeviceInfo& dev, const tuner::MeasuredCeilings& ceil,
                const std::vector<Row>& rows, double geomean) {
  std::ofstream out(path);
  if (!out) throw Error(Status::kInvalidArgument, "cannot write '" + path + "': check the directory exists");
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "{\n  \"gpu\": \"%s\",\n  \"sm_count\": %d,\n  \"measured_fp32_tflops\": %.2f,\n"
                "  \"measured_copy_gbs\": %.0f,\n  \"geomean_speedup\": %.4f,\n  \"problems\": [\n",
                dev.name.c_str(), dev.sm_count, ceil.fp32_tflops, ceil.copy_gbs, geomean);
  out << buf;
  for (size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    std::snprintf(buf, sizeof buf,
                  "    {\"m\": %d, \"n\": %d, \"k\": %d, \"batch\": %d, \"layout\": \"%c%c\", \"gemmtune_ms\": %.5f, "
                  "\"cublas_ms\": %.5f, \"gemmtune_tflops\": %.3f, \"cublas_tflops\": %.3f, \"speedup\": %.4f, "
                  "\"config\": \"%s\", \"source\": \"%s\", \"rel_diff\": %.2e}%s\n",
                  r.spec.m, r.spec.n, r.spec.k, r.spec.batch, op_char(r.spec.op_a), op_char(r.spec.op_b), r.ours_ms,
                  r.cublas_ms, r.ours_tflops, r.cublas_tflops, r.cublas_ms / r.ours_ms, r.config.c_str(),
                  r.source.c_str(), r.rel_diff, i + 1 < rows.size() ? "," : "");
    out << buf;
  }
  out << "  ]\n}\n";
}

void run_bench(const BenchOptions& o) {
  std::vector<tuner::ProblemSpec> problems = problems_of(o);
  DispatcherOptions dopts;
  dopts.db_path = o.db;
  dopts.device = o.device;
  Dispatcher gemm(dopts);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  const DeviceInfo& dev = gemm.device();
  tuner::GpuTimer timer;
  tuner::CublasSgemm cublas;
  tuner::MeasuredCeilings ceil = tuner::measure_ceilings(timer);
  std::printf("%s, %d SMs; measured FP32 FMA peak %.1f TFLOP/s, device copy %.0f GB/s; database %s\n",
              dev.name.c_str(), dev.sm_count, ceil.fp32_tflops, ceil.copy_gbs,
              gemm.database_path().empty() ? "(none)" : gemm.database_path().c_str());
  std::printf("%-22s %9s %9s %7s %6s %-13s %s\n", "problem", "ours TF/s", "cuBLAS", "speedup", "%peak", "source",
              "config");
  std::mt19937_64 rng(std::random_device{}());
  std::vector<Row> rows;
  double log_sum = 0;
  for (const auto& spec : problems) {
    Row r = bench_one(spec, gemm, cublas, timer, rng);
    rows.push_back(r);
    double speedup = r.cublas_ms / r.ours_ms;
    log_sum += std::log(speedup);
    std::printf("%-22s %9.2f %9.2f %6.3fx %5.1f%% %-13s %s\n", tuner::problem_label(spec).c_str(), r.ours_tflops,
                r.cublas_tflops, speedup, 100 * r.ours_tflops / ceil.fp32_tflops, r.source.c_str(), r.config.c_str());
    std::fflush(stdout);
  }
  double geomean = rows.empty() ? 0 : std::exp(log_sum / rows.size());
  std::printf("geometric mean speedup over cuBLAS: %.3fx (%zu problems)\n", geomean, rows.size());
  if (!o.json.empty()) {
    write_json(o.json, dev, ceil, rows, geomean);
    std::printf("wrote %s\n", o.json.c_str());
  }
}
}  // namespace

static void add_bench_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench", "Time the dispatcher's sgemm against cuBLAS SGEMM (TF32 off) on the same buffers, one GPU");
  cmd->add_option("--shape", o->shapes, "Problem MxNxK (repeatable)");
  cmd->add_option("--preset", o->preset, "Named problem set: quick, squares, transformer, suite, users (default: suite)");
  cmd->add_option("--file", o->file, "CSV of problems: m,n,k[,layout][,batch]");
  cmd->add_option("--layout", o->layout, "nn, nt, tn, tt or all")->capture_default_str();
  cmd->add_option("--db", o->db, "Tuning database (default: $GEMMTUNE_DB else ${XDG_CACHE_HOME:-~/.cache}/gemmtune/tuning.db)");
  cmd->add_option("--device", o->device, "CUDA device ordinal")->capture_default_str();
  cmd->add_option("--json", o->json, "Also write the results to this JSON file");
  cmd->callback([o] { run_bench(*o); });
}

static const Registration kRegistration("bench", add_bench_command);

}  // namespace gemmtune::cli
