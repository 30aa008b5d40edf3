#pragma once
// WorkspaceAllocator: workspace memory of a Dispatcher from the caller's allocator
// (DispatcherOptions::workspace_allocator; the C API's gemmtune_options.workspace_alloc).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace gemmtune {

/// Where a Dispatcher gets its workspace memory (split-K tile counters, repacked and split
/// operands), as cublasSetWorkspace lets a framework hand cuBLAS its own memory. Both null (the
/// default): cudaMalloc and cudaFree. Else both are set: `allocate` returns `bytes` of device
/// memory of the dispatcher's device (current when it is called), aligned to 256 bytes, usable in
/// the order of `stream`, or null when out of memory; `free` gets back a pointer `allocate`
/// returned, with its size and stream, once no launch enqueued by the dispatcher can use it any
/// more (after waiting for that stream, or for the device when the dispatcher is destroyed). Called
/// only outside CUDA Graph capture, under the dispatcher's workspace lock, never at the same time
/// from two threads. PyTorch's caching allocator fits: raw_alloc_with_stream and raw_delete.
struct WorkspaceAllocator {
  void* (*allocate)(std::size_t bytes, cudaStream_t stream, void* user_data) = nullptr;
  void (*free)(void* ptr, std::size_t bytes, cudaStream_t stream, void* user_data) = nullptr;
  void* user_data = nullptr;  ///< passed to both
};

}  // namespace gemmtune
