#include "gemmtune/tuner/compile_pool.hpp"

#include <algorithm>
#include <filesystem>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/threads.hpp"

namespace gemmtune::tuner {

PoolStats& PoolStats::operator+=(const PoolStats& o) {
  compiles += o.compiles, compile_s += o.compile_s, cache_hits += o.cache_hits;
  skipped += o.skipped;
  return *this;
}

db::Binary to_binary(const CompiledCandidate& c, const std::string& arch) {
  return gemmtune::to_binary(c.config, arch, c.cache_key, {c.cubin, c.lowered_name, c.resources});
}

// A read-only connection for binary-cache look-ups; none when the file cannot be opened (the
// cache is an optimisation: without it everything is compiled).
static std::unique_ptr<db::Database> open_cache(const std::string& path) {
  if (path.empty() || !std::filesystem::exists(path)) return nullptr;
  try {
    return std::make_unique<db::Database>(path, db::OpenMode::read_only, kernel_families());
  } catch (const std::exception&) {
    return nullptr;
  }
}

CompilePool::CompilePool(std::string arch, std::string db_path, unsigned threads,
                         std::size_t look_ahead, std::size_t kept_bytes)
    : arch_(std::move(arch)), db_path_(std::move(db_path)) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  look_ahead_ = look_ahead ? look_ahead : 4 * threads;
  next_threads_ = std::max(1u, threads / 2);
  max_kept_bytes_ = kept_bytes ? kept_bytes : std::size_t(256) << 20;
  const auto run = [this] { work(); };
  const auto stop = [this] { stop_workers(); };
  workers_ = start_threads(threads, run, stop, "compile threads");
  consumer_cache_ = open_cache(db_path_).release();  // after the throw above: nothing to leak
}

CompilePool::~CompilePool() {
  stop_workers();
  for (auto& t : workers_) t.join();
  delete static_cast<db::Database*>(consumer_cache_);
}

void CompilePool::stop_workers() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
    next_.clear();
  }
  work_cv_.notify_all();
}

std::shared_ptr<CompiledCandidate> CompilePool::build(const GemmConfig& config, void* cache) {
  auto out = std::make_shared<CompiledCandidate>();
  out->config = config;
  out->cache_key = binary_key(config, arch_);
  if (auto* db = static_cast<db::Database*>(cache)) {
    try {
      db::BinaryLookup hit = db->get_binary(out->cache_key);
      std::optional<CompiledKernel> k;
      if (hit.binary) k = from_binary(config, arch_, *hit.binary);  // checked; else compiled
      if (k) {
        {
          std::lock_guard lock(mutex_);
          ++stats_.cache_hits;
        }
        out->ok = true;
        out->from_cache = true;
        out->origin = CompileOrigin::cache;
        out->cubin = std::move(k->cubin);
        out->lowered_name = std::move(k->lowered_name);
        out->resources = k->resources;
        return out;
      }
    } catch (const std::exception&) {
      // An unreadable cache entry is a miss: compile.
    }
  }
  CompileResult r = compile_config(config, arch_);
  {
    std::lock_guard lock(mutex_);
    ++stats_.compiles;
    stats_.compile_s += r.seconds;
  }
  out->ok = r.ok;
  out->log = std::move(r.log);
  out->cubin = std::move(r.cubin);
  out->lowered_name = std::move(r.lowered_name);
  out->resources = r.resources;
  return out;
}

// The result of a config NVRTC could not run for at all: a compile failure, with the reason.
static std::shared_ptr<CompiledCandidate> failed(const GemmConfig& config, const char* why) {
  auto result = std::make_shared<CompiledCandidate>();
  result->config = config;
  result->log = why;
  return result;
}

void CompilePool::keep(const std::string& binary, std::shared_ptr<const CompiledCandidate> result,
                       bool ahead) {
  Kept& k = kept_[binary];
  if (!k.result) kept_order_.push_back(binary);
  kept_bytes_ -= k.bytes;
  if (k.ahead) --ahead_;
  k.result = std::move(result);
  k.bytes = k.result->cubin.size() + k.result->log.size();
  k.ahead = ahead;
  kept_bytes_ += k.bytes;
  if (ahead) ++ahead_;
  while (kept_bytes_ > max_kept_bytes_ && kept_order_.size() > 1) {
    auto oldest = kept_.find(kept_order_.front());
    kept_order_.pop_front();
    kept_bytes_ -= oldest->second.bytes;
    if (oldest->second.ahead) --ahead_;
    kept_.erase(oldest);
  }
}

std::shared_ptr<CompiledCandidate> CompilePool::hand_out(Kept& kept, const GemmConfig& config) {
  auto out = std::make_shared<CompiledCandidate>(*kept.result);
  out->config = config;
  if (kept.taken) out->origin = CompileOrigin::reused;
  out->from_cache = out->origin != CompileOrigin::compiled;
  kept.taken = true;
  if (kept.ahead) {
    kept.ahead = false;
    --ahead_;
    work_cv_.notify_all();  // room ahead again
  }
  return out;
}

bool CompilePool::may_take_next() const {
  return queue_.empty() && !next_.empty() && next_running_ < next_threads_;
}

void CompilePool::work() {
  std::unique_ptr<db::Database> cache = open_cache(db_path_);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock, [&] {
      return stopping_ || (!queue_.empty() && ahead_ < look_ahead_) || may_take_next();
    });
    if (stopping_) return;
    // The current plan first; the next problem's first round only with its queue empty.
    const bool next = queue_.empty();
    std::deque<GemmConfig>& from = next ? next_ : queue_;
    GemmConfig config = from.front();
    from.pop_front();
    std::string binary = binary_identity(config, arch_);
    if (kept_.count(binary) || running_.count(binary)) {
      ++stats_.skipped;
      done_cv_.notify_all();  // the queue may be empty now (wait_idle)
      continue;
    }
    running_.insert(binary);
    if (next) ++next_running_;
    std::size_t generation = generation_;
    lock.unlock();
    std::shared_ptr<CompiledCandidate> result;
    try {
      result = build(config, cache.get());
    } catch (const std::exception& e) {  // NVRTC could not run at all
      result = failed(config, e.what());
    }
    lock.lock();
    running_.erase(binary);
    if (next) {
      --next_running_;
      work_cv_.notify_all();  // room for another of next_
    }
    // The next problem's results are not ahead of the current plan: they wait for its start.
    keep(binary, std::move(result), !next && generation == generation_);
    done_cv_.notify_all();
  }
}

void CompilePool::enqueue(const std::vector<GemmConfig>& configs) {
  {
    std::lock_guard lock(mutex_);
    queue_.assign(configs.begin(), configs.end());
  }
  work_cv_.notify_all();
}

void CompilePool::enqueue_next(const std::vector<GemmConfig>& configs) {
  {
    std::lock_guard lock(mutex_);
    next_.assign(configs.begin(), configs.end());
  }
  work_cv_.notify_all();
}

std::shared_ptr<CompiledCandidate> CompilePool::take(const GemmConfig& config) {
  const std::string binary = binary_identity(config, arch_);
  {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return kept_.count(binary) || !running_.count(binary); });
    if (auto it = kept_.find(binary); it != kept_.end()) return hand_out(it->second, config);
    const auto same = [&](const GemmConfig& c) { return binary_identity(c, arch_) == binary; };
    std::erase_if(queue_, same);
    std::erase_if(next_, same);
    running_.insert(binary);
  }
  std::shared_ptr<CompiledCandidate> result;
  try {
    result = build(config, consumer_cache_);
  } catch (const std::exception& e) {
    result = failed(config, e.what());
  }
  std::lock_guard lock(mutex_);
  running_.erase(binary);
  keep(binary, std::make_shared<const CompiledCandidate>(*result), false);
  if (auto it = kept_.find(binary); it != kept_.end()) it->second.taken = true;
  done_cv_.notify_all();
  return result;
}

void CompilePool::clear() {
  {
    std::lock_guard lock(mutex_);
    queue_.clear();
    for (auto& [binary, kept] : kept_) kept.ahead = false;
    ahead_ = 0;
    ++generation_;
  }
  work_cv_.notify_all();
}

void CompilePool::wait_idle() {
  std::unique_lock lock(mutex_);
  next_.clear();
  // A queue held back by the look-ahead waits for takes: that is idle too.
  done_cv_.wait(lock, [&] {
    return running_.empty() && (queue_.empty() || ahead_ >= look_ahead_ || stopping_);
  });
}

PoolStats CompilePool::stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace gemmtune::tuner
