#include "runtime_state.hpp"

#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/util/Exception.h>

#include <cstdio>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <vector>

namespace gemmtune_torch {

namespace {

// Workspace memory (split-K counters, packed operands) from PyTorch's caching allocator, in the
// stream order of the launch that uses it, as cuBLAS's workspace is.
void* torch_allocate(std::size_t bytes, cudaStream_t stream, void*) {
  return c10::cuda::CUDACachingAllocator::raw_alloc_with_stream(bytes, stream);
}
void torch_free(void* ptr, std::size_t, cudaStream_t, void*) {
  c10::cuda::CUDACachingAllocator::raw_delete(ptr);
}

// The one place that reads the dispatcher's explanation of its choice (gemmtune::Explanation): who
// runs `p` and why, and the explanation as text. gemmtune runs a problem class only when the
// database holds a tuned result for it (exact or nearest shape) whose kernel measured faster
// than cuBLAS in the same sweep.
Decision judge(const gemmtune::Dispatcher& dispatcher, const gemmtune::Problem& p,
               std::string* explanation = nullptr) {
  using gemmtune::ChoiceSource;
  if (p.m < 1 || p.n < 1 || p.k < 1 || p.batch < 1) return {false, "PyTorch: an empty product"};
  const gemmtune::Explanation choice = dispatcher.explain(p);
  if (explanation) *explanation = choice.to_string();
  if (choice.source != ChoiceSource::exact && choice.source != ChoiceSource::nearest)
    return {false, std::string("PyTorch: no tuned result for this problem or a near one (the "
                               "kernel's source is ") +
                       gemmtune::choice_source_name(choice.source) + ")"};
  if (!choice.tuned || !choice.tuned->cublas_median_ms)
    return {false, "PyTorch: the tuned result has no cuBLAS time to compare with"};
  const double ours = choice.tuned->median_ms, theirs = *choice.tuned->cublas_median_ms;
  char text[160];
  std::snprintf(text, sizeof text, "%.4f ms, cuBLAS %.4f ms (%s %s)", ours, theirs,
                gemmtune::choice_source_name(choice.source), choice.tuned->problem.c_str());
  if (ours < theirs) return {true, std::string("gemmtune: tuned ") + text};
  return {false, std::string("PyTorch: the tuned kernel was not faster than cuBLAS: ") + text};
}

struct Key {
  bool ta, tb;
  int m, n, k, batch, alignment;
  bool operator==(const Key& o) const {
    return ta == o.ta && tb == o.tb && m == o.m && n == o.n && k == o.k && batch == o.batch &&
           alignment == o.alignment;
  }
};
struct KeyHash {
  std::size_t operator()(const Key& key) const {
    std::size_t h =
        std::size_t(key.ta) | std::size_t(key.tb) << 1 | std::size_t(key.alignment) << 2;
    for (int v : {key.m, key.n, key.k, key.batch}) h = h * 1000003u ^ std::size_t(unsigned(v));
    return h;
  }
};

struct Device {
  std::unique_ptr<gemmtune::Dispatcher> dispatcher;
  bool fallback = true;  // Settings::fallback == "torch" when created
  std::shared_mutex mutex;
  std::unordered_map<Key, bool, KeyHash> decisions;
};

struct Registry {
  std::mutex mutex;
  Settings settings;
  std::vector<std::shared_ptr<Device>> devices;
};

// Never destroyed: at process exit PyTorch's allocator and the CUDA context may already be gone.
Registry& registry() {
  static Registry* r = new Registry();
  return *r;
}

gemmtune::DbAccess db_access_of(const std::string& name) {
  if (name == "automatic") return gemmtune::DbAccess::automatic;
  if (name == "read_only") return gemmtune::DbAccess::read_only;
  if (name == "read_write") return gemmtune::DbAccess::read_write;
  if (name == "none") return gemmtune::DbAccess::none;
  TORCH_CHECK_VALUE(false, "db_access = '", name,
                    "': use one of automatic, read_only, read_write, none");
}

gemmtune::Precision precision_of(const std::string& name) {
  if (name == "ieee") return gemmtune::Precision::ieee;
  if (name == "fp32") return gemmtune::Precision::fp32;
  if (name == "tf32") return gemmtune::Precision::tf32;
  TORCH_CHECK_VALUE(false, "precision = '", name, "': use one of ieee, fp32, tf32");
}

std::shared_ptr<Device> device_state(int device) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  TORCH_CHECK_VALUE(device >= 0, "device = ", device, ": a CUDA device ordinal is at least 0");
  if (std::size_t(device) >= r.devices.size()) r.devices.resize(device + 1);
  std::shared_ptr<Device>& d = r.devices[device];
  if (!d) {
    gemmtune::DispatcherOptions options;
    options.db_path = r.settings.db_path.value_or("");
    options.device = device;
    options.db_access = db_access_of(r.settings.db_access);
    options.verbose = r.settings.verbose;
    options.deterministic = r.settings.deterministic;
    options.precision = precision_of(r.settings.precision);
    options.workspace_allocator.allocate = torch_allocate;
    options.workspace_allocator.free = torch_free;
    auto created = std::make_shared<Device>();
    created->dispatcher = std::make_unique<gemmtune::Dispatcher>(options);  // throws without a GPU
    created->fallback = r.settings.fallback == "torch";
    d = std::move(created);
  }
  return d;
}

}  // namespace

void configure(const Settings& settings) {
  db_access_of(settings.db_access);
  precision_of(settings.precision);
  TORCH_CHECK_VALUE(settings.fallback == "torch" || settings.fallback == "never", "fallback = '",
                    settings.fallback,
                    "': use torch (PyTorch runs what gemmtune has not measured faster) or never");
  std::vector<std::shared_ptr<Device>> dropped;
  {
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.settings = settings;
    dropped.swap(r.devices);
  }
  // Destroyed here, outside the lock: each waits for its device.
}

std::shared_ptr<gemmtune::Dispatcher> gemmtune_for(int device, const gemmtune::Problem& p) {
  std::shared_ptr<Device> d = device_state(device);
  std::shared_ptr<gemmtune::Dispatcher> dispatcher(d, d->dispatcher.get());  // keeps `d` alive
  if (!d->fallback) return dispatcher;
  const Key key{
      p.op_a == gemmtune::Op::T, p.op_b == gemmtune::Op::T, p.m, p.n, p.k, p.batch, p.alignment()};
  bool gemmtune = false;
  {
    std::shared_lock lock(d->mutex);
    auto found = d->decisions.find(key);
    if (found != d->decisions.end()) return found->second ? dispatcher : nullptr;
  }
  gemmtune = judge(*d->dispatcher, p).gemmtune;
  std::unique_lock lock(d->mutex);
  d->decisions.emplace(key, gemmtune);
  return gemmtune ? dispatcher : nullptr;
}

std::string explain(int device, const gemmtune::Problem& p) {
  std::shared_ptr<Device> d = device_state(device);
  std::string text;
  const Decision decision = judge(*d->dispatcher, p, &text);
  if (!text.empty() && text.back() != '\n') text += '\n';
  const std::string& database = d->dispatcher->database_path();
  text += "database " + (database.empty() ? std::string("none") : database) + "\n";
  if (!d->fallback)
    return text + "runs     gemmtune: configure(fallback=\"never\") (else " + decision.reason +
           ")\n";
  return text + "runs     " + decision.reason + "\n";
}

}  // namespace gemmtune_torch
