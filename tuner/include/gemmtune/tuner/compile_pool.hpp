#pragma once
// Compiles candidates ahead of the GPU on every core (NVRTC is thread-safe): a producer/consumer
// queue whose workers look each config up in the database's binary cache first, compile it on a
// miss, and hand the result to the GPU thread, which asks for configs in the planned order.
// Results are kept by binary (binary_identity), not by config name: a binary is compiled once in
// the pool's life, whichever config, problem or plan asks for it again.
// A second, lower-priority queue holds the next problem's first round (enqueue_next): the threads
// the current plan leaves idle compile it, so that the next problem does not start by waiting.
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "gemmtune/compiler.hpp"
#include "gemmtune/db/records.hpp"
#include "gemmtune/sgemm/config.hpp"
#include "gemmtune/tuner/compile_counts.hpp"

namespace gemmtune::tuner {

/// What a pool did since it started: its NVRTC compiles and binary-cache hits, whoever asked.
struct PoolStats {
  std::size_t compiles = 0;    ///< NVRTC runs (the workers' and the consumer's)
  double compile_s = 0;        ///< their seconds, summed over threads
  std::size_t cache_hits = 0;  ///< configs read from the binary cache instead
  std::size_t skipped = 0;     ///< queued configs not compiled: done or being compiled already
  PoolStats& operator+=(const PoolStats& o);
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
  std::string cache_key;  ///< binary_key(config, arch)
};

/// The binary-cache row of a successful compile, for Database::put_binary.
db::Binary to_binary(const CompiledCandidate& c, const std::string& arch);

/// A pool of compile threads. All methods are called from one consumer thread (the GPU's).
class CompilePool {
 public:
  /// `threads` workers (0: one per core) compile for `arch`; each opens `db_path` read-only for
  /// binary-cache look-ups (empty: no cache). Workers stay at most `look_ahead` results ahead of
  /// the consumer (0: 4 per worker). Finished results are kept for the pool's life, up to
  /// `kept_bytes` of cubins and logs (0: 256 MiB; the oldest go first).
  CompilePool(std::string arch, std::string db_path, unsigned threads = 0,
              std::size_t look_ahead = 0, std::size_t kept_bytes = 0);
  /// Stops the workers; queued work is dropped.
  ~CompilePool();
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;

  /// Replaces the queue with `configs`, to be compiled in this order; those whose binary is done
  /// or being compiled already are skipped.
  void enqueue(const std::vector<GemmConfig>& configs);
  /// Replaces the lower-priority queue with `configs`, the next problem's first round: compiled
  /// in this order only by workers the current plan leaves idle (its queue empty), at most half
  /// the threads at once (at least one). Its results are kept like any other, but are never
  /// `ahead` of the current plan (look_ahead). clear() keeps this queue; wait_idle() and stopping
  /// drop it.
  void enqueue_next(const std::vector<GemmConfig>& configs);
  /// The result for `config`: its binary's kept result, waited for if a worker is compiling it,
  /// else looked up or compiled on the calling thread. `origin` says which, and `reused` once
  /// the binary was taken before.
  std::shared_ptr<CompiledCandidate> take(const GemmConfig& config);
  /// Drops the queue (not the next problem's, enqueue_next); finished results stay for later
  /// takes (the next problem's), and the compiles in flight are kept when they end.
  void clear();
  /// Drops the next problem's queue (enqueue_next), then waits until no worker is compiling and
  /// none will start before the next take (after clear(): until the compiles in flight have
  /// ended).
  void wait_idle();
  /// Number of worker threads.
  unsigned threads() const { return unsigned(workers_.size()); }
  /// Its counters so far.
  PoolStats stats();

 private:
  // A finished result, shared by every config of its binary.
  struct Kept {
    std::shared_ptr<const CompiledCandidate> result;
    bool taken = false;  // handed out before: later takes are `reused`
    bool ahead = false;  // finished for the current plan, not taken yet: counts against look_ahead
    std::size_t bytes = 0;
  };
  void work();
  // Under the lock: whether a worker may take from next_ now.
  bool may_take_next() const;
  void stop_workers();
  std::shared_ptr<CompiledCandidate> build(const GemmConfig& config, void* cache);
  // Stores a finished result under its binary; drops the oldest past the memory bound.
  void keep(const std::string& binary, std::shared_ptr<const CompiledCandidate> result, bool ahead);
  // A copy of a kept result for `config`, marked taken. Under the lock.
  std::shared_ptr<CompiledCandidate> hand_out(Kept& kept, const GemmConfig& config);

  std::string arch_, db_path_;
  std::size_t look_ahead_, max_kept_bytes_;
  std::mutex mutex_;
  std::condition_variable work_cv_, done_cv_;
  std::deque<GemmConfig> queue_;
  std::deque<GemmConfig> next_;         // the next problem's first round, after queue_
  std::size_t next_running_ = 0;        // workers compiling from next_
  std::size_t next_threads_ = 1;        // at most this many of them
  std::map<std::string, Kept> kept_;    // binary identity -> result
  std::deque<std::string> kept_order_;  // binaries in the order kept, for the memory bound
  std::size_t kept_bytes_ = 0;
  std::size_t ahead_ = 0;          // kept results with `ahead` set
  std::set<std::string> running_;  // binaries being compiled by a worker
  std::size_t generation_ = 0;     // bumped by clear(): results of an older plan are not `ahead`
  bool stopping_ = false;
  std::vector<std::thread> workers_;
  void* consumer_cache_ = nullptr;  // the consumer thread's read-only connection
  PoolStats stats_;
};

}  // namespace gemmtune::tuner
