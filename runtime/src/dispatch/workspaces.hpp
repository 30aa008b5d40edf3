#pragma once
// Launch workspaces of a dispatcher (split-K's tile counters, repack's packed operands), one per
// stream: launches on one stream run in order, so they can share them; launches on two streams
// may overlap, so they must not. Launches that need no workspace never come here.
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "gemmtune/kernel.hpp"

namespace gemmtune::detail {

class WorkspacePool {
 public:
  /// Launches `kernel` on `p` with `stream`'s workspace. Holds the pool's lock for the launch
  /// (host-side microseconds), so that threads sharing a stream do not grow its workspace at once.
  void launch(const GemmKernel& kernel, const Problem& p, cudaStream_t stream) {
    std::lock_guard lock(mutex_);
    // cudaStreamPerThread names a different stream in every thread.
    std::thread::id owner = stream == cudaStreamPerThread ? std::this_thread::get_id() : std::thread::id();
    std::unique_ptr<LaunchWorkspace>& ws = workspaces_[{stream, owner}];
    if (!ws) ws = std::make_unique<LaunchWorkspace>();
    kernel.launch(p, stream, ws.get());
  }

 private:
  std::mutex mutex_;
  std::map<std::pair<cudaStream_t, std::thread::id>, std::unique_ptr<LaunchWorkspace>> workspaces_;
};

}  // namespace gemmtune::detail
