#pragma once
// Compiles candidates ahead of the GPU on every core (NVRTC is thread-safe): a producer/consumer
// queue whose workers look each config up in the database's binary cache first, compile it on a
// miss, and hand the result to the GPU thread, which asks for configs in the planned order.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/config.hpp"
#include "gemmtune/db/records.hpp"

namespace gemmtune::tuner {

/// Where a compiled candidate handed to the consumer came from.
enum class CompileOrigin {
  compiled,  ///< NVRTC compiled it, and no one has taken it before: store it in the binary cache
  cache,     ///< read from the database's binary cache
  reused,    ///< taken before in this pool's life (another problem, class or plan): stored already
};

/// How many of the candidates a consumer took came from where.
struct CompileCounts {
  std::size_t compiled = 0;  ///< compiled by NVRTC for it
  std::size_t cached = 0;    ///< from the database's binary cache
  std::size_t reused = 0;    ///< compiled earlier in the pool's life
  /// Adds one take of `origin`.
  void add(CompileOrigin origin);
  /// All takes.
  std::size_t total() const { return compiled + cached + reused; }
  CompileCounts& operator+=(const CompileCounts& o);
};

/// What a pool did since it started: its NVRTC compiles and binary-cache hits, whoever asked.
struct PoolStats {
  std::size_t compiles = 0;    ///< NVRTC runs (the workers' and the consumer's)
  double compile_s = 0;        ///< their seconds, summed over threads
  std::size_t cache_hits = 0;  ///< configs read from the binary cache instead
  std::size_t skipped = 0;     ///< queued configs not compiled: done or being compiled already
};

/// One compiled (or failed) candidate.
struct CompiledCandidate {
  GemmConfig config;
  bool ok = false;
  std::string log;  ///< NVRTC's log when the compile failed
  std::vector<char> cubin;
  std::string lowered_name;
  KernelResources resources;
  bool from_cache = false;  ///< origin is not `compiled`: no need to store it again
  CompileOrigin origin = CompileOrigin::compiled;
  std::string cache_key;    ///< binary_key(config, arch)
};

/// The binary-cache row of a successful compile, for Database::put_binary.
db::Binary to_binary(const CompiledCandidate& c, const std::string& arch);

/// A pool of compile threads. All methods are called from one consumer thread (the GPU's).
class CompilePool {
 public:
  /// `threads` workers (0: one per core) compile for `arch`; each opens `db_path` read-only for
  /// binary-cache look-ups (empty: no cache). Workers stay at most `look_ahead` results ahead of
  /// the consumer (0: 4 per worker), which bounds the memory held in cubins.
  CompilePool(std::string arch, std::string db_path, unsigned threads = 0,
              std::size_t look_ahead = 0);
  /// Stops the workers; queued work is dropped.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  /// Replaces the queue with `configs`, to be compiled in this order.
  void enqueue(const std::vector<GemmConfig>& configs);
  /// The result for `config`: taken from the finished results (and removed there), waited for if
  /// a worker is compiling it, else looked up or compiled on the calling thread.
  std::shared_ptr<CompiledCandidate> take(const GemmConfig& config);
  /// Drops the queue and every finished result not yet taken.
  void clear();
  /// Waits until the queue is empty and no worker is compiling (after clear(): until the
  /// compiles in flight have ended).
  void wait_idle();
  /// Number of worker threads.
  unsigned threads() const { return unsigned(workers_.size()); }
  /// Its counters so far.
  PoolStats stats();

 private:
  void work();
  void stop_workers();  // each worker returns once its current compile ends
  std::shared_ptr<CompiledCandidate> build(const GemmConfig& config, void* cache);

  std::string arch_, db_path_;
  std::size_t look_ahead_;
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<GemmConfig> queue_;
  std::map<std::string, std::shared_ptr<CompiledCandidate>> done_;
  std::map<std::string, int> running_;  // name -> workers compiling it
  std::size_t generation_ = 0;  // bumped by clear(): results of an older generation are dropped
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  void* consumer_cache_ = nullptr;  // the consumer thread's read-only connection
  PoolStats stats_;
};

}  // namespace gemmtune::tuner
