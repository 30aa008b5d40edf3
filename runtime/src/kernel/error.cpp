#include "gemmtune/error.hpp"

#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include "gemmtune/db/error.hpp"
#include "gemmtune/logging.hpp"

namespace gemmtune {

const char* status_name(Status s) {
  switch (s) {
    case Status::kSuccess: return "success";
    case Status::kInvalidArgument: return "invalid argument";
    case Status::kNoDevice: return "no CUDA device";
    case Status::kCudaError: return "CUDA error";
    case Status::kCompileError: return "compile error";
    case Status::kDatabaseError: return "database error";
    case Status::kNotSupported: return "not supported";
    case Status::kInternal: return "internal error";
    case Status::kNotPrepared: return "not prepared for graph capture";
  }
  return "unknown status";
}

namespace detail {

Status status_of(const std::exception& e) noexcept {
  if (const auto* error = dynamic_cast<const Error*>(&e)) return error->status();
  if (dynamic_cast<const db::DatabaseError*>(&e)) return Status::kDatabaseError;
  return Status::kInternal;
}

static std::string where(const char* call, const char* file, int line) {
  return std::string(call) + " at " + file + ":" + std::to_string(line);
}

static bool is_no_device(cudaError_t e) {
  return e == cudaErrorNoDevice || e == cudaErrorInsufficientDriver ||
         e == cudaErrorInitializationError || e == cudaErrorCallRequiresNewerDriver;
}

void throw_cuda(int code, const char* call, const char* file, int line) {
  auto e = static_cast<cudaError_t>(code);
  if (is_no_device(e)) {
    throw Error(Status::kNoDevice, std::string("no CUDA device / driver found (") +
                                       cudaGetErrorString(e) +
                                       "); run gemmtune on a machine with an NVIDIA GPU");
  }
  throw Error(Status::kCudaError, std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e) +
                                      " in " + where(call, file, line));
}

void throw_nvrtc(int code, const char* call, const char* file, int line) {
  throw Error(Status::kCompileError,
              std::string(nvrtcGetErrorString(static_cast<nvrtcResult>(code))) + " in " +
                  where(call, file, line));
}

void warn_cuda(int code, const char* call, const char* file, int line) {
  log(LogLevel::error, std::string(cudaGetErrorString(static_cast<cudaError_t>(code))) + " in " +
                           where(call, file, line));
}

}  // namespace detail
}  // namespace gemmtune
