#pragma once
// The rows of the tuning database as C++ values. Plain data: the database knows nothing of CUDA or
// of the runtime's types (runtime/src/db_rows.cpp converts GemmConfig <-> KernelConfig), nor of
// any kernel family but what a FamilySchema (family.hpp) tells it.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune::db {

/// Row id of any table.
using Id = std::int64_t;

/// A GPU model: the database's device key is (name, cc_major, cc_minor, sm_count).
struct GpuModel {
  std::string name;                       ///< e.g. "NVIDIA H200"
  int cc_major = 0;                       ///< compute capability, major
  int cc_minor = 0;                       ///< compute capability, minor
  int sm_count = 0;                       ///< multiprocessors
  std::int64_t memory_bytes = 0;          ///< global memory
  std::int64_t l2_bytes = 0;              ///< L2 cache
  std::int64_t smem_per_block_optin = 0;  ///< shared memory a block may opt in to
  std::int64_t clock_khz = 0;             ///< peak SM clock
};

/// The ceilings measured on a GPU model (an FMA loop and a device-to-device copy), measured once
/// and stored: what "% of peak" and the report's roofline read against.
struct MeasuredCeilingsRow {
  double fp32_tflops = 0;        ///< FMA throughput, TFLOP/s (2 FLOP per FMA)
  double copy_gbs = 0;           ///< device copy, bytes read + written per second / 1e9
  std::string measured_at;       ///< UTC, ISO 8601; set by the database
  std::string gemmtune_version;  ///< of the gemmtune that measured them
};

/// The environment of one sweep, as begin_sweep() records it.
struct SweepInfo {
  Id gpu_model_id = 0;
  std::string driver_version;   ///< e.g. "13.0"
  std::string runtime_version;  ///< CUDA runtime
  std::string nvrtc_version;
  std::string gemmtune_version;
  std::string command_line;   ///< as typed, for reproducing the sweep
  std::string strategy;       ///< search strategy name
  std::string template_hash;  ///< version of the kernel templates; prune() drops stale ones
  std::string hostname;
};

/// A sweep as stored.
struct SweepRow {
  Id id = 0;
  std::string uid;  ///< random, unique across databases: merge's key for sweeps
  SweepInfo info;
  std::string started_at;                  ///< UTC, ISO 8601 (YYYY-MM-DDTHH:MM:SS.SSSZ)
  std::optional<std::string> finished_at;  ///< empty while running (or if the sweep died)
};

/// A problem class: the key results are stored under. Unique on all fields.
struct ProblemKey {
  std::string dtype = "f32";
  char op_a = 'n';  ///< 'n' or 't'
  char op_b = 'n';  ///< 'n' or 't'
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 1;
  int alignment = 4;  ///< alignment class: widest vector (1, 2 or 4 floats) the data allows
  bool operator==(const ProblemKey&) const = default;
};

/// One kernel configuration as stored: its family, its procedural name (the key within the
/// family), the layout, and its knob values by column (the family declares the columns:
/// FamilySchema).
struct KernelConfig {
  std::string family;  ///< e.g. "sgemm"
  std::string name;    ///< e.g. "sgemm_nn_128x128x8_w64x32_t8x8_s2_v4_p4_k1_r8"
  char op_a = 'n';
  char op_b = 'n';
  /// Knob column -> value. As read: every knob column that holds a value in the row; a column
  /// that holds NULL (a knob of another family, or one the writer did not know yet, whose
  /// default its config ran with) is left out.
  std::map<std::string, int, std::less<>> knobs;
  bool operator==(const KernelConfig&) const = default;
};

/// Outcome of trying one config on one problem. Failures are data: they are kept, with their cause.
enum class Status { ok, invalid, compile_failed, launch_failed, wrong_result, timeout, pruned };

/// The status as stored: "ok", "invalid", "compile_failed", ...
std::string_view status_name(Status s);
/// Parses a stored status; empty when unknown.
std::optional<Status> parse_status(std::string_view s);

/// One measured (or failed) config on one problem, as record_results() takes it.
struct Result {
  Id problem_id = 0;
  Id config_id = 0;
  Status status = Status::ok;
  std::optional<double> median_ms, min_ms, max_ms;  ///< required when ok
  int repetitions = 0;
  std::optional<double> tflops;
  std::optional<double> rel_error;  ///< vs the float64 reference, on the random inputs
  /// The same on the wide-range inputs (docs/precision.md); empty where they were not used.
  std::optional<double> wide_error;
  std::optional<std::int64_t> registers, spill_bytes, smem_bytes;
  std::string error;  ///< why it failed; empty when ok
};

/// A stored result with its config, as results_for() returns it.
struct ResultRow {
  Id id = 0;
  Id sweep_id = 0;
  Result result;
  KernelConfig config;
  std::string recorded_at;
};

/// A library's time for a problem in a sweep (cuBLAS), for the speedup ratio.
struct Baseline {
  Id problem_id = 0;
  std::string library = "cublas";
  std::optional<double> median_ms, min_ms, max_ms, tflops;
};

/// The best ok result of a (GPU model, problem): a row of the best_results view.
struct BestRow {
  Id gpu_model_id = 0;
  Id problem_id = 0;
  ProblemKey problem;
  Id config_id = 0;
  KernelConfig config;
  Id result_id = 0;
  Id sweep_id = 0;
  double median_ms = 0;
  std::optional<double> min_ms, max_ms, tflops;
  std::optional<double> cublas_median_ms;  ///< cuBLAS in the same sweep, when measured
  std::optional<double> rel_error;         ///< its verification's relative error (random inputs)
  std::optional<double> wide_error;        ///< the same on wide-range inputs, when measured
  /// cuBLAS time / our time: above 1 means faster than cuBLAS.
  std::optional<double> speedup_vs_cublas() const {
    if (!cublas_median_ms || median_ms <= 0) return std::nullopt;
    return *cublas_median_ms / median_ms;
  }
};

/// The config that is best for the most problems of a GPU model (the dispatcher's fallback).
struct CommonBest {
  Id config_id = 0;
  KernelConfig config;
  std::int64_t problems = 0;  ///< how many problems it is best for
};

/// A compiled kernel in the binary cache.
struct Binary {
  std::string key;   ///< hash of template source + options + arch + NVRTC version (caller's)
  std::string arch;  ///< e.g. "sm_90"
  std::string nvrtc_version;
  std::string config_name;
  std::string lowered_name;  ///< mangled kernel name to look up in the module
  std::vector<std::byte> cubin;
  std::optional<std::int64_t> registers, spill_bytes, smem_bytes;
};

/// What get_binary() found. A stored blob whose hash does not match is a miss, reported in
/// `corrupt`.
struct BinaryLookup {
  std::optional<Binary> binary;  ///< set on a verified hit
  std::string corrupt;           ///< non-empty when a corrupt entry was found: log it
};

/// 64-bit FNV-1a of `bytes`, as 16 lowercase hex digits: the binary-cache key of source + options
/// + arch, the template hash, and the content hash of binaries stored by gemmtune before
/// 2026-12-02 (get_binary() treats those as misses). Not a cryptographic hash: anyone can make
/// bytes with a given value.
std::string content_hash(const std::vector<std::byte>& bytes);
/// The same hash of any bytes.
std::string content_hash(std::string_view bytes);

/// SHA-256 of `bytes` (FIPS 180-4), as 64 lowercase hex digits: the content hash of a cached
/// binary, checked on every read.
std::string sha256_hex(std::string_view bytes);
/// The same hash of a blob.
std::string sha256_hex(const std::vector<std::byte>& bytes);

}  // namespace gemmtune::db
