#include "gemmtune/tuner/compile_pool.hpp"

#include <algorithm>
#include <filesystem>

#include "gemmtune/db/database.hpp"
#include "gemmtune/db_rows.hpp"
#include "gemmtune/kernel.hpp"
#include "gemmtune/tuner/threads.hpp"

namespace gemmtune::tuner {

void CompileCounts::add(CompileOrigin origin) {
  switch (origin) {
    case CompileOrigin::compiled: ++compiled; break;
    case CompileOrigin::cache: ++cached; break;
    case CompileOrigin::reused: ++reused; break;
  }
}

CompileCounts& CompileCounts::operator+=(const CompileCounts& o) {
  compiled += o.compiled, cached += o.cached, reused += o.reused;
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
    return std::make_unique<db::Database>(path, db::OpenMode::read_only);
  } catch (const std::exception&) {
    return nullptr;
  }
}

CompilePool::CompilePool(std::string arch, std::string db_path, unsigned threads,
                         std::size_t look_ahead)
    : arch_(std::move(arch)), db_path_(std::move(db_path)) {
  if (threads == 0) threads = std::max(1u, std::thread::hardware_concurrency());
  look_ahead_ = look_ahead ? look_ahead : 4 * threads;
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

void CompilePool::work() {
  std::unique_ptr<db::Database> cache = open_cache(db_path_);
  std::unique_lock lock(mutex_);
  for (;;) {
    work_cv_.wait(lock,
                  [&] { return stopping_ || (!queue_.empty() && done_.size() < look_ahead_); });
    if (stopping_) return;
    GemmConfig config = queue_.front();
    queue_.pop_front();
    std::string name = config_name(config);
    std::size_t generation = generation_;
    ++running_[name];
    lock.unlock();
    std::shared_ptr<CompiledCandidate> result;
    try {
      result = build(config, cache.get());
    } catch (
        const std::exception& e) {  // NVRTC could not run at all: a compile failure of this config
      result = std::make_shared<CompiledCandidate>();
      result->config = config;
      result->log = e.what();
    }
    lock.lock();
    if (--running_[name] == 0) running_.erase(name);
    if (generation == generation_) done_[name] = std::move(result);
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

std::shared_ptr<CompiledCandidate> CompilePool::take(const GemmConfig& config) {
  std::string name = config_name(config);
  {
    std::unique_lock lock(mutex_);
    done_cv_.wait(lock, [&] { return done_.count(name) || !running_.count(name); });
    if (auto it = done_.find(name); it != done_.end()) {
      auto result = std::move(it->second);
      done_.erase(it);
      work_cv_.notify_all();  // room ahead again
      return result;
    }
    auto queued = std::find(queue_.begin(), queue_.end(), config);
    if (queued != queue_.end()) queue_.erase(queued);
  }
  try {
    return build(config, consumer_cache_);
  } catch (const std::exception& e) {
    auto result = std::make_shared<CompiledCandidate>();
    result->config = config;
    result->log = e.what();
    return result;
  }
}

void CompilePool::wait_idle() {
  std::unique_lock lock(mutex_);
  done_cv_.wait(lock, [&] { return queue_.empty() && running_.empty(); });
}

PoolStats CompilePool::stats() {
  std::lock_guard lock(mutex_);
  return stats_;
}

void CompilePool::clear() {
  {
    std::lock_guard lock(mutex_);
    queue_.clear();
    done_.clear();
    ++generation_;
  }
  work_cv_.notify_all();
}

}  // namespace gemmtune::tuner
