#pragma once
// Launch workspaces of a dispatcher (split-K's tile counters, repack's packed operands), one per
// stream: launches on one stream run in order, so they can share them; launches on two streams
// may overlap, so they must not. Launches that need no workspace never come here.
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "capture.hpp"
#include "gemmtune/kernel.hpp"

namespace gemmtune::detail {

class WorkspacePool {
 public:
  /// Workspaces whose memory comes from `allocator` (both callbacks null: cudaMalloc).
  explicit WorkspacePool(WorkspaceAllocator allocator = {}) : allocator_(allocator) {}

  /// Launches `kernel` on `p` with `stream`'s workspace. Holds the pool's lock for the launch
  /// (host-side microseconds), so that threads sharing a stream do not grow its workspace at once.
  /// A workspace too small for `p` is not grown while `stream` is being captured: Error(kNotPrepared).
  void launch(const GemmKernel& kernel, const Problem& p, cudaStream_t stream) {
    std::lock_guard lock(mutex_);
    LaunchWorkspace& ws = of(stream);
    if (!ws.fits(kernel.config(), p))
      refuse_if_capturing(stream, "growing the launch workspace of " + p.label());
    kernel.launch(p, stream, &ws);
  }

  /// Grows `stream`'s workspace to fit a launch of `kernel` on `p` now (prepare, before capture).
  void reserve(const GemmKernel& kernel, const Problem& p, cudaStream_t stream) {
    std::lock_guard lock(mutex_);
    if (kernel.config().needs_workspace()) of(stream).prepare(kernel.config(), p, stream);
  }

 private:
  LaunchWorkspace& of(cudaStream_t stream) {
    // cudaStreamPerThread names a different stream in every thread.
    std::thread::id owner =
        stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id();
    std::unique_ptr<LaunchWorkspace>& ws = workspaces_[{stream, owner}];
    if (!ws) ws = std::make_unique<LaunchWorkspace>(allocator_);
    return *ws;
  }

  WorkspaceAllocator allocator_;
  std::mutex mutex_;
  std::map<std::pair<cudaStream_t, std::thread::id>, std::unique_ptr<LaunchWorkspace>> workspaces_;
};

}  // namespace gemmtune::detail
