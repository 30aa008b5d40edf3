#pragma once
// Where gemmtune's messages go. By default warnings (an unusable tuning database, a tuned kernel
// that no longer compiles, a CUDA error while cleaning up) and, with DispatcherOptions::verbose,
// the choices made are printed on stderr, one line each, starting "gemmtune: ". A program that
// has its own logging installs a callback instead; gemmtune then writes nothing to stderr.
#include <functional>
#include <string>

namespace gemmtune {

/// How much a message matters.
enum class LogLevel : int {
  info = 0,  ///< what the dispatcher chose and why (DispatcherOptions::verbose only)
  warning =
      1,  ///< something degraded but the call went on (e.g. built-in kernels without a database)
  error = 2,  ///< something failed where no exception can report it (e.g. in a destructor)
};

/// "info", "warning" or "error".
const char* log_level_name(LogLevel level);

/// Receives each message (one line, no "gemmtune: " prefix, no newline). It may be called from
/// any thread that calls gemmtune, also at once from several; it must not call gemmtune.
using LogCallback = std::function<void(LogLevel level, const std::string& message)>;

/// Sends every later message of this process to `callback` (all dispatchers: the setting is
/// process-wide, like the once-per-process warnings it carries); an empty callback restores
/// stderr. Thread-safe.
void set_log_callback(LogCallback callback);

}  // namespace gemmtune
