#pragma once
// Errors: every gemmtune C++ API reports failure by throwing gemmtune::Error, which carries a
// Status (the same codes the C API returns) and a message saying what went wrong and what to do.
#include <stdexcept>
#include <string>

namespace gemmtune {

/// Failure categories, shared by the C++ exceptions and the C API's status codes.
enum class Status : int {
  kSuccess = 0,
  kInvalidArgument = 1,  ///< a bad shape, leading dimension, pointer or option
  kNoDevice = 2,         ///< no CUDA device or driver on this machine
  kCudaError = 3,        ///< a CUDA runtime call failed
  kCompileError = 4,     ///< NVRTC could not compile a kernel
  kDatabaseError = 5,    ///< the tuning database could not be read or written
  kNotSupported = 6,     ///< no kernel can run this problem
  kInternal = 7,         ///< a bug in gemmtune
  kNotPrepared = 8,      ///< the call would compile a kernel or allocate memory while its stream
                         ///< is being captured into a CUDA Graph: prepare() it before capturing
};

/// Human-readable name of a status ("invalid argument", ...).
const char* status_name(Status s);

/// The exception every gemmtune C++ call throws on failure.
class Error : public std::runtime_error {
 public:
  Error(Status status, const std::string& message) : std::runtime_error(message), status_(status) {}
  /// The failure category.
  Status status() const { return status_; }

 private:
  Status status_;
};

namespace detail {
/// The status an exception caught at an API boundary (the C API) reports: an Error's own,
/// kDatabaseError for a failure of the tuning database (db::DatabaseError, not a public type),
/// kInternal for anything else (out of memory, a bug).
Status status_of(const std::exception& e) noexcept;

[[noreturn]] void throw_cuda(int code, const char* call, const char* file, int line);
[[noreturn]] void throw_nvrtc(int code, const char* call, const char* file, int line);
void warn_cuda(int code, const char* call, const char* file, int line);
}  // namespace detail

}  // namespace gemmtune

/// Checks a CUDA runtime call; throws gemmtune::Error with the call text, file and line on failure.
#define GEMMTUNE_CUDA(call)                                                         \
  do {                                                                              \
    auto gemmtune_rc_ = (call);                                                     \
    if (gemmtune_rc_ != 0)                                                          \
      ::gemmtune::detail::throw_cuda(int(gemmtune_rc_), #call, __FILE__, __LINE__); \
  } while (0)

/// Like GEMMTUNE_CUDA but never throws: for destructors; logs an error instead (log.hpp).
#define GEMMTUNE_CUDA_NOTHROW(call)                                                \
  do {                                                                             \
    auto gemmtune_rc_ = (call);                                                    \
    if (gemmtune_rc_ != 0)                                                         \
      ::gemmtune::detail::warn_cuda(int(gemmtune_rc_), #call, __FILE__, __LINE__); \
  } while (0)

/// Checks an NVRTC call; throws gemmtune::Error(kCompileError) on failure.
#define GEMMTUNE_NVRTC(call)                                                         \
  do {                                                                               \
    auto gemmtune_rc_ = (call);                                                      \
    if (gemmtune_rc_ != 0)                                                           \
      ::gemmtune::detail::throw_nvrtc(int(gemmtune_rc_), #call, __FILE__, __LINE__); \
  } while (0)
