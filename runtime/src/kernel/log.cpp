// The log sink: one process-wide callback, read under a lock and called outside it, so a slow
// callback never blocks another thread's message for longer than its own.
#include <cstdio>
#include <memory>
#include <mutex>
#include <set>

#include "gemmtune/logging.hpp"

namespace gemmtune {

namespace {
std::mutex& sink_mutex() {
  static std::mutex m;
  return m;
}
std::shared_ptr<const LogCallback>& sink() {
  static std::shared_ptr<const LogCallback> callback;
  return callback;
}
}  // namespace

const char* log_level_name(LogLevel level) {
  switch (level) {
    case LogLevel::info: return "info";
    case LogLevel::warning: return "warning";
    case LogLevel::error: return "error";
  }
  return "?";
}

void set_log_callback(LogCallback callback) {
  auto next = callback ? std::make_shared<const LogCallback>(std::move(callback)) : nullptr;
  std::lock_guard lock(sink_mutex());
  sink() = std::move(next);
}

namespace detail {

void log(LogLevel level, const std::string& message) {
  std::shared_ptr<const LogCallback> callback;
  {
    std::lock_guard lock(sink_mutex());
    callback = sink();
  }
  if (callback) {
    try {
      (*callback)(level, message);
    } catch (...) {  // a throwing callback must not turn a warning into a failure
    }
    return;
  }
  if (level == LogLevel::info)
    std::fprintf(stderr, "gemmtune: %s\n", message.c_str());
  else
    std::fprintf(stderr, "gemmtune: %s: %s\n", log_level_name(level), message.c_str());
}

void warn_once(const std::string& topic, const std::string& message) {
  static std::mutex mutex;
  static std::set<std::string> warned;
  {
    std::lock_guard lock(mutex);
    if (!warned.insert(topic).second) return;
  }
  log(LogLevel::warning, message);
}

}  // namespace detail
}  // namespace gemmtune
