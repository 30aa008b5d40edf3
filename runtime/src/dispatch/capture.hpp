#pragma once
// CUDA Graph capture: the slow paths (compiling, loading, allocating, synchronising) must not run
// while the caller's stream is being captured; they refuse with Status::kNotPrepared instead.
#include <cuda_runtime_api.h>

#include <string>

#include "gemmtune/error.hpp"

namespace gemmtune::detail {

/// Whether `stream` is being captured (an invalidated capture counts). The legacy default
/// stream, which cannot be captured, reports an implicit capture of another stream: counted too.
inline bool is_capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  const cudaError_t e = cudaStreamIsCapturing(stream, &status);
  if (e == cudaErrorStreamCaptureImplicit) {
    (void)cudaGetLastError();  // the runtime recorded the error: clear it for the caller
    return true;
  }
  GEMMTUNE_CUDA(e);
  return status != cudaStreamCaptureStatusNone;
}

/// Throws Error(kNotPrepared) saying what `step` would do, when `stream` is being captured.
inline void refuse_if_capturing(cudaStream_t stream, const std::string& step) {
  if (is_capturing(stream))
    throw Error(Status::kNotPrepared,
                step +
                    " while the stream is being captured into a CUDA Graph: call "
                    "prepare() (gemmtune_prepare) with this problem before capturing");
}

}  // namespace gemmtune::detail
