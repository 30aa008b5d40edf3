#pragma once
// Emitting messages: through the callback of set_log_callback(), else on stderr.
#include <string>

#include "gemmtune/log.hpp"

namespace gemmtune::detail {

/// Sends `message` at `level` to the log callback, or prints it on stderr.
void log(LogLevel level, const std::string& message);

/// log(warning, message), at most once per process for each `topic`.
void warn_once(const std::string& topic, const std::string& message);

}  // namespace gemmtune::detail
