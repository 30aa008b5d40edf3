// `gemmtune bench-dispatch`: what the dispatcher costs. (1) Host time of a hot sgemm call against
// a direct GemmKernel::launch of the same cubin (a small problem, many calls, one sync at the end);
// (2) the first call of a fresh dispatcher with the kernel in the database's binary cache against
// one that has to compile it with NVRTC; (3) TFLOP/s of the dispatcher's choice against cuBLAS.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include "commands.hpp"
#include "deprecated.hpp"
#include "gemmtune/choice.hpp"
#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/device_buffer.hpp"
#include "gemmtune/gemmtune.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/cublas_baseline.hpp"
#include "gemmtune/tuner/shape.hpp"
#include "gemmtune/tuner/timer.hpp"
#include "table.hpp"

namespace gemmtune::cli {

namespace {
using Clock = std::chrono::steady_clock;

struct BenchOptions {
  int device = 0;
  int calls = 10000;
  int first_call_reps = 3;
  std::string hot_shape = "64x64x64";
  std::vector<std::string> throughput_shapes = {"4096x4096x4096", "1000x1000x1000"};
  std::string db_path;  // tuned database for the throughput part; empty: the default
};

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// Device memory for one problem, filled with zeros (values do not matter for host-side cost).
struct Buffers {
  DeviceBuffer<float> a, b, c;
  explicit Buffers(Problem& p) : a(size_t(p.m) * p.k), b(size_t(p.k) * p.n), c(size_t(p.m) * p.n) {
    GEMMTUNE_CUDA(cudaMemset(a.get(), 0, a.size() * sizeof(float)));
    GEMMTUNE_CUDA(cudaMemset(b.get(), 0, b.size() * sizeof(float)));
    p.a = a.get(), p.b = b.get(), p.c = c.get();
  }
};

Problem packed(const std::string& text) {
  tuner::Shape s = tuner::parse_shape(text);
  return Problem::packed(Op::N, Op::N, s.m, s.n, s.k);
}

// Average host microseconds per call of `call` over `n` calls. Calls are enqueued in chunks small
// enough that the launch queue never fills (a full queue would make the host wait for the GPU);
// the stream is synchronised between chunks, outside the timed region.
template <typename Fn>
double host_us_per_call(int n, cudaStream_t stream, Fn&& call) {
  constexpr int kChunk = 256;
  for (int i = 0; i < 100; ++i) call();  // warm
  GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
  double host = 0;
  for (int done = 0; done < n; done += kChunk) {
    int count = std::min(kChunk, n - done);
    auto t0 = Clock::now();
    for (int i = 0; i < count; ++i) call();
    host += seconds_since(t0);
    GEMMTUNE_CUDA(cudaStreamSynchronize(stream));
  }
  return host / n * 1e6;
}

void hot_path(const BenchOptions& o, const std::string& scratch_db) {
  DispatcherOptions opts;
  opts.device = o.device;
  opts.db_path = scratch_db;
  opts.db_access = DbAccess::read_write;
  Dispatcher d(opts);
  Problem p = packed(o.hot_shape);
  Buffers buf(p);
  cudaStream_t stream;
  GEMMTUNE_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  d.run(p, stream);
  const GemmConfig config = explained_config(d.explain(p));
  CompileResult cr = compile_config(config, d.device().limits.arch());
  if (!cr.ok) throw Error(Status::kCompileError, cr.log);
  GemmKernel kernel(config, cr.cubin, cr.lowered_name);
  LaunchWorkspace workspace;
  double direct_us =
      host_us_per_call(o.calls, stream, [&] { kernel.launch(p, stream, &workspace); });
  double sgemm_us = host_us_per_call(o.calls, stream, [&] { d.run(p, stream); });
  double direct_us2 =
      host_us_per_call(o.calls, stream, [&] { kernel.launch(p, stream, &workspace); });
  double sgemm_us2 = host_us_per_call(o.calls, stream, [&] {
    d.sgemm(Layout::row_major, Op::N, Op::N, p.m, p.n, p.k, 1.f, p.a, p.lda, p.b, p.ldb, 0.f, p.c,
            p.ldc, stream);
  });
  GEMMTUNE_CUDA(cudaStreamDestroy(stream));
  direct_us = std::min(direct_us, direct_us2);
  std::printf(
      "\nHot path: %s nn, %d calls, host time per call (enqueue only, 256 calls between syncs)\n",
      o.hot_shape.c_str(), o.calls);
  std::printf("  kernel %s\n", config_name(config).c_str());
  std::printf("  %-34s %8.3f us\n", "GemmKernel::launch (direct)", direct_us);
  std::printf("  %-34s %8.3f us  (+%.3f us)\n", "Dispatcher::run", sgemm_us, sgemm_us - direct_us);
  std::printf("  %-34s %8.3f us  (+%.3f us)\n", "Dispatcher::sgemm", sgemm_us2,
              sgemm_us2 - direct_us);
}

void first_call(const BenchOptions& o, const std::string& scratch_db) {
  Problem p = packed(o.hot_shape);
  Buffers buf(p);
  DispatcherOptions opts;
  opts.device = o.device;
  opts.db_path = scratch_db;
  opts.db_access = DbAccess::read_write;
  std::vector<double> create_s, compiled_s, cached_s;
  for (int r = 0; r < o.first_call_reps; ++r) {
    db::Database(scratch_db, db::OpenMode::read_write, kernel_families())
        .clear_binaries();  // closed at once
    for (int pass = 0; pass < 2; ++pass) {
      auto t0 = Clock::now();
      Dispatcher d(opts);
      create_s.push_back(seconds_since(t0));
      t0 = Clock::now();
      KernelOrigin origin = d.prepare(p);
      d.run(p, nullptr);
      GEMMTUNE_CUDA(cudaDeviceSynchronize());
      double s = seconds_since(t0);
      (origin == KernelOrigin::compiled ? compiled_s : cached_s).push_back(s);
    }
  }
  auto median = [](std::vector<double> v) {
    if (v.empty()) return 0.0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::printf(
      "\nFirst call of a fresh dispatcher (%s nn, median of %d; includes the launch and a sync)\n",
      o.hot_shape.c_str(), o.first_call_reps);
  std::printf("  %-34s %10.3f ms\n", "create dispatcher", median(create_s) * 1e3);
  auto all = [](const std::vector<double>& v) {
    std::string s;
    for (double x : v) s += (s.empty() ? "" : ", ") + std::to_string(int(x * 1e3 + 0.5));
    return s;
  };
  std::printf("  %-34s %10.3f ms  (runs, ms: %s)\n", "kernel compiled by NVRTC",
              median(compiled_s) * 1e3, all(compiled_s).c_str());
  std::printf("  %-34s %10.3f ms  (runs, ms: %s)\n", "kernel from the database",
              median(cached_s) * 1e3, all(cached_s).c_str());
  std::printf(
      "  (NVRTC may keep its own compile cache: a compile seen before in this machine is faster "
      "than a cold one)\n");
}

void throughput(const BenchOptions& o) {
  DispatcherOptions opts;
  opts.device = o.device;
  opts.db_path = o.db_path;
  opts.db_access = DbAccess::read_only;
  Dispatcher d(opts);
  tuner::GpuTimer timer;
  tuner::CublasSgemm cublas;
  std::printf("\nThroughput (cold L2, median): dispatcher vs cuBLAS; database '%s'\n",
              d.database_path().c_str());
  std::printf("  %-16s %-14s %13s %13s %8s  %s\n", "shape", "source", "rate", "cuBLAS", "ratio",
              "kernel");
  for (const auto& text : o.throughput_shapes) {
    Problem p = packed(text);
    Buffers buf(p);
    const Explanation c = d.explain(p);
    d.prepare(p);
    auto tg = timer.time([&](cudaStream_t s) { d.run(p, s); });
    auto tc = timer.time([&](cudaStream_t s) { cublas.run(p, s); });
    double ours = p.flops() / tg.median_ms / 1e9, theirs = p.flops() / tc.median_ms / 1e9;
    std::printf("  %-16s %-14s %13s %13s %8.3f  %s\n", text.c_str(), choice_source_name(c.source),
                format_rate(ours).c_str(), format_rate(theirs).c_str(), ours / theirs,
                c.config.c_str());
  }
}

void run_bench(const BenchOptions& o) {
  DeviceInfo dev = device_info(o.device);
  GEMMTUNE_CUDA(cudaSetDevice(o.device));
  std::printf("%s, %d SMs\n", dev.name.c_str(), dev.sm_count);
  // A scratch database of our own: the first-call part empties its binary cache.
  auto scratch = std::filesystem::temp_directory_path() /
                 ("gemmtune-bench-dispatch-" + std::to_string(::getpid()) + ".db");
  struct Cleanup {
    std::filesystem::path path;
    ~Cleanup() {
      std::error_code ec;
      for (const char* suffix : {"", "-wal", "-shm"})
        std::filesystem::remove(path.string() + suffix, ec);
    }
  } cleanup{scratch};
  { db::Database create(scratch.string(), db::OpenMode::read_write, kernel_families()); }
  hot_path(o, scratch.string());
  first_call(o, scratch.string());
  throughput(o);
}
}  // namespace

static void add_bench_dispatch_command(CLI::App& app) {
  auto o = std::make_shared<BenchOptions>();
  auto* cmd = app.add_subcommand(
      "bench-dispatch", "Measure the dispatcher's overhead, first-call cost and throughput");
  add_old_spelling(
      cmd, cmd->add_option("--gpu", o->device, "CUDA device ordinal")->capture_default_str(),
      "--device", o->device);
  cmd->add_option("--calls", o->calls, "Hot calls to average over")->capture_default_str();
  cmd->add_option("--first-call-reps", o->first_call_reps, "Fresh-dispatcher repetitions")
      ->capture_default_str();
  cmd->add_option("--hot-shape", o->hot_shape,
                  "Small problem MxNxK for the hot path and first call")
      ->capture_default_str();
  cmd->add_option("--shape", o->throughput_shapes,
                  "Problem MxNxK for the throughput table (repeatable)")
      ->capture_default_str();
  cmd->add_option("--db", o->db_path, db_option_help("Tuned database for the throughput table"));
  cmd->callback([o] { run_bench(*o); });
}

static const Registration kRegistration("bench-dispatch", add_bench_dispatch_command);

}  // namespace gemmtune::cli
