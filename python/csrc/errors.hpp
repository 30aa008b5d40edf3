#pragma once
// gemmtune's errors as PyTorch errors. The message starts with "[gemmtune status N: NAME] ", which
// the Python package turns into gemmtune.GemmtuneError and its subclasses (gemmtune/errors.py); an
// invalid argument is also a ValueError.
#include <gemmtune/error.hpp>

#include <c10/util/Exception.h>

#include <exception>
#include <string>

namespace gemmtune_torch {

/// Throws the c10 error of a library failure in `what`.
[[noreturn]] inline void throw_library_error(const std::exception& e, const std::string& what) {
  const gemmtune::Status status = gemmtune::detail::status_of(e);
  const std::string message = "[gemmtune status " + std::to_string(int(status)) + ": " +
                              gemmtune::status_name(status) + "] " + what + ": " + e.what();
  TORCH_CHECK_VALUE(status != gemmtune::Status::kInvalidArgument, message);
  TORCH_CHECK(false, message);
}

/// Runs `call` (which calls the library) and turns a gemmtune failure into a c10 error naming the
/// operator `name` and the problem (`describe()`, evaluated only on failure). PyTorch's own
/// errors pass through unchanged.
template <typename Call, typename Describe>
void library_call(Call&& call, const char* name, Describe&& describe) {
  try {
    call();
  } catch (const c10::Error&) {
    throw;
  } catch (const std::exception& e) {
    throw_library_error(e, std::string("gemmtune.") + name + " (" + describe() + ")");
  }
}

}  // namespace gemmtune_torch
